"""Record the golden battles: replays plus per-step digests of everything the env returns.

Run once with the code whose behaviour is the reference (issue 10 recorded them before the
engine was re-layered); ``tests/test_golden_battles.py`` re-runs every file and compares::

    python tests/golden/record.py            # rewrites tests/golden/*.jsonl and *.digest.json
    python tests/golden/record.py --redigest # rewrites only the digests (replays kept)

Each battle is a replay (``sfb_env.replay``) flown by scripted captains on both sides, and a
digest file with, per step, SHA-256 digests of the observations, flat masks, rewards,
terminations, truncations and ``state()``, and every 8th step of ``mask_reasons``.

A battle is re-recorded only when a rule change legitimately changes it, named in the commit:
cth-12 after C5.12 masked the zero-warp TAC plot of a ship without impulse power (issue 11);
cth-10, -12, -13 under ``sfb_v1`` when the captain's own choices (D9.2 ``repair[s]``, D3.34
``reinforce_hold``, FD1.2 launch facing) changed their spaces, and again when H7.1
``reserve_shields`` did.
The phaser-G battles were recorded again under ``sfb_v1`` into ``sfb_v1/`` (E2.151 added shot
components); their ``sfb_v0`` files stay, as replays ``sfb_v1`` must refuse with a message.
Issue 13 re-digested every battle (``--redigest``: the replays, their headers and events, stay
as recorded) when ``state()`` capped its damage fraction at 1 (a destroyed unit's overkill had
gone past ``state_space``'s bound) and its turn fraction at 1 (the clock reads max turns + 1
once the last turn is over): only ``state`` digests changed; the observation, which the env had
clipped to the same values, now caps those fields itself.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

# (scenario, blue captain, red captain, max_turns or None); two seeds each
BATTLES: list[tuple[str, str, str, int | None]] = [
    ("cth-01", "doctrine", "doctrine", None),
    ("cth-02", "doctrine", "doctrine", 8),
    ("cth-03", "klingon-doctrine", "robot", 8),
    ("cth-04", "doctrine", "robot", 6),
    ("cth-05", "doctrine", "doctrine", 5),
    ("cth-06", "doctrine", "doctrine", 5),
    ("cth-07", "doctrine", "doctrine", 3),
    ("cth-08", "pirate", "defender", 8),
    ("cth-09", "rescuer", "rescue-opponent", 4),
    ("cth-10", "doctrine", "doctrine", 3),
    ("cth-11", "researcher", "robot", 3),
    ("cth-12", "doctrine", "doctrine", 3),
    ("cth-13", "doctrine", "doctrine", 3),
    ("duel-klingon-vs-federation", "doctrine", "doctrine", None),
    ("duel-kzinti-vs-orion", "doctrine", "doctrine", None),
    ("duel-federation-vs-kzinti", "doctrine", "doctrine", None),
    ("duel-romulan-vs-gorn", "doctrine", "doctrine", 6),
    ("grad-lyran-vs-hydran", "doctrine", "doctrine", 6),
    ("grad-isc-vs-klingon", "doctrine", "doctrine", 6),
    ("grad-hydran-vs-romulan", "doctrine", "doctrine", 6),
    ("grad-isc-full-vs-hydran", "doctrine", "doctrine", 3),
]
SEEDS = (0, 1)
REASONS_EVERY = 8


def digest(value) -> str:
    """SHA-256 of a nested structure of arrays, numbers and strings (keys sorted)."""
    h = hashlib.sha256()

    def feed(v):
        if isinstance(v, dict):
            for k in sorted(v):
                h.update(repr(k).encode())
                feed(v[k])
        elif isinstance(v, (list, tuple)):
            h.update(b"[")
            for x in v:
                feed(x)
            h.update(b"]")
        elif isinstance(v, np.ndarray):
            h.update(str(v.dtype).encode() + repr(v.shape).encode())
            h.update(np.ascontiguousarray(v).tobytes())
        else:
            h.update(repr(v).encode())

    feed(value)
    return h.hexdigest()[:16]


def step_digest(env, obs, rewards, terms, truncs, k: int) -> dict:
    """The digest line of one decision point (after reset: k = -1)."""
    out = {
        "obs": digest({a: o["observation"] for a, o in obs.items()}),
        "mask": digest({a: o["action_mask"] for a, o in obs.items()}),
        "reward": digest({a: float(r) for a, r in rewards.items()}),
        "done": digest([terms, truncs]),
        "state": digest(env.state()),
        "agents": list(env.agents),
    }
    if k % REASONS_EVERY == 0:
        out["reasons"] = digest({a: env.mask_reasons(a) for a in env.agents})
    return out


def name_of(scenario: str, seed: int) -> str:
    return f"{scenario}-s{seed}"


def record(scenario: str, blue: str, red: str, max_turns: int | None, seed: int,
           folder: Path = HERE) -> None:
    import sfb_env
    from agents import make_policy
    from agents.base import bind_policy
    from sfb_env.replay import ReplayRecorder

    options = {"max_turns": max_turns} if max_turns else {}
    env = sfb_env.parallel_env(scenario, **options)
    sides = env.battle.scenario.sides
    policies = {}
    for k, agent in enumerate(env.possible_agents):
        side = sides[int(env.battle.state.side[env.battle.unit_index[agent]])]
        policies[agent] = make_policy(blue if side == sides[0] else red)
        policies[agent].reset(seed=seed + 1 + k)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name_of(scenario, seed)}.jsonl"
    digests = []
    with ReplayRecorder(path, env, scenario, seed, options,
                        meta={"blue": blue, "red": red}) as rec:
        obs, _ = rec.reset()
        for agent, policy in policies.items():
            bind_policy(policy, env, agent)
        digests.append(step_digest(env, obs, {}, {}, {}, 0))
        k = 0
        while env.agents:
            actions = {a: policies[a].act(obs[a], env.action_space(a)) for a in env.agents}
            obs, rewards, terms, truncs, _ = rec.step(actions)
            k += 1
            digests.append(step_digest(env, obs, rewards, terms, truncs, k))
    (folder / f"{name_of(scenario, seed)}.digest.json").write_text(
        json.dumps(digests, separators=(",", ":")) + "\n")
    print(f"{path.name}: {k} steps, {env.battle.end_reason}", flush=True)


def redigest(path: Path) -> None:
    """Rewrite the digest file of the replay at ``path`` from a re-run of its own actions,
    keeping the replay (its header, env version and events) as recorded: for a change of what
    the env returns that leaves every battle event for event the same."""
    from sfb_env.replay import events_to_json, load_replay, make_env

    replay = load_replay(path)
    env = make_env(replay)
    obs, _ = env.reset(seed=replay.seed)
    digests = [step_digest(env, obs, {}, {}, {}, 0)]
    cursor = len(env.battle.events)
    for k, step in enumerate(replay.steps, start=1):
        actions = {a: np.asarray(v, dtype=np.int64) for a, v in step.actions.items()}
        obs, rewards, terms, truncs, _ = env.step(actions)
        if events_to_json(env.battle.events[cursor:]) != step.events:
            raise SystemExit(f"{path.name}: step {k} differs: re-record, not re-digest")
        cursor = len(env.battle.events)
        digests.append(step_digest(env, obs, rewards, terms, truncs, k))
    path.with_suffix("").with_suffix(".digest.json").write_text(
        json.dumps(digests, separators=(",", ":")) + "\n")
    print(f"{path.name}: {len(digests) - 1} steps re-digested", flush=True)


if __name__ == "__main__":
    # ``--redigest``: rewrite only the digests of every replay that still runs (see redigest)
    if sys.argv[1:] == ["--redigest"]:
        from sfb_env.replay import ReplayError

        for path in sorted(HERE.glob("*.jsonl")) + sorted(HERE.glob("sfb_v1/*.jsonl")):
            try:
                redigest(path)
            except ReplayError:  # an sfb_v0 phaser-G battle, kept as a refusal case
                print(f"{path.name}: refused, kept", flush=True)
        sys.exit(0)
    # ``--into sfb_v1 NAME ...``: record into that subfolder (battles whose spaces changed in a
    # later env version; the sfb_v0 recordings stay as the old version's refusal cases)
    args = sys.argv[1:]
    folder = HERE
    if args[:1] == ["--into"]:
        folder, args = HERE / args[1], args[2:]
    only = set(args)
    for scenario, blue, red, max_turns in BATTLES:
        if only and scenario not in only:
            continue
        for seed in SEEDS:
            record(scenario, blue, red, max_turns, seed, folder)
