"""The compiled helm (``helm.plan``, agents/helm_kernel.py) against its numpy specification
(``helm.reference_plan``): the same plan, bit for bit, on random goals and on every decision
of doctrine captains fighting graduate and cadet duels (drones, ESG, PPD, plasma, cloak)."""

from __future__ import annotations

import numpy as np
import pytest

import sfb_env
from agents import helm, helm_kernel
from agents.base import bind_policy, make_policy
from agents.gunnery import ev_table
from sfb_env import hexmap

KINDS = ("ph-1", "ph-2", "ph-3", "ph-g", "disruptor", "photon", "fusion", "ppd")
ARCS = tuple(hexmap.ARC_BITS)


def _random_case(r: np.random.Generator):
    """A helm question with every part of a goal drawn: a map area, a pose on or just off it,
    a schedule, the allowed first maneuvers, batteries, bands, weights and drones."""
    area = hexmap.MapArea(int(r.integers(1, 4)), int(r.integers(12, 29)),
                          int(r.integers(1, 4)), int(r.integers(12, 33)))
    col = int(r.integers(area.first_column - 1, area.last_column + 2))
    row = int(r.integers(area.first_row - 1, area.last_row + 2))
    x, z = (int(v) for v in hexmap.offset_to_axial_np(col, row))
    pose = helm.Pose(x, z, int(r.integers(6)), int(r.integers(0, 120)))
    horizon = int(r.integers(1, 7))
    schedule = [bool(v) for v in r.random(horizon) < 0.7]
    allowed = {int(v) for v in np.flatnonzero(r.random(4) < 0.7)}

    def batteries(n: int) -> tuple[helm.Battery, ...]:
        return tuple((hexmap.ARC_BITS[ARCS[r.integers(len(ARCS))]],
                      float(r.choice([1.0, 0.75, 1.5])) * ev_table(KINDS[r.integers(len(KINDS))]))
                     for _ in range(n))

    goal = helm.Goal(target=None)
    if r.random() < 0.85:
        goal.target = (x + int(r.integers(-8, 9)), z + int(r.integers(-8, 9)))
        goal.target_facing = int(r.integers(6))
        goal.target_rate = float(r.choice([0.0, 0.25, 0.5, 1.0, 1.5]))
    goal.offense_now = batteries(int(r.integers(0, 5)))
    goal.offense_next = batteries(int(r.integers(0, 5)))
    goal.threat = batteries(int(r.integers(0, 5)))
    goal.turn_left = int(r.integers(0, 8))
    goal.threat_scale = tuple(float(v) for v in r.choice([1.0, 4.0], int(r.integers(0, 7))))
    goal.threat_spread = float(r.choice([0.0, 0.1, 0.25, 0.5]))
    goal.band = tuple(sorted(int(v) for v in r.integers(0, 10, 2)))
    goal.offense_weight = float(r.choice([0.25, 0.1, 1 / 3]))
    goal.threat_weight = float(r.choice([0.25, 0.75, 0.3]))
    goal.shield_value = r.random(6) * int(r.integers(0, 2))
    goal.drones = tuple((x + int(r.integers(-4, 5)), z + int(r.integers(-4, 5)),
                         int(r.integers(6))) for _ in range(int(r.integers(0, 4))))
    return pose, area, schedule, allowed, int(r.integers(1, 5)), goal


def test_compiled_helm_matches_the_numpy_helm_on_random_goals():
    r = np.random.default_rng(23)
    seen = {"strike": 0, "no target": 0, "maneuvers": set()}
    for _ in range(600):
        case = _random_case(r)
        expected = helm.reference_plan(*case)
        assert helm.plan(*case) == expected, case
        seen["strike"] += any(s is not None for s in expected.drone_strikes)
        seen["no target"] += case[-1].target is None
        seen["maneuvers"].add(expected.maneuver)
    assert seen["strike"] > 20 and seen["no target"] > 20
    assert seen["maneuvers"] == {0, 1, 2, 3}


