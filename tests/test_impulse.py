"""The impulse clock: proportional movement (C1.41-C1.44), movement order (C1.3), E1.5."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sfb_env import impulse
from sfb_env.impulse import UnitCategory, move_impulses, moves_on

# The printed charts as CTH-DATA.md §2.2 gives them (speed -> impulses on which the unit moves).
PRINTED_CHARTS = {
    8: """\
speed  8: 1 2 3 4 5 6 7 8
speed  7: 2 3 4 5 6 7 8
speed  6: 2 3 4 6 7 8
speed  5: 2 4 5 7 8
speed  4: 2 4 6 8
speed  3: 3 6 8
speed  2: 4 8
speed  1: 8
""",
    16: """\
speed 16: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16
speed 15: 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16
speed 14: 2 3 4 5 6 7 8 10 11 12 13 14 15 16
speed 13: 2 3 4 5 7 8 9 10 12 13 14 15 16
speed 12: 2 3 4 6 7 8 10 11 12 14 15 16
speed 11: 2 3 5 6 8 9 11 12 14 15 16
speed 10: 2 4 5 7 8 10 12 13 15 16
speed  9: 2 4 6 8 9 11 13 15 16
speed  8: 2 4 6 8 10 12 14 16
speed  7: 3 5 7 10 12 14 16
speed  6: 3 6 8 11 14 16
speed  5: 4 7 10 13 16
speed  4: 4 8 12 16
speed  3: 6 11 16
speed  2: 8 16
speed  1: 16
""",
    32: """\
