"""Replays: a battle as JSON lines (DESIGN "Determinism, replays, video").

A replay is the scenario, the seed, the env options and every step's actions; each step line
also carries the events the step produced, for readers and for checking a re-run::

    {"type": "header", "format": "sfb-replay", "version": 1, "env": "sfb_v1",
     "sfb_env": "0.1.0", "scenario": "cth-03" | {...}, "scenario_sha256": "...",
     "seed": 7, "env_options": {"max_turns": 30}, "agents": ["destruction"], "meta": {...}}
    {"type": "reset", "events": [...]}
    {"type": "step", "turn": 1, "impulse": 0, "actions": {"destruction": [0, 3, 1, 5]},
     "events": [{"kind": "Moved", ...}, ...]}
    ...
    {"type": "end", "steps": 52, "turn": 7, "impulse": 3, "outcome": {...}, "reason": "..."}

``turn``/``impulse`` of a step line are the decision point the actions answered. A shipped
scenario is stored by name with a fingerprint of its file, any other (a path or a dict) in
full. A replay of an earlier env version runs where that version's spaces are unchanged
(``SFBParallelEnv.changes_since``; ``sfb_v0`` outside the scenarios ``sfb_v1`` changed) and is
refused, naming the change, elsewhere. ``ReplayRecorder`` wraps an env while playing;
``load_replay`` and ``rerun`` read one back and re-run it, checking every step's events
against the recording.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from sfb_env.data import load_data_file
from sfb_env.engine.events import Event, event_to_dict
from sfb_env.engine.scenario import SCENARIO_DIR
from sfb_env.env.parallel import SFBParallelEnv

FORMAT = "sfb-replay"
VERSION = 1
EARLIER_ENVS = ("sfb_v0",)  # env versions whose replays still run where the spaces are unchanged
ENV_OPTIONS = ("illegal_action", "uniform_spaces", "reward", "max_turns", "target_slots",
               "threat_slots", "enemy_fire")


class ReplayError(ValueError):
    """A replay that cannot be read or re-run: wrong format or version, another scenario,
    or a re-run whose events differ from the recording."""


@dataclass
class ReplayStep:
    """One env step: the decision point it answered, the actions and the events it produced."""

    turn: int
    impulse: int
    actions: dict[str, list[int]]
    events: list[dict]


@dataclass
class Replay:
    """A replay file's content."""

    header: dict[str, Any]
    reset_events: list[dict] = field(default_factory=list)
    steps: list[ReplayStep] = field(default_factory=list)
    end: dict[str, Any] | None = None

    @property
    def scenario(self) -> str | dict:
        return self.header["scenario"]

    @property
    def seed(self) -> int | None:
        return self.header["seed"]

    @property
    def env_options(self) -> dict[str, Any]:
        return dict(self.header.get("env_options", {}))


# --------------------------------------------------------------------------- scenarios


