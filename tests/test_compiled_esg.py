"""The Lyran ESG (G23) in compiled code (``compiled.esg``) against ``engine.esg_field`` on
played states: the Chief Engineer's charge (G23.21), the generators' orders and timing in
Launch Seeking Weapons (G23.31-G23.47), the fields' contacts and damage after movement
(G23.51-G23.574, G23.511-G23.513, G23.52), the ``esg[g]`` order mask (``order_blockers``) and
the contact geometry (``esg.field_entry``) over every distance it can be given.

The states come from the chief-engineer graduate duels of the Lyran cadet cruiser, played with
random masked actions on the reference engine (random play announces a field most impulses it
may), copied at the entry of each ESG step."""

from __future__ import annotations

import copy
import functools

import numpy as np
import pytest
from compiled_phase_helpers import (
    batch_orders,
    decoder,
    esg_contacts,
    esg_launch,
    place_around_esg,
)

import sfb_env
from sfb_env.compiled import damage, esg, layout, parity
from sfb_env.engine import esg as ref_esg
from sfb_env.engine import esg_field
from sfb_env.engine.types import ACTIVE, EsgOrder

CHIEF = {"energy": "chief", "chief_engineer": True, "speed_choice": True}
OPPONENTS = ("klingon", "kzinti")


def chief_variant(opponent: str) -> dict:
    """A graduate Lyran duel under the Chief Engineer (the ESG charged at Energy Allocation)."""
    return parity.variant(f"grad-lyran-vs-{opponent}", rules=CHIEF)


def _patient(env, a) -> np.ndarray:
    """Flat mask indices of ``a``'s cancel and drop orders (closed for a patient captain, whose
    fields run their whole period: G23.32 expiry)."""
    lo = env._layouts[a]
    names = lo.component_names()
    if "esg[0]" not in names:
        return np.zeros(0, np.int64)
    at = int(lo.offsets[names.index("esg[0]")])
    return np.array([at + EsgOrder.CANCEL, at + EsgOrder.DROP], np.int64)


@functools.cache
def snapshots(opponent: str, seeds: tuple[int, ...] = (0, 1, 2, 3), steps: int = 500) -> dict:
    """Per ESG step, (battle copy at its entry, orders) from random masked games (odd seeds:
    the Lyran never cancels or drops)."""
    out: dict[str, list] = {"charge": [], "launch": [], "contacts": []}
    originals = (esg_field.energy_allocation, esg_field.launch_step, esg_field.resolve_contacts)

    def charge(battle):
        out["charge"].append((battle.copy(), {}))
        originals[0](battle)

    def launch(battle, orders):
        out["launch"].append((battle.copy(), copy.deepcopy(dict(orders))))
        originals[1](battle, orders)

    def contacts(battle):
        out["contacts"].append((battle.copy(), {}))
        originals[2](battle)

    esg_field.energy_allocation, esg_field.launch_step, esg_field.resolve_contacts = (
        charge, launch, contacts)
    try:
        for seed in seeds:
            env = sfb_env.parallel_env(chief_variant(opponent), backend="reference")
            obs, _ = env.reset(seed=seed)
            for k, a in enumerate(env.possible_agents):
                env.action_space(a).seed(seed * 10 + k)
            closed = {a: _patient(env, a) if seed % 2 else np.zeros(0, np.int64)
                      for a in env.possible_agents}
            n = 0
            while n < steps:
                if not env.agents:
                    obs, _ = env.reset(seed=seed + 100 * (n + 1))
                actions = {}
                for a in env.agents:
                    mask = obs[a]["action_mask"].copy()
                    mask[closed[a]] = 0
                    actions[a] = env.action_space(a).sample(mask=mask)
                obs, *_ = env.step(actions)
                n += 1
    finally:
        esg_field.energy_allocation, esg_field.launch_step, esg_field.resolve_contacts = (
            originals)
    return out


