"""Effects of the cadet cloaking device (G13.0 cadet rule of scenario 6, CTH-DATA §8.2).

The decision and its cost belong to Energy Allocation (``engine.energy``), which sets
``BattleState.cloaked`` for the whole turn and keeps last turn's flag in ``cloaked_before``.
This module only reads those flags:

* a cloaked ship cannot fire or launch; nor can it on the first impulse of a turn after a turn
  spent cloaked (``fire_blocker``, used by the fire and launch predicates, so masks agree);
* direct fire at a cloaked ship uses the effective range 2 x true range + 5 for the hit and
  damage tables (``effective_range``); arcs are judged as normal. PROPOSAL: a weapon whose
  chart ends before that effective range may not fire at it (the mask closes, with the rule);
  minimum ranges are judged on the true range;
* a drone or plasma torpedo entering a cloaked ship's hex rolls a die: 1-4 it misses and is
  removed, 5-6 it strikes for half its warhead (PROPOSAL of CTH-DATA §8.2: x.5 rounds up)
  (``seeking_impact``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env.engine import events as ev

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

MISS_BELOW = 5  # (G13 cadet rule) a die of 1-4 misses, 5-6 strikes for half damage


def fire_blocker(battle: Battle, unit: int) -> str | None:
    """Why ``unit`` may not fire or launch now because of its cloak, or None (G13)."""
    st = battle.state
    if st.cloaked[unit]:
        return "G13 a cloaked ship cannot fire or launch"
    if st.cloaked_before[unit] and st.impulse == 1:
        return "G13 no fire or launch on the first impulse of a turn after being cloaked"
    return None


def effective_range(battle: Battle, target: int | np.ndarray, rng):
    """(G13 cadet rule) Effective range of fire at ``target``: 2 x true + 5 if it is cloaked."""
    cloaked = battle.state.cloaked[target]
    return np.where(cloaked, 2 * np.asarray(rng) + 5, rng) if np.ndim(rng) else (
        2 * int(rng) + 5 if bool(cloaked) else int(rng))


def seeking_impact(battle: Battle, weapon: int, target: int, points: int) -> int:
    """(G13 cadet rule) Warhead points a seeking weapon strikes a cloaked ``target`` with: a die
    of 1-4 misses (0; the caller removes the weapon, logged here), 5-6 strikes for half (x.5
    rounds up). An uncloaked target takes ``points`` and no die is rolled."""
    st = battle.state
    if not st.cloaked[target]:
        return points
    die = int(battle.rng.integers(1, 7))
    if die < MISS_BELOW:
        battle.log(ev.CloakEvaded(st.turn, st.impulse, battle.unit_ids[weapon],
                                  battle.unit_ids[target], die))
        return 0
    return -(-points // 2)


__all__ = ["effective_range", "fire_blocker", "seeking_impact"]
