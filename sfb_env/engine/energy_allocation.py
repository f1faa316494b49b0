"""The Energy Allocation clamp (B2.0, B3.0): each governed ship's form paid item by item in the
priority docs/engine/energy.md describes; the items come in a declared, ordered table
(``engine.rule_tables.ENERGY_PAYMENTS``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from sfb_env.engine import (
    cloak,
    damage_control,
    esg,
    esg_field,
    fractional,
    fusion,
    ppd,
    ppd_fire,
    reinforcement,
)
from sfb_env.engine import events as ev
from sfb_env.engine.energy_form import (
    CYCLE,
    HOLD_COST,
    HOLD_GENERAL,
    N_SHIELDS,
    ROLL_COST,
    SINGLE_TURN,
    WARP_ONLY,
    batteries_pay,
    capacitor_room,
    dc_rating,
    destroyed_before,
    empty_batteries,
    heavy_rows,
    max_payable_speed,
    max_payable_tactical,
    movement_cost,
    power,
    repair_energy,
    stage,
    tactical_cost,
)
from sfb_env.engine.energy_switches import (
    cloak_allowed,
    governed,
    has_cloak,
    system_costs,
)
from sfb_env.engine.reserve_power import ReserveUse
from sfb_env.engine.standing_orders import standing_arm
from sfb_env.engine.types import ACTIVE, ArmOrder, Box, Orders, WeaponType

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

_ESG = int(WeaponType.ESG)
_PPD = int(WeaponType.PPD)


class Purse:
    """The form's pools: warp, impulse, APR (line 4) and charged batteries (line 5)."""

    def __init__(self, warp: int, imp: int, apr: int, batteries: int) -> None:
        self.warp, self.imp, self.apr, self.batteries = warp, imp, apr, batteries
        self.batteries_used = 0

    def ship_power(self) -> int:
        return self.warp + self.imp + self.apr

    def pay(self, cost: int, warp_only: bool = False, batteries: bool = True) -> bool:
        """Pay ``cost`` in full (APR, impulse, warp, then batteries) or nothing."""
        if warp_only:
            if self.warp < cost:
                return False
            self.warp -= cost
            return True
        reach = self.ship_power() + (self.batteries if batteries else 0)
        if reach < cost:
            return False
        for pool in ("apr", "imp", "warp"):
            take = min(cost, getattr(self, pool))
            setattr(self, pool, getattr(self, pool) - take)
            cost -= take
        self.batteries -= cost
        self.batteries_used += cost
        return True

    def afford(self, wanted: int, batteries: bool = True) -> int:
        """The most whole points of ``wanted`` payable now (pools may hold fractions, B3.2)."""
        reach = self.ship_power() + (self.batteries if batteries else 0)
        return max(0, min(wanted, math.floor(reach)))


@dataclass
class Form:
    """One ship's form while the clamp pays it: the orders, the purse, and what an item leaves
    to those after it (the speed paid for; the heavy weapons' orders, which the ESG item reads;
    the batteries recharged)."""

    order: Orders
    purse: Purse
    speed: int = 0
    rows: list[int] = field(default_factory=list)
    arm: dict[int, int] = field(default_factory=dict)
    recharged: int = 0


#: One item of the clamp: pays its line of ``unit``'s form from ``form.purse`` and returns the
#: energy ordered but not paid (each item logs its own ``EnergyShortfall``).
PaymentItem = Callable[["Battle", int, Form], int]


def energy_allocation(battle: Battle, orders: dict[int, Orders],
                      payments: Sequence[PaymentItem]) -> None:
    """(B2.0 Energy Allocation) Pay each governed ship's form for the turn now starting, item by
    item in ``payments``, the clamp priority (``engine.rule_tables.ENERGY_PAYMENTS``); set the
    cloak flags of every unit (G13.0). Runs after Speed Determination has applied
    ``Orders.speed``, so the speed paid for is ``st.speed``."""
    st = battle.state
    st.cloaked_before[:] = st.cloaked
    st.cloaked[:] = False
    for u in np.flatnonzero(st.status == ACTIVE):
        u = int(u)
        if governed(battle, u):
            _allocate(battle, u, orders.get(u) or Orders(), payments)
    if battle.rules.standard_cloak:  # (G13 standard rule) turn-to-turn announcements
        cloak.start_turn(battle)