speed 32: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
speed 31: 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
speed 30: 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
speed 29: 2 3 4 5 6 7 8 9 10 12 13 14 15 16 17 18 19 20 21 23 24 25 26 27 28 29 30 31 32
speed 28: 2 3 4 5 6 7 8 10 11 12 13 14 15 16 18 19 20 21 22 23 24 26 27 28 29 30 31 32
speed 27: 2 3 4 5 6 8 9 10 11 12 14 15 16 17 18 19 21 22 23 24 25 27 28 29 30 31 32
speed 26: 2 3 4 5 7 8 9 10 12 13 14 15 16 18 19 20 21 23 24 25 26 28 29 30 31 32
speed 25: 2 3 4 6 7 8 9 11 12 13 15 16 17 18 20 21 22 24 25 26 27 29 30 31 32
speed 24: 2 3 4 6 7 8 10 11 12 14 15 16 18 19 20 22 23 24 26 27 28 30 31 32
speed 23: 2 3 5 6 7 9 10 12 13 14 16 17 19 20 21 23 24 26 27 28 30 31 32
speed 22: 2 3 5 6 8 9 11 12 14 15 16 18 19 21 22 24 25 27 28 30 31 32
speed 21: 2 4 5 7 8 10 11 13 14 16 17 19 20 22 23 25 26 28 29 31 32
speed 20: 2 4 5 7 8 10 12 13 15 16 18 20 21 23 24 26 28 29 31 32
speed 19: 2 4 6 7 9 11 12 14 16 17 19 21 22 24 26 27 29 31 32
speed 18: 2 4 6 8 9 11 13 15 16 18 20 22 24 25 27 29 31 32
speed 17: 2 4 6 8 10 12 14 16 17 19 21 23 25 27 29 31 32
speed 16: 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30 32
speed 15: 3 5 7 9 11 13 15 18 20 22 24 26 28 30 32
speed 14: 3 5 7 10 12 14 16 19 21 23 26 28 30 32
speed 13: 3 5 8 10 13 15 18 20 23 25 28 30 32
speed 12: 3 6 8 11 14 16 19 22 24 27 30 32
speed 11: 3 6 9 12 15 18 21 24 27 30 32
speed 10: 4 7 10 13 16 20 23 26 29 32
speed  9: 4 8 11 15 18 22 25 29 32
speed  8: 4 8 12 16 20 24 28 32
speed  7: 5 10 14 19 23 28 32
speed  6: 6 11 16 22 27 32
speed  5: 7 13 20 26 32
speed  4: 8 16 24 32
speed  3: 11 22 32
speed  2: 16 32
speed  1: 32
""",
}
CTH_DATA = Path(__file__).resolve().parents[2] / "shared" / "reference" / "CTH-DATA.md"


def parse_chart(text: str) -> dict[int, list[int]]:
    rows = {}
    for line in text.strip().splitlines():
        head, cells = line.split(":")
        rows[int(head.split()[1])] = [int(c) for c in cells.split()]
    return rows


@pytest.mark.parametrize("impulses_per_turn", [8, 16, 32])
def test_c1_41_formula_reproduces_printed_chart_cell_by_cell(impulses_per_turn):
    printed = parse_chart(PRINTED_CHARTS[impulses_per_turn])
    assert sorted(printed) == list(range(1, impulses_per_turn + 1))
    for speed, impulses in printed.items():
        for i in range(1, impulses_per_turn + 1):
            assert moves_on(speed, i, impulses_per_turn) == (i in impulses), (speed, i)
        assert move_impulses(speed, impulses_per_turn) == impulses


@pytest.mark.parametrize("impulses_per_turn", [8, 16, 32])
def test_printed_charts_are_those_of_cth_data(impulses_per_turn):
    if not CTH_DATA.exists():
        pytest.skip("shared/reference/CTH-DATA.md not beside the checkout")
    assert PRINTED_CHARTS[impulses_per_turn] in CTH_DATA.read_text(encoding="utf-8")


def test_design_example_speed5_moves_on_impulse2():
    assert impulse.moves_on(speed=5, impulse=2, impulses_per_turn=8) is True


def test_c1_41_speed0_never_moves_and_chart_cell_counts_hexes():
    assert not any(moves_on(0, i, 16) for i in range(1, 17))
    assert [impulse.hexes_moved(5, i, 8) for i in range(1, 9)] == [0, 1, 1, 2, 3, 3, 4, 5]


def test_c1_44_illustration_drone8_ship5_freighter4_damaged3():
    who = {"drone": 8, "ship": 5, "freighter": 4, "damaged freighter": 3}
    expected = {
        1: {"drone"},
        2: {"drone", "ship", "freighter"},
        3: {"drone", "damaged freighter"},
        4: {"drone", "ship", "freighter"},
        5: {"drone", "ship"},
        6: {"drone", "freighter", "damaged freighter"},
        7: {"drone", "ship"},
        8: set(who),
    }
    for i, movers in expected.items():
        assert {u for u, s in who.items() if moves_on(s, i, 8)} == movers


def test_c1_41_vectorised_matches_scalar():
    speeds = np.arange(33)
    for i in range(1, 33):
        got = impulse.moves_on_np(speeds, i, 32)
        assert list(got) == [moves_on(int(s), i, 32) for s in speeds]


def test_c1_3_movement_order_categories_then_slowest_first():
    categories = np.array(
        [
            UnitCategory.SEEKING,
            UnitCategory.SHIP,
            UnitCategory.SHIP,
            UnitCategory.SHUTTLE,
            UnitCategory.SHIP,
            UnitCategory.MONSTER,
        ]
    )
    speeds = np.array([8, 8, 5, 6, 5, 2])
    groups = [list(g) for g in impulse.movement_order(categories, speeds)]
    # monster; ships at 5 together (simultaneous); ship at 8; shuttle; seeking weapon
    assert groups == [[5], [2, 4], [1], [3], [0]]


@pytest.mark.parametrize("impulses_per_turn,quarter", [(8, 2), (16, 4), (32, 8)])
def test_e1_5_quarter_turn_lengths(impulses_per_turn, quarter):
    assert impulse.quarter_turn(impulses_per_turn) == quarter


def test_e1_5_fired_on_impulse_8_next_shot_impulse_2_of_next_turn():
    last = impulse.absolute_impulse(1, 8, 8)
    assert not impulse.quarter_turn_elapsed(last, impulse.absolute_impulse(2, 1, 8), 8)
    assert impulse.quarter_turn_elapsed(last, impulse.absolute_impulse(2, 2, 8), 8)


@given(st.sampled_from([8, 16, 32]), st.data())
def test_property_speed_n_moves_exactly_n_times_per_turn(impulses_per_turn, data):
    speed = data.draw(st.integers(0, impulses_per_turn))
    assert len(move_impulses(speed, impulses_per_turn)) == speed
    assert impulse.hexes_moved(speed, impulses_per_turn, impulses_per_turn) == speed


@pytest.mark.parametrize(
    "kwargs,needle",
    [
        (dict(speed=5, impulse=0, impulses_per_turn=8), "impulse 0"),
        (dict(speed=5, impulse=9, impulses_per_turn=8), "impulse 9"),
        (dict(speed=9, impulse=1, impulses_per_turn=8), "speed 9"),
        (dict(speed=-1, impulse=1, impulses_per_turn=8), "speed -1"),
        (dict(speed=3, impulse=1, impulses_per_turn=12), "impulses_per_turn 12"),
        (dict(speed=2.5, impulse=1, impulses_per_turn=8), "speed 2.5"),
    ],
)
def test_bad_clock_arguments_raise_naming_the_value(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        moves_on(**kwargs)
