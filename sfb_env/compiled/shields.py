"""Shields in compiled code: ``engine.shields`` (D3.4 struck shield, D3.41 exact boundaries with
the ``advanced`` temporary movement or the ``die`` rule, D3.42 range 0), ``ShieldBoundary``
events. Tables: ``damage.FireTables``.
"""

from __future__ import annotations

import numba as nb

from sfb_env import hexmap
from sfb_env.compiled import dice, event_codes
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine.types import K_FREIGHTER, K_SHIP

SHIELD_BOUNDARY = event_codes.CODE["ShieldBoundary"]
HOW_TEMPORARY = event_codes.word("method", "D3.41 temporary movement")
HOW_OWNER = event_codes.word("method", "D3.41 owner's choice (stronger shield)")
HOW_DIE_1 = event_codes.word("method", "D3.41 die roll 1")  # die k: HOW_DIE_1 + k - 1
NEVER_MOVES = 10**6
R = hexmap.LUT_RADIUS
DIR_X, DIR_Z = hexmap.DIR_DX, hexmap.DIR_DZ


@nb.njit(cache=True, inline="always")
def neighbor(x, z, d):
    """``hexmap.neighbor_np`` for one hex."""
    d = d % 6
    return x + DIR_X[d], z + DIR_Z[d]


@nb.njit(cache=True, inline="always")
def distance(x1, z1, x2, z2):
    """``hexmap.distance_np`` for one pair (D1.4)."""
    dx = x2 - x1
    dz = z2 - z1
    return max(max(abs(dx), abs(dz)), abs(dx + dz))


@kernel(_nrt=False, error_model="numpy")
def shield_bits(ft, x, z, facing, fx, fz):
    """``hexmap.shield_bits_np``: bit k = shield #k+1 struck from (fx, fz) (LUT only)."""
    vx = fx - x
    vz = fz - z
    if abs(vx) > R or abs(vz) > R:
        raise IndexError("compiled shields: offset beyond hexmap.LUT_RADIUS")
    return ft.shield_lut[facing % 6, vx + R, vz + R]


@kernel(_nrt=False, error_model="numpy")
def has_facing_shields(kind, shield_pool, b, unit):
    """``shields.has_facing_shields``: ships and freighters without a shield pool."""
    k = kind[b, unit]
    return (k in (K_SHIP, K_FREIGHTER)) and not shield_pool[b, unit]


@kernel(_nrt=False, error_model="numpy")
def _strongest(shields, b, target, mask_bits):
    """``shields._strongest``: the masked shield with most boxes (lowest number on ties)."""
    best, best_v = 0, -2
    for k in range(6):
        v = shields[b, target, k] if (mask_bits >> k) & 1 else -1
        if v > best_v:
            best, best_v = k, v
    return best + 1


@kernel(_nrt=False, error_model="numpy")
def impulses_until_move(speed, tactical, impulse, ft, b, unit):
    """``shields.impulses_until_move``: impulses until the unit's next move on the chart."""
    v = speed[b, unit]
    ipt = ft.ipt
    if v == 0 or tactical[b, unit]:
        return NEVER_MOVES
    for ahead in range(1, ipt + 1):
        i = (impulse[b] + ahead - 1) % ipt + 1
        if ft.move_chart[v, i - 1]:
            return ahead
    return NEVER_MOVES


@kernel(_nrt=False, error_model="numpy")
def _single(bits):
    """Shield number of a one-bit mask, else 0."""
    if bits != 0 and (bits & (bits - 1)) == 0:
        for k in range(6):
            if bits == (1 << k):
                return k + 1
    return 0


