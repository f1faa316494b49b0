"""Named fields of the documented observation vector (``sfb_env.env.observation``).

A captain decodes ``obs["observation"]`` with the layout constants the env publishes; nothing
here reads the engine. Ranges come back as hexes (exact up to ``RANGE_SCALE``; farther targets
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

from sfb_env.env.observation import (
    CLOCK_SIZE,
    ESG_SIZE,
    ESG_STRENGTH_SCALE,
    OWN_SIZE,
    PLASMA_THREAT_SIZE,
    PLASMA_WARHEAD_SCALE,
    PPD_SIZE,
    RANGE_SCALE,
    SLOT_SIZE,
    THREAT_SIZE,
)
from sfb_env.hexmap import BASE_ARCS

KINDS = ("ship", "freighter", "drone")
EDGE_SCALE = 28.0  # own-ship edge distances are divided by 28 (observation docstring)


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


def threat_slots_in(length: int, n_weapons: int, target_slots: int, n_esg: int = 0,
                    n_energy: int = 0, n_ppd: int = 0, n_rules: int = 0) -> int:
    """How many threat slots a vector of ``length`` holds (``n_esg``: ESG blocks at the end;
    ``n_energy``: length of the energy block after them, ``rules.energy: cadet``; ``n_ppd``:
    PPD blocks; ``n_rules``: the rule-features block, last, ``env.rule_features``)."""
    rest = (length - OWN_SIZE - 3 * n_weapons - CLOCK_SIZE - target_slots * SLOT_SIZE
            - n_esg * ESG_SIZE - n_energy - n_ppd * PPD_SIZE - n_rules)
    if rest > 0 and rest % THREAT_SIZE and not rest % (THREAT_SIZE + PLASMA_THREAT_SIZE):
        return rest // (THREAT_SIZE + PLASMA_THREAT_SIZE)  # with the plasma threat block
    if rest < 0 or rest % THREAT_SIZE:
        raise ValueError(
            f"observation of length {length} does not fit {n_weapons} weapon positions and "
            f"{target_slots} target slots"
        )
    return rest // THREAT_SIZE


def decode(
    vector: np.ndarray, n_weapons: int, target_slots: int, max_speed: int = 8, n_esg: int = 0,
    n_energy: int = 0, n_ppd: int = 0, n_rules: int = 0,
) -> ObservationView:
    """Decode ``obs["observation"]`` of an agent with ``n_weapons`` weapon positions,
    ``n_esg`` expanding sphere generators and ``n_ppd`` PPDs."""
    v = np.asarray(vector, dtype=np.float64)
    threats = threat_slots_in(len(v), n_weapons, target_slots, n_esg, n_energy, n_ppd, n_rules)
    v = v[:len(v) - n_rules]  # the rule-features block (last) is not decoded here
    own = _own(v, max_speed)
    pos = OWN_SIZE
    weapons = tuple(
        WeaponState(bool(v[p] > 0.5), bool(v[p + 1] > 0.5), round(v[p + 2] * 4))
        for p in range(pos, pos + 3 * n_weapons, 3)
    )
    pos += 3 * n_weapons
    ipt = max(1, round(v[pos + 2] * 32))
    clock = Clock(float(v[pos]), round(v[pos + 1] * ipt), ipt)
    pos += CLOCK_SIZE
    targets = []
    for k in range(target_slots):
        row = v[pos + k * SLOT_SIZE: pos + (k + 1) * SLOT_SIZE]
        if row[0] > 0.5:
            targets.append(_target(k + 1, row))
    pos += target_slots * SLOT_SIZE
    found = []
    for k in range(threats):
        row = v[pos + k * THREAT_SIZE: pos + (k + 1) * THREAT_SIZE]
        if row[0] > 0.5:
            found.append(Threat(_range(row[1]), _angle(row[2], row[3]), _ones(row[4:10])))
    pos += threats * THREAT_SIZE
    esgs = tuple(_esg(v[pos + g * ESG_SIZE: pos + (g + 1) * ESG_SIZE], ipt)
                 for g in range(n_esg))
    pos += n_esg * ESG_SIZE
    ppds = tuple(PpdState(round(r[0] * 4), bool(r[1] > 0.5), bool(r[2] > 0.5), round(r[3] * 4))
                 for r in (v[len(v) - (n_ppd - p) * PPD_SIZE:][:PPD_SIZE] for p in range(n_ppd)))
    if len(v) - pos - n_energy - n_ppd * PPD_SIZE == threats * PLASMA_THREAT_SIZE > 0:
        found = [replace(t, plasma=bool(v[pos + k * PLASMA_THREAT_SIZE] > 0.5),
                         warhead=round(v[pos + k * PLASMA_THREAT_SIZE + 1]
                                       * PLASMA_WARHEAD_SCALE))
                 for k, t in enumerate(found)]
    return ObservationView(own, weapons, clock, tuple(targets), tuple(found), esgs, ppds)


def _esg(row: np.ndarray, ipt: int) -> EsgState:
    return EsgState(
        stored_fraction=float(row[0]), announced=bool(row[1] > 0.5),
        operating=bool(row[2] > 0.5), radius=round(row[3] * 3),
        strength=round(row[4] * ESG_STRENGTH_SCALE), release_in=round(row[5] * ipt),
        expires_in=round(row[6] * ipt), can_announce=bool(row[7] > 0.5),
    )


def _own(v: np.ndarray, max_speed: int) -> OwnShip:
    edges = tuple(round(x * EDGE_SCALE) for x in v[2:6])
    return OwnShip(
        column=round(v[0] * 28), row=round(v[1] * 32), edges=edges,  # type: ignore[arg-type]
        facing=int(np.argmax(v[6:12])), speed=round(v[12] * max_speed),
        moves_next=bool(v[13] > 0.5), can_turn=bool(v[14] > 0.5), straight=round(v[15] * 8),
        shields=v[16:22].copy(), internal=float(v[22]),
    )


def _target(slot: int, row: np.ndarray) -> Target:
    kind = KINDS[int(np.argmax(row[1:4]))] if row[1:4].any() else "ship"
    rel = round(math.atan2(row[7], row[8]) / (math.pi / 3)) % 6
    return Target(
        slot=slot, kind=kind, range=_range(row[4]), bearing=_angle(row[5], row[6]),
        relative_facing=rel, shields_toward_us=_ones(row[9:15]), shields=row[15:21].copy(),
        damage=float(row[21]), seeking_us=bool(row[22] > 0.5),
        arcs=frozenset(a for a, bit in zip(BASE_ARCS, row[23:29], strict=True) if bit > 0.5),
    )


def _range(value: float) -> int:
    return round(value * RANGE_SCALE)


def _angle(sin: float, cos: float) -> float:
    return math.atan2(sin, cos)


def _ones(bits: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) + 1 for i in np.flatnonzero(bits > 0.5))
