"""Typed events: every resolution of the engine appends one to the battle's event log.

Events are plain frozen dataclasses with unit ids (strings) and hex labels, so a log is readable
on its own and serialises to JSON with :func:`event_to_dict` (the source of replays and video).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Event:
    """Base class: the turn and impulse of the resolution."""

    turn: int
    impulse: int

    @property
    def kind(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class Moved(Event):
    """A unit entered a hex (C1.4), after turning if ``turned`` is -1/+1 (C3.1); ``slipped``
    -1/+1: a sideslip into the forward-left / forward-right hex, facing kept (C4.2)."""

    unit: str
    src: str
    dst: str
    facing: str
    turned: int
    slipped: int = 0


@dataclass(frozen=True)
class TacticalManeuver(Event):
    """A unit rotated 60 degrees in place (C5): ``turned`` -1 left / +1 right; ``paid_with``
    "warp" (an earned warp maneuver, C5.231) or "sublight" (C5.11)."""

    unit: str
    hex: str
    facing: str
    turned: int
    paid_with: str


@dataclass(frozen=True)
class TacticalPlotted(Event):
    """A unit plotted tactical maneuvers (TAC) for the turn (C5.11, C5.23): it stays in its
    hex; ``warp_maneuvers`` bought (the speed used on the impulse chart)."""

    unit: str
    warp_maneuvers: int


@dataclass(frozen=True)
class LeftMap(Event):
    """A unit moved off the play area: disengaged, escaped or removed."""

    unit: str
    src: str
    facing: str


@dataclass(frozen=True)
class SpeedSet(Event):
    """Speed for the turn (Speed Determination, B2.0)."""

    unit: str
    speed: int


@dataclass(frozen=True)
class Launched(Event):
    """A drone left its rack (FD1.2) toward its target."""

    unit: str
    rack: str
    drone: str
    target: str
    hex: str
    facing: str


@dataclass(frozen=True)
class Fired(Event):
    """One direct-fire shot (E1): die, ranges, shield struck and damage scored (0 = miss)."""

    unit: str
    weapon: str
    weapon_type: str
    target: str
    range: int
    effective_range: int
    die: int
    hit: bool
    damage: int
    shield: int  # 1..6 for ships, 0 where no shield applies


@dataclass(frozen=True)
class ShieldBoundary(Event):
    """An exact shield boundary (D3.41) and how it was resolved."""

    target: str
    source: str
    shields: tuple[int, ...]
    chosen: int
    method: str


@dataclass(frozen=True)
class SeekingHit(Event):
    """A drone struck its target (FD1.6) on ``shield``."""

    unit: str
    target: str
    shield: int
    warhead: int


@dataclass(frozen=True)
class Damaged(Event):
    """A volley's damage applied to one unit: shield boxes lost and internal points."""

    unit: str
    shield: int
    to_shield: int
    internal: int
    boxes: tuple[str, ...]


@dataclass(frozen=True)
class Destroyed(Event):
    """A unit was destroyed (D4.4, FD1.54, R1.6)."""

    unit: str


@dataclass(frozen=True)
class Exploded(Event):
    """A destroyed ship exploded (house rule of rules file 003, CTH-DATA §8.10): ``strength``
    points on every unit within ``radius`` hexes of ``hex``."""

    unit: str
    hex: str
    strength: int
    radius: int


@dataclass(frozen=True)
class Expired(Event):
    """A drone ran out of endurance (FD1.4) or lost its target or controller."""

    unit: str
    reason: str


@dataclass(frozen=True)
class CloakEvaded(Event):
    """A drone or plasma torpedo entered its cloaked target's hex and missed on the die roll
    (G13 cadet rule: 1-4 misses); it is removed."""

    unit: str
    target: str
    die: int


@dataclass(frozen=True)
class CloakAnnounced(Event):
    """(G13 standard rule) A ship announced its cloak (``cloaking``) or its uncloak: the
    4-impulse fade-out or fade-in begins on this impulse."""

    unit: str
    cloaking: bool


