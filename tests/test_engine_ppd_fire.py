"""The ISC plasmatic pulsar device in play (E11; ``engine.ppd_fire``): pulse trains fired through
``fire[w]``, resolved first in Fire Direct-Fire on the firing impulse and the next three, across
the turn break, with the wave-lock dice from ``battle.rng``. The rules' worked examples are
tested on the pure resolver in ``test_engine_ppd.py``; here the same examples run in battles
with scripted dice, the E11.39 general-reinforcement example on the standard form.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from engine_helpers import (
    Dice,
    hex_of,
    moves_straight,
    of,
    row,
    run_to,
    scenario,
    step,
    unit,
    weapon,
)

from sfb_env import hexmap, tables
from sfb_env.engine import IllegalOrderError, Orders, energy, make_battle
from sfb_env.engine.ppd import PpdStage
from sfb_env.engine.ppd_fire import CHIEF_FIRST_TURN, drop_blockers
from sfb_env.engine.types import ArmOrder, PpdOrder, Status

ISC = "isc-cadet"
KLI = "klingon-cadet"
PATH_B = ["0116", "0215", "0315", "0414", "0514", "0613", "0713", "0812", "0912", "1011",
          "1111", "1210", "1310", "1409"]  # hexes in a straight line, direction B, from 0116


def _duel(isc_hex="0515", kli_hex="0503", kli_facing="A", isc_speed=0, kli_speed=0,
          ipt: int = 8):
    doc = scenario([unit("i", ISC, "blue", isc_hex, "A" if isc_hex != PATH_B[0] else "B",
                         isc_speed),
                    unit("k", KLI, "red", kli_hex, kli_facing, kli_speed)])
    doc["impulses_per_turn"] = ipt
    return make_battle(doc, seed=0)


def _ppd(b):
    return weapon(b, "i", "PPD-A")


def _fire(b, dice=(), target="k"):
    """Order the PPD to fire at ``target`` this impulse with scripted dice."""
    b.rng = Dice(*dice)
    others = {u: moves_straight(b, u) for u in ("k",) if u in b.unit_index
              and row(b, u) in b.agent_units()}
    step(b, i=dict(maneuver=moves_straight(b, "i"), fire={"PPD-A": target}), **others)


def _go(b):
    """One impulse with every agent on its course."""
    step(b, **{u: moves_straight(b, u) for u in ("i", "k") if row(b, u) in b.agent_units()})


def _pulses(b):
    return of(b, "Fired", weapon_type="ppd")


# ------------------------------------------------------------------ set-up and arming


def test_e11_312_e11_52_ppd_rows_have_range_4_to_40():
    b = _duel()
    w = _ppd(b)
    assert (b.state.w_min_range[w], b.state.w_max_range[w]) == (4, tables.ppd_chart().max_range)
    assert tables.ppd_chart().max_range == 40


def test_e11_21_chief_engineer_proposal_first_armed_on_turn_3_then_two_turns_after_firing():
    b = _duel()
    w, k = _ppd(b), row(b, "k")
    run_to(b, 2, 8)
    assert b.fire_blockers(w, [k])[0] == (
        "E11.21 (Chief Engineer, PROPOSAL) the PPD is not armed before turn 3")
    run_to(b, CHIEF_FIRST_TURN, 1)
    assert b.fire_blockers(w, [k]) == [None]
    _fire(b, dice=(1, 1))
    run_to(b, 4, 8)
    assert b.fire_blockers(w, [k])[0].startswith("E11.21 (Chief Engineer, PROPOSAL)")
    run_to(b, 5, 1)
    assert b.fire_blockers(w, [k]) == [None]


def test_e11_312_no_fire_at_true_range_3_or_less():
    b = _duel(kli_hex="0512")  # range 3 dead ahead
    run_to(b, 3, 1)
    assert b.fire_blockers(_ppd(b), [row(b, "k")])[0] == (
        "E11.312 range 3 is below the minimum range 4")
    with pytest.raises(IllegalOrderError) as err:
        _fire(b)
    assert err.value.rule.startswith("E11.312")


def test_e11_472_no_ppd_fire_at_a_cloaked_ship():
    b = _duel()
    run_to(b, 3, 1)
    b.state.cloaked[row(b, "k")] = True  # (G13) as Energy Allocation sets it
    rule = b.fire_blockers(_ppd(b), [row(b, "k")])[0]
    assert rule.startswith("E11.472")


def test_e11_472_target_cloaking_in_the_same_impulse_voids_the_order_and_keeps_the_charge():
    """The orders are written before the Cloak step (C1.3 secret orders): a target that begins
    to cloak in this impulse cannot be fired at, so the shot is void, logged, and the PPD stays
    armed (found by the 10,000-step mask run of grad-isc-full-vs-orion)."""
    from sfb_env.engine import ppd_fire

    b = _duel()
    run_to(b, 3, 1)
    w, k = _ppd(b), row(b, "k")
    assert b.fire_blockers(w, [k]) == [None]  # open when the order is written
    b.state.cloaked[k] = True  # the Cloak step of this impulse
    ppd_fire.fire_step(b, {}, [(w, k)])
    assert [e.rule for e in of(b, "PpdFireVoid")] == ["E11.472"]
    assert not _pulses(b)
    b.state.cloaked[k] = False
    assert b.fire_blockers(w, [k]) == [None]  # still armed


def test_e11_23_not_fired_again_while_pulsing():
    b = _duel()
    run_to(b, 3, 1)
    _fire(b, dice=(6, 6))  # no lock: the train goes on rolling
    assert b.fire_blockers(_ppd(b), [row(b, "k")])[0] == (
        "E11.23 the PPD is still pulsing: one charge at a time")


# ------------------------------------------------------------------ pulses (E11.3)


def test_e11_333_example_in_play_range_12_misses_on_11_then_locks_on_4():
    b = _duel()  # range 12 dead ahead, both stopped
    run_to(b, 3, 1)
    _fire(b, dice=(5, 6))  # 11: no wave-lock, pulse 1 lost
    b.rng = Dice(1, 3)  # 4: locked; pulses 3 and 4 roll nothing
    for _ in range(3):
        step(b, i=None, k=None)
    assert b.rng.values == []
    pulses = _pulses(b)
    assert [(e.impulse, e.range, e.die, e.hit) for e in pulses] == [
        (1, 12, 11, False), (2, 12, 4, True), (3, 12, 0, True), (4, 12, 0, True)]
    assert [e.damage for e in pulses] == [0] + [tables.ppd_damage(12)] * 3
    assert not b.state.ppd_locked[_ppd(b)] and b.state.ppd_target[_ppd(b)] == -1


def test_e11_52_example_in_play_range_10_then_11_then_10_scores_6_5_6():
    # the Klingon (speed 3) moves on impulses 3, 6, 8; the ISC (speed 4) on 2, 4, 6, 8
    b = _duel(isc_hex=PATH_B[0], kli_hex=PATH_B[13], kli_facing="B", isc_speed=4, kli_speed=3)
    run_to(b, 3, 2)
    assert hexmap.distance(hex_of(b, "i"), hex_of(b, "k")) == 10
    _fire(b, dice=(1, 1))
    _go(b)  # impulse 3: the target moves away (E11.582 keeps the lock)
    _go(b)  # impulse 4: the firer moves closer (E11.581 keeps the lock)
    pulses = _pulses(b)
    assert [(e.range, e.damage) for e in pulses] == [(10, 6), (11, 5), (10, 6)]
    assert all(e.hit for e in pulses)


def test_e11_352_example_in_play_six_points_on_shield_3_is_1_4_1():
    b = _duel(isc_hex="0515", kli_hex="0505", kli_facing="B")  # range 10, on the #3 shield
    k = row(b, "k")
    run_to(b, 3, 1)
    before = b.state.shields[k].copy()
    _fire(b, dice=(1, 1))
    lost = before - b.state.shields[k]
    assert _pulses(b)[0].shield == 3 and _pulses(b)[0].damage == 6
    assert lost.tolist() == [0, 1, 4, 1, 0, 0]  # shields #1..#6


def test_e11_351_in_play_along_a_hex_side_split_evenly_over_both_shields():
    # from 1510 (facing A) the hex 2510 lies exactly on the #2/#3 boundary at range 10
    doc = scenario([unit("i", ISC, "blue", "2510", "E", 0), unit("k", KLI, "red", "1510", "A", 0)])
    b = make_battle(doc, seed=0)
    k = row(b, "k")
    run_to(b, 3, 1)
    before = b.state.shields[k].copy()
    _fire(b, dice=(1, 1))
    lost = before - b.state.shields[k]
    assert tables.ppd_alt(10) == (3, 3)
    assert lost.tolist() == [0, 3, 3, 0, 0, 0]


def test_e11_353_example_in_play_a_drone_at_range_6_takes_4():
    doc = scenario([unit("i", ISC, "blue", "0515", "A", 0),
                    unit("d", "drone", "red", "0509", "D", 0, target="i")])
    b = make_battle(doc, seed=0)
    run_to(b, 3, 1)
    assert b.state.status[row(b, "d")] == Status.ACTIVE
    _fire(b, dice=(3, 3), target="d")  # 6 + 2 against a drone (FD1.52)
    pulse = _pulses(b)[0]
    assert (pulse.range, pulse.die, pulse.hit, pulse.damage) == (6, 8, True, 4)
    assert [e.internal for e in of(b, "Damaged", unit="d")] == [4]  # no splash (E11.353)


def test_e11_23_example_in_play_fired_on_31_pulses_on_31_32_1_2():
    b = _duel(ipt=32)
    run_to(b, 3, 31)
    _fire(b, dice=(1, 1))
    for _ in range(3):
        step(b, i=None, k=None)
    assert [(e.turn, e.impulse) for e in _pulses(b)] == [(3, 31), (3, 32), (4, 1), (4, 2)]
    assert all(e.hit and e.damage == tables.ppd_damage(12) for e in _pulses(b))


def test_e11_332_each_pulse_its_own_volley_before_other_direct_fire():
    b = _duel()
    run_to(b, 3, 1)
    b.rng = Dice(1, 1, 1)  # the PPD's 2d6, then the phaser's die
    step(b, i=dict(maneuver=None, fire={"PPD-A": "k", "PH1-1": "k"}), k=None)
    kinds = [(e.kind, getattr(e, "weapon_type", None)) for e in b.events
             if e.kind in ("Fired", "Damaged") and e.impulse == 1 and e.turn == 3]
    assert kinds == [("Fired", "ppd"), ("Damaged", None), ("Fired", "ph-1"), ("Damaged", None)]


def test_e11_521_myopic_zone_keeps_the_lock_and_scores_nothing():
    # the Klingon closes head-on at speed 8 from range 5: locked at 5, scores at 4, then at 3
    # and 2 the lock holds without dice and nothing is scored
    b = _duel(kli_hex="0503", kli_facing="D")
    run_to(b, 3, 1)
    st, k = b.state, row(b, "k")
    st.speed[k] = 8  # one hex every impulse, as a speed change at the turn's start would
    st.x[k], st.z[k] = hexmap.label_to_axial("0510")
    _fire(b, dice=(1, 1))
    for _ in range(3):
        _go(b)
    assert [(e.range, e.hit, e.die) for e in _pulses(b)] == [
        (5, True, 2), (4, True, 0), (3, True, 0), (2, True, 0)]
    assert [e.damage for e in _pulses(b)][2:] == [0, 0]
    assert _pulses(b)[1].damage == tables.ppd_damage(4) > 0
    assert not of(b, "PpdTrainEnded")  # the lock was never broken


# ------------------------------------------------------------------ breaking (E11.54) and drops


def test_e11_544_ppd_destroyed_breaks_the_lock():
    b = _duel()
    run_to(b, 3, 1)
    _fire(b, dice=(1, 1))
    b.state.w_destroyed[_ppd(b)] = True  # (D4.2) as a volley would
    step(b, i=None, k=None)
    assert len(_pulses(b)) == 1
    end = of(b, "PpdTrainEnded")
    assert [(e.rule, e.resolved, e.pulses) for e in end] == [("E11.544", 1, 4)]


def test_e11_542_target_destroyed_breaks_the_lock():
    b = _duel()
    run_to(b, 3, 1)
    _fire(b, dice=(1, 1))
    b.state.status[row(b, "k")] = Status.DESTROYED
    step(b, i=None)
    assert [e.rule for e in of(b, "PpdTrainEnded")] == ["E11.542"]


def test_e11_541_target_out_of_arc_breaks_the_lock():
    b = _duel(kli_hex="0511")  # range 4 dead ahead
    run_to(b, 3, 1)
    _fire(b, dice=(1, 1))
    st = b.state
    st.x[row(b, "k")], st.z[row(b, "k")] = hexmap.label_to_axial("0917")  # far astern
    step(b, i=None, k=None)
    assert [e.rule for e in of(b, "PpdTrainEnded")] == ["E11.541"]
    assert b.state.ppd_target[_ppd(b)] == -1


def test_e11_362_drop_the_wave_lock_only_while_pulsing_and_the_rest_is_lost():
    b = _duel()
    w = _ppd(b)
    run_to(b, 3, 1)
    assert drop_blockers(b, w) == {1: "E11.362 the PPD is not pulsing: no wave-lock to drop"}
    with pytest.raises(IllegalOrderError) as err:
        b.step({row(b, "i"): Orders(ppd={w: int(PpdOrder.DROP)}), row(b, "k"): Orders()})
    assert err.value.rule.startswith("E11.362")
    _fire(b, dice=(1, 1))
    assert drop_blockers(b, w) == {}
    b.step({row(b, "i"): Orders(ppd={w: int(PpdOrder.DROP)}), row(b, "k"): Orders()})
    assert len(_pulses(b)) == 1
    assert [(e.rule, e.resolved) for e in of(b, "PpdTrainEnded")] == [("E11.362", 1)]
    assert b.state.ppd_target[w] == -1


# ------------------------------------------------------------------ the cadet form (E11.2)


def _cadet(ipt: int = 8):
    doc = scenario([unit("i", ISC, "blue", "0515", "A", 0), unit("k", KLI, "red", "0503", "A", 0)],
                   rules={"energy": "cadet", "damage": "interim"})
    doc["impulses_per_turn"] = ipt
    return make_battle(doc, seed=0)


def _allocate(b, value: int, fire: bool = False, dice=()):
    """Step through an Energy Allocation point giving the PPD ``arm`` order ``value``."""
    w, i, k = _ppd(b), row(b, "i"), row(b, "k")
    b.rng = Dice(*dice)
    order = Orders(speed=0, arm={w: value}, fire={w: k} if fire else {})
    b.step({i: order, k: Orders(speed=0)})


def test_e11_21_cadet_form_four_and_four_over_two_consecutive_turns_fires_on_the_second():
    b = _cadet()
    w, k = _ppd(b), row(b, "k")
    assert energy.arm_blockers(b, w) == {
        2: "E11.22 only an armed PPD is held",
        5: "E11.25 only an armed PPD held for a turn is topped up"}
    _allocate(b, int(ArmOrder.ARM))  # turn 1: 4 points (E11.21)
    st = b.state
    assert (st.ppd_stage[w], st.ppd_energy[w]) == (int(PpdStage.ARMING), 4)
    assert b.fire_blockers(w, [k])[0].startswith("E11.21 the PPD is not armed")
    run_to(b, 1, 8)
    _allocate(b, int(ArmOrder.ARM))  # turn 2: 4 more, fires this turn
    assert (st.ppd_stage[w], st.ppd_energy[w]) == (int(PpdStage.ARMED), 8)
    assert b.fire_blockers(w, [k]) == [None]
    armed = [(e.turn, e.energy) for e in of(b, "WeaponArmed", weapon="i.PPD-A")]
    assert armed == [(1, 4), (2, 4)]


def test_e11_22_cadet_form_holding_costs_two_and_an_unpaid_charge_is_lost():
    b = _cadet()
    w, k = _ppd(b), row(b, "k")
    _allocate(b, int(ArmOrder.ARM))
    run_to(b, 1, 8)
    _allocate(b, int(ArmOrder.ARM))
    run_to(b, 2, 8)
    holds = "E11.23 the PPD holds an unfired charge: hold it (2) or let it go (0)"
    assert energy.arm_blockers(b, w) == {1: holds, 3: holds, 4: holds,
                                         5: "E11.25 the charge is full (8 energy, four pulses): "
                                            "nothing to top up"}
    _allocate(b, int(ArmOrder.HOLD))  # turn 3: 2 points (E11.22), still 8 in the charge
    assert [(e.turn, e.energy, e.held) for e in of(b, "WeaponArmed", weapon="i.PPD-A")][-1] == (
        3, 2, True)
    assert b.state.ppd_energy[w] == 8 and b.fire_blockers(w, [k]) == [None]
    run_to(b, 3, 8)
    _allocate(b, int(ArmOrder.NONE))  # turn 4: not held, the charge is lost
    assert b.state.ppd_stage[w] == int(PpdStage.EMPTY)
    assert b.fire_blockers(w, [k])[0].startswith("E11.21")
    assert of(b, "WeaponDischarged", weapon="i.PPD-A")


def test_e11_23_example_in_play_arming_again_while_the_last_train_pulses():
    # armed on turns 1 and 2, fired on impulse 31 of turn 2: pulses 31, 32, 1, 2; the next
    # charge's first turn is paid on turn 3 and it fires on turn 4
    b = _cadet(ipt=32)
    w, k = _ppd(b), row(b, "k")
    _allocate(b, int(ArmOrder.ARM))
    run_to(b, 1, 32)
    _allocate(b, int(ArmOrder.ARM))
    run_to(b, 2, 31)
    _fire(b, dice=(1, 1))
    assert energy.arm_blockers(b, w) == {
        2: "E11.22 only an armed PPD is held",
        5: "E11.25 only an armed PPD held for a turn is topped up"}
    _allocate(b, int(ArmOrder.ARM))  # impulse 32 of turn 2: the allocation of turn 3
    assert b.state.ppd_stage[w] == int(PpdStage.ARMING)
    run_to(b, 3, 3)
    assert [(e.turn, e.impulse) for e in _pulses(b)] == [(2, 31), (2, 32), (3, 1), (3, 2)]
    assert b.fire_blockers(w, [k])[0].startswith("E11.21")
    run_to(b, 3, 32)
    _allocate(b, int(ArmOrder.ARM))
    assert b.fire_blockers(w, [k]) == [None]  # turn 4


def test_e11_332_a_pulse_through_fallen_shields_is_one_standard_dac_volley():
    doc = scenario([unit("i", "isc-star-cruiser", "blue", "0515", "A", 0),
                    unit("k", "klingon-d7", "red", "0505", "B", 0)],
                   rules={"damage": "standard_dac"})
    b = make_battle(doc, seed=1)
    k = row(b, "k")
    run_to(b, 3, 1)
    b.state.shields[k] = 0  # every shield down: the splash goes inside
    step(b, i=dict(maneuver="-", fire={"PPD-A": "k"}), k="-")
    for _ in range(3):
        step(b, i="-", k="-")
    scored = [e.damage for e in _pulses(b)]
    hits = [e for e in of(b, "Damaged", unit="k")]
    assert sum(scored) > 0 and len(hits) == sum(1 for d in scored if d)  # one volley a pulse
    assert [e.internal for e in hits] == [d for d in scored if d]
    assert all(e.boxes for e in hits)  # the 2d6 chart of D4.2 took boxes


# ---------------------------------------------------------------- general reinforcement (E11.39)


class _LockDice(Dice):
    """Scripted wave-lock dice; the standard DAC's sized 2d6 draws come from a seeded rng."""

    def __init__(self, *values: int) -> None:
        super().__init__(*values)
        self.rng = np.random.default_rng(0)

    def integers(self, low: int, high: int | None = None, size: Any = None) -> Any:
        if size is not None:
            return self.rng.integers(low, high, size=size)
        return super().integers(low, high)


