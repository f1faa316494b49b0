"""Behaviour is unchanged: the golden battles recorded before the engine was re-layered
(issue 10; ``tests/golden/record.py``) re-run event for event, with the same observations,
masks, rewards, dones, ``state()`` and ``mask_reasons`` at every decision point.

They were recorded with ``sfb_v0``. Under ``sfb_v1`` a phaser-G has extra shot components
(E2.151, issue 11), so the battles of a Hydran agent are refused with a message naming the
change; cth-10, -12 and -13 were recorded again under ``sfb_v1`` (the captain's own choices
changed their spaces); every other battle re-runs as recorded under ``sfb_v0``. The
phaser-G battles were recorded again under ``sfb_v1`` (``golden/sfb_v1/``) and re-run too."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from golden.record import step_digest

from sfb_env.replay import ReplayError, events_to_json, load_replay, make_env


def _numpy_runs_avx512() -> bool:
    """Whether numpy dispatches its AVX-512 float routines here (as where the digests were
    taken); True where numpy does not say."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:
        return True
    return bool(__cpu_features__.get("AVX512_SKX", False))


OBS_BIT_EXACT = _numpy_runs_avx512()


def _compared(digest: dict) -> dict:
    """The fields of a step's digest compared on this machine (see the module docstring)."""
    return digest if OBS_BIT_EXACT else {k: v for k, v in digest.items() if k != "obs"}

GOLDEN = Path(__file__).resolve().parent / "golden"
FILES = sorted(GOLDEN.glob("*.jsonl"))
# (E2.151) scenarios whose agents have a phaser-G: sfb_v1 adds its shot components
PHASER_G = ("grad-lyran-vs-hydran", "grad-hydran-vs-romulan", "grad-isc-full-vs-hydran")
REFUSED = [p for p in FILES if p.name.rsplit("-s", 1)[0] in PHASER_G]
V1_FILES = sorted((GOLDEN / "sfb_v1").glob("*.jsonl"))  # the same battles under sfb_v1
REPLAYED = [p for p in FILES if p not in REFUSED] + V1_FILES


def test_golden_set_covers_the_scenarios_issue_10_names():
    names = {p.name.rsplit("-s", 1)[0] for p in FILES}
    assert {f"cth-{k:02d}" for k in range(1, 14)} <= names
    assert sum(n.startswith("duel-") for n in names) >= 4
    assert sum(n.startswith("grad-") for n in names) >= 4
    assert any(n.startswith("grad-") and "-full-" in n for n in names)
    assert len(FILES) == 2 * len(names)  # two seeds each


#: battles recorded again under sfb_v1 in place, when the captain's own choices changed their
#: spaces (D9.2 repair[s], D3.34 reinforce_hold, FD1.2 launch facing, H7.1 reserve_shields;
#: issue 11)
RE_RECORDED = ("cth-10", "cth-12", "cth-13")


def test_e2_151_the_golden_battles_of_the_phaser_g_scenarios_are_the_refused_ones():
    assert {p.name.rsplit("-s", 1)[0] for p in REFUSED} == set(PHASER_G)
    for path in FILES:
        replay = load_replay(path)
        name = path.name.rsplit("-s", 1)[0]
        assert replay.header["env"] == ("sfb_v1" if name in RE_RECORDED else "sfb_v0")


@pytest.mark.parametrize("path", REFUSED, ids=[p.stem for p in REFUSED])
def test_e2_151_a_sfb_v0_golden_battle_with_a_phaser_g_is_refused_naming_the_change(path: Path):
    replay = load_replay(path)
    name = path.name.rsplit("-s", 1)[0]
    with pytest.raises(ReplayError) as err:
        make_env(replay)
    assert str(err.value) == (
        f"recorded with sfb_v0; in sfb_v1 the phaser-G mounts of {name} have extra shot "
        "components (E2.151): re-record the replay")


@pytest.mark.parametrize("path", REPLAYED, ids=[p.stem for p in REPLAYED])
def test_golden_battle_replays_event_for_event(path: Path):
    replay = load_replay(path)
    digests = json.loads(path.with_suffix("").with_suffix(".digest.json").read_text())
    env = make_env(replay)
    obs, _ = env.reset(seed=replay.seed)
    assert events_to_json(env.battle.events) == replay.reset_events
    assert _compared(step_digest(env, obs, {}, {}, {}, 0)) == _compared(digests[0]), "after reset"
    cursor = len(env.battle.events)
    for k, step in enumerate(replay.steps, start=1):
        actions = {a: np.asarray(v, dtype=np.int64) for a, v in step.actions.items()}
        obs, rewards, terms, truncs, _ = env.step(actions)
        where = f"step {k} (turn {step.turn}, impulse {step.impulse})"
        assert events_to_json(env.battle.events[cursor:]) == step.events, where
        cursor = len(env.battle.events)
        got, want = _compared(step_digest(env, obs, rewards, terms, truncs, k)), _compared(
            digests[k])
        assert got == want, f"{where}: " + ", ".join(
            key for key in got if got[key] != want.get(key))
    assert not env.agents
    assert replay.end is not None
    assert json.loads(json.dumps(env.battle.outcome)) == replay.end["outcome"]
    assert env.battle.end_reason == replay.end["reason"]


def test_e2_151_every_refused_phaser_g_battle_was_recorded_again_under_sfb_v1():
    assert sorted(p.name for p in V1_FILES) == sorted(p.name for p in REFUSED)
    assert all(load_replay(p).header["env"] == "sfb_v1" for p in V1_FILES)
