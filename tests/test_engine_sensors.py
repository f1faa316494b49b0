"""Sensors, scanners and lock-on (D6.0, CTH-DATA §8.1; ``rules.lock_on``) and the D7/D6 drone
rate (FD4.21, CTH-DATA §2.3)."""

from __future__ import annotations

import numpy as np
from engine_helpers import Dice, of, row, scenario, unit, weapon

from sfb_env.engine import Orders, cloak, make_battle, sensors
from sfb_env.engine.dac import DacBox
from sfb_env.engine.direct_fire import fire_mask
from sfb_env.engine.types import ACTIVE, EXPENDED


def std(units, **rules):
    """A 32-impulse battle on the standard form and DAC with the lock-on rule."""
    doc = scenario(units, rules={"energy": "standard", "damage": "standard_dac",
                                 "lock_on": True, **rules})
    doc["impulses_per_turn"] = 32
    return make_battle(doc, seed=0)


def duel(**rules):
    """Klingon D7 (agent, 0510 facing A) with a Federation CA 3 hexes ahead (0507 facing D)."""
    return std([unit("d7", "klingon-d7", "red", "0510", "A", 0),
                unit("fed", "fed-ca", "blue", "0507", "D", 0)], **rules)


def stay(b) -> dict[int, Orders]:
    energy_time = b.state.impulse in (0, b.state.impulses_per_turn)
    return {u: Orders(speed=0) if energy_time else Orders() for u in b.agent_units()}


def to(b, turn: int, impulse: int) -> None:
    while (b.state.turn, b.state.impulse) != (turn, impulse):
        b.step(stay(b))


def damage_sensors(b, uid: str, left: int) -> None:
    """Leave ``left`` boxes of the sensor track (destroyed best-first, D4.33)."""
    b.state.dac_boxes[row(b, uid), int(DacBox.SENSOR)] = left


def test_d6_sensor_6_locks_on_without_a_die():
    b = duel()
    b.rng = Dice()  # no die may be drawn: a sensor of 6 cannot fail
    b.step(stay(b))
    locks = of(b, "LockOn")
    assert [(e.unit, e.sensor, e.die, e.locked) for e in locks] == [
        ("d7", 6, 0, True), ("fed", 6, 0, True)]
    assert b.state.locked_on.all()


def test_d6_lock_on_roll_against_best_undestroyed_sensor():
    # sensor track 6,6,5,3,1,0 with 3 boxes left reads 3 (D4.33 best-first)
    b = duel()
    damage_sensors(b, "d7", 3)
    assert sensors.sensor(b, row(b, "d7")) == 3
    b.rng = Dice(4)
    b.step(stay(b))
    (lock,) = of(b, "LockOn", unit="d7")
    assert (lock.sensor, lock.die, lock.locked) == (3, 4, False)
    assert not b.state.locked_on[row(b, "d7")]
    b2 = duel()
    damage_sensors(b2, "d7", 3)
    b2.rng = Dice(3)
    b2.step(stay(b2))
    assert b2.state.locked_on[row(b2, "d7")]


def test_d6_failed_lock_on_launches_no_seeking_weapons():
    b = duel()
    d7, fed = row(b, "d7"), row(b, "fed")
    rack = weapon(b, "d7", "DRONE-1")
    to(b, 1, 1)
    assert b.launch_blockers(rack, [fed]) == [None]
    b.state.locked_on[d7] = False
    rule = "D6 no sensor lock-on this turn: no seeking weapons may be launched"
    assert b.launch_blockers(rack, [fed]) == [rule]


def test_d6_failed_lock_on_removes_its_drones_on_the_map():
    b = std([unit("d7", "klingon-d7", "red", "0210", "C", 0),
             unit("fed", "fed-ca", "blue", "2810", "D", 0)])  # 26 hexes apart
    d7, fed = row(b, "d7"), row(b, "fed")
    rack = weapon(b, "d7", "DRONE-1")
    to(b, 1, 25)
    b.step({d7: Orders(launch={rack: fed})})
    (drone,) = [d for d in np.flatnonzero(b.state.launcher == d7)
                if b.state.status[d] == ACTIVE]
    to(b, 1, 32)
    damage_sensors(b, "d7", 2)  # sensor 1: a die of 2 fails
    b.rng = Dice(2)
    b.step(stay(b))
    assert b.state.status[drone] == EXPENDED
    (gone,) = of(b, "Expired", reason="D6 its launcher has no lock-on")
    assert gone.unit == b.unit_ids[drone]


def test_d6_failed_lock_on_fires_at_true_range_x2():
    b = duel()
    d7, fed = row(b, "d7"), row(b, "fed")
    phaser = weapon(b, "d7", "PH2-1")
    to(b, 1, 1)
    b.state.locked_on[d7] = False
    b.step({d7: Orders(fire={phaser: fed})})
    (shot,) = of(b, "Fired")
    assert (shot.range, shot.effective_range) == (3, 6)


def test_d6_scanner_adjustment_added_to_the_doubled_range():
    # scanner track 0,0,1,3,5,9 with 3 boxes left reads 3
    b = duel()
    d7, fed = row(b, "d7"), row(b, "fed")
    b.state.dac_boxes[d7, int(DacBox.SCANNER)] = 3
    assert sensors.scanner(b, d7) == 3
    assert cloak.effective_range(b, fed, 3, d7) == 6  # 3 + 3
    b.state.locked_on[d7] = False
    assert cloak.effective_range(b, fed, 3, d7) == 9  # 2 x 3 + 3
    assert cloak.effective_range(b, fed, np.array([3, 5]), d7).tolist() == [9, 13]


