"""Sideslip (scenario 10 rules, C4.0) behind the scenario rule ``sideslip``.

The rules file (004) rewrote the C4 hex examples for the opposite parity; the printed book's
versions hold under the default ``even-down`` parity (CTH-DATA §13.1 rows 15-21). Each example
is checked under the parity the errata gives: the book version under ``even-down``, the rules
file's rows 15-17, 19 and 20 under ``odd-down``.

Not tested (CTH-DATA §13.1 row 18): the rules file's "sideslips to hex 1516, maintaining its F
facing" from 1515 is impossible under both parities: 1516 is the D neighbour of 1515, while a
ship facing F may only slip into its A (forward-right) or E (forward-left) neighbour. Row 21
("turn and sideslip on the same impulse to move into 1514") fails under both parities as
written; its book version (from 1414) is checked below.
"""

from __future__ import annotations

import pytest
from engine_helpers import battle, facing_of, hex_of, of, row, scenario, step, unit

from sfb_env.engine import IllegalOrderError, Maneuver, Orders, make_battle

FED = "fed-cadet"
CA = "fed-ca"  # turn-mode class D: turn mode 3 at speeds 9-12
SLIP = {"sideslip": True}
SLIPS = (Maneuver.SIDESLIP_LEFT, Maneuver.SIDESLIP_RIGHT)


def _ca_at_speed_10(hex_: str, facing: str, parity: str = "even-down"):
    """A Fed CA at speed 10 on 16-impulse turns (turn mode 3), counts at zero as in the
    C4.33 example (1616 is its first hex in direction F)."""
    doc = scenario([unit("ca", CA, "blue", hex_, facing, 10)], rules=SLIP)
    doc["impulses_per_turn"] = 16
    doc["parity"] = parity
    b = make_battle(doc)
    u = row(b, "ca")
    b.state.straight[u] = 0
    b.state.slip[u] = 0
    return b


def _move(b, maneuver: str) -> None:
    """Step (with no move) until the CA moves next, then order ``maneuver`` for that move."""
    u = row(b, "ca")
    while Maneuver.STRAIGHT in b.maneuver_blockers(u):
        step(b, ca="-")
    step(b, ca=maneuver)


def _blocked(b):
    return b.maneuver_blockers(row(b, "ca"))


def _next_move_blockers(b):
    u = row(b, "ca")
    while Maneuver.STRAIGHT in b.maneuver_blockers(u):
        step(b, ca="-")
    return b.maneuver_blockers(u)


# ---------------------------------------------------------------------- C4.2 procedure


def test_c4_2_sideslip_enters_the_forward_side_hex_and_keeps_the_facing():
    # book version (even-down): 1212 facing A; a left turn enters 1112 facing F, a left
    # sideslip enters 1112 keeping facing A
    turner = battle([unit("f", FED, "blue", "1212", "A", 8)], rules=SLIP)
    step(turner, f="L")
    assert (hex_of(turner, "f"), facing_of(turner, "f")) == ("1112", "F")
    slipper = battle([unit("f", FED, "blue", "1212", "A", 8)], rules=SLIP)
    step(slipper, f="<")
    assert (hex_of(slipper, "f"), facing_of(slipper, "f")) == ("1112", "A")
    (moved,) = of(slipper, "Moved")
    assert (moved.src, moved.dst, moved.facing, moved.turned, moved.slipped) == (
        "1212", "1112", "A", 0, -1)
    right = battle([unit("f", FED, "blue", "1212", "A", 8)], rules=SLIP)
    step(right, f=">")
    assert (hex_of(right, "f"), facing_of(right, "f")) == ("1312", "A")


def test_c4_2_rules_file_example_holds_under_odd_down():
    # CTH-DATA §13.1 rows 15-16: the rules file's 1111 is the odd-down version
    for maneuver, facing in (("L", "F"), ("<", "A")):
        doc = scenario([unit("f", FED, "blue", "1212", "A", 8)], rules=SLIP)
        doc["parity"] = "odd-down"
        b = make_battle(doc)
        step(b, f=maneuver)
        assert (hex_of(b, "f"), facing_of(b, "f")) == ("1111", facing)


