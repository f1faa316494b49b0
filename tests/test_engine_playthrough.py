"""Scenarios 1-3 played to their end for seeds 0..199 with random legal orders (chosen through
the engine's own predicates), determinism of the event log, and the typed event log."""

from __future__ import annotations

import json

import numpy as np
import pytest
from engine_helpers import play_random, random_orders

from sfb_env import hexmap
from sfb_env.engine import Status, make_battle
from sfb_env.engine import events as ev
from sfb_env.engine.events import event_to_dict

SEEDS = range(200)
REPLAYED = range(0, 200, 4)  # seeds played a second time, on a fresh battle


def _log(b) -> list[dict]:
    return [event_to_dict(e) for e in b.events]


@pytest.mark.parametrize("name", ["cth-01", "cth-02", "cth-03"])
def test_b2_0_scenario_runs_to_its_end_for_200_seeds_and_replays_identically(name):
    b = make_battle(name)
    logs = {}
    reasons = set()
    for seed in SEEDS:
        play_random(b, seed)
        assert b.done and b.outcome is not None
        assert set(b.outcome) == set(b.scenario.sides)
        last = b.events[-1]
        assert isinstance(last, ev.BattleEnded) and last.reason == b.end_reason
        assert sum(isinstance(e, ev.BattleEnded) for e in b.events) == 1
        active = b.state.status == Status.ACTIVE
        assert b.scenario.map_area.contains_axial_np(
            b.state.x[active], b.state.z[active], b.scenario.parity).all()
        reasons.add(b.end_reason)
        if seed in REPLAYED:
            logs[seed] = _log(b)
    assert len(reasons) >= 2  # the random games end in more than one way
    for seed, log in logs.items():
        again = play_random(name, seed)  # a fresh Battle, scenario loaded anew
        assert _log(again) == log, seed


def test_b2_0_same_seed_and_orders_give_the_same_battle_different_seeds_differ():
    a, b = play_random("cth-03", 7), play_random("cth-03", 7)
    assert _log(a) == _log(b)
    c = play_random("cth-03", 8)
    assert _log(c) != _log(a)


def test_event_log_is_typed_and_serialises_to_json():
    b = make_battle("cth-03", seed=11)
    g = np.random.default_rng(11)
    while not b.done:
        b.step(random_orders(b, g))
    kinds = {e.kind for e in b.events}
    assert {"SpeedSet", "Moved", "TurnEnded", "BattleEnded"} <= kinds
    for e in b.events:
        assert isinstance(e, ev.Event) and e.turn >= 1 and 0 <= e.impulse <= 8
        d = event_to_dict(e)
        assert d["kind"] == type(e).__name__
        assert json.loads(json.dumps(d)) == d


def test_every_resolution_has_its_event_type():
    # one battle where every kind of resolution happens: move, turn, launch, shot, drone hit,
    # drone loss, destruction, disengagement, end
    from engine_helpers import Dice, battle, of, run_to, step, unit

    b = battle([
        unit("k", "klingon-cadet", "red", "0808", "A", 8),
        unit("fed", "fed-cadet", "blue", "0804", "D", 0),
        unit("runner", "fed-cadet", "blue", "0102", "F", 8),
        unit("t", "target-drone", "blue", "0806", "A", 0, controller="target-drone"),
    ], rules={"explosions": True})
    step(b, k="R", runner="S")  # impulse 1: k turns; the runner leaves the map
    assert of(b, "Moved", unit="k")[0].turned == 1
    assert of(b, "LeftMap", unit="runner")
    b.rng = Dice(1)
    step(b, k=dict(maneuver="L", launch={"DRONE-1": "fed"}, fire={"PH2-1": "t"}))
    (shot,) = of(b, "Fired")
    rng = hexmap.distance("0908", "0806")  # k turned right into 0908 on impulse 1
    ph2_die_1 = {1: 5, 2: 5, 3: 4}  # Ph-2 chart (CTH-DATA §4.1)
    assert (shot.weapon, shot.target, shot.die, shot.range) == ("k.PH2-1", "t", 1, rng)
    assert (shot.shield, shot.damage) == (0, ph2_die_1[rng])
    assert of(b, "Launched")[0].target == "fed" and of(b, "Destroyed", unit="t")
    run_to(b, 1, 6)
    assert of(b, "SeekingHit") and of(b, "Damaged", unit="fed")
    kinds = {e.kind for e in b.events}
    assert {"Moved", "LeftMap", "SpeedSet", "Launched", "Fired", "Damaged", "Destroyed",
            "SeekingHit"} <= kinds
