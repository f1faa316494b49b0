"""Parity of the compiled damage and shield kernels (``sfb_env.compiled.damage``,
``sfb_env.compiled.shields``) with ``engine.damage.apply_damage`` and ``engine.shields`` on
reachable states of every tier-1 scenario: volleys of every size on every unit in play (down
to destruction), the struck shield of every pair of units, and exact shield boundaries
(D3.41: the advanced temporary movement with the units' real speeds, the owner's choice, and
the die rule)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from compiled_phase_helpers import TIER1, decoder, snapshots

from sfb_env import hexmap
from sfb_env.compiled import damage, layout, shields
from sfb_env.engine import shields as ref_shields
from sfb_env.engine.types import ACTIVE

# Phase by phase against the reference: the whole-step lockstep parity (test_compiled_parity)
# covers CI; these compile their own kernel variants (minutes cold), so they run with -m slow.
pytestmark = pytest.mark.slow

POINTS = (1, 2, 4, 7, 12, 25, 60)


def _states(scenario: str, every: int = 6) -> list:
    return [b for b, _, _ in snapshots(scenario).fire[::every]]


def _check(battle, ref, n0, s, what) -> list:
    diffs = layout.differences(s, 0, ref.state)
    assert diffs == [], (what, diffs)
    got = decoder(battle).decode(s.ev[0, :s.ev_count[0]])
    want = ref.events[n0:]
    assert got == want, (what, got, want)
    return want


@pytest.mark.parametrize("scenario", TIER1)
def test_apply_damage_matches_the_reference(scenario):
    """Three volleys in a row on each unit in play: shields, internal boxes (D4.0 interim, weapon
    values), freighter thresholds (R1.6), drones (FD1.54), no damage (scenario 1), destroyed."""
    rng = np.random.default_rng(12)
    kinds: dict[str, int] = {}
    for battle in _states(scenario):
        ft = damage.fire_tables(battle.setup)
        for u in np.flatnonzero(battle.state.status == ACTIVE):
            ref, mine = battle.copy(), battle.copy()
            n0 = len(ref.events)
            s = layout.pack([mine.state])
            for _ in range(3):
                shield, points = int(rng.integers(0, 7)), int(rng.choice(POINTS))
                ref.apply_damage(int(u), shield, points)
                damage.apply_damage_a(damage.view_of(s), ft, 0, int(u), shield, points)
            for e in _check(battle, ref, n0, s, (int(u), shield, points)):
                kinds[e.kind] = kinds.get(e.kind, 0) + 1
                if e.kind == "Damaged" and e.boxes:
                    kinds["boxes"] = kinds.get("boxes", 0) + 1
    assert kinds.get("Damaged", 0) > 0
    if scenario != "cth-01":
        assert kinds.get("boxes", 0) > 0 and kinds.get("Destroyed", 0) > 0


@pytest.mark.parametrize("scenario", TIER1)
def test_struck_shield_of_every_pair_matches_the_reference(scenario):
    """``struck_shield`` from every unit in play at every other (range 0 too, D3.42)."""
    for battle in _states(scenario, every=6):
        st = battle.state
        ft = damage.fire_tables(battle.setup)
        active = np.flatnonzero(st.status == ACTIVE)
        for t in active:
            for src in active:
                if t == src:
                    continue
                ref, mine = battle.copy(), battle.copy()
                n0 = len(ref.events)
                s = layout.pack([mine.state])
                rng = hexmap.distance_np(st.x[src], st.z[src], st.x[t], st.z[t])
                want = ref_shields.struck_shield(ref, int(t), int(src), range0=rng == 0)
                got = shields.struck_shield(damage.view_of(s), ft, 0, int(t), int(src),
                                            rng == 0)
                assert got == want
                _check(battle, ref, n0, s, (int(t), int(src)))


def _boundary_offsets(facing: int) -> list[tuple[int, int]]:
    """Offsets (source - target) within 3 hexes that lie on an exact shield boundary."""
    out = []
    for dx in range(-3, 4):
        for dz in range(-3, 4):
            if (dx, dz) == (0, 0) or max(abs(dx), abs(dz), abs(dx + dz)) > 3:
                continue
            bits = int(hexmap.SHIELD_LUT[facing, dx + hexmap.LUT_RADIUS,
                                         dz + hexmap.LUT_RADIUS])
            if bin(bits).count("1") == 2:
                out.append((dx, dz))
    return out


@pytest.mark.parametrize(("scenario", "method"), [
    ("cth-03", "advanced"), ("duel-klingon-vs-federation", "advanced"),
    ("duel-kzinti-vs-orion", "advanced"), ("duel-federation-vs-kzinti", "die")])
def test_shield_boundaries_match_the_reference(scenario, method):
    """(D3.41) Lines along a shield boundary from each other unit's side (its speed and the
    impulse chart drive the temporary movement) and with no source (the owner's choice); the
    ``die`` rule on the same lines (not used by tier 1: its tables say ``advanced``)."""
    events = 0
    for battle in _states(scenario, every=12):
        st = battle.state
        ft = damage.fire_tables(battle.setup)
        if method == "die":
            ft = ft._replace(boundary_advanced=False)
        active = np.flatnonzero(st.status == ACTIVE)
        for t in active:
            if not ref_shields.has_facing_shields(battle, int(t)):
                continue
            tx, tz, tf = int(st.x[t]), int(st.z[t]), int(st.facing[t])
            for src in [*[int(u) for u in active if u != t], -1]:
                for dx, dz in _boundary_offsets(tf):
                    ref, mine = battle.copy(), battle.copy()
                    if method == "die":
                        ref.rules = dataclasses.replace(ref.rules, shield_boundary="die")
                    n0 = len(ref.events)
                    s = layout.pack([mine.state])
                    want = ref_shields.shield_from(ref, int(t), tx, tz, tf, tx + dx, tz + dz,
                                                   source=None if src < 0 else src)
                    got = shields.shield_from(damage.view_of(s), ft, 0, int(t), tx, tz, tf,
                                              tx + dx, tz + dz, src, -1)
                    assert got == want
                    events += len(_check(battle, ref, n0, s, (int(t), src, dx, dz)))
    assert events > 0
