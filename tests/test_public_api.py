"""The public API example block of DESIGN.md returns what it says."""

from __future__ import annotations

import pytest

import sfb_env
from sfb_env import hexmap, impulse, tables


def test_design_public_api_block():
    env = sfb_env.parallel_env(scenario="cth-03", render_mode="rgb_array", seed=None)
    assert env.possible_agents == ["destruction"]
    listed = sfb_env.list_scenarios()
    assert "cth-03" in listed and listed["cth-03"]
    battle = sfb_env.make_battle("cth-03")
    assert not battle.done
    assert hexmap.neighbor("0517", "F") == "0416"
    assert hexmap.distance("0202", "0305") == 3
    assert hexmap.in_arc("0915", "C", "1612", "LF")
    assert hexmap.shields_hit("0202", "A", "0305") == (4,)
    assert impulse.moves_on(speed=5, impulse=2, impulses_per_turn=8) is True
    assert tables.phaser_damage("ph-2", rng=3, die=2) == 4
    assert tables.disruptor_damage(rng=3, die=4) == 4
    assert tables.ppd_pulse(rng=12, roll_2d6=4) == 5
    assert tables.esg_strength(radius=2, energy=3) == 10
    assert tables.plasma_warhead(kind="S", hexes=11) == 22


@pytest.mark.parametrize(
    "call",
    [
        lambda: tables.phaser_damage("ph-1", rng=-1, die=1),
        lambda: tables.phaser_damage("ph-1", rng=1, die=7),
        lambda: tables.phaser_damage("ph-9", rng=1, die=1),
    ],
)
def test_design_values_out_of_the_chart_raise(call):
    with pytest.raises(ValueError):
        call()


def test_make_battle_accepts_name_path_and_dict():
    path = sfb_env.engine.scenario.SCENARIO_DIR / "cth-01.yaml"
    by_name = sfb_env.make_battle("cth-01", seed=1)
    by_path = sfb_env.make_battle(str(path), seed=1)
    assert by_name.unit_ids == by_path.unit_ids
    import yaml

    by_dict = sfb_env.make_battle(yaml.safe_load(path.read_text()), seed=1)
    assert by_dict.unit_ids == by_name.unit_ids
