"""The helm: a short look-ahead over the own ship's next moves.

Every sequence of maneuvers (straight, 60° left, 60° right, within the turn mode) over the next
``horizon`` impulses is played out with the public hex geometry (``sfb_env.hexmap``) against
the target's predicted track and scored impulse by impulse:

* **offense**: the expected damage of our weapons that could fire from there (each weapon's
  chart at that range, if the target is in its arcs);
* **threat**: the expected damage a typical cadet ship could fire back (its forward arc holds
  the heavy weapons and most phasers, its rear arc little), weighted by the doctrine;
* the preferred range band, a strong shield toward the target, drones that would strike, and
  staying on the map (leaving it loses the duel).

The first maneuver of the best sequence is the order. ``reference_plan`` is the look-ahead in
numpy, the specification; ``plan`` computes the same in one compiled call
(``agents.helm_kernel``, checked against it by tests/test_helm_kernel.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.helm_kernel import (
    DRONE_WARHEAD,
    LEFT,
    MAX_RANGE,
    OFF_MAP,
    RIGHT,
    STRAIGHT,
    plan_kernel,
)
from sfb_env import hexmap

__all__ = ["DRONE_WARHEAD", "LEFT", "MAX_RANGE", "OFF_MAP", "RIGHT", "STRAIGHT", "Goal", "Plan",
           "Pose", "plan", "reference_plan"]

# A weapon as the helm sees it: the arcs (hexmap.ARC_BITS) and expected damage by range.
Battery = tuple[int, np.ndarray]


@dataclass(frozen=True)
class Pose:
    """Where the own ship stands (axial hex), its facing and straight hexes since a turn."""

    x: int
    z: int
    facing: int
    straight: int


@dataclass
class Goal:
    """What the helm steers for (weights are per impulse of the horizon)."""

    target: tuple[int, int] | None  # axial hex of the target, None = none in sight
    target_facing: int = 0
    target_rate: float = 0.0  # hexes the target moves per impulse (straight ahead)
    offense_now: tuple[Battery, ...] = ()  # our weapons that may still fire this turn
    offense_next: tuple[Battery, ...] = ()  # our weapons that may fire next turn
    turn_left: int = 0  # impulses of the horizon still in this turn
    offense_weight: float = 0.25
    threat: tuple[Battery, ...] = ()  # the target's weapons (arcs seen from the target)
    threat_weight: float = 0.25
    threat_scale: tuple[float, ...] = ()  # threat multiplier per horizon impulse (1 if absent)
    threat_spread: float = 0.0  # share of the threat taken with the target turned 60° each way
    band: tuple[int, int] = (2, 4)  # preferred range
    band_weight: float = 0.3
    shield_value: np.ndarray = field(default_factory=lambda: np.ones(6))  # own shields #1..#6
    shield_weight: float = 0.5
    drones: tuple[tuple[int, int, int], ...] = ()  # drones aimed at us: axial hex, facing
    drone_weight: float = 0.5  # share of a warhead counted per drone predicted to strike
    edge_weight: float = 2.0
    discount: float = 0.9


@dataclass(frozen=True)
class Plan:
    """The helm's order and what it expects along its best sequence of moves."""

    maneuver: int  # 0 = none (the ship does not move on the next impulse)
    track: list[tuple[int, int]]  # per impulse: target range, our base arcs holding it
    drone_strikes: list[int | None]  # per drone of the goal: impulse index it strikes, or None


