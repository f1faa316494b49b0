"""Effects of the cloaking device (G13.0, CTH-DATA §8.2): the cadet rule of scenario 6 and the
standard rule (fade-out and fade-in) of scenarios 7-12 (``rules.cloak``: ``cadet`` / ``standard``).

Energy Allocation (``engine.energy``) decides and pays the cloak and sets ``st.cloaked`` /
``st.cloaked_before``; this module reads those flags: no fire or launch while cloaked or fading,
the effective range 2 x true + 5 (with fades, lock-on and scanners), the seeking-weapon die on a
fully cloaked ship, the standard rule's announcements and fades, and the ESG reveal (G23.621).

Entry points: ``fire_blocker``, ``effective_range``, ``seeking_impact``, ``fully_cloaked``,
``esg_revealed``, ``fading``, ``fade_range``; ``start_turn`` (Energy Allocation), ``cloak_step``
and ``toggle_blockers`` (the Cloak/Uncloak step, its mask and validation).

Rules digest: docs/engine/cloak.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env.engine import events as ev
from sfb_env.engine import sensor_ratings
from sfb_env.engine.types import ACTIVE

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

MISS_BELOW = 5  # (G13 cadet rule) a die of 1-4 misses, 5-6 strikes for half damage
FADE_IMPULSES = 4  # (G13 standard rule) fade-out and fade-in last 4 impulses


def _since(battle: Battle, target):
    """Impulses since ``target``'s last announcement (0 on the announcement impulse)."""
    st = battle.state
    return st.absolute_impulse - st.cloak_announced_at[target]


def fading(battle: Battle, target):
    """(G13 standard rule) Whether ``target`` is in the 4 impulses of a fade-out or fade-in."""
    since = _since(battle, target)
    return (since >= 0) & (since < FADE_IMPULSES)


def esg_revealed(battle: Battle, target: int | np.ndarray):
    """(G23.621) Whether ``target`` took ESG damage in this impulse: "if a cloaked ship is
    damaged by an ESG, it can be locked-onto during the impulse the damage is taken"."""
    st = battle.state
    return st.esg_struck_at[target] == st.absolute_impulse


def fully_cloaked(battle: Battle, target: int | np.ndarray):
    """Whether ``target`` is fully cloaked (lock-on lost): cadet rule, any cloaked ship;
    standard rule (G13), cloaked and past its fade-out. Neither in the impulse an ESG damaged
    it (G23.621, ``esg_revealed``)."""
    cloaked = battle.state.cloaked[target] & ~esg_revealed(battle, target)
    if not battle.rules.standard_cloak:
        return cloaked
    return cloaked & ~fading(battle, target)


def fade_range(battle: Battle, target: int | np.ndarray):
    """(G13 standard rule) Range added for a fading ``target``: fade-out +1..+4, fade-in
    +4..+1 on the 4 impulses from the announcement; 0 otherwise (and under the cadet rule)."""
    if not battle.rules.standard_cloak:
        return np.zeros(np.shape(target), dtype=np.int64) if np.ndim(target) else 0
    since = _since(battle, target)
    out = np.where(fading(battle, target),
                   np.where(battle.state.cloaked[target], since + 1, FADE_IMPULSES - since), 0)
    return out if np.ndim(target) else int(out)


def start_turn(battle: Battle) -> None:
    """(G13 standard rule, turn to turn) After Energy Allocation has set ``st.cloaked`` to
    "paid" and ``st.cloaked_before`` to last turn's state: announce the cloak (paid after an
    uncloaked turn) or the uncloak (not paid after a cloaked turn) on impulse 1."""
    st = battle.state
    first = (st.turn - 1) * st.impulses_per_turn + 1  # impulse 1 of the turn now starting
    st.cloak_paid[:] = st.cloaked
    for u in np.flatnonzero(st.cloaked != st.cloaked_before):
        _announce(battle, int(u), bool(st.cloaked[u]), first, 1)


def _announce(battle: Battle, unit: int, cloaking: bool, at: int, impulse: int) -> None:
    st = battle.state
    st.cloaked[unit] = cloaking
    st.cloak_announced_at[unit] = at
    battle.log(ev.CloakAnnounced(st.turn, impulse, battle.unit_ids[unit], cloaking))


