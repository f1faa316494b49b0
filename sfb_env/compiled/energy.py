"""The cadet and standard Energy Allocation Forms (B3.0) in compiled code:
``engine.energy_allocation`` (the clamp), ``engine.fire_energy`` (the capacitor, fire control
and the armed weapons at fire), ``engine.energy_orders`` / ``engine.standing_orders`` (the open
values of the energy components and of speed, the standing allocation) for ``rules.energy:
cadet`` and ``standard``, with fractional accounting (B3.2, ``engine.fractional``).

The ships the form governs are the agents' ships (``energy_switches.governed``); their heavy
weapons are disruptors, photons, fusion beams, plasma launchers, the ESG (priority 6, G23.21,
G23.22) and the PPD (2..4 points on each of two arming turns, hold 2, hold and top up to 8,
E11.21-E11.25); the move cost is the ship's (CTH-DATA §7.3; 1/2 for a cadet ship on the
standard form, SCENARIOS #12); the cadet cloak. The standard form adds priority 1b (life
support, fire control, shields: ``_pay_systems``; unpaid shields stop nothing, ``damage``;
unpaid fire control closes fire and launch, PROPOSAL [P-028]) and its acceleration (the greater
of 2 x and + 10). Its reinforcement, damage control and reserve power (D3.34, D9, H7: priorities
5a, 5b, End of Turn, shields struck and fire) are ``compiled.engineering``'s; its tractor
beams (G7.0, priority 5c) ``compiled.tractors.pay_beams``; a suicide shuttle's bomb (J2.221,
priority 4b) ``compiled.suicide_shuttles.allocate``; probe arming (G5.2, G5.32, priority 5d)
``compiled.probes.allocate``; transporters (G8.0, priority 5e) are
``compiled.transporters.pay_uses``. A TAC plot's
movement line (C5.12, C5.22) is ``compiled.maneuvers.pay_tactical``.

Resolvers (one per rule area, each mirroring its reference function):

* ``energy_allocation``: B2.0 Energy Allocation, after Speed Determination (``procedure``);
* ``pay_shot`` / ``fired``: H6.1, E2.1 and E3.2, E4.2 at Resolve Direct-Fire (``fire``);
* ``arm_open``, ``standing_arm``, ``capacitor_room``, ``empty_batteries``, ``speed_open``,
  ``speed_top``, ``payable_speed``, ``warp_hexes``, ``previous_speed``, ``fire_powered``,
  ``esg_arm_open``, ``ppd_arm_open``, ``ppd_ready``: the masks' and the no-op's predicates
  (``observe``, ``actions``).

The purse (lines 4 and 5) is ``EnergyTables.work[:PURSE]``: warp, impulse, APR, charged
batteries, batteries used, in 1/``den`` points (B3.2: exact fractions; ``den`` 1 without
fractional accounting), and ``den``; the heavy weapons' payment tiers sit after it (no
allocation in the kernels).
"""

from __future__ import annotations

import math
from collections import namedtuple
from fractions import Fraction

import numba as nb
import numpy as np

from sfb_env.compiled import (
    engineering,
    event_codes,
    handle,
    maneuvers,
    probes,
    suicide_shuttles,
    tractors,
    transporters,
)
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.purse import (
    ARMED_TO_FIRE,
    EPS,
    afford,
    float_bits,
    log_shortfall,
    pay,
)
from sfb_env.engine import ppd as ref_ppd
from sfb_env.engine.dac import DacBox
from sfb_env.engine.energy_form import (
    CADET_ACCELERATION,
    CADET_AMONG_FULL_MOVE_COST,
    CYCLE,
    HOLD_COST,
    MAX_IMPULSE_TO_MOVEMENT,
    PHASER_DRAW,
    ROLL_COST,
    SINGLE_TURN,
    STANDARD_ACCELERATION,
    WARP_ONLY,
)
from sfb_env.engine.energy_switches import CADET_AMONG_FULL_SYSTEMS, STANDARD_SYSTEMS
from sfb_env.engine.ppd_fire import ARM_ENERGY, PpdArm
from sfb_env.engine.types import ACTIVE, K_SHIP, Box, WeaponType

N_TYPES = max(int(k) for k in WeaponType) + 1
MAX_CYCLE = 3  # the longest arming cycle of the ported heavy weapons (plasma, FP1.22)
_WARP, _IMPULSE, _APR, _BATTERY = int(Box.WARP), int(Box.IMPULSE), int(Box.APR), int(Box.BATTERY)
_ARM, _HOLD = 1, 2  # ArmOrder.ARM, ArmOrder.HOLD (0 NONE)
_FUSION = int(WeaponType.FUSION)
_DC_BOX = int(DacBox.DAMAGE_CONTROL)  # (D9.1) the damage control track's boxes
# the direct-fire heavy weapons that fire their charge (E3.2, E4.2, E7.21), and every heavy
# weapon ported (plasma launchers too: FP1.22, FP2.0; they launch their charge, plasma.launch)
PORTED_HEAVY = (*ARMED_TO_FIRE, int(WeaponType.PLASMA_S), int(WeaponType.PLASMA_R),
                int(WeaponType.PLASMA_F))
_ESG, _PPD = int(WeaponType.ESG), int(WeaponType.PPD)
# (E11.2) the PPD's charge (ppd.PpdStage) and its ``arm[h]`` values (ppd_fire.PpdArm)
P_EMPTY, P_ARMING, P_ARMED = (int(ref_ppd.PpdStage.EMPTY), int(ref_ppd.PpdStage.ARMING),
                              int(ref_ppd.PpdStage.ARMED))
P_ARM, P_HOLD, P_ARM_2, P_ARM_3, P_TOP_UP = (int(PpdArm.ARM), int(PpdArm.HOLD),
                                             int(PpdArm.ARM_2), int(PpdArm.ARM_3),
                                             int(PpdArm.HOLD_TOP_UP))
