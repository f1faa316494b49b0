"""Standard (2d6) Damage Allocation Chart resolver (D4.2-D4.4), pure and engine-independent.

One 2d6 roll per internal point; the point takes column A of that row and moves right while the
cell cannot be scored (D4.21). Column M (Excess) always scores: an Excess hit with no Excess
Damage box left destroys the ship (D4.4). Rules encoded:

* D4.12 armor: ``ARMOR`` boxes absorb the first internal points before any roll.
* D4.31 a bold cell scores once per volley; judged by cell (row, column), not by system.
* D4.321 a "Phaser" cell needs a phaser able to fire through one of the volley's shields
  (``WeaponBox.shields``); PPD pulses pass every penetrated shield (E11.332).
  "Any Weapon" ignores direction.
* D4.322 every third "Phaser" result scored in a volley goes to the best phaser type left
  (lowest ``PHASER_RANK``) among the eligible phasers.
* D4.33 tracks (sensor, scanner, damage control, excess) lose their best box first; the last
  sensor, scanner and damage-control box is never destroyed (counts kept here; ratings via
  :func:`track_rating`).
* D4.34 multi-ship volleys: :func:`resolve_multi_ship_volley` takes the units' parts most
  damage first.
* D4.351 "F Hull"/"A Hull" fall to a centre hull (``C_HULL``) only once their own group is gone;
  a ship with only a centre hull takes both there. D4.352 warp engines are separate; "Any Warp"
  is any engine. D4.354 "FlagBridge" hits Klingon security (G6.1) or a Lyran flag bridge.
* D4.323-D4.325 weapon classes: ``WEAPON_DAC_CLASS``.

Owner's choices within a category, by this documented rule (a player could choose otherwise):

* a weapon: the lowest ``WeaponBox.value`` (default ``DEFAULT_WEAPON_VALUE``), ties to the box
  listed last on the ship; [P-041]
* "Any Warp": the engine with the most boxes left, ties L, R, C.

Not encoded: an occupied shuttle box as "Any Weapon" (optional D4.324), which shuttle box is hit
(occupied or empty, D4.325 — caller's bookkeeping), fighter boxes count as ``SHUTTLE``. [P-043]
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

import numpy as np

from sfb_env import tables
from sfb_env.data.ships import ARC_UNION, BASE_ARCS

if TYPE_CHECKING:
    from sfb_env.data.ships import ShipClass

COLUMNS = "ABCDEFGHIJKLM"
SHIELD_NUMBERS = frozenset(range(1, 7))


class DacBox(IntEnum):
    """Non-weapon box types the standard DAC can destroy; index of ``ShipBoxes.boxes``."""

    BRIDGE = 0
    FLAG_BRIDGE = 1
    SECURITY = 2
    AUX_CONTROL = 3
    EMER_BRIDGE = 4
    SENSOR = 5
    SCANNER = 6
    DAMAGE_CONTROL = 7
    F_HULL = 8
    A_HULL = 9
    C_HULL = 10
    L_WARP = 11
    R_WARP = 12
    C_WARP = 13
    IMPULSE = 14
    APR = 15
    BATTERY = 16
    TRANSPORTER = 17
    TRACTOR = 18
    SHUTTLE = 19
    LAB = 20
    PROBE = 21
    CARGO = 22
    ARMOR = 23
    EXCESS = 24


N_BOXES = len(DacBox)
# (D4.33) Tracks whose last box is never destroyed.
KEEP_LAST_BOX = frozenset({DacBox.SENSOR, DacBox.SCANNER, DacBox.DAMAGE_CONTROL})
WARPS = (DacBox.L_WARP, DacBox.R_WARP, DacBox.C_WARP)

# DAC system -> box types tried in order (the first with a destructible box is hit).
SYSTEM_BOXES: Mapping[str, tuple[DacBox, ...]] = {
    "Bridge": (DacBox.BRIDGE,),  # (D4.353)
    "FlagBridge": (DacBox.SECURITY, DacBox.FLAG_BRIDGE),  # (D4.354, G6.1)
    "AuxControl": (DacBox.AUX_CONTROL,),
    "EmerBridge": (DacBox.EMER_BRIDGE,),
    "Sensor": (DacBox.SENSOR,),
    "Scanner": (DacBox.SCANNER,),
    "DamCon": (DacBox.DAMAGE_CONTROL,),
    "F Hull": (DacBox.F_HULL, DacBox.C_HULL),  # (D4.351)
    "A Hull": (DacBox.A_HULL, DacBox.C_HULL),
    "L Warp": (DacBox.L_WARP,),  # (D4.352)
    "R Warp": (DacBox.R_WARP,),
    "C Warp": (DacBox.C_WARP,),
    "Any Warp": WARPS,
    "Impulse": (DacBox.IMPULSE,),
    "APR": (DacBox.APR,),
    "Battery": (DacBox.BATTERY,),
    "Trans": (DacBox.TRANSPORTER,),
    "Tractor": (DacBox.TRACTOR,),
    "Shuttle": (DacBox.SHUTTLE,),  # (D4.325) fighter boxes too
    "Lab": (DacBox.LAB,),
    "Probe": (DacBox.PROBE,),
    "Cargo": (DacBox.CARGO,),
    "Excess": (DacBox.EXCESS,),
}
# DAC weapon systems -> weapon classes they take (D4.321-D4.324).
WEAPON_SYSTEMS: Mapping[str, frozenset[str]] = {
    "Phaser": frozenset({"phaser"}),
    "Torp": frozenset({"torp"}),
    "Drone": frozenset({"drone"}),
    "Any Weapon": frozenset({"phaser", "torp", "drone"}),
}
# Weapon type (ship data) -> DAC class: D4.323 torp incl. fusion (E7.12); drone incl. PPD
# (E11.12) and ESG (G23.14).
WEAPON_DAC_CLASS: Mapping[str, str] = {
    "ph-1": "phaser",
    "ph-2": "phaser",
    "ph-3": "phaser",
    "ph-g": "phaser",
    "disruptor": "torp",
    "photon": "torp",
    "plasma-s": "torp",
    "plasma-r": "torp",
    "plasma-f": "torp",
    "fusion": "torp",
    "drone-rack": "drone",
    "ppd": "drone",
    "esg": "drone",
}
# (D4.322) Lower = better phaser. PROPOSAL [P-042]: Ph-G ranks below Ph-2 (fires on the Ph-3 table).
PHASER_RANK: Mapping[str, int] = {"ph-1": 1, "ph-2": 2, "ph-g": 3, "ph-3": 4}
# PROPOSAL [P-041] owner's valuation, lower = given up first (same order as the interim rule's).
DEFAULT_WEAPON_VALUE: Mapping[str, int] = {
    "ph-3": 1,
    "ph-g": 1,
    "ph-2": 2,
    "ph-1": 3,
    "drone-rack": 4,
    "disruptor": 5,
    "fusion": 5,
    "photon": 6,
    "plasma-f": 6,
    "plasma-s": 7,
    "plasma-r": 7,
    "ppd": 7,
    "esg": 7,
}


def phaser_shields(arcs: Iterable[str], astern_row: bool = False) -> frozenset[int]:
    """Shields #1..#6 a mount can fire through (D4.321): base arc k lies between map
    directions k and k+1 relative to facing, so it overlaps shields #k+1 and #k+2; the row
    directly astern (SSD note) is shield #4."""
    shields: set[int] = set()
    for token in arcs:
        if token not in ARC_UNION:
            raise ValueError(f"arcs: unknown arc {token!r} (D2.2)")
        for arc in ARC_UNION[token]:
            k = BASE_ARCS.index(arc)
            shields |= {k + 1, (k + 1) % 6 + 1}
    if astern_row:
        shields.add(4)
    return frozenset(shields)


