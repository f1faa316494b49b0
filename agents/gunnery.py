"""Gunnery from the printed charts: what one shot is worth at a range, and who fires at what.

Captains know the weapon charts of their ship sheets (``sfb_env.tables``, CTH-DATA §4) the way
a player reads them off the SSD; this module turns them into damage distributions and makes the
per-impulse fire plan: drones aimed at us first (cheapest weapons that kill them), then the
chosen target where the shot is worth taking now.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from sfb_env import tables

PHASERS = ("ph-1", "ph-2", "ph-3", "ph-g")
DRONE_MODIFIED = ("disruptor", "photon", "fusion")  # (FD1.52) +2 to the die against drones
DRONE_STRENGTH = 4  # (FD1.54) points that destroy a cadet drone
# Which weapon to spend first on a drone (cheap, plentiful phasers before heavy weapons).
WEAPON_COST = {"ph-3": 1, "ph-g": 1, "ph-2": 2, "ph-1": 3, "disruptor": 5, "fusion": 5,
               "photon": 6, "ppd": 8}
PPD_PULSES = 4  # (E11.25) the Chief Engineer's full charge: four pulses


@cache
def damage_outcomes(weapon_type: str, rng: int, vs_drone: bool = False) -> tuple[int, ...]:
    """The six equally likely damages of one shot at ``rng`` (die 1..6); empty if it cannot fire."""
    out = []
    for die in range(1, 7):
        try:
            if weapon_type in PHASERS:
                out.append(tables.phaser_damage(weapon_type, rng, die))
            elif weapon_type == "disruptor":
                out.append(tables.disruptor_damage(rng, die + 2 * vs_drone))
            elif weapon_type == "photon":
                out.append(tables.photon_damage(rng, die + 2 * vs_drone))
            elif weapon_type == "fusion":
                # (E7.32) the table has no row past die 6: a drone's +2 (FD1.52) that runs
                # off it counts as a miss here (an estimate: the engine reads a longer bracket)
                roll = die + 2 * vs_drone
                out.append(tables.fusion_damage(rng, roll) if roll <= 6 else 0)
            else:
                return ()
        except ValueError:
            return ()  # out of the chart: cannot fire at this range
    return tuple(out)


def expected_damage(weapon_type: str, rng: int, vs_drone: bool = False) -> float:
    """Mean damage of one shot (0 where the weapon cannot fire at ``rng``); a PPD's shot is
    its whole pulse train (``ppd_expected_damage``)."""
    if weapon_type == "ppd":
        return ppd_expected_damage(rng, vs_drone)
    outcomes = damage_outcomes(weapon_type, rng, vs_drone)
    return float(np.mean(outcomes)) if outcomes else 0.0


def ppd_lock_chance(rng: int, vs_drone: bool = False) -> float:
    """(E11.31) Chance that one unlocked pulse at ``rng`` gets the wave-lock: 2d6 (+2 against
    a drone, FD1.52) at most the hit number; 0 at 3 hexes or less (E11.312) or beyond 40."""
    if not 4 <= rng <= tables.ppd_chart().max_range:
        return 0.0
    need = tables.ppd_hit_number(rng) - 2 * vs_drone
    return sum(1 for a in range(1, 7) for b in range(1, 7) if a + b <= need) / 36.0


@cache
def ppd_expected_damage(rng: int, vs_drone: bool = False) -> float:
    """Mean damage of a four-pulse train at a steady ``rng``: each pulse rolls until the lock,
    then every later pulse scores (E11.331); drones take the centre element (E11.353)."""
    p = ppd_lock_chance(rng, vs_drone)
    if not p:
        return 0.0
    per_pulse = tables.ppd_splash(rng)[1] if vs_drone else tables.ppd_damage(rng)
    return per_pulse * sum(1 - (1 - p) ** k for k in range(1, PPD_PULSES + 1))


def hit_chance(weapon_type: str, rng: int) -> float:
    """Chance that one shot at ``rng`` scores at least one point."""
    if weapon_type == "ppd":
        return 1 - (1 - ppd_lock_chance(rng)) ** PPD_PULSES
    outcomes = damage_outcomes(weapon_type, rng)
    return sum(d > 0 for d in outcomes) / 6.0 if outcomes else 0.0


@cache
def ev_table(weapon_type: str, size: int = 64) -> np.ndarray:
    """Expected damage by range 0..size-1 (read-only)."""
    table = np.array([expected_damage(weapon_type, r) for r in range(size)])
    table.setflags(write=False)
    return table


# What a captain assumes an enemy cadet ship carries (it cannot see the class): heavy weapons
# in the forward arc, most phasers forward, a little aft (CTH-DATA §9.1, averaged).
TYPICAL_ENEMY: tuple[tuple[str, str, float], ...] = (
    ("FA", "photon", 0.75),
    ("FA", "disruptor", 0.75),
    ("FX", "ph-1", 1.5),
    ("LS", "ph-2", 0.5),
    ("RS", "ph-2", 0.5),
)


def kill_chance(shots: Sequence[tuple[str, int]], strength: int) -> float:
    """Chance that shots ``(weapon_type, range)`` at one drone add up to ``strength`` points."""
    dist = np.zeros(1)
    dist[0] = 1.0
    for weapon_type, rng in shots:
        outcomes = damage_outcomes(weapon_type, rng, vs_drone=True)
        if not outcomes:
            continue
        new = np.zeros(len(dist) + max(outcomes))
        for d in outcomes:
            new[d:d + len(dist)] += dist / 6.0
        dist = new
    return float(dist[strength:].sum()) if strength < len(dist) else 0.0


@dataclass(frozen=True)
class Gun:
    """One direct-fire action component: its index in the action and its weapon type."""

    index: int
    weapon_type: str

    @property
    def cost(self) -> int:
        return WEAPON_COST.get(self.weapon_type, 4)


def drone_defence(
    guns: Sequence[Gun],
    allowed: dict[int, set[int]],
    drones: Sequence[tuple[int, int, int]],
    busy: set[int] = frozenset(),
    want: float = 0.8,
    at_least: float = 0.3,
) -> dict[int, int]:
    """Assign guns to drones ``(slot, range, strength left)`` nearest first, cheapest guns
    first (``busy`` guns, those bearing on the main target, count as dearer), until each drone
    dies with chance ``want``; a drone that even all free guns kill with less than
    ``at_least`` is left for later. -> {gun index: slot}."""
    orders: dict[int, int] = {}
    for slot, rng, strength in sorted(drones, key=lambda d: (d[1], d[0])):
        shots: list[tuple[str, int]] = []
        chosen: list[int] = []
        for gun in sorted(guns, key=lambda g: (g.cost + 2 * (g.index in busy), g.index)):
            if gun.index in orders or slot not in allowed.get(gun.index, ()):
                continue
            if not damage_outcomes(gun.weapon_type, rng, vs_drone=True):
                continue
            shots.append((gun.weapon_type, rng))
            chosen.append(gun.index)
            if kill_chance(shots, strength) >= want:
                break
        if chosen and kill_chance(shots, strength) >= at_least:
            orders.update({g: slot for g in chosen})
    return orders