P_HOLDING = ref_ppd.HOLDING_COST  # (E11.22)
P_FULL = ref_ppd.FULL_CHARGE  # (E11.25) 8 energy, four pulses
P_PER_PULSE = ref_ppd.ENERGY_PER_PULSE
P_TURNS = 2  # (E11.21) energy_form.PPD_TURNS: the PPD's arming turns (the energy block)
# the ``what`` of a heavy weapon's payment (``_pay_heavy_weapons``' scratch): arm, a plasma-S
# rolling delay, a hold; a PPD's arm, hold and hold with top-up (ppd_fire.cost)
W_ARM, W_ROLL, W_HOLD, W_PPD_ARM, W_PPD_HOLD, W_PPD_TOP_UP = 0, 1, 2, 3, 4, 5

ENERGY_ALLOCATED = event_codes.CODE["EnergyAllocated"]
WEAPON_ARMED = event_codes.CODE["WeaponArmed"]
WEAPON_DISCHARGED = event_codes.CODE["WeaponDischarged"]
SPEED_SET = event_codes.CODE["SpeedSet"]
ITEM_MOVEMENT = event_codes.word("item", "movement")
ITEM_CAPACITOR = event_codes.word("item", "capacitor")
ITEM_CLOAK = event_codes.word("item", "cloak")
# (B3.0 standard lines 7, 8, 11; energy_switches.STANDARD_SYSTEMS) the standard form's systems
SYSTEMS = ("life support", "fire control", "shields")
ITEM_SYSTEM = (event_codes.word("item", SYSTEMS[0]), event_codes.word("item", SYSTEMS[1]),
               event_codes.word("item", SYSTEMS[2]))
_FIRE_CONTROL, _SHIELDS = 1, 2  # their index in SYSTEMS
# the purse's scratch slots (``EnergyTables.work``): warp, impulse, APR, charged batteries,
# batteries used (in 1/``den`` points), ``den``; the heavy weapons' tiers from PURSE on
PURSE = 6
ITEM_ARM = event_codes.BOX_WEAPON  # "arm:<weapon>": the weapon row + this
WHY_DESTROYED = event_codes.word("reason", "destroyed")
WHY_LET_GO = event_codes.word("reason", "let go at Energy Allocation")
WHY_UNPAID = event_codes.word("reason", "not paid: energy shortfall")
WHY_LET_GO_OR_FIRED = event_codes.word("reason", "let go or fired")  # (a PPD, ppd_fire.cost)
ITEM_TOP_UP = event_codes.TOP_UP_WEAPON  # "top_up:<weapon>" (E11.25): the weapon row + this
ESG_CHARGED = event_codes.CODE["EsgCharged"]

# the standard form's items and rules this module does not port (energy_tables refuses them)
STANDARD_NOT_PORTED = ()  # (G5.2 probes, priority 5d: compiled.probes)
# the standard form's engineering rules (compiled.engineering: D3.34, D9, H7)
ENGINEERING = ("reinforcement", "damage_control", "reserve_power")

EnergyTables = namedtuple("EnergyTables", [
    "on",  # bool: rules.energy is cadet or standard (the form governs the agents' ships)
    "standard",  # bool: the standard form (rules.standard_energy: systems, acceleration)
    "frac",  # bool: fractional accounting (B3.2: the pools exact, the total rounded up)
    "den",  # int: the purse's units per energy point (B3.2: the move costs' common
    #   denominator; 1 without fractional accounting)
    "ipt",  # impulses per turn
    "governed",  # (U,) bool energy_switches.governed
    "heavy",  # (U, H) int64 energy_form.heavy_rows, -1 padded
    "n_heavy",  # (U,) int64
    "cycle",  # (N_TYPES, MAX_CYCLE) int64 energy per arming turn (E3.2, E4.2)
    "cycle_len",  # (N_TYPES,) int64 arming turns of the cycle, 0: not a heavy weapon
    "hold_cost",  # (N_TYPES,) int64 holding energy per turn, -1: cannot be held (E3.2)
    "roll_cost",  # (N_TYPES,) int64 a plasma-S's rolling delay (FP1.22), -1: none
    "warp_only",  # (N_TYPES,) bool arming paid from warp only (E4.2)
    "single_turn",  # (N_TYPES,) bool armed for the turn it is paid (E3.2)
    "phaser_draw",  # (N_TYPES,) float64 capacitor energy a shot draws, 0: not a phaser
    "cloak_cost",  # (U,) int64 (G13.0) the cloak's cost where a rule allows cloaks, 0: none
    "speed_rule",  # (U, 4) int64 ``SPEED_RULE``: move cost num, den (CTH-DATA §7.3; 1/2 a
    #   cadet ship on the standard form, SCENARIOS #12), acceleration (mult, add)
    "systems",  # (U, 3) int64 (B3.0 standard lines 7, 8, 11) life support, fire control,
    #   shields energy, 0: not an item (the cadet form; a cadet ship among full: shields 1)
    "esg_max",  # (W,) int64 (G23.22) each generator's capacity (the cold ``esg_max``)
    # (D3.34, D9, H7) compiled.engineering: any of its rules on the standard form, each rule,
    # the damage control rating by [unit, DAC boxes left] (D9.1), its DacBox, the printed
    # shield boxes (D9.2)
    "engineering", "reinforcement", "damage_control", "reserve_power", "dc_rating", "dc_box",
    "init_shields",
    # (G7.0, priority 5c) compiled.tractors: the form pays tractor beams; each unit's beams
    # (0 where the rule is off); working beams are the standard DAC's tractor boxes left
    "tractors", "tractor_beams", "tractor_dac",
    "transporters",  # (G8.0, priority 5e) compiled.transporters: the form pays their uses
    "suicide",  # (J2.221, priority 4b) compiled.suicide_shuttles.SuicideTables
    "probes",  # (G5.2, G5.32, priority 5d) compiled.probes.ProbeTables
    "work",  # int64 scratch: the purse (``PURSE``), then (tier, cost, what) per heavy weapon
    "fbits",  # (1,) float64 scratch: a float event field's bits
])


