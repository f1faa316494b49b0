"""Scenario 9, Rescue at Rigel (SCENARIOS.md #9): set-up, each victory path through the engine,
random masked play. PettingZoo's ``parallel_api_test`` / ``parallel_seed_test`` run on it in
``test_env_api.py``; the both-ways mask test in ``test_env_masks.py``."""

from __future__ import annotations

import pytest
from engine_helpers import of, random_masked_games, row, run_to

from sfb_env.data import load_data_file
from sfb_env.engine import Maneuver, Orders, make_battle, planets
from sfb_env.engine.scenario import SCENARIO_DIR
from sfb_env.engine.types import (
    DESTROYED,
    DISENGAGED,
    K_PLANET,
    UNUSED,
    TransportOrder,
)


def variant(fed: dict | None = None, kl: dict | None = None) -> dict:
    """cth-09 with the ships moved (``fed`` / ``kl``: unit fields to replace)."""
    doc = dict(load_data_file(SCENARIO_DIR / "cth-09.yaml"))
    doc["units"] = [dict(u) for u in doc["units"]]
    doc["units"][1].update(fed or {})
    doc["units"][2].update(kl or {})
    return doc


def test_cth_09_setup_rescue_at_rigel():
    b = make_battle("cth-09", seed=0)
    sc = b.scenario
    assert sc.impulses_per_turn == 32 and sc.map_name == "A+B" and sc.turn_limit == 10
    assert sc.rules.max_speed == 31 and sc.rules.energy == "standard"
    assert sc.rules.damage == "standard_dac" and sc.rules.drone_warhead == 12
    assert sc.rules.admin_shuttles and sc.rules.suicide_shuttles  # (R9: J1, J2)
    assert sc.rules.transporters and sc.rules.boarding and sc.rules.tractors  # (R8)
    p, fed, kl = row(b, "rigel"), row(b, "rescuer"), row(b, "opponent")
    assert b.state.kind[p] == K_PLANET and b.label(p) == "1508"
    assert b.state.crew_units[p] == 1  # ten survivors = one crew unit
    assert [(u.unit_class, u.hex, u.facing, u.speed) for u in sc.units[1:]] == [
        ("fed-ca", "2816", 5, 31), ("klingon-d7", "0101", 2, 31)]
    assert sc.victory == {"kind": "rescue", "rescuer": "federation", "opponent": "klingon"}
    # prev speed = each ship's maximum (31): no acceleration limit on turn 1
    assert not b.speed_blockers(fed) and not b.speed_blockers(kl)


def _outcome(b) -> tuple[str, str, str]:
    return b.outcome["federation"]["result"], b.outcome["federation"]["level"], b.end_reason


def _stop(b, fed, kl, **fed_orders):
    """The impulse-0 allocation: both ships at speed 0 (the Fed CA's orders added)."""
    b.step({fed: Orders(speed=0, **fed_orders), kl: Orders(speed=0)})


def _impulse(b):
    """One step, every ship going straight where it moves (the standing speed)."""
    b.step({u: Orders(maneuver=Maneuver.NONE if Maneuver.STRAIGHT in b.maneuver_blockers(u)
                      else Maneuver.STRAIGHT) for u in b.agent_units()})


def _moved(fed: dict | None = None, kl: dict | None = None):
    """cth-09 with the ships moved (see ``variant``): (battle, rescuer, opponent, rigel) rows."""
    b = make_battle(variant(fed, kl), seed=0)
    return b, row(b, "rescuer"), row(b, "opponent"), row(b, "rigel")


def _play_out(b):
    """Every ship straight ahead (``_impulse``) until the battle ends."""
    while not b.done:
        _impulse(b)


def test_cth_09_rescuer_wins_by_lifting_the_survivors_and_leaving_the_map():
    """A shuttle lands on Rigel, lifts the crew unit (CTH-DATA §12.4), lands back aboard the
    stopped CA (J1.0), and the CA leaves the map with them: rescuer victory."""
    b, fed, kl, p = _moved(fed={"hex": "1610", "facing": "A"})
    _stop(b, fed, kl)
    b.step({fed: Orders(shuttles=p), kl: Orders()})
    assert of(b, "Launched", unit="rescuer", target="rigel")
    while b.state.crew_units[fed] == 0:
        _impulse(b)
        assert b.state.turn <= 4 and not b.done
    assert b.state.crew_units[p] == 0 and of(b, "CrewLifted", how="landed")
    run_to(b, b.state.turn, 32)  # (B3.0) from speed 0 it may accelerate to 10
    b.step({fed: Orders(speed=10), kl: Orders(speed=0)})
    _play_out(b)
    assert b.state.status[fed] == DISENGAGED
    assert _outcome(b) == ("win", "rescue", "federation left the map with the survivors aboard")
    assert b.outcome["klingon"]["result"] == "loss"


