"""``sfb scenarios``: list the shipped scenarios (``--backends``: which engine ``auto`` takes)."""

from __future__ import annotations

import argparse

import sfb_env


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backends", action="store_true",
        help="also say which backend backend='auto' takes for each scenario and, where it is "
             "the reference engine, the first rule the compiled core has not ported")
    parser.add_argument(
        "--missing", action="store_true",
        help="with --backends: every rule, unit and victory kind the compiled core lacks for "
             "each scenario, one per line")


def missing(name: str) -> list[str]:
    """Everything the compiled core lacks for ``name`` (``compiled.tiers.missing``)."""
    from sfb_env.compiled import tiers
    from sfb_env.engine import make_battle
    from sfb_env.engine.scenario import load_scenario

    return tiers.missing(make_battle(load_scenario(name)).setup)


def run(args: argparse.Namespace) -> int:
    for name, title in sfb_env.list_scenarios().items():
        if args.backends:
            reasons = missing(name)  # (the first is tiers.why_not's)
            note = f"reference: {reasons[0]}" if reasons else "compiled"
            print(f"{name:32s} {note:52s} {title}")
            if getattr(args, "missing", False):
                for reason in reasons[1:]:
                    print(f"{'':32s} {'':11s}{reason}")
        else:
            print(f"{name:32s} {title}")
    return 0
