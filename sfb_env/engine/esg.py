"""Lyran Expanding Sphere Generator (G23): generator timing and field damage, engine-independent.

Pure functions over a frozen :class:`EsgGenerator` (one per ESG box, G23.11-G23.12). Nothing here
knows about ``Battle``; times are absolute impulses (:func:`sfb_env.impulse.absolute_impulse`)
recorded from the ``turn`` and ``impulse`` each call is given, and the chart size (8, 16 or 32
impulses per turn) is fixed when a generator is made. A call the rules forbid raises
:class:`EsgRuleError` (a ``ValueError``) whose message starts with the rule number; the
``can_*`` predicates give the same verdict as ``(bool, reason)`` for action masks.

Timing per chart (``I`` impulses per turn; CTH-DATA §6 for the rules the graduate text omits):

    rule                                       I = 32   I = 16   I = 8
    announcement lead (G23.31)                    4        2       1
    cancellation lockout, 1/4 turn (G23.33)       8        4       2
    active period (G23.32)                       32       16       8
    reactivation delay after a drop (G23.323)    32       16       8

Life of a generator, all in the Launch Seeking Weapons step of the impulse procedure:
:func:`announce` (G23.31) -> :func:`cancel` (G23.33) or, ``lead`` impulses later, release by
:func:`launch_step` (G23.43) -> :func:`drop` (G23.47), a zero strength after :func:`strike`
(G23.322) or expiry in :func:`launch_step` (G23.32). :func:`launch_step` handles deactivations
before activations (G23.711). Energy goes in with :func:`charge` (G23.21-G23.22) and all of it is
released at activation.

Damage: :func:`resolve_field` is one field against the objects entering it in one impulse
(G23.511, G23.52); :func:`strike` runs all the fields of one ship in the G23.122 order
(:func:`interaction_order`) and returns one volley per struck unit (G23.512, G23.75).
:func:`field_entry` tells from distances whether a move makes contact (G23.561-G23.574, G23.72),
moves of one impulse in their C1.3 order included (G23.571-G23.572). Fields of two ships:
:func:`release_overlap` and :func:`collapse` at release (G23.71-G23.713), :func:`fields_meet`
when they strike each other (G23.73).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import IntEnum

import numpy as np

from sfb_env.impulse import absolute_impulse, check_impulses_per_turn, quarter_turn
from sfb_env.tables import ESG_MAX_ENERGY, ESG_RADII, esg_strength

CADET_CRUISER_MAX_ENERGY = 2  # (G23.22) the cadet cruiser's ESG holds at most 2 energy


class EsgRuleError(ValueError):
    """An ESG order or state change the rules forbid; ``rule`` is the G23 number."""

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(f"{rule} {message}")


class EsgPhase(IntEnum):
    """Where a generator is in its cycle."""

    IDLE = 0  # no field and no pending announcement (storing energy is always possible)
    ANNOUNCED = 1  # release announced, waiting out the lead (G23.31)
    ACTIVE = 2  # field operating (G23.32)


class ContactKind(IntEnum):
    """What strikes a field, in G23.52 priority order (steps 2-5; step 1 is ``Contact.jumper``)."""

    ESG_FIELD = 2  # another ship's field (G23.73)
    PLANET = 3  # planets and other solid objects (G23.65)
    MINE = 4  # active explosive mines, t-bombs (G23.61)
    UNIT = 5  # ships, shuttles, fighters, drones, monsters (G23.51)


class ContactSize(IntEnum):
    """(G23.52 step 5) Size ranks, smallest damaged first (CTH-DATA §12.2 for freighters)."""

    DRONE = 0
    SHUTTLE = 1  # shuttles and fighters
    FREIGHTER = 2
    SHIP = 3


class Entry(IntEnum):
    """How a move meets a field (see :func:`field_entry`)."""

    NONE = 0
    ENTERS = 1  # enters a field hex from outside or along the ring (G23.51, G23.561, G23.573)
    ENTERS_FROM_INSIDE = 2  # leaves the hollow inside into the ring: opposite shield (G23.5131)
    JUMPS = 3  # passes completely through the ring this impulse (G23.571; G23.52 step 1)


@dataclass(frozen=True)
class EsgGenerator:
    """One expanding sphere generator and its field (G23.11). Times are absolute impulses."""

    max_energy: int  # (G23.22) 5, or 2 on the cadet cruiser
    impulses_per_turn: int  # 8, 16 or 32
    stored: int = 0  # energy in the generator, 0..max_energy (G23.21)
    phase: EsgPhase = EsgPhase.IDLE
    radius: int | None = None  # announced or operating radius 0..3 (G23.41)
    strength: int = 0  # operating field strength; only ever goes down (G23.212, G23.47)
    announced_at: int | None = None  # last announcement (G23.31)
    release_at: int | None = None  # impulse the announced field forms (G23.31)
    activated_at: int | None = None  # last release (G23.323)
    dropped_at: int | None = None  # last deactivation of any kind (G23.323)
    cancelled_at: int | None = None  # last cancelled announcement (G23.33)

    @property
    def lead(self) -> int:
        """(G23.31) Impulses from announcement to release: 4, 2 or 1."""
        return self.impulses_per_turn // 8

    @property
    def period(self) -> int:
        """(G23.32, G23.323) Active period and reactivation delay: one turn of impulses."""
        return self.impulses_per_turn

    @property
    def expires_at(self) -> int | None:
        """(G23.32) Impulse whose Launch Seeking Weapons step ends the operating field."""
        if self.phase != EsgPhase.ACTIVE or self.activated_at is None:
            return None
        return self.activated_at + self.period


def new_generator(max_energy: int = ESG_MAX_ENERGY, impulses_per_turn: int = 32,
                  stored: int = 0) -> EsgGenerator:
    """An idle generator holding ``stored`` energy (CTH ships start full, G23.23)."""
    ipt = check_impulses_per_turn(impulses_per_turn)
    _int_in("max_energy", max_energy, range(1, ESG_MAX_ENERGY + 1), "G23.22")
    _int_in("stored", stored, range(0, max_energy + 1), "G23.22")
    return EsgGenerator(max_energy=int(max_energy), impulses_per_turn=ipt, stored=int(stored))


# ---------------------------------------------------------------- time and argument helpers


def _int_in(name: str, value: object, allowed: range, rule: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value not in allowed:
        raise EsgRuleError(rule, f"{name}={value!r} outside {allowed.start}..{allowed.stop - 1}")
    return int(value)


def _now(gen: EsgGenerator, turn: int, impulse: int) -> int:
    try:
        return absolute_impulse(turn, impulse, gen.impulses_per_turn)
    except ValueError as err:  # names the offending turn or impulse
        raise EsgRuleError("G23.31", f"bad time turn={turn!r} impulse={impulse!r}: {err}") from None


def _turn_of(t: int, ipt: int) -> int:
    return (t - 1) // ipt + 1


def _turn_start(turn: int, ipt: int) -> int:
    return (turn - 1) * ipt + 1


def _when(t: int, ipt: int) -> str:
    return f"turn {_turn_of(t, ipt)} impulse {(t - 1) % ipt + 1}"


def _latest(gen: EsgGenerator) -> int:
    times = (gen.announced_at, gen.activated_at, gen.dropped_at, gen.cancelled_at)
    return max((t for t in times if t is not None), default=0)


def _check_order(gen: EsgGenerator, now: int) -> None:
    if now < _latest(gen):
        raise EsgRuleError("G23.31", f"time runs backwards: {_when(now, gen.impulses_per_turn)} "
                           f"is before the generator's last record")


def earliest_activation(gen: EsgGenerator) -> int | None:
    """(G23.323) First absolute impulse a new field may form after the last one was dropped.

    Both limits hold: a full period after the drop, and not before the start of the second turn
    after the turn of the activation. The delay binds activation, not announcement. ``None``
    when the generator has never been released or its field is still operating (no drop yet).
    """
    if gen.activated_at is None or gen.dropped_at is None or gen.phase == EsgPhase.ACTIVE:
        return None
    ipt = gen.impulses_per_turn
    second_turn_after = _turn_start(_turn_of(gen.activated_at, ipt) + 2, ipt)
    return max(gen.dropped_at + gen.period, second_turn_after)


# ---------------------------------------------------------------- energy (G23.2)


def charge(gen: EsgGenerator, energy: int) -> EsgGenerator:
    """Put ``energy`` whole points into the generator (G23.21-G23.22).

    Any source, accumulated over any number of turns (G23.211); reserve power may go in at any
    time (G23.212). It goes into the generator only: an operating field's strength and active
    period never change (G23.212), it waits for the next release.
    """
    energy = _int_in("energy", energy, range(0, ESG_MAX_ENERGY + 1), "G23.211")
    if gen.stored + energy > gen.max_energy:
        raise EsgRuleError("G23.22", f"{gen.stored} + {energy} energy exceeds the generator's "
                           f"capacity of {gen.max_energy}")
    return replace(gen, stored=gen.stored + energy)


# ---------------------------------------------------------------- predicates for masks


def can_announce(gen: EsgGenerator, turn: int, impulse: int) -> tuple[bool, str]:
    """Whether a release may be announced now, and why not (rule number first)."""
    now = _now(gen, turn, impulse)
    ipt = gen.impulses_per_turn
    if gen.phase == EsgPhase.ANNOUNCED:
        return False, f"G23.31 a release is already announced for {_when(gen.release_at, ipt)}"
    if gen.phase == EsgPhase.ACTIVE:
        return False, "G23.323 the field is operating; reactivation waits a period after its drop"
    if now < _latest(gen):
        return False, "G23.31 time runs backwards"
    lockout = quarter_turn(ipt)
    if gen.cancelled_at is not None and now - gen.cancelled_at < lockout:
        return False, (f"G23.33 an announcement was cancelled within 1/4 turn ({lockout} "
                       f"impulses); next at {_when(gen.cancelled_at + lockout, ipt)}")
    release = now + gen.lead
    earliest = earliest_activation(gen)
    if earliest is not None and release < earliest:
        return False, (f"G23.323 no reactivation before {_when(earliest, ipt)}; announce at "
                       f"{_when(earliest - gen.lead, ipt)} or later")
    if gen.stored == 0 and _turn_of(release, ipt) == _turn_of(now, ipt):
        # across a turn break, Energy Allocation may charge it before release (CTH-DATA §6)
        return False, "G23.21 the generator holds no energy"
    return True, ""


def can_cancel(gen: EsgGenerator, turn: int, impulse: int) -> tuple[bool, str]:
    """Whether the pending announcement may be cancelled now (G23.33)."""
    now = _now(gen, turn, impulse)
    if gen.phase != EsgPhase.ANNOUNCED or gen.release_at is None:
        return False, "G23.33 no release is announced"
    if now < _latest(gen):
        return False, "G23.31 time runs backwards"
    if now >= gen.release_at:
        return False, "G23.33 only before the impulse of release"
    return True, ""


def can_drop(gen: EsgGenerator, turn: int, impulse: int) -> tuple[bool, str]:
    """Whether the operating field may be voluntarily deactivated now (G23.47)."""
    now = _now(gen, turn, impulse)
    if gen.phase != EsgPhase.ACTIVE or gen.activated_at is None:
        return False, "G23.47 no field is operating"
    if now < _latest(gen):
        return False, "G23.31 time runs backwards"
    if now == gen.activated_at:
        # deactivations precede activations in the step, so not in the step that released it
        return False, "G23.711 the field was released in this step"
    if now >= gen.activated_at + gen.period:
        return False, "G23.32 the field has already expired"
    return True, ""


# ---------------------------------------------------------------- orders (Launch Seeking Weapons)


def _require(verdict: tuple[bool, str]) -> None:
    ok, why = verdict
    if not ok:
        rule, _, message = why.partition(" ")
        raise EsgRuleError(rule, message)


def announce(gen: EsgGenerator, radius: int, turn: int, impulse: int) -> EsgGenerator:
    """Announce a release ``lead`` impulses from now at ``radius`` 0..3 (G23.31, G23.41).

    The radius is recorded secretly now; the energy is all that is stored at release (G23.43).
    """
    radius = _int_in("radius", radius, ESG_RADII, "G23.41")
    _require(can_announce(gen, turn, impulse))
    now = _now(gen, turn, impulse)
    return replace(gen, phase=EsgPhase.ANNOUNCED, radius=radius, announced_at=now,
                   release_at=now + gen.lead)


def cancel(gen: EsgGenerator, turn: int, impulse: int) -> EsgGenerator:
    """Publicly cancel the announcement; no new one for 1/4 turn (G23.33)."""
    _require(can_cancel(gen, turn, impulse))
    now = _now(gen, turn, impulse)
    # not released, so the G23.323 reactivation delay does not start (G23.33)
    return replace(gen, phase=EsgPhase.IDLE, radius=None, release_at=None, cancelled_at=now)


def drop(gen: EsgGenerator, turn: int, impulse: int) -> EsgGenerator:
    """Voluntarily deactivate the field at once; starts the reactivation delay (G23.47)."""
    _require(can_drop(gen, turn, impulse))
    return _deactivate(gen, _now(gen, turn, impulse))


def _deactivate(gen: EsgGenerator, at: int) -> EsgGenerator:
    return replace(gen, phase=EsgPhase.IDLE, radius=None, strength=0, dropped_at=at)


def release(gen: EsgGenerator, turn: int, impulse: int) -> EsgGenerator:
    """Form the announced field now with all stored energy (G23.42-G23.44).

    The field damages nothing as it forms (G23.43, G23.56). A release with no energy is a
    zero-strength field, dropped at once (G23.322), so the G23.323 delay still starts.
    """
    now = _now(gen, turn, impulse)
    if gen.phase != EsgPhase.ANNOUNCED or gen.release_at is None or gen.radius is None:
        raise EsgRuleError("G23.31", "no release is announced")
    if now != gen.release_at:
        raise EsgRuleError("G23.31", f"the announced release is at "
                           f"{_when(gen.release_at, gen.impulses_per_turn)}, not "
                           f"{_when(now, gen.impulses_per_turn)}")
    strength = esg_strength(gen.radius, gen.stored) if gen.stored else 0
    active = replace(gen, phase=EsgPhase.ACTIVE, stored=0, strength=strength, release_at=None,
                     activated_at=now)
    return active if strength else _deactivate(active, now)


def launch_step(gen: EsgGenerator, turn: int, impulse: int) -> EsgGenerator:
    """The generator's automatic changes in this impulse's Launch Seeking Weapons step.

    Deactivations come before activations (G23.711): a field ends in the step of the ``period``-th
    impulse after its release (G23.32), then an announced field due now forms (G23.31).
    Call it once every impulse, after any :func:`drop` and before any :func:`announce`.
    """
    now = _now(gen, turn, impulse)
    _check_order(gen, now)
    expires = gen.expires_at
    if expires is not None and now >= expires:
        gen = _deactivate(gen, expires)
    if gen.phase == EsgPhase.ANNOUNCED and gen.release_at is not None:
        if now > gen.release_at:
            raise EsgRuleError("G23.31", "the announced release impulse was skipped")
        if now == gen.release_at:
            gen = release(gen, turn, impulse)
    return gen


def is_operating(gen: EsgGenerator, turn: int, impulse: int) -> bool:
    """Whether the field exists in this impulse's Move Ships segment (G23.32, G23.51)."""
    now = _now(gen, turn, impulse)
    return (gen.phase == EsgPhase.ACTIVE and gen.activated_at is not None
            and gen.activated_at < now <= gen.activated_at + gen.period and gen.strength > 0)


