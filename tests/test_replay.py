"""Replays (DESIGN "Determinism, replays, video"): JSON lines that re-run event for event."""

from __future__ import annotations

import json

import numpy as np
import pytest

import sfb_env
from sfb_env.replay import (
    VERSION,
    ReplayError,
    ReplayRecorder,
    events_to_json,
    load_replay,
    make_env,
    rerun,
)

DUEL = {
    "name": "replay-duel", "impulses_per_turn": 8, "map": "A+B", "sides": ["fed", "kli"],
    "rules": {"speed_choice": True},
    "units": [
        {"id": "fed", "class": "fed-cadet", "side": "fed", "hex": "0808", "facing": "C",
         "speed": 8, "controller": "agent"},
        {"id": "kli", "class": "klingon-cadet", "side": "kli", "hex": "1409", "facing": "E",
         "speed": 8, "controller": "agent"},
    ],
    "victory": {"kind": "last_side_standing"},
}


def record(path, scenario, seed: int, options: dict | None = None):
    """Play with seeded random masked actions, recording; returns the env."""
    options = options or {}
    env = sfb_env.parallel_env(scenario, **options)
    rng = np.random.default_rng(seed)
    with ReplayRecorder(path, env, scenario, seed, options) as rec:
        obs, _ = rec.reset()
        while env.agents:
            actions = {}
            for a in env.agents:
                space = env.action_space(a)
                space.seed(int(rng.integers(1 << 30)))
                actions[a] = space.sample(mask=obs[a]["action_mask"])
            obs, *_ = rec.step(actions)
    return env


@pytest.mark.parametrize("scenario", ["cth-03", DUEL], ids=["cth-03", "dict-duel"])
def test_rerunning_a_replay_reproduces_its_event_log(tmp_path, scenario):
    path = tmp_path / "battle.jsonl"
    env = record(path, scenario, seed=4, options={"max_turns": 3})
    replay = load_replay(path)
    assert replay.header["version"] == VERSION and replay.seed == 4
    assert replay.env_options == {"max_turns": 3}
    assert replay.end is not None and replay.end["steps"] == len(replay.steps) > 0
    recorded = replay.reset_events + [e for step in replay.steps for e in step.events]
    assert recorded == events_to_json(env.battle.events)
    states = list(rerun(replay))
    assert len(states) == len(replay.steps) + 1
    again = states[-1].battle
    assert events_to_json(again.events) == recorded
    assert again.outcome == env.battle.outcome


def test_replay_header_stores_a_shipped_scenario_by_name_and_a_dict_in_full(tmp_path):
    record(tmp_path / "a.jsonl", "cth-01", seed=0)
    record(tmp_path / "b.jsonl", DUEL, seed=0, options={"max_turns": 1})
    assert load_replay(tmp_path / "a.jsonl").scenario == "cth-01"
    assert load_replay(tmp_path / "b.jsonl").scenario == DUEL


def _rewrite_header(path, **changes):
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header.update(changes)
    lines[0] = json.dumps(header)
    path.write_text("\n".join(lines) + "\n")


def test_replay_of_another_version_fails_clearly(tmp_path):
    path = tmp_path / "r.jsonl"
    record(path, "cth-01", seed=0)
    _rewrite_header(path, version=VERSION + 1)
    with pytest.raises(ReplayError, match=f"version {VERSION + 1}.*reads version {VERSION}"):
        load_replay(path)


def test_e2_151_a_sfb_v0_replay_runs_where_the_spaces_did_not_change(tmp_path):
    """sfb_v1 changed only the phaser-G's action components: a cth-03 replay recorded as
    sfb_v0 re-runs event for event; an unknown env version is refused."""
    path = tmp_path / "r.jsonl"
    record(path, "cth-03", seed=2, options={"max_turns": 2})
    assert load_replay(path).header["env"] == "sfb_v1"
    _rewrite_header(path, env="sfb_v0")
    assert len(list(rerun(load_replay(path)))) == len(load_replay(path).steps) + 1
    _rewrite_header(path, env="sfb_v9")
    with pytest.raises(ReplayError, match="env 'sfb_v9'; this sfb-env provides 'sfb_v1'"):
        make_env(load_replay(path))


def test_e2_151_a_sfb_v0_replay_of_a_phaser_g_scenario_is_refused_naming_the_change(tmp_path):
    path = tmp_path / "r.jsonl"
    record(path, "grad-hydran-vs-klingon", seed=0, options={"max_turns": 1})
    assert len(list(rerun(load_replay(path)))) > 1  # an sfb_v1 recording re-runs
    _rewrite_header(path, env="sfb_v0")
    with pytest.raises(ReplayError) as err:
        make_env(load_replay(path))
    assert str(err.value) == (
        "recorded with sfb_v0; in sfb_v1 the phaser-G mounts of grad-hydran-vs-klingon have "
        "extra shot components (E2.151): re-record the replay")


def test_replay_of_a_changed_scenario_fails_clearly(tmp_path):
    path = tmp_path / "r.jsonl"
    record(path, "cth-01", seed=0)
    _rewrite_header(path, scenario_sha256="0" * 64)
    with pytest.raises(ReplayError, match="cth-01.*does not match"):
        make_env(load_replay(path))
    _rewrite_header(path, scenario="cth-99")
    with pytest.raises(ReplayError, match="cth-99.*not a shipped scenario"):
        make_env(load_replay(path))


def test_rerun_names_the_first_event_that_differs(tmp_path):
    path = tmp_path / "r.jsonl"
    record(path, "cth-03", seed=1, options={"max_turns": 1})
    lines = path.read_text().splitlines()
    k = next(i for i, line in enumerate(lines) if '"Fired"' in line)
    step = json.loads(lines[k])
    shot = next(e for e in step["events"] if e["kind"] == "Fired")
    shot["die"] = 7
    lines[k] = json.dumps(step)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayError, match=r"step \d+ .*recorded .*'die': 7"):
        for _ in rerun(load_replay(path)):
            pass


def test_not_a_replay_fails_clearly(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"hello": 1}\n')
    with pytest.raises(ReplayError, match="not an sfb-env replay"):
        load_replay(path)
    path.write_text("not json\n")
    with pytest.raises(ReplayError, match="not a JSON-lines replay"):
        load_replay(path)


def test_recorder_refuses_options_that_cannot_be_replayed(tmp_path):
    env = sfb_env.parallel_env("cth-01")
    with pytest.raises(ReplayError, match="callable"):
        ReplayRecorder(tmp_path / "r.jsonl", env, "cth-01", 0, {"reward": lambda *a: 0.0})


def test_sfb_v1_names_what_changed_since_sfb_v0_per_scenario():
    """(D9.2, D3.34, H7.1, E2.151) Only scenarios whose spaces changed refuse an sfb_v0 replay."""
    import sfb_env

    assert sfb_env.parallel_env("cth-03").changes_since("sfb_v0") == []
    assert sfb_env.parallel_env("cth-07").changes_since("sfb_v0") == []
    changes = " ".join(sfb_env.parallel_env("cth-10").changes_since("sfb_v0"))
    assert "repair[s]" in changes and "reinforce_hold" in changes
    assert "reserve_shields (H7.1)" in changes
    assert "E2.151" in " ".join(
        sfb_env.parallel_env("grad-hydran-vs-klingon").changes_since("sfb_v0"))
