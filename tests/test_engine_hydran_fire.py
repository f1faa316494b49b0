"""Hydran weapons wired into the engine's direct fire under the Chief Engineer (SCENARIOS §2.1):
fusion beams (E7: armed every turn, once a turn, cooling after firing, the fusion beam table)
and the phaser-G (E2.15: four shots a turn, four in any quarter turn across the turn break,
the phaser-3 table). Battles with scripted dice; expected values are read off the charts."""

from __future__ import annotations

import pytest
from engine_helpers import Dice, battle, of, row, run_to, scenario, step, unit, weapon

from sfb_env import tables
from sfb_env.engine import IllegalOrderError, WeaponType, make_battle
from sfb_env.engine.direct_fire import fusion_damage, gatling_shots_left
from sfb_env.engine.fighters import next_bracket
from sfb_env.engine.phaser_g import SHOTS_PER_TURN

HYD = "hydran-cadet"
KLI = "klingon-cadet"


def _ahead(**rules):
    """The Hydran at 0505 facing A; a Klingon two hexes dead ahead (both fusion arcs, D2.1)."""
    return battle([unit("h", HYD, "blue", "0505", "A", 0), unit("k", KLI, "red", "0503", "D", 0)],
                  rules=rules or None)


def _astern(impulses: int = 8):
    """The Hydran at 0505 facing A; a Klingon two hexes astern, in the Ph-G's RA arc."""
    doc = scenario([unit("h", HYD, "blue", "0505", "A", 0), unit("k", KLI, "red", "0507", "A", 0)])
    doc["impulses_per_turn"] = impulses
    return make_battle(doc, seed=0)


def _blocker(b, mount: str, target: str = "k") -> str | None:
    return b.fire_blockers(weapon(b, "h", mount), [row(b, target)])[0]


# ------------------------------------------------------------------ ship data


def test_e7_11_e2_15_hydran_cadet_weapons_map_to_engine_types():
    b = _ahead()
    kinds = {b.weapon_ids[w].split(".")[1]: WeaponType(int(b.state.w_type[w]))
             for w in b.weapons_of(row(b, "h"))}
    assert kinds == {"PH2-1": WeaponType.PH2, "PH2-2": WeaponType.PH2, "PH2-3": WeaponType.PH2,
                     "PHG-4": WeaponType.PHG, "FUS-A": WeaponType.FUSION,
                     "FUS-B": WeaponType.FUSION}
    st = b.state
    fus, phg = weapon(b, "h", "FUS-A"), weapon(b, "h", "PHG-4")
    # (E7.31) the fusion beam table runs 0..24; (E2.152) the phaser-G reads the phaser-3 table
    assert (st.w_min_range[fus], st.w_max_range[fus]) == (0, tables.fusion_chart().shape[1] - 1)
    assert (st.w_min_range[phg], st.w_max_range[phg]) == (0, tables.phaser_max_range("ph-3"))


# ------------------------------------------------------------------ fusion beams (E7)


@pytest.mark.parametrize("die", range(1, 7))
def test_e7_32_fusion_damage_is_read_off_the_fusion_beam_table(die):
    b = _ahead()
    run_to(b, 1, 1)
    b.rng = Dice(die)
    step(b, h=dict(fire={"FUS-A": "k"}))
    (shot,) = of(b, "Fired")
    assert (shot.weapon, shot.weapon_type, shot.range) == ("h.FUS-A", "fusion", 2)
    assert shot.damage == tables.fusion_damage(2, die)


def test_e7_21_chief_engineer_arms_the_fusion_beams_on_turn_1():
    b = _ahead()
    run_to(b, 1, 1)
    assert _blocker(b, "FUS-A") is None and _blocker(b, "FUS-B") is None


def test_e1_5_fusion_fires_once_per_turn():
    b = _ahead()
    run_to(b, 1, 1)
    step(b, h=dict(fire={"FUS-A": "k"}))
    rule = _blocker(b, "FUS-A")
    assert rule == "E1.5 the beam has fired this turn"
    with pytest.raises(IllegalOrderError) as err:
        step(b, h=dict(fire={"FUS-A": "k"}))
    assert err.value.rule == rule
    run_to(b, 1, 8)
    assert _blocker(b, "FUS-A") == rule  # not even on the last impulse