# ---------------------------------------------------------------- contact (G23.56-G23.574, G23.72)


def field_entry(radius: int, before: int, after: int, *, ship_moved: bool, unit_moved: bool,
                inside: bool = False, middle: int | None = None,
                unit_first: bool = False) -> Entry:
    """How a unit meets a field of ``radius`` when this impulse's moves take its distance from the
    generating ship from ``before`` to ``after``.

    Judge ``before`` and ``after`` across everything that moves in the impulse (G23.571 a crossing
    is a jump; G23.572 moving clear again is no contact). Only entering counts (G23.561); a turn in
    place by either unit does nothing (G23.574); moving in parallel on the ring does (G23.573).
    A unit already on the ring (as when the field formed on it) is outside (G23.562). ``inside``
    is the G23.72 designation for a zero-radius field.

    When both moved but not at the same time (C1.3: the slower first), ``middle`` is the distance
    after the first mover's move alone and ``unit_first`` says who that was. The first move is
    then judged at once (G23.571: "determine the ESG damage immediately"): a unit that reaches
    the ring by its own move is struck even if the ship then draws the field away; a field the
    ship moves across the unit is a jump. A field the ship merely moves onto the unit still lets
    the unit move clear again in the same impulse (G23.572). ``middle=None``: simultaneous.
    """
    radius = _int_in("radius", radius, ESG_RADII, "G23.41")
    before = _int_in("before", before, range(0, 2**31), "G23.51")
    after = _int_in("after", after, range(0, 2**31), "G23.51")
    if abs(after - before) > int(ship_moved) + int(unit_moved):
        raise EsgRuleError("G23.51", f"distance {before} -> {after} is not one impulse's moves")
    if not (ship_moved or unit_moved):
        return Entry.NONE  # G23.574, G23.561
    if middle is not None and ship_moved and unit_moved:
        middle = _int_in("middle", middle, range(0, 2**31), "G23.571")
        if abs(middle - before) > 1 or abs(after - middle) > 1:
            raise EsgRuleError("G23.571", f"distance {before} -> {middle} -> {after} is not two "
                               "single moves")
        first = _one_move(radius, before, middle, inside)
        if unit_first:
            # G23.571 the unit's own move is resolved before the ship moves
            return first if first != Entry.NONE else _one_move(radius, middle, after, inside)
        if first == Entry.JUMPS:
            return first  # the ship carried its ring across the unit
        if first != Entry.NONE:
            # G23.572 the ring was moved onto the unit: the unit's move may still take it clear
            return _one_move(radius, before, after, inside)
        return _one_move(radius, middle, after, inside)
    return _one_move(radius, before, after, inside)


