"""``random-fighter``'s and ``random``'s orders are the same draws as their first, numpy
versions (kept here as the references): the open values of each component, the maneuvers that
keep the ship on the map (their straight run ahead read off the observation's ``edges``) and
one ``Generator.choice`` a component, on every decision of seeded games in duels with and
without energy components."""

from __future__ import annotations

import numpy as np
import pytest

import sfb_env
from agents.base import bind_policy, make_policy
from agents.observation_view import own_ship
from agents.random_fighter import ROOM, room_after
from sfb_env import hexmap


def _reference_step(column: int, row: int, direction: int) -> tuple[int, int]:
    x, z = hexmap.offset_to_axial_np(column, row)
    nx, nz = hexmap.neighbor_np(x, z, direction % 6)
    ncol, nrow = hexmap.axial_to_offset_np(nx, nz)
    return int(ncol), int(nrow)


def _reference_act(rng: np.random.Generator, kinds: list[str], observation, nvec) -> np.ndarray:
    """The first ``RandomFighter.act`` (numpy arrays and ``Generator.choice``)."""
    mask = np.asarray(observation["action_mask"]).astype(bool)
    own = own_ship(observation["observation"])
    action = np.zeros(len(nvec), dtype=np.int64)
    start = 0
    for i, n in enumerate(nvec):
        allowed = np.flatnonzero(mask[start:start + n])
        start += n
        if kinds[i] == "disengage":
            allowed = allowed[allowed == 0]
        elif kinds[i] == "maneuver":
            room = np.array([room_after(own.edges, own.column, own.row, own.facing, int(m))
                             for m in allowed])
            if len(room) and room.max() >= 0:
                allowed = allowed[room >= min(ROOM, room.max())]
        action[i] = rng.choice(allowed) if len(allowed) else 0
    return action


def _reference_random_act(rng: np.random.Generator, observation, nvec) -> np.ndarray:
    """The first ``RandomMaskedPolicy.act``."""
    mask = np.asarray(observation["action_mask"]).astype(bool)
    action = np.zeros(len(nvec), dtype=np.int64)
    start = 0
    for i, n in enumerate(nvec):
        allowed = np.flatnonzero(mask[start:start + n])
        action[i] = rng.choice(allowed) if len(allowed) else 0
        start += n
    return action


def test_c1_2_step_matches_the_hexmap_conversions():
    from agents.random_fighter import _step
    for column in range(-2, 31):
        for row in range(-2, 35):
            for direction in range(-6, 12):
                assert _step(column, row, direction) == _reference_step(column, row, direction)


def _decisions_matching(scenario: str, name: str, reference, seeds: int, impulses: int) -> int:
    """Play ``seeds`` seeded games (``impulses`` env steps at most) of ``scenario`` with the
    ``name`` captain on every ship, checking each order against ``reference(rng, captain,
    observation, nvec)`` drawing from a generator seeded alike; the decisions checked."""
    env = sfb_env.parallel_env(scenario=scenario)
    decisions = 0
    for seed in range(seeds):
        observations, _ = env.reset(seed=seed)
        captains, references = {}, {}
        for k, agent in enumerate(env.agents):
            captains[agent] = make_policy(name, seed=seed * 10 + k)
            bind_policy(captains[agent], env, agent)
            references[agent] = np.random.default_rng(seed * 10 + k)
        for _ in range(impulses):
            if not env.agents:
                break
            actions = {}
            for a in env.agents:
                nvec = np.asarray(env.action_space(a).nvec)
                expected = reference(references[a], captains[a], observations[a], nvec)
                actions[a] = captains[a].act(observations[a], env.action_space(a))
                np.testing.assert_array_equal(actions[a], expected)
                decisions += 1
            observations, *_ = env.step(actions)
    return decisions


@pytest.mark.parametrize("scenario", ["cth-05", "duel-kzinti-vs-orion", "grad-lyran-vs-hydran"])
def test_random_fighter_draws_as_its_numpy_version(scenario):
    def reference(rng, captain, observation, nvec):
        return _reference_act(rng, captain.kinds, observation, nvec)

    assert _decisions_matching(scenario, "random-fighter", reference, 5, 150) > 300


@pytest.mark.parametrize("scenario", ["duel-kzinti-vs-orion", "grad-isc-vs-romulan"])
def test_random_draws_as_its_numpy_version(scenario):
    def reference(rng, captain, observation, nvec):
        return _reference_random_act(rng, observation, nvec)

    assert _decisions_matching(scenario, "random", reference, 3, 60) > 100
