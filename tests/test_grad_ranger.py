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
from engine_helpers import (
    component_values_agree,
    masked_actions,
)
from fuzz_helpers import assert_fights, fuzz_games

import sfb_env
from sfb_env.engine import small_craft
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import Status, UnitKind
from sfb_env.env.actions import IllegalActionError

FULL = "grad-hydran-full-vs-klingon"


def test_gt_full_layout_ranger_0216_b_against_d7_2801_e():
    sc = load_scenario(FULL)
    assert FULL in sfb_env.list_scenarios()
    assert (sc.impulses_per_turn, sc.map_name) == (32, "A+B")
    assert sc.rules.max_speed == 31 and sc.rules.damage == "standard_dac"
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


def test_fuzz_2_seeds_to_the_end_of_turn_2_launches_the_fighters():
    # captains that fight (fuzz_helpers); the full coverage floors are test_fuzz.py's
    cov = fuzz_games(FULL, range(2), to_the_end=True, max_turns=2)
    assert_fights(FULL, cov)
    assert {"fighter", "ph-g", "fusion"} <= cov.weapons


@pytest.mark.slow
def test_fuzz_30_seeds_to_the_end():
    assert_fights(FULL, fuzz_games(FULL, range(30), to_the_end=True), turns=8)


# ---------------------------------------------------------------------- the fighters component


def _component(env, agent: str, name: str) -> int:
    return env._layouts[agent].component_names().index(name)


def _slot_of(env, agent: str, uid: str) -> int:
    return 1 + list(env._slots[agent]).index(env.battle.unit_index[uid])


def test_only_ships_with_small_craft_get_the_fighters_and_shuttles_components():
    env = sfb_env.parallel_env(FULL)
    names = {a: env._layouts[a].component_names() for a in env.possible_agents}
    assert "fighters" in names["tenacity"] and "shuttles" in names["tenacity"]
    assert "fighters" not in names["destruction"] and "shuttles" in names["destruction"]
    described = {c["name"]: c for c in env.action_components("tenacity")}
    assert described["fighters"]["count"] == 9 and described["shuttles"]["count"] == 1
    assert described["fighters"]["size"] == env.target_slots + 1
    cadet = sfb_env.parallel_env("grad-hydran-vs-klingon")  # no fighters on the cadet sheets
    assert all("fighters" not in env_names for env_names in
               (cadet._layouts[a].component_names() for a in cadet.possible_agents))


def test_j4_34_fighters_mask_closed_at_impulse_0_open_at_impulse_1_with_the_engine_rule():
    env = sfb_env.parallel_env(FULL, illegal_action="raise")
    obs, _ = env.reset(seed=0)
    i = _component(env, "tenacity", "fighters")
    part = env.action_space("tenacity").split_mask(obs["tenacity"]["action_mask"])[i]
    assert part[0] == 1 and not part[1:].any()
    assert env.mask_reasons("tenacity")["fighters"][1].startswith("B2.0")
    obs, *_ = env.step({a: env._layouts[a].noop(env.battle) for a in env.agents})
    k = _slot_of(env, "tenacity", "destruction")
    part = env.action_space("tenacity").split_mask(obs["tenacity"]["action_mask"])[i]
    assert part[k] == 1
    action = env._layouts["tenacity"].noop(env.battle)
    action[i] = k
    env.step({"tenacity": action,
              "destruction": env._layouts["destruction"].noop(env.battle)})
    b = env.battle
    launched = [e for e in b.events if e.kind == "Launched" and e.unit == "tenacity"]
    assert len(launched) == 9 and {e.target for e in launched} == {"destruction"}


def test_the_engine_refuses_a_masked_fighters_value_with_the_mask_reason():
    env = sfb_env.parallel_env(FULL, illegal_action="raise")
    env.reset(seed=0)
    i = _component(env, "tenacity", "fighters")
    action = env._layouts["tenacity"].noop(env.battle)
    action[i] = 1  # impulse 0: no launch before the first impulse (B2.0)
    with pytest.raises(IllegalActionError, match="B2.0"):
        env.step({"tenacity": action,
                  "destruction": env._layouts["destruction"].noop(env.battle)})


def test_uniform_spaces_pad_the_small_craft_components():
    env = sfb_env.parallel_env(FULL, uniform_spaces=True)
    obs, _ = env.reset(seed=0)
    assert env.action_space("tenacity") == env.action_space("destruction")
    names = env._layouts["destruction"].component_names()
    assert "fighters" in names
    reasons = env.mask_reasons("destruction")["fighters"]
    assert reasons and all("padding" in r for r in reasons.values())


@pytest.mark.parametrize("seed", range(3))
def test_small_craft_masks_and_engine_agree_both_ways(seed):
    """At the decision points of a random masked game, every ``fighters`` / ``shuttles`` value
    the mask opens is accepted by ``Battle.validate`` and every closed one (a unit in the slot)
    is refused with the mask's rule (J4.34, J1.0)."""
    env = sfb_env.parallel_env(FULL)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    seen = {True: 0, False: 0}
    while env.agents and env.battle.state.turn < 3:
        for a in env.agents:
            names = env._layouts[a].component_names()
            parts = env.action_space(a).split_mask(obs[a]["action_mask"])
            reasons = env.mask_reasons(a)
            for name in ("fighters", "shuttles"):
                if name not in names:
                    continue
                i = names.index(name)
                seen[True] += component_values_agree(env, a, obs, i, range(1, len(parts[i])))
                seen[False] += sum(v > 0 and "target slot" not in why
                                   for v, why in reasons[name].items())
        obs, *_ = env.step(masked_actions(env, obs, rng))
    assert seen[False] > 0
