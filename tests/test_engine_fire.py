"""Engine direct fire: range (D1.4), arcs (D2), rates (E1.5), simultaneity (E1), phasers (E2),
disruptors (E3), photons (E4), shields (D3.4, D3.41, D3.42), interim damage (D4.0) and the
ship-explosion house rule, all fired in battles with scripted dice."""

from __future__ import annotations

import pytest
from engine_helpers import (
    Dice,
    battle,
    hex_of,
    moves_straight,
    of,
    row,
    run_to,
    step,
    unit,
    weapon,
)

from sfb_env import hexmap
from sfb_env.engine import IllegalOrderError, Status, make_battle

FED = "fed-cadet"
KLI = "klingon-cadet"
FED_SHIELDS = [16, 12, 10, 10, 10, 12]  # CTH-DATA §9.1
KLI_SHIELDS = [16, 12, 8, 8, 8, 12]


def drone_target(uid: str, hex_: str, side: str = "red") -> dict:
    """A target drone that stays put (speed 0) and has no shields."""
    return unit(uid, "target-drone", side, hex_, "A", 0, controller="target-drone")


def strip(b, uid: str, keep: tuple[str, ...] = ()) -> None:
    """Hand-placed damage: every internal box gone and every weapon but ``keep`` destroyed."""
    u = row(b, uid)
    b.state.boxes[u] = 0
    for w in b.weapons_of(u):
        b.state.w_destroyed[w] = b.weapon_ids[w].split(".")[1] not in keep


# ------------------------------------------------------------------ phasers (E2), range (D1.4)


def test_e2_phaser_1_at_range_1_die_1_scores_8():
    b = battle([unit("fed", FED, "blue", "0505", "A", 0), unit("k", KLI, "red", "0504", "D", 0)])
    run_to(b, 1, 1)
    b.rng = Dice(1)
    step(b, fed=dict(fire={"PH1-1": "k"}))
    (shot,) = of(b, "Fired")
    assert (shot.weapon, shot.weapon_type, shot.target) == ("fed.PH1-1", "ph-1", "k")
    assert (shot.range, shot.effective_range, shot.die, shot.hit, shot.damage) == (1, 1, 1, True, 8)
    assert shot.shield == 1  # the Klingon faces D toward 0505: its forward shield
    (dmg,) = of(b, "Damaged", unit="k")
    assert (dmg.shield, dmg.to_shield, dmg.internal) == (1, 8, 0)
    assert b.state.shields[row(b, "k")].tolist() == [16 - 8, *KLI_SHIELDS[1:]]


def test_e2_phaser_2_at_range_3_die_2_scores_4():
    b = battle([unit("fed", FED, "blue", "0202", "A", 0), unit("k", KLI, "red", "0305", "F", 0)])
    assert hexmap.in_arc("0305", "F", "0202", "FX")
    run_to(b, 1, 1)
    b.rng = Dice(2)
    step(b, k=dict(fire={"PH2-1": "fed"}))
    (shot,) = of(b, "Fired")
    assert (shot.range, shot.die, shot.damage, shot.shield) == (3, 2, 4, 4)  # D3.4 example: #4
    assert b.state.shields[row(b, "fed"), 3] == FED_SHIELDS[3] - 4


@pytest.mark.parametrize(("target_hex", "mount", "die", "rng", "damage"), [
    ("0501", "PH1-1", 6, 4, 2),  # Ph-1 chart (CTH-DATA §4.1): range 4, die 6 -> 2
    ("0509", "PH1-2", 5, 4, 3),  # astern, left-side phaser: range 4, die 5 -> 3
    ("0515", "PH1-2", 1, 10, 3),  # range 9-15, die 1 -> 3
    ("0505", "PH1-3", 6, 0, 4),  # range 0 (same hex, D3.42 arcs), die 6 -> 4
])
def test_d1_4_e2_phaser_1_damage_follows_range_brackets(target_hex, mount, die, rng, damage):
    b = battle([unit("fed", FED, "blue", "0505", "A", 0), drone_target("d", target_hex)])
    run_to(b, 1, 1)
    b.rng = Dice(die)
    step(b, fed=dict(fire={mount: "d"}))
    (shot,) = of(b, "Fired")
    assert (shot.range, shot.die, shot.damage, shot.shield) == (rng, die, damage, 0)  # no shields
    assert b.state.damage[row(b, "d")] == damage


