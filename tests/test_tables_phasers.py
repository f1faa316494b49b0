# ruff: noqa: E501 - chart blocks are copied verbatim from CTH-DATA.md
"""Phaser charts (E2.4, E2.152) and the fusion beam (E7.0), cell by cell; CTH-DATA §4.1, §4.4."""

from __future__ import annotations

import re

import numpy as np
import pytest
from tables_reference import assert_in_reference, die_chart

from sfb_env import tables

PHASER_1 = """\
die  R0 R1 R2 R3 R4 R5 6-8 9-15 16-25 26-50 51-75
 1    9  8  7  6  5  5   4    3     2     1     1
 2    8  7  6  5  5  4   3    2     1     1     0
 3    7  5  5  4  4  4   3    1     0     0     0
 4    6  4  4  4  4  3   2    0     0     0     0
 5    5  4  4  4  3  3   1    0     0     0     0
 6    4  4  3  3  2  2   0    0     0     0     0
"""

PHASER_2 = """\
die  R0 R1 R2 R3 4-8 9-15 16-30 31-50
 1    6  5  5  4   3    2     1     1
 2    6  5  4  4   2    1     1     0
 3    6  4  4  4   1    1     0     0
 4    5  4  4  3   1    0     0     0
 5    5  4  3  3   0    0     0     0
 6    5  3  3  3   0    0     0     0
"""

PHASER_3 = """\
die  R0 R1 R2 R3 4-8 9-15
 1    4  4  4  3   1    1
 2    4  4  4  2   1    0
 3    4  4  4  1   0    0
 4    4  4  3  0   0    0
 5    4  3  2  0   0    0
 6    3  3  1  0   0    0
"""

FUSION_MAX_RANGE = """\
| maximum range | 24 |
"""

FUSION = """\
die  R0 R1 R2 3-10 11-15 16-24
 1   13  8  6   4     3     2
 2   11  8  5   3     2     1
 3   10  7  4   2     1     0
 4    9  6  3   1     1     0
 5    8  5  3   1     0     0
 6    8  4  2   0     0     0
"""

PHASER_MAX_RANGE = """\
Maximum range = last bracket (Ph-1 75, Ph-2 50, Ph-3/G 15). Beyond it: cannot fire (raise ValueError in table
"""

PHASER_ANCHORS = """\
| test anchors | Ph-2 range 3 die 2 → 4; Ph-1 range 1 die 1 → 8; Ph-1 range 1 never below 4 | (E2.4) |
"""

FIGHTER_MODIFIER = """\
| target is a fighter | +1 to every die roll, whoever fires (not for plasma; drones are affected); a modified 6 becomes "7": for phaser-type charts use the die-6 row of the next longer range bracket (Ph-1 range 3 die 6 → 2 instead of 3); for hit/miss weapons it is a miss (disruptor range 3 die 4 → 5 = miss) | J4.47 |
"""

# ph-g uses the printed "Type G" table, identical to Type III (E2.152).
PHASER_BLOCKS = {"ph-1": PHASER_1, "ph-2": PHASER_2, "ph-3": PHASER_3, "ph-g": PHASER_3}


@pytest.mark.parametrize(
    "block",
    [
        PHASER_1,
        PHASER_2,
        PHASER_3,
        FUSION,
        FUSION_MAX_RANGE,
        PHASER_MAX_RANGE,
        PHASER_ANCHORS,
        FIGHTER_MODIFIER,
    ],
)
def test_cth_data_blocks_are_verbatim(block):
    assert_in_reference(block)


@pytest.mark.parametrize("kind", sorted(PHASER_BLOCKS))
def test_e2_4_phaser_every_range_and_die(kind):
    cells = die_chart(PHASER_BLOCKS[kind])
    max_range = max(rng for rng, _ in cells)
    chart = tables.phaser_chart(kind)
    assert chart.shape == (6, max_range + 1)
    for rng in range(max_range + 1):
        for die in range(1, 7):
            expected = cells[rng, die]
            assert tables.phaser_damage(kind, rng, die) == expected, (kind, rng, die)
            assert chart[die - 1, rng] == expected, (kind, rng, die)