def _check(battle, reference, compiled) -> list:
    """The reference step on one copy, the compiled one on the packed state of another: the
    same arrays, dice and events. Returns the reference's events."""
    ref = battle.copy()
    n0 = len(ref.events)
    reference(ref)
    s = layout.pack([battle.copy().state])
    compiled(s)
    diffs = layout.differences(s, 0, ref.state)
    assert diffs == [], (battle.state.turn, battle.state.impulse, diffs)
    want = ref.events[n0:]
    assert decoder(battle).decode(s.ev[0, :s.ev_count[0]]) == want
    return want


def _count(seen: dict, events) -> None:
    for e in events:
        key = e.kind if e.kind != "EsgDropped" else f"EsgDropped:{e.reason}"
        seen[key] = seen.get(key, 0) + 1
        if e.kind == "EsgStruck":
            seen[f"contact:{e.contact}"] = seen.get(f"contact:{e.contact}", 0) + 1
            seen["struck:points"] = seen.get("struck:points", 0) + bool(e.points)


@pytest.mark.parametrize("opponent", OPPONENTS)
def test_g23_21_chief_engineer_charge_matches_reference(opponent):
    """(G23.21, G23.22) The Chief Engineer fills the generator at Energy Allocation."""
    snaps = snapshots(opponent)["charge"]
    et = esg.esg_tables(snaps[0][0].setup)
    seen: dict = {}
    for battle, _ in snaps:
        _count(seen, _check(battle, esg_field.energy_allocation, lambda s: (
            esg.energy_allocation_a(esg.view_of(s), et, s.status, s.w_owner, s.w_destroyed,
                                    s.ev, s.ev_count, s.turn, 0))))
    assert seen.get("EsgCharged", 0) > 0, seen


@pytest.mark.parametrize("opponent", OPPONENTS)
def test_g23_3_launch_step_orders_and_timing_match_reference(opponent):
    """(G23.31-G23.47) Drops, expiry, release, cancellations and announcements in Launch
    Seeking Weapons, with the orders the random captains gave."""
    snaps = snapshots(opponent)["launch"]
    et = esg.esg_tables(snaps[0][0].setup)
    seen: dict = {}
    for battle, orders in snaps:
        o = batch_orders(battle, orders)
        _count(seen, _check(battle, lambda b, orders=orders: esg_field.launch_step(b, orders),
                            lambda s, o=o: esg_launch(
                                esg.view_of(s), et, s.status, s.w_owner, s.w_destroyed, s.ev,
                                s.ev_count, s.turn, s.impulse, 0, o.esg)))
    for kind in ("EsgAnnounced", "EsgReleased", "EsgCancelled", "EsgDropped:voluntary",
                 "EsgDropped:expired"):
        assert seen.get(kind, 0) > 0, (kind, seen)


@pytest.mark.parametrize("opponent", OPPONENTS)
def test_g23_512_contacts_and_damage_match_reference(opponent):
    """(G23.51-G23.574, G23.511-G23.513, G23.52) The fields against the units that met them in
    movement: the same contacts, struck shields, tie dice, volleys, damage and drops."""
    snaps = snapshots(opponent)["contacts"]
    setup = snaps[0][0].setup
    et, ft = esg.esg_tables(setup), damage.fire_tables(setup)
    seen: dict = {}
    for battle, _ in snaps:
        _count(seen, _check(battle, esg_field.resolve_contacts, lambda s: (
            esg_contacts(damage.view_of(s), esg.view_of(s), s.side, ft, et, 0))))
    assert seen.get("EsgStruck", 0) > 0 and seen.get("struck:points", 0) > 0, seen
    assert seen.get("Damaged", 0) > 0, seen