# ------------------------------------------------------------------ arcs (D2)


def test_d2_1_arcs_of_the_0915_example():
    # (D2.1) 0915 facing C: LF contains 1114, 1315, 1612, 2017, 2817; 0701, 2604, 0301 are
    # outside it. LS = LF+L+LR, RS = RF+R+RR, FA = LF+RF (D2.2); the forward row is in all three.
    hexes = ["1114", "1315", "1612", "2017", "2817", "0701", "2604", "0301", "1417"]
    b = battle([unit("fed", FED, "blue", "0915", "C", 0)]
               + [drone_target(f"d{h}", h) for h in hexes], map_="A-D")
    run_to(b, 1, 1)
    targets = [row(b, f"d{h}") for h in hexes]
    for mount, arc in (("PH1-1", "FA"), ("PH1-2", "LS"), ("PH1-3", "RS")):
        w = weapon(b, "fed", mount)
        got = b.fire_blockers(w, targets)
        for h, why in zip(hexes, got, strict=True):
            inside = hexmap.in_arc("0915", "C", h, arc)
            assert (why is None) == inside, (mount, h, why)
            if not inside:
                assert why == "D2.1 the target is outside the weapon's firing arc"
    # the five LF examples are in LS; the forward row (1417) is in FA, LS and RS (centerline)
    ls = b.fire_blockers(weapon(b, "fed", "PH1-2"), targets)
    assert ls[:5] == [None] * 5
    assert all(b.fire_blockers(weapon(b, "fed", m), [row(b, "d1417")]) == [None]
               for m in ("PH1-1", "PH1-2", "PH1-3"))


def test_d2_1_out_of_arc_fire_order_is_refused():
    b = battle([unit("fed", FED, "blue", "0505", "A", 0), drone_target("d", "0508")])
    run_to(b, 1, 1)
    with pytest.raises(IllegalOrderError, match=r"fire\[fed\.PH1-1\].*D2\.1") as err:
        step(b, fed=dict(fire={"PH1-1": "d"}))  # directly astern of a FA phaser
    assert err.value.rule.startswith("D2.1") and err.value.unit == "fed"
    step(b, fed=dict(fire={"PH1-2": "d"}))  # LS reaches the astern row
    assert len(of(b, "Fired")) == 1


# ------------------------------------------------------------------ rates (E1.5)


def test_e1_5_each_weapon_fires_once_per_turn():
    b = battle([unit("fed", FED, "blue", "0505", "A", 0), drone_target("d", "0501")])
    b.rng = Dice(6, 6)
    run_to(b, 1, 2)
    step(b, fed=dict(fire={"PH1-1": "d"}))
    run_to(b, 1, 6)
    w = weapon(b, "fed", "PH1-1")
    assert b.fire_blockers(w, [row(b, "d")]) == ["E1.5 the weapon has already fired this turn"]
    with pytest.raises(IllegalOrderError, match="E1.5"):
        step(b, fed=dict(fire={"PH1-1": "d"}))
    run_to(b, 2, 6)
    step(b, fed=dict(fire={"PH1-1": "d"}))  # a new turn
    assert [(e.turn, e.impulse) for e in of(b, "Fired")] == [(1, 2), (2, 6)]