# ---------------------------------------------------------------------- C4.3 restrictions


def test_c4_33_example_book_version_under_even_down():
    # turn mode 3; 1616 facing F: straight to 1516 (slip mode met), slip right to 1515 keeping
    # F (C4.2), no slip next (C4.31) so straight to 1414 (three hexes in direction F: the slip
    # counts, C4.32), then a right turn into 1413 facing A, whose hex counts as straight
    # movement for both modes
    b = _ca_at_speed_10("1616", "F")
    blocked = _next_move_blockers(b)
    assert blocked[Maneuver.TURN_RIGHT] == "C3.2 turn mode 3 not satisfied (0 hexes straight)"
    assert blocked[Maneuver.SIDESLIP_RIGHT].startswith("C4.1 sideslip mode 1 not satisfied")
    _move(b, "S")
    assert (hex_of(b, "ca"), facing_of(b, "ca")) == ("1516", "F")

    blocked = _next_move_blockers(b)
    assert not set(SLIPS) & set(blocked)  # one hex straight: the slip mode is met (C4.1)
    assert blocked[Maneuver.TURN_RIGHT].startswith("C3.2 turn mode 3")
    _move(b, ">")
    assert (hex_of(b, "ca"), facing_of(b, "ca")) == ("1515", "F")

    blocked = _next_move_blockers(b)
    assert blocked[Maneuver.SIDESLIP_LEFT].startswith("C4.1")  # (C4.31) the slip hex does not
    assert blocked[Maneuver.SIDESLIP_RIGHT].startswith("C4.1")  # count for the next slip
    assert blocked[Maneuver.TURN_RIGHT] == "C3.2 turn mode 3 not satisfied (2 hexes straight)"
    with pytest.raises(IllegalOrderError, match="C4.1"):
        step(b, ca=">")
    _move(b, "S")
    assert (hex_of(b, "ca"), facing_of(b, "ca")) == ("1414", "F")

    blocked = _next_move_blockers(b)  # (C4.32) 1516, 1515, 1414: three hexes in direction F
    assert Maneuver.TURN_RIGHT not in blocked
    assert not set(SLIPS) & set(blocked)
    _move(b, "R")
    assert (hex_of(b, "ca"), facing_of(b, "ca")) == ("1413", "A")
    blocked = _next_move_blockers(b)  # the turn's hex counts for the slip mode too
    assert not set(SLIPS) & set(blocked)
    assert blocked[Maneuver.TURN_LEFT] == "C3.2 turn mode 3 not satisfied (1 hex straight)"


def test_c4_33_no_turn_and_sideslip_on_the_same_impulse():
    # book version: from 1414 facing F, turning right and slipping together would enter 1514;
    # no single maneuver value does both, so no order reaches it
    reached = {}
    for m in ("S", "L", "R", "<", ">"):
        b = _ca_at_speed_10("1414", "F")
        b.state.straight[row(b, "ca")] = 3
        b.state.slip[row(b, "ca")] = 1
        _move(b, m)
        reached[m] = (hex_of(b, "ca"), facing_of(b, "ca"))
    assert reached == {
        "S": ("1314", "F"), "L": ("1315", "E"), "R": ("1413", "A"),
        "<": ("1315", "F"), ">": ("1413", "F"),
    }
    assert "1514" not in {h for h, _ in reached.values()}


