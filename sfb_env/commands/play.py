"""``sfb play``: play a scenario with policies; optionally write a video and a replay.

Sides: ``--blue`` flies the agents of the scenario's first side, ``--red`` those of every
other side; a side without agents is flown by the scenario's robots. A policy is what
``agents.load_policy`` takes: a registry name (``random``, ...), ``module:object`` or an SB3
checkpoint ``*.zip`` (its sidecar must name the scenario played). Every argument is checked
before the game starts; a bad one is one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from sfb_env.engine.types import Status, UnitKind

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle
    from sfb_env.env.parallel import SFBParallelEnv


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", help="a scenario name (see `sfb scenarios`) or a YAML path")
    parser.add_argument("--blue", default=None, metavar="POLICY",
                        help="policy of the first side's agents (default: random)")
    parser.add_argument("--red", default=None, metavar="POLICY",
                        help="policy of the other sides' agents (default: random)")
    parser.add_argument("--seed", type=int, default=None, help="battle seed (default: random)")
    parser.add_argument("--max-turns", type=int, default=None,
                        help="truncate after this many turns (default: the scenario's, else 30)")
    parser.add_argument("--replay", metavar="FILE.jsonl", help="write the replay here")
    add_backend_argument(parser)
    add_video_arguments(parser)


def add_backend_argument(parser: argparse.ArgumentParser) -> None:
    """``--backend`` (shared by play, replay and bench)."""
    parser.add_argument("--backend", choices=("auto", "compiled", "reference"), default=None,
                        help="engine: the compiled core, the reference engine, or auto (the "
                             "compiled core where it plays the scenario; default)")


def apply_backend(args: argparse.Namespace) -> None:
    """Make ``--backend`` the process's default (``sfb_env.backends``: $SFB_BACKEND, which
    worker processes inherit)."""
    import os

    from sfb_env.backends import BACKEND_VARIABLE

    if getattr(args, "backend", None):
        os.environ[BACKEND_VARIABLE] = args.backend


def cold_build_notice(command: str, env: Any = None) -> None:
    """Say on stderr, before the compiled core's first build on this machine (a few minutes
    of one CPU, then cached), that it is coming and how to play without it. ``env``: the env
    to be played (no notice where it runs on the reference engine); None: the process's
    default backend decides (``bench`` and ``ladder`` build their envs in workers). Only on a
    terminal: a refusal's one line on a captured stderr stays one line."""
    from sfb_env.backends import backend_of, default_backend

    if not sys.stderr.isatty():
        return
    if env is not None and backend_of(env) != "compiled":
        return
    if env is None and default_backend() == "reference":
        return
    from sfb_env import compiled

    if compiled.cache_is_cold():
        print(f"{command}: the compiled core is built on its first use on this machine (a few "
              f"minutes of one CPU; kept in {compiled.CACHE_DIR} for later runs); "
              "--backend reference plays without it", file=sys.stderr)


def add_video_arguments(parser: argparse.ArgumentParser) -> None:
    """``--video``, ``--view``, ``--fps``, ``--size`` (shared with ``sfb replay``)."""
    parser.add_argument("--video", metavar="FILE", help="write a video (.mp4 or .gif)")
    parser.add_argument("--view", choices=("units", "map"), default="units",
                        help="frame the units in play (default) or the whole map")
    parser.add_argument("--fps", type=float, default=4.0, help="frames (impulses) per second")
    parser.add_argument("--size", type=_size, default=(1280, 720), metavar="WxH",
                        help="frame size in pixels (default 1280x720)")


VIDEO_FORMATS = (".mp4", ".gif")  # sfb_env.render.video.FORMATS (not imported: Pillow)
MIN_SIZE = (480, 120)  # Renderer: the 320-pixel HUD beside a map at least 160x120


def check_video_arguments(args: argparse.Namespace) -> None:
    """Refuse ``--fps``, ``--size`` and ``--video`` values that would fail mid-render."""
    if not args.fps > 0:
        raise ValueError(f"--fps must be positive, got {args.fps:g}")
    width, height = args.size
    if width < MIN_SIZE[0] or height < MIN_SIZE[1]:
        raise ValueError(f"--size {width}x{height} is too small to draw: at least "
                         f"{MIN_SIZE[0]}x{MIN_SIZE[1]} (the HUD is 320 pixels wide)")
    if args.video:
        suffix = Path(args.video).suffix.lower()
        if suffix not in VIDEO_FORMATS:
            raise ValueError(f"--video {args.video}: unsupported format {suffix or '(none)'!r}; "
                             f"supported: {', '.join(VIDEO_FORMATS)}")
        check_writable(args.video, "--video")


