"""Transporters (G8.0) and shield drops (G8.24) in ``engine/transporters.py`` (CTH-DATA §8.4,
§7.3, §7.4, §1.6; SCENARIOS #8, #9)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from engine_helpers import Dice, battle, of, row, run_to, scenario, unit
from observation_helpers import flat, read

from sfb_env.engine import IllegalOrderError, Orders, energy, make_battle
from sfb_env.engine import transporters as tr
from sfb_env.engine.types import TransportOrder

BEAM, LIFT = int(TransportOrder.BEAM_PARTY), int(TransportOrder.LIFT_CREW)
BLUE, RED = 0, 1


def duel(fed_hex="1010", fed_facing="A", d7_hex="1007", d7_facing="D", **rules):
    """Federation CA (blue agent) and Klingon D7 (red, idle), transporters and boarding on;
    at the first impulse's decision point (transporters work from impulse 1)."""
    b = battle([unit("fed", "fed-ca", "blue", fed_hex, fed_facing),
                unit("d7", "klingon-d7", "red", d7_hex, d7_facing, controller="idle")],
               rules={"transporters": True, "boarding": True, **rules})
    run_to(b, 1, 1)
    return b, row(b, "fed"), row(b, "d7")


def beam(b, u, t, target, what=BEAM):
    b.step({u: Orders(transport={t: (what, target)})})


def open_line(b, fed, d7):
    """Fed drops shield #1 (facing the D7); the D7's #1 (facing the Fed) is shot away."""
    b.step({fed: Orders(drop_shield=1)})
    b.state.shields[d7, 0] = 0


def test_g8_0_no_transport_through_an_active_shield():
    b, fed, d7 = duel()
    rule = tr.transport_blockers(b, fed, 0, BEAM, d7)
    assert rule == "G8.0 no transport through an active shield: shield #1 of fed is up"
    with pytest.raises(IllegalOrderError, match="active shield"):
        b.validate({fed: Orders(transport={0: (BEAM, d7)})})


def test_g8_0_the_far_end_shield_facing_the_ship_must_be_down_too():
    b, fed, d7 = duel()
    b.step({fed: Orders(drop_shield=1)})
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) == (
        "G8.0 no transport through an active shield: shield #1 of d7 is up")
    b.state.shields[d7, 0] = 0
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) is None


def test_g8_0_one_action_beams_one_boarding_party():
    b, fed, d7 = duel()
    open_line(b, fed, d7)
    beam(b, fed, 0, d7)
    assert b.state.boarding_parties[fed].tolist() == [9, 0]
    assert b.state.boarding_parties[d7].tolist() == [1, 14]
    (done,) = of(b, "Transported", result="done")
    assert (done.unit, done.transporter, done.what, done.src, done.dst) == (
        "fed", 0, "boarding party", "fed", "d7")


def test_g8_24_dropped_shield_is_down_for_a_quarter_turn_then_rises():
    b, fed, _ = duel()
    assert b.quarter_turn == 2
    b.step({fed: Orders(drop_shield=1)})  # dropped in impulse 1's step
    st = b.state
    assert st.shields[fed, 0] == 0 and st.shield_held[fed, 0] == 30
    assert st.shield_drop_until[fed, 0] == 1 + 2
    b.step({fed: Orders()})  # impulse 2: still down
    assert st.shields[fed, 0] == 0
    b.step({fed: Orders()})  # impulse 3's step: a quarter turn is over, it comes back up
    assert st.shields[fed, 0] == 30 and st.shield_drop_until[fed, 0] == 0
    assert [e.raised_at for e in of(b, "ShieldDropped")] == [3, 0]


def test_g8_24_a_drop_may_extend_into_the_next_turn():
    b, fed, _ = duel()
    run_to(b, 1, 8)
    b.step({fed: Orders(drop_shield=2)})  # impulse 8 (absolute 8): down until absolute 10
    assert (b.state.turn, b.state.impulse) == (2, 1)
    b.step({fed: Orders()})  # turn 2 impulse 1 = absolute 9: still down
    assert b.state.shields[fed, 1] == 0
    b.step({fed: Orders()})  # turn 2 impulse 2 = absolute 10: up again
    assert b.state.shields[fed, 1] == 24


def test_g8_24_a_dropped_shield_lets_damage_through():
    b, fed, _ = duel()
    b.step({fed: Orders(drop_shield=1)})
    b.apply_damage(fed, 1, 5)
    assert b.state.internal[fed] == 5 and b.state.shield_held[fed, 0] == 30