def _allocate(battle: Battle, u: int, order: Orders, payments: Sequence[PaymentItem]) -> None:
    st = battle.state
    uid = battle.unit_ids[u]
    turn = st.turn
    st.batteries[u] = min(int(st.batteries[u]), int(st.boxes[u, Box.BATTERY]))  # line 5/6
    warp, imp, apr = power(battle, u)
    battery_pool = int(st.batteries[u])
    if battle.rules.fractional_accounting:  # (B3.2) pools kept exact; a battery may hold a fraction
        if battery_pool >= int(st.boxes[u, Box.BATTERY]):
            st.battery_fraction[u] = 0.0
        battery_pool += Fraction(float(st.battery_fraction[u])).limit_denominator(1000)
    purse = Purse(warp, imp, apr, battery_pool)
    form = Form(order, purse)
    shortfall = 0
    for pay in payments:
        shortfall += pay(battle, u, form)
    recharged, speed = form.recharged, form.speed
    st.energy_shortfall[u] = shortfall
    used = warp + imp + apr - purse.ship_power() + purse.batteries_used
    if battle.rules.fractional_accounting:  # (B3.2) batteries keep fractions; the total rounds up
        fractional.settle_batteries(battle, u, purse.batteries + recharged)
        used, purse.batteries_used = math.ceil(used), float(purse.batteries_used)
    else:
        st.batteries[u] = int(st.batteries[u]) - purse.batteries_used + recharged  # line 21
    battle.log(ev.EnergyAllocated(turn, 0, uid, warp + imp + apr, used, purse.batteries_used,
                                  recharged, shortfall, speed))


# ---------------------------------------------------------------------- the clamp's items


def pay_movement(battle: Battle, u: int, form: Form) -> int:
    """Priority 1, movement (B3.0 line 14): never dropped (the speed mask only opens speeds
    warp + impulse can pay); a standing speed the ship can no longer pay is lowered. A ship
    that plotted TAC pays its tactical maneuvers here instead (``_pay_tactical``)."""
    st = battle.state
    if st.tactical[u]:
        return _pay_tactical(battle, u, form)
    purse = form.purse
    # set by Speed Determination from the same orders; a standing speed the ship can no
    # longer pay (orders cannot ask it) is lowered
    speed, shortfall = _lower_to_payable(battle, u, int(st.speed[u]),
                                         max_payable_speed(battle, u), "movement")
    move_warp, move_imp = movement_cost(battle, u, speed)
    purse.warp -= move_warp
    purse.imp -= move_imp
    form.speed = speed
    return shortfall


def _lower_to_payable(battle: Battle, u: int, value: int, payable: int,
                      line: str) -> tuple[int, int]:
    """``(value, shortfall)``: a standing speed or TAC plot (``st.speed``) the engines can no
    longer pay is lowered to what they pay, with an ``EnergyShortfall`` and a ``SpeedSet``."""
    if value <= payable:
        return value, 0
    st = battle.state
    uid, turn = battle.unit_ids[u], st.turn
    battle.log(ev.EnergyShortfall(turn, 0, uid, line, value - payable))
    st.speed[u] = payable
    battle.log(ev.SpeedSet(turn, 0, uid, payable))
    return payable, value - payable