def _one_move(radius: int, before: int, after: int, inside: bool) -> Entry:
    """:func:`field_entry` for moves judged together (one move, or simultaneous moves)."""
    if radius == 0:
        if after == 0:
            # G23.721 entering the hex; G23.723 parallel moves hit only units outside the field
            return Entry.NONE if before == 0 and inside else Entry.ENTERS
        if before == 0:
            return Entry.ENTERS_FROM_INSIDE if inside else Entry.NONE  # G23.72, G23.721
        return Entry.NONE
    if after == radius:
        return Entry.ENTERS_FROM_INSIDE if before < radius else Entry.ENTERS
    if before == radius:
        return Entry.JUMPS if after < radius else Entry.NONE  # G23.562
    if (before - radius) * (after - radius) < 0:
        return Entry.JUMPS  # G23.571
    return Entry.NONE


# ------------------------------------------------------- fields of two ships (G23.71-G23.73)


class Overlap(IntEnum):
    """What a newly released field does to a field of another ship it overlaps (G23.712-713)."""

    NONE = 0  # clear of each other
    COLLAPSE = 1  # the later field never forms, its energy is lost (G23.712)
    DAMAGE = 2  # same hex, same radius: the fields damage each other at once (G23.713, G23.73)


def fields_overlap(distance: int, radius_a: int, radius_b: int) -> bool:
    """(G23.71) Whether the fields of two ships ``distance`` hexes apart overlap or one lies
    within the other: some hex is within both radii, i.e. ``distance <= radius_a + radius_b``.
    Two ships in the same hex always qualify, even at zero radius (G23.713)."""
    distance = _int_in("distance", distance, range(0, 2**31), "G23.71")
    radius_a = _int_in("radius_a", radius_a, ESG_RADII, "G23.41")
    radius_b = _int_in("radius_b", radius_b, ESG_RADII, "G23.41")
    return distance <= radius_a + radius_b


