"""The Planet Killer (scenario 11; SCENARIOS §2.8, CTH-DATA §8.11): its weapon chart, movement
(speed 6, turn mode 0, monsters before ships, planet course, tie die, stop), detection and
following, whom it shoots, extra shots, close-in defence and immortality but for the researched
kill method."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import of, row
from planet_killer_helpers import MONSTER, PLANET, SHIP, FixedDie, hold, hold_to, pk_battle

from sfb_env import hexmap, impulse
from sfb_env.engine import Orders, planet_killer, shields
from sfb_env.engine.planet_killer import Method
from sfb_env.engine.types import ACTIVE, DESTROYED, Maneuver, UnitKind


def _place(b, uid_or_row, label: str) -> None:
    u = uid_or_row if isinstance(uid_or_row, int) else row(b, uid_or_row)
    b.state.x[u], b.state.z[u] = hexmap.label_to_axial(label)


def _dist(b, a: int, c: int) -> int:
    st = b.state
    return int(hexmap.distance_np(st.x[a], st.z[a], st.x[c], st.z[c]))


def test_sc11_weapon_damage_chart_cell_by_cell():
    """(CTH-DATA §8.11) die 1..6 -> 40, 30, 20, 10, 5, 1."""
    assert [planet_killer.weapon_damage(d) for d in range(1, 7)] == [40, 30, 20, 10, 5, 1]
    for die in (0, 7):
        with pytest.raises(ValueError, match="die"):
            planet_killer.weapon_damage(die)


def test_sc11_setup_kind_speed_and_monster_row():
    b = pk_battle()
    m = row(b, MONSTER)
    assert b.state.kind[m] == UnitKind.MONSTER and b.state.speed[m] == 6
    assert b.controllers[m] == planet_killer.CONTROLLER
    assert b.state.kind[row(b, PLANET)] == UnitKind.PLANET


def test_c1_3_monster_moves_on_impulses_6_11_16_22_27_32_before_ships():
    b = pk_battle(ship="2503", facing="D", speed=6)
    s = row(b, SHIP)
    b.step({s: Orders(speed=6)})
    while b.state.turn == 1:
        straight = Maneuver.STRAIGHT not in b.maneuver_blockers(s)
        b.step({s: Orders(maneuver=Maneuver.STRAIGHT if straight else Maneuver.NONE)})
    moves = of(b, "Moved", unit=MONSTER)
    assert [e.impulse for e in moves] == impulse.move_impulses(6, 32) == [6, 11, 16, 22, 27, 32]
    kinds = [e.unit for e in b.events if e.kind == "Moved" and e.impulse == 6]
    assert kinds == [MONSTER, SHIP]  # (C1.3) monsters move before ships


def test_sc11_each_move_enters_a_hex_closer_to_the_planet_and_stops_adjacent():
    b = pk_battle(ship="2815", facing="D", monster="1505", planet="1512")
    m, p = row(b, MONSTER), row(b, PLANET)
    hold_to(b, 3, 1)
    moves = of(b, "Moved", unit=MONSTER)
    dists = [hexmap.distance(e.dst, "1512") for e in moves]
    assert dists == list(range(6, 0, -1))  # 7 -> 1, one hex closer each move
    assert _dist(b, m, p) == 1  # (SCENARIOS §2.8) adjacent: it stops
    assert len(of(b, "Moved", unit=MONSTER)) == 6


def test_sc11_two_equally_close_hexes_die_odd_left_even_right():
    assert planet_killer.pick_side([1, 2], 1) == 1 and planet_killer.pick_side([1, 2], 2) == 2
    assert planet_killer.pick_side([5, 0], 3) == 5 and planet_killer.pick_side([0, 5], 6) == 0
    for die, expected in ((1, "B"), (3, "B"), (2, "C"), (6, "C")):
        b = pk_battle(ship="2815", facing="D", monster="1010", planet="1310")
        b.rng = FixedDie(die)
        d = planet_killer.course(b, row(b, MONSTER), row(b, PLANET))
        assert hexmap.DIRECTION_LETTERS[d] == expected, die


def test_sc11_detection_within_2_follows_the_ship_and_fires_at_it_at_once():
    b = pk_battle(ship="1507", facing="A", monster="1505", planet="1516")
    s, m = row(b, SHIP), row(b, MONSTER)
    hold(b)  # impulse 1: detection at its start
    (follow,) = of(b, "MonsterFollows")
    assert follow.unit == SHIP and b.state.monster_follows[m] == s
    shots = of(b, "MonsterFired", target=SHIP)
    assert [e.shot for e in shots] == ["detection"]
    e = shots[0]
    assert e.damage == planet_killer.weapon_damage(e.die) and e.range == 2
    assert e.shield == shields.shield_from(b, s, b.state.x[s], b.state.z[s], b.state.facing[s],
                                           b.state.x[m], b.state.z[m], source=m)
    hold_to(b, 1, 12)  # it follows "as a seeking weapon": into the ship's hex
    assert _dist(b, m, s) == 0
    assert len(of(b, "Moved", unit=MONSTER)) == 2


def test_sc11_several_ships_within_2_the_closest_is_followed():
    extra = [{"id": "second", "class": "fed-ca", "side": "federation", "hex": "1506",
              "facing": "A", "speed": 0, "controller": "agent"}]
    b = pk_battle(ship="1507", facing="A", monster="1505", planet="1516", extra=extra)
    hold(b)
    (follow,) = of(b, "MonsterFollows")
    assert follow.unit == "second"


def test_sc11_never_follows_shuttles():
    b = pk_battle(ship="1510", facing="A", monster="1505", planet="1516")
    st = b.state
    shuttle = int(np.flatnonzero(st.kind == UnitKind.SHUTTLE)[0])
    st.status[shuttle] = ACTIVE
    _place(b, shuttle, "1506")
    planet_killer.detect(b, row(b, MONSTER))
    assert st.monster_follows[row(b, MONSTER)] == -1 and not of(b, "MonsterFollows")


def test_sc11_proposal_resumes_the_planet_course_beyond_6_hexes():
    b = pk_battle(ship="1507", facing="A", monster="1505", planet="1516")
    s, m = row(b, SHIP), row(b, MONSTER)
    hold(b)
    assert b.state.monster_follows[m] == s
    _place(b, SHIP, "2815")  # now far beyond 6
    planet_killer.detect(b, m)
    assert b.state.monster_follows[m] == -1
    assert of(b, "MonsterFollows")[-1].unit == ""


def test_sc11_normal_shot_once_a_turn_at_a_ship_within_6_before_the_planet():
    b = pk_battle(ship="1510", facing="A", monster="1505", planet="1508")
    hold_to(b, 2, 2)
    normal = of(b, "MonsterFired", shot="normal")
    assert [(e.turn, e.impulse, e.target) for e in normal] == [(1, 1, SHIP), (2, 1, SHIP)]


def test_sc11_normal_shot_at_the_planet_when_no_ship_is_within_6():
    b = pk_battle(ship="2815", facing="A", monster="1505", planet="1508")
    p = row(b, PLANET)
    hold_to(b, 1, 2)  # the Fire step of impulse 1
    (shot,) = of(b, "MonsterFired", shot="normal")
    assert shot.target == PLANET and shot.range == 3 and shot.shield == 0
    assert b.state.damage[p] == shot.damage


def test_sc11_the_monster_wins_when_the_planet_has_taken_200():
    b = pk_battle(ship="2815", facing="A", monster="1507", planet="1508")
    b.state.damage[row(b, PLANET)] = 199
    hold_to(b, 1, 1)
    hold(b)  # the Fire step of impulse 1
    assert b.done and b.outcome["monster"]["result"] == "win"
    assert b.outcome["federation"]["result"] == "loss" and "planet" in b.end_reason


def test_sc11_immortal_damage_counts_only_150_before_result_3():
    b = pk_battle()
    st = b.state
    m, side = row(b, MONSTER), int(st.side[row(b, SHIP)])
    b.apply_damage(m, 0, 120)
    b.apply_damage(m, 0, 500)
    assert st.status[m] == ACTIVE and st.monster_counted[m] == 150 and st.damage[m] == 620
    st.kill_methods[side, Method.DAMAGE - 1] = True  # result 3 found
    b.apply_damage(m, 0, 49)
    assert st.status[m] == ACTIVE and st.monster_counted[m] == 199
    b.apply_damage(m, 0, 1)
    assert st.status[m] == DESTROYED
    (killed,) = of(b, "MonsterKilled")
    assert killed.method == Method.DAMAGE


@pytest.mark.parametrize("method", [Method.SUICIDE_SHUTTLE, Method.TRACTOR,
                                    Method.ANTIMATTER_PROBE, Method.BOARDING])
def test_sc11_a_kill_method_counts_only_after_its_research_result(method):
    b = pk_battle()
    st = b.state
    m, s = row(b, MONSTER), row(b, SHIP)
    assert not planet_killer.struck_by(b, m, method, s)  # before the result: no effect
    assert st.status[m] == ACTIVE
    st.kill_methods[st.side[s], Method.NOTHING - 1] = True  # a 6 finds nothing
    assert not planet_killer.struck_by(b, m, method, s)
    st.kill_methods[st.side[s], method - 1] = True
    assert planet_killer.struck_by(b, m, method, s)
    assert st.status[m] == DESTROYED and of(b, "MonsterKilled")[0].method == method


def test_sc11_close_in_defence_a_drone_in_its_hex_is_destroyed_on_4_to_6():
    seen = set()
    for seed in range(12):
        extra = [{"id": "drone-1", "class": "drone", "side": "federation", "hex": "1505",
                  "facing": "A", "speed": 32, "target": MONSTER, "controller": "robot-drone"}]
        b = pk_battle(seed=seed, ship="2815", monster="1505", planet="1516", extra=extra)
        hold(b)
        (roll,) = of(b, "CloseInDefence", unit="drone-1")
        assert roll.destroyed == (roll.die >= 4)
        struck = of(b, "MonsterStruck")
        assert bool(struck) == (not roll.destroyed)  # 1-3: it hits (warhead 12)
        if struck:
            assert struck[0].points == 12
        seen.add(roll.destroyed)
    assert seen == {True, False}


def test_sc11_close_in_defence_each_shuttle_within_3_once_per_turn():
    b = pk_battle(ship="2815", monster="1505", planet="1516")
    st = b.state
    near, far = (int(u) for u in np.flatnonzero(st.kind == UnitKind.SHUTTLE)[:2])
    st.status[[near, far]] = ACTIVE
    _place(b, near, "1508")  # range 3
    _place(b, far, "1509")  # range 4
    planet_killer.after_movement(b)
    planet_killer.after_movement(b)
    (roll,) = of(b, "CloseInDefence")
    assert roll.unit == b.unit_ids[near]
    assert (st.status[near] == DESTROYED) == (roll.die >= 4) == roll.destroyed
    assert st.status[far] == ACTIVE


def test_sc11_fires_at_a_plasma_torpedo_moving_within_2_as_a_phaser():
    extra = [{"id": "reptilicon", "class": "gorn-ca", "side": "federation", "hex": "2815",
              "facing": "A", "speed": 0, "controller": "agent"}]
    b = pk_battle(ship="2812", monster="1505", planet="1516", extra=extra)
    st = b.state
    torp = int(np.flatnonzero(st.kind == UnitKind.PLASMA)[0])
    st.status[torp] = ACTIVE
    _place(b, torp, "1507")
    st.prev_x[torp], st.prev_z[torp] = hexmap.label_to_axial("1508")
    st.launched_at[torp] = 1  # launched on impulse 1 of turn 1
    planet_killer.after_movement(b)
    planet_killer.after_movement(b)  # once per torpedo
    (shot,) = of(b, "MonsterFired", shot="plasma")
    assert shot.target == b.unit_ids[torp] and shot.range == 2
