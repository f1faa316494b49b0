"""ISC plasmatic pulsar device (E11): arming, pulses, wave-lock and splash, engine-independent.

Pure functions over two frozen records, one per PPD box (E11.11): a :class:`PpdCharge` (the
energy in the weapon, E11.2) and, once fired, a :class:`PulseTrain` (the pulses in flight, E11.3).
Firing empties the charge, so first-turn energy for the next charge may be paid while the last
pulses of a train fired late in the previous turn are still resolving (E11.23). Nothing here
knows about ``Battle``; times are absolute impulses (:func:`sfb_env.impulse.absolute_impulse`).
A call the rules forbid raises :class:`PpdRuleError` (a ``ValueError``) whose message starts
with the rule number and names the offending argument.

Life of a charge (Energy Allocation of each turn, then the Fire Direct-Fire Weapons step):

    EMPTY --arm_first_turn (2..4, not reserve)--> ARMING --arm_second_turn (2..4)--> ARMED
    ARMED --hold (2, + optional top-up)--> ARMED   (every later turn, E11.22)
    ARMED --top_up (reserve)--> ARMED              (E11.25)
    ARMING or ARMED unpaid at a turn's Energy Allocation --lapse--> EMPTY (energy lost)
    ARMED --fire--> EMPTY + PulseTrain             (only on a turn the charge was paid for)

Each pulse of a train is resolved by :func:`resolve_pulse` on its own impulse (the firing one and
the next three, across a turn break). Shielded targets take the pulse split by
:func:`splash_split` or :func:`alt_split`; others take :func:`unshielded_damage`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from sfb_env.engine.fighters import FIGHTER_DIE_SHIFT, MAX_FIGHTER_TARGET_RANGE
from sfb_env.impulse import absolute_impulse, check_impulses_per_turn
from sfb_env.tables import ppd_alt, ppd_chart, ppd_damage, ppd_hit_number, ppd_splash

ARMING_ENERGY = range(2, 5)  # (E11.21, E11.25) 2..4 points on each of the two arming turns
HOLDING_COST = 2  # (E11.22)
ENERGY_PER_PULSE = 2  # (E11.25)
MAX_PULSES = 4  # (E11.30) the firing impulse and the next three
FULL_CHARGE = ENERGY_PER_PULSE * MAX_PULSES  # (E11.25) 8 energy, four pulses
MYOPIC_RANGE = 3  # (E11.312) no fire at true range 3 or less
DRONE_ROLL_SHIFT = 2  # (FD1.52) +2 to the 2d6 against drones
SHIELDS = range(1, 7)


class PpdRuleError(ValueError):
    """A PPD order or state change the rules forbid; ``rule`` is the E11 number."""

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(f"{rule} {message}")


class PpdStage(IntEnum):
    """Where a charge is in its arming cycle (E11.2)."""

    EMPTY = 0
    ARMING = 1  # first-turn energy paid (E11.21)
    ARMED = 2  # both arming turns paid; ready on any turn its energy was paid (E11.21-E11.22)


class TargetKind(IntEnum):
    """What a PPD is fired at: sets the roll modifier and whether splash applies."""

    SHIP = 0  # shielded, even with its shields down (E11.353)
    DRONE = 1  # +2 to the roll (FD1.52); no splash (E11.353)
    FIGHTER = 2  # +1 to the roll (J4.47); no splash; 5 hexes at most (J4.47, E11.361)
    SHUTTLE = 3  # no splash; 5 hexes at most (E11.361)
    MONSTER = 4  # no splash (E11.353)


ROLL_SHIFT = {TargetKind.DRONE: DRONE_ROLL_SHIFT, TargetKind.FIGHTER: FIGHTER_DIE_SHIFT}
SMALL_TARGETS = (TargetKind.FIGHTER, TargetKind.SHUTTLE)


class LockEvent(IntEnum):
    """Events during a pulse train: those of E11.54 break the wave-lock, those of E11.58 do not."""

    TARGET_OUT_OF_ARC = 0  # E11.541
    TARGET_OUT_OF_RANGE = 1  # E11.541: beyond 40, or a fighter/shuttle beyond 5 (E11.361)
    TARGET_DESTROYED = 2  # E11.542
    PPD_DESTROYED = 3  # E11.544
    FIRER_CAPTURED = 4  # E11.545
    PLANET_BLOCKS_FIRE = 5  # E11.546
    LOCK_DROPPED = 6  # E11.548, E11.362
    LOCK_ON_LOST = 7  # E11.549, E11.15: fire control off or lock-on lost
    FIRER_BOARDED = 8  # E11.581
    FIRER_MANEUVERS = 9  # E11.581: speed or direction change, target still in arc
    TARGET_TRACTORED = 10  # E11.582
    TARGET_MANEUVERS = 11  # E11.582: speed or direction change
    RANGE_CHANGES = 12  # E11.52: within the 40-hex maximum
    TARGET_IN_MYOPIC_ZONE = 13  # E11.521
    TARGET_DOCKS = 14  # E11.56: the lock follows to the larger unit
    UNIT_LAUNCHED_FROM_TARGET = 15  # E11.56: the lock stays on the larger unit


LOCK_EVENT_RULE: dict[LockEvent, str] = {
    LockEvent.TARGET_OUT_OF_ARC: "E11.541",
    LockEvent.TARGET_OUT_OF_RANGE: "E11.541",
    LockEvent.TARGET_DESTROYED: "E11.542",
    LockEvent.PPD_DESTROYED: "E11.544",
    LockEvent.FIRER_CAPTURED: "E11.545",
    LockEvent.PLANET_BLOCKS_FIRE: "E11.546",
    LockEvent.LOCK_DROPPED: "E11.548",
    LockEvent.LOCK_ON_LOST: "E11.549",
    LockEvent.FIRER_BOARDED: "E11.581",
    LockEvent.FIRER_MANEUVERS: "E11.581",
    LockEvent.TARGET_TRACTORED: "E11.582",
    LockEvent.TARGET_MANEUVERS: "E11.582",
    LockEvent.RANGE_CHANGES: "E11.52",
    LockEvent.TARGET_IN_MYOPIC_ZONE: "E11.521",
    LockEvent.TARGET_DOCKS: "E11.56",
    LockEvent.UNIT_LAUNCHED_FROM_TARGET: "E11.56",
}
BREAKING_EVENTS = frozenset(e for e, rule in LOCK_EVENT_RULE.items() if rule.startswith("E11.54"))


def breaks_wave_lock(event: LockEvent) -> bool:
    """(E11.54 vs E11.58) Whether ``event`` ends the train: remaining pulses lost, no re-roll."""
    if not isinstance(event, LockEvent):
        raise PpdRuleError("E11.5", f"event={event!r} is not a LockEvent")
    return event in BREAKING_EVENTS


# ---------------------------------------------------------------- argument helpers


def _int_in(name: str, value: object, allowed: range, rule: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value not in allowed:
        span = (f">= {allowed.start}" if allowed.stop == sys.maxsize
                else f"{allowed.start}..{allowed.stop - 1}")
        raise PpdRuleError(rule, f"{name}={value!r} outside {span}")
    return int(value)


def _range(name: str, value: object, rule: str) -> int:
    return _int_in(name, value, range(0, sys.maxsize), rule)


def _turn(turn: object) -> int:
    return _int_in("turn", turn, range(1, sys.maxsize), "E11.21")


def _now(turn: int, impulse: int, ipt: int, rule: str) -> int:
    try:
        return absolute_impulse(_turn(turn), impulse, ipt)
    except PpdRuleError:
        raise
    except ValueError as err:  # names the offending impulse
        raise PpdRuleError(rule, f"impulse={impulse!r}: {err}") from None


def _when(t: int, ipt: int) -> tuple[int, int]:
    """(turn, impulse) of absolute impulse ``t``."""
    return (t - 1) // ipt + 1, (t - 1) % ipt + 1


# ---------------------------------------------------------------- arming (E11.2)


@dataclass(frozen=True)
class PpdCharge:
    """The energy in one PPD box (E11.2)."""

    stage: PpdStage = PpdStage.EMPTY
    energy: int = 0  # arming energy, 0..8; holding energy never counts (E11.25)
    paid_turn: int | None = None  # last turn arming or holding energy went in

    @property
    def pulses(self) -> int:
        """(E11.25) Pulses the charge fires: one per two points of arming energy."""
        return self.energy // ENERGY_PER_PULSE


def new_charge() -> PpdCharge:
    """An empty PPD."""
    return PpdCharge()


def lapse(charge: PpdCharge, turn: int) -> PpdCharge:
    """The charge after ``turn``'s Energy Allocation: one not paid for this turn is lost.

    An arming charge needs its second turn on the very next turn (E11.21); an armed one needs
    its holding cost at the start of every later turn (E11.22).
    """
    turn = _turn(turn)
    if charge.stage == PpdStage.EMPTY or charge.paid_turn == turn:
        return charge
    return new_charge()


def can_arm_first_turn(charge: PpdCharge, turn: int, *, reserve: bool = False) -> tuple[bool, str]:
    """Whether a new charge may begin on ``turn``, and why not (rule number first)."""
    turn = _turn(turn)
    if reserve:
        return False, "E11.24 a PPD cannot begin arming with reserve power"
    if charge.stage != PpdStage.EMPTY and (charge.paid_turn or 0) >= turn - 1:
        # a charge paid last turn can still be completed or held: it must fire or lapse first
        return False, "E11.23 the PPD is still arming or holding an unfired charge"
    return True, ""


def arm_first_turn(charge: PpdCharge, turn: int, energy: int, *,
                   reserve: bool = False) -> PpdCharge:
    """Pay the first arming turn: 2..4 energy from any source but reserve (E11.21, E11.24-25).

    Only one charge at a time (E11.23); a stale charge (unpaid since before last turn) has lapsed.
    """
    energy = _int_in("energy", energy, ARMING_ENERGY, "E11.25")
    ok, why = can_arm_first_turn(charge, turn, reserve=reserve)
    if not ok:
        rule, _, message = why.partition(" ")
        raise PpdRuleError(rule, message)
    return PpdCharge(PpdStage.ARMING, energy, int(turn))


def arm_second_turn(charge: PpdCharge, turn: int, energy: int) -> PpdCharge:
    """Pay the second arming turn, 2..4 energy; the PPD may fire this turn (E11.21, E11.25)."""
    turn = _turn(turn)
    energy = _int_in("energy", energy, ARMING_ENERGY, "E11.25")
    if charge.stage != PpdStage.ARMING or charge.paid_turn is None:
        raise PpdRuleError("E11.21", f"charge stage {charge.stage.name}: no first arming turn "
                           "to complete")
    if turn != charge.paid_turn + 1:
        raise PpdRuleError("E11.21", f"turn={turn}: the second arming turn must be turn "
                           f"{charge.paid_turn + 1}, the one after the first")
    return PpdCharge(PpdStage.ARMED, charge.energy + energy, turn)


def _top_up_energy(charge: PpdCharge, energy: int, rule: str) -> int:
    room = FULL_CHARGE - charge.energy
    return _int_in("top_up", energy, range(0, room + 1), rule)


def hold(charge: PpdCharge, turn: int, top_up: int = 0) -> PpdCharge:
    """Pay the holding cost of 2 for an armed charge not fired last turn (E11.22).

    ``top_up`` extra arming energy may go in at the same time, up to the full 8 (E11.25); the
    holding energy itself adds nothing to the charge.
    """
    turn = _turn(turn)
    if charge.stage != PpdStage.ARMED or charge.paid_turn is None:
        raise PpdRuleError("E11.22", f"charge stage {charge.stage.name}: only an armed PPD is held")
    if turn != charge.paid_turn + 1:
        raise PpdRuleError("E11.22", f"turn={turn}: the holding cost is paid at the start of "
                           f"turn {charge.paid_turn + 1}; otherwise the energy is lost")
    top_up = _top_up_energy(charge, top_up, "E11.25")
    return PpdCharge(PpdStage.ARMED, charge.energy + top_up, turn)


def top_up(charge: PpdCharge, turn: int, energy: int) -> PpdCharge:
    """Strengthen an under-loaded armed charge with reserve power during ``turn`` (E11.25)."""
    turn = _turn(turn)
    if not can_fire(charge, turn):
        raise PpdRuleError("E11.25", f"turn={turn}: only a charge armed or held this turn is "
                           "topped up with reserve power")
    energy = _top_up_energy(charge, energy, "E11.25")
    return replace(charge, energy=charge.energy + energy)


def can_fire(charge: PpdCharge, turn: int) -> bool:
    """(E11.21-E11.22) Armed, and its arming or holding energy was paid this turn."""
    return charge.stage == PpdStage.ARMED and charge.paid_turn == _turn(turn)


# ---------------------------------------------------------------- firing (E11.3)


def pulse_schedule(turn: int, impulse: int, pulses: int,
                   impulses_per_turn: int = 32) -> tuple[tuple[int, int], ...]:
    """(E11.30) (turn, impulse) of each pulse: the firing impulse and the next ones.

    Fired on impulse 31 of a 32-impulse turn, four pulses fall on 31, 32, 1 and 2 (E11.23).
    """
    ipt = check_impulses_per_turn(impulses_per_turn)
    pulses = _int_in("pulses", pulses, range(2, MAX_PULSES + 1), "E11.25")
    start = _now(turn, impulse, ipt, "E11.30")
    return tuple(_when(start + k, ipt) for k in range(pulses))


@dataclass(frozen=True)
class PulseTrain:
    """The pulses of one fired charge (the E11.311 record). Times are absolute impulses."""

    impulses_per_turn: int
    fired_at: int  # absolute impulse of firing
    pulses: int  # programmed pulses, 2..4 (E11.25)
    target: TargetKind = TargetKind.SHIP
    resolved: int = 0  # pulses resolved so far
    locked: bool = False  # wave-lock held after the last resolved pulse (E11.331)
    ended_by: str | None = None  # rule that broke or dropped the lock (E11.54, E11.362)

    @property
    def active(self) -> bool:
        """Pulses remain and the lock has not been broken or dropped."""
        return self.ended_by is None and self.resolved < self.pulses

    @property
    def next_at(self) -> int | None:
        """Absolute impulse of the next pulse, ``None`` when the train is over."""
        return self.fired_at + self.resolved if self.active else None

    @property
    def schedule(self) -> tuple[tuple[int, int], ...]:
        """(turn, impulse) of every programmed pulse."""
        turn, impulse = _when(self.fired_at, self.impulses_per_turn)
        return pulse_schedule(turn, impulse, self.pulses, self.impulses_per_turn)


def fire(charge: PpdCharge, turn: int, impulse: int, true_range: int,
         impulses_per_turn: int = 32, *, effective_range: int | None = None,
         target: TargetKind = TargetKind.SHIP, firer_cloaked: bool = False,
         target_cloaked: bool = False) -> tuple[PpdCharge, PulseTrain]:
    """Fire an armed charge: the charge empties and its pulse train starts this impulse.

    Resolve every pulse, the first one included, with :func:`resolve_pulse`.
    """
    ipt = check_impulses_per_turn(impulses_per_turn)
    now = _now(turn, impulse, ipt, "E11.31")
    if not can_fire(charge, turn):
        raise PpdRuleError("E11.21", f"turn={turn}: the PPD is not armed, or its arming or "
                           "holding energy was not paid this turn (E11.22)")
    if not isinstance(target, TargetKind):
        raise PpdRuleError("E11.353", f"target={target!r} is not a TargetKind")
    max_range = ppd_chart().max_range
    true_range = _range("true_range", true_range, "E11.312")
    effective = _range("effective_range", true_range if effective_range is None
                       else effective_range, "E11.312")
    if firer_cloaked:
        raise PpdRuleError("E11.475", "firer_cloaked: no PPD fire while cloaked or (un)cloaking")
    if target_cloaked:
        raise PpdRuleError("E11.472", "target_cloaked: no PPD fire at a cloaked ship in CTH")
    if true_range <= MYOPIC_RANGE:
        raise PpdRuleError("E11.312", f"true_range={true_range}: no fire at 3 hexes or less")
    if true_range > max_range or effective > max_range:
        raise PpdRuleError("E11.52", f"true_range={true_range}, effective_range={effective}: "
                           f"beyond the {max_range}-hex chart")
    if target in SMALL_TARGETS and true_range > MAX_FIGHTER_TARGET_RANGE:
        raise PpdRuleError("E11.361", f"true_range={true_range}: a {target.name.lower()} cannot "
                           f"be targeted beyond {MAX_FIGHTER_TARGET_RANGE} hexes (J4.47)")
    if charge.pulses < 2:  # unreachable from the arming functions: no one-pulse PPD (E11.25)
        raise PpdRuleError("E11.25", f"charge energy={charge.energy} gives fewer than two pulses")
    train = PulseTrain(impulses_per_turn=ipt, fired_at=now, pulses=charge.pulses, target=target)
    return new_charge(), train


class PulseResult(NamedTuple):
    """What one pulse did."""

    pulse: int  # 1-based pulse number
    roll: int | None  # modified 2d6; None when no roll was made (locked, myopic, lost)
    locked: bool  # wave-lock held after this pulse
    damage: int  # points scored: chart damage on a ship, centre value otherwise (E11.353)
    rule: str  # the rule that decided the outcome


def roll_2d6(generator: np.random.Generator) -> int:
    """A natural 2d6 from ``generator``."""
    return int(generator.integers(1, 7, size=2).sum())


def resolve_pulse(train: PulseTrain, turn: int, impulse: int, effective_range: int,
                  true_range: int, roll: int | None = None, *,
                  generator: np.random.Generator | None = None,
                  deliberate_miss: bool = False,
                  line_blocked: bool = False) -> tuple[PulseTrain, PulseResult]:
    """Resolve the pulse due on ``turn``/``impulse`` (E11.31-E11.34, E11.51-E11.521).

    Unlocked, the natural 2d6 ``roll`` (or one drawn from ``generator``) plus the target's
    modifier must be at most the hit number at ``effective_range``; locked, no dice are rolled
    and the pulse hits. Damage is by ``true_range``. At true range 3 or less nothing is scored;
    a held lock survives (E11.521), an unlocked pulse is lost unrolled (E11.312). A target beyond
    the chart, or a fighter or shuttle beyond 5 hexes, breaks the lock (E11.541, E11.361).
    ``deliberate_miss`` wastes the pulse and releases the lock; the next pulse re-rolls (E11.333).
    ``line_blocked`` does the same for a line of fire blocked this impulse, as in the E11.34
    example; use :func:`apply_event` with ``PLANET_BLOCKS_FIRE`` to break the lock per E11.546.
    A ``roll`` given while locked is not used. An effective range beyond the chart cannot lock.
    Pulses cannot be skipped: each is resolved on its own impulse, in order (E11.333).
    """
    now = _now(turn, impulse, train.impulses_per_turn, "E11.30")
    if not train.active:
        raise PpdRuleError("E11.331", "the pulse train is over: no pulse remains")
    if now != train.next_at:
        due = _when(train.next_at or 0, train.impulses_per_turn)
        raise PpdRuleError("E11.333", f"turn={turn} impulse={impulse}: pulse {train.resolved + 1}"
                           f" is due on turn {due[0]} impulse {due[1]}; pulses cannot be skipped")
    effective = _range("effective_range", effective_range, "E11.312")
    true = _range("true_range", true_range, "E11.52")
    number = train.resolved + 1
    done = replace(train, resolved=number)

    limit = MAX_FIGHTER_TARGET_RANGE if train.target in SMALL_TARGETS else ppd_chart().max_range
    if true > limit:
        rule = "E11.361" if train.target in SMALL_TARGETS else "E11.541"
        return replace(done, locked=False, ended_by=rule), PulseResult(number, None, False, 0, rule)
    if deliberate_miss or line_blocked:
        rule = "E11.333" if deliberate_miss else "E11.34"
        return replace(done, locked=False), PulseResult(number, None, False, 0, rule)

    locked, modified, rule = train.locked, None, "E11.331"
    if not locked:
        if true <= MYOPIC_RANGE:
            return done, PulseResult(number, None, False, 0, "E11.312")
        if roll is None:
            if generator is None:
                raise PpdRuleError("E11.31", "roll: give a natural 2d6 roll or a generator")
            roll = roll_2d6(generator)
        natural = _int_in("roll", roll, range(2, 13), "E11.31")
        modified = natural + ROLL_SHIFT.get(train.target, 0)
        hit_number = ppd_hit_number(effective) if effective <= ppd_chart().max_range else 0
        locked, rule = modified <= hit_number, "E11.31"
    if not locked:
        return done, PulseResult(number, modified, False, 0, "E11.51")
    if true <= MYOPIC_RANGE:
        return replace(done, locked=True), PulseResult(number, modified, True, 0, "E11.521")
    damage = ppd_damage(true) if train.target == TargetKind.SHIP else unshielded_damage(true)
    return replace(done, locked=True), PulseResult(number, modified, True, damage, rule)


def apply_event(train: PulseTrain, event: LockEvent) -> PulseTrain:
    """The train after ``event``: an E11.54 event ends it, an E11.58 event changes nothing."""
    if not breaks_wave_lock(event) or not train.active:
        return train
    if event == LockEvent.LOCK_DROPPED:
        return drop_lock(train)
    return replace(train, locked=False, ended_by=LOCK_EVENT_RULE[event])


def drop_lock(train: PulseTrain) -> PulseTrain:
    """(E11.362) Voluntarily cease fire after a pulse: every remaining pulse is lost."""
    if not train.active:
        raise PpdRuleError("E11.362", "the pulse train is already over")
    if train.resolved < 1:
        raise PpdRuleError("E11.362", "the lock may be dropped only after one pulse is fired")
    return replace(train, locked=False, ended_by="E11.362")


# ---------------------------------------------------------------- splash (E11.35) and E11.39


def _shield(name: str, value: object) -> int:
    return _int_in(name, value, SHIELDS, "E11.352")


def _adjacent(shield: int, step: int) -> int:
    return (shield - 1 + step) % len(SHIELDS) + 1


def _strengths(shield_strength: Sequence[int] | None, rule: str) -> tuple[int, ...]:
    if shield_strength is None:
        raise PpdRuleError(rule, "shield_strength: the six shield strengths decide this split")
    if len(shield_strength) != len(SHIELDS):
        raise PpdRuleError(rule, f"shield_strength has {len(shield_strength)} entries, not 6")
    return tuple(_range(f"shield_strength[{i}]", s, rule) for i, s in enumerate(shield_strength))


def _stronger(a: int, b: int, strength: tuple[int, ...], owner_choice: int | None,
              rule: str) -> int:
    """The stronger of shields ``a``/``b``; if equal, the target's owner names one."""
    if strength[a - 1] != strength[b - 1]:
        return a if strength[a - 1] > strength[b - 1] else b
    if owner_choice not in (a, b):
        raise PpdRuleError(rule, f"owner_choice={owner_choice!r}: shields #{a} and #{b} are "
                           f"equal, the target's owner picks one of them")
    return int(owner_choice)