def release_overlap(distance: int, radius_new: int, radius_other: int) -> Overlap:
    """(G23.711-G23.713) A field released now against another ship's field ``distance`` away.

    It is the release, not the announcement, that counts (G23.711). Overlapping or nested: the
    field activated second collapses (G23.712; when both are released in the same step, each
    is "second" and both collapse). Exception: ships in the same hex with fields of the same
    radius damage each other instead (G23.713, G23.73), zero radius included.
    """
    if not fields_overlap(distance, radius_new, radius_other):
        return Overlap.NONE
    if distance == 0 and radius_new == radius_other:
        return Overlap.DAMAGE
    return Overlap.COLLAPSE


def fields_meet(strength_a: int, strength_b: int) -> tuple[int, int]:
    """(G23.73) Two fields of different ships striking each other: each scores on the other up
    to its own strength and loses every point it scores (G23.511), so both lose the smaller
    strength; at least one is left at zero (dropped, G23.322). Returns the new strengths."""
    strength_a = _int_in("strength_a", strength_a, range(0, 2**31), "G23.42")
    strength_b = _int_in("strength_b", strength_b, range(0, 2**31), "G23.42")
    points = min(strength_a, strength_b)
    return strength_a - points, strength_b - points


def collapse(gen: EsgGenerator, turn: int, impulse: int) -> EsgGenerator:
    """(G23.712) The field released in this step never forms; its energy is lost.

    PROPOSAL [P-080] (the book is silent on the delay): the release still counts as an activation,
    dropped at once, so the G23.323 reactivation delay runs from now, as for a field released
    with no energy (G23.322).
    """
    now = _now(gen, turn, impulse)
    if gen.phase != EsgPhase.ACTIVE or gen.activated_at != now:
        raise EsgRuleError("G23.712", "only a field released in this step can collapse")
    return _deactivate(gen, now)


