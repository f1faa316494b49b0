"""The chart files of CTH-DATA.md, validated on load and compiled to read-only numpy lookup arrays.

``load_weapons``, ``load_turn_modes``, ``load_damage_allocation`` and ``load_misc_charts`` each read
one YAML file (``path`` overrides the packaged file) and cache the result per path. Range charts are
compiled to one column per integer range, so engine code indexes them by range, die or speed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from sfb_env.data import (
    DATA_DIR,
    DataFileError,
    check_int_list,
    load_data_file,
    require,
    require_choice,
    require_int_list,
)

CONFIDENCE = ("HIGH", "MEDIUM", "LOW", "PROPOSAL")  # [P-001]
DICE = range(1, 7)
TWO_DICE = range(2, 13)
ESG_RADII = range(0, 4)
ESG_MAX_ENERGY = 5
BOARDING_MAX_GROUP = 10
LAB_MAX_RANGE = 10

_BRACKET = re.compile(r"^(\d+)(?:-(\d+)|(\+))?$")
Bracket = tuple[int, int | None]  # inclusive (low, high); high None = open-ended


class Provenance(NamedTuple):
    """Where a chart comes from: a CTH-DATA confidence tag and its source tags (or ``proposal``)."""

    confidence: str
    source: str


class Drone(NamedTuple):
    """One drone type (FD1.0; CTH-DATA 12.3 for the non-CTH types)."""

    rack_spaces: float
    to_destroy: int
    warhead_cadet: int
    warhead_full_size: int
    endurance_turns: int
    provenance: Provenance


@dataclass(frozen=True)
class HitChart:
    """Hit/miss weapon: hits if die <= ``hit_number[effective range]``; ``damage[true range]``."""

    hit_number: np.ndarray  # int16[max_range + 1]; 0 where it cannot hit (below min_range, PPD 0-3)
    damage: np.ndarray  # int16[max_range + 1]
    min_range: int

    @property
    def max_range(self) -> int:
        return len(self.damage) - 1


@dataclass(frozen=True)
class PPDChart(HitChart):
    """The PPD chart (E11.0): ``hit_number`` is for 2d6; splash and alt by true range."""

    splash: np.ndarray  # int16[max_range + 1, 3]: left-adjacent, facing, right-adjacent shield
    alt: np.ndarray  # int16[max_range + 1, 2]: the two shields of an exact boundary


@dataclass(frozen=True)
class Weapons:
    """``weapons.yaml`` compiled."""

    phasers: dict[str, np.ndarray]  # kind -> int16[6, max_range + 1], index [die - 1, range]
    fusion: np.ndarray  # int16[6, 25], index [die - 1, range]
    disruptor: HitChart
    disruptor_not_cth: tuple[Bracket, ...]  # range brackets not in the CTH chart (31-40)
    disruptor_max_range: int  # CTH default (E3.32)
    disruptor_max_range_by_hull: dict[str, int]
    photon: HitChart
    ppd: PPDChart
    plasma: dict[str, np.ndarray]  # kind -> int16[n]: warhead by hexes; last cell = n - 1 and up
    plasma_endurance: dict[str, int]  # hexes; kinds without an adopted value are absent
    drone_rack_capacity: int
    drones: dict[str, Drone]
    esg: np.ndarray  # int16[4, 5], index [radius, energy - 1]
    provenance: dict[str, Provenance]


@dataclass(frozen=True)
class TurnModes:
    """``turn_modes.yaml`` compiled: chart -> int16[max_speed + 1] turn mode, -1 off the chart."""

    charts: dict[str, np.ndarray]
    max_speed: int
    provenance: dict[str, Provenance]


@dataclass(frozen=True)
class DamageAllocation:
    """``damage_allocation.yaml`` compiled."""

    cadet: np.ndarray  # int16[6, 5], index [die - 1, column A..E] -> cadet_categories
    cadet_categories: tuple[str, ...]
    cadet_boxes: dict[str, tuple[str, ...]]  # category -> SSD box labels
    standard: np.ndarray  # int16[11, 13], index [roll - 2, column A..M] -> standard_systems
    standard_bold: np.ndarray  # bool[11, 13]
    standard_systems: tuple[str, ...]
    provenance: dict[str, Provenance]


@dataclass(frozen=True)
class MiscCharts:
    """``misc_charts.yaml`` compiled."""

    quarter_turn: dict[int, int]  # impulses per turn -> impulses per quarter turn
    boarding_party: np.ndarray  # int16[6, 10], index [die - 1, group size - 1]
    lab: np.ndarray  # int16[6, 11], index [die - 1, range]
    planet_killer: np.ndarray  # int16[6], index [die - 1]
    planet_killer_max_range: int
    provenance: dict[str, Provenance]


# ---------------------------------------------------------------- validation helpers


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _provenance(node: Any, file: Path, where: str) -> Provenance:
    confidence = require_choice(node, "confidence", CONFIDENCE, file, where)
    source = require(node, "source", str, file, where)
    if confidence == "PROPOSAL" and source != "proposal":  # [P-001]
        raise DataFileError(file, f"{where}.source", "a PROPOSAL value needs source 'proposal'")  # [P-001]  # noqa: E501
    return Provenance(confidence, source)


def _chart(root: Any, name: str, file: Path, prov: dict[str, Provenance]) -> Any:
    """The top-level chart ``name`` of ``root``, its provenance recorded in ``prov``."""
    node = require(root, name, dict, file, "")
    prov[name] = _provenance(node, file, name)
    return node


def _brackets(items: list[tuple[Any, str]], file: Path, start: int | None) -> list[Bracket]:
    """Parse ``(label, field)`` pairs into contiguous brackets from ``start`` (any if None)."""
    out: list[Bracket] = []
    for i, (label, field) in enumerate(items):
        ok = isinstance(label, (int, str)) and not isinstance(label, bool)
        match = _BRACKET.match(str(label)) if ok else None
        if match is None:
            raise DataFileError(file, field, f"expected a range (3, '6-8', '31+'), got {label!r}")
        low = int(match[1])
        high = None if match[3] else int(match[2] or low)
        if start is not None and low != start:
            raise DataFileError(file, field, f"bracket {label!r} must start at {start}")
        if high is not None and high < low:
            raise DataFileError(file, field, f"bracket {label!r} ends before it starts")
        if high is None and i < len(items) - 1:
            raise DataFileError(file, field, "only the last bracket may be open-ended")
        out.append((low, high))
        start = (low if high is None else high) + 1
    return out


def _label_list(node: Any, key: str, file: Path, where: str, start: int | None) -> list[Bracket]:
    labels = require(node, key, list, file, where)
    field = f"{where}.{key}"
    if not labels:
        raise DataFileError(file, field, "no brackets")
    return _brackets([(v, f"{field}[{i}]") for i, v in enumerate(labels)], file, start)


def _by_range(brackets: list[Bracket], values: np.ndarray, size: int, fill: int = 0) -> np.ndarray:
    """Spread per-bracket ``values`` (bracket axis first) over 0..size-1; ``fill`` elsewhere."""
    out = np.full((size, *values.shape[1:]), fill, dtype=np.int16)
    for j, (low, high) in enumerate(brackets):
        out[low : size if high is None else high + 1] = values[j]
    return out


def _keyed(node: Any, key: str, keys: range, file: Path, where: str) -> list[tuple[Any, str]]:
    """(value, field) of the mapping ``node[key]``, keyed exactly by ``keys``, in key order."""
    rows = require(node, key, dict, file, where)
    field = f"{where}.{key}"
    if set(rows) != set(keys) or any(isinstance(k, bool) for k in rows):
        expected = f"{keys.start}..{keys.stop - 1}"
        raise DataFileError(file, field, f"expected keys {expected}, got {list(rows)}")
    return [(rows[k], f"{field}[{k}]") for k in keys]


def _int_rows(node: Any, key: str, keys: range, length: int, file: Path, where: str) -> np.ndarray:
    rows = _keyed(node, key, keys, file, where)
    return np.array(
        [check_int_list(v, file, f, length=length, minimum=0) for v, f in rows], dtype=np.int16
    )


def _int_pairs(node: Any, key: str, length: int, width: int, file: Path, where: str) -> np.ndarray:
    """A list of ``length`` lists of ``width`` non-negative ints."""
    rows = require(node, key, list, file, where)
    field = f"{where}.{key}"
    if len(rows) != length:
        raise DataFileError(file, field, f"expected {length} entries, got {len(rows)}")
    checked = [
        check_int_list(v, file, f"{field}[{i}]", length=width, minimum=0)
        for i, v in enumerate(rows)
    ]
    return np.array(checked, dtype=np.int16)


def _str_list(
    values: Any, file: Path, field: str, length: int | None, allowed: tuple[str, ...] | None = None
) -> list[str]:
    """Strings, ``length`` of them if given, each (less a trailing *) in ``allowed`` if given."""
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise DataFileError(file, field, f"expected a list of strings, got {values!r}")
    if length is not None and len(values) != length:
        raise DataFileError(file, field, f"expected {length} entries, got {len(values)}")
    unknown = [v for v in values if allowed is not None and v.rstrip("*") not in allowed]
    if unknown:
        raise DataFileError(
            file, field, f"unknown {unknown}; expected one of {list(allowed or ())}"
        )
    return values


def _positive_int(node: Any, key: str, file: Path, where: str) -> int:
    value = require(node, key, int, file, where)
    if value < 1:
        raise DataFileError(file, f"{where}.{key}", f"must be >= 1, got {value}")
    return value


def _path(path: str | Path | None, name: str) -> Path:
    return DATA_DIR / name if path is None else Path(path)


# ---------------------------------------------------------------- weapons.yaml


def _die_chart(node: Any, file: Path, where: str) -> np.ndarray:
    """A phaser-type chart (die rows x range brackets) as int16[6, max_range + 1]."""
    brackets = _label_list(node, "brackets", file, where, 0)
    if brackets[-1][1] is None:
        raise DataFileError(file, f"{where}.brackets", "a range chart needs a maximum range")
    rows = _int_rows(node, "rows", DICE, len(brackets), file, where)
    return _frozen(_by_range(brackets, rows.T, brackets[-1][1] + 1).T)


def _banded(
    node: Any, file: Path, where: str, widths: dict[str, int]
) -> tuple[list[Bracket], dict[str, np.ndarray]]:
    """Per-bracket fields of a hit/miss chart spread over ranges 0..max (width 0 = one int each)."""
    min_range = require(node, "min_range", int, file, where) if "min_range" in node else 0
    brackets = _label_list(node, "brackets", file, where, min_range)
    if brackets[-1][1] is None:
        raise DataFileError(file, f"{where}.brackets", "a range chart needs a maximum range")
    out = {}
    for name, width in widths.items():
        if width:
            values = _int_pairs(node, name, len(brackets), width, file, where)
        else:
            values = np.array(
                require_int_list(node, name, file, where, length=len(brackets), minimum=0),
                dtype=np.int16,
            )
        out[name] = _frozen(_by_range(brackets, values, brackets[-1][1] + 1))
    return brackets, out


def _hit_chart(node: Any, file: Path, where: str) -> tuple[HitChart, list[Bracket]]:
    brackets, arrays = _banded(node, file, where, {"hit": 0, "damage": 0})
    return HitChart(arrays["hit"], arrays["damage"], brackets[0][0]), brackets


def _plasma(node: Any, file: Path, prov: dict[str, Provenance]) -> tuple[dict, dict]:
    brackets = _label_list(node, "brackets", file, "plasma", 0)
    if brackets[-1][1] is not None:
        raise DataFileError(file, "plasma.brackets", "the last bracket must be open-ended ('31+')")
    warheads, endurance = {}, {}
    for kind, spec in require(node, "kinds", dict, file, "plasma").items():
        where = f"plasma.kinds.{kind}"
        prov[f"plasma-{kind}"] = _provenance(spec, file, where)
        values = require_int_list(spec, "warhead", file, where, length=len(brackets), minimum=0)
        warheads[kind] = _frozen(_by_range(brackets, np.array(values), brackets[-1][0] + 1))
        if "endurance" in spec:
            spec_e = require(spec, "endurance", dict, file, where)
            prov[f"plasma-{kind}.endurance"] = _provenance(spec_e, file, f"{where}.endurance")
            endurance[kind] = _positive_int(spec_e, "hexes", file, f"{where}.endurance")
    return warheads, endurance


def _drones(node: Any, file: Path, prov: dict[str, Provenance]) -> dict[str, Drone]:
    drones = {}
    for kind, spec in require(node, "types", dict, file, "drones").items():
        where = f"drones.types.{kind}"
        prov[f"drone-{kind}"] = _provenance(spec, file, where)
        spaces = require(spec, "rack_spaces", (int, float), file, where)
        if spaces <= 0:
            raise DataFileError(file, f"{where}.rack_spaces", f"must be > 0, got {spaces}")
        counts = [
            _positive_int(spec, k, file, where)
            for k in ("to_destroy", "warhead_cadet", "warhead_full_size", "endurance_turns")
        ]
        drones[str(kind)] = Drone(spaces, *counts, prov[f"drone-{kind}"])
    return drones


def _disruptor_ranges(
    node: Any, file: Path, chart: HitChart
) -> tuple[int, dict[str, int], Provenance]:
    where = "disruptor.max_range"
    spec = require(node, "max_range", dict, file, "disruptor")
    prov = _provenance(spec, file, where)

    def checked(value: Any, field: str) -> int:
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not 0 < value <= chart.max_range
        ):
            raise DataFileError(file, field, f"expected an int 1..{chart.max_range}, got {value!r}")
        return value

    default = checked(require(spec, "default", int, file, where), f"{where}.default")
    hulls = require(spec, "by_hull_class", dict, file, where)
    by_hull = {str(k): checked(v, f"{where}.by_hull_class.{k}") for k, v in hulls.items()}
    return default, by_hull, prov


@lru_cache(maxsize=8)
def load_weapons(path: str | Path | None = None) -> Weapons:
    """Load ``weapons.yaml``: phasers, fusion, disruptor, photon, PPD, plasma, drones, ESG."""
    file = _path(path, "weapons.yaml")
    root = load_data_file(file)
    prov: dict[str, Provenance] = {}

    phasers, aliases = {}, {}
    for kind, spec in require(root, "phasers", dict, file, "").items():
        where = f"phasers.{kind}"
        prov[str(kind)] = _provenance(spec, file, where)
        if "same_as" in spec:  # (E2.152) phaser-G uses the phaser-3 table
            aliases[str(kind)] = require(spec, "same_as", str, file, where)
        else:
            phasers[str(kind)] = _die_chart(spec, file, where)
    for kind, target in aliases.items():
        if target not in phasers:
            raise DataFileError(file, f"phasers.{kind}.same_as", f"unknown chart {target!r}")
        phasers[kind] = phasers[target]

    fusion = _die_chart(_chart(root, "fusion", file, prov), file, "fusion")

    disruptor_node = _chart(root, "disruptor", file, prov)
    disruptor, chart_brackets = _hit_chart(disruptor_node, file, "disruptor")
    not_cth_node = require(disruptor_node, "not_cth", dict, file, "disruptor")
    prov["disruptor.not_cth"] = _provenance(not_cth_node, file, "disruptor.not_cth")
    not_cth = tuple(_label_list(not_cth_node, "brackets", file, "disruptor.not_cth", None))
    if not set(not_cth) <= set(chart_brackets):
        raise DataFileError(file, "disruptor.not_cth.brackets", "not a disruptor chart bracket")
    default_range, by_hull, prov["disruptor.max_range"] = _disruptor_ranges(
        disruptor_node, file, disruptor
    )

    photon, _ = _hit_chart(_chart(root, "photon", file, prov), file, "photon")

    ppd_node = _chart(root, "ppd", file, prov)
    brackets, arrays = _banded(
        ppd_node, file, "ppd", {"hit": 0, "damage": 0, "splash": 3, "alt": 2}
    )
    ppd = PPDChart(arrays["hit"], arrays["damage"], brackets[0][0], arrays["splash"], arrays["alt"])

    plasma, endurance = _plasma(require(root, "plasma", dict, file, ""), file, prov)

    drones_node = require(root, "drones", dict, file, "")
    rack_capacity = _positive_int(drones_node, "rack_capacity", file, "drones")
    drones = _drones(drones_node, file, prov)

    esg_node = _chart(root, "esg", file, prov)
    esg = _frozen(_int_rows(esg_node, "rows", ESG_RADII, ESG_MAX_ENERGY, file, "esg"))

    return Weapons(
        phasers=phasers,
        fusion=fusion,
        disruptor=disruptor,
        disruptor_not_cth=not_cth,
        disruptor_max_range=default_range,
        disruptor_max_range_by_hull=by_hull,
        photon=photon,
        ppd=ppd,
        plasma=plasma,
        plasma_endurance=endurance,
        drone_rack_capacity=rack_capacity,
        drones=drones,
        esg=esg,
        provenance=prov,
    )


# ---------------------------------------------------------------- turn_modes.yaml


def _speed_items(node: Any, file: Path, where: str) -> list[tuple[int, Any, str]]:
    """``speeds`` of one chart as (turn mode, bracket label, field) in file order."""
    speeds = require(node, "speeds", dict, file, where)
    items = []
    for mode, label in speeds.items():
        field = f"{where}.speeds[{mode}]"
        if isinstance(mode, bool) or not isinstance(mode, int) or mode < 0:
            raise DataFileError(file, field, f"turn mode must be an int >= 0, got {mode!r}")
        items.append((mode, label, field))
    if not items:
        raise DataFileError(file, f"{where}.speeds", "empty chart")
    return items


def _speed_chart(items: list[tuple[int, Any, str]], max_speed: int, file: Path) -> np.ndarray:
    brackets = _brackets([(label, field) for _, label, field in items], file, None)
    last_low, last_high = brackets[-1]
    if (last_low if last_high is None else last_high) > max_speed:
        raise DataFileError(file, items[-1][2], f"bracket beyond max_speed {max_speed}")
    modes = np.array([mode for mode, _, _ in items], dtype=np.int16)
    return _frozen(_by_range(brackets, modes, max_speed + 1, fill=-1))


@lru_cache(maxsize=8)
def load_turn_modes(path: str | Path | None = None) -> TurnModes:
    """Load ``turn_modes.yaml``; cadet charts get the 17-31 proposal, classes the speed 0-1 one."""
    file = _path(path, "turn_modes.yaml")
    root = load_data_file(file)
    max_speed = _positive_int(root, "max_speed", file, "")
    prov: dict[str, Provenance] = {}
    charts: dict[str, np.ndarray] = {}

    def add(group: str, before: list, after: list) -> None:
        for name, spec in require(root, group, dict, file, "").items():
            where = f"{group}.{name}"
            if name in charts:
                raise DataFileError(file, where, "chart name used twice")
            prov[str(name)] = _provenance(spec, file, where)
            items = before + _speed_items(spec, file, where) + after
            charts[str(name)] = _speed_chart(items, max_speed, file)

    extras = {
        group: _speed_items(_chart(root, group, file, prov), file, group)
        for group in ("cadet_extension", "class_low_speed")
    }
    add("cadet", [], extras["cadet_extension"])
    add("classes", extras["class_low_speed"], [])
    add("other", [], [])
    return TurnModes(charts, max_speed, prov)


# ---------------------------------------------------------------- damage_allocation.yaml


@lru_cache(maxsize=8)
def load_damage_allocation(path: str | Path | None = None) -> DamageAllocation:
    """Load ``damage_allocation.yaml``: the cadet 1d6 and the standard 2d6 DAC (D4.21)."""
    file = _path(path, "damage_allocation.yaml")
    root = load_data_file(file)
    prov: dict[str, Provenance] = {}

    cadet_node = _chart(root, "cadet", file, prov)
    boxes_node = require(cadet_node, "categories", dict, file, "cadet")
    boxes = {
        str(name): tuple(_str_list(v, file, f"cadet.categories.{name}", None))
        for name, v in boxes_node.items()
    }
    categories = tuple(boxes)
    cadet_rows = [
        [categories.index(c) for c in _str_list(v, file, f, 5, categories)]
        for v, f in _keyed(cadet_node, "rows", DICE, file, "cadet")
    ]

    std_node = _chart(root, "standard", file, prov)
    prov["standard.bold"] = _provenance(
        require(std_node, "bold", dict, file, "standard"), file, "standard.bold"
    )
    systems_list = require(std_node, "systems", list, file, "standard")
    systems = tuple(_str_list(systems_list, file, "standard.systems", None))
    rows = _keyed(std_node, "rows", TWO_DICE, file, "standard")
    cells = [_str_list(v, file, f, 13, systems) for v, f in rows]
    return DamageAllocation(
        cadet=_frozen(np.array(cadet_rows, dtype=np.int16)),
        cadet_categories=categories,
        cadet_boxes=boxes,
        standard=_frozen(
            np.array([[systems.index(c.rstrip("*")) for c in row] for row in cells], dtype=np.int16)
        ),
        standard_bold=_frozen(np.array([[c.endswith("*") for c in row] for row in cells])),
        standard_systems=systems,
        provenance=prov,
    )


# ---------------------------------------------------------------- misc_charts.yaml


@lru_cache(maxsize=8)
def load_misc_charts(path: str | Path | None = None) -> MiscCharts:
    """Load ``misc_charts.yaml``: quarter turn, boarding parties, labs, Planet Killer."""
    file = _path(path, "misc_charts.yaml")
    root = load_data_file(file)
    prov: dict[str, Provenance] = {}

    quarter_node = _chart(root, "quarter_turn", file, prov)
    impulses = require(quarter_node, "impulses", dict, file, "quarter_turn")
    quarter = {}
    for per_turn, per_quarter in impulses.items():
        pair = (per_turn, per_quarter)
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in pair):
            field = f"quarter_turn.impulses[{per_turn}]"
            raise DataFileError(
                file, field, f"expected positive ints, got {per_turn!r}: {per_quarter!r}"
            )
        quarter[per_turn] = per_quarter

    boarding_node = _chart(root, "boarding_party", file, prov)
    boarding = _int_rows(boarding_node, "rows", DICE, BOARDING_MAX_GROUP, file, "boarding_party")
    lab = _int_rows(_chart(root, "lab", file, prov), "rows", DICE, LAB_MAX_RANGE + 1, file, "lab")
    pk_node = _chart(root, "planet_killer", file, prov)
    pk = require_int_list(pk_node, "damage", file, "planet_killer", length=len(DICE), minimum=0)
    return MiscCharts(
        quarter_turn=quarter,
        boarding_party=_frozen(boarding),
        lab=_frozen(lab),
        planet_killer=_frozen(np.array(pk, dtype=np.int16)),
        planet_killer_max_range=_positive_int(pk_node, "max_range", file, "planet_killer"),
        provenance=prov,
    )