def test_e1_5_quarter_turn_fired_on_impulse_8_not_again_until_impulse_2():
    # (E1.5) example: fired on the last impulse of a turn, not again before impulse 2 of the next
    b = battle([unit("fed", FED, "blue", "0505", "A", 0), drone_target("d", "0501")])
    b.rng = Dice(6, 6)
    run_to(b, 1, 8)
    step(b, fed=dict(fire={"PH1-1": "d"}))
    assert (b.state.turn, b.state.impulse) == (2, 1)
    w = weapon(b, "fed", "PH1-1")
    (why,) = b.fire_blockers(w, [row(b, "d")])
    assert why is not None and why.startswith("E1.5 fired within a quarter turn (2 impulses)")
    with pytest.raises(IllegalOrderError, match="quarter turn"):
        step(b, fed=dict(fire={"PH1-1": "d"}))
    step(b, fed={})
    assert b.fire_blockers(w, [row(b, "d")]) == [None]
    step(b, fed=dict(fire={"PH1-1": "d"}))
    assert [(e.turn, e.impulse) for e in of(b, "Fired")] == [(1, 8), (2, 2)]


# ------------------------------------------------------------------ simultaneity (E1)


def test_e1_0_simultaneous_fire_two_ships_destroy_each_other():
    b = battle([unit("fed", FED, "blue", "0505", "A", 0), unit("k", KLI, "red", "0504", "D", 0)])
    run_to(b, 1, 1)
    strip(b, "fed", keep=("PH1-1",))
    strip(b, "k", keep=("PH2-1",))
    b.state.shields[row(b, "fed"), 0] = 0
    b.state.shields[row(b, "k"), 0] = 0
    b.rng = Dice(1, 1)
    step(b, fed=dict(fire={"PH1-1": "k"}), k=dict(fire={"PH2-1": "fed"}))
    assert {e.unit for e in of(b, "Fired")} == {"fed", "k"}
    assert all(e.damage > 0 for e in of(b, "Fired"))
    assert {e.unit for e in of(b, "Destroyed")} == {"fed", "k"}
    assert b.state.status[row(b, "fed")] == b.state.status[row(b, "k")] == Status.DESTROYED
    kinds = [e.kind for e in b.events if e.kind in ("Fired", "Damaged")]
    assert kinds == ["Fired", "Fired", "Damaged", "Damaged"]  # all scored, then all applied


def test_e1_3_fire_through_or_into_a_crowded_hex_harms_only_the_target():
    b = battle([
        unit("fed", FED, "blue", "0505", "A", 0),
        drone_target("between", "0504"),
        drone_target("target", "0502"),
        drone_target("beside", "0502"),
    ])
    run_to(b, 1, 1)
    b.rng = Dice(1)
    step(b, fed=dict(fire={"PH1-1": "target"}))
    st = b.state
    assert st.damage[row(b, "target")] == 6  # Ph-1 range 3, die 1
    assert st.damage[row(b, "between")] == 0 and st.damage[row(b, "beside")] == 0
    assert [e.unit for e in of(b, "Damaged")] == ["target"]


# ------------------------------------------------------------------ disruptors (E3)


@pytest.mark.parametrize(("target_hex", "die", "rng", "damage"), [
    ("0519", 5, 1, 5),  # disruptor chart (CTH-DATA §4.2): range 1: hit 1-5, 5 damage
    ("0519", 6, 1, 0),
    ("0518", 5, 2, 4),  # range 2: hit 1-5, 4 damage
    ("0516", 4, 4, 4),  # range 3-4: hit 1-4, 4 damage
    ("0516", 5, 4, 0),
    ("0510", 4, 10, 3),  # range 5-15: hit 1-4, 3 damage
    ("0504", 3, 16, 2),  # range 16-22: hit 1-3, 2 damage
    ("0504", 4, 16, 0),
])
def test_e3_disruptor_hit_number_and_damage_by_range(target_hex, die, rng, damage):
    b = battle([unit("k", KLI, "red", "0520", "A", 0),
                unit("fed", FED, "blue", target_hex, "A", 0)], map_="A-D")
    run_to(b, 1, 1)
    b.rng = Dice(die)
    step(b, k=dict(fire={"DISR-A": "fed"}))
    (shot,) = of(b, "Fired")
    # (E3.31) hit number at effective range, damage at true range: equal in scenarios 1-3
    assert (shot.weapon_type, shot.range, shot.effective_range) == ("disruptor", rng, rng)
    assert (shot.die, shot.hit, shot.damage) == (die, damage > 0, damage)
    assert b.state.damage[row(b, "fed")] == damage


