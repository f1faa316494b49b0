"""Engine seeking weapons: drone racks and launch (FD1.1, FD1.2), homing (F2.0, F2.1),
endurance (FD1.4), destruction (FD1.54), the FD1.52 die modifier and impact (FD1.6, D3.4)."""

from __future__ import annotations

import pytest
from engine_helpers import Dice, battle, hex_of, of, row, run_to, step, unit, weapon

from sfb_env import hexmap
from sfb_env.engine import IllegalOrderError, Status

FED = "fed-cadet"
KLI = "klingon-cadet"


def _rack_battle():
    # the target stays out of reach: 27+ hexes, more than a drone flies in 3 turns (24)
    assert hexmap.distance("0101", "2816") >= 25
    return battle([unit("k", KLI, "red", "0101", "C", 0), unit("fed", FED, "blue", "2816", "A", 0)],
                  turn_limit=8)


def _launch(b):
    step(b, k=dict(launch={"DRONE-1": "fed"}))


def test_fd1_1_rack_of_4_one_launch_per_turn_and_quarter_turn():
    b = _rack_battle()
    rack = weapon(b, "k", "DRONE-1")
    fed = row(b, "fed")
    run_to(b, 1, 8)
    _launch(b)  # turn 1 impulse 8
    assert (b.state.turn, b.state.impulse) == (2, 1)
    (why,) = b.launch_blockers(rack, [fed])
    assert why == "FD1.2 launched within a quarter turn (2 impulses)"
    with pytest.raises(IllegalOrderError, match="quarter turn"):
        _launch(b)
    step(b, k={})
    _launch(b)  # turn 2 impulse 2
    run_to(b, 2, 5)
    assert b.launch_blockers(rack, [fed]) == ["FD1.2 the rack has already launched this turn"]
    run_to(b, 3, 4)
    _launch(b)  # turn 3 impulse 4
    run_to(b, 4, 1)
    _launch(b)  # turn 4 impulse 1: the fourth and last drone
    assert b.state.w_ammo[rack] == 0
    run_to(b, 5, 1)
    assert b.launch_blockers(rack, [fed]) == ["FD1.2 the drone rack is empty"]
    launched = of(b, "Launched")
    assert [(e.turn, e.impulse) for e in launched] == [(1, 8), (2, 2), (3, 4), (4, 1)]
    assert len({e.drone for e in launched}) == 4
    assert all(e.unit == "k" and e.rack == "k.DRONE-1" and e.target == "fed" for e in launched)


def test_fd1_4_drone_launched_impulse_4_turn_3_removed_end_of_impulse_4_turn_6():
    b = _rack_battle()
    run_to(b, 3, 4)
    _launch(b)
    (launch,) = of(b, "Launched")
    d = row(b, launch.drone)
    run_to(b, 6, 4)
    assert b.state.status[d] == Status.ACTIVE  # still flying after its move of impulse 4
    assert of(b, "Expired") == []
    step(b, k={})
    (gone,) = of(b, "Expired")
    assert (gone.unit, gone.turn, gone.impulse) == (launch.drone, 6, 4)
    assert gone.reason.startswith("FD1.4")
    assert b.state.status[d] == Status.EXPENDED
    assert len(of(b, "Moved", unit=launch.drone)) == 24  # 3 turns at speed 8


def test_fd1_2_launch_facing_puts_the_target_in_the_drone_fa():
    for target_hex in ("0101", "0505", "1203", "0512", "1215"):
        b = battle([unit("k", KLI, "red", "0808", "A", 0),
                    unit("fed", FED, "blue", target_hex, "A", 0)])
        run_to(b, 1, 1)
        _launch(b)
        (ev,) = of(b, "Launched")
        assert ev.hex == "0808"
        assert hexmap.in_arc("0808", ev.facing, target_hex, "FA"), (target_hex, ev.facing)


def test_fd1_2_drone_moves_one_hex_straight_before_turning():
    # target adjacent ahead (1007) when launched from 1008, then it moves C into 1108: a turn
    # right would enter its hex, but the new drone must first go straight to 1007
    b = battle([unit("k", KLI, "red", "1008", "A", 0), unit("fed", FED, "blue", "0907", "C", 8)])
    step(b, fed="S")
    assert hex_of(b, "fed") == "1007"
    _launch_and_fed = dict(launch={"DRONE-1": "fed"})
    step(b, k=_launch_and_fed, fed="S")
    (ev,) = of(b, "Launched")
    assert ev.facing == "A"
    assert hex_of(b, "fed") == "1108" == hexmap.neighbor("1008", "B")
    (first,) = of(b, "Moved", unit=ev.drone)
    assert (first.src, first.dst, first.turned) == ("1008", "1007", 0)
    step(b, fed="S")
    second = of(b, "Moved", unit=ev.drone)[1]
    assert second.src == "1007"  # from now on it may turn (turn mode 1)


