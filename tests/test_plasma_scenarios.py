"""Plasma and cloak in play: scenario 6 *The Enemy Unseen* (SCENARIOS.md #6), the Romulan and
Gorn cadet duels (SCENARIOS.md §4, PROPOSAL), plasma launchers in the ``launch[r]`` action
component (FP1.3, FP3.1), the plasma threat block of the observation and the torpedo's counter.

PettingZoo's ``parallel_api_test`` and ``parallel_seed_test`` run on these scenarios in
``test_env_api.py`` and the both-ways mask test in ``test_env_masks.py`` (both parametrised over
every listed scenario); random masked play to the end runs here.
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import play_random, random_masked_game
from fuzz_helpers import assert_fights, fuzz_games
from observation_helpers import read, span

import sfb_env
from sfb_env import hexmap
from sfb_env.engine import make_battle, plasma
from sfb_env.engine.scenario import load_scenario
from sfb_env.env import observation as obs_mod

CADETS = {"romulan": "romulan-cadet", "gorn": "gorn-cadet", "federation": "fed-cadet",
          "klingon": "klingon-cadet", "kzinti": "kzinti-cadet", "orion": "orion-cadet"}
DUELS = ([f"duel-romulan-vs-{r}" for r in ("federation", "klingon", "kzinti", "orion", "gorn")]
         + [f"duel-gorn-vs-{r}" for r in ("federation", "klingon", "kzinti", "orion")])
PLAYED = ["cth-06", *DUELS]


def test_cth_06_the_enemy_unseen_setup():
    sc = load_scenario("cth-06")
    assert sc.impulses_per_turn == 16 and sc.map_name == "A+B" and sc.turn_limit is None
    assert sc.rules.energy == "cadet" and sc.rules.cloak == "cadet"
    assert sc.rules.damage == "cadet_dac" and sc.victory["kind"] == "encounter"
    fed, rom = sc.units
    assert (fed.unit_class, fed.hex, hexmap.DIRECTION_LETTERS[fed.facing], fed.speed) == (
        "fed-cadet", "0101", "C", 16)
    assert (rom.unit_class, rom.hex, hexmap.DIRECTION_LETTERS[rom.facing], rom.speed) == (
        "romulan-cadet", "2816", "F", 16)
    b = make_battle("cth-06", seed=0)
    w = int(b.state.w_plasma_rows.max(axis=1).argmax())
    assert not b.state.w_armed[w]  # (FP1.23) no torpedo armed at the start


@pytest.mark.parametrize("name", DUELS)
def test_romulan_and_gorn_duel_setup(name):
    sc = load_scenario(name)
    assert name in sfb_env.list_scenarios()
    assert sc.impulses_per_turn == 16 and sc.map_name == "A+B" and sc.turn_limit == 8
    assert sc.rules.energy == "cadet" and sc.rules.damage == "cadet_dac"
    assert sc.victory["kind"] == "duel"
    a, b = sc.units
    _, race_a, _, race_b = name.split("-")
    assert (a.unit_class, b.unit_class) == (CADETS[race_a], CADETS[race_b])
    assert (a.hex, b.hex) == ("0216", "2801") and a.speed == b.speed == 16  # §4 layout
    assert sc.rules.cloak == ("cadet" if "romulan" in name else "none")


@pytest.mark.parametrize("name", PLAYED)
def test_fuzz_2_seeds_to_the_end_of_turn_3(name):
    # captains that fight (fuzz_helpers); the full coverage floors are test_fuzz.py's
    cov = fuzz_games(name, range(2), to_the_end=True, max_turns=3)
    assert_fights(name, cov, turns=3)
    assert "plasma" in cov.weapons


@pytest.mark.slow
@pytest.mark.parametrize("name", PLAYED)
def test_fuzz_100_seeds_to_the_end(name):
    assert_fights(name, fuzz_games(name, range(100), to_the_end=True), turns=5)


def test_random_masked_play_of_scenario_6_cloaks_the_romulan():
    env = sfb_env.parallel_env("cth-06", illegal_action="raise")
    rng = np.random.default_rng(1)
    cloaked = 0
    for seed in range(4):
        def check(env, obs):
            nonlocal cloaked
            cloaked += int(env.battle.state.cloaked.any())
        random_masked_game(env, seed, rng, check)
    assert cloaked


def test_random_engine_play_of_scenario_6_arms_and_launches_plasma():
    """The standing allocation (engine.energy) arms the launcher over 3 turns (FP1.22)."""
    launched = []
    for seed in range(6):
        b = play_random("cth-06", seed)
        launched += [e for e in b.events if e.kind == "Launched" and e.rack == "eagle.PL-A"]
    assert launched and all(e.turn >= 3 for e in launched)


def test_fp1_3_plasma_launcher_is_a_launch_component_masked_by_the_engine():
    env = sfb_env.parallel_env("duel-romulan-vs-federation", illegal_action="raise")
    obs, _ = env.reset(seed=0)
    rom = "romulan-cadet"
    components = env.action_components(rom)
    assert components[0]["name"] == "launch[0]"
    assert components[0]["weapon_type"] == "plasma-s"  # its FA arc: base arcs RF + LF
    b = env.battle
    layout = env._layouts[rom]
    w = int(layout.racks[0])
    st = b.state
    # arm it, put the enemy in its FA 5 hexes ahead and recompute the mask at impulse 1
    st.w_armed[w] = True
    st.impulse = 1
    fed = b.unit_index["fed-cadet"]
    me = b.unit_index[rom]
    st.x[fed], st.z[fed] = hexmap.neighbor_np(st.x[me], st.z[me], st.facing[me])
    slots = layout.target_slots(b)
    mask = layout.mask(b, slots)
    k = int(np.flatnonzero(slots == fed)[0]) + 1
    assert mask[k] == 1 and b.launch_blockers(w, [fed]) == [None]
    st.w_armed[w] = False
    mask = layout.mask(b, slots)
    assert mask[k] == 0
    assert layout.reasons(b, slots)["launch[0]"][k].startswith("FP1.22")


def test_observation_plasma_threat_block_shows_kind_and_warhead():
    env = sfb_env.parallel_env("duel-romulan-vs-federation", illegal_action="raise")
    env.reset(seed=0)
    b = env.battle
    st = b.state
    fed_agent = "fed-cadet"
    layout = env._layouts[fed_agent]
    assert layout.plasma_threats
    rom, fed = b.unit_index["romulan-cadet"], b.unit_index[fed_agent]
    w = int(b.weapons_of(rom)[st.w_plasma_rows[b.weapons_of(rom)].max(axis=1) >= 0][0])
    st.impulse = 1
    st.x[fed], st.z[fed] = hexmap.neighbor_np(st.x[rom], st.z[rom], st.facing[rom])
    st.w_armed[w] = True
    plasma.launch(b, w, fed)
    vector = obs_mod.encode(b, layout, layout.target_slots(b), env.threat_slots, b.max_turns)
    assert len(vector) == obs_mod.observation_size(layout, env.threat_slots)
    n_weapons = len(layout.racks) + len(layout.weapons)
    threat = read(env, fed_agent, vector, "threats", row=0)
    assert threat["present"][0] == 1.0  # the torpedo fills the first threat slot
    first = read(env, fed_agent, vector, "plasma_threats", row=0)
    assert first["plasma"][0] == 1.0
    assert first["warhead"][0] == pytest.approx(30 / obs_mod.PLASMA_WARHEAD_SCALE)  # FP1.0
    others = span(env, fed_agent, vector, "plasma_threats")[obs_mod.PLASMA_THREAT_SIZE:]
    assert len(others) == (env.threat_slots - 1) * obs_mod.PLASMA_THREAT_SIZE
    assert not others.any()
    from agents.observation_view import decode

    view = decode(vector, n_weapons, layout.slots, layout.max_speed, len(layout.esgs),
                  obs_mod.energy_size(layout))
    (threat,) = view.threats
    assert threat.plasma and threat.warhead == 30 and threat.range == 1
    # (FP1.6) phaser damage lowers the warhead it shows; fractions stay within the space
    p = int(st.w_plasma_rows[w][0])
    b.apply_damage(p, 0, 20)
    vector = obs_mod.encode(b, layout, layout.target_slots(b), env.threat_slots, b.max_turns)
    first = read(env, fed_agent, vector, "plasma_threats", row=0)
    assert first["warhead"][0] == pytest.approx(20 / obs_mod.PLASMA_WARHEAD_SCALE)
    assert np.abs(vector).max() <= 1.0


def test_battles_without_plasma_keep_their_observation_size():
    env = sfb_env.parallel_env("duel-klingon-vs-federation")
    env.reset(seed=0)
    layout = env._layouts["klingon-cadet"]
    assert not layout.plasma_threats
    assert obs_mod.observation_size(layout, env.threat_slots) == (
        env.observation_space("klingon-cadet")["observation"].shape[0])


def test_plasma_torpedo_is_drawn_in_the_plasma_colour():
    from tests.conftest import require

    require("PIL")
    from sfb_env.render import Renderer, colors

    b = make_battle("duel-romulan-vs-federation", seed=0)
    st = b.state
    rom, fed = b.unit_index["romulan-cadet"], b.unit_index["fed-cadet"]
    w = int(b.weapons_of(rom)[st.w_plasma_rows[b.weapons_of(rom)].max(axis=1) >= 0][0])
    st.impulse = 1
    st.w_armed[w] = True
    plasma.launch(b, w, fed)
    p = int(st.w_plasma_rows[w][0])
    st.x[p], st.z[p] = hexmap.neighbor_np(st.x[rom], st.z[rom], st.facing[rom])
    renderer = Renderer(b, view="map")
    frame = renderer.frame(b)
    x, y = renderer.hex_center(b.label(p))
    patch = frame[round(y) - 6:round(y) + 7, round(x) - 6:round(x) + 7]
    assert np.any(np.all(patch == np.array(colors.weapon_color("plasma-s"), np.uint8), axis=-1))


# ---------------------------------------------------------------------- doctrine captains


@pytest.mark.parametrize("name,agent,race", [("duel-romulan-vs-orion", "romulan-cadet", "romulan"),
                                             ("duel-gorn-vs-orion", "gorn-cadet", "gorn")])
def test_romulan_and_gorn_are_recognised_from_their_plasma(name, agent, race):
    from agents.doctrine import doctrine_for_weapons

    env = sfb_env.parallel_env(name)
    types = [c["weapon_type"] for c in env.action_components(agent) if "weapon_type" in c]
    assert doctrine_for_weapons(types).race == race


def test_romulan_captain_cloaks_for_the_reload_and_launches_within_the_mask():
    from agents import bench
    from agents.doctrine import DoctrineCaptain

    env = sfb_env.parallel_env("duel-romulan-vs-federation", illegal_action="raise")
    rom, fed = DoctrineCaptain("romulan"), DoctrineCaptain("federation")
    rom.bind(env, "romulan-cadet")
    fed.bind(env, "fed-cadet")
    obs, _ = env.reset(seed=0)
    cloaked = 0
    while env.agents:
        actions = {}
        for a in env.agents:
            actions[a] = (rom if a == "romulan-cadet" else fed).act(obs[a], env.action_space(a))
            bench.check_action("captain", a, env, actions[a], obs[a]["action_mask"])
        obs, *_ = env.step(actions)
        cloaked += int(env.battle.state.cloaked[env.battle.unit_index["romulan-cadet"]])
    launched = [e for e in env.battle.events if e.kind == "Launched"]
    assert cloaked and launched and all(e.rack == "romulan-cadet.PL-A" for e in launched)


@pytest.mark.parametrize("name,captain", [("duel-romulan-vs-klingon", "romulan-doctrine"),
                                          ("duel-gorn-vs-kzinti", "gorn-doctrine")])
def test_plasma_captains_beat_random(name, captain):
    from agents import bench

    # random-fighter: plain random flies off the map within two turns here (issue 13)
    games = bench.run_games(bench.plan_games([bench.Match(name, captain, "random-fighter")],
                                             games=3, seed=0), progress=False)
    assert sum(g.result == "win" for g in games) >= 2
