# ruff: noqa: E501 - chart blocks are copied verbatim from CTH-DATA.md
"""Hit/miss weapons: disruptor (E3.0), photon (E4.0), PPD (E11.0); CTH-DATA §4.2, §4.3, §4.5."""

from __future__ import annotations

import re

import pytest
from tables_reference import assert_in_reference, bracket, lines

from sfb_env import tables
from sfb_env.data.charts import load_weapons

DISRUPTOR = """\
range   0    1    2    3-4  5-15  16-22  23-30  | 31-40 (not CTH, [SFBOL])
hit     NA   1-5  1-5  1-4  1-4   1-3    1-2    | 1-2
damage  0    5    4    4    3     2      2      | 1
"""

DISRUPTOR_RANGES = """\
| maximum range | most CTH disruptor ships 30 (E3.32); D7 30, D6 22 (D7/D6 SSD note: the 23–30 column is marked "D7 only") |
| per hull class ([RULES-003] only, MEDIUM) | FF/FW 10; DD/DW/Q-ship 15; CL/CW 22; CA/BC/BCH 30; DN/base 40 |
"""

PHOTON = """\
range   0-1  2    3-4  5-8  9-12  13-30
hit     NA   1-5  1-4  1-3  1-2   1
damage  NA   8    8    8    8     8
"""

PHOTON_ANCHORS = """\
| anchors | range 6 die 3 → hit; range 11 die 4 → miss; Fed cadet arming both tubes has at most 12 warp + 1 impulse = speed 13 |
"""

PPD = """\
range       0-3   4-10    11-15   16-20   21-25   26-30   31-40
hit# (2d6≤)  -     9       8       7       6       5       4
damage       0     6       5       4       3       2       1
splash       0     1+4+1   1+3+1   1+2+1   1+1+1   1+1+0   0+1+0
alt          0     3+3     3+2     2+2     2+1     1+1     1+0
"""

PPD_NO_SHIELDS = """\
- Targets that never had shields (drones, fighters, shuttles, monsters): centre value only (E11.353; drone at
  range 6 takes 4). Ships whose shields are down still take the full splash pattern.
"""

PPD_ANCHORS = """\
| anchors | range 10 → 6 per pulse, range 11 → 5; range 12: roll 11 = no lock, next impulse roll 4 = lock → pulses 2–4 hit for 5 each |
"""

FIGHTER_MODIFIER = """\
| target is a fighter | +1 to every die roll, whoever fires (not for plasma; drones are affected); a modified 6 becomes "7": for phaser-type charts use the die-6 row of the next longer range bracket (Ph-1 range 3 die 6 → 2 instead of 3); for hit/miss weapons it is a miss (disruptor range 3 die 4 → 5 = miss) | J4.47 |
"""

DIE_1D6_MODIFIED = range(1, 9)  # natural die + 2 against drones (FD1.52)
ROLL_2D6_MODIFIED = range(2, 15)


def hit_chart(block: str) -> dict[int, tuple[int | None, int | None]]:
    """{range: (hit number or None for NA, damage or None)} of a range/hit/damage block."""
    rows = {row[0]: row[1:] for row in lines(block.replace("|", " "))}
    labels = [t for t in rows["range"] if re.fullmatch(r"\d+(-\d+)?", t)]  # drops "(not CTH, ..."
    out = {}
    for label, hit, damage in zip(labels, rows["hit"], rows["damage"], strict=True):
        hit_number = None if hit == "NA" else int(hit.split("-")[-1])  # "1-4": die 1..4 hits
        for rng in bracket(label):
            out[rng] = (hit_number, None if damage == "NA" else int(damage))
    return out


@pytest.mark.parametrize(
    "block",
    [
        DISRUPTOR,
        DISRUPTOR_RANGES,
        PHOTON,
        PHOTON_ANCHORS,
        PPD,
        PPD_NO_SHIELDS,
        PPD_ANCHORS,
        FIGHTER_MODIFIER,
    ],
)
def test_cth_data_blocks_are_verbatim(block):
    assert_in_reference(block)


# ---------------------------------------------------------------- disruptor