def scenario_document(scenario: str | Path | Mapping[str, Any]) -> tuple[str | dict, dict]:
    """``(what the header stores, the scenario document)``: a shipped name stays a name, a
    YAML path or a dict is stored in full."""
    if isinstance(scenario, Mapping):
        doc = _jsonable(dict(scenario))
        return doc, doc
    path = Path(scenario)
    if path.suffix in (".yaml", ".yml"):
        doc = _jsonable(load_data_file(path))
        return doc, doc
    shipped = SCENARIO_DIR / f"{scenario}.yaml"
    if not shipped.exists():
        known = ", ".join(sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml")))
        raise ReplayError(f"scenario {scenario!r} is not a shipped scenario (known: {known})")
    return str(scenario), _jsonable(load_data_file(shipped))


def fingerprint(doc: Mapping[str, Any]) -> str:
    """SHA-256 of a scenario document's canonical JSON."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def events_to_json(events: list[Event]) -> list[dict]:
    """Events as the JSON-ready dicts a replay stores (tuples become lists)."""
    return _jsonable([event_to_dict(e) for e in events])


# --------------------------------------------------------------------------- writing


class ReplayRecorder:
    """Wraps an env while it plays and writes the replay, one line per step::

        env = sfb_env.parallel_env("cth-03", max_turns=20)
        with ReplayRecorder("out/cth-03.jsonl", env, "cth-03", seed=7,
                            env_options={"max_turns": 20}) as rec:
            obs, infos = rec.reset()
            while env.agents:
                obs, rewards, terms, truncs, infos = rec.step(actions)

    ``env_options`` must be the options the env was built with (they shape the action space).
    """

    def __init__(self, path: str | Path, env: SFBParallelEnv,
                 scenario: str | Path | Mapping[str, Any], seed: int | None,
                 env_options: Mapping[str, Any] | None = None,
                 meta: Mapping[str, Any] | None = None) -> None:
        options = dict(env_options or {})
        for key, value in options.items():
            if key not in ENV_OPTIONS:
                raise ReplayError(f"env option {key!r} cannot be recorded; known: {ENV_OPTIONS}")
            if callable(value):
                raise ReplayError(f"env option {key}={value!r} is not JSON (a callable reward?)")
        stored, doc = scenario_document(scenario)
        self.env = env
        self.seed = seed
        self.header = {
            "type": "header", "format": FORMAT, "version": VERSION,
            "env": env.metadata["name"], "sfb_env": _version(), "scenario": stored,
            "scenario_sha256": fingerprint(doc), "seed": seed, "env_options": options,
            "agents": list(env.possible_agents), "meta": _jsonable(dict(meta or {})),
        }
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO | None = self.path.open("w", encoding="utf-8")
        self._write(self.header)
        self._cursor = 0
        self.steps = 0

    def reset(self) -> tuple[dict, dict]:
        """``env.reset(seed=seed)``, recorded."""
        out = self.env.reset(seed=self.seed)
        self._cursor = 0
        self._write({"type": "reset", "events": self._new_events()})
        return out

    def step(self, actions: Mapping[str, Any]):
        """``env.step(actions)``, recorded with the events it produced."""
        st = self.env.battle.state
        turn, impulse = int(st.turn), int(st.impulse)
        out = self.env.step(actions)
        # the actions as flown (a masked value replaced by its no-op, illegal_action="noop"),
        # so a replay holds only legal actions and re-runs under illegal_action="raise"
        flown = getattr(self.env, "flown_actions", {})
        line = {
            "type": "step", "turn": turn, "impulse": impulse,
            "actions": {a: np.asarray(flown.get(a, v), dtype=np.int64).reshape(-1).tolist()
                        for a, v in actions.items()},
            "events": self._new_events(),
        }
        self._write(line)
        self.steps += 1
        return out

    def close(self) -> None:
        """Write the end line and close the file."""
        if self._file is None:
            return
        self._write(end_line(self.env, self.steps))
        self._file.close()
        self._file = None

    def __enter__(self) -> ReplayRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _new_events(self) -> list[dict]:
        events = self.env.battle.events
        new = events[self._cursor:]
        self._cursor = len(events)
        return events_to_json(new)

    def _write(self, line: dict) -> None:
        assert self._file is not None
        self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
        self._file.flush()


END_FIELDS = ("steps", "turn", "impulse", "done", "outcome", "reason")


def end_line(env: SFBParallelEnv, steps: int) -> dict[str, Any]:
    """The replay's last line: where the battle stood after ``steps`` steps."""
    battle = env.battle
    return {"type": "end", "steps": steps, "turn": int(battle.state.turn),
            "impulse": int(battle.state.impulse), "done": bool(battle.done),
            "outcome": _jsonable(battle.outcome), "reason": battle.end_reason}


def _version() -> str:
    from sfb_env import __version__

    return __version__


# --------------------------------------------------------------------------- reading


def load_replay(path: str | Path) -> Replay:
    """Read a replay file; a file of another format or version raises ``ReplayError``."""
    path = Path(path)
    try:
        lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()
                 if text.strip()]
    except json.JSONDecodeError as exc:
        problem = f"line {exc.lineno}: {exc.msg}"
        raise ReplayError(f"{path}: not a JSON-lines replay ({problem})") from None
    if not lines or not isinstance(lines[0], dict) or lines[0].get("format") != FORMAT:
        raise ReplayError(f"{path}: not an sfb-env replay (no '{FORMAT}' header line)")
    header = lines[0]
    if header.get("version") != VERSION:
        raise ReplayError(f"{path}: replay format version {header.get('version')!r}; this "
                          f"sfb-env {_version()} reads version {VERSION}")
    replay = Replay(header)
    for number, line in enumerate(lines[1:], 2):
        try:
            _read_line(replay, line)
        except ReplayError as exc:
            raise ReplayError(f"{path}: line {number}: {exc}") from None
        except (AttributeError, KeyError, TypeError) as exc:  # an edited or cut line
            raise ReplayError(f"{path}: line {number}: malformed replay line (field {exc} "
                              "missing or of the wrong type)") from None
    return replay