def test_e7_22_fusion_cools_the_turn_after_it_fired_and_e7_23_an_unfired_beam_does_not():
    b = _ahead()
    run_to(b, 1, 8)
    step(b, h=dict(fire={"FUS-A": "k"}))  # fired on impulse 8 of turn 1; FUS-B held
    for impulse in range(1, 9):  # (E7.22) no impulse of turn 2
        assert (b.state.turn, b.state.impulse) == (2, impulse)
        rule = _blocker(b, "FUS-A")
        assert rule == "E7.22 the beam fired last turn and is cooling"
        assert _blocker(b, "FUS-B") is None  # (E7.23) its charge was released: no cooling
        if impulse == 1:
            with pytest.raises(IllegalOrderError) as err:
                step(b, h=dict(fire={"FUS-A": "k"}))
            assert err.value.rule == rule
        if impulse < 8:
            run_to(b, 2, impulse + 1)
        else:
            run_to(b, 3, 1)
    assert _blocker(b, "FUS-A") is None  # armed again on turn 3
    b.rng = Dice(1)
    step(b, h=dict(fire={"FUS-A": "k"}))
    assert [s.turn for s in of(b, "Fired", weapon="h.FUS-A")] == [1, 3]


def test_e7_21_without_the_chief_engineer_nothing_arms_a_fusion_beam():
    b = _ahead(chief_engineer=False)
    run_to(b, 1, 1)
    assert _blocker(b, "FUS-A") == "E7.21 the beam needs 2 energy paid this turn"
    assert _blocker(b, "PH2-1") is None


def test_e7_12_a_destroyed_fusion_beam_cannot_fire():
    b = _ahead()
    run_to(b, 1, 1)
    b.state.w_destroyed[weapon(b, "h", "FUS-B")] = True
    assert _blocker(b, "FUS-B") == "D4.0 the weapon is destroyed"


def test_e1_0_a_fusion_beam_destroyed_in_the_same_fire_step_still_fires():
    """Fire is simultaneous (E1.0): a beam destroyed in the step it fires (by a PPD volley,
    resolved first, E11.332) still fires (found by the 10,000-step mask run of
    grad-isc-full-vs-hydran)."""
    from sfb_env.engine import direct_fire

    b = _ahead()
    run_to(b, 1, 1)
    w = weapon(b, "h", "FUS-A")
    assert _blocker(b, "FUS-A") is None  # open when the order is written
    b.state.w_destroyed[w] = True  # this step's PPD volley
    b.rng = Dice(1)
    direct_fire.resolve_fire(b, [(w, row(b, "k"))])
    assert [e.turn for e in of(b, "Fired", weapon="h.FUS-A")] == [1]
    assert _blocker(b, "FUS-A") == "D4.0 the weapon is destroyed"


def test_e7_31_fusion_fires_at_range_0_and_not_beyond_24():
    b = battle([unit("h", HYD, "blue", "0505", "A", 0), unit("k", KLI, "red", "0505", "D", 0)])
    run_to(b, 1, 1)
    assert _blocker(b, "FUS-A") is None  # same hex, same hex before: in arc (D3.42)
    b = battle([unit("h", HYD, "blue", "0108", "C", 0), unit("k", KLI, "red", "2501", "A", 0),
                unit("far", KLI, "red", "2602", "A", 0)])  # both in FUS-A's LF arc
    run_to(b, 1, 1)
    assert _blocker(b, "FUS-A") is None  # range 24
    assert _blocker(b, "FUS-A", "far") == "E7.31 range 25 is beyond the maximum range 24"


def test_fd1_52_fusion_at_a_drone_adds_2_to_the_die():
    b = battle([unit("h", HYD, "blue", "0505", "A", 0),
                unit("d", "target-drone", "red", "0504", "A", 0, controller="target-drone")])
    run_to(b, 1, 1)
    b.rng = Dice(1)
    step(b, h=dict(fire={"FUS-A": "d"}))
    (shot,) = of(b, "Fired")
    assert (shot.range, shot.damage) == (1, tables.fusion_damage(1, 1 + 2))


def test_fd1_52_fusion_roll_past_6_reads_the_die_6_row_of_a_longer_bracket():
    chart = tables.fusion_chart()
    for rng in range(chart.shape[1]):
        assert fusion_damage(rng, 6) == tables.fusion_damage(rng, 6)
        one = next_bracket(chart, rng)
        assert fusion_damage(rng, 7) == (0 if one is None else tables.fusion_damage(one, 6))
        two = None if one is None else next_bracket(chart, one)
        assert fusion_damage(rng, 8) == (0 if two is None else tables.fusion_damage(two, 6))


