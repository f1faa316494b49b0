"""Scripted captains of cth-08 (Pirate Raid), cth-09 (Rescue at Rigel) and cth-11 (The Planet
Killer), agents/scenario_captains.py (SCENARIOS.md #8, #9, #11): every order inside the mask,
and one behaviour each (G7.0 tractors, G8.0 transporters, D7.0 boarding, J1.0 shuttles,
G4/G5 research, SCENARIOS §2.8 kill methods)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import yaml

import agents
import sfb_env
from agents import bench
from sfb_env import hexmap
from sfb_env.engine.scenario import SCENARIO_DIR
from sfb_env.engine.types import UnitKind

CAPTAINS = {  # policy -> (scenario, agent it flies)
    "pirate": ("cth-08", "queen-of-diamonds"),
    "defender": ("cth-08", "defender"),
    "rescuer": ("cth-09", "rescuer"),
    "rescue-opponent": ("cth-09", "opponent"),
    "researcher": ("cth-11", "constellation"),
}


def early_defender(turn: int = 1) -> dict[str, Any]:
    """cth-08 with the defender arriving on ``turn`` (SCENARIOS #8 replays: turn 5 or
    earlier), so that the defender captain meets the pirate."""
    doc = yaml.safe_load((SCENARIO_DIR / "cth-08.yaml").read_text())
    for unit in doc["units"]:
        if unit["id"] == "defender":
            unit["arrives"] = {"turn": turn}
    return doc


def play(scenario: Any, seed: int, captains: dict[str, str], max_turns: int | None = None,
         watch: Any = None) -> tuple[Any, dict]:
    """One game: the named captains fly their agents, random-masked play the rest; every
    action is checked against its mask (``bench.check_action``). ``watch(env, actions)`` is
    called before each step."""
    env = sfb_env.parallel_env(scenario, max_turns=max_turns)
    obs, _ = env.reset(seed=seed)
    policies = {}
    for a in env.possible_agents:
        name = captains.get(a, "random")
        policy = agents.get(name) if name != "random" else agents.RandomMaskedPolicy(seed + 1)
        agents.bind_policy(policy, env, a)
        policy.reset(seed)
        policies[a] = (name, policy)
    info: dict = {}
    while env.agents:
        actions = {}
        for a in env.agents:
            name, policy = policies[a]
            actions[a] = policy.act(obs[a], env.action_space(a))
            bench.check_action(name, a, env, actions[a], obs[a]["action_mask"])
        if watch is not None:
            watch(env, actions)
        obs, _, _, _, info = env.step(actions)
    return env, info


def test_scenario_captains_registered():
    names = agents.base.registered_policies()
    assert set(CAPTAINS) <= set(names)


@pytest.mark.parametrize("name", sorted(CAPTAINS))
def test_scenario_captain_plays_inside_the_mask(name):
    """Two short games each, every order inside the mask (``bench.check_action`` raises)."""
    scenario, agent = CAPTAINS[name]
    if name == "defender":
        scenario = early_defender()  # it arrives on turn 6 as written: meet the pirate
    for seed in (0, 1):
        env, _ = play(scenario, seed, {agent: name}, max_turns=2)
        assert env.battle.state.turn <= 3  # truncated after turn 2


def test_sc8_pirate_tractors_boards_and_takes_three_freighters():
    """(G7.0, G8.0, D7.0, SCENARIOS #8) Seed 0: the pirate attaches a tractor to a freighter
    within the first turn, beams boarding parties onto a stripped one and leaves the map with
    three freighters (a pirate victory) long before the defender arrives on turn 6."""
    seen: dict[str, int] = {}

    def watch(env, actions):
        st = env.battle.state
        u = env.battle.unit_index["queen-of-diamonds"]
        if np.any(st.tractor_link[u] >= 0) and "tractor" not in seen:
            seen["tractor"] = int(st.turn)
        if np.any(st.boarding_parties[st.kind == UnitKind.FREIGHTER, int(st.side[u])] > 0):
            seen.setdefault("boarded", int(st.turn))

    env, info = play("cth-08", 0, {"queen-of-diamonds": "pirate"}, watch=watch)
    assert seen["tractor"] == 1
    assert "boarded" in seen
    outcome = info["queen-of-diamonds"]["outcome"]
    assert outcome["result"] == "win", outcome
    assert env.battle.state.turn < 6


def test_sc8_defender_fires_only_at_the_pirate():
    """(SCENARIOS #8 special) The defender (arriving on turn 1 in this replay) fires at the
    pirate and never at a freighter."""
    fired = []

    def watch(env, actions):
        if "defender" not in actions:
            return
        slots = env._slots["defender"]  # the unit rows in target slots 1..K this impulse
        for i, c in enumerate(env.action_components("defender")):
            v = int(actions["defender"][i])
            if c["kind"] in ("fire", "launch") and v:
                fired.append(int(env.battle.state.kind[slots[v - 1]]))

    play(early_defender(), 0, {"queen-of-diamonds": "pirate", "defender": "defender"},
         watch=watch)
    assert fired, "the defender never fired"
    assert UnitKind.FREIGHTER not in set(fired)
    assert UnitKind.SHIP in set(fired)


def test_sc9_rescuer_lifts_the_survivors_and_leaves():
    """(G8.0, G8.24, SCENARIOS #9) Seed 0: the rescuer flies to Rigel, drops the shield
    facing it, transports the crew unit aboard at range <= 5 and leaves the map: a rescue."""
    env, info = play("cth-09", 0, {"rescuer": "rescuer"})
    st = env.battle.state
    planet = env.battle.unit_index["rigel"]
    assert st.crew_units[planet] == 0
    assert info["rescuer"]["outcome"]["result"] == "win"
    assert info["rescuer"]["outcome"]["level"] == "rescue"


def test_sc9_opponent_fights_the_rescuer_and_keeps_out_of_the_planet_hex():
    """(P2.0, SCENARIOS #9) The opponent closes on the rescuer and fires at it; it never
    stands in the planet hex."""
    near: list[int] = []

    def watch(env, actions):
        st = env.battle.state
        o, r, p = (env.battle.unit_index[k] for k in ("opponent", "rescuer", "rigel"))
        if st.status[o] == 0 and st.status[r] == 0:
            near.append(int(hexmap.distance_np(st.x[o], st.z[o], st.x[r], st.z[r])))
        assert (st.x[o], st.z[o]) != (st.x[p], st.z[p])

    play("cth-09", 0, {"opponent": "rescue-opponent"}, max_turns=4, watch=watch)
    assert min(near) < near[0]


def test_sc11_researcher_probes_keeps_out_of_detection_and_kills_the_monster():
    """(G4.0, G5.2, SCENARIOS §2.8) Seed 0: the researcher launches an information probe,
    stays beyond the monster's 2-hex detection until the research has found a kill method,
    and destroys the Planet Killer before the planet takes 200."""
    trace: dict[str, Any] = {"closest": 99}

    def watch(env, actions):
        st = env.battle.state
        s, m = env.battle.unit_index["constellation"], env.battle.unit_index["planet-killer"]
        if not st.kill_methods[int(st.side[s])].any() and st.status[m] == 0:
            d = int(hexmap.distance_np(st.x[s], st.z[s], st.x[m], st.z[m]))
            trace["closest"] = min(trace["closest"], d)
        trace.setdefault("probes at start", int(st.probes_left[s]))
        trace["probes"] = int(st.probes_left[s])

    _, info = play("cth-11", 0, {"constellation": "researcher"}, watch=watch)
    assert trace["probes"] < trace["probes at start"]
    assert trace["closest"] > 2
    assert info["constellation"]["outcome"]["result"] == "win"
