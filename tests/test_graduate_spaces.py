"""Fixed spaces for the graduate duels (issue 21): ``FixedSpaces`` pads every ship of the
16-impulse cadet graduate duels ``grad-<race>-vs-<race>`` (phaser-G shots, an ESG, G23, a PPD,
E11.362, the energy components of rules.energy, B3.0, a cloak, G13, the plasma threat and
ESG-field blocks) to one shape, refuses what does not fit naming the field, pads the cadet
duels' ships exactly as its four first fields always did, and trains one policy over several
graduate duels (``configs/training/graduate-captain.yaml``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import require

import sfb_env
from sfb_env.engine.scenario import list_scenarios
from sfb_env.env import observation_layout as lay
from sfb_env.env.agent_shape import AgentShape, kind_of
from sfb_env.env.padding import FixedSpaces, FixedSpacesError
from sfb_env.env.vector import AgentVectorEnv
from training.config import ConfigError, load_config, parse_config

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "training" / "graduate-captain.yaml"
GRADUATE = sorted(n for n in list_scenarios() if n.startswith("grad-") and "-full-" not in n)
CADET = ["duel-klingon-vs-federation", "duel-klingon-vs-kzinti", "duel-klingon-vs-orion",
         "duel-federation-vs-kzinti", "duel-federation-vs-orion", "duel-kzinti-vs-orion"]
# the graduate captain's padding, written out (configs/training/graduate-captain.yaml's)
FIXED = FixedSpaces(positions=8, max_speed=16, target_slots=8, threat_slots=4, gatling=1,
                    esg_slots=1, ppd_slots=1, plasma_threats=True, energy=True, arms=3,
                    arm_values=6, capacitor_values=5, recharge_values=3, cloak=True,
                    rule_features=("esg_fields",))
# with the identity block over the races of the graduate duels' ships (FixedSpaces.races)
GRAD_RACES = ("federation", "klingon", "romulan", "gorn", "kzinti", "orion", "hydran", "lyran",
              "isc")
IDENTITY = dataclasses.replace(FIXED, races=GRAD_RACES)
# its components in action order: (kind, how many), as ActionLayout orders them
ORDER = [("weapon", 8), ("gatling", 3), ("esg", 1), ("ppd", 1), ("arm", 3), ("capacitor", 1),
         ("recharge", 1), ("cloak", 1), ("maneuver", 1), ("speed", 1)]
SLOTS = [(kind, i) for kind, n in ORDER for i in range(n)]


def _slot_of(names: tuple[str, ...]) -> list[int]:
    """The padded component of each of a ship's components, by name (launch and fire share
    the weapon positions)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        kind = "weapon" if kind_of(name) in ("launch", "fire") else kind_of(name)
        out.append(SLOTS.index((kind, seen.get(kind, 0))))
        seen[kind] = seen.get(kind, 0) + 1
    return out


def _split(flat: np.ndarray, nvec: np.ndarray) -> list[np.ndarray]:
    return np.split(np.asarray(flat), np.cumsum(nvec)[:-1])


def _ships(scenario: str, steps: int = 6):
    """Each ship's observation, mask and space after ``steps`` random steps."""
    env = sfb_env.parallel_env(scenario, backend="reference")
    obs, _ = env.reset(seed=1)
    for a in env.agents:
        env.action_space(a).seed(1)
    for _ in range(steps):
        nxt, *_ = env.step({a: env.action_space(a).sample(mask=obs[a]["action_mask"])
                            for a in env.agents})
        if len(env.agents) < len(env.possible_agents):
            break  # keep both ships' last observations
        obs = nxt
    return [(a, obs[a], env.action_space(a)) for a in env.possible_agents]


def test_the_graduate_duels_are_the_21_hydran_lyran_and_isc_16_impulse_duels():
    assert len(GRADUATE) == 21
    assert {n.split("-")[1] for n in GRADUATE} == {"hydran", "lyran", "isc"}
    assert FIXED.observation_size == 408
    assert FIXED.nvec.tolist() == [9] * 11 + [7, 3, 6, 6, 6, 5, 3, 2, 4, 17]


