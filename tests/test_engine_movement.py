"""Engine movement: facing (C1.2), order of movement (C1.3), proportional movement (C1.41),
speed limits (C1.42), turn modes (C3), stacking and leaving the map, played through ``Battle``."""

from __future__ import annotations

import pytest
from engine_helpers import (
    battle,
    facing_of,
    hex_of,
    of,
    row,
    run_to,
    scenario,
    step,
    unit,
)

from sfb_env import hexmap
from sfb_env.engine import IllegalOrderError, Maneuver, ScenarioError, Status, make_battle

FED = "fed-cadet"
KLI = "klingon-cadet"


def test_c1_2_facing_and_straight_move_enters_the_hex_ahead():
    # (C1.2) 2603 facing A faces 2602; 0608 facing A faces 0607; 2210 facing C faces 2311
    b = battle([
        unit("a", FED, "blue", "2603", "A", 8),
        unit("b", FED, "blue", "0608", "A", 8),
        unit("c", FED, "blue", "2210", "C", 8),
    ])
    step(b, a="S", b="S", c="S")
    assert (hex_of(b, "a"), hex_of(b, "b"), hex_of(b, "c")) == ("2602", "0607", "2311")
    assert [facing_of(b, u) for u in "abc"] == ["A", "A", "C"]


def test_c1_2_c3_1_turns_rotate_60_degrees_then_enter_the_new_forward_hex():
    b = battle([unit("a", FED, "blue", "0608", "A", 8), unit("b", FED, "blue", "1010", "A", 8)])
    step(b, a="R", b="L")
    moved = {e.unit: e for e in of(b, "Moved")}
    assert (moved["a"].facing, moved["a"].turned, moved["a"].dst) == ("B", 1, "0708")
    assert (moved["b"].facing, moved["b"].turned, moved["b"].dst) == ("F", -1, "0910")


def test_c1_41_the_8_impulse_illustration_speeds_8_5_4_3():
    # (C1.44) rules file 003: a drone at 8, a Klingon at 5, a freighter at 4, a damaged
    # freighter at 3 move on these impulses
    b = battle([
        unit("klingon", KLI, "red", "0508", "B", 5),
        unit("drone", "target-drone", "red", "0112", "B", 8, controller="target-drone"),
        unit("freighter", "freighter", "blue", "0104", "C", 4, controller="idle"),
        unit("damaged", "freighter", "blue", "0115", "B", 3, controller="idle"),
    ])
    expected = {
        1: ["drone"],
        2: ["freighter", "klingon", "drone"],
        3: ["damaged", "drone"],
        4: ["freighter", "klingon", "drone"],
        5: ["klingon", "drone"],
        6: ["damaged", "freighter", "drone"],
        7: ["klingon", "drone"],
        8: ["damaged", "freighter", "klingon", "drone"],  # (C1.3) slower first, seeking last
    }
    for i in range(1, 9):
        step(b, klingon="S" if i in (2, 4, 5, 7, 8) else "-")  # orders for the move of impulse i
        assert [e.unit for e in of(b, "Moved", turn=1, impulse=i)] == expected[i], i


def test_c1_41_a_unit_that_does_not_move_may_only_order_none():
    b = battle([unit("k", KLI, "red", "0508", "B", 5)])
    # speed 5 does not move on impulse 1 (moves 2, 4, 5, 7, 8)
    blocked = b.maneuver_blockers(row(b, "k"))
    assert set(blocked) == {Maneuver.STRAIGHT, Maneuver.TURN_LEFT, Maneuver.TURN_RIGHT}
    assert all(r.startswith("C1.41") for r in blocked.values())
    with pytest.raises(IllegalOrderError, match="C1.41"):
        step(b, k="S")


def test_c1_3_ships_move_before_seeking_weapons_and_a_drone_entered_does_not_move():
    # (C1.3, F2.1) the ship enters the drone's hex first; the drone does not move and strikes
    b = battle([
        unit("fed", FED, "blue", "0708", "A", 8),
        unit("d", "drone", "red", "0707", "D", 8, controller="robot-drone", target="fed"),
    ])
    step(b, fed="S")
    assert hex_of(b, "fed") == "0707"
    assert of(b, "Moved", unit="d") == []
    hit = of(b, "SeekingHit", unit="d")
    assert len(hit) == 1 and hit[0].shield == 1  # it faced the drone when it entered
    assert b.state.status[row(b, "d")] == Status.EXPENDED


def test_c1_3_equal_speeds_move_on_orders_written_before_anyone_moves():
    # two ships at speed 8 give orders at the same decision point; both are carried out
    b = battle([unit("a", FED, "blue", "0505", "A", 8), unit("b", KLI, "red", "0506", "A", 8)])
    step(b, a="R", b="S")
    assert hex_of(b, "a") == hexmap.neighbor("0505", "B")
    assert hex_of(b, "b") == "0505"  # entered the hex "a" has just left: no collision rules
    assert {e.unit for e in of(b, "Moved", impulse=1)} == {"a", "b"}


