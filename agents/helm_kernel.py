"""The helm's look-ahead as one compiled call (``helm.plan``; ``helm.reference_plan`` is the
numpy specification it must match bit for bit, tests/test_helm_kernel.py).

The numpy look-ahead spends its time in a few hundred calls on arrays of a few hundred rows
(about 0.7 ms of a doctrine captain's 1.1 ms decision); here every move sequence is scored in
one pass, with the same arithmetic in the same order, so the scores, the tie-breaks and the
order are the same. The hex geometry is the formulas ``sfb_env.hexmap``'s tables are built
from (D1.4 range, D2.1 arcs, D3.4 shields), so no table is consulted.
"""

from __future__ import annotations

import numba
import numpy as np

from sfb_env import hexmap

STRAIGHT, LEFT, RIGHT = 1, 2, 3  # Maneuver values of the action component
OFF_MAP = -1000.0  # score per impulse spent off the map (helm.OFF_MAP)
DRONE_WARHEAD = 6  # (FD1.6) cadet drones (helm.DRONE_WARHEAD)
MAX_RANGE = 64  # length of the expected-damage-by-range tables (ranges beyond read the last)
DX = hexmap.DIR_DX
DZ = hexmap.DIR_DZ
CUBE = hexmap.DIR_TO_CUBE


@numba.njit(cache=True, inline="always")
def _on_map(x: int, z: int, area: np.ndarray) -> bool:
    """``MapArea.contains_axial_np`` for one hex (even-down parity)."""
    odd = x & 1
    col = x + 1
    row = z + (x - odd) // 2 + 1
    return area[0] <= col <= area[1] and area[2] <= row <= area[3]


@numba.njit(cache=True, inline="always")
def _distance(x1: int, z1: int, x2: int, z2: int) -> int:
    """(D1.4) ``hexmap.distance_np``."""
    dx = x2 - x1
    dz = z2 - z1
    return max(max(abs(dx), abs(dz)), abs(dx + dz))


@numba.njit(cache=True, inline="always")
def _arc_bits(x: int, z: int, f: int, tx: int, tz: int) -> int:
    """(D2.1) ``hexmap.arc_bits_np``: the base arcs of a unit at (x, z) facing ``f`` that hold
    (tx, tz), by the a, b >= 0 rule its table is built from."""
    vx = tx - x
    vz = tz - z
    bits = 0
    for k in range(6):
        d1 = (f + k) % 6
        d2 = (f + k + 1) % 6
        a = vx * DZ[d2] - vz * DX[d2]
        b = DX[d1] * vz - DZ[d1] * vx
        if a >= 0 and b >= 0:
            bits |= 1 << k
    return bits


@numba.njit(cache=True, inline="always")
def _shield_bits(x: int, z: int, f: int, fx: int, fz: int) -> int:
    """(D3.4) ``hexmap.shield_bits_np``: the shields of a unit at (x, z) facing ``f`` struck
    from (fx, fz): the highest score(s) of v . U(f + k)."""
    vx = fx - x
    vz = fz - z
    vy = -vx - vz
    best = -(1 << 62)
    bits = 0
    for k in range(6):
        d = (f + k) % 6
        score = vx * CUBE[d, 0] + vy * CUBE[d, 1] + vz * CUBE[d, 2]
        if score > best:
            best = score
            bits = 1 << k
        elif score == best:
            bits |= 1 << k
    return bits


@numba.njit(cache=True, inline="always")
def _fire(bits: np.ndarray, tables: np.ndarray, arcs: int, rng: int) -> float:
    """``helm._fire`` for one state: the batteries' expected damage, summed in their order."""
    index = min(rng, MAX_RANGE - 1)
    total = 0.0
    for b in range(bits.shape[0]):
        total += (1.0 if arcs & bits[b] != 0 else 0.0) * tables[b, index]
    return total