def plan(
    pose: Pose,
    area: hexmap.MapArea,
    schedule: Sequence[bool],
    allowed_first: set[int],
    turn_mode: int,
    goal: Goal,
) -> Plan:
    """The best first maneuver, the target's predicted range and our arcs holding it along the
    best sequence, and when each drone aimed at us would strike: ``reference_plan``'s answer
    (same arguments), computed in one compiled call (``agents.helm_kernel``)."""
    horizon = len(schedule)
    if goal.target is None:
        target = np.zeros((0, 2), dtype=np.int64)
    else:
        target = np.array([_target_at(goal, t + 1) for t in range(horizon)], dtype=np.int64)
    scales = [goal.threat_scale[t] if t < len(goal.threat_scale) else 1.0
              for t in range(horizon)]
    spread = goal.threat_spread
    now_bits, now_tables = _pack(goal.offense_now)
    next_bits, next_tables = _pack(goal.offense_next)
    threat_bits, threat_tables = _pack(goal.threat)
    k = len(goal.drones)
    track = np.zeros((horizon, 2), dtype=np.int64)
    strikes = np.zeros(k, dtype=np.int64)
    first = plan_kernel(
        np.array([pose.x, pose.z, pose.facing, min(pose.straight, 99)], dtype=np.int64),
        np.array([area.first_column, area.last_column, area.first_row, area.last_row],
                 dtype=np.int64),
        np.array(schedule, dtype=np.bool_).reshape(horizon),
        np.array([m in allowed_first for m in (STRAIGHT, LEFT, RIGHT)]),
        turn_mode, target, goal.target_facing,
        np.array([goal.discount ** t for t in range(horizon)], dtype=np.float64),
        np.array(scales, dtype=np.float64), goal.turn_left,
        now_bits, now_tables, next_bits, next_tables, threat_bits, threat_tables,
        np.array([1.0 - 2 * spread, spread, spread], dtype=np.float64),
        np.array([goal.offense_weight, goal.threat_weight, goal.band_weight,
                  goal.shield_weight, goal.drone_weight, goal.edge_weight], dtype=np.float64),
        np.array(goal.band, dtype=np.int64),
        np.asarray(goal.shield_value, dtype=np.float64).reshape(6),
        np.array(goal.drones, dtype=np.int64).reshape(k, 3), track, strikes)
    moves_track = [] if goal.target is None else list(map(tuple, track.tolist()))
    return Plan(int(first), moves_track, [int(v) if v >= 0 else None for v in strikes])


_PACKED: dict[tuple[tuple[int, int], ...], tuple[np.ndarray, np.ndarray, tuple]] = {}


def _pack(batteries: Sequence[Battery]) -> tuple[np.ndarray, np.ndarray]:
    """Batteries as the kernel takes them: their arc bits and their tables, one row each.

    A captain asks with the same few batteries every impulse (``gunnery.ev_table``'s cached
    tables), so the packed arrays are kept, keyed by the bits and the tables' identities. An
    entry holds its tables, so no other table can take one's identity while it is kept; only
    read-only tables are kept (one changed in place would be read stale)."""
    if any(np.asarray(t).flags.writeable for _, t in batteries):
        return _stack(batteries)
    key = tuple((bits, id(table)) for bits, table in batteries)
    packed = _PACKED.get(key)
    if packed is None:
        if len(_PACKED) >= 512:
            _PACKED.clear()
        packed = _PACKED[key] = (*_stack(batteries), tuple(t for _, t in batteries))
    return packed[0], packed[1]


def _stack(batteries: Sequence[Battery]) -> tuple[np.ndarray, np.ndarray]:
    bits = np.array([b for b, _ in batteries], dtype=np.int64)
    tables = [np.asarray(t, dtype=np.float64) for _, t in batteries]
    for table in tables:  # (the kernel reads ranges 0..MAX_RANGE - 1 without bounds checks)
        if table.shape != (MAX_RANGE,):
            raise ValueError(f"a helm battery's table has shape {table.shape}; the helm reads "
                             f"expected damage at ranges 0..{MAX_RANGE - 1}, shape "
                             f"({MAX_RANGE},) (gunnery.ev_table(kind, helm.MAX_RANGE))")
    return bits, np.stack(tables) if tables else np.zeros((0, MAX_RANGE))


