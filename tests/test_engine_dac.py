"""Standard 2d6 Damage Allocation Chart resolver (D4.12, D4.21-D4.4) in ``engine/dac.py``."""

from __future__ import annotations

import numpy as np
import pytest

from sfb_env import tables
from sfb_env.data.ships import load_ship
from sfb_env.engine.dac import (
    N_BOXES,
    SYSTEM_BOXES,
    WEAPON_SYSTEMS,
    DacBox,
    ShipBoxes,
    WeaponBox,
    phaser_shields,
    resolve_multi_ship_volley,
    resolve_volley,
    ship_boxes,
    track_rating,
)

B = DacBox


def d7() -> ShipBoxes:
    return ship_boxes(load_ship("klingon-d7"))


def scored(result) -> list[str]:
    """'system:box-or-weapon' per hit."""
    return [f"{h.system}:{h.weapon or (h.box.name if h.box is not None else '-')}"
            for h in result.hits]


def test_d4_5_worked_example_d7_25_internal():
    # CTH-DATA §10.3 test vector: D7, 55 on #1 (30 boxes) -> 25 internal.
    rolls = [6, 7, 9, 2, 7, 4, 10, 7, 8, 11, 7, 6, 3, 8, 5, 7, 8, 4, 5, 10, 12, 7, 9, 7, 2]
    ship = d7()
    r = resolve_volley(ship, 25, {1}, rolls=rolls)
    assert scored(r) == [
        "F Hull:F_HULL",  # 6
        "F Hull:F_HULL",  # 7: no cargo
        "L Warp:L_WARP",  # 9
        "Bridge:BRIDGE",  # 2
        "F Hull:F_HULL",  # 7
        "Phaser:PH2-5",  # 4: a wing phaser (owner's choice rule: ties -> last listed)
        "Phaser:PH2-4",  # 10: the other wing phaser
        "F Hull:F_HULL",  # 7: 4th and last F hull
        "A Hull:A_HULL",  # 8
        "Torp:DISR-D",  # 11: a disruptor
        "Battery:BATTERY",  # 7: no cargo, no F hull
        "Impulse:IMPULSE",  # 6: no F hull
        "Drone:DRONE-2",  # 3
        "A Hull:A_HULL",  # 8
        "R Warp:R_WARP",  # 5
        "Battery:BATTERY",  # 7
        "A Hull:A_HULL",  # 8
        "Trans:TRANSPORTER",  # 4: 4-A used
        "A Hull:A_HULL",  # 5: 5-A used
        "Tractor:TRACTOR",  # 10: 10-A used
        "AuxControl:AUX_CONTROL",  # 12
        "Battery:BATTERY",  # 7: 3rd and last battery
        "Lab:LAB",  # 9: 9-A used; no F hull, cargo, battery
        "Shuttle:SHUTTLE",  # 7: no cargo, F hull, battery, centre warp
        "FlagBridge:SECURITY",  # 2: 2-A used -> flag bridge = Klingon security (G6.1)
    ]
    assert [h.column for h in r.hits][-3:] == ["E", "E", "B"]
    after = r.ship
    assert (after[B.F_HULL], after[B.A_HULL], after[B.BATTERY], after[B.SECURITY]) == (0, 3, 0, 1)
    assert not r.destroyed and r.unresolved == 0
    assert ship[B.F_HULL] == 4 and ship.weapons_left() == tuple(w.name for w in ship.weapons)


def test_d4_31_bold_cell_once_per_volley():
    r = resolve_volley(d7(), 3, {1}, rolls=[12, 12, 12])
    assert scored(r) == ["AuxControl:AUX_CONTROL", "EmerBridge:EMER_BRIDGE", "Scanner:SCANNER"]
    r = resolve_volley(d7(), 3, {1}, rolls=[9, 9, 9])
    assert scored(r) == ["L Warp:L_WARP", "F Hull:F_HULL", "F Hull:F_HULL"]


def test_d4_31_bold_judged_by_cell_not_system():
    r = resolve_volley(d7(), 2, {1}, rolls=[4, 10])
    assert [h.system for h in r.hits] == ["Phaser", "Phaser"]
    assert [h.column for h in r.hits] == ["A", "A"]