def test_e3_disruptor_fires_only_in_its_fa_arc():
    b = battle([unit("k", KLI, "red", "0520", "A", 0),
                unit("fed", FED, "blue", "0525", "A", 0)], map_="A-D")
    run_to(b, 1, 1)
    assert b.fire_blockers(weapon(b, "k", "DISR-A"), [row(b, "fed")]) == [
        "D2.1 the target is outside the weapon's firing arc"]


def test_e3_32_disruptor_cannot_fire_at_range_0_or_beyond_30():
    b = battle([
        unit("k", KLI, "red", "0532", "A", 0),
        unit("near", FED, "blue", "0532", "A", 0),
        unit("r30", FED, "blue", "0502", "A", 0),
        unit("r31", FED, "blue", "0501", "A", 0),
    ], map_="A-D")
    run_to(b, 1, 1)
    w = weapon(b, "k", "DISR-A")
    got = b.fire_blockers(w, [row(b, "near"), row(b, "r30"), row(b, "r31")])
    assert got == [
        "E3.32 range 0 is below the minimum range 1",
        None,
        "E3.32 range 31 is beyond the maximum range 30",
    ]
    with pytest.raises(IllegalOrderError, match="E3.32 range 0"):
        step(b, k=dict(fire={"DISR-A": "near"}))
    b.rng = Dice(1)
    step(b, k=dict(fire={"DISR-A": "r30"}))  # range 23-30: hit 1-2, 2 damage
    assert [(e.range, e.damage) for e in of(b, "Fired")] == [(30, 2)]


# ------------------------------------------------------------------ photons (E4)


def test_e4_photon_chief_engineer_not_turn_1_then_every_other_turn():
    b = battle([unit("fed", FED, "blue", "0505", "A", 0), unit("k", KLI, "red", "0502", "D", 0)])
    run_to(b, 1, 1)
    w = weapon(b, "fed", "PHOT-A")
    (why,) = b.fire_blockers(w, [row(b, "k")])
    assert why == "E4.2 (Chief Engineer) the photon is not armed before turn 2"
    run_to(b, 2, 1)
    b.rng = Dice(4)
    step(b, fed=dict(fire={"PHOT-A": "k"}))  # range 3: hit 1-4, 8 damage
    (shot,) = of(b, "Fired")
    assert (shot.turn, shot.range, shot.die, shot.damage) == (2, 3, 4, 8)
    run_to(b, 3, 4)
    (why,) = b.fire_blockers(w, [row(b, "k")])
    assert why == "E4.2 (Chief Engineer) the photon is not armed before turn 4"
    assert b.fire_blockers(weapon(b, "fed", "PHOT-B"), [row(b, "k")]) == [None]
    run_to(b, 4, 1)
    assert b.fire_blockers(w, [row(b, "k")]) == [None]


def test_e4_photon_minimum_range_2_and_hit_numbers():
    b = battle([
        unit("fed", FED, "blue", "0505", "A", 0),
        unit("adj", KLI, "red", "0504", "D", 0),
        unit("r2", KLI, "red", "0503", "D", 0),
    ])
    run_to(b, 2, 1)
    w = weapon(b, "fed", "PHOT-A")
    assert b.fire_blockers(w, [row(b, "adj")]) == ["E4.0 range 1 is below the minimum range 2"]
    b.rng = Dice(5, 6)
    step(b, fed=dict(fire={"PHOT-A": "r2", "PHOT-B": "r2"}))  # range 2: hit 1-5
    assert [(e.die, e.damage) for e in of(b, "Fired")] == [(5, 8), (6, 0)]


# ------------------------------------------------------------------ shields (D3.4, D3.41, D3.42)


