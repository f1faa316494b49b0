"""``sfb train CONFIG.yaml``: train a captain with MaskablePPO over a curriculum.

The config format is documented in ``training/config.py``; examples in ``configs/training/``.
Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib, tensorboard, tqdm).
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="training config YAML (see configs/training/)")
    parser.add_argument("--output", "-o", help="run folder (default: the config's output, "
                                               "else runs/<name>)")
    parser.add_argument("--resume", metavar="CHECKPOINT",
                        help="continue from a checkpoint .zip written by sfb train")
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
        from training.sb3_train import train
    except ImportError as exc:
        print(f"sfb train needs the train extra ({exc.name} missing): "
              "pip install torch==2.13.0 && pip install -e '.[train]'", file=sys.stderr)
        return 2
    final = train(config, output=args.output, resume=args.resume,
                  progress=not args.no_progress, config_path=args.config)
    print(f"final checkpoint: {final}")
    return 0