@numba.njit(cache=True)
def plan_kernel(
    pose: np.ndarray,  # x, z, facing, straight (capped at 99)
    area: np.ndarray,  # first and last column, first and last row
    moves: np.ndarray,  # per horizon impulse: whether the ship moves
    allowed: np.ndarray,  # [STRAIGHT, LEFT, RIGHT] allowed on the first move
    turn_mode: int,
    target: np.ndarray,  # per impulse: the target's predicted x, z (an empty array: none)
    target_facing: int,
    weights: np.ndarray,  # per impulse: discount ** t
    scales: np.ndarray,  # per impulse: the threat multiplier
    turn_left: int,
    now_bits: np.ndarray, now_tables: np.ndarray,  # offense_now
    next_bits: np.ndarray, next_tables: np.ndarray,  # offense_next
    threat_bits: np.ndarray, threat_tables: np.ndarray,
    shares: np.ndarray,  # threat share with the target turned 0, -1, +1
    coefficients: np.ndarray,  # offense, threat, band, shield, drone, edge weights
    band: np.ndarray,  # lo, hi
    shield_value: np.ndarray,  # own shields #1..#6
    drones0: np.ndarray,  # (k, 3): axial hex and facing of each drone aimed at us
    track: np.ndarray,  # out (T, 2): range and our arcs along the best sequence
    strikes: np.ndarray,  # out (k,): impulse each drone strikes along it, -1 if none
) -> int:
    """``helm.reference_plan`` for one ship: returns the first maneuver of the best move
    sequence and fills ``track`` and ``strikes`` along it."""
    offense_weight, threat_weight, band_weight = coefficients[0], coefficients[1], coefficients[2]
    shield_weight, drone_weight, edge_weight = coefficients[3], coefficients[4], coefficients[5]
    horizon = moves.shape[0]
    has_target = target.shape[0] > 0
    k = drones0.shape[0]
    x = np.full(1, pose[0])
    z = np.full(1, pose[1])
    f = np.full(1, pose[2])
    s = np.full(1, pose[3])
    first = np.zeros(1, np.int64)
    score = np.zeros(1)
    ranges = np.zeros((1, horizon), np.int64)
    arcs = np.zeros((1, horizon), np.int64)
    drones = drones0.copy().reshape(1, k, 3)
    strike = np.full((1, k), -1, np.int64)
    for t in range(horizon):
        n = x.shape[0]
        if moves[t]:
            # helm._expand: every state straight, then left, then right (C3.2 turn mode)
            turnable = 0
            for i in range(n):
                if s[i] >= turn_mode:
                    turnable += 1
            take_straight = t > 0 or allowed[0]
            take_left = t > 0 or allowed[1]
            take_right = t > 0 or allowed[2]
            m = (n if take_straight else 0) + turnable * (take_left + take_right)
            if m > 0:
                rows = np.empty(m, np.int64)
                nx = np.empty(m, np.int64)
                nz = np.empty(m, np.int64)
                nf = np.empty(m, np.int64)
                ns = np.empty(m, np.int64)
                j = 0
                for turn in (0, -1, 1):
                    if not (take_straight if turn == 0 else
                            take_left if turn == -1 else take_right):
                        continue
                    for i in range(n):
                        if turn != 0 and s[i] < turn_mode:
                            continue
                        g = (f[i] + turn) % 6
                        rows[j] = i
                        nx[j] = x[i] + DX[g]
                        nz[j] = z[i] + DZ[g]
                        nf[j] = g
                        ns[j] = s[i] + 1 if turn == 0 else 1
                        j += 1
                x, z, f, s = nx, nz, nf, ns
                new_first = np.empty(m, np.int64)
                new_score = np.empty(m)
                new_ranges = np.empty((m, horizon), np.int64)
                new_arcs = np.empty((m, horizon), np.int64)
                new_drones = np.empty((m, k, 3), np.int64)
                new_strike = np.empty((m, k), np.int64)
                for j in range(m):
                    r = rows[j]
                    new_first[j] = first[r]
                    new_score[j] = score[r]
                    new_ranges[j] = ranges[r]
                    new_arcs[j] = arcs[r]
                    new_drones[j] = drones[r]
                    new_strike[j] = strike[r]
                first, score, ranges, arcs = new_first, new_score, new_ranges, new_arcs
                drones, strike = new_drones, new_strike
                n = m
            if t == 0:  # helm._first_choice
                for i in range(n):
                    turned = (f[i] - pose[2]) % 6
                    first[i] = STRAIGHT if turned == 0 else LEFT if turned == 5 else RIGHT
        weight = weights[t]
        off_map = OFF_MAP * weight
        if has_target:
            tx, tz = target[t, 0], target[t, 1]
            lo, hi = band[0], band[1]
            scale = scales[t]
            now = t < turn_left
        need_max = 0
        for i in range(n):
            need_max = max(need_max, max(turn_mode - s[i], 0) + 2)
        for i in range(n):
            xi, zi, fi = x[i], z[i], f[i]
            score[i] = score[i] + (0.0 if _on_map(xi, zi, area) else off_map)
            if has_target:
                rng = _distance(xi, zi, tx, tz)
                ours = _arc_bits(xi, zi, fi, tx, tz)
                ranges[i, t] = rng
                arcs[i, t] = ours
                # helm._value
                gap = lo - rng if rng < lo else rng - hi if rng > hi else 0
                value = -band_weight * gap
                if now:
                    value = value + offense_weight * _fire(now_bits, now_tables, ours, rng)
                else:
                    value = value + offense_weight * _fire(next_bits, next_tables, ours, rng)
                for turn in (0, -1, 1):
                    share = shares[0] if turn == 0 else shares[1] if turn == -1 else shares[2]
                    if share != 0.0:
                        theirs = _arc_bits(tx, tz, (target_facing + turn) % 6, xi, zi)
                        value = value - scale * share * threat_weight * _fire(
                            threat_bits, threat_tables, theirs, rng)
                struck = _shield_bits(xi, zi, fi, tx, tz)
                shield = -np.inf
                for b in range(6):
                    shield = max(shield, shield_value[b] if (struck >> b) & 1 else 0.0)
                value = value + shield_weight * shield
                score[i] = score[i] + weight * value
            if k:
                # helm._move_drones: each live drone moves after us (F2.0) and may strike (F2.1)
                hits = 0
                for d in range(k):
                    if strike[i, d] >= 0:
                        continue
                    dx, dz, df = drones[i, d, 0], drones[i, d, 1], drones[i, d, 2]
                    entered = dx == xi and dz == zi
                    ax, az = dx + DX[df], dz + DZ[df]
                    lf, rf = (df - 1) % 6, (df + 1) % 6
                    lx, lz = dx + DX[lf], dz + DZ[lf]
                    rx, rz = dx + DX[rf], dz + DZ[rf]
                    ad = _distance(ax, az, xi, zi)
                    ld = _distance(lx, lz, xi, zi)
                    rd = _distance(rx, rz, xi, zi)
                    if ld < ad and ld <= rd:
                        nx_, nz_, nf_ = lx, lz, lf
                    elif rd < ad:
                        nx_, nz_, nf_ = rx, rz, rf
                    else:
                        nx_, nz_, nf_ = ax, az, df
                    if not entered:
                        drones[i, d, 0], drones[i, d, 1], drones[i, d, 2] = nx_, nz_, nf_
                    if entered or (nx_ == xi and nz_ == zi):
                        strike[i, d] = t
                        hits += 1
                score[i] = score[i] - weight * drone_weight * DRONE_WARHEAD * hits
            # helm._edge_pressure: hexes short of the room needed ahead to turn away
            need = max(turn_mode - s[i], 0) + 2
            room = 0
            cx, cz = xi, zi
            free = True
            for _ in range(need_max + 1):
                cx, cz = cx + DX[fi], cz + DZ[fi]
                free = free and _on_map(cx, cz, area)
                room += free
            score[i] = score[i] - weight * edge_weight * float(max(need - room, 0))
    # np.lexsort((first, -score))[0]: the highest score, then the lowest first, then the first
    best = 0
    for i in range(1, x.shape[0]):
        if -score[i] < -score[best] or (-score[i] == -score[best] and first[i] < first[best]):
            best = i
    for t in range(horizon):
        track[t, 0] = ranges[best, t]
        track[t, 1] = arcs[best, t]
    for d in range(k):
        strikes[d] = strike[best, d]
    return first[best]