# ------------------------------------------------------------------ phaser-G (E2.15)


@pytest.mark.parametrize("die", range(1, 7))
def test_e2_152_phaser_g_damage_is_read_off_the_phaser_3_table(die):
    b = _astern()
    run_to(b, 1, 1)
    b.rng = Dice(die)
    step(b, h=dict(fire={"PHG-4": "k"}))
    (shot,) = of(b, "Fired")
    assert (shot.weapon_type, shot.range) == ("ph-g", 2)
    assert shot.damage == tables.phaser_damage("ph-3", 2, die)


def test_e2_151_phaser_g_fires_four_shots_a_turn():
    b = _astern()
    run_to(b, 1, 1)
    for impulse in range(1, SHOTS_PER_TURN + 1):  # one shot an impulse, on consecutive ones
        assert _blocker(b, "PHG-4") is None
        assert gatling_shots_left(b, weapon(b, "h", "PHG-4")) == SHOTS_PER_TURN - impulse + 1
        step(b, h=dict(fire={"PHG-4": "k"}))
    assert len(of(b, "Fired", weapon="h.PHG-4")) == SHOTS_PER_TURN
    rule = _blocker(b, "PHG-4")
    assert rule == "E2.151 4 of 4 shots already fired this turn"
    with pytest.raises(IllegalOrderError) as err:
        step(b, h=dict(fire={"PHG-4": "k"}))
    assert err.value.rule == rule
    run_to(b, 1, 8)
    assert _blocker(b, "PHG-4") == rule
    # the next turn: four more (the 2-impulse quarter turn holds none of the old shots)
    run_to(b, 2, 1)
    assert _blocker(b, "PHG-4") is None
    assert gatling_shots_left(b, weapon(b, "h", "PHG-4")) == SHOTS_PER_TURN


def test_e1_5_phaser_g_is_exempt_from_once_a_turn_while_other_phasers_are_not():
    b = _ahead()
    run_to(b, 1, 1)
    step(b, h=dict(fire={"PH2-1": "k"}))
    assert _blocker(b, "PH2-1") == "E1.5 the weapon has already fired this turn"


def test_e2_151_phaser_g_quarter_turn_limit_spans_the_turn_break():
    b = _astern(impulses=32)  # a quarter turn is 8 impulses (C1.41)
    run_to(b, 1, 29)
    for _ in range(4):  # impulses 29..32 of turn 1
        step(b, h=dict(fire={"PHG-4": "k"}))
    assert (b.state.turn, b.state.impulse) == (2, 1)
    rule = "E2.151 4 shots already in the last 8 impulses (1/4 turn)"
    for impulse in range(1, 5):  # windows 26..1 through 29..4 still hold all four shots
        assert (b.state.turn, b.state.impulse) == (2, impulse)
        assert _blocker(b, "PHG-4") == rule
        assert gatling_shots_left(b, weapon(b, "h", "PHG-4")) == SHOTS_PER_TURN  # a new turn
        if impulse == 1:
            with pytest.raises(IllegalOrderError) as err:
                step(b, h=dict(fire={"PHG-4": "k"}))
            assert err.value.rule == rule
        run_to(b, 2, impulse + 1)
    assert _blocker(b, "PHG-4") is None  # window 30..5: three shots, room for one
    step(b, h=dict(fire={"PHG-4": "k"}))
    assert len(of(b, "Fired", weapon="h.PHG-4", turn=2)) == 1


# ---------------------------------------------------------- several shots an impulse (E2.151)


def _astern_two(impulses: int = 8):
    """The Hydran at 0505 facing A; Klingons two (``k``) and three (``k2``) hexes astern, both
    in the Ph-G's RA arc."""
    doc = scenario([unit("h", HYD, "blue", "0505", "A", 0), unit("k", KLI, "red", "0507", "A", 0),
                    unit("k2", KLI, "red", "0508", "A", 0)])
    doc["impulses_per_turn"] = impulses
    return make_battle(doc, seed=0)


def _shot_blocker(b, shot: int, target: str = "k") -> str | None:
    return b.fire_blockers(weapon(b, "h", "PHG-4"), [row(b, target)], shot)[0]