@pytest.mark.parametrize("opponent", OPPONENTS)
def test_g23_3_order_mask_matches_order_blockers(opponent):
    """The ``esg[g]`` mask: ``esg_field.order_blockers`` on every played decision point."""
    snaps = snapshots(opponent)
    states = [b for b, _ in snaps["launch"] + snaps["contacts"]]
    setup = states[0].setup
    w = int(esg_field.esg_rows(states[0])[0])
    opened = set()
    for battle in states:
        s = layout.pack([battle.state])
        bits = esg.order_bits(np.asarray(battle.state.esg_max, np.int64), s.w_enabled,
                              s.w_destroyed, s.esg_stored, s.esg_phase, s.esg_announced_at,
                              s.esg_release_at, s.esg_activated_at, s.esg_dropped_at,
                              s.esg_cancelled_at, 0, w, battle.state.turn,
                              battle.state.impulse, setup.start_state.impulses_per_turn,
                              bool(battle.rules.seeking_weapons
                                   and battle.rules.launch_seeking_weapons))
        closed = esg_field.order_blockers(battle, w)
        got = {v for v in range(1, len(EsgOrder)) if (bits >> v) & 1}
        assert got == {v for v in range(1, len(EsgOrder)) if v not in closed}, (
            battle.state.turn, battle.state.impulse, closed)
        opened |= got
    assert opened == set(range(1, len(EsgOrder))), opened


def test_g23_571_field_entry_matches_reference_over_every_distance():
    """``esg.field_entry`` (G23.561-G23.574, G23.72) for every radius, distance before and
    after, middle distance and order of the moves it accepts."""
    n = 0
    for radius in range(4):
        for before in range(7):
            for after in range(max(0, before - 2), before + 3):
                for ship_moved in (False, True):
                    for unit_moved in (False, True):
                        for inside in (False, True):
                            for middle in [-1, *range(max(0, before - 1), before + 2)]:
                                for unit_first in (False, True):
                                    try:
                                        want = ref_esg.field_entry(
                                            radius, before, after, ship_moved=ship_moved,
                                            unit_moved=unit_moved, inside=inside,
                                            middle=None if middle < 0 else middle,
                                            unit_first=unit_first)
                                    except ref_esg.EsgRuleError:
                                        continue
                                    got = esg.field_entry(radius, before, after, ship_moved,
                                                          unit_moved, inside, middle,
                                                          unit_first)
                                    assert got == int(want), (radius, before, after,
                                                              ship_moved, unit_moved, inside,
                                                              middle, unit_first)
                                    n += 1
    assert n > 1000


def _placed(battle, rng):
    """``battle`` with the Lyran's field operating (random radius, strength and age) and every
    other unit in play placed within 5 hexes of the ship, each unit (the ship too) having moved
    one hex or not this impulse, at random facings and speeds: contacts of every kind (jumps,
    from inside, several units together, exact shield boundaries) that random games seldom
    reach."""
    return place_around_esg(battle, rng, [int(esg_field.esg_rows(battle)[0])], max_speed=16)


@pytest.mark.parametrize("opponent", OPPONENTS)
def test_g23_52_contacts_on_placed_units_match_reference(opponent):
    """(G23.52, G23.5131, G23.571, G23.513, D3.41) The contacts of units placed around an
    operating field (``_placed``) on played states: the same as ``esg_field.resolve_contacts``,
    tie dice and exact boundaries included."""
    rng = np.random.default_rng(23)
    snaps = [b for b, _ in snapshots(opponent)["contacts"]
             if np.sum(b.state.status == ACTIVE) > 2][:300]
    assert snaps, "no played state with a drone in flight"
    setup = snaps[0].setup
    et, ft = esg.esg_tables(setup), damage.fire_tables(setup)
    seen: dict = {}
    ties = 0
    for battle in snaps:
        for _ in range(4):
            placed = _placed(battle, rng)
            events = _check(placed, esg_field.resolve_contacts, lambda s: (
                esg_contacts(damage.view_of(s), esg.view_of(s), s.side, ft, et, 0)))
            _count(seen, events)
            ties += sum(e.kind == "EsgStruck" for e in events) > 1
    for kind in ("contact:enters", "contact:jumps", "contact:from_inside", "Damaged",
                 "Destroyed", "EsgDropped:exhausted"):
        assert seen.get(kind, 0) > 0, (kind, seen)
    assert ties > 0, seen