def test_e3_0_disruptor_every_range_and_die_to_40():
    cells = hit_chart(DISRUPTOR)
    assert sorted(cells) == list(range(41))
    for rng, (hit, damage) in cells.items():
        for die in DIE_1D6_MODIFIED:
            if hit is None:
                with pytest.raises(ValueError, match=f"rng={rng}"):
                    tables.disruptor_damage(rng, die, max_range=40)
                continue
            expected = damage if die <= hit else 0
            assert tables.disruptor_damage(rng, die, max_range=40) == expected, (rng, die)
        if hit is not None:
            assert tables.disruptor_hit_number(rng, max_range=40) == hit
            assert tables.disruptor_chart().hit_number[rng] == hit
            assert tables.disruptor_chart().damage[rng] == damage


def test_e3_31_disruptor_hit_by_effective_range_damage_by_true_range():
    cells = hit_chart(DISRUPTOR)
    for effective in range(1, 31):
        for true in range(1, 31):
            for die in DIE_1D6_MODIFIED:
                hit, damage = cells[effective][0], cells[true][1]
                expected = damage if die <= hit else 0
                got = tables.disruptor_damage(effective, die, true_range=true)
                assert got == expected, (effective, true, die)


def test_e3_32_disruptor_default_max_range_30_and_31_40_not_cth():
    assert tables.disruptor_max_range() == 30
    for rng in (31, 40):
        with pytest.raises(ValueError, match=f"rng={rng}"):
            tables.disruptor_damage(rng, 1)
    assert load_weapons().disruptor_not_cth == ((31, 40),)
    assert load_weapons().provenance["disruptor.not_cth"].confidence == "MEDIUM"
    with pytest.raises(ValueError, match="rng=41"):
        tables.disruptor_damage(41, 1, max_range=40)


@pytest.mark.parametrize(
    ("hull", "max_range"),
    [
        ("FF", 10),
        ("FW", 10),
        ("DD", 15),
        ("DW", 15),
        ("Q-ship", 15),
        ("CL", 22),
        ("CW", 22),
        ("CA", 30),
        ("BC", 30),
        ("BCH", 30),
        ("DN", 40),
        ("base", 40),
    ],
)
def test_e3_32_disruptor_max_range_by_hull_class(hull, max_range):
    assert tables.disruptor_max_range(hull) == max_range
    assert tables.disruptor_damage(max_range, 1, max_range=max_range) > 0
    with pytest.raises(ValueError, match=f"rng={max_range + 1}"):
        tables.disruptor_damage(max_range + 1, 1, max_range=max_range)


def test_e3_32_disruptor_d6_range_22():
    # D6 22: the 23-30 column is D7 only.
    assert tables.disruptor_damage(22, 1, max_range=22) == 2
    with pytest.raises(ValueError, match="rng=23"):
        tables.disruptor_damage(23, 1, max_range=22)
    with pytest.raises(ValueError, match="true_range=23"):
        tables.disruptor_damage(20, 1, true_range=23, max_range=22)


def test_design_api_disruptor_range3_die4_is_4():
    assert tables.disruptor_damage(rng=3, die=4) == 4


def test_j4_47_fighter_modified_die_is_a_miss():
    # Disruptor range 3 die 4 -> 5 against a fighter: a miss.
    assert tables.disruptor_damage(3, 5) == 0


def test_fd1_52_drone_modified_die_8_misses():
    assert tables.disruptor_damage(1, 8) == 0
    assert tables.photon_damage(2, 8) == 0


# ---------------------------------------------------------------- photon


def test_e4_0_photon_every_range_and_die():
    cells = hit_chart(PHOTON)
    assert sorted(cells) == list(range(31))
    for rng, (hit, damage) in cells.items():
        for die in DIE_1D6_MODIFIED:
            if hit is None:
                with pytest.raises(ValueError, match=f"rng={rng}"):
                    tables.photon_damage(rng, die)
                continue
            assert tables.photon_damage(rng, die) == (damage if die <= hit else 0), (rng, die)
        if hit is not None:
            assert tables.photon_hit_number(rng) == hit
    with pytest.raises(ValueError, match="rng=31"):
        tables.photon_damage(31, 1)


def test_e4_0_photon_range6_die3_hits_range11_die4_misses():
    assert tables.photon_damage(6, 3) == 8
    assert tables.photon_damage(11, 4) == 0


# ---------------------------------------------------------------- PPD