def test_f2_0_robot_drone_homing_anchor():
    # SCENARIOS §2.3: ship in 0808; drone 1206 facing F turns into 1107; drone 1109 facing E
    # goes straight to 1009 (turning to 1008 is not closer)
    b = battle([
        unit("fed", FED, "blue", "0808", "A", 0),
        unit("d1", "drone", "red", "1206", "F", 8, controller="robot-drone", target="fed"),
        unit("d2", "drone", "red", "1109", "E", 8, controller="robot-drone", target="fed"),
    ])
    step(b)
    (m1,) = of(b, "Moved", unit="d1")
    (m2,) = of(b, "Moved", unit="d2")
    assert (m1.dst, m1.turned, m1.facing) == ("1107", -1, "E")
    assert (m2.dst, m2.turned, m2.facing) == ("1009", 0, "E")


def test_f2_0_drone_homes_on_the_hex_its_target_has_just_entered():
    b = battle([
        unit("fed", FED, "blue", "0808", "A", 8),
        unit("d", "drone", "red", "0812", "A", 8, controller="robot-drone", target="fed"),
    ])
    for _ in range(4):
        step(b, fed="S")
    fed_path = [e.dst for e in of(b, "Moved", unit="fed")]
    drone_path = [e.dst for e in of(b, "Moved", unit="d")]
    assert fed_path == ["0807", "0806", "0805", "0804"]
    assert drone_path == ["0811", "0810", "0809", "0808"]  # same speed: never closes


def test_fd1_54_drone_destroyed_by_4_points_cumulative():
    b = battle([
        unit("fed", FED, "blue", "0505", "A", 0),
        unit("d", "target-drone", "red", "0501", "A", 0, controller="target-drone"),
    ])
    d = row(b, "d")
    run_to(b, 1, 1)
    b.rng = Dice(6, 6)
    step(b, fed=dict(fire={"PH1-1": "d"}))  # range 4, die 6 -> 2
    assert b.state.damage[d] == 2 and b.state.status[d] == Status.ACTIVE
    step(b, fed=dict(fire={"PH1-2": "d"}))  # another 2: 4 in all
    assert b.state.damage[d] == 4 and b.state.status[d] == Status.DESTROYED
    (gone,) = of(b, "Destroyed")
    assert (gone.unit, gone.impulse) == ("d", 2)


@pytest.mark.parametrize(("modifier", "hit"), [(True, False), (False, True)])
def test_fd1_52_disruptor_plus_2_at_drones(modifier, hit):
    # range 10 (5-15): hit 1-4. A die of 3 becomes 5 with the +2: a miss
    b = battle([
        unit("k", KLI, "red", "0515", "A", 0),
        unit("d", "target-drone", "blue", "0505", "A", 0, controller="target-drone"),
    ], rules={"drone_die_modifier": modifier})
    run_to(b, 1, 1)
    b.rng = Dice(3)
    step(b, k=dict(fire={"DISR-A": "d"}))
    (shot,) = of(b, "Fired")
    assert (shot.die, shot.hit, shot.damage) == (3, hit, 3 if hit else 0)


def test_fd1_52_photon_plus_2_at_drones_but_not_in_scenario_2():
    from sfb_env.engine import make_battle

    assert make_battle("cth-02").scenario.rules.drone_die_modifier is False
    assert make_battle("cth-03").scenario.rules.drone_die_modifier is True
    for modifier, damage in ((True, 0), (False, 8)):
        b = battle([
            unit("fed", FED, "blue", "0510", "A", 0),
            unit("d", "target-drone", "red", "0505", "A", 0, controller="target-drone"),
        ], rules={"drone_die_modifier": modifier})
        run_to(b, 2, 1)
        b.rng = Dice(2)  # range 5 (5-8): hit 1-3; 2 + 2 = 4 misses
        step(b, fed=dict(fire={"PHOT-A": "d"}))
        assert of(b, "Fired")[0].damage == damage


def test_fd1_52_phasers_have_no_drone_modifier():
    b = battle([
        unit("k", KLI, "red", "0508", "A", 0),
        unit("d", "target-drone", "blue", "0505", "A", 0, controller="target-drone"),
    ])
    run_to(b, 1, 1)
    b.rng = Dice(6)
    step(b, k=dict(fire={"PH2-1": "d"}))  # Ph-2 range 3 die 6 -> 3
    assert of(b, "Fired")[0].damage == 3