def strike_field(gen: EsgGenerator, strength: int, turn: int, impulse: int) -> EsgGenerator:
    """Set an operating field's strength after it met another field (G23.73); a field brought to
    zero is dropped now (G23.322)."""
    gen = replace(gen, strength=_int_in("strength", strength, range(0, gen.strength + 1),
                                        "G23.212"))
    return gen if strength else _deactivate(gen, _now(gen, turn, impulse))


# ---------------------------------------------------------------- damage (G23.5)


@dataclass(frozen=True)
class Contact:
    """An object striking a field this impulse (G23.51-G23.52).

    ``needed``: damage points still needed to destroy it (G23.511); for another ESG field, its
    strength (G23.73; the caller takes the same points off that field); ignored for planets
    (G23.65). ``tie`` breaks equal sizes, lower first (the G23.52 die roll).
    """

    unit: int
    needed: int
    kind: ContactKind = ContactKind.UNIT
    size: int = ContactSize.SHIP
    jumper: bool = False
    tie: int = 0


def _priority(c: Contact) -> tuple[int, int, int, int]:
    # G23.52: step 1 (jumpers, among themselves in the order of steps 2-5) first, except that
    # ESG vs ESG (step 2) goes before the jumpers
    step = 0 if c.kind == ContactKind.ESG_FIELD else 1 if c.jumper else 2
    return step, int(c.kind), int(c.size), int(c.tie)


