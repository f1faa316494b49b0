"""The Energy Allocation Form's lines (B3.0): power, movement cost, arming cycles, capacitor,
batteries and damage control energy, read by the orders, the clamp and fire."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from sfb_env.engine import dac, damage_control, fractional
from sfb_env.engine.energy_switches import cadet_among_full, governed
from sfb_env.engine.reserve_power import FORBIDDEN_USES, ReserveUse
from sfb_env.engine.types import Box, WeaponType

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

CADET_ACCELERATION = 8  # CTH-DATA §7.3: new speed <= previous + 8 (scenarios 4-6)
STANDARD_ACCELERATION = 10  # CTH-DATA §7.3: new <= max(2 x previous, previous + 10) (7-12)
CADET_AMONG_FULL_MOVE_COST = Fraction(1, 2)  # (SCENARIOS #12, CTH-DATA §7.3)
N_SHIELDS = 6
REINFORCE_GENERAL_MAX = 10  # ``reinforce_general``: 0..10 GR points (20 energy, D3.341)
REINFORCE_SPECIFIC_MAX = 10  # ``reinforce[s]``: 0..10 energy on one shield (D3.342)
REPAIR_VALUES = N_SHIELDS + 1  # ``repair``: 0 none, 1..6 the shield damage control repairs
REPAIR_BOX_VALUES = 3  # ``repair[s]``: 0..2 boxes on one shield (D9.2: rating 4 at most, CTH)
HOLD_GENERAL, ACTIVATE_GENERAL = 1, 2  # ``reinforce_hold`` values (D3.3411 note); 0 automatic
REINFORCE_HOLD_VALUES = 3
KEEP_RESERVE = 1  # ``reserve_shields``: keep the batteries out of struck shields (H7.1); 0 auto
RESERVE_SHIELD_VALUES = 2
ESG_RESERVE_VALUES = 6  # ``esg_reserve[g]``: 0..5 batteries into a generator (G23.212, G23.22)
MAX_IMPULSE_TO_MOVEMENT = 1  # (B3.0 line 14) at most one impulse point, for one hex
SUBLIGHT_TAC_IMPULSE = 1  # (C5.12) the sublight tactical maneuver: 1 impulse engine energy
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
_PPD = int(WeaponType.PPD)
PPD_TURNS = 2  # (E11.21) a PPD charge takes two arming turns (engine.ppd_fire prices them)
HEAVY = (*CYCLE, _ESG, _PPD)  # the ``arm[h]`` weapons, in weapon-row order on each ship
#: Capacitor energy one shot draws (E2.1, E2.152: a Ph-G's 1 energy buys its four shots).
PHASER_DRAW = {int(WeaponType.PH1): 1.0, int(WeaponType.PH2): 1.0, int(WeaponType.PH3): 0.5,
               int(WeaponType.PHG): 0.25}
#: The rule that arms each heavy weapon type (named by the orders' blockers and fire).
ARMING_RULE = {int(WeaponType.DISRUPTOR): "E3.2", int(WeaponType.FUSION): "E7.21",
               int(WeaponType.PHOTON): "E4.2", int(WeaponType.PLASMA_S): "FP1.22",
               int(WeaponType.PLASMA_R): "FP2.0", int(WeaponType.PLASMA_F): "FP2.0",
               _ESG: "G23.21"}


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
    st.reinf_held = np.zeros(n, dtype=bool)
    st.reserve_kept = np.zeros(n, dtype=bool)
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


def move_cost(battle: Battle, unit: int) -> Fraction:
    """Warp energy per hex (CTH-DATA §7.3): the ship data's, 1/2 for a cadet ship among
    full-size ones (SCENARIOS #12)."""
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
    warp = fractional.line_cost(battle, (speed - imp_pt) * move_cost(battle, unit))
    return (warp if battle.rules.fractional_accounting else int(warp)), imp_pt


def max_payable_speed(battle: Battle, unit: int) -> int:
    """The highest speed warp + at most one impulse point can pay (APR and batteries cannot)."""
    warp, imp, _ = power(battle, unit)
    return int(warp / move_cost(battle, unit)) + min(MAX_IMPULSE_TO_MOVEMENT, imp)


def tactical_cost(battle: Battle, unit: int, warp_maneuvers: int) -> tuple[int | Fraction, int]:
    """(warp, impulse) energy of a TAC plot with ``warp_maneuvers`` warp tactical maneuvers:
    each the warp energy of one hex of movement, never impulse energy (C5.22; rounded as
    movement is, B3.2), and 1 impulse engine energy for the sublight maneuver where the ship
    has impulse power (C5.12 "This energy must come from impulse engines")."""
    _, imp, _ = power(battle, unit)
    warp = fractional.line_cost(battle, warp_maneuvers * move_cost(battle, unit))
    warp = warp if battle.rules.fractional_accounting else int(warp)
    return warp, min(SUBLIGHT_TAC_IMPULSE, imp)


def max_payable_tactical(battle: Battle, unit: int) -> int:
    """The most warp tactical maneuvers warp power pays (C5.22: impulse energy may not)."""
    warp, _, _ = power(battle, unit)
    return int(warp / move_cost(battle, unit))


def previous_speed(battle: Battle, unit: int) -> int:
    """Previous speed for the acceleration limit of the allocation now open (C5.4: 0 after a
    turn of tactical maneuvers; turn 1: the scenario's start speed)."""
    st = battle.state
    if st.impulse == 0:
        return int(st.previous_speed[unit])
    return 0 if st.tactical[unit] else int(st.speed[unit])


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


def capacitor_room(battle: Battle, unit: int) -> int:
    """Whole points the capacitor can still take (a fraction of room takes a point)."""
    st = battle.state
    return int(math.ceil(float(st.capacitor_max[unit] - st.capacitor[unit]) - 1e-9))


def empty_batteries(battle: Battle, unit: int) -> int:
    """Line 6: undestroyed batteries that are not charged."""
    st = battle.state
    return max(0, int(st.boxes[unit, Box.BATTERY]) - int(st.batteries[unit]))


def reach(battle: Battle, unit: int, use: ReserveUse | None = None) -> int:
    """Lines 4 + 5: ship power and charged batteries (the most any one item can be paid); for a
    ``use`` reserve power may not pay (``batteries_pay``), line 4 alone."""
    warp, imp, apr = power(battle, unit)
    batteries = charged(battle, unit) if use is None or batteries_pay(use) else 0
    return warp + imp + apr + batteries


def batteries_pay(use: ReserveUse) -> bool:
    """Whether charged batteries (line 5: reserve power, H7.0) may pay ``use`` on the form: not
    damage control (D9.2 "Energy from reserve power (H7.0) cannot be allocated to damage
    control"), not general reinforcement (H7.2 names specific reinforcement only), as
    ``reserve_power.FORBIDDEN_USES`` says."""
    return use not in FORBIDDEN_USES


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


def charged(battle: Battle, unit: int) -> int:
    """Charged batteries that are not destroyed (line 5): what reserve power may draw (H7.2)."""
    st = battle.state
    return min(int(st.batteries[unit]), int(st.boxes[unit, Box.BATTERY]))
