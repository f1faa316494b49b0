"""The env's ``enemy_fire`` view (env.rule_features ``enemy_fire``): per target slot, which of
the ship's weapons fired this turn and how long ago (E1.5: fire is resolved in the open), on
the reference engine and the compiled core, and what a checkpoint trained without it does in
an env that shows it (``FixedSpaces`` drops the block; ``--init`` widens into it)."""

from __future__ import annotations

import numpy as np
import pytest

import sfb_env
from sfb_env.env import observation_layout as lay
from sfb_env.env.padding import FixedSpaces

DUEL = "duel-klingon-vs-federation"
FIRED, SINCE = lay.ENEMY_FIRE.slice("fired"), lay.ENEMY_FIRE.slice("since")


def _block(env, obs, agent: str) -> np.ndarray:
    """The agent's enemy_fire block as (slots, 6)."""
    size = env.rule_features(agent)["enemy_fire"]
    return obs[agent]["observation"][-size:].reshape(env.target_slots, lay.ENEMY_FIRE.size)


def _hold(env, agent: str) -> np.ndarray:
    """Every component at its no-op (value 0: hold fire, no launch, no maneuver, speed kept
    where it is not open)."""
    return np.zeros(len(env.action_space(agent).nvec), np.int64)


def test_enemy_fire_block_is_present_only_when_the_env_asks():
    plain = sfb_env.parallel_env(DUEL, backend="reference")
    shown = sfb_env.parallel_env(DUEL, backend="reference", enemy_fire=True)
    a = plain.possible_agents[0]
    assert "enemy_fire" not in plain.rule_features(a)
    assert shown.rule_features(a) == {"enemy_fire": lay.ENEMY_FIRE.size * 8}
    grown = shown.observation_space(a)["observation"].shape[0]
    assert grown == plain.observation_space(a)["observation"].shape[0] + 6 * 8


@pytest.mark.parametrize("backend", ["reference",
                                     pytest.param("compiled", marks=pytest.mark.compiled_late)])
def test_one_phaser_shot_shows_in_the_targets_row_this_turn_only(backend):
    """(E1.5) The Federation fires one phaser at the Klingon: the Klingon's slot row for it
    says one of its phasers fired this turn, one impulse ago, and no heavy weapon or launcher
    ever; on the next turn the phasers read none fired, the time since grows and caps at 1."""
    env = sfb_env.parallel_env(DUEL, backend=backend, enemy_fire=True)
    obs, _ = env.reset(seed=0)
    klingon, federation = env.possible_agents
    ipt = env.battle.state.impulses_per_turn
    phasers = [i for i, c in enumerate(env.action_components(federation))
               if c["kind"] == "fire" and c["weapon_type"].startswith("ph-")]
    assert phasers
    fired_at = None
    for _ in range(4 * ipt):
        acts = {a: _hold(env, a) for a in env.agents}
        mask = env.action_space(federation).split_mask(obs[federation]["action_mask"])
        shot = next((i for i in phasers if mask[i][1]), None)
        if shot is not None:
            acts[federation][shot] = 1  # target slot 0: the Klingon
            fired_at = env.battle.state.impulse
        obs, *_ = env.step(acts)
        if fired_at is not None:
            break
    assert fired_at is not None, "the Federation never had a shot in four turns"
    row = _block(env, obs, klingon)[0]
    st = env.battle.state
    fed = env.battle.unit_index[federation]
    rows = env.battle.weapons_of(fed)
    n_phasers = int(np.isin(st.w_type[rows], [0, 1, 2, 3]).sum())
    assert row[FIRED][0] == pytest.approx(1 / n_phasers)
    assert row[SINCE][0] == pytest.approx(1 / ipt)
    assert row[FIRED][1] == 0 and row[SINCE][1] == 1.0  # no disruptor/photon fired yet
    assert row[FIRED][2] == 0 and row[SINCE][2] == 1.0
    # the Federation's own view of the Klingon: nothing fired
    assert np.all(_block(env, obs, federation)[0][FIRED] == 0)
    turn = st.turn
    seen = []
    while env.agents and len(seen) < ipt + 2:
        obs, *_ = env.step({a: _hold(env, a) for a in env.agents})
        seen.append((env.battle.state.turn, _block(env, obs, klingon)[0].copy()))
    later = [r for t, r in seen if t > turn]
    assert later, "the battle ended before the next turn"
    assert all(r[FIRED][0] == 0 for r in later)  # (E1.5) a new turn: none fired this turn
    assert seen[-1][1][SINCE][0] == 1.0  # a turn or more ago: capped


@pytest.mark.compiled_late
def test_compiled_core_matches_the_reference_with_enemy_fire():
    """Lockstep parity with the view on, fighting captains in a graduate duel (phasers, fusion
    beams, drones): every observation value equal, the block included."""
    from sfb_env.compiled import parity

    report = parity.lockstep("grad-hydran-vs-kzinti", num_battles=2, steps=120, seed=7,
                             policy="random-fighter", enemy_fire=True)
    assert report.steps == 120
    assert sum(n for kind, n in report.events.items() if "Fire" in kind or "Launch" in kind)


