"""Boarding parties (D7.0), their combat, capture, and the Klingon mutiny modifiers of enemy
parties aboard (G6.22) in ``engine/boarding.py`` (CTH-DATA §8.5, §9.2)."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import Dice, battle, of, row, run_to, scenario, unit
from hypothesis import given, settings
from hypothesis import strategies as hst

import sfb_env
from sfb_env import tables
from sfb_env.engine import boarding, dac, make_battle, mutiny
from sfb_env.engine.types import Orders

# (D7.0, CTH-DATA §8.5) enemy parties eliminated, rows die 1..6, columns group size 1..10
CHART = [
    [0, 0, 0, 0, 1, 1, 1, 1, 1, 1],
    [0, 0, 1, 1, 1, 1, 1, 2, 2, 2],
    [0, 1, 1, 1, 2, 2, 2, 2, 3, 3],
    [0, 1, 1, 2, 2, 2, 3, 3, 4, 4],
    [1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
    [1, 1, 2, 2, 3, 4, 4, 5, 5, 6],
]
BLUE, RED = 0, 1


def duel(**rules):
    """Federation CA (blue agent) and Klingon D7 (red, idle) 3 hexes apart, boarding on."""
    return battle([unit("fed", "fed-ca", "blue", "1010", "A"),
                   unit("d7", "klingon-d7", "red", "1007", "D", controller="idle")],
                  rules={"boarding": True, **rules})


def to_end_of_turn(b) -> None:
    """Play the rest of turn 1 with no orders, so its End of Turn runs."""
    run_to(b, 2, 1)


@pytest.mark.parametrize("die", range(1, 7))
@pytest.mark.parametrize("size", range(1, 11))
def test_d7_0_combat_chart_cell_by_cell(die, size):
    assert tables.boarding_party_losses(size, die) == CHART[die - 1][size - 1]
    assert boarding.eliminated(size, [die]) == CHART[die - 1][size - 1]


def test_d7_0_groups_of_ten_plus_a_remainder():
    assert boarding.groups(14) == [10, 4]
    assert boarding.groups(20) == [10, 10]
    assert boarding.groups(3) == [3]
    assert boarding.groups(0) == []
    with pytest.raises(ValueError, match="need 2 dice"):
        boarding.eliminated(14, [3])


def test_d7_0_anchor_14_klingons_against_8_federation_through_the_engine():
    b = duel()
    fed = row(b, "fed")
    b.state.boarding_parties[fed] = [8, 14]
    # Fed rolls 5 with its group of 8 -> 4; Klingons roll 3 (group of 10 -> 3), 2 (4 -> 1)
    b.rng = Dice(5, 3, 2)
    to_end_of_turn(b)
    assert b.state.boarding_parties[fed].tolist() == [4, 10]
    (fight,) = of(b, "BoardingCombat", unit="fed")
    assert fight.dice == (("blue", (5,)), ("red", (3, 2)))
    assert (fight.before, fight.after, fight.stations) == ((8, 14), (4, 10), 0)
    assert b.state.control_stations[fed] == 6 and b.state.captured_by[fed] == -1


def test_d7_0_casualties_beyond_the_last_defender_capture_control_stations():
    b = duel()
    fed = row(b, "fed")
    b.state.boarding_parties[fed] = [2, 10]
    b.rng = Dice(1, 6)  # Fed group of 2, die 1 -> 0; Klingon group of 10, die 6 -> 6
    boarding.end_of_turn(b)
    assert b.state.boarding_parties[fed].tolist() == [0, 10]
    assert b.state.control_stations[fed] == 6 - 4  # 2 defenders, 4 points beyond them
    assert b.state.captured_by[fed] == -1


def test_d7_0_every_control_station_captured_captures_the_ship():
    b = duel()
    fed, d7 = row(b, "fed"), row(b, "d7")
    b.state.boarding_parties[fed] = [0, 14]
    b.state.control_stations[fed] = 3
    b.rng = Dice(6, 6)  # 10 -> 6, 4 -> 2: 8 points, no defender: 3 stations
    boarding.end_of_turn(b)
    st = b.state
    assert st.control_stations[fed] == 0 and st.captured_by[fed] == RED
    assert st.side[fed] == BLUE and boarding.controller_side(b, fed) == RED  # (D7.0)
    assert of(b, "Captured", unit="fed", side="red")
    assert fed not in b.agent_units()  # the player loses the ship
    assert b.controllers[fed] == boarding.CAPTURED_CONTROLLER
    # (D7.0) the captor may move it but cannot fire its weapons
    w = int(b.weapons_of(fed)[0])
    assert b.fire_blockers(w, [d7])[0] == "D7.0 a captured unit cannot fire its weapons"
    assert boarding.fire_blocker(b, fed) is not None and boarding.fire_blocker(b, d7) is None


def test_d7_0_a_captured_ship_flies_on_under_its_captor():
    b = duel()
    fed = row(b, "fed")
    boarding.capture(b, fed, RED)
    b.state.speed[fed] = 8
    before = b.label(fed)
    run_to(b, 2, 1)
    assert b.label(fed) != before  # the built-in pilot keeps it moving (module PROPOSAL)


def test_d7_0_freighter_captured_changes_side_only():
    b = battle([unit("orion", "orion-raider", "red", "1010", "A"),
                unit("fr", "freighter-large", "blue", "1008", "A", controller="idle")],
               rules={"boarding": True})
    fr = row(b, "fr")
    st = b.state
    assert st.control_stations[fr] == 2 and st.boarding_parties[fr].tolist() == [2, 0]
    st.boarding_parties[fr, RED] = 6
    b.rng = Dice(1, 6)  # freighter's 2: die 1 -> 0; Orion 6: die 6 -> 4: 2 beyond, 2 stations
    boarding.end_of_turn(b)
    assert st.boarding_parties[fr].tolist() == [0, 6]
    assert st.captured_by[fr] == RED and boarding.controller_side(b, fr) == RED
    assert st.side[fr] == BLUE  # the owner's side stays (victory counts prizes, SCENARIOS #8)
    assert b.controllers[fr] == "idle"  # freighters just change side control


def test_d7_0_no_combat_without_enemy_parties_aboard():
    b = duel()
    b.rng = Dice()  # no die may be rolled
    boarding.end_of_turn(b)
    assert not of(b, "BoardingCombat")


def test_d7_0_boarding_combat_needs_the_rule():
    b = duel(boarding=False)
    fed = row(b, "fed")
    b.state.boarding_parties[fed] = [8, 14]
    to_end_of_turn(b)
    assert b.state.boarding_parties[fed].tolist() == [8, 14]


def test_d7_0_combat_uses_the_battle_dice_reproducibly():
    results = []
    for _ in range(2):
        b = duel()
        fed = row(b, "fed")
        b.state.boarding_parties[fed] = [10, 14]
        b.step({fed: Orders()})
        boarding.end_of_turn(b)
        results.append(b.state.boarding_parties[fed].tolist())
    assert results[0] == results[1]


@pytest.mark.parametrize("cls, parties, stations", [
    ("fed-ca", 10, 6), ("klingon-d7", 14, 5), ("klingon-d6", 14, 5),
    ("romulan-war-eagle", 5, 2), ("gorn-ca", 16, 6), ("orion-raider", 12, 3),
    ("romulan-kr", 10, 5), ("kzinti-cs", 16, 7), ("lyran-tiger", 12, 7),
    ("hydran-ranger", 12, 6), ("isc-star-cruiser", 14, 6), ("freighter-large", 2, 2),
])
def test_d7_0_complements_and_control_stations_from_the_sheets(cls, parties, stations):
    """CTH-DATA §8.5 complements; control stations = bridge + emergency bridge + auxiliary
    control boxes of §9.2 (a freighter's 2)."""
    b = battle([unit("s", cls, "blue", "1010", "A")])
    assert b.state.boarding_parties[0].tolist() == [parties, 0]
    assert b.state.control_stations[0] == stations
    assert b.state.captured_by[0] == -1 and b.state.crew_units[0] == 0


def test_d7_0_cadet_ships_have_no_boarding_parties():
    b = battle([unit("s", "fed-cadet", "blue", "1010", "A")])
    assert b.state.boarding_parties[0].tolist() == [0, 0]


# ----------------------------------------------------------------------------- G6.22


def klingon_rolling(fed_parties: int):
    b = make_battle("cth-10", seed=0)
    k = row(b, "destruction")
    b.state.dac_boxes[k, dac.DacBox.SECURITY] = 0
    b.state.mutiny[k] = mutiny.ROLLING
    b.state.boarding_parties[k, 1 - int(b.state.side[k])] = fed_parties
    return b, k


def test_g6_22_every_full_four_enemy_parties_shift_both_mutiny_dice():
    b, k = klingon_rolling(8)  # 2 full fours: -2 occurrence, +2 success
    assert mutiny.modifier(b, k) == 2
    b.rng = Dice(3, 2)  # 3 - 2 = 1: a mutiny; 2 + 2 = 4: successful
    mutiny.end_of_turn(b)
    assert b.state.mutiny[k] == mutiny.CAPTURED


def test_g6_22_fewer_than_four_enemy_parties_do_nothing():
    b, k = klingon_rolling(7)  # one full four only
    assert mutiny.modifier(b, k) == 1
    b.rng = Dice(3)  # 3 - 1 = 2: no mutiny
    mutiny.end_of_turn(b)
    assert b.state.mutiny[k] == mutiny.ROLLING


def test_g6_21_klingon_boarding_parties_have_no_effect():
    b, k = klingon_rolling(0)
    b.state.boarding_parties[k, int(b.state.side[k])] = 40
    assert mutiny.modifier(b, k) == 0


def test_g6_22_is_cumulative_with_g6_23():
    b, k = klingon_rolling(4)
    for box in mutiny.CONTROL_SPACES:
        b.state.dac_boxes[k, box] = 0
    assert mutiny.modifier(b, k) == 2
    assert np.all(b.state.dac_boxes[k, list(mutiny.CONTROL_SPACES)] == 0)


def test_d7_0_a_captured_agent_ship_leaves_the_env_agents():
    doc = scenario([unit("fed", "fed-ca", "blue", "1010", "A"),
                    unit("d7", "klingon-d7", "red", "1007", "D")], rules={"boarding": True})
    env = sfb_env.parallel_env(doc)
    env.reset(seed=0)
    fed = env.battle.unit_index["fed"]
    env.battle.state.boarding_parties[fed] = [0, 14]  # 10 + 4: any dice take >= 1 station
    env.battle.state.control_stations[fed] = 1
    while env.battle.state.turn == 1:
        assert env.agents == ["fed", "d7"]
        actions = {a: env._layouts[a].noop(env.battle) for a in env.agents}
        _, _, terminations, _, _ = env.step(actions)
    assert env.battle.state.captured_by[fed] == RED
    assert terminations["fed"] and not terminations["d7"]
    assert env.agents == ["d7"]


@settings(max_examples=60, deadline=None)
@given(defenders=hst.integers(0, 25), attackers=hst.integers(1, 25),
       stations=hst.integers(0, 7), seed=hst.integers(0, 1000))
def test_d7_0_combat_invariants(defenders, attackers, stations, seed):
    """Parties only fall, never below 0; each side loses what the other's groups roll on the
    chart (D7.0), capped at its parties; stations fall by the excess over the defenders."""
    b = duel()
    fed = row(b, "fed")
    st = b.state
    st.boarding_parties[fed] = [defenders, attackers]
    st.control_stations[fed] = stations
    b.rng = np.random.default_rng(seed)
    boarding.resolve_combat(b, fed)
    (fight,) = of(b, "BoardingCombat")
    dice = dict(fight.dice)
    by_fed = boarding.eliminated(defenders, list(dice.get("blue", ())))
    by_klingons = boarding.eliminated(attackers, list(dice["red"]))
    assert st.boarding_parties[fed].tolist() == [max(0, defenders - by_klingons),
                                                 max(0, attackers - by_fed)]
    taken = min(stations, max(0, by_klingons - defenders))
    assert fight.stations == taken
    assert st.control_stations[fed] == stations - taken
    assert (st.captured_by[fed] == RED) == (taken > 0 and taken == stations)