def energy_tables(setup) -> EnergyTables:
    """The static tables of the cadet or standard form for ``setup``; raises
    ``NotImplementedError`` where the form asks for what this module does not port (a heavy
    weapon not listed, the standard form's tractors, transporters, probes, suicide shuttles;
    reinforcement, damage control or reserve power off the standard form or beside a PPD or an
    ESG, reserve power with fusion beams)."""
    rules = setup.rules
    st = setup.start_state
    n_units = len(setup.unit_ids)
    on = bool(rules.energy_form)
    for flag in STANDARD_NOT_PORTED:
        if on and getattr(rules, flag):
            raise NotImplementedError(f"compiled energy: rules.{flag} on the form not ported")
    eng_on = on and bool(rules.standard_energy) and any(getattr(rules, f) for f in ENGINEERING)
    if any(getattr(rules, f) for f in ENGINEERING) and not eng_on:
        raise NotImplementedError("compiled energy: reinforcement, damage control and reserve "
                                  "power only on the standard form")
    if eng_on and (rules.ppd_in_play or rules.esg_in_play):  # (E11.39, E11.25, G23.212)
        raise NotImplementedError("compiled energy: reinforcement, damage control or reserve "
                                  "power beside a PPD or an ESG not ported")
    if rules.reserve_power and eng_on and np.any(
            np.asarray(st.w_type) == _FUSION):  # (E7.24) reserve power arming fusion beams
        raise NotImplementedError("compiled energy: reserve power with fusion beams not ported")
    governed = np.array([on and setup.start_state.controllers[u] == "agent"
                         and int(st.kind[u]) == K_SHIP for u in range(n_units)], dtype=np.bool_)
    rows = [[int(w) for w in setup.weapon_rows[u]
             if st.w_enabled[w] and int(st.w_type[w]) in (*CYCLE, _ESG, _PPD)]
            for u in range(n_units)]
    width = max([len(r) for r in rows] + [1])
    heavy = np.full((n_units, width), -1, dtype=np.int64)
    speed_rule = np.zeros((n_units, 4), dtype=np.int64)
    systems = np.zeros((n_units, 3), dtype=np.int64)
    den = 1
    for u in range(n_units):
        speed_rule[u] = (1, 1, 1, CADET_ACCELERATION)  # (CTH-DATA §7.3) cadet: previous + 8
        if not governed[u]:
            continue
        ship = setup.ship_classes[u]
        cost = Fraction(1) if ship.move_cost is None else Fraction(ship.move_cost)
        among_full = bool(rules.standard_energy) and ship.kind == "cadet"  # (SCENARIOS #12)
        if among_full:
            cost = Fraction(CADET_AMONG_FULL_MOVE_COST)
        if rules.standard_energy:  # (CTH-DATA §7.3) max(2 x previous, previous + 10)
            speed_rule[u] = (cost.numerator, cost.denominator, 2, STANDARD_ACCELERATION)
            for item, energy_ in (CADET_AMONG_FULL_SYSTEMS if among_full else STANDARD_SYSTEMS):
                systems[u, SYSTEMS.index(item)] = energy_
        else:
            speed_rule[u, :2] = (cost.numerator, cost.denominator)
        if rules.fractional_accounting:  # (B3.2) the pools in 1/den points, exact
            den = den * cost.denominator // math.gcd(den, cost.denominator)
        for h, w in enumerate(rows[u]):
            if int(st.w_type[w]) not in (*PORTED_HEAVY, _ESG, _PPD):
                raise NotImplementedError(
                    f"compiled energy: heavy weapon type {int(st.w_type[w])} not ported")
            heavy[u, h] = w
    cycle = np.zeros((N_TYPES, MAX_CYCLE), dtype=np.int64)
    cycle_len = np.zeros(N_TYPES, dtype=np.int64)
    hold_cost = np.full(N_TYPES, -1, dtype=np.int64)
    roll_cost = np.full(N_TYPES, -1, dtype=np.int64)
    warp_only = np.zeros(N_TYPES, dtype=np.bool_)
    single_turn = np.zeros(N_TYPES, dtype=np.bool_)
    for kind in PORTED_HEAVY:
        cycle[kind, :len(CYCLE[kind])] = CYCLE[kind]
        cycle_len[kind] = len(CYCLE[kind])
        hold_cost[kind] = HOLD_COST.get(kind, -1)
        roll_cost[kind] = ROLL_COST.get(kind, -1)
        warp_only[kind] = kind in WARP_ONLY
        single_turn[kind] = kind in SINGLE_TURN
    draw = np.zeros(N_TYPES, dtype=np.float64)
    for kind, d in PHASER_DRAW.items():
        draw[kind] = d
    return EnergyTables(
        on=on, standard=bool(rules.standard_energy),
        frac=bool(rules.fractional_accounting), den=den,
        ipt=int(st.impulses_per_turn), governed=governed, heavy=heavy,
        n_heavy=np.array([len(r) if governed[u] else 0 for u, r in enumerate(rows)], np.int64),
        cycle=cycle, cycle_len=cycle_len, hold_cost=hold_cost, roll_cost=roll_cost,
        warp_only=warp_only,
        single_turn=single_turn, phaser_draw=draw,
        cloak_cost=np.array([int(getattr(setup.ship_classes[u], "cloak_cost", 0) or 0)
                             if governed[u] and rules.cloak in ("cadet", "standard") else 0
                             for u in range(n_units)], np.int64),
        speed_rule=speed_rule, systems=systems,
        esg_max=np.asarray(st.esg_max, dtype=np.int64).copy(),
        engineering=eng_on, reinforcement=eng_on and bool(rules.reinforcement),
        damage_control=eng_on and bool(rules.damage_control),
        reserve_power=eng_on and bool(rules.reserve_power),
        dc_rating=engineering.dc_rating_table(setup, governed, _DC_BOX), dc_box=_DC_BOX,
        init_shields=np.asarray(st.shields, dtype=np.int64).copy(),
        tractors=on and bool(rules.standard_energy and rules.tractors),
        tractor_beams=(np.asarray(setup.tractor_beams, dtype=np.int64).copy() if rules.tractors
                       else np.zeros(n_units, dtype=np.int64)),
        tractor_dac=rules.damage == "standard_dac",
        transporters=on and bool(rules.standard_energy and rules.transporters),
        suicide=suicide_shuttles.suicide_tables(setup), probes=probes.probe_tables(setup),
        work=np.zeros(PURSE + 3 * width + engineering.SCRATCH, dtype=np.int64),
        fbits=np.zeros(1, dtype=np.float64))