def test_d3_4_shield_example_0202_fired_on_from_0305_hits_4():
    b = battle([unit("fed", FED, "blue", "0202", "A", 0), unit("k", KLI, "red", "0305", "F", 0)])
    run_to(b, 1, 1)
    b.rng = Dice(1)
    step(b, k=dict(fire={"PH2-1": "fed"}))
    (shot,) = of(b, "Fired")
    assert (shot.range, shot.shield, shot.damage) == (3, 4, 4)  # Ph-2 range 3 die 1 = 4
    (dmg,) = of(b, "Damaged")
    assert (dmg.unit, dmg.shield, dmg.to_shield, dmg.internal) == ("fed", 4, 4, 0)
    assert of(b, "ShieldBoundary") == []


def _boundary_battle(target_speed: int, firer_speed: int, method: str = "advanced",
                     weaken: int | None = None):
    """Target 0202 facing A, firer 0304 facing A: the #3/#4 boundary (D3.41 example)."""
    b = battle([unit("fed", FED, "blue", "0202", "A", target_speed),
                unit("k", KLI, "red", "0304", "A", firer_speed)],
               rules={"shield_boundary": method})
    assert hexmap.shields_hit("0202", "A", "0304") == (3, 4)
    step(b, fed="-", k="-")  # speeds 0, 3, 4, 5 do not move on impulse 1
    assert (hex_of(b, "fed"), hex_of(b, "k")) == ("0202", "0304")
    if weaken:
        b.state.shields[row(b, "fed"), weaken - 1] = 4
    return b


def _boundary_shot(b, die: int | None = None):
    b.rng = Dice(1) if die is None else Dice(1, die)
    step(b, fed=moves_straight(b, "fed"),
         k=dict(maneuver=moves_straight(b, "k"), fire={"PH2-1": "fed"}))
    (shot,) = of(b, "Fired")
    (boundary,) = of(b, "ShieldBoundary")
    assert boundary.shields == (3, 4) and boundary.chosen == shot.shield
    return shot.shield, boundary.method


def test_d3_41_boundary_target_moves_next():
    # target speed 4 moves on impulse 2, firer speed 3 on impulse 3: move the target to 0201
    b = _boundary_battle(4, 3)
    assert hexmap.shields_hit("0201", "A", "0304") == (4,)
    assert _boundary_shot(b) == (4, "D3.41 temporary movement")


def test_d3_41_boundary_firer_moves_next():
    b = _boundary_battle(3, 4)  # the firer moves to 0303
    assert hexmap.shields_hit("0202", "A", "0303") == (3,)
    assert _boundary_shot(b) == (3, "D3.41 temporary movement")


def test_d3_41_boundary_both_move_next_slowest_first():
    # both move on impulse 2; the slower (the target, speed 4) moves first and settles it
    b = _boundary_battle(4, 5)
    assert _boundary_shot(b) == (4, "D3.41 temporary movement")
    b = _boundary_battle(5, 4)  # the slower firer moves first
    assert _boundary_shot(b) == (3, "D3.41 temporary movement")


def test_d3_41_boundary_equal_speeds_move_together_then_owners_choice():
    # both at speed 4: 0201 vs 0303 is still on the boundary -> the stronger shield
    assert hexmap.shields_hit("0201", "A", "0303") == (3, 4)
    for weaker, expected in ((3, 4), (4, 3)):
        b = _boundary_battle(4, 4, weaken=weaker)
        assert _boundary_shot(b) == (expected, "D3.41 owner's choice (stronger shield)")
    b = _boundary_battle(0, 0, weaken=4)  # nobody ever moves: the owner's choice at once
    assert _boundary_shot(b) == (3, "D3.41 owner's choice (stronger shield)")


@pytest.mark.parametrize(("die", "shield"), [(1, 3), (3, 3), (2, 4), (6, 4)])
def test_d3_41_die_option_odd_even(die, shield):
    b = _boundary_battle(4, 3, method="die")
    assert _boundary_shot(b, die) == (shield, f"D3.41 die roll {die}")


def test_d3_41_old_name_owner_is_not_a_boundary_rule():
    from sfb_env.engine import ScenarioError

    with pytest.raises(ScenarioError, match=r"rules\.shield_boundary.*'advanced', 'die'"):
        battle([unit("fed", FED, "blue", "0202", "A", 0)], rules={"shield_boundary": "owner"})


