"""The env side of the compiled core: target slots, observation vector, action mask, state().

Ports what ``env.parallel.SFBParallelEnv._observe`` computes per decision point for one agent:
``target_slots`` (``ActionLayout.target_slots``: enemy units in play, nearest first, ties by
unit row; K slots, -1 empty); ``observe``: ``obs["observation"]`` (``env.observation.encode``
then the clip to [-1, 1]; float32) and ``obs["action_mask"]`` (``ActionLayout.mask``; int8);
``global_state``: ``env.state()``. The damage part of the ``shaped`` reward is
``compiled.rewards.damage_balance``.

``compiled.actions`` decodes actions (``decode_action``, ``noop_action``) and has
``decision_point``, all of the above for every agent of one battle in one call.

Kernels take ``(s, ot, b, ...)``: ``s`` a ``BatchState`` or any namedtuple with the
``STATE_FIELDS`` (``state_view(s)``: numba compiles each function taking the 123-field
``BatchState`` in seconds of CPU, a few times what the view costs), ``ot`` the
``ObserveTables`` of ``observe_tables(setup, env_options)``, ``b`` the battle, ``a`` the agent.

The masks are the engine predicates of the ported rules, written out (movement, direct fire,
seeking weapons, the energy form, ESG, PPD, phaser-G: docs/compiled.md, "What is ported");
``observe_tables`` refuses a setup that switches on anything else (an ESG's reserve
components, the probes, other rule features, ...); small craft, planets, the suicide bomb
(``compiled.suicide_shuttles``) and arrivals are written in the extras pass; the
engineering components and features are ``compiled.engineering``'s (D3.34, D9, H7); sideslip,
TAC and launch facings ``compiled.maneuvers``'s (C4, C5, FD1.2).

Bearings: the reference takes ``np.arctan2`` of cartesian hex centres; numpy's arctan2 (SIMD)
and the C library's (numba) differ in the last bit for about 6% of hex pairs, so the tables
carry numpy's arctan2 of every pair of hex-centre values of the printed map
(``ObserveTables.atan2``, indexed through ``atan2_b``), computed once with the reference
expressions. ``sin``/``cos`` are numba's (the C library's); ``tests/test_compiled_observe.py``
checks they equal numpy's on every bearing the map allows.

Agents are numbered in ``possible_agents`` order (the units whose controller is ``agent``);
``ot.agent_unit[a]`` is agent ``a``'s unit row. Layout arrays are per agent, padded with -1.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env import hexmap, impulse, tables
from sfb_env.compiled import (
    cloak,
    energy,
    engineering,
    handle,
    maneuvers,
    purse,
    sensors,
    tractors,
    transporters,
    unit_rules,
)
from sfb_env.compiled import planets as planets_mod
from sfb_env.compiled import probes as probes_mod
from sfb_env.compiled import small_craft as craft_mod
from sfb_env.compiled import suicide_shuttles as suicide_mod
from sfb_env.compiled.borrowed import borrow
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.fire import GATLING_EXTRA, cloak_range, gatling_open
from sfb_env.engine import Battle
from sfb_env.engine.battle import DEFAULT_MAX_TURNS
from sfb_env.engine.events import Damaged
from sfb_env.engine.ppd_fire import PPD_ARM_ORDERS
from sfb_env.engine.types import ESG_ORDERS, NEVER, Box, Maneuver, Status, UnitKind, WeaponType
from sfb_env.env import observation as obs_mod
from sfb_env.env import observation_layout as lay
from sfb_env.env import rule_features
from sfb_env.env.actions import ActionLayout, EnergyLayout, craft_components
from sfb_env.env.reward import DAMAGE_SCALE as _DAMAGE_SCALE
from sfb_env.env.transport_actions import TransportLayout

from . import esg as esg_mod
from . import event_codes
from .plasma import plasma_tables
from .plasma import warhead as plasma_warhead

# ---------------------------------------------------------------------- constants (frozen)

DAMAGE_SCALE = _DAMAGE_SCALE
_ACTIVE = int(Status.ACTIVE)
_SHIP, _FREIGHTER = int(UnitKind.SHIP), int(UnitKind.FREIGHTER)
_DRONE, _TARGET_DRONE = int(UnitKind.DRONE), int(UnitKind.TARGET_DRONE)
_PLASMA, _FIGHTER, _SHUTTLE = int(UnitKind.PLASMA), int(UnitKind.FIGHTER), int(UnitKind.SHUTTLE)
_MONSTER = int(UnitKind.MONSTER)
# (G4.0, G5) the research block's scales (env.rule_features._research)
_INFORMATION_SCALE = float(lay.RESEARCH.field("information").scale)
_PROBES_SCALE = float(lay.RESEARCH.field("probes_left").scale)
_ARMING_SCALE = float(lay.RESEARCH.field("arming_turns").scale)
_METHOD3_SCALE = float(lay.RESEARCH.field("method_3_damage").scale)
_PH1, _PH2, _PH3, _PHG = (int(WeaponType.PH1), int(WeaponType.PH2), int(WeaponType.PH3),
                          int(WeaponType.PHG))
_DRONE_RACK, _ESG = int(WeaponType.DRONE_RACK), int(WeaponType.ESG)
_FUSION = int(WeaponType.FUSION)
GATLING_SHOT_NUMBERS = tuple(range(2, 2 + GATLING_EXTRA))  # (E2.151) gatling[g].shot2..shot4
_PPD = int(WeaponType.PPD)
_PPD_SIZE = lay.PPD.size  # (E11) the PPD block: armed_pulses, pulsing, locked, pulses_left
_ESG_SIZE = lay.ESG.size  # (G23) the ESG block of one generator (env.observation._esg)
_P_ARMED, _P_PULSING = lay.PPD.at("armed_pulses"), lay.PPD.at("pulsing")
_P_LOCKED, _P_LEFT = lay.PPD.at("locked"), lay.PPD.at("pulses_left")
_PPD_PULSES = float(lay.PPD.field("pulses_left").scale)
_PPD_ORDERS = 2  # ``ppd[p]``: 0 keep, 1 drop (E11.362); 3 with reserve power (not ported)
_PLASMA_S, _PLASMA_F = int(WeaponType.PLASMA_S), int(WeaponType.PLASMA_F)
_M_NONE, _M_STRAIGHT = int(Maneuver.NONE), int(Maneuver.STRAIGHT)
_M_LEFT, _M_RIGHT = int(Maneuver.TURN_LEFT), int(Maneuver.TURN_RIGHT)
_N_MANEUVERS = 4
_ASTERN = hexmap.ASTERN_ROW_BITS
_MAX_FIGHTER_RANGE = 5  # (J4.47) engine.fighters.MAX_FIGHTER_TARGET_RANGE
assert [f for f, _ in event_codes._FIELDS[Damaged]][:4] == ["unit", "shield", "to_shield",
                                                           "internal"]
_PI3 = np.pi / 3
_ONE, _MINUS_ONE = np.float32(1.0), np.float32(-1.0)  # (_clip: float32 selects)
_SQRT3 = obs_mod.SQRT3

# observation rows (env.observation_layout): field offsets within their row
_O_COLUMN, _O_ROW, _O_EDGES = lay.OWN.at("column"), lay.OWN.at("row"), lay.OWN.at("edges")
_O_FACING, _O_SPEED = lay.OWN.at("facing"), lay.OWN.at("speed")
_O_MOVES, _O_CAN_TURN = lay.OWN.at("moves_next"), lay.OWN.at("can_turn")
_O_STRAIGHT, _O_SHIELDS = lay.OWN.at("straight"), lay.OWN.at("shields")
_O_INTERNAL = lay.OWN.at("internal")
_S_COLUMN, _S_ROW = float(lay.OWN.field("column").scale), float(lay.OWN.field("row").scale)
_S_EDGE, _S_STRAIGHT = float(lay.OWN.field("edges").scale), float(lay.OWN.field("straight").scale)
_WEAPON_SIZE = lay.WEAPON.size
_W_USABLE = lay.WEAPON.at("usable")
_S_DRONES = float(lay.WEAPON.field("drones_left").scale)
_C_TURN, _C_IMPULSE, _C_IPT = lay.CLOCK.at("turn"), lay.CLOCK.at("impulse"), lay.CLOCK.at(
    "impulses_per_turn")
_S_IPT = float(lay.CLOCK.field("impulses_per_turn").scale)
_SLOT_SIZE = lay.SLOT.size
_SL_PRESENT, _SL_KIND, _SL_RANGE = lay.SLOT.at("present"), lay.SLOT.at("kind"), lay.SLOT.at(
    "range")
_SL_BEARING, _SL_REL = lay.SLOT.at("bearing"), lay.SLOT.at("relative_facing")
_SL_FACING_US, _SL_SHIELDS = lay.SLOT.at("shield_facing_us"), lay.SLOT.at("shields")
_SL_DAMAGE, _SL_SEEKING, _SL_ARCS = lay.SLOT.at("damage"), lay.SLOT.at("seeking_us"), \
    lay.SLOT.at("arcs")
_THREAT_SIZE = lay.THREAT.size
_PLASMA_THREAT_SIZE = lay.PLASMA_THREAT.size
_PLASMA_WARHEAD_SCALE = float(lay.PLASMA_WARHEAD_SCALE)
_T_PRESENT, _T_RANGE = lay.THREAT.at("present"), lay.THREAT.at("range")
_T_BEARING, _T_SHIELD = lay.THREAT.at("bearing"), lay.THREAT.at("shield")
_RANGE_SCALE = float(lay.RANGE_SCALE)
_E_POWER, _E_BATTERIES = lay.ENERGY.at("power"), lay.ENERGY.at("batteries")
_E_CAPACITOR, _E_SHORTFALL = lay.ENERGY.at("capacitor"), lay.ENERGY.at("shortfall")
_E_CLOAKED, _E_OPEN = lay.ENERGY.at("cloaked"), lay.ENERGY.at("allocation_open")
_S_SHORTFALL = float(lay.ENERGY.field("shortfall").scale)
_ENERGY_SIZE, _ENERGY_WEAPON_SIZE = lay.ENERGY.size, lay.ENERGY_WEAPON.size
_EW_CHARGED, _EW_ARMING = lay.ENERGY_WEAPON.at("charged"), lay.ENERGY_WEAPON.at("arming")
_ARM_ORDERS = 3  # ArmOrder NONE, ARM, HOLD
_ENEMY_FIRE_SIZE = lay.ENEMY_FIRE.size  # (E1.5) per target slot
_F_FIRED, _F_SINCE = lay.ENEMY_FIRE.at("fired"), lay.ENEMY_FIRE.at("since")
_FIRE_GROUP = rule_features.FIRE_GROUP.copy()  # weapon type -> group (-1: the ESG)
_FIRE_GROUPS = len(lay.FIRE_GROUPS)  # phasers, heavy weapons, launchers
_NEVER = int(NEVER)
_WARP_BOX = int(Box.WARP)  # (J2.221) the bomb's arming energy is warp only
STATE_ROW = 19  # env.state(): values per unit (then turn and impulse)

_DIR_AXIAL = hexmap.DIR_TO_AXIAL.copy()
_DIR_CUBE = hexmap.DIR_TO_CUBE.copy()

# The ``BatchState`` fields the env side reads. The kernels take any namedtuple with these
# fields: ``state_view(s)`` is one (numba compiles a function taking the whole 123-field
# ``BatchState`` in seconds of CPU more than one taking this view; same arrays, no copy).
STATE_FIELDS = (
    "x", "z", "facing", "prev_x", "prev_z", "prev_facing", "speed", "straight", "tactical",
    "shields", "internal", "damage", "target", "kind", "side", "status", "captured_by",
    "cloaked", "cloaked_before", "w_type", "w_owner", "w_arcs", "w_astern", "w_min_range",
    "w_max_range", "w_ammo", "w_fired_turn", "w_last_fired", "w_ready_turn", "w_enabled",
    "w_destroyed", "boxes", "previous_speed", "batteries", "capacitor", "capacitor_max",
    "energy_shortfall", "w_armed", "w_arm_stage", "launched_at", "turn", "impulse", "ev",
    "ev_count", "w_gatling_shots", "ppd_target", "ppd_pulses", "ppd_resolved", "ppd_locked",
    "ppd_stage", "ppd_energy", "ppd_paid_turn",  # (E11.21-E11.25) the cadet form's charge
    "fire_control",  # (B3.0 standard line 8) paid this turn: fire and launch
    # (G23) the generators: the esg[g] mask, the ESG block and the esg_fields features
    "esg_stored", "esg_phase", "esg_radius", "esg_strength", "esg_announced_at",
    "esg_release_at", "esg_activated_at", "esg_dropped_at", "esg_cancelled_at",
    "launcher", "locked_on", "esg_struck_at", "dac_boxes",  # (D6) compiled.sensors
    # (D3.34, D9) compiled.engineering: masks and rule features
    "reinf_general", "reinf_specific", "reinf_held", "dc_repairs",
    # (G7.0) compiled.tractors: the tractor[b] masks and the tractors features
    "tractor_link", "tractor_holder", "tractor_used_turn", "tractor_released_at",
    "tractor_powered",
    # (G8.0, G8.24, D7.0) compiled.transporters: the transporter masks and boarding features
    "tran_used_turn", "tran_powered", "shield_drop_until", "boarding_parties", "crew_units",
    "control_stations", "shields_active", "shield_pool")
StateView = namedtuple("StateView", STATE_FIELDS)


def state_view(s) -> StateView:
    """The env side's fields of ``s`` (a ``BatchState``): the same arrays, not copies."""
    return StateView(*(getattr(s, name) for name in STATE_FIELDS))


