"""Transporters, shield drops (G8.0, G8.24) and boarding-party combat (D7.0) in compiled code
against the reference engine: ``compiled.transporters`` and ``compiled.boarding`` phase by phase
on recorded games of scenario 8's convoy (the Shields/Transporters step, the combat step at End
of Turn, with captures), constructed combats, and the whole step in lockstep."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from compiled_phase_helpers import decoder, play_random_masked, raid_variant

import sfb_env
from sfb_env.compiled import boarding, layout, parity, tiers, transporters
from sfb_env.compiled.damage import fire_tables
from sfb_env.engine import boarding as ref_boarding
from sfb_env.engine import transporters as ref
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import K_FREIGHTER, K_SHIP

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)


def board_variant(raider_hex: str | None = "0316", defender_hex: str | None = None,
                  **rules) -> dict:
    """Scenario 8 with tractors, transporters and boarding but without lock-on and the
    scenario-unit rules (arrivals, may_leave, hold_fire_at; the ``duel`` verdict), the Orion
    Raider beside the convoy (``raider_hex``), the defender too where ``defender_hex``."""
    return raid_variant({"lock_on": False, **rules}, ",board", raider_hex, defender_hex)


def test_g8_d7_scenarios_are_compiled_and_refusals_named():
    """Transporters and boarding run on the compiled core; beside reserve power (H7.2) or
    fractional accounting (B3.2) they are refused with the rule named."""
    assert tiers.missing(make_battle(load_scenario(board_variant())).setup) == []
    for rules, rule in (({"reserve_power": True}, "H7.2"),
                        ({"fractional_accounting": True}, "B3.2")):
        doc = parity.with_rules(board_variant(), rules)
        assert rule in tiers.why_not(make_battle(load_scenario(doc)).setup)
    assert not transporters.transporter_tables(make_battle(load_scenario("cth-07")).setup).on


# ---------------------------------------------------------------------- recorded games


def _weaken(battle) -> None:
    """The freighters' shield pools and the ships' shields #1 to #3 down to 0 boxes (#4 to #6
    kept: drops open), every ship's and freighter's crew units 2 (transports then open on
    random play)."""
    st = battle.state
    rows = np.flatnonzero((st.kind == K_SHIP) | (st.kind == K_FREIGHTER))
    st.shields[np.flatnonzero(st.kind == K_FREIGHTER)] = 0
    st.shields[np.flatnonzero(st.kind == K_SHIP), :3] = 0
    st.crew_units[rows] = 2


@functools.cache
def _recorded(seeds: tuple[int, ...] = (0, 1, 2, 3), steps: int = 250) -> dict:
    """Reference games of ``board_variant`` (shields knocked down at the start, see
    ``_weaken``) by uniform masked random captains, copied at the entry of the
    Shields/Transporters step (with the orders) and of the boarding-party combat step."""
    snaps: dict[str, list] = {"step": [], "combat": []}
    saved = (ref.step, ref_boarding.end_of_turn)

    def step(battle, orders):
        snaps["step"].append((battle.copy(), dict(orders), None))
        saved[0](battle, orders)

    def combat(battle):
        snaps["combat"].append((battle.copy(), {}, None))
        saved[1](battle)

    ref.step, ref_boarding.end_of_turn = step, combat
    try:
        for doc in (board_variant(), board_variant("0316", "0217")):
            for seed in seeds:
                env = sfb_env.parallel_env(doc, backend="reference")
                obs, _ = env.reset(seed=seed)
                _weaken(env.battle)
                play_random_masked(env, obs, seed, steps)
    finally:
        ref.step, ref_boarding.end_of_turn = saved
    return snaps


def _replay(snaps: list, phase: str) -> dict:
    """Each snapshot's phase on a copy (reference) and on its packed state (compiled): equal
    arrays, dice and events. Returns the event kinds (and transport results) seen."""
    seen: dict[str, int] = {}
    for battle, orders, _ in snaps:
        setup = battle.setup
        st = battle.state
        mine = battle.copy()
        n0 = len(mine.events)
        s = layout.pack([battle.copy().state])
        if phase == "step":
            ref.step(mine, orders)
            width = int(st.tran_used_turn.shape[1])
            o = layout.pack_orders([orders], len(st.kind), len(st.w_type),
                                   tractor_beams=int(st.tractor_link.shape[1]),
                                   transporters=width)
            transporters.step(s, fire_tables(setup), transporters.transporter_tables(setup), 0,
                              o.drop_shield, o.transport, int(st.impulses_per_turn))
        else:
            ref_boarding.end_of_turn(mine)
            boarding.end_of_turn(s, boarding.boarding_tables(setup), 0)
        assert layout.differences(s, 0, mine.state) == [], (st.turn, st.impulse)
        want = mine.events[n0:]
        assert decoder(battle).decode(s.ev[0, :s.ev_count[0]]) == want
        for e in want:
            key = e.kind if e.kind != "Transported" else f"Transported:{e.result[:24]}"
            seen[key] = seen.get(key, 0) + 1
    return seen


def test_g8_shields_transporters_step_on_recorded_games():
    """(G8.0, G8.24) Every Shields/Transporters step of the recorded games: shields dropped
    and raised, parties beamed over, crew lifted, and the refusals at execution."""
    seen = _replay(_recorded()["step"], "step")
    assert seen.get("Transported:done", 0) > 0, seen
    assert seen.get("ShieldDropped", 0) > 0, seen


def test_d7_boarding_combat_on_recorded_games():
    """(D7.0) Every boarding-party combat step of the recorded games."""
    seen = _replay(_recorded()["combat"], "combat")
    assert seen.get("BoardingCombat", 0) > 0, seen


def test_d7_boarding_combat_captures_constructed():
    """(D7.0) Parties of 1..25 against 0..12 defenders aboard a freighter and a ship, two
    stations or six: the dice, losses, stations taken and captures equal the reference's."""
    battle = make_battle(load_scenario(board_variant()))
    st = battle.state
    rng = np.random.default_rng(3)
    ship = battle.unit_index["defender"]
    freighter = int(np.flatnonzero(st.kind == K_FREIGHTER)[0])
    cases = captures = 0
    for _ in range(300):
        mine = battle.copy()
        mst = mine.state
        u = ship if rng.random() < 0.5 else freighter
        mst.boarding_parties[u] = [int(rng.integers(1, 26)), int(rng.integers(0, 13))]
        mst.control_stations[u] = int(rng.integers(1, 7))
        mst.rng = np.random.default_rng(int(rng.integers(1 << 30)))
        snaps = [(mine, {}, None)]
        seen = _replay(snaps, "combat")
        captures += seen.get("Captured", 0)
        cases += 1
    assert cases == 300 and captures > 0


# ---------------------------------------------------------------------- lockstep


@pytest.mark.parametrize("defender_hex,policy", [(None, "random"), ("0217", "random"),
                                                 ("0217", "random-fighter")])
def test_g8_d7_lockstep(defender_hex, policy):
    """The whole step beside the reference: the transporter and drop masks, the boarding
    features, state, events and verdicts."""
    parity.lockstep(board_variant("0316", defender_hex), 2, 150, seed=1, policy=policy)

