"""The standard cloak (G13 standard rule, CTH-DATA §8.2) in compiled code (``compiled.cloak``)
against ``engine.cloak`` and ``knowledge.cloak_phases`` on the shipped full-size duels: the
fades, full cloak (with the ESG reveal, G23.621), the effective range of fire (with lock-on and
scanners, D6), the fire blocker, the turn-to-turn announcements and the Cloak/Uncloak step
(its blockers, PROPOSAL [P-053]); the cloak block and component (lockstep runs:
test_compiled_cloak_parity)."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_phase_helpers import decoder

from sfb_env.compiled import cloak, layout, parity, sensors
from sfb_env.engine import cloak as ref_cloak
from sfb_env.engine import dac, energy, knowledge
from sfb_env.engine.battle import make_battle
from sfb_env.engine.energy_orders import cloak_blockers
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import ACTIVE, NEVER, Orders
from sfb_env.env import rule_features

ROMULAN = "duel-full-romulan-vs-federation"  # the War Eagle (cloak 6) and the Fed CA, lock-on
ORION = "duel-full-orion-vs-klingon"  # the Orion raider (cloak 12) and the D7
NO_LOCK_ON = parity.variant(ROMULAN, rules={"lock_on": False})
SCENARIOS = (ROMULAN, ORION, NO_LOCK_ON)


def _battle(scenario, seed=0):
    battle = make_battle(load_scenario(scenario), seed=seed)
    return battle, sensors.sensor_tables(battle.setup)


def _rows(a) -> np.ndarray:
    """A reference per-unit array as one battle's row (a copy)."""
    return np.array(a)[None, :].copy()


def _scramble(battle, rng) -> None:
    """Random cloak states around ``now``: announced from 2 impulses ahead (never reached in
    play, harmless) to 7 ago, or never; ESG strikes now or never; lock-on; scanners damaged."""
    st = battle.state
    n = len(st.cloaked)
    st.turn = int(rng.integers(1, 6))
    st.impulse = int(rng.integers(1, st.impulses_per_turn + 1))
    now = st.absolute_impulse
    st.cloaked[:] = rng.random(n) < 0.5
    st.cloak_paid[:] = rng.random(n) < 0.5
    st.cloaked_before[:] = rng.random(n) < 0.5
    st.cloak_announced_at[:] = np.where(rng.random(n) < 0.8, now - rng.integers(-2, 8, size=n),
                                        NEVER)
    st.esg_struck_at[:] = np.where(rng.random(n) < 0.2, now, NEVER)
    st.locked_on[:] = rng.random(n) < 0.5
    for u in (0, 1):  # boxes left on the scanner track (D4.33)
        track = battle.setup.ship_classes[u].scanner_track or ()
        st.dac_boxes[u, dac.DacBox.SCANNER] = int(rng.integers(0, len(track) + 1))
    st.status[:2] = np.where(rng.random(2) < 0.9, ACTIVE, st.status[:2] + 1)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_g13_fades_full_cloak_and_effective_range_match_reference(scenario):
    """(G13 standard rule, D6, G23.621) Over random cloak states: ``fading``, ``fully_cloaked``,
    ``fade_range`` (+1..+4 out, +4..+1 in), the fire blocker and the effective range of fire
    (2 x true + 5 at a fully cloaked ship, true + fade doubled without lock-on, + scanner)
    equal the reference's; every phase is seen."""
    ref, tables = _battle(scenario)
    st = ref.state
    rng = np.random.default_rng(7)
    seen = {"fading out": 0, "fading in": 0, "fully": 0, "revealed": 0, "blocked": 0,
            "doubled": 0}
    for _ in range(400):
        _scramble(ref, rng)
        now = st.absolute_impulse
        cl, at, esg = _rows(st.cloaked), _rows(st.cloak_announced_at), _rows(st.esg_struck_at)
        locked, boxes = _rows(st.locked_on), np.array(st.dac_boxes)[None].copy()
        for t in (0, 1):
            fade = cloak.fading(at, 0, t, now)
            assert fade == bool(ref_cloak.fading(ref, t))
            assert cloak.fully_cloaked(cl, esg, at, 0, t, now) == bool(
                ref_cloak.fully_cloaked(ref, t))
            assert cloak.fade_range(cl, at, 0, t, now) == ref_cloak.fade_range(ref, t)
            blocked = cloak.fire_blocked(cl, at, 0, t, now)
            assert blocked == (ref_cloak.fire_blocker(ref, t) is not None)
            seen["fading out"] += fade and bool(cl[0, t])
            seen["fading in"] += fade and not cl[0, t]
            seen["fully"] += bool(ref_cloak.fully_cloaked(ref, t))
            seen["revealed"] += bool(cl[0, t]) and not fade and esg[0, t] == now
            seen["blocked"] += blocked
            owner = 1 - t
            seen["doubled"] += ref.rules.lock_on and not locked[0, owner]
            for true in range(0, 31, 3):
                want = ref_cloak.effective_range(ref, t, true, owner)
                got = cloak.effective_range(locked, cl, esg, at, boxes, tables["scanner_of"],
                                            int(dac.DacBox.SCANNER), tables["lock_on"], 0,
                                            owner, t, true, now)
                assert got == want, (t, true)
    assert min(seen.values()) > 0 or not ref.rules.lock_on, seen


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_g13_cloak_phases_observation_matches_knowledge(scenario):
    """(G13 standard rule) The four features the other side sees of a cloak (engaged, fading
    out, fading in, the fade's impulse / 4) equal ``knowledge.cloak_phases``."""
    ref, _ = _battle(scenario)
    st = ref.state
    rng = np.random.default_rng(11)
    for _ in range(200):
        _scramble(ref, rng)
        want = knowledge.cloak_phases(ref, np.array([0, 1]))
        out = np.full(2 * cloak.PHASES, -1.0)
        cl, at = _rows(st.cloaked), _rows(st.cloak_announced_at)
        for t in (0, 1):
            cloak.cloak_phases(cl, at, 0, t, st.absolute_impulse, out, t * cloak.PHASES)
        assert np.array_equal(out, want.ravel())


