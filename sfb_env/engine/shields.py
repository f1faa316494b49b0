"""Shields: the shield struck by a line of fire (D3.4), exact boundaries (D3.41), range 0 (D3.42).

Only ships have six directional shields. Drones have none, and a freighter's shields are one pool
for every direction (R1.6), so for them no shield is determined: the shield number is 0 and no
boundary is resolved (no die is rolled).

Boundary resolution (D3.41, scenario option ``shield_boundary``):

* ``"advanced"`` (default; the text of rules file 003 and the scenario 10 rule): find on the
  impulse chart the next impulse on which the target or the firer moves; temporarily move the unit
  that moves then one hex straight ahead, the slower first (C1.3: slower units move first; equal
  speeds move together), and recompute after each step. If the line still runs along the boundary
  (or both units stand in one hex, or neither will ever move), the target's owner chooses: the
  engine takes the shield with more boxes left (the lower number on a tie), the choice a defender
  makes. [P-038]
* ``"die"``: the book's basic rule of scenario 3: a die roll, odd = the first shield of the pair
  going clockwise (#3 of #3/#4, #6 of #6/#1), even = the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap, impulse
from sfb_env.engine import events as ev
from sfb_env.engine.types import K_FREIGHTER, K_SHIP

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

NEVER_MOVES = 10**6
BOUNDARY_METHODS = ("advanced", "die")


def has_facing_shields(battle: Battle, unit: int) -> bool:
    """Whether ``unit`` has six directional shields (ships; not drones or pooled freighters)."""
    st = battle.state
    return st.kind[unit] in (K_SHIP, K_FREIGHTER) and not st.shield_pool[unit]


def struck_shield(battle: Battle, target: int, source: int, range0: bool = False) -> int:
    """Shield number 1..6 of ``target`` hit by fire from unit ``source``; 0 if it has none.

    At range 0 both units' positions of the previous impulse are used (D3.42).
    """
    if not has_facing_shields(battle, target):
        return 0
    st = battle.state
    if range0:  # (D3.42)
        tx, tz, tf = st.prev_x[target], st.prev_z[target], st.prev_facing[target]
        sx, sz, sf = st.prev_x[source], st.prev_z[source], st.prev_facing[source]
        if tx == sx and tz == sz:  # shared the hex then too: owner's choice, the strongest
            return _strongest(battle, target, np.ones(6, dtype=bool))
    else:
        tx, tz, tf = st.x[target], st.z[target], st.facing[target]
        sx, sz, sf = st.x[source], st.z[source], st.facing[source]
    return shield_from(battle, target, tx, tz, tf, sx, sz, source=source, sf=sf)


def shield_from(
    battle: Battle, target: int, tx, tz, tf, sx, sz, source: int | None = None, sf=None
) -> int:
    """Shield of ``target`` (at tx, tz facing tf) crossed by the line from (sx, sz); 0 if none.

    ``source`` (facing ``sf``) is the firing unit, used by the advanced boundary rule.
    """
    if not has_facing_shields(battle, target):
        return 0
    mask = hexmap.shields_hit_mask_np(tx, tz, tf, sx, sz)
    hit = np.flatnonzero(mask)
    if len(hit) == 1:
        return int(hit[0]) + 1
    # (D3.41) exact boundary
    st = battle.state
    method = battle.rules.shield_boundary
    if method == "advanced":
        chosen = None
        if source is not None:
            sf = st.facing[source] if sf is None else sf
            chosen = _temporary_move(battle, target, source, (tx, tz, tf), (sx, sz, sf))
        how = "D3.41 temporary movement"
        if chosen is None:
            chosen = _strongest(battle, target, mask)
            how = "D3.41 owner's choice (stronger shield)"
    else:
        die = int(battle.rng.integers(1, 7))
        pair = sorted(int(k) + 1 for k in hit)
        if pair == [1, 6]:
            pair = [6, 1]  # the first of the pair going clockwise
        chosen = pair[0] if die % 2 else pair[1]
        how = f"D3.41 die roll {die}"
    battle.log(
        ev.ShieldBoundary(
            st.turn, st.impulse, battle.unit_ids[target],
            battle.unit_ids[source] if source is not None else "",
            tuple(int(k) + 1 for k in hit), chosen, how,
        )
    )
    return chosen


def _strongest(battle: Battle, target: int, mask: np.ndarray) -> int:
    boxes = np.where(mask, battle.state.shields[target], -1)
    return int(np.argmax(boxes)) + 1


def _temporary_move(battle: Battle, target: int, source: int, tpos, spos) -> int | None:
    """(D3.41) Move the next unit(s) to move one hex ahead, slower first; None if still tied."""
    st = battle.state
    pos = {target: list(tpos), source: list(spos)}
    wait = {u: impulses_until_move(battle, u) for u in pos}
    soonest = min(wait.values())
    if soonest >= NEVER_MOVES:
        return None
    movers = [u for u in pos if wait[u] == soonest]
    for speed in sorted({int(st.speed[u]) for u in movers}):  # (C1.3) slower units first
        for u in movers:
            if int(st.speed[u]) == speed:
                x, z, f = pos[u]
                nx, nz = hexmap.neighbor_np(x, z, f)
                pos[u] = [int(nx), int(nz), f]
        (tx, tz, tf), (sx, sz, _) = pos[target], pos[source]
        if tx == sx and tz == sz:
            continue
        hit = np.flatnonzero(hexmap.shields_hit_mask_np(tx, tz, tf, sx, sz))
        if len(hit) == 1:
            return int(hit[0]) + 1
    return None


def impulses_until_move(battle: Battle, unit: int) -> int:
    """Impulses from now until the unit's next move on the chart (at its current speed)."""
    st = battle.state
    speed = int(st.speed[unit])
    ipt = st.impulses_per_turn
    if speed == 0 or st.tactical[unit]:  # (C5.21) a unit on tactical maneuvers stays put
        return NEVER_MOVES
    for ahead in range(1, ipt + 1):
        i = (st.impulse + ahead - 1) % ipt + 1
        if impulse.moves_on(speed, i, ipt):
            return ahead
    return NEVER_MOVES
