"""Hydran gatling phaser, phaser-G (E2.15): its firing-rate clock, cost and damage.

One frozen :class:`GatlingPhaser` per phaser-G box; nothing here knows about ``Battle``. Shots are
recorded at absolute impulses (:func:`sfb_env.impulse.absolute_impulse`), so the quarter-turn
window runs across the turn break (E2.151): with ``I`` impulses a turn, at most 4 shots in a turn
and at most 4 in any ``I/4`` consecutive impulses. Four shots on impulse 32 of a 32-impulse turn
block the next turn's shots until impulse 8 (every window 25..32 through 32..7 is full).

A call the rules forbid raises :class:`PhaserGRuleError` (a ``ValueError``) whose message starts
with the rule number and names the argument.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from sfb_env.engine.fighters import phaser_damage_vs_fighter
from sfb_env.impulse import absolute_impulse, check_impulses_per_turn, quarter_turn
from sfb_env.tables import phaser_damage

CHART = "ph-g"  # (E2.152) the printed Type G table is the phaser-3 table
SHOTS_PER_TURN = 4  # (E2.151)
SHOTS_PER_QUARTER_TURN = 4  # (E2.151) in any I/4 consecutive impulses, across the turn break
CRIPPLED_FIGHTER_SHOTS = 1  # (J4.32) a crippled fighter's phaser-G: one phaser-3 shot a turn
ENERGY_PER_SHOT = Fraction(1, 4)  # (E2.152) 1 point buys all four shots


class PhaserGRuleError(ValueError):
    """A phaser-G shot the rules forbid; ``rule`` is the E2.15 (or J4) number."""

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(f"{rule} {message}")


@dataclass(frozen=True)
class GatlingPhaser:
    """One phaser-G and the absolute impulses of its recent shots (one entry per shot)."""

    impulses_per_turn: int  # 8, 16 or 32
    shots_per_turn: int = SHOTS_PER_TURN  # 1 on a crippled fighter (J4.32)
    shots: tuple[int, ...] = ()  # absolute impulses, oldest first; earlier turns are pruned


def new_phaser_g(impulses_per_turn: int = 32, *, crippled_fighter: bool = False) -> GatlingPhaser:
    """A phaser-G that has not fired."""
    ipt = check_impulses_per_turn(impulses_per_turn)
    per_turn = CRIPPLED_FIGHTER_SHOTS if crippled_fighter else SHOTS_PER_TURN
    return GatlingPhaser(impulses_per_turn=ipt, shots_per_turn=per_turn)


def _now(gun: GatlingPhaser, turn: int, impulse: int) -> int:
    try:
        return absolute_impulse(turn, impulse, gun.impulses_per_turn)
    except (ValueError, TypeError) as err:  # names the turn or impulse
        raise PhaserGRuleError("E2.151", f"turn={turn!r} impulse={impulse!r}: {err}") from None


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise PhaserGRuleError("E2.151", f"{name}={value!r} must be an integer >= 1")
    return int(value)


def shots_this_turn(gun: GatlingPhaser, turn: int) -> int:
    """Shots fired during ``turn``."""
    first = _now(gun, turn, 1)
    return sum(first <= t < first + gun.impulses_per_turn for t in gun.shots)


def shots_in_quarter_turn(gun: GatlingPhaser, turn: int, impulse: int) -> int:
    """Shots in the ``I/4`` impulses ending with ``turn``/``impulse`` (across the turn break)."""
    now = _now(gun, turn, impulse)
    return sum(now - t < quarter_turn(gun.impulses_per_turn) for t in gun.shots)


def can_fire(gun: GatlingPhaser, turn: int, impulse: int, shots: int = 1) -> tuple[bool, str]:
    """Whether ``shots`` more shots may be fired now, and why not (rule number first)."""
    now = _now(gun, turn, impulse)
    shots = _count("shots", shots)
    if gun.shots and now < gun.shots[-1]:
        return False, "E2.151 time runs backwards"
    this_turn = shots_this_turn(gun, turn)
    if this_turn + shots > gun.shots_per_turn:
        rule = "J4.32" if gun.shots_per_turn == CRIPPLED_FIGHTER_SHOTS else "E2.151"
        return False, (f"{rule} {this_turn} of {gun.shots_per_turn} shots already fired this "
                       "turn")
    window = shots_in_quarter_turn(gun, turn, impulse)
    if window + shots > SHOTS_PER_QUARTER_TURN:
        return False, (f"E2.151 {window} shots already in the last "
                       f"{quarter_turn(gun.impulses_per_turn)} impulses (1/4 turn)")
    return True, ""


def fire(gun: GatlingPhaser, turn: int, impulse: int, shots: int = 1) -> GatlingPhaser:
    """Record ``shots`` shots now, at the same or different targets (E2.151)."""
    ok, why = can_fire(gun, turn, impulse, shots)
    if not ok:
        rule, _, message = why.partition(" ")
        raise PhaserGRuleError(rule, message)
    now = _now(gun, turn, impulse)
    # only this turn's shots and the last quarter turn's can still matter
    horizon = min(_now(gun, turn, 1), now - quarter_turn(gun.impulses_per_turn) + 1)
    kept = tuple(t for t in gun.shots if t >= horizon)
    return GatlingPhaser(gun.impulses_per_turn, gun.shots_per_turn, kept + (now,) * shots)


def energy_cost(shots: int) -> Fraction:
    """(E2.152) Energy for ``shots`` shots: 1/4 each."""
    return ENERGY_PER_SHOT * _count("shots", shots)


def damage(rng: int, die: int | None = None, *, generator: np.random.Generator | None = None,
           fighter: bool = False) -> int:
    """(E2.152) One shot's damage on the phaser-3 table for a natural ``die`` (or drawn).

    Against a fighter the die is shifted +1 (J4.47).
    """
    if die is None:
        if generator is None:
            raise PhaserGRuleError("E2.152", "die: give a natural die or a generator")
        die = int(generator.integers(1, 7))
    try:
        return phaser_damage_vs_fighter(CHART, rng, die) if fighter else phaser_damage(
            CHART, rng, die
        )
    except ValueError as err:  # names the argument and the chart
        raise PhaserGRuleError("E2.152", str(err)) from None
