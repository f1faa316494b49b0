"""Energy Allocation (B3.0): the cadet Energy Allocation Form of scenarios 4-6.

Scenario rule ``energy`` (``engine.scenario``): ``chief`` (the Chief Engineer of scenarios 1-3,
SCENARIOS §2.1: nothing here applies), ``cadet`` (this module) or ``off`` (nothing pays any
energy). Under ``cadet`` the form governs every ship a player commands (controller ``agent``);
robot ships "consider every weapon armed every turn" (SCENARIOS §2.5) and freighters have no
allocation, so they stay exempt.

The form (CTH-DATA §7.2), one per ship, at Energy Allocation (the orders given at impulse 0 and
at the last impulse of a turn, with ``Orders.speed``):

* power (line 4) = undestroyed warp + impulse + APR boxes; charged batteries (line 5) may cover
  what line 4 cannot (line 21); unspent energy is lost at the end of the turn.
* movement (line 14): the ship's move cost per hex from **warp**, plus at most one impulse point
  for one hex; APR and batteries never pay movement. The engine always spends the impulse point
  first (it frees a warp point for photons). Speed is open 0..max where acceleration allows it
  (cadet: new <= previous + 8, any deceleration, CTH-DATA §7.3; previous = 0 after a turn of
  tactical maneuvers, C5.4) and warp + 1 impulse can pay it.
* heavy weapons (line 10), one ``ArmOrder`` each (NONE 0 / ARM 1 / HOLD 2; a PPD takes the
  six ``ppd_fire.PpdArm`` values, adding the E11.25 underload and hold-and-top-up):

  ==========  =================  =========================================================
  weapon      arming (per turn)  holding
  ==========  =================  =========================================================
  disruptor   2, any source      none: armed for the turn it is paid (E3.2)
  fusion      2, any source      none (E7.23); not on the turn after it fired (E7.22)
  photon      2 + 2, warp only   1 per turn, any source, or ejected (E4.2); fires from the
                                 2nd arming turn on; an unfinished cycle is lost
  plasma-S    2, 2, 4            2 per turn (FP1.22); HOLD on the last arming turn pays 2 and
                                 rolls the cycle (rolling delay: the 1st turn's 2 is dropped)
  plasma-R    2, 2, 5            cannot be held: an unlaunched torpedo is ejected (FP2.0)
  plasma-F    1, 1, 3            1 per turn (FP2.0)
  ESG         ARM tops the generator up to its capacity (G23.21, G23.22), any source
  PPD         4 + 4 (E11.21)     2 per turn (E11.22); priced and kept by ``engine.ppd_fire``
  ==========  =================  =========================================================

  No torpedo is armed at the start (FP1.23, scenario 6). ``st.w_arm_stage`` counts the arming
  turns paid in the current cycle; ``st.w_armed`` says the weapon holds a charge it may fire or
  launch (a launch or a shot clears it; the next allocation then starts a new cycle).
* phaser capacitor (line 9, H6.0-H6.2): whole points in, up to its capacity (the sum of one
  firing of every phaser); energy stays across turns; each shot draws Ph-1/Ph-2 1, Ph-3 1/2,
  Ph-G 1/4 (E2.1, E2.152). A phaser cannot fire without that much in the capacitor.
* cloak (line 19, G13.0 cadet rule): decided at Energy Allocation for the whole turn, paying
  the ship's cloak cost; only ships with a cloak, where ``rules.cloak`` is in force. This module
  sets ``st.cloaked`` / ``st.cloaked_before``; ``engine.cloak`` applies the effects. Under
  ``rules.cloak: standard`` the same order is the standard rule's turn-to-turn decision: paying
  after an uncloaked turn fades out on impulses 1-4, not paying after a cloaked turn fades in.
* batteries (lines 5, 6, 16, 21): charged at the start; discharged to cover the form's excess
  over line 4; 1 energy from ship power recharges 1 empty battery. Destroyed batteries are taken
  from the empty ones first.
* fractional accounting (B3.2, ``rules.fractional_accounting``, ``engine.fractional``): off,
  every line rounds up item by item (movement: ceil(hexes x move cost)); on, the form's pools
  are exact fractions, only the turn total rounds up, and a battery may hold a fraction
  (``st.battery_fraction``).

Clamp. Masks and ``validate`` judge each component alone (a value is legal if the rules allow
it with the power the ship has); the joint budget is settled here. An allocation that asks for
more than the ship has is paid item by item in this priority, an item that cannot be paid in
full is dropped (partly paid where noted), its cost is added to ``st.energy_shortfall`` and an
``EnergyShortfall`` event names it; the env reports the total in ``infos[agent]
["energy_shortfall"]``:

1. movement (never dropped: the speed mask only opens speeds warp + impulse can pay);
2. holding costs and plasma rolling delays (a loaded weapon is worth the most);
3. arming continuations (photon 2nd turn, plasma 2nd and 3rd turns);
4. new arming (1st arming turn, disruptors, fusion beams), in weapon order;
   4b. the suicide shuttle's bomb, holding and arming (J2.221, ``engine.suicide_shuttles``);
5. the cloak;
6. ESG charge (partly paid: whole points);
7. the phaser capacitor (partly paid: whole points);
8. battery recharge: up to the number ordered, from the ship power left over (never battery
   power); the rest is not a shortfall (recharging is what spare power is for).

General costs are drawn from APR, then impulse, then warp (warp is kept for photons, which
only warp can arm), then batteries. Orders are judged at the decision point: a weapon fired in
the same impulse no longer holds a charge, so its HOLD lapses without cost, and a fusion beam
fired on the last impulse cools the next turn, so its ARM lapses without cost (E7.22).

PROPOSALS (the book is silent): a capacitor with room for a fraction takes a whole point and the
excess is lost (no fractional accounting, CTH-DATA §7.3); absent orders (``Orders.arm`` without
a weapon, ``capacitor``/``recharge`` None) mean the standing allocation (keep the speed,
continue or hold every weapon, fill the capacitor, recharge every battery); a destroyed phaser
does not reduce the capacitor (H6.3 not modelled). Not on the form yet: tactical-maneuver energy
(C5: the warp maneuvers are paid as speed).

The standard form (``energy: standard``, scenarios 7-13; CTH-DATA §7.1, §7.3, §9.2) is the cadet
form plus, right after movement in the clamp priority (priority 1b), life support 1, fire
control 1 and shields 2 per turn, paid automatically (no component). Unpaid shields: the ship's
shields are ignored for the turn, every point goes past them (CTH-DATA §7.4), and no
reinforcement can be bought (D3.34). PROPOSAL (the book is silent): unpaid fire control = no
direct fire and no launch that turn (``fire_blocker``, ``fire_control_blocker``); unpaid life
support has no further effect (an ``EnergyShortfall`` names it). Acceleration: new speed <=
max(2 x previous, previous + 10). Move cost from the ship data (Orion Raider 2/3 a hex, rounded
up without fractional accounting, CTH-DATA §7.3). Cadet ships in a standard battle (scenario 12,
SCENARIOS #12): move cost 1/2, no life support or fire control, shields 1 (they keep the cadet
DAC, ``engine.damage``). Scenario-10 rules on the standard form, each a scenario switch:

* ``reinforcement`` (D3.34): components ``reinforce_general`` (GR points 0..10, 2 energy each,
  D3.341) and ``reinforce[s]`` (specific energy 0..10 on shield #s+1, D3.342; closed on a down
  shield, D3.343), priority 5b after the cloak; ``engine.reinforcement`` absorbs (GR, then
  specific, then boxes, D3.3411) and the rest vanishes at the end of the turn. A shield that
  fell between the orders and the payment takes no specific reinforcement (not paid).
* ``damage_control`` (D9.2): component ``repair`` (0 none, s = shield #s) names the shield at
  Energy Allocation; the engine spends min(rating, 2 x boxes lost on earlier turns), rounded
  down to even, priority 5a; ``engine.damage_control`` restores the boxes at the end of the
  turn. PROPOSAL: one shield a turn (the rating, 4 at most, buys two boxes), so no joint limit
  is left to the clamp; cadet ships among full-size ones have rating 4 (CTH-DATA §7.5).
* ``reserve_power`` (H7.0-H7.3, ``engine.reserve_power``): a phaser whose capacitor holds too
  little fires on battery power (ceil of its draw, H7.2; once a turn all the same, H7.3, by
  E1.5), and, PROPOSAL (no decision point between the roll and the marking), when a volley
  strikes a shield that is up with more points than its reinforcement stops, the owner always
  discharges charged batteries into it as specific reinforcement, one per point left, as
  many as are charged (H7.2; the H7.3 example). Damage control never takes reserve power
  (D9.2). A disruptor or fusion beam not armed at Energy Allocation may fire armed from
  charged batteries (2 each, E3.2, E7.21; H7.2, CTH-DATA §7.6): ``reserve_armable`` opens the
  fire predicate, ``pay_shot`` discharges at the shot (``ReserveDischarged`` "fire:<weapon>");
  the fire rules still limit it (E1.5, E7.22 cooling, H7.3 once a turn).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from sfb_env.engine import (
    cloak,
    dac,
    damage_control,
    esg,
    esg_field,
    fractional,
    fusion,
    ppd,
    ppd_fire,
    reinforcement,
    reserve_power,
    tractors,
)
from sfb_env.engine import events as ev
from sfb_env.engine.types import (
    ACTIVE,
    K_SHIP,
    ArmOrder,
    Box,
    IllegalOrderError,
    Orders,
    WeaponType,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

CADET_ACCELERATION = 8  # CTH-DATA §7.3: new speed <= previous + 8 (scenarios 4-6)
STANDARD_ACCELERATION = 10  # CTH-DATA §7.3: new <= max(2 x previous, previous + 10) (7-12)
#: (B3.0 standard lines 7, 8, 11; CTH-DATA §7.1, §9.2) energy every turn, in payment order.
STANDARD_SYSTEMS = (("life support", 1), ("fire control", 1), ("shields", 2))
CADET_AMONG_FULL_SYSTEMS = (("shields", 1),)  # (SCENARIOS #12) no life support, fire control
CADET_AMONG_FULL_MOVE_COST = Fraction(1, 2)  # (SCENARIOS #12, CTH-DATA §7.3)
N_SHIELDS = 6
REINFORCE_GENERAL_MAX = 10  # ``reinforce_general``: 0..10 GR points (20 energy, D3.341)
REINFORCE_SPECIFIC_MAX = 10  # ``reinforce[s]``: 0..10 energy on one shield (D3.342)
REPAIR_VALUES = N_SHIELDS + 1  # ``repair``: 0 none, 1..6 the shield damage control repairs
MAX_IMPULSE_TO_MOVEMENT = 1  # (B3.0 line 14) at most one impulse point, for one hex

#: Energy per arming turn of each heavy weapon's cycle (E3.2, E4.2, E7.21, FP1.22, FP2.0).
CYCLE: dict[int, tuple[int, ...]] = {
    int(WeaponType.DISRUPTOR): (2,),
    int(WeaponType.FUSION): (2,),
    int(WeaponType.PHOTON): (2, 2),
    int(WeaponType.PLASMA_S): (2, 2, 4),
    int(WeaponType.PLASMA_R): (2, 2, 5),
    int(WeaponType.PLASMA_F): (1, 1, 3),
}
HOLD_COST = {int(WeaponType.PHOTON): 1, int(WeaponType.PLASMA_S): 2,
             int(WeaponType.PLASMA_F): 1}
ROLL_COST = {int(WeaponType.PLASMA_S): 2}  # (FP1.22) rolling delay on the last arming turn
WARP_ONLY = (int(WeaponType.PHOTON),)  # (E4.2) photon arming energy comes from warp engines
SINGLE_TURN = (int(WeaponType.DISRUPTOR), int(WeaponType.FUSION))  # (E3.2, E7.23) no holding
_ESG = int(WeaponType.ESG)
_PLASMA = (int(WeaponType.PLASMA_S), int(WeaponType.PLASMA_R), int(WeaponType.PLASMA_F))
_PPD = int(WeaponType.PPD)
PPD_TURNS = 2  # (E11.21) a PPD charge takes two arming turns (engine.ppd_fire prices them)
HEAVY = (*CYCLE, _ESG, _PPD)  # the ``arm[h]`` weapons, in weapon-row order on each ship
#: Capacitor energy one shot draws (E2.1, E2.152: a Ph-G's 1 energy buys its four shots).
PHASER_DRAW = {int(WeaponType.PH1): 1.0, int(WeaponType.PH2): 1.0, int(WeaponType.PH3): 0.5,
               int(WeaponType.PHG): 0.25}

_RULE_NAME = {int(WeaponType.DISRUPTOR): "E3.2", int(WeaponType.FUSION): "E7.21",
              int(WeaponType.PHOTON): "E4.2", int(WeaponType.PLASMA_S): "FP1.22",
              int(WeaponType.PLASMA_R): "FP2.0", int(WeaponType.PLASMA_F): "FP2.0",
              _ESG: "G23.21"}
NOT_NOW = "B3.0 energy is allocated only at Energy Allocation (impulse 0 and the last impulse)"


# ---------------------------------------------------------------------- who, when


def cadet_among_full(battle: Battle, unit: int) -> bool:
    """A cadet ship on the standard form (scenario 12): move cost 1/2, shields 1 (SCENARIOS #12)."""
    ship = battle.ship_classes[unit]
    return battle.rules.standard_energy and ship is not None and ship.kind == "cadet"


def system_costs(battle: Battle, unit: int) -> tuple[tuple[str, int], ...]:
    """The standard form's fixed items for ``unit`` (none on the cadet form)."""
    if not battle.rules.standard_energy:
        return ()
    return CADET_AMONG_FULL_SYSTEMS if cadet_among_full(battle, unit) else STANDARD_SYSTEMS


def governed(battle: Battle, unit: int) -> bool:
    """Whether ``unit``'s energy is allocated on the form: a ship a player commands."""
    return (battle.rules.energy_form and battle.controllers[unit] == "agent"
            and int(battle.state.kind[unit]) == K_SHIP)


def allocation_open(battle: Battle) -> bool:
    """Whether orders now allocate the next turn's energy (impulse 0 and the last impulse)."""
    st = battle.state
    return battle.rules.energy_form and st.impulse in (0, st.impulses_per_turn)


def allocation_turn(battle: Battle) -> int:
    """The turn the allocation now open is for."""
    st = battle.state
    return st.turn if st.impulse == 0 else st.turn + 1


def heavy_rows(battle: Battle, unit: int) -> np.ndarray:
    """Weapon rows of ``unit`` that take an ``ArmOrder`` (in use in the scenario)."""
    st = battle.state
    rows = battle.weapons_of(unit)
    rows = rows[st.w_enabled[rows]]
    return rows[np.isin(st.w_type[rows], HEAVY)]


def capacitor_values(battle: Battle, unit: int) -> int:
    """Size of the ``capacitor`` component: 0..ceil(capacity) points."""
    return int(math.ceil(float(battle.state.capacitor_max[unit]))) + 1


def battery_boxes(battle: Battle, unit: int) -> int:
    """Batteries on the sheet (the ``recharge`` component runs 0..this)."""
    ship = battle.ship_classes[unit]
    return int(ship.batteries) if ship is not None and ship.freighter is None else 0


def has_cloak(battle: Battle, unit: int) -> bool:
    """Whether the ship carries a cloaking device (G13.0). PROPOSAL: the Orions' optional
    cloak (CTH-DATA §8.2) counts wherever ``rules.cloak`` is in force."""
    ship = battle.ship_classes[unit]
    return ship is not None and bool(getattr(ship, "cloak_cost", None))


def cloak_allowed(battle: Battle) -> bool:
    """Whether a scenario rule lets cloaks be used (``rules.cloak``: ``cadet`` or ``standard``;
    under the standard rule the same order is the turn-to-turn decision, G13, ``engine.cloak``)."""
    value = battle.rules.cloak
    return value in ("cadet", "standard")


# ---------------------------------------------------------------------- state


def init_state(battle: Battle) -> None:
    """Start values (battle build): batteries charged (CTH-DATA §9.1), capacitors empty, no
    torpedo armed at the start (FP1.23, scenario 6) on the ships the form governs."""
    st = battle.state
    n, m = len(st.kind), len(st.w_type)
    st.batteries = np.array([battery_boxes(battle, u) for u in range(n)], dtype=np.int64)
    st.battery_fraction = np.zeros(n, dtype=np.float64)  # (B3.2) engine.fractional
    st.capacitor = np.zeros(n, dtype=np.float64)
    st.capacitor_max = np.array(
        [float(c.phaser_capacitor) if c is not None and c.freighter is None else 0.0
         for c in battle.ship_classes], dtype=np.float64)
    st.energy_shortfall = np.zeros(n, dtype=np.int64)
    st.shields_active = np.ones(n, dtype=bool)
    st.fire_control = np.ones(n, dtype=bool)
    st.reinf_general = np.zeros(n, dtype=np.int64)
    st.reinf_specific = np.zeros((n, N_SHIELDS), dtype=np.int64)
    st.dc_repairs = np.zeros((n, N_SHIELDS), dtype=np.int64)
    st.mutiny = np.zeros(n, dtype=np.int8)  # (G6) engine.mutiny
    st.w_arm_stage = np.zeros(m, dtype=np.int64)
    ruled = np.array([governed(battle, u) for u in range(n)], dtype=bool)
    if m:
        st.w_armed[ruled[st.w_owner] & np.isin(st.w_type, (*CYCLE, _PPD))] = False


def power(battle: Battle, unit: int) -> tuple[int, int, int]:
    """Lines 1-3 of the form: undestroyed warp, impulse and APR boxes."""
    b = battle.state.boxes[unit]
    return int(b[Box.WARP]), int(b[Box.IMPULSE]), int(b[Box.APR])


def _move_cost(battle: Battle, unit: int) -> Fraction:
    if cadet_among_full(battle, unit):
        return CADET_AMONG_FULL_MOVE_COST
    cost = battle.ship_classes[unit].move_cost
    return Fraction(1) if cost is None else Fraction(cost)


def movement_cost(battle: Battle, unit: int, speed: int) -> tuple[int | Fraction, int]:
    """(warp, impulse) energy for ``speed`` (B3.0 line 14): one impulse point moves one hex,
    the rest is warp at the ship's move cost (rounded up, CTH-DATA §7.3; the exact fraction
    under fractional accounting, B3.2, ``engine.fractional``)."""
    _, imp, _ = power(battle, unit)
    imp_pt = min(MAX_IMPULSE_TO_MOVEMENT, imp, speed)
    warp = fractional.line_cost(battle, (speed - imp_pt) * _move_cost(battle, unit))
    return (warp if battle.rules.fractional_accounting else int(warp)), imp_pt


def max_payable_speed(battle: Battle, unit: int) -> int:
    """The highest speed warp + at most one impulse point can pay (APR and batteries cannot)."""
    warp, imp, _ = power(battle, unit)
    return int(warp / _move_cost(battle, unit)) + min(MAX_IMPULSE_TO_MOVEMENT, imp)


def previous_speed(battle: Battle, unit: int) -> int:
    """Previous speed for the acceleration limit of the allocation now open (C5.4: 0 after a
    turn of tactical maneuvers; turn 1: the scenario's start speed)."""
    st = battle.state
    if st.impulse == 0:
        return int(st.previous_speed[unit])
    return 0 if st.tactical[unit] else int(st.speed[unit])


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


def cycle_turns(kind: int) -> int:
    """Arming turns of a heavy weapon type's cycle (1 for single-turn weapons and ESGs)."""
    return PPD_TURNS if kind == _PPD else len(CYCLE.get(kind, (0,)))


def stage(battle: Battle, w: int) -> int:
    """Arming turns paid in weapon ``w``'s current cycle, as the allocation now open sees it:
    single-turn weapons start afresh each turn (E3.2, E7.23); a fired or launched charge (armed
    flag cleared) starts a new cycle."""
    st = battle.state
    kind = int(st.w_type[w])
    if kind in SINGLE_TURN or kind == _ESG:
        return 0
    if kind == _PPD:
        return int(st.ppd_stage[w])  # (E11.2) kept by engine.ppd_fire
    s = int(st.w_arm_stage[w])
    if s == len(CYCLE[kind]) and not st.w_armed[w]:
        return 0
    return s


def arm_blockers(battle: Battle, w: int) -> dict[int, str]:
    """``ArmOrder`` values 1, 2 heavy weapon ``w`` may not be given now, with the rule.
    NONE (0) is always open."""
    st = battle.state
    kind = int(st.w_type[w])
    rule = _RULE_NAME.get(kind, "B3.0")
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


def standing_arm(battle: Battle, w: int) -> int:
    """The standing order (the env's no-op): continue arming, else hold, else none."""
    closed = arm_blockers(battle, w)
    return next((v for v in (int(ArmOrder.ARM), int(ArmOrder.HOLD)) if v not in closed), 0)


def capacitor_room(battle: Battle, unit: int) -> int:
    """Whole points the capacitor can still take (a fraction of room takes a point)."""
    st = battle.state
    return int(math.ceil(float(st.capacitor_max[unit] - st.capacitor[unit]) - 1e-9))


def capacitor_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """``capacitor`` values (energy in) the ship may not order now, with the rule."""
    n = capacitor_values(battle, unit)
    if not allocation_open(battle):
        return {k: NOT_NOW for k in range(1, n)}
    room = capacitor_room(battle, unit)
    return {k: f"H6.1 the phaser capacitor has room for {room} energy"
            for k in range(room + 1, n)}


def empty_batteries(battle: Battle, unit: int) -> int:
    """Line 6: undestroyed batteries that are not charged."""
    st = battle.state
    return max(0, int(st.boxes[unit, Box.BATTERY]) - int(st.batteries[unit]))


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


def reach(battle: Battle, unit: int) -> int:
    """Lines 4 + 5: ship power and charged batteries (the most any one item can be paid)."""
    warp, imp, apr = power(battle, unit)
    return warp + imp + apr + min(int(battle.state.batteries[unit]),
                                  int(battle.state.boxes[unit, Box.BATTERY]))


def _over_power(battle: Battle, unit: int, energy_of: dict[int, int]) -> dict[int, str]:
    most = reach(battle, unit)
    return {k: f"B3.0 line 20: {e} energy is more than the ship has ({most}: power and "
               "charged batteries)" for k, e in energy_of.items() if e > most}


def reinforce_general_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """``reinforce_general`` values (GR points, 2 energy each) the ship may not order now."""
    values = range(1, REINFORCE_GENERAL_MAX + 1)
    if not battle.rules.reinforcement:
        return {k: "D3.34 shield reinforcement is not in use in this scenario "
                   "(rules.reinforcement)" for k in values}
    if not allocation_open(battle):
        return {k: NOT_NOW for k in values}
    return _over_power(battle, unit, {k: 2 * k for k in values})  # (D3.341)


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


def dc_rating(battle: Battle, unit: int) -> int:
    """Damage control rating (D9.1): the best undestroyed box of the track under the standard
    DAC; otherwise the printed rating (cadet ships among full-size ones: 4, CTH-DATA §7.5)."""
    ship = battle.ship_classes[unit]
    if ship.kind == "full" and battle.rules.damage == "standard_dac":
        left = int(battle.state.dac_boxes[unit, dac.DacBox.DAMAGE_CONTROL])
        return damage_control.damage_control_rating(ship.damage_control_track, left)
    return int(ship.damage_control)


def destroyed_before(battle: Battle, unit: int) -> list[int]:
    """Shield boxes lost on earlier turns, #1..#6, net of the repairs pending this turn (D9.2)."""
    st = battle.state
    lost = battle.initial.shields[unit] - st.shields[unit] - st.dc_repairs[unit]
    lost = lost - st.shield_held[unit]  # (G8.24) a dropped shield's boxes are not lost
    return [max(0, int(v)) for v in lost]


def repair_energy(battle: Battle, unit: int, shield: int) -> int:
    """Energy damage control spends on shield #``shield``: min(rating, 2 x boxes lost before),
    rounded down to even (D9.2: 2 energy a box)."""
    lost = destroyed_before(battle, unit)[shield - 1]
    return min(dc_rating(battle, unit), 2 * lost) // 2 * 2


def repair_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """``repair`` values (the shield damage control works on) not open now (D9.2)."""
    values = range(1, REPAIR_VALUES)
    if not battle.rules.damage_control:
        return {k: "D9.0 damage control is not in use in this scenario (rules.damage_control)"
                for k in values}
    if not allocation_open(battle):
        return {k: NOT_NOW for k in values}
    rating = dc_rating(battle, unit)
    if rating < 2:
        return {k: f"D9.2 the damage control rating is {rating}: 2 energy repair one box"
                for k in values}
    lost = destroyed_before(battle, unit)
    out = {k: f"D9.2 shield #{k} lost no box on an earlier turn (no energy in anticipation "
              "of damage)" for k in values if lost[k - 1] == 0}
    out.update(_over_power(battle, unit, {k: repair_energy(battle, unit, k)
                                          for k in values if k not in out}))
    return out


# ---------------------------------------------------------------------- validation


def validate(battle: Battle, unit: int, order: Orders, name: str) -> None:
    """Raise ``IllegalOrderError`` for an energy order the rules forbid (same predicates as
    the masks). Units the form does not govern may give no energy orders."""
    st = battle.state
    if not governed(battle, unit):
        if (order.arm or order.capacitor or order.recharge or order.cloak
                or order.reinforce_general or order.reinforce or order.repair):
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
    """The scenario-10 components: reinforcement (D3.34) and damage control (D9.2)."""
    checks = [("reinforce_general", order.reinforce_general, REINFORCE_GENERAL_MAX,
               lambda: reinforce_general_blockers(battle, unit)),
              ("repair", order.repair, REPAIR_VALUES - 1, lambda: repair_blockers(battle, unit))]
    if not isinstance(order.reinforce, dict):
        raise IllegalOrderError(name, "reinforce", order.reinforce,
                                "D3.342 reinforce maps a shield 1..6 to energy")
    for shield, value in order.reinforce.items():
        if isinstance(shield, bool) or shield not in range(1, N_SHIELDS + 1):
            raise IllegalOrderError(name, "reinforce", shield, "D3.342 shields are #1..#6")
        checks.append((f"reinforce[#{shield}]", value, REINFORCE_SPECIFIC_MAX,
                       lambda s=shield: reinforce_blockers(battle, unit, s)))
    for component, value, top, blockers in checks:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not (
                0 <= value <= top):
            raise IllegalOrderError(name, component, value, f"B3.0 {component} is 0..{top}")
        if value:
            rule = blockers().get(int(value))
            if rule is not None:
                raise IllegalOrderError(name, component, int(value), rule)


# ---------------------------------------------------------------------- the allocation


class _Purse:
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


def energy_allocation(battle: Battle, orders: dict[int, Orders]) -> None:
    """(B2.0 Energy Allocation) Pay each governed ship's form for the turn now starting, in
    the module's clamp priority; set the cloak flags of every unit (G13.0). Runs after Speed
    Determination has applied ``Orders.speed``, so the speed paid for is ``st.speed``."""
    st = battle.state
    st.cloaked_before[:] = st.cloaked
    st.cloaked[:] = False
    for u in np.flatnonzero(st.status == ACTIVE):
        u = int(u)
        if governed(battle, u):
            _allocate(battle, u, orders.get(u) or Orders())
    if battle.rules.standard_cloak:  # (G13 standard rule) turn-to-turn announcements
        cloak.start_turn(battle)


def _allocate(battle: Battle, u: int, order: Orders) -> None:
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
    purse = _Purse(warp, imp, apr, battery_pool)
    shortfall = 0
    speed = int(st.speed[u])  # set by Speed Determination from the same orders
    payable = max_payable_speed(battle, u)
    if speed > payable:  # a standing speed the ship can no longer pay (orders cannot ask it)
        shortfall += speed - payable
        battle.log(ev.EnergyShortfall(turn, 0, uid, "movement", speed - payable))
        speed = payable
        st.speed[u] = speed
        battle.log(ev.SpeedSet(turn, 0, uid, speed))
    move_warp, move_imp = movement_cost(battle, u, speed)
    purse.warp -= move_warp
    purse.imp -= move_imp
    # priority 1b (standard form): life support, fire control, shields (CTH-DATA §7.1, §7.4)
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
    rows = [int(w) for w in heavy_rows(battle, u)]
    arm = {w: int(order.arm[w]) if w in order.arm else standing_arm(battle, w) for w in rows}
    for w in rows:  # single-turn charges end with the turn (E3.2, E7.23)
        if int(st.w_type[w]) in SINGLE_TURN:
            st.w_armed[w] = False
            st.w_arm_stage[w] = 0
        elif int(st.w_type[w]) not in (_ESG, _PPD):
            st.w_arm_stage[w] = stage(battle, w)
    # priority 2-4: holding, continuations, new arming
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
            # else: fired in the impulse that gave the order: the hold lapses (docstring)
        elif s < len(cycle):
            if kind == int(WeaponType.FUSION) and not fusion.can_arm(
                    fusion.FusionBeam(fired_turn=int(st.w_fired_turn[w]) or None), turn)[0]:
                continue  # (E7.22) fired in the impulse that gave the order: the ARM lapses
            tiers[3 if s else 4].append((w, cycle[s], "arm"))
    for tier in (2, 3, 4):
        for w, cost, what in tiers[tier]:
            kind = int(st.w_type[w])
            wid = battle.weapon_ids[w]
            warp_only = kind in WARP_ONLY and what == "arm"
            paid = what == "hold:top_up" and purse.pay(cost)
            if what == "hold:top_up" and not paid:  # (E11.25) PROPOSAL: the top-up is
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
    if battle.rules.suicide_shuttles:  # priority 4b: the suicide shuttle's bomb (J2.221)
        from sfb_env.engine import suicide_shuttles

        shortfall += suicide_shuttles.allocate(battle, u, order, purse)
    # priority 5: the cloak (G13.0)
    if order.cloak and has_cloak(battle, u) and cloak_allowed(battle):
        cost = int(battle.ship_classes[u].cloak_cost)
        if purse.pay(cost):
            st.cloaked[u] = True
        else:
            shortfall += cost
            battle.log(ev.EnergyShortfall(turn, 0, uid, "cloak", cost))
    if battle.rules.standard_energy:  # priority 5a, 5b: damage control, reinforcement (scenario 10)
        shortfall += _pay_repair_and_reinforcement(battle, u, order, purse)
        shortfall += tractors.pay(battle, u, purse)  # priority 5c: 1 a tractor beam (G7.0)
        if battle.rules.probes_in_play:  # priority 5d: probe arming (G5.2, G5.32; engine.probes)
            from sfb_env.engine import probes

            shortfall += probes.allocate(battle, u, order, purse)
        if battle.rules.transporters:  # priority 5e: 1 per 5 transporters (G8.0)
            from sfb_env.engine import transporters

            shortfall += transporters.pay_energy(battle, u, order, purse)
    # priority 6: ESG charge (G23.21, G23.22); the Chief Engineer path is esg_field's own
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
    # priority 7: the phaser capacitor (H6.1)
    room = capacitor_room(battle, u)
    wanted = room if order.capacitor is None else min(int(order.capacitor), room)
    paid = purse.afford(wanted)
    if paid < wanted:
        shortfall += wanted - paid
        battle.log(ev.EnergyShortfall(turn, 0, uid, "capacitor", wanted - paid))
    purse.pay(paid)
    st.capacitor[u] = min(float(st.capacitor_max[u]), float(st.capacitor[u]) + paid)
    # priority 8: battery recharge (line 16), from ship power only
    empty = empty_batteries(battle, u)  # (none is left if a battery paid for the form)
    wanted = empty if order.recharge is None else min(int(order.recharge), max(0, empty))
    recharged = purse.afford(max(0, wanted), batteries=False)  # what is left: no shortfall
    purse.pay(recharged, batteries=False)
    st.energy_shortfall[u] = shortfall
    used = warp + imp + apr - purse.ship_power() + purse.batteries_used
    if battle.rules.fractional_accounting:  # (B3.2) batteries keep fractions; the total rounds up
        fractional.settle_batteries(battle, u, purse.batteries + recharged)
        used, purse.batteries_used = math.ceil(used), float(purse.batteries_used)
    else:
        st.batteries[u] = int(st.batteries[u]) - purse.batteries_used + recharged  # line 21
    battle.log(ev.EnergyAllocated(turn, 0, uid, warp + imp + apr, used, purse.batteries_used,
                                  recharged, shortfall, speed))


def _pay_repair_and_reinforcement(battle: Battle, u: int, order: Orders, purse: _Purse) -> int:
    """Damage control (D9.2) and reinforcement (D3.34) of the turn now starting; returns the
    energy ordered but not paid."""
    st = battle.state
    turn, uid = st.turn, battle.unit_ids[u]
    shortfall = 0
    if order.repair:
        s = int(order.repair)
        cost = repair_energy(battle, u, s)  # boxes lost since the orders only add to it
        if cost and purse.pay(cost):
            plan = damage_control.plan_damage_control(
                dc_rating(battle, u), {s: cost}, destroyed_before(battle, u))
            st.dc_repairs[u] = plan.repairs
        elif cost:
            shortfall += cost
            battle.log(ev.EnergyShortfall(turn, 0, uid, f"repair:#{s}", cost))
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
    general = (purse.afford(wanted) // 2 * 2) if st.shields_active[u] else 0
    purse.pay(general)
    if general < wanted:
        shortfall += wanted - general
        battle.log(ev.EnergyShortfall(turn, 0, uid, "reinforce_general", wanted - general))
    bought = reinforcement.allocate_reinforcement(shields, general, specific)
    st.reinf_general[u] = bought.general
    st.reinf_specific[u] = bought.specific
    battle.log(ev.ShieldsReinforced(turn, 0, uid, bought.general, tuple(bought.specific)))
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
    st.reinf_specific[:] = 0


# ---------------------------------------------------------------------- damage


def absorbs(battle: Battle, unit: int) -> bool:
    """Whether ``apply_shield`` judges this ship's shields (a governed ship, standard form)."""
    return battle.rules.standard_energy and governed(battle, unit)


def apply_shield(battle: Battle, unit: int, shield: int, points: int) -> tuple[int, int]:
    """One volley of ``points`` on shield #``shield`` of a governed ship on the standard form:
    (shield boxes destroyed, points going on to internal damage). Unpaid shields stop nothing
    (CTH-DATA §7.4); otherwise general, then specific reinforcement, then boxes (D3.3411), with
    reserve power discharged into the struck shield first where ``rules.reserve_power`` (H7.2;
    module docstring PROPOSAL)."""
    st = battle.state
    if not st.shields_active[unit]:
        return 0, points
    shields = [int(v) for v in st.shields[unit]]
    held = reinforcement.Reinforcement(int(st.reinf_general[unit]),
                                       tuple(int(v) for v in st.reinf_specific[unit]))
    result = reinforcement.absorb_volley(shields, held, shield, points)
    charged = _charged(battle, unit)
    left = result.shield + result.internal  # past the reinforcement: boxes, then internal
    if battle.rules.reserve_power and left and charged and shields[shield - 1] > 0:
        need = min(left, charged)
        now = reserve_power.ReserveTurn(
            reserve_power.Batteries(int(st.boxes[unit, Box.BATTERY]), charged))
        now, result = reserve_power.reinforce_and_absorb(now, shields, held, shield, points, need)
        st.batteries[unit] = now.batteries.charged
        battle.log(ev.ReserveDischarged(st.turn, st.impulse, battle.unit_ids[unit],
                                        f"reinforce:#{shield}", need, now.batteries.charged))
    st.shields[unit] = result.shields
    st.reinf_general[unit] = result.reinforcement.general
    st.reinf_specific[unit] = result.reinforcement.specific
    return result.shield, result.internal


def _charged(battle: Battle, unit: int) -> int:
    st = battle.state
    return min(int(st.batteries[unit]), int(st.boxes[unit, Box.BATTERY]))


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


# ---------------------------------------------------------------------- fire


def fire_blocker(battle: Battle, w: int) -> str | None:
    """Why weapon ``w`` of a governed ship has no energy to fire now, or None (H6.1 capacitor;
    E3.2 / E4.2 armed at Energy Allocation; fusion beams: ``direct_fire.fusion_beam``)."""
    st = battle.state
    owner = int(st.w_owner[w])
    if not governed(battle, owner):
        return None
    no_control = fire_control_blocker(battle, owner)
    if no_control is not None:
        return no_control
    kind = int(st.w_type[w])
    draw = PHASER_DRAW.get(kind)
    if draw is not None:
        if st.capacitor[owner] + 1e-9 < draw:
            if not battle.rules.reserve_power:
                return (f"H6.1 the phaser capacitor holds {st.capacitor[owner]:g} energy; "
                        f"a shot needs {draw:g}")
            if _charged(battle, owner) < math.ceil(draw):  # (H7.2) batteries may fire it
                return (f"H7.2 the phaser capacitor holds {st.capacitor[owner]:g} energy and "
                        f"{_charged(battle, owner)} batteries are charged; a shot needs {draw:g}")
        return None
    if kind in (int(WeaponType.DISRUPTOR), int(WeaponType.PHOTON)) and not st.w_armed[w]:
        if reserve_armable(battle, w):
            need = CYCLE[kind][0]
            if _charged(battle, owner) >= need:  # (H7.2) batteries arm it as it fires
                return None
            return (f"H7.2 {_RULE_NAME[kind]} the weapon is not armed and "
                    f"{_charged(battle, owner)} batteries are charged; arming it needs {need}")
        return f"{_RULE_NAME[kind]} the weapon is not armed (Energy Allocation)"
    return None


def reserve_armable(battle: Battle, w: int) -> bool:
    """Whether single-turn heavy weapon ``w`` (disruptor, fusion beam) of a governed ship may be
    armed from charged batteries as it fires, under ``rules.reserve_power`` (H7.2, CTH-DATA
    §7.6): it was not armed at Energy Allocation. The cost is its arming, 2 (E3.2, E7.21); the
    fire rules still apply (E1.5 once a turn and a quarter turn apart, E7.22 cooling, H7.3)."""
    st = battle.state
    return (int(st.w_type[w]) in SINGLE_TURN and not st.w_armed[w]
            and not st.w_destroyed[w] and bool(battle.rules.reserve_power)
            and governed(battle, int(st.w_owner[w])))


def reserve_arm_ready(battle: Battle, w: int) -> bool:
    """Whether ``reserve_armable`` weapon ``w``'s ship has the batteries to arm it now (H7.2)."""
    st = battle.state
    return (reserve_armable(battle, w)
            and _charged(battle, int(st.w_owner[w])) >= CYCLE[int(st.w_type[w])][0])


def fire_control_blocker(battle: Battle, unit: int) -> str | None:
    """PROPOSAL (module docstring): a ship whose fire control went unpaid neither fires nor
    launches this turn (B3.0 standard line 8)."""
    if battle.state.fire_control[unit] or not governed(battle, unit):
        return None
    return "B3.0 line 8: fire control was not paid this turn: no fire, no launch (PROPOSAL)"


def pay_shot(battle: Battle, w: int) -> bool:
    """Draw phaser ``w``'s shot from its ship's capacitor as it fires (H6.1, E2.1, E2.152);
    False (and a ``FireUnpowered`` event) if the capacitor no longer holds enough: the phasers
    of one volley share it and each mask entry is judged alone. An unarmed disruptor or fusion
    beam under ``rules.reserve_power`` is armed here from batteries (``reserve_armable``);
    False and ``FireUnpowered`` (``capacitor``: the charged batteries) when other shots of the
    volley took them first."""
    st = battle.state
    owner = int(st.w_owner[w])
    kind = int(st.w_type[w])
    if reserve_armable(battle, w):  # (H7.2, E3.2, E7.21) batteries arm it as it fires
        need = CYCLE[kind][0]
        if _charged(battle, owner) < need:  # the volley's other shots took the batteries
            battle.log(ev.FireUnpowered(st.turn, st.impulse, battle.unit_ids[owner],
                                        battle.weapon_ids[w], float(_charged(battle, owner))))
            return False
        left = reserve_power.discharge(
            reserve_power.Batteries(int(st.boxes[owner, Box.BATTERY]), _charged(battle, owner)),
            need, reserve_power.ReserveUse.FIRE_WEAPON)
        st.batteries[owner] = left.charged
        st.w_armed[w] = True  # armed now; ``fired`` spends it with the shot
        battle.log(ev.ReserveDischarged(st.turn, st.impulse, battle.unit_ids[owner],
                                        f"fire:{battle.weapon_ids[w]}", need, left.charged))
        return True
    if kind not in PHASER_DRAW or not governed(battle, owner):
        return True
    draw = PHASER_DRAW[kind]
    need = math.ceil(draw)
    if (st.capacitor[owner] + 1e-9 < draw and battle.rules.reserve_power
            and _charged(battle, owner) >= need):  # (H7.2) reserve power fires the phaser
        left = reserve_power.discharge(
            reserve_power.Batteries(int(st.boxes[owner, Box.BATTERY]), _charged(battle, owner)),
            need, reserve_power.ReserveUse.FIRE_WEAPON)
        st.batteries[owner] = left.charged
        battle.log(ev.ReserveDischarged(st.turn, st.impulse, battle.unit_ids[owner],
                                        f"fire:{battle.weapon_ids[w]}", need, left.charged))
        return True
    if st.capacitor[owner] + 1e-9 < draw:
        battle.log(ev.FireUnpowered(st.turn, st.impulse, battle.unit_ids[owner],
                                    battle.weapon_ids[w], float(st.capacitor[owner])))
        return False
    st.capacitor[owner] = max(0.0, float(st.capacitor[owner]) - draw)
    return True


def fired(battle: Battle, w: int) -> None:
    """A heavy weapon of a governed ship fired: its charge is spent, a new cycle follows."""
    st = battle.state
    if int(st.w_type[w]) in CYCLE and governed(battle, int(st.w_owner[w])):
        st.w_armed[w] = False
        st.w_arm_stage[w] = 0


def standing_speed(battle: Battle, unit: int) -> int:
    """The standing speed (the env's no-op) at an open allocation: the current speed, lowered
    to what warp still pays once the standing photon arming has taken its warp (E4.2; the
    Federation cadet arming both tubes runs at most 12 warp + 1 impulse = 13), and to the
    fastest speed the acceleration and movement rules leave open."""
    st = battle.state
    top = int(battle.rules.max_speed)
    closed = speed_blockers(battle, unit, top)
    warp, imp, _ = power(battle, unit)
    for w in heavy_rows(battle, unit):
        w = int(w)
        kind = int(st.w_type[w])
        if kind in WARP_ONLY and standing_arm(battle, w) == ArmOrder.ARM:
            warp -= CYCLE[kind][stage(battle, w)]
    cap = int(max(0, warp) / _move_cost(battle, unit)) + min(MAX_IMPULSE_TO_MOVEMENT, imp)
    speed = min(int(st.speed[unit]), cap)
    while speed > 0 and speed in closed:
        speed -= 1
    return speed