def test_cth_09_survivors_lifted_by_transporter_then_the_rescuer_leaves():
    """(G8.0, SCENARIOS #9) one transporter action lifts the crew unit at range <= 5 once the
    rescuer's shield facing the planet is dropped (G8.24; engine.transporters); then it leaves
    the map with them: rescuer victory."""
    b, fed, kl, p = _moved(fed={"hex": "1610", "facing": "A"})
    b.step({fed: Orders(speed=0, transporters=1), kl: Orders(speed=0)})
    b.step({fed: Orders(drop_shield=1), kl: Orders()})  # shield #1 faces Rigel (range 3)
    b.step({fed: Orders(transport={0: (int(TransportOrder.LIFT_CREW), p)}), kl: Orders()})
    assert b.state.crew_units[fed] == 1 and b.state.crew_units[p] == 0
    assert of(b, "Transported", unit="rescuer", what="crew unit", src="rigel")
    run_to(b, 1, 32)
    b.step({fed: Orders(speed=10), kl: Orders(speed=0)})
    _play_out(b)
    assert _outcome(b) == ("win", "rescue", "federation left the map with the survivors aboard")


def test_g8_0_the_opponent_cannot_take_the_survivors():
    """(G8.0) No transport of enemy personnel without consent: the survivors (crew_side
    federation) board neither a Klingon shuttle landed on Rigel nor a Klingon transporter."""
    b, fed, kl, p = _moved(kl={"hex": "1610", "facing": "A"})
    b.step({fed: Orders(speed=0), kl: Orders(speed=0, transporters=1)})
    b.step({fed: Orders(), kl: Orders(drop_shield=1, shuttles=p)})
    rule = ("G8.0 no transport of enemy personnel without consent: the survivors on rigel "
            "are federation's")
    from sfb_env.engine import transporters

    assert transporters.transport_blockers(b, kl, 0, TransportOrder.LIFT_CREW, p) == rule
    s = b.unit_index["opponent.shuttle-1"]
    while b.label(s) != "1508":
        _impulse(b)
    _impulse(b)
    assert planets.landed(b)[s] and b.state.crew_units[s] == 0 and b.state.crew_units[p] == 1
    assert planets.lift_blocker(b, s, p) == rule


def test_cth_09_opponent_wins_at_once_when_the_survivors_die():
    b, fed, kl, p = _moved(fed={"hex": "1610", "facing": "A"})
    _stop(b, fed, kl)
    b.step({fed: Orders(shuttles=p), kl: Orders()})
    s = b.unit_index["rescuer.shuttle-1"]
    while b.state.crew_units[s] == 0:
        _impulse(b)
    b.apply_damage(s, 0, 6)  # the shuttle carrying them is destroyed (J1.0: 6 points)
    _impulse(b)
    assert b.done and b.state.status[s] == DESTROYED
    assert _outcome(b) == ("loss", "survivors killed", "the survivors were killed")
    assert b.outcome["klingon"] == {"result": "win", "level": "survivors killed"}


def test_cth_09_rescuer_wins_if_the_opponent_leaves_the_map_first():
    b, fed, kl, _ = _moved(kl={"hex": "0103", "facing": "E"})
    b.step({fed: Orders(speed=0), kl: Orders()})
    _play_out(b)
    assert b.state.turn == 1 and b.state.status[kl] == DISENGAGED
    assert _outcome(b) == ("win", "opponent left", "klingon left the map before the end")


def test_cth_09_rescuer_leaving_without_the_survivors_loses():
    b, fed, kl, _ = _moved(fed={"hex": "2801", "facing": "B"})
    b.step({fed: Orders(), kl: Orders(speed=0)})
    _play_out(b)
    assert b.state.turn == 1 and b.state.status[fed] == DISENGAGED
    assert _outcome(b) == ("loss", "no rescue", "federation left the map without the survivors")


def test_cth_09_rescuer_destroyed_on_the_planet_loses():
    """(P2.0) a ship left only the move into the planet hex is destroyed: opponent victory."""
    b, fed, kl, _ = _moved(fed={"hex": "1509", "facing": "A"})
    b.state.straight[fed] = 0  # turn mode not met: straight (1508) is its only move
    b.step({fed: Orders(speed=31), kl: Orders(speed=0)})
    assert b.label(fed) == "1509"
    assert Maneuver.STRAIGHT not in b.maneuver_blockers(fed)  # PROPOSAL: not left without move
    _play_out(b)
    assert b.state.status[fed] == DESTROYED and of(b, "PlanetCrash", unit="rescuer")
    assert _outcome(b) == ("loss", "no rescue", "federation was destroyed")


def test_cth_09_turn_limit_is_an_opponent_victory():
    b, fed, kl, _ = _moved()
    _stop(b, fed, kl)
    _play_out(b)
    assert b.time_up and b.state.turn == 11
    assert _outcome(b) == ("loss", "no rescue", "turn limit reached")
    assert not planets.survivors_killed(b)
    assert all(b.state.status[s] == UNUSED for s in range(len(b.unit_ids))
               if b.unit_ids[s].startswith("rescuer.shuttle"))


def test_cth_09_random_masked_games_3_seeds():
    random_masked_games("cth-09", range(3))


@pytest.mark.slow
def test_cth_09_random_masked_games_100_seeds():
    random_masked_games("cth-09", range(100))