def reference_plan(
    pose: Pose,
    area: hexmap.MapArea,
    schedule: Sequence[bool],
    allowed_first: set[int],
    turn_mode: int,
    goal: Goal,
) -> Plan:
    """The best first maneuver and, along the best sequence over the horizon, the target's
    predicted range and the base arcs (``hexmap.ARC_BITS``) of ours that hold it, and when
    each drone aimed at us would strike.

    ``schedule[t]``: whether the ship moves on the t-th next impulse; ``allowed_first``: the
    maneuvers the mask allows on the next impulse. The maneuver is 0 (none) when the ship does
    not move on the next impulse.

    This is the specification in numpy; ``plan`` computes the same in one compiled call.
    """
    x = np.array([pose.x])
    z = np.array([pose.z])
    f = np.array([pose.facing])
    s = np.array([min(pose.straight, 99)])
    first = np.zeros(1, dtype=np.int64)
    score = np.zeros(1)
    ranges = np.zeros((1, 0), dtype=np.int64)
    arcs = np.zeros((1, 0), dtype=np.int64)
    k = len(goal.drones)
    drones = np.array(goal.drones, dtype=np.int64).reshape(1, k, 3)
    strike = np.full((1, k), -1, dtype=np.int64)
    for t, moves in enumerate(schedule):
        if moves:
            rows, x, z, f, s = _expand(x, z, f, s, turn_mode, allowed_first if t == 0 else None)
            first, score = first[rows], score[rows]
            drones, strike = drones[rows], strike[rows]
            ranges, arcs = ranges[rows], arcs[rows]
            if t == 0:
                first = _first_choice(f, pose.facing)
        on_map = area.contains_axial_np(x, z)
        weight = goal.discount ** t
        score = score + np.where(on_map, 0.0, OFF_MAP * weight)
        if goal.target is not None:
            tx, tz = _target_at(goal, t + 1)
            rng = hexmap.distance_np(x, z, tx, tz)
            ours = hexmap.arc_bits_np(x, z, f, tx, tz)
            ranges = np.column_stack([ranges, rng])
            arcs = np.column_stack([arcs, ours])
            batteries = goal.offense_now if t < goal.turn_left else goal.offense_next
            scale = goal.threat_scale[t] if t < len(goal.threat_scale) else 1.0
            score = score + weight * _value(goal, batteries, x, z, f, tx, tz, rng, ours, scale)
        if k:
            drones, hit = _move_drones(drones, strike < 0, x, z)
            strike[hit] = t
            score = score - weight * goal.drone_weight * DRONE_WARHEAD * hit.sum(axis=1)
        score = score - weight * goal.edge_weight * _edge_pressure(area, x, z, f, turn_mode, s)
    best = int(np.lexsort((first, -score))[0])
    track = list(zip(ranges[best].tolist(), arcs[best].tolist(), strict=True))
    strikes = [int(v) if v >= 0 else None for v in strike[best]]
    return Plan(int(first[best]), track, strikes)


def _move_drones(drones: np.ndarray, live: np.ndarray, x, z) -> tuple[np.ndarray, np.ndarray]:
    """Every live drone's move after ours (F2.0 robot rule: straight unless a 60° turn is
    strictly closer; a tie turns left here); returns the drones and which struck us (F2.1)."""
    dx, dz, df = drones[..., 0], drones[..., 1], drones[..., 2]
    sx, sz = x[:, None], z[:, None]
    entered = (dx == sx) & (dz == sz)  # we moved into its hex: it strikes without moving
    options = []
    for turn in (0, -1, 1):
        nf = (df + turn) % 6
        nx, nz = hexmap.neighbor_np(dx, dz, nf)
        options.append((nx, nz, nf, hexmap.distance_np(nx, nz, sx, sz)))
    (ax, az, af, ad), (lx, lz, lf, ld), (rx, rz, rf, rd) = options
    left = (ld < ad) & (ld <= rd)
    right = (rd < ad) & ~left
    nx = np.where(left, lx, np.where(right, rx, ax))
    nz = np.where(left, lz, np.where(right, rz, az))
    nf = np.where(left, lf, np.where(right, rf, af))
    move = live & ~entered
    out = np.stack([np.where(move, nx, dx), np.where(move, nz, dz),
                    np.where(move, nf, df)], axis=-1)
    hit = live & (entered | ((nx == sx) & (nz == sz)))
    return out, hit


