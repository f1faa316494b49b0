"""Damage rules in play (``engine/damage.py``): the scenario-4 rule (CTH-DATA §10.1), the cadet
1d6 DAC (D4.21-D4.5, §10.2) and the standard 2d6 DAC (D4.2-D4.4, §10.3) through the engine."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from engine_helpers import Dice, battle, row, unit, weapon

from sfb_env.engine import ScenarioError, seeking
from sfb_env.engine.dac import DacBox
from sfb_env.engine.types import ACTIVE, DESTROYED, Box, Status


class Dice2d6:
    """A stand-in for ``battle.rng`` giving scripted 2d6 totals as (n, 2) dice arrays."""

    def __init__(self, *totals: int) -> None:
        self.totals = list(totals)

    def integers(self, low: int, high: int | None = None, size: Any = None) -> np.ndarray:
        n = size[0]
        out = [self.totals.pop(0) for _ in range(n)]
        return np.array([[min(t - 1, 6), t - min(t - 1, 6)] for t in out])


def duel(damage: str, klingon: str = "klingon-cadet", controller: str = "agent", **kw: Any):
    return battle([unit("k", klingon, "red", "0508", "A", controller=controller),
                   unit("f", "fed-cadet", "blue", "0510", "A")],
                  rules={"damage": damage}, **kw)


def test_damage_rule_unknown_value_names_the_rule():
    with pytest.raises(ScenarioError, match="rules.damage"):
        duel("cadet")


# ----------------------------------------------------------------------------- cadet DAC


def test_d4_5_cadet_dac_worked_example_klingon_13_internal():
    # CTH-DATA §10.2 test vector: a Klingon cadet, 13 internal points, rolls 2 6 5 3 4 2 5 1 3 1
    # 3 1 3 -> Hull, Other (lab), WPN (right-rear phaser), Engine (impulse), Other (shuttle),
    # Hull, WPN (drone rack), Hull, Engine (2nd impulse), Hull (last), Engine (warp), [1: no
    # hull -> column B] Engine (warp), Engine (warp). Left/right warp are one count here.
    b = duel("cadet_dac")
    k = row(b, "k")
    b.rng = Dice(2, 6, 5, 3, 4, 2, 5, 1, 3, 1, 3, 1, 3)
    b.state.shields[k, 0] = 0
    b.apply_damage(k, 1, 13)
    hit = [e for e in b.events if e.kind == "Damaged"][-1]
    assert hit.internal == 13
    assert hit.boxes == ("hull", "lab", "k.PH2-4", "impulse", "shuttle", "hull", "k.DRONE-1",
                         "hull", "impulse", "hull", "warp", "warp", "warp")
    st = b.state
    assert st.boxes[k, Box.HULL] == 0 and st.boxes[k, Box.IMPULSE] == 0
    assert st.boxes[k, Box.WARP] == 13 and st.boxes[k, Box.TRANSPORTER] == 1
    assert st.w_destroyed[weapon(b, "k", "PH2-4")] and st.w_destroyed[weapon(b, "k", "DRONE-1")]
    assert int(st.w_destroyed[b.weapons_of(k)].sum()) == 2
    assert st.status[k] == ACTIVE


def test_d4_21_cadet_dac_moves_right_to_excess_when_a_b_c_d_are_empty():
    b = duel("cadet_dac")
    k = row(b, "k")
    st = b.state
    st.boxes[k] = 0
    st.boxes[k, Box.EXCESS] = 2
    st.w_destroyed[b.weapons_of(k)] = True
    st.shields[k, 0] = 0
    b.rng = Dice(4)
    b.apply_damage(k, 1, 1)
    assert st.boxes[k, Box.EXCESS] == 1 and st.status[k] == ACTIVE


def test_d4_4_cadet_dac_destroyed_when_a_hit_finds_no_excess_box():
    # Klingon cadet: 4 hull + 18 engine + 7 other + 7 weapons + 3 excess = 39 boxes; bridge and
    # security cannot be destroyed. Whatever the dice, the 39th point takes the last box and
    # the 40th destroys the ship (column E always scores).
    b = duel("cadet_dac", seed=3)
    k = row(b, "k")
    b.state.shields[k, 0] = 0
    b.apply_damage(k, 1, 39)
    st = b.state
    assert st.status[k] == ACTIVE and st.boxes[k].sum() == 0
    assert st.w_destroyed[b.weapons_of(k)].all()
    b.apply_damage(k, 1, 1)
    assert st.status[k] == DESTROYED
    assert [e.unit for e in b.events if e.kind == "Destroyed"] == ["k"]


def test_d4_41_destroyed_ships_drones_are_removed():
    b = duel("cadet_dac", seed=1)
    k, f = row(b, "k"), row(b, "f")
    rack = weapon(b, "k", "DRONE-1")
    b.state.impulse = 1
    seeking.launch(b, rack, f)
    drone = int(b.state.w_drone_rows[rack, 0])
    assert b.state.status[drone] == ACTIVE
    b.state.shields[k, 0] = 0
    b.apply_damage(k, 1, 40)
    assert b.state.status[k] == DESTROYED
    seeking.end_of_impulse(b)
    assert b.state.status[drone] == Status.EXPENDED


# ----------------------------------------------------------------------------- scenario 4 rule


def test_s4_first_point_weapon_second_warp_rest_by_box_order():
    b = duel("s4")
    k = row(b, "k")
    b.state.shields[k, 0] = 0
    b.apply_damage(k, 1, 4)
    hit = [e for e in b.events if e.kind == "Damaged"][-1]
    # least valuable weapon (a ph-2, ties -> listed last), a warp box, then hull boxes
    assert hit.boxes == ("k.PH2-4", "warp", "hull", "hull")
    assert b.state.boxes[b.unit_index["k"], Box.WARP] == 15


def test_s4_robot_variant_other_boxes_before_warp_then_weapons():
    b = duel("s4", controller="robot-ship", robots={"robot-ship": {"target": "f"}})
    k = row(b, "k")
    st = b.state
    st.shields[k, 0] = 0
    b.apply_damage(k, 1, 3)
    hit = [e for e in b.events if e.kind == "Damaged"][-1]
    assert hit.boxes == ("k.PH2-4", "warp", "hull")
    # everything but warp and weapons gone: the rest goes to warp first, then weapons
    keep_warp = int(st.boxes[k, Box.WARP])
    st.boxes[k] = 0
    st.boxes[k, Box.WARP] = keep_warp
    b.apply_damage(k, 1, 4)
    hit = [e for e in b.events if e.kind == "Damaged"][-1]
    assert hit.boxes == ("k.PH2-3", "warp", "warp", "warp")
    assert st.boxes[k, Box.WARP] == keep_warp - 3


def test_s4_one_more_point_after_only_the_bridge_remains_destroys():
    b = duel("s4")
    k = row(b, "k")
    st = b.state
    st.shields[k, 0] = 0
    st.boxes[k] = 0
    st.w_destroyed[b.weapons_of(k)] = True
    st.w_destroyed[weapon(b, "k", "DISR-A")] = False
    b.apply_damage(k, 1, 1)
    assert st.status[k] == ACTIVE  # the last weapon goes; the bridge remains
    b.apply_damage(k, 1, 1)
    assert st.status[k] == DESTROYED


# ----------------------------------------------------------------------------- standard DAC


def test_d4_5_standard_dac_worked_example_d7_through_the_engine():
    # CTH-DATA §10.3 test vector: D7 takes 55 on #1 (30 boxes) -> 25 internal.
    b = duel("standard_dac", klingon="klingon-d7")
    k = row(b, "k")
    rolls = [6, 7, 9, 2, 7, 4, 10, 7, 8, 11, 7, 6, 3, 8, 5, 7, 8, 4, 5, 10, 12, 7, 9, 7, 2]
    b.rng = Dice2d6(*rolls)
    assert b.state.shields[k, 0] == 30
    b.apply_damage(k, 1, 55)
    hit = [e for e in b.events if e.kind == "Damaged"][-1]
    assert (hit.to_shield, hit.internal) == (30, 25)
    assert hit.boxes == (
        "f_hull", "f_hull", "l_warp", "bridge", "f_hull", "k.PH2-5", "k.PH2-4", "f_hull",
        "a_hull", "k.DISR-D", "battery", "impulse", "k.DRONE-2", "a_hull", "r_warp", "battery",
        "a_hull", "transporter", "a_hull", "tractor", "aux_control", "battery", "lab",
        "shuttle", "security")
    st = b.state
    assert st.dac_boxes[k, DacBox.F_HULL] == 0 and st.dac_boxes[k, DacBox.SECURITY] == 1
    assert st.boxes[k, Box.BATTERY] == 0  # the coarse counts follow
    assert st.status[k] == ACTIVE


def test_d4_4_standard_dac_destroys_the_ship_in_play():
    b = duel("standard_dac", klingon="klingon-d7", seed=5)
    k = row(b, "k")
    b.state.shields[k, 0] = 0
    b.apply_damage(k, 1, 400)
    assert b.state.status[k] == DESTROYED


def test_standard_dac_boxes_only_filled_under_the_standard_rule():
    b = duel("cadet_dac", klingon="klingon-d7")
    assert b.state.dac_boxes.sum() == 0
    b = duel("standard_dac", klingon="klingon-d7")
    assert b.state.dac_boxes[row(b, "k")].sum() > 0
    # (SCENARIOS #12) a cadet ship among full-size ones keeps the cadet DAC: no 2d6 boxes
    assert b.state.dac_boxes[row(b, "f")].sum() == 0