def _read_line(replay: Replay, line: dict[str, Any]) -> None:
    """Add one line after the header to ``replay``."""
    kind = line.get("type")
    if kind == "reset":
        replay.reset_events = line["events"]
    elif kind == "step":
        if not isinstance(line["actions"], dict):
            raise TypeError("actions")
        replay.steps.append(ReplayStep(line["turn"], line["impulse"], line["actions"],
                                       line["events"]))
    elif kind == "end":
        replay.end = line
    else:
        raise ReplayError(f"unknown line type {kind!r}")


def make_env(replay: Replay, **overrides: Any) -> SFBParallelEnv:
    """The env a replay was recorded with (``overrides``: e.g. ``render_mode``); raises
    ``ReplayError`` if its scenario or env version no longer match the recording."""
    header = replay.header
    from sfb_env.backends import parallel_env

    recorded = header.get("env")
    if recorded not in (SFBParallelEnv.metadata["name"], *EARLIER_ENVS):
        raise ReplayError(f"replay recorded with env {recorded!r}; this sfb-env "
                          f"provides {SFBParallelEnv.metadata['name']!r}")
    stored, doc = scenario_document(replay.scenario)
    name = stored if isinstance(stored, str) else doc.get("name", "<dict>")
    if fingerprint(doc) != header.get("scenario_sha256"):
        raise ReplayError(f"scenario {name!r} does not match the one the replay was recorded "
                          "with (its file or dict changed since); re-record the replay")
    # strict unless the recording says otherwise: a replay holds the actions as flown, so a
    # masked value in one is an edit (and replays before issue 13 were recorded under "raise")
    env = parallel_env(doc if isinstance(stored, dict) else stored,
                       **{"illegal_action": "raise", **replay.env_options, **overrides})
    changes = env.changes_since(recorded)
    if changes:  # e.g. sfb_v0 -> sfb_v1: the phaser-G's extra shot components (E2.151)
        raise ReplayError(f"recorded with {recorded}; {'; '.join(changes)}: re-record the "
                          "replay")
    if list(env.possible_agents) != list(header.get("agents", env.possible_agents)):
        raise ReplayError(f"scenario {name!r}: agents {env.possible_agents} differ from the "
                          f"replay's {header.get('agents')}")
    return env


def rerun(replay: Replay, env: SFBParallelEnv | None = None) -> Iterator[SFBParallelEnv]:
    """Re-run a replay: yields the env after reset and after each step, having checked that
    the step produced exactly the recorded events and the end line matches the re-run
    (``ReplayError`` names the first difference; a replay without an end line is refused)."""
    if replay.end is None:  # before any work: nothing could say the re-run matches
        raise ReplayError(f"no end line after {len(replay.steps)} steps: the replay is "
                          "truncated (or its recording was interrupted)")
    env = env or make_env(replay)
    env.reset(seed=replay.seed)
    cursor = len(env.battle.events)
    _compare(events_to_json(env.battle.events[:cursor]), replay.reset_events, "reset")
    yield env
    for k, step in enumerate(replay.steps):
        unknown = set(step.actions) - set(env.agents)
        if unknown:
            raise ReplayError(f"step {k}: actions for {sorted(unknown)}, not live agents "
                              f"{env.agents} (the re-run has diverged)")
        try:
            env.step({a: np.asarray(v, dtype=np.int64) for a, v in step.actions.items()})
        except (ValueError, TypeError, IndexError, KeyError) as exc:  # edited actions
            raise ReplayError(f"step {k} (turn {step.turn}, impulse {step.impulse}): the "
                              f"recorded actions do not play: {exc}") from None
        new = events_to_json(env.battle.events[cursor:])
        cursor = len(env.battle.events)
        _compare(new, step.events, f"step {k} (turn {step.turn}, impulse {step.impulse})")
        yield env
    _compare_end(replay, env)


def _compare_end(replay: Replay, env: SFBParallelEnv) -> None:
    """The end line is required and must match the re-run: a truncated or edited replay is
    not "every event as recorded"."""
    assert replay.end is not None  # rerun refused a replay without one
    got = end_line(env, len(replay.steps))
    for key in END_FIELDS:
        if replay.end.get(key) != got[key]:
            raise ReplayError(f"end line differs from the re-run: {key} recorded "
                              f"{replay.end.get(key)!r}, got {got[key]!r}")


def _compare(got: list[dict], recorded: list[dict], where: str) -> None:
    if got == recorded:
        return
    for i, (a, b) in enumerate(zip(got, recorded, strict=False)):
        if a != b:
            raise ReplayError(f"re-run differs from the recording at {where}, event {i}: "
                              f"recorded {b}, got {a}")
    raise ReplayError(f"re-run differs from the recording at {where}: recorded "
                      f"{len(recorded)} events, got {len(got)}")