ObserveTables = namedtuple("ObserveTables", [
    "n_agents", "agent_unit", "slots", "threats", "max_turns", "ipt", "quarter_turn",
    "max_speed", "speed_scale", "speed_choice", "launching", "odd_down",
    "first_column", "last_column", "first_row", "last_row",
    "racks", "n_racks", "weapons", "n_weapons", "drone_limit", "turn_mode",
    "obs_size", "mask_size", "off_weapons", "off_clock", "off_targets", "off_threats",
    "m_fire", "m_maneuver", "m_speed",
    "m_disengage",  # (SCENARIOS #5) mask offset of the ``disengage`` component, -1 none
    "c_disengage",  # the ``disengage`` component's index, -1 none
    "c_maneuver",  # the ``maneuver`` component's index (``speed`` follows it)
    "off_plasma",  # (FP1) offset of the plasma threat block, -1 none
    "plasma_launcher", "plasma_rows", "plasma_warhead",  # compiled.plasma.plasma_tables
    # (E11) the ``ppd[p]`` components: PPD rows (-1 padded), their count, the mask offset and
    # component index of ``ppd[0]``, the observation's PPD block offset (-1 none)
    "ppds", "n_ppds", "m_ppd", "c_ppd", "off_ppd",
    # (G23) per agent: its generators' weapon rows ((A, G), -1 padding or none; G23.122 the
    # Lyran Tiger's two), its esg[g] components, esg[0]'s mask offset, the first ESG block's
    # and the esg_fields features' offsets (-1 none); per unit its first two generators (-1
    # padded); capacities
    "esg_row", "n_esg", "m_esg", "off_esg", "off_esg_fields", "unit_esg", "esg_max",
    "init_shields", "init_internal", "init_strength", "craft_carrier", "move_chart",
    "atan2", "atan2_b", "atan2_dx", "atan2_k0", "rel_sin", "rel_cos",
    # the cadet form (B3.0, compiled.energy): per unit, per weapon type, per agent
    "governed", "total_power", "battery_sheet",  # (U,) bool, int64, int64
    "speed_rule",  # (U, 4) int64 energy.EnergyTables.speed_rule: move cost, acceleration
    "phaser_draw", "single_turn", "cycle_len", "hold_cost", "roll_cost", "cycle",  # by type
    "n_heavy", "heavy",  # (A,) int64, (A, H) int64 the arm[h] weapon rows (-1 padding)
    "arm_size",  # (A, H) int64 each arm[h]'s values: 3, a PPD's 6 (E11.25), padded wider
    "esg_cap",  # (W,) int64 (G23.22) the generators' capacity: the ESG's arm[h] mask
    "m_arm", "m_capacitor", "m_recharge", "off_energy",  # (A,) int64 offsets (-1 none)
    "c_energy", "m_cloak", "c_cloak",  # the first energy component, the cloak's (-1 none)
    "work",  # int64 scratch (observe, decode_action, the robots' fire): no allocation per call
    "fwork",  # float64 scratch (observe: the bearings of the slots and threats)
    # (E2.151) per agent: phaser-G rows (padded -1), their count, the offset in the mask of
    # the first ``gatling[g].shot{k}`` component and of each phaser-G's ``fire[w]`` component
    "gatling", "n_gatling", "m_gatling", "gatling_fire",
    # (D6) lock-on (compiled.sensors): per agent the lock_on block's offset (-1 none); the
    # sensor and scanner ratings by boxes left (sensors.sensor_tables)
    "off_lock_on", "sensor_of", "scanner_of",
    "off_cloak",  # (G13 standard rule) per agent the cloak block's offset (-1 none)
    # (C4, C5, FD1.2; compiled.maneuvers) rules.sideslip, rules.tactical_maneuvers,
    # rules.launch_facing, any of them (``extras`` writes their mask values), and the size of
    # a ``launch[r]`` component (k + 1; 7 k + 1 with the facing values)
    "sideslip", "tac", "facings", "move_rules", "launch_size",
    # (D3.34, D9, H7) compiled.engineering, per agent: which components (1 reinforcement, 2
    # damage control, 4 reserve power), the first one's mask offset and component index, the
    # reinforcement and damage_control features' offsets (-1 none); the damage control rating
    # by [unit, DAC boxes left] (D9.1) and its DacBox; reserve power in use (H7.2: fire)
    "eng_flags", "m_eng", "c_eng", "off_reinf", "off_dc", "dc_rating", "dc_box",
    "reserve_power",
    # (J4.34, J1.0) per agent the ``fighters`` / ``shuttles`` components' mask offsets (-1
    # none) and component indices (-1 none or uniform_spaces padding); small craft in play
    # (J4.51 close combat: ``_small_craft_part``)
    "m_fighters", "m_shuttles", "c_fighters", "c_shuttles", "small_craft",
    "craft_cloak",  # (G13) small_craft.CraftTables.cloak_rule: a cloaked carrier
    # (G7.0) compiled.tractors, per agent: its tractor[b] components (padded), the first one's
    # component index and mask offset, the tractors features' offset (-1 none); per unit its
    # beams and whether the form pays them; the standard DAC's boxes; a unit's row width in
    # ``BatchOrders.tractor``
    "n_tractor", "c_tractor", "m_tractor", "off_tractors", "tr_beams", "tr_form_pays",
    "tr_dac", "tr_width",
    # (G8.0, G8.24) compiled.transporters, per agent: the ``transporters`` energy line's
    # size (0 none), mask offset and component index, the ``transport[t]`` components (padded),
    # the first one's mask offset and index, ``drop_shield``'s offset and index (-1 none), the
    # boarding features' offset (-1 none); per unit the TRAN boxes on its sheet and whether
    # the form pays their uses; hexmap.SHIELD_LUT (the shields facing a unit); the widest
    # sheet (``BatchOrders.transport``'s row per unit)
    "n_tp_energy", "m_tp_energy", "c_tp_energy", "n_transport", "m_transport", "c_transport",
    "m_drop", "c_drop", "off_boarding", "tp_count", "tp_form_pays", "shield_lut", "tp_width",
    # (scenario 8, compiled.unit_rules) per unit the kinds it never fires at, may not leave
    # the map, its arrival turn or die (-1 none); hold_fire or may_not_leave in play
    # (``unit_rules.mask_part``), arrivals in play (a unit not arrived: the no-op mask,
    # ``actions.noop_mask``, from each component's offset ``comp_offsets`` of the agent's
    # ``n_comps`` and the scratch ``noop``)
    "hold_kinds", "no_leave", "arrive_turn", "arrive_die", "unit_rules", "arrivals",
    "comp_offsets", "n_comps", "noop",
    "planets",  # (P2.0) compiled.planets.PlanetTables: fire, moves, launches, shuttles
    # (J2.22, J2.221) per agent the ``suicide`` and ``suicide_arm`` components' mask offsets
    # and component indices (-1 none); compiled.suicide_shuttles.SuicideTables
    "m_suicide", "c_suicide", "m_suicide_arm", "c_suicide_arm", "suicide",
    # (G5, G4.0) per agent the ``probe`` component's mask offset and index and the research
    # features' offset (-1 none); compiled.probes.ProbeTables
    "m_probe", "c_probe", "off_research", "probes",
    "off_enemy_fire",  # (E1.5) per agent the enemy_fire features' offset (-1 none)
])

# the rule-features blocks observe writes (env.rule_features)
_PORTED_FEATURES = {"esg_fields", "lock_on", "cloak",
                    "reinforcement", "damage_control",  # (D3.34, D9) compiled.engineering
                    "tractors",  # (G7.0) compiled.tractors
                    "boarding",  # (G8.0, D7.0) compiled.transporters
                    "research",  # (G4.0, G5) compiled.probes, compiled.planet_killer
                    "enemy_fire"}  # (E1.5) the env's enemy_fire option: _enemy_fire_part
# rules / layout features observe_tables refuses (not in the tier-1 port)
_RULES_OFF = ()  # (hold_fire, may_not_leave, arrivals: unit_rules; planets: compiled.planets)
_TIER1_WEAPONS = {_PH1, _PH2, _PH3, int(WeaponType.DISRUPTOR), int(WeaponType.PHOTON),
                  _PHG, int(WeaponType.FUSION),  # (tier 2: the Hydran's phaser-G and fusion)
                  int(WeaponType.PPD)}  # (E11) the PPD under the Chief Engineer: compiled.ppd


def _layouts(battle: Battle, slots: int, uniform: bool, enemy_fire: bool = False
             ) -> dict[str, ActionLayout]:
    """The agents' action layouts as ``SFBParallelEnv.__init__`` builds them."""
    agents = [battle.unit_ids[u] for u in range(len(battle.unit_ids))
              if battle.controllers[u] == "agent"]
    pads: tuple = (None, None)
    gatling_pad = tractor_pad = transport_pad = None
    if uniform:
        probe = [ActionLayout.build(battle, battle.unit_index[a], slots) for a in agents]
        pads = (max(len(p.racks) for p in probe), max(len(p.weapons) for p in probe),
                max(len(p.esgs) for p in probe), EnergyLayout.widest([p.power for p in probe]),
                max(len(p.ppds) for p in probe),
                tuple(any(c[i] for c in (craft_components(battle, p.unit) for p in probe))
                      for i in range(2)))
        gatling_pad = max(len(p.gatling) for p in probe)
        tractor_pad = max(int(battle.tractor_beams[battle.unit_index[a]]) for a in agents)
        transport_pad = TransportLayout.widest(
            [TransportLayout.build(battle, battle.unit_index[a], slots) for a in agents])
    return {a: ActionLayout.build(battle, battle.unit_index[a], slots, *pads,
                                  pad_tractors=tractor_pad, pad_transport=transport_pad,
                                  n_gatling=gatling_pad, enemy_fire=enemy_fire)
            for a in agents}


def _atan2_table(battle: Battle) -> tuple[np.ndarray, np.ndarray, int, int]:
    """numpy's arctan2 as the reference's ``_bearing`` calls it, for every pair of hex centres
    of the printed map, as ``table[dx + DX, index[k_other - K0, k_own - K0]]`` with
    ``k = 2 z + x``: the second argument, ``-(oy - uy)``, takes one of a few hundred values
    (``index`` numbers them), so the table is 180 kB (it fits the L2 cache; the table over
    every pair, 1.8 MB, did not)."""
    cols, rows = np.meshgrid(np.arange(1, hexmap.PRINTED_COLUMNS + 1),
                             np.arange(1, hexmap.PRINTED_ROWS + 1), indexing="ij")
    x, z = hexmap.offset_to_axial_np(cols.ravel(), rows.ravel(), battle.scenario.parity)
    k = 2 * z + x
    dx_max = int(x.max() - x.min())
    k0, k1 = int(k.min()), int(k.max())
    dx = np.arange(-dx_max, dx_max + 1)
    ks = np.arange(k0, k1 + 1)
    # the reference: theta = arctan2(ox - ux, -(oy - uy)) with ox = 1.5 x, oy = SQRT3 (z + x / 2)
    ox = 1.5 * dx.astype(np.float64)  # 1.5 x_o - 1.5 x_u is exact: 1.5 (x_o - x_u)
    oy = _SQRT3 * (ks / 2.0)  # z + x / 2.0 is exactly k / 2
    b = -(oy[:, None] - oy[None, :])  # [k_other, k_own]
    values, index = np.unique(b, return_inverse=True)
    a = np.broadcast_to(ox[:, None], (len(dx), len(values)))
    table = np.ascontiguousarray(np.arctan2(a, np.broadcast_to(values[None, :], a.shape)))
    return table, index.reshape(b.shape).astype(np.int16), dx_max, k0