def test_d4_31_bold_cells_reset_each_volley():
    first = resolve_volley(d7(), 1, {1}, rolls=[2])
    second = resolve_volley(first.ship, 1, {1}, rolls=[2])
    assert scored(first) == scored(second) == ["Bridge:BRIDGE"]
    assert second.ship[B.BRIDGE] == 0


def test_d4_31_bold_cell_not_used_when_nothing_scores_there():
    # 4-A finds no phaser facing #1, so it is not used; the second unit's point from #4 takes it.
    ship = ShipBoxes.build({B.TRANSPORTER: 2, B.EXCESS: 3}, [WeaponBox("AFT", "ph-1", {4})])
    r = resolve_multi_ship_volley(ship, [(1, {1}), (1, {4})], rolls=[4, 4])
    assert scored(r) == ["Trans:TRANSPORTER", "Phaser:AFT"]


def test_d4_321_phaser_hit_by_direction():
    fwd, aft = WeaponBox("FWD", "ph-1", {1}), WeaponBox("AFT", "ph-1", {4})
    ship = ShipBoxes.build({B.TRANSPORTER: 1, B.EXCESS: 3}, [fwd, aft])
    assert scored(resolve_volley(ship, 1, {4}, rolls=[4])) == ["Phaser:AFT"]
    assert scored(resolve_volley(ship, 1, {1}, rolls=[4])) == ["Phaser:FWD"]
    only_aft = ShipBoxes.build({B.TRANSPORTER: 1, B.EXCESS: 3}, [aft])
    assert scored(resolve_volley(only_aft, 1, {1}, rolls=[4])) == ["Trans:TRANSPORTER"]


def test_d4_321_ppd_volley_counts_every_penetrated_shield():
    # E11.332: a pulse through #2 and #3 may take phasers that fire through either.
    ship = ShipBoxes.build({B.EXCESS: 3}, [WeaponBox("P1", "ph-1", {1}),
                                          WeaponBox("P3", "ph-1", {3})])
    assert scored(resolve_volley(ship, 1, {2, 3}, rolls=[4])) == ["Phaser:P3"]


def test_d4_321_any_weapon_ignores_direction():
    ship = ShipBoxes.build({B.EXCESS: 3}, [WeaponBox("AFT", "ph-1", {4})])
    r = resolve_volley(ship, 1, {1}, rolls=[6])  # 6-I Phaser: none facing #1 -> 6-L Any Weapon
    assert [(h.column, h.system, h.weapon) for h in r.hits] == [("L", "Any Weapon", "AFT")]


def test_d4_322_every_third_phaser_hit_to_better_phaser():
    ph1 = [WeaponBox(f"P1-{i}", "ph-1") for i in range(2)]
    ph2 = [WeaponBox(f"P2-{i}", "ph-2") for i in range(3)]
    ship = ShipBoxes.build({B.EXCESS: 3}, ph1 + ph2)
    r = resolve_volley(ship, 4, {1}, rolls=[4, 10, 3, 11])
    assert [h.weapon for h in r.hits] == ["P2-2", "P2-1", "P1-1", "P2-0"]


def test_d4_322_third_hit_takes_best_type_left():
    ship = ShipBoxes.build({B.EXCESS: 3}, [WeaponBox("A", "ph-3"), WeaponBox("B", "ph-3"),
                                          WeaponBox("C", "ph-3"), WeaponBox("D", "ph-g")])
    r = resolve_volley(ship, 3, {1}, rolls=[4, 10, 3])
    assert [h.weapon for h in r.hits] == ["D", "C", "B"]  # 3rd: Ph-3 only (PHASER_RANK)


def test_d4_323_torp_and_drone_classes():
    fus = WeaponBox("FUS", "fusion")
    ppd = WeaponBox("PPD", "ppd")
    esg = WeaponBox("ESG", "esg")
    ship = ShipBoxes.build({B.EXCESS: 3}, [fus, ppd, esg])
    assert scored(resolve_volley(ship, 1, {1}, rolls=[11])) == ["Torp:FUS"]  # E7.12
    assert scored(resolve_volley(ship, 2, {1}, rolls=[3, 9])) == ["Drone:ESG", "Drone:PPD"]