def toggle_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """{1: rule} where ``unit`` may not announce a cloak or an uncloak now (G13 standard
    rule, during the turn), else {}."""
    st = battle.state
    if st.status[unit] != ACTIVE:
        return {1: "G13 the ship is not in play"}
    if not 1 <= st.impulse < st.impulses_per_turn:
        return {1: "G13 the Cloak/Uncloak step comes on impulses 1 to the last but one "
                   "(the last impulse's decision is Energy Allocation)"}
    if fading(battle, unit):
        return {1: "G13 a fade-out or fade-in is in progress (4 impulses; PROPOSAL)"}  # [P-053]
    if not st.cloaked[unit] and not st.cloak_paid[unit]:
        return {1: "G13 the cloak was not paid at Energy Allocation this turn"}
    return {}


def cloak_step(battle: Battle, orders: dict) -> None:
    """(B2.0 advanced sequence, Cloak/Uncloak; G13 standard rule) Announce the ordered cloaks
    and uncloaks of this impulse (``Orders.cloak`` outside Energy Allocation; validated)."""
    st = battle.state
    for u, order in orders.items():
        if order.cloak and not toggle_blockers(battle, u):
            _announce(battle, int(u), not bool(st.cloaked[u]), st.absolute_impulse, st.impulse)


def fire_blocker(battle: Battle, unit: int) -> str | None:
    """Why ``unit`` may not fire or launch now because of its cloak, or None (G13)."""
    st = battle.state
    if battle.rules.standard_cloak:
        if st.cloaked[unit]:
            return "G13 no fire or launch while cloaked or fading out"
        if fading(battle, unit):
            return "G13 no fire or launch while fading in (4 impulses from the announcement)"
        return None
    if st.cloaked[unit]:
        return "G13 a cloaked ship cannot fire or launch"
    if st.cloaked_before[unit] and st.impulse == 1:
        return "G13 no fire or launch on the first impulse of a turn after being cloaked"
    return None


def effective_range(battle: Battle, target: int | np.ndarray, rng, firer: int | None = None):
    """Effective range of fire at ``target``: 2 x true + 5 if it is (fully) cloaked (G13);
    under the standard rule + the fade; with ``firer``, its lock-on and scanners (D6)."""
    st = battle.state
    if not battle.rules.standard_cloak and (firer is None or not battle.rules.lock_on):
        cloaked = st.cloaked[target]
        return np.where(cloaked, 2 * np.asarray(rng) + 5, rng) if np.ndim(rng) else (
            2 * int(rng) + 5 if bool(cloaked) else int(rng))
    true = np.asarray(rng, dtype=np.int64)
    base = true + fade_range(battle, target)
    if firer is not None and battle.rules.lock_on and not st.locked_on[firer]:
        base = 2 * base  # (D6) no lock-on: true range x 2
    out = np.where(fully_cloaked(battle, target), 2 * true + 5, base)
    if firer is not None and battle.rules.lock_on:
        out = out + sensor_ratings.scanner(battle, firer)  # (D6) added to the (doubled) range
    return out if np.ndim(rng) else int(out)


def seeking_impact(battle: Battle, weapon: int, target: int, points: int) -> int:
    """(G13 cadet rule) Warhead points a seeking weapon strikes a cloaked ``target`` with: a die
    of 1-4 misses (0; the caller removes the weapon, logged here), 5-6 strikes for half (x.5
    rounds up). An uncloaked target takes ``points`` and no die is rolled."""
    st = battle.state
    if not fully_cloaked(battle, target):
        return points
    die = int(battle.rng.integers(1, 7))
    if die < MISS_BELOW:
        battle.log(ev.CloakEvaded(st.turn, st.impulse, battle.unit_ids[weapon],
                                  battle.unit_ids[target], die))
        return 0
    return -(-points // 2)


__all__ = ["cloak_step", "effective_range", "esg_revealed", "fade_range", "fading",
           "fire_blocker",
           "fully_cloaked", "seeking_impact", "start_turn", "toggle_blockers"]