def test_c4_33_rules_file_rows_that_hold_under_odd_down():
    # CTH-DATA §13.1 rows 17, 19, 20 (the rules file's hexes, odd-down)
    b = _ca_at_speed_10("1616", "F", parity="odd-down")
    _move(b, "S")
    assert hex_of(b, "ca") == "1515"  # row 17
    b = _ca_at_speed_10("1516", "F", parity="odd-down")
    _move(b, "S")
    assert hex_of(b, "ca") == "1416"  # row 19
    b = _ca_at_speed_10("1416", "F", parity="odd-down")
    b.state.straight[row(b, "ca")] = 3
    _move(b, "R")
    assert (hex_of(b, "ca"), facing_of(b, "ca")) == ("1415", "A")  # row 20


def test_c4_1_slip_and_turn_modes_are_counted_independently():
    # (C4.1) a slip needs one straight hex since the last slip or turn, whatever the turn mode;
    # a slip does not reset the turn-mode count (C4.32)
    b = _ca_at_speed_10("1010", "A")
    _move(b, "S")
    u = row(b, "ca")
    assert (int(b.state.straight[u]), int(b.state.slip[u])) == (1, 1)
    _move(b, "<")
    assert (int(b.state.straight[u]), int(b.state.slip[u])) == (2, 0)
    _move(b, "S")
    _move(b, ">")
    assert (int(b.state.straight[u]), int(b.state.slip[u])) == (4, 0)
    _move(b, "S")
    _move(b, "L")
    assert (int(b.state.straight[u]), int(b.state.slip[u])) == (1, 1)


def test_c3_43_every_ship_starts_with_its_slip_mode_satisfied():
    b = battle([unit("f", FED, "blue", "1010", "A", 8)], rules=SLIP)
    assert not set(SLIPS) & set(b.maneuver_blockers(row(b, "f")))


def test_c4_a_unit_that_does_not_move_cannot_sideslip():
    b = battle([unit("k", "klingon-cadet", "red", "0508", "B", 5)], rules=SLIP)
    blocked = b.maneuver_blockers(row(b, "k"))
    assert blocked[Maneuver.SIDESLIP_LEFT].startswith("C1.41")
    with pytest.raises(IllegalOrderError, match="C1.41"):
        step(b, k="<")


def test_c4_a_sideslip_off_the_map_disengages():
    b = battle([unit("f", FED, "blue", "0105", "A", 8)], rules=SLIP)
    step(b, f="<")  # forward-left of 0105 facing A is off the A+B map
    assert [e.unit for e in of(b, "LeftMap")] == ["f"]


# ---------------------------------------------------------------------- switch off


def test_c4_0_sideslip_off_by_default_keeps_four_maneuvers_and_refuses_slips():
    b = battle([unit("f", FED, "blue", "1212", "A", 8)])
    assert b.maneuvers == (Maneuver.NONE, Maneuver.STRAIGHT, Maneuver.TURN_LEFT,
                           Maneuver.TURN_RIGHT)
    assert set(b.maneuver_blockers(row(b, "f"))) == {Maneuver.NONE}
    with pytest.raises(IllegalOrderError, match=r"C4\.0 sideslip is not in use") as err:
        b.step({row(b, "f"): Orders(maneuver=Maneuver.SIDESLIP_LEFT)})
    assert err.value.component == "maneuver"
    with pytest.raises(IllegalOrderError, match=r"C5\.0 tactical maneuvers are not in use"):
        b.step({row(b, "f"): Orders(maneuver=Maneuver.TACTICAL_RIGHT)})


def test_c4_0_sideslip_on_gives_six_maneuver_values():
    b = battle([unit("f", FED, "blue", "1212", "A", 8)], rules=SLIP)
    assert len(b.maneuvers) == 6
    import sfb_env

    env = sfb_env.parallel_env(scenario([unit("f", FED, "blue", "1212", "A", 8)], rules=SLIP))
    env.reset(seed=0)
    maneuver = next(c for c in env.action_components("f") if c["name"] == "maneuver")
    assert maneuver["values"] == ["none", "straight", "turn_left", "turn_right",
                                  "sideslip_left", "sideslip_right"]
    assert env.action_space("f").nvec[-2:].tolist() == [6, 9]
