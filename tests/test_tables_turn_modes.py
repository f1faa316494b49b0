# ruff: noqa: E501 - chart blocks are copied verbatim from CTH-DATA.md
"""Turn-mode charts (C3.0, J1.23, J4.12) against CTH-DATA §3.1, §3.2 and the proposals of §12.4."""

from __future__ import annotations

import re

import pytest
from tables_reference import assert_in_reference, bracket

from sfb_env import tables
from sfb_env.data.charts import load_turn_modes

CADET_SHIPS = """\
| Federation Cadet Cruiser | 1–6 | 7–16 |
| Klingon Cadet Battlecruiser | 1–8 | 9–16 |
| Romulan Cadet Cruiser | 1–6 | 7–16 |
| Romulan Cadet KR Battlecruiser | 1–8 | 9–16 |
| Gorn Cadet Cruiser | 1–6 | 7–16 |
| Kzinti Cadet Cruiser | 1–7 | 8–16 |
| Orion Cadet Cruiser | 1–8 | 9–16 |
| Hydran Cadet Cruiser | 1–7 | 8–16 |
| Lyran Cadet Cruiser | 1–7 | 8–16 |
| ISC Cadet Cruiser | not available — see §12.1 (PROPOSAL 1–6 / 7–16) | |
"""

CADET_ANCHOR = """\
Anchor (C3.3): Federation Cadet Cruiser at speed 8 has turn mode 2.
"""

CLASSES = """\
turn mode | seeking | shuttle/fighter | AA    | A     | B     | C     | D     | E     | F
1         | 1-32    | 1-11            | 2-8   | 2-6   | 2-5   | 2-4   | 2-4   | 2-3   | 2-3
2         |         | 12-23           | 9-16  | 7-12  | 6-10  | 5-9   | 5-8   | 4-6   | 4-5
3         |         | 24+             | 17-24 | 13-19 | 11-15 | 10-14 | 9-12  | 7-10  | 6-9
4         |         |                 | 25+   | 20-26 | 16-21 | 15-20 | 13-17 | 11-14 | 10-13
5         |         |                 |       | 27+   | 22-28 | 21-27 | 18-24 | 15-20 | 14-17
6         |         |                 |       |       | 29+   | 28+   | 25+   | 21-29 | 18-23
7         |         |                 |       |       |       |       |       | 30+   | 24-29
8         |         |                 |       |       |       |       |       |       | 30+
"""

CLASS_NOTES = """\
- Speed 1 is not on the class charts. PROPOSAL: speed 0–1 → turn mode 1.
- Other units: seeking weapons turn mode 1 at all speeds; administrative shuttles 1 at all speeds (J1.23); Stinger
  fighters 2 at speed ≥ 12, 1 below (J4.12); the Planet Killer 0 (may change facing freely every impulse).
"""

CADET_ABOVE_16 = """\
| Cadet turn modes above speed 16 (scenario 12 on the 32-impulse chart) | keep the printed lines; add 17–24 = 3 and 25–31 = 4 for every cadet ship |
"""

CLASS_LOW_SPEED = """\
| Speed 0–1 on the full-size turn-mode classes | turn mode 1 |
"""

FREIGHTER = """\
| turn mode | 1 (freighters in the book only turn at fixed moments; any value ≥ 1 reproduces the book) |
"""

CADET_KEYS = {
    "Federation Cadet Cruiser": "fed-cadet",
    "Klingon Cadet Battlecruiser": "klingon-cadet",
    "Romulan Cadet Cruiser": "romulan-cadet",
    "Romulan Cadet KR Battlecruiser": "romulan-kr-cadet",
    "Gorn Cadet Cruiser": "gorn-cadet",
    "Kzinti Cadet Cruiser": "kzinti-cadet",
    "Orion Cadet Cruiser": "orion-cadet",
    "Hydran Cadet Cruiser": "hydran-cadet",
    "Lyran Cadet Cruiser": "lyran-cadet",
    "ISC Cadet Cruiser": "isc-cadet",
}
MAX_SPEED = 32  # seeking weapons on the 32-impulse chart


@pytest.mark.parametrize(
    "block",
    [CADET_SHIPS, CADET_ANCHOR, CLASSES, CLASS_NOTES, CADET_ABOVE_16, CLASS_LOW_SPEED, FREIGHTER],
)
def test_cth_data_blocks_are_verbatim(block):
    assert_in_reference(block)


def cadet_charts() -> dict[str, dict[int, int]]:
    """{chart key: {speed: turn mode}} of the printed cadet table, with the §12.4 extension."""
    extension = {
        speed: int(mode)
        for low, high, mode in re.findall(r"(\d+)–(\d+) = (\d+)", CADET_ABOVE_16)
        for speed in range(int(low), int(high) + 1)
    }
    charts = {}
    for line in CADET_SHIPS.splitlines():
        name, *cells = [c.strip() for c in line.strip("|").split("|")]
        labels = re.findall(r"\d+–\d+", " ".join(cells))  # ISC: the PROPOSAL 1–6 / 7–16
        assert len(labels) == 2, line
        chart = {s: mode for mode, label in enumerate(labels, 1) for s in bracket(label)}
        charts[CADET_KEYS[name]] = chart | extension
    return charts