@dataclass(frozen=True)
class LaunchRefused(Event):
    """A launch order refused when carried out: ``rule`` says why (FD4.21: a second D7 rack
    ordered on the same impulse as the first)."""

    unit: str
    weapon: str
    rule: str


@dataclass(frozen=True)
class LockOn(Event):
    """(D6) A ship's Sensor Lock-On: ``die`` 0 = automatic (sensor 6), else the die rolled
    against ``sensor``; ``locked`` the result."""

    unit: str
    sensor: int
    die: int
    locked: bool


@dataclass(frozen=True)
class PlasmaFeedback(Event):
    """(FP1.8) A torpedo launched in its target's hex struck before the target moved: the
    launching ship takes a quarter of the warhead on its shield facing the target."""

    unit: str
    torpedo: str
    shield: int
    points: int


@dataclass(frozen=True)
class EsgCharged(Event):
    """Energy put into an expanding sphere generator (G23.21; the Chief Engineer's charge)."""

    unit: str
    generator: str
    energy: int
    stored: int


@dataclass(frozen=True)
class EsgAnnounced(Event):
    """A release announced in Launch Seeking Weapons (G23.31); the radius is the owner's secret
    record (G23.311), here for replays. ``release_turn``/``release_impulse``: when it forms."""

    unit: str
    generator: str
    radius: int
    release_turn: int
    release_impulse: int


@dataclass(frozen=True)
class EsgCancelled(Event):
    """A pending announcement publicly cancelled (G23.33)."""

    unit: str
    generator: str


@dataclass(frozen=True)
class EsgReleased(Event):
    """A field formed (G23.43-G23.44) with all stored ``energy``: ``strength`` (G23.42)."""

    unit: str
    generator: str
    radius: int
    energy: int
    strength: int


@dataclass(frozen=True)
class EsgDropped(Event):
    """A field ended: ``reason`` "voluntary" (G23.47), "expired" (G23.32), "exhausted" (a zero
    strength, G23.322), "destroyed" (the generator box was destroyed) or "collapsed" (released
    overlapping another ship's field, G23.712)."""

    unit: str
    generator: str
    reason: str


@dataclass(frozen=True)
class EsgFieldsMet(Event):
    """Fields of two ships struck each other (G23.73; at release in one hex, G23.713): each lost
    ``points``; a field left at zero is dropped ("exhausted")."""

    unit: str
    generator: str
    other_unit: str
    other_generator: str
    points: int


@dataclass(frozen=True)
class EsgStruck(Event):
    """A unit met a ship's field(s) in Move Ships (G23.51): ``points`` scored as one volley
    (G23.512) on ``shield`` (G23.513; 0 where none); ``contact`` "enters", "from_inside" or
    "jumps" (G23.571)."""

    unit: str
    target: str
    contact: str
    points: int
    shield: int


@dataclass(frozen=True)
class EnergyAllocated(Event):
    """A ship's Energy Allocation (B3.0 cadet form): ``power`` warp + impulse + APR (line 4),
    ``used`` the energy paid (line 20), ``batteries_used`` (line 21), ``shortfall`` the energy
    ordered but not paid (clamped in the priority of ``engine.energy``), ``speed`` bought."""

    unit: str
    power: int
    used: int
    batteries_used: int
    recharged: int
    shortfall: int
    speed: int


@dataclass(frozen=True)
class EnergyShortfall(Event):
    """One item of a ship's Energy Allocation not paid for lack of power (``engine.energy``):
    ``item`` e.g. "arm:fed-cadet.PHOT-A", "capacitor", "cloak"; ``cost`` the energy missing."""

    unit: str
    item: str
    cost: float