def _pay_tactical(battle: Battle, u: int, form: Form) -> int:
    """Priority 1 for a TAC plot, the movement line it replaces (C5.11 "TAC" is written in the
    movement plot): the warp tactical maneuvers bought (the plotted speed, C5.23), each the
    warp energy of one hex, never impulse energy (C5.22), and the sublight maneuver's 1 impulse
    engine energy (C5.12), allocated with the plot: the form is the only time ship power is
    allocated, so a ship without impulse power has no sublight maneuver this turn. Never
    dropped (the TAC plot mask only opens what warp pays); a standing plot warp can no longer
    pay is lowered."""
    st = battle.state
    purse = form.purse
    warp_maneuvers, shortfall = _lower_to_payable(battle, u, int(st.speed[u]),
                                                  max_payable_tactical(battle, u), "tactical")
    warp, imp = tactical_cost(battle, u, warp_maneuvers)
    purse.warp -= warp
    purse.imp -= imp
    st.tac_sublight[u] = imp > 0  # (C5.12) paid from the impulse engines, or none this turn
    form.speed = warp_maneuvers
    return shortfall


def pay_systems(battle: Battle, u: int, form: Form) -> int:
    """Priority 1b (standard form): life support, fire control, shields (CTH-DATA §7.1, §7.4)."""
    st = battle.state
    uid, turn, purse = battle.unit_ids[u], st.turn, form.purse
    shortfall = 0
    st.shields_active[u] = st.fire_control[u] = True
    for item, cost in system_costs(battle, u):
        paid = purse.pay(cost)
        if not paid:
            shortfall += cost
            battle.log(ev.EnergyShortfall(turn, 0, uid, item, cost))
        if item == "shields":
            st.shields_active[u] = paid
        elif item == "fire control":
            st.fire_control[u] = paid
    return shortfall


def pay_heavy_weapons(battle: Battle, u: int, form: Form) -> int:
    """Priorities 2-4: holding costs and plasma rolling delays, arming continuations, new
    arming, in weapon order (E3.2, E4.2, E7.21, E7.23, E11.21, E11.25, FP1.22, FP2.0)."""
    st = battle.state
    uid, turn, order, purse = battle.unit_ids[u], st.turn, form.order, form.purse
    shortfall = 0
    rows = [int(w) for w in heavy_rows(battle, u)]
    arm = {w: int(order.arm[w]) if w in order.arm else standing_arm(battle, w) for w in rows}
    for w in rows:  # single-turn charges end with the turn (E3.2, E7.23)
        if int(st.w_type[w]) in SINGLE_TURN:
            st.w_armed[w] = False
            st.w_arm_stage[w] = 0
        elif int(st.w_type[w]) not in (_ESG, _PPD):
            st.w_arm_stage[w] = stage(battle, w)
    tiers = _arming_tiers(battle, rows, arm)
    for tier in (2, 3, 4):
        for w, cost, what in tiers[tier]:
            kind = int(st.w_type[w])
            wid = battle.weapon_ids[w]
            warp_only = kind in WARP_ONLY and what == "arm"
            paid = what == "hold:top_up" and purse.pay(cost)
            if what == "hold:top_up" and not paid:  # (E11.25) PROPOSAL [P-030]: the top-up is
                shortfall += cost - ppd.HOLDING_COST  # dropped first, the hold is kept
                battle.log(ev.EnergyShortfall(turn, 0, uid, f"top_up:{wid}",
                                              cost - ppd.HOLDING_COST))
                cost, what = ppd.HOLDING_COST, "hold"
            if not paid and not purse.pay(cost, warp_only=warp_only):
                shortfall += cost
                battle.log(ev.EnergyShortfall(turn, 0, uid, f"arm:{wid}", cost))
                _discharge(battle, w, "not paid: energy shortfall")
                continue
            if kind == _PPD:
                ppd_fire.allocate(battle, w, what)
            elif what == "arm":
                st.w_arm_stage[w] += 1
                st.w_armed[w] = bool(st.w_arm_stage[w] == len(CYCLE[kind]))
            now = stage(battle, w) if kind == _PPD else int(st.w_arm_stage[w])
            battle.log(ev.WeaponArmed(turn, 0, uid, wid, cost, now,
                                      bool(st.w_armed[w]), held=what.startswith("hold"),
                                      rolled=what == "roll"))
    form.rows, form.arm = rows, arm
    return shortfall


