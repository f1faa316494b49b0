"""Chart data files load; a broken copy raises DataFileError naming the file and the field."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from sfb_env.data import DATA_DIR, DataFileError, load_data_file
from sfb_env.data.charts import (
    load_damage_allocation,
    load_misc_charts,
    load_turn_modes,
    load_weapons,
)
from sfb_env.engine.scenario import SCENARIO_DIR

LOADERS: dict[str, Callable[..., Any]] = {
    "weapons.yaml": load_weapons,
    "turn_modes.yaml": load_turn_modes,
    "damage_allocation.yaml": load_damage_allocation,
    "misc_charts.yaml": load_misc_charts,
}


def at(doc: Any, path: str) -> tuple[Any, Any]:
    """(parent, key) of a dotted ``path``; integer-looking parts index lists and int-keyed maps."""
    parts = path.split(".")
    node = doc
    for part in parts[:-1]:
        node = node[_key(node, part)]
    return node, _key(node, parts[-1])


def _key(node: Any, part: str) -> Any:
    return (
        int(part)
        if part.lstrip("-").isdigit() and (isinstance(node, list) or int(part) in node)
        else part
    )


def delete(path: str) -> Callable[[Any], None]:
    def mutate(doc: Any) -> None:
        parent, key = at(doc, path)
        del parent[key]

    return mutate


def put(path: str, value: Any) -> Callable[[Any], None]:
    def mutate(doc: Any) -> None:
        parent, key = at(doc, path)
        parent[key] = value

    return mutate


def drop_last(path: str) -> Callable[[Any], None]:
    def mutate(doc: Any) -> None:
        parent, key = at(doc, path)
        parent[key] = parent[key][:-1]

    return mutate


# (file, mutation, field named in the error)
BROKEN = [
    # weapons.yaml
    ("weapons.yaml", delete("phasers.ph-1.rows"), "phasers.ph-1.rows"),
    (
        "weapons.yaml",
        put("phasers.ph-2.rows.3", ["6", 4, 4, 4, 1, 1, 0, 0]),
        "phasers.ph-2.rows[3]",
    ),
    ("weapons.yaml", drop_last("phasers.ph-1.rows.1"), "phasers.ph-1.rows[1]"),
    ("weapons.yaml", delete("phasers.ph-3.rows.6"), "phasers.ph-3.rows"),
    ("weapons.yaml", put("phasers.ph-3.brackets.4", "5-8"), "phasers.ph-3.brackets[4]"),
    ("weapons.yaml", put("phasers.ph-3.brackets.5", "9+"), "phasers.ph-3.brackets"),
    ("weapons.yaml", put("phasers.ph-1.brackets.6", "six"), "phasers.ph-1.brackets[6]"),
    ("weapons.yaml", put("phasers.ph-g.same_as", "ph-9"), "phasers.ph-g.same_as"),
    ("weapons.yaml", put("phasers.ph-1.confidence", "SURE"), "phasers.ph-1.confidence"),
    ("weapons.yaml", delete("phasers.ph-2.source"), "phasers.ph-2.source"),
    ("weapons.yaml", put("fusion.rows.2", [11, 8, 5, 3, 2, -1]), "fusion.rows[2]"),
    ("weapons.yaml", drop_last("disruptor.hit"), "disruptor.hit"),
    ("weapons.yaml", put("disruptor.damage", "5 4 4 3 2 2 1"), "disruptor.damage"),
    ("weapons.yaml", put("disruptor.min_range", "1"), "disruptor.min_range"),
    ("weapons.yaml", put("disruptor.not_cth.brackets", ["30-40"]), "disruptor.not_cth.brackets"),
    (
        "weapons.yaml",
        put("disruptor.max_range.by_hull_class.DN", 50),
        "disruptor.max_range.by_hull_class.DN",
    ),
    ("weapons.yaml", put("disruptor.max_range.default", True), "disruptor.max_range.default"),
    ("weapons.yaml", put("photon.brackets.0", 1), "photon.brackets[0]"),
    ("weapons.yaml", put("ppd.splash.2", [1, 3]), "ppd.splash[2]"),
    ("weapons.yaml", drop_last("ppd.alt"), "ppd.alt"),
    ("weapons.yaml", put("plasma.kinds.S.warhead.3", "22"), "plasma.kinds.S.warhead"),
    ("weapons.yaml", put("plasma.brackets.14", 31), "plasma.brackets"),
    ("weapons.yaml", put("plasma.kinds.F.endurance.hexes", 0), "plasma.kinds.F.endurance.hexes"),
    ("weapons.yaml", delete("plasma.kinds.S.endurance.source"), "plasma.kinds.S.endurance.source"),
    ("weapons.yaml", put("drones.types.C-1.to_destroy", "four"), "drones.types.C-1.to_destroy"),
    ("weapons.yaml", put("drones.types.C6.rack_spaces", 0), "drones.types.C6.rack_spaces"),
    ("weapons.yaml", put("drones.types.C4.source", "[CTH]"), "drones.types.C4.source"),
    ("weapons.yaml", delete("drones.rack_capacity"), "drones.rack_capacity"),
    ("weapons.yaml", drop_last("esg.rows.2"), "esg.rows[2]"),
    ("weapons.yaml", put("esg.rows", [[4, 8, 12, 16, 20]]), "esg.rows"),
    # turn_modes.yaml
    ("turn_modes.yaml", delete("cadet.fed-cadet.speeds"), "cadet.fed-cadet.speeds"),
    ("turn_modes.yaml", put("cadet.fed-cadet.speeds.2", "8-16"), "cadet.fed-cadet.speeds[2]"),
    ("turn_modes.yaml", put("cadet.gorn-cadet.speeds.2", 7.5), "cadet.gorn-cadet.speeds[2]"),
    ("turn_modes.yaml", put("cadet_extension.speeds.3", "18-24"), "cadet_extension.speeds[3]"),
    ("turn_modes.yaml", put("classes.AA.speeds.4", "25-40"), "classes.AA.speeds[4]"),
    ("turn_modes.yaml", put("classes.D.speeds.2", "5+"), "classes.D.speeds[2]"),
    ("turn_modes.yaml", put("max_speed", "32"), "max_speed"),
    ("turn_modes.yaml", put("cadet.isc-cadet.source", "[CTH]"), "cadet.isc-cadet.source"),
    ("turn_modes.yaml", put("other.stinger.speeds", {}), "other.stinger.speeds"),
    (
        "turn_modes.yaml",
        put("other.D", {"confidence": "HIGH", "source": "x", "speeds": {1: "0+"}}),
        "other.D",
    ),
    # damage_allocation.yaml
    ("damage_allocation.yaml", put("cadet.rows.3.0", "Hul"), "cadet.rows[3]"),
    ("damage_allocation.yaml", drop_last("cadet.rows.4"), "cadet.rows[4]"),
    ("damage_allocation.yaml", delete("cadet.rows.6"), "cadet.rows"),
    ("damage_allocation.yaml", put("cadet.categories.WPN", "Ph-1"), "cadet.categories.WPN"),
    ("damage_allocation.yaml", drop_last("standard.rows.7"), "standard.rows[7]"),
    ("damage_allocation.yaml", put("standard.rows.5.11", "Any Wepon"), "standard.rows[5]"),
    ("damage_allocation.yaml", put("standard.rows.9.0", 9), "standard.rows[9]"),
    ("damage_allocation.yaml", delete("standard.bold"), "standard.bold"),
    (
        "damage_allocation.yaml",
        put("standard.bold.confidence", "maybe"),
        "standard.bold.confidence",
    ),
    # misc_charts.yaml
    ("misc_charts.yaml", drop_last("boarding_party.rows.2"), "boarding_party.rows[2]"),
    ("misc_charts.yaml", delete("lab.rows.6"), "lab.rows"),
    ("misc_charts.yaml", put("lab.rows.1.0", "ten"), "lab.rows[1]"),
    (
        "misc_charts.yaml",
        put("planet_killer.damage", "40, 30, 20, 10, 5, 1"),
        "planet_killer.damage",
    ),
    ("misc_charts.yaml", drop_last("planet_killer.damage"), "planet_killer.damage"),
    ("misc_charts.yaml", put("quarter_turn.impulses.8", "two"), "quarter_turn.impulses[8]"),
    ("misc_charts.yaml", delete("quarter_turn.source"), "quarter_turn.source"),
]


@functools.cache
def packaged(name: str) -> Any:
    return yaml.safe_load((DATA_DIR / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_packaged_files_load_and_every_chart_has_provenance(name):
    charts = LOADERS[name]()
    assert charts.provenance
    for chart, (confidence, source) in charts.provenance.items():
        assert confidence in ("HIGH", "MEDIUM", "LOW", "PROPOSAL"), chart
        assert source, chart
        if confidence == "PROPOSAL":
            assert source == "proposal", chart


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_loaders_cache_the_packaged_file(name):
    assert LOADERS[name]() is LOADERS[name]()


@pytest.mark.parametrize(
    ("name", "mutate", "field"), BROKEN, ids=[f"{n}:{f}" for n, _, f in BROKEN]
)
def test_broken_file_names_file_and_field(tmp_path: Path, name, mutate, field):
    doc = copy.deepcopy(packaged(name))
    mutate(doc)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    with pytest.raises(DataFileError) as info:
        LOADERS[name](path)
    message = str(info.value)
    assert name in message and field in message, message
    assert info.value.field.startswith(field)


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_unchanged_copy_loads_like_the_packaged_file(tmp_path: Path, name):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(packaged(name), sort_keys=False), encoding="utf-8")
    assert LOADERS[name](path).provenance == LOADERS[name]().provenance


def test_every_data_and_scenario_file_loads_as_pyyamls_own_parser_reads_it():
    """``load_data_file`` parses with libyaml where it can: the same data as the pure-Python
    ``yaml.safe_load`` for every packaged file."""
    files = sorted(DATA_DIR.rglob("*.yaml")) + sorted(SCENARIO_DIR.glob("*.yaml"))
    assert len(files) > 75
    for path in files:
        assert load_data_file(path) == yaml.safe_load(path.read_text(encoding="utf-8")), path


def test_an_unparsable_file_names_the_line_and_shows_it(tmp_path: Path):
    """The error of a file neither parser reads quotes the offending line (the pure-Python
    parser's message, whichever parser read it first)."""
    path = tmp_path / "broken.yaml"
    path.write_text("ships:\n  - name: a\n    speed: [8, 16\n", encoding="utf-8")
    with pytest.raises(DataFileError) as info:
        load_data_file(path)
    message = str(info.value)
    assert "broken.yaml" in message and "invalid YAML" in message and "line 3" in message
    assert "speed: [8, 16" in message and "^" in message


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_missing_or_unparsable_file(tmp_path: Path, name):
    with pytest.raises(DataFileError, match=name):
        LOADERS[name](tmp_path / name)
    (tmp_path / name).write_text("phasers: [unclosed\n", encoding="utf-8")
    with pytest.raises(DataFileError, match=rf"{name}.*invalid YAML"):
        LOADERS[name](tmp_path / name)