@pytest.mark.parametrize("scenario", GRADUATE)
def test_every_graduate_ship_pads_and_unpads_to_its_own_action(scenario):
    """Pad, act under the padded mask, unpad: the ship's own action, allowed by its own mask;
    every component it lacks allows only 0, its smaller components their own values only;
    every observation block part sits at its fixed offset, zeros where the ship has none."""
    fixed_parts = FIXED.placement
    for agent, obs, space in _ships(scenario):
        shape = space.agent_shape
        assert isinstance(shape, AgentShape) and shape.nvec == tuple(space.nvec)
        FIXED.check(space)
        mask = FIXED.pad_mask(obs["action_mask"], space)
        parts = _split(mask, FIXED.nvec)
        own_parts = _split(obs["action_mask"], space.nvec)
        where = _slot_of(shape.names)
        for j, padded in enumerate(parts):
            if j in where:
                own = own_parts[where.index(j)]
                assert padded[:len(own)].tolist() == own.tolist()
                assert not padded[len(own):].any(), (agent, SLOTS[j])  # beyond its values
            else:
                assert padded.tolist() == [1] + [0] * (len(padded) - 1), (agent, SLOTS[j])
        rng = np.random.default_rng(0)
        for _ in range(5):
            action = np.array([rng.choice(np.flatnonzero(p)) for p in parts])
            own = FIXED.unpad_action(action, space)
            assert own.tolist() == action[where].tolist()
            assert all(m[v] for m, v in zip(own_parts, own, strict=True))
        vector = FIXED.pad_observation(obs["observation"], space)
        assert vector.shape == (408,) and vector.dtype == np.float32
        placed = lay.place(shape.counts)
        covered = np.zeros(408, bool)
        for part in placed.parts:
            to = fixed_parts.part(part.block, part.part)
            got = vector[to.offset:to.offset + part.size]
            assert got.tolist() == obs["observation"][part.offset:part.offset + part.size
                                                      ].tolist(), (agent, part.block)
            covered[to.offset:to.offset + part.size] = True
        assert not vector[~covered].any()  # padding: rows and blocks the ship lacks
        for block, count in (("esg", shape.counts.esgs), ("ppd", shape.counts.ppds)):
            if not count:  # a ship without an ESG (a PPD) has zeros there
                assert not vector[fixed_parts.span(block)].any()


@pytest.mark.parametrize(("scenario", "agent", "fields", "field", "message"), [
    ("grad-lyran-vs-federation", "lyran-cadet", {"esg_slots": 0}, "esg_slots",
     "the ship has 1 ESGs (G23); FixedSpaces.esg_slots is 0"),
    ("grad-isc-vs-orion", "isc-cadet", {"ppd_slots": 0}, "ppd_slots",
     "the ship has 1 PPDs (E11); FixedSpaces.ppd_slots is 0"),
    ("grad-hydran-vs-klingon", "hydran-cadet", {"gatling": 0}, "gatling",
     "the ship has 1 phaser-Gs (3 shot components, E2.151); FixedSpaces.gatling is 0"),
    ("grad-hydran-vs-klingon", "klingon-cadet", {"positions": 6}, "positions",
     "the ship has 7 weapon positions; FixedSpaces.positions is 6"),
    ("grad-lyran-vs-klingon", "lyran-cadet", {"arms": 2}, "arms",
     "the ship has 3 arm[h] components (heavy weapons, B3.0); FixedSpaces.arms is 2"),
    ("grad-isc-vs-orion", "isc-cadet", {"arm_values": 3}, "arm_values",
     "arm[0] has 6 values; FixedSpaces pads it to 3 (arm_values)"),
    ("grad-hydran-vs-gorn", "gorn-cadet", {"capacitor_values": 4}, "capacitor_values",
     "capacitor has 5 values"),
    ("grad-hydran-vs-kzinti", "kzinti-cadet", {"recharge_values": 2}, "recharge_values",
     "recharge has 3 values; FixedSpaces pads it to 2 (recharge_values)"),
    ("grad-isc-vs-romulan", "romulan-cadet", {"cloak": False}, "cloak",
     "FixedSpaces.cloak is false"),
    ("grad-isc-vs-orion", "orion-cadet", {"plasma_threats": False}, "plasma_threats",
     "FixedSpaces.plasma_threats is false"),
    ("grad-lyran-vs-orion", "orion-cadet", {"rule_features": ()}, "rule_features",
     "rule-features block 'esg_fields'"),
    ("grad-lyran-vs-orion", "orion-cadet", {"max_speed": 12}, "max_speed",
     "the scenario allows speed 16; FixedSpaces.max_speed is 12"),
])
def test_a_ship_that_does_not_fit_is_refused_naming_the_field(scenario, agent, fields, field,
                                                              message):
    fixed = FixedSpaces(**{**FIXED.to_dict(), **fields})
    space = sfb_env.parallel_env(scenario, backend="reference").action_space(agent)
    with pytest.raises(FixedSpacesError, match=r"\b" + field) as info:
        fixed.check(space)
    assert info.value.field == field and message in str(info.value)


