"""Phase parity of the cadet Energy Allocation Form (B3.0) on the compiled core
(``sfb_env.compiled.energy``) with the reference engine, on reachable states of the 8-impulse
cadet duels played under ``rules.energy: cadet`` (``parity.with_rules``): Energy Allocation
(the same arrays and decoded events after ``energy_allocation``), the cadet End of Turn (no
energy step), the observation (its energy block) and the masks of every component (``arm[h]``,
``capacitor``, ``recharge``, ``speed``, ``maneuver``, ``fire[w]``) at decision points, the
standing orders (the env's no-op) and the ``energy_shortfall`` info of the compiled env."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest
from compiled_phase_helpers import (
    Allocations,
    decisions_match,
    env_pair,
    play_recording_allocations,
    run_parity,
    run_parity_batched,
    step_env_pair,
)

from sfb_env.compiled import energy, layout, parity, tiers
from sfb_env.compiled.batch import build_reference
from sfb_env.engine import energy_allocation, rule_tables

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)

DUELS = ("duel-klingon-vs-federation", "duel-kzinti-vs-orion")


def variant(name: str) -> dict:
    return parity.with_rules(name, parity.CADET_ENERGY)


@functools.cache
def played(name: str, seeds: tuple[int, ...] = (0, 1, 2), steps: int = 250) -> Allocations:
    """Random masked play of ``name``'s cadet-energy variant on the reference env."""
    return play_recording_allocations(variant(name), seeds, steps)


def test_tiers_accept_the_cadet_form_not_energy_off():
    """The cadet form (the standard form and fractional accounting:
    test_compiled_standard_energy; the standard cloak: test_compiled_cloak_parity); not energy
    off."""
    setup = build_reference(variant("duel-klingon-vs-federation")).setup
    assert tiers.why_not(setup) is None
    for rules in ({"energy": "off"},):
        doc = parity.with_rules("duel-klingon-vs-orion", rules)
        assert tiers.why_not(_setup(doc)) is not None, rules


def _setup(doc):
    from sfb_env.engine import make_battle
    from sfb_env.engine.scenario import load_scenario

    return make_battle(load_scenario(doc), max_turns=6).setup


@pytest.mark.parametrize("name", DUELS)
def test_energy_allocation_matches_the_reference(name):
    snaps = played(name).allocations
    assert len(snaps) > 10
    seen = run_parity(snaps, lambda b, o, r: energy_allocation.energy_allocation(
        b, o, rule_tables.ENERGY_PAYMENTS), energy.energy_allocation, energy.energy_tables)
    assert seen.get("EnergyAllocated", 0) >= len(snaps)
    assert seen.get("WeaponArmed", 0) > 0
    assert seen.get("EnergyShortfall", 0) + seen.get("WeaponDischarged", 0) > 0, seen
    n = run_parity_batched(snaps[:16], lambda b, o, r: energy_allocation.energy_allocation(
        b, o, rule_tables.ENERGY_PAYMENTS), energy.energy_allocation, energy.energy_tables)
    assert n > 0


@pytest.mark.parametrize("name", DUELS)
def test_the_standing_allocation_matches_the_reference(name):
    """Orders without energy components (``Orders.arm`` empty, ``capacitor`` / ``recharge``
    None): the standing allocation of ``energy_allocation`` (continue or hold, fill the
    capacitor, recharge every empty battery), -1 in ``BatchOrders``."""
    snaps = [(b, {u: dataclasses.replace(o, arm={}, capacitor=None, recharge=None)
                  for u, o in orders.items()}, None)
             for b, orders, _ in played(name).allocations]
    seen = run_parity(snaps, lambda b, o, r: energy_allocation.energy_allocation(
        b, o, rule_tables.ENERGY_PAYMENTS), energy.energy_allocation, energy.energy_tables)
    assert seen.get("EnergyAllocated", 0) >= len(snaps)


@pytest.mark.parametrize("name", DUELS)
def test_energy_allocation_short_of_power_matches_the_reference(name):
    """The played states with their engines cut down (warp, impulse, APR boxes lost as
    damage would): movement lowered, arming and holding dropped, the capacitor partly paid,
    batteries drawn (the clamp's priority, docs/engine/energy.md)."""
    from sfb_env.engine.types import Box

    snaps = []
    for k, (battle, orders, _) in enumerate(played(name).allocations):
        cut = battle.copy()
        boxes = cut.state.boxes
        boxes[:, Box.WARP] = np.minimum(boxes[:, Box.WARP], k % 9)
        boxes[:, Box.IMPULSE] = np.minimum(boxes[:, Box.IMPULSE], k % 3)
        boxes[:, Box.APR] = np.minimum(boxes[:, Box.APR], (k // 3) % 3)
        boxes[:, Box.BATTERY] = np.minimum(boxes[:, Box.BATTERY], (k // 2) % 3)
        snaps.append((cut, orders, None))
    seen = run_parity(snaps, lambda b, o, r: energy_allocation.energy_allocation(
        b, o, rule_tables.ENERGY_PAYMENTS), energy.energy_allocation, energy.energy_tables)
    assert seen.get("EnergyShortfall", 0) > 10 and seen.get("WeaponDischarged", 0) > 0, seen


@pytest.mark.parametrize("name", DUELS)
def test_the_cadet_end_of_turn_has_no_energy_step(name):
    """``energy_allocation.end_of_turn`` acts on the standard form only (D9.2, D3.341): the
    compiled End of Turn (``ending.end_of_turn``) has nothing of the form to port."""
    for battle, _, _ in played(name).allocations[:20]:
        ref = battle.copy()
        s = layout.pack([battle.copy().state])
        energy_allocation.end_of_turn(ref)
        assert layout.differences(s, 0, ref.state, layout.pack_cold([ref.state])) == []


@pytest.mark.parametrize("name", DUELS)
def test_observation_masks_and_noops_match_the_reference(name):
    """At played decision points (Energy Allocation among them): the compiled observation
    (its energy block) and flat mask of every agent, and its no-op (``noop_action``: the
    standing allocation and speed, E4.2), equal the reference env's."""
    at_allocation = decisions_match(variant(name), played(name).decisions, (0, 8))
    assert at_allocation > 10


@pytest.mark.parametrize("uniform", [False, True])
@pytest.mark.parametrize("name", DUELS)
def test_compiled_env_matches_with_infos_and_uniform_spaces(name, uniform):
    """The compiled env beside the reference env: observations, masks, rewards, ends and
    infos (``energy_shortfall``), agents without an action flying the no-op, also with
    ``uniform_spaces`` (``arm[h]`` and the energy block padded to the widest agent: the
    Kzinti's one disruptor beside two photons)."""
    ref, mine, o1 = env_pair(variant(name), uniform_spaces=uniform)
    for step in range(120):
        if not ref.agents:
            break
        o1, i1 = step_env_pair(ref, mine, o1, step)  # (a no-op every fourth step)
    assert all("energy_shortfall" in i for i in i1.values())
