"""Lockstep parity of the standard cloak (G13 standard rule, ``compiled.cloak``) on the shipped
full-size scenarios it unlocks: the Romulans' and the Orion's cloaks under the standard Energy
Allocation Form, the standard DAC and Sensor Lock-On (D6), against the ISC's PPD (a PPD order
at a ship that cloaks after it is void, E11.472) and the Lyran Tiger's ESGs (a cloaked ship
struck by a field can be locked on, G23.621). CI runs are short; the long runs are slow."""

from __future__ import annotations

import pytest

from sfb_env.compiled import parity, tiers
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import load_scenario

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)

CLOAKED = ["duel-full-romulan-vs-federation", "duel-full-orion-vs-klingon",
           "duel-full-romulan-kr-vs-klingon", "grad-isc-full-vs-orion",
           "grad-isc-full-vs-romulan", "grad-lyran-full-vs-orion", "grad-lyran-full-vs-romulan"]


@pytest.mark.parametrize("scenario", CLOAKED)
def test_the_standard_cloak_scenarios_are_compiled(scenario):
    assert tiers.missing(make_battle(load_scenario(scenario)).setup) == []


@pytest.mark.parametrize("scenario", CLOAKED)
def test_g13_random_masked_play_matches_the_reference(scenario):
    """Random masked captains cloak and uncloak at will (Energy Allocation and the
    Cloak/Uncloak step): the same states, observations, masks and events, fades included."""
    report = parity.lockstep(scenario, num_battles=2, steps=200, seed=4, policy="random")
    assert report.steps == 200
    assert report.events.get("CloakAnnounced", 0) > 0


@pytest.mark.parametrize("scenario", CLOAKED[:3])
def test_g13_fighting_captains_match_the_reference(scenario):
    report = parity.lockstep(scenario, num_battles=2, steps=150, seed=5,
                             policy="random-fighter")
    assert report.steps == 150


@pytest.mark.slow
@pytest.mark.parametrize("scenario", CLOAKED)
@pytest.mark.parametrize("policy", ["random", "random-fighter"])
def test_g13_long_runs_match_the_reference(scenario, policy):
    report = parity.lockstep(scenario, num_battles=4, steps=1500, seed=6, policy=policy)
    assert report.steps == 1500