def test_c1_42_scenario_speed_above_the_chart_is_rejected():
    doc = scenario([unit("a", FED, "blue", "0505", "A", 9)])
    with pytest.raises(ScenarioError, match=r"units\[0\]\.speed.*C1\.42"):
        make_battle(doc)
    # seeking weapons move at the scenario maximum, never above it
    doc = scenario([unit("d", "target-drone", "red", "0505", "A", 9, controller="target-drone")])
    with pytest.raises(ScenarioError, match=r"units\[0\]\.speed"):
        make_battle(doc)
    with pytest.raises(ScenarioError, match=r"rules\.max_speed.*C1\.42"):
        make_battle(scenario([unit("a", FED, "blue", "0505", "A", 8)], rules={"max_speed": 12}))


def test_c1_42_speed_order_above_the_chart_is_refused_in_scenario_3():
    b = make_battle("cth-03", seed=0)
    with pytest.raises(IllegalOrderError, match="speed"):
        step(b, destruction=dict(maneuver="S", speed=9))
    step(b, destruction=dict(maneuver="S", speed=6))
    assert b.state.speed[row(b, "destruction")] == 6
    assert of(b, "SpeedSet", unit="destruction") [-1].speed == 6


def test_c3_2_turn_mode_2_needs_two_straight_hexes_between_turns():
    # (C3.3) Federation Cadet Cruiser at speed 8: turn mode 2
    b = battle([unit("fed", FED, "blue", "1010", "A", 8)])
    step(b, fed="R")  # impulse 1: turn (C3.43 satisfied at start)
    blocked = b.maneuver_blockers(row(b, "fed"))
    assert blocked[Maneuver.TURN_LEFT] == "C3.2 turn mode 2 not satisfied (1 hex straight)"
    with pytest.raises(IllegalOrderError, match=r"maneuver.*C3\.2 turn mode 2"):
        step(b, fed="L")
    step(b, fed="S")  # second straight hex
    assert Maneuver.TURN_LEFT not in b.maneuver_blockers(row(b, "fed"))
    step(b, fed="L")
    assert facing_of(b, "fed") == "A"


def test_c3_4_turn_hex_counts_as_first_straight_hex_so_turn_mode_1_turns_every_move():
    # Klingon Cadet BC at speed 8: turn mode 1 (1-8 = 1)
    b = battle([unit("k", KLI, "red", "1010", "A", 8)])
    for m in "RRRRRR":
        step(b, k=m)
    assert [e.facing for e in of(b, "Moved", unit="k")] == list("BCDEFA")
    assert hex_of(b, "k") == "1010"  # six right turns: a full circle of six hexes


def test_c3_3_turn_mode_changes_with_speed():
    # Federation Cadet Cruiser at speed 6: turn mode 1 (1-6 = 1)
    b = battle([unit("fed", FED, "blue", "1010", "A", 6)])
    run_to(b, 1, 1)
    for _ in range(2):  # speed 6 moves on 2, 3, 4: consecutive turns allowed
        step(b, fed="R")
    assert [e.turned for e in of(b, "Moved", unit="fed")] == [1, 1]


def test_c3_43_turn_mode_satisfied_at_start():
    b = battle([unit("fed", FED, "blue", "1010", "A", 8)])
    assert b.maneuver_blockers(row(b, "fed")) == {
        Maneuver.NONE: "C1.41 the unit moves on the next impulse: order its move"
    }


def test_c3_41_turn_mode_count_carries_over_turns():
    # turned on impulse 8 of turn 1: one hex counted, so impulse 1 of turn 2 may not turn
    b = battle([unit("fed", FED, "blue", "1010", "A", 8)])
    for i in range(7):
        step(b, fed="L" if i + 1 == 8 else "S")
    step(b, fed="L")  # decision point impulse 7: the move of impulse 8 is a turn
    assert (b.state.turn, b.state.impulse) == (1, 8)
    with pytest.raises(IllegalOrderError, match=r"C3\.2 turn mode 2 not satisfied \(1 hex"):
        step(b, fed="R")  # the move of impulse 1 of turn 2
    step(b, fed="S")
    assert (b.state.turn, b.state.impulse) == (2, 1)
    assert Maneuver.TURN_RIGHT not in b.maneuver_blockers(row(b, "fed"))
    step(b, fed="R")
    assert of(b, "Moved", turn=2, impulse=2)[0].turned == 1


def test_c3_42_straight_hexes_at_the_end_of_a_turn_count_on_the_next():
    b = battle([unit("fed", FED, "blue", "1010", "A", 8)])
    for _ in range(6):
        step(b, fed="S")
    step(b, fed="L")  # impulse 7 move is a turn
    step(b, fed="S")  # impulse 8 straight: 2 hexes since the turn
    assert (b.state.turn, b.state.impulse) == (1, 8)
    step(b, fed="R")  # impulse 1 of turn 2
    assert of(b, "Moved", turn=2, impulse=1)[0].turned == 1


