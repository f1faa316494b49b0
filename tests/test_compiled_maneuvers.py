"""Sideslip (C4.0), tactical maneuvers (C5.0) and the owner's drone launch facing (FD1.2) in
compiled code (``compiled.maneuvers``) against the reference engine (``engine.movement``,
``engine.legality``, ``engine.seeking``, ``engine.energy_allocation._pay_tactical``): each rule
alone on variants of compiled shipped scenarios, in lockstep (observations, masks, events,
state), and the C3.2 speed-and-maneuver pairs the masks open passing the engine's validation.
The longer runs are marked slow."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_phase_helpers import validate_speed_choices

from sfb_env.compiled import parity, tiers
from sfb_env.compiled.batch import BattleBatch
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import Orders
from sfb_env.env.parallel import SFBParallelEnv

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)

SIDESLIP = {"sideslip": True}
TAC = {"tactical_maneuvers": True}
FACING = {"launch_facing": True}
ALL = {**SIDESLIP, **TAC, **FACING}
# the 32-impulse full-size game under the standard form (cth-07: the D7's drones, the Fed CA)
# and a 16-impulse cadet duel under the cadet form (the Klingon's drones, the Gorn's plasma)
CTH07 = "cth-07"
DUEL16 = "duel-gorn-vs-klingon"


def _variant(base, rules):
    return parity.variant(base, rules=rules)


@pytest.mark.parametrize("rules", [SIDESLIP, TAC, FACING, ALL],
                         ids=["sideslip", "tactical", "launch_facing", "all"])
def test_tiers_accept_the_movement_rules(rules):
    """(C4.0, C5.0, FD1.2) The three rules no longer keep a battle on the reference: a variant
    of a compiled scenario with them on is compiled."""
    for base in (CTH07, DUEL16):
        setup = make_battle(load_scenario(_variant(base, rules))).setup
        assert tiers.missing(setup) == []


def test_shipped_scenarios_with_the_movement_and_engineering_rules_are_compiled():
    """(C4.0, C5.0, FD1.2 beside D3.34, D9, H7, G6) cth-10, cth-12 and cth-13 have nothing
    left on the reference."""
    for name in ("cth-10", "cth-12", "cth-13"):
        assert tiers.missing(make_battle(load_scenario(name)).setup) == [], name


@pytest.mark.parametrize("base,rules,events", [
    (CTH07, SIDESLIP, ("Moved(sideslip)",)),
    (CTH07, TAC, ("TacticalPlotted", "TacticalManeuver")),
    (DUEL16, SIDESLIP, ("Moved(sideslip)",)),
    (DUEL16, TAC, ("TacticalPlotted", "TacticalManeuver")),
    (DUEL16, FACING, ("Launched",)),
], ids=["cth07-sideslip", "cth07-tac", "duel16-sideslip", "duel16-tac", "duel16-facing"])
def test_rule_alone_in_lockstep(base, rules, events):
    """(C4.1-C4.33, C5.11-C5.4, FD1.2) Random masked play, each rule alone: the compiled core
    and the reference agree on every step, and the rule's events are played."""
    report = parity.lockstep(_variant(base, rules), num_battles=2, steps=120, seed=3)
    for kind in events:
        assert report.events.get(kind, 0) > 0, report.line()


