"""Full-size scenarios 7 (Single Combat), 10 (Direct Combat), 12 (Force Dynamics) and 13 (Earning
Respect, PROPOSAL): set-ups, random masked play to the end, determinism. PettingZoo's
``parallel_api_test`` / ``parallel_seed_test`` and the both-ways mask test run on them in
``test_env_api.py`` and ``test_env_masks.py`` (parametrised over every listed scenario)."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import play_random, random_orders, row
from fuzz_helpers import assert_fights, fuzz_games

import sfb_env
from sfb_env.engine import energy, make_battle

NAMES = ("cth-07", "cth-10", "cth-12", "cth-13")
MAX_TURNS = 10  # the book sets no turn limit (scenario 5's rule): the env's cap for tests


def test_cth_07_setup_single_combat():
    b = make_battle("cth-07", seed=0)
    sc = b.scenario
    assert sc.impulses_per_turn == 32 and sc.rules.max_speed == 31  # (C1.42)
    assert sc.rules.energy == "standard" and sc.rules.damage == "standard_dac"
    assert sc.rules.drone_warhead == 12  # (CTH-DATA §5.2) full-size ships
    assert [(u.unit_class, u.hex, u.facing, u.speed) for u in sc.units] == [
        ("klingon-d7", "0216", 1, 20), ("fed-ca", "2801", 4, 20)]
    assert not any(getattr(sc.rules, k) for k in (
        "reinforcement", "damage_control", "reserve_power", "sideslip", "tactical_maneuvers",
        "mutiny"))
    # previous speed 20: up to max(40, 30), capped at 31
    assert not b.speed_blockers(row(b, "destruction"))


@pytest.mark.parametrize("name", ("cth-10", "cth-13"))
def test_cth_10_and_13_wire_the_scenario_10_rules(name):
    b = make_battle(name, seed=0)
    rules = b.rules
    assert all(getattr(rules, k) for k in ("sideslip", "tactical_maneuvers", "reinforcement",
                                  "damage_control", "reserve_power", "mutiny"))
    assert rules.shield_boundary == "advanced"
    env = sfb_env.parallel_env(name)
    env.reset(seed=0)
    names = env._layouts[env.agents[0]].component_names()
    assert {"reinforce_general", "reinforce[5]", "reinforce_hold", "repair[5]"} <= set(names)


def test_cth_12_three_cadet_cruisers_among_full_size_rules():
    b = make_battle("cth-12", seed=0)
    fed = [row(b, u) for u in ("constellation", "enterprise", "excalibur")]
    assert [b.label(u) for u in fed] == ["2801", "2802", "2803"]
    assert all(energy.cadet_among_full(b, u) for u in fed)
    assert not energy.cadet_among_full(b, row(b, "destruction"))
    assert all(b.state.dac_boxes[u].sum() == 0 for u in fed)  # cadet DAC (SCENARIOS #12)
    assert b.state.dac_boxes[row(b, "destruction")].sum() > 0


@pytest.mark.parametrize("name", NAMES)
def test_fuzz_a_mixed_game_to_the_end_of_turn_2(name):
    # captains that fight (fuzz_helpers; seed 2 plays "mixed": a doctrine captain with random
    # components against random-fighter): random play announced disengagement at once here
    # (SCENARIOS #5 rule); the full coverage floors are test_fuzz.py's
    assert_fights(name, fuzz_games(name, [2], to_the_end=True, max_turns=2))


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_fuzz_30_seeds_to_the_end(name):
    cov = fuzz_games(name, range(30), to_the_end=True, max_turns=MAX_TURNS)
    assert_fights(name, cov, turns=5)


@pytest.mark.parametrize("name", NAMES)
def test_full_size_games_are_deterministic(name):
    assert play_random(name, 5, max_turns=3).events == play_random(name, 5, max_turns=3).events


def _with_r10_orders(b, orders: dict, g: np.random.Generator) -> dict:
    """Add random legal reinforcement and damage-control orders (engine blockers) at Energy
    Allocation."""
    if not energy.allocation_open(b):
        return orders
    for u, order in orders.items():
        if not energy.governed(b, u):
            continue
        open_gr = [k for k in range(energy.REINFORCE_GENERAL_MAX + 1)
                   if k not in energy.reinforce_general_blockers(b, u)]
        order.reinforce_general = int(g.choice(open_gr[:4]))
        for s in range(1, 7):
            open_s = [k for k in range(energy.REINFORCE_SPECIFIC_MAX + 1)
                      if k not in energy.reinforce_blockers(b, u, s)]
            if g.random() < 0.3:
                order.reinforce[s] = int(g.choice(open_s[:5]))
        repairs = [k for k in range(energy.REPAIR_VALUES) if k not in energy.repair_blockers(b, u)]
        order.repair = int(g.choice(repairs))
    return orders


def test_cth_10_combat_with_reinforcement_damage_control_and_reserve_power():
    seen: set[str] = set()
    for seed in range(3):
        b = make_battle("cth-10", seed=seed, max_turns=6)
        g = np.random.default_rng(seed)
        while not b.done:
            b.step(_with_r10_orders(b, random_orders(b, g), g))
        seen |= {e.kind for e in b.events}
    assert {"ShieldsReinforced", "Damaged", "ReserveDischarged"} <= seen