def splash_split(true_range: int, facing_shield: int,
                 shield_strength: Sequence[int] | None = None,
                 owner_choice: int | None = None) -> dict[int, int]:
    """(E11.352) A pulse against one shield: {shield: points} on it and its two neighbours.

    With two points the weaker neighbour is ignored (``owner_choice`` names one if equal); with
    one point both are. The 6-point pulse on #3 is 1 on #2, 4 on #3, 1 on #4.
    """
    facing = _shield("facing_shield", facing_shield)
    left, centre, right = ppd_splash(_range("true_range", true_range, "E11.352"))
    ccw, cw = _adjacent(facing, -1), _adjacent(facing, +1)
    if left + right == 1:  # the two-point pulse: the single splash point goes to the stronger
        strength = _strengths(shield_strength, "E11.352")
        stronger = _stronger(ccw, cw, strength, owner_choice, "E11.352")
        left, right = (1, 0) if stronger == ccw else (0, 1)
    split = {ccw: left, facing: centre, cw: right}
    return {shield: points for shield, points in split.items() if points}


def alt_split(true_range: int, shields: tuple[int, int],
              shield_strength: Sequence[int] | None = None,
              owner_choice: int | None = None) -> dict[int, int]:
    """(E11.351) A pulse along a hex side: split over the two shields, odd point to the stronger.

    ``owner_choice`` names the shield that takes the odd point when both are equal.
    """
    if len(shields) != 2:
        raise PpdRuleError("E11.351", f"shields={shields!r}: name the two shields of the side")
    a, b = (_int_in("shields", s, SHIELDS, "E11.351") for s in shields)
    if b not in (_adjacent(a, -1), _adjacent(a, +1)):
        raise PpdRuleError("E11.351", f"shields={shields!r} are not adjacent")
    big, small = ppd_alt(_range("true_range", true_range, "E11.351"))
    if big == small:
        split = {a: big, b: small}
    else:
        strength = _strengths(shield_strength, "E11.351")
        stronger = _stronger(a, b, strength, owner_choice, "E11.351")
        split = {stronger: big, (b if stronger == a else a): small}
    return {shield: points for shield, points in split.items() if points}