def observe_tables(setup, env_options: dict | None = None) -> ObserveTables:
    """Static tables of the env side for one scenario (``setup``: its ``BattleSetup``);
    ``env_options``: the env's ``target_slots``, ``threat_slots``, ``max_turns``,
    ``uniform_spaces`` and ``enemy_fire`` (defaults as ``SFBParallelEnv``). Raises
    ``NotImplementedError`` for a scenario outside the tier-1 port (see the module docstring)."""
    opts = {"target_slots": 8, "threat_slots": 4, "max_turns": None, "uniform_spaces": False,
            "enemy_fire": False, **(env_options or {})}
    battle = Battle.from_parts(setup, setup.start_state.copy())
    rules = battle.rules
    on = [name for name in _RULES_OFF if getattr(rules, name)]
    if on:
        raise NotImplementedError(f"compiled observe: rules {on} are not ported")
    if tuple(int(m) for m in battle.maneuvers) != tuple(range(len(battle.maneuvers))):
        raise NotImplementedError("compiled observe: the maneuvers in Maneuver order only")
    k, n_threats = int(opts["target_slots"]), int(opts["threat_slots"])
    if k > 62:  # (observe gathers a weapon's open slots as the bits of one int64)
        raise NotImplementedError(f"compiled observe: target_slots={k} (at most 62)")
    layouts = _layouts(battle, k, bool(opts["uniform_spaces"]), bool(opts["enemy_fire"]))
    agents = list(layouts)
    n = len(agents)
    st = battle.state
    max_r = max([1] + [len(lo.racks) for lo in layouts.values()])
    max_w = max([1] + [len(lo.weapons) for lo in layouts.values()])
    max_p = max([1] + [len(lo.ppds) for lo in layouts.values()])
    ppds = np.full((n, max_p), -1, np.int64)
    racks = np.full((n, max_r), -1, np.int64)
    weapons = np.full((n, max_w), -1, np.int64)
    max_g = max([1] + [len(lo.gatling) for lo in layouts.values()])
    gatling = np.full((n, max_g), -1, np.int64)
    gatling_fire = np.zeros((n, max_g), np.int64)
    esg_row = np.full((n, max([1] + [len(lo.esgs) for lo in layouts.values()])), -1, np.int64)
    ints = {name: np.zeros(n, np.int64) for name in (
        "agent_unit", "n_racks", "n_weapons", "drone_limit", "obs_size", "mask_size",
        "off_weapons", "off_clock", "off_targets", "off_threats", "m_fire", "m_maneuver",
        "m_speed", "m_disengage", "c_disengage", "c_maneuver", "off_plasma", "n_gatling",
        "m_gatling", "n_heavy", "m_arm", "m_capacitor", "m_recharge", "off_energy",
        "c_energy", "m_cloak", "c_cloak", "n_ppds", "m_ppd", "c_ppd", "off_ppd",
        "n_esg", "m_esg", "off_esg", "off_esg_fields", "off_lock_on", "off_cloak",
        "eng_flags", "m_eng", "c_eng", "off_reinf", "off_dc",
        "m_suicide", "c_suicide", "m_suicide_arm", "c_suicide_arm",
        "m_fighters", "m_shuttles", "c_fighters", "c_shuttles",
        "n_tractor", "c_tractor", "m_tractor", "off_tractors",
        "n_tp_energy", "m_tp_energy", "c_tp_energy", "n_transport", "m_transport",
        "c_transport", "m_drop", "c_drop", "off_boarding", "m_probe", "c_probe",
        "off_research", "off_enemy_fire")}
    max_h = max([1] + [len(lo.power.heavies) for lo in layouts.values() if lo.power is not None])
    heavy = np.full((n, max_h), -1, np.int64)
    arm_size = np.full((n, max_h), _ARM_ORDERS, np.int64)
    turn_mode = np.zeros((n, impulse.IMPULSES_PER_TURN[-1] + 1), np.int64)
    launch_size = k + 1 + (6 * k if rules.launch_facing else 0)  # (FD1.2, Launch.size)
    for a, name in enumerate(agents):
        lo = layouts[name]
        u = lo.unit
        if set(lo.rule_features) - _PORTED_FEATURES:
            raise NotImplementedError(f"compiled observe: {name} has rule features "
                                      f"{lo.rule_features}")
        extra = [what for what, has in (
            ("ppd orders", lo.ppds.size and lo.ppd_orders != _PPD_ORDERS),
            ("energy beyond the cadet form", _energy_extra(lo.power)),
            ("rule features", tuple(f for f in lo.rule_features
                                    if f not in _PORTED_FEATURES)),
            ) if has]
        kinds = {int(st.w_type[w]) for w in lo.weapons if w >= 0}
        if extra or not kinds <= _TIER1_WEAPONS or any(
                int(st.w_type[r]) != _DRONE_RACK
                and not _PLASMA_S <= int(st.w_type[r]) <= _PLASMA_F for r in lo.racks if r >= 0):
            raise NotImplementedError(f"compiled observe: {name} has {extra or sorted(kinds)}")
        if int(st.kind[u]) != _SHIP or lo.maneuvers != len(battle.maneuvers):
            raise NotImplementedError(f"compiled observe: {name} is not a plain ship")
        ints["agent_unit"][a] = u
        racks[a, :len(lo.racks)] = lo.racks
        weapons[a, :len(lo.weapons)] = lo.weapons
        ints["n_racks"][a], ints["n_weapons"][a] = len(lo.racks), len(lo.weapons)
        n_p = len(lo.ppds)
        ppds[a, :n_p] = lo.ppds
        ints["n_ppds"][a] = n_p
        limit = getattr(battle.ship_classes[u], "drone_launch_limit", None)
        ints["drone_limit"][a] = -1 if limit is None else int(limit)
        chart = tables.turn_mode_chart(battle.turn_mode_chart[u])
        turn_mode[a, :len(chart)] = chart
        where = obs_mod.placement(lo, n_threats)
        ints["obs_size"][a] = where.size
        ints["mask_size"][a] = lo.size
        ints["off_weapons"][a] = where.part("own", "weapons").offset
        ints["off_clock"][a] = where.part("clock").offset
        ints["off_targets"][a] = where.part("targets").offset
        ints["off_threats"][a] = where.part("threats").offset
        ints["off_plasma"][a] = (where.part("plasma_threats").offset if lo.plasma_threats
                                 else -1)
        ints["off_ppd"][a] = where.part("ppd").offset if n_p else -1
        names = lo.component_names()
        n_r, n_w, n_g = len(lo.racks), len(lo.weapons), len(lo.gatling)
        n_e = len(lo.esgs)
        ints["n_esg"][a] = n_e
        esg_row[a, :n_e] = lo.esgs  # (G23.122) one esg[g] and ESG block per generator
        ints["m_esg"][a] = lo.offsets[names.index("esg[0]")] if n_e else -1
        ints["off_esg"][a] = where.part("esg").offset if n_e else -1
        ints["off_esg_fields"][a] = (where.span("esg_fields").start
                                     if "esg_fields" in lo.rule_features else -1)
        ints["off_lock_on"][a] = (where.span("lock_on").start  # (D6)
                                  if "lock_on" in lo.rule_features else -1)
        ints["off_cloak"][a] = (where.span("cloak").start  # (G13 standard rule)
                                if "cloak" in lo.rule_features else -1)
        ints["off_enemy_fire"][a] = (where.span("enemy_fire").start  # (E1.5)
                                     if "enemy_fire" in lo.rule_features else -1)
        power = []
        for key in ("m_arm", "m_capacitor", "m_recharge", "off_energy", "c_energy", "m_cloak",
                    "c_cloak", "m_eng", "c_eng", "off_reinf", "off_dc"):
            ints[key][a] = -1
        ints["off_reinf"][a] = (where.span("reinforcement").start  # (D3.34)
                                if "reinforcement" in lo.rule_features else -1)
        ints["off_dc"][a] = (where.span("damage_control").start  # (D9)
                             if "damage_control" in lo.rule_features else -1)
        if lo.power is not None:  # (B3.0) arm[h], capacitor, recharge; the energy block
            n_h = len(lo.power.heavies)
            flags = (1 * bool(lo.power.reinforce) + 2 * bool(lo.power.repair)
                     + 4 * bool(lo.power.reserve))  # (D3.34, D9, H7) compiled.engineering
            eng = engineering.component_names(flags)
            power = ([f"arm[{h}]" for h in range(n_h)] + ["capacitor", "recharge"]
                     + ["cloak"] * bool(lo.power.cloak) + eng
                     + ["suicide_arm"] * bool(lo.power.suicide))  # (J2.221)
            ints["c_energy"][a] = names.index(power[0])
            ints["eng_flags"][a] = flags
            if eng:
                ints["c_eng"][a] = names.index(eng[0])
                ints["m_eng"][a] = lo.offsets[ints["c_eng"][a]]
            if lo.power.cloak:  # (G13.0 cadet rule) pay the cloak at Energy Allocation
                ints["c_cloak"][a] = names.index("cloak")
                ints["m_cloak"][a] = lo.offsets[ints["c_cloak"][a]]
            ints["n_heavy"][a] = n_h
            heavy[a, :n_h] = lo.power.heavies
            arm_size[a, :n_h] = lo.power.arm_values()
            ints["m_arm"][a] = lo.offsets[names.index(power[0])]
            ints["m_capacitor"][a] = lo.offsets[names.index("capacitor")]
            ints["m_recharge"][a] = lo.offsets[names.index("recharge")]
            ints["off_energy"][a] = where.span("energy").start
        ints["m_fire"][a] = lo.offsets[n_r] if n_w else n_r * launch_size
        ints["m_maneuver"][a] = lo.offsets[names.index("maneuver")]
        ints["m_speed"][a] = lo.offsets[names.index("speed")]
        ints["m_disengage"][a] = lo.offsets[names.index("disengage")] if lo.disengage else -1
        ints["c_disengage"][a] = names.index("disengage") if lo.disengage else -1
        ints["c_maneuver"][a] = names.index("maneuver")
        ints["n_gatling"][a] = n_g  # (E2.151) gatling[g].shot2..shot4 after the fire[w]
        ints["m_gatling"][a] = n_r * launch_size + n_w * (k + 1)
        gatling[a, :n_g] = lo.gatling
        for g, w in enumerate(lo.gatling):
            i = list(lo.weapons).index(w) if w >= 0 else 0
            gatling_fire[a, g] = lo.offsets[n_r + i]
        craft = [name for name, _, _ in lo.craft]  # (J4.34, J1.0) after the ppd[p]
        for name, _, real in lo.craft:
            c = names.index(name)
            ints[f"m_{name}"][a] = lo.offsets[c]
            ints[f"c_{name}"][a] = c if real else -1
        for name in ("fighters", "shuttles"):
            if name not in craft:
                ints[f"m_{name}"][a] = ints[f"c_{name}"][a] = -1
        n_t = lo.tractors  # (G7.0) tractor[b], after the disengage component
        ints["n_tractor"][a] = n_t
        ints["c_tractor"][a] = names.index("tractor[0]") if n_t else -1
        ints["m_tractor"][a] = lo.offsets[ints["c_tractor"][a]] if n_t else -1
        ints["off_tractors"][a] = (where.span("tractors").start
                                   if "tractors" in lo.rule_features else -1)
        tp = lo.transport  # (G8.0, G8.24) after the tractor[b]
        tp_names = []
        for key in ("m_tp_energy", "c_tp_energy", "m_transport", "c_transport", "m_drop",
                    "c_drop"):
            ints[key][a] = -1
        if tp is not None:
            tp_names = (["transporters"] * bool(tp.energy)
                        + [f"transport[{t}]" for t in range(tp.count)] + ["drop_shield"])
            ints["n_tp_energy"][a], ints["n_transport"][a] = tp.energy, tp.count
            for key, comp in (("tp_energy", "transporters"), ("transport", "transport[0]"),
                              ("drop", "drop_shield")):
                if comp in tp_names:
                    ints[f"c_{key}"][a] = names.index(comp)
                    ints[f"m_{key}"][a] = lo.offsets[ints[f"c_{key}"][a]]
        ints["off_boarding"][a] = (where.span("boarding").start
                                   if "boarding" in lo.rule_features else -1)
        ints["off_research"][a] = (where.span("research").start  # (G4.0, G5)
                                   if "research" in lo.rule_features else -1)
        ints["c_probe"][a] = names.index("probe") if lo.probe else -1  # (G5)
        ints["m_probe"][a] = lo.offsets[ints["c_probe"][a]] if lo.probe else -1
        for key, comp in (("suicide", "suicide"), ("suicide_arm", "suicide_arm")):  # (J2.22)
            ints[f"c_{key}"][a] = names.index(comp) if comp in names else -1
            ints[f"m_{key}"][a] = (lo.offsets[ints[f"c_{key}"][a]] if comp in names else -1)
        ints["c_ppd"][a] = names.index("ppd[0]") if n_p else -1  # (E11.362) ppd[p]
        ints["m_ppd"][a] = lo.offsets[ints["c_ppd"][a]] if n_p else -1
        expected = ([f"launch[{i}]" for i in range(n_r)] + [f"fire[{i}]" for i in range(n_w)]
                    + [f"gatling[{g}].shot{j}" for g in range(n_g) for j in GATLING_SHOT_NUMBERS]
                    + [f"esg[{i}]" for i in range(n_e)]
                    + [f"ppd[{i}]" for i in range(n_p)] + craft
                    + ["disengage"] * bool(lo.disengage) + ["probe"] * bool(lo.probe)
                    + [f"tractor[{i}]" for i in range(n_t)] + tp_names
                    + ["suicide"] * bool(lo.suicide) + power
                    + ["maneuver", "speed"])
        targeted = n_r + n_w + len(GATLING_SHOT_NUMBERS) * n_g  # k + 1 values each
        # (FD1.2) launch[r] with the facing values: 7 k + 1
        sizes = [launch_size] * n_r + [k + 1] * (targeted - n_r)
        sized = [(f"ppd[{i}]", _PPD_ORDERS) for i in range(n_p)] + [
            (f"esg[{i}]", ESG_ORDERS) for i in range(n_e)] + [
            (f"tractor[{i}]", k + 2) for i in range(n_t)] + [
            (f"transport[{t}]", 2 * k + 1) for t in range(tp.count if tp else 0)] + [
            ("drop_shield", 7)] * bool(tp) + [("suicide", k + 1)] * bool(lo.suicide) + [
            ("suicide_arm", suicide_mod.ARM_VALUES)] * bool(lo.power and lo.power.suicide) + [
            ("probe", probes_mod.ORDERS)] * bool(lo.probe) + (
                [("transporters", tp.energy)] if tp is not None and tp.energy else [])
        sized += list(zip(names[:targeted], sizes, strict=True))
        if names != expected or any(int(lo.nvec[names.index(c)]) != size for c, size in sized):
            raise NotImplementedError(f"compiled observe: {name}'s components {names}")
    if (rules.may_not_leave and (rules.sideslip or rules.tactical_maneuvers
                                 or int(st.impulses_per_turn) != 32)):
        raise NotImplementedError("compiled observe: may_leave false beside sideslip, TAC or "
                                  "on the 8- and 16-impulse charts (the C3.2 union) not ported")
    n_comps = np.array([len(layouts[a].nvec) for a in agents], np.int64)
    comp_offsets = np.zeros((n, max([1, *n_comps])), np.int64)
    for a, name in enumerate(agents):
        comp_offsets[a, :n_comps[a]] = layouts[name].offsets
    max_turns = int(opts["max_turns"] or battle.scenario.turn_limit or DEFAULT_MAX_TURNS)
    ipt = int(st.impulses_per_turn)
    area = battle.scenario.map_area
    atan2, atan2_b, dx_max, k0 = _atan2_table(battle)
    rel = np.arange(-5, 6) * (np.pi / 3)  # the reference: (f_o - f_u) * (pi / 3)
    init = battle.initial
    et = energy.energy_tables(setup)
    tt = tractors.tractor_tables(setup)
    tpt = transporters.transporter_tables(setup)
    ships = battle.ship_classes
    unit_esg = np.full((len(setup.unit_ids), esg_mod.FIELDS_SEEN), -1, np.int64)
    for u in range(len(setup.unit_ids)):  # (knowledge.esg_fields_seen) the first two
        rows = battle.esg_rows(u)[:esg_mod.FIELDS_SEEN]
        unit_esg[u, :len(rows)] = rows
    return ObserveTables(
        n_agents=n, slots=k, threats=n_threats, max_turns=max_turns, ipt=ipt,
        quarter_turn=int(battle.quarter_turn), max_speed=int(rules.max_speed),
        speed_scale=max(1, int(rules.max_speed)),
        speed_choice=bool(rules.speed_choice or rules.energy_form),  # (legality, B3.0)
        launching=bool(rules.seeking_weapons and rules.launch_seeking_weapons),
        odd_down=battle.scenario.parity == "odd-down",
        first_column=int(area.first_column), last_column=int(area.last_column),
        first_row=int(area.first_row), last_row=int(area.last_row),
        racks=racks, weapons=weapons, turn_mode=turn_mode, ppds=ppds,
        init_shields=np.asarray(init.shields, np.int64).copy(),
        init_internal=np.asarray(init.internal_boxes, np.int64).copy(),
        init_strength=np.asarray(init.strength, np.int64).copy(),
        craft_carrier=np.asarray(battle.craft_carrier, np.int64).copy(),
        move_chart=np.ascontiguousarray(impulse.movement_chart(ipt)),
        atan2=atan2, atan2_b=atan2_b, atan2_dx=dx_max, atan2_k0=k0,
        rel_sin=np.sin(rel), rel_cos=np.cos(rel),
        work=np.zeros(max(6 * k + n_threats + max_w + max_r,
                          len(setup.unit_ids) * len(setup.weapon_ids)), np.int64),
        fwork=np.zeros(k + n_threats, np.float64), gatling=gatling, gatling_fire=gatling_fire,
        esg_row=esg_row, unit_esg=unit_esg, esg_max=np.asarray(st.esg_max, np.int64).copy(),
        **{name: v for name, v in plasma_tables(setup).items()
           if name in ("plasma_launcher", "plasma_rows", "plasma_warhead")},
        governed=et.governed, phaser_draw=et.phaser_draw, single_turn=et.single_turn,
        cycle_len=et.cycle_len, hold_cost=et.hold_cost, roll_cost=et.roll_cost, cycle=et.cycle,
        total_power=np.array([int(c.total_power) if c is not None and et.governed[u] else 1
                              for u, c in enumerate(ships)], np.int64),
        battery_sheet=np.array([int(c.batteries) if c is not None and et.governed[u] else 1
                                for u, c in enumerate(ships)], np.int64),
        speed_rule=et.speed_rule, heavy=heavy, arm_size=arm_size, esg_cap=et.esg_max,
        sideslip=bool(rules.sideslip), tac=bool(rules.tactical_maneuvers),
        facings=bool(rules.launch_facing), launch_size=launch_size,
        move_rules=bool(rules.sideslip or rules.tactical_maneuvers or rules.launch_facing),
        dc_rating=et.dc_rating, dc_box=et.dc_box, reserve_power=bool(et.reserve_power),
        **{name: v for name, v in sensors.sensor_tables(setup).items() if name != "lock_on"},
        small_craft=bool(rules.small_craft_in_play),
        craft_cloak=craft_mod.cloak_rule(rules),
        tr_beams=tt.beams, tr_form_pays=tt.form_pays, tr_dac=bool(tt.std_dac),
        tr_width=int(np.asarray(st.tractor_link).shape[1]) if rules.tractors else 0,
        tp_count=tpt.count, tp_form_pays=tpt.form_pays,
        shield_lut=np.ascontiguousarray(hexmap.SHIELD_LUT, dtype=np.int64),
        tp_width=int(np.asarray(st.tran_used_turn).shape[1]) if rules.transporters else 0,
        **unit_rules.tables(setup), unit_rules=bool(rules.hold_fire or rules.may_not_leave),
        arrivals=bool(rules.arrivals), comp_offsets=comp_offsets, n_comps=n_comps,
        noop=np.zeros_like(comp_offsets), planets=planets_mod.planet_tables(setup),
        suicide=suicide_mod.suicide_tables(setup), probes=probes_mod.probe_tables(setup),
        **ints)