def test_the_energy_components_need_the_energy_field_and_a_cadet_padding_refuses_them():
    space = sfb_env.parallel_env("grad-isc-vs-orion", backend="reference").action_space(
        "orion-cadet")
    with pytest.raises(FixedSpacesError, match="FixedSpaces.energy is false") as info:
        FixedSpaces(positions=8, max_speed=16, plasma_threats=True).check(space)
    assert info.value.field == "energy"
    with pytest.raises(FixedSpacesError, match="needs FixedSpaces.energy") as info:
        FixedSpaces(arms=3)
    assert info.value.field == "arms"
    with pytest.raises(FixedSpacesError, match="unknown block 'esg_field'"):
        FixedSpaces(rule_features=("esg_field",))
    # an nvec alone names no component: the cadet rule (weapon positions only) refuses it
    with pytest.raises(ValueError, match="other than weapon positions"):
        FixedSpaces(positions=12, max_speed=31).check(space.nvec)


# ---------------------------------------------------------------------- the cadet duels


def _legacy(vector, mask, action, nvec, fixed):
    """FixedSpaces' four-field padding as it was before the graduate fields (session 13)."""
    positions, k = len(nvec) - 2, fixed.target_slots + 1
    place = lambda n: lay.place(lay.Counts(n, fixed.target_slots, fixed.threat_slots))  # noqa: E731
    own, padded = place(positions).span("own").stop, place(fixed.positions).span("own").stop
    obs = np.zeros(place(fixed.positions).size, np.float32)
    obs[:own], obs[padded:] = vector[:own], vector[own:]
    out = np.zeros(int(fixed.nvec.sum()), np.int8)
    out[:positions * k] = mask[:positions * k]
    out[positions * k:fixed.positions * k:k] = 1
    start = fixed.positions * k
    out[start:start + 4] = mask[positions * k:positions * k + 4]
    out[start + 4:start + 4 + nvec[-1]] = mask[positions * k + 4:positions * k + 4 + nvec[-1]]
    return obs, out, np.concatenate([action[:positions], action[-2:]])


@pytest.mark.parametrize("scenario", CADET)
def test_the_cadet_four_field_padding_is_as_it_was(scenario):
    """The cadet captains' sidecar fields (checkpoints/cadet-captain-v2.json): the same sizes
    and, ship by ship, the same padded observation, mask and unpadded action as the four-field
    padding always gave, by the env's shape or by the nvec alone."""
    sidecar = json.loads((ROOT / "checkpoints" / "cadet-captain-v2.json").read_text())
    fixed = FixedSpaces(**sidecar["fixed_spaces"])
    assert fixed.to_dict() == sidecar["fixed_spaces"]
    assert fixed.observation_size == sidecar["observation_size"] == 334
    assert fixed.nvec.tolist() == sidecar["action_nvec"]
    rng = np.random.default_rng(2)
    for _, obs, space in _ships(scenario, steps=10):
        action = np.array([rng.integers(n) for n in fixed.nvec])
        want = _legacy(obs["observation"], obs["action_mask"], action, space.nvec, fixed)
        for agent in (space, space.agent_shape, space.nvec):
            got = (fixed.pad_observation(obs["observation"], agent),
                   fixed.pad_mask(obs["action_mask"], agent), fixed.unpad_action(action, agent))
            for g, w in zip(got, want, strict=True):
                assert g.dtype == w.dtype and g.tolist() == w.tolist()


