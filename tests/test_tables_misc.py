# ruff: noqa: E501 - chart blocks are copied verbatim from CTH-DATA.md
"""Boarding parties (D7.0), labs (G4.0), Planet Killer (scenario 11), quarter turn (E1.5)."""

from __future__ import annotations

import re

import pytest
from tables_reference import assert_in_reference, lines

from sfb_env import tables

BOARDING = r"""
die \ BPs in group   1  2  3  4  5  6  7  8  9 10
1                    0  0  0  0  1  1  1  1  1  1
2                    0  0  1  1  1  1  1  2  2  2
3                    0  1  1  1  2  2  2  2  3  3
4                    0  1  1  2  2  2  3  3  4  4
5                    1  1  2  2  3  3  4  4  5  5
6                    1  1  2  2  3  4  4  5  5  6
"""[1:]  # raw: the header holds a backslash

BOARDING_ANCHOR = """\
- Result = enemy boarding parties eliminated; both sides roll and apply simultaneously. Anchor: 14 Klingon vs
  8 Federation: Fed rolls 5 → 4; Klingons roll 3 (group of 10 → 3) and 2 (group of 4 → 1) → Fed 4 left, Klingons 10.
"""

LAB_FORMULA = """\
× functioning lab boxes at end of turn. Chart value = **max(0, 11 − die − range)** for range 0–10, and 0 beyond:
"""

LAB = r"""
die\range  0  1  2  3  4  5  6  7  8  9 10
1         10  9  8  7  6  5  4  3  2  1  0
2          9  8  7  6  5  4  3  2  1  0  0
3          8  7  6  5  4  3  2  1  0  0  0
4          7  6  5  4  3  2  1  0  0  0  0
5          6  5  4  3  2  1  0  0  0  0  0
6          5  4  3  2  1  0  0  0  0  0  0
"""[1:]  # raw: the header holds a backslash

PLANET_KILLER = """\
Die 1–6 → damage 40, 30, 20, 10, 5, 1 (range does not matter; range ≤ 6; 360°). Against plasma it operates as a
"""

IMPULSE_CHARTS = """\
| 8-impulse | 1–3 | 0–8 | 8 | 2 impulses |
| 16-impulse | 4–6 | 0–16 | 16 | 4 impulses |
| 32-impulse | 7–12 | 0–31 | 32 | 8 impulses |
"""

QUARTER_TURN_EXAMPLE = """\
  Example: fired on impulse 8 of an 8-impulse turn → earliest next shot impulse 2 of the next turn.
"""


@pytest.mark.parametrize(
    "block",
    [
        BOARDING,
        BOARDING_ANCHOR,
        LAB_FORMULA,
        LAB,
        PLANET_KILLER,
        IMPULSE_CHARTS,
        QUARTER_TURN_EXAMPLE,
    ],
)
def test_cth_data_blocks_are_verbatim(block):
    assert_in_reference(block)


def die_rows(block: str) -> tuple[list[int], dict[int, list[int]]]:
    """(column headings, {die: row}) of a ``die \\ ...`` block."""
    header, *rows = lines(block)
    columns = [int(c) for c in header if c.isdigit()]
    return columns, {int(row[0]): [int(v) for v in row[1:]] for row in rows}


def test_d7_0_boarding_party_every_group_size_and_die():
    sizes, rows = die_rows(BOARDING)
    assert sizes == list(range(1, 11)) and sorted(rows) == list(range(1, 7))
    chart = tables.boarding_party_chart()
    for die, row in rows.items():
        for size, losses in zip(sizes, row, strict=True):
            assert tables.boarding_party_losses(size, die) == losses, (size, die)
            assert chart[die - 1, size - 1] == losses


def test_d7_0_boarding_anchor_14_klingon_vs_8_federation():
    # Fed (one group of 8) rolls 5; Klingons (groups of 10 and 4) roll 3 and 2.
    fed_kills = tables.boarding_party_losses(8, 5)
    klingon_kills = tables.boarding_party_losses(10, 3) + tables.boarding_party_losses(4, 2)
    assert (fed_kills, tables.boarding_party_losses(10, 3), tables.boarding_party_losses(4, 2)) == (
        4,
        3,
        1,
    )
    assert (8 - klingon_kills, 14 - fed_kills) == (4, 10)
    assert "Fed 4 left, Klingons 10" in " ".join(BOARDING_ANCHOR.split())


def test_g4_0_lab_every_range_and_die():
    ranges, rows = die_rows(LAB.replace("die\\range", "die"))
    assert ranges == list(range(11)) and sorted(rows) == list(range(1, 7))
    for die, row in rows.items():
        for rng, value in zip(ranges, row, strict=True):
            assert tables.lab_information(rng, die) == value, (rng, die)
            assert tables.lab_chart()[die - 1, rng] == value
        for rng in (11, 12, 50):
            assert tables.lab_information(rng, die) == 0


def test_g4_0_lab_formula_max_0_11_minus_die_minus_range():
    assert "max(0, 11 − die − range)" in LAB_FORMULA
    for rng in range(40):
        for die in range(1, 7):
            expected = max(0, 11 - die - rng) if rng <= 10 else 0
            assert tables.lab_information(rng, die) == expected, (rng, die)


def test_scenario_11_planet_killer_damage():
    damages = [int(d) for d in re.search(r"damage ([\d, ]+) \(", PLANET_KILLER)[1].split(", ")]
    assert damages == [40, 30, 20, 10, 5, 1]
    assert (
        tables.planet_killer_max_range() == int(re.search(r"range ≤ (\d+)", PLANET_KILLER)[1]) == 6
    )
    for die, damage in enumerate(damages, start=1):
        assert tables.planet_killer_damage(die) == damage


def test_e1_5_quarter_turn():
    for row in IMPULSE_CHARTS.splitlines():
        chart, *_rest, quarter = [c.strip() for c in row.strip("|").split("|")]
        impulses = int(chart.split("-")[0])
        assert tables.quarter_turn(impulses) == int(quarter.split()[0]) == impulses // 4


def test_e1_5_fired_on_impulse_8_next_shot_impulse_2_of_next_turn():
    last = 8  # absolute impulse T = (turn - 1) * 8 + impulse
    earliest = last + tables.quarter_turn(8)
    assert divmod(earliest - 1, 8) == (1, 1)  # turn 2, impulse 2 (0-based: 1, 1)


@pytest.mark.parametrize(
    ("call", "text", "chart"),
    [
        (lambda: tables.boarding_party_losses(0, 3), "group_size=0", "boarding-party"),
        (lambda: tables.boarding_party_losses(11, 3), "group_size=11", "boarding-party"),
        (lambda: tables.boarding_party_losses(5, 0), "die=0", "boarding-party"),
        (lambda: tables.boarding_party_losses(5, 7), "die=7", "boarding-party"),
        (lambda: tables.lab_information(-1, 3), "rng=-1", "lab"),
        (lambda: tables.lab_information(3, 7), "die=7", "lab"),
        (lambda: tables.planet_killer_damage(0), "die=0", "planet-killer"),
        (lambda: tables.planet_killer_damage(7), "die=7", "planet-killer"),
        (lambda: tables.quarter_turn(12), "impulses_per_turn=12", "quarter-turn"),
        (lambda: tables.quarter_turn(0), "impulses_per_turn=0", "quarter-turn"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_value(call, text, chart):
    with pytest.raises(ValueError, match=re.escape(text)) as info:
        call()
    assert chart in str(info.value)
