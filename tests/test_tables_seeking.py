# ruff: noqa: E501 - chart blocks are copied verbatim from CTH-DATA.md
"""Plasma warheads (FP1.0), drones (FD1.0, CTH-DATA §12.3) and the ESG table (G23.42)."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from tables_reference import assert_in_reference, bracket, lines

from sfb_env import tables
from sfb_env.data.charts import load_weapons

PLASMA = """\
hexes   0-5 6-10 11-12 13-14 15 16-18 19 20 21-23 24 25 26-28 29 30 31+
R       50  50   35    35    35 25    25 25 20    20 20 10    5  1  0
S       30  30   22    22    22 15    15 15 10    5  1  0     0  0  0
G       20  20   15    15    15 10    5  1  0     0  0  0     0  0  0   (not CTH)
F       20  15   10    5     1  0     0  0  0     0  0  0     0  0  0
"""

PLASMA_CADET_SHEETS = """\
(The cadet sheets print S as 0–10: 30, 11–15: 22, 16–20: 15, 21–23: 10, 24: 5, 25: 1 and F as 0–5: 20,
6–10: 15, 11–12: 10, 13–14: 5, 15: 1 — same values.)
"""

PLASMA_ENDURANCE = """\
| endurance | S: 25 hexes (FP1.4). F and R: the warhead is 0 after 15 and 30 hexes respectively — use 15 and 30 as endurance (LOW, inference) | |
"""

DRONE_RACKS = """\
| racks | each rack holds 4 drones (ammunition track; the track cannot take damage); a destroyed rack destroys the drones still in it |
"""

DRONE_STANDARD = """\
| endurance | 3 turns, counted in impulses from launch (launched impulse 4 of turn 3 → removed at end of impulse 4 of turn 6) |
| destruction | 4 damage points (cumulative over volleys); other drones in the hex unaffected |
| warhead | 6 with cadet ships (scenarios 1–6 and cadet ships in 12); 12 with full-size ships (scenarios 7–12) |
"""

DRONE_TYPES = """\
| C-1 = CTH standard | 1 | 4 | 6 / 12 | scenario maximum | 3 turns | book |
| C4 heavy | 2 | 6 | 12 / 24 | scenario maximum | 3 turns | destroy value from [RULES-003]; warhead = two standard warheads (type IV uses two warhead spaces in the full game) |
| C6 dogfight | ½ | 2 | 3 / 6 | scenario maximum | 1 turn | destroy value from [RULES-003]; half warhead for half size |
"""

ESG = """\
radius (factor)  E=1  E=2  E=3  E=4  E=5
0 (4.00)          4    8   12   16   20
1 (3.67)          4    7   11   15   18
2 (3.33)          3    7   10   13   17
3 (3.00)          3    6    9   12   15
"""

ESG_ROUNDING = """\
Strength = round(factor × energy), .50 and up rounds up (G23.42). Prefer the table as the source of truth.
"""


@pytest.mark.parametrize(
    "block",
    [
        PLASMA,
        PLASMA_CADET_SHEETS,
        PLASMA_ENDURANCE,
        DRONE_RACKS,
        DRONE_STANDARD,
        DRONE_TYPES,
        ESG,
        ESG_ROUNDING,
    ],
)
def test_cth_data_blocks_are_verbatim(block):
    assert_in_reference(block)


# ---------------------------------------------------------------- plasma


def plasma_cells() -> dict[str, dict[int, int]]:
    """{kind: {hexes 0..99: warhead}} from the plasma block ("31+" runs to 99)."""
    header, *rows = lines(PLASMA)
    out = {}
    for row in rows:
        out[row[0]] = {
            hexes: int(value)
            for label, value in zip(header[1:], row[1 : len(header)], strict=True)
            for hexes in bracket(label)
        }
    return out


@pytest.mark.parametrize("kind", ["R", "S", "G", "F"])
def test_fp1_0_plasma_warhead_every_hex(kind):
    cells = plasma_cells()[kind]
    assert sorted(cells) == list(range(100))
    for hexes, warhead in cells.items():
        assert tables.plasma_warhead(kind, hexes) == warhead, (kind, hexes)
    chart = tables.plasma_chart(kind)
    assert all(chart[h] == cells[h] for h in range(len(chart)))


def test_fp1_0_plasma_cadet_sheet_brackets_give_the_same_values():
    text = " ".join(PLASMA_CADET_SHEETS.split())
    s_part, f_part = text.split(" and F as ")
    for kind, part in (("S", s_part), ("F", f_part)):
        for label, warhead in re.findall(r"(\d+(?:–\d+)?): (\d+)", part):
            for hexes in bracket(label):
                assert tables.plasma_warhead(kind, hexes) == int(warhead), (kind, hexes)


def test_design_api_plasma_s_11_hexes_is_22():
    assert tables.plasma_warhead(kind="S", hexes=11) == 22


def test_fp1_4_plasma_endurance():
    assert tables.plasma_endurance("S") == 25
    assert tables.plasma_endurance("F") == 15
    assert tables.plasma_endurance("R") == 30
    # F and R are inferred from the chart: the last hex with a non-zero warhead (S agrees).
    for kind in ("S", "F", "R"):
        last = tables.plasma_endurance(kind)
        assert tables.plasma_warhead(kind, last) > 0 == tables.plasma_warhead(kind, last + 1)
    prov = load_weapons().provenance
    assert prov["plasma-S.endurance"].confidence == "HIGH"
    assert prov["plasma-F.endurance"] == prov["plasma-R.endurance"] == ("LOW", "proposal")
    assert prov["plasma-G"].confidence == "MEDIUM"
    with pytest.raises(ValueError, match="kind='G'"):
        tables.plasma_endurance("G")


# ---------------------------------------------------------------- drones


def test_fd1_0_standard_drone():
    def number(pattern: str, text: str = DRONE_STANDARD) -> int:
        return int(re.search(pattern, text)[1])

    drone = tables.drone()
    assert tables.drone_rack_capacity() == number(r"holds (\d+) drones", DRONE_RACKS) == 4
    assert drone.endurance_turns == number(r"\| (\d+) turns") == 3
    assert drone.to_destroy == number(r"\| (\d+) damage points") == 4
    assert drone.warhead_cadet == number(r"\| (\d+) with cadet ships") == 6
    assert drone.warhead_full_size == number(r"; (\d+) with full-size ships") == 12
    assert drone.provenance.confidence == "HIGH"


def test_cth_data_12_3_drone_types():
    for row in DRONE_TYPES.splitlines():
        name, spaces, destroy, warheads, _speed, endurance, _basis = row.strip("|").split(" | ")
        kind = name.split()[0]
        drone = tables.drone(kind)
        assert drone.rack_spaces == (0.5 if spaces == "½" else int(spaces))
        assert drone.to_destroy == int(destroy)
        assert (drone.warhead_cadet, drone.warhead_full_size) == tuple(
            int(w) for w in warheads.split(" / ")
        )
        assert drone.endurance_turns == int(endurance.split()[0])
        expected = "HIGH" if kind == "C-1" else "PROPOSAL"
        assert drone.provenance.confidence == expected


# ---------------------------------------------------------------- ESG


def esg_cells() -> dict[tuple[int, int], tuple[Decimal, int]]:
    """{(radius, energy): (factor, strength)} from the ESG block."""
    _header, *rows = lines(ESG)
    out = {}
    for row in rows:
        radius, factor = int(row[0]), Decimal(row[1].strip("()"))
        for energy, value in enumerate(row[2:], start=1):
            out[radius, energy] = (factor, int(value))
    return out


def test_g23_42_esg_every_radius_and_energy():
    cells = esg_cells()
    assert sorted(cells) == [(r, e) for r in range(4) for e in range(1, 6)]
    for (radius, energy), (_factor, strength) in cells.items():
        assert tables.esg_strength(radius, energy) == strength, (radius, energy)
        assert tables.esg_chart()[radius, energy - 1] == strength


def test_g23_42_esg_strength_is_factor_times_energy_rounded_half_up():
    for (radius, energy), (factor, strength) in esg_cells().items():
        rounded = int((factor * energy).quantize(Decimal(1), rounding=ROUND_HALF_UP))
        assert rounded == strength == tables.esg_strength(radius, energy), (radius, energy)


def test_design_api_esg_radius2_energy3_is_10():
    assert tables.esg_strength(radius=2, energy=3) == 10


@pytest.mark.parametrize(
    ("call", "text", "chart"),
    [
        (lambda: tables.plasma_warhead("X", 3), "kind='X'", "plasma"),
        (lambda: tables.plasma_warhead("s", 3), "kind='s'", "plasma"),
        (lambda: tables.plasma_warhead("S", -1), "hexes=-1", "plasma-S"),
        (lambda: tables.plasma_chart("plasma-s"), "kind='plasma-s'", "plasma"),
        (lambda: tables.plasma_endurance("Q"), "kind='Q'", "plasma"),
        (lambda: tables.drone("C9"), "kind='C9'", "drone"),
        (lambda: tables.esg_strength(4, 3), "radius=4", "esg"),
        (lambda: tables.esg_strength(-1, 3), "radius=-1", "esg"),
        (lambda: tables.esg_strength(2, 6), "energy=6", "esg"),
        (lambda: tables.esg_strength(2, 0), "energy=0", "esg"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_value(call, text, chart):
    with pytest.raises(ValueError, match=re.escape(text)) as info:
        call()
    assert chart in str(info.value)