def track_rating(track: Sequence[int], remaining: int) -> int:
    """Rating of a track with ``remaining`` boxes left, destroyed best-first (D4.33, D9.1)."""
    if not 0 <= remaining <= len(track):
        raise ValueError(f"remaining={remaining!r} is outside 0..{len(track)} (D4.33)")
    return int(track[len(track) - remaining]) if remaining else 0


@dataclass(frozen=True)
class WeaponBox:
    """One weapon box: ``type`` as in ship data, ``shields`` it can fire through (D4.321),
    ``value`` the owner's valuation (lower is given up first; None = default)."""

    name: str
    type: str
    shields: frozenset[int] = SHIELD_NUMBERS
    value: int | None = None

    def __post_init__(self) -> None:
        if self.type not in WEAPON_DAC_CLASS:
            raise ValueError(f"WeaponBox.type: unknown weapon type {self.type!r} (D4.323)")
        shields = frozenset(self.shields)
        if not shields <= SHIELD_NUMBERS:
            raise ValueError(f"WeaponBox.shields: {sorted(shields)} not within 1..6 (D4.321)")
        object.__setattr__(self, "shields", shields)

    @property
    def dac_class(self) -> str:
        """'phaser', 'torp' or 'drone' (D4.321-D4.323)."""
        return WEAPON_DAC_CLASS[self.type]

    @property
    def owner_value(self) -> int:
        return DEFAULT_WEAPON_VALUE[self.type] if self.value is None else self.value


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class ShipBoxes:
    """A ship's undestroyed boxes as far as the DAC is concerned (immutable)."""

    boxes: np.ndarray  # int32[N_BOXES], boxes left by DacBox (track boxes: count left)
    weapons: tuple[WeaponBox, ...] = ()
    weapon_destroyed: np.ndarray | None = None  # bool[len(weapons)]; None = all intact

    def __post_init__(self) -> None:
        boxes = np.asarray(self.boxes)
        if boxes.shape != (N_BOXES,) or not np.issubdtype(boxes.dtype, np.integer):
            raise ValueError(f"ShipBoxes.boxes: need an int array of shape ({N_BOXES},) (D4.21)")
        if np.any(boxes < 0):
            raise ValueError("ShipBoxes.boxes: box counts must be >= 0 (D4.21)")
        names = [w.name for w in self.weapons]
        if len(set(names)) != len(names):
            raise ValueError(f"ShipBoxes.weapons: duplicate weapon names in {names} (D4.21)")
        destroyed = self.weapon_destroyed
        if destroyed is None:
            destroyed = np.zeros(len(self.weapons), dtype=bool)
        destroyed = np.asarray(destroyed, dtype=bool)
        if destroyed.shape != (len(self.weapons),):
            raise ValueError("ShipBoxes.weapon_destroyed: one flag per weapon (D4.21)")
        object.__setattr__(self, "boxes", _frozen(boxes.astype(np.int32)))
        object.__setattr__(self, "weapons", tuple(self.weapons))
        object.__setattr__(self, "weapon_destroyed", _frozen(destroyed.copy()))

    @classmethod
    def build(
        cls, counts: Mapping[DacBox, int], weapons: Sequence[WeaponBox] = ()
    ) -> ShipBoxes:
        """Boxes from ``{DacBox: count}``; the rest 0."""
        boxes = np.zeros(N_BOXES, dtype=np.int32)
        for box, n in counts.items():
            boxes[DacBox(box)] = n
        return cls(boxes, tuple(weapons))

    def __getitem__(self, box: DacBox) -> int:
        return int(self.boxes[box])

    def weapons_left(self) -> tuple[str, ...]:
        """Names of the undestroyed weapon boxes, in ship order."""
        pairs = zip(self.weapons, self.weapon_destroyed, strict=True)
        return tuple(w.name for w, d in pairs if not d)


