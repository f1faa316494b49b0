"""Engine types: enums, the struct-of-arrays ``BattleState`` and orders.

Units (ships, freighters, drones) are rows of the unit arrays; weapons are rows of the weapon
arrays. Capacity is fixed when a battle is built (every drone a rack could launch has a row),
so no array grows during play and no per-unit Python object exists in the hot path.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

NEVER = -(10**6)  # "never fired / never launched" absolute impulse
GATLING_SHOTS = 4  # (E2.151) a phaser-G shot history of four covers both of its limits
PLASMA_ROWS = 3  # torpedo rows per plasma launcher (see engine.plasma: 3-turn arming, FP1.22)


class UnitKind(IntEnum):
    """What a unit row is."""

    SHIP = 0
    FREIGHTER = 1
    DRONE = 2  # a seeking drone with a warhead (FD1)
    TARGET_DRONE = 3  # scenario 1: moves straight, no warhead (SCENARIOS §2.2)
    PLASMA = 4  # a plasma torpedo (FP1); rows pre-allocated per launcher (w_plasma_rows)
    FIGHTER = 5  # a Stinger-F fighter (J4.0); rows pre-allocated per carrier (engine.small_craft)
    SHUTTLE = 6  # an administrative shuttle (J1.0; rule admin_shuttles, engine.small_craft)
    PLANET = 7  # a planet at a fixed hex (P2.0; scenario unit ``kind: planet``, engine.planets)
    MONSTER = 8  # the Planet Killer (scenario 11; scenario class ``planet-killer``,
    #   engine.planet_killer)


class Status(IntEnum):
    """Where a unit stands; only ACTIVE units move, fire or can be fired at."""

    ACTIVE = 0
    DESTROYED = 1
    DISENGAGED = 2  # left the play area (C1.x scenario rule); never returns
    EXPENDED = 3  # a drone or plasma torpedo that struck or ran out of endurance
    UNUSED = 4  # a drone or plasma torpedo row not launched yet (plasma rows are reused)
    NOT_ARRIVED = 5  # a unit that enters the map later (scenario unit ``arrives``,
    #   engine.unit_rules); an agent from the start whose every action is the no-op


# Plain-int copies for numpy comparisons in the hot path: comparing a numpy value with an
# IntEnum member makes numpy probe the enum class for the array protocols (slow).
ACTIVE, DESTROYED, DISENGAGED, EXPENDED, UNUSED = (int(s) for s in list(Status)[:5])
NOT_ARRIVED = int(Status.NOT_ARRIVED)
K_SHIP, K_FREIGHTER, K_DRONE, K_TARGET_DRONE, K_PLASMA, K_FIGHTER, K_SHUTTLE = (
    int(k) for k in list(UnitKind)[:7])
K_PLANET = int(UnitKind.PLANET)
K_MONSTER = int(UnitKind.MONSTER)


class Maneuver(IntEnum):
    """The maneuver component of an order: what a unit does on its next move."""

    NONE = 0  # the unit does not move on that impulse
    STRAIGHT = 1
    TURN_LEFT = 2  # 60 degrees counter-clockwise, then enter the new forward hex (C3.1)
    TURN_RIGHT = 3
    # scenario rule ``sideslip`` (C4): enter the forward-left / forward-right hex, facing kept
    SIDESLIP_LEFT = 4
    SIDESLIP_RIGHT = 5
    # scenario rule ``tactical_maneuvers`` (C5): rotate 60 degrees in place, no hex entered
    TACTICAL_LEFT = 6
    TACTICAL_RIGHT = 7


BASIC_MANEUVERS = 4  # NONE..TURN_RIGHT: the maneuver component without the C4/C5 rules
TACTICAL_MANEUVERS = (Maneuver.TACTICAL_LEFT, Maneuver.TACTICAL_RIGHT)
SIDESLIPS = (Maneuver.SIDESLIP_LEFT, Maneuver.SIDESLIP_RIGHT)
MAX_WARP_TACTICAL = 4  # (C5.22) at most four warp tactical maneuvers a turn


class WeaponType(IntEnum):
    """Weapon types; the string keys are those of the data files."""

    PH1 = 0
    PH2 = 1
    PH3 = 2
    PHG = 3
    DISRUPTOR = 4
    PHOTON = 5
    FUSION = 6
    PPD = 7
    PLASMA_S = 8
    PLASMA_R = 9
    PLASMA_F = 10
    DRONE_RACK = 11
    ESG = 12


WEAPON_KEYS: dict[str, WeaponType] = {
    "ph-1": WeaponType.PH1,
    "ph-2": WeaponType.PH2,
    "ph-3": WeaponType.PH3,
    "ph-g": WeaponType.PHG,
    "disruptor": WeaponType.DISRUPTOR,
    "photon": WeaponType.PHOTON,
    "fusion": WeaponType.FUSION,
    "ppd": WeaponType.PPD,
    "plasma-s": WeaponType.PLASMA_S,
    "plasma-r": WeaponType.PLASMA_R,
    "plasma-f": WeaponType.PLASMA_F,
    "drone-rack": WeaponType.DRONE_RACK,
    "esg": WeaponType.ESG,
}
WEAPON_NAMES: dict[int, str] = {int(v): k for k, v in WEAPON_KEYS.items()}
PHASERS = (WeaponType.PH1, WeaponType.PH2, WeaponType.PH3, WeaponType.PHG)
PLASMA_LAUNCHERS = (WeaponType.PLASMA_S, WeaponType.PLASMA_R, WeaponType.PLASMA_F)
DIRECT_FIRE = (*PHASERS, WeaponType.DISRUPTOR, WeaponType.PHOTON, WeaponType.FUSION,
               WeaponType.PPD)  # the ``fire[w]`` weapons (E11.11: the PPD is direct fire)


class Box(IntEnum):
    """Internal box categories tracked per ship (weapons are tracked in the weapon arrays)."""

    HULL = 0
    WARP = 1
    IMPULSE = 2
    APR = 3
    BATTERY = 4
    LAB = 5
    TRANSPORTER = 6
    SHUTTLE = 7
    EXCESS = 8
    OTHER = 9  # any other destructible box of the sheet


N_BOX = len(Box)


@dataclass
class BattleState:
    """Everything that changes during a battle, as numpy arrays (shapes: U units, W weapons)."""

    impulses_per_turn: int
    turn: int = 1
    impulse: int = 0  # 0 = before the first impulse of the turn
    # --- the battle's course: dice, log, commanders, result ------------------------------
    seed: int | None = None  # the seed the dice were started from
    rng: np.random.Generator | None = None  # the battle's only dice, drawn in rule order
    events: list = field(default_factory=list)  # the event log (engine.events), in order
    controllers: list = field(default_factory=list)  # (U,) str "agent" or a robot name;
    #   capture hands a unit to the captor (D7.0)
    done: bool = False  # the battle is over
    time_up: bool = False  # it ended on its turn limit (truncation)
    outcome: dict | None = None  # per side {"result", "level"} once over (engine.victory)
    end_reason: str = ""  # why it ended, in words
    cache: dict = field(default_factory=dict)  # values derived from the positions (geometry,
    #   lines past planets), keyed by what they depend on; never copied
    # --- units -------------------------------------------------------------------------
    kind: np.ndarray = field(default=None)  # (U,) int8 UnitKind
    side: np.ndarray = field(default=None)  # (U,) int8 index into Battle.sides
    status: np.ndarray = field(default=None)  # (U,) int8 Status
    x: np.ndarray = field(default=None)  # (U,) int64 axial x
    z: np.ndarray = field(default=None)  # (U,) int64 axial z
    facing: np.ndarray = field(default=None)  # (U,) int64 0..5 = A..F
    prev_x: np.ndarray = field(default=None)  # (U,) positions of the previous impulse (D3.42)
    prev_z: np.ndarray = field(default=None)  # (U,)
    prev_facing: np.ndarray = field(default=None)  # (U,)
    speed: np.ndarray = field(default=None)  # (U,) int64 speed this turn
    straight: np.ndarray = field(default=None)  # (U,) int64 straight hexes since last turn (C3)
    slip: np.ndarray = field(default=None)  # (U,) int64 straight hexes since last slip/turn (C4)
    tactical: np.ndarray = field(default=None)  # (U,) bool plotted TAC this turn (C5.11, C5.23)
    tac_earned: np.ndarray = field(default=None)  # (U,) bool an earned unused warp TAC (C5.232)
    tac_sublight: np.ndarray = field(default=None)  # (U,) bool sublight TAC left this turn (C5.11)
    cloaked: np.ndarray = field(default=None)  # (U,) bool cloaked for this turn (G13 cadet)
    cloaked_before: np.ndarray = field(default=None)  # (U,) bool cloaked on the previous turn
    craft_ccm: np.ndarray = field(default=None)  # (U,) int64 a fighter's last close-combat
    #   maneuver (J4.52), absolute impulse, NEVER
    craft_tac: np.ndarray = field(default=None)  # (U,) int64 its last tactical maneuver (J4.11)
    craft_landed: np.ndarray = field(default=None)  # (U,) int64 when it landed aboard (J4.48)
    # --- suicide shuttles (J2.22; rule suicide_shuttles, engine.suicide_shuttles), 0 / False
    #   on every other row
    suicide_energy: np.ndarray = field(default=None)  # (U,) int64 energy put into a shuttle's
    #   bomb (J2.221), 0 = no bomb
    suicide_turns: np.ndarray = field(default=None)  # (U,) int64 consecutive arming turns
    #   paid 0..3 (3 = armed)
    suicide_paid_turn: np.ndarray = field(default=None)  # (U,) int64 last turn the bomb was
    #   paid (arming or holding), 0 = never
    suicide_idle_turn: np.ndarray = field(default=None)  # (U,) int64 turn the shuttle is
    #   unusable (its hold went unpaid, J2.221), 0 = none
    suicide_launched: np.ndarray = field(default=None)  # (U,) bool flies as a suicide
    #   shuttle: moves as a seeking weapon (F2.0), explodes on its target
    cloak_paid: np.ndarray = field(default=None)  # (U,) bool cloak cost paid this turn
    #   (G13 standard rule: a ship may announce a cloak during the turn; engine.cloak)
    cloak_announced_at: np.ndarray = field(default=None)  # (U,) int64 absolute impulse of the
    #   last cloak / uncloak announcement (G13 standard rule fades), NEVER = none
    esg_struck_at: np.ndarray = field(default=None)  # (U,) int64 absolute impulse the unit
    #   last took ESG damage (G23.621: a cloaked ship can be locked on then), NEVER = none
    locked_on: np.ndarray = field(default=None)  # (U,) bool sensor lock-on this turn (D6;
    #   engine.sensors, rules.lock_on); True where the rule is off
    previous_speed: np.ndarray = field(default=None)  # (U,) int64 last turn's speed for
    #   acceleration purposes: 0 after a turn of tactical maneuvers (C5.4)
    shields: np.ndarray = field(default=None)  # (U, 6) int64 remaining shield boxes #1..#6
    shield_pool: np.ndarray = field(default=None)  # (U,) bool one pool for all sides (R1.6)
    internal: np.ndarray = field(default=None)  # (U,) int64 internal points taken
    damage: np.ndarray = field(default=None)  # (U,) int64 all points scored (drones: FD1.54)
    boxes: np.ndarray = field(default=None)  # (U, N_BOX) int64 destructible boxes left
    dac_boxes: np.ndarray = field(default=None)  # (U, dac.N_BOXES) int64 boxes left by
    #   standard-DAC box type (rule damage: standard_dac, D4.21); zeros otherwise
    target: np.ndarray = field(default=None)  # (U,) int64 seeking target unit, -1 none
    launcher: np.ndarray = field(default=None)  # (U,) int64 launching unit, -1 none
    launched_at: np.ndarray = field(default=None)  # (U,) int64 absolute impulse of launch
    # --- energy (B3.0 cadet form; engine.energy), 0 on units the rule does not govern ---
    batteries: np.ndarray = field(default=None)  # (U,) int64 charged batteries (line 5)
    battery_fraction: np.ndarray = field(default=None)  # (U,) float64 energy held by a partly
    #   discharged battery, 0 <= f < 1 (B3.2 fractional accounting only; engine.fractional)
    capacitor: np.ndarray = field(default=None)  # (U,) float64 phaser capacitor energy (H6.0)
    capacitor_max: np.ndarray = field(default=None)  # (U,) float64 its capacity (H6.0)
    energy_shortfall: np.ndarray = field(default=None)  # (U,) int64 energy ordered but not
    #   paid at the last Energy Allocation (engine.energy clamp)
    # --- the standard form (rules.energy: standard; engine.energy), docs/engine/energy.md
    shields_active: np.ndarray = field(default=None)  # (U,) bool shield energy paid this turn
    #   (unpaid: the shields are ignored, CTH-DATA §7.4); True where no form governs
    fire_control: np.ndarray = field(default=None)  # (U,) bool fire control paid this turn
    reinf_general: np.ndarray = field(default=None)  # (U,) int64 general reinforcement points
    #   left this turn (D3.341)
    reinf_specific: np.ndarray = field(default=None)  # (U, 6) int64 specific reinforcement
    #   boxes left this turn on shields #1..#6 (D3.342)
    reinf_held: np.ndarray = field(default=None)  # (U,) bool general reinforcement held
    #   inactive: it absorbs nothing until switched on (D3.3411, rules file 004 note)
    reserve_kept: np.ndarray = field(default=None)  # (U,) bool the owner keeps the batteries
    #   out of struck shields until the next decision point (H7.1, ``Orders.reserve_shields``)
    dc_repairs: np.ndarray = field(default=None)  # (U, 6) int64 shield boxes damage control
    #   repairs at the end of this turn (D9.2)
    mutiny: np.ndarray = field(default=None)  # (U,) int8 Klingon mutiny (G6, engine.mutiny):
    #   0 quiet, 1 security gone (rolling), 2 put down, 3 captured
    # --- people aboard (D7.0 boarding parties, G8.0 transporters; engine.boarding) ---------
    boarding_parties: np.ndarray = field(default=None)  # (U, n_sides) int64 boarding parties
    #   of each side aboard each unit (D7.0; the sheet's BP complement to start, CTH-DATA §8.5)
    crew_units: np.ndarray = field(default=None)  # (U,) int64 rescuable crew units (10 people
    #   each, G8.0; e.g. scenario 9 survivors on a planet) aboard a unit
    control_stations: np.ndarray = field(default=None)  # (U,) int64 uncaptured control
    #   stations (bridge, emergency bridge, auxiliary control boxes; freighters 2; D7.0)
    captured_by: np.ndarray = field(default=None)  # (U,) int64 side index that captured the
    #   unit (D7.0), -1 = none
    # --- transporters and shield drops (G8.0, G8.24; engine.transporters) -----------------
    tran_used_turn: np.ndarray = field(default=None)  # (U, T) int64 turn each transporter
    #   last operated (once per turn, G8.0), 0 = never; T = the most TRAN boxes on a sheet
    tran_powered: np.ndarray = field(default=None)  # (U,) int64 transporter uses paid for
    #   this turn (G8.0: 1 energy powers up to 5; standard form only)
    shield_drop_until: np.ndarray = field(default=None)  # (U, 6) int64 absolute impulse a
    #   dropped shield comes back up (G8.24: down at least 1/4 turn), 0 = not dropped
    shield_held: np.ndarray = field(default=None)  # (U, 6) int64 boxes of a dropped shield,
    #   kept aside while it is down (``shields`` shows 0 for it)
    # --- research, probes and the Planet Killer (G4, G5, scenario 11; engine.labs,
    #   engine.probes, engine.planet_killer); zeros / -1 where no monster is in play ---------
    information: np.ndarray = field(default=None)  # (S,) int64 research points per side (G4)
    research_rolls: np.ndarray = field(default=None)  # (S,) int64 research dice rolled (G4)
    kill_methods: np.ndarray = field(default=None)  # (S, 6) bool research results 1..6 found
    lab_range: np.ndarray = field(default=None)  # (U,) int64 closest effective range to the
    #   monster this turn (G4), labs.NO_RANGE = none
    monster_follows: np.ndarray = field(default=None)  # (U,) int64 starship a monster follows
    #   (SCENARIOS §2.8), -1 = the planet course
    monster_shot_turn: np.ndarray = field(default=None)  # (U,) int64 turn of a monster's
    #   normal once-per-turn shot, 0 = not yet
    monster_fired_turn: np.ndarray = field(default=None)  # (U,) int64 turn a monster last
    #   fired at this unit, 0 = never
    monster_counted: np.ndarray = field(default=None)  # (U,) int64 damage counting toward
    #   kill method 3 (at most 150 before the result is known)
    defence_turn: np.ndarray = field(default=None)  # (U,) int64 turn a monster last rolled
    #   its close-in defence against this shuttle, 0 = never
    probes_left: np.ndarray = field(default=None)  # (U,) int64 probes in the launcher (G5.11)
    probe_kind: np.ndarray = field(default=None)  # (U,) int64 probes.ProbeKind being armed
    probe_stage: np.ndarray = field(default=None)  # (U,) int64 arming turns paid 0..2 (G5.2)
    probe_paid_turn: np.ndarray = field(default=None)  # (U,) int64 last turn paid, 0 = never
    # --- tractor beams (G7.0; engine.tractors), -1 / 0 / NEVER where no link ---------------
    tractor_holder: np.ndarray = field(default=None)  # (U,) int64 unit holding this unit, -1
    tractor_link: np.ndarray = field(default=None)  # (U, B) int64 unit each beam holds, -1
    tractor_used_turn: np.ndarray = field(default=None)  # (U, B) int64 turn the beam last
    #   attached or was broken by a contest (once a turn), 0 = never
    tractor_released_at: np.ndarray = field(default=None)  # (U, B) int64 absolute impulse of
    #   the beam's last release, NEVER
    tractor_powered: np.ndarray = field(default=None)  # (U,) int64 beams powered this turn
    tractor_base_speed: np.ndarray = field(default=None)  # (U,) int64 speed paid for at
    #   Energy Allocation, before any towing (CTH-DATA §7.3 recomputation)
    towed_off_by: np.ndarray = field(default=None)  # (U,) int64 side whose tractor took the
    #   unit off the map (scenario 8 captures), -1
    # --- weapons -----------------------------------------------------------------------
    w_owner: np.ndarray = field(default=None)  # (W,) int64 owning unit
    w_type: np.ndarray = field(default=None)  # (W,) int64 WeaponType
    w_arcs: np.ndarray = field(default=None)  # (W,) int64 base-arc bitmask (hexmap.ARC_BITS)
    w_astern: np.ndarray = field(default=None)  # (W,) bool may also fire down the astern row
    w_min_range: np.ndarray = field(default=None)  # (W,) int64
    w_max_range: np.ndarray = field(default=None)  # (W,) int64
    w_destroyed: np.ndarray = field(default=None)  # (W,) bool
    w_enabled: np.ndarray = field(default=None)  # (W,) bool in use in this scenario
    w_last_fired: np.ndarray = field(default=None)  # (W,) int64 absolute impulse, NEVER
    w_fired_turn: np.ndarray = field(default=None)  # (W,) int64 turn of the last shot, 0
    w_ready_turn: np.ndarray = field(default=None)  # (W,) int64 first turn it may fire
    w_armed: np.ndarray = field(default=None)  # (W,) bool a multi-turn heavy weapon holds a
    #   loaded charge it may fire or launch (plasma starts unarmed, FP1.23); kept by energy
    w_arm_stage: np.ndarray = field(default=None)  # (W,) int64 arming turns paid in the
    #   current cycle (photon 0..2, plasma 0..3; engine.energy), 0 elsewhere
    w_gatling_shots: np.ndarray = field(default=None)  # (W, GATLING_SHOTS) int64 absolute
    #   impulses of a phaser-G's last shots, oldest first, NEVER where none (E2.151)
    w_ammo: np.ndarray = field(default=None)  # (W,) int64 drones left in a rack
    w_drone_rows: np.ndarray = field(default=None)  # (W, 4) int64 unit rows of its drones
    w_plasma_rows: np.ndarray = field(default=None)  # (W, PLASMA_ROWS) int64 torpedo unit
    #   rows of a plasma launcher (reused once a torpedo is gone), -1 elsewhere (FP1)
    # --- expanding sphere generators (G23), one entry per weapon row; 0 / -1 / NEVER on rows
    #   that are not an ESG. Times are absolute impulses, NEVER = none (see engine.esg_field).
    esg_max: np.ndarray = field(default=None)  # (W,) int64 energy capacity (G23.22), 0 = none
    esg_stored: np.ndarray = field(default=None)  # (W,) int64 energy held (G23.21)
    esg_phase: np.ndarray = field(default=None)  # (W,) int8 esg.EsgPhase idle/announced/active
    esg_radius: np.ndarray = field(default=None)  # (W,) int64 announced or active radius, -1
    esg_strength: np.ndarray = field(default=None)  # (W,) int64 active field strength (G23.42)
    esg_announced_at: np.ndarray = field(default=None)  # (W,) int64 last announcement (G23.31)
    esg_release_at: np.ndarray = field(default=None)  # (W,) int64 announced release (G23.31)
    esg_activated_at: np.ndarray = field(default=None)  # (W,) int64 last release (G23.323)
    esg_dropped_at: np.ndarray = field(default=None)  # (W,) int64 last deactivation (G23.323)
    esg_cancelled_at: np.ndarray = field(default=None)  # (W,) int64 last cancellation (G23.33)
    # --- plasmatic pulsar devices (E11), one entry per weapon row (engine.ppd_fire); 0 / -1 /
    #   NEVER / False on rows that are not a PPD. The charge (E11.2) and the pulse train (E11.3).
    ppd_stage: np.ndarray = field(default=None)  # (W,) int64 ppd.PpdStage of the charge
    ppd_energy: np.ndarray = field(default=None)  # (W,) int64 arming energy 0..8 (E11.25)
    ppd_paid_turn: np.ndarray = field(default=None)  # (W,) int64 last turn paid, 0 = never
    ppd_target: np.ndarray = field(default=None)  # (W,) int64 pulse-train target, -1 = none
    ppd_fired_at: np.ndarray = field(default=None)  # (W,) int64 absolute impulse fired, NEVER
    ppd_pulses: np.ndarray = field(default=None)  # (W,) int64 pulses programmed (E11.311)
    ppd_resolved: np.ndarray = field(default=None)  # (W,) int64 pulses resolved so far
    ppd_locked: np.ndarray = field(default=None)  # (W,) bool wave-lock held (E11.331)

    @property
    def absolute_impulse(self) -> int:
        """Impulses since the battle began: (turn - 1) * I + impulse."""
        return (self.turn - 1) * self.impulses_per_turn + self.impulse

    def active(self) -> np.ndarray:
        """Mask of units in play."""
        return self.status == Status.ACTIVE

    def copy(self) -> BattleState:
        """An independent deep copy: arrays, the dice generator's state, the event log and the
        result (events are frozen and shared); the cache starts empty."""
        out = BattleState.__new__(BattleState)
        for name, value in self.__dict__.items():
            if isinstance(value, np.ndarray):
                value = value.copy()
            elif name == "cache":
                value = {}
            elif name in ("events", "controllers"):
                value = list(value)
            elif isinstance(value, np.random.Generator):
                value = _copy_generator(value)
            elif not isinstance(value, (int, float, str, bool, type(None))):
                value = copy.deepcopy(value)
            out.__dict__[name] = value
        return out


def _copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """A generator in ``rng``'s state that draws what it draws, independently of it: for the
    battle's PCG64, its state moved into a new one (about a quarter of ``copy.deepcopy``'s
    cost; the seed sequence is shared, as nothing here spawns from it); others deep-copied."""
    bits = rng.bit_generator
    if type(bits) is not np.random.PCG64 or not isinstance(bits.seed_seq,
                                                           np.random.SeedSequence):
        return copy.deepcopy(rng)
    fresh = np.random.PCG64(bits.seed_seq)
    fresh.state = bits.state
    return np.random.Generator(fresh)


@dataclass
class Orders:
    """One unit's orders at a decision point (the written secret orders of C1.3 and E1.1).

    ``fire`` maps weapon rows to target unit rows; ``launch`` maps drone-rack weapon rows to
    target unit rows; ``maneuver`` is the unit's move on the next impulse; ``speed`` is its
    speed for the next turn where the scenario lets the player choose (Chief Engineer, scen. 3).
    ``arm``, ``capacitor``, ``recharge`` and ``cloak`` are the Energy Allocation of the next
    turn under ``rules.energy: cadet`` (B3.0, ``engine.energy``). ``tactical`` (scenario rule
    ``tactical_maneuvers``, same decision points as ``speed``) plots "TAC" for the next turn:
    the unit stays in its hex and ``speed`` (0..4, None = the current speed) is the number of
    warp tactical maneuvers bought, used on the impulse chart (C5.23); a sublight tactical
    maneuver comes with every TAC plot (C5.3). On the Energy Allocation Form the plot is paid
    with movement: a hex of warp energy per warp maneuver (C5.22), 1 impulse energy for the
    sublight one (C5.12). ``esg`` maps ESG weapon rows to an ``EsgOrder``
    for this impulse's Launch Seeking Weapons step (G23.31, G23.33, G23.47). ``gatling`` gives
    a phaser-G more shots in this impulse, at the same or different targets (E2.151): weapon
    row -> {shot number 2..4 -> target unit row}; ``fire[w]`` is its first shot. Shot ``k`` is
    legal only while the gun has ``k`` shots left, this turn and in the quarter-turn window.
    """

    maneuver: Maneuver = Maneuver.NONE
    fire: dict[int, int] = field(default_factory=dict)
    gatling: dict[int, dict[int, int]] = field(default_factory=dict)  # (E2.151) phaser-G row
    #   -> {shot number 2..4 -> target unit row}, shots beyond ``fire[w]`` in this impulse
    launch: dict[int, int] = field(default_factory=dict)
    launch_facing: dict[int, int] = field(default_factory=dict)  # (FD1.2, rule launch_facing)
    #   drone-rack row in ``launch`` -> the drone's facing 0..5 (A..F); absent = automatic
    speed: int | None = None
    tactical: bool = False
    esg: dict[int, int] = field(default_factory=dict)  # ESG weapon row -> EsgOrder (G23.3)
    # Energy Allocation (scenario rule ``energy: cadet``, B3.0; docs/engine/energy.md), read at
    # the same decision points as ``speed``; None / absent = the standing allocation.
    arm: dict[int, int] = field(default_factory=dict)  # heavy weapon row -> ArmOrder
    capacitor: int | None = None  # energy into the phaser capacitor (H6.1); None = fill it
    recharge: int | None = None  # batteries to recharge (line 16); None = every empty one
    cloak: bool = False  # (G13) cloak for the whole next turn, paying the ship's cloak cost
    ppd: dict[int, int] = field(default_factory=dict)  # PPD weapon row -> PpdOrder (E11.362)
    # Standard form extras (rules reinforcement / damage_control; engine.energy), same points:
    reinforce_general: int = 0  # general reinforcement points bought, 2 energy each (D3.341)
    reinforce: dict[int, int] = field(default_factory=dict)  # shield 1..6 -> specific
    #   reinforcement energy (D3.342)
    repair: int = 0  # damage control: shield 1..6 to repair this turn, 0 = none (D9.2); the
    #   engine spends the most the rating allows there (the shorthand of ``repair_boxes``)
    repair_boxes: dict[int, int] = field(default_factory=dict)  # (D9.2) shield 1..6 -> boxes
    #   damage control repairs there this turn, 2 energy each; the rating spread over shields
    reinforce_hold: int = 0  # (D3.3411 note) energy_form.HOLD_GENERAL: hold the general
    #   reinforcement bought at Energy Allocation inactive; ACTIVATE_GENERAL: switch held GR on
    #   now (an impulse's orders); 0 = automatic (GR active from Energy Allocation)
    esg_reserve: dict[int, int] = field(default_factory=dict)  # (G23.212, H7.1; rule
    #   reserve_power) ESG weapon row -> batteries discharged into that generator at the start
    #   of this impulse's Launch Seeking Weapons step (stored, never into an active field)
    reserve_shields: int = 0  # (H7.1, H7.2; rule reserve_power) energy_form.KEEP_RESERVE: no
    #   battery is discharged into a struck shield until the next decision point; 0 =
    #   automatic (discharged into a struck shield as needed, PROPOSAL [P-031])
    fighters: int | None = None  # (J4.34) carrier: launch every fighter aboard and send all
    #   its fighters at this target unit row (engine.small_craft); None = hold
    shuttles: int | None = None  # (J1.0) launch one administrative shuttle and send all the
    #   ship's shuttles in flight at this target unit row; None = hold
    suicide: int | None = None  # (J2.22) launch the ship's armed suicide shuttle at this
    #   target unit row (engine.suicide_shuttles); None = hold
    suicide_arm: int | None = None  # (J2.221) Energy Allocation: warp energy 1..3 into the
    #   suicide shuttle's bomb this turn (1 = hold once armed), 0 = none; None = standing
    tractor: dict[int, int] = field(default_factory=dict)  # (G7.0) beam index -> target
    #   unit row to attach, or tractors.RELEASE (-1) to release; absent = hold
    disengage: bool = False  # (SCENARIOS #5 special, rule disengage_by_announcement) announce
    #   disengagement at the end of this impulse (engine.disengagement)
    probe: int = 0  # (G5) a probes.ProbeOrder: arm an information / anti-matter probe
    #   (Energy Allocation) or launch / fire the armed one (Direct-Fire step); 0 = nothing
    transporters: int = 0  # (G8.0) transporter uses to power this turn, 1 energy per 5
    #   (Energy Allocation, standard form; engine.transporters)
    transport: dict[int, tuple[int, int]] = field(default_factory=dict)  # (G8.0) transporter
    #   index -> (TransportOrder, target unit row), in the Shields/Transporters step
    drop_shield: int = 0  # (G8.24) 0 none, s = drop shield #s for 1/4 turn (same step)


class EsgOrder(IntEnum):
    """An expanding sphere generator order, given in Launch Seeking Weapons (G23.31-G23.47)."""

    NONE = 0
    ANNOUNCE_0 = 1  # announce a release at radius 0 (G23.31, G23.41)
    ANNOUNCE_1 = 2
    ANNOUNCE_2 = 3
    ANNOUNCE_3 = 4
    CANCEL = 5  # cancel the pending announcement (G23.33)
    DROP = 6  # voluntarily deactivate the operating field (G23.47)


ESG_ORDERS = len(EsgOrder)  # size of an ``esg[g]`` action component


class PpdOrder(IntEnum):
    """A plasmatic pulsar device order between pulses (E11.362), before the Fire step."""

    KEEP = 0  # let the pulse train go on
    DROP = 1  # drop the wave-lock: every remaining pulse is lost (E11.362, E11.548)


PPD_ORDERS = len(PpdOrder)  # size of a ``ppd[p]`` action component


class TransportOrder(IntEnum):
    """What one transporter does in the Shields/Transporters step (G8.0, engine.transporters)."""

    NONE = 0
    BEAM_PARTY = 1  # beam one of the ship's boarding parties onto the target (D7.0)
    LIFT_CREW = 2  # lift one crew unit (10 people) from the target aboard (G8.0)


class ArmOrder(IntEnum):
    """Energy Allocation order for one heavy weapon (B3.0 line 10; docs/engine/energy.md)."""

    NONE = 0  # no energy: do not arm, or let an arming cycle / a loaded charge go
    ARM = 1  # pay the next step of the arming cycle (begin, continue or complete it)
    HOLD = 2  # keep what the weapon has: hold a loaded charge, or roll a plasma-S (FP1.22)


ARM_ORDERS = len(ArmOrder)  # size of an ``arm[h]`` action component


class IllegalOrderError(ValueError):
    """An order the rules forbid; names the unit, the component, the value and the rule."""

    def __init__(self, unit: str, component: str, value: object, rule: str) -> None:
        self.unit = unit
        self.component = component
        self.value = value
        self.rule = rule
        super().__init__(f"illegal order for {unit}: {component}={value!r}: {rule}")