@dataclass(frozen=True)
class WeaponArmed(Event):
    """Energy paid into a heavy weapon (E3.2, E4.2, E7.21, FP1.22): ``stage`` arming turns paid
    in its cycle, ``armed`` whether it holds a charge it may fire or launch, ``held`` a holding
    payment, ``rolled`` a plasma-S rolling delay (FP1.22)."""

    unit: str
    weapon: str
    energy: int
    stage: int
    armed: bool
    held: bool = False
    rolled: bool = False


@dataclass(frozen=True)
class WeaponDischarged(Event):
    """A heavy weapon lost its charge or arming without firing (E4.2 an unheld photon is
    ejected, FP2.0 a plasma-R cannot be held, an arming cycle not continued): ``reason``."""

    unit: str
    weapon: str
    reason: str


@dataclass(frozen=True)
class FireUnpowered(Event):
    """A phaser shot ordered with too little energy left in the capacitor (H6.1): not fired
    (the mask is per weapon; several phasers may together ask for more than it holds)."""

    unit: str
    weapon: str
    capacitor: float


@dataclass(frozen=True)
class ShieldsReinforced(Event):
    """Reinforcement bought at Energy Allocation (D3.341, D3.342): ``general`` points and
    ``specific`` extra boxes on shields #1..#6 for this turn."""

    unit: str
    general: int
    specific: tuple


@dataclass(frozen=True)
class GeneralReinforcementHeld(Event):
    """General reinforcement held inactive (D3.3411 note of rules file 004): ``active`` False at
    Energy Allocation, True when the owner switches it on; ``general`` points it holds."""

    unit: str
    general: int
    active: bool


@dataclass(frozen=True)
class ReserveDischarged(Event):
    """Batteries discharged during the turn (H7.1, H7.2): ``use`` "fire:<weapon>" or
    "reinforce:#<shield>", ``energy`` batteries drawn, ``left`` charged batteries left."""

    unit: str
    use: str
    energy: int
    left: int


@dataclass(frozen=True)
class Mutiny(Event):
    """A Klingon mutiny roll (G6.2): ``die`` the occurrence die, ``second`` the success die (0 if
    none), ``result`` "no mutiny", "put down" or "captured" (G6.24, G6.33)."""

    unit: str
    die: int
    second: int
    result: str


@dataclass(frozen=True)
class ShieldsRepaired(Event):
    """Damage control at the end of the turn (D9.2): ``repairs`` boxes restored on #1..#6."""

    unit: str
    repairs: tuple


@dataclass(frozen=True)
class PpdTrainEnded(Event):
    """A PPD pulse train ended before its last pulse (E11.54 breaking event, E11.362 drop):
    ``resolved`` of ``pulses`` pulses fired; ``rule`` the event's rule number. (Each pulse
    itself is a ``Fired`` event with weapon type "ppd": ``hit`` = wave-lock held.)"""

    unit: str
    weapon: str
    target: str
    resolved: int
    pulses: int
    rule: str


@dataclass(frozen=True)
class PpdFireVoid(Event):
    """A PPD ordered to fire did not: its target began to cloak in the same impulse, after the
    orders were written (E11.472); the charge stays armed. ``rule`` the rule number."""

    unit: str
    weapon: str
    target: str
    rule: str


@dataclass(frozen=True)
class Landed(Event):
    """A fighter or shuttle landed aboard its carrier (J4.48, J1.0; engine.small_craft)."""

    unit: str
    carrier: str
    hex: str


@dataclass(frozen=True)
class CraftRepaired(Event):
    """A fighter aboard a whole turn had one damage point repaired (J4.48); ``damage`` left."""

    unit: str
    damage: int


@dataclass(frozen=True)
class DisengagementAnnounced(Event):
    """A ship announced disengagement at the end of the impulse and left the battle from its
    hex (SCENARIOS #5 special, rule ``disengage_by_announcement``; engine.disengagement)."""

    unit: str
    hex: str