def test_c1_3_stacking_is_unlimited():
    # (C3.1 STACKING) any number of units in one hex
    b = battle([
        unit("a", FED, "blue", "0505", "A", 8),
        unit("b", FED, "blue", "0404", "B", 8),
        unit("c", KLI, "red", "0604", "F", 8),
    ])
    step(b, a="S", b="S", c="S")
    assert hex_of(b, "a") == hex_of(b, "b") == hex_of(b, "c") == "0504"
    assert all(b.state.status[row(b, u)] == Status.ACTIVE for u in "abc")


def test_leaving_the_map_is_disengagement():
    b = battle([unit("fed", FED, "blue", "0110", "A", 8), unit("k", KLI, "red", "0510", "A", 0)])
    step(b, fed="L")  # facing F from column 01: off the west edge
    left = of(b, "LeftMap", unit="fed")
    assert len(left) == 1 and (left[0].src, left[0].facing) == ("0110", "F")
    assert b.state.status[row(b, "fed")] == Status.DISENGAGED
    assert row(b, "fed") not in b.agent_units()
    assert hex_of(b, "fed") == "0110"  # it never enters a hex off the map
    k_phaser = b.weapon_ids.index("k.PH2-1")
    run_to(b, 1, 2)
    assert b.fire_blockers(k_phaser, [row(b, "fed")]) == ["E1.2 the target is not in play"]


def test_scenario_1_stardock_routes():
    # (C3.43 note, rules file 002) out of stardock: 0517 facing F, speed 8, turn mode 2, one turn
    routes = {
        "SSSRSSS": ["0416", "0316", "0215", "0115", "0114", "0113", "0112", "0111"],
        "SRSLSRS": ["0416", "0316", "0315", "0314", "0213", "0113", "0112", "0111"],
    }
    for moves, path in routes.items():
        b = battle([unit("constellation", FED, "blue", "0517", "F", 8)], map_="A+row17")
        for m in "S" + moves:  # impulse 0 orders the move of impulse 1, and so on
            step(b, constellation=m)
        assert [e.dst for e in of(b, "Moved", unit="constellation")] == path
        assert facing_of(b, "constellation") == "A"
        # ends with its turn mode satisfied: may turn on impulse 1 of the scenario
        assert Maneuver.TURN_RIGHT not in b.maneuver_blockers(row(b, "constellation"))
    # turning again one hex after a turn is refused
    b = battle([unit("constellation", FED, "blue", "0517", "F", 8)], map_="A+row17")
    step(b, constellation="S")
    step(b, constellation="S")
    step(b, constellation="R")
    with pytest.raises(IllegalOrderError, match="C3.2"):
        step(b, constellation="L")


def test_scenario_1_walkthrough_first_turn():
    # SCENARIOS §3 scenario 1 worked first turn, with the book's two kills (scripted dice)
    from engine_helpers import Dice

    b = make_battle("cth-01", seed=0)
    b.rng = Dice(1, 3)
    step(b, constellation="R")  # impulse 1: turn right into 0210
    drones = ("drone-A", "drone-B", "drone-C", "drone-D", "drone-E")
    assert hex_of(b, "drone-B") == "0307"
    step(b, constellation="S")  # 0310
    step(b, constellation="S")  # 0409
    assert hex_of(b, "drone-D") == "0509"
    # impulse 3: the left phaser kills drone D at range 1 (the forward one stays free)
    step(b, constellation=dict(maneuver="S", fire={"PH1-2": "drone-D"}))
    assert hex_of(b, "drone-C") == "0709"
    step(b, constellation=dict(maneuver="S", fire={"PH1-1": "drone-C"}))  # impulse 4, range 2
    for _ in range(2):
        step(b, constellation="S")
    step(b, constellation="L")  # impulse 8: turn left into 0806
    assert (b.state.turn, b.state.impulse) == (1, 8)
    path = [e.dst for e in of(b, "Moved", unit="constellation")]
    assert path == ["0210", "0310", "0409", "0509", "0608", "0708", "0807", "0806"]
    fired = of(b, "Fired")
    assert [(e.weapon, e.target, e.range, e.die, e.damage) for e in fired] == [
        ("constellation.PH1-2", "drone-D", 1, 1, 8),
        ("constellation.PH1-1", "drone-C", 2, 3, 5),
    ]
    assert [e.unit for e in of(b, "Destroyed")] == ["drone-D", "drone-C"]
    alive = {d: hex_of(b, d) for d in drones if b.state.status[row(b, d)] == Status.ACTIVE}
    assert alive == {"drone-A": "0905", "drone-B": "1003", "drone-E": "0809"}
    # the book's ranges on the way: 0210->0307 = 4, 0310->0609 = 3, 0409->0509 = 1
    b_moves = [e.dst for e in of(b, "Moved", unit="drone-B")]
    assert b_moves[:5] == ["0307", "0406", "0506", "0605", "0705"]
    c_moves = [e.dst for e in of(b, "Moved", unit="drone-C")]
    assert c_moves == ["0706", "0707", "0708", "0709"]  # destroyed on impulse 4
    d_moves = [e.dst for e in of(b, "Moved", unit="drone-D")]
    assert d_moves == ["0710", "0609", "0509"]
