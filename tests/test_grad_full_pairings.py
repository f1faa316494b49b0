"""Full-size graduate duels for every pairing (issue #7; SCENARIOS.md §4 gt-full layout: 32
impulses, R7 standard energy, standard DAC, lock-on, as grad-*-full-vs-klingon): the Lyran
Tiger, Hydran Ranger and ISC Star Cruiser against the Federation CA, Kzinti CS, Orion Raider,
Romulan War Eagle and Gorn CA, and against each other."""

from __future__ import annotations

import pytest
from engine_helpers import of, row, scenario, step, unit, weapon
from fuzz_helpers import assert_fights, fuzz_games

import sfb_env
from sfb_env.engine import Orders, make_battle
from sfb_env.engine.scenario import load_scenario

GRADUATES = {"lyran": "lyran-tiger", "hydran": "hydran-ranger", "isc": "isc-star-cruiser"}
CADET_RACES = {"federation": "fed-ca", "kzinti": "kzinti-cs", "orion": "orion-raider",
               "romulan": "romulan-war-eagle", "gorn": "gorn-ca"}  # the Romulan: the War Eagle,
#   as duel-full-romulan-vs-federation (the KR only in duel-full-romulan-kr-vs-klingon)
CLASSES = {**GRADUATES, **CADET_RACES}
NEW = sorted([f"grad-{a}-full-vs-{b}" for a in GRADUATES for b in CADET_RACES]
             + ["grad-lyran-full-vs-hydran", "grad-isc-full-vs-lyran", "grad-isc-full-vs-hydran"])


def test_every_graduate_race_meets_every_other_race_full_size():
    listed = {name for name in sfb_env.list_scenarios() if "-full-vs-" in name
              and name.startswith("grad-")}
    assert set(NEW) <= listed
    met = {frozenset(name.removeprefix("grad-").split("-full-vs-")) for name in listed}
    for a in GRADUATES:
        for b in [*CADET_RACES, "klingon", *GRADUATES]:
            assert a == b or frozenset((a, b)) in met, (a, b)


@pytest.mark.parametrize("name", NEW)
def test_gt_full_pairing_layout_under_the_standard_rules(name):
    sc = load_scenario(name)
    ref = load_scenario("grad-lyran-full-vs-klingon")  # scenario 7's set-up, R7 rules
    assert sc.impulses_per_turn == 32 and sc.turn_limit == ref.turn_limit
    for key in ("energy", "damage", "lock_on", "max_speed", "drone_warhead"):
        assert getattr(sc.rules, key) == getattr(ref.rules, key), key
    assert [(u.hex, u.facing, u.speed, u.controller) for u in sc.units] == [
        (u.hex, u.facing, u.speed, u.controller) for u in ref.units]
    races = name.removeprefix("grad-").split("-full-vs-")
    assert [u.unit_class for u in sc.units] == [CLASSES[r] for r in races]
    cloaked = {"orion", "romulan"} & set(races)  # (G13 standard rule) as the duel-full files
    assert sc.rules.cloak == ("standard" if cloaked else "none")
    assert sc.rules.admin_shuttles == ("hydran" in races)  # as grad-hydran-full-vs-klingon


@pytest.mark.parametrize("name", NEW)
def test_fuzz_a_mixed_game_to_the_end_of_turn_2(name):
    # captains that fight (fuzz_helpers): seed 2 plays "mixed", a doctrine captain with random
    # components against random-fighter; these pairings' coverage floors are test_fuzz.py's
    # (under -m slow, scenario_tiers)
    assert_fights(name, fuzz_games(name, [2], to_the_end=True, max_turns=2))


@pytest.mark.slow
@pytest.mark.parametrize("name", NEW)
def test_fuzz_30_seeds_to_the_end(name):
    assert_fights(name, fuzz_games(name, range(30), to_the_end=True), turns=8)


def test_g13_cloak_announced_with_the_fire_orders_puts_a_fusion_shot_past_its_chart():
    """Found by the 100-seed run of grad-hydran-full-vs-romulan (seed 31): the War Eagle
    announces its cloak in the Cloak/Uncloak step of the impulse the Ranger fires a fusion beam
    at it from 24 hexes; the fade's +1 (G13 standard rule) puts the shot at 25, off the fusion
    chart. PROPOSAL (engine.direct_fire._score): the shot scores nothing."""
    b = make_battle(scenario([unit("h", "hydran-ranger", "blue", "1016", "A", 0),
                              unit("r", "romulan-war-eagle", "red", "2801", "E", 0)],
                             rules={"cloak": "standard", "energy": "standard"}), seed=0)
    h, r = row(b, "h"), row(b, "r")
    step(b)  # impulse 0 -> 1
    fusion = weapon(b, "h", "FUS-C")
    assert b.fire_blockers(fusion, [r]) == [None]  # 24 hexes: on the chart when ordered
    b.state.cloak_paid[r] = True  # as Energy Allocation sets it (G13 standard rule)
    b.step({h: Orders(fire={fusion: r}), r: Orders(cloak=True)})
    shot = of(b, "Fired", unit="h", weapon="h.FUS-C")
    assert len(shot) == 1 and shot[0].damage == 0 and not shot[0].hit
    assert of(b, "CloakAnnounced", unit="r")