def test_d3_42_range_0_uses_previous_positions_for_arcs_and_shields():
    # the Federation ship (0806 facing D) and the Klingon (1007 facing E) both enter 0808 on
    # impulse 2; arcs and shields are judged from 0807 and 0908, their previous hexes
    b = battle([unit("fed", FED, "blue", "0806", "D", 8), unit("k", KLI, "red", "1007", "E", 8)])
    step(b, fed="S", k="S")
    assert (hex_of(b, "fed"), hex_of(b, "k")) == ("0807", "0908")
    step(b, fed="S", k="S")
    assert hex_of(b, "k") == hex_of(b, "fed") == "0808"
    assert hexmap.shields_hit("0807", "D", "0908") == (6,)  # from the previous hexes
    assert hexmap.shields_hit("0908", "E", "0807") == (2,)
    assert hexmap.shields_hit("0808", "D", "0908") == (5,)  # not from the shared hex
    assert hexmap.shields_hit("0808", "E", "0807") == (3,)
    # arcs from the previous hexes: k was in fed's L/LF, fed in k's RF/R
    assert b.fire_blockers(weapon(b, "fed", "PH1-3"), [row(b, "k")]) == [
        "D2.1 the target is outside the weapon's firing arc"]
    assert b.fire_blockers(weapon(b, "k", "PH2-3"), [row(b, "fed")]) == [
        "D2.1 the target is outside the weapon's firing arc"]
    b.rng = Dice(1, 1)
    step(b, fed=dict(maneuver="S", fire={"PH1-1": "k"}),
         k=dict(maneuver="S", fire={"PH2-4": "fed"}))
    shots = {e.unit: e for e in of(b, "Fired")}
    assert (shots["fed"].range, shots["fed"].shield, shots["fed"].damage) == (0, 2, 9)
    assert (shots["k"].range, shots["k"].shield, shots["k"].damage) == (0, 6, 6)
    assert of(b, "ShieldBoundary") == []


def test_d3_42_units_that_shared_the_hex_before_too_use_the_strongest_shield():
    b = battle([unit("fed", FED, "blue", "0505", "A", 0), unit("k", KLI, "red", "0505", "A", 0)])
    run_to(b, 1, 1)
    b.state.shields[row(b, "fed")] = [3, 4, 5, 11, 5, 4]
    b.rng = Dice(1)
    step(b, k=dict(fire={"PH2-1": "fed"}))
    assert of(b, "Fired")[0].shield == 4


# ------------------------------------------------------------------ damage (D3.2, D4.0)


def test_d3_2_damage_past_the_shield_is_internal():
    b = battle([unit("fed", FED, "blue", "0505", "A", 0), unit("k", KLI, "red", "0504", "D", 0)])
    run_to(b, 1, 1)
    b.state.shields[row(b, "k"), 0] = 2
    b.rng = Dice(1)
    step(b, fed=dict(fire={"PH1-1": "k"}))  # 8 points on a 2-box shield
    (dmg,) = of(b, "Damaged")
    assert (dmg.shield, dmg.to_shield, dmg.internal) == (1, 2, 6)
    assert b.state.internal[row(b, "k")] == 6 and b.state.shields[row(b, "k"), 0] == 0
    assert len(dmg.boxes) == 6


def test_d4_0_first_internal_point_of_a_volley_destroys_a_weapon():
    b = battle([unit("fed", FED, "blue", "0505", "A", 0)])
    u = row(b, "fed")
    b.apply_damage(u, 1, 17)  # shield #1 (16) + 1 internal
    (dmg,) = of(b, "Damaged")
    assert (dmg.to_shield, dmg.internal) == (16, 1)
    (box,) = dmg.boxes
    assert box.startswith("fed.") and b.state.w_destroyed[b.weapon_ids.index(box)]
    b.apply_damage(u, 1, 3)  # a new volley on the down shield: again a weapon first
    second = of(b, "Damaged")[1]
    assert second.internal == 3 and second.boxes[0].startswith("fed.")
    assert sum(b.state.w_destroyed[b.weapons_of(u)]) == 2