def test_g8_24_drop_blockers():
    b, fed, d7 = duel()
    b.state.shields[fed, 3] = 0
    assert tr.drop_blockers(b, fed) == {4: "G8.24 shield #4 is already down"}
    with pytest.raises(IllegalOrderError, match="already down"):
        b.validate({fed: Orders(drop_shield=4)})
    with pytest.raises(IllegalOrderError, match="shields are #1..#6"):
        b.validate({fed: Orders(drop_shield=7)})


def test_g8_24_owner_may_drop_either_shield_on_an_exact_boundary():
    # Fed in 0202 facing A, the D7 in 0304: the line runs on Fed's #3/#4 boundary (§1.6)
    b, fed, d7 = duel("0202", "A", "0304", "A")
    b.state.shields[d7] = 0  # the far end is open
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) == (
        "G8.0 no transport through an active shield: shield #3/#4 of fed is up")
    b.state.shields[fed, 2] = 0
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) is None
    b.state.shields[fed, 2], b.state.shields[fed, 3] = 20, 0
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) is None


@pytest.mark.parametrize("die, done", [(1, True), (2, False)])
def test_d3_41_enemy_beaming_in_on_a_boundary_resolves_by_the_die(die, done):
    # The D7 in 0202 facing A, the Fed in 0304: the D7's #3/#4 boundary faces the Fed
    b, fed, d7 = duel("0304", "A", "0202", "A", shield_boundary="die")
    b.state.shields[fed] = 0
    b.state.shields[d7, 2] = 0  # #3 down, #4 up: the mask is open
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) is None
    b.rng = Dice(die)  # (D3.41 basic) odd = #3 (down), even = #4 (up)
    beam(b, fed, 0, d7)
    assert bool(b.state.boarding_parties[d7, BLUE] == 1) is done
    (event,) = of(b, "Transported")
    assert (event.result == "done") is done
    assert of(b, "ShieldBoundary", target="d7")[-1].chosen == (3 if done else 4)
    assert int(b.state.tran_used_turn[fed, 0]) == 1  # used either way


def test_g8_0_range_5():
    b, fed, d7 = duel(d7_hex="1004")  # 6 hexes
    b.state.shields[:] = 0
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) == (
        "G8.0 the target is beyond transporter range 5")
    b2, fed2, d72 = duel(d7_hex="1005")  # 5 hexes
    b2.state.shields[:] = 0
    assert tr.transport_blockers(b2, fed2, 0, BEAM, d72) is None


def test_g8_0_each_transporter_once_per_turn():
    b, fed, d7 = duel()
    b.state.shields[:] = 0
    beam(b, fed, 0, d7)
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) == (
        "G8.0 transporter 0 has already operated this turn")
    assert tr.transport_blockers(b, fed, 1, BEAM, d7) is None
    beam(b, fed, 1, d7)
    beam(b, fed, 2, d7)
    assert b.state.boarding_parties[d7, BLUE] == 3
    assert tr.transport_blockers(b, fed, 3, BEAM, d7).startswith(
        "G8.0 the ship has no transporter 3")
    run_to(b, 2, 1)
    b.state.shields[:] = 0
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) is None


def test_g8_0_destroyed_transporter_cannot_operate():
    b, fed, d7 = duel()
    b.state.shields[:] = 0
    b.state.boxes[fed, tr.Box.TRANSPORTER] = 2
    assert tr.transport_blockers(b, fed, 2, BEAM, d7) == "D4.0 transporter 2 is destroyed"


def test_g8_0_general_reinforcement_on_the_receiver_fails_the_attempt_transporter_used():
    b, fed, d7 = duel()
    b.state.shields[:] = 0
    b.state.reinf_general[d7] = 1
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) is None  # not masked: the attempt fails
    beam(b, fed, 0, d7)
    assert b.state.boarding_parties[d7, BLUE] == 0
    (event,) = of(b, "Transported")
    assert event.result == "D3.34 general reinforcement on d7 blocks the transporter"
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) == (
        "G8.0 transporter 0 has already operated this turn")


def test_g8_0_no_beaming_enemy_personnel_without_consent():
    b, fed, d7 = duel()
    b.state.shields[:] = 0
    b.state.crew_units[d7] = 1
    assert tr.transport_blockers(b, fed, 0, LIFT, d7) == (
        "G8.0 no beaming of enemy personnel without consent")