_SYSTEM_KEYS: Mapping[str, DacBox] = {
    "bridge": DacBox.BRIDGE,
    "flag_bridge": DacBox.FLAG_BRIDGE,
    "security": DacBox.SECURITY,
    "auxiliary_control": DacBox.AUX_CONTROL,
    "emergency_bridge": DacBox.EMER_BRIDGE,
    "forward_hull": DacBox.F_HULL,
    "aft_hull": DacBox.A_HULL,
    "rear_hull": DacBox.A_HULL,  # Gorn R hull takes aft hits (D4.351)
    "center_hull": DacBox.C_HULL,
    "hull": DacBox.C_HULL,
    "lab": DacBox.LAB,
    "transporter": DacBox.TRANSPORTER,
    "tractor": DacBox.TRACTOR,
    "probe_launcher": DacBox.PROBE,
    "shuttle": DacBox.SHUTTLE,
    "cargo": DacBox.CARGO,
    "armor": DacBox.ARMOR,
}


def ship_boxes(ship: ShipClass) -> ShipBoxes:
    """Undamaged DAC boxes of a ship class from its data file. Fighters count as shuttle
    boxes (D4.325); systems the chart never names (emergency impulse) are left out."""
    if ship.freighter is not None:
        raise ValueError(f"ship: {ship.key} is a freighter; freighters use no DAC (R1.6)")
    counts: dict[DacBox, int] = {}
    for key, n in ship.systems.items():
        if key in _SYSTEM_KEYS:
            box = _SYSTEM_KEYS[key]
            counts[box] = counts.get(box, 0) + n
    for side, box in zip("LRC", WARPS, strict=True):
        counts[box] = ship.warp.get(side, 0)
    counts[DacBox.IMPULSE] = ship.impulse
    counts[DacBox.APR] = ship.apr
    counts[DacBox.BATTERY] = ship.batteries
    counts[DacBox.SENSOR] = len(ship.sensor_track)
    counts[DacBox.SCANNER] = len(ship.scanner_track)
    counts[DacBox.DAMAGE_CONTROL] = len(ship.damage_control_track)
    counts[DacBox.EXCESS] = ship.excess_damage
    if ship.fighters is not None:
        counts[DacBox.SHUTTLE] = counts.get(DacBox.SHUTTLE, 0) + ship.fighters.count
    weapons = [
        WeaponBox(m.id, m.type, phaser_shields(m.arcs, m.astern_row)) for m in ship.weapons
    ]
    return ShipBoxes.build(counts, weapons)