def _arming_tiers(battle: Battle, rows: list[int],
                  arm: dict[int, int]) -> dict[int, list[tuple[int, int, str]]]:
    """The heavy weapons' items by priority: 2 holding and rolling delays, 3 continuations,
    4 new arming, each (weapon, cost, what); a charge let go, destroyed or unpriced is
    discharged here."""
    st = battle.state
    turn = st.turn
    tiers: dict[int, list[tuple[int, int, str]]] = {2: [], 3: [], 4: []}
    for w in rows:
        kind, value = int(st.w_type[w]), arm[w]
        if kind == _ESG:
            continue
        if kind == _PPD:  # (E11.21, E11.22) priced by engine.ppd_fire
            price = None if st.w_destroyed[w] else ppd_fire.cost(battle, w, value)
            if price is None:
                _discharge(battle, w, "destroyed" if st.w_destroyed[w] else "let go or fired")
            elif price[1].startswith("hold"):  # (E11.25) a top-up is paid with its hold
                tiers[2].append((w, price[0], price[1]))
            else:
                continuing = (int(st.ppd_stage[w]) == ppd.PpdStage.ARMING
                              and int(st.ppd_paid_turn[w]) == turn - 1)
                tiers[3 if continuing else 4].append((w, price[0], price[1]))
            continue
        s = int(st.w_arm_stage[w])
        cycle = CYCLE[kind]
        if st.w_destroyed[w]:  # (D4.0) destroyed since the orders were given: nothing to pay
            _discharge(battle, w, "destroyed")
        elif value == ArmOrder.NONE:
            if s:
                _discharge(battle, w, "let go at Energy Allocation")
        elif value == ArmOrder.HOLD:
            if s == len(cycle) and st.w_armed[w]:
                tiers[2].append((w, HOLD_COST[kind], "hold"))
            elif s == len(cycle) - 1 and kind in ROLL_COST:
                tiers[2].append((w, ROLL_COST[kind], "roll"))
            # else: fired in the impulse that gave the order: the hold lapses
            # (docs/engine/energy.md)
        elif s < len(cycle):
            if kind == int(WeaponType.FUSION) and not fusion.can_arm(
                    fusion.FusionBeam(fired_turn=int(st.w_fired_turn[w]) or None), turn)[0]:
                continue  # (E7.22) fired in the impulse that gave the order: the ARM lapses
            tiers[3 if s else 4].append((w, cycle[s], "arm"))
    return tiers


def pay_cloak(battle: Battle, u: int, form: Form) -> int:
    """Priority 5: the cloak (G13.0)."""
    st = battle.state
    uid, turn, order, purse = battle.unit_ids[u], st.turn, form.order, form.purse
    shortfall = 0
    if order.cloak and has_cloak(battle, u) and cloak_allowed(battle):
        cost = int(battle.ship_classes[u].cloak_cost)
        if purse.pay(cost):
            st.cloaked[u] = True
        else:
            shortfall += cost
            battle.log(ev.EnergyShortfall(turn, 0, uid, "cloak", cost))
    return shortfall


def pay_repair_and_reinforcement(battle: Battle, u: int, form: Form) -> int:
    """Priorities 5a, 5b (standard form, scenario 10): damage control (D9.2), reinforcement
    (D3.34)."""
    if not battle.rules.standard_energy:
        return 0
    return _pay_repair_and_reinforcement(battle, u, form.order, form.purse)


