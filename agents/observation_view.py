"""Named fields of the documented observation vector (``sfb_env.env.observation``).

A captain decodes ``obs["observation"]`` with the layout the env declares
(``sfb_env.env.observation_layout``: every block, row, field and scale); nothing here reads the
engine. Ranges come back as hexes (exact up to ``RANGE_SCALE``; farther targets
read as ``RANGE_SCALE``), bearings as radians clockwise from the own facing, shields and damage
as fractions of their starting values.

Usage::

    view = decode(obs["observation"], n_weapons=7, target_slots=8, max_speed=8)
    view.own.facing, view.clock.impulse, [t.range for t in view.targets]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from sfb_env.env import observation_layout as lay
from sfb_env.env.observation_layout import (
    CLOCK,
    ENERGY,
    ENERGY_WEAPON,
    ESG,
    OWN,
    PLASMA_THREAT,
    PLASMA_WARHEAD_SCALE,
    PPD,
    RANGE_SCALE,
    SLOT,
    THREAT,
    WEAPON,
)
from sfb_env.hexmap import BASE_ARCS

KINDS = ("ship", "freighter", "drone")
EDGE_SCALE = OWN.field("edges").scale  # own-ship edge distances are divided by 28
# row sizes of the declaration (``sfb_env.env.observation_layout``), for readers of the vector
OWN_SIZE, CLOCK_SIZE, SLOT_SIZE, THREAT_SIZE = OWN.size, CLOCK.size, SLOT.size, THREAT.size
ESG_SIZE, PPD_SIZE, PLASMA_THREAT_SIZE = ESG.size, PPD.size, PLASMA_THREAT.size
ESG_STRENGTH_SCALE = ESG.field("strength").scale


@dataclass(frozen=True)
class OwnShip:
    """The own ship: place, heading, movement state and condition."""

    column: int
    row: int
    edges: tuple[int, int, int, int]  # hexes to the west, east, north, south edge of play
    facing: int  # 0..5 = A..F
    speed: int  # this turn's speed (exact when max_speed is known)
    moves_next: bool
    can_turn: bool  # turn mode satisfied for the next move
    straight: int  # straight hexes since the last turn, clipped to 8
    shields: np.ndarray  # (6,) remaining fraction of shields #1..#6
    internal: float  # internal points taken / internal boxes at the start


@dataclass(frozen=True)
class WeaponState:
    """One weapon position of the action layout (racks first, then direct-fire weapons)."""

    usable: bool
    destroyed: bool
    drones_left: int


@dataclass(frozen=True)
class Clock:
    """Where the battle stands in time."""

    turn_fraction: float  # turn / max turns
    impulse: int
    impulses_per_turn: int


@dataclass(frozen=True)
class Target:
    """One filled target slot (``slot`` is the action value that fires at it)."""

    slot: int
    kind: str  # "ship", "freighter" or "drone"
    range: int
    bearing: float  # radians clockwise from the own facing, in (-pi, pi]
    relative_facing: int  # its facing minus ours, 0..5
    shields_toward_us: tuple[int, ...]  # its shield numbers 1..6 facing us
    shields: np.ndarray  # (6,) its shields' remaining fractions
    damage: float  # points scored on it / points that destroy it
    seeking_us: bool  # a seeking weapon aimed at us
    arcs: frozenset[str]  # our base arcs (RF R RR LR L LF) that hold it


@dataclass(frozen=True)
class Threat:
    """A seeking weapon aimed at us."""

    range: int
    bearing: float
    shields: tuple[int, ...]  # our shield numbers 1..6 it would strike
    plasma: bool = False  # a plasma torpedo (battles with plasma launchers only)
    warhead: int = 0  # its current warhead (FP1.0, FP1.6); 0 for a drone


@dataclass(frozen=True)
class EsgState:
    """One expanding sphere generator of the own ship (G23)."""

    stored_fraction: float  # energy stored / capacity
    announced: bool  # a release is announced (G23.31)
    operating: bool  # the field operates (G23.32)
    radius: int  # announced or operating radius
    strength: int  # operating field strength
    release_in: int  # impulses until the announced release
    expires_in: int  # impulses until the operating field expires
    can_announce: bool  # an announcement is open now


@dataclass(frozen=True)
class ObservationView:
    """The whole observation vector, by name."""

    own: OwnShip
    weapons: tuple[WeaponState, ...]
    clock: Clock
    targets: tuple[Target, ...]
    threats: tuple[Threat, ...]
    esgs: tuple[EsgState, ...] = ()
    ppds: tuple[PpdState, ...] = ()


@dataclass(frozen=True)
class PpdState:
    """One plasmatic pulsar device of the own ship (E11)."""

    armed_pulses: int  # pulses of the charge it may fire now (0: cannot start a train)
    pulsing: bool  # a pulse train is running
    locked: bool  # the wave-lock is held (E11.331)
    pulses_left: int  # pulses left in the train


def _counts(n_weapons: int, target_slots: int, threats: int, n_esg: int, n_energy: int,
            n_ppd: int, plasma: bool = False) -> lay.Counts:
    arms = max(0, n_energy - ENERGY.size) // ENERGY_WEAPON.size
    return lay.Counts(n_weapons, target_slots, threats, n_esg, plasma, n_energy > 0, arms, n_ppd)


def threat_slots_in(length: int, n_weapons: int, target_slots: int, n_esg: int = 0,
                    n_energy: int = 0, n_ppd: int = 0, n_rules: int = 0) -> int:
    """How many threat slots a vector of ``length`` holds (``n_esg``: ESG blocks at the end;
    ``n_energy``: length of the energy block after them, ``rules.energy: cadet``; ``n_ppd``:
    PPD blocks; ``n_rules``: the rule-features block, last, ``env.rule_features``)."""
    fixed = lay.place(_counts(n_weapons, target_slots, 0, n_esg, n_energy, n_ppd)).size
    rest = length - fixed - n_rules
    both = THREAT.size + PLASMA_THREAT.size
    if rest > 0 and rest % THREAT.size and not rest % both:
        return rest // both  # with the plasma threat block
    if rest < 0 or rest % THREAT.size:
        raise ValueError(
            f"observation of length {length} does not fit {n_weapons} weapon positions and "
            f"{target_slots} target slots"
        )
    return rest // THREAT.size


def placement(length: int, n_weapons: int, target_slots: int, n_esg: int = 0,
              n_energy: int = 0, n_ppd: int = 0, n_rules: int = 0) -> lay.Placement:
    """Where every block of a vector of ``length`` sits (the plasma threat block and the
    number of threat slots read off the length; the rule-features block, last, not placed)."""
    threats = threat_slots_in(length, n_weapons, target_slots, n_esg, n_energy, n_ppd, n_rules)
    for plasma in (False, True):
        where = lay.place(_counts(n_weapons, target_slots, threats, n_esg, n_energy, n_ppd,
                                  plasma))
        if where.size + n_rules == length:
            return where
    raise ValueError(f"observation of length {length} does not fit the declared layout")


def decode(
    vector: np.ndarray, n_weapons: int, target_slots: int, max_speed: int = 8, n_esg: int = 0,
    n_energy: int = 0, n_ppd: int = 0, n_rules: int = 0,
) -> ObservationView:
    """Decode ``obs["observation"]`` of an agent with ``n_weapons`` weapon positions,
    ``n_esg`` expanding sphere generators and ``n_ppd`` PPDs."""
    v = np.asarray(vector, dtype=np.float64)
    f = v.tolist()  # scalars read as Python floats: a numpy scalar read costs ten times more
    where = placement(len(v), n_weapons, target_slots, n_esg, n_energy, n_ppd, n_rules)
    own = _own(v[where.span("own")], max_speed)
    part = where.part("own", "weapons")
    drones = WEAPON.field("drones_left").scale
    usable, destroyed, left = (WEAPON.at(n) for n in ("usable", "destroyed", "drones_left"))
    weapons = []
    for i in range(n_weapons):
        at = part.offset + i * WEAPON.size
        weapons.append(WeaponState(f[at + usable] > 0.5, f[at + destroyed] > 0.5,
                                   round(f[at + left] * drones)))
    clock = where.part("clock")
    ipt = max(1, round(f[clock.index("impulses_per_turn")]
                       * CLOCK.field("impulses_per_turn").scale))
    clock = Clock(f[clock.index("turn")], round(f[clock.index("impulse")] * ipt), ipt)
    targets = []
    slots = where.part("targets")
    for k in range(slots.count):
        at = slots.offset + k * SLOT.size
        if f[at + _SLOT["present"].start] > 0.5:
            targets.append(_target(k + 1, f, v, at))
    found = []
    threats = where.part("threats")
    for k in range(threats.count):
        at = threats.offset + k * THREAT.size
        if f[at + _THREAT["present"].start] > 0.5:
            found.append(Threat(_range(f[at + _THREAT["range"].start]),
                                _angle(*_cut(f, at, _THREAT["bearing"])),
                                _ones(_cut(f, at, _THREAT["shield"]))))
    esgs = tuple(_esg(row, ipt) for row in _rows(f, where.part("esg")))
    ppds = tuple(PpdState(round(r[PPD.at("armed_pulses")] * PPD.field("armed_pulses").scale),
                          r[PPD.at("pulsing")] > 0.5, r[PPD.at("locked")] > 0.5,
                          round(r[PPD.at("pulses_left")] * PPD.field("pulses_left").scale))
                 for r in _rows(f, where.part("ppd")))
    plasma = where.part("plasma_threats")
    if plasma.count:
        found = [replace(t, plasma=f[plasma.index("plasma", k)] > 0.5,
                         warhead=round(f[plasma.index("warhead", k)] * PLASMA_WARHEAD_SCALE))
                 for k, t in enumerate(found)]
    return ObservationView(own, tuple(weapons), clock, tuple(targets), tuple(found), esgs, ppds)


def _rows(f: list[float], part: lay.Placed) -> list[list[float]]:
    """The rows of a placed block part (of the vector as a list)."""
    n = part.row.size
    return [f[part.offset + i * n:part.offset + (i + 1) * n] for i in range(part.count)]


def _esg(row: list[float], ipt: int) -> EsgState:
    return EsgState(
        stored_fraction=row[ESG.at("stored")],
        announced=row[ESG.at("announced")] > 0.5,
        operating=row[ESG.at("operating")] > 0.5,
        radius=round(row[ESG.at("radius")] * ESG.field("radius").scale),
        strength=round(row[ESG.at("strength")] * ESG_STRENGTH_SCALE),
        release_in=round(row[ESG.at("release_in")] * ipt),
        expires_in=round(row[ESG.at("expires_in")] * ipt),
        can_announce=row[ESG.at("can_announce")] > 0.5,
    )


def own_ship(vector: np.ndarray, max_speed: int = 1) -> OwnShip:
    """The own-ship row alone (it opens every observation vector): place, edges, facing, ...
    (``speed`` is exact only with the scenario's ``max_speed``)."""
    return _own(np.asarray(vector), max_speed)


def _own(v: np.ndarray, max_speed: int) -> OwnShip:
    f = v[:OWN.size].tolist()
    edges = tuple(round(x * EDGE_SCALE) for x in f[OWN.slice("edges")])
    facing = f[OWN.slice("facing")]
    return OwnShip(
        column=round(f[OWN.at("column")] * OWN.field("column").scale),
        row=round(f[OWN.at("row")] * OWN.field("row").scale), edges=edges,  # type: ignore[arg-type]
        facing=facing.index(max(facing)),  # the first largest, as np.argmax
        speed=round(f[OWN.at("speed")] * max_speed),
        moves_next=f[OWN.at("moves_next")] > 0.5,
        can_turn=f[OWN.at("can_turn")] > 0.5,
        straight=round(f[OWN.at("straight")] * OWN.field("straight").scale),
        shields=v[OWN.slice("shields")].copy(), internal=f[OWN.at("internal")],
    )


# each field's values within its row (the declaration's ``Row.slice``), read once
_SLOT = {f.name: SLOT.slice(f.name) for f in SLOT.fields}
_THREAT = {f.name: THREAT.slice(f.name) for f in THREAT.fields}


def _cut(values, at: int, field: slice):
    """A field's values in the row starting at ``at``."""
    return values[at + field.start:at + field.stop]


def _target(slot: int, f: list[float], v: np.ndarray, at: int) -> Target:
    """The target in slot ``slot``, its row at ``at`` of the vector (``f``: as a list)."""
    kinds = _cut(f, at, _SLOT["kind"])
    kind = KINDS[kinds.index(max(kinds))] if any(kinds) else "ship"
    rel = round(math.atan2(*_cut(f, at, _SLOT["relative_facing"])) / (math.pi / 3)) % 6
    return Target(
        slot=slot, kind=kind, range=_range(f[at + _SLOT["range"].start]),
        bearing=_angle(*_cut(f, at, _SLOT["bearing"])), relative_facing=rel,
        shields_toward_us=_ones(_cut(f, at, _SLOT["shield_facing_us"])),
        shields=_cut(v, at, _SLOT["shields"]).copy(), damage=f[at + _SLOT["damage"].start],
        seeking_us=f[at + _SLOT["seeking_us"].start] > 0.5,
        arcs=frozenset(a for a, bit in zip(BASE_ARCS, _cut(f, at, _SLOT["arcs"]), strict=True)
                       if bit > 0.5),
    )


def _range(value: float) -> int:
    return round(value * RANGE_SCALE)


def _angle(sin: float, cos: float) -> float:
    return math.atan2(sin, cos)


def _ones(bits: list[float]) -> tuple[int, ...]:
    return tuple(i + 1 for i, bit in enumerate(bits) if bit > 0.5)