def test_d6_scanner_closes_the_mask_past_the_weapon_range():
    # a disruptor reaches 30 (E3.32): at true range 26 with scanner 9 it reads 35
    b = std([unit("d7", "klingon-d7", "red", "0210", "C", 0),
             unit("fed", "fed-ca", "blue", "2810", "D", 0)])
    d7, fed = row(b, "d7"), row(b, "fed")
    disruptor = weapon(b, "d7", "DISR-A")
    to(b, 1, 1)
    assert b.fire_blockers(disruptor, [fed]) == [None]
    b.state.dac_boxes[d7, int(DacBox.SCANNER)] = 1  # the last box reads 9
    assert sensors.scanner(b, d7) == 9
    (why,) = b.fire_blockers(disruptor, [fed])
    assert why.startswith("D6/G13 effective range 35 (true range 26")
    assert not fire_mask(b, np.array([disruptor]))[0, fed]


def test_d6_cadet_ships_always_locked_on_scanner_0():
    b = std([unit("k", "klingon-cadet", "red", "0510", "A", 0),
             unit("fed", "fed-ca", "blue", "0507", "D", 0)])
    k = row(b, "k")
    assert sensors.sensor(b, k) is None and sensors.scanner(b, k) == 0
    b.rng = Dice()
    b.step(stay(b))
    assert b.state.locked_on[k]
    assert not of(b, "LockOn", unit="k")


def test_d6_rule_off_no_lock_on_step_and_no_scanner():
    b = duel(lock_on=False)
    d7, fed = row(b, "d7"), row(b, "fed")
    b.state.dac_boxes[d7, int(DacBox.SCANNER)] = 3
    b.step(stay(b))
    assert not of(b, "LockOn")
    assert cloak.effective_range(b, fed, 3, d7) == 3


# ----------------------------------------------------------------------------- FD4.21


def test_fd4_21_d7_launches_one_drone_per_turn_in_total():
    b = duel()
    d7, fed = row(b, "d7"), row(b, "fed")
    one, two = weapon(b, "d7", "DRONE-1"), weapon(b, "d7", "DRONE-2")
    to(b, 1, 1)
    b.step({d7: Orders(launch={one: fed})})
    rule = "FD4.21 the ship launches at most 1 drone(s) per turn from all its racks"
    assert b.launch_blockers(two, [fed]) == [rule]
    to(b, 2, 9)
    assert b.launch_blockers(two, [fed]) == [None]


def test_fd4_21_one_rack_on_impulse_32_the_other_on_impulse_1():
    # the SSD note: a launch on impulse 32 does not stop the other rack on the next impulse 1
    b = duel()
    d7, fed = row(b, "d7"), row(b, "fed")
    one, two = weapon(b, "d7", "DRONE-1"), weapon(b, "d7", "DRONE-2")
    to(b, 1, 32)
    b.step({d7: Orders(speed=0, launch={one: fed})})
    assert b.state.impulse == 1
    assert b.launch_blockers(two, [fed]) == [None]
    assert b.launch_blockers(one, [fed]) != [None]  # FD1.2: that rack already this quarter turn


def test_fd4_21_two_racks_ordered_on_one_impulse_only_the_first_launches():
    b = duel()
    d7, fed = row(b, "d7"), row(b, "fed")
    one, two = weapon(b, "d7", "DRONE-1"), weapon(b, "d7", "DRONE-2")
    to(b, 1, 1)
    b.step({d7: Orders(launch={one: fed, two: fed})})
    assert len(of(b, "Launched")) == 1
    (refused,) = of(b, "LaunchRefused")
    assert (refused.weapon, refused.rule[:7]) == ("d7.DRONE-2", "FD4.21 ")
    assert b.state.w_ammo[two] == 4


def test_fd4_21_orion_racks_each_launch_once_a_turn():
    b = std([unit("or", "orion-raider", "red", "0510", "A", 0),
             unit("fed", "fed-ca", "blue", "0507", "D", 0)])
    o, fed = row(b, "or"), row(b, "fed")
    one, two = weapon(b, "or", "DRONE-1"), weapon(b, "or", "DRONE-2")
    to(b, 1, 1)
    b.step({o: Orders(launch={one: fed})})
    assert b.launch_blockers(two, [fed]) == [None]


def test_d6_lock_on_in_force_in_the_full_size_book_scenarios():
    for name in ("cth-07", "cth-10", "cth-12", "cth-13"):
        b = make_battle(name, seed=0)
        assert b.rules.lock_on, name
        b.step({})
        assert of(b, "LockOn", unit="destruction", sensor=6, die=0, locked=True), name


def test_d6_a_ship_controls_at_most_its_sensor_rating_in_drones():
    b = duel()
    d7, fed = row(b, "d7"), row(b, "fed")
    rack = weapon(b, "d7", "DRONE-1")
    to(b, 1, 1)
    damage_sensors(b, "d7", 2)  # sensor 1
    assert b.launch_blockers(rack, [fed]) == [None]
    b.state.status[b.state.w_drone_rows[weapon(b, "d7", "DRONE-2"), 0]] = ACTIVE
    b.state.launcher[b.state.w_drone_rows[weapon(b, "d7", "DRONE-2"), 0]] = d7
    assert b.launch_blockers(rack, [fed]) == [
        "D6 the ship controls at most 1 drones (its sensor rating)"]
