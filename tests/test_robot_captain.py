"""``robot-captain`` (``agents/robot_captain.py``): the scenario-4 robot ship (SCENARIOS.md
§2.5) flying an agent ship through the public env API, with the engine robot's own pure
decision functions (``sfb_env.engine.robot_ship``)."""

from __future__ import annotations

import pytest

import agents
import sfb_env
from agents.base import bind_policy
from sfb_env.engine import movement, robot_ship


class _TieError(Exception):
    pass


def _tie() -> int:
    raise _TieError


def test_robot_captain_is_registered():
    assert "robot-captain" in agents.base.registered_policies()


def test_robot_captain_pursues_and_fires_like_the_engine_robot():
    # cth-05: the captain flies the Klingon; before its PFP every move it orders is the one
    # the engine robot would choose from the same state (ties by die left out)
    env = sfb_env.parallel_env("cth-05", illegal_action="raise")
    obs, _ = env.reset(seed=3)
    klingon, fed = env.agents
    captain = agents.get("robot-captain")
    bind_policy(captain, env, klingon)
    captain.reset(3)
    other = agents.get("random", seed=3)
    battle = env.battle
    u = battle.unit_index["destruction"]
    t = battle.unit_index["constellation"]
    compared = 0
    while env.agents and battle.state.turn <= 3:
        action = captain.act(obs[klingon], env.action_space(klingon))
        st = battle.state
        mode = movement.turn_mode(battle, u)
        if (captain.fired_turn != st.turn and movement.moves_next(battle, u)
                and not battle.speed_choice_open()):
            try:
                want = robot_ship.pursue(int(st.x[u]), int(st.z[u]), int(st.facing[u]),
                                         int(st.x[t]), int(st.z[t]),
                                         int(st.straight[u]) >= mode, _tie)
            except _TieError:
                want = None
            if want is not None:
                expected = robot_ship.edge_safe_move(battle.in_area, int(st.x[u]), int(st.z[u]),
                                                     int(st.facing[u]), int(st.straight[u]),
                                                     mode, want)
                assert action[captain.layout.maneuver] == int(expected)
                compared += 1
        actions = {klingon: action}
        if fed in env.agents:
            actions[fed] = other.act(obs[fed], env.action_space(fed))
            names = env._layouts[fed].component_names()
            actions[fed][names.index("disengage")] = 0  # (SCENARIOS #5) no announcement
        obs, *_ = env.step(actions)
    assert compared >= 5
    shots = [e for e in battle.events if e.kind == "Fired" and e.unit == "destruction"]
    first = [e for e in shots if e.turn == shots[0].turn and e.impulse == shots[0].impulse]
    last = st.impulses_per_turn
    assert all(e.range <= robot_ship.DEFAULT_PFP_RANGE or e.impulse == last for e in first)


@pytest.mark.parametrize("name", ("cth-04", "cth-05"))
def test_robot_captain_plays_whole_games_inside_the_mask(name):
    env = sfb_env.parallel_env(name, illegal_action="raise")
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        pols = {}
        for a in env.agents:
            pols[a] = agents.get("robot-captain")
            bind_policy(pols[a], env, a)
            pols[a].reset(seed)
        steps = 0
        while env.agents:
            obs, *_ = env.step({a: pols[a].act(obs[a], env.action_space(a)) for a in env.agents})
            steps += 1
        assert steps > 0 and env.battle.outcome is not None
        # the robot never leaves the map on its own (SCENARIOS §2.5)
        assert not [e for e in env.battle.events if e.kind == "LeftMap"]
