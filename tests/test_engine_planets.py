"""Planets (P2.0; CTH-DATA §8.9) and survivors lifted by shuttle (CTH-DATA §12.4 PROPOSAL),
through the engine (``engine.planets``)."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import battle, of, row, run_to, scenario, step, unit

from sfb_env import hexmap
from sfb_env.engine import IllegalOrderError, Maneuver, Orders, make_battle, planets, ppd_fire
from sfb_env.engine.esg import EsgPhase
from sfb_env.engine.scenario import ScenarioError
from sfb_env.engine.types import ACTIVE, DESTROYED, EXPENDED, K_PLANET, UNUSED, UnitKind


def planet(hex_: str = "1008", crew: int = 0, uid: str = "rigel") -> dict:
    return {"id": uid, "kind": "planet", "hex": hex_, "crew_units": crew}


def test_p2_0_planet_is_a_sideless_unit_row_in_play():
    b = battle([planet("1508", 1), unit("fed", "fed-cadet", "blue", "1010", "A"),
                unit("kl", "klingon-cadet", "red", "0101", "C")])
    p = row(b, "rigel")
    st = b.state
    assert st.kind[p] == K_PLANET == int(UnitKind.PLANET)
    assert st.side[p] == planets.NO_SIDE and st.status[p] == ACTIVE and st.speed[p] == 0
    assert b.label(p) == "1508" and st.crew_units[p] == 1 and b.rules.planets_in_play
    assert not make_battle("cth-07").rules.planets_in_play


@pytest.mark.parametrize(("entry", "field", "words"), [
    ({"kind": "moon", "hex": "1008"}, "units[0].kind", "unknown unit kind"),
    ({"kind": "planet", "hex": "1008", "class": "fed-ca"}, "units[0].class", "P2.0"),
    ({"kind": "planet", "hex": "1008", "crew_units": -1}, "units[0].crew_units", "G8.0"),
    ({"kind": "planet", "hex": "3008"}, "units[0].hex", ""),
    ({"kind": "planet", "hex": "1008", "crew_side": "green"}, "units[0].crew_side", "unknown"),
])
def test_p2_0_bad_planet_entries_name_the_field(entry, field, words):
    doc = scenario([{"id": "rigel", **entry}, unit("fed", "fed-cadet", "blue", "1010", "A")])
    with pytest.raises(ScenarioError) as err:
        make_battle(doc)
    assert err.value.field == field and words in str(err.value)


def test_p2_0_crew_units_only_on_a_planet():
    doc = scenario([{**unit("fed", "fed-cadet", "blue", "1010", "A"), "crew_units": 1}])
    with pytest.raises(ScenarioError, match="crew_units"):
        make_battle(doc)


def _axial(label: str) -> tuple[int, int]:
    return hexmap.label_to_axial(label)


def test_p2_0_line_through_the_planet_hex_blocks_along_its_edge_does_not():
    # 1010 -> 1008 runs through the centre of 1009
    (x0, z0), (x1, z1), (px, pz) = _axial("1010"), _axial("1008"), _axial("1009")
    assert planets.crosses_hex(x0, z0, x1, z1, px, pz)[0]
    # 1010 -> 1210 runs exactly along the edge shared by 1110 and 1111 (a hex-spine line)
    (x1, z1) = _axial("1210")
    for side in ("1110", "1111"):
        sx, sz = _axial(side)
        assert not planets.crosses_hex(x0, z0, x1, z1, sx, sz)[0]
    # a line that cuts a corner region inside the hex: 1010 -> 1207 crosses 1109
    (x1, z1), (cx, cz) = _axial("1207"), _axial("1109")
    assert planets.crosses_hex(x0, z0, x1, z1, cx, cz)[0]


def _fire_rules(b, shooter: str, mount: str, target: str) -> str | None:
    w = b.weapon_ids.index(f"{shooter}.{mount}")
    return b.fire_blockers(w, [row(b, target)])[0]


def test_p2_0_no_fire_through_the_planet_hex_edge_line_is_clear():
    b = battle([planet("1009"), unit("fed", "fed-cadet", "blue", "1010", "A"),
                unit("kl", "klingon-cadet", "red", "1008", "D")])
    run_to(b, 1, 1)
    assert _fire_rules(b, "fed", "PH1-1", "kl") == (
        "P2.0 the line of fire passes through a planet hex (along its edge would not)")
    edge = battle([planet("1110"), unit("fed", "fed-cadet", "blue", "1010", "B"),
                   unit("kl", "klingon-cadet", "red", "1210", "E")])
    run_to(edge, 1, 1)
    assert _fire_rules(edge, "fed", "PH1-1", "kl") is None  # (P2.0) along the edge
    # the env's mask agrees (fire_mask is the vectorised predicate)
    from sfb_env.engine.direct_fire import fire_mask

    w = b.weapon_ids.index("fed.PH1-1")
    assert not fire_mask(b, np.array([w]))[0, row(b, "kl")]


def test_p2_0_ships_may_not_fire_at_a_planet():
    b = battle([planet("1008"), unit("fed", "fed-cadet", "blue", "1010", "A"),
                unit("kl", "klingon-cadet", "red", "0101", "C")])
    run_to(b, 1, 1)
    assert _fire_rules(b, "fed", "PH1-1", "rigel") == "P2.0 ships may not fire at a planet"
    with pytest.raises(IllegalOrderError, match="P2.0 ships may not fire at a planet"):
        step(b, fed=dict(maneuver="-", fire={"PH1-1": "rigel"}))


def test_p2_0_ships_may_not_enter_the_planet_hex():
    b = battle([planet("1009"), unit("fed", "fed-cadet", "blue", "1010", "A", speed=8),
                unit("kl", "klingon-cadet", "red", "0101", "C")])
    fed = row(b, "fed")
    blocked = b.maneuver_blockers(fed)
    assert blocked[Maneuver.STRAIGHT] == "P2.0 ships may not enter the planet hex 1009"
    assert Maneuver.TURN_LEFT not in blocked and Maneuver.TURN_RIGHT not in blocked
    with pytest.raises(IllegalOrderError, match="P2.0 ships may not enter"):
        b.step({fed: Orders(maneuver=Maneuver.STRAIGHT), row(b, "kl"): Orders()})


def test_p2_0_ship_with_no_other_move_enters_and_is_destroyed():
    """PROPOSAL: turn mode not met, planet dead ahead: the only move stays open and the ship
    that takes it is destroyed (ships entering the planet hex are destroyed)."""
    b = battle([planet("1008"), unit("fed", "fed-cadet", "blue", "1010", "A", speed=8),
                unit("kl", "klingon-cadet", "red", "0101", "C")])
    fed = row(b, "fed")
    b.state.straight[fed] = 0  # just turned: turn mode 1 not met on the next move
    run_to(b, 1, 1)  # enters 1009
    b.state.straight[fed] = 0
    blocked = b.maneuver_blockers(fed)
    assert Maneuver.STRAIGHT not in blocked and Maneuver.TURN_LEFT in blocked
    step(b, fed="S")
    assert b.state.status[fed] == DESTROYED
    assert of(b, "PlanetCrash", unit="fed", hex="1008")


def _drone_battle(fed_hex: str, fed_facing: str):
    """Rigel at 1008, a Klingon drone at 1009 facing A (speed 8) homing on the Fed ship."""
    return battle([planet("1008"), unit("fed", "fed-cadet", "blue", fed_hex, fed_facing),
                   unit("kl", "klingon-cadet", "red", "0101", "C"),
                   unit("d", "drone", "red", "1009", "A", speed=8, controller="robot-drone",
                        target="fed")],
                  rules={"drone_endurance": False})


def test_p2_0_drone_entering_the_planet_hex_is_destroyed():
    b = _drone_battle("1012", "A")
    d = row(b, "d")
    b.state.straight[d] = 0  # first move straight (FD1.2): into the planet hex
    run_to(b, 1, 1)
    assert b.state.status[d] == EXPENDED
    assert of(b, "PlanetCrash", unit="d", hex="1008")


def test_p2_0_homing_drone_steers_around_the_planet_hex():
    """PROPOSAL (P2.0 with F2.0): a homing move never enters a planet hex it can avoid; the
    forced first straight move of the test above is the exception."""
    b = _drone_battle("1005", "D")
    d = row(b, "d")
    run_to(b, 1, 1)
    assert b.state.status[d] == ACTIVE and b.label(d) in ("0909", "1109")  # turned aside
    while b.state.status[d] == ACTIVE and b.state.turn < 3:
        _next_impulse(b)
    assert not of(b, "PlanetCrash") and of(b, "SeekingHit", unit="d", target="fed")


def _next_impulse(b) -> None:
    """Default orders to the next impulse (8-impulse turns)."""
    run_to(b, *((b.state.turn, b.state.impulse + 1) if b.state.impulse < 8
                else (b.state.turn + 1, 1)))


def _rescue_battle(crew: int = 1):
    return battle([planet("1007", crew), unit("fed", "fed-cadet", "blue", "1010", "A"),
                   unit("kl", "klingon-cadet", "red", "0101", "C")],
                  rules={"admin_shuttles": True})


def _shuttle(b) -> int:
    return b.unit_index["fed.shuttle-1"]


def _shuttle_launched_at_rigel(impulse: int):
    """The rescue battle run to ``impulse`` of turn 1 with the Fed's shuttle launched at Rigel
    on impulse 1; returns (battle, fed, rigel, shuttle) rows."""
    b = _rescue_battle()
    fed, p = row(b, "fed"), row(b, "rigel")
    run_to(b, 1, 1)
    b.step({fed: Orders(shuttles=p)})
    run_to(b, 1, impulse)
    return b, fed, p, _shuttle(b)


def test_p2_0_shuttle_lands_on_the_planet_lifts_survivors_and_brings_them_home():
    """(P2.0) shuttles may enter and land; (CTH-DATA §12.4) the survivors board at the end of
    the impulse it lands, as 1 crew unit; (J1.0) it lands aboard its ship (speed <= 6)."""
    b = _rescue_battle()
    fed, p = row(b, "fed"), row(b, "rigel")
    run_to(b, 1, 1)
    assert b.fighter_blockers(fed, [p], UnitKind.SHUTTLE) == [None]
    assert b.fighter_blockers(fed, [p], UnitKind.FIGHTER)[0].startswith("J4.34")
    b.step({fed: Orders(shuttles=p)})
    s = _shuttle(b)
    run_to(b, 1, 4)  # 1009, 1008, 1007: landed in the planet hex
    assert b.label(s) == "1007" and planets.landed(b)[s]
    assert b.state.crew_units[s] == 0  # boards at the end of the impulse it lands
    run_to(b, 1, 5)
    assert b.state.crew_units[s] == 1 and b.state.crew_units[p] == 0
    assert of(b, "CrewLifted", unit="fed.shuttle-1", source="rigel", how="shuttle")
    while b.state.status[s] != UNUSED:
        _next_impulse(b)
        assert b.state.turn <= 3
    assert b.state.crew_units[fed] == 1 and b.state.crew_units[s] == 0
    assert of(b, "Landed", unit="fed.shuttle-1", carrier="fed")
    assert not planets.survivors_killed(b)


def test_p2_0_landed_shuttle_cannot_be_hit_and_does_not_fire():
    b, fed, p, s = _shuttle_launched_at_rigel(4)
    # the Klingon is put in range (1005, facing the planet) to judge its shot
    b.state.x[row(b, "kl")], b.state.z[row(b, "kl")] = hexmap.label_to_axial("1005")
    b.state.facing[row(b, "kl")] = 3
    rules = b.fire_blockers(b.weapon_ids.index("kl.PH2-1"), [s])
    assert rules == ["P2.0 a shuttle landed on a planet cannot be hit"]
    gun = int(b.craft_gun[s])
    assert all(r is not None for r in b.fire_blockers(gun, [row(b, "kl")]))


def test_survivors_die_with_the_shuttle_carrying_them():
    b, fed, p, s = _shuttle_launched_at_rigel(6)
    assert b.state.crew_units[s] == 1 and not planets.survivors_killed(b)
    b.apply_damage(s, 0, 6)  # (J1.0) 6 points destroy a shuttle
    assert b.state.status[s] == DESTROYED and planets.survivors_killed(b)


@pytest.mark.parametrize(("where", "rule"), [("1009", "E11.546"), ("1209", None)])
def test_e11_546_a_planet_in_the_line_of_fire_breaks_the_wave_lock(where, rule):
    b = battle([planet(where), unit("isc", "isc-star-cruiser", "blue", "1014", "A"),
                unit("kl", "klingon-cadet", "red", "1004", "D")])
    w = next(i for i, wid in enumerate(b.weapon_ids) if wid.startswith("isc.PPD"))
    assert ppd_fire.breaking_rule(b, w, row(b, "kl")) == rule


def test_e11_34_example_target_moving_behind_a_planet_loses_the_wave_lock():
    """(E11.34 example, E11.546) A wave-locked PPD train on a Klingon; the target is then
    behind a planet (the line of fire through 0613): the lock is broken, the rest is lost."""
    from engine_helpers import Dice

    b = battle([planet("0613"), unit("i", "isc-cadet", "blue", "0515", "A"),
                unit("k", "klingon-cadet", "red", "0511", "A")])
    w = b.weapon_ids.index("i.PPD-A")
    run_to(b, 3, 1)  # (ppd_fire.CHIEF_FIRST_TURN) the Chief Engineer's PPD is armed
    b.rng = Dice(1, 1)  # 2: wave-lock on the first pulse (E11.331)
    step(b, i=dict(maneuver="-", fire={"PPD-A": "k"}), k="-")
    assert b.state.ppd_locked[w]
    st = b.state
    st.x[row(b, "k")], st.z[row(b, "k")] = hexmap.label_to_axial("0711")  # behind Rigel
    step(b, i="-", k="-")
    assert [e.rule for e in of(b, "PpdTrainEnded")] == ["E11.546"]
    assert len(of(b, "Fired", weapon_type="ppd")) == 1 and st.ppd_target[w] == -1


def test_g23_65_an_esg_field_striking_a_planet_collapses_to_zero():
    """The radius-1 field of a Lyran ship reaches the planet hex as the ship moves next to it:
    the field drops to 0 and the planet takes nothing (G23.65; G23.52 step 3)."""
    b = battle([planet("1007"), unit("ly", "lyran-cadet", "blue", "1010", "A", speed=8),
                unit("kl", "klingon-cadet", "red", "0101", "C")])
    ly, p = row(b, "ly"), row(b, "rigel")
    g = int(b.esg_rows(ly)[0])
    st = b.state
    run_to(b, 1, 1)  # 1009: range 2 from the planet
    st.esg_phase[g] = int(EsgPhase.ACTIVE)
    st.esg_radius[g] = 1
    st.esg_strength[g] = 10
    st.esg_activated_at[g] = st.absolute_impulse
    step(b, ly="S")  # 1008: the ring of radius 1 reaches 1007
    assert b.label(ly) == "1008"
    assert int(st.esg_strength[g]) == 0 and int(st.damage[p]) == 0
    assert of(b, "EsgStruck", unit="ly", target="rigel", points=0)