@pytest.mark.parametrize(("maneuver", "ship_hex", "shield"), [("S", "0707", 2), ("R", "0807", 6)])
def test_fd1_6_d3_4_drone_strikes_the_shield_facing_its_approach(maneuver, ship_hex, shield):
    # CTH-DATA §1.8: ship 0708 facing A moves to 0707; the drone from 0806 enters 0707 and hits
    # #2. Had the ship turned right into 0807, the drone from 0806 hits #6.
    b = battle([
        unit("fed", FED, "blue", "0708", "A", 8),
        unit("d", "drone", "red", "0806", "E", 8, controller="robot-drone", target="fed"),
    ], rules={"damage": "interim"})
    step(b, fed=maneuver)
    assert hex_of(b, "fed") == hex_of(b, "d") == ship_hex
    (move,) = of(b, "Moved", unit="d")
    assert move.src == "0806"
    (hit,) = of(b, "SeekingHit")
    assert (hit.unit, hit.target, hit.shield, hit.warhead) == ("d", "fed", shield, 6)
    (dmg,) = of(b, "Damaged")
    assert (dmg.shield, dmg.to_shield, dmg.internal) == (shield, 6, 0)
    assert b.state.status[row(b, "d")] == Status.EXPENDED


def test_fd1_3_drones_of_a_destroyed_ship_are_removed():
    b = battle([unit("k", KLI, "red", "0101", "C", 0), unit("fed", FED, "blue", "2816", "A", 0)])
    run_to(b, 1, 1)
    _launch(b)
    b.apply_damage(row(b, "k"), 1, 1000)
    assert b.state.status[row(b, "k")] == Status.DESTROYED
    step(b)
    (gone,) = of(b, "Expired")
    assert gone.reason.startswith("D4.41")


# ---------------------------------------------------------------------- F2.3 same-hex launch


def _same_hex(fed_facing: str = "A", fed_speed: int = 0):
    """Klingon cadet and Federation cadet both in 1010, the Klingon facing A, at the decision
    of impulse 1 (a Federation speed 4 moves on impulses 2, 4, 6 and 8)."""
    b = battle([unit("k", KLI, "red", "1010", "A", 0),
                unit("fed", FED, "blue", "1010", fed_facing, fed_speed)],
               rules={"damage": "interim"})
    run_to(b, 1, 1)
    assert hex_of(b, "fed") == "1010"
    return b


def test_fd1_2_drone_launched_at_a_target_in_its_own_hex():
    b = _same_hex()
    rack, fed = weapon(b, "k", "DRONE-1"), row(b, "fed")
    assert b.launch_blockers(rack)[fed] is None  # (FD1.2, F2.3) legal: no refusal
    _launch(b)
    (ev,) = of(b, "Launched")
    # (F2.3, CTH-DATA §1.5) judged from 1011, one hex astern of the launcher: the target in
    # 1010 lies straight ahead, so the drone faces A, the launcher's facing
    assert hexmap.neighbor("1010", "D") == "1011"
    assert (ev.impulse, ev.hex, ev.facing) == (1, "1010", "A")
    assert hexmap.in_arc("1011", ev.facing, "1010", "FA")


@pytest.mark.parametrize(("fed_facing", "shield"), [("A", 4), ("B", 3), ("D", 1)])
def test_f2_3_drone_launched_in_its_targets_hex_strikes_on_the_next_resolve_step(
        fed_facing, shield):
    # Launch Seeking Weapons of impulse 1 comes after its Resolve Seeking Weapons (B2.0); in
    # the target's hex at the Resolve Seeking Weapons step of impulse 2 the drone does not
    # move (F2.1) and explodes (FD1.6) on the shield facing 1011, astern of the launcher
    # (F2.3): direction D is shield #4 of a ship facing A, #3 facing B, #1 facing D (D3.1)
    b = _same_hex(fed_facing)
    _launch(b)
    (launched,) = of(b, "Launched")
    assert not of(b, "Moved", unit=launched.drone)
    (hit,) = of(b, "SeekingHit")
    assert (hit.impulse, hit.unit, hit.target, hit.shield, hit.warhead) == (
        2, launched.drone, "fed", shield, 6)
    (dmg,) = of(b, "Damaged")
    assert (dmg.unit, dmg.shield, dmg.to_shield + dmg.internal) == ("fed", shield, 6)
    assert b.state.status[row(b, launched.drone)] == Status.EXPENDED


def test_f2_3_a_target_leaving_the_launch_hex_is_pursued_first_move_straight():
    b = _same_hex(fed_facing="C", fed_speed=4)
    _launch(b)  # impulse 2: the target moves out of 1010 before the drone moves (F2.1)
    (launched,) = of(b, "Launched")
    assert hex_of(b, "fed") == hexmap.neighbor("1010", "C")
    (first,) = of(b, "Moved", unit=launched.drone)  # (FD1.2) one hex straight ahead first
    assert (first.impulse, first.src, first.dst, first.turned) == (
        2, "1010", hexmap.neighbor("1010", "A"), 0)
    assert not of(b, "SeekingHit")
