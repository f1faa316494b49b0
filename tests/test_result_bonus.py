"""``training.result_bonus.ResultBonus``: the end result's extra reward, on exactly the step
where a slot's ship leaves with a result, and nothing else changed."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_phase_helpers import random_slot_actions

from sfb_env.backends import agent_vector_env
from sfb_env.env.reward import RESULT_VALUE
from training.result_bonus import ResultBonus

pytestmark = pytest.mark.compiled_late  # after the core is built, on either xdist worker

DUEL = "duel-klingon-vs-federation"


def test_result_bonus_adds_plus_or_minus_bonus_on_the_step_a_result_is_reported():
    kw = {"num_envs": 4, "learners": "all", "seed": 3, "backend": "compiled"}
    plain, bonus = agent_vector_env(DUEL, **kw), ResultBonus(agent_vector_env(DUEL, **kw), 2.5)
    np.testing.assert_array_equal(plain.reset(seed=3), bonus.reset(seed=3))
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(400):
        acts = random_slot_actions(plain, rng)
        want, got = plain.step(acts), bonus.step(acts)
        np.testing.assert_array_equal(got[0], want[0])
        expected = want[1].copy()
        for i, info in enumerate(want[4]):
            if "result" in info:
                expected[i] += 2.5 * RESULT_VALUE[info["result"]]
                seen.add(info["result"])
        np.testing.assert_allclose(got[1], expected)
        assert [i.get("episode") for i in got[4]] == [i.get("episode") for i in want[4]]
    assert {"win", "loss"} <= seen


def test_result_bonus_refuses_a_negative_bonus():
    with pytest.raises(ValueError, match="result bonus must be >= 0"):
        ResultBonus(agent_vector_env(DUEL, num_envs=1, backend="compiled"), -1.0)
