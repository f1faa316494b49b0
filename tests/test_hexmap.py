"""Hex geometry: labels, neighbours (C1.2), range (D1.4), arcs (D2), shields hit (D3.4).

Worked examples come from CTH-DATA §1.8 (default parity) and the errata table §13.1, which says
under which parity each rules-file example holds.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sfb_env import hexmap
from sfb_env.hexmap import BASE_ARCS, distance, in_arc, neighbor, shields_hit

PARITY = st.sampled_from(["even-down", "odd-down"])
LABEL = st.builds(lambda c, r: f"{c:02d}{r:02d}", st.integers(1, 28), st.integers(1, 32))
DIRECTION = st.sampled_from("ABCDEF")


def walk(start: str, moves: str, parity: str = "even-down") -> list[str]:
    """Follow a string of map directions one hex at a time."""
    out, here = [], start
    for d in moves:
        here = neighbor(here, d, parity)
        out.append(here)
    return out


# --------------------------------------------------------------------- design's API block


def test_design_public_api_examples():
    assert hexmap.neighbor("0517", "F") == "0416"
    assert hexmap.distance("0202", "0305") == 3
    assert hexmap.in_arc("0915", "C", "1612", "LF") is True
    assert hexmap.shields_hit("0202", "A", "0305") == (4,)


# --------------------------------------------------------------------- C1.2 facing, map rosettes


@pytest.mark.parametrize(
    "start,facing,faces", [("2603", "A", "2602"), ("0608", "A", "0607"), ("2210", "C", "2311")]
)
def test_c1_2_facing_examples(start, facing, faces):
    assert neighbor(start, facing) == faces


def test_c1_2_2210_facing_c_fails_under_odd_down():
    assert neighbor("2210", "C", "odd-down") == "2310"


def test_map_direction_rosette_around_2603():
    assert [neighbor("2603", d) for d in "ABCDEF"] == [
        "2602",
        "2703",
        "2704",
        "2604",
        "2504",
        "2503",
    ]


def test_map_random_direction_ring_around_0314():
    assert [neighbor("0314", d) for d in "ABCDEF"] == [
        "0313",
        "0413",
        "0414",
        "0315",
        "0214",
        "0213",
    ]


def test_map_random_direction_ring_fails_under_odd_down():
    assert [neighbor("0314", d, "odd-down") for d in "ABCDEF"] == [
        "0313",
        "0414",
        "0415",
        "0315",
        "0215",
        "0214",
    ]


# --------------------------------------------------------------------- C3.43 stardock routes


def test_c3_43_stardock_route_four_moves_f_then_turn_a():
    assert walk("0517", "FFFFAAAA") == [
        "0416",
        "0316",
        "0215",
        "0115",
        "0114",
        "0113",
        "0112",
        "0111",
    ]


def test_c3_43_stardock_alternative_route():
    assert walk("0517", "FFAAFFAA") == [
        "0416",
        "0316",
        "0315",
        "0314",
        "0213",
        "0113",
        "0112",
        "0111",
    ]


def test_c3_43_stardock_route_fails_under_odd_down():
    assert neighbor("0517", "F", "odd-down") == "0417"


def test_scenario1_walkthrough_ship_route():
    # 0111 facing A, speed 8: right turn on impulse 1, straight, left turn on impulse 8.
    assert walk("0111", "BBBBBBBA") == [
        "0210",
        "0310",
        "0409",
        "0509",
        "0608",
        "0708",
        "0807",
        "0806",
    ]


@pytest.mark.parametrize(
    "start,facing,moves,expected",
    [
        ("0207", "B", 4, ["0307", "0406", "0506", "0605"]),
        ("0705", "D", 5, ["0706", "0707", "0708", "0709", "0710"]),
        ("0810", "F", 3, ["0710", "0609", "0509"]),
    ],
)
def test_scenario1_walkthrough_drone_routes(start, facing, moves, expected):
    assert hexmap.row_hexes(start, facing, moves) == expected


def test_scenario1_walkthrough_drone_endpoints_after_8():
    assert hexmap.row_hexes("0207", "B", 8)[-1] == "1003"
    assert hexmap.row_hexes("0101", "C", 8)[-1] == "0905"
    assert hexmap.row_hexes("0801", "D", 8)[-1] == "0809"


@pytest.mark.parametrize(
    "a,b,rng",
    [
        ("0210", "0307", 4),
        ("0310", "0609", 3),
        ("0409", "0509", 1),
        ("0409", "0708", 3),
        ("0509", "0709", 2),
        ("0202", "0305", 3),
    ],
)
def test_d1_4_range_examples(a, b, rng):
    assert distance(a, b) == rng


def test_d1_4_same_hex_is_range_zero():
    assert distance("1010", "1010") == 0


def test_scenario3_freighter_course_turns_at_1505_and_exits_from_2811():
    row = hexmap.row_hexes("0112", "B", 14)
    assert row[-1] == "1505"
    course = row + hexmap.row_hexes("1505", "C", 13)
    assert course[-1] == "2811" and len(course) == 27
    with pytest.raises(ValueError, match="off the map"):
        neighbor("2811", "C")  # the 28th move leaves the map


# --------------------------------------------------------------------- D2 firing arcs


def test_d2_1_0915_facing_c_rows():
    assert neighbor("0915", "C") == "1015"
    assert hexmap.row_hexes("0915", "C", 5)[-1] == "1417"
    assert hexmap.row_hexes("0915", "B", 10)[-1] == "1910"


def test_d2_1_forward_row_fails_under_odd_down():
    assert neighbor("0915", "C", "odd-down") == "1016"
    assert "1417" not in hexmap.row_hexes("0915", "C", 5, "odd-down")
    assert hexmap.row_hexes("0915", "B", 10, "odd-down")[-1] == "1910"


@pytest.mark.parametrize("parity", ["even-down", "odd-down"])
@pytest.mark.parametrize("target", ["1114", "1315", "1612", "2017", "2817"])
def test_d2_1_left_forward_arc_contains(target, parity):
    assert in_arc("0915", "C", target, "LF", parity)


@pytest.mark.parametrize("parity", ["even-down", "odd-down"])
@pytest.mark.parametrize("target", ["0701", "2604", "0301"])
def test_d2_1_left_forward_arc_excludes(target, parity):
    assert not in_arc("0915", "C", target, "LF", parity)


def test_d2_1_centerline_row_lies_in_both_forward_arcs():
    for target in hexmap.row_hexes("0915", "C", 5):
        assert in_arc("0915", "C", target, "LF") and in_arc("0915", "C", target, "RF")


@pytest.mark.parametrize(
    "combined,parts",
    [
        ("FA", {"LF", "RF"}),
        ("FX", {"L", "LF", "RF", "R"}),
        ("RA", {"LR", "RR"}),
        ("RX", {"L", "LR", "RR", "R"}),
        ("LS", {"LF", "L", "LR"}),
        ("RS", {"RF", "R", "RR"}),
        ("360", set(BASE_ARCS)),
    ],
)
def test_d2_2_combined_arcs_are_unions(combined, parts):
    for target in hexmap.map_area("A").labels():
        if target == "0708":
            continue
        for facing in "ABCDEF":
            inside = any(in_arc("0708", facing, target, p) for p in parts)
            assert in_arc("0708", facing, target, combined) == inside


def test_d2_astern_row_is_the_rr_lr_boundary():
    for target in hexmap.row_hexes("0708", "D", 6):  # facing A: directly astern is D
        assert (
            hexmap.arc_bits_np(*hexmap.label_to_axial("0708"), 0, *hexmap.label_to_axial(target))
            & hexmap.ASTERN_ROW_BITS
            == hexmap.ASTERN_ROW_BITS
        )


# --------------------------------------------------------------------- D3 shields


@pytest.mark.parametrize("firer,shield", [("0201", 1), ("0302", 2), ("0103", 5)])
def test_d3_11_shield_numbering_0202_facing_a(firer, shield):
    assert shields_hit("0202", "A", firer) == (shield,)


@pytest.mark.parametrize("parity", ["even-down", "odd-down"])
def test_d3_4_0202_fired_on_from_0305_hits_shield_4(parity):
    assert shields_hit("0202", "A", "0305", parity) == (4,)


def test_d3_41_scenario3_book_example_0304_is_a_boundary():
    assert shields_hit("0202", "A", "0304") == (3, 4)
    assert shields_hit("0202", "A", "0304", "odd-down") == (4,)


def test_d3_41_scenario3_rules_file_example_0303_holds_under_odd_down():
    assert shields_hit("0202", "A", "0303", "odd-down") == (3, 4)
    assert shields_hit("0202", "A", "0303") == (3,)


def test_d3_41_scenario10_book_example_0405_is_a_boundary():
    assert shields_hit("0304", "D", "0405") == (1, 6)
    assert shields_hit("0304", "D", "0405", "odd-down") == (6,)


def test_d3_41_scenario10_rules_file_example_0406_holds_under_odd_down():
    assert shields_hit("0304", "D", "0406", "odd-down") == (1, 6)
    assert shields_hit("0304", "D", "0406") == (1,)


def test_d4_321_fed_ship_0619_fired_on_from_0719_hits_shield_2():
    assert shields_hit("0619", "A", "0719") == (2,)


def test_d3_4_seeking_weapon_hits_shield_facing_the_hex_it_entered_from():
    assert neighbor("0708", "A") == "0707"
    assert shields_hit("0707", "A", "0806") == (2,)
    assert neighbor("0708", "B") == "0807"
    assert shields_hit("0807", "B", "0806") == (6,)


def test_d3_42_same_hex_raises_naming_the_rule():
    with pytest.raises(ValueError, match="D3.42"):
        shields_hit("0202", "A", "0202")
    with pytest.raises(ValueError, match="D3.42"):
        in_arc("0202", "A", "0202", "FA")


# --------------------------------------------------------------------- C4, C5 (rules file 004)


def test_c4_2_book_left_turn_and_sideslip_from_1212_enter_1112():
    assert neighbor("1212", "F") == "1112"  # left turn to F, or slip left keeping A


def test_c4_2_rules_file_1111_holds_under_odd_down():
    assert neighbor("1212", "F", "odd-down") == "1111"


def test_c4_33_book_sequence_under_even_down():
    # 1616 facing F: straight, slip right (A), straight, turn right to A.
    assert neighbor("1616", "F") == "1516"
    assert neighbor("1516", "A") == "1515"
    assert neighbor("1515", "F") == "1414"
    assert neighbor("1414", "A") == "1413"
    # turning to A and slipping right (B) on one impulse would have entered 1514 (C4.33 bans it)
    assert neighbor("1414", "B") == "1514"


def test_c4_33_rules_file_sequence_under_odd_down():
    assert neighbor("1616", "F", "odd-down") == "1515"
    assert neighbor("1516", "F", "odd-down") == "1416"
    assert neighbor("1416", "A", "odd-down") == "1415"


@pytest.mark.parametrize("parity", ["even-down", "odd-down"])
def test_c4_33_known_bad_examples_fail_under_both_parities(parity):
    # errata rows 18 and 21: 1516 is the D neighbour of 1515; a ship facing F slips to A or E only
    assert neighbor("1515", "D", parity) == "1516"
    assert "1516" not in (neighbor("1515", "A", parity), neighbor("1515", "E", parity))
    assert neighbor("1416", "B", parity) != "1514"


@pytest.mark.parametrize(
    "parity,expected",
    [("even-down", ["0304", "0404", "0204"]), ("odd-down", ["0304", "0405", "0205"])],
)
def test_c5_11_tactical_maneuver_facings_from_0305(parity, expected):
    assert [neighbor("0305", d, parity) for d in "ABF"] == expected


# --------------------------------------------------------------------- F2.0 and G23 anchors


def test_f2_0_seeking_closer_hexes():
    ship = "0808"
    # drone 1109 facing E: 1008 and 1009 are equally closer; 1110 is not closer
    assert distance("1008", ship) == distance("1009", ship) < distance("1109", ship)
    assert distance("1110", ship) >= distance("1109", ship)
    # drone 1206 facing F: 1107 is closer than 1106; 1205 would move away
    assert distance("1107", ship) < distance("1106", ship) <= distance("1206", ship)
    assert distance("1205", ship) > distance("1206", ship)
    assert [neighbor("1109", d) for d in "EDF"] == ["1009", "1110", "1008"]
    assert [neighbor("1206", d) for d in "FAE"] == ["1106", "1205", "1107"]


@pytest.mark.parametrize("parity", ["even-down", "odd-down"])
def test_g23_52_radius3_field_of_0401_includes_0404(parity):
    assert distance("0401", "0404", parity) == 3


@pytest.mark.parametrize("parity", ["even-down", "odd-down"])
def test_g23_571_contact_example(parity):
    assert distance("1010", "1007", parity) == 3
    assert neighbor("1006", "D", parity) == "1007"
    assert neighbor("1010", "A", parity) == "1009"
    assert distance("1009", "1006", parity) == 3
    assert neighbor("1006", "A", parity) == "1005"  # G23.572 variant


# --------------------------------------------------------------------- map areas and bad input


def test_cth_map_sectors_are_14_by_16():
    for name, first in [("A", "0101"), ("B", "1501"), ("C", "0117"), ("D", "1517")]:
        area = hexmap.SECTORS[name]
        assert area.shape == (14, 16)
        assert area.contains(first) and hexmap.sector_of(first) == name
    assert len(hexmap.map_area("A+B").labels()) == 448
    assert len(hexmap.map_area("A-D").labels()) == 896
    assert not hexmap.map_area("A+B").contains("0517")
    assert hexmap.map_area("A+B+row17").contains("0517")


@pytest.mark.parametrize("parity", ["even-down", "odd-down"])
def test_area_axial_labels_are_every_hex_converted_and_a_fresh_dict(parity):
    area = hexmap.map_area("A+B+row17")
    got = area.axial_labels(parity)
    assert list(got.values()) == area.labels()
    assert all(hexmap.label_to_axial(lab, parity) == xz for xz, lab in got.items())
    assert all(hexmap.axial_to_label(x, z, parity) == lab for (x, z), lab in got.items())
    got.clear()  # the caller's own copy: the next battle still sees the whole area
    assert len(area.axial_labels(parity)) == len(area.labels())


@pytest.mark.parametrize("label", ["0A12", "9999", "0000", "2901", "0133", "517", "05170", 517, ""])
def test_bad_hex_label_raises_naming_it(label):
    with pytest.raises(
        ValueError,
        match=repr(label) if not str(label).isdigit() or len(str(label)) != 4 else str(label),
    ):
        hexmap.parse_label(label)


def test_neighbor_off_the_printed_map_raises():
    with pytest.raises(ValueError, match="off the map"):
        neighbor("0101", "A")


@pytest.mark.parametrize("bad", ["G", "north", 6, -1, None])
def test_unknown_direction_raises(bad):
    with pytest.raises(ValueError, match="direction"):
        neighbor("0505", bad)


def test_unknown_arc_and_parity_and_area_raise():
    with pytest.raises(ValueError, match="'XF'"):
        in_arc("0505", "A", "0503", "XF")
    with pytest.raises(ValueError, match="parity"):
        distance("0505", "0503", parity="odd-up")
    with pytest.raises(ValueError, match="'E'"):
        hexmap.map_area("E")


# --------------------------------------------------------------------- properties


@given(LABEL, LABEL, LABEL, PARITY)
def test_property_distance_is_a_metric(a, b, c, parity):
    assert (distance(a, b, parity) == 0) == (a == b)
    assert distance(a, b, parity) == distance(b, a, parity)
    assert distance(a, c, parity) <= distance(a, b, parity) + distance(b, c, parity)


@given(LABEL, DIRECTION, PARITY)
def test_property_neighbor_and_opposite_round_trip(label, d, parity):
    try:
        there = neighbor(label, d, parity)
    except ValueError:
        return  # stepped off the printed map
    assert distance(label, there, parity) == 1
    assert neighbor(there, hexmap.turn(d, 3), parity) == label


@given(LABEL, LABEL, DIRECTION, PARITY)
def test_property_six_arcs_cover_and_overlap_only_on_boundary_rows(origin, target, f, parity):
    if origin == target:
        return
    inside = [in_arc(origin, f, target, arc, parity) for arc in BASE_ARCS]
    assert any(inside)
    ox, oz = hexmap.label_to_axial(origin, parity)
    tx, tz = hexmap.label_to_axial(target, parity)
    dist = distance(origin, target, parity)
    on_row = any((tx - ox, tz - oz) == tuple(dist * hexmap.DIR_TO_AXIAL[d]) for d in range(6))
    assert (sum(inside) == 2) == on_row
    assert sum(inside) <= 2
    if sum(inside) == 2:
        k = inside.index(True)
        assert inside[(k + 1) % 6] or (k == 0 and inside[5])


@given(LABEL, LABEL, DIRECTION, PARITY)
def test_property_shields_hit_one_or_two_adjacent(target, firer, f, parity):
    if target == firer:
        return
    hit = shields_hit(target, f, firer, parity)
    assert len(hit) in (1, 2)
    if len(hit) == 2:
        assert (hit[1] - hit[0]) % 6 in (1, 5)
    fire_cube = hexmap.label_to_cube(firer, parity)
    target_cube = hexmap.label_to_cube(target, parity)
    cube = [a - b for a, b in zip(fire_cube, target_cube, strict=True)]
    exact_boundary = len(set(cube)) < 3
    assert (len(hit) == 2) == exact_boundary


@given(LABEL, PARITY)
def test_property_label_cube_round_trip(label, parity):
    assert hexmap.cube_to_label(hexmap.label_to_cube(label, parity), parity) == label
