"""``sfb scenarios``: list the shipped scenarios."""

from __future__ import annotations

import argparse

import sfb_env


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def run(args: argparse.Namespace) -> int:
    for name, title in sfb_env.list_scenarios().items():
        print(f"{name:32s} {title}")
    return 0
