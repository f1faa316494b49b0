"""Scenarios 1-3 through the engine: target drones (SCENARIOS §2.2), the convoy freighters'
course and fire schedule (§2.4), abstract freighters (R1.6) and the victory conditions (§3)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from engine_helpers import Dice, battle, hex_of, of, row, run_to, step, unit, weapon

from sfb_env import hexmap
from sfb_env.engine import Status, make_battle

SCENARIOS = Path(__file__).resolve().parents[1] / "configs" / "scenarios"


def doc(name: str) -> dict:
    """A shipped scenario as a dict, to modify."""
    return yaml.safe_load((SCENARIOS / f"{name}.yaml").read_text())


def no_convoy_fire(d: dict) -> dict:
    d["robots"]["convoy-freighter"]["fire_impulses"] = {}
    return d


# ------------------------------------------------------------------ scenario 1: target drones


def test_scenario_1_target_drones_fly_straight_and_escape_from_area_a():
    b = make_battle("cth-01", seed=0)
    loop = "RSRSRSRSRSRS"  # turn every other hex: stays in Area A
    for m in loop * 2:
        if b.done:
            break
        step(b, constellation=m)
    for d in ("drone-A", "drone-B", "drone-C", "drone-D", "drone-E"):
        moves = of(b, "Moved", unit=d)
        assert moves and all(e.turned == 0 for e in moves)
        assert all(hexmap.neighbor(e.src, e.facing) == e.dst for e in moves)
    # drone C (0705 facing D) leaves Area A (rows 01-16) on its 12th move: turn 2 impulse 4
    (esc,) = of(b, "LeftMap", unit="drone-C")
    assert (esc.turn, esc.impulse, esc.src) == (2, 4, "0716")
    assert b.state.status[row(b, "drone-C")] == Status.DISENGAGED


def test_scenario_1_escaped_drone_cannot_be_fired_at():
    b = make_battle("cth-01", seed=0)
    loop = "RSRSRSRSRSRS"
    for m in loop:
        step(b, constellation=m)
    assert (b.state.turn, b.state.impulse) == (2, 4)
    w = weapon(b, "constellation", "PH1-1")
    assert b.fire_blockers(w, [row(b, "drone-C")]) == ["E1.2 the target is not in play"]


def test_scenario_1_ship_cannot_be_damaged_and_only_ph1_are_used():
    b = make_battle("cth-01", seed=0)
    u = row(b, "constellation")
    before = b.state.shields[u].copy()
    b.apply_damage(u, 1, 50)
    assert (b.state.shields[u] == before).all() and b.state.internal[u] == 0
    assert b.state.status[u] == Status.ACTIVE
    run_to(b, 2, 1)
    photon = weapon(b, "constellation", "PHOT-A")
    (why,) = b.fire_blockers(photon, [row(b, "drone-A")])
    assert why == "scenario rules: this weapon is not used in this scenario"


def test_scenario_1_victory_success_when_all_five_destroyed():
    b = make_battle("cth-01", seed=0)
    step(b, constellation="R")
    for d in ("drone-A", "drone-B", "drone-C", "drone-D", "drone-E"):
        b.apply_damage(row(b, d), 0, 4)
    step(b, constellation="S")
    assert b.done and b.end_reason == "all target drones destroyed"
    assert b.outcome["federation"] == {"result": "win", "level": "success"}
    assert of(b, "BattleEnded")[-1].outcome == b.outcome


def test_scenario_1_victory_pass_when_every_drone_took_3():
    b = make_battle("cth-01", seed=0)
    for d in ("drone-A", "drone-B", "drone-C", "drone-D", "drone-E"):
        b.apply_damage(row(b, d), 0, 3)
    for m in "RSRSRSRSRSRS" * 2:
        if b.done:
            break
        step(b, constellation=m)
    assert b.done
    assert b.outcome["federation"] == {"result": "draw", "level": "pass"}


def test_scenario_1_victory_fail_when_drones_escape_or_ship_leaves_area_a():
    b = make_battle("cth-01", seed=0)
    for m in "RSRSRSRSRSRS" * 2:
        if b.done:
            break
        step(b, constellation=m)
    assert b.outcome["federation"] == {"result": "loss", "level": "fail"}
    b = make_battle("cth-01", seed=0)
    step(b, constellation="L")  # 0111 facing F: off the west edge of Area A
    assert b.done and b.end_reason == "the ship left Area A"
    assert b.outcome["federation"]["level"] == "fail"


# ------------------------------------------------------------------ scenario 2 victory


def test_scenario_2_victory_success_every_drone_gone_no_internal_damage():
    b = make_battle("cth-02", seed=0)
    for d in "ABCDEFGH":
        b.apply_damage(row(b, f"drone-{d}"), 0, 4)
    step(b, constellation="S")
    assert b.done and b.outcome["federation"] == {"result": "win", "level": "success"}


def test_scenario_2_victory_fail_on_internal_damage():
    b = make_battle("cth-02", seed=0)
    u = row(b, "constellation")
    b.apply_damage(u, 1, 17)  # shield #1 is 16
    step(b, constellation="S")
    assert b.done and b.end_reason == "the ship took internal damage"
    assert b.outcome == {"federation": {"result": "loss", "level": "fail"},
                         "klingon": {"result": "win", "level": "fail"}}


def test_scenario_2_victory_fail_on_leaving_the_map():
    d = doc("cth-02")
    d["units"][0]["hex"] = "0902"
    b = make_battle(d, seed=0)
    step(b, constellation="S")
    step(b, constellation="S")  # 0901 facing A: off the top edge on impulse 2
    assert b.done and b.end_reason == "the ship left the map"
    assert b.outcome["federation"]["result"] == "loss"


def test_scenario_2_drones_home_and_strike():
    b = make_battle("cth-02", seed=3)
    while not b.done and not of(b, "SeekingHit"):
        step(b, constellation="S" if b.state.turn < 2 else "-")
    hit = of(b, "SeekingHit")[0]
    assert hit.target == "constellation" and hit.warhead == 6 and 1 <= hit.shield <= 6


# ------------------------------------------------------------------ scenario 3: convoy robot


@pytest.mark.parametrize(("pair", "turns", "exits"), [
    (("freighter-A", "freighter-B"), {"freighter-A": "1505", "freighter-B": "1503"},
     {"freighter-A": "2811", "freighter-B": "2809"}),
    (("freighter-C", "freighter-D"), {"freighter-C": "1503", "freighter-D": "1505"},
     {"freighter-C": "2809", "freighter-D": "2811"}),
])
def test_scenario_3_freighter_course(pair, turns, exits):
    # SCENARIOS §2.4 anchor: A from 0112 turns at 1505 and exits from 2811; B (0110) turns at
    # 1503 and exits from 2809; C (0309) exits from 2809; D (0311) from 2811
    d = no_convoy_fire(doc("cth-03"))
    d["units"] = [u for u in d["units"] if u["id"] in ("destruction", *pair)]
    d["units"][0]["speed"] = 0
    b = make_battle(d, seed=0)
    while not b.done:
        step(b)
    for f in pair:
        turned = [e for e in of(b, "Moved", unit=f) if e.turned]
        assert [(e.src, e.turned, e.facing) for e in turned] == [(turns[f], 1, "C")]
        (left,) = of(b, "LeftMap", unit=f)
        assert left.src == exits[f]
        assert b.state.status[row(b, f)] == Status.DISENGAGED
    assert b.end_reason == "a freighter left the map"
    assert b.outcome["klingon"] == {"result": "loss", "level": "convoy escaped"}
    # A and B: 27 moves then one more to leave (CTH-DATA §1.8)
    if pair[0] == "freighter-A":
        assert len(of(b, "Moved", unit="freighter-A")) == 27


def test_scenario_3_freighter_fire_schedule():
    # A fires on impulse 2, B on 4, C on 6, D on 8, at the Klingon when no drone is aimed at it
    b = make_battle("cth-03", seed=5)
    while (b.state.turn, b.state.impulse) != (3, 1):
        step(b, destruction=dict(speed=0) if b.speed_choice_open() else "-")
    shots = [(e.turn, e.impulse, e.unit, e.target) for e in of(b, "Fired")]
    expected = [(t, i, f"freighter-{x}", "destruction")
                for t in (1, 2) for i, x in ((2, "A"), (4, "B"), (6, "C"), (8, "D"))]
    assert shots == expected


def test_scenario_3_freighter_fires_at_the_closest_drone_aimed_at_it():
    units = [
        unit("destruction", "klingon-cadet", "klingon", "0104", "C", 0),
        unit("freighter-A", "freighter", "convoy", "0112", "B", 4, controller="convoy-freighter"),
        unit("freighter-B", "freighter", "convoy", "0110", "B", 4, controller="convoy-freighter"),
        unit("x", "drone", "klingon", "0614", "F", 8, controller="robot-drone",
             target="freighter-A"),
        unit("far", "drone", "klingon", "1014", "F", 8, controller="robot-drone",
             target="freighter-A"),
        unit("y", "drone", "klingon", "0314", "A", 8, controller="robot-drone",
             target="freighter-B"),
    ]
    b = battle(units, sides=("klingon", "convoy"),
               robots={"convoy-freighter": {"fire_impulses": {"freighter-A": 2}}})
    step(b)
    step(b)
    a = hex_of(b, "freighter-A")
    # y (aimed at B) is the closest drone, x the closest aimed at A
    assert hexmap.distance(a, hex_of(b, "y")) < hexmap.distance(a, hex_of(b, "x"))
    assert hexmap.distance(a, hex_of(b, "x")) < hexmap.distance(a, hex_of(b, "far"))
    b.rng = Dice(6)
    step(b)
    (shot,) = of(b, "Fired")
    assert (shot.unit, shot.impulse, shot.target) == ("freighter-A", 2, "x")


# ------------------------------------------------------------------ R1.6 freighters


def _freighter_battle():
    return battle([
        unit("k", "klingon-cadet", "red", "0504", "C", 0),
        unit("f", "freighter", "blue", "0110", "B", 4, controller="idle"),
    ], turn_limit=5)


def _moves(b, turn):
    return [e.impulse for e in of(b, "Moved", unit="f", turn=turn)]


def test_r1_6_freighter_shield_pool_phaser_speed_and_destruction():
    b = _freighter_battle()
    f, k = row(b, "f"), row(b, "k")
    phaser = weapon(b, "f", "PH2-1")
    # one 5-point pool for every direction
    b.apply_damage(f, 3, 3)
    b.apply_damage(f, 5, 4)
    dmg = of(b, "Damaged", unit="f")
    assert [(e.to_shield, e.internal) for e in dmg] == [(3, 0), (2, 2)]
    b.apply_damage(f, 1, 2)
    assert b.state.internal[f] == 4
    run_to(b, 1, 1)
    assert b.fire_blockers(phaser, [k]) == [None]
    b.apply_damage(f, 2, 1)  # internal 5: the phaser is dead
    assert b.state.internal[f] == 5 and b.state.w_destroyed[phaser]
    assert b.fire_blockers(phaser, [k])[0] is not None
    run_to(b, 1, 3)
    b.apply_damage(f, 2, 5)  # internal 10 on impulse 3: speed 3 from the next turn
    run_to(b, 2, 1)
    assert _moves(b, 1) == [2, 4, 6, 8]
    assert of(b, "SpeedSet", unit="f", turn=2)[0].speed == 3
    b.apply_damage(f, 2, 5)  # internal 15: speed 2 from turn 3
    run_to(b, 3, 1)
    assert _moves(b, 2) == [3, 6, 8]
    run_to(b, 4, 1)
    assert _moves(b, 3) == [4, 8]
    b.apply_damage(f, 2, 4)  # internal 19
    assert b.state.status[f] == Status.ACTIVE
    b.apply_damage(f, 2, 1)  # internal 20: destroyed; 25 points in all
    assert b.state.status[f] == Status.DESTROYED
    assert int(b.state.damage[f]) == 25
    assert [e.unit for e in of(b, "Destroyed")] == ["f"]


def test_r1_6_freighter_destroyed_by_fire_in_one_volley():
    b = _freighter_battle()
    f = row(b, "f")
    b.apply_damage(f, 1, 24)
    assert b.state.status[f] == Status.ACTIVE
    b.apply_damage(f, 1, 1)
    assert b.state.status[f] == Status.DESTROYED


# ------------------------------------------------------------------ scenario 3 victory


def test_scenario_3_victory_all_freighters_destroyed_is_a_klingon_win():
    b = make_battle("cth-03", seed=0)
    for x in "ABCD":
        b.apply_damage(row(b, f"freighter-{x}"), 0, 25)
    step(b, destruction=dict(maneuver="S", speed=4))
    assert b.done and b.outcome["klingon"] == {"result": "win", "level": "convoy destroyed"}
    assert b.outcome["convoy"]["result"] == "loss"


def test_scenario_3_victory_raider_destroyed_is_a_loss():
    b = make_battle("cth-03", seed=0)
    b.apply_damage(row(b, "destruction"), 1, 1000)
    step(b)
    assert b.done and b.outcome["klingon"] == {"result": "loss", "level": "raider gone"}


def test_scenario_3_three_of_four_destroyed_then_an_escape_is_a_loss():
    d = no_convoy_fire(doc("cth-03"))
    d["units"][0]["speed"] = 0
    b = make_battle(d, seed=0)
    for x in "ABD":
        b.apply_damage(row(b, f"freighter-{x}"), 0, 25)
    while not b.done:
        step(b)
    assert b.end_reason == "a freighter left the map"
    assert b.outcome["klingon"]["result"] == "loss"
    assert np.count_nonzero(b.state.status == Status.DESTROYED) == 3


def test_r1_6_speed_loss_applies_to_the_scenario_speed():
    # the harder variant of scenario 3 runs the freighters at speed 6: damage takes 1 off that
    b = battle([
        unit("k", "klingon-cadet", "red", "0504", "C", 0),
        unit("f", "freighter", "blue", "0110", "B", 6, controller="idle"),
    ], turn_limit=5)
    f = row(b, "f")
    run_to(b, 2, 1)
    assert [e.speed for e in of(b, "SpeedSet", unit="f")] == [6, 6]
    b.apply_damage(f, 1, 15)  # 5 on the pool, 10 internal
    run_to(b, 3, 1)
    assert [e.speed for e in of(b, "SpeedSet", unit="f")] == [6, 6, 5]
    assert _moves(b, 2) == [2, 3, 4, 6, 7, 8]  # still 6 on the turn the damage was scored