# ---------------------------------------------------------------------- the config


def test_the_graduate_captain_config_pads_every_ship_of_every_graduate_duel():
    config = load_config(CONFIG)
    assert [s.opponent for s in config.stages] == ["random-fighter", "self", "league"]
    assert config.league is not None and "doctrine" in config.league.pool
    for stage in config.stages:
        assert sorted(stage.scenarios) == GRADUATE
    assert config.ppo.n_envs % len(GRADUATE) == 0
    assert 16 <= config.ppo.n_envs // len(GRADUATE) <= 32
    fixed = FixedSpaces(**vars(config.env.fixed_spaces))
    assert fixed == FIXED
    for scenario in GRADUATE:
        env = sfb_env.parallel_env(scenario, backend="reference")
        for agent in env.possible_agents:
            fixed.check(env.action_space(agent))


def test_the_focused_config_continues_the_graduate_captain_in_its_spaces_and_duels():
    """graduate-captain-focus.yaml trains on from graduate-captain-v1 (``--init``): the same
    spaces, network and duels, one focused league stage evaluated against the doctrine."""
    base = load_config(CONFIG)
    focus = load_config(CONFIG.with_name("graduate-captain-focus.yaml"))
    assert focus.env == base.env and focus.ppo == base.ppo
    assert [s.opponent for s in focus.stages] == ["league"]
    assert sorted(focus.stages[0].scenarios) == GRADUATE
    assert focus.stages[0].agent == "alternate"
    assert focus.stages[0].evaluation_opponent == "doctrine"
    assert focus.league is not None and focus.league.focus > 0
    assert focus.league.pool == base.league.pool
    assert (ROOT / "checkpoints" / "graduate-captain-v1.zip").exists()


def test_the_config_takes_every_fixed_spaces_field_with_its_default():
    from dataclasses import fields

    from training.config import FixedSpacesConfig

    assert [(f.name, f.default) for f in fields(FixedSpacesConfig)] == [
        (f.name, f.default) for f in fields(FixedSpaces)]


@pytest.mark.parametrize(("fixed_spaces", "field", "problem"), [
    ("{esg_slot: 1}", "env.fixed_spaces.esg_slot", "unknown field"),
    ("{arms: 2}", "env.fixed_spaces.arms", "needs FixedSpaces.energy"),
    ("{rule_features: [esg]}", "env.fixed_spaces.rule_features", "unknown block 'esg'"),
    ("{rule_features: esg_fields}", "env.fixed_spaces.rule_features", "list of block names"),
    ("{energy: 1}", "env.fixed_spaces.energy", "true or false"),
])
def test_config_refuses_a_bad_fixed_spaces_field_naming_it(fixed_spaces, field, problem):
    text = (f"env: {{fixed_spaces: {fixed_spaces}}}\n"
            "stages:\n  - {scenario: grad-isc-vs-orion, timesteps: 10}\n")
    import yaml

    with pytest.raises(ConfigError, match=problem) as info:
        parse_config(yaml.safe_load(text), "g.yaml")
    assert info.value.field == field


