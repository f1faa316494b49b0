# ruff: noqa: E501 - chart blocks are copied verbatim from CTH-DATA.md
"""Damage Allocation Charts (D4.21, D4.31) against CTH-DATA §10.2 and §10.3."""

from __future__ import annotations

import re

import numpy as np
import pytest
from tables_reference import assert_in_reference, lines

from sfb_env import tables
from sfb_env.data.charts import load_damage_allocation

CADET_DAC = """\
die   A       B       C       D       E
 1    Hull    Engine  Other   WPN     Excess
 2    Hull    Other   WPN     Engine  Excess
 3    Engine  Hull    Other   WPN     Excess
 4    Other   Engine  WPN     Hull    Excess
 5    WPN     Hull    Other   Engine  Excess
 6    Other   WPN     Engine  Hull    Excess
"""

CADET_CATEGORIES = """\
- Categories: HULL = any hull box; ENGINE = warp or impulse; WPN = Ph-1/2/3/G, PHOT, PL-S/R/F, DISR, FUS, PPD,
  ESG, DRN; OTHER = TRAN, LAB, APR, BTTY, SHTL; EXCESS = the Excess Damage track.
"""

CADET_TEST_VECTOR = """\
- **Test vector (D4.5)** — Klingon cadet, 13 internal points, rolls 2, 6, 5, 3, 4, 2, 5, 1, 3, 1, 3, 1, 3 →
  Hull, Other (lab), WPN (right-rear phaser), Engine (impulse), Other (shuttle), Hull, WPN (drone rack), Hull,
  Engine (2nd impulse), Hull (4th and last hull box), Engine (left warp), [1 → Hull gone → column B] Engine
  (right warp), Engine (right warp).
"""

STANDARD_DAC = """\
roll  A            B            C         D          E         F          G          H           I          J        K        L           M
 2    Bridge*      FlagBridge*  Sensor*   DamCon*    A Hull*   L Warp     Trans      Tractor     Shuttle    Lab      F Hull   R Warp      Excess
 3    Drone*       Phaser*      Impulse   L Warp     R Warp    A Hull     Shuttle    DamCon*     C Warp     Lab      Battery  Phaser      Excess
 4    Phaser*      Trans*       R Warp    Impulse    F Hull    A Hull     L Warp     APR         Lab        Trans    Probe    C Warp      Excess
 5    R Warp*      A Hull       Cargo     Battery    Shuttle   Torp*      L Warp     Impulse     R Warp     Tractor  Probe    Any Weapon  Excess
 6    F Hull       Impulse      Lab       L Warp     Sensor*   Tractor    Shuttle    R Warp      Phaser     Trans    Battery  Any Weapon  Excess
 7    Cargo        F Hull       Battery   C Warp     Shuttle   APR        Lab        Phaser      Any Warp   Probe    A Hull   Any Weapon  Excess
 8    A Hull       APR          Shuttle   R Warp     Scanner*  Tractor    Lab        L Warp      Phaser     Trans    Battery  Any Weapon  Excess
 9    L Warp*      F Hull       Cargo     Battery    Lab       Drone*     R Warp     Impulse     L Warp     Tractor  Probe    Any Weapon  Excess
10    Phaser*      Tractor*     L Warp    Impulse    A Hull    F Hull     R Warp     APR         Lab        Trans    Probe    C Warp      Excess
11    Torp*        Phaser*      Impulse   R Warp     L Warp    F Hull     Tractor    DamCon*     C Warp     Lab      Battery  Phaser      Excess
12    AuxControl*  EmerBridge*  Scanner*  Probe*     F Hull*   R Warp     Trans      Shuttle     Tractor    Lab      A Hull   L Warp      Excess
"""

BOLD_CONFIRMED = """\
distinguishable in the available copy of the book); the book's own examples confirm bold at 2-A, 4-A, 5-A, 9-A, 10-A, 12-A, 12-B
and non-bold at 9-B (MEDIUM for the other marks).
"""

BOLD_RULE = """\
| D4.31 bold | a bold cell may be used once per volley; a second roll on a used bold cell moves right. Judged by cell, not system: rolls 4 and 10 may both hit phasers. Three 12s → aux control, emergency bridge, scanner. Three 9s → left warp, forward hull, forward hull |
"""


@pytest.mark.parametrize(
    "block",
    [CADET_DAC, CADET_CATEGORIES, CADET_TEST_VECTOR, STANDARD_DAC, BOLD_CONFIRMED, BOLD_RULE],
)
def test_cth_data_blocks_are_verbatim(block):
    assert_in_reference(block)


# ---------------------------------------------------------------- cadet DAC (1d6)


def cadet_rows() -> dict[int, tuple[str, ...]]:
    header, *rows = lines(CADET_DAC)
    assert header == ["die", "A", "B", "C", "D", "E"]
    return {int(row[0]): tuple(row[1:]) for row in rows}


def test_d4_21_cadet_dac_every_die():
    rows = cadet_rows()
    assert sorted(rows) == list(range(1, 7))
    indices, names = tables.cadet_dac_chart()
    for die, expected in rows.items():
        assert tables.cadet_dac(die) == expected, die
        assert tuple(names[i] for i in indices[die - 1]) == expected


