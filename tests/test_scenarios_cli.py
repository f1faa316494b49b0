"""``sfb scenarios --backends``: which engine ``backend="auto"`` takes, and why not compiled."""

from __future__ import annotations

import argparse

from sfb_env.commands import scenarios

TIER_1 = ("cth-01", "cth-02", "cth-03", "duel-klingon-vs-federation", "duel-kzinti-vs-orion")


def test_backends_column_says_compiled_for_tier_one_and_why_not_elsewhere(capsys):
    assert scenarios.run(argparse.Namespace(backends=True)) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    for name in TIER_1:
        assert lines[name].split()[1] == "compiled", lines[name]
    assert "reference: impulses_per_turn 16" in lines["cth-05"]
    assert "reference: impulses_per_turn 32" in lines["cth-07"]


def test_plain_listing_has_no_backend_column(capsys):
    scenarios.run(argparse.Namespace(backends=False))
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("cth-01 "))
    assert "compiled" not in line and "Battle Drill" in line


def test_missing_lists_every_reason_under_the_first(capsys):
    scenarios.run(argparse.Namespace(backends=True, missing=True))
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("grad-lyran-vs-hydran "))
    block = [lines[at]] + [x for x in lines[at + 1:at + 12] if x.startswith(" ")]
    text = "\n".join(block)
    for reason in ("impulses_per_turn 16", "'hydran-cadet'", "'lyran-cadet'", "esg_in_play",
                   "damage='cadet_dac'"):
        assert reason in text, reason
    assert "energy=" not in text  # the cadet form is ported (compiled.energy)
    assert not any(x.startswith(" ") for x in lines[:3])  # tier 1: nothing missing