@kernel(_nrt=False, error_model="numpy")
def _temporary_move(speed, tactical, impulse, ft, b, target, source, tx, tz, tf, sx, sz, sf):
    """``shields._temporary_move`` (D3.41): move the next mover(s) one hex ahead, slower
    first; 0 if still tied."""
    wt = impulses_until_move(speed, tactical, impulse, ft, b, target)
    ws = impulses_until_move(speed, tactical, impulse, ft, b, source)
    soonest = min(wt, ws)
    if soonest >= NEVER_MOVES:
        return 0
    mt = wt == soonest
    ms = ws == soonest
    vt = speed[b, target]
    vs = speed[b, source]
    # speeds of the movers, ascending, each once
    n = 0
    s0 = s1 = 0
    if mt:
        s0 = vt
        n = 1
    if ms and (n == 0 or vs != s0):
        if n == 0:
            s0 = vs
        else:
            s1 = vs
        n += 1
    if n == 2 and s1 < s0:
        s0, s1 = s1, s0
    for i in range(n):
        v = s0 if i == 0 else s1
        if mt and vt == v:
            tx, tz = neighbor(tx, tz, tf)
        if ms and vs == v:
            sx, sz = neighbor(sx, sz, sf)
        if tx == sx and tz == sz:
            continue
        one = _single(shield_bits(ft, tx, tz, tf, sx, sz))
        if one:
            return one
    return 0


@kernel(_nrt=False, error_model="numpy")
def shield_from(a, ft, b, target, tx, tz, tf, sx, sz, source, sf):
    """``shields.shield_from``: the shield of ``target`` (at tx, tz facing tf) crossed by the
    line from (sx, sz); 0 if it has none. ``source`` -1 = None (no temporary movement);
    ``sf`` -1 = the source's facing. An exact boundary logs ``ShieldBoundary`` (D3.41)."""
    if not has_facing_shields(a.kind, a.shield_pool, b, target):
        return 0
    bits = shield_bits(ft, tx, tz, tf, sx, sz)
    one = _single(bits)
    if one:
        return one
    if ft.boundary_advanced:
        chosen = 0
        if source >= 0:
            if sf < 0:
                sf = a.facing[b, source]
            chosen = _temporary_move(a.speed, a.tactical, a.impulse, ft, b, target, source,
                                     tx, tz, tf, sx, sz, sf)
        how = HOW_TEMPORARY
        if chosen == 0:
            chosen = _strongest(a.shields, b, target, bits)
            how = HOW_OWNER
    else:
        die = dice.die(a.dice, b)
        lo, hi = 0, 0  # the pair sorted; [1, 6] -> [6, 1] (first going clockwise)
        for k in range(6):
            if (bits >> k) & 1:
                if lo == 0:
                    lo = k + 1
                else:
                    hi = k + 1
        if lo == 1 and hi == 6:
            lo, hi = 6, 1
        chosen = lo if die % 2 else hi
        how = HOW_DIE_1 + die - 1
    r = event_codes.begin(a.ev, a.ev_count, b, SHIELD_BOUNDARY, a.turn[b], a.impulse[b])
    a.ev[b, r, 3] = target
    a.ev[b, r, 4] = source
    n = 0
    for k in range(6):
        if (bits >> k) & 1:
            a.ev[b, r, 6 + n] = k + 1
            n += 1
    a.ev[b, r, 5] = n
    a.ev[b, r, 6 + n] = chosen
    a.ev[b, r, 7 + n] = how
    return chosen


@kernel(_nrt=False, error_model="numpy")
def struck_shield(a, ft, b, target, source, range0):
    """``shields.struck_shield``: shield 1..6 of ``target`` hit by fire from unit ``source``;
    0 if it has none; at range 0 the previous impulse's positions (D3.42)."""
    if not has_facing_shields(a.kind, a.shield_pool, b, target):
        return 0
    if range0:
        tx, tz, tf = a.prev_x[b, target], a.prev_z[b, target], a.prev_facing[b, target]
        sx, sz, sf = a.prev_x[b, source], a.prev_z[b, source], a.prev_facing[b, source]
        if tx == sx and tz == sz:  # shared the hex then too: the strongest, no event
            return _strongest(a.shields, b, target, 63)
    else:
        tx, tz, tf = a.x[b, target], a.z[b, target], a.facing[b, target]
        sx, sz, sf = a.x[b, source], a.z[b, source], a.facing[b, source]
    return shield_from(a, ft, b, target, tx, tz, tf, sx, sz, source, sf)