# ---------------------------------------------------------------------- the form's lines


@nb.njit(cache=True, inline="always")
def allocation_open(imp, ipt) -> bool:
    """(energy_switches.allocation_open) impulse 0 and the turn's last impulse."""
    return imp == 0 or imp == ipt


@nb.njit(cache=True, inline="always")
def stage(w_type, w_arm_stage, w_armed, single_turn, cycle_len, b: int, w: int) -> int:
    """(energy_form.stage) Arming turns paid in weapon ``w``'s cycle as the allocation now
    open sees it: a single-turn weapon starts afresh each turn (E3.2); a fired charge (armed
    flag cleared) starts a new cycle."""
    kind = w_type[b, w]
    if single_turn[kind]:
        return 0
    s = w_arm_stage[b, w]
    if s == cycle_len[kind] and not w_armed[b, w]:
        return 0
    return s


@nb.njit(cache=True, inline="always")
def fusion_spent(w_fired_turn, turn: int, b: int, w: int) -> bool:
    """(fusion.can_arm) A fusion beam that fired on ``turn`` (E1.5) or the turn before
    (E7.22, cooling) takes no energy on ``turn``."""
    fired = w_fired_turn[b, w]
    return fired != 0 and (fired == turn or fired == turn - 1)


@nb.njit(cache=True, inline="always")
def arm_open(w_type, w_arm_stage, w_armed, w_destroyed, w_fired_turn, single_turn, cycle_len,
             hold_cost, roll_cost, allocation: bool, turn: int, b: int, w: int) -> int:
    """(energy_orders.arm_blockers) The ``ArmOrder`` values open for heavy weapon ``w`` as bits
    (bit v: value v open; NONE is always open): ARM while its cycle is not complete (a fusion
    beam not fired this turn or the last, E7.22), HOLD a loaded weapon that can be held (E3.2,
    E4.2, FP1.22; not a plasma-R, FP2.0) or a plasma-S's last arming turn (a rolling delay,
    FP1.22); nothing outside Energy Allocation (B3.0) or on a destroyed weapon (D4.0).
    ``turn``: the turn the allocation is for (``energy_switches.allocation_turn``)."""
    if not allocation or w_destroyed[b, w]:
        return 1
    kind = w_type[b, w]
    s = stage(w_type, w_arm_stage, w_armed, single_turn, cycle_len, b, w)
    n = cycle_len[kind]
    arm = s < n and not (kind == _FUSION and fusion_spent(w_fired_turn, turn, b, w))
    if s == n:
        hold = hold_cost[kind] >= 0
    else:
        hold = not single_turn[kind] and s == n - 1 and roll_cost[kind] >= 0
    return 1 | ((1 << _ARM) if arm else 0) | ((1 << _HOLD) if hold else 0)


@nb.njit(cache=True, inline="always")
def standing_arm(bits: int) -> int:
    """(standing_orders.standing_arm) continue arming, else hold, else none (``bits``:
    ``arm_open``)."""
    if (bits >> _ARM) & 1:
        return _ARM
    if (bits >> _HOLD) & 1:
        return _HOLD
    return 0


@nb.njit(cache=True, inline="always")
def esg_arm_open(esg_stored, esg_max, w_destroyed, allocation: bool, b: int, w: int) -> int:
    """(energy_orders.arm_blockers, an ESG) The ``arm[h]`` values open for generator ``w`` as
    bits: ARM while it is not full (G23.22); never HOLD (G23.21: stored energy needs no holding
    cost); nothing outside Energy Allocation or on a destroyed generator."""
    if not allocation or w_destroyed[b, w]:
        return 1
    return 1 | ((1 << _ARM) if esg_stored[b, w] < esg_max[w] else 0)


@nb.njit(cache=True, inline="always")
def ppd_view(ppd_stage, ppd_energy, ppd_paid_turn, turn: int, b: int, w: int):
    """(ppd_fire._allocation_view) PPD ``w``'s (stage, energy) as the Energy Allocation of
    ``turn`` finds it: a charge not paid on the turn before has lapsed (E11.21, E11.22)."""
    stage_ = ppd_stage[b, w]
    if turn > 1 and stage_ != P_EMPTY and ppd_paid_turn[b, w] != turn - 1:
        return P_EMPTY, 0
    return stage_, ppd_energy[b, w]


@nb.njit(cache=True, inline="always")
def ppd_arm_open(ppd_stage, ppd_energy, ppd_paid_turn, w_destroyed, allocation: bool,
                 turn: int, b: int, w: int) -> int:
    """(ppd_fire.arm_blockers) The ``PpdArm`` values open for PPD ``w`` as bits: an armed
    charge may be held (2, E11.22) or held and topped up while under 8 (E11.25); otherwise a
    charge is begun or completed with 4, 2 or 3 points (E11.21, E11.25). ``turn``: the turn
    the allocation is for."""
    if not allocation or w_destroyed[b, w]:
        return 1
    stage_, energy_ = ppd_view(ppd_stage, ppd_energy, ppd_paid_turn, turn, b, w)
    if stage_ == P_ARMED:
        return 1 | (1 << P_HOLD) | ((1 << P_TOP_UP) if energy_ < P_FULL else 0)
    return 1 | (1 << P_ARM) | (1 << P_ARM_2) | (1 << P_ARM_3)


