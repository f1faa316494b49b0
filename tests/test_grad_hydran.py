"""Graduate duels with the Hydran Cadet Cruiser (SCENARIOS.md §4, gt-cadet layout: 16 impulses,
the cadet Energy Allocation Form): set-up, random masked play, masks and engine agreeing on the
fusion beams (E7) and the phaser-G (E2.15), and the ``hydran-doctrine`` captain.

PettingZoo's ``parallel_api_test`` and ``parallel_seed_test`` run on these scenarios in
``test_env_api.py`` (parametrised over every listed scenario), and the both-ways mask test of
``test_env_masks.py`` covers them the same way.
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import (
    Dice,
    of,
    row,
    run_to,
    scenario,
    unit,
    weapon,
)
from fuzz_helpers import assert_fights, fuzz_games

import agents
import sfb_env
from agents import bench
from agents.doctrine import doctrine_for_weapons
from sfb_env import hexmap
from sfb_env.engine import Orders, make_battle
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import ArmOrder, WeaponType

ENEMIES = {"klingon": "klingon-cadet", "federation": "fed-cadet", "kzinti": "kzinti-cadet",
           "orion": "orion-cadet"}
GRAD = [f"grad-hydran-vs-{race}" for race in ENEMIES]
HYDRAN = "hydran-cadet"


def test_a_graduate_hydran_duel_against_every_cadet_race():
    listed = sfb_env.list_scenarios()
    assert set(GRAD) <= set(listed)  # so test_env_api runs the PettingZoo tests on each


@pytest.mark.parametrize("name", GRAD)
def test_grad_duel_setup_copies_the_cadet_duels(name):
    sc = load_scenario(name)
    duel = load_scenario("duel-gorn-vs-klingon")  # SCENARIOS §4 gt-cadet
    assert (sc.impulses_per_turn, sc.map_name, sc.turn_limit) == (
        duel.impulses_per_turn, duel.map_name, duel.turn_limit)
    assert sc.rules.switches() == duel.rules.switches()  # R1-R6: cadet energy, cadet DAC
    assert sc.victory == duel.victory
    a, b = sc.units
    assert (a.unit_class, b.unit_class) == (HYDRAN, ENEMIES[name.rsplit("-", 1)[1]])
    assert a.controller == b.controller == "agent"
    assert (a.hex, a.facing, b.hex, b.facing) == tuple(
        getattr(u, f) for u in duel.units for f in ("hex", "facing"))
    assert hexmap.distance(a.hex, b.hex) == 28  # (D1.4) 0216 to 2801 across the A+B map
    for me, other in ((a, b), (b, a)):  # each off the other's left bow, in its FA (D2.1, D2.2)
        arcs = {arc for arc in hexmap.BASE_ARCS if hexmap.in_arc(me.hex, me.facing, other.hex, arc)}
        assert arcs == {"LF"} and hexmap.in_arc(me.hex, me.facing, other.hex, "FA")
        assert hexmap.shields_hit(me.hex, me.facing, other.hex) == (1,)  # (D3.4) #1 toward it


@pytest.mark.parametrize("name", GRAD)
def test_hydran_action_layout_has_a_fire_component_per_fusion_beam_and_phaser_g(name):
    env = sfb_env.parallel_env(name)
    fire = [c for c in env.action_components(HYDRAN) if c["kind"] == "fire"]
    assert [c["weapon_type"] for c in fire] == ["ph-2"] * 3 + ["ph-g"] + ["fusion"] * 2
    assert all(c["size"] == env.target_slots + 1 for c in fire)


@pytest.mark.parametrize("name", GRAD)
def test_fuzz_2_seeds_to_the_end_of_turn_3(name):
    # captains that fight (fuzz_helpers); the full coverage floors are test_fuzz.py's
    cov = fuzz_games(name, range(2), to_the_end=True, max_turns=3)
    assert_fights(name, cov, turns=3)
    assert {"fusion", "ph-g"} <= cov.weapons


@pytest.mark.slow
@pytest.mark.parametrize("name", GRAD)
def test_fuzz_100_seeds_to_the_end(name):
    assert_fights(name, fuzz_games(name, range(100), to_the_end=True), turns=8)


def test_e7_e2_15_fusion_and_phaser_g_masks_are_the_engine_verdicts():
    """At every decision point of doctrine-captain games (the ships 28 hexes apart at the start
    meet; random ships mostly leave the map on turn 1) in which the Hydran fires its fusion
    beams at random open targets half the time and its phaser-G whenever it may, each Hydran
    fire value is open exactly when the engine's predicate allows it, every closed one carries
    the engine's rule, and the engine refuses it with that rule; cooling (E7.22) and once a
    turn (E1.5) come up in every duel, the fourth phaser-G shot (E2.151) in some (the aft Ph-G
    bears less often)."""
    seen_anywhere: set[str] = set()
    for name in GRAD[::-1]:  # the Orion duel shows the fourth Ph-G shot soonest
        wanted = {"E7.22 the", "E1.5 the"} | ({"E2.151 4"} - seen_anywhere)
        seen = _mask_agreement(name, wanted)
        assert {"E7.22 the", "E1.5 the"} <= seen, name
        seen_anywhere |= seen
    assert "E2.151 4" in seen_anywhere


def _mask_agreement(name: str, wanted: set[str]) -> set[str]:
    env = sfb_env.parallel_env(name, illegal_action="raise")
    seen: set[str] = set()

    def check(env, obs):
        if HYDRAN not in env.agents:
            return
        battle = env.battle
        layout = env._layouts[HYDRAN]
        slots = env._slots[HYDRAN]
        parts = env.action_space(HYDRAN).split_mask(obs[HYDRAN]["action_mask"])
        reasons = env.mask_reasons(HYDRAN)
        names = layout.component_names()
        first = len(layout.racks)
        for i, w in enumerate(layout.weapons):
            if int(battle.state.w_type[w]) not in (WeaponType.FUSION, WeaponType.PHG):
                continue
            c = first + i
            for k, t in enumerate(slots, start=1):
                if t < 0:
                    continue
                rule = battle.fire_blockers(int(w), [int(t)])[0]
                assert bool(parts[c][k]) == (rule is None)
                assert reasons[names[c]].get(k) == rule
                if rule is None:
                    continue
                seen.add(rule.split(" ")[0] + " " + rule.split(" ")[1])
                action = layout.noop(battle)
                action[c] = k
                orders = layout.to_orders(battle, action, slots)
                with pytest.raises(sfb_env.engine.IllegalOrderError) as err:
                    battle.validate({layout.unit: orders})
                assert err.value.rule == rule

    rng = np.random.default_rng(2)
    for seed in range(8):  # until each limit has come up
        _hydran_game(env, seed, rng, check)
        if wanted <= seen:
            break
    return seen


def _hydran_game(env, seed: int, rng: np.random.Generator, check) -> None:
    """One game of the ``doctrine`` captains (each allocates its energy on the cadet form, B3.0,
    so the beams are armed, E7.21), the Hydran's fusion orders replaced by a random open value
    half the time, its phaser-G firing at a random open target whenever it may;
    ``check(env, obs)`` at every decision point."""
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
            actions[a] = captains[a].act(obs[a], space)
            if a != HYDRAN:
                continue
            layout = env._layouts[a]
            parts = space.split_mask(obs[a]["action_mask"])
            for i, w in enumerate(layout.weapons):
                if int(env.battle.state.w_type[w]) not in (WeaponType.FUSION, WeaponType.PHG):
                    continue
                c = len(layout.racks) + i
                open_ = np.flatnonzero(parts[c][1:]) + 1
                phg = int(env.battle.state.w_type[w]) == WeaponType.PHG  # all four shots
                if len(open_) and (phg or rng.random() < 0.5):
                    actions[a][c] = int(rng.choice(open_))
        obs, *_ = env.step(actions)


def test_e7_22_beam_armed_and_fired_on_the_last_impulse_cools_and_its_arming_lapses():
    """Energy Allocation for turn 2 is ordered on the last impulse of turn 1; a beam ordered
    armed (E7.21) that fires in that same impulse cools on turn 2 (E7.22): the ARM lapses
    unpaid and the beam is neither armed nor fireable on turn 2."""
    doc = scenario([unit("a", HYDRAN, "blue", "0505", "A"),
                    unit("b", "klingon-cadet", "red", "0503", "D")], rules={"energy": "cadet"})
    doc["impulses_per_turn"] = 16
    b = make_battle(doc, seed=0)
    beam, a, e = weapon(b, "a", "FUS-A"), row(b, "a"), row(b, "b")
    run_to(b, 1, 16)
    assert b.fire_blockers(beam, [e])[0] is None  # armed by the standing allocation
    b.rng = Dice(1)
    b.step({a: Orders(arm={beam: int(ArmOrder.ARM)}, fire={beam: e})})
    assert of(b, "Fired", turn=1, impulse=16, weapon="a.FUS-A")
    assert not b.state.w_armed[beam]
    assert not of(b, "WeaponArmed", turn=2, weapon="a.FUS-A")  # nothing paid for it
    assert b.fire_blockers(beam, [e])[0] == "E7.22 the beam fired last turn and is cooling"


# ------------------------------------------------------------------ hydran-doctrine


def test_hydran_doctrine_is_registered_and_recognised_from_the_weapons():
    env = sfb_env.parallel_env(GRAD[0])
    types = [c["weapon_type"] for c in env.action_components(HYDRAN) if "weapon_type" in c]
    assert doctrine_for_weapons(types).race == "hydran"
    captain = agents.get("doctrine")
    captain.bind(env, HYDRAN)
    assert captain.doctrine.race == "hydran"
    assert agents.get("hydran-doctrine").doctrine.race == "hydran"
    # fusion beams are deadly at 0-3 and weak beyond (E7.31 table): the band is close in
    assert agents.get("hydran-doctrine").doctrine.band == (1, 3)


def test_hydran_doctrine_beats_random_in_the_graduate_duels():
    # random-fighter: plain random flies off the map in turn 1 in half these games (issue 13)
    matches = [bench.Match(name, "hydran-doctrine", "random-fighter") for name in GRAD]
    games = bench.run_games(bench.plan_games(matches, games=2, seed=0), progress=False)
    wins = sum(g.result == "win" for g in games)
    losses = sum(g.result == "loss" for g in games)
    assert wins >= 0.6 * len(games) and wins > 2 * losses
    assert np.mean([g.damage_dealt - g.damage_taken for g in games]) > 0