@dataclass(frozen=True)
class DacHit:
    """One internal point: the roll and cell that scored it and what it destroyed."""

    roll: int | None  # 2d6 total; None for armor (D4.12)
    column: str | None  # 'A'..'M'; None for armor
    system: str  # DAC system name, or "Armor"
    box: DacBox | None  # non-weapon box destroyed
    weapon: str | None = None  # weapon box destroyed
    destroys_ship: bool = False  # Excess hit with no Excess box left (D4.4)


@dataclass(frozen=True)
class VolleyResult:
    """Outcome of one volley: the ship after it and one ``DacHit`` per point resolved."""

    ship: ShipBoxes
    hits: tuple[DacHit, ...]
    destroyed: bool
    unresolved: int  # points left over once the ship was destroyed


def _roll_source(
    rng: np.random.Generator | None, rolls: Sequence[int] | None
) -> Iterator[int]:
    """Validate the dice source now; hand out 2d6 totals lazily."""
    if (rng is None) == (rolls is None):
        raise ValueError("rng/rolls: give exactly one dice source (D4.21)")
    if rolls is None:
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng: need a numpy Generator, got {type(rng).__name__} (D4.21)")
        return (int(rng.integers(1, 7, size=2).sum()) for _ in iter(int, 1))
    rolls = list(rolls)
    for i, r in enumerate(rolls):
        if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 2 <= r <= 12:
            raise ValueError(f"rolls[{i}]={r!r} is not a 2d6 total 2..12 (D4.21)")

    def supplied() -> Iterator[int]:
        yield from (int(r) for r in rolls)
        raise ValueError(f"rolls: {len(rolls)} rolls ran out before the volley ended (D4.21)")

    return supplied()


def _check_shields(name: str, shields: Collection[int]) -> frozenset[int]:
    try:
        s = frozenset(shields)
    except TypeError:
        raise ValueError(f"{name}: need a collection of shield numbers 1..6 (D4.321)") from None
    if not s or not s <= SHIELD_NUMBERS:
        raise ValueError(f"{name}={sorted(s)!r}: need shield numbers within 1..6 (D4.321)")
    return s


def _check_points(name: str, points: int) -> int:
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 0:
        raise ValueError(f"{name}={points!r}: internal points must be an int >= 0 (D4.21)")
    return int(points)