def check_writable(path: str | Path, flag: str, folder: bool = False) -> None:
    """Refuse an output whose folder (``path`` itself if ``folder``) cannot be written: the
    nearest existing folder above it must take a new file."""
    target = Path(path).absolute()
    existing = target if folder else target.parent
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{flag} {path}: {existing} is a file, not a folder")
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise ValueError(f"{flag} {path}: folder {existing} is not writable "
                         f"({exc.strerror or exc})") from None


def check_arguments(args: argparse.Namespace) -> None:
    """Refuse arguments that cannot play (``ValueError`` naming the flag)."""
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    if args.max_turns is not None and args.max_turns < 1:
        raise ValueError(f"--max-turns must be at least 1, got {args.max_turns}")
    check_video_arguments(args)
    if args.replay:
        check_writable(args.replay, "--replay")


def run(args: argparse.Namespace) -> int:
    import sfb_env
    from agents.base import view_options
    from sfb_env.replay import ReplayRecorder

    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    options = {"max_turns": args.max_turns} if args.max_turns is not None else {}
    apply_backend(args)
    try:
        check_arguments(args)
        env = sfb_env.parallel_env(args.scenario, **options)
        policies, by_side = _policies(env, args.blue, args.red, seed)
        views = view_options(policies.values())  # (a checkpoint that reads enemy_fire)
        if views:
            options = {**options, **views}
            env = sfb_env.parallel_env(args.scenario, **options)
        cold_build_notice("sfb play", env)
    except ValueError as exc:  # the message names the argument, scenario or policy
        print(f"sfb play: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:  # a checkpoint without the train extra
        print(f"sfb play: {exc.name or exc} missing: a checkpoint needs the train extra "
              "(pip install -e '.[train]')", file=sys.stderr)
        return 2
    recorder = None
    if args.replay:
        recorder = ReplayRecorder(args.replay, env, args.scenario, seed, options,
                                  meta={"policies": by_side})
    video = VideoOutput(args) if args.video else None
    stepper: Any = recorder if recorder is not None else _Plain(env, seed)
    try:
        impulses = _play(env, stepper, policies)
        for _ in video.progress(impulses) if video else impulses:
            if video:
                video.add(env.battle)
    finally:
        if recorder is not None:
            recorder.close()
        if video:
            video.close()
    print_result(env.battle, by_side, seed)
    for label, path in (("video", args.video), ("replay", args.replay)):
        if path:
            print(f"{label}: {path}")
    return 0


class VideoOutput:
    """A renderer feeding a video writer, with a progress bar."""

    def __init__(self, args: argparse.Namespace) -> None:
        from sfb_env.render import VideoWriter

        self.args = args
        self.writer = VideoWriter(args.video, fps=args.fps)
        self.renderer: Any = None

    def add(self, battle: Battle) -> None:
        from sfb_env.render import Renderer

        if self.renderer is None:
            self.renderer = Renderer(battle, size=self.args.size, view=self.args.view)
        self.writer.append(self.renderer.frame(battle))

    def progress(self, items, total: int | None = None):
        from sfb_env.render import progress

        return progress(items, total=total, desc=f"rendering {self.args.video}")

    def close(self) -> None:
        self.writer.close()


class _Plain:
    """The recorder's interface over a bare env (no replay file)."""

    def __init__(self, env: SFBParallelEnv, seed: int) -> None:
        self.env, self.seed = env, seed

    def reset(self):
        return self.env.reset(seed=self.seed)

    def step(self, actions):
        return self.env.step(actions)


def _play(env: SFBParallelEnv, stepper: Any, policies: Mapping[str, Any]) -> Iterator[None]:
    """Reset, then step until no agent is left; yields after the reset and each step."""
    obs, _ = stepper.reset()
    from agents.base import bind_policy

    for agent, policy in policies.items():  # captains read their ship's action components
        bind_policy(policy, env, agent)
    yield
    while env.agents:
        actions = {a: policies[a].act(obs[a], env.action_space(a)) for a in env.agents}
        obs, *_ = stepper.step(actions)
        yield


def _policies(env: SFBParallelEnv, blue: str | None, red: str | None, seed: int):
    """One policy per agent, and the policy name per side ("robots" where no agent flies)."""
    from agents import load_policy
    from agents.sb3_policy import check_checkpoint

    battle = env.battle
    sides = battle.scenario.sides
    by_side = {s: "robots" for s in sides}
    policies = {}
    for k, agent in enumerate(env.possible_agents):
        side = sides[int(battle.state.side[battle.unit_index[agent]])]
        flag = "--blue" if side == sides[0] else "--red"
        name = (blue if side == sides[0] else red) or "random"
        if name == "robot":
            raise ValueError(f"{flag} robot cannot fly {side} in {battle.scenario.name}: its "
                             f"ships are agents (the scenario's robots fly only sides without)")
        if name.endswith(".zip"):
            check_checkpoint(name, battle.scenario.name)
        policy = load_policy(name)
        policy.reset(seed=seed + 1 + k)
        policies[agent] = policy
        by_side[side] = name
    for flag, name, flown in (("--blue", blue, sides[:1]), ("--red", red, sides[1:])):
        if name and name != "robot" and all(by_side[s] == "robots" for s in flown):
            print(f"note: {flag} {name} ignored: {', '.join(flown)} has no agents; "
                  "the scenario's robots fly it", file=sys.stderr)
    return policies, by_side


# --------------------------------------------------------------------------- results


def result_rows(battle: Battle, policies: Mapping[str, str] | None = None) -> list[dict]:
    """Per side: policy, ships left, result, level, damage dealt and taken (points scored by
    direct fire and drone hits) and internal damage taken."""
    st = battle.state
    sides = battle.scenario.sides
    side_of = {uid: sides[int(st.side[u])] for u, uid in enumerate(battle.unit_ids)}
    dealt = dict.fromkeys(sides, 0)
    taken = dict.fromkeys(sides, 0)
    internal = dict.fromkeys(sides, 0)
    for e in battle.events:
        points = {"Fired": "damage", "SeekingHit": "warhead"}.get(e.kind)
        if points:
            dealt[side_of[e.unit]] += getattr(e, points)
            taken[side_of[e.target]] += getattr(e, points)
        elif e.kind == "Damaged":
            internal[side_of[e.unit]] += e.internal
    rows = []
    for i, side in enumerate(sides):
        ships = [u for u in range(len(st.kind)) if st.side[u] == i
                 and st.kind[u] in (UnitKind.SHIP, UnitKind.FREIGHTER)]
        left = sum(1 for u in ships if st.status[u] == Status.ACTIVE)
        outcome = (battle.outcome or {}).get(side, {"result": "-", "level": "unfinished"})
        rows.append({
            "side": side, "policy": (policies or {}).get(side, "-"),
            "ships": f"{left}/{len(ships)}", "result": outcome["result"],
            "level": outcome["level"], "dealt": dealt[side], "taken": taken[side],
            "internal": internal[side],
        })
    return rows


def print_result(battle: Battle, policies: Mapping[str, str] | None, seed: int | None,
                 file: TextIO | None = None) -> None:
    """Print the result table."""
    file = file or sys.stdout
    st = battle.state
    turns = int(st.turn) if st.impulse > 0 else int(st.turn) - 1
    reason = battle.end_reason or "not finished"
    plural = "" if turns == 1 else "s"
    print(f"{battle.scenario.name} ({battle.scenario.title}), seed {seed}: {turns} turn{plural}, "
          f"{reason}", file=file)
    rows = result_rows(battle, policies)
    columns = ("side", "policy", "ships", "result", "level", "dealt", "taken", "internal")
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in columns}
    numeric = ("dealt", "taken", "internal")

    def fmt(values: Mapping[str, Any]) -> str:
        return "  ".join(str(values[c]).rjust(widths[c]) if c in numeric
                         else str(values[c]).ljust(widths[c]) for c in columns).rstrip()

    print(fmt({c: c for c in columns}), file=file)
    for row in rows:
        print(fmt(row), file=file)


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WxH, e.g. 1280x720, got {text!r}") from None
    if width % 2 or height % 2:
        raise argparse.ArgumentTypeError(f"video sizes must be even, got {width}x{height}")
    return width, height