def _energy_extra(power: EnergyLayout | None) -> bool:
    """Whether the agent has energy components beyond the cadet form's arm[h], capacitor,
    recharge, cloak and the engineering components (``compiled.engineering``: reinforcement,
    damage control, reserve power) and the suicide bomb (J2.221), i.e. the ESG's reserve: not
    ported.
    A PPD's ``arm[h]`` has 6 values (E11.25)."""
    if power is None:
        return False
    return bool(len(power.esg_reserve)
                or any(size not in (_ARM_ORDERS, PPD_ARM_ORDERS) for size in power.arm_values()))


def agent_names(setup) -> list[str]:
    """The agents of ``setup`` in ``ObserveTables`` order (the env's ``possible_agents``)."""
    st = setup.start_state
    return [setup.unit_ids[u] for u in range(len(setup.unit_ids))
            if st.controllers[u] == "agent"]


# ---------------------------------------------------------------------- geometry


@kernel(_nrt=False, error_model="numpy")
def _distance(x1, z1, x2, z2):
    """(D1.4) ``hexmap.distance_np``."""
    dx = x2 - x1
    dz = z2 - z1
    return max(max(abs(dx), abs(dz)), abs(dx + dz))


@kernel(_nrt=False, error_model="numpy")
def _arc_bits(x, z, f, tx, tz):
    """(D2.1) ``hexmap.arc_bits_np`` (the formula its lookup table is built from)."""
    vx = tx - x
    vz = tz - z
    bits = 0  # by absolute direction d1; bit k of the answer is direction (f + k) % 6
    for d1 in range(6):
        d2 = d1 + 1 if d1 < 5 else 0
        a = vx * _DIR_AXIAL[d2, 1] - vz * _DIR_AXIAL[d2, 0]
        b = _DIR_AXIAL[d1, 0] * vz - _DIR_AXIAL[d1, 1] * vx
        if a >= 0 and b >= 0:
            bits |= 1 << d1
    return _rotate(bits, f)


@nb.njit(cache=True, inline="always")
def _rotate(bits, f):
    """A 6-bit mask by absolute direction as one by direction relative to facing ``f``
    (bit k := bit (f + k) % 6: a right rotation by f)."""
    return ((bits >> f) | (bits << (6 - f))) & 63


@kernel(_nrt=False, error_model="numpy")
def _shield_bits(x, z, f, fx, fz):
    """(D3.4) ``hexmap.shield_bits_np``: shields of a unit at (x, z) facing f struck from
    (fx, fz), as a 6-bit mask."""
    vx = fx - x
    vz = fz - z
    vy = -vx - vz
    top = -(1 << 62)
    for d in range(6):
        top = max(top, vx * _DIR_CUBE[d, 0] + vy * _DIR_CUBE[d, 1] + vz * _DIR_CUBE[d, 2])
    bits = 0  # by absolute direction
    for d in range(6):
        if vx * _DIR_CUBE[d, 0] + vy * _DIR_CUBE[d, 1] + vz * _DIR_CUBE[d, 2] == top:
            bits |= 1 << d
    return _rotate(bits, f)


@kernel(_nrt=False, error_model="numpy")
def _bearing(ot, xu, zu, fu, xo, zo):
    """``env.observation._bearing`` of a unit at (xo, zo) from one at (xu, zu) facing fu."""
    return _bearing_a(ot.atan2, ot.atan2_b, ot.atan2_dx, ot.atan2_k0, xu, zu, fu, xo, zo)


@nb.njit(cache=True, inline="always")
def _bearing_a(atan2, atan2_b, atan2_dx, atan2_k0, xu, zu, fu, xo, zo):
    """``_bearing`` on the table arrays (the hot kernels pass arrays, not namedtuples: numba
    increfs and decrefs every array of a namedtuple argument on each call)."""
    dx = xo - xu
    ko = 2 * zo + xo - atan2_k0
    ku = 2 * zu + xu - atan2_k0
    n = atan2_b.shape[0]
    if abs(dx) <= atan2_dx and 0 <= ko < n and 0 <= ku < n:
        theta = atan2[dx + atan2_dx, atan2_b[ko, ku]]
    else:  # off the printed map (not reached in play): the C library's arctan2
        oy = _SQRT3 * (zo + xo / 2.0)
        uy = _SQRT3 * (zu + xu / 2.0)
        theta = np.arctan2(1.5 * xo - 1.5 * xu, -(oy - uy))
    return theta - fu * _PI3


@kernel(_nrt=False, error_model="numpy")
def _column_row(ot, x, z):
    """``hexmap.axial_to_offset_np``: 1-based (column, row)."""
    return _column_row_a(ot.odd_down, x, z)


@nb.njit(cache=True, inline="always")
def _column_row_a(odd_down, x, z):
    odd = x & 1
    row = z + (x + odd) // 2 if odd_down else z + (x - odd) // 2
    return x + 1, row + 1


@kernel(_nrt=False, error_model="numpy")
def _flag(value):
    return 1.0 if value else 0.0


@kernel(_nrt=False, error_model="numpy")
def _fraction(now, start):
    return now / max(start, 1) if start > 0 else 0.0


# ---------------------------------------------------------------------- target and threat slots


@nb.njit(cache=True, inline="always")
def _nearest_rows(status, side, kind, target, x, z, b, u, threats, out):
    """Into ``out`` the first ``len(out)`` candidates by (range from u, row)
    (``np.lexsort((rows, ranges))``), -1 padded; returns how many were written. Candidates:
    ``threats`` False, the enemy units in play (``ActionLayout.target_slots``); True,
    ``knowledge.threats_to(u)`` (seeking weapons and craft in play aimed at u). No allocation:
    an insertion into ``out`` (rows ascending, so a tie goes after the equal ranges)."""
    m = len(out)
    for i in range(m):
        out[i] = -1
    xu, zu = x[b, u], z[b, u]
    my_side = side[b, u]
    n = 0
    for t in range(status.shape[1]):
        if status[b, t] != _ACTIVE:
            continue
        if threats:
            k = kind[b, t]
            if target[b, t] != u or k not in (_DRONE, _PLASMA, _FIGHTER, _SHUTTLE):
                continue
        elif side[b, t] == my_side:
            continue
        r = _distance(xu, zu, x[b, t], z[b, t])
        p = n
        while p > 0 and _distance(xu, zu, x[b, out[p - 1]], z[b, out[p - 1]]) > r:
            p -= 1
        if p >= m:
            continue
        last = n if n < m else m - 1
        for i in range(last, p, -1):
            out[i] = out[i - 1]
        out[p] = t
        if n < m:
            n += 1
    return n


@kernel(_nrt=False, error_model="numpy")
def target_slots(s, ot, b, u, out):
    """``ActionLayout.target_slots``: unit rows of the enemy units in play nearest ``u`` (ties:
    lower row first) into ``out`` (K,), -1 for empty slots; returns how many are filled."""
    return _nearest_rows(s.status, s.side, s.kind, s.target, s.x, s.z, b, u, False, out)


@kernel(_nrt=False, error_model="numpy")
def _threat_rows(s, b, u, out):
    """``knowledge.threats_to`` ordered by (range, row), the first ``len(out)``."""
    return _nearest_rows(s.status, s.side, s.kind, s.target, s.x, s.z, b, u, True, out)


# ---------------------------------------------------------------------- predicates


@kernel(_nrt=False, error_model="numpy")
def speed_choice_open(s, ot, b):
    """``legality.speed_choice_open`` (``ot.speed_choice``: the rule or the cadet form)."""
    imp = s.impulse[b]
    return ot.speed_choice and (imp == 0 or imp == ot.ipt)


@nb.njit(cache=True, inline="always")
def _blocked_bits(turn_mode, straight, a, can_move, sp):
    """``movement.maneuver_blockers`` as a bit mask over the four maneuvers (bit m closed) at
    speed ``sp`` for a ship ``straight`` hexes straight."""
    if not can_move:
        return (1 << _M_STRAIGHT) | (1 << _M_LEFT) | (1 << _M_RIGHT)
    bits = 1 << _M_NONE
    need = turn_mode[a, max(sp, 1)]  # (C3.2) an agent is a ship
    if straight < need:
        bits |= (1 << _M_LEFT) | (1 << _M_RIGHT)
    return bits


@nb.njit(cache=True, inline="always")
def _maneuver_blocked_a(status, tactical, speed, straight, move_chart, turn_mode, b, a, u, imp,
                        ipt, choice, max_speed, governed, top, payable, pt, x, z, facing):
    """``maneuver_blocked`` on arrays (``choice``: ``speed_choice_open``; ``governed``: the
    form's speeds only, ``energy.speed_open`` of ``top`` and ``payable``; ``pt``: the planets,
    whose hexes close the moves entering them at each speed, P2.0)."""
    nxt = 1 if (imp == 0 or imp == ipt) else imp + 1
    active = status[b, u] == _ACTIVE
    st = straight[b, u]
    xu, zu, fu = x[b, u], z[b, u], facing[b, u]
    if not choice:
        can = active and not tactical[b, u] and move_chart[speed[b, u], nxt - 1]
        bits = _blocked_bits(turn_mode, st, a, can, speed[b, u])
        if pt.on:
            bits |= planets_mod.entering_bits(pt, xu, zu, fu, bits)
        return bits
    acc = (1 << _N_MANEUVERS) - 1
    for sp in range(max_speed + 1):
        if governed and not energy.speed_open(sp, top, payable):
            continue  # (legality.speed_range) a speed the form closes permits nothing
        can = active and move_chart[sp, nxt - 1]
        bits = _blocked_bits(turn_mode, st, a, can, sp)
        if pt.on:
            bits |= planets_mod.entering_bits(pt, xu, zu, fu, bits)
        acc &= bits
    return acc


@kernel(_nrt=False, error_model="numpy")
def maneuver_blocked(s, ot, b, a):
    """``legality.maneuver_blockers(battle, unit)`` of agent ``a`` as a bit mask (bit m: value m
    closed); where the orders pick next turn's speed, the maneuvers no allowed speed permits."""
    u = ot.agent_unit[a]
    return _maneuver_blocked_a(
        s.status, s.tactical, s.speed, s.straight, ot.move_chart, ot.turn_mode, b, a, u,
        s.impulse[b], ot.ipt, speed_choice_open(s, ot, b), ot.max_speed, ot.governed[u],
        energy.speed_top(energy.previous_speed(s.speed, s.previous_speed, s.tactical,
                                               s.impulse[b], b, u), ot.speed_rule, u),
        energy.payable_speed(s.boxes, ot.speed_rule, b, u), ot.planets, s.x, s.z, s.facing)


@nb.njit(cache=True, inline="always")
def _weapon_ready_a(status, captured_by, cloaked, cloaked_before, w_owner, w_type, w_enabled,
                    w_destroyed, w_ready_turn, w_fired_turn, w_last_fired, turn, imp, ipt,
                    quarter_turn, b, w, w_gatling_shots):
    """``weapon_ready`` on arrays."""
    owner = w_owner[b, w]
    kind = w_type[b, w]
    if status[b, owner] != _ACTIVE or captured_by[b, owner] >= 0:
        return False
    if not w_enabled[b, w] or w_destroyed[b, w]:
        return False
    if kind in (_DRONE_RACK, _ESG) or _PLASMA_S <= kind <= _PLASMA_F:
        return False
    if imp < 1 or cloaked[b, owner] or (cloaked_before[b, owner] and imp == 1):
        return False  # (cloak.fire_blocker under the cadet rule)
    if kind == _FUSION:  # (E7.21) the Chief Engineer arms it unless it fired this turn (E1.5)
        fired = w_fired_turn[b, w]  # or the last (E7.22 cooling); 0: never fired
        return fired != turn and (fired == 0 or fired != turn - 1)
    if kind == _PHG:  # (E2.151) its first shot of the impulse; no E1.5 rate
        return gatling_open(w_gatling_shots, b, w, turn, imp, ipt, quarter_turn, 1)
    if turn < w_ready_turn[b, w] or w_fired_turn[b, w] == turn:
        return False
    now = (turn - 1) * ipt + imp
    return now - w_last_fired[b, w] >= quarter_turn