def unshielded_damage(true_range: int) -> int:
    """(E11.353) A pulse on a target that never had shields scores only the centre element."""
    return ppd_splash(_range("true_range", true_range, "E11.353"))[1]


def absorb_general_reinforcement(split: Mapping[int, int], general: int,
                                 allocation: Mapping[int, int] | None = None
                                 ) -> tuple[dict[int, int], int]:
    """(E11.39) General reinforcement against one pulse: (damage left per shield, points left).

    The owner spreads ``allocation`` {shield: points} over the pulse's elements as he likes, but
    every point must be spent on the first pulse it can stop: he cannot save points for a later
    pulse while any damage of this one remains. With enough points the whole pulse is stopped
    and no allocation is needed.
    """
    general = _range("general", general, "E11.39")
    split = {_shield("split shield", s): _range("split points", p, "E11.39")
             for s, p in split.items()}
    total = sum(split.values())
    if general >= total:
        return {s: 0 for s in split}, general - total
    allocation = dict(allocation or {})
    for shield, points in allocation.items():
        if shield not in split:
            raise PpdRuleError("E11.39", f"allocation shield #{shield!r} takes no damage")
        _int_in(f"allocation[{shield}]", points, range(0, split[shield] + 1), "E11.39")
    if sum(allocation.values()) != general:
        raise PpdRuleError("E11.39", f"allocation={allocation!r} spends "
                           f"{sum(allocation.values())} of {general} general reinforcement; all "
                           "of it must be used against this pulse")
    return {s: p - allocation.get(s, 0) for s, p in split.items()}, 0
