"""Parity of ``sfb_env.compiled.robots`` with ``engine.robots``: the convoy freighters' fire
orders (``robots.fire_orders``, cth-03) on reachable states, the homing drone's tie die
(SCENARIOS §2.3, PROPOSAL [P-064]) and a captured freighter's edge course (PROPOSAL [P-037]),
both on built states since play does not reach them."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from compiled_move_recording import compare_phase, games, recorded

from sfb_env import hexmap
from sfb_env.compiled import layout, movement
from sfb_env.compiled import robots as crobots
from sfb_env.engine import direct_fire, procedure, robots
from sfb_env.engine.battle import Battle
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import K_DRONE, K_SHIP

# Phase by phase against the reference: the whole-step lockstep parity (test_compiled_parity)
# covers CI; these compile their own kernel variants (minutes cold), so they run with -m slow.
pytestmark = pytest.mark.slow


def _fire_items():
    out = []
    for sc, seed, policy in games(("cth-03",), (0, 1, 2)):
        out += recorded(sc, seed, policy)["fire_orders"]
    return out


def test_convoy_fire_orders_match_reference_on_reachable_states():
    """On every recorded Fire Direct-Fire step of cth-03 the compiled freighters pick the
    reference's targets (given the fire predicate ``direct_fire.fire_blockers``), in weapon row
    order, and draw no dice; some shots go at drones, some at the raider."""
    items = _fire_items()
    setup = items[0][0].setup
    mt = movement.move_tables(setup)
    n_weapons = len(items[0][0].state.w_owner)
    batch = layout.pack([battle.state for battle, *_ in items])
    fire = np.full((len(items), n_weapons), -1, dtype=np.int64)
    kinds = set()
    for b, (battle, *_) in enumerate(items):
        n_units = len(battle.state.kind)
        legal = np.zeros((n_weapons, n_units), dtype=np.bool_)
        for w in range(n_weapons):
            if mt.controller[battle.state.w_owner[w]] == crobots.CONVOY_FREIGHTER:
                legal[w] = [why is None for why in direct_fire.fire_blockers(battle, w)]
        crobots.robot_fire_orders(batch, mt, b, fire, legal)
        shots = robots.fire_orders(battle)
        assert crobots.robot_fire_due(batch, mt, b) or not shots
        assert [w for w, _ in shots] == sorted(w for w, _ in shots)
        assert {w: t for w, t in shots} == {int(w): int(fire[b, w])
                                            for w in np.flatnonzero(fire[b] >= 0)}
        assert layout.differences(batch, b, battle.state) == []
        kinds.update(int(battle.state.kind[t]) for _, t in shots)
    assert {K_DRONE, K_SHIP} <= kinds


@cache
def _cth02() -> Battle:
    return Battle(load_scenario("cth-02"), seed=0)


def _homing_drone(dx: int, dz: int, facing: int, straight: int) -> Battle:
    """cth-02 with drone-A at axial offset (dx, dz) from the cruiser, facing ``facing``."""
    battle = _cth02().copy()
    st = battle.state
    st.rng = np.random.default_rng((dx + 4) * 10 + dz + 4)
    ship, drone = battle.unit_index["constellation"], battle.unit_index["drone-A"]
    x, z = hexmap.label_to_axial("1508", battle.scenario.parity)
    st.x[ship], st.z[ship] = x, z
    st.x[drone], st.z[drone], st.facing[drone] = x + dx, z + dz, facing
    st.straight[drone] = straight
    st.impulse = 5
    return battle


@pytest.mark.parametrize("straight", [0, 1])
def test_homing_drone_from_every_bearing(straight):
    """A robot drone at every offset within 4 hexes of its target and every facing: the
    reference's move (the hex in front unless a turn is strictly closer, FD1.2 turn mode 1; in
    the target's hex it stays). The tie die (SCENARIOS §2.3, PROPOSAL [P-064]) is ported but
    never drawn: on a hex grid the two turns are never both strictly closer and equal."""
    items = [(_homing_drone(dx, dz, f, straight), {})
             for dx in range(-4, 5) for dz in range(-4, 5) if max(abs(dx), abs(dz),
                                                                  abs(dx + dz)) <= 4
             for f in range(6)]
    problems, events = compare_phase("move_seeking_weapons", movement.move_seeking_weapons,
                                     items)
    assert problems == []
    turns = {e.turned for evs in events for e in evs if e.unit.endswith("drone-A")}
    assert turns == ({-1, 0, 1} if straight else {0})
    assert any(not any(e.unit.endswith("drone-A") for e in evs) for evs in events)  # stays
    for battle, _ in items:  # no die drawn
        ref = battle.copy()
        before = ref.rng.bit_generator.state
        procedure._move_seeking_weapons(ref)
        assert ref.rng.bit_generator.state == before


def test_captured_freighter_flies_to_the_nearest_edge():
    """(PROPOSAL [P-037]) a freighter captured by the raider's side heads for the nearest edge
    (``unit_rules.edge_course``) from hexes in the middle, near and on the edges, every facing:
    the reference's moves, turns and map exits."""
    base = Battle(load_scenario("cth-03"), seed=0)
    f = base.unit_index["freighter-A"]
    items = []
    for label in ("0101", "0212", "0203", "1501", "1516", "2802", "2815", "2816", "1508"):
        for facing in range(6):
            battle = base.copy()
            st = battle.state
            st.captured_by[f] = st.side[battle.unit_index["destruction"]]
            x, z = hexmap.label_to_axial(label, battle.scenario.parity)
            st.x[f], st.z[f], st.facing[f] = x, z, facing
            st.impulse = 8
            items.append((battle, {}))
    problems, events = compare_phase("move_ships", movement.move_ships, items)
    assert problems == []
    mine = [e for evs in events for e in evs if e.unit == "freighter-A"]
    assert {e.kind for e in mine} == {"Moved", "LeftMap"}
    assert {e.turned for e in mine if e.kind == "Moved"} == {-1, 0, 1}