def pay_esg(battle: Battle, u: int, form: Form) -> int:
    """Priority 6: ESG charge, partly paid in whole points (G23.21, G23.22); the Chief
    Engineer path is ``esg_field``'s own."""
    st = battle.state
    uid, turn, purse, rows, arm = battle.unit_ids[u], st.turn, form.purse, form.rows, form.arm
    shortfall = 0
    for w in rows:
        if int(st.w_type[w]) != _ESG or arm[w] != ArmOrder.ARM or st.w_destroyed[w]:
            continue
        wanted = int(st.esg_max[w] - st.esg_stored[w])
        paid = purse.afford(wanted)
        if paid < wanted:
            shortfall += wanted - paid
            battle.log(ev.EnergyShortfall(turn, 0, uid, f"arm:{battle.weapon_ids[w]}",
                                          wanted - paid))
        if paid:
            purse.pay(paid)
            esg_field.store(battle, w, esg.charge(esg_field.generator(battle, w), paid))
            battle.log(ev.EsgCharged(turn, 0, uid, battle.weapon_ids[w], paid,
                                     int(st.esg_stored[w])))
    return shortfall


def pay_capacitor(battle: Battle, u: int, form: Form) -> int:
    """Priority 7: the phaser capacitor, partly paid in whole points (H6.1)."""
    st = battle.state
    uid, turn, order, purse = battle.unit_ids[u], st.turn, form.order, form.purse
    shortfall = 0
    room = capacitor_room(battle, u)
    wanted = room if order.capacitor is None else min(int(order.capacitor), room)
    paid = purse.afford(wanted)
    if paid < wanted:
        shortfall += wanted - paid
        battle.log(ev.EnergyShortfall(turn, 0, uid, "capacitor", wanted - paid))
    purse.pay(paid)
    st.capacitor[u] = min(float(st.capacitor_max[u]), float(st.capacitor[u]) + paid)
    return shortfall


def pay_recharge(battle: Battle, u: int, form: Form) -> int:
    """Priority 8: battery recharge (line 16), up to the number ordered, from the ship power
    left over (never battery power); the rest is not a shortfall."""
    order, purse = form.order, form.purse
    # priority 8: battery recharge (line 16), from ship power only
    empty = empty_batteries(battle, u)  # (none is left if a battery paid for the form)
    wanted = empty if order.recharge is None else min(int(order.recharge), max(0, empty))
    recharged = purse.afford(max(0, wanted), batteries=False)  # what is left: no shortfall
    purse.pay(recharged, batteries=False)
    form.recharged = recharged
    return 0