@kernel(_nrt=False, error_model="numpy")
def weapon_ready(s, ot, b, w):
    """``direct_fire.weapon_ready_blocker(battle, w) is None`` for a tier-1 direct-fire weapon
    (phasers 1-3, disruptors, photons; Chief Engineer energy)."""
    return _weapon_ready_call(borrow(s.status), borrow(s.captured_by), borrow(s.cloaked),
                              borrow(s.cloaked_before), borrow(s.w_owner), borrow(s.w_type),
                              borrow(s.w_enabled), borrow(s.w_destroyed),
                              borrow(s.w_ready_turn), borrow(s.w_fired_turn),
                              borrow(s.w_last_fired), s.turn[b], s.impulse[b], ot.ipt,
                              ot.quarter_turn, b, w, borrow(s.w_gatling_shots))


@nb.njit(cache=True, inline="always")
def ready_args(s):
    """``_weapon_ready_pinned``'s arrays (a batch keeps them
    in a handle: ``procedure.call_args``)."""
    return (s.status, s.captured_by, s.cloaked, s.cloaked_before, s.w_owner,
            s.w_type, s.w_enabled, s.w_destroyed, s.w_ready_turn, s.w_fired_turn,
            s.w_last_fired, s.w_gatling_shots)


@nb.njit(cache=True, inline="always")
def weapon_ready_pinned(pw, s, ot, b, w):
    """``weapon_ready`` with its arrays pinned by the caller (``pw``: ``ready_args(s)``, pinned)."""
    return _weapon_ready_pinned(pw, s.turn[b], s.impulse[b], ot.ipt, ot.quarter_turn, b, w)


@kernel(_nrt=False, error_model="numpy")
def _weapon_ready_pinned(p, turn, imp, ipt, quarter_turn, b, w):
    """``_weapon_ready_a`` on the arrays pinned in ``p`` (``ready_args``)."""
    (status, captured_by, cloaked, cloaked_before, w_owner, w_type, w_enabled, w_destroyed,
     w_ready_turn, w_fired_turn, w_last_fired, w_gatling_shots) = handle.deref(p)
    return _weapon_ready_a(status, captured_by, cloaked, cloaked_before, w_owner, w_type,
                           w_enabled, w_destroyed, w_ready_turn, w_fired_turn, w_last_fired,
                           turn, imp, ipt, quarter_turn, b, w, w_gatling_shots)


@kernel(_nrt=False, error_model="numpy")
def _weapon_ready_call(status, captured_by, cloaked, cloaked_before, w_owner, w_type, w_enabled,
                       w_destroyed, w_ready_turn, w_fired_turn, w_last_fired, turn, imp, ipt,
                       quarter_turn, b, w, w_gatling_shots):
    """``_weapon_ready_a`` as a call (``weapon_ready`` stays a thin wrapper: numba then drops
    the incref and decref of every array of its namedtuple arguments)."""
    return _weapon_ready_a(status, captured_by, cloaked, cloaked_before, w_owner, w_type,
                           w_enabled, w_destroyed, w_ready_turn, w_fired_turn, w_last_fired,
                           turn, imp, ipt, quarter_turn, b, w, w_gatling_shots)


@nb.njit(cache=True, inline="always")
def _target_geometry(x, z, facing, prev_x, prev_z, prev_facing, b, owner, t):
    """(range, arc bits of ``t`` from ``owner``, shared hex) as ``direct_fire.target_codes``
    judges them: at range 0 from the previous impulse's positions (D3.42)."""
    rng = _distance(x[b, owner], z[b, owner], x[b, t], z[b, t])
    if rng == 0:
        px, pz = prev_x[b, owner], prev_z[b, owner]
        qx, qz = prev_x[b, t], prev_z[b, t]
        return rng, _arc_bits(px, pz, prev_facing[b, owner], qx, qz), px == qx and pz == qz
    return rng, _arc_bits(x[b, owner], z[b, owner], facing[b, owner], x[b, t], z[b, t]), False


@nb.njit(cache=True, inline="always")
def _ppd_ready(s, ot, b, w, turn):
    """(ppd_fire.ready_blocker) PPD ``w`` may start a train now: not pulsing (E11.23); a
    governed ship's charge armed and paid this turn with two pulses at least (E11.21, E11.22,
    E11.25); the Chief Engineer's and a robot's from ``w_ready_turn`` (``_weapon_ready_a``)."""
    if s.ppd_target[b, w] >= 0:
        return False
    if ot.governed[s.w_owner[b, w]]:
        return energy.ppd_ready(s.ppd_stage, s.ppd_energy, s.ppd_paid_turn, turn, b, w)
    return True


@nb.njit(cache=True, inline="always")
def _weapon_open(w_arcs, w_astern, w_min_range, w_max_range, w_type, b, w, rng, bits, shared,
                 effective, plasma):
    """The weapon's part of ``fire_open`` for a target at ``rng`` (``effective``: the cloak
    rule's range) seen in ``bits``, in play, enemy and within fighter range."""
    in_arc = ((bits & w_arcs[b, w]) != 0 or shared
              or (w_astern[b, w] and (bits & _ASTERN) == _ASTERN))
    if not in_arc:
        return False
    if effective > w_max_range[b, w] or rng < w_min_range[b, w]:
        return False
    kind = w_type[b, w]
    return not (plasma and not (_PH1 <= kind <= _PHG))  # (FP1.6)


@kernel(_nrt=False, error_model="numpy")
def fire_open(s, ot, b, w, t):
    """``direct_fire.target_codes(...) == OPEN`` for a ready weapon ``w`` at unit ``t``."""
    if ot.planets.on and planets_mod.fire_blocked(ot.planets, s.x, s.z, b, s.w_owner[b, w], t):
        return False  # (P2.0) into, out of or through a planet hex
    return _fire_open_a(borrow(s.w_owner), borrow(s.status), borrow(s.side), borrow(s.x),
                        borrow(s.z), borrow(s.facing), borrow(s.prev_x), borrow(s.prev_z),
                        borrow(s.prev_facing), borrow(ot.craft_carrier), borrow(s.cloaked),
                        borrow(s.w_arcs), borrow(s.w_astern), borrow(s.w_min_range),
                        borrow(s.w_max_range), borrow(s.w_type), borrow(s.kind), b, w, t)


@kernel(_nrt=False, error_model="numpy")
def _fire_open_a(w_owner, status, side, x, z, facing, prev_x, prev_z, prev_facing,
                 craft_carrier, cloaked, w_arcs, w_astern, w_min_range, w_max_range, w_type,
                 kind, b, w, t):
    """``fire_open`` on arrays (``fire_open`` stays a thin wrapper: numba then drops the incref
    and decref of every array of its namedtuple arguments)."""
    owner = w_owner[b, w]
    if status[b, t] != _ACTIVE or side[b, t] == side[b, owner]:
        return False
    rng, bits, shared = _target_geometry(x, z, facing, prev_x, prev_z, prev_facing, b, owner, t)
    if craft_carrier[t] >= 0 and rng > _MAX_FIGHTER_RANGE:
        return False
    if w_type[b, w] == _PPD and cloaked[b, t]:  # (E11.472) never at a cloaked ship
        return False
    effective = cloak_range(rng, cloaked[b, t])
    return _weapon_open(w_arcs, w_astern, w_min_range, w_max_range, w_type, b, w, rng, bits,
                        shared, effective, kind[b, t] == _PLASMA)


@nb.njit(cache=True, inline="always")
def _rack_ready_a(status, cloaked, cloaked_before, w_owner, w_type, w_enabled, w_destroyed,
                  w_ammo, w_fired_turn, w_last_fired, w_armed, plasma_rows, turn, imp, ipt,
                  quarter_turn, launching, limit, b, r):
    """``rack_ready`` on arrays (``limit``: the agent's drone launch limit, -1 none; a plasma
    launcher: ``plasma.launcher_blocker``, armed with a torpedo row free, FP1.22, [P-066])."""
    owner = w_owner[b, r]
    kind = w_type[b, r]
    plasma = _PLASMA_S <= kind <= _PLASMA_F
    if (kind != _DRONE_RACK and not plasma) or status[b, owner] != _ACTIVE or not launching:
        return False
    if not w_enabled[b, r] or w_destroyed[b, r] or imp < 1:
        return False
    if plasma:
        if not w_armed[b, r] or cloaked[b, owner] or (cloaked_before[b, owner] and imp == 1):
            return False
        for k in range(plasma_rows.shape[1]):
            row = plasma_rows[r, k]
            if row >= 0 and status[b, row] != _ACTIVE:
                return True
        return False
    if w_ammo[b, r] <= 0 or w_fired_turn[b, r] == turn:
        return False
    now = (turn - 1) * ipt + imp
    if now - w_last_fired[b, r] < quarter_turn:
        return False
    if limit >= 0:  # (FD4.21)
        fired = 0
        for w in range(w_type.shape[1]):
            if (w_owner[b, w] == owner and w_type[b, w] == _DRONE_RACK
                    and w_fired_turn[b, w] == turn):
                fired += 1
        if fired >= limit:
            return False
    return not (cloaked[b, owner] or (cloaked_before[b, owner] and imp == 1))


@kernel(_nrt=False, error_model="numpy")
def rack_ready(s, ot, b, a, r):
    """``seeking.rack_blocker(battle, r) is None`` for a drone rack of agent ``a`` (a
    governed ship's unpaid fire control closes it, B3.0 standard line 8)."""
    owner = s.w_owner[b, r]
    if ot.governed[owner] and not s.fire_control[b, owner]:
        return False
    return _rack_ready_a(s.status, s.cloaked, s.cloaked_before, s.w_owner, s.w_type,
                         s.w_enabled, s.w_destroyed, s.w_ammo, s.w_fired_turn, s.w_last_fired,
                         s.w_armed, ot.plasma_rows, s.turn[b], s.impulse[b], ot.ipt,
                         ot.quarter_turn, ot.launching, ot.drone_limit[a], b, r)


@kernel(_nrt=False, error_model="numpy")
def launch_open(s, b, r, t):
    """``seeking.launch_blockers`` per target, for a rack that ``rack_ready`` allows."""
    owner = s.w_owner[b, r]
    if s.captured_by[b, owner] >= 0:
        return False
    return (s.status[b, t] == _ACTIVE and s.side[b, t] != s.side[b, owner]
            and s.kind[b, t] != _PLASMA)


# ---------------------------------------------------------------------- observation and mask