def test_d4_33_track_last_box_never_destroyed():
    ship = ShipBoxes.build({B.SENSOR: 2, B.EXCESS: 3})
    r = resolve_volley(ship, 1, {1}, rolls=[2])
    assert scored(r) == ["Sensor:SENSOR"] and r.ship[B.SENSOR] == 1
    r = resolve_volley(r.ship, 1, {1}, rolls=[2])  # last sensor box kept: on to Excess
    assert scored(r) == ["Excess:EXCESS"] and r.ship[B.SENSOR] == 1


def test_d4_33_track_rating_best_first():
    sensor = (6, 6, 5, 3, 1, 0)
    assert [track_rating(sensor, n) for n in (6, 5, 4, 3, 2, 1)] == [6, 6, 5, 3, 1, 0]
    assert track_rating((), 0) == 0


def test_d4_34_multi_ship_volley_most_damage_first():
    fwd, aft = WeaponBox("FWD", "ph-1", {1}), WeaponBox("AFT", "ph-1", {4})
    ship = ShipBoxes.build({B.F_HULL: 1, B.EXCESS: 3}, [fwd, aft])
    r = resolve_multi_ship_volley(ship, [(1, {4}), (2, {1})], rolls=[4, 6, 10])
    assert scored(r) == ["Phaser:FWD", "F Hull:F_HULL", "Phaser:AFT"]


def test_d4_351_no_transfer_between_hull_groups():
    ship = ShipBoxes.build({B.A_HULL: 3, B.IMPULSE: 1, B.EXCESS: 3})
    assert scored(resolve_volley(ship, 1, {1}, rolls=[6])) == ["Impulse:IMPULSE"]


def test_d4_351_centre_hull_takes_forward_and_aft_hits():
    eagle = ship_boxes(load_ship("romulan-war-eagle"))
    assert eagle[B.F_HULL] == eagle[B.A_HULL] == 0 and eagle[B.C_HULL] == 6
    bare = ShipBoxes.build({B.C_HULL: 2, B.EXCESS: 3})
    assert scored(resolve_volley(bare, 2, {1}, rolls=[6, 8])) == ["F Hull:C_HULL", "A Hull:C_HULL"]


def test_d4_351_gorn_centre_hull_after_forward_hull():
    gorn = ship_boxes(load_ship("gorn-ca"))
    r = resolve_volley(gorn, 5, {1}, rolls=[6] * 5)
    assert [h.box for h in r.hits] == [B.F_HULL] * 4 + [B.C_HULL]
    r = resolve_volley(gorn, 1, {1}, rolls=[8])
    assert [h.box for h in r.hits] == [B.A_HULL]  # R hull before C hull


def test_d4_352_any_warp_takes_engine_with_most_boxes():
    ship = ShipBoxes.build({B.L_WARP: 2, B.R_WARP: 3, B.EXCESS: 3})
    r = resolve_volley(ship, 3, {1}, rolls=[7, 7, 7])
    assert [(h.column, h.box) for h in r.hits] == [("I", B.R_WARP), ("I", B.L_WARP),
                                                   ("I", B.R_WARP)]


def test_d4_354_flag_bridge_security_lyran_flag_or_move_right():
    lyran = ship_boxes(load_ship("lyran-tiger"))
    fed = ship_boxes(load_ship("fed-ca"))
    assert scored(resolve_volley(d7(), 2, {1}, rolls=[2, 2]))[1] == "FlagBridge:SECURITY"
    assert scored(resolve_volley(lyran, 2, {1}, rolls=[2, 2]))[1] == "FlagBridge:FLAG_BRIDGE"
    assert scored(resolve_volley(fed, 2, {1}, rolls=[2, 2]))[1] == "Sensor:SENSOR"


def test_d4_4_excess_then_destroyed():
    ship = ShipBoxes.build({B.EXCESS: 1})
    r = resolve_volley(ship, 4, {1}, rolls=[7, 5])
    assert [(h.column, h.destroys_ship) for h in r.hits] == [("M", False), ("M", True)]
    assert r.destroyed and r.unresolved == 2 and r.ship[B.EXCESS] == 0


