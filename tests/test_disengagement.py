"""Disengagement by announcement (SCENARIOS.md #5 special; rule ``disengage_by_announcement``,
``engine.disengagement``): "either player may announce disengagement at the end of any impulse;
the scenario ends at once"; the robot never disengages. Victory: the disengaging side draws,
the other side wins tactically; both announce -> both disengaged, a draw."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import of, random_masked_games, row, run_to, scenario, unit

import sfb_env
from sfb_env.engine import IllegalOrderError, Maneuver, Orders, make_battle
from sfb_env.engine.types import ACTIVE, DISENGAGED

ANNOUNCING = ("cth-05", "cth-06", "cth-07", "cth-10", "cth-12")
NOT_ANNOUNCING = ("cth-03", "cth-13", "duel-klingon-vs-federation", "grad-isc-vs-lyran")


def _straight(b, **extra) -> dict[int, Orders]:
    """Every agent straight (or none where it does not move next), plus ``extra`` orders."""
    out = {}
    for u in b.agent_units():
        m = Maneuver.NONE if Maneuver.STRAIGHT in b.maneuver_blockers(u) else Maneuver.STRAIGHT
        out[u] = Orders(maneuver=m, **extra.get(b.unit_ids[u], {}))
    return out


def test_scenario_5_rule_key_on_the_scenario_5_family_only():
    for name in ANNOUNCING:
        assert make_battle(name).scenario.rules.disengage_by_announcement, name
    for name in NOT_ANNOUNCING:  # SCENARIOS #13: "disengagement only by leaving the map"
        assert not make_battle(name).scenario.rules.disengage_by_announcement, name


def test_scenario_5_announcing_side_draws_the_other_wins_tactically_at_once():
    b = make_battle("cth-05", seed=0)
    b.step(_straight(b))  # impulse 0 -> 1
    assert (b.state.turn, b.state.impulse) == (1, 1)
    b.step(_straight(b, destruction={"disengage": True}))
    assert b.done and not b.time_up
    assert b.state.status[row(b, "destruction")] == DISENGAGED
    assert b.state.status[row(b, "constellation")] == ACTIVE
    assert b.outcome == {"klingon": {"result": "draw", "level": "disengaged"},
                         "federation": {"result": "win", "level": "tactical"}}
    assert of(b, "DisengagementAnnounced", unit="destruction", turn=1, impulse=1)
    ended = of(b, "BattleEnded")
    assert len(ended) == 1 and (ended[0].turn, ended[0].impulse) == (1, 1)  # ends at once


def test_scenario_5_both_announce_both_disengaged_is_a_draw():
    b = make_battle("cth-05", seed=0)
    run_to(b, 1, 5)
    b.step(_straight(b, destruction={"disengage": True}, constellation={"disengage": True}))
    assert b.done
    assert {s: o["result"] for s, o in b.outcome.items()} == {"klingon": "draw",
                                                             "federation": "draw"}
    assert all(o["level"] == "disengaged" for o in b.outcome.values())


def test_scenario_5_disengagement_comes_at_the_end_of_the_impulse_after_fire():
    """The announcing ship's own fire of that impulse still resolves, then it disengages."""
    doc = scenario([unit("k", "klingon-cadet", "klingon", "1010", "A", 0),
                    unit("f", "fed-cadet", "federation", "1008", "D", 0)],
                   rules={"energy": "cadet", "damage": "cadet_dac",
                          "disengage_by_announcement": True},
                   victory={"kind": "encounter"}, sides=("klingon", "federation"))
    b = make_battle(doc, seed=0)
    b.step({u: Orders(speed=0) for u in b.agent_units()})
    k, f = row(b, "k"), row(b, "f")
    phaser = next(int(w) for w in b.weapons_of(k) if b.fire_blockers(int(w), [f])[0] is None)
    b.step({k: Orders(fire={phaser: f}, disengage=True), f: Orders()})
    fired = of(b, "Fired", unit="k")
    announced = of(b, "DisengagementAnnounced", unit="k")
    assert fired and announced
    assert b.events.index(fired[0]) < b.events.index(announced[0])
    assert b.done and b.outcome["klingon"]["level"] == "disengaged"