@nb.njit(cache=True, inline="always")
def observe(s, ot, b, a, live, obs_out, mask_out):
    """Agent ``a``'s ``obs["observation"]`` into ``obs_out[:ot.obs_size[a]]`` (float32, clipped
    to [-1, 1]) and ``obs["action_mask"]`` into ``mask_out[:ot.mask_size[a]]`` (int8; all 0
    where ``live`` is False: an agent the step just ended, as the env does).

    Speed: inlined in the caller (a call passes, increfs and decrefs every array of its
    namedtuple arguments: ~600 words for ``s`` and ``ot``), the helpers take arrays and
    scalars, the target geometry is computed once per slot and the scratch is ``ot.work`` and
    ``ot.fwork`` (not thread-safe: one kernel at a time per ``ObserveTables``)."""
    x, z, facing, prev_x, prev_z = s.x, s.z, s.facing, s.prev_x, s.prev_z
    prev_facing, speed, straight, tactical = s.prev_facing, s.speed, s.straight, s.tactical
    shields, internal, damage, target = s.shields, s.internal, s.damage, s.target
    kind, side, status, captured_by = s.kind, s.side, s.status, s.captured_by
    cloaked, cloaked_before, w_type, w_owner = s.cloaked, s.cloaked_before, s.w_type, s.w_owner
    w_arcs, w_astern, w_min_range, w_max_range = s.w_arcs, s.w_astern, s.w_min_range, \
        s.w_max_range
    w_ammo, w_fired_turn, w_last_fired = s.w_ammo, s.w_fired_turn, s.w_last_fired
    w_ready_turn, w_enabled, w_destroyed = s.w_ready_turn, s.w_enabled, s.w_destroyed
    w_armed, capacitor = s.w_armed, s.capacitor
    turn, imp = s.turn[b], s.impulse[b]
    agent_unit, racks, weapons = ot.agent_unit, ot.racks, ot.weapons
    init_shields, init_strength = ot.init_shields, ot.init_strength
    craft_carrier = ot.craft_carrier
    atan2, rel_sin, rel_cos = ot.atan2, ot.rel_sin, ot.rel_cos
    ipt, quarter, k = ot.ipt, ot.quarter_turn, ot.slots
    u = agent_unit[a]
    n_r, n_w = ot.n_racks[a], ot.n_weapons[a]
    choice = ot.speed_choice and (imp == 0 or imp == ipt)
    # the scratch (ot.work): slots, threats, per-slot (range, bits, shared), ready flags
    n_t = ot.threats
    scratch = ot.work
    slots = scratch[:k]
    threats = scratch[k:k + n_t]
    g_rng = scratch[k + n_t:2 * k + n_t]
    g_bits = scratch[2 * k + n_t:3 * k + n_t]
    g_arcs = scratch[3 * k + n_t:4 * k + n_t]  # arc bits from the current positions
    g_eff = scratch[4 * k + n_t:5 * k + n_t]  # the cloak rule's range (G13)
    g_only = scratch[5 * k + n_t:6 * k + n_t]  # 1: phasers only (plasma); -1: none (far craft)
    ready = scratch[6 * k + n_t:6 * k + n_t + n_w]
    rready = scratch[6 * k + n_t + n_w:6 * k + n_t + n_w + n_r]
    bearing = ot.fwork  # slots, then threats
    n_slots = _nearest_rows(status, side, kind, target, x, z, b, u, False, slots)
    xu, zu, fu = x[b, u], z[b, u], facing[b, u]
    for j in range(n_slots):
        t = slots[j]
        rng, bits, shared = _target_geometry(x, z, facing, prev_x, prev_z, prev_facing, b, u, t)
        g_rng[j] = rng
        g_bits[j] = bits | (64 if shared else 0)
        g_arcs[j] = bits if rng != 0 else _arc_bits(xu, zu, fu, x[b, t], z[b, t])
        g_eff[j] = cloak_range(rng, cloaked[b, t])
        g_only[j] = (-1 if craft_carrier[t] >= 0 and rng > _MAX_FIGHTER_RANGE
                     else 1 if kind[b, t] == _PLASMA else 0)
        if ot.planets.on and planets_mod.fire_blocked(ot.planets, x, z, b, u, t):
            g_only[j] = -1  # (P2.0) no fire into, out of or through a planet hex
        # the bearing's table entry read here, early: its cache miss overlaps the work below
        bearing[j] = _bearing_a(atan2, ot.atan2_b, ot.atan2_dx, ot.atan2_k0, xu, zu, fu,
                                x[b, t], z[b, t])
    n_threats = _nearest_rows(status, side, kind, target, x, z, b, u, True, threats)
    for j in range(n_threats):
        t = threats[j]
        bearing[k + j] = _bearing_a(atan2, ot.atan2_b, ot.atan2_dx, ot.atan2_k0, xu, zu, fu,
                                    x[b, t], z[b, t])
    governed = ot.governed[u]  # (B3.0) the form: nothing of it is read otherwise
    top = payable = 0
    if governed:
        top = energy.speed_top(energy.previous_speed(speed, s.previous_speed, tactical, imp,
                                                     b, u), ot.speed_rule, u)
        payable = energy.payable_speed(s.boxes, ot.speed_rule, b, u)
    blocked = _maneuver_blocked_a(status, tactical, speed, straight, ot.move_chart,
                                  ot.turn_mode, b, a, u, imp, ipt, choice, ot.max_speed,
                                  governed, top, payable, ot.planets, x, z, facing)
    for i in range(n_w):
        w = weapons[a, i]
        ready[i] = w >= 0 and _weapon_ready_a(
            status, captured_by, cloaked, cloaked_before, w_owner, w_type, w_enabled,
            w_destroyed, w_ready_turn, w_fired_turn, w_last_fired, turn, imp, ipt, quarter, b, w,
            s.w_gatling_shots)
        if governed and ready[i] and ot.governed[w_owner[b, w]]:  # (fire_energy, H6.1, E3.2)
            ready[i] = purse.fire_powered(w_type, w_armed, capacitor, s.fire_control,
                                           ot.phaser_draw, b, w, w_owner[b, w])
    for i in range(n_r):
        r = racks[a, i]
        rready[i] = r >= 0 and _rack_ready_a(
            status, cloaked, cloaked_before, w_owner, w_type, w_enabled, w_destroyed, w_ammo,
            w_fired_turn, w_last_fired, s.w_armed, ot.plasma_rows, turn, imp, ipt, quarter,
            ot.launching, ot.drone_limit[a], b, r)
        if governed and not s.fire_control[b, u]:  # (seeking.rack_blocker, B3.0 line 8)
            rready[i] = False
    # ------------------------------------------------------------------ the mask
    m = mask_out
    for i in range(ot.mask_size[a]):
        m[i] = 0
    if live:
        at = 0
        for i in range(n_r):
            r = racks[a, i]
            m[at] = 1
            if rready[i]:
                owner = w_owner[b, r]
                torpedo = _PLASMA_S <= w_type[b, r] <= _PLASMA_F
                if captured_by[b, owner] < 0:
                    for j in range(n_slots):
                        t = slots[j]
                        if torpedo:  # (plasma.launch_blockers) ships and freighters in arc
                            bits = g_bits[j] & 63
                            m[at + 1 + j] = (
                                status[b, t] == _ACTIVE and side[b, t] != side[b, owner]
                                and (kind[b, t] == _SHIP or kind[b, t] == _FREIGHTER)
                                and ((bits & w_arcs[b, r]) != 0 or g_bits[j] >= 64
                                     or (w_astern[b, r] and (bits & _ASTERN) == _ASTERN)))
                        else:
                            m[at + 1 + j] = (status[b, t] == _ACTIVE
                                             and side[b, t] != side[b, owner]
                                             and kind[b, t] != _PLASMA
                                             and not planets_mod.landed(  # (P2.0)
                                                 ot.planets, kind, status, x, z, b, t))
            at += ot.launch_size  # (FD1.2) 7 k + 1 with the facing values
        for i in range(n_w):
            w = weapons[a, i]
            m[at] = 1
            owner = w_owner[b, w] if ready[i] else u
            if ready[i] and owner == u:  # slots hold enemy units in play: their geometry is
                # g_*; the open slots gathered as bits, then written (a store to the int8
                # mask inside the loop makes the compiler reload everything)
                open_bits = 0
                for j in range(n_slots):
                    if g_only[j] >= 0 and _weapon_open(
                            w_arcs, w_astern, w_min_range, w_max_range, w_type, b, w,
                            g_rng[j], g_bits[j] & 63, g_bits[j] >= 64, g_eff[j],
                            g_only[j] == 1):
                        open_bits |= 1 << j
                for j in range(n_slots):
                    m[at + 1 + j] = (open_bits >> j) & 1
            elif ready[i]:  # (never for an agent's own weapons) the general case
                for j in range(n_slots):
                    t = slots[j]
                    if status[b, t] != _ACTIVE or side[b, t] == side[b, owner]:
                        continue
                    rng, bits, shared = _target_geometry(x, z, facing, prev_x, prev_z,
                                                         prev_facing, b, owner, t)
                    if craft_carrier[t] >= 0 and rng > _MAX_FIGHTER_RANGE:
                        continue
                    if ot.planets.on and planets_mod.fire_blocked(ot.planets, x, z, b, owner,
                                                                  t):
                        continue  # (P2.0)
                    effective = cloak_range(rng, cloaked[b, t])
                    m[at + 1 + j] = _weapon_open(w_arcs, w_astern, w_min_range, w_max_range,
                                                 w_type, b, w, rng, bits, shared, effective,
                                                 kind[b, t] == _PLASMA)
            at += k + 1
        at = ot.m_disengage[a]
        if at >= 0:  # (disengagement.announce_blockers) not at impulse 0 (PROPOSAL [P-023])
            m[at] = 1
            m[at + 1] = imp != 0
        at = ot.m_maneuver[a]
        for v in range(_N_MANEUVERS):
            m[at + v] = not (blocked >> v) & 1
        at = ot.m_speed[a]
        for v in range(ot.max_speed + 1):
            if not choice:
                m[at + v] = v == speed[b, u]
            else:  # (legality.speed_blockers) the form's acceleration and movement power
                m[at + v] = not governed or energy.speed_open(v, top, payable)

    # ------------------------------------------------------------------ the vector
    out = obs_out
    for i in range(ot.obs_size[a]):
        out[i] = 0.0
    col, row = _column_row_a(ot.odd_down, xu, zu)
    out[_O_COLUMN] = col / _S_COLUMN
    out[_O_ROW] = row / _S_ROW
    out[_O_EDGES] = (col - ot.first_column) / _S_EDGE
    out[_O_EDGES + 1] = (ot.last_column - col) / _S_EDGE
    out[_O_EDGES + 2] = (row - ot.first_row) / _S_EDGE
    out[_O_EDGES + 3] = (ot.last_row - row) / _S_EDGE
    out[_O_FACING + fu] = 1.0
    out[_O_SPEED] = speed[b, u] / ot.speed_scale
    none_closed = (blocked >> _M_NONE) & 1
    out[_O_MOVES] = _flag(none_closed)
    out[_O_CAN_TURN] = _flag(((blocked >> _M_LEFT) & 1) == 0 and none_closed)
    out[_O_STRAIGHT] = min(straight[b, u], int(_S_STRAIGHT)) / _S_STRAIGHT
    for j in range(6):
        out[_O_SHIELDS + j] = _fraction(shields[b, u, j], init_shields[u, j])
    out[_O_INTERNAL] = internal[b, u] / max(1, ot.init_internal[u])
    base = ot.off_weapons[a]
    for i in range(n_r):
        r = racks[a, i]
        if r >= 0:
            at = base + i * _WEAPON_SIZE + _W_USABLE
            out[at] = _flag(rready[i])
            out[at + 1] = _flag(w_destroyed[b, r])
            if _PLASMA_S <= w_type[b, r] <= _PLASMA_F:  # a launcher's third value: armed
                out[at + 2] = _flag(s.w_armed[b, r])
            else:
                out[at + 2] = w_ammo[b, r] / _S_DRONES
    for i in range(n_w):
        w = weapons[a, i]
        if w >= 0:
            at = base + (n_r + i) * _WEAPON_SIZE + _W_USABLE
            out[at] = _flag(ready[i])
            out[at + 1] = _flag(w_destroyed[b, w])
    at = ot.off_clock[a]
    out[at + _C_TURN] = turn / ot.max_turns
    out[at + _C_IMPULSE] = imp / ipt
    out[at + _C_IPT] = ipt / _S_IPT
    for j in range(n_slots):
        t = slots[j]
        at = ot.off_targets[a] + j * _SLOT_SIZE
        xt, zt, ft = x[b, t], z[b, t], facing[b, t]
        rng = g_rng[j]
        kt = kind[b, t]
        out[at + _SL_PRESENT] = 1.0
        out[at + _SL_KIND] = _flag(kt == _SHIP)
        out[at + _SL_KIND + 1] = _flag(kt == _FREIGHTER)
        out[at + _SL_KIND + 2] = _flag(kt in (_DRONE, _TARGET_DRONE, _PLASMA))
        out[at + _SL_RANGE] = min(rng / _RANGE_SCALE, 1.0)
        theta = bearing[j]
        out[at + _SL_BEARING] = np.sin(theta)
        out[at + _SL_BEARING + 1] = np.cos(theta)
        out[at + _SL_REL] = rel_sin[ft - fu + 5]
        out[at + _SL_REL + 1] = rel_cos[ft - fu + 5]
        if rng != 0:
            facing_us = _shield_bits(xt, zt, ft, xu, zu)
            for c in range(6):
                out[at + _SL_FACING_US + c] = _flag((facing_us >> c) & 1)
        for c in range(6):
            out[at + _SL_SHIELDS + c] = _fraction(shields[b, t, c], init_shields[t, c])
        out[at + _SL_DAMAGE] = damage[b, t] / max(init_strength[t], 1)
        out[at + _SL_SEEKING] = _flag(target[b, t] == u)
        arcs = g_arcs[j]
        for c in range(6):
            out[at + _SL_ARCS + c] = _flag((arcs >> c) & 1)
    for j in range(n_threats):
        t = threats[j]
        at = ot.off_threats[a] + j * _THREAT_SIZE
        xt, zt = x[b, t], z[b, t]
        out[at + _T_PRESENT] = 1.0
        out[at + _T_RANGE] = min(_distance(xu, zu, xt, zt) / _RANGE_SCALE, 1.0)
        theta = bearing[k + j]
        out[at + _T_BEARING] = np.sin(theta)
        out[at + _T_BEARING + 1] = np.cos(theta)
        shield = _shield_bits(xu, zu, fu, xt, zt)
        for c in range(6):
            out[at + _T_SHIELD + c] = _flag((shield >> c) & 1)
    if not has_extras(ot, a):  # the env clips the vector to the space's bounds (an agent with
        _clip(out, ot.obs_size[a])  # tier-2 parts: ``extras`` clips it whole after them)


@nb.njit(cache=True, inline="always")
def _clip(out, n):
    """``out[:n]`` clipped to [-1, 1] (the observation space's bounds; a NaN would stay NaN, as
    ``np.clip`` leaves it). One select and one store per value: written as two conditional
    stores, the loop compiled to masked stores, and its share of the step kernel's samples
    was 9% (of the tier-2 pass's, 20%)."""
    for i in range(n):
        v = out[i]
        out[i] = _ONE if v > _ONE else (_MINUS_ONE if v < _MINUS_ONE else v)


@nb.njit(cache=True)
def _enemy_fire_part(w_owner, w_type, w_enabled, w_last_fired, turn, now, ipt, b, slots,
                     n_slots, out, at):
    """``rule_features._enemy_fire``: per target slot, per group (phasers, heavy weapons,
    launchers) the fraction of the unit's enabled weapons that fired this turn, then impulses
    since one last did / I (capped at 1). Empty slots stay zero."""
    start = (turn - 1) * ipt  # impulses of this turn are start + 1 .. start + I
    for j in range(n_slots):
        t = slots[j]
        row = at + j * _ENEMY_FIRE_SIZE
        for g in range(_FIRE_GROUPS):
            count = 0
            fired = 0
            last = _NEVER
            for w in range(w_owner.shape[1]):
                if w_owner[b, w] != t or not w_enabled[b, w]:
                    continue
                if _FIRE_GROUP[w_type[b, w]] != g:
                    continue
                count += 1
                fired += w_last_fired[b, w] > start
                last = max(last, w_last_fired[b, w])
            out[row + _F_FIRED + g] = fired / count if count else 0.0
            gap = now - last if count else ipt
            out[row + _F_SINCE + g] = min(1.0, gap / ipt)


@nb.njit(cache=True, inline="always")
def has_extras(ot, a):
    """Whether agent ``a`` has a part that ``extras`` writes (tier 2)."""
    return (ot.n_gatling[a] > 0 or ot.n_ppds[a] > 0 or ot.n_esg[a] > 0
            or ot.off_esg_fields[a] >= 0 or ot.m_arm[a] >= 0 or ot.off_plasma[a] >= 0
            or ot.off_energy[a] >= 0 or ot.off_ppd[a] >= 0 or ot.off_lock_on[a] >= 0
            or ot.off_cloak[a] >= 0 or ot.move_rules or ot.small_craft
            or ot.off_tractors[a] >= 0 or ot.n_tractor[a] > 0
            or ot.off_boarding[a] >= 0 or ot.m_drop[a] >= 0 or ot.unit_rules
            or ot.arrivals or ot.m_suicide[a] >= 0 or ot.m_suicide_arm[a] >= 0
            or ot.m_probe[a] >= 0 or ot.off_research[a] >= 0 or ot.off_enemy_fire[a] >= 0)


