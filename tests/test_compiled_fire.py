"""Phase-level parity of the compiled fire and seeking phases (``sfb_env.compiled.fire``,
``sfb_env.compiled.seeking_impacts``) with the reference engine, on reachable states of every
tier-1 scenario (``random-fighter`` captains, several seeds): the same arrays, dice and
decoded events after Fire Direct-Fire, Launch Seeking Weapons and Resolve Seeking Weapons."""

from __future__ import annotations

import dataclasses

import pytest
from compiled_phase_helpers import (
    TIER1,
    batch_orders,
    decoder,
    run_parity,
    run_parity_batched,
    snapshots,
)

from sfb_env.compiled import damage, fire, layout, seeking_impacts
from sfb_env.engine import procedure, seeking

# Phase by phase against the reference: the whole-step lockstep parity (test_compiled_parity)
# covers CI; these compile their own kernel variants (minutes cold), so they run with -m slow.
pytestmark = pytest.mark.slow

SEEN: dict[str, dict[str, int]] = {}


def _count(phase: str, seen: dict[str, int]) -> None:
    into = SEEN.setdefault(phase, {})
    for k, v in seen.items():
        into[k] = into.get(k, 0) + v
    into["scenarios"] = into.get("scenarios", 0) + 1


@pytest.mark.parametrize("scenario", TIER1)
def test_fire_direct_fire_matches_the_reference(scenario):
    snaps = snapshots(scenario).fire
    shots = [x for x in snaps if any(o.fire for o in x[1].values()) or x[2]]
    quiet = [x for x in snaps if x not in shots][:5]
    assert shots, "no shot fired: the captains did not fight"
    seen = run_parity(shots + quiet, lambda b, o, r: procedure._fire_direct_fire(b, o),
                      fire.fire_direct_fire, damage.fire_tables)
    assert seen.get("Fired", 0) > 0
    _count("fire", seen)


@pytest.mark.parametrize("scenario", TIER1)
def test_launch_seeking_weapons_matches_the_reference(scenario):
    seen = run_parity(snapshots(scenario).launch,
                      lambda b, o, r: procedure._launch_seeking_weapons(b, o),
                      seeking_impacts.launch_seeking_weapons, damage.fire_tables)
    _count("launch", seen)


@pytest.mark.parametrize("scenario", TIER1)
def test_resolve_seeking_weapons_matches_the_reference(scenario):
    seen = run_parity(snapshots(scenario).impacts, lambda b, o, r: seeking.resolve_impacts(b),
                      seeking_impacts.resolve_seeking_weapons, damage.fire_tables)
    _count("impacts", seen)


def test_the_snapshots_cover_hits_damage_destruction_and_drones():
    """Run after the parity tests above (same module): what they compared includes shots that
    hit, internal damage, destroyed units, shield boundaries, launched and striking drones."""
    if any(SEEN.get(p, {}).get("scenarios", 0) < len(TIER1) for p in ("fire", "launch",
                                                                       "impacts")):
        pytest.skip("run with every parity test of this module in the same process (no -n)")
    fired, launch, impacts = SEEN.get("fire", {}), SEEN.get("launch", {}), SEEN.get("impacts", {})
    assert fired.get("Fired", 0) > 100 and fired.get("Damaged", 0) > 50
    assert fired.get("Destroyed", 0) > 0 and fired.get("ShieldBoundary", 0) > 0
    assert launch.get("Launched", 0) > 0
    assert impacts.get("SeekingHit", 0) > 0 and impacts.get("Destroyed", 0) > 0


@pytest.mark.parametrize("scenario", ["cth-03", "duel-klingon-vs-kzinti"])
def test_phases_step_each_battle_of_a_batch_alone(scenario):
    """Many snapshots as the battles of one batch: each kernel call changes battle b only."""
    snaps = snapshots(scenario)
    shots = [x for x in snaps.fire if any(o.fire for o in x[1].values()) or x[2]]
    assert run_parity_batched(shots, lambda b, o, r: procedure._fire_direct_fire(b, o),
                              fire.fire_direct_fire, damage.fire_tables) > 0
    assert run_parity_batched(snaps.launch,
                              lambda b, o, r: procedure._launch_seeking_weapons(b, o),
                              seeking_impacts.launch_seeking_weapons, damage.fire_tables) > 0
    assert run_parity_batched(snaps.impacts, lambda b, o, r: seeking.resolve_impacts(b),
                              seeking_impacts.resolve_seeking_weapons, damage.fire_tables) > 0


def test_a_second_launch_beyond_the_ships_limit_is_refused_as_in_the_reference():
    """(FD4.21, [P-063]) No tier-1 sheet has a ``drone_launch_limit``: give every ship with
    racks a limit of 1 (as the D6/D7) on reachable launch states; launches from a second rack
    in the same turn are refused with ``LaunchRefused`` as in the reference."""
    refused = launched = 0
    for scenario in ("duel-klingon-vs-kzinti", "duel-kzinti-vs-orion"):
        for battle, orders, _ in snapshots(scenario).launch:
            classes = [c if c is None or not any(w.type == "drone-rack" for w in c.weapons)
                       else dataclasses.replace(c, drone_launch_limit=1)
                       for c in battle.ship_classes]
            ref = battle.copy()
            ref.ship_classes = classes
            n0 = len(ref.events)
            procedure._launch_seeking_weapons(ref, orders)
            ft = damage.fire_tables(battle.setup)
            limit = ft.launch_limit.copy()
            limit[[u for u, c in enumerate(classes) if c is not None
                   and c.drone_launch_limit == 1]] = 1
            s = layout.pack([battle.copy().state])
            seeking_impacts.launch_seeking_weapons(s, ft._replace(launch_limit=limit), 0,
                                                   batch_orders(battle, orders))
            assert layout.differences(s, 0, ref.state) == []
            got = decoder(battle).decode(s.ev[0, :s.ev_count[0]])
            assert got == ref.events[n0:]
            refused += sum(e.kind == "LaunchRefused" for e in got)
            launched += sum(e.kind == "Launched" for e in got)
    assert refused > 0 and launched > 0