def resolve_field(strength: int, contacts: Sequence[Contact],
                  needed: Mapping[int, int] | None = None) -> tuple[int, dict[int, int]]:
    """One field against everything striking it at once (G23.511, G23.52, G23.65).

    Returns the field's remaining strength and the points scored on each unit. Each point scored
    costs the field a point, and no unit takes more than it ``needed`` (or ``needed[unit]``, for a
    unit already damaged by an earlier field). In the G23.52 order, whole contacts are resolved
    one after another, except that units of the same step share points one at a time, smallest
    first, until the field is gone or they are destroyed (step 5 and, among jumpers, step 1).
    """
    strength = _int_in("strength", strength, range(0, 2**31), "G23.42")
    units = [c.unit for c in contacts]
    if len(set(units)) != len(units):
        raise EsgRuleError("G23.52", f"a unit strikes the same field twice: {units}")
    left = {c.unit: (needed[c.unit] if needed and c.unit in needed else c.needed)
            for c in contacts}
    for c in contacts:
        _int_in(f"needed[{c.unit}]", left[c.unit], range(0, 2**31), "G23.511")
    scored = {c.unit: 0 for c in contacts}
    ordered = sorted(contacts, key=_priority)
    steps: list[list[Contact]] = []
    for c in ordered:
        # only units share points in turn (step 5); anything else is resolved whole
        if (steps and c.kind == ContactKind.UNIT
                and _priority(steps[-1][0])[:2] == _priority(c)[:2]):
            steps[-1].append(c)
        else:
            steps.append([c])
    for group in steps:
        if strength == 0:
            break
        if group[0].kind == ContactKind.PLANET:
            strength = 0  # G23.65: the field collapses, the planet takes nothing
            continue
        if len(group) == 1:
            (c,) = group
            points = min(strength, left[c.unit])
            scored[c.unit] += points
            strength -= points
            continue
        alive = [c for c in group if left[c.unit] > scored[c.unit]]
        while strength and alive:  # G23.52 step 5: one point each in turn
            for c in alive:
                if strength == 0:
                    break
                scored[c.unit] += 1
                strength -= 1
            alive = [c for c in alive if left[c.unit] > scored[c.unit]]
    return strength, scored