@nb.njit(cache=True, inline="always")
def extras(s, ot, b, a, live, obs_out, mask_out):
    """Agent ``a``'s tier-2 parts, after ``observe`` wrote the rest (``has_extras``): the masks
    of ``gatling[g].shot{k}`` (E2.151), ``ppd[p]`` (E11.362), ``esg[g]`` (G23.3) and the energy
    components (B3.0); the plasma threats (FP1.0), the energy, PPD and ESG blocks and the
    ``esg_fields`` features; then the clip again. Apart from ``observe`` for speed: inlined
    there, this code (run or not) slowed the tier-1 duels' observe by some 75% (the compiler
    keeps far fewer values in registers in a body that large); the batch runs it in a second
    pass (``batch._observe_extras``) only where an agent has one."""
    m, out = mask_out, obs_out
    turn, imp, ipt, quarter, k = s.turn[b], s.impulse[b], ot.ipt, ot.quarter_turn, ot.slots
    status, side, kind, target, x, z = s.status, s.side, s.kind, s.target, s.x, s.z
    captured_by, cloaked, cloaked_before = s.captured_by, s.cloaked, s.cloaked_before
    w_owner, w_type, w_enabled, w_destroyed = s.w_owner, s.w_type, s.w_enabled, s.w_destroyed
    w_ready_turn, w_fired_turn, w_last_fired = s.w_ready_turn, s.w_fired_turn, s.w_last_fired
    damage, capacitor = s.damage, s.capacitor
    u = ot.agent_unit[a]
    allocation = ot.governed[u] and energy.allocation_open(imp, ipt)
    slots = ot.work[:k]
    threats = ot.work[k:k + ot.threats]
    n_slots = 0  # the target slots, for the parts that read them only
    if (ot.n_gatling[a] or ot.n_ppds[a] or ot.off_esg_fields[a] >= 0 or ot.off_lock_on[a] >= 0
            or ot.off_cloak[a] >= 0 or ot.facings or ot.reserve_power or ot.small_craft
            or ot.off_tractors[a] >= 0 or ot.n_tractor[a] > 0
            or ot.off_boarding[a] >= 0 or ot.m_drop[a] >= 0 or ot.unit_rules
            or ot.m_suicide[a] >= 0 or ot.off_enemy_fire[a] >= 0):
        n_slots = _nearest_rows(status, side, kind, target, x, z, b, u, False, slots)
    for i in range(ot.n_weapons[a]):  # the PPDs' fire[w] and usable flag, which ``observe``
        w = ot.weapons[a, i]  # wrote as for any weapon
        if w < 0 or w_type[b, w] != _PPD:
            continue
        at = ot.m_fire[a] + i * (k + 1)
        if not _ppd_ready(s, ot, b, w, turn):  # (E11.23; E11.21, E11.22, E11.25)
            for j in range(k):
                m[at + 1 + j] = 0
            out[ot.off_weapons[a] + (ot.n_racks[a] + i) * _WEAPON_SIZE + _W_USABLE] = 0.0
        else:
            for j in range(n_slots):
                if cloaked[b, slots[j]]:  # (E11.472) never at a cloaked ship
                    m[at + 1 + j] = 0
    if live:
        at = ot.m_ppd[a]
        for i in range(ot.n_ppds[a]):  # (E11.362) keep; drop only between pulses
            w = ot.ppds[a, i]
            m[at] = 1
            m[at + 1] = w >= 0 and s.ppd_target[b, w] >= 0 and s.ppd_resolved[b, w] >= 1
            at += _PPD_ORDERS
        at = ot.m_esg[a]
        for g in range(ot.n_esg[a]):  # (esg_field.order_blockers) esg[g] (G23.3, G23.122)
            m[at] = 1
            w = ot.esg_row[a, g]
            if w >= 0:
                bits = esg_mod.order_bits(
                    ot.esg_max, w_enabled, w_destroyed, s.esg_stored, s.esg_phase,
                    s.esg_announced_at, s.esg_release_at, s.esg_activated_at, s.esg_dropped_at,
                    s.esg_cancelled_at, b, w, turn, imp, ipt, ot.launching)
                for v in range(1, ESG_ORDERS):
                    m[at + v] = (bits >> v) & 1
            at += ESG_ORDERS
        if ot.m_arm[a] >= 0:  # (energy_orders) arm[h], capacitor, recharge (B3.0)
            at = ot.m_arm[a]
            for h in range(ot.n_heavy[a]):  # (energy_orders.arm_blockers; ESG G23.21, PPD
                w = ot.heavy[a, h]  # E11.21-E11.25)
                bits = 1 if w < 0 else energy.heavy_open(
                    s, ot.esg_cap, ot.single_turn, ot.cycle_len, ot.hold_cost, ot.roll_cost,
                    allocation, turn + (imp != 0), b, w)
                n_v = ot.arm_size[a, h]
                for v in range(n_v):
                    m[at + v] = (bits >> v) & 1
                at += n_v
            room = (energy.capacitor_room(capacitor, s.capacitor_max, b, u) if allocation
                    else 0)
            at = ot.m_capacitor[a]
            for v in range(ot.m_recharge[a] - at):
                m[at + v] = v <= room
            empty = energy.empty_batteries(s.boxes, s.batteries, b, u) if allocation else 0
            at = ot.m_recharge[a]
            end = (ot.m_cloak[a] if ot.m_cloak[a] >= 0 else
                   ot.m_eng[a] if ot.m_eng[a] >= 0 else ot.m_maneuver[a])
            for v in range(end - at):
                m[at + v] = v <= empty
            at = ot.m_cloak[a]
            if at >= 0:  # (energy_orders.cloak_blockers, G13.0) paid at Energy Allocation
                m[at] = 1
                m[at + 1] = allocation
            if ot.m_eng[a] >= 0:  # (D3.34, D9.2, H7.1) the engineering components
                engineering.masks(s.shields, s.reinf_general, s.reinf_held, s.batteries,
                                  s.boxes, s.dac_boxes, s.dc_repairs, ot.init_shields,
                                  ot.dc_rating, ot.dc_box, ot.eng_flags[a], allocation, b, u,
                                  m, ot.m_eng[a])
    if ot.off_plasma[a] >= 0:  # (FP1.0, FP1.6) the plasma threats
        n_threats = _nearest_rows(status, side, kind, target, x, z, b, u, True, threats)
        for j in range(n_threats):
            t = threats[j]
            if kind[b, t] == _PLASMA:  # (FP1.0, FP1.6)
                at = ot.off_plasma[a] + j * _PLASMA_THREAT_SIZE
                out[at] = 1.0
                out[at + 1] = plasma_warhead(w_type, damage, s.launched_at, s.turn, s.impulse, ot,
                                             ipt, b, t) / _PLASMA_WARHEAD_SCALE
    if ot.off_energy[a] >= 0:  # (observation._energy) the energy block
        _energy_block(s, ot, b, a, u, allocation, out)
    if ot.off_reinf[a] >= 0 or ot.off_dc[a] >= 0:  # (D3.34, D9) the rule features
        engineering.features(s.reinf_general, s.reinf_specific, s.dac_boxes, s.dc_repairs,
                             ot.dc_rating, ot.dc_box,
                             ot.governed[u] and captured_by[b, u] < 0, ot.off_reinf[a],
                             ot.off_dc[a], b, u, out)
    if ot.reserve_power and ot.governed[u] and s.fire_control[b, u]:  # (H7.2) batteries
        _reserve_fire(s, ot, b, a, u, live, slots, n_slots, m, out)  # fire what they power
    if ot.off_ppd[a] >= 0:  # (E11) the PPD blocks (env.observation._ppd)
        for i in range(ot.n_ppds[a]):
            w = ot.ppds[a, i]
            if w < 0:
                continue
            at = ot.off_ppd[a] + i * _PPD_SIZE
            pulsing = s.ppd_target[b, w] >= 0
            # the Chief Engineer's and a robot's charge is full (four pulses) whenever the PPD
            # is ready; a governed ship's has one pulse per 2 energy (E11.25)
            ready_ppd = _weapon_ready_a(
                status, captured_by, cloaked, cloaked_before, w_owner, w_type, w_enabled,
                w_destroyed, w_ready_turn, w_fired_turn, w_last_fired, turn, imp, ipt, quarter,
                b, w, s.w_gatling_shots) and _ppd_ready(s, ot, b, w, turn)
            if ready_ppd:
                n_pulses = (float(s.ppd_energy[b, w] // energy.P_PER_PULSE)
                            if ot.governed[w_owner[b, w]] else _PPD_PULSES)
                out[at + _P_ARMED] = n_pulses / _PPD_PULSES
            out[at + _P_PULSING] = _flag(pulsing)
            out[at + _P_LOCKED] = _flag(s.ppd_locked[b, w])
            if pulsing:
                out[at + _P_LEFT] = (s.ppd_pulses[b, w] - s.ppd_resolved[b, w]) / _PPD_PULSES
    for g in range(ot.n_esg[a]):  # (env.observation._esg) an ESG block per generator
        w = ot.esg_row[a, g]
        if w < 0:
            continue
        bits = esg_mod.order_bits(
            ot.esg_max, w_enabled, w_destroyed, s.esg_stored, s.esg_phase, s.esg_announced_at,
            s.esg_release_at, s.esg_activated_at, s.esg_dropped_at, s.esg_cancelled_at, b, w,
            turn, imp, ipt, ot.launching)
        esg_mod.block(s.esg_stored, s.esg_phase, s.esg_radius, s.esg_strength,
                      s.esg_release_at, s.esg_activated_at, ot.esg_max, b, w, turn, imp, ipt,
                      (bits >> esg_mod.ANNOUNCE_0) & 1, out, ot.off_esg[a] + g * _ESG_SIZE)
    at = ot.off_esg_fields[a]
    if at >= 0:  # (rule_features._esg_fields, G23.46) our ship, then each target slot
        esg_mod.fields_seen(s.esg_phase, s.esg_radius, s.esg_strength, ot.unit_esg, b, u, out,
                            at)
        for j in range(n_slots):
            esg_mod.fields_seen(s.esg_phase, s.esg_radius, s.esg_strength, ot.unit_esg, b,
                                slots[j], out, at + (j + 1) * 3 * esg_mod.FIELDS_SEEN)
    now = (turn - 1) * ipt + imp
    if ot.off_enemy_fire[a] >= 0:  # (E1.5) what each target slot's unit fired
        _enemy_fire_part(w_owner, w_type, w_enabled, w_last_fired, turn, now, ipt, b, slots,
                         n_slots, out, ot.off_enemy_fire[a])
    if ot.small_craft and live:  # (J4.34, J1.0, J4.51) the craft orders; close combat
        _small_craft_part(craft_mod.craft_view(s), ot.craft_carrier, ipt, ot.craft_cloak,
                          ot.m_fighters[a], ot.c_fighters[a] >= 0, ot.m_shuttles[a],
                          ot.c_shuttles[a] >= 0,
                          s.w_min_range, ot.weapons[a], ot.n_weapons[a], ot.m_fire[a],
                          ot.off_weapons[a] + ot.n_racks[a] * _WEAPON_SIZE, slots, n_slots,
                          k, b, u, now, m, out)
    if ot.off_tractors[a] >= 0 or ot.n_tractor[a] > 0:  # (G7.0) tractor[b], the features
        tractors.observe_part(s, ot.tr_beams, ot.tr_form_pays, ot.tr_dac, b, u, live,
                              ot.m_tractor[a], ot.n_tractor[a], k, slots, n_slots, now, m, out,
                              ot.off_tractors[a])
    if ot.off_boarding[a] >= 0 or ot.m_drop[a] >= 0:  # (G8.0, G8.24, D7.0) the masks and
        transporters.observe_part(  # the boarding features
            s, ot, ot.tp_count, ot.tp_form_pays, ot.planets.crew_side, b, u,
            live and ot.m_drop[a] >= 0, allocation,
            ot.m_tp_energy[a], ot.n_tp_energy[a], ot.m_transport[a], ot.n_transport[a],
            ot.m_drop[a], k, slots, n_slots, m, out, ot.off_boarding[a])
    if live and ot.m_probe[a] >= 0:  # (G5, components.Probe.mask) 0 open, 1..3 as open
        m[ot.m_probe[a]] = 1
        for v in range(1, probes_mod.ORDERS):
            m[ot.m_probe[a] + v] = probes_mod.order_open(s, ot.probes, b, u, v, ipt,
                                                         ot.probes.work)
    if ot.off_research[a] >= 0:  # (G4.0, G5) the research features
        _research_part(s.side, s.kind, s.information, s.kill_methods, s.probes_left,
                       s.probe_kind, s.probe_stage, s.probe_paid_turn, s.monster_counted,
                       turn, b, u, ot.off_research[a], out)
    if live and (ot.m_suicide[a] >= 0 or ot.m_suicide_arm[a] >= 0):  # (J2.22, J2.221)
        _suicide_part(s, ot.suicide, ot.planets, b, u, ot.m_suicide[a], ot.m_suicide_arm[a],
                      slots, n_slots, ipt, allocation, m)
    if ot.off_cloak[a] >= 0:  # (G13 standard rule) fire, launch, the cloak block and mask
        _standard_cloak_part(
            status, side, kind, cloaked, s.cloak_paid, s.cloak_announced_at, s.esg_struck_at,
            w_owner, w_type, s.w_arcs, s.w_astern, s.w_min_range, s.w_max_range, x, z,
            s.facing, s.prev_x, s.prev_z, s.prev_facing, ot.craft_carrier, ot.racks[a],
            ot.n_racks[a], ot.weapons[a], ot.n_weapons[a], ot.m_fire[a], ot.off_weapons[a],
            ot.m_cloak[a], ot.off_cloak[a], slots, n_slots, k, b, u, imp, ipt, now, allocation,
            live, ot.launch_size, m, out)
    if ot.off_lock_on[a] >= 0:  # (D6) what lock-on closes; the lock_on block
        sensors.observe_lock_on(
            status, kind, s.launcher, s.locked_on, cloaked, s.esg_struck_at,
            s.cloak_announced_at, ot.off_cloak[a] >= 0, s.dac_boxes,
            w_owner, w_type, s.w_max_range, x, z, ot.sensor_of, ot.scanner_of, ot.racks[a],
            ot.n_racks[a], ot.weapons[a], ot.n_weapons[a], ot.m_fire[a], ot.off_weapons[a],
            _WEAPON_SIZE, _W_USABLE, _DRONE_RACK, ot.off_lock_on[a], slots, n_slots, k, b, u,
            (turn - 1) * ipt + imp, ot.launch_size, m, out)
    if live and ot.move_rules:  # (C4, C5, FD1.2) the maneuver, TAC plot and facing values
        choice = ot.speed_choice and (imp == 0 or imp == ipt)
        gov = ot.governed[u]
        maneuvers.mask(status, s.tactical, s.tac_earned, s.tac_sublight, s.speed, s.slip, x, z,
                       s.facing, w_owner, w_type, s.boxes, ot.move_chart, ot.speed_rule,
                       ot.racks, slots, n_slots, m, ot.sideslip, ot.tac, ot.facings, gov,
                       choice, imp, ipt, ot.max_speed, k, ot.n_racks[a], ot.launch_size,
                       ot.m_maneuver[a], ot.m_speed[a], b, a, u)
    if live and ot.unit_rules:  # (scenario 8) hold_fire_at, may_leave false
        unit_rules.mask_part(kind, side, captured_by, x, z, s.facing, ot.hold_kinds,
                             ot.no_leave, ot.racks[a], ot.n_racks[a], ot.weapons[a],
                             ot.n_weapons[a], ot.m_fire[a], ot.launch_size, k, ot.facings,
                             slots, n_slots, ot.m_maneuver[a], ot.m_speed[a] - ot.m_maneuver[a],
                             ot.first_column, ot.last_column, ot.first_row, ot.last_row,
                             ot.odd_down, b, u, m)
        if ot.no_leave[u] and m[ot.m_maneuver[a] + _M_LEFT] == 0:  # (observation: can_turn
            out[_O_CAN_TURN] = 0.0  # reads the blockers, the exit blockers among them)
    if live:  # last: the fire[w] masks as the standard cloak, close combat and lock-on left them
        at = ot.m_gatling[a]
        for g in range(ot.n_gatling[a]):  # (E2.151) shot j open while j shots are left, at
            w = ot.gatling[a, g]  # the targets of the gun's fire[w] (GatlingShot.mask)
            f = ot.gatling_fire[a, g]
            for j in GATLING_SHOT_NUMBERS:
                m[at] = 1
                if w >= 0 and gatling_open(s.w_gatling_shots, b, w, turn, imp, ipt, quarter,
                                           j):
                    for c in range(n_slots):
                        m[at + 1 + c] = m[f + 1 + c]
                at += k + 1
    _clip(out, ot.obs_size[a])  # the env clips the vector to the space's bounds


@nb.njit(cache=True, inline="always")
def _reserve_fire(s, ot, b, a, u, live, slots, n_slots, m, out):
    """(fire_energy.fire_blocker under reserve power, H7.2) agent ``a``'s weapons that
    ``observe`` found unpowered but its charged batteries fire (``engineering.reserve_fire``):
    usable, their ``fire[w]`` open at each slot in fire (``fire_open``), before the standard
    cloak's and lock-on's parts judge them again."""
    k = ot.slots
    for i in range(ot.n_weapons[a]):
        w = ot.weapons[a, i]
        if w < 0 or s.w_owner[b, w] != u:
            continue
        if not _weapon_ready_a(s.status, s.captured_by, s.cloaked, s.cloaked_before, s.w_owner,
                               s.w_type, s.w_enabled, s.w_destroyed, s.w_ready_turn,
                               s.w_fired_turn, s.w_last_fired, s.turn[b], s.impulse[b], ot.ipt,
                               ot.quarter_turn, b, w, s.w_gatling_shots):
            continue
        if purse.fire_powered(s.w_type, s.w_armed, s.capacitor, s.fire_control,
                               ot.phaser_draw, b, w, u):
            continue
        if not engineering.reserve_fire(s.w_type, s.w_armed, s.w_destroyed, s.batteries,
                                        s.boxes, ot.phaser_draw, ot.single_turn, ot.cycle, b,
                                        w, u):
            continue
        out[ot.off_weapons[a] + (ot.n_racks[a] + i) * _WEAPON_SIZE + _W_USABLE] = 1.0
        if live:
            at = ot.m_fire[a] + i * (k + 1)
            for j in range(n_slots):
                m[at + 1 + j] = fire_open(s, ot, b, w, slots[j])


@nb.njit(cache=True, inline="always")
def _energy_block(s, ot, b, a, u, allocation, out):
    """``observation._energy``: power, batteries, capacitor, the last shortfall, cloaked, the
    allocation open; per ``arm[h]`` weapon its charge and arming turns paid (B3.0)."""
    at = ot.off_energy[a]
    boxes = s.boxes
    power = boxes[b, u, energy._WARP] + boxes[b, u, energy._IMPULSE] + boxes[b, u, energy._APR]
    out[at + _E_POWER] = power / max(1, ot.total_power[u])
    out[at + _E_BATTERIES] = s.batteries[b, u] / max(1, ot.battery_sheet[u])
    cap_max = s.capacitor_max[b, u]
    out[at + _E_CAPACITOR] = s.capacitor[b, u] / max(1e-9, cap_max) if cap_max else 0.0
    out[at + _E_SHORTFALL] = min(1.0, s.energy_shortfall[b, u] / _S_SHORTFALL)
    out[at + _E_CLOAKED] = _flag(s.cloaked[b, u])
    out[at + _E_OPEN] = _flag(allocation)
    pos = at + _ENERGY_SIZE
    for h in range(ot.n_heavy[a]):
        w = ot.heavy[a, h]
        if w >= 0:  # (knowledge.arming_turns_paid)
            kind = s.w_type[b, w]
            out[pos + _EW_CHARGED] = _flag(s.w_armed[b, w])
            if kind == _PPD:  # (E11.21) its stage of two arming turns
                out[pos + _EW_ARMING] = s.ppd_stage[b, w] / energy.P_TURNS
            elif kind != _ESG:  # (an ESG: 0 of 1)
                paid = (s.w_arm_stage[b, w] if ot.single_turn[kind] else energy.stage(
                    s.w_type, s.w_arm_stage, s.w_armed, ot.single_turn, ot.cycle_len, b, w))
                out[pos + _EW_ARMING] = paid / ot.cycle_len[kind]
        pos += _ENERGY_WEAPON_SIZE


@kernel(_nrt=False, error_model="numpy")
def global_state(s, ot, b, out):
    """``env.state()`` into ``out`` (float32, ``U * STATE_ROW + 2``)."""
    n_units = s.kind.shape[1]
    for u in range(n_units):
        at = u * STATE_ROW
        active = 1.0 if s.status[b, u] == _ACTIVE else 0.0
        col, row = _column_row(ot, s.x[b, u], s.z[b, u])
        out[at] = active
        out[at + 1] = s.side[b, u]
        out[at + 2] = s.kind[b, u]
        out[at + 3] = col / 28.0 * active
        out[at + 4] = row / 32.0 * active
        for c in range(6):
            out[at + 5 + c] = active if c == s.facing[b, u] else 0.0
        out[at + 11] = s.speed[b, u] / 32.0
        for c in range(6):
            out[at + 12 + c] = _fraction(s.shields[b, u, c], ot.init_shields[u, c])
        out[at + 18] = min(s.damage[b, u] / max(ot.init_strength[u], 1), 1.0)
    out[n_units * STATE_ROW] = min(s.turn[b], ot.max_turns) / ot.max_turns
    out[n_units * STATE_ROW + 1] = s.impulse[b] / ot.ipt


@kernel(_nrt=False, error_model="numpy")
def _standard_cloak_part(status, side, kind, cloaked, cloak_paid, announced_at, esg_struck_at,
                         w_owner, w_type, w_arcs, w_astern, w_min_range, w_max_range, x, z,
                         facing, prev_x, prev_z, prev_facing, craft_carrier, racks, n_r,
                         weapons, n_w, m_fire, off_weapons, m_cloak, off_cloak, slots, n_slots,
                         k, b, u, imp, ipt, now, allocation, live, launch_size, mask, out):
    """(G13 standard rule, ``compiled.cloak``) agent (unit ``u``)'s mask and observation after
    ``observe`` wrote them under the cadet rule, before lock-on's part: a ship fading in fires
    and launches nothing (``cloak.fire_blocker``; the cadet blocker closed the cloaked ones);
    no launch at a fully cloaked ship ([P-050]); each ready weapon's fire at a cloaked or
    fading target judged again at the standard range (true + fade, or 2 x true + 5 fully
    cloaked; never a PPD at a cloaked ship, E11.472); the cloak block and component."""
    fading_in = cloak.fading(announced_at, b, u, now) and not cloaked[b, u]
    for i in range(n_r):
        if racks[i] < 0:
            continue
        if fading_in:
            out[off_weapons + i * _WEAPON_SIZE + _W_USABLE] = 0.0
        for j in range(n_slots):
            if live and (fading_in or cloak.fully_cloaked(cloaked, esg_struck_at, announced_at,
                                                          b, slots[j], now)):
                mask[i * launch_size + 1 + j] = 0  # (launch[r]: k + 1 or 7 k + 1 values)
    for i in range(n_w):
        w = weapons[i]
        if w < 0:
            continue
        at = m_fire + i * (k + 1)
        flag = off_weapons + (n_r + i) * _WEAPON_SIZE + _W_USABLE
        if fading_in:
            out[flag] = 0.0
            for j in range(n_slots):
                mask[at + 1 + j] = 0
            continue
        if not live or out[flag] == 0.0 or w_owner[b, w] != u:
            continue
        for j in range(n_slots):
            t = slots[j]
            if not (cloaked[b, t] or cloak.fading(announced_at, b, t, now)):
                continue  # the cadet range is the standard one
            if status[b, t] != _ACTIVE or side[b, t] == side[b, u]:
                continue
            rng, bits, shared = _target_geometry(x, z, facing, prev_x, prev_z, prev_facing, b,
                                                 u, t)
            if craft_carrier[t] >= 0 and rng > _MAX_FIGHTER_RANGE:
                continue
            if w_type[b, w] == _PPD and cloaked[b, t]:  # (E11.472) never at a cloaked ship
                mask[at + 1 + j] = 0
                continue
            if cloak.fully_cloaked(cloaked, esg_struck_at, announced_at, b, t, now):
                effective = 2 * rng + 5
            else:
                effective = rng + cloak.fade_range(cloaked, announced_at, b, t, now)
            mask[at + 1 + j] = _weapon_open(w_arcs, w_astern, w_min_range, w_max_range, w_type,
                                            b, w, rng, bits, shared, effective,
                                            kind[b, t] == _PLASMA)
    cloak.observe_cloak(status, cloaked, cloak_paid, announced_at, b, u, slots, n_slots, imp,
                        ipt, now, allocation, m_cloak if live else -1, mask, off_cloak, out)


@kernel(_nrt=False, error_model="numpy")
def _research_part(side, kind, information, kill_methods, probes_left, probe_kind, probe_stage,
                   probe_paid_turn, monster_counted, turn, b, u, off, out):
    """(``rule_features._research``; G4.0, G5) the side's research points (/ 300) and kill
    methods found, the probes aboard (/ 5), the probe being armed (information, anti-matter,
    turns paid / 2, armed), the monster's damage toward kill method 3 (/ 200)."""
    sd = side[b, u]
    out[off] = min(1.0, information[b, sd] / _INFORMATION_SCALE)
    for k in range(6):
        out[off + 1 + k] = 1.0 if kill_methods[b, sd, k] else 0.0
    out[off + 7] = min(1.0, probes_left[b, u] / _PROBES_SCALE)
    out[off + 8] = 1.0 if probe_kind[b, u] == probes_mod.INFORMATION else 0.0
    out[off + 9] = 1.0 if probe_kind[b, u] == probes_mod.ANTIMATTER else 0.0
    out[off + 10] = probe_stage[b, u] / _ARMING_SCALE
    out[off + 11] = 1.0 if (probe_stage[b, u] >= probes_mod.ARMING_TURNS
                            and probe_paid_turn[b, u] == turn) else 0.0
    for m in range(kind.shape[1]):
        if kind[b, m] == _MONSTER:
            out[off + 12] = min(1.0, monster_counted[b, m] / _METHOD3_SCALE)
            break


@nb.njit(cache=True, inline="always")
def _suicide_part(s, t, pt, b, u, m_suicide, m_arm, slots, n_slots, ipt, allocation, m):
    """(``Suicide.mask``, ``SuicideArm``; J2.22, J2.221) a live agent's ``suicide`` mask (hold,
    or each slot ``launch_blockers`` leaves open) and ``suicide_arm`` mask (0 open, 1..3 as
    ``arm_blockers``)."""
    if m_suicide >= 0:
        m[m_suicide] = 1
        if suicide_mod.ship_open(t, s, b, u, ipt):
            for j in range(n_slots):
                m[m_suicide + 1 + j] = suicide_mod.target_open(pt, s, b, u, slots[j])
    if m_arm >= 0:
        m[m_arm] = 1
        turn = s.turn[b] if s.impulse[b] == 0 else s.turn[b] + 1
        warp = s.boxes[b, u, _WARP_BOX]
        for v in range(1, suicide_mod.ARM_VALUES):
            m[m_arm + v] = suicide_mod.arm_open(t, s, b, u, v, allocation, turn, warp)


@kernel(_nrt=False, error_model="numpy")
def _small_craft_part(a, carrier_rows, ipt, cloak_rule, m_fighters, fighters, m_shuttles,
                      shuttles,
                      w_min_range, weapons, n_w, m_fire, off_fire, slots, n_slots, k, b, u,
                      now, mask, out):
    """(``compiled.small_craft``) a live agent's (unit ``u``) small-craft mask, after
    ``observe``: the ``fighters`` / ``shuttles`` components (``Craft.mask``: hold, or each
    slot ``order_blockers`` leaves open, J4.34, J1.0, [P-095], F2.3; padding: hold only);
    then fire by close combat (J4.51, J4.522): a six-shield ship's usable weapon bears on a
    fighter in its hex that used close-combat maneuvering this impulse, whatever its arcs
    (below its minimum range it still may not fire). ``a``: ``small_craft.view``;
    ``off_fire``: the observation's first ``fire[w]`` weapon block."""
    for c in range(2):
        at, real, kind = (m_fighters, fighters, _FIGHTER) if c == 0 else (m_shuttles, shuttles,
                                                                           _SHUTTLE)
        if at < 0:
            continue
        mask[at] = 1
        if real:
            for j in range(n_slots):
                mask[at + 1 + j] = craft_mod.order_open_a(a, carrier_rows, ipt, cloak_rule, b,
                                                          u, kind, slots[j])
    if a.shield_pool[b, u] or a.kind[b, u] != _SHIP:
        return
    for j in range(n_slots):
        t = slots[j]
        if a.craft_ccm[b, t] != now or a.x[b, t] != a.x[b, u] or a.z[b, t] != a.z[b, u]:
            continue
        for i in range(n_w):
            w = weapons[i]
            if w < 0 or a.w_owner[b, w] != u or out[off_fire + i * _WEAPON_SIZE + _W_USABLE] == 0:
                continue
            if w_min_range[b, w] <= 0:
                mask[m_fire + i * (k + 1) + 1 + j] = 1

