"""Tractor beams (G7.0; CTH-DATA §8.3, every row) and towing (CTH-DATA §7.3 anchor), through
the engine (``engine.tractors``, rule ``tractors``)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from engine_helpers import row, scenario, unit

from sfb_env.engine import Maneuver, Orders, make_battle, movement, tractors
from sfb_env.engine.dac import DacBox
from sfb_env.engine.types import ACTIVE, DISENGAGED, EXPENDED, K_PLASMA

ROBOTS = {"convoy-freighter": {"turn_column": None}}  # straight ahead, no turns


def _battle(units, seed: int = 0, **rules):
    doc = scenario(units, rules={"energy": "standard", "damage": "standard_dac",
                                 "tractors": True, **rules}, robots=ROBOTS, turn_limit=None)
    doc["impulses_per_turn"] = 32
    return make_battle(doc, seed=seed)


def _orion(hex_="1008", facing="A", speed=16):
    return unit("orion", "orion-raider", "blue", hex_, facing, speed)


def _freighter(uid="freighter", hex_="1009", facing="B", speed=2):
    return unit(uid, "freighter-large", "red", hex_, facing, speed, "convoy-freighter")


def _step(b, tractor=None, moves=None):
    """One decision: straight where the unit moves, else no move; ``tractor`` {uid: {beam:
    target uid or RELEASE}}."""
    out = {}
    for u in b.agent_units():
        uid = b.unit_ids[u]
        m = (moves or {}).get(uid)
        if m is None:
            m = Maneuver.STRAIGHT if movement.moves_next(b, u) else Maneuver.NONE
        order = Orders(maneuver=m)
        for beam, target in ((tractor or {}).get(uid) or {}).items():
            order.tractor[beam] = target if target == tractors.RELEASE else row(b, target)
        out[u] = order
    b.step(out)


def _to_impulse(b, imp, turn=None):
    while b.state.impulse != imp or (turn is not None and b.state.turn != turn):
        _step(b)


def test_g7_towing_anchor_orion_16_becomes_11_with_one_freighter():
    """CTH-DATA §7.3: Orion 10 warp (15 hexes) + 1 impulse = 16; towing one freighter the move
    cost 2/3 + 1/3 = 1 -> floor(10 / 1) + 1 = 11, at once."""
    assert tractors.towing_speed(10, 1, Fraction(2, 3), 0) == 16
    assert tractors.towing_speed(10, 1, Fraction(2, 3), 1) == 11
    b = _battle([_orion(speed=16), _freighter()])
    o = row(b, "orion")
    _step(b)  # impulse 0 -> 1: the form pays speed 16 and both beams
    assert int(b.state.speed[o]) == 16 and int(b.state.tractor_powered[o]) == 2
    _step(b, {"orion": {0: "freighter"}})
    assert int(b.state.speed[o]) == 11
    assert any(e.kind == "SpeedSet" and e.unit == "orion" and e.speed == 11 for e in b.events)


def test_g7_energy_one_per_beam_per_turn_on_the_standard_form():
    used = {}
    for on in (True, False):
        b = _battle([_orion(speed=10), _freighter()], tractors=on)
        _step(b)
        used[on] = next(e for e in b.events if e.kind == "EnergyAllocated").used
        assert int(b.state.tractor_powered[row(b, "orion")]) == (2 if on else 0)
    assert used[True] - used[False] == 2


def test_g7_unpowered_beam_attaches_only_on_reserve_power():
    """(G7.0, H7.2) reserve power may power a tractor: one battery, to the end of the turn."""
    for reserve in (False, True):
        b = _battle([_orion(), _freighter()], reserve_power=reserve)
        o, f = row(b, "orion"), row(b, "freighter")
        _step(b)
        b.state.tractor_powered[o] = 0  # as if the form could not pay the beams
        why = tractors.attach_blockers(b, o, 0, [f])[0]
        if not reserve:
            assert why is not None and "not powered" in why
            continue
        assert why is None
        before = int(b.state.batteries[o])
        _step(b, {"orion": {0: "freighter"}})
        assert int(b.state.tractor_holder[f]) == o
        assert int(b.state.batteries[o]) == before - 1


def test_g7_range_same_or_adjacent_hex_any_direction():
    b = _battle([_orion("1008"), _freighter("behind", "1007"), _freighter("far", "1010")])
    o = row(b, "orion")
    _step(b)
    near, far = tractors.attach_blockers(b, o, 0, [row(b, "behind"), row(b, "far")])
    assert near is None  # directly astern: any direction
    assert "same or an adjacent hex" in far


def test_g7_attach_only_in_the_tractor_step_of_an_impulse():
    b = _battle([_orion(), _freighter()])
    why = tractors.attach_blockers(b, row(b, "orion"), 0, [row(b, "freighter")])[0]
    assert "Tractor Beams step" in why  # impulse 0: no step before impulse 1


def test_g7_each_beam_once_per_turn():
    b = _battle([_orion(speed=0), _freighter(speed=0)])
    o, f = row(b, "orion"), row(b, "freighter")
    _step(b)
    _step(b, {"orion": {0: "freighter"}})
    _step(b, {"orion": {0: tractors.RELEASE}})
    assert int(b.state.tractor_holder[f]) == -1
    assert "once per turn" in tractors.attach_blockers(b, o, 0, [f])[0]
    assert tractors.attach_blockers(b, o, 1, [f])[0] is None  # the other beam is free


def test_g7_not_again_within_8_impulses_of_its_release():
    b = _battle([_orion(speed=0), _freighter(speed=0)])
    o, f = row(b, "orion"), row(b, "freighter")
    _to_impulse(b, 28)
    _step(b, {"orion": {0: "freighter"}})  # attached in impulse 28
    _step(b, {"orion": {0: tractors.RELEASE}})  # released in impulse 29 of turn 1
    _to_impulse(b, 4, turn=2)  # 7 impulses later
    assert "not again within 8 impulses" in tractors.attach_blockers(b, o, 0, [f])[0]
    _step(b)  # impulse 5 of turn 2: 8 impulses after the release
    assert tractors.attach_blockers(b, o, 0, [f])[0] is None


def test_g7_link_lapses_at_the_start_of_a_turn_unless_paid():
    for speed, kept in ((4, True), (28, False)):
        b = _battle([_orion("0508", "C", speed=20), _freighter(hex_="0509", speed=0)])
        o, f = row(b, "orion"), row(b, "freighter")
        _step(b)
        _step(b, {"orion": {0: "freighter"}})
        _to_impulse(b, 32)
        b.state.batteries[o] = 0
        b.step({o: Orders(speed=speed, maneuver=Maneuver.STRAIGHT
                          if movement.moves_next(b, o, speed) else Maneuver.NONE)})
        # speed 28 costs 18 warp + 1 impulse and 4 for the systems: 23, no energy left
        assert (int(b.state.tractor_holder[f]) == o) is kept
        lapsed = [e for e in b.events if e.kind == "TractorReleased" and "lapsed" in e.reason]
        assert bool(lapsed) is not kept


def test_g7_targets_freighters_drones_shuttles_never_plasma_own_drones_or_starships():
    units = [_orion("1008"), _freighter("f", "1009"),
             unit("fed", "fed-ca", "red", "1108", "A", 0),
             unit("drone", "drone", "red", "0908", "A", 32, "robot-drone", target="orion")]
    b = _battle(units)
    st = b.state
    o = row(b, "orion")
    own_drone = int(st.w_drone_rows[st.w_drone_rows >= 0][0])
    st.status[own_drone], st.x[own_drone], st.z[own_drone] = ACTIVE, st.x[o], st.z[o]
    st.side[own_drone] = st.side[o]
    plasma = int(np.flatnonzero(st.kind == K_PLASMA)[0]) if np.any(st.kind == K_PLASMA) else None
    _step(b)
    for t in ("f", "drone"):
        assert tractors.attach_blockers(b, o, 0, [row(b, t)])[0] is None
    assert "starship" in tractors.attach_blockers(b, o, 0, [row(b, "fed")])[0]
    assert "own side's seeking" in tractors.attach_blockers(b, o, 0, [own_drone])[0]
    assert plasma is None  # no plasma on these sheets: judge a drone row made a torpedo
    st.kind[own_drone] = K_PLASMA
    st.side[own_drone] = st.side[row(b, "fed")]
    assert "plasma" in tractors.attach_blockers(b, o, 0, [own_drone])[0]


def test_g7_targets_include_shuttles():
    units = [_orion("1008"), unit("fed", "fed-ca", "red", "1110", "A", 0)]
    b = _battle(units, admin_shuttles=True)
    st = b.state
    o = row(b, "orion")
    shuttle = next(u for u in range(len(st.kind)) if b.unit_ids[u].startswith("fed.shuttle"))
    st.status[shuttle], st.x[shuttle], st.z[shuttle] = ACTIVE, st.x[o], st.z[o]
    _step(b)
    assert tractors.attach_blockers(b, o, 0, [shuttle])[0] is None


def test_g7_held_unit_moves_parallel_to_the_holder_and_its_engines_stop():
    b = _battle([_orion("1008", "A", speed=8), _freighter("freighter", "1009", "B", 2)])
    o, f = row(b, "orion"), row(b, "freighter")
    st = b.state
    _step(b)
    _step(b, {"orion": {0: "freighter"}})
    start_o = (int(st.x[o]), int(st.z[o]))
    start_f = (int(st.x[f]), int(st.z[f]))
    facing_f = int(st.facing[f])
    turned = False
    for _ in range(24):
        move = None
        if movement.moves_next(b, o) and not turned and Maneuver.TURN_RIGHT not in \
                b.maneuver_blockers(o):
            move, turned = Maneuver.TURN_RIGHT, True  # the holder turns: no swing (G7.0)
        _step(b, moves={"orion": move} if move else None)
        assert (int(st.x[f]) - start_f[0], int(st.z[f]) - start_f[1]) == (
            int(st.x[o]) - start_o[0], int(st.z[o]) - start_o[1])
        assert int(st.facing[f]) == facing_f
    assert turned and (int(st.x[o]), int(st.z[o])) != start_o
    assert not any(e.kind == "Moved" and e.unit == "freighter" and e.turned for e in b.events)


def test_g7_contested_link_breaks_both_and_both_beams_are_spent():
    b = _battle([_orion("1008", speed=0), _freighter(speed=0),
                 unit("fed", "fed-ca", "red", "1010", "A", 0)])
    o, f, c = row(b, "orion"), row(b, "freighter"), row(b, "fed")
    _step(b)
    _step(b, {"orion": {0: "freighter"}})
    assert int(b.state.tractor_holder[f]) == o
    _step(b, {"fed": {1: "freighter"}})
    assert int(b.state.tractor_holder[f]) == -1
    assert (b.state.tractor_link[[o, c]] < 0).all()
    assert "once per turn" in tractors.attach_blockers(b, o, 0, [f])[0]
    assert "once per turn" in tractors.attach_blockers(b, c, 1, [f])[0]
    assert sum(e.kind == "TractorReleased" and e.reason == "contested" for e in b.events) == 2


def test_g7_loss_of_boxes_releases_links_down_to_the_working_beams():
    b = _battle([_orion("1008", speed=0), _freighter("f1", "1009", speed=0),
                 _freighter("f2", "1007", speed=0)])
    o = row(b, "orion")
    _step(b)
    _step(b, {"orion": {0: "f1", 1: "f2"}})
    assert (b.state.tractor_link[o] >= 0).all()
    b.state.dac_boxes[o, DacBox.TRACTOR] = 1  # one tractor box destroyed
    _step(b)
    assert int(b.state.tractor_link[o, 0]) == row(b, "f1")
    assert int(b.state.tractor_link[o, 1]) == -1
    assert any(e.kind == "TractorReleased" and e.reason == "beam destroyed" for e in b.events)


def test_g7_released_unit_continues_at_its_own_speed_and_the_tower_speeds_up():
    b = _battle([_orion("1008", speed=16), _freighter("freighter", "1009", "B", 2)])
    o, f = row(b, "orion"), row(b, "freighter")
    _step(b)
    _step(b, {"orion": {0: "freighter"}})
    assert int(b.state.speed[o]) == 11
    _step(b, {"orion": {0: tractors.RELEASE}})
    assert int(b.state.speed[o]) == 16 and int(b.state.speed[f]) == 2
    moved = sum(e.kind == "Moved" and e.unit == "freighter" and e.turn == 1
                and e.impulse > 2 for e in b.events)
    _to_impulse(b, 32)
    moved = sum(e.kind == "Moved" and e.unit == "freighter" and e.turn == 1
                and e.impulse > 2 for e in b.events) - moved
    assert moved >= 1  # on its own again: speed 2 moves on impulses 16 and 32


def test_g7_tractored_drone_never_strikes_and_is_removed_at_its_endurance():
    """CTH-DATA §5.2: a drone held to the end of its endurance is removed; a held object is
    never forced into contact (its target standing next to it)."""
    drone = unit("drone", "drone", "red", "1010", "A", 32, "robot-drone", target="orion")
    b = _battle([_orion("1008", speed=0), drone])
    d, o = row(b, "drone"), row(b, "orion")
    _step(b)  # impulse 1: the drone moved next to its target
    assert b.label(d) == "1009"
    _step(b, {"orion": {0: "drone"}})
    assert int(b.state.tractor_holder[d]) == o
    while b.state.status[d] == ACTIVE and b.state.turn < 5:
        _step(b)
    assert int(b.state.status[d]) == EXPENDED
    assert int(b.state.internal[o]) == 0 and not any(e.kind == "SeekingHit" for e in b.events)
    assert any(e.kind == "Expired" and e.unit == "drone" and "endurance" in e.reason
               for e in b.events)


def test_g7_towed_off_the_map_with_the_holder():
    b = _battle([_orion("1002", "A", speed=8), _freighter("freighter", "1003", "B", 0)])
    o, f = row(b, "orion"), row(b, "freighter")
    _step(b)
    _step(b, {"orion": {0: "freighter"}})
    while b.state.status[o] == ACTIVE:
        _step(b)
    assert int(b.state.status[o]) == DISENGAGED == int(b.state.status[f])
    assert int(b.state.towed_off_by[f]) == int(b.state.side[o])


def test_g7_illegal_tractor_order_raises_with_the_rule():
    from sfb_env.engine import IllegalOrderError

    b = _battle([_orion(), _freighter("f", "1012")])
    _step(b)
    o = row(b, "orion")
    with pytest.raises(IllegalOrderError, match="same or an adjacent hex"):
        b.validate({o: Orders(maneuver=Maneuver.STRAIGHT, tractor={0: row(b, "f")})})
    with pytest.raises(IllegalOrderError, match="holds nothing"):
        b.validate({o: Orders(maneuver=Maneuver.STRAIGHT, tractor={0: tractors.RELEASE})})


def test_g7_no_tractor_component_or_state_without_the_rule():
    b = make_battle("cth-07", seed=0)
    assert not b.rules.tractors and int(b.tractor_beams.sum()) == 0
