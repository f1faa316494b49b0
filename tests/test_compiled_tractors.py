"""Tractor beams (G7.0; CTH-DATA §8.3, §7.3) in compiled code against the reference engine:
``compiled.tractors`` phase by phase on recorded games (the Tractor Beams step, towing after
Move Ships, the start of a turn, End of Impulse's link check), the towing speed of every move
cost, and the whole step in lockstep on variants that reach attachments, contests, towing off
the map and lapses."""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction

import numpy as np
import pytest
from compiled_phase_helpers import decoder, play_random_masked, raid_variant  # noqa: I001

import sfb_env
from sfb_env.compiled import layout, parity, procedure, tiers, tractors
from sfb_env.compiled.movement import move_tables
from sfb_env.engine import tractors as ref
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import ACTIVE, K_FREIGHTER, K_SHIP, Orders

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)


def tow_variant(raider_hex: str | None = "0316", defender_hex: str | None = None) -> dict:
    """Scenario 8 with tractors alone (no transporters, boarding, lock-on, arrivals or
    scenario-unit rules; plain freighters; the ``duel`` verdict), the Orion Raider set beside
    the convoy (``raider_hex``) so that random play reaches the freighters, the defender too
    (``defender_hex``: two ships on one freighter contest it, G7.0)."""
    return raid_variant({"transporters": False, "boarding": False, "lock_on": False}, ",tow",
                        raider_hex, defender_hex, plain_freighters=True)


def drones_variant() -> dict:
    """cth-07 with tractors: the Federation CA may hold the D7's drones (G7.0)."""
    return parity.variant("cth-07", rules={"tractors": True})


def test_g7_tractor_scenarios_are_compiled_and_refusals_named():
    """Tractors alone run on the compiled core; beside reserve power (H7.2) they are refused
    with the rule named; a battle without tractors builds its tables switched off."""
    for doc in (tow_variant(), drones_variant()):
        assert tiers.missing(make_battle(load_scenario(doc)).setup) == []
    reserve = parity.with_rules(drones_variant(), {"reserve_power": True})
    assert "H7.2" in tiers.why_not(make_battle(load_scenario(reserve)).setup)
    assert not tractors.tractor_tables(make_battle(load_scenario("cth-07")).setup).on


# ---------------------------------------------------------------------- the towing speed


@pytest.mark.parametrize("frac", [False, True])
def test_cth_data_7_3_towing_speed_matches_the_reference(frac):
    """(CTH-DATA §7.3) ``recompute_speed`` on every base speed 0..31 with 1..4 freighters in
    tow, for the Orion's 2/3, the CA's 1 and a cadet's 1/2 (under B3.2 and without): the
    speed and its ``SpeedSet`` equal ``engine.tractors.recompute_speed``'s."""
    doc = parity.with_rules(tow_variant(), {"fractional_accounting": frac})
    battle = make_battle(load_scenario(doc))
    setup = battle.setup
    tt = tractors.tractor_tables(setup)
    raider = battle.unit_index["queen-of-diamonds"]
    freighters = [u for u in range(len(setup.unit_ids)) if battle.state.kind[u] == K_FREIGHTER]
    cases = 0
    for num, den in ((2, 3), (1, 1), (1, 2)):
        tt = tt._replace(move_num=tt.move_num.copy(), move_den=tt.move_den.copy())
        tt.move_num[raider], tt.move_den[raider] = num, den
        battle.ship_classes[raider] = dataclasses.replace(battle.ship_classes[raider],
                                                          move_cost=Fraction(num, den))
        for towed in range(1, 5):
            for base in range(32):
                mine = battle.copy()
                st = mine.state
                st.tractor_base_speed[raider] = base
                st.speed[raider] = base
                # (a link row four wide: more freighters than the sheet's beams)
                st.tractor_link = np.full((len(st.kind), 4), -1, dtype=np.int64)
                st.tractor_link[raider, :towed] = freighters[:towed]
                s = layout.pack([st])
                n0 = len(mine.events)
                ref.recompute_speed(mine, raider)
                tractors.recompute_speed(s, tt, 0, raider)
                assert s.speed[0, raider] == st.speed[raider], (num, den, towed, base)
                got = decoder(mine).decode(s.ev[0, :s.ev_count[0]])
                assert got == mine.events[n0:]
                cases += 1
    assert cases == 3 * 4 * 32


# ---------------------------------------------------------------------- recorded games


@functools.cache
def _recorded(seeds: tuple[int, ...] = (0, 1, 2, 3), steps: int = 300) -> dict:
    """Reference games of ``tow_variant`` and ``drones_variant`` by uniform masked random
    captains, copied at the entry of each tractor phase (with the impulse's orders)."""
    snaps: dict[str, list] = {"step": [], "tow": [], "start": [], "links": []}
    saved = (ref.tractor_step, ref.tow, ref.start_turn, ref.check_links)

    def hook(name, real, with_orders):
        def run(battle, *args):
            snaps[name].append((battle.copy(), dict(args[0]) if with_orders else {}, None))
            real(battle, *args)
        return run

    ref.tractor_step = hook("step", saved[0], True)
    ref.tow = hook("tow", saved[1], False)
    ref.start_turn = hook("start", saved[2], False)
    ref.check_links = hook("links", saved[3], False)
    try:
        for doc in (tow_variant(), drones_variant()):
            for seed in seeds:
                env = sfb_env.parallel_env(doc, backend="reference")
                obs, _ = env.reset(seed=seed)
                play_random_masked(env, obs, seed, steps)
    finally:
        ref.tractor_step, ref.tow, ref.start_turn, ref.check_links = saved
    return snaps