def test_d4_0_ship_destroyed_when_every_destructible_box_is_gone_bridge_indestructible():
    # Federation Cadet Cruiser (CTH-DATA §9.1): warp 16, impulse 2, APR 2, batteries 2, hull 6,
    # transporter 1, lab 1, shuttles 2, excess damage 3, five weapons = 40 destructible boxes;
    # the bridge cannot be destroyed in the Cadet Game.
    b = battle([unit("fed", FED, "blue", "0505", "A", 0)])
    u = row(b, "fed")
    b.apply_damage(u, 1, 16 + 39)
    assert b.state.status[u] == Status.ACTIVE and b.state.internal[u] == 39
    b.apply_damage(u, 1, 1)
    assert b.state.status[u] == Status.DESTROYED
    assert [e.unit for e in of(b, "Destroyed")] == ["fed"]
    boxes = [x for e in of(b, "Damaged") for x in e.boxes]
    assert len(boxes) == 40 and not any("bridge" in x or "security" in x for x in boxes)
    assert boxes.count("excess") == 3 and boxes.count("hull") == 6


def test_d4_0_three_drones_on_one_shield_are_one_volley():
    # CTH-DATA §10.1 anchor: 3 drones (18) on a 16 shield -> 2 internal (a weapon + one more);
    # a later drone on the down shield -> 6 internal
    b = battle([
        unit("fed", FED, "blue", "0708", "A", 0),
        *[unit(f"d{i}", "drone", "red", "0706", "D", 8, controller="robot-drone", target="fed")
          for i in range(3)],
        unit("late", "drone", "red", "0705", "D", 8, controller="robot-drone", target="fed"),
    ], rules={"damage": "interim"})
    step(b)
    step(b)
    hits = of(b, "SeekingHit", impulse=2)
    assert len(hits) == 3 and {h.shield for h in hits} == {1} and {h.warhead for h in hits} == {6}
    (volley,) = of(b, "Damaged", impulse=2)
    assert (volley.shield, volley.to_shield, volley.internal) == (1, 16, 2)
    assert volley.boxes[0].startswith("fed.") and len(volley.boxes) == 2
    step(b)
    (late,) = of(b, "Damaged", impulse=3)
    assert (late.shield, late.to_shield, late.internal) == (1, 0, 6)
    assert late.boxes[0].startswith("fed.")


# ------------------------------------------------------------------ explosions (house rule)


def _explosion_battle(explosions: bool):
    b = battle([
        unit("fed", FED, "blue", "0505", "A", 0),
        unit("k", KLI, "red", "0504", "D", 0),
        drone_target("same", "0505", side="red"),
        drone_target("adjacent", "0506", side="red"),
        drone_target("far", "0507", side="red"),
    ], rules={"explosions": explosions})
    run_to(b, 1, 1)
    strip(b, "fed")
    b.state.shields[row(b, "fed"), 0] = 0
    b.rng = Dice(1)
    step(b, k=dict(fire={"PH2-1": "fed"}))
    return b


def test_house_rule_ship_explosion_strength_2x_damage_control_radius_1():
    b = _explosion_battle(True)
    (boom,) = of(b, "Exploded")
    assert (boom.unit, boom.hex, boom.strength, boom.radius) == ("fed", "0505", 8, 1)  # 2 x 4
    st = b.state
    assert st.status[row(b, "same")] == st.status[row(b, "adjacent")] == Status.DESTROYED
    assert st.status[row(b, "far")] == Status.ACTIVE and st.damage[row(b, "far")] == 0
    (on_k,) = of(b, "Damaged", unit="k")
    assert (on_k.shield, on_k.to_shield, on_k.internal) == (1, 8, 0)  # the shield facing 0505


def test_house_rule_explosions_off_by_default():
    b = _explosion_battle(False)
    assert of(b, "Exploded") == []
    assert b.state.damage[row(b, "k")] == 0 and b.state.damage[row(b, "adjacent")] == 0
    assert make_battle("cth-03").scenario.rules.explosions is False