@nb.njit(cache=True, inline="always")
def ppd_ready(ppd_stage, ppd_energy, ppd_paid_turn, turn: int, b: int, w: int) -> bool:
    """(ppd_fire.ready_blocker, a governed PPD) armed, its energy paid this turn (E11.21,
    E11.22), at least two pulses (E11.25); the train is checked by the caller (E11.23)."""
    return (ppd_stage[b, w] == P_ARMED and ppd_paid_turn[b, w] == turn
            and ppd_energy[b, w] // P_PER_PULSE >= 2)


@nb.njit(cache=True, inline="always")
def heavy_open(s, esg_max, single_turn, cycle_len, hold_cost, roll_cost, allocation: bool,
               turn: int, b: int, w: int) -> int:
    """The ``arm[h]`` bits of any heavy weapon ``w`` (``arm_open``, ``esg_arm_open``,
    ``ppd_arm_open`` by its type)."""
    kind = s.w_type[b, w]
    if kind == _ESG:
        return esg_arm_open(s.esg_stored, esg_max, s.w_destroyed, allocation, b, w)
    if kind == _PPD:
        return ppd_arm_open(s.ppd_stage, s.ppd_energy, s.ppd_paid_turn, s.w_destroyed,
                            allocation, turn, b, w)
    return arm_open(s.w_type, s.w_arm_stage, s.w_armed, s.w_destroyed, s.w_fired_turn,
                    single_turn, cycle_len, hold_cost, roll_cost, allocation, turn, b, w)


@nb.njit(cache=True, inline="always")
def capacitor_room(capacitor, capacitor_max, b: int, u: int) -> int:
    """(energy_form.capacitor_room) Whole points the capacitor can still take (H6.1; a
    fraction of room takes a point, [P-025])."""
    return int(math.ceil((capacitor_max[b, u] - capacitor[b, u]) - EPS))


@nb.njit(cache=True, inline="always")
def empty_batteries(boxes, batteries, b: int, u: int) -> int:
    """(energy_form.empty_batteries) Line 6: undestroyed batteries that are not charged."""
    return max(0, boxes[b, u, _BATTERY] - batteries[b, u])


@nb.njit(cache=True, inline="always")
def payable_speed(boxes, speed_rule, b: int, u: int) -> int:
    """(energy_form.max_payable_speed) the hexes warp pays at the ship's move cost
    (``speed_rule[u, :2]``, CTH-DATA §7.3) + at most one impulse point (B3.0 line 14; APR and
    batteries never pay movement)."""
    return (warp_hexes(boxes[b, u, _WARP], speed_rule, u)
            + min(MAX_IMPULSE_TO_MOVEMENT, boxes[b, u, _IMPULSE]))


@nb.njit(cache=True, inline="always")
def warp_hexes(warp: int, speed_rule, u: int) -> int:
    """``int(warp / move_cost)``: the hexes ``warp`` energy pays (CTH-DATA §7.3)."""
    return max(0, warp) * speed_rule[u, 1] // speed_rule[u, 0]


@nb.njit(cache=True, inline="always")
def speed_top(previous: int, speed_rule, u: int) -> int:
    """(energy_orders.speed_blockers) the fastest speed the acceleration rule allows: cadet
    previous + 8, standard the greater of 2 x previous and previous + 10 (CTH-DATA §7.3)."""
    return max(speed_rule[u, 2] * previous, previous + speed_rule[u, 3])


@nb.njit(cache=True, inline="always")
def previous_speed(speed, prev_speed, tactical, imp: int, b: int, u: int) -> int:
    """(energy_form.previous_speed) the acceleration limit's previous speed (C5.4)."""
    if imp == 0:
        return prev_speed[b, u]
    return 0 if tactical[b, u] else speed[b, u]


@nb.njit(cache=True, inline="always")
def speed_open(v: int, top: int, payable: int) -> bool:
    """(energy_orders.speed_blockers) new speed <= the acceleration limit ``top``
    (``speed_top``, CTH-DATA §7.3) and payable by warp and one impulse point (B3.0 line 14)."""
    return v <= top and v <= payable


# ---------------------------------------------------------------------- events


@nb.njit(cache=True, inline="always")
def _discharge(s, b: int, u: int, w: int, hold_cost, reason: int) -> None:
    """(energy_allocation._discharge) weapon ``w`` loses its arming or charge unfired; a PPD's
    charge is lost (E11.21, E11.22: ``ppd_fire.allocate(None)``, an empty charge)."""
    had = s.w_arm_stage[b, w] != 0 or (s.w_armed[b, w] and hold_cost[s.w_type[b, w]] >= 0)
    if s.w_type[b, w] == _PPD:
        had = s.ppd_stage[b, w] != 0
        s.ppd_stage[b, w] = P_EMPTY
        s.ppd_energy[b, w] = 0
        s.ppd_paid_turn[b, w] = 0
    s.w_arm_stage[b, w] = 0
    s.w_armed[b, w] = False
    if had:
        r = event_codes.begin(s.ev, s.ev_count, b, WEAPON_DISCHARGED, s.turn[b], 0)
        s.ev[b, r, 3] = u
        s.ev[b, r, 4] = w
        s.ev[b, r, 5] = reason


# ---------------------------------------------------------------------- B2.0 Energy Allocation


@nb.njit(cache=True, inline="always")
def call_args(s, et, o):
    """The arguments of the call out of line that ``pin_args`` pins (a batch keeps them
    in a handle: ``procedure.call_args``)."""
    return (s, et, o)


@nb.njit(cache=True, inline="always")
def pin_args(s, et, o):
    """``energy_allocation_a``'s arguments, pinned (``handle.pin``: once, before a loop over
    battles; only for a caller that does not return the ref)."""
    return handle.pin(call_args(s, et, o))


@nb.njit(cache=True, inline="always")
def energy_allocation(s, et, b: int, o) -> None:
    """``energy_allocation_a`` with its arguments pinned at the call."""
    energy_allocation_a(pin_args(s, et, o), b)


@kernel(_nrt=False, error_model="numpy")
def energy_allocation_a(p, b: int) -> None:
    """(energy_allocation.energy_allocation) Pay each governed ship's form for the turn now
    starting, in the clamp's priority (``rule_tables.ENERGY_PAYMENTS``: movement, the
    standard form's systems, the heavy weapons' holding / continuations / new arming, the
    cloak, the ESG, the capacitor, battery recharge; the other items are refused by
    ``energy_tables``). After Speed Determination: the speed paid for is ``s.speed``. The
    cloak flags move on a turn (G13.0). ``p``: the pinned ``(s, et, o)`` (``pin_args``)."""
    s, et, o = handle.deref(p)
    n_units = s.kind.shape[1]
    for u in range(n_units):
        s.cloaked_before[b, u] = s.cloaked[b, u]
        s.cloaked[b, u] = False
    for u in range(n_units):
        if s.status[b, u] == ACTIVE and et.governed[u] and s.captured_by[b, u] < 0:
            _allocate(s, et, b, u, o)  # (a captured ship's pilot has no form: D7.0 [P-104])


@nb.njit(cache=True, inline="always")
def _allocate(s, et, b: int, u: int, o) -> None:
    """(energy_allocation._allocate) one ship's form, the pools in 1/``den`` points (B3.2:
    exact under fractional accounting, a battery holding a fraction)."""
    turn = s.turn[b]
    boxes = s.boxes
    den = et.den
    s.batteries[b, u] = min(s.batteries[b, u], boxes[b, u, _BATTERY])  # line 5/6
    warp, imp, apr = boxes[b, u, _WARP], boxes[b, u, _IMPULSE], boxes[b, u, _APR]
    pool = s.batteries[b, u] * den
    if et.frac:  # (B3.2) a partly discharged battery's fraction joins the pool
        if s.batteries[b, u] >= boxes[b, u, _BATTERY]:
            s.battery_fraction[b, u] = 0.0
        pool += int(round(s.battery_fraction[b, u] * den))
    p = et.work
    p[0], p[1], p[2], p[3], p[4], p[5] = warp * den, imp * den, apr * den, pool, 0, den
    if s.tactical[b, u]:  # (C5.11) a TAC plot pays its maneuvers instead (compiled.maneuvers)
        shortfall = maneuvers.pay_tactical(s.speed, s.boxes, s.tac_sublight, s.ev, s.ev_count,
                                           et.fbits, et.speed_rule, p, et.frac, turn, b, u)
    else:
        shortfall = _pay_movement(s, et, b, u, p)
    if et.standard:  # priority 1b: life support, fire control, shields
        shortfall += _pay_systems(s, et, b, u, p)
    shortfall += _pay_heavy_weapons(s, et, b, u, o, p)
    if et.suicide.on:  # priority 4b: the suicide shuttle's bomb (J2.221)
        shortfall += suicide_shuttles.allocate(s, et, et.suicide, b, u, o.suicide_arm[b, u], p)
    shortfall += _pay_cloak(s, et, b, u, o, p)
    if et.engineering:  # priorities 5a, 5b: damage control, reinforcement (D9.2, D3.34)
        shortfall += engineering.pay_repair_and_reinforcement(s, et, b, u, o, p)
    if et.tractors:  # priority 5c: tractor beams (G7.0)
        shortfall += tractors.pay_beams(s, et, b, u, p, et.tractor_beams, et.tractor_dac)
    if et.probes.on:  # priority 5d: probe arming (G5.2, G5.32)
        shortfall += probes.allocate(s, et, et.probes, b, u, o.probe[b, u], p)
    if et.transporters:  # priority 5e: transporters (G8.0)
        shortfall += transporters.pay_uses(s, et, b, u, p, o.transporters[b, u])
    shortfall += _pay_esg(s, et, b, u, o, p)
    shortfall += _pay_capacitor(s, et, b, u, o, p)
    recharged = _pay_recharge(s, b, u, o, p)
    s.energy_shortfall[b, u] = shortfall
    used = (warp + imp + apr) * den - (p[0] + p[1] + p[2]) + p[4]
    used = (used + den - 1) // den  # (B3.2) the turn's total rounded up (exact without it)
    if et.frac:  # (fractional.settle_batteries, PROPOSAL [P-029]) whole batteries + a fraction
        left = min(max(0, p[3] + recharged * den), boxes[b, u, _BATTERY] * den)
        s.batteries[b, u] = left // den
        s.battery_fraction[b, u] = (left % den) / den
    else:
        s.batteries[b, u] = s.batteries[b, u] - p[4] // den + recharged  # line 21
    r = event_codes.begin(s.ev, s.ev_count, b, ENERGY_ALLOCATED, turn, 0)
    s.ev[b, r, 3] = u
    s.ev[b, r, 4] = warp + imp + apr
    s.ev[b, r, 5] = used
    s.ev[b, r, 6] = float_bits(et.fbits, p[4] / den)  # (event_codes.FRACTION_FIELDS)
    s.ev[b, r, 7] = recharged
    s.ev[b, r, 8] = shortfall
    s.ev[b, r, 9] = s.speed[b, u]


@nb.njit(cache=True, inline="always")
def _pay_movement(s, et, b: int, u: int, p) -> int:
    """(energy_allocation.pay_movement) Priority 1, movement (B3.0 line 14): never dropped; a
    standing speed the engines can no longer pay is lowered (``EnergyShortfall``,
    ``SpeedSet``). One impulse point moves one hex, the rest is warp at the move cost
    (CTH-DATA §7.3), rounded up to a whole point, exact under fractional accounting (B3.2)."""
    speed = s.speed[b, u]
    payable = payable_speed(s.boxes, et.speed_rule, b, u)
    shortfall = 0
    if speed > payable:
        log_shortfall(s, et, b, u, ITEM_MOVEMENT, speed - payable)
        s.speed[b, u] = payable
        r = event_codes.begin(s.ev, s.ev_count, b, SPEED_SET, s.turn[b], 0)
        s.ev[b, r, 3] = u
        s.ev[b, r, 4] = payable
        shortfall = speed - payable
        speed = payable
    imp_pt = min(MAX_IMPULSE_TO_MOVEMENT, s.boxes[b, u, _IMPULSE], speed)
    num, mden, den = et.speed_rule[u, 0], et.speed_rule[u, 1], p[5]
    hexes = speed - imp_pt
    if et.frac:  # (fractional.line_cost) the exact fraction, in 1/den points
        p[0] -= hexes * num * (den // mden)
    else:  # rounded up to a whole point (CTH-DATA §7.3)
        p[0] -= (hexes * num + mden - 1) // mden * den
    p[1] -= imp_pt * den
    return shortfall


@nb.njit(cache=True, inline="always")
def _pay_systems(s, et, b: int, u: int, p) -> int:
    """(energy_allocation.pay_systems) Priority 1b, the standard form: life support, fire
    control and shields (B3.0 standard lines 7, 8, 11; CTH-DATA §7.1, §7.4; a cadet ship among
    full-size ones pays shields 1 only, SCENARIOS #12), each whole or not at all; unpaid fire
    control and shields clear ``fire_control`` / ``shields_active`` for the turn."""
    shortfall = 0
    s.shields_active[b, u] = True
    s.fire_control[b, u] = True
    for k in range(3):
        cost = et.systems[u, k]
        if cost <= 0:
            continue
        paid = pay(p, cost, False, True)
        if not paid:
            shortfall += cost
            log_shortfall(s, et, b, u, ITEM_SYSTEM[k], cost)
        if k == _SHIELDS:
            s.shields_active[b, u] = paid
        elif k == _FIRE_CONTROL:
            s.fire_control[b, u] = paid
    return shortfall


@nb.njit(cache=True, inline="always")
def _arm_value(s, et, b: int, w: int, o) -> int:
    """Weapon ``w``'s ``arm[h]`` order at this allocation: ``o.arm[b, w]``, -1 the standing
    order (``standing_orders.standing_arm``: continue arming, else hold, else none)."""
    value = o.arm[b, w]
    if value < 0:
        value = standing_arm(heavy_open(s, et.esg_max, et.single_turn, et.cycle_len,
                                        et.hold_cost, et.roll_cost, True, s.turn[b], b, w))
    return value


@nb.njit(cache=True, inline="always")
def _ppd_price(s, b: int, w: int, value: int, tiers, h: int) -> bool:
    """(ppd_fire.cost, energy_allocation._arming_tiers) PPD ``w``'s item for ``arm[h]``
    ``value`` into ``tiers[3 h:3 h + 3]`` (tier, cost, what): 4, 2 or 3 points to begin (tier
    4) or complete (tier 3, paid the turn before) a charge (E11.21, E11.25), 2 to hold an armed
    one (E11.22) and the rest of 8 with a top-up (E11.25), both tier 2; False: nothing to pay
    (let go, or an order the impulse that gave it fired away)."""
    turn = s.turn[b]
    stage_, energy_ = ppd_view(s.ppd_stage, s.ppd_energy, s.ppd_paid_turn, turn, b, w)
    armed = stage_ == P_ARMED
    if value in (P_ARM, P_ARM_2, P_ARM_3) and not armed:
        tiers[3 * h + 1] = ARM_ENERGY if value == P_ARM else (2 if value == P_ARM_2 else 3)
        tiers[3 * h + 2] = W_PPD_ARM
        continuing = s.ppd_stage[b, w] == P_ARMING and s.ppd_paid_turn[b, w] == turn - 1
        tiers[3 * h] = 3 if continuing else 4
        return True
    if value == P_HOLD and armed:
        tiers[3 * h], tiers[3 * h + 1], tiers[3 * h + 2] = 2, P_HOLDING, W_PPD_HOLD
        return True
    if value == P_TOP_UP and armed:
        tiers[3 * h], tiers[3 * h + 2] = 2, W_PPD_TOP_UP
        tiers[3 * h + 1] = P_HOLDING + P_FULL - energy_
        return True
    return False


@nb.njit(cache=True, inline="always")
def _ppd_allocate(s, b: int, w: int, what: int, points: int) -> None:
    """(ppd_fire.allocate) PPD ``w``'s charge once its item is paid: the first or second
    arming turn (E11.21, ``ppd.arm_first_turn`` / ``arm_second_turn``), a hold (E11.22) or a
    hold filled to 8 (E11.25); paid this turn."""
    turn = s.turn[b]
    stage_, energy_ = ppd_view(s.ppd_stage, s.ppd_energy, s.ppd_paid_turn, turn, b, w)
    if what == W_PPD_ARM:
        if stage_ == P_ARMING:
            stage_, energy_ = P_ARMED, energy_ + points
        else:
            stage_, energy_ = P_ARMING, points
    elif what == W_PPD_TOP_UP:
        energy_ = P_FULL
    s.ppd_stage[b, w] = stage_
    s.ppd_energy[b, w] = energy_
    s.ppd_paid_turn[b, w] = turn
    s.w_armed[b, w] = stage_ == P_ARMED


@nb.njit(cache=True, inline="always")
def _pay_heavy_weapons(s, et, b: int, u: int, o, p) -> int:
    """(energy_allocation.pay_heavy_weapons) Priorities 2-4: holding costs, plasma-S rolling
    delays and PPD holds (with a top-up, E11.25), arming continuations, new arming, each in
    weapon order (E3.2, E4.2, E7.21, E11.21, FP1.22, FP2.0); a charge let go, destroyed or
    unpaid is discharged; an ESG is paid at priority 6 (``_pay_esg``). ``o.arm[b, w]`` -1: the
    standing order."""
    n_h = et.n_heavy[u]
    tiers = et.work[PURSE:PURSE + 3 * n_h]  # per heavy weapon: tier (0 none), cost, what (W_*)
    w_type, stage_, armed = s.w_type, s.w_arm_stage, s.w_armed
    for h in range(n_h):  # single-turn charges end with the turn (E3.2)
        w = et.heavy[u, h]
        kind = w_type[b, w]
        if et.single_turn[kind]:
            armed[b, w] = False
            stage_[b, w] = 0
        elif kind != _ESG and kind != _PPD:
            stage_[b, w] = stage(w_type, stage_, armed, et.single_turn, et.cycle_len, b, w)
    for h in range(n_h):  # (_arming_tiers) 2 holding, 3 continuations, 4 new arming
        w = et.heavy[u, h]
        kind = w_type[b, w]
        tiers[3 * h] = 0
        tiers[3 * h + 2] = W_ARM
        if kind == _ESG:
            continue
        value = _arm_value(s, et, b, w, o)
        if kind == _PPD:  # (E11.21, E11.22) priced by ppd_fire.cost
            if s.w_destroyed[b, w]:
                _discharge(s, b, u, w, et.hold_cost, WHY_DESTROYED)
            elif not _ppd_price(s, b, w, value, tiers, h):
                _discharge(s, b, u, w, et.hold_cost, WHY_LET_GO_OR_FIRED)
            continue
        sw = stage_[b, w]
        n = et.cycle_len[kind]
        if s.w_destroyed[b, w]:  # (D4.0) destroyed since the orders were given
            _discharge(s, b, u, w, et.hold_cost, WHY_DESTROYED)
        elif value == 0:
            if sw:
                _discharge(s, b, u, w, et.hold_cost, WHY_LET_GO)
        elif value == _HOLD:
            if sw == n and armed[b, w]:
                tiers[3 * h] = 2
                tiers[3 * h + 1] = et.hold_cost[kind]
                tiers[3 * h + 2] = W_HOLD
            elif sw == n - 1 and et.roll_cost[kind] >= 0:  # (FP1.22) a rolling delay
                tiers[3 * h] = 2
                tiers[3 * h + 1] = et.roll_cost[kind]
                tiers[3 * h + 2] = W_ROLL
            # else: fired in the impulse that gave the order: the hold lapses
        elif sw < n:
            if kind == _FUSION and fusion_spent(s.w_fired_turn, s.turn[b], b, w):
                continue  # (E7.22) fired in the impulse that gave the order: the ARM lapses
            tiers[3 * h] = 3 if sw else 4
            tiers[3 * h + 1] = et.cycle[kind, sw]
    shortfall = 0
    for tier in (2, 3, 4):
        for h in range(n_h):
            if tiers[3 * h] != tier:
                continue
            w = et.heavy[u, h]
            kind = w_type[b, w]
            cost = tiers[3 * h + 1]
            what = tiers[3 * h + 2]
            paid = False
            if what == W_PPD_TOP_UP:  # (E11.25) PROPOSAL [P-030]: the top-up is dropped
                paid = pay(p, cost, False, True)  # first, the hold is kept
                if not paid:
                    shortfall += cost - P_HOLDING
                    log_shortfall(s, et, b, u, ITEM_TOP_UP + w, cost - P_HOLDING)
                    cost, what = P_HOLDING, W_PPD_HOLD
            if not paid and not pay(p, cost, et.warp_only[kind] and what == W_ARM, True):
                shortfall += cost
                log_shortfall(s, et, b, u, ITEM_ARM + w, cost)
                _discharge(s, b, u, w, et.hold_cost, WHY_UNPAID)
                continue
            if kind == _PPD:
                _ppd_allocate(s, b, w, what, cost)
                now = s.ppd_stage[b, w]
            else:
                if what == W_ARM:
                    stage_[b, w] += 1
                    armed[b, w] = stage_[b, w] == et.cycle_len[kind]
                now = stage_[b, w]
            r = event_codes.begin(s.ev, s.ev_count, b, WEAPON_ARMED, s.turn[b], 0)
            s.ev[b, r, 3] = u
            s.ev[b, r, 4] = w
            s.ev[b, r, 5] = cost
            s.ev[b, r, 6] = now
            s.ev[b, r, 7] = armed[b, w]
            s.ev[b, r, 8] = what in (W_HOLD, W_PPD_HOLD, W_PPD_TOP_UP)
            s.ev[b, r, 9] = what == W_ROLL
    return shortfall


@nb.njit(cache=True, inline="always")
def _pay_esg(s, et, b: int, u: int, o, p) -> int:
    """(energy_allocation.pay_esg) Priority 6: each generator ordered to ARM takes what fills
    it, partly paid in whole points (G23.21, G23.22): ``EnergyShortfall`` for the rest,
    ``EsgCharged`` for what went in."""
    shortfall = 0
    for h in range(et.n_heavy[u]):
        w = et.heavy[u, h]
        if s.w_type[b, w] != _ESG or s.w_destroyed[b, w] or _arm_value(s, et, b, w, o) != _ARM:
            continue
        wanted = et.esg_max[w] - s.esg_stored[b, w]
        paid = afford(p, wanted, True)
        if paid < wanted:
            shortfall += wanted - paid
            log_shortfall(s, et, b, u, ITEM_ARM + w, wanted - paid)
        if paid:
            pay(p, paid, False, True)
            s.esg_stored[b, w] += paid
            r = event_codes.begin(s.ev, s.ev_count, b, ESG_CHARGED, s.turn[b], 0)
            s.ev[b, r, 3] = u
            s.ev[b, r, 4] = w
            s.ev[b, r, 5] = paid
            s.ev[b, r, 6] = s.esg_stored[b, w]
    return shortfall


@nb.njit(cache=True, inline="always")
def _pay_cloak(s, et, b: int, u: int, o, p) -> int:
    """(energy_allocation.pay_cloak) Priority 5: the cloak ordered, paid whole or not at all
    (G13.0); paid, the ship is cloaked for the turn."""
    cost = et.cloak_cost[u]
    if not (o.cloak[b, u] and cost > 0):
        return 0
    if pay(p, cost, False, True):
        s.cloaked[b, u] = True
        return 0
    log_shortfall(s, et, b, u, ITEM_CLOAK, cost)
    return cost


@nb.njit(cache=True, inline="always")
def _pay_capacitor(s, et, b: int, u: int, o, p) -> int:
    """(energy_allocation.pay_capacitor) Priority 7: the phaser capacitor, partly paid in whole
    points (H6.1); ``o.capacitor[b, u]`` -1: fill it (the standing order)."""
    room = capacitor_room(s.capacitor, s.capacitor_max, b, u)
    wanted = room if o.capacitor[b, u] < 0 else min(o.capacitor[b, u], room)
    paid = afford(p, wanted, True)
    shortfall = 0
    if paid < wanted:
        shortfall = wanted - paid
        log_shortfall(s, et, b, u, ITEM_CAPACITOR, shortfall)
    pay(p, paid, False, True)
    s.capacitor[b, u] = min(s.capacitor_max[b, u], s.capacitor[b, u] + paid)
    return shortfall


@nb.njit(cache=True, inline="always")
def _pay_recharge(s, b: int, u: int, o, p) -> int:
    """(energy_allocation.pay_recharge) Priority 8: battery recharge (line 16), up to the
    number ordered, from the ship power left over (never battery power); no shortfall.
    ``o.recharge[b, u]`` -1: every empty battery (the standing order)."""
    empty = empty_batteries(s.boxes, s.batteries, b, u)
    wanted = empty if o.recharge[b, u] < 0 else min(o.recharge[b, u], max(0, empty))
    recharged = afford(p, max(0, wanted), False)
    pay(p, recharged, False, False)
    return recharged