def _standard_duel(general: int):
    """A Star Cruiser (standard form, PPD armed over turns 1-2 by the standing allocation)
    10 hexes dead ahead of the #1 shield of a D7 that buys ``general`` GR on turn 3."""
    doc = scenario([unit("i", "isc-star-cruiser", "blue", "0515", "A", 0),
                    unit("k", "klingon-d7", "red", "0505", "D", 0)],
                   rules={"energy": "standard", "damage": "standard_dac",
                          "reinforcement": True})
    doc["impulses_per_turn"] = 8
    b = make_battle(doc, seed=0)
    i, k = row(b, "i"), row(b, "k")
    run_to(b, 2, 8)
    b.step({i: Orders(maneuver=0), k: Orders(maneuver=0, reinforce_general=general)})
    assert (b.state.turn, b.state.impulse, int(b.state.reinf_general[k])) == (3, 1, general)
    return b, i, k


def test_e11_39_example_in_play_two_general_reinforcement_on_shields_6_and_1_of_the_first_pulse():
    b, i, k = _standard_duel(2)
    s = b.state
    s.shields[k, 5] = 0  # the example's #6 shield is down
    before = s.shields[k].copy()
    b.rng = _LockDice(1, 1)
    b.step({i: Orders(maneuver=0, fire={_ppd(b): k}), k: Orders(maneuver=0)})
    assert _pulses(b)[-1].damage == 6 and _pulses(b)[-1].shield == 1  # 4 on #1, 1 on #2 and #6
    # one GR point stops the point on the down #6 shield, the other must go on this pulse: #1
    assert (before - s.shields[k]).tolist() == [3, 1, 0, 0, 0, 0]
    assert s.reinf_general[k] == 0 and s.internal[k] == 0
    b.step({i: Orders(maneuver=0), k: Orders(maneuver=0)})  # 2nd pulse: nothing was saved
    assert (before - s.shields[k]).tolist() == [7, 2, 0, 0, 0, 0] and s.internal[k] == 1


def test_e11_39_general_reinforcement_beyond_the_pulse_is_kept_for_the_next():
    b, i, k = _standard_duel(8)
    s = b.state
    before = s.shields[k].copy()
    b.rng = _LockDice(1, 1)
    b.step({i: Orders(maneuver=0, fire={_ppd(b): k}), k: Orders(maneuver=0)})
    assert (before - s.shields[k]).tolist() == [0] * 6 and s.reinf_general[k] == 2


def test_d3_2_standard_form_unpaid_shields_stop_no_ppd_splash():
    b, i, k = _standard_duel(0)
    s = b.state
    s.shields_active[k] = False  # as if the shields were not paid (CTH-DATA §7.4)
    before = s.shields[k].copy()
    b.rng = _LockDice(1, 1)
    b.step({i: Orders(maneuver=0, fire={_ppd(b): k}), k: Orders(maneuver=0)})
    assert (s.shields[k] == before).all() and s.internal[k] == 6