def test_d4_21_cadet_dac_categories():
    text = " ".join(CADET_CATEGORIES.split())
    boxes = tables.cadet_dac_boxes()
    assert set(boxes) == {"Hull", "Engine", "WPN", "Other", "Excess"}
    expected = {}
    for name in ("WPN", "OTHER"):
        listed = re.search(rf"{name} = ([^;]+)", text)[1].rstrip(".").split(", ")
        expanded = []
        for label in listed:  # "Ph-1/2/3/G" -> Ph-1, Ph-2, Ph-3, Ph-G
            stem, *alternatives = label.split("/")
            prefix = stem.rsplit("-", 1)[0]
            expanded += [stem] + [f"{prefix}-{alt}" for alt in alternatives]
        expected[name] = set(expanded)
    assert set(boxes["WPN"]) == expected["WPN"]
    assert set(boxes["Other"]) == expected["OTHER"]


def test_d4_5_cadet_test_vector_klingon_13_points():
    """Walk the columns right past categories that are used up (only Hull runs out: 4 boxes)."""
    text = " ".join(CADET_TEST_VECTOR.split())
    rolls = [int(r) for r in re.search(r"rolls ([\d, ]+) →", text)[1].split(", ")]
    listed = re.sub(r"\[[^\]]*\]", "", text.split(" → ", 1)[1])  # drop "[1 → Hull gone → column B]"
    results = re.findall(r"\b(Hull|Engine|WPN|Other)\b", listed)
    hull_left, got = 4, []
    for roll in rolls:
        category = next(c for c in tables.cadet_dac(roll) if c != "Hull" or hull_left > 0)
        hull_left -= category == "Hull"
        got.append(category)
    assert len(rolls) == 13
    assert got == results


# ---------------------------------------------------------------- standard DAC (2d6)


def standard_rows() -> dict[int, tuple[tuple[str, bool], ...]]:
    """{roll: ((system, bold), ...)} sliced at the header's column positions."""
    header, *rows = STANDARD_DAC.splitlines()
    starts = [m.start() for m in re.finditer(r"\S+", header)]
    assert header.split() == ["roll", *"ABCDEFGHIJKLM"]
    out = {}
    for row in rows:
        cells = [row[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
        out[int(cells[0])] = tuple((c.rstrip("*"), c.endswith("*")) for c in cells[1:])
    return out


def test_d4_21_standard_dac_every_roll_and_column():
    rows = standard_rows()
    assert sorted(rows) == list(range(2, 13))
    systems, bold, names = tables.standard_dac_chart()
    for roll, expected in rows.items():
        assert len(expected) == 13
        assert tables.standard_dac(roll) == expected, roll
        assert [
            (names[s], b) for s, b in zip(systems[roll - 2], bold[roll - 2], strict=True)
        ] == list(expected)


def test_d4_31_bold_cells_confirmed_by_the_book():
    text = " ".join(BOLD_CONFIRMED.split())
    bold = re.search(r"confirm bold at ([\d\-A-M, ]+) and", text)[1].split(", ")
    plain = re.search(r"non-bold at ([\d\-A-M, ]+)", text)[1].strip().split(", ")
    assert len(bold) == 7 and plain == ["9-B"]
    for cell, expected in [(c, True) for c in bold] + [(c, False) for c in plain]:
        roll, column = cell.split("-")
        assert tables.standard_dac(int(roll))["ABCDEFGHIJKLM".index(column)][1] is expected, cell


def allocate(rolls: list[int]) -> list[str]:
    """One volley on an undamaged ship: a used bold cell moves right (D4.31)."""
    used, out = set(), []
    for roll in rolls:
        for column, (system, bold) in enumerate(tables.standard_dac(roll)):
            if (roll, column) not in used:
                if bold:
                    used.add((roll, column))
                out.append(system)
                break
    return out


def test_d4_31_three_12s_and_three_9s():
    text = BOLD_RULE
    assert "Three 12s → aux control, emergency bridge, scanner" in text
    assert allocate([12, 12, 12]) == ["AuxControl", "EmerBridge", "Scanner"]
    assert "Three 9s → left warp, forward hull, forward hull" in text
    assert allocate([9, 9, 9]) == ["L Warp", "F Hull", "F Hull"]


def test_d4_31_rolls_4_and_10_both_hit_phasers():
    assert allocate([4, 10]) == ["Phaser", "Phaser"]


def test_standard_dac_bold_marks_are_medium_confidence():
    prov = load_damage_allocation().provenance
    assert prov["standard"].confidence == "HIGH"
    assert prov["standard.bold"].confidence == "MEDIUM"
    assert prov["cadet"].confidence == "HIGH"


def test_compiled_dac_arrays_are_read_only():
    systems, bold, _ = tables.standard_dac_chart()
    assert systems.shape == bold.shape == (11, 13) and bold.dtype == np.bool_
    with pytest.raises(ValueError):
        bold[0, 0] = False


@pytest.mark.parametrize(
    ("call", "text", "chart"),
    [
        (lambda: tables.cadet_dac(0), "die=0", "cadet DAC"),
        (lambda: tables.cadet_dac(7), "die=7", "cadet DAC"),
        (lambda: tables.standard_dac(1), "roll=1", "standard DAC"),
        (lambda: tables.standard_dac(13), "roll=13", "standard DAC"),
        (lambda: tables.standard_dac("7"), "roll='7'", "standard DAC"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_value(call, text, chart):
    with pytest.raises(ValueError, match=re.escape(text)) as info:
        call()
    assert chart in str(info.value)