def test_g8_0_lift_a_crew_unit_from_a_friendly_ship():
    b = battle([unit("fed", "fed-ca", "blue", "1010", "A"),
                unit("fr", "freighter-large", "blue", "1008", "A", controller="idle")],
               rules={"transporters": True})
    run_to(b, 1, 1)
    fed, fr = row(b, "fed"), row(b, "fr")
    b.state.crew_units[fr] = 2
    b.state.shields[fed, 0] = 0
    assert tr.transport_blockers(b, fed, 0, LIFT, fr).startswith("G8.0 the shields of fr")
    b.state.shields[fr] = 0
    beam(b, fed, 0, fr, LIFT)
    assert (b.state.crew_units[fr], b.state.crew_units[fed]) == (1, 1)


def test_g8_0_scenario_9_lift_survivors_from_the_planet():
    doc = scenario([unit("fed", "fed-ca", "blue", "1010", "A"),
                    {"id": "rigel", "kind": "planet", "hex": "1007", "crew_units": 1}],
                   rules={"transporters": True})
    b = make_battle(doc, seed=0)
    run_to(b, 1, 1)
    fed, planet = row(b, "fed"), row(b, "rigel")
    assert tr.transport_blockers(b, fed, 0, LIFT, planet).endswith("shield #1 of fed is up")
    assert tr.transport_blockers(b, fed, 0, BEAM, planet).startswith("D7.0 boarding parties go")
    b.step({fed: Orders(drop_shield=1)})  # the shield facing the planet down (SCENARIOS #9)
    beam(b, fed, 0, planet, LIFT)
    assert (b.state.crew_units[planet], b.state.crew_units[fed]) == (0, 1)
    assert tr.transport_blockers(b, fed, 1, LIFT, planet) == "G8.0 no crew unit to lift there"


def test_g8_0_no_party_left_to_beam():
    b, fed, d7 = duel()
    b.state.shields[:] = 0
    b.state.boarding_parties[fed, BLUE] = 0
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) == (
        "D7.0 no boarding party of the ship's side left aboard")


def test_g8_0_transporters_need_the_rule():
    b, fed, d7 = duel(transporters=False)
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) == tr.NOT_IN_USE
    assert not tr.has_transporters(b, fed)
    with pytest.raises(IllegalOrderError, match="rules.transporters"):
        b.validate({fed: Orders(drop_shield=1)})


def test_g8_0_not_before_the_first_impulse():
    b = battle([unit("fed", "fed-ca", "blue", "1010", "A")], rules={"transporters": True})
    assert tr.transporter_blocker(b, 0, 0) == (
        "B2.0 transporters operate in the Shields/Transporters step of an impulse")


def test_g8_0_one_energy_powers_up_to_five_transporters():
    assert [tr.energy_cost(n) for n in range(0, 12)] == [0] + [1] * 5 + [2] * 5 + [3]
    assert tr.energy_fraction(2) == Fraction(2, 5)  # (B3.2) 1/5 each, fractions add up


def std_duel(**rules):
    doc = scenario([unit("fed", "fed-ca", "blue", "1010", "A"),
                    unit("d7", "klingon-d7", "red", "1007", "D", controller="idle")],
                   rules={"energy": "standard", "damage": "standard_dac", "transporters": True,
                          "boarding": True, **rules})
    doc["impulses_per_turn"] = 32
    b = make_battle(doc, seed=0)
    return b, row(b, "fed"), row(b, "d7")


def bare(b, u, **fields) -> Orders:
    base = dict(speed=0, capacitor=0, recharge=0,
                arm={int(w): 0 for w in energy.heavy_rows(b, u)})
    base.update(fields)
    return Orders(**base)


def test_g8_0_standard_form_pays_the_transporter_line():
    b, fed, d7 = std_duel()
    assert tr.energy_blockers(b, fed) == {}
    b.step({fed: bare(b, fed, transporters=2)})
    used = [e for e in b.events if e.kind == "EnergyAllocated"][-1].used
    assert used == 4 + 1  # life support 1, fire control 1, shields 2; transporters (G8.0) 1
    assert b.state.tran_powered[fed] == 2
    b.state.shields[:] = 0
    beam(b, fed, 0, d7)
    beam(b, fed, 1, d7)
    assert tr.transport_blockers(b, fed, 2, BEAM, d7).startswith(
        "G8.0 no powered transporter use left this turn (2 paid")
    with pytest.raises(IllegalOrderError, match="Energy Allocation"):
        b.validate({fed: Orders(transporters=1)})