def _pay_repair_and_reinforcement(battle: Battle, u: int, order: Orders, purse: Purse) -> int:
    """Damage control (D9.2) and reinforcement (D3.34) of the turn now starting; returns the
    energy ordered but not paid. Batteries (reserve power, H7.0) may pay specific
    reinforcement (H7.2), never damage control (D9.2) nor general reinforcement (H7.2 names
    specific only): those two are paid from ship power (line 4) alone."""
    st = battle.state
    turn, uid = st.turn, battle.unit_ids[u]
    shortfall = _pay_repair(battle, u, order, purse)
    st.reinf_held[u] = False
    if not (order.reinforce or order.reinforce_general):
        return shortfall
    shields = [int(v) for v in st.shields[u]]
    specific = [0] * N_SHIELDS
    for s, e in sorted(order.reinforce.items()):
        if not e or shields[s - 1] == 0:  # (D3.343) fell since the orders: nothing is paid
            continue
        if st.shields_active[u] and purse.pay(int(e)):
            specific[s - 1] = int(e)
        else:  # (D3.34) no reinforcement without active shields
            shortfall += int(e)
            battle.log(ev.EnergyShortfall(turn, 0, uid, f"reinforce:#{s}", int(e)))
    wanted = 2 * int(order.reinforce_general)
    batteries = batteries_pay(ReserveUse.GENERAL_REINFORCEMENT)  # (H7.2) specific only
    general = (purse.afford(wanted, batteries) // 2 * 2) if st.shields_active[u] else 0
    purse.pay(general, batteries=batteries)
    if general < wanted:
        shortfall += wanted - general
        battle.log(ev.EnergyShortfall(turn, 0, uid, "reinforce_general", wanted - general))
    bought = reinforcement.allocate_reinforcement(shields, general, specific)
    st.reinf_general[u] = bought.general
    st.reinf_specific[u] = bought.specific
    battle.log(ev.ShieldsReinforced(turn, 0, uid, bought.general, tuple(bought.specific)))
    if order.reinforce_hold == HOLD_GENERAL and bought.general:  # (D3.3411 note) held inactive
        st.reinf_held[u] = True
        battle.log(ev.GeneralReinforcementHeld(turn, 0, uid, bought.general, False))
    return shortfall


def _pay_repair(battle: Battle, u: int, order: Orders, purse: Purse) -> int:
    """Damage control (D9.2): ``repair`` (one shield, the most the rating allows) then
    ``repair_boxes`` in shield order, each trimmed to the rating left and to the boxes lost on
    earlier turns (PROPOSAL [P-034]: the clamp of a spread over the rating); returns the energy
    ordered but not paid."""
    if not (order.repair or order.repair_boxes):
        return 0
    st = battle.state
    turn, uid = st.turn, battle.unit_ids[u]
    rating, lost = dc_rating(battle, u), destroyed_before(battle, u)
    dc_batteries = batteries_pay(ReserveUse.DAMAGE_CONTROL)  # (D9.2) never reserve power
    spent: dict[int, int] = {}
    shortfall = 0
    if order.repair:
        s = int(order.repair)
        cost = repair_energy(battle, u, s)  # boxes lost since the orders only add to it
        if cost and purse.pay(cost, batteries=dc_batteries):
            spent[s] = cost
        elif cost:
            shortfall += cost
            battle.log(ev.EnergyShortfall(turn, 0, uid, f"repair:#{s}", cost))
    for s, boxes in sorted(order.repair_boxes.items()):
        room = min(lost[s - 1] - spent.get(s, 0) // 2, (rating - sum(spent.values())) // 2)
        cost = 2 * max(0, min(int(boxes), room))
        if cost and purse.pay(cost, batteries=dc_batteries):
            spent[s] = spent.get(s, 0) + cost
        elif cost:
            shortfall += cost
            battle.log(ev.EnergyShortfall(turn, 0, uid, f"repair:#{s}", cost))
    if spent:
        st.dc_repairs[u] = damage_control.plan_damage_control(rating, spent, lost).repairs
    return shortfall


def end_of_turn(battle: Battle) -> None:
    """(D9.2) Damage control restores its shield boxes; (D3.341, D3.342) unused reinforcement
    vanishes. Runs before the turn number moves on."""
    st = battle.state
    if not battle.rules.standard_energy:
        return
    for u in np.flatnonzero(st.dc_repairs.any(axis=1)):
        u = int(u)
        if st.status[u] != ACTIVE:
            continue
        plan = damage_control.DamageControlPlan(0, (0,) * N_SHIELDS,
                                                tuple(int(v) for v in st.dc_repairs[u]))
        st.shields[u] = damage_control.repair_shields(
            [int(v) for v in st.shields[u]], [int(v) for v in battle.initial.shields[u]], plan)
        battle.log(ev.ShieldsRepaired(st.turn, st.impulse, battle.unit_ids[u], plan.repairs))
    st.dc_repairs[:] = 0
    st.reinf_general[:] = 0  # (D3.341, D3.342) reinforcement.end_of_turn: nothing carries over
    st.reinf_held[:] = False
    st.reinf_specific[:] = 0


def _discharge(battle: Battle, w: int, reason: str) -> None:
    """Weapon ``w`` loses its arming or charge without firing."""
    st = battle.state
    had = bool(st.w_arm_stage[w]) or bool(st.w_armed[w] and int(st.w_type[w]) in HOLD_COST)
    if int(st.w_type[w]) == _PPD:
        had = bool(st.ppd_stage[w])
        ppd_fire.allocate(battle, w, None)  # (E11.21, E11.22) an unpaid charge is lost
    st.w_arm_stage[w] = 0
    st.w_armed[w] = False
    if had:
        battle.log(ev.WeaponDischarged(st.turn, 0, battle.unit_ids[int(st.w_owner[w])],
                                       battle.weapon_ids[w], reason))
