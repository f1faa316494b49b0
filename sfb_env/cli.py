"""The ``sfb`` command: a thin dispatcher to one module per subcommand.

Each module in ``SUBCOMMANDS`` defines ``add_arguments(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "play": ("sfb_env.commands.play", "play a scenario with policies; write video/replay"),
    "replay": ("sfb_env.commands.replay", "re-run a replay file and render it"),
    "bench": ("sfb_env.commands.bench", "benchmark policies over scenarios and seeds"),
    "ladder": ("sfb_env.commands.ladder", "rate captains in a round robin of the cadet duels"),
    "train": ("sfb_env.commands.train", "train a captain from a YAML config"),
    "scenarios": ("sfb_env.commands.scenarios", "list the shipped scenarios"),
    "policies": ("sfb_env.commands.policies", "list the registered policies"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sfb", description="Star Fleet Battles RL environment")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module, help_text) in SUBCOMMANDS.items():
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue  # subcommand not built yet
        mod.add_arguments(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: list[str] | None = None) -> int:
    # The compiled core at LLVM -O1 unless the user chose a level: about a tenth less cold
    # compile than numba's default -O3 and steps as fast (docs/compiled.md "Cold compile").
    # Before numba is imported: it re-reads every NUMBA_* variable when one changes.
    os.environ.setdefault("NUMBA_OPT", "1")
    parser = build_parser()
    args = parser.parse_args(argv)
    module = importlib.import_module(SUBCOMMANDS[args.command][0])
    return int(module.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