def _expand(x, z, f, s, turn_mode: int, allowed: set[int] | None):
    """Every state times (straight, left, right), keeping the legal ones (C3.2 turn mode);
    returns the source row of each new state and the new positions."""
    parts = []
    for m, turn in ((STRAIGHT, 0), (LEFT, -1), (RIGHT, 1)):
        if allowed is not None and m not in allowed:
            continue
        rows = np.arange(len(x)) if not turn else np.flatnonzero(s >= turn_mode)
        nf = (f[rows] + turn) % 6
        ns = (np.zeros(len(rows), dtype=np.int64) if turn else s[rows]) + 1
        nx, nz = hexmap.neighbor_np(x[rows], z[rows], nf)
        parts.append((rows, nx, nz, nf, ns))
    if not parts or not sum(len(p[0]) for p in parts):
        return np.arange(len(x)), x, z, f, s
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(5))


def _first_choice(f, facing: int):
    """Label each state with the maneuver it started with (from its new facing)."""
    turned = (f - facing) % 6
    return np.where(turned == 0, STRAIGHT, np.where(turned == 5, LEFT, RIGHT))


def _target_at(goal: Goal, impulses: int) -> tuple[int, int]:
    steps = int(round(goal.target_rate * impulses))
    dx, dz = hexmap.DIR_TO_AXIAL[goal.target_facing]
    return goal.target[0] + steps * int(dx), goal.target[1] + steps * int(dz)


def _fire(batteries: Sequence[Battery], arcs: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """Expected damage of ``batteries`` at ranges ``rng`` where ``arcs`` meet theirs."""
    total = np.zeros(len(rng))
    index = np.minimum(rng, MAX_RANGE - 1)
    for bits, table in batteries:
        total += ((arcs & bits) != 0) * table[index]
    return total


def _value(goal: Goal, batteries, x, z, f, tx, tz, rng, ours, scale: float) -> np.ndarray:
    lo, hi = goal.band
    band = np.where(rng < lo, lo - rng, np.where(rng > hi, rng - hi, 0))
    value = -goal.band_weight * band
    value = value + goal.offense_weight * _fire(batteries, ours, rng)
    spread = goal.threat_spread  # the target may turn before it fires
    for turn, share in ((0, 1.0 - 2 * spread), (-1, spread), (1, spread)):
        if share:
            theirs = hexmap.arc_bits_np(tx, tz, (goal.target_facing + turn) % 6, x, z)
            value = value - scale * share * goal.threat_weight * _fire(goal.threat, theirs, rng)
    bits = hexmap.shield_bits_np(x, z, f, tx, tz)
    struck = ((bits[:, None] >> np.arange(6)) & 1).astype(bool)
    shield = np.where(struck, goal.shield_value[None, :], 0.0).max(axis=1)
    return value + goal.shield_weight * shield


def _edge_pressure(area: hexmap.MapArea, x, z, f, turn_mode: int, s) -> np.ndarray:
    """How hard the ship is pressed against the edge: hexes short of the room it needs ahead
    to turn away (the hexes before its turn mode lets it turn, plus two turns)."""
    need = np.maximum(turn_mode - s, 0) + 2
    room = np.zeros(len(x), dtype=np.int64)
    cx, cz = x.copy(), z.copy()
    free = np.ones(len(x), dtype=bool)
    for _ in range(int(need.max(initial=0)) + 1):
        cx, cz = hexmap.neighbor_np(cx, cz, f)
        free &= area.contains_axial_np(cx, cz)
        room += free
    return np.maximum(need - room, 0).astype(np.float64)
