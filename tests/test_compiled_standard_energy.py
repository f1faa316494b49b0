"""Phase parity of the standard Energy Allocation Form (B3.0 standard form, CTH-DATA §7.1, with
fractional accounting B3.2) on the compiled core (``sfb_env.compiled.energy``) with the
reference engine, on reachable states of 16-impulse duels played under ``rules.energy:
standard`` (``parity.variant``): the cadet ships there pay shields 1 and move at 1/2 a hex
(SCENARIOS #12) with the standard acceleration (CTH-DATA §7.3); and of the 32-impulse
full-size duels (life support, fire control, shields 2; the Orion Raider's 2/3 move cost).
Energy Allocation (the same arrays and decoded events after ``energy_allocation``: priority
1b's systems, unpaid shields and their ``EnergyShortfall``, the battery fraction of B3.2), a
volley on unpaid shields (CTH-DATA §7.4), the standard End of Turn with nothing to repair or
reinforce, the observation, masks and no-ops at decision points, and the compiled env beside
the reference env."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator

import numpy as np
import pytest
from compiled_phase_helpers import (
    Allocations,
    decisions_match,
    decoder,
    env_pair,
    play_recording_allocations,
    run_parity,
    run_parity_batched,
    step_env_pair,
)

from sfb_env.compiled import damage, energy, layout, parity, purse, tiers
from sfb_env.compiled.batch import build_reference
from sfb_env.engine import damage as ref_damage
from sfb_env.engine import energy_allocation, make_battle, rule_tables
from sfb_env.engine.boarding import CAPTURED_CONTROLLER
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import K_SHIP, Box

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)

STANDARD = {"energy": "standard"}
FRACTIONAL = {"energy": "standard", "fractional_accounting": True}
FULL = {"energy": "standard", "damage": "interim", "lock_on": False}
# name -> (shipped 16-impulse scenario, rules): plasma-F and disruptors; the PPD beside fusion
# beams and the phaser-G; the ESG; each also under fractional accounting (B3.2)
VARIANTS = {
    "gorn-klingon": ("duel-gorn-vs-klingon", STANDARD),
    "isc-hydran": ("grad-isc-vs-hydran", STANDARD),
    "lyran-hydran-frac": ("grad-lyran-vs-hydran", FRACTIONAL),
    "gorn-klingon-frac": ("duel-gorn-vs-klingon", FRACTIONAL),
    # the 32-impulse full-size duels (their standard DAC and lock-on replaced: other rule
    # areas): life support, fire control, shields 2; the Orion Raider's 2/3 move cost
    "full-gorn-klingon": ("duel-full-gorn-vs-klingon", FULL),
    "full-orion-klingon-frac": ("duel-full-orion-vs-klingon",
                                {**FULL, "cloak": "none", "fractional_accounting": True}),
}

# Full-size ships flown in a 16-impulse duel, for the Energy Allocation phase alone (the tiers
# keep these classes on the reference): life support, fire control and shields 2 (B3.0 lines
# 7, 8, 11), the Orion Raider's move cost 2/3 beside the cadet's 1/2 (den 6 under B3.2)
FULL_SHIPS = {
    "d7-gorn": ("duel-gorn-vs-klingon", STANDARD, ("klingon-cadet", "klingon-d7", None)),
    "raider-gorn-frac": ("duel-gorn-vs-klingon", FRACTIONAL,
                         ("klingon-cadet", "orion-raider", None)),
    "star-cruiser-klingon": ("duel-gorn-vs-klingon", STANDARD,
                             ("gorn-cadet", "isc-star-cruiser", None)),
}
ALLOCATIONS = [*VARIANTS, *FULL_SHIPS]


def variant(name: str) -> dict:
    if name in FULL_SHIPS:
        scenario, rules, swap = FULL_SHIPS[name]
        return parity.variant(scenario, rules=rules, swap=swap)
    scenario, rules = VARIANTS[name]
    return parity.variant(scenario, rules=rules)


def _pay(battle, orders, robot):
    energy_allocation.energy_allocation(battle, orders, rule_tables.ENERGY_PAYMENTS)


@functools.cache
def played(name: str, seeds: tuple[int, ...] = (0, 1), steps: int = 300) -> Allocations:
    """Random masked play of variant ``name`` on the reference env."""
    return play_recording_allocations(variant(name), seeds, steps)


def _cut(battle, k: int):
    """``battle`` with its engines cut down as damage would (warp, impulse, APR, batteries)."""
    cut = battle.copy()
    boxes = cut.state.boxes
    boxes[:, Box.WARP] = np.minimum(boxes[:, Box.WARP], k % 7)
    boxes[:, Box.IMPULSE] = np.minimum(boxes[:, Box.IMPULSE], k % 2)
    boxes[:, Box.APR] = np.minimum(boxes[:, Box.APR], (k // 2) % 2)
    boxes[:, Box.BATTERY] = np.minimum(boxes[:, Box.BATTERY], (k // 3) % 3)
    return cut


def test_tiers_accept_the_standard_form_without_its_unported_items():
    """(B3.0, B3.2) ``energy: standard`` and fractional accounting are ported; the standard
    form's reinforcement (D3.34), damage control (D9.2) and reserve power (H7.0) too
    (``compiled.engineering``, tests/test_compiled_engineering.py), but not beside a PPD
    (E11.39, E11.25) or an ESG (G23.212)."""
    for name in VARIANTS:
        assert tiers.why_not(build_reference(variant(name)).setup) is None, name
    for extra in ({"reinforcement": True}, {"damage_control": True}, {"reserve_power": True}):
        doc = parity.variant("duel-gorn-vs-klingon", rules={**STANDARD, **extra})
        setup = make_battle(load_scenario(doc), max_turns=6).setup
        assert tiers.why_not(setup) is None, extra
        doc = parity.variant("grad-isc-vs-hydran", rules={**STANDARD, **extra})
        setup = make_battle(load_scenario(doc), max_turns=6).setup
        assert tiers.why_not(setup) is not None, extra
        with pytest.raises(NotImplementedError):
            energy.energy_tables(setup)


def test_the_speed_rules_of_the_standard_form():
    """(CTH-DATA §7.3) standard acceleration: the greater of 2 x previous and previous + 10
    (cadet: previous + 8); a cadet ship among full-size ones moves at 1/2 warp a hex
    (SCENARIOS #12): 7 warp and 1 impulse pay speed 15."""
    setup = build_reference(variant("gorn-klingon")).setup
    et = energy.energy_tables(setup)
    u = int(np.flatnonzero(et.governed)[0])
    assert et.speed_rule[u].tolist() == [1, 2, 2, 10]
    assert [energy.speed_top(p, et.speed_rule, u) for p in (0, 5, 10, 16)] == [10, 15, 20, 32]
    boxes = np.zeros((1, len(et.governed), len(Box)), np.int64)
    boxes[0, u, Box.WARP], boxes[0, u, Box.IMPULSE] = 7, 1
    assert energy.payable_speed(boxes, et.speed_rule, 0, u) == 15
    assert et.systems[u].tolist() == [0, 0, 1]  # (SCENARIOS #12) shields 1, no LS/FC
    cadet = energy.energy_tables(build_reference(parity.variant(
        "duel-gorn-vs-klingon", rules={"energy": "cadet"})).setup)
    assert energy.speed_top(5, cadet.speed_rule, u) == 13
    assert cadet.systems[u].tolist() == [0, 0, 0]


@pytest.mark.parametrize("name", ALLOCATIONS)
def test_standard_energy_allocation_matches_the_reference(name):
    snaps = played(name).allocations
    assert len(snaps) > 10
    seen = run_parity(snaps, _pay, energy.energy_allocation, energy.energy_tables)
    assert seen.get("EnergyAllocated", 0) >= len(snaps)
    assert seen.get("WeaponArmed", 0) > 0
    assert run_parity_batched(snaps[:16], _pay, energy.energy_allocation,
                              energy.energy_tables) > 0


@pytest.mark.parametrize("name", ALLOCATIONS)
def test_the_standing_allocation_matches_the_reference(name):
    """Orders without energy components: the standing allocation (-1 in ``BatchOrders``)."""
    snaps = [(b, {u: dataclasses.replace(o, arm={}, capacitor=None, recharge=None)
                  for u, o in orders.items()}, None)
             for b, orders, _ in played(name).allocations]
    seen = run_parity(snaps, _pay, energy.energy_allocation, energy.energy_tables)
    assert seen.get("EnergyAllocated", 0) >= len(snaps)


@pytest.mark.parametrize("name", ALLOCATIONS)
def test_standard_allocation_short_of_power_matches_the_reference(name):
    """Engines cut down: movement lowered, then priority 1b's shields unpaid (``shields``
    shortfall, ``shields_active`` cleared, B3.0 line 11), arming dropped, the capacitor partly
    paid, batteries drawn (under B3.2 a battery left holding a fraction)."""
    snaps = [(_cut(b, k), o, None) for k, (b, o, _) in enumerate(played(name).allocations)]
    seen = run_parity(snaps, _pay, energy.energy_allocation, energy.energy_tables)
    assert seen.get("EnergyShortfall", 0) > 10, seen
    unpaid = fraction = 0
    for battle, orders, _ in snaps:
        ref = battle.copy()
        _pay(ref, orders, None)
        unpaid += int((~ref.state.shields_active).sum())
        fraction += int((ref.state.battery_fraction > 0).sum())
    assert unpaid > 0
    if name.endswith("-frac"):
        assert fraction > 0  # (B3.2) a partly discharged battery
    if name in FULL_SHIPS or name.startswith("full-"):  # (B3.0 lines 7, 8) a full-size
        #   ship's life support and fire control
        assert seen.get("EnergyShortfall", 0) > 0
        items = set()
        for battle, orders, _ in snaps:
            ref = battle.copy()
            n0 = len(ref.events)
            _pay(ref, orders, None)
            items |= {e.item for e in ref.events[n0:] if e.kind == "EnergyShortfall"}
        assert {"life support", "fire control", "shields"} <= items, items


def test_unpaid_fire_control_closes_fire():
    """(B3.0 standard line 8, PROPOSAL [P-028]; fire_energy.fire_blocker) a governed ship whose
    fire control went unpaid fires nothing, its phasers' capacitor and armed heavy weapons
    notwithstanding."""
    battle = build_reference(variant("gorn-klingon"))
    s = layout.pack([battle.state])
    et = energy.energy_tables(battle.setup)
    for w in range(len(battle.weapon_ids)):
        owner = int(s.w_owner[0, w])
        s.capacitor[0, owner] = 8.0
        s.w_armed[0, w] = True
        assert purse.fire_powered(s.w_type, s.w_armed, s.capacitor, s.fire_control,
                                   et.phaser_draw, 0, w, owner)
        s.fire_control[0, owner] = False
        assert not purse.fire_powered(s.w_type, s.w_armed, s.capacitor, s.fire_control,
                                       et.phaser_draw, 0, w, owner)
        s.fire_control[0, owner] = True


def _volleys_match(battle, u: int, prepare, shield: int) -> Iterator[tuple[int, int]]:
    """One volley on ship ``u`` of a copy of ``battle`` that ``prepare(state)`` changed, on
    shield #``shield`` (``apply_damage``) and split over #1 and #2 (``apply_split_volley``, a
    PPD pulse, E11.35), on both engines: the same state and events. Yields the shield boxes
    before and after each volley."""
    for split in ({shield: 5}, {1: 2, 2: 3}):
        ref = battle.copy()
        prepare(ref.state)
        s = layout.pack([ref.copy().state])
        ft = damage.fire_tables(battle.setup)
        n0 = len(ref.events)
        before = int(ref.state.shields[u].sum())
        if len(split) == 1:
            (shield, points), = split.items()
            ref_damage.apply_damage(ref, u, shield, points)
            damage.apply_damage_a(damage.view_of(s), ft, 0, u, shield, points)
        else:
            ref_damage.apply_split_volley(ref, u, split)
            arr = np.zeros(7, np.int64)
            for sh, p in split.items():
                arr[sh] = p
            damage.apply_split_volley_a(damage.view_of(s), ft, 0, u, arr, -1)
        assert layout.differences(s, 0, ref.state) == [], (u, split)
        assert decoder(battle).decode(s.ev[0, :s.ev_count[0]]) == ref.events[n0:]
        yield before, int(ref.state.shields[u].sum())


@pytest.mark.parametrize("name", ["gorn-klingon", "isc-hydran", "full-gorn-klingon"])
def test_a_volley_on_unpaid_shields_goes_inside(name):
    """(CTH-DATA §7.4, shield_absorption.apply_shield) a governed ship whose shields went
    unpaid absorbs nothing on any shield; ``apply_damage`` and a PPD's split volley
    (``apply_split_volley``, E11.35) give the same state and events."""
    checked = unpaid_took = 0
    for k, (battle, _, _) in enumerate(played(name).allocations[:24]):
        for u in np.flatnonzero(battle.state.kind == K_SHIP):
            def prepare(st, u=int(u), paid=k % 2 == 0):
                st.shields_active[u] = paid
            for before, after in _volleys_match(battle, int(u), prepare, 1 + k % 6):
                checked += 1
                unpaid_took += k % 2 == 1 and after < before
    assert checked > 20 and unpaid_took == 0


@pytest.mark.parametrize("name", ["gorn-klingon", "isc-hydran"])
def test_a_captured_ship_s_unpaid_shields_still_absorb(name):
    """(D7.0 capture, shield_absorption.absorbs) a captured ship leaves its player's form: its
    shields absorb with the boxes they have, though its last allocation left them unpaid
    (found by the 10,000-step fighting-captain parity run of cth-08, where the Orion Raider,
    captured, took a phaser-2 hit on shield #6)."""
    took = 0
    for k, (battle, _, _) in enumerate(played(name).allocations[:12]):
        for u in np.flatnonzero(battle.state.kind == K_SHIP):
            def prepare(st, u=int(u)):
                st.shields_active[u] = False
                st.captured_by[u] = 1 - int(st.side[u])
                st.controllers[u] = CAPTURED_CONTROLLER
            took += sum(after < before for before, after in _volleys_match(battle, int(u),
                                                                            prepare, 1 + k % 6))
    assert took > 10


@pytest.mark.parametrize("name", ["gorn-klingon", "lyran-hydran-frac"])
def test_the_standard_end_of_turn_changes_nothing_without_repairs_or_reinforcement(name):
    """``energy_allocation.end_of_turn`` (D9.2, D3.341) only clears damage control and
    reinforcement, which these variants never buy: no compiled counterpart is needed."""
    for battle, _, _ in played(name).allocations[:20]:
        ref = battle.copy()
        s = layout.pack([battle.copy().state])
        energy_allocation.end_of_turn(ref)
        assert layout.differences(s, 0, ref.state, layout.pack_cold([ref.state])) == []


@pytest.mark.parametrize("name", list(VARIANTS))
def test_observation_masks_and_noops_match_the_reference(name):
    """At played decision points: the compiled observation, flat mask (speed: the standard
    acceleration and the 1/2 move cost; fire and launch) and no-op (the standing speed at the
    move cost, E4.2) of every agent equal the reference env's."""
    decisions = played(name).decisions
    ipt = decisions[0][0].state.impulses_per_turn
    assert decisions_match(variant(name), decisions, (0, ipt)) > 10


@pytest.mark.parametrize("name", ["gorn-klingon", "lyran-hydran-frac", "full-gorn-klingon"])
def test_compiled_env_matches_with_infos(name):
    """The compiled env beside the reference env: observations, masks, rewards, ends and
    infos (``energy_shortfall``), agents without an action flying the no-op."""
    ref, mine, o1 = env_pair(variant(name))
    for step in range(150):
        if not ref.agents:
            break
        o1, i1 = step_env_pair(ref, mine, o1, step)
    assert all("energy_shortfall" in i for i in i1.values())
