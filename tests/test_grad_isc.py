"""Graduate duels with the ISC Cadet Cruiser (SCENARIOS.md §4, gt-cadet layout: 16 impulses,
the cadet Energy Allocation Form), and the Lyran-Hydran one: set-up, random masked play, the
PPD's ``fire[w]`` and ``ppd[p]`` masks agreeing both ways with the engine (E11), and the PPD
observation block.

PettingZoo's ``parallel_api_test`` and ``parallel_seed_test`` run on these scenarios in
``test_env_api.py`` (parametrised over every listed scenario), and the both-ways mask test of
``test_env_masks.py`` covers them the same way.
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import random_masked_games
from observation_helpers import placement, read

import agents
import sfb_env
from agents import bench, gunnery
from agents.doctrine import doctrine_for_weapons
from sfb_env import hexmap
from sfb_env.engine.direct_fire import weapon_ready_blocker
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import WeaponType

ENEMIES = {"klingon": "klingon-cadet", "federation": "fed-cadet", "kzinti": "kzinti-cadet",
           "orion": "orion-cadet", "hydran": "hydran-cadet", "lyran": "lyran-cadet"}
GRAD = [f"grad-isc-vs-{race}" for race in ENEMIES]
FULL = "grad-isc-full-vs-klingon"
ALL = GRAD + ["grad-lyran-vs-hydran"]
ISC = "isc-cadet"


def test_a_graduate_isc_duel_against_every_cadet_race_and_lyran_vs_hydran():
    assert set(ALL + [FULL]) <= set(sfb_env.list_scenarios())  # so test_env_api runs on each


def test_gt_full_layout_lawgiver_0216_b_against_d7_2801_e():
    sc = load_scenario(FULL)
    full = load_scenario("grad-hydran-full-vs-klingon")
    assert (sc.impulses_per_turn, sc.map_name, sc.turn_limit, sc.victory) == (
        full.impulses_per_turn, full.map_name, full.turn_limit, full.victory)
    assert sc.rules.damage == "standard_dac" and sc.rules.max_speed == 31
    lawgiver, d7 = sc.units
    assert (lawgiver.unit_class, lawgiver.hex, d7.unit_class, d7.hex) == (
        "isc-star-cruiser", "0216", "klingon-d7", "2801")
    env = sfb_env.parallel_env(FULL)
    fire = [c["weapon_type"] for c in env.action_components("lawgiver") if c["kind"] == "fire"]
    assert fire == ["ppd"] + ["ph-1"] * 8


@pytest.mark.parametrize("name", ALL)
def test_grad_duel_setup_copies_the_cadet_duels(name):
    sc = load_scenario(name)
    duel = load_scenario("duel-gorn-vs-klingon")  # SCENARIOS §4 gt-cadet
    assert (sc.impulses_per_turn, sc.map_name, sc.turn_limit) == (
        duel.impulses_per_turn, duel.map_name, duel.turn_limit)
    assert sc.rules.switches() == duel.rules.switches()  # R1-R6: cadet energy, cadet DAC
    assert sc.victory == duel.victory
    a, b = sc.units
    mine, enemy = name.split("-")[1], name.rsplit("-", 1)[1]
    assert (a.unit_class, b.unit_class) == (f"{mine}-cadet", ENEMIES[enemy])
    assert a.controller == b.controller == "agent"
    assert (a.hex, a.facing, b.hex, b.facing) == tuple(
        getattr(u, f) for u in duel.units for f in ("hex", "facing"))
    assert hexmap.distance(a.hex, b.hex) == 28  # (D1.4) 0216 to 2801 across the A+B map
    for me, other in ((a, b), (b, a)):  # each off the other's left bow, in its FA (D2.1, D2.2)
        arcs = {arc for arc in hexmap.BASE_ARCS if hexmap.in_arc(me.hex, me.facing, other.hex, arc)}
        assert arcs == {"LF"} and hexmap.in_arc(me.hex, me.facing, other.hex, "FA")
        assert hexmap.shields_hit(me.hex, me.facing, other.hex) == (1,)  # (D3.4) #1 toward it


@pytest.mark.parametrize("name", GRAD)
def test_e11_isc_layout_fires_the_ppd_through_fire_and_drops_through_ppd(name):
    env = sfb_env.parallel_env(name)
    comps = env.action_components(ISC)
    fire = [c for c in comps if c["kind"] == "fire"]
    assert [c["weapon_type"] for c in fire] == ["ph-1"] * 3 + ["ppd"]
    assert (fire[-1]["min_range"], fire[-1]["max_range"]) == (4, 40)  # (E11.312, E11.52)
    ppd = [c for c in comps if c["kind"] == "ppd"]
    assert [(c["name"], c["size"], c["values"]) for c in ppd] == [("ppd[0]", 2, ["keep", "drop"])]
    launch = [c for c in comps if c["kind"] == "launch"]
    assert [c["weapon_type"] for c in launch] == ["plasma-f"] * 2
    enemy = env.possible_agents[1]
    assert not [c for c in env.action_components(enemy) if c["kind"] == "ppd"]


def test_uniform_spaces_pad_the_ppd_component_for_the_other_ship():
    env = sfb_env.parallel_env("grad-isc-vs-klingon", uniform_spaces=True)
    a, b = env.possible_agents
    assert env.action_space(a) == env.action_space(b)
    names = env._layouts[b].component_names()
    assert "ppd[0]" in names
    env.reset(seed=0)
    reasons = env.mask_reasons(b)
    assert reasons["ppd[0]"] == {1: "uniform_spaces padding: no PPD in this position"}


@pytest.mark.parametrize("name", ALL + [FULL])
def test_random_masked_play_5_seeds_without_error(name):
    random_masked_games(name, range(5), to_the_end=True)


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL + [FULL])
def test_random_masked_play_100_seeds_without_error(name):
    random_masked_games(name, range(100), rng_seed=1)


# ------------------------------------------------------------------ masks both ways (E11)


def _ppd_game(env, seed: int, rng: np.random.Generator, check) -> None:
    """A game of the ``doctrine`` captains (the ships start 28 hexes apart: random ones mostly
    leave the map on turn 1, before a PPD is armed), the ISC's standing allocation on the
    cadet form arming its PPD 4 + 4 over two turns (B3.0, E11.21); its PPD ``fire`` and
    ``ppd[0]`` orders are replaced by a random open value half the time, so pulse trains and
    drops come up; ``check(env, obs)`` at every decision point."""
    captains = {a: agents.get("doctrine") for a in env.possible_agents}
    for a, captain in captains.items():
        captain.bind(env, a)
        captain.reset(seed)
    obs, _ = env.reset(seed=seed)
    while env.agents:
        check(env, obs)
        actions = {}
        for a in env.agents:
            space = env.action_space(a)
            action = captains[a].act(obs[a], space)
            if a == ISC:
                layout = env._layouts[a]
                parts = space.split_mask(obs[a]["action_mask"])
                for c, name in enumerate(layout.component_names()):
                    open_ = np.flatnonzero(parts[c][1:]) + 1
                    wanted = name == "ppd[0]" or (name.startswith("fire[") and int(
                        env.battle.state.w_type[layout.weapons[int(name[5:-1])]])
                        == WeaponType.PPD)
                    if wanted and len(open_) and rng.random() < 0.5:
                        action[c] = int(rng.choice(open_))
            actions[a] = action
        obs, *_ = env.step(actions)


def test_e11_ppd_fire_and_drop_masks_are_the_engine_verdicts_both_ways():
    """At every decision point, each PPD ``fire`` value and each ``ppd[0]`` value is open exactly
    when the engine's predicate allows it, every closed one carries the engine's rule, and the
    engine refuses it with that rule; the arming paid on the cadet form (E11.21), the running
    train (E11.23) and the drop (E11.362) come up."""
    seen: set[str] = set()
    opened = {"fire": 0, "drop": 0}
    for name in GRAD[:3]:
        env = sfb_env.parallel_env(name, illegal_action="raise")

        def check(env, obs):
            if ISC not in env.agents:
                return
            battle = env.battle
            layout = env._layouts[ISC]
            slots = env._slots[ISC]
            parts = env.action_space(ISC).split_mask(obs[ISC]["action_mask"])
            reasons = env.mask_reasons(ISC)
            names = layout.component_names()
            for c, cname in enumerate(names):
                if cname.startswith("fire["):
                    w = int(layout.weapons[int(cname[5:-1])])
                    if int(battle.state.w_type[w]) != WeaponType.PPD:
                        continue
                    for k, t in enumerate(slots, start=1):
                        if t < 0:
                            continue
                        rule = battle.fire_blockers(w, [int(t)])[0]
                        assert bool(parts[c][k]) == (rule is None)
                        assert reasons[cname].get(k) == rule
                        opened["fire"] += rule is None
                        if rule is not None:
                            seen.add(rule.split(" ")[0])
                            _refused(env, layout, slots, c, k, rule)
                elif cname == "ppd[0]":
                    rule = reasons[cname].get(1)
                    assert bool(parts[c][1]) == (rule is None)
                    opened["drop"] += rule is None
                    if rule is not None:
                        seen.add(rule.split(" ")[0] + "-drop")
                        _refused(env, layout, slots, c, 1, rule)

        rng = np.random.default_rng(3)
        for seed in range(4):  # a game in each duel, more until every case has come up
            _ppd_game(env, seed, rng, check)
            if {"E11.21", "E11.23", "E11.362-drop"} <= seen and min(opened.values()):
                break
    assert {"E11.21", "E11.23", "E11.362-drop"} <= seen
    assert opened["fire"] and opened["drop"]


def _refused(env, layout, slots, c: int, value: int, rule: str) -> None:
    action = layout.noop(env.battle)
    action[c] = value
    orders = layout.to_orders(env.battle, action, slots)
    with pytest.raises(sfb_env.engine.IllegalOrderError) as err:
        env.battle.validate({layout.unit: orders})
    assert err.value.rule == rule


def test_e11_ppd_observation_block_reports_armed_pulsing_locked():
    env = sfb_env.parallel_env("grad-isc-vs-klingon", illegal_action="raise")
    layout = env._layouts[ISC]
    seen = set()

    def check(env, obs):
        if ISC not in env.agents:
            return
        vector = obs[ISC]["observation"]
        assert placement(env, ISC).span("ppd").stop == len(vector)  # last: no rule features
        block = {k: float(v[0]) for k, v in read(env, ISC, vector, "ppd").items()}
        st = env.battle.state
        w = int(layout.ppds[0])
        assert block["pulsing"] == float(st.ppd_target[w] >= 0)
        assert block["locked"] == float(st.ppd_locked[w])
        ready = weapon_ready_blocker(env.battle, w) is None  # (E11.21, E11.23)
        # ARM pays the full 4 + 4 (E11.21, E11.25)
        assert block["armed_pulses"] == (1.0 if ready else 0.0)
        seen.add(("armed", block["armed_pulses"]))
        if block["pulsing"]:
            seen.add(("pulsing", block["pulses_left"]))

    rng = np.random.default_rng(5)
    for seed in range(4):
        _ppd_game(env, seed, rng, check)
        if ("armed", 1.0) in seen and any(k == "pulsing" and 0 < v < 1 for k, v in seen):
            break
    assert ("armed", 1.0) in seen  # a full four-pulse charge (E11.25)
    assert any(k == "pulsing" and 0 < v < 1 for k, v in seen)  # pulses left in a train
    other = env._layouts[env.possible_agents[1]]
    assert len(other.ppds) == 0  # the block exists only on a ship with a PPD


# ------------------------------------------------------------------ isc-doctrine


def test_isc_doctrine_is_registered_and_recognised_from_the_ppd():
    env = sfb_env.parallel_env(GRAD[0])
    types = [c["weapon_type"] for c in env.action_components(ISC) if "weapon_type" in c]
    assert doctrine_for_weapons(types).race == "isc"  # the PPD, not the Gorn's plasma-F
    captain = agents.get("doctrine")
    captain.bind(env, ISC)
    assert captain.doctrine.race == "isc"
    # (E11.312) no PPD fire at 3 hexes or less: the band keeps the range above 3
    assert agents.get("isc-doctrine").doctrine.band[0] > 3


def test_e11_31_gunnery_rates_a_ppd_train_by_its_lock_chance_and_pulses():
    # range 4-10: lock on 2d6 <= 9 (30/36), 6 a pulse; the first pulse that locks and every
    # later one score (E11.331)
    p = 30 / 36
    assert gunnery.ppd_lock_chance(6) == pytest.approx(p)
    assert gunnery.expected_damage("ppd", 6) == pytest.approx(
        6 * sum(1 - (1 - p) ** k for k in range(1, 5)))
    assert gunnery.expected_damage("ppd", 3) == 0.0  # (E11.312)
    assert gunnery.expected_damage("ppd", 41) == 0.0  # (E11.52)
    # a drone: +2 to the roll (FD1.52), the centre element only (E11.353)
    assert gunnery.ppd_lock_chance(6, vs_drone=True) == pytest.approx(21 / 36)
    assert gunnery.expected_damage("ppd", 6, vs_drone=True) < gunnery.expected_damage("ppd", 6)


def test_isc_doctrine_beats_random_in_the_graduate_duels():
    # random-fighter: plain random flies off the map in turn 1 in half these games (issue 13)
    matches = [bench.Match(name, "isc-doctrine", "random-fighter") for name in GRAD[:4]]
    games = bench.run_games(bench.plan_games(matches, games=2, seed=0), progress=False)
    wins = sum(g.result == "win" for g in games)
    losses = sum(g.result == "loss" for g in games)
    assert wins >= 0.6 * len(games) and wins > 2 * losses
    assert np.mean([g.damage_dealt - g.damage_taken for g in games]) > 0