def test_reference_fight_fills_every_group_of_the_block():
    """Coverage: a fighting graduate duel shows phasers, heavy weapons and launchers fired."""
    from agents import bind_policy, load_policy

    env = sfb_env.parallel_env("grad-hydran-vs-kzinti", backend="reference", enemy_fire=True)
    obs, _ = env.reset(seed=3)
    pilots = {}
    for k, a in enumerate(env.possible_agents):
        pilots[a] = load_policy("random-fighter")
        bind_policy(pilots[a], env, a)
        pilots[a].reset(k)
    fired = np.zeros(3)
    while env.agents:
        obs, *_ = env.step({a: pilots[a].act(obs[a], env.action_space(a)) for a in env.agents})
        for a in env.agents:
            fired = np.maximum(fired, _block(env, obs, a)[:, FIRED].max(axis=0))
    assert np.all(fired > 0), fired


def test_a_checkpoint_without_the_view_drops_it():
    """``FixedSpaces`` without ``enemy_fire`` pads the env's vector as it would without the
    view (the block dropped); with it, the block lands at its fixed place."""
    env = sfb_env.parallel_env(DUEL, backend="reference", enemy_fire=True)
    plain = sfb_env.parallel_env(DUEL, backend="reference")
    obs, _ = env.reset(seed=1)
    base, _ = plain.reset(seed=1)
    a = env.possible_agents[0]
    fixed = FixedSpaces(positions=8, max_speed=31)
    shape = env.action_space(a)
    np.testing.assert_array_equal(
        fixed.pad_observation(obs[a]["observation"], shape),
        fixed.pad_observation(base[a]["observation"], plain.action_space(a)))
    wide = FixedSpaces(positions=8, max_speed=31, rule_features=("enemy_fire",))
    padded = wide.pad_observation(obs[a]["observation"], shape)
    span = wide.placement.span("enemy_fire")
    assert padded.shape == (wide.observation_size,)
    assert span.stop - span.start == 6 * 8
    assert wide.env_options()["enemy_fire"] and not fixed.env_options()["enemy_fire"]


def test_columns_of_places_the_narrower_vector_around_the_new_block():
    races = ("klingon", "federation")
    old = FixedSpaces(positions=8, max_speed=31, races=races)
    new = FixedSpaces(positions=8, max_speed=31, rule_features=("enemy_fire",), races=races)
    cols = new.columns_of(old)
    span = new.placement.span("enemy_fire")
    assert len(cols) == old.observation_size
    assert len(set(cols)) == len(cols)
    assert not set(cols) & set(range(span.start, span.stop))  # the new block: zero weights
    assert cols[-1] == new.observation_size - 1  # the identity block stays at the end
    with pytest.raises(ValueError, match="widen"):
        old.columns_of(new)  # a block cannot be taken away
    with pytest.raises(ValueError, match="widen"):
        FixedSpaces(positions=9, max_speed=31).columns_of(old)


class ViewReader:
    """A random captain that reads the enemy_fire view (``views``), checking it is there."""

    views = ("enemy_fire",)

    def __init__(self) -> None:
        from agents.base import RandomMaskedPolicy

        self.random = RandomMaskedPolicy()
        self.seen = 0

    def bind(self, env, agent: str) -> None:
        self.env, self.agent = env, agent

    def reset(self, seed: int | None = None) -> None:
        self.random.reset(seed)

    def act(self, observation, action_space):
        assert "enemy_fire" in self.env.rule_features(self.agent)
        self.seen += 1
        return self.random.act(observation, action_space)


def test_bench_turns_the_view_on_for_a_policy_that_reads_it():
    """``sfb bench`` builds the game's env with the views its policies read
    (``agents.base.view_options``); the other side flies it unchanged."""
    from agents import bench

    spec = bench.GameSpec(0, 0, DUEL, "tests.test_enemy_fire_view:ViewReader", "random", 3)
    result = bench.play_game(spec)
    assert result.impulses > 0
    plain = bench.play_game(bench.GameSpec(0, 0, DUEL, "random", "random", 3))
    assert plain.impulses > 0
    assert bench._env(DUEL, {}) is not bench._env(DUEL, {"enemy_fire": True})


def test_play_records_the_view_and_the_replay_reruns_it(tmp_path):
    """``sfb play`` turns the view on for a policy that reads it and records the option in the
    replay's header (``env_options``), so ``sfb replay`` rebuilds the same env."""
    import json

    from sfb_env.cli import main

    path = tmp_path / "view.jsonl"
    assert main(["play", DUEL, "--blue", "tests.test_enemy_fire_view:ViewReader", "--red",
                 "random", "--seed", "1", "--max-turns", "2", "--replay", str(path)]) == 0
    header = json.loads(path.read_text().splitlines()[0])
    assert header["env_options"]["enemy_fire"] is True
    assert main(["replay", str(path)]) == 0