def _replay(snaps: list, phase) -> dict:
    """Each snapshot's phase on a copy (reference) and on its packed state (compiled): equal
    arrays, dice and events. Returns the event kinds seen."""
    seen: dict[str, int] = {}
    for battle, orders, _ in snaps:
        setup = battle.setup
        st = battle.state
        ipt = int(st.impulses_per_turn)
        width = int(st.tractor_link.shape[1])
        mine = battle.copy()
        n0 = len(mine.events)
        s = layout.pack([battle.copy().state])
        tt = tractors.tractor_tables(setup)
        if phase == "step":
            ref.tractor_step(mine, orders)
            o = layout.pack_orders([orders], len(st.kind), len(st.w_type), width)
            tractors.tractor_step(s, tt, 0, o.tractor, ipt)
        elif phase == "tow":
            ref.tow(mine)
            tractors.tow(s, tt, move_tables(setup), 0)
        elif phase == "start":
            ref.start_turn(mine)
            tractors.start_turn(s, tt, 0, ipt)
        else:
            ref.check_links(mine)
            tractors.check_links(s, tt, 0, ipt)
        assert layout.differences(s, 0, mine.state) == [], (st.turn, st.impulse)
        want = mine.events[n0:]
        assert decoder(battle).decode(s.ev[0, :s.ev_count[0]]) == want
        for e in want:
            seen[e.kind] = seen.get(e.kind, 0) + 1
    return seen


def test_g7_tractor_beams_step_on_recorded_games():
    """(G7.0, B2.0 advanced sequence) Every Tractor Beams step of the recorded games:
    releases, attachments (freighters, enemy drones), contests and the towing speed set at
    once (CTH-DATA §7.3)."""
    seen = _replay(_recorded()["step"], "step")
    assert seen.get("TractorAttached", 0) > 0 and seen.get("TractorReleased", 0) > 0, seen
    assert seen.get("SpeedSet", 0) > 0, seen


def test_g7_towing_after_move_ships_on_recorded_games():
    """(G7.0) Every towing step: held units take their holder's hex step; towed off the map
    they leave with the holder's side (``towed_off_by``); links of units out of play end."""
    seen = _replay(_recorded()["tow"], "tow")
    assert seen.get("Moved", 0) > 0, seen


def test_g7_start_of_turn_and_link_checks_on_recorded_games():
    """(G7.0) The turn's start (the towing base speed, unpaid links lapse) and End of
    Impulse's link check (holder or held unit gone, beams destroyed)."""
    _replay(_recorded()["start"], "start")
    _replay(_recorded()["links"], "links")


def _one(phase, battle, orders=None) -> list:
    """``_replay`` of one constructed snapshot; returns the reference's events."""
    mine = battle.copy()
    n0 = len(mine.events)
    _replay([(battle, orders or {}, None)], phase)
    (ref.tractor_step if phase == "step" else ref.start_turn)(mine, *([orders] if orders
                                                                      is not None else []))
    return mine.events[n0:]


def _held(snaps: list):
    """The first snapshot in which a freighter is held, with (holder, freighter)."""
    for battle, _, _ in snaps:
        st = battle.state
        rows = np.flatnonzero((st.tractor_holder >= 0) & (st.kind == K_FREIGHTER))
        if len(rows):
            return battle, int(st.tractor_holder[rows[0]]), int(rows[0])
    raise AssertionError("no unit held in the recorded games")


def test_g7_contest_breaks_both_links():
    """(G7.0) A second ship taking hold of a held freighter breaks both links: both beams
    spent for the turn, ``TractorReleased`` "contested" twice, the holder's speed set back."""
    battle, holder, f = _held(_recorded()["step"])
    battle = battle.copy()
    st = battle.state
    other = next(u for u in range(len(st.kind)) if st.kind[u] == K_SHIP and u != holder
                 and st.status[u] == ACTIVE)  # the other ship
    st.x[other], st.z[other] = st.x[f], st.z[f]  # beside it (the same hex)
    st.tractor_powered[other] = 2
    orders = {other: Orders(tractor={0: f})}
    events = _one("step", battle, orders)
    reasons = [e.reason for e in events if e.kind == "TractorReleased"]
    assert reasons == ["contested", "contested"], events


def test_g7_unpaid_link_lapses_at_the_turn_start():
    """(G7.0) A link on a beam the form did not pay lapses at the start of the turn."""
    battle, holder, _ = _held(_recorded()["step"])
    battle = battle.copy()  # (as at the next turn's start: impulse 0)
    battle.state.turn += 1
    battle.state.impulse = 0
    battle.state.tractor_powered[holder] = 0
    events = _one("start", battle)
    assert any(e.kind == "TractorReleased" and e.reason.startswith("lapsed")
               for e in events), events


# ---------------------------------------------------------------------- lockstep


@pytest.mark.parametrize("make,policy", [(tow_variant, "random"), (drones_variant, "random"),
                                         (tow_variant, "random-fighter")])
def test_g7_tractors_lockstep(make, policy):
    """The whole step beside the reference: observations (the ``tractors`` features), the
    ``tractor[b]`` masks, state, events and verdicts; the run reaches attachments."""
    report = parity.lockstep(make(), 2, 150, seed=1, policy=policy)
    if make is tow_variant and policy == "random":
        assert report.events.get("TractorAttached", 0) > 0, report.line()


def test_g7_procedure_calls_nothing_without_tractors():
    """A scenario without tractors builds its tractor tables off, with zero-wide order rows."""
    setup = make_battle(load_scenario("cth-07")).setup
    tt = tractors.tractor_tables(setup)
    assert not tt.on and not tt.beams.any()
    assert layout.empty_orders(1, 2, 3).tractor.shape == (1, 0)
    assert "tractor" in procedure.StepTables._fields
    assert layout.TRACTOR_RELEASE == tractors.RELEASE