@pytest.mark.parametrize(
    ("kind", "max_range"), [("ph-1", 75), ("ph-2", 50), ("ph-3", 15), ("ph-g", 15)]
)
def test_e2_4_phaser_cannot_fire_beyond_max_range(kind, max_range):
    assert tables.phaser_max_range(kind) == max_range
    assert max(rng for rng, _ in die_chart(PHASER_BLOCKS[kind])) == max_range
    for rng in (max_range + 1, max_range + 25):
        with pytest.raises(ValueError, match=rf"rng={rng}\b.*{kind}"):
            tables.phaser_damage(kind, rng, 1)


def test_e7_0_fusion_every_range_and_die():
    cells = die_chart(FUSION)
    max_range = int(FUSION_MAX_RANGE.split("|")[2])
    assert max(rng for rng, _ in cells) == max_range
    chart = tables.fusion_chart()
    assert chart.shape == (6, max_range + 1)
    for rng in range(max_range + 1):
        for die in range(1, 7):
            assert tables.fusion_damage(rng, die) == cells[rng, die], (rng, die)
            assert chart[die - 1, rng] == cells[rng, die], (rng, die)
    with pytest.raises(ValueError, match="rng=25"):
        tables.fusion_damage(25, 1)


def test_e2_4_phaser2_range3_die2_is_4():
    assert tables.phaser_damage("ph-2", rng=3, die=2) == 4


def test_e2_4_phaser1_range1_die1_is_8():
    assert tables.phaser_damage("ph-1", rng=1, die=1) == 8


def test_e2_4_phaser1_range1_never_below_4():
    assert min(tables.phaser_damage("ph-1", 1, die) for die in range(1, 7)) == 4


def test_e2_152_phaser_g_uses_phaser3_table():
    assert np.array_equal(tables.phaser_chart("ph-g"), tables.phaser_chart("ph-3"))


def test_j4_47_fighter_die_7_uses_die_6_of_next_bracket():
    # Ph-1 range 3 die 6 -> 3; a fighter's "7" reads die 6 of the next bracket (range 4) -> 2.
    assert tables.phaser_damage("ph-1", 3, 6) == 3
    assert tables.phaser_damage("ph-1", 4, 6) == 2


def test_compiled_charts_are_read_only():
    with pytest.raises(ValueError):
        tables.phaser_chart("ph-1")[0, 0] = 99
    with pytest.raises(ValueError):
        tables.fusion_chart()[0, 0] = 99


@pytest.mark.parametrize(
    ("call", "text", "chart"),
    [
        (lambda: tables.phaser_damage("ph-4", 1, 1), "kind='ph-4'", "phaser"),
        (lambda: tables.phaser_damage("PH-1", 1, 1), "kind='PH-1'", "phaser"),
        (lambda: tables.phaser_damage("ph-1", -1, 1), "rng=-1", "ph-1"),
        (lambda: tables.phaser_damage("ph-1", 76, 1), "rng=76", "ph-1"),
        (lambda: tables.phaser_damage("ph-1", 1, 0), "die=0", "ph-1"),
        (lambda: tables.phaser_damage("ph-2", 1, 7), "die=7", "ph-2"),
        (lambda: tables.phaser_damage("ph-3", 1.0, 1), "rng=1.0", "ph-3"),
        (lambda: tables.phaser_damage("ph-g", 1, True), "die=True", "ph-g"),
        (lambda: tables.phaser_max_range("ph-x"), "kind='ph-x'", "phaser"),
        (lambda: tables.fusion_damage(-1, 1), "rng=-1", "fusion"),
        (lambda: tables.fusion_damage(3, 7), "die=7", "fusion"),
        (lambda: tables.fusion_damage(3, 0), "die=0", "fusion"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_value(call, text, chart):
    with pytest.raises(ValueError, match=re.escape(text)) as info:
        call()
    assert chart in str(info.value)
