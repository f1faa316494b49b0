"""The standard form's engineering rules on the compiled core (``sfb_env.compiled.engineering``)
against the reference engine: shield reinforcement (D3.34: general D3.341, specific D3.342,
D3.343, the D3.3411 order and its held-inactive note, PROPOSAL [P-033]), damage control (D9.1
rating, D9.2 repairs at End of Turn, [P-034]) and reserve power (H7.1, H7.2: batteries into a
struck shield, [P-031], and at fire). Phase parity on reachable states of cth-07 (D7 against
the Federation CA: 32 impulses, standard energy, standard DAC, lock-on) played with these rules
(``parity.variant``): Energy Allocation with reinforcement and repair orders, End of Turn with
repairs due, volleys on reinforced shields with and without batteries; then short lockstep
runs of the compiled env beside the reference env. The long runs are ``@pytest.mark.slow``.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest
from compiled_phase_helpers import decoder, play_recording_allocations, run_parity

from sfb_env.compiled import damage, energy, engineering, layout, parity, tiers
from sfb_env.compiled.batch import build_reference
from sfb_env.engine import damage as ref_damage
from sfb_env.engine import energy_allocation, energy_form, make_battle, rule_tables
from sfb_env.engine.dac import DacBox
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import K_SHIP

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)

RULES = {
    "reinforcement": {"reinforcement": True},
    "damage_control": {"damage_control": True},
    "reserve_power": {"reserve_power": True},
    "mutiny": {"mutiny": True},
    "all": {"reinforcement": True, "damage_control": True, "reserve_power": True,
            "mutiny": True},
}


def variant(name: str) -> dict:
    return parity.variant("cth-07", rules=RULES[name])


@functools.cache
def played(name: str = "all", seeds: tuple[int, ...] = (0, 1), steps: int = 130):
    """Random masked play of the cth-07 variant ``name`` on the reference env."""
    return play_recording_allocations(variant(name), seeds, steps)


def _pay(battle, orders, robot):
    energy_allocation.energy_allocation(battle, orders, rule_tables.ENERGY_PAYMENTS)


def _damaged(battle, k: int):
    """``battle`` with shield boxes lost on earlier turns and the damage-control track cut (the
    rating falls, D9.1), as a fight would leave it."""
    cut = battle.copy()
    st = cut.state
    rng = np.random.default_rng(k)
    for u in np.flatnonzero(st.kind == K_SHIP):
        st.shields[u] = np.maximum(0, st.shields[u] - rng.integers(0, 8, 6))
        st.dac_boxes[u, DacBox.DAMAGE_CONTROL] = min(int(st.dac_boxes[u, DacBox.DAMAGE_CONTROL]),
                                                     int(rng.integers(0, 5)))
    return cut


def _orders(battle, orders: dict, k: int) -> dict:
    """``orders`` with engineering orders added: specific and general reinforcement, a held GR
    every third time, repairs of 1 or 2 boxes (the clamp trims them, PROPOSAL [P-034])."""
    rng = np.random.default_rng(100 + k)
    out = {}
    for u, o in orders.items():
        out[u] = dataclasses.replace(
            o, reinforce={s: int(rng.integers(1, 6)) for s in range(1, 7) if rng.random() < .4},
            reinforce_general=int(rng.integers(0, 8)), reinforce_hold=int(k % 3 == 0),
            repair_boxes={s: int(rng.integers(1, 3)) for s in range(1, 7) if rng.random() < .5})
    return out


def test_tiers_accept_the_engineering_rules_on_the_standard_form():
    """(D3.34, D9, H7, G6) ported on the standard form; refused beside a PPD (E11.39, E11.25);
    mutiny refused where the mutinous ship has others of its side (G6.34)."""
    for name in RULES:
        assert tiers.why_not(build_reference(variant(name)).setup) is None, name
    isc = parity.variant("grad-isc-full-vs-klingon", rules=RULES["reinforcement"])
    setup = make_battle(load_scenario(isc)).setup
    assert tiers.why_not(setup) is not None
    with pytest.raises(NotImplementedError):
        energy.energy_tables(setup)
    assert tiers.why_not(build_reference(variant("mutiny")).setup) is None


def test_the_damage_control_rating_follows_the_track():
    """(D9.1) the rating is the best undestroyed box of the damage-control track, boxes lost
    best first (D4.33); 0 with none left."""
    battle = build_reference(variant("damage_control"))
    et = energy.energy_tables(battle.setup)
    s = layout.pack([battle.state])
    for u in np.flatnonzero(et.governed):
        track = battle.ship_classes[u].damage_control_track
        assert len(track) >= 2
        for left in range(len(track) + 1):
            battle.state.dac_boxes[u, DacBox.DAMAGE_CONTROL] = left
            s.dac_boxes[0, u, DacBox.DAMAGE_CONTROL] = left
            assert engineering.rating(s.dac_boxes, et.dc_rating, et.dc_box, 0, u) == (
                energy_form.dc_rating(battle, int(u))), (u, left)


def test_energy_allocation_with_engineering_orders_matches_the_reference():
    """(D3.341, D3.342, D3.343, D3.3411 note, D9.2) Energy Allocation of played states, the
    ships damaged and ordering reinforcement and repairs: the same arrays (``reinf_*``,
    ``dc_repairs``, batteries) and events (``ShieldsReinforced``, ``GeneralReinforcementHeld``,
    ``EnergyShortfall`` "reinforce:#s" / "reinforce_general" / "repair:#s")."""
    snaps = [(_damaged(b, k), _orders(b, o, k), None)
             for k, (b, o, _) in enumerate(played().allocations)]
    assert len(snaps) >= 8
    seen = run_parity(snaps, _pay, energy.energy_allocation, energy.energy_tables)
    assert seen.get("ShieldsReinforced", 0) > 0, seen
    assert seen.get("GeneralReinforcementHeld", 0) > 0, seen
    repairs = 0
    for battle, orders, _ in snaps:
        ref = battle.copy()
        _pay(ref, orders, None)
        repairs += int(ref.state.dc_repairs.sum())
    assert repairs > 0


def test_end_of_turn_repairs_and_clears_like_the_reference():
    """(D9.2) damage control restores the boxes paid for, never above the printed ones
    (``ShieldsRepaired``); (D3.341, D3.342) reinforcement left vanishes."""
    checked = 0
    et = None
    for k, (battle, orders, _) in enumerate(played().allocations):
        paid = _damaged(battle, k)
        _pay(paid, _orders(battle, orders, k), None)
        paid.state.impulse = paid.state.impulses_per_turn
        ref = paid.copy()
        s = layout.pack([paid.copy().state])
        n0 = len(ref.events)
        energy_allocation.end_of_turn(ref)
        et = et or energy.energy_tables(battle.setup)
        engineering.end_of_turn(s.status, s.shields, s.dc_repairs, s.reinf_general,
                                s.reinf_specific, s.reinf_held, s.ev, s.ev_count,
                                int(s.turn[0]), int(s.impulse[0]), et.init_shields, 0)
        assert layout.differences(s, 0, ref.state) == [], k
        assert decoder(battle).decode(s.ev[0, :s.ev_count[0]]) == ref.events[n0:]
        checked += sum(e.kind == "ShieldsRepaired" for e in ref.events[n0:])
    assert checked > 0


@pytest.mark.parametrize("kept", [False, True])
def test_volleys_on_reinforced_shields_match_the_reference(kept):
    """(D3.3411) general reinforcement (unless held), then specific, then boxes; (H7.2,
    PROPOSAL [P-031]) the charged batteries go into the struck shield unless the owner kept
    them (H7.1, ``reserve_kept``): the same state and events (``ReserveDischarged``)."""
    checked = discharged = 0
    ft = None
    for k, (battle, orders, _) in enumerate(played().allocations):
        paid = _damaged(battle, k)
        _pay(paid, _orders(battle, orders, k), None)
        paid.state.impulse = 5
        paid.state.reserve_kept[:] = kept
        for u in np.flatnonzero(paid.state.kind == K_SHIP):
            for shield, points in ((1 + k % 6, 3 + k), (1 + (k + 3) % 6, 9)):
                ref = paid.copy()
                s = layout.pack([paid.copy().state])
                ft = ft or damage.fire_tables(battle.setup)
                n0 = len(ref.events)
                ref_damage.apply_damage(ref, int(u), shield, points)
                damage.apply_damage_a(damage.view_of(s), ft, 0, int(u), shield, points)
                assert layout.differences(s, 0, ref.state) == [], (k, u, shield)
                got = decoder(battle).decode(s.ev[0, :s.ev_count[0]])
                assert got == ref.events[n0:]
                discharged += sum(e.kind == "ReserveDischarged" for e in got)
                checked += 1
    assert checked > 20
    assert (discharged == 0) == kept


@pytest.mark.parametrize("name", sorted(RULES))
def test_random_masked_play_matches(name):
    report = parity.lockstep(variant(name), num_battles=1, steps=100, seed=3)
    assert report.events.get("EnergyAllocated", 0) > 0


def test_fighting_captains_match_with_every_engineering_rule():
    report = parity.lockstep(variant("all"), num_battles=4, steps=70, seed=7,
                             policy="random-fighter")
    assert report.events.get("Fired", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RULES))
@pytest.mark.parametrize("policy", ["random", "random-fighter"])
def test_engineering_long_runs_match(name, policy):
    report = parity.lockstep(variant(name), num_battles=16, steps=300, seed=23, policy=policy)
    print(report.line())
    assert report.episodes > 0


@pytest.mark.parametrize("control_spaces_left", [True, False])
def test_the_mutiny_rolls_match_the_reference(control_spaces_left):
    """(G6.2) the roll at once when the last security station falls and at End of Turn while
    rolling: 1 a mutiny (G6.23: -1 with every control space destroyed), then 1-3 put down
    (G6.24), else stopped and captured by the enemy (G6.31-G6.34; ``Mutiny``, ``Captured``)."""
    from sfb_env.engine import mutiny as ref_mutiny

    battle = build_reference(variant("mutiny"))
    ft = damage.fire_tables(battle.setup)
    d7 = int(np.flatnonzero(ft.security)[0])
    results = set()
    for seed in range(40):
        ref = battle.copy()
        ref.rng = np.random.default_rng(seed)
        ref.state.rng = ref.rng
        ref.state.dac_boxes[d7, DacBox.SECURITY] = 0
        if not control_spaces_left:
            for box in ref_mutiny.CONTROL_SPACES:
                ref.state.dac_boxes[d7, box] = 0
        at_end = seed % 2 == 1
        if at_end:
            ref.state.mutiny[d7] = ref_mutiny.ROLLING
        s = layout.pack([ref.copy().state])
        n0 = len(ref.events)
        if at_end:
            ref_mutiny.end_of_turn(ref)
            engineering.mutiny_end_of_turn(
                s.status, s.mutiny, s.dac_boxes, s.captured_by, s.control_stations, s.speed,
                s.dice, s.ev, s.ev_count, int(s.turn[0]), int(s.impulse[0]), ft.mutiny_shift,
                ft.captor, 0)
        else:
            ref_mutiny.after_damage(ref, d7)
            engineering.after_damage(
                s.status, s.mutiny, s.dac_boxes, s.captured_by, s.control_stations, s.speed,
                s.dice, s.ev, s.ev_count, int(s.turn[0]), int(s.impulse[0]), ft.security,
                ft.mutiny_shift, ft.captor, 0, d7)
        assert layout.differences(s, 0, ref.state) == [], seed
        got = decoder(battle).decode(s.ev[0, :s.ev_count[0]])
        assert got == ref.events[n0:], seed
        results |= {e.result for e in got if e.kind == "Mutiny"}
    assert "no mutiny" in results and len(results) >= 2, results
