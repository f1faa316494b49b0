"""One legality predicate per order kind (DESIGN "Inside the engine", L3): the env's mask,
``mask_reasons`` and the engine's validation of a fire order all call
``direct_fire.target_codes``, so replacing it changes all three at once."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import masked_actions

import sfb_env
from sfb_env.engine import IllegalOrderError, Orders, direct_fire
from sfb_env.engine.direct_fire import TargetCode


def _first_open_shot(env, obs, rng, limit=200):
    """Step random masked play until some agent may fire a weapon at target slot 1; returns
    (actions played, agent, component name, the weapon row, the target row)."""
    played = []
    for _ in range(limit):
        for agent in env.agents:
            reasons = env.mask_reasons(agent)
            for comp in env.action_components(agent):
                if comp["kind"] == "fire" and 1 not in reasons.get(comp["name"], {}):
                    battle = env.battle
                    w = battle.weapon_ids.index(comp["weapon"])
                    unit = battle.unit_index[agent]
                    targets = [t for t, why in enumerate(battle.fire_blockers(w)) if why is None]
                    return played, agent, comp["name"], w, unit, targets
        actions = masked_actions(env, obs, rng)
        played.append(actions)
        obs, *_ = env.step(actions)
    pytest.fail("no open shot found")


def _mask_of(env, obs, agent, component):
    offsets = np.cumsum([0] + [c["size"] for c in env.action_components(agent)])
    names = [c["name"] for c in env.action_components(agent)]
    k = names.index(component)
    return obs[agent]["action_mask"][offsets[k]:offsets[k + 1]]


def test_fire_mask_reasons_and_validation_share_one_predicate(monkeypatch):
    env = sfb_env.parallel_env("duel-klingon-vs-federation")
    obs, _ = env.reset(seed=0)
    played, agent, component, w, unit, targets = _first_open_shot(
        env, obs, np.random.default_rng(1))
    battle = env.battle
    now = battle.state.absolute_impulse
    assert targets and direct_fire.fire_mask(battle, np.array([w]))[0, targets].all()
    blocked = battle.maneuver_blockers(unit)
    maneuver = next(m for m in battle.maneuvers if m not in blocked)
    battle.validate({unit: Orders(maneuver=maneuver, fire={w: targets[0]})})  # legal today

    real = direct_fire.target_codes

    def closed_now(b, weapons, units):  # the predicate, replaced: nothing in arc this impulse
        codes, rng, effective = real(b, weapons, units)
        if b.state.absolute_impulse == now:
            codes = np.where(codes == TargetCode.OPEN, int(TargetCode.ARC), codes)
        return codes, rng, effective

    monkeypatch.setattr(direct_fire, "target_codes", closed_now)
    # the engine's validation
    with pytest.raises(IllegalOrderError, match="D2.1"):
        battle.validate({unit: Orders(maneuver=maneuver, fire={w: targets[0]})})
    # mask_reasons
    assert env.mask_reasons(agent)[component][1].startswith("D2.1")
    # the env's mask: the same battle replayed to this decision point under the new predicate
    obs, _ = env.reset(seed=0)
    for actions in played:
        obs, *_ = env.step(actions)
    assert env.battle.state.absolute_impulse == now
    assert _mask_of(env, obs, agent, component)[1:].sum() == 0
    assert not direct_fire.fire_mask(env.battle, np.array([w])).any()