@pytest.mark.parametrize("scenario", (ROMULAN, ORION))
def test_g13_turn_to_turn_announcements_match_reference(scenario):
    """(G13 standard rule, turn to turn) After the energy form: ``cloak_paid`` is the payment;
    a ship paid after an uncloaked turn announces its cloak, one unpaid after a cloaked turn
    its uncloak, on impulse 1 (``CloakAnnounced``), the same rows as the reference."""
    ref, _ = _battle(scenario)
    st = ref.state
    dec = decoder(ref)
    rng = np.random.default_rng(5)
    seen = {True: 0, False: 0}
    for _ in range(100):
        _scramble(ref, rng)
        cl, before, paid = _rows(st.cloaked), _rows(st.cloaked_before), _rows(st.cloak_paid)
        at = _rows(st.cloak_announced_at)
        s = layout.pack([st])
        n0 = len(ref.events)
        ref_cloak.start_turn(ref)
        cloak.start_turn(cl, before, paid, at, s.ev, s.ev_count, st.turn,
                         st.impulses_per_turn, 0)
        want = ref.events[n0:]
        assert dec.decode(s.ev[0, :s.ev_count[0]]) == want
        assert (cl[0] == st.cloaked).all() and (paid[0] == st.cloak_paid).all()
        assert (at[0] == st.cloak_announced_at).all()
        for e in want:
            seen[e.cloaking] += 1
    assert min(seen.values()) > 0, seen


