"""``sfb replay``: re-run a replay file, check it reproduces its events, optionally render it."""

from __future__ import annotations

import argparse
import sys

from sfb_env.commands.play import (
    VideoOutput,
    add_backend_argument,
    add_video_arguments,
    apply_backend,
    check_video_arguments,
    cold_build_notice,
    print_result,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a replay written by `sfb play --replay`")
    add_video_arguments(parser)
    add_backend_argument(parser)


def run(args: argparse.Namespace) -> int:
    from sfb_env.replay import ReplayError, load_replay, make_env, rerun

    apply_backend(args)
    try:
        check_video_arguments(args)
        replay = load_replay(args.file)
        env = make_env(replay)
    except (OSError, ValueError) as exc:  # ReplayError is a ValueError
        print(f"sfb replay: {exc}", file=sys.stderr)
        return 2
    cold_build_notice("sfb replay", env)
    video = VideoOutput(args) if args.video else None
    states = rerun(replay, env)
    try:
        for _ in video.progress(states, total=len(replay.steps) + 1) if video else states:
            if video:
                video.add(env.battle)
    except ReplayError as exc:
        print(f"sfb replay: {exc}", file=sys.stderr)
        return 2
    finally:
        if video:
            video.close()
    policies = replay.header.get("meta", {}).get("policies")
    print_result(env.battle, policies, replay.seed)
    print(f"replay {args.file}: {len(replay.steps)} steps re-run, every event as recorded")
    if args.video:
        print(f"video: {args.video}")
    return 0
