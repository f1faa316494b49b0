"""Masks and engine agree both ways (DESIGN "Spaces and masks").

1. No action the mask allows is refused: long random-masked runs with ``illegal_action="raise"``.
2. Every masked choice the engine can judge is refused by the engine with the same rule that
   ``mask_reasons`` gives (hypothesis picks the state and the choice).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sfb_env
from sfb_env.data import load_data_file
from sfb_env.engine import IllegalOrderError
from sfb_env.engine.scenario import SCENARIO_DIR

ENERGY_DUEL = "energy-duel"  # a dict scenario: the cadet Energy Allocation Form (B3.0)
SCENARIOS = sorted(sfb_env.list_scenarios()) + [ENERGY_DUEL]


def energy_duel() -> dict:
    """The Federation-Kzinti duel on 16-impulse turns under ``energy: cadet`` and ``cloak:
    cadet``, the Kzinti replaced by a Romulan Cadet Cruiser (cloak, plasma-S arming)."""
    doc = dict(load_data_file(SCENARIO_DIR / "duel-federation-vs-kzinti.yaml"))
    doc.update(name=ENERGY_DUEL, impulses_per_turn=16,
               rules={"energy": "cadet", "cloak": "cadet", "damage": "interim"})
    doc["units"] = [dict(u) for u in doc["units"]]
    doc["units"][1]["class"] = "romulan-cadet"
    return doc


def _env(scenario: str, **kw):
    return sfb_env.parallel_env(energy_duel() if scenario == ENERGY_DUEL else scenario, **kw)


SHORT, LONG = 1_000, 10_000  # the short run in every suite (60+ scenarios); the long one
#   with -m slow


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_no_allowed_action_is_refused_over_1000_random_masked_steps(scenario):
    _random_masked_steps(scenario, SHORT)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_no_allowed_action_is_refused_over_10000_random_masked_steps(scenario):
    _random_masked_steps(scenario, LONG)


def _random_masked_steps(scenario: str, n: int) -> None:
    env = _env(scenario, illegal_action="raise")
    rng = np.random.default_rng(0)
    steps, episode = 0, 0
    while steps < n:
        obs, _ = env.reset(seed=episode)
        while env.agents and steps < n:
            actions = {}
            for a in env.agents:
                space = env.action_space(a)
                space.seed(int(rng.integers(1 << 31)))
                actions[a] = space.sample(mask=obs[a]["action_mask"])
            obs, *_ = env.step(actions)  # raises IllegalActionError/IllegalOrderError if refused
            steps += 1
        episode += 1
    assert steps == n


def _advance(env, rng, n):
    obs, _ = env.reset(seed=int(rng.integers(1000)))
    for _ in range(n):
        if not env.agents:
            return None
        actions = {}
        for a in env.agents:
            space = env.action_space(a)
            space.seed(int(rng.integers(1 << 31)))
            actions[a] = space.sample(mask=obs[a]["action_mask"])
        obs, *_ = env.step(actions)
    return obs if env.agents else None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scenario=st.sampled_from(SCENARIOS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 40),
    pick=st.integers(0, 10_000),
)
def test_engine_refuses_every_masked_choice_with_the_mask_reason(scenario, seed, steps, pick):
    _engine_refuses_masked_choice(scenario, seed, steps, pick)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([0, 1, 2, 5, 15, 16, 17, 31, 32, 40]),
       pick=st.integers(0, 10_000))
def test_b3_energy_components_masks_and_engine_agree_both_ways(seed, steps, pick):
    """The energy duel alone, at and between its Energy Allocation points (impulses 0, 16)."""
    _engine_refuses_masked_choice(ENERGY_DUEL, seed, steps, pick)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([0, 1, 2, 31, 32, 33, 64]),
       pick=st.integers(0, 10_000))
def test_b3_standard_form_and_r10_components_masks_and_engine_agree_both_ways(seed, steps, pick):
    """cth-10 (standard form, reinforcement D3.34, damage control D9.2, reserve power H7) at and
    between its Energy Allocation points (impulses 0, 32)."""
    _engine_refuses_masked_choice("cth-10", seed, steps, pick)


def _engine_refuses_masked_choice(scenario, seed, steps, pick):
    env = _env(scenario)
    rng = np.random.default_rng(seed)
    obs = _advance(env, rng, steps)
    if obs is None:
        return
    agent = env.agents[0]
    layout = env._layouts[agent]
    reasons = env.mask_reasons(agent)
    names = layout.component_names()
    mask_parts = env.action_space(agent).split_mask(obs[agent]["action_mask"])
    masked = [
        (i, v) for i, part in enumerate(mask_parts) for v in np.flatnonzero(part == 0)
    ]
    # every masked choice has a reason, and no allowed choice has one
    for i, part in enumerate(mask_parts):
        assert set(reasons[names[i]]) == {int(v) for v in np.flatnonzero(part == 0)}
    judgeable = [
        (i, v) for i, v in masked if "target slot" not in reasons[names[i]][int(v)]
        and "padding" not in reasons[names[i]][int(v)]
    ]
    if not judgeable:
        return
    i, v = judgeable[pick % len(judgeable)]
    action = layout.noop(env.battle)
    action[i] = v
    orders = layout.to_orders(env.battle, action, env._slots[agent])
    with pytest.raises(IllegalOrderError) as err:
        env.battle.validate({layout.unit: orders})
    assert err.value.rule == reasons[names[i]][int(v)]
