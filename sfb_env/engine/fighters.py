"""Fire at fighters (J4.47): the +1 die shift and its "six of the next bracket" rule.

Pure functions over natural dice; nothing here knows about ``Battle``. Every weapon fired at a
fighter adds 1 to its die, whoever fires (J4.47); plasma torpedoes are exempt, drones are not.

* Hit/miss weapons (disruptor, photon, PPD 2d6): pass :func:`fighter_die` to the chart look-up; a
  die pushed over the hit number misses (disruptor range 3, die 4 -> 5, a miss).
* Die-by-range charts (phasers, fusion): a natural 1..5 reads the next row down; a natural 6
  reads the die-6 row of the next longer range bracket (:func:`die_chart_vs_fighter`).

A bad argument raises :class:`FighterRuleError` (a ``ValueError``) starting with the rule number.
"""

from __future__ import annotations

import numpy as np

from sfb_env.tables import NON_NEGATIVE, fusion_chart, phaser_chart

FIGHTER_DIE_SHIFT = 1  # (J4.47) all fire at fighters, plasma excepted
MAX_FIGHTER_TARGET_RANGE = 5  # (J4.47) fighters, like shuttles, cannot be targeted beyond 5
DIE_FACES = range(1, 7)


class FighterRuleError(ValueError):
    """A fire-at-fighter argument the rules do not allow; ``rule`` is the J4 number."""

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(f"{rule} {message}")


def _int_in(name: str, value: object, allowed: range, rule: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value not in allowed:
        span = (f">= {allowed.start}" if allowed.stop == NON_NEGATIVE.stop
                else f"{allowed.start}..{allowed.stop - 1}")
        raise FighterRuleError(rule, f"{name}={value!r} outside {span}")
    return int(value)


def can_target_fighter(rng: int) -> bool:
    """(J4.47) Whether a fighter at true range ``rng`` may be fired at (5 hexes at most)."""
    return 0 <= _int_in("rng", rng, NON_NEGATIVE, "J4.47") <= MAX_FIGHTER_TARGET_RANGE


def fighter_die(die: int, *, plasma: bool = False) -> int:
    """(J4.47) The modified die for fire at a fighter: natural ``die`` + 1, plasma unmodified."""
    die = _int_in("die", die, DIE_FACES, "J4.47")
    return die if plasma else die + FIGHTER_DIE_SHIFT


def next_bracket(chart: np.ndarray, rng: int) -> int | None:
    """First range of the bracket after the one holding ``rng`` on a ``[die - 1, range]`` chart.

    The charts are stored one column per range, so a printed bracket is a run of equal columns;
    every printed phaser and fusion bracket differs from its neighbour. ``None`` past the last.
    """
    rng = _int_in("rng", rng, range(chart.shape[1]), "J4.47")
    for later in range(rng + 1, chart.shape[1]):
        if not np.array_equal(chart[:, later], chart[:, rng]):
            return later
    return None


def die_chart_vs_fighter(chart: np.ndarray, rng: int, die: int) -> int:
    """(J4.47) Damage on a die-by-range chart at ``rng`` against a fighter, natural ``die``.

    A modified 7 reads the die-6 row of the next longer bracket; past the last bracket it scores
    nothing (unreachable for fighters, which cannot be targeted beyond 5 hexes).
    """
    modified = fighter_die(die)
    rng = _int_in("rng", rng, range(chart.shape[1]), "J4.47")
    if modified <= DIE_FACES.stop - 1:
        return int(chart[modified - 1, rng])
    later = next_bracket(chart, rng)
    return 0 if later is None else int(chart[DIE_FACES.stop - 2, later])


def phaser_damage_vs_fighter(kind: str, rng: int, die: int) -> int:
    """(J4.47) Phaser ``kind`` (``ph-1``, ``ph-2``, ``ph-3``, ``ph-g``) at a fighter."""
    return die_chart_vs_fighter(phaser_chart(kind), rng, die)


def fusion_damage_vs_fighter(rng: int, die: int) -> int:
    """(J4.47) Fusion beam at a fighter."""
    return die_chart_vs_fighter(fusion_chart(), rng, die)


def drone_damage_vs_fighter(warhead: int, die: int) -> int:
    """(J4.47) A drone that hits a fighter: on a natural 6 only half its warhead scores.

    The text gives 12 -> 6; it does not say how an odd warhead rounds: half is rounded up here.
    """
    warhead = _int_in("warhead", warhead, NON_NEGATIVE, "J4.47")
    die = _int_in("die", die, DIE_FACES, "J4.47")
    return (warhead + 1) // 2 if die == DIE_FACES.stop - 1 else warhead