def test_a_short_training_over_graduate_duels_flies_every_graduate_ship(tmp_path):
    """Three graduate duels (phaser-G, cloak and plasma; ESG; PPD) in one multi-scenario
    stage on the reference backend: MaskablePPO trains, never takes a masked action, and the
    checkpoint, padded by its sidecar (agents.sb3_policy), flies both ships of every graduate
    duel without a masked action."""
    require("sb3_contrib")
    from agents.sb3_policy import SB3Policy
    from sfb_env.cli import main

    duels = ["grad-hydran-vs-romulan", "grad-lyran-vs-federation", "grad-isc-vs-orion"]
    config = load_config(CONFIG)
    text = CONFIG.read_text()
    fixed = text[text.index("  fixed_spaces:"):text.index("ppo:")]
    (tmp_path / "g.yaml").write_text(
        "name: graduate-smoke\nenv:\n  reward: shaped\n  result_bonus: 2.0\n"
        f"  backend: reference\n{fixed}"
        "ppo: {n_envs: 6, n_steps: 16, batch_size: 48, n_epochs: 1, net_arch: [32]}\n"
        "evaluation: {every: 0, games: 2}\ncheckpoints: {every: 0}\n"
        f"stages:\n  - {{scenarios: {duels}, agent: alternate, opponent: random-fighter, "
        "timesteps: 96}\n")
    masked = []
    step = AgentVectorEnv.step

    def checked_step(self, actions):
        nvec = self.action_space.nvec
        offsets = np.concatenate([[0], np.cumsum(nvec)[:-1]])
        for mask, action in zip(self.action_masks(), np.asarray(actions), strict=True):
            masked.append(not all(mask[o + int(a)] for o, a in zip(offsets, action,
                                                                     strict=True)))
        return step(self, actions)

    AgentVectorEnv.step = checked_step
    try:
        assert main(["train", str(tmp_path / "g.yaml"), "--output", str(tmp_path / "run"),
                     "--no-progress"]) == 0
    finally:
        AgentVectorEnv.step = step
    assert len(masked) >= 96 and not any(masked)
    sidecar = json.loads((tmp_path / "run" / "final.json").read_text())
    assert FixedSpaces(**sidecar["fixed_spaces"]) == FixedSpaces(
        **vars(config.env.fixed_spaces))
    assert sidecar["observation_size"] == 408 and sidecar["mask_size"] == 158
    policy = SB3Policy(tmp_path / "run" / "final.zip")
    for scenario in GRADUATE:
        env = sfb_env.parallel_env(scenario, backend="reference", illegal_action="raise")
        obs, _ = env.reset(seed=3)
        policy.reset(3)
        for _ in range(4):  # a masked action raises
            obs, *_ = env.step({a: policy.act(obs[a], env.action_space(a))
                                for a in env.agents})


@pytest.mark.compiled_late
@pytest.mark.parametrize("fixed", [FIXED, IDENTITY], ids=["padded", "identity-block"])
def test_compiled_vector_env_pads_a_graduate_duel_as_the_reference_one(fixed):
    """The ISC (PPD, plasma) against the Lyran (ESG, ESG fields) with the doctrine on the
    other ship: the compiled vector env's padded masks, observations (with the identity block
    too), rewards and dones equal the reference vector env's until the first battle ends (the
    learner takes random open values but its lowest open speed, so the battles last: at random
    speeds they end in a step or two)."""
    from compiled_phase_helpers import random_slot_actions

    from sfb_env.backends import agent_vector_env

    kw = {"num_envs": 4, "learners": "alternate", "opponents": "doctrine", "seed": 0,
          "fixed_spaces": fixed}
    ref = agent_vector_env("grad-isc-vs-lyran", backend="reference", **kw)
    cmp = agent_vector_env("grad-isc-vs-lyran", backend="compiled", **kw)
    assert type(cmp).__name__ == "CompiledAgentVectorEnv"
    np.testing.assert_array_equal(cmp.reset(seed=5), ref.reset(seed=5))
    rng = np.random.default_rng(1)
    speed = int(FIXED.nvec[:-1].sum())
    compared = 0
    while compared < 300:
        compared += 1
        masks = ref.action_masks()
        np.testing.assert_array_equal(cmp.action_masks(), masks)
        actions = random_slot_actions(ref, rng)
        actions[:, -1] = [np.flatnonzero(m[speed:])[0] for m in masks]
        want, got = ref.step(actions), cmp.step(actions)
        for w, g in zip(want[:4], got[:4], strict=True):
            np.testing.assert_array_equal(g, w)
        if any("episode" in i for i in want[4]):
            break
    assert compared > 30, "the first battle ended before the padding was compared"