def class_charts() -> dict[str, dict[int, int]]:
    """{column: {speed 0..MAX_SPEED: turn mode}} of the class block ("25+" runs to MAX_SPEED)."""
    header, *rows = [[c.strip() for c in line.split("|")] for line in CLASSES.splitlines()]
    charts: dict[str, dict[int, int]] = {name: {} for name in header[1:]}
    for row in rows:
        for name, label in zip(header[1:], row[1:], strict=True):
            for speed in bracket(label) if label else ():
                if speed <= MAX_SPEED:
                    charts[name][speed] = int(row[0])
    return charts


@pytest.mark.parametrize("chart", sorted(CADET_KEYS.values()))
def test_c3_3_cadet_turn_mode_every_speed(chart):
    expected = cadet_charts()[chart]
    assert sorted(expected) == list(range(1, 32))
    for speed, mode in expected.items():
        assert tables.turn_mode(chart, speed) == mode, (chart, speed)
        assert tables.turn_mode_chart(chart)[speed] == mode
    for speed in (0, 32):
        with pytest.raises(ValueError, match=rf"speed={speed}\b.*{chart}"):
            tables.turn_mode(chart, speed)
    assert tables.turn_mode_chart(chart)[0] == tables.turn_mode_chart(chart)[32] == -1


def test_c3_3_fed_cadet_speed_8_is_turn_mode_2():
    assert tables.turn_mode("fed-cadet", 8) == 2


@pytest.mark.parametrize("chart", ["AA", "A", "B", "C", "D", "E", "F"])
def test_c3_2_class_turn_mode_every_speed(chart):
    expected = class_charts()[chart]
    assert sorted(expected) == list(range(2, MAX_SPEED + 1))
    expected |= {0: 1, 1: 1}  # PROPOSAL: speed 0-1 -> turn mode 1
    for speed, mode in expected.items():
        assert tables.turn_mode(chart, speed) == mode, (chart, speed)
    with pytest.raises(ValueError, match=rf"speed={MAX_SPEED + 1}\b"):
        tables.turn_mode(chart, MAX_SPEED + 1)


def test_f2_0_seeking_weapons_turn_mode_1_at_all_speeds():
    assert class_charts()["seeking"] == dict.fromkeys(range(1, MAX_SPEED + 1), 1)
    assert all(tables.turn_mode("seeking", speed) == 1 for speed in range(MAX_SPEED + 1))


def test_shuttle_fighter_column_every_speed():
    expected = class_charts()["shuttle/fighter"]
    assert sorted(expected) == list(range(1, MAX_SPEED + 1))
    for speed, mode in expected.items():
        assert tables.turn_mode("shuttle", speed) == mode, speed
    with pytest.raises(ValueError, match="speed=0"):
        tables.turn_mode("shuttle", 0)


def test_j1_23_admin_shuttle_turn_mode_1_at_all_speeds():
    assert all(tables.turn_mode("admin-shuttle", speed) == 1 for speed in range(MAX_SPEED + 1))


def test_j4_12_stinger_turn_mode_2_at_speed_12_and_above():
    for speed in range(MAX_SPEED + 1):
        assert tables.turn_mode("stinger", speed) == (2 if speed >= 12 else 1), speed


def test_scenario_11_planet_killer_turn_mode_0():
    assert all(tables.turn_mode("planet-killer", speed) == 0 for speed in range(MAX_SPEED + 1))


def test_cth_data_12_2_freighter_turn_mode_1_proposal():
    assert "| turn mode | 1 (" in FREIGHTER
    assert all(tables.turn_mode("freighter", speed) == 1 for speed in range(MAX_SPEED + 1))
    assert load_turn_modes().provenance["freighter"] == ("PROPOSAL", "proposal")


def test_proposals_are_marked_in_data():
    prov = load_turn_modes().provenance
    for key in ("isc-cadet", "cadet_extension", "class_low_speed"):
        assert prov[key] == ("PROPOSAL", "proposal"), key
    assert {k for k in CADET_KEYS.values() if prov[k].confidence == "HIGH"} == set(
        CADET_KEYS.values()
    ) - {"isc-cadet"}
    assert [
        c for c in ["AA", "A", "B", "C", "D", "E", "F"] if prov[c].confidence == "HIGH"
    ] == list("ABCD")
    assert all(prov[c].confidence == "MEDIUM" for c in ("AA", "E", "F", "seeking", "shuttle"))


def test_turn_mode_charts_lists_every_chart():
    names = set(tables.turn_mode_charts())
    expected = set(CADET_KEYS.values()) | set(["AA", "A", "B", "C", "D", "E", "F"])
    expected |= {"seeking", "shuttle", "admin-shuttle", "stinger", "planet-killer", "freighter"}
    assert names == expected


@pytest.mark.parametrize(
    ("call", "text"),
    [
        (lambda: tables.turn_mode("fed-cadet", -1), "speed=-1"),
        (lambda: tables.turn_mode("fed-cadet", 33), "speed=33"),
        (lambda: tables.turn_mode("D", 2.5), "speed=2.5"),
        (lambda: tables.turn_mode("fed", 8), "chart='fed'"),
        (lambda: tables.turn_mode("G", 8), "chart='G'"),
        (lambda: tables.turn_mode_chart("cadet"), "chart='cadet'"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_value(call, text):
    with pytest.raises(ValueError, match=re.escape(text)) as info:
        call()
    assert "turn-mode" in str(info.value)