def test_d4_12_armor_absorbs_first_points_without_rolls():
    eagle = ship_boxes(load_ship("romulan-war-eagle"))
    r = resolve_volley(eagle, 6, {1}, rolls=[6])
    assert [h.system for h in r.hits] == ["Armor"] * 5 + ["F Hull"]
    assert r.hits[0].roll is None and r.hits[-1].box == B.C_HULL and r.ship[B.ARMOR] == 0


def test_d4_21_every_chart_system_is_mapped():
    _, _, names = tables.standard_dac_chart()
    assert set(names) == set(SYSTEM_BOXES) | set(WEAPON_SYSTEMS)


def test_d4_21_dice_from_generator_are_reproducible():
    a = resolve_volley(d7(), 20, {1}, rng=np.random.default_rng(7))
    b = resolve_volley(d7(), 20, {1}, rng=np.random.default_rng(7))
    assert a.hits == b.hits and len(a.hits) == 20
    assert all(2 <= h.roll <= 12 for h in a.hits)


def test_d4_21_zero_points_changes_nothing():
    r = resolve_volley(d7(), 0, {1}, rolls=[])
    assert r.hits == () and np.array_equal(r.ship.boxes, d7().boxes)


def test_d4_321_phaser_shields_from_arcs():
    assert phaser_shields(["LF"]) == {6, 1}
    assert phaser_shields(["FA"]) == {6, 1, 2}
    assert phaser_shields(["L", "LR"]) == {4, 5, 6}
    assert phaser_shields(["FA"], astern_row=True) == {6, 1, 2, 4}
    assert phaser_shields(["360"]) == {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize(("call", "words"), [
    (lambda: resolve_volley(d7(), -1, {1}, rolls=[]), ["points", "D4.21"]),
    (lambda: resolve_volley(d7(), 1.5, {1}, rolls=[7]), ["points", "D4.21"]),
    (lambda: resolve_volley(d7(), 1, {7}, rolls=[7]), ["shields", "D4.321"]),
    (lambda: resolve_volley(d7(), 1, set(), rolls=[7]), ["shields", "D4.321"]),
    (lambda: resolve_volley(d7(), 1, {1}, rolls=[13]), ["rolls[0]", "D4.21"]),
    (lambda: resolve_volley(d7(), 2, {1}, rolls=[7]), ["rolls", "ran out", "D4.21"]),
    (lambda: resolve_volley(d7(), 1, {1}), ["rng/rolls", "D4.21"]),
    (lambda: resolve_volley(d7(), 1, {1}, rng=np.random.default_rng(0), rolls=[7]),
     ["rng/rolls", "D4.21"]),
    (lambda: resolve_volley(d7(), 1, {1}, rng=7), ["rng", "D4.21"]),
    (lambda: resolve_volley("d7", 1, {1}, rolls=[7]), ["ship", "D4.21"]),
    (lambda: resolve_multi_ship_volley(d7(), [(1, {0})], rolls=[7]),
     ["parts[0].shields", "D4.321"]),
    (lambda: WeaponBox("X", "ph-9"), ["WeaponBox.type", "D4.323"]),
    (lambda: WeaponBox("X", "ph-1", {0}), ["WeaponBox.shields", "D4.321"]),
    (lambda: ShipBoxes(np.full(N_BOXES, -1)), ["ShipBoxes.boxes", "D4.21"]),
    (lambda: ShipBoxes(np.zeros(3, dtype=int)), ["ShipBoxes.boxes", "D4.21"]),
    (lambda: ShipBoxes.build({}, [WeaponBox("X", "ph-1"), WeaponBox("X", "ph-2")]),
     ["ShipBoxes.weapons", "duplicate"]),
    (lambda: ship_boxes(load_ship("freighter")), ["ship", "R1.6"]),
    (lambda: phaser_shields(["FZ"]), ["arcs", "D2.2"]),
    (lambda: track_rating((6, 6, 5), 4), ["remaining", "D4.33"]),
])
def test_d4_21_bad_input_names_field_and_rule(call, words):
    with pytest.raises(ValueError) as err:
        call()
    for w in words:
        assert w in str(err.value)
