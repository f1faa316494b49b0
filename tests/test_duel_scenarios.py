"""Cadet duel scenarios and the ``duel`` victory kind (SCENARIOS.md §4, PROPOSAL; issue 5)."""

from __future__ import annotations

import itertools

import pytest

import sfb_env
from sfb_env import hexmap
from sfb_env.engine import make_battle, victory
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import Status

RACES = {"klingon": "klingon-cadet", "federation": "fed-cadet", "kzinti": "kzinti-cadet",
         "orion": "orion-cadet"}
DUELS = [f"duel-{a}-vs-{b}" for a, b in itertools.combinations(RACES, 2)]


def test_a_duel_for_every_pair_of_races():
    assert set(DUELS) <= set(sfb_env.list_scenarios())
    assert len(DUELS) == 6


@pytest.mark.parametrize("name", DUELS)
def test_duel_setup(name):
    sc = load_scenario(name)
    assert sc.impulses_per_turn == 8 and sc.map_name == "A+B" and sc.turn_limit == 6
    assert sc.rules.chief_engineer and sc.rules.speed_choice
    assert sc.rules.damage == "interim" and sc.victory["kind"] == "duel"
    a, b = sc.units
    _, race_a, _, race_b = name.split("-")
    assert (a.unit_class, b.unit_class) == (RACES[race_a], RACES[race_b])
    assert a.controller == b.controller == "agent"
    assert 12 <= hexmap.distance(a.hex, b.hex) <= 16
    # bow to bow: each on the other's centre line, in both forward arcs (D2.1)
    for me, other in ((a, b), (b, a)):
        assert all(hexmap.in_arc(me.hex, me.facing, other.hex, arc) for arc in ("LF", "RF"))


def _battle():
    battle = make_battle("duel-klingon-vs-federation", seed=0)
    return battle, battle.unit_index["klingon-cadet"], battle.unit_index["fed-cadet"]


def test_duel_goes_on_while_both_ships_fly():
    battle, _, _ = _battle()
    assert victory.evaluate(battle, time_up=False) is None


@pytest.mark.parametrize("status,level", [(Status.DESTROYED, "destroyed"),
                                          (Status.DISENGAGED, "disengaged")])
def test_duel_lost_by_destruction_or_leaving_the_map(status, level):
    battle, kli, fed = _battle()
    battle.state.status[fed] = status
    outcome, reason = victory.evaluate(battle, time_up=False)
    assert outcome["klingon"] == {"result": "win", "level": level}
    assert outcome["federation"]["result"] == "loss" and "federation" in reason


def test_duel_with_no_ship_left_is_a_draw():
    battle, kli, fed = _battle()
    battle.state.status[[kli, fed]] = Status.DESTROYED
    outcome, _ = victory.evaluate(battle, time_up=False)
    assert outcome["klingon"]["result"] == outcome["federation"]["result"] == "draw"


def test_duel_at_the_limit_goes_to_the_side_that_dealt_more_points():
    battle, kli, fed = _battle()
    battle.state.damage[fed] = 30  # shield + internal points the Klingon scored
    battle.state.damage[kli] = 12
    outcome, reason = victory.evaluate(battle, time_up=True)
    assert outcome["klingon"] == {"result": "win", "level": "points"}
    assert "30" in reason
    battle.state.damage[kli] = 30
    outcome, _ = victory.evaluate(battle, time_up=True)
    assert outcome["federation"]["result"] == "draw"