@dataclass(frozen=True)
class TractorAttached(Event):
    """A tractor beam took hold of a unit in the Tractor Beams step (G7.0, CTH-DATA §8.3);
    ``reserve`` the battery discharged to power it (H7.2), 0 none."""

    unit: str
    beam: int
    target: str
    reserve: int = 0


@dataclass(frozen=True)
class TractorReleased(Event):
    """A tractor link ended (G7.0): released, lapsed unpaid, box loss, contest or gone."""

    unit: str
    beam: int
    target: str
    reason: str


@dataclass(frozen=True)
class UnitArrived(Event):
    """A unit entered the map mid-battle (scenario unit ``arrives``; engine.unit_rules)."""

    unit: str
    hex: str
    facing: str


@dataclass(frozen=True)
class StayedOnMap(Event):
    """A unit that may not leave voluntarily met the map edge and stayed in its hex
    (scenario unit ``may_leave: false``; engine.unit_rules)."""

    unit: str
    hex: str


@dataclass(frozen=True)
class ShieldDropped(Event):
    """A ship dropped shield #``shield`` for transporters (G8.24; ``raised_at`` the absolute
    impulse it comes back up, engine.transporters), or it came back up (``raised_at`` 0)."""

    unit: str
    shield: int
    raised_at: int


@dataclass(frozen=True)
class Transported(Event):
    """One transporter action (G8.0): ``what`` "boarding party" or "crew unit" from ``src`` to
    ``dst``; ``result`` "done" or why the attempt failed (the transporter is used all the same)."""

    unit: str
    transporter: int
    what: str
    src: str
    dst: str
    result: str


@dataclass(frozen=True)
class BoardingCombat(Event):
    """Boarding-party combat aboard ``unit`` (D7.0): ``dice`` per side (one per group of up to
    10), parties ``before`` and ``after`` per side, ``stations`` control stations captured."""

    unit: str
    dice: tuple
    before: tuple
    after: tuple
    stations: int


@dataclass(frozen=True)
class Captured(Event):
    """Every control station of ``unit`` was captured: ``side`` now controls it (D7.0)."""

    unit: str
    side: str


@dataclass(frozen=True)
class PlanetCrash(Event):
    """A ship or seeking weapon entered a planet hex and was destroyed (P2.0; engine.planets)."""

    unit: str
    hex: str


@dataclass(frozen=True)
class CrewLifted(Event):
    """A crew unit moved (scenario 9 survivors; engine.planets): ``how`` "shuttle" = it
    boarded shuttle ``unit`` from planet ``source`` (CTH-DATA §12.4), "landed" = it came aboard
    ship ``unit`` with its shuttle ``source``."""

    unit: str
    source: str
    how: str


@dataclass(frozen=True)
class SuicideShuttleArmed(Event):
    """A suicide shuttle's bomb was paid at Energy Allocation (J2.221): ``energy`` this turn,
    ``total`` put in, ``turns`` arming turns paid (3 = armed), ``held`` a holding payment;
    engine.suicide_shuttles."""

    unit: str
    shuttle: str
    energy: int
    total: int
    turns: int
    held: bool


@dataclass(frozen=True)
class SuicideShuttleDeactivated(Event):
    """A suicide shuttle's bomb lost its energy (J2.221): let go, unpaid or destroyed."""

    unit: str
    shuttle: str
    reason: str


@dataclass(frozen=True)
class TurnEnded(Event):
    """End of Turn (B2.0)."""


@dataclass(frozen=True)
class BattleEnded(Event):
    """The scenario's end: outcome per side ("win", "loss", "draw") and a level."""

    outcome: dict
    reason: str


def event_to_dict(event: Event) -> dict:
    """A JSON-ready dict with the event's kind (tuples become lists, as JSON reads them back)."""
    return {
        "kind": event.kind,
        **{k: list(v) if isinstance(v, tuple) else v for k, v in asdict(event).items()},
    }