class _Volley:
    """Mutable working copy for one volley: bold cells used (D4.31), phaser hits (D4.322)."""

    def __init__(self, ship: ShipBoxes) -> None:
        self.ship = ship
        self.boxes = ship.boxes.copy()
        self.destroyed = ship.weapon_destroyed.copy()
        self.bold_used: set[tuple[int, int]] = set()
        self.phaser_hits = 0
        self.hits: list[DacHit] = []
        self.ship_destroyed = False

    def destructible(self, box: DacBox) -> bool:
        return self.boxes[box] > (1 if box in KEEP_LAST_BOX else 0)  # (D4.33)

    def pick_weapon(self, system: str, shields: frozenset[int]) -> int | None:
        classes = WEAPON_SYSTEMS[system]
        cands = [
            i
            for i, w in enumerate(self.ship.weapons)
            if not self.destroyed[i]
            and w.dac_class in classes
            and (system != "Phaser" or w.shields & shields)  # (D4.321)
        ]
        if not cands:
            return None
        if system == "Phaser" and (self.phaser_hits + 1) % 3 == 0:  # (D4.322)
            best = min(PHASER_RANK[self.ship.weapons[i].type] for i in cands)
            cands = [i for i in cands if PHASER_RANK[self.ship.weapons[i].type] == best]
        return min(cands, key=lambda i: (self.ship.weapons[i].owner_value, -i))

    def pick_box(self, system: str) -> DacBox | None:
        options = [b for b in SYSTEM_BOXES[system] if self.destructible(b)]
        if not options:
            return None
        if system == "Any Warp":  # owner's choice: the engine with most boxes left
            return max(options, key=lambda b: (self.boxes[b], -WARPS.index(b)))
        return options[0]

    def point(self, roll: int, shields: frozenset[int]) -> None:
        systems, bold, names = tables.standard_dac_chart()
        row = roll - 2
        for col in range(len(COLUMNS)):
            if bold[row, col] and (row, col) in self.bold_used:
                continue  # (D4.31) used bold cell: move right
            system = names[systems[row, col]]
            hit: DacHit | None = None
            if system in WEAPON_SYSTEMS:
                w = self.pick_weapon(system, shields)
                if w is not None:
                    self.destroyed[w] = True
                    self.phaser_hits += system == "Phaser"
                    hit = DacHit(roll, COLUMNS[col], system, None, self.ship.weapons[w].name)
            elif system == "Excess" and self.boxes[DacBox.EXCESS] == 0:
                self.ship_destroyed = True  # (D4.4)
                hit = DacHit(roll, COLUMNS[col], system, None, destroys_ship=True)
            else:
                box = self.pick_box(system)
                if box is not None:
                    self.boxes[box] -= 1
                    hit = DacHit(roll, COLUMNS[col], system, box)
            if hit is not None:
                if bold[row, col]:
                    self.bold_used.add((row, col))
                self.hits.append(hit)
                return
        raise AssertionError("column M (Excess) always scores")  # pragma: no cover

    def resolve(self, points: int, shields: frozenset[int], dice: Iterator[int]) -> int:
        """Resolve ``points``; return how many are left once the ship is destroyed."""
        for n in range(points):
            if self.ship_destroyed:
                return points - n
            if self.boxes[DacBox.ARMOR] > 0:  # (D4.12) armor before the chart
                self.boxes[DacBox.ARMOR] -= 1
                self.hits.append(DacHit(None, None, "Armor", DacBox.ARMOR))
                continue
            self.point(next(dice), shields)
        return 0

    def result(self, unresolved: int) -> VolleyResult:
        ship = ShipBoxes(self.boxes, self.ship.weapons, self.destroyed)
        return VolleyResult(ship, tuple(self.hits), self.ship_destroyed, unresolved)


def resolve_volley(
    ship: ShipBoxes,
    points: int,
    shields: Collection[int],
    *,
    rng: np.random.Generator | None = None,
    rolls: Sequence[int] | None = None,
) -> VolleyResult:
    """Allocate ``points`` internal damage of one volley that came through ``shields``
    (D4.22; several for a PPD pulse, E11.332). Dice: ``rng`` or a sequence of 2d6 ``rolls``."""
    if not isinstance(ship, ShipBoxes):
        raise ValueError(f"ship: need ShipBoxes, got {type(ship).__name__} (D4.21)")
    points = _check_points("points", points)
    dirs = _check_shields("shields", shields)
    dice = _roll_source(rng, rolls)
    volley = _Volley(ship)
    return volley.result(volley.resolve(points, dirs, dice))


def resolve_multi_ship_volley(
    ship: ShipBoxes,
    parts: Sequence[tuple[int, Collection[int]]],
    *,
    rng: np.random.Generator | None = None,
    rolls: Sequence[int] | None = None,
) -> VolleyResult:
    """One volley from several units, ``parts`` = (points, shields) per unit: the unit that
    did most damage is resolved first, then the others in the given order (D4.34); bold
    cells and the D4.322 count run over the whole volley."""
    if not isinstance(ship, ShipBoxes):
        raise ValueError(f"ship: need ShipBoxes, got {type(ship).__name__} (D4.21)")
    checked = [
        (_check_points(f"parts[{i}].points", p), _check_shields(f"parts[{i}].shields", s))
        for i, (p, s) in enumerate(parts)
    ]
    dice = _roll_source(rng, rolls)
    volley = _Volley(ship)
    left = 0
    for points, dirs in sorted(checked, key=lambda part: -part[0]):  # stable: ties keep order
        left += volley.resolve(points, dirs, dice) if not volley.ship_destroyed else points
    return volley.result(left)
