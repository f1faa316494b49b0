"""Phase-level parity of ``sfb_env.compiled.movement`` with the reference engine: Speed
Determination (``procedure._speed_determination``), Move Ships (``procedure._move_ships``) and
Move Seeking Weapons (``procedure._move_seeking_weapons``), on states the reference reaches in
every tier-1 scenario (random, random-fighter and doctrine play; several seeds), each phase run
on every recorded state as one compiled batch: same arrays, same dice, same events."""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np
import pytest
from compiled_move_recording import TIER1, compare_phase, games, recorded, sample

from sfb_env import hexmap
from sfb_env.compiled import layout, movement
from sfb_env.engine import procedure
from sfb_env.engine.battle import Battle
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import DISENGAGED, K_DRONE, K_FREIGHTER, K_TARGET_DRONE, Maneuver, Orders

# Phase by phase against the reference: the whole-step lockstep parity (test_compiled_parity)
# covers CI; these compile their own kernel variants (minutes cold), so they run with -m slow.
pytestmark = pytest.mark.slow

KERNELS = {"speed_determination": movement.speed_determination,
           "move_ships": movement.move_ships,
           "move_seeking_weapons": movement.move_seeking_weapons}
SEEDS = (0, 1)
PER_GAME = 40  # recorded states per phase and game (first and last always among them)


def _items(scenario: str, phase: str) -> list:
    out = []
    for sc, seed, policy in games((scenario,), SEEDS):
        out += sample(recorded(sc, seed, policy)[phase], PER_GAME, seed)
    return out


@cache
def _compared(scenario: str, phase: str) -> tuple[list[str], list]:
    items = _items(scenario, phase)
    assert items
    return compare_phase(phase, KERNELS[phase], items)


@pytest.mark.parametrize("phase", list(KERNELS))
@pytest.mark.parametrize("scenario", TIER1)
def test_phase_matches_reference_on_reachable_states(scenario, phase):
    problems, _ = _compared(scenario, phase)
    assert problems == []


def test_reachable_states_cover_turn_boundaries_and_map_exits():
    """The recorded states reach what the phases must get right: both ends of the turn, units
    leaving the map (ships, freighters, target drones), robot turns (freighters, homing drones),
    freighters slowed by damage (R1.6). (A homing drone's tie die never comes up in play: its
    target must be right astern; ``test_compiled_robots`` builds that state.)"""
    seen = Counter()
    for scenario in TIER1:
        for phase in KERNELS:
            items = _items(scenario, phase)
            _, events = _compared(scenario, phase)
            for (battle, *_), evs in zip(items, events, strict=True):
                st = battle.state
                seen[f"{phase} impulse {st.impulse}"] += 1
                seen[f"{phase} turn {min(st.turn, 2)}"] += 1
                for e in evs:
                    row = battle.unit_index[e.unit]
                    seen[f"{e.kind} kind {int(st.kind[row])}"] += 1
                    if e.kind == "Moved" and e.turned:
                        seen[f"turn kind {int(st.kind[row])}"] += 1
                    if e.kind == "SpeedSet" and st.kind[row] == K_FREIGHTER and (
                            e.speed < battle.start_speed[row]):
                        seen["freighter slowed"] += 1
    for key in ("speed_determination turn 1", "speed_determination turn 2",
                "move_ships impulse 1", "move_ships impulse 8", "move_ships turn 2",
                "move_seeking_weapons impulse 1", "move_seeking_weapons impulse 8",
                f"LeftMap kind {K_TARGET_DRONE}", "LeftMap kind 0", f"LeftMap kind {K_FREIGHTER}",
                f"turn kind {K_FREIGHTER}", f"turn kind {K_DRONE}", "turn kind 0",
                "freighter slowed"):
        assert seen[key] > 0, (key, dict(seen))


def _battle(scenario: str) -> Battle:
    return Battle(load_scenario(scenario), seed=3)


def test_ship_leaves_the_map_and_equal_speeds_move_in_row_order():
    """A ship driven off the east edge disengages (LeftMap) and the others still move; the
    freighters (speed 4) move before the raider (speed 8), rows in order (C1.3)."""
    battle = _battle("cth-03")
    st = battle.state
    raider = battle.unit_index["destruction"]
    area = battle.scenario.map_area  # the east edge, facing B: the next hex is off the map
    x, z = hexmap.label_to_axial(f"{area.last_column:02d}08", battle.scenario.parity)
    st.x[raider], st.z[raider], st.facing[raider] = x, z, 1
    assert not battle.in_area(x + 1, z - 1)
    st.impulse = 8  # every speed moves on the last impulse
    orders = {raider: Orders(maneuver=Maneuver.STRAIGHT)}
    problems, events = compare_phase("move_ships", movement.move_ships, [(battle, orders)])
    assert problems == []
    kinds = [e.kind for e in events[0]]
    assert kinds[-1] == "LeftMap" and kinds.count("Moved") == 4
    ref = battle.copy()
    procedure._move_ships(ref, orders)
    assert ref.state.status[raider] == DISENGAGED


def test_kernels_leave_other_battles_alone():
    """A phase on battle b writes battle b only (the battle axis)."""
    items = _items("cth-02", "move_seeking_weapons")[:4]
    batch = layout.pack([battle.state for battle, *_ in items])
    before = {n: getattr(batch, n).copy() for n in layout.HOT_FIELDS}
    mt = movement.move_tables(items[0][0].setup)
    bo = layout.empty_orders(len(items), batch.kind.shape[1], batch.w_owner.shape[1])
    movement.move_seeking_weapons(batch, mt, 1, bo)
    for name, arr in before.items():
        mine = getattr(batch, name)
        assert np.array_equal(np.delete(mine, 1, axis=0), np.delete(arr, 1, axis=0)), name