def test_launch_facing_mask_and_orders_match_the_reference():
    """(FD1.2) With the owner's facing: the ``launch[r]`` values past the slots open exactly
    where the reference's ``facing_blocker`` allows (the target in the drone's FA; in its hex
    only the launcher's facing), and a drone launched with one takes that facing."""
    scenario = _variant(DUEL16, FACING)
    rng = np.random.default_rng(0)
    opened = launched = 0
    for seed in range(6):
        batch = BattleBatch(scenario, 1, seed=seed)
        env = SFBParallelEnv(scenario, max_turns=batch.setup.max_turns)
        batch.reset()  # (first: it draws the battle's seed, which the env then takes)
        obs, _ = env.reset(seed=int(batch.seeds[0]))
        for k, a in enumerate(env.possible_agents):  # the random actions seeded too
            env.action_space(a).seed(100 * seed + k)
        actions = np.zeros((1, len(batch.agents), batch.nvec.shape[1]), np.int64)
        for _ in range(150):
            acts, facings = {}, {}
            for i, a in enumerate(env.agents):
                lay = env._layouts[a]
                mask = obs[a]["action_mask"]
                assert np.array_equal(batch.masks[0, i, :len(mask)], mask)
                parts = env.action_space(a).split_mask(mask)
                act = env.action_space(a).sample(mask=mask)
                for c, comp in enumerate(lay.components):
                    if comp.kind == "launch" and comp.facings:
                        for k, t in enumerate(env._slots[a], start=1):
                            if t < 0:  # an empty slot: nothing open
                                assert not parts[c][comp.value(k, 0):comp.value(k, 5) + 1].any()
                                continue
                            for f in range(6):
                                rule = (env.battle.launch_blockers(comp.row, [t])[0]
                                        or env.battle.launch_facing_blocker(comp.row, int(t),
                                                                             f))
                                assert parts[c][comp.value(k, f)] == (rule is None)
                        values = np.flatnonzero(parts[c][lay.slots + 1:]) + lay.slots + 1
                        if len(values):  # launch with the owner's facing
                            act[c] = int(rng.choice(values))
                            facings[comp.row] = (act[c] - lay.slots - 1) % 6
                            opened += 1
                acts[a] = act
                actions[0, i, :len(act)] = act
            batch.step(actions)
            n_before = len(env.battle.events)
            obs, *_ = env.step(acts)
            if batch.ended[0]:
                break
            for e in env.battle.events[n_before:]:
                rack = env.battle.weapon_ids.index(e.rack) if e.kind == "Launched" else -1
                if rack in facings:
                    want = facings[rack]
                    assert "ABCDEF".index(e.facing) == want
                    d = env.battle.unit_index[e.drone]
                    assert int(batch.state.facing[0, d]) == want
                    launched += 1
        if launched >= 3:
            break
    assert opened > 0 and launched > 0


@pytest.mark.parametrize("base,only_none", [(DUEL16, False), (CTH07, True)],
                         ids=["16-impulses", "32-impulses"])
def test_tactical_plots_and_slips_keep_the_speed_choice_legal(base, only_none):
    """(C3.2, C4.1, C5.11, C5.23) Where orders pick next turn's speed, every (maneuver, speed or
    TAC plot) pair the compiled masks open passes the engine's validation, with sideslip and
    TAC on: on the 16-impulse chart the top speed moves on impulse 1 (a slip is open with it),
    on the 32-impulse chart no ship speed does and no TAC is open on impulse 1, so the maneuver
    mask opens NONE alone (C1.41, C1.42: ``tiers.JOINT_SPEED_MANEUVER_CHECK`` stays off)."""
    scenario = _variant(base, {**SIDESLIP, **TAC})
    checked = 0
    for seed in range(2):
        batch = BattleBatch(scenario, 1, seed=seed)
        env = SFBParallelEnv(scenario, max_turns=batch.setup.max_turns, illegal_action="raise")
        batch.reset()  # (first: it draws the battle's seed, which the env then takes)
        obs, _ = env.reset(seed=int(batch.seeds[0]))
        for k, a in enumerate(env.possible_agents):  # the random actions seeded too
            env.action_space(a).seed(100 * seed + k)
        actions = np.zeros((1, len(batch.agents), batch.nvec.shape[1]), np.int64)
        for _ in range(80):
            for i, a in enumerate(env.agents):
                mask = obs[a]["action_mask"]
                assert np.array_equal(batch.masks[0, i, :len(mask)], mask)
            checked += validate_speed_choices(env, obs, f"seed {seed}", only_none=only_none)
            acts = {a: env.action_space(a).sample(mask=obs[a]["action_mask"])
                    for a in env.agents}
            for i, a in enumerate(env.agents):
                actions[0, i, :len(acts[a])] = acts[a]
            batch.step(actions)
            obs, *_ = env.step(acts)
            if env.battle.done:
                break
    assert checked > 0


