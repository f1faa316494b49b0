"""Shields: the shield struck by a line of fire (D3.4), exact boundaries (D3.41), range 0 (D3.42).

Boundary resolution (D3.41, scenario option ``shield_boundary``):

* ``"owner"`` (default): temporarily move the unit(s) that move next on the impulse chart one hex
  straight ahead (both if they move on the same impulse) and recompute; if the line is still on
  the boundary, the target's owner chooses, which this engine takes as the shield with more
  boxes left (the lower number on a tie) - the choice a defender makes.
* ``"die"``: the basic rule of scenario 3: a die roll, odd = the lower-numbered shield of the
  pair, even = the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap, impulse
from sfb_env.engine import events as ev

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle


def struck_shield(battle: Battle, target: int, source: int, range0: bool = False) -> int:
    """Shield number 1..6 of ``target`` hit by fire from unit ``source``.

    At range 0 both units' positions of the previous impulse are used (D3.42).
    """
    st = battle.state
    if range0:
        tx, tz, tf = st.prev_x[target], st.prev_z[target], st.prev_facing[target]
        sx, sz = st.prev_x[source], st.prev_z[source]
        if tx == sx and tz == sz:  # shared the hex then too: owner's choice, the strongest
            return _strongest(battle, target, np.ones(6, dtype=bool))
    else:
        tx, tz, tf = st.x[target], st.z[target], st.facing[target]
        sx, sz = st.x[source], st.z[source]
    return shield_from(battle, target, tx, tz, tf, sx, sz, source=source)


def shield_from(
    battle: Battle, target: int, tx, tz, tf, sx, sz, source: int | None = None
) -> int:
    """Shield of ``target`` (at tx, tz facing tf) crossed by the line from (sx, sz)."""
    mask = hexmap.shields_hit_mask_np(tx, tz, tf, sx, sz)
    hit = np.flatnonzero(mask)
    if len(hit) == 1:
        return int(hit[0]) + 1
    # (D3.41) exact boundary
    st = battle.state
    method = battle.scenario.rules["shield_boundary"]
    chosen = None
    if method == "owner" and source is not None:
        chosen = _temporary_move(battle, target, source, tx, tz, tf, sx, sz, mask)
        how = "D3.41 temporary movement" if chosen else "D3.41 owner's choice (stronger shield)"
        if chosen is None:
            chosen = _strongest(battle, target, mask)
    else:
        die = int(battle.rng.integers(1, 7))
        pair = sorted(int(k) + 1 for k in hit)
        if pair == [1, 6]:
            pair = [6, 1]  # odd -> the first of the pair going clockwise
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


def _temporary_move(battle, target, source, tx, tz, tf, sx, sz, mask) -> int | None:
    """(D3.41) Move whichever unit moves next one hex ahead and recompute; None if still tied."""
    st = battle.state
    nxt = {u: _impulses_until_move(battle, u) for u in (target, source)}
    soonest = min(nxt.values())
    if soonest is None or soonest >= 10**6:
        return None
    if nxt[target] == soonest:
        tx, tz = hexmap.neighbor_np(tx, tz, tf)
    if nxt[source] == soonest:
        sx, sz = hexmap.neighbor_np(sx, sz, st.facing[source])
    if tx == sx and tz == sz:
        return None
    new_mask = hexmap.shields_hit_mask_np(tx, tz, tf, sx, sz)
    hit = np.flatnonzero(new_mask)
    return int(hit[0]) + 1 if len(hit) == 1 else None


def _impulses_until_move(battle: Battle, unit: int) -> int:
    """Impulses from now until the unit's next move on the chart (at its current speed)."""
    st = battle.state
    speed = int(st.speed[unit])
    ipt = st.impulses_per_turn
    if speed == 0:
        return 10**6
    for ahead in range(1, 2 * ipt + 1):
        i = (st.impulse + ahead - 1) % ipt + 1
        if impulse.moves_on(speed, i, ipt):
            return ahead
    return 10**6