def interaction_order(gens: Sequence[EsgGenerator], *, from_inside: bool = False,
                      owner_choice: Sequence[int] | None = None) -> list[int]:
    """(G23.122) Order in which one ship's fields meet a unit striking several of them.

    Different radii: the one met first (the outer one coming from outside, the inner one coming
    from inside). Same radius: the one operating longer first. Released together: the owner's
    choice (``owner_choice`` lists generator indices in preference; default their own order).
    """
    rank = {g: i for i, g in enumerate(owner_choice if owner_choice is not None
                                       else range(len(gens)))}
    if sorted(rank) != list(range(len(gens))):
        raise EsgRuleError("G23.122", f"owner_choice {owner_choice!r} is not a permutation")
    live = [i for i, g in enumerate(gens) if g.phase == EsgPhase.ACTIVE]
    sign = 1 if from_inside else -1
    return sorted(live, key=lambda i: (sign * int(gens[i].radius or 0),
                                       int(gens[i].activated_at or 0), rank[i]))


def strike(gens: Sequence[EsgGenerator], contacts: Sequence[Sequence[Contact]], turn: int,
           impulse: int, order: Sequence[int] | None = None
           ) -> tuple[tuple[EsgGenerator, ...], dict[int, int]]:
    """All fields of one ship against what strikes them in one impulse (G23.122, G23.512).

    ``contacts[i]`` strike ``gens[i]``. Fields are resolved whole, one after another, in
    ``order`` (default :func:`interaction_order`): a unit damaged by one field needs less from the
    next, and a destroyed one is not struck again. Returns the generators, with any field brought
    to zero dropped now (G23.322), and the points each unit takes, as a single volley for this
    ship (G23.512, G23.75); fields of other ships are separate volleys (separate calls).
    """
    if len(contacts) != len(gens):
        raise EsgRuleError("G23.512", f"{len(contacts)} contact lists for {len(gens)} fields")
    struck = [i for i, c in enumerate(contacts) if c]
    for i in struck:
        if not is_operating(gens[i], turn, impulse):
            raise EsgRuleError("G23.51", f"field {i} is not operating")
    order = list(order) if order is not None else interaction_order(gens)
    if len(set(order)) != len(order) or not set(struck) <= set(order) <= set(range(len(gens))):
        raise EsgRuleError("G23.122", f"order {order!r} does not cover the struck fields")
    out = list(gens)
    needed: dict[int, int] = {}
    volley: dict[int, int] = {}
    for i in order:
        gen = out[i]
        if not contacts[i]:
            continue
        for c in contacts[i]:
            needed.setdefault(c.unit, c.needed)
        strength, scored = resolve_field(gen.strength, contacts[i], needed)
        for unit, points in scored.items():
            needed[unit] -= points
            volley[unit] = volley.get(unit, 0) + points
        gen = replace(gen, strength=strength)
        out[i] = gen if strength else _deactivate(gen, _now(gen, turn, impulse))
    return tuple(out), {u: p for u, p in volley.items() if p}
