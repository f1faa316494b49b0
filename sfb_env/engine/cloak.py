"""Effects of the cloaking device: the cadet rule of scenario 6 and the standard rule of
scenarios 7-12 (G13.0, CTH-DATA §8.2; ``rules.cloak``: ``cadet`` / ``standard``).

The decision and its cost belong to Energy Allocation (``engine.energy``), which sets
``BattleState.cloaked`` for the whole turn and keeps last turn's flag in ``cloaked_before``.
This module only reads those flags:

* a cloaked ship cannot fire or launch; nor can it on the first impulse of a turn after a turn
  spent cloaked (``fire_blocker``, used by the fire and launch predicates, so masks agree);
* direct fire at a cloaked ship uses the effective range 2 x true range + 5 for the hit and
  damage tables (``effective_range``); arcs are judged as normal. PROPOSAL [P-051]: a weapon whose
  chart ends before that effective range may not fire at it (the mask closes, with the rule);
  minimum ranges are judged on the true range;
* a drone or plasma torpedo entering a cloaked ship's hex rolls a die: 1-4 it misses and is
  removed, 5-6 it strikes for half its warhead (PROPOSAL [P-052] of CTH-DATA §8.2: x.5 rounds up)
  (``seeking_impact``).

Standard rule (``rules.cloak: standard``, G13 standard rule). ``st.cloaked`` is then "the device
is engaged" (fading out or cloaked) and ``st.cloak_announced_at`` the absolute impulse of the
last announcement; an announcement's impulse is the first of its 4 fade impulses.

* Turn to turn (``start_turn``, at Energy Allocation; the energy-time ``cloak`` component pays):
  paying after an uncloaked turn announces the cloak on impulse 1 (fade-out on 1-4); not paying
  after a cloaked turn announces the uncloak on impulse 1 (fade-in on 1-4); paying after a
  cloaked turn keeps the ship cloaked.
* During the turn (``cloak_step``, the Cloak/Uncloak step after Resolve Seeking Weapons): the
  same ``cloak`` component, at the decision points of impulses 1..I-1, toggles: 1 announces an
  uncloak (a cloaked ship) or a cloak (an uncloaked ship whose cost was paid this turn, e.g.
  after uncloaking earlier in it) (``toggle_blockers``, used by the mask and validation).
  PROPOSAL [P-053]: no announcement while a fade is in progress; the cost is paid only at Energy
  Allocation.
* Fade-out: enemies keep lock-on and add +1, +2, +3, +4 to the range; afterwards fully cloaked
  (lock-on lost, effective range 2 x true + 5). Fade-in: +4, +3, +2, +1; enemies regain lock-on
  at the announcement. No fire or launch of any kind while cloaked, fading out or fading in
  (``fire_blocker``).
* The seeking-weapon die above applies to a fully cloaked ship only; a fading ship is struck as
  normal (lock-on kept). PROPOSAL [P-050] (D6, G13): no seeking weapon may be launched at a fully
  cloaked ship (``sensors.target_blockers``).
* (G23.621, CTH-DATA §8.2) "a ship hit by an ESG while cloaked can be locked on during that
  impulse": in the impulse an ESG field scores damage on it (Move Ships, ``esg_field``) a
  cloaked ship is not fully cloaked (``fully_cloaked``, ``esg_revealed``), so fire at it that
  impulse uses the normal effective range and seeking weapons may be launched at it
  (``sensors.target_blockers``). PROPOSAL [P-054]: under the cadet rule too, and the cloaked ship
  still may not fire or launch itself (``fire_blocker`` reads ``st.cloaked``); a PPD still
  cannot fire at it (E11.472 reads ``st.cloaked``).

With ``firer`` given, ``effective_range`` also applies the firer's lock-on and scanners (D6,
``engine.sensors``): a firer without lock-on fires at 2 x (true + fade), its scanner
adjustment is added last; a fully cloaked target is at 2 x true + 5 (+ scanner) whatever the
firer's own lock-on.
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
