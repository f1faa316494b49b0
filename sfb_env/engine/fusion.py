"""Hydran fusion beam (E7): arming, cooling and fire, as a small state machine.

One frozen :class:`FusionBeam` per fusion box (E7.11); nothing here knows about ``Battle``. The
stage on a given turn is derived from three records (:func:`stage`):

    EMPTY --arm (2 energy, any source, reserve too)--> ARMED --fire--> FIRED (rest of the turn)
    ARMED --discharge, or the turn ends--> EMPTY     (no cooling, E7.22-E7.23)
    FIRED --next turn--> COOLING (cannot arm or fire) --the turn after--> EMPTY
    any --destroy ("torp" hit)--> DESTROYED

A call the rules forbid raises :class:`FusionRuleError` (a ``ValueError``) whose message starts
with the rule number and names the argument.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum

import numpy as np

from sfb_env.engine.fighters import fusion_damage_vs_fighter
from sfb_env.tables import fusion_damage

ARMING_COST = 2  # (E7.21) from any source, within a single turn
DAMAGE_CATEGORY = "torp"  # (E7.12) destroyed on "torp" hits


class FusionRuleError(ValueError):
    """A fusion beam order the rules forbid; ``rule`` is the E7 number."""

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(f"{rule} {message}")


class FusionStage(IntEnum):
    """A fusion beam's state on one turn."""

    EMPTY = 0  # may be armed
    ARMING = 1  # part of the 2 points paid this turn (E7.21)
    ARMED = 2  # 2 points paid this turn: may fire (E7.21)
    FIRED = 3  # fired this turn: nothing more this turn (E1.5)
    COOLING = 4  # fired last turn: cannot be armed or fired (E7.22)
    DESTROYED = 5  # (E7.12)


@dataclass(frozen=True)
class FusionBeam:
    """One fusion beam generator (E7.11)."""

    energy: int = 0  # energy paid on ``energy_turn``, 0..2
    energy_turn: int | None = None  # the turn it was paid; it never carries over (E7.23)
    fired_turn: int | None = None  # last turn the beam fired (E7.22)
    destroyed: bool = False  # (E7.12)


def _turn(turn: object) -> int:
    if isinstance(turn, bool) or not isinstance(turn, (int, np.integer)) or turn < 1:
        raise FusionRuleError("E7.21", f"turn={turn!r} must be an integer >= 1")
    return int(turn)


def stage(beam: FusionBeam, turn: int) -> FusionStage:
    """The beam's :class:`FusionStage` on ``turn``."""
    turn = _turn(turn)
    if beam.destroyed:
        return FusionStage.DESTROYED
    if beam.fired_turn == turn:
        return FusionStage.FIRED
    if beam.fired_turn == turn - 1:
        return FusionStage.COOLING
    if beam.energy_turn != turn or beam.energy == 0:
        return FusionStage.EMPTY  # energy of an earlier turn was released at its end (E7.23)
    return FusionStage.ARMED if beam.energy >= ARMING_COST else FusionStage.ARMING


def can_arm(beam: FusionBeam, turn: int) -> tuple[bool, str]:
    """Whether energy may go into the beam on ``turn``, and why not (rule number first)."""
    now = stage(beam, turn)
    if now == FusionStage.DESTROYED:
        return False, "E7.12 the fusion beam is destroyed"
    if now == FusionStage.COOLING:
        return False, "E7.22 the beam fired last turn and is cooling"
    if now == FusionStage.FIRED:
        return False, "E1.5 the beam has fired this turn"
    if now == FusionStage.ARMED:
        return False, "E7.21 the beam is already armed"
    return True, ""


def can_fire(beam: FusionBeam, turn: int) -> tuple[bool, str]:
    """Whether the beam may fire on ``turn``, and why not (rule number first)."""
    now = stage(beam, turn)
    if now == FusionStage.ARMED:
        return True, ""
    reasons = {
        FusionStage.DESTROYED: "E7.12 the fusion beam is destroyed",
        FusionStage.COOLING: "E7.22 the beam fired last turn and is cooling",
        FusionStage.FIRED: "E1.5 the beam has fired this turn",
    }
    return False, reasons.get(now, "E7.21 the beam needs 2 energy paid this turn")


def _require(verdict: tuple[bool, str]) -> None:
    ok, why = verdict
    if not ok:
        rule, _, message = why.partition(" ")
        raise FusionRuleError(rule, message)


def arm(beam: FusionBeam, turn: int, energy: int = ARMING_COST, *,
        reserve: bool = False) -> FusionBeam:
    """Pay ``energy`` of the 2 arming points on ``turn`` (E7.21).

    Any source, in one or more payments within the turn; reserve power may arm it at any point
    of the turn (E7.24), so ``reserve`` lifts no restriction and is accepted for the record.
    """
    del reserve  # (E7.24) reserve power is a legal source
    turn = _turn(turn)
    _require(can_arm(beam, turn))
    paid = beam.energy if beam.energy_turn == turn else 0
    if isinstance(energy, bool) or not isinstance(energy, (int, np.integer)) or not (
        1 <= energy <= ARMING_COST - paid
    ):
        raise FusionRuleError("E7.21", f"energy={energy!r}: {ARMING_COST - paid} more point(s) "
                              "complete the charge")
    return replace(beam, energy=paid + int(energy), energy_turn=turn)


def fire(beam: FusionBeam, turn: int) -> FusionBeam:
    """Fire the armed beam on ``turn``; it cools next turn (E7.22)."""
    turn = _turn(turn)
    _require(can_fire(beam, turn))
    return replace(beam, energy=0, energy_turn=None, fired_turn=turn)


def discharge(beam: FusionBeam, turn: int) -> FusionBeam:
    """Dump the beam's energy into space without firing: no cooling is needed (E7.22-E7.23)."""
    turn = _turn(turn)
    if stage(beam, turn) not in (FusionStage.ARMED, FusionStage.ARMING):
        raise FusionRuleError("E7.22", f"turn={turn}: the beam holds no energy to discharge")
    return replace(beam, energy=0, energy_turn=None)


def destroy(beam: FusionBeam) -> FusionBeam:
    """(E7.12) A "torp" hit destroys the beam and any energy in it."""
    return replace(beam, energy=0, energy_turn=None, destroyed=True)


def damage(rng: int, die: int | None = None, *, generator: np.random.Generator | None = None,
           fighter: bool = False) -> int:
    """(E7.32) Damage at range ``rng`` for a natural ``die`` (or one drawn from ``generator``).

    Against a fighter the die is shifted +1 (J4.47). The drone +2 (FD1.52) is not applied here.
    """
    if die is None:
        if generator is None:
            raise FusionRuleError("E7.32", "die: give a natural die or a generator")
        die = int(generator.integers(1, 7))
    try:
        return fusion_damage_vs_fighter(rng, die) if fighter else fusion_damage(rng, die)
    except ValueError as err:  # names the argument and the chart
        raise FusionRuleError("E7.32", str(err)) from None
