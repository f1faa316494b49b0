"""The full-size Hydran duel ``grad-hydran-full-vs-klingon`` (SCENARIOS.md §4 ``gt-full``
layout): the Ranger *Tenacity* and its nine Stinger-F fighters (J4.0) against the Klingon D7,
the carrier's ``fighters`` action component, and random masked play.

PettingZoo's ``parallel_api_test`` and ``parallel_seed_test`` run on this scenario in
``test_env_api.py`` and the both-ways mask test in ``test_env_masks.py`` (both parametrised over
every listed scenario, so they cover the ``fighters`` component too).
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import random_masked_game

import sfb_env
from sfb_env.engine import small_craft
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import Status, UnitKind

FULL = "grad-hydran-full-vs-klingon"


def test_gt_full_layout_ranger_0216_b_against_d7_2801_e():
    sc = load_scenario(FULL)
    assert FULL in sfb_env.list_scenarios()
    assert (sc.impulses_per_turn, sc.map_name) == (32, "A+B")
    assert sc.rules["max_speed"] == 31 and sc.rules["damage"] == "standard_dac"
    ranger, d7 = sc.units
    assert (ranger.unit_class, ranger.hex, ranger.facing, ranger.speed) == (
        "hydran-ranger", "0216", 1, 20)
    assert (d7.unit_class, d7.hex, d7.facing, d7.speed) == ("klingon-d7", "2801", 4, 20)
    assert ranger.controller == d7.controller == "agent"


def test_j4_0_the_ranger_carries_nine_stinger_f_aboard_at_the_start():
    env = sfb_env.parallel_env(FULL)
    env.reset(seed=0)
    b = env.battle
    rows = small_craft.fighters_of(b, b.unit_index["tenacity"])
    assert len(rows) == 9
    assert np.all(b.state.kind[rows] == UnitKind.FIGHTER)
    assert np.all(b.state.status[rows] == Status.UNUSED)
    assert env.possible_agents == ["tenacity", "destruction"]  # fighters are not agents


@pytest.mark.parametrize("seed", range(4))
def test_random_masked_play_without_error(seed):
    env = sfb_env.parallel_env(FULL, illegal_action="raise")
    assert random_masked_game(env, seed, np.random.default_rng(seed)) > 0
    assert env.battle.done and env.battle.outcome


@pytest.mark.slow
def test_random_masked_play_100_seeds_without_error():
    env = sfb_env.parallel_env(FULL, illegal_action="raise")
    rng = np.random.default_rng(1)
    for seed in range(100):
        assert random_masked_game(env, seed, rng) > 0