@pytest.mark.parametrize("scenario", (ROMULAN, ORION))
def test_g13_cloak_uncloak_step_and_blockers_match_reference(scenario):
    """(B2.0 advanced sequence, Cloak/Uncloak; G13 standard rule) ``toggle_blocked`` equals
    ``cloak.toggle_blockers`` (not in play, impulse 1 to the last but one, fading [P-053],
    unpaid); the step announces the same cloaks and uncloaks with the same events."""
    ref, _ = _battle(scenario)
    st = ref.state
    dec = decoder(ref)
    rng = np.random.default_rng(9)
    n = len(st.cloaked)
    seen = {"announced": 0, "blocked": 0}
    for _ in range(300):
        _scramble(ref, rng)
        st.impulse = int(rng.integers(0, st.impulses_per_turn + 1))  # 0: Energy Allocation
        now = st.absolute_impulse
        ordered = rng.random(2) < 0.7
        orders = {u: Orders(cloak=True) for u in (0, 1) if ordered[u]}
        order_cloak = np.zeros((1, n), dtype=np.bool_)
        order_cloak[0, :2] = ordered
        status, cl = _rows(st.status), _rows(st.cloaked)
        paid, at = _rows(st.cloak_paid), _rows(st.cloak_announced_at)
        for u in (0, 1):
            blocked = cloak.toggle_blocked(status, cl, paid, at, 0, u, st.impulse,
                                           st.impulses_per_turn, now)
            assert blocked == bool(ref_cloak.toggle_blockers(ref, u))
            seen["blocked"] += blocked
        s = layout.pack([st])
        n0 = len(ref.events)
        if st.impulse < st.impulses_per_turn:  # (procedure) the step's impulses
            ref_cloak.cloak_step(ref, orders)
            cloak.cloak_step(order_cloak, status, cl, paid, at, s.ev, s.ev_count, st.turn,
                             st.impulse, st.impulses_per_turn, now, 0)
        want = ref.events[n0:]
        assert dec.decode(s.ev[0, :s.ev_count[0]]) == want
        assert (cl[0] == st.cloaked).all() and (at[0] == st.cloak_announced_at).all()
        seen["announced"] += len(want)
    assert min(seen.values()) > 0, seen


@pytest.mark.parametrize("scenario", (ROMULAN, ORION))
def test_g13_cloak_block_and_component_mask_match_the_env(scenario):
    """(G13 standard rule) ``observe_cloak`` writes ``rule_features._cloak``'s block (own ship,
    then each target slot, an empty slot 0) and opens the cloak component's value 1 exactly
    where ``energy_orders.cloak_blockers`` has no blocker: the payment at Energy Allocation,
    an announcement elsewhere."""
    ref, _ = _battle(scenario)
    st = ref.state
    rng = np.random.default_rng(13)
    cloaker = next(u for u in (0, 1) if ref.setup.ship_classes[u].cloak_cost)
    seen = {"open in turn": 0, "closed in turn": 0, "allocation": 0}
    for _ in range(300):
        _scramble(ref, rng)
        st.impulse = int(rng.integers(0, st.impulses_per_turn + 1))
        now = st.absolute_impulse
        status, cl = _rows(st.status), _rows(st.cloaked)
        paid, at = _rows(st.cloak_paid), _rows(st.cloak_announced_at)
        allocation = bool(energy.allocation_open(ref))
        for u in (0, 1):
            for slots in (np.array([1 - u]), np.array([1 - u, -1])):
                want = rule_features._cloak(ref, u, slots)
                out = np.full(len(want), -1.0)
                mask = np.zeros(2, dtype=np.int8)
                m_cloak = 0 if u == cloaker else -1
                cloak.observe_cloak(status, cl, paid, at, 0, u, slots, len(slots), st.impulse,
                                    st.impulses_per_turn, now, allocation, m_cloak, mask, 0,
                                    out)
                assert np.array_equal(out, want)
                if u == cloaker:
                    assert mask[1] == (1 not in cloak_blockers(ref, u))
                    key = ("allocation" if allocation else
                           "open in turn" if mask[1] else "closed in turn")
                    seen[key] += 1
    assert min(seen.values()) > 0, seen