def test_e2_151_phaser_g_fires_three_shots_in_one_impulse_at_two_targets():
    b = _astern_two()
    run_to(b, 1, 1)
    assert all(_shot_blocker(b, k) is None for k in range(1, SHOTS_PER_TURN + 1))
    b.rng = Dice(6, 1, 2)  # (E2.151) "each firing": one die per shot, in shot order
    step(b, h=dict(fire={"PHG-4": "k"}, gatling={"PHG-4": {2: "k2", 3: "k"}}))
    shots = of(b, "Fired", weapon="h.PHG-4", turn=1, impulse=1)
    assert [(s.target, s.range, s.die) for s in shots] == [("k", 2, 6), ("k2", 3, 1),
                                                            ("k", 2, 2)]
    # (E2.152) each on the phaser-3 table: R2 die 6 -> 1, R3 die 1 -> 3, R2 die 2 -> 4
    assert [s.damage for s in shots] == [tables.phaser_damage("ph-3", s.range, s.die)
                                         for s in shots] == [1, 3, 4]
    # (E1.0) the impulse's fire is simultaneous: k's two shots strike its #4 shield as one volley
    hits = of(b, "Damaged", turn=1, impulse=1)
    assert sorted((d.unit, d.to_shield + d.internal) for d in hits) == [("k", 5), ("k2", 3)]
    assert gatling_shots_left(b, weapon(b, "h", "PHG-4")) == SHOTS_PER_TURN - 3
    assert _shot_blocker(b, 1) is None  # the fourth shot of the turn is still there
    assert _shot_blocker(b, 2) == "E2.151 3 of 4 shots already fired this turn"


def test_e2_151_shot_k_is_open_only_while_k_shots_are_left():
    b = _astern_two(impulses=16)  # a quarter turn of 4 impulses
    run_to(b, 1, 1)
    step(b, h=dict(fire={"PHG-4": "k"}, gatling={"PHG-4": {2: "k2"}}))  # two shots on 1
    rule = "E2.151 2 of 4 shots already fired this turn"
    assert _shot_blocker(b, 2) is None and _shot_blocker(b, 3) == rule
    with pytest.raises(IllegalOrderError) as err:  # shot 3 needs 3 shots left, held or not
        step(b, h=dict(gatling={"PHG-4": {3: "k"}}))
    assert (err.value.component, err.value.rule) == ("gatling[h.PHG-4].shot3", rule)
    step(b, h=dict(fire={"PHG-4": "k2"}, gatling={"PHG-4": {2: "k2"}}))  # the last two, on 2
    assert len(of(b, "Fired", weapon="h.PHG-4")) == SHOTS_PER_TURN
    assert _shot_blocker(b, 1) == "E2.151 4 of 4 shots already fired this turn"


def test_e2_151_four_shots_in_one_impulse_fill_the_quarter_turn_across_the_turn_break():
    b = _astern_two(impulses=32)  # a quarter turn is 8 impulses (C1.41)
    run_to(b, 1, 32)
    step(b, h=dict(fire={"PHG-4": "k"}, gatling={"PHG-4": {2: "k", 3: "k2", 4: "k2"}}))
    assert len(of(b, "Fired", weapon="h.PHG-4", turn=1, impulse=32)) == 4
    rule = "E2.151 4 shots already in the last 8 impulses (1/4 turn)"
    for impulse in range(1, 8):  # windows 26..1 through 32..7 hold all four
        assert (b.state.turn, b.state.impulse) == (2, impulse)
        assert _shot_blocker(b, 1) == rule
        run_to(b, 2, impulse + 1)
    assert all(_shot_blocker(b, k) is None for k in range(1, 5))  # window 1..8: none


def test_e2_151_extra_shots_are_for_a_phaser_g_only_and_numbered_2_to_4():
    b = _astern_two()
    run_to(b, 1, 1)
    with pytest.raises(IllegalOrderError) as err:
        step(b, h=dict(gatling={"PH2-1": {2: "k"}}))
    assert err.value.rule == "E1.5 only a phaser-G fires more than once in an impulse (E2.151)"
    assert b.fire_blockers(weapon(b, "h", "PH2-1"), [row(b, "k")], 2)[0] == err.value.rule
    with pytest.raises(IllegalOrderError) as err:
        step(b, h=dict(gatling={"PHG-4": {5: "k"}}))
    assert err.value.rule == "E2.151 a phaser-G's extra shots are numbered 2..4"
