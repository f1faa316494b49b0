"""Energy Allocation orders (B3.0): which values each energy component may take now and why
not (the masks' and ``validate``'s predicates)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env.engine import cloak, fusion, ppd_fire
from sfb_env.engine.energy_form import (
    ACTIVATE_GENERAL,
    ARMING_RULE,
    CADET_ACCELERATION,
    CYCLE,
    ESG_RESERVE_VALUES,
    HOLD_COST,
    HOLD_GENERAL,
    KEEP_RESERVE,
    N_SHIELDS,
    REINFORCE_GENERAL_MAX,
    REINFORCE_HOLD_VALUES,
    REINFORCE_SPECIFIC_MAX,
    REPAIR_BOX_VALUES,
    REPAIR_VALUES,
    RESERVE_SHIELD_VALUES,
    ROLL_COST,
    SINGLE_TURN,
    STANDARD_ACCELERATION,
    batteries_pay,
    battery_boxes,
    capacitor_room,
    capacitor_values,
    charged,
    dc_rating,
    destroyed_before,
    empty_batteries,
    heavy_rows,
    max_payable_speed,
    max_payable_tactical,
    power,
    previous_speed,
    reach,
    repair_energy,
    stage,
)
from sfb_env.engine.energy_switches import (
    NOT_NOW,
    allocation_open,
    allocation_turn,
    cloak_allowed,
    governed,
    has_cloak,
)
from sfb_env.engine.reserve_power import FORBIDDEN_USES, ReserveUse
from sfb_env.engine.types import (
    MAX_WARP_TACTICAL,
    ArmOrder,
    IllegalOrderError,
    Orders,
    WeaponType,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

_ESG = int(WeaponType.ESG)
_PLASMA = (int(WeaponType.PLASMA_S), int(WeaponType.PLASMA_R), int(WeaponType.PLASMA_F))
_PPD = int(WeaponType.PPD)


def speed_blockers(battle: Battle, unit: int, top: int) -> dict[int, str]:
    """Speeds 0..top a governed ship may not order at Energy Allocation, with the rule."""
    prev = previous_speed(battle, unit)
    if battle.rules.standard_energy:  # (CTH-DATA §7.3) the greater of doubling and +10
        accel = max(2 * prev, prev + STANDARD_ACCELERATION)
        why = (f"B3.0 standard acceleration: at most {accel} (previous speed {prev}: the "
               f"greater of 2 x {prev} and {prev} + {STANDARD_ACCELERATION})")
    else:
        accel = prev + CADET_ACCELERATION
        why = (f"B3.0 cadet acceleration: at most {accel} (previous speed "
               f"{prev} + {CADET_ACCELERATION})")
    payable = max_payable_speed(battle, unit)
    out = {}
    for s in range(top + 1):
        if s > accel:
            out[s] = why
        elif s > payable:
            out[s] = (f"B3.0 movement: warp and 1 impulse point pay at most speed {payable} "
                      "(APR and batteries cannot pay movement)")
    return out


def tactical_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """TAC plots (0..4 warp tactical maneuvers, ``Orders.tactical``) a governed ship cannot pay
    at the Energy Allocation now open, with the rule: each warp maneuver costs the warp energy
    of one hex and impulse energy may not pay it (C5.22); a plot of none buys only the sublight
    maneuver, which needs 1 impulse engine energy (C5.12)."""
    payable = max_payable_tactical(battle, unit)
    out = {n: f"C5.22 {n} warp tactical maneuvers cost the warp energy of {n} hexes (impulse "
              f"energy may not pay them): warp pays at most {payable}"
           for n in range(payable + 1, MAX_WARP_TACTICAL + 1)}
    _, imp, _ = power(battle, unit)
    if not imp and 0 not in out:
        out[0] = ("C5.12 the sublight tactical maneuver costs 1 impulse engine energy: the "
                  "ship has no impulse power (and plots no warp tactical maneuver)")
    return out


def arm_blockers(battle: Battle, w: int) -> dict[int, str]:
    """``ArmOrder`` values 1, 2 heavy weapon ``w`` may not be given now, with the rule.
    NONE (0) is always open."""
    st = battle.state
    kind = int(st.w_type[w])
    rule = ARMING_RULE.get(kind, "B3.0")
    if not allocation_open(battle):
        return dict.fromkeys(range(1, arm_values(battle, w)), NOT_NOW)
    if st.w_destroyed[w]:
        return dict.fromkeys(range(1, arm_values(battle, w)), "D4.0 the weapon is destroyed")
    if kind == _PPD:
        return ppd_fire.arm_blockers(battle, w)  # (E11.21-E11.23)
    if kind == _ESG:
        out = {2: "G23.21 stored ESG energy needs no holding cost: nothing to hold"}
        if st.esg_stored[w] >= st.esg_max[w]:
            out[1] = f"G23.22 the generator is full ({int(st.esg_max[w])} energy)"
        return out
    cycle, s = CYCLE[kind], stage(battle, w)
    out: dict[int, str] = {}
    if kind == int(WeaponType.FUSION):
        beam = fusion.FusionBeam(fired_turn=int(st.w_fired_turn[w]) or None)
        ok, why = fusion.can_arm(beam, allocation_turn(battle))
        if not ok:
            out[1] = why
    if s == len(cycle):
        out[1] = f"{rule} the weapon is loaded: hold it (2) or let it go (0)"
        if kind not in HOLD_COST:
            out[2] = ("FP2.0 a plasma-R torpedo cannot be held: launch it or lose it"
                      if kind == int(WeaponType.PLASMA_R) else f"{rule} cannot be held")
    elif kind in SINGLE_TURN:
        out[2] = f"{rule} cannot be held over the turn break: nothing to hold"
    elif s == len(cycle) - 1 and kind in ROLL_COST:
        pass  # (FP1.22) HOLD = rolling delay
    else:
        out[2] = (f"{rule} nothing loaded to hold (arming turn {s + 1} of {len(cycle)})"
                  + ("; only a plasma-S rolls its last arming turn (FP1.22)"
                     if s == len(cycle) - 1 and kind in _PLASMA else ""))
    return out


def arm_values(battle: Battle, w: int) -> int:
    """Size of heavy weapon ``w``'s ``arm[h]`` component: the 3 ``ArmOrder`` values, a PPD's
    6 ``ppd_fire.PpdArm`` values (E11.25 underload and top-up)."""
    return ppd_fire.PPD_ARM_ORDERS if int(battle.state.w_type[w]) == _PPD else len(ArmOrder)


def capacitor_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """``capacitor`` values (energy in) the ship may not order now, with the rule."""
    n = capacitor_values(battle, unit)
    if not allocation_open(battle):
        return {k: NOT_NOW for k in range(1, n)}
    room = capacitor_room(battle, unit)
    return {k: f"H6.1 the phaser capacitor has room for {room} energy"
            for k in range(room + 1, n)}


def recharge_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """``recharge`` values the ship may not order now, with the rule."""
    n = battery_boxes(battle, unit) + 1
    if not allocation_open(battle):
        return {k: NOT_NOW for k in range(1, n)}
    empty = empty_batteries(battle, unit)
    return {k: f"B3.0 line 16: {empty} batteries are empty" for k in range(empty + 1, n)}


def cloak_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """{1: rule} where the ship may not order its cloak now, else {}: at Energy Allocation the
    payment (G13.0); under ``rules.cloak: standard`` at the other decision points the in-turn
    announcement (``cloak.toggle_blockers``)."""
    if not has_cloak(battle, unit):
        return {1: "G13.0 the ship has no cloaking device"}
    if not cloak_allowed(battle):
        return {1: "G13.0 cloaking devices are not in use in this scenario (rules.cloak)"}
    if not allocation_open(battle):  # (G13 standard rule) in-turn: announce a cloak/uncloak
        return cloak.toggle_blockers(battle, unit) if battle.rules.standard_cloak else {1: NOT_NOW}
    return {}


def _over_power(battle: Battle, unit: int, energy_of: dict[int, int],
                use: ReserveUse | None = None) -> dict[int, str]:
    """Values whose energy is more than the form can pay: ship power and charged batteries,
    or ship power alone for a ``use`` reserve power may not pay (D9.2, H7.2); the rule named is
    the battery restriction only where the batteries would have made up the difference."""
    most = reach(battle, unit)
    out = {k: f"B3.0 line 20: {e} energy is more than the ship has ({most}: power and "
              "charged batteries)" for k, e in energy_of.items() if e > most}
    if use is not None and not batteries_pay(use):
        ship = reach(battle, unit, use)
        out.update({k: f"{FORBIDDEN_USES[use]} reserve power (batteries) cannot pay "
                       f"{use.value}: {e} energy is more than the ship's power ({ship}, "
                       "line 4)" for k, e in energy_of.items() if ship < e <= most})
    return out


def reinforce_general_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """``reinforce_general`` values (GR points, 2 energy each) the ship may not order now."""
    values = range(1, REINFORCE_GENERAL_MAX + 1)
    if not battle.rules.reinforcement:
        return {k: "D3.34 shield reinforcement is not in use in this scenario "
                   "(rules.reinforcement)" for k in values}
    if not allocation_open(battle):
        return {k: NOT_NOW for k in values}
    # (D3.341) 2 energy a point; (H7.2) batteries reinforce a specific shield only
    return _over_power(battle, unit, {k: 2 * k for k in values},
                       ReserveUse.GENERAL_REINFORCEMENT)


def reinforce_blockers(battle: Battle, unit: int, shield: int) -> dict[int, str]:
    """``reinforce[s]`` values (specific energy on shield #``shield``) not open now."""
    values = range(1, REINFORCE_SPECIFIC_MAX + 1)
    if not battle.rules.reinforcement:
        return {k: "D3.34 shield reinforcement is not in use in this scenario "
                   "(rules.reinforcement)" for k in values}
    if not allocation_open(battle):
        return {k: NOT_NOW for k in values}
    if battle.state.shields[unit, shield - 1] <= 0:
        return {k: f"D3.343 shield #{shield} is down and cannot be specifically reinforced"
                for k in values}
    return _over_power(battle, unit, {k: k for k in values})


def _damage_control_closed(battle: Battle, values: range) -> dict[int, str] | None:
    """Every damage-control value closed, with the rule, where the scenario has no damage
    control or the form is not open now; None otherwise."""
    if not battle.rules.damage_control:
        return {k: "D9.0 damage control is not in use in this scenario (rules.damage_control)"
                for k in values}
    if not allocation_open(battle):
        return {k: NOT_NOW for k in values}
    return None


def repair_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """``repair`` values (the shield damage control works on) not open now (D9.2)."""
    values = range(1, REPAIR_VALUES)
    closed = _damage_control_closed(battle, values)
    if closed is not None:
        return closed
    rating = dc_rating(battle, unit)
    if rating < 2:
        return {k: f"D9.2 the damage control rating is {rating}: 2 energy repair one box"
                for k in values}
    lost = destroyed_before(battle, unit)
    out = {k: f"D9.2 shield #{k} lost no box on an earlier turn (no energy in anticipation "
              "of damage)" for k in values if lost[k - 1] == 0}
    out.update(_over_power(battle, unit, {k: repair_energy(battle, unit, k)
                                          for k in values if k not in out},
                           ReserveUse.DAMAGE_CONTROL))  # (D9.2) no reserve power (H7.0)
    return out


def repair_box_blockers(battle: Battle, unit: int, shield: int) -> dict[int, str]:
    """``repair[s]`` values (boxes damage control repairs on shield #``shield``) not open now:
    within the rating, 2 energy a box, only boxes lost on earlier turns (D9.2)."""
    values = range(1, REPAIR_BOX_VALUES)
    closed = _damage_control_closed(battle, values)
    if closed is not None:
        return closed
    rating = dc_rating(battle, unit)
    lost = destroyed_before(battle, unit)[shield - 1]
    out = {k: f"D9.2 the damage control rating is {rating}: at most {rating // 2} boxes a turn "
              "(2 energy each)" for k in values if 2 * k > rating}
    out.update({k: f"D9.2 shield #{shield} lost {lost} boxes on earlier turns (no energy in "
                   "anticipation of damage)" for k in values if k not in out and k > lost})
    out.update(_over_power(battle, unit, {k: 2 * k for k in values if k not in out},
                           ReserveUse.DAMAGE_CONTROL))  # (D9.2) no reserve power (H7.0)
    return out


def reinforce_hold_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """``reinforce_hold`` values not open now (D3.3411 note of rules file 004): hold the general
    reinforcement inactive at Energy Allocation (1), switch held GR on during the turn (2)."""
    values = range(1, REINFORCE_HOLD_VALUES)
    if not battle.rules.reinforcement:
        return {k: "D3.34 shield reinforcement is not in use in this scenario "
                   "(rules.reinforcement)" for k in values}
    st = battle.state
    if allocation_open(battle):
        return {ACTIVATE_GENERAL: "D3.3411 at Energy Allocation the order is the next turn's: "
                                  "general reinforcement is switched on during the turn"}  # [P-033]
    out = {HOLD_GENERAL: "D3.3411 general reinforcement is held inactive from Energy "
                         "Allocation only"}
    if not (st.reinf_held[unit] and st.reinf_general[unit] > 0):
        out[ACTIVATE_GENERAL] = "D3.3411 no general reinforcement is held inactive"
    return out


def reserve_shields_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """``reserve_shields`` values not open now: keeping the batteries out of struck shields
    (1) is the owner's option at any decision point where reserve power is in use (H7.1: "a
    battery may be discharged at any time ... at the option of the owning player"; H7.2)."""
    if not battle.rules.reserve_power:
        return {KEEP_RESERVE: "H7.0 reserve power is not in use in this scenario "
                              "(rules.reserve_power)"}
    return {}


def esg_reserve_blockers(battle: Battle, unit: int, w: int) -> dict[int, str]:
    """``esg_reserve[g]`` values (batteries into ESG generator ``w`` in this impulse) not open
    now: reserve power may be added to the generator, never to the active field (G23.212), at
    any impulse (H7.1), up to its room (G23.22) and the charged batteries (H7.1)."""
    values = range(1, ESG_RESERVE_VALUES)
    st = battle.state
    closed: str | None = None
    if not battle.rules.reserve_power:
        closed = "H7.0 reserve power is not in use in this scenario (rules.reserve_power)"
    elif (w < 0 or w >= len(st.w_owner) or int(st.w_owner[w]) != unit
          or int(st.w_type[w]) != _ESG or st.esg_max[w] <= 0):
        closed = "G23.11 not an expanding sphere generator of this ship"
    elif not st.w_enabled[w]:
        closed = "scenario weapons_allowed: this ESG is not in use"
    elif st.w_destroyed[w]:
        closed = "G23.14 the generator is destroyed"
    elif st.impulse < 1:
        closed = ("G23.212 reserve power goes into the generator during the turn (impulses 1 "
                  "and later)")
    if closed is not None:
        return dict.fromkeys(values, closed)
    room, have = int(st.esg_max[w] - st.esg_stored[w]), charged(battle, unit)
    out = {k: f"G23.22 the generator has room for {room} energy (it holds at most "
              f"{int(st.esg_max[w])})" for k in values if k > room}
    out.update({k: f"H7.1 only {have} batteries are charged" for k in values
                if k not in out and k > have})
    return out


def validate(battle: Battle, unit: int, order: Orders, name: str) -> None:
    """Raise ``IllegalOrderError`` for an energy order the rules forbid (same predicates as
    the masks). Units the form does not govern may give no energy orders."""
    st = battle.state
    if not governed(battle, unit):
        if (order.arm or order.capacitor or order.recharge or order.cloak
                or order.reinforce_general or order.reinforce or order.repair
                or order.repair_boxes or order.reinforce_hold or order.reserve_shields
                or order.esg_reserve):
            raise IllegalOrderError(name, "energy", "", "B3.0 this unit has no Energy Allocation "
                                    f"(rules.energy is {battle.rules.energy!r})")
        return
    heavy = set(int(w) for w in heavy_rows(battle, unit))
    for w, value in order.arm.items():
        if w not in heavy:
            what = (f"weapon {battle.weapon_ids[w]} of {name} takes no arming energy"
                    if 0 <= w < len(st.w_type) else f"no weapon row {w}")
            raise IllegalOrderError(name, "arm", w, f"B3.0 line 10: {what}")
        if isinstance(value, bool) or value not in range(arm_values(battle, w)):
            raise IllegalOrderError(name, f"arm[{battle.weapon_ids[w]}]", value,
                                    "B3.0 arm orders are 0 none, 1 arm, 2 hold" + (
                                        "; a PPD's 3, 4 underload 2, 3 and 5 hold and top up"
                                        " (E11.25)" if int(st.w_type[w]) == _PPD else ""))
        rule = arm_blockers(battle, w).get(int(value))
        if rule is not None:
            raise IllegalOrderError(name, f"arm[{battle.weapon_ids[w]}]",
                                    ppd_fire.arm_name(value) if int(st.w_type[w]) == _PPD
                                    else ArmOrder(int(value)).name, rule)
    for component, value, blockers, size in (
        ("capacitor", order.capacitor, capacitor_blockers, capacitor_values(battle, unit)),
        ("recharge", order.recharge, recharge_blockers, battery_boxes(battle, unit) + 1),
    ):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not (
                0 <= value < size):
            raise IllegalOrderError(name, component, value, f"B3.0 {component} is 0..{size - 1}")
        rule = blockers(battle, unit).get(int(value))
        if rule is not None:
            raise IllegalOrderError(name, component, int(value), rule)
    if order.cloak:
        rule = cloak_blockers(battle, unit).get(1)
        if rule is not None:
            raise IllegalOrderError(name, "cloak", 1, rule)
    _validate_standard(battle, unit, order, name)


def _validate_standard(battle: Battle, unit: int, order: Orders, name: str) -> None:
    """The scenario-10 components: reinforcement (D3.34), damage control (D9.2) and reserve
    power kept out of struck shields (H7.1)."""
    checks = [("reinforce_general", order.reinforce_general, REINFORCE_GENERAL_MAX,
               lambda: reinforce_general_blockers(battle, unit)),
              ("repair", order.repair, REPAIR_VALUES - 1, lambda: repair_blockers(battle, unit)),
              ("reinforce_hold", order.reinforce_hold, REINFORCE_HOLD_VALUES - 1,
               lambda: reinforce_hold_blockers(battle, unit)),
              ("reserve_shields", order.reserve_shields, RESERVE_SHIELD_VALUES - 1,
               lambda: reserve_shields_blockers(battle, unit))]
    if not isinstance(order.esg_reserve, dict):
        raise IllegalOrderError(name, "esg_reserve", order.esg_reserve,
                                "G23.212 esg_reserve maps an ESG weapon row to batteries")
    for w, value in order.esg_reserve.items():
        if isinstance(w, bool) or not isinstance(w, (int, np.integer)):
            raise IllegalOrderError(name, "esg_reserve", w,
                                    "G23.212 esg_reserve maps an ESG weapon row to batteries")
        label = (f"esg_reserve[{battle.weapon_ids[w]}]" if 0 <= w < len(battle.weapon_ids)
                 else "esg_reserve")
        checks.append((label, value, ESG_RESERVE_VALUES - 1,
                       lambda w=w: esg_reserve_blockers(battle, unit, w)))
    for field, rule, what, label, top, blockers in (
        ("repair_boxes", "D9.2", "boxes", "repair", REPAIR_BOX_VALUES - 1, repair_box_blockers),
        ("reinforce", "D3.342", "energy", "reinforce", REINFORCE_SPECIFIC_MAX,
         reinforce_blockers),
    ):  # per-shield orders: a map of shields #1..#6 to a value
        by_shield = getattr(order, field)
        if not isinstance(by_shield, dict):
            raise IllegalOrderError(name, field, by_shield,
                                    f"{rule} {field} maps a shield 1..6 to {what}")
        for shield, value in by_shield.items():
            if isinstance(shield, bool) or shield not in range(1, N_SHIELDS + 1):
                raise IllegalOrderError(name, field, shield, f"{rule} shields are #1..#6")
            checks.append((f"{label}[#{shield}]", value, top,
                           lambda s=shield, of=blockers: of(battle, unit, s)))
    for component, value, top, blockers in checks:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not (
                0 <= value <= top):
            raise IllegalOrderError(name, component, value, f"B3.0 {component} is 0..{top}")
        if value:
            rule = blockers().get(int(value))
            if rule is not None:
                raise IllegalOrderError(name, component, int(value), rule)
