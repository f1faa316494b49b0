"""Scenario files: schema, validation and loading.

A scenario is YAML (``configs/scenarios/<name>.yaml``) or the same structure as a dict::

    name: cth-03                      # identifier
    title: Convoy Raid                # one line for list_scenarios()
    impulses_per_turn: 8              # 8, 16 or 32 (C1.41)
    map: A+B                          # a hexmap.MAP_AREAS name
    parity: even-down                 # optional
    turn_limit: null                  # turns, or null (no limit; the env may cap it)
    rules: {...}                      # see RULE_DEFAULTS
    sides: [klingon, convoy]          # side names
    units:                            # one entry per unit on the map at the start
      - {id: destruction, class: klingon-cadet, side: klingon, hex: "0104", facing: C,
         speed: 8, controller: agent}
      - {id: drone-A, class: drone, side: klingon, hex: "0109", facing: C, speed: 8,
         target: constellation, controller: robot-drone}
    victory: {kind: convoy_raid}      # see engine.victory

``class`` is a ship key of ``sfb_env.data.ships`` or one of ``drone`` / ``target-drone``.
``controller`` is ``agent`` or a robot name of ``engine.robots.ROBOTS``. Every error names the
file (or "<dict>") and the field, e.g. ``cth-03.yaml: field 'units[2].hex': ...``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sfb_env import hexmap, impulse
from sfb_env.data import DataFileError, load_data_file
from sfb_env.data.ships import UnknownShipError, load_ship
from sfb_env.engine.rules import (  # noqa: F401 - RULE_DEFAULTS, ScenarioError re-exported
    RULE_DEFAULTS,
    Rules,
    ScenarioError,
    load_rules,
)

SCENARIO_DIR = Path(__file__).resolve().parents[2] / "configs" / "scenarios"

SEEKING_CLASSES = ("drone", "target-drone")
CONTROLLERS = (
    "agent", "robot-drone", "target-drone", "convoy-freighter", "idle", "robot-ship", "stranded",
    "planet-killer",  # (scenario 11) the monster's own controller (engine.planet_killer)
)
MONSTER_CLASSES = ("planet-killer",)  # (scenario 11) UnitKind.MONSTER rows
TOP_LEVEL_KEYS = (
    "name", "title", "description", "impulses_per_turn", "map", "parity", "turn_limit",
    "rules", "sides", "units", "victory", "robots",
)
UNIT_KEYS = ("id", "name", "class", "side", "hex", "facing", "speed", "controller", "target",
             "kind", "crew_units", "crew_side")  # kind: planet (P2.0, engine.planets) and its
#   survivors (crew_units, crew_side)
UNIT_KEYS += ("arrives", "may_leave", "hold_fire_at")  # engine.unit_rules (scenario 8)
VICTORY_KINDS = (
    "battle_drill", "under_attack", "convoy_raid", "last_side_standing", "sandbox", "duel",
    "dakota_incident", "encounter",
    "planet_killer",  # (scenario 11) engine.victory
    "rescue",  # (scenario 9) engine.victory
)
VICTORY_KINDS += ("pirate_raid",)  # scenario 8 (engine.victory)

@dataclass(frozen=True)
class UnitSpec:
    """One unit of a scenario, validated."""

    id: str
    unit_class: str
    side: str
    hex: str
    facing: int
    speed: int
    controller: str
    target: str | None
    name: str
    kind: str = "unit"  # "planet" (P2.0): no class, side, facing or controller (engine.planets)
    crew_units: int = 0  # (G8.0) rescuable crew units on a planet (scenario 9 survivors)
    crew_side: str | None = None  # (G8.0) the side those crew units belong to (consent)
    arrives: tuple[str, int] | None = None  # enters the map later (engine.unit_rules):
    #   ("turn", n) on impulse 1 of turn n, or ("die", k) on the first turn a die rolls k
    may_leave: bool = True  # False: never leaves the map voluntarily (scenario 8)
    hold_fire_at: tuple[str, ...] = ()  # unit kinds it may never fire or launch at (scen. 8)


@dataclass(frozen=True)
class Scenario:
    """A validated scenario."""

    name: str
    title: str
    impulses_per_turn: int
    map_area: hexmap.MapArea
    map_name: str
    parity: str
    turn_limit: int | None
    rules: Rules
    sides: tuple[str, ...]
    units: tuple[UnitSpec, ...]
    victory: Mapping[str, Any]
    robots: Mapping[str, Any]
    source: str


def list_scenarios() -> dict[str, str]:
    """Scenario names shipped in ``configs/scenarios`` with their one-line titles."""
    out = {}
    for path in sorted(SCENARIO_DIR.glob("*.yaml")):
        doc = load_data_file(path)
        out[path.stem] = f"{doc.get('title', '')}: {doc.get('description', '')}".strip(": ")
    return out


def load_scenario(scenario: str | Path | Mapping[str, Any]) -> Scenario:
    """Load a scenario by name, YAML path or dict, and validate it."""
    if isinstance(scenario, Mapping):
        return parse_scenario(scenario, "<dict>")
    path = Path(scenario)
    if path.suffix not in (".yaml", ".yml"):
        path = SCENARIO_DIR / f"{scenario}.yaml"
        if not path.exists():
            known = ", ".join(sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml")))
            raise ScenarioError(str(scenario), "<name>", f"unknown scenario; known: {known}")
    try:
        doc = load_data_file(path)
    except DataFileError as exc:
        raise ScenarioError(path.name, exc.field, exc.problem) from exc
    return parse_scenario(doc, path.name)


def parse_scenario(doc: Any, source: str) -> Scenario:
    """Validate a scenario document."""
    if not isinstance(doc, Mapping):
        raise ScenarioError(source, "<root>", "expected a mapping")
    for key in doc:
        if key not in TOP_LEVEL_KEYS:
            raise ScenarioError(source, str(key), f"unknown field; expected {list(TOP_LEVEL_KEYS)}")

    def need(key: str, kind: type | tuple[type, ...]) -> Any:
        if key not in doc:
            raise ScenarioError(source, key, "missing")
        value = doc[key]
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            raise ScenarioError(source, key, f"expected {kind}, got {value!r}")
        if not isinstance(value, kind):
            raise ScenarioError(source, key, f"wrong type {type(value).__name__}: {value!r}")
        return value

    name = need("name", str)
    ipt = need("impulses_per_turn", int)
    try:
        impulse.check_impulses_per_turn(ipt)
    except ValueError as exc:
        raise ScenarioError(source, "impulses_per_turn", str(exc)) from None
    map_name = need("map", str)
    try:
        area = hexmap.map_area(map_name)
    except ValueError as exc:
        raise ScenarioError(source, "map", str(exc)) from None
    parity = doc.get("parity", "even-down")
    if parity not in hexmap.PARITIES:
        raise ScenarioError(source, "parity", f"unknown parity {parity!r}")
    turn_limit = doc.get("turn_limit")
    if turn_limit is not None and (
        isinstance(turn_limit, bool) or not isinstance(turn_limit, int) or turn_limit < 1
    ):
        raise ScenarioError(source, "turn_limit",
                            f"expected a positive integer or null, got {turn_limit!r}")
    rules = load_rules(doc.get("rules", {}), source, ipt)
    max_speed = rules.max_speed
    sides = tuple(need("sides", list))
    if not sides or not all(isinstance(s, str) for s in sides) or len(set(sides)) != len(sides):
        raise ScenarioError(source, "sides", "expected a list of distinct side names")
    raw_units = need("units", list)
    if not raw_units:
        raise ScenarioError(source, "units", "a scenario needs at least one unit, got []")
    units = []
    ids: set[str] = set()
    for i, raw in enumerate(raw_units):
        spec = _parse_unit(raw, i, source, sides, area, parity, max_speed, ipt)
        if spec.id in ids:
            raise ScenarioError(source, f"units[{i}].id", f"duplicate unit id {spec.id!r}")
        ids.add(spec.id)
        units.append(spec)
    for i, spec in enumerate(units):
        if spec.target is not None and spec.target not in ids:
            raise ScenarioError(source, f"units[{i}].target", f"unknown unit {spec.target!r}")
    victory = need("victory", dict)
    if victory.get("kind") not in VICTORY_KINDS:
        raise ScenarioError(source, "victory.kind", f"unknown {victory.get('kind')!r}; "
                            f"expected one of {list(VICTORY_KINDS)}")
    _check_victory_fields(victory, source, sides, ids)
    return Scenario(
        name=name,
        title=str(doc.get("title", name)),
        impulses_per_turn=ipt,
        map_area=area,
        map_name=map_name,
        parity=parity,
        turn_limit=turn_limit,
        rules=rules,
        sides=sides,
        units=tuple(units),
        victory=victory,
        robots=_robots(doc.get("robots", {}), source),
        source=source,
    )


# Victory fields naming a side or a unit, per kind (SCENARIOS #4).
VICTORY_FIELDS = {"dakota_incident": {"side": "side", "ship": "unit", "dakota": "unit"}}
VICTORY_FIELDS["pirate_raid"] = {"pirate": "side", "defender": "side"}  # scenario 8
VICTORY_FIELDS["rescue"] = {"rescuer": "side", "opponent": "side"}  # scenario 9


def _check_victory_fields(
    victory: Mapping[str, Any], source: str, sides: tuple[str, ...], ids: set[str]
) -> None:
    """The sides and units a victory kind names must exist."""
    for key, what in VICTORY_FIELDS.get(victory["kind"], {}).items():
        value = victory.get(key)
        known = sides if what == "side" else ids
        if value not in known:
            raise ScenarioError(source, f"victory.{key}", f"unknown {what} {value!r}; "
                                f"expected one of {sorted(known)}")


def _robots(raw: Any, source: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise ScenarioError(source, "robots", "expected a mapping of robot name -> settings")
    for key in raw:
        if key not in CONTROLLERS:
            raise ScenarioError(source, f"robots.{key}",
                                f"unknown robot; expected one of {list(CONTROLLERS)}")
    return dict(raw)


def _parse_unit(
    raw: Any,
    i: int,
    source: str,
    sides: tuple[str, ...],
    area: hexmap.MapArea,
    parity: str,
    max_speed: int,
    ipt: int,
) -> UnitSpec:
    where = f"units[{i}]"
    if not isinstance(raw, Mapping):
        raise ScenarioError(source, where, "expected a mapping")
    for key in raw:
        if key not in UNIT_KEYS:
            raise ScenarioError(source, f"{where}.{key}",
                                f"unknown field; expected {list(UNIT_KEYS)}")
    if raw.get("kind", "unit") != "unit":
        return parse_planet(raw, where, source, area, ScenarioError, UnitSpec, sides)
    if "crew_units" in raw:
        raise ScenarioError(source, f"{where}.crew_units",
                            "crew units are placed on a planet (kind: planet) only")
    for key in ("id", "class", "side", "hex", "facing", "controller"):
        if key not in raw:
            raise ScenarioError(source, f"{where}.{key}", "missing")
        if not isinstance(raw[key], str):
            raise ScenarioError(source, f"{where}.{key}", f"expected a string, got {raw[key]!r}")
    unit_class = raw["class"]
    if unit_class not in SEEKING_CLASSES + MONSTER_CLASSES:
        try:
            load_ship(unit_class)
        except UnknownShipError as exc:
            raise ScenarioError(source, f"{where}.class", str(exc)) from None
    if raw["side"] not in sides:
        raise ScenarioError(source, f"{where}.side",
                            f"unknown side {raw['side']!r}; sides: {list(sides)}")
    check_hex(raw["hex"], f"{where}.hex", source, area)
    try:
        facing = hexmap.direction_index(raw["facing"])
    except ValueError as exc:
        raise ScenarioError(source, f"{where}.facing", str(exc)) from None
    speed = raw.get("speed", 0)
    limit = ipt if unit_class in SEEKING_CLASSES + MONSTER_CLASSES else max_speed
    if isinstance(speed, bool) or not isinstance(speed, int) or not 0 <= speed <= limit:
        raise ScenarioError(source, f"{where}.speed", f"speed {speed!r} outside 0..{limit} (C1.42)")
    if raw["controller"] not in CONTROLLERS:
        raise ScenarioError(source, f"{where}.controller",
                            f"unknown controller {raw['controller']!r}; "
                            f"expected one of {list(CONTROLLERS)}")
    target = raw.get("target")
    if unit_class == "drone" and target is None:
        raise ScenarioError(source, f"{where}.target", "a drone needs a target (FD1.3)")
    return UnitSpec(
        id=raw["id"],
        unit_class=unit_class,
        side=raw["side"],
        hex=raw["hex"],
        facing=facing,
        speed=speed,
        controller=raw["controller"],
        target=target,
        name=str(raw.get("name", raw["id"])),
        **_unit_rules(raw, where, source),
    )


HOLD_FIRE_KINDS = ("ship", "freighter", "drone", "plasma", "fighter", "shuttle")


def check_hex(label: Any, field: str, source: str, area: hexmap.MapArea) -> None:
    """A unit's hex: a hex label inside the map area, else a ``ScenarioError`` naming
    ``field`` (ships, seeking weapons and planets)."""
    try:
        hexmap.parse_label(label)
    except ValueError as exc:
        raise ScenarioError(source, field, str(exc)) from None
    if not area.contains(label):
        raise ScenarioError(source, field, f"hex {label} is outside the map area")


def _unit_rules(raw: Mapping[str, Any], where: str, source: str) -> dict[str, Any]:
    """The unit fields of ``engine.unit_rules``: ``arrives`` ({turn: n >= 1} or {die: 1..6}),
    ``may_leave`` (bool) and ``hold_fire_at`` (a list of unit kinds)."""
    out: dict[str, Any] = {}
    arrives = raw.get("arrives")
    if arrives is not None:
        ok = isinstance(arrives, Mapping) and len(arrives) == 1
        key, value = next(iter(arrives.items())) if ok else (None, None)
        top = 6 if key == "die" else 10**6
        if (key not in ("turn", "die") or isinstance(value, bool) or not isinstance(value, int)
                or not 1 <= value <= top):
            raise ScenarioError(source, f"{where}.arrives",
                                f"expected {{turn: n >= 1}} or {{die: 1..6}}, got {arrives!r}")
        out["arrives"] = (key, value)
    may_leave = raw.get("may_leave", True)
    if not isinstance(may_leave, bool):
        raise ScenarioError(source, f"{where}.may_leave", f"expected true or false, got "
                            f"{may_leave!r}")
    out["may_leave"] = may_leave
    kinds = raw.get("hold_fire_at", [])
    if not isinstance(kinds, list) or any(k not in HOLD_FIRE_KINDS for k in kinds):
        raise ScenarioError(source, f"{where}.hold_fire_at",
                            f"expected a list of {list(HOLD_FIRE_KINDS)}, got {kinds!r}")
    out["hold_fire_at"] = tuple(kinds)
    return out


# ---------------------------------------------------------------------- planets (P2.0)


PLANET_CLASS = "planet"  # (P2.0) the UnitSpec class of a planet row (``kind: planet``)
PLANET_CONTROLLER = "planet"  # a planet never moves or fires
PLANET_KEYS = ("id", "name", "kind", "hex", "crew_units", "crew_side")


def parse_planet(raw: Mapping[str, Any], where: str, source: str, area: hexmap.MapArea,
                 error: type, spec: type, sides: tuple[str, ...] = ()):
    """A scenario unit with ``kind: planet`` as a ``UnitSpec`` (class ``planet``, no side;
    ``crew_side``: the side its crew units belong to); ``error`` is ``ScenarioError``, naming
    the file and the field."""
    kind = raw.get("kind")
    if kind != PLANET_CLASS:
        raise error(source, f"{where}.kind", f"unknown unit kind {kind!r}; expected 'planet' "
                    "(P2.0) or no kind (a ship, freighter or seeking weapon with a class)")
    for key in raw:
        if key not in PLANET_KEYS:
            raise error(source, f"{where}.{key}", f"P2.0 a planet takes only {list(PLANET_KEYS)}"
                        " (it has no class, side, facing, speed or controller)")
    for key in ("id", "hex"):
        if not isinstance(raw.get(key), str):
            raise error(source, f"{where}.{key}", f"expected a string, got {raw.get(key)!r}")
    check_hex(raw["hex"], f"{where}.hex", source, area)
    crew = raw.get("crew_units", 0)
    if isinstance(crew, bool) or not isinstance(crew, int) or crew < 0:
        raise error(source, f"{where}.crew_units",
                    f"G8.0 crew units (10 people each) are an integer >= 0, got {crew!r}")
    crew_side = raw.get("crew_side")
    if crew_side is not None and crew_side not in sides:
        raise error(source, f"{where}.crew_side",
                    f"unknown side {crew_side!r}; sides: {list(sides)}")
    return spec(id=raw["id"], unit_class=PLANET_CLASS, side="", hex=raw["hex"], facing=0,
                speed=0, controller=PLANET_CONTROLLER, target=None,
                name=str(raw.get("name", raw["id"])),
                kind=PLANET_CLASS, crew_units=crew, crew_side=crew_side)