def test_g8_0_transporter_line_only_on_the_standard_form():
    b, fed, _ = duel()
    with pytest.raises(IllegalOrderError, match="standard form"):
        b.validate({fed: Orders(transporters=1)})


def test_g8_0_d7_0_observation_boarding_block():
    """The ``boarding`` rule-features sub-block (env.rule_features): own transporter uses left,
    shields dropped, then parties, control stations, crew units and capture per row."""
    import sfb_env
    from sfb_env.env import observation as layout

    doc = scenario([unit("fed", "fed-ca", "blue", "1010", "A"),
                    unit("d7", "klingon-d7", "red", "1007", "D")],
                   rules={"transporters": True, "boarding": True})
    env = sfb_env.parallel_env(doc)
    k = env._layouts["fed"].slots
    assert env.rule_features("fed") == {"boarding": 7 + 5 * (1 + k)}
    obs, _ = env.reset(seed=0)
    assert obs["fed"]["observation"].shape == env.observation_space("fed")["observation"].shape
    lay = env._layouts["fed"]
    vec = layout.encode(env.battle, lay, lay.target_slots(env.battle), env.threat_slots,
                        env.max_turns)
    own = read(env, "fed", vec, "boarding", "own")
    assert own["uses_left"][0] == pytest.approx(3 / 5)  # three working transporters (no form)
    assert own["shields_dropped"].tolist() == [0] * 6
    own_ship = flat(read(env, "fed", vec, "boarding", "ships", 0))
    assert own_ship == pytest.approx([10 / 20, 0, 6 / 8, 0, 0])  # own ship
    d7 = flat(read(env, "fed", vec, "boarding", "ships", 1))
    assert d7 == pytest.approx([0, 14 / 20, 5 / 8, 0, 0])  # the D7 in slot 1


def test_g8_24_d9_2_a_dropped_shield_is_not_damage_to_repair():
    b, fed, _ = duel()
    b.step({fed: Orders(drop_shield=1)})
    b.state.shield_held[fed, 0] -= 4  # it had lost 4 boxes before the drop
    assert energy.destroyed_before(b, fed)[0] == 4


def test_g8_0_malformed_transport_orders_are_refused_with_the_field():
    b, fed, d7 = duel()
    with pytest.raises(IllegalOrderError, match="transport.*numbered"):
        b.validate({fed: Orders(transport={"a": (BEAM, d7)})})
    with pytest.raises(IllegalOrderError, match=r"\(TransportOrder, target row\)"):
        b.validate({fed: Orders(transport={0: BEAM})})
    with pytest.raises(IllegalOrderError, match="transport orders are"):
        b.validate({fed: Orders(transport={0: (7, d7)})})


def test_h7_2_reserve_power_operates_transporters():
    b, fed, d7 = std_duel(reserve_power=True)
    b.step({fed: bare(b, fed)})  # no transporter energy at Energy Allocation
    b.state.shields[:] = 0
    charged = int(b.state.batteries[fed])
    assert tr.transport_blockers(b, fed, 0, BEAM, d7) is None  # a charged battery (H7.2)
    beam(b, fed, 0, d7)
    assert b.state.batteries[fed] == charged - 1 and b.state.tran_powered[fed] == 5
    assert of(b, "ReserveDischarged", use="transporters")
    beam(b, fed, 1, d7)  # the same battery's energy: no second discharge
    assert b.state.batteries[fed] == charged - 1
    assert b.state.boarding_parties[d7, BLUE] == 2
    b2, fed2, d72 = std_duel()  # without the rule: no powered use
    b2.step({fed2: bare(b2, fed2)})
    b2.state.shields[:] = 0
    assert tr.transport_blockers(b2, fed2, 0, BEAM, d72).startswith(
        "G8.0 no powered transporter use left")


def test_d3_41_advanced_boundary_owner_keeps_the_stronger_shield_against_a_beam_in():
    # Both ships stopped: no temporary move resolves the D7's #3/#4 boundary, so its owner
    # chooses (the engine: the stronger shield, D3.41) and the party does not get through.
    b, fed, d7 = duel("0304", "A", "0202", "A", shield_boundary="advanced")
    b.state.shields[fed] = 0
    b.state.shields[d7, 2] = 0
    beam(b, fed, 0, d7)
    assert b.state.boarding_parties[d7, BLUE] == 0
    (boundary,) = of(b, "ShieldBoundary", target="d7")
    assert boundary.chosen == 4 and "owner's choice" in boundary.method
    assert of(b, "Transported")[0].result.startswith("G8.0 D3.41 shield #4 of d7")
