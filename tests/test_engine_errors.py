"""Bad input: scenario files and dicts (ScenarioError) and orders (IllegalOrderError) raise
errors that name the thing, and the file and field or the rule."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from engine_helpers import battle, row, run_to, scenario, step, unit, weapon

from sfb_env.engine import (
    IllegalOrderError,
    Maneuver,
    Orders,
    ScenarioError,
    load_scenario,
    make_battle,
)

SCENARIOS = Path(__file__).resolve().parents[1] / "configs" / "scenarios"
GOOD = scenario([unit("fed", "fed-cadet", "blue", "0505", "A", 8),
                 unit("k", "klingon-cadet", "red", "0510", "A", 8)])


def bad(change) -> dict:
    d = copy.deepcopy(GOOD)
    change(d)
    return d


def test_errors_are_value_errors():
    assert issubclass(ScenarioError, ValueError) and issubclass(IllegalOrderError, ValueError)


@pytest.mark.parametrize(("change", "field", "words"), [
    (lambda d: d["units"][0].update({"class": "fed-dreadnought"}), "units[0].class",
     "fed-dreadnought"),
    (lambda d: d["units"][1].update(hex="2917"), "units[1].hex", "2917"),
    (lambda d: d["units"][1].update(hex="0520"), "units[1].hex", "outside the map area"),
    (lambda d: d["units"][1].update(hex="05x0"), "units[1].hex", "05x0"),
    (lambda d: d["units"][0].update(facing="G"), "units[0].facing", "G"),
    (lambda d: d["units"][0].update(speed=9), "units[0].speed", "C1.42"),
    (lambda d: d["units"][0].update(speed=-1), "units[0].speed", "C1.42"),
    (lambda d: d["units"][0].pop("side"), "units[0].side", "missing"),
    (lambda d: d["units"][0].update(side="green"), "units[0].side", "green"),
    (lambda d: d["units"][0].update(controller="pilot"), "units[0].controller", "pilot"),
    (lambda d: d["units"][0].update(shields=[1] * 6), "units[0].shields", "unknown field"),
    (lambda d: d["units"][1].update(id="fed"), "units[1].id", "duplicate"),
    (lambda d: d.pop("victory"), "victory", "missing"),
    (lambda d: d.pop("impulses_per_turn"), "impulses_per_turn", "missing"),
    (lambda d: d.update(impulses_per_turn=12), "impulses_per_turn", "12"),
    (lambda d: d.update(map="Z"), "map", "Z"),
    (lambda d: d.update(weather="storm"), "weather", "unknown field"),
    (lambda d: d["rules"].update(warp_drive=True), "rules.warp_drive", "unknown rule"),
    (lambda d: d["rules"].update(shield_boundary="coin"), "rules.shield_boundary", "coin"),
    (lambda d: d["rules"].update(chief_engineer="yes"), "rules.chief_engineer", "true or false"),
    (lambda d: d["rules"].update(weapons_allowed=["ph-9"]), "rules.weapons_allowed", "ph-9"),
    (lambda d: d.update(victory={"kind": "glory"}), "victory.kind", "glory"),
    (lambda d: d["units"].append(unit("d", "drone", "red", "0101", "C", 8, "robot-drone")),
     "units[2].target", "FD1.3"),
    (lambda d: d["units"].append(unit("d", "drone", "red", "0101", "C", 8, "robot-drone",
                                      target="nobody")), "units[2].target", "nobody"),
])
def test_bad_scenario_dict_names_the_field(change, field, words):
    with pytest.raises(ScenarioError) as err:
        make_battle(bad(change))
    msg = str(err.value)
    assert msg.startswith(f"<dict>: field '{field}'"), msg
    assert words in msg and err.value.field == field


def test_bad_scenario_yaml_names_the_file(tmp_path):
    d = yaml.safe_load((SCENARIOS / "cth-03.yaml").read_text())
    d["units"][2]["class"] = "freighter-galleon"
    path = tmp_path / "my-raid.yaml"
    path.write_text(yaml.safe_dump(d))
    with pytest.raises(ScenarioError, match=r"^my-raid\.yaml: field 'units\[2\]\.class'.*galleon"):
        load_scenario(path)
    d["units"][2]["class"] = "freighter"
    d["units"][2]["speed"] = 12
    path.write_text(yaml.safe_dump(d))
    with pytest.raises(ScenarioError, match=r"^my-raid\.yaml: field 'units\[2\]\.speed'.*C1\.42"):
        load_scenario(path)


def test_unknown_scenario_name_lists_the_known_ones():
    with pytest.raises(ScenarioError, match="cth-01, cth-02, cth-03"):
        make_battle("cth-99")


def test_shipped_scenarios_load():
    for name in ("cth-01", "cth-02", "cth-03"):
        assert load_scenario(name).name == name


def test_order_naming_a_weapon_the_ship_lacks():
    b = battle([unit("fed", "fed-cadet", "blue", "0505", "A", 8),
                unit("k", "klingon-cadet", "red", "0504", "D", 0)])
    run_to(b, 1, 1)
    disruptor = weapon(b, "k", "DISR-A")
    with pytest.raises(IllegalOrderError, match=r"fed: fire=\d+: weapon k\.DISR-A is not on fed"):
        b.step({row(b, "fed"): Orders(maneuver=Maneuver.STRAIGHT, fire={disruptor: row(b, "k")})})
    with pytest.raises(IllegalOrderError, match="no weapon row 999"):
        b.step({row(b, "fed"): Orders(maneuver=Maneuver.STRAIGHT, fire={999: row(b, "k")})})
    phaser = weapon(b, "fed", "PH1-1")
    with pytest.raises(IllegalOrderError, match="FD1.1 only a drone rack launches"):
        b.step({row(b, "fed"): Orders(maneuver=Maneuver.STRAIGHT, launch={phaser: row(b, "k")})})


def test_order_out_of_arc_target():
    b = battle([unit("fed", "fed-cadet", "blue", "0505", "A", 8),
                unit("k", "klingon-cadet", "red", "0508", "D", 0)])
    run_to(b, 1, 1)
    with pytest.raises(IllegalOrderError) as err:
        step(b, fed=dict(maneuver="S", fire={"PH1-1": "k"}))
    assert err.value.unit == "fed" and err.value.component == "fire[fed.PH1-1]"
    assert err.value.value == "k" and err.value.rule.startswith("D2.1")


def test_order_turn_before_turn_mode_is_met():
    b = battle([unit("fed", "fed-cadet", "blue", "0505", "A", 8)])
    step(b, fed="R")
    with pytest.raises(IllegalOrderError) as err:
        step(b, fed="R")
    assert err.value.component == "maneuver" and err.value.value == "TURN_RIGHT"
    assert "C3.2 turn mode 2 not satisfied" in str(err.value)


def test_orders_for_units_not_commanded_and_after_the_end():
    b = make_battle("cth-03", seed=0)
    with pytest.raises(IllegalOrderError, match="freighter-A.*B2.0"):
        b.step({row(b, "freighter-A"): Orders()})
    run_to(b, 1, 3)
    with pytest.raises(IllegalOrderError, match="speed.*B2.0"):
        step(b, destruction=dict(maneuver="S", speed=4))
    b2 = make_battle("cth-01", seed=0)
    step(b2, constellation="L")
    assert b2.done
    with pytest.raises(RuntimeError, match="over"):
        step(b2)


def test_a_refused_order_changes_nothing():
    b = battle([unit("fed", "fed-cadet", "blue", "0505", "A", 8)])
    step(b, fed="R")
    before = (b.state.copy(), len(b.events))
    with pytest.raises(IllegalOrderError):
        step(b, fed="L")
    assert len(b.events) == before[1]
    assert (b.state.x == before[0].x).all() and b.state.impulse == before[0].impulse
