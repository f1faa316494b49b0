"""``sfb policies``: list the registered policies (``agents.base.register_policy``)."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def run(args: argparse.Namespace) -> int:
    del args
    import agents  # noqa: F401 - registers every shipped policy
    from agents.base import policy_descriptions

    for name, description in policy_descriptions().items():
        print(f"{name:20s} {description}".rstrip())
    print("\nAlso accepted wherever a policy is named: an SB3 checkpoint path (*.zip, "
          "sb3-contrib MaskablePPO) or a module:object path (a policy, or a class or factory "
          "called without arguments).")
    return 0