def test_scenario_5_no_announcement_at_impulse_0_engine_refuses_with_the_rule():
    b = make_battle("cth-05", seed=0)
    orders = _straight(b, destruction={"disengage": True})
    with pytest.raises(IllegalOrderError, match="SCENARIOS #5.*impulse 0"):
        b.validate(orders)


@pytest.mark.parametrize("name", ("cth-03", "cth-13"))
def test_scenario_5_announcement_refused_where_the_rule_is_off(name):
    b = make_battle(name, seed=0)
    run_to(b, 1, 1)
    u = b.agent_units()[0]
    orders = _straight(b)
    orders[u].disengage = True
    with pytest.raises(IllegalOrderError, match="rules.disengage_by_announcement"):
        b.validate(orders)


def test_scenario_5_the_robot_never_disengages():
    doc = scenario([unit("robot", "klingon-cadet", "klingon", "0216", "B", 12, "robot-ship"),
                    unit("player", "fed-cadet", "federation", "2801", "E", 0)],
                   rules={"speed_choice": True, "damage": "cadet_dac",
                          "disengage_by_announcement": True},
                   robots={"robot-ship": {"target": "player"}},
                   victory={"kind": "encounter"}, sides=("klingon", "federation"))
    doc["impulses_per_turn"] = 16
    env = sfb_env.parallel_env(doc)
    env.reset(seed=0)
    assert env.possible_agents == ["player"]
    assert "disengage" in env._layouts["player"].component_names()
    b = env.battle
    from sfb_env.engine import disengagement

    assert 1 in disengagement.announce_blockers(b, row(b, "robot"))
    assert "robot never disengages" in disengagement.announce_blockers(b, row(b, "robot"))[1]


def test_scenario_5_disengage_component_only_where_the_rule_is_on():
    for name in ANNOUNCING:
        env = sfb_env.parallel_env(name)
        for a in env.possible_agents:
            assert "disengage" in env._layouts[a].component_names(), (name, a)
    for name in NOT_ANNOUNCING:
        env = sfb_env.parallel_env(name)
        for a in env.possible_agents:
            assert "disengage" not in env._layouts[a].component_names(), (name, a)


def test_scenario_5_disengage_through_the_env_ends_the_episode():
    env = sfb_env.parallel_env("cth-05", illegal_action="raise")
    obs, _ = env.reset(seed=3)
    layout = env._layouts["constellation"]
    i = layout.component_names().index("disengage")
    parts = env.action_space("constellation").split_mask(obs["constellation"]["action_mask"])
    assert parts[i].tolist() == [1, 0]  # impulse 0: closed
    assert "impulse 0" in env.mask_reasons("constellation")["disengage"][1]
    obs, *_ = env.step({a: env._layouts[a].noop(env.battle) for a in env.agents})
    parts = env.action_space("constellation").split_mask(obs["constellation"]["action_mask"])
    assert parts[i].tolist() == [1, 1]
    assert env.mask_reasons("constellation")["disengage"] == {}
    actions = {a: env._layouts[a].noop(env.battle) for a in env.agents}
    actions["constellation"][i] = 1
    obs, rewards, terms, truncs, infos = env.step(actions)
    assert env.agents == []
    assert all(terms.values()) and not any(truncs.values())
    assert infos["constellation"]["outcome"]["result"] == "draw"
    assert infos["destruction"]["outcome"] == {"result": "win", "level": "tactical",
                                               "reason": "federation disengaged"}
    assert rewards["destruction"] > rewards["constellation"]


def test_scenario_5_disengage_noop_is_zero():
    env = sfb_env.parallel_env("cth-05")
    env.reset(seed=0)
    env.step({a: env._layouts[a].noop(env.battle) for a in env.agents})
    for a in env.agents:
        layout = env._layouts[a]
        assert layout.noop(env.battle)[layout.component_names().index("disengage")] == 0


def test_scenario_5_random_masked_games_with_announcements():
    random_masked_games("cth-05", range(3))


@pytest.mark.slow
def test_scenario_5_random_masked_games_100_seeds():
    random_masked_games("cth-05", range(100))


def test_scenario_5_bad_disengage_value_is_refused_naming_the_field():
    b = make_battle("cth-05", seed=0)
    run_to(b, 1, 1)
    orders = _straight(b)
    orders[b.agent_units()[0]].disengage = np.int64(7)
    with pytest.raises(IllegalOrderError, match="disengage"):
        b.validate(orders)
