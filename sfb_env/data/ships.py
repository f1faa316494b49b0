"""Ship sheets: one YAML file per ship class in ``data/ships/``, validated and compiled on load.

Numbers come from ``shared/reference/CTH-DATA.md`` (§9 ship data, §7.3, §8.1, §8.5, §12); every
value a rules engine needs is in the file, nothing about a ship is hard-coded, and unknown keys
are errors. Sheets compile to frozen dataclasses (:class:`ShipClass`, :class:`WeaponMount`,
:class:`FighterGroup`, :class:`FreighterRules`) that the engine turns into numpy arrays.

Entry points: :func:`load_ship` (one sheet by key), :func:`all_ships`, :func:`ship_keys`; the
schema's vocabularies are the constants below (:data:`RACES`, :data:`WEAPON_TYPES`,
:data:`ARC_TOKENS`, :data:`LAUNCHERS`, :data:`SYSTEM_BOXES`, ...).

Schema of a sheet, field by field: docs/engine/ships.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sfb_env.data import (
    DATA_DIR,
    DataFileError,
    check_int_list,
    load_data_file,
    require,
    require_choice,
    require_int_list,
)

SHIPS_DIR = DATA_DIR / "ships"

KINDS = ("cadet", "full", "freighter")
SOURCES = ("book", "proposal")
CONFIDENCE = ("high", "medium-high", "medium", "low", "proposal")
RACES = (
    "federation",
    "klingon",
    "romulan",
    "gorn",
    "kzinti",
    "orion",
    "hydran",
    "lyran",
    "isc",
    "civilian",
)
FULL_SIZE_TURN_MODES = ("AA", "A", "B", "C", "D", "E", "F")
WARP_ENGINES = ("L", "C", "R")

#: The six 60-degree arcs, in bit order for :attr:`WeaponMount.arc_mask` (D2.0).
BASE_ARCS = ("RF", "R", "RR", "LR", "L", "LF")
#: Every arc token and the base arcs it covers (D2.2, CTH-DATA §1.5).
ARC_UNION: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        **{arc: (arc,) for arc in BASE_ARCS},
        "FA": ("LF", "RF"),
        "FX": ("L", "LF", "RF", "R"),
        "RA": ("LR", "RR"),
        "RX": ("L", "LR", "RR", "R"),
        "LS": ("LF", "L", "LR"),
        "RS": ("RF", "R", "RR"),
        "360": BASE_ARCS,
    }
)
ARC_TOKENS = tuple(ARC_UNION)

#: Weapon type -> id prefix. Phaser types fire from the capacitor at the cost in PHASER_COST.
WEAPON_TYPES: Mapping[str, str] = MappingProxyType(
    {
        "ph-1": "PH1",
        "ph-2": "PH2",
        "ph-3": "PH3",
        "ph-g": "PHG",
        "disruptor": "DISR",
        "photon": "PHOT",
        "fusion": "FUS",
        "ppd": "PPD",
        "plasma-s": "PL",
        "plasma-r": "PL",
        "plasma-f": "PL",
        "drone-rack": "DRONE",
        "esg": "ESG",
    }
)
#: Energy of one firing (E2.1, E2.152): a phaser-G's 1 energy buys its four shots.
PHASER_COST: Mapping[str, Fraction] = MappingProxyType(
    {
        "ph-1": Fraction(1),
        "ph-2": Fraction(1),
        "ph-3": Fraction(1, 2),
        "ph-g": Fraction(1),
    }
)
PLASMA_TYPES = ("plasma-s", "plasma-r", "plasma-f")
#: Plasma launchers (FP3.1, FP3.2): ``arc`` launches at targets in its printed arcs (Gorn, ISC).
LAUNCHERS = ("fixed", "swivel-left", "swivel-right", "arc")

SYSTEM_BOXES = (
    "bridge",
    "flag_bridge",
    "emergency_bridge",
    "auxiliary_control",
    "security",
    "control_station",
    "emergency_impulse",
    "hull",
    "forward_hull",
    "aft_hull",
    "center_hull",
    "rear_hull",
    "armor",
    "cargo",
    "lab",
    "transporter",
    "tractor",
    "probe_launcher",
    "shuttle",
)
HULL_BOXES = ("hull", "forward_hull", "aft_hull", "center_hull", "rear_hull")
TRACKS = ("sensor", "scanner", "damage_control")

_TOP_KEYS = {
    "key",
    "name",
    "race",
    "kind",
    "source",
    "confidence",
    "ssd_page",
    "names",
    "hull_class",
    "shields",
    "power",
    "move_cost",
    "movement_table",
    "turn_mode",
    "phaser_capacitor",
    "phaser_capacitor_note",
    "weapons",
    "drone_launch_limit",
    "systems",
    "excess_damage",
    "damage_control",
    "tracks",
    "boarding_parties",
    "probes",
    "cloak_cost",
    "cloak_optional",
    "fighters",
    "freighter",
    "proposals",
}
_POWER_KEYS = {"warp", "impulse", "apr", "batteries", "total_power"}
_MOUNT_KEYS = {
    "id",
    "type",
    "arcs",
    "astern_row",
    "launcher",
    "ammo",
    "max_energy",
    "max_range",
    "start_charge",
}
_FREIGHTER_KEYS = {"shield_pool", "phaser_disabled_at", "destroyed_at", "speed", "speed_reductions"}
_ID_LABEL = re.compile(r"[A-Z0-9]+")


class UnknownShipError(ValueError):
    """No ship sheet has this key; the message lists the known keys."""

    def __init__(self, key: str, known: tuple[str, ...]) -> None:
        self.key = key
        self.known = known
        super().__init__(f"unknown ship {key!r}; known ships: {', '.join(known)}")


@dataclass(frozen=True)
class WeaponMount:
    """One weapon box of a ship sheet."""

    id: str
    type: str
    arcs: tuple[str, ...]
    astern_row: bool = False
    launcher: str | None = None
    ammo: int | None = None
    max_energy: int | None = None
    max_range: int | None = None
    start_charge: int = 0

    @property
    def arc_mask(self) -> int:
        """Bit i set when the mount covers ``BASE_ARCS[i]``."""
        covered = {arc for token in self.arcs for arc in ARC_UNION[token]}
        return sum(1 << i for i, arc in enumerate(BASE_ARCS) if arc in covered)

    @property
    def is_phaser(self) -> bool:
        return self.type in PHASER_COST


@dataclass(frozen=True)
class FighterGroup:
    """Fighters carried (J4.0); their boxes are taken by "shuttle" damage hits."""

    type: str
    count: int


@dataclass(frozen=True)
class FreighterRules:
    """Abstract freighter (R1.6, CTH-DATA §9.3): thresholds are internal damage points."""

    shield_pool: int
    phaser_disabled_at: int
    destroyed_at: int
    speed: int
    speed_reductions: tuple[tuple[int, int], ...]

    def speed_after(self, internal: int) -> int:
        """Speed from the turn after ``internal`` damage points (never below 0)."""
        lost = max((loss for at, loss in self.speed_reductions if internal >= at), default=0)
        return max(0, self.speed - lost)


@dataclass(frozen=True, eq=True)
class ShipClass:
    """A compiled, validated ship sheet. Mappings are read-only; hashing uses ``key``."""

    key: str
    name: str
    race: str
    kind: str
    source: str
    confidence: str
    ssd_page: int | None
    names: tuple[str, ...]
    hull_class: str
    shields: tuple[int, ...]
    warp: Mapping[str, int]
    impulse: int
    apr: int
    batteries: int
    total_power: int
    move_cost: Fraction | None
    turn_mode: str
    phaser_capacitor: Fraction
    weapons: tuple[WeaponMount, ...]
    drone_launch_limit: int | None
    systems: Mapping[str, int]
    excess_damage: int
    damage_control: int
    sensor_track: tuple[int, ...]
    scanner_track: tuple[int, ...]
    damage_control_track: tuple[int, ...]
    boarding_parties: int
    probes: int
    cloak_cost: int | None
    cloak_optional: bool
    fighters: FighterGroup | None
    freighter: FreighterRules | None
    proposals: Mapping[str, str]

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def warp_power(self) -> int:
        return sum(self.warp.values())

    @property
    def hull_boxes(self) -> int:
        """All hull boxes, whatever their group."""
        return sum(self.systems.get(name, 0) for name in HULL_BOXES)

    def weapon(self, weapon_id: str) -> WeaponMount:
        for mount in self.weapons:
            if mount.id == weapon_id:
                return mount
        raise KeyError(f"{self.key} has no weapon {weapon_id!r}")

    def weapons_of(self, *types: str) -> tuple[WeaponMount, ...]:
        return tuple(m for m in self.weapons if m.type in types)

    def is_proposal(self, field: str) -> bool:
        """True when ``field`` (a path such as ``turn_mode``) is a project proposal (§12)."""
        return self.source == "proposal" or any(
            field == path or field.startswith(path + ".") for path in self.proposals
        )

    def warp_for_speed(self, speed: int) -> int:
        """Warp energy to move ``speed`` hexes by warp alone: ceil(speed x move cost) (§7.3)."""
        if self.move_cost is None:
            raise ValueError(f"{self.key} has no move cost (freighter)")
        if speed < 0:
            raise ValueError(f"speed must be >= 0, got {speed}")
        return math.ceil(speed * self.move_cost)


# --------------------------------------------------------------------------- loading


def ship_keys() -> tuple[str, ...]:
    """Keys of every ship sheet shipped with the package, sorted."""
    return tuple(sorted(p.stem for p in SHIPS_DIR.glob("*.yaml")))


def load_ship(key: str, path: str | Path | None = None) -> ShipClass:
    """Load and validate one ship sheet.

    ``path`` may name a sheet file or a folder holding ``<key>.yaml``; without it the packaged
    sheet is used (cached). Raises :class:`UnknownShipError` or :class:`DataFileError`.
    """
    if path is None:
        return _load_packaged(key)
    path = Path(path)
    if path.is_dir():
        path = path / f"{key}.yaml"
    return _compile(key, path)


@cache
def all_ships() -> Mapping[str, ShipClass]:
    """Every packaged ship sheet, by key."""
    return MappingProxyType({key: load_ship(key) for key in ship_keys()})


@cache
def _load_packaged(key: str) -> ShipClass:
    if key not in ship_keys():
        raise UnknownShipError(key, ship_keys())
    return _compile(key, SHIPS_DIR / f"{key}.yaml")


# --------------------------------------------------------------------------- validation


def _compile(key: str, path: Path) -> ShipClass:
    f = path
    doc = load_data_file(path)
    if not isinstance(doc, Mapping):
        raise DataFileError(f, "<root>", f"expected a mapping, got {type(doc).__name__}")
    _no_unknown_keys(doc, _TOP_KEYS, f, "")

    sheet_key = require(doc, "key", str, f, "")
    if sheet_key != key or sheet_key != path.stem:
        raise DataFileError(
            f, "key", f"{sheet_key!r} must equal the ship key {key!r} and file stem"
        )
    kind = require_choice(doc, "kind", KINDS, f, "")
    source = require_choice(doc, "source", SOURCES, f, "")
    confidence = require_choice(doc, "confidence", CONFIDENCE, f, "")
    if (source == "proposal") != (confidence == "proposal"):
        raise DataFileError(f, "confidence", "must be 'proposal' exactly when source is 'proposal'")

    shields = require_int_list(doc, "shields", f, "", length=6, minimum=0)
    power = require(doc, "power", Mapping, f, "")
    _no_unknown_keys(power, _POWER_KEYS, f, "power")
    warp = require(power, "warp", Mapping, f, "power")
    for engine, boxes in warp.items():
        if engine not in WARP_ENGINES:
            raise DataFileError(
                f, f"power.warp.{engine}", f"unknown engine; expected {WARP_ENGINES}"
            )
        _check_count(boxes, f, f"power.warp.{engine}")
    impulse = _count(power, "impulse", f, "power")
    apr = _count(power, "apr", f, "power")
    batteries = _count(power, "batteries", f, "power")
    total_power = _count(power, "total_power", f, "power")
    if total_power != sum(warp.values()) + impulse + apr:
        raise DataFileError(
            f,
            "power.total_power",
            f"{total_power} != warp {sum(warp.values())} + impulse {impulse} + apr {apr}",
        )

    move_cost = _move_cost(doc, kind, f)
    turn_mode = require(doc, "turn_mode", str, f, "")
    if kind == "cadet" and turn_mode != key:
        raise DataFileError(f, "turn_mode", f"a cadet ship uses its own chart {key!r}")
    if kind == "full" and turn_mode not in FULL_SIZE_TURN_MODES:
        raise DataFileError(f, "turn_mode", f"expected one of {list(FULL_SIZE_TURN_MODES)}")

    weapons = _weapons(doc, f)
    capacitor = _fraction(
        require(doc, "phaser_capacitor", (int, str), f, ""), f, "phaser_capacitor"
    )
    firing_sum = sum((PHASER_COST[m.type] for m in weapons if m.is_phaser), Fraction(0))
    if capacitor != firing_sum and "phaser_capacitor_note" not in doc:
        raise DataFileError(
            f,
            "phaser_capacitor",
            f"{capacitor} != {firing_sum}, one firing of every phaser (H6.0); "
            "add phaser_capacitor_note to keep a printed value",
        )
    if "phaser_capacitor_note" in doc:
        require(doc, "phaser_capacitor_note", str, f, "")

    racks = sum(1 for m in weapons if m.type == "drone-rack")
    drone_launch_limit = _optional_count(doc, "drone_launch_limit", f, minimum=1)
    if drone_launch_limit is not None and not racks:
        raise DataFileError(f, "drone_launch_limit", "ship has no drone racks")

    systems = require(doc, "systems", Mapping, f, "")
    for name, boxes in systems.items():
        if name not in SYSTEM_BOXES:
            raise DataFileError(
                f, f"systems.{name}", f"unknown system; expected one of {SYSTEM_BOXES}"
            )
        _check_count(boxes, f, f"systems.{name}")

    damage_control = _count(doc, "damage_control", f, "")
    sensor, scanner, dc_track = _tracks(doc, kind, damage_control, f)
    cloak_cost = _optional_count(doc, "cloak_cost", f, minimum=1)
    cloak_optional = bool(_optional(doc, "cloak_optional", bool, f, False))
    if cloak_optional and cloak_cost is None:
        raise DataFileError(f, "cloak_optional", "needs cloak_cost")

    freighter = _freighter(doc, kind, f)
    proposals = _proposals(doc, f)

    ssd_page = _optional_count(doc, "ssd_page", f, minimum=1)
    names = _optional(doc, "names", list, f, [])
    for i, ship_name in enumerate(names):
        if not isinstance(ship_name, str):
            raise DataFileError(f, f"names[{i}]", f"expected str, got {ship_name!r}")

    return ShipClass(
        key=key,
        name=require(doc, "name", str, f, ""),
        race=require_choice(doc, "race", RACES, f, ""),
        kind=kind,
        source=source,
        confidence=confidence,
        ssd_page=ssd_page,
        names=tuple(names),
        hull_class=require(doc, "hull_class", str, f, ""),
        shields=tuple(shields),
        warp=MappingProxyType(dict(warp)),
        impulse=impulse,
        apr=apr,
        batteries=batteries,
        total_power=total_power,
        move_cost=move_cost,
        turn_mode=turn_mode,
        phaser_capacitor=capacitor,
        weapons=weapons,
        drone_launch_limit=drone_launch_limit,
        systems=MappingProxyType(dict(systems)),
        excess_damage=_count(doc, "excess_damage", f, ""),
        damage_control=damage_control,
        sensor_track=sensor,
        scanner_track=scanner,
        damage_control_track=dc_track,
        boarding_parties=_count(doc, "boarding_parties", f, ""),
        probes=_optional_count(doc, "probes", f) or 0,
        cloak_cost=cloak_cost,
        cloak_optional=cloak_optional,
        fighters=_fighters(doc, f),
        freighter=freighter,
        proposals=proposals,
    )


def _weapons(doc: Mapping[str, Any], f: Path) -> tuple[WeaponMount, ...]:
    mounts: list[WeaponMount] = []
    seen: set[str] = set()
    for i, node in enumerate(require(doc, "weapons", list, f, "")):
        where = f"weapons[{i}]"
        if not isinstance(node, Mapping):
            raise DataFileError(f, where, f"expected a mapping, got {type(node).__name__}")
        _no_unknown_keys(node, _MOUNT_KEYS, f, where)
        mount_id = require(node, "id", str, f, where)
        wtype = require_choice(node, "type", tuple(WEAPON_TYPES), f, where)
        prefix, _, label = mount_id.partition("-")
        if prefix != WEAPON_TYPES[wtype] or not _ID_LABEL.fullmatch(label):
            raise DataFileError(
                f,
                f"{where}.id",
                f"{mount_id!r}: expected '{WEAPON_TYPES[wtype]}-<label>' for {wtype}",
            )
        if mount_id in seen:
            raise DataFileError(f, f"{where}.id", f"duplicate weapon id {mount_id!r}")
        seen.add(mount_id)

        arcs = require(node, "arcs", list, f, where)
        if not arcs:
            raise DataFileError(f, f"{where}.arcs", "empty")
        tokens = tuple(
            str(a) if isinstance(a, int) and not isinstance(a, bool) else a for a in arcs
        )
        for j, token in enumerate(tokens):
            if token not in ARC_UNION:
                raise DataFileError(
                    f, f"{where}.arcs[{j}]", f"unknown arc {token!r}; expected one of {ARC_TOKENS}"
                )

        allowed = {"id", "type", "arcs", "start_charge"}
        if wtype in PHASER_COST:
            allowed.add("astern_row")
        launcher = ammo = max_energy = max_range = None
        if wtype in PLASMA_TYPES:
            allowed.add("launcher")
            launcher = require_choice(node, "launcher", LAUNCHERS, f, where)
        if wtype == "drone-rack":
            allowed.add("ammo")
            ammo = _count(node, "ammo", f, where, minimum=1)
        if wtype == "esg":
            allowed.add("max_energy")
            max_energy = _count(node, "max_energy", f, where, minimum=1)
        if wtype == "disruptor":
            allowed.add("max_range")
            max_range = _count(node, "max_range", f, where, minimum=1)
        for extra in set(node) - allowed:
            raise DataFileError(f, f"{where}.{extra}", f"not allowed on a {wtype} mount")
        start_charge = _optional_count(node, "start_charge", f, where=where) or 0
        if start_charge and (max_energy is None or start_charge > max_energy):
            raise DataFileError(f, f"{where}.start_charge", "only an ESG, at most its max_energy")
        mounts.append(
            WeaponMount(
                id=mount_id,
                type=wtype,
                arcs=tokens,
                astern_row=bool(_optional(node, "astern_row", bool, f, False, where)),
                launcher=launcher,
                ammo=ammo,
                max_energy=max_energy,
                max_range=max_range,
                start_charge=start_charge,
            )
        )
    return tuple(mounts)


def _move_cost(doc: Mapping[str, Any], kind: str, f: Path) -> Fraction | None:
    if kind == "freighter":
        if "move_cost" in doc or "movement_table" in doc:
            raise DataFileError(f, "move_cost", "freighters have no movement energy")
        return None
    cost = _fraction(require(doc, "move_cost", (int, str), f, ""), f, "move_cost")
    if cost <= 0:
        raise DataFileError(f, "move_cost", f"must be > 0, got {cost}")
    if "movement_table" in doc:
        table = require_int_list(doc, "movement_table", f, "", minimum=0)
        for speed, warp in enumerate(table, start=1):
            if warp != math.ceil(speed * cost):
                raise DataFileError(
                    f,
                    f"movement_table[{speed - 1}]",
                    f"speed {speed}: {warp} != ceil({speed} x {cost})",
                )
    return cost


def _tracks(
    doc: Mapping[str, Any], kind: str, damage_control: int, f: Path
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    if kind != "full":
        if "tracks" in doc:
            raise DataFileError(f, "tracks", f"a {kind} sheet has no sensor/scanner tracks")
        return (), (), ()
    node = require(doc, "tracks", Mapping, f, "")
    _no_unknown_keys(node, set(TRACKS), f, "tracks")
    sensor, scanner, dc_track = (
        tuple(require_int_list(node, name, f, "tracks", minimum=0)) for name in TRACKS
    )
    for name, track in zip(TRACKS, (sensor, scanner, dc_track), strict=True):
        if not track:
            raise DataFileError(f, f"tracks.{name}", "empty")
    if dc_track[0] != damage_control:
        raise DataFileError(
            f, "damage_control", f"{damage_control} != first box {dc_track[0]} of its track"
        )
    return sensor, scanner, dc_track


def _fighters(doc: Mapping[str, Any], f: Path) -> FighterGroup | None:
    if "fighters" not in doc:
        return None
    node = require(doc, "fighters", Mapping, f, "")
    _no_unknown_keys(node, {"type", "count"}, f, "fighters")
    return FighterGroup(
        type=require(node, "type", str, f, "fighters"),
        count=_count(node, "count", f, "fighters", minimum=1),
    )


def _freighter(doc: Mapping[str, Any], kind: str, f: Path) -> FreighterRules | None:
    if kind != "freighter":
        if "freighter" in doc:
            raise DataFileError(f, "freighter", "only a freighter sheet has this block")
        return None
    node = require(doc, "freighter", Mapping, f, "")
    _no_unknown_keys(node, _FREIGHTER_KEYS, f, "freighter")
    steps = require(node, "speed_reductions", list, f, "freighter")
    reductions = tuple(
        tuple(check_int_list(step, f, f"freighter.speed_reductions[{i}]", length=2, minimum=0))
        for i, step in enumerate(steps)
    )
    return FreighterRules(
        shield_pool=_count(node, "shield_pool", f, "freighter"),
        phaser_disabled_at=_count(node, "phaser_disabled_at", f, "freighter"),
        destroyed_at=_count(node, "destroyed_at", f, "freighter", minimum=1),
        speed=_count(node, "speed", f, "freighter"),
        speed_reductions=reductions,  # type: ignore[arg-type]
    )


def _proposals(doc: Mapping[str, Any], f: Path) -> Mapping[str, str]:
    node = _optional(doc, "proposals", Mapping, f, {})
    for path, reason in node.items():
        if not isinstance(reason, str):
            raise DataFileError(f, f"proposals.{path}", f"expected a reason string, got {reason!r}")
        target: Any = doc
        for part in str(path).split("."):
            if not isinstance(target, Mapping) or part not in target:
                raise DataFileError(f, f"proposals.{path}", "names no field of this sheet")
            target = target[part]
    return MappingProxyType({str(k): v for k, v in node.items()})


# --------------------------------------------------------------------------- small helpers


def _no_unknown_keys(node: Mapping[str, Any], allowed: set[str], f: Path, where: str) -> None:
    for name in node:
        if name not in allowed:
            field = f"{where}.{name}" if where else str(name)
            raise DataFileError(f, field, "unknown field")


def _check_count(value: Any, f: Path, field: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataFileError(f, field, f"expected int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise DataFileError(f, field, f"must be >= {minimum}, got {value}")
    return value


def _count(node: Mapping[str, Any], key: str, f: Path, where: str, minimum: int = 0) -> int:
    field = f"{where}.{key}" if where else key
    return _check_count(require(node, key, int, f, where), f, field, minimum)


def _optional(
    node: Mapping[str, Any], key: str, kind: type, f: Path, default: Any, where: str = ""
) -> Any:
    return require(node, key, kind, f, where) if key in node else default


def _optional_count(
    node: Mapping[str, Any], key: str, f: Path, minimum: int = 0, where: str = ""
) -> int | None:
    return _count(node, key, f, where, minimum) if key in node else None


def _fraction(value: int | str, f: Path, field: str) -> Fraction:
    """An int or a ``"p/q"`` string as an exact fraction."""
    if isinstance(value, int):
        return Fraction(value)
    try:
        return Fraction(value.strip())
    except (ValueError, ZeroDivisionError) as exc:
        raise DataFileError(f, field, f"expected an int or 'p/q', got {value!r}") from exc