def ppd_chart_cells() -> dict[int, tuple[int, int, tuple[int, ...], tuple[int, ...]]]:
    """{range: (hit number (0 = no lock), damage, splash, alt)} from the PPD block."""
    rows = {row[0]: row[-7:] for row in lines(PPD)}
    labels = rows["range"]
    out = {}
    for i, label in enumerate(labels):
        hit = 0 if rows["hit#"][i] == "-" else int(rows["hit#"][i])
        splash = tuple(int(v) for v in rows["splash"][i].split("+"))
        alt = tuple(int(v) for v in rows["alt"][i].split("+"))
        for rng in bracket(label):
            out[rng] = (
                hit,
                int(rows["damage"][i]),
                splash * 3 if splash == (0,) else splash,
                alt * 2 if alt == (0,) else alt,
            )
    return out


def test_e11_0_ppd_chart_every_range():
    cells = ppd_chart_cells()
    assert sorted(cells) == list(range(41))
    chart = tables.ppd_chart()
    for rng, (hit, damage, splash, alt) in cells.items():
        assert tables.ppd_hit_number(rng) == hit == chart.hit_number[rng]
        assert tables.ppd_damage(rng) == damage == chart.damage[rng]
        assert tables.ppd_splash(rng) == splash == tuple(chart.splash[rng])
        assert tables.ppd_alt(rng) == alt == tuple(chart.alt[rng])
        assert sum(splash) == sum(alt) == damage
    for call in (tables.ppd_hit_number, tables.ppd_damage, tables.ppd_splash, tables.ppd_alt):
        with pytest.raises(ValueError, match="41"):
            call(41)


def test_e11_31_ppd_pulse_lock_by_effective_range_damage_by_true_range():
    cells = ppd_chart_cells()
    for effective in range(41):
        for true in range(41):
            for roll in ROLL_2D6_MODIFIED:
                hit, damage = cells[effective][0], cells[true][1]
                expected = damage if roll <= hit else 0
                got = tables.ppd_pulse(effective, roll, true_range=true)
                assert got == expected, (effective, true, roll)


def test_e11_0_ppd_anchors():
    assert tables.ppd_damage(10) == 6
    assert tables.ppd_damage(11) == 5
    assert tables.ppd_pulse(rng=12, roll_2d6=11) == 0
    assert tables.ppd_pulse(rng=12, roll_2d6=4) == 5


def test_e11_352_ppd_splash_6_on_shield_3_is_1_4_1():
    assert tables.ppd_damage(10) == 6
    assert tables.ppd_splash(10) == (1, 4, 1)


def test_e11_353_drone_at_range_6_takes_centre_4():
    assert tables.ppd_splash(6)[1] == 4


def test_e11_312_ppd_myopic_zone_scores_nothing():
    for rng in range(4):
        assert tables.ppd_hit_number(rng) == 0
        assert all(tables.ppd_pulse(rng, roll) == 0 for roll in ROLL_2D6_MODIFIED)


@pytest.mark.parametrize(
    ("call", "text"),
    [
        (lambda: tables.disruptor_damage(-1, 1), "rng=-1"),
        (lambda: tables.disruptor_damage(0, 1), "rng=0"),
        (lambda: tables.disruptor_damage(3, 0), "die=0"),
        (lambda: tables.disruptor_damage(3, 9), "die=9"),
        (lambda: tables.disruptor_damage(3, 1, true_range=0), "true_range=0"),
        (lambda: tables.disruptor_damage(3, 1, max_range=41), "max_range=41"),
        (lambda: tables.disruptor_damage(3, 1, max_range=0), "max_range=0"),
        (lambda: tables.disruptor_hit_number(31), "rng=31"),
        (lambda: tables.disruptor_max_range("XX"), "hull_class='XX'"),
        (lambda: tables.photon_damage(1, 1), "rng=1"),
        (lambda: tables.photon_damage(-3, 1), "rng=-3"),
        (lambda: tables.photon_damage(5, 0), "die=0"),
        (lambda: tables.photon_damage(5, 9), "die=9"),
        (lambda: tables.photon_hit_number(0), "rng=0"),
        (lambda: tables.ppd_pulse(-1, 7), "rng=-1"),
        (lambda: tables.ppd_pulse(12, 1), "roll_2d6=1"),
        (lambda: tables.ppd_pulse(12, 15), "roll_2d6=15"),
        (lambda: tables.ppd_pulse(12, 7, true_range=-2), "true_range=-2"),
        (lambda: tables.ppd_splash(-1), "true_range=-1"),
        (lambda: tables.ppd_alt(41), "true_range=41"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_value(call, text):
    with pytest.raises(ValueError, match=re.escape(text)) as info:
        call()
    assert re.search("disruptor|photon|ppd", str(info.value))
