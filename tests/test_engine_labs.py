"""Labs and research (G4.0; CTH-DATA §8.8, SCENARIOS §2.8): the lab chart cell by cell, the
turn's research through the engine, shuttles, cloaked ships, and the research rolls."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import of, row
from planet_killer_helpers import MONSTER, SHIP, hold, hold_to, pk_battle

from sfb_env import hexmap, tables
from sfb_env.engine import labs
from sfb_env.engine.types import ACTIVE, Box, UnitKind


def test_g4_0_lab_value_reads_the_chart_cell_by_cell():
    """(G4.0) ``labs.lab_value`` is the CTH-DATA §8.8 chart (checked against its printed text
    in test_tables_misc.py): max(0, 11 - die - range) to range 10, 0 beyond."""
    for die in range(1, 7):
        for rng in range(0, 31):
            want = max(0, 11 - die - rng) if rng <= 10 else 0
            assert labs.lab_value(rng, die) == tables.lab_information(rng, die) == want


def test_g4_0_lab_chart_rejects_values_off_the_chart():
    with pytest.raises(ValueError, match="die"):
        labs.lab_value(3, 7)
    with pytest.raises(ValueError, match="rng"):
        labs.lab_value(-1, 3)


def test_g4_0_research_is_chart_value_at_closest_range_times_lab_boxes():
    """The monster walks toward the planet past a ship at speed 0: the turn's information is
    the chart value at the closest range of the turn, one die, times the 8 labs of the CA."""
    b = pk_battle(ship="1010", facing="A", monster="1505", planet="1508")
    s, m = row(b, SHIP), row(b, MONSTER)
    st = b.state
    closest = 99
    while st.turn == 1:
        closest = min(closest, int(hexmap.distance_np(st.x[s], st.z[s], st.x[m], st.z[m])))
        hold(b)
    (event,) = of(b, "Researched", unit=SHIP)
    assert event.range == closest == 6
    assert event.labs == 8 == b.ship_classes[s].systems["lab"]
    assert event.points == labs.lab_value(closest, event.die) * 8
    assert st.information[st.side[s]] == event.points == event.side_total


def test_g4_0_functioning_labs_at_the_end_of_the_turn_count():
    b = pk_battle(ship="1010", facing="A", monster="1505", planet="1508")
    s = row(b, SHIP)
    hold_to(b, 1, 20)
    b.state.boxes[s, Box.LAB] = 3  # five labs destroyed during the turn
    hold_to(b, 2, 1)
    (event,) = of(b, "Researched", unit=SHIP)
    assert event.labs == 3 and event.points == labs.lab_value(event.range, event.die) * 3


def test_g4_0_a_ship_without_labs_uses_one_control_space():
    b = pk_battle(ship="1010", facing="A", monster="1505", planet="1508")
    s = row(b, SHIP)
    b.state.boxes[s, Box.LAB] = 0
    assert labs.labs_of(b, s) == 1
    hold_to(b, 2, 1)
    (event,) = of(b, "Researched", unit=SHIP)
    assert event.labs == 1


def test_g4_0_a_cloaked_ship_cannot_use_its_labs_outward():
    b = pk_battle(ship="1010", facing="A", monster="1505", planet="1508")
    s = row(b, SHIP)
    st = b.state
    st.lab_range[:] = labs.NO_RANGE
    st.cloaked[s] = True
    labs.track_ranges(b)
    assert st.lab_range[s] == labs.NO_RANGE
    st.cloaked[s] = False
    labs.track_ranges(b)
    assert st.lab_range[s] == hexmap.distance("1010", "1505")


def test_g4_0_each_shuttle_on_the_map_is_one_lab_at_its_own_range():
    b = pk_battle(ship="2503", facing="A", monster="1505", planet="1508")
    st = b.state
    shuttle = int(np.flatnonzero(st.kind == UnitKind.SHUTTLE)[0])
    x, z = hexmap.label_to_axial("1503")
    st.status[shuttle], st.x[shuttle], st.z[shuttle] = ACTIVE, x, z
    st.lab_range[:] = labs.NO_RANGE
    labs.end_of_turn(b)
    (event,) = of(b, "Researched", unit=b.unit_ids[shuttle])
    assert event.labs == 1 and event.range == 2  # 1503 -> 1505
    assert event.points == labs.lab_value(2, event.die)
    (ship,) = of(b, "Researched", unit=SHIP)  # the CA at 2503: range 10, a 0 column
    assert ship.range == 10 and ship.points == 0


def test_sc11_research_rolls_at_100_then_every_50():
    assert [labs.rolls_due(i) for i in (0, 99, 100, 149, 150, 199, 200, 250)] == [
        0, 0, 1, 1, 2, 2, 3, 4]


def test_sc11_research_rolls_accumulate_their_results():
    b = pk_battle()
    st = b.state
    side = int(st.side[row(b, SHIP)])
    labs.add_information(b, side, 99)
    labs.roll_research(b)
    assert not of(b, "ResearchRolled")
    labs.add_information(b, side, 101)  # 200: three rolls
    labs.roll_research(b)
    rolls = of(b, "ResearchRolled")
    assert len(rolls) == 3 and st.research_rolls[side] == 3
    found = {e.die for e in rolls}
    assert {d for d in range(1, 7) if st.kill_methods[side, d - 1]} == found
    for d in found:
        assert labs.method_known(b, side, d)
    labs.roll_research(b)  # nothing more is due
    assert len(of(b, "ResearchRolled")) == 3
