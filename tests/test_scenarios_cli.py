"""``sfb scenarios --backends``: which engine ``backend="auto"`` takes, and why not compiled."""

from __future__ import annotations

import argparse

from sfb_env.commands import scenarios

TIER_1 = ("cth-01", "cth-02", "cth-03", "duel-klingon-vs-federation", "duel-kzinti-vs-orion")
# tier 2 so far: the 16-impulse cadet game (cadet form, cadet DAC), plasma, the Hydran weapons
TIER_2 = ("cth-05", "cth-06", "duel-gorn-vs-klingon", "duel-romulan-vs-kzinti",
          "grad-hydran-vs-klingon", "grad-hydran-vs-romulan")


def test_backends_column_says_compiled_for_ported_scenarios_and_why_not_elsewhere(capsys):
    assert scenarios.run(argparse.Namespace(backends=True)) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    for name in TIER_1 + TIER_2:
        assert lines[name].split()[1] == "compiled", lines[name]
    for name in ("cth-07", "cth-08", "cth-09", "cth-10", "cth-12", "cth-13"):  # full size
        assert lines[name].split()[1] == "compiled", lines[name]
    assert "reference: victory kind 'planet_killer' not ported" in lines["cth-11"]


def test_plain_listing_has_no_backend_column(capsys):
    scenarios.run(argparse.Namespace(backends=False))
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("cth-01 "))
    assert "compiled" not in line and "Battle Drill" in line


def test_missing_lists_every_reason_under_the_first(capsys):
    scenarios.run(argparse.Namespace(backends=True, missing=True))
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("cth-11 "))
    end = next(i for i in range(at + 1, len(lines)) if not lines[i].startswith(" "))
    block = lines[at:end]
    text = "\n".join(block)
    for reason in ("'planet-killer'", "labs=True", "probes=True", "monster_in_play=True"):
        assert reason in text, reason
    for ported in ("tractors=True", "transporters=True", "boarding=True", "energy='standard'",
                   "damage='standard_dac'", "impulses_per_turn", "cloak=", "'planet'",
                   "planets_in_play=True", "suicide_shuttles=True"):  # (compiled.planets,
        assert ported not in text, ported  # compiled.suicide_shuttles)
    at = next(i for i, x in enumerate(lines) if x.startswith("cth-13 "))
    assert lines[at].split()[1] == "compiled"  # (nothing listed under it)
    assert not lines[at + 1].startswith(" ")
    for ported in ("launch_facing", "sideslip", "tactical_maneuvers",  # (compiled.maneuvers)
                   "reinforcement", "damage_control", "reserve_power",  # (.engineering)
                   "disengage_by_announcement", "'encounter'", "energy_form", "energy='standard'",
                   "standard_energy", "damage='standard_dac'", "lock_on=True",
                   "impulses_per_turn", "'klingon-d7'", "'fed-ca'", "drone_warhead"):
        assert ported not in text, ported
    assert not any(x.startswith(" ") for x in lines[:3])  # tier 1: nothing missing
