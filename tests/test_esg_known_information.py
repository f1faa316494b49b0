"""ESG fields as known information (G23.46) in the observation, and lock-on to a cloaked ship
struck by an ESG (G23.621)."""

from __future__ import annotations

import numpy as np
from engine_helpers import hex_of, of, row, scenario, step, unit
from observation_helpers import span

import sfb_env
from sfb_env.engine import Orders, cloak, make_battle, sensors
from sfb_env.engine.esg import EsgPhase
from sfb_env.engine.types import EsgOrder, Maneuver
from sfb_env.env import observation_layout as obs_layout
from sfb_env.env import rule_features


def _block(env, agent: str, obs) -> np.ndarray:
    """The ``esg_fields`` sub-block of ``agent``'s observation (last in the vector)."""
    layout = env._layouts[agent]
    assert layout.rule_features[-1] == "esg_fields"
    block = span(env, agent, obs[agent]["observation"], "esg_fields")
    return block.reshape(1 + layout.slots, rule_features.ESG_FIELD_SIZE)


def test_g23_46_esg_fields_block_only_in_battles_with_an_esg():
    for name, has in (("grad-lyran-full-vs-klingon", True), ("grad-isc-full-vs-klingon", False),
                      ("grad-lyran-full-vs-hydran", True), ("duel-full-gorn-vs-klingon", False)):
        env = sfb_env.parallel_env(name)
        env.reset(seed=0)
        for agent in env.possible_agents:
            assert ("esg_fields" in env.rule_features(agent)) is has, (name, agent)


def test_g23_46_size_and_strength_of_an_operating_field_are_seen_by_both_sides():
    env = sfb_env.parallel_env("grad-lyran-full-vs-klingon", illegal_action="raise")
    obs, _ = env.reset(seed=0)
    lyran, klingon = env.possible_agents
    tiger = env._layouts[lyran].unit
    st = env.battle.state
    g = int(env.battle.esg_rows(tiger)[0])
    announced = False
    for _ in range(12):
        actions = {a: env._layouts[a].noop(env.battle) for a in env.agents}
        layout = env._layouts[lyran]
        names = layout.component_names()
        if not announced and st.impulse >= 1:  # (G23.31) announce a release at radius 2
            actions[lyran][names.index("esg[0]")] = int(EsgOrder.ANNOUNCE_2)
            announced = True
        obs, *_ = env.step(actions)
        if st.esg_phase[g] == EsgPhase.ACTIVE:  # operating
            break
    assert announced and int(st.esg_phase[g]) == EsgPhase.ACTIVE
    strength = int(st.esg_strength[g])
    assert strength == 17  # (G23.42) radius 2, 5 energy: CTH-DATA §6 chart cell
    expected = [1.0, 2 / 3, strength / 20]  # operating, radius / 3, strength / 20
    first = obs_layout.ESG_FIELD.size  # the first generator's fields, then the second's
    own = _block(env, lyran, obs)[0]
    assert np.allclose(own[:first], expected) and not own[first:].any()  # ESG-2 not operating
    slots = list(env._slots[klingon])
    seen = _block(env, klingon, obs)[1 + slots.index(tiger)]  # the enemy's view (G23.46)
    assert np.allclose(seen[:first], expected) and not seen[first:].any()
    assert not _block(env, klingon, obs)[0].any()  # the D7 has no generator


# ------------------------------------------------------------------ G23.621


def _tiger_and_cloaked_eagle(esg: bool = True):
    """8-impulse turns, the Tiger at rest at 0510 and a cloaked War Eagle at 0506 coming down
    the column at speed 8: it reaches distance 2 on impulse 2 and the ring of a radius-1 field
    (announced on impulse 1, released on 2, G23.31) on impulse 3."""
    doc = scenario([unit("t", "lyran-tiger", "blue", "0510", "A", 0),
                    unit("e", "romulan-war-eagle", "red", "0506", "D", 8)],
                   rules={"cloak": "standard", "lock_on": True})
    b = make_battle(doc, seed=0)
    e = row(b, "e")
    b.state.cloaked[e] = b.state.cloaked_before[e] = True  # fully cloaked since before turn 1
    step(b)  # impulse 0 -> 1
    g = int(b.esg_rows(row(b, "t"))[0])
    order = Orders(esg={g: int(EsgOrder.ANNOUNCE_1)}) if esg else Orders()
    b.step({row(b, "t"): order, e: Orders(maneuver=Maneuver.STRAIGHT)})  # -> impulse 2
    step(b)  # released on 2; the Eagle enters the ring in the movement of impulse 3
    return b


def test_g23_621_a_cloaked_ship_struck_by_an_esg_can_be_locked_on_during_that_impulse():
    b = _tiger_and_cloaked_eagle()
    st, t, e = b.state, row(b, "t"), row(b, "e")
    assert (st.turn, st.impulse, hex_of(b, "e")) == (1, 3, "0509")
    struck = of(b, "EsgStruck", target="e")
    assert struck and struck[-1].points > 0 and struck[-1].impulse == 3
    assert st.cloaked[e]  # still cloaked (G23.621: struck as if not cloaked)
    assert not cloak.fully_cloaked(b, e)
    assert sensors.target_blockers(b, np.array([e])) == [None]  # a launch at it is open
    assert cloak.effective_range(b, e, 1, firer=t) == 1  # not 2 x 1 + 5 (G13)
    step(b)  # impulse 4: no ESG damage this impulse, the lock-on is gone
    assert cloak.fully_cloaked(b, e)
    assert cloak.effective_range(b, e, 2, firer=t) == 2 * 2 + 5


def test_g23_621_without_esg_damage_the_cloaked_ship_stays_unlocked():
    b = _tiger_and_cloaked_eagle(esg=False)
    e = row(b, "e")
    assert b.state.impulse == 3 and not of(b, "EsgStruck")
    assert cloak.fully_cloaked(b, e)
    assert sensors.target_blockers(b, np.array([e]))[0].startswith("D6")