@pytest.mark.parametrize("base", [CTH07, DUEL16])
def test_tac_plot_payment_matches_the_reference(base):
    """(C5.11, C5.12, C5.22, B3.0 line 14, B3.2) Energy Allocation of ships on TAC plots with
    0..4 warp maneuvers and their warp and impulse engines cut to every level: the compiled
    ``energy_allocation`` (``maneuvers.pay_tactical``) pays the same warp (each maneuver the
    warp of one hex at the move cost) and impulse (1 for the sublight maneuver, none without
    impulse power: ``tac_sublight``), lowers a plot warp no longer pays the same way
    (``EnergyShortfall`` "tactical", ``SpeedSet``) and logs the same events."""
    from compiled_phase_helpers import run_parity

    from sfb_env.compiled import energy
    from sfb_env.engine import energy_allocation, rule_tables
    from sfb_env.engine.types import Box

    battle = make_battle(load_scenario(_variant(base, TAC)), seed=0)
    rng = np.random.default_rng(1)
    snaps = []
    for _ in range(24):
        b = battle.copy()
        st = b.state
        for u in (0, 1):
            st.tactical[u] = bool(rng.integers(0, 4))
            st.speed[u] = int(rng.integers(0, 5)) if st.tactical[u] else int(st.speed[u])
            st.boxes[u, Box.WARP] = int(rng.integers(0, int(st.boxes[u, Box.WARP]) + 1))
            st.boxes[u, Box.IMPULSE] = int(rng.integers(0, int(st.boxes[u, Box.IMPULSE]) + 1))
        snaps.append((b, {0: Orders(), 1: Orders()}, []))
    seen = run_parity(snaps, lambda b, o, r: energy_allocation.energy_allocation(
        b, o, rule_tables.ENERGY_PAYMENTS), energy.energy_allocation, energy.energy_tables)
    assert seen.get("EnergyShortfall", 0) > 0 and seen.get("SpeedSet", 0) > 0, seen
    lowered = no_sublight = 0  # (coverage) plots lowered, TAC ships without impulse power
    for b, orders, _ in snaps:
        ref = b.copy()
        n0 = len(ref.events)
        energy_allocation.energy_allocation(ref, orders, rule_tables.ENERGY_PAYMENTS)
        lowered += sum(e.kind == "EnergyShortfall" and e.item == "tactical"
                       for e in ref.events[n0:])
        no_sublight += int(np.sum(ref.state.tactical[:2] & ~ref.state.tac_sublight[:2]))
    assert lowered > 0 and no_sublight > 0


LONG_RUNS = [
    *[(base, rules, "random", 1, 500) for base in (CTH07, DUEL16)
      for rules in (SIDESLIP, TAC, FACING)],
    (CTH07, ALL, "random-fighter", 16, 300),
    (DUEL16, ALL, "random-fighter", 16, 300),
    (CTH07, ALL, "doctrine", 2, 400),
]


@pytest.mark.slow
@pytest.mark.parametrize("base,rules,policy,battles,steps", LONG_RUNS,
                         ids=[f"{r[0]}-{'+'.join(r[1])}-{r[2]}" for r in LONG_RUNS])
def test_rules_in_long_lockstep(base, rules, policy, battles, steps):
    """The proving runs of docs/compiled.md (sideslip, TAC, launch facing): no difference."""
    report = parity.lockstep(_variant(base, rules), num_battles=battles, steps=steps, seed=1,
                             policy=policy)
    assert report.steps == steps
