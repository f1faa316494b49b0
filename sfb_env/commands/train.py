"""``sfb train CONFIG.yaml``: train a captain with MaskablePPO over a curriculum.

The config format is documented in ``training/config.py``; examples in ``configs/training/``.
Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib, tensorboard, tqdm).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="training config YAML (see configs/training/)")
    parser.add_argument("--output", "-o", help="run folder (default: the config's output, "
                                               "else runs/<name>)")
    parser.add_argument("--resume", metavar="CHECKPOINT",
                        help="continue from a checkpoint .zip written by sfb train")
    parser.add_argument("--init", metavar="CHECKPOINT",
                        help="start this config's curriculum from a checkpoint's weights (any "
                             "run's, with the same network, observation and action spaces), "
                             "under this config's PPO settings")
    parser.add_argument("--seed", type=int, help="override the config's seed")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from training.config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"sfb train: {exc}", file=sys.stderr)
        return 2
    if args.seed is not None:
        config = replace(config, seed=args.seed)
    try:
        if args.resume and args.init:
            raise ValueError("--resume and --init: give one (--resume continues a run of this "
                             "config; --init starts its curriculum from another run's weights)")
        if args.resume:
            _check_resume(args.resume, config)
        if args.init:
            _check_checkpoint("--init", args.init)
        elif config.ppo.seat_heads and not args.resume:
            raise ValueError(f"{config.source}: field 'ppo.seat_heads': seat heads ride on a "
                             "trained policy, frozen; start the run with --init CHECKPOINT")
    except ValueError as exc:
        print(f"sfb train: {exc}", file=sys.stderr)
        return 2
    try:
        from training.sb3_train import init_settings, train
    except ImportError as exc:
        print(f"sfb train needs the train extra ({exc.name} missing): "
              "pip install torch==2.13.0 && pip install -e '.[train]'", file=sys.stderr)
        return 2
    if args.init:
        try:
            init_settings(args.init, config)  # the checkpoint's network is the config's
        except ValueError as exc:
            print(f"sfb train: {exc}", file=sys.stderr)
            return 2
    final = train(config, output=args.output, resume=args.resume, init=args.init,
                  progress=not args.no_progress, config_path=args.config)
    print(f"final checkpoint: {final}")
    return 0


def _check_checkpoint(option: str, path: str) -> dict:
    """The sidecar of the checkpoint ``path`` given to ``option``; refuses a missing file or a
    missing or unreadable sidecar."""
    from agents.sb3_policy import read_sidecar, sidecar_path

    checkpoint = Path(path)
    if checkpoint.suffix != ".zip" or not checkpoint.is_file():
        raise ValueError(f"{option} {path}: no such checkpoint file (a .zip written by sfb train)")
    try:
        sidecar = read_sidecar(checkpoint)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{option} {path}: unreadable sidecar {sidecar_path(checkpoint)}: "
                         f"{exc}") from None
    if sidecar is None:
        raise ValueError(f"{option} {path}: no sidecar {sidecar_path(checkpoint)} saying which "
                         "run wrote it")
    return sidecar


def _check_resume(path: str, config: Any) -> None:
    """Refuse ``--resume`` of a missing file, or of a checkpoint (its sidecar) of another
    config or scenario, before anything is trained."""
    sidecar = _check_checkpoint("--resume", path)
    if sidecar.get("run") != config.name:
        raise ValueError(f"--resume {path}: a checkpoint of run {sidecar.get('run')!r}, not of "
                         f"this config's {config.name!r}")