def test_d1_4_d2_1_d3_4_compiled_geometry_matches_hexmap_tables():
    """The kernel's range, arcs and shields are the formulas hexmap's tables hold, at every
    offset and facing of the tables (ranges 0-12 in full, the rest sampled)."""
    r = np.random.default_rng(5)
    offsets = [(dx, dz) for dx in range(-12, 13) for dz in range(-12, 13)]
    offsets += [tuple(int(v) for v in r.integers(-hexmap.LUT_RADIUS, hexmap.LUT_RADIUS + 1, 2))
                for _ in range(400)]
    for facing in range(6):
        for dx, dz in offsets:
            x, z = int(r.integers(-5, 30)), int(r.integers(-20, 20))
            tx, tz = x + dx, z + dz
            assert helm_kernel._arc_bits(x, z, facing, tx, tz) == int(
                hexmap.arc_bits_np(x, z, facing, tx, tz))
            assert helm_kernel._shield_bits(x, z, facing, tx, tz) == int(
                hexmap.shield_bits_np(x, z, facing, tx, tz))
            assert helm_kernel._distance(x, z, tx, tz) == int(hexmap.distance_np(x, z, tx, tz))


def test_compiled_map_area_matches_contains_axial():
    area = hexmap.MapArea(3, 20, 2, 25)
    for x in range(-2, 24):
        for z in range(-15, 30):
            assert helm_kernel._on_map(x, z, np.array([3, 20, 2, 25])) == bool(
                area.contains_axial_np(x, z))


@pytest.mark.parametrize("scenario", [
    "duel-klingon-vs-federation",   # drones aimed at both ships, photons held
    "grad-lyran-vs-hydran",         # ESG, phaser-G, fusion beams, energy allocation
    "grad-isc-vs-romulan",          # PPD, plasma torpedoes, the cloak
    "grad-hydran-vs-kzinti",        # drone swarms against phaser-G
])
@pytest.mark.compiled_late  # the battles on the compiled core (the README's backend)
def test_doctrine_decisions_plan_the_same_on_both_helms(scenario, monkeypatch, readme_backend):
    """Every helm question two doctrine captains ask over a battle gets the same plan."""
    asked = {"decisions": 0, "drones": 0, "scaled": 0}
    compiled = helm.plan

    def both(*args):
        plan = compiled(*args)
        assert plan == helm.reference_plan(*args)
        goal = args[-1]
        asked["decisions"] += 1
        asked["drones"] += bool(goal.drones)
        asked["scaled"] += any(v != 1.0 for v in goal.threat_scale)
        return plan

    monkeypatch.setattr(helm, "plan", both)
    env = sfb_env.parallel_env(scenario=scenario)
    for seed in range(6):
        observations, _ = env.reset(seed=seed)
        captains = {}
        for agent in env.agents:
            captains[agent] = make_policy("doctrine")
            bind_policy(captains[agent], env, agent)
        for _ in range(400):
            if not env.agents:
                break
            actions = {a: captains[a].act(observations[a], env.action_space(a))
                       for a in env.agents}
            observations, *_ = env.step(actions)
    assert asked["decisions"] > 250
    if scenario in ("duel-klingon-vs-federation", "grad-hydran-vs-kzinti"):
        assert asked["drones"] > 10
    if scenario == "duel-klingon-vs-federation":
        assert asked["scaled"] > 0  # the Federation's opening caution (SCENARIOS §2.1)


def test_a_battery_table_of_another_length_is_refused_by_name():
    """The kernel reads the tables without bounds checks: ``plan`` refuses a table that is not
    ``MAX_RANGE`` long (the numpy helm would fail or read other ranges)."""
    goal = helm.Goal(target=(3, 3), offense_now=((1, np.ones(10)),))
    with pytest.raises(ValueError, match=r"table has shape \(10,\).*MAX_RANGE"):
        helm.plan(helm.Pose(0, 0, 0, 0), hexmap.MapArea(1, 10, 1, 10), [True], {1}, 1, goal)
