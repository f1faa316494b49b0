"""Behaviour is unchanged: the golden battles recorded before the engine was re-layered
(issue 10; ``tests/golden/record.py``) re-run event for event, with the same observations,
masks, rewards, dones, ``state()`` and ``mask_reasons`` at every decision point."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from golden.record import step_digest

from sfb_env.replay import events_to_json, load_replay, make_env

GOLDEN = Path(__file__).resolve().parent / "golden"
FILES = sorted(GOLDEN.glob("*.jsonl"))


def test_golden_set_covers_the_scenarios_issue_10_names():
    names = {p.name.rsplit("-s", 1)[0] for p in FILES}
    assert {f"cth-{k:02d}" for k in range(1, 14)} <= names
    assert sum(n.startswith("duel-") for n in names) >= 4
    assert sum(n.startswith("grad-") for n in names) >= 4
    assert any(n.startswith("grad-") and "-full-" in n for n in names)
    assert len(FILES) == 2 * len(names)  # two seeds each


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_battle_replays_event_for_event(path: Path):
    replay = load_replay(path)
    digests = json.loads(path.with_suffix("").with_suffix(".digest.json").read_text())
    env = make_env(replay)
    obs, _ = env.reset(seed=replay.seed)
    assert events_to_json(env.battle.events) == replay.reset_events
    assert step_digest(env, obs, {}, {}, {}, 0) == digests[0], "after reset"
    cursor = len(env.battle.events)
    for k, step in enumerate(replay.steps, start=1):
        actions = {a: np.asarray(v, dtype=np.int64) for a, v in step.actions.items()}
        obs, rewards, terms, truncs, _ = env.step(actions)
        where = f"step {k} (turn {step.turn}, impulse {step.impulse})"
        assert events_to_json(env.battle.events[cursor:]) == step.events, where
        cursor = len(env.battle.events)
        got = step_digest(env, obs, rewards, terms, truncs, k)
        assert got == digests[k], f"{where}: " + ", ".join(
            key for key in got if got[key] != digests[k].get(key))
    assert not env.agents
    assert replay.end is not None
    assert json.loads(json.dumps(env.battle.outcome)) == replay.end["outcome"]
    assert env.battle.end_reason == replay.end["reason"]
