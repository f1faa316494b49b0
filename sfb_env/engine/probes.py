"""Probes (G5.0; CTH-DATA §5.4, §9.2): information probes and anti-matter probes.

Scenario rule ``probes`` (with ``energy: standard``; the standard form pays them, CTH-DATA
§7.1). A ship with a probe launcher (sheet ``probe_launcher``) carries the sheet's ``probes``
(5, G5.11); one probe is armed or launched at a time (G5.13, G5.2). One order,
``Orders.probe`` (a ``ProbeOrder``):

* at Energy Allocation (impulse 0 and the last impulse of a turn): ``ARM_INFORMATION`` pays 1
  energy (any source) for the turn now starting, ``ARM_ANTIMATTER`` 2 **warp** (G5.32); two
  consecutive paid turns arm the probe (G5.2, G5.32). Any other order lets the arming go;
  an armed information probe not launched "rolls like plasma": ordering ARM_INFORMATION again
  pays 1 and keeps it armed (turn 1's energy is lost, G5.2). An anti-matter probe must be fired
  on its second turn (G5.32): unfired, it is lost at the turn's end (PROPOSAL [P-059]: the probe
  itself stays in the launcher, only the energy is lost).
* in the Direct-Fire step of an impulse (G5.12): ``LAUNCH`` launches the armed probe.
  - information probe: +20 research points to the side if a monster is within 6 hexes
    (G5.2, G4.0; ``engine.labs``); the probe is used up.
  - anti-matter probe (G5.3-G5.34): allowed only when the ship is crippled (half its internal
    boxes gone), its side has one ship against two or more enemy ships, or the scenario says
    so (rule ``antimatter_probes``). Fired as a direct-fire weapon straight ahead along the
    centre row only, at the nearest enemy unit on that row within range 6; it hits if a die >=
    the effective range (range 0: automatic); warhead 8 on the facing shield. On a monster
    whose kill method 4 the side has found, a hit destroys it (``engine.planet_killer``).

At the last impulse of a turn the same component either launches (fire of that impulse) or
arms for the next turn, not both (PROPOSAL [P-060]: one order per decision point).
``order_blockers`` is the single legality predicate (the env's mask and ``validate``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import energy_switches, kill_methods, labs, shields
from sfb_env.engine import events as ev
from sfb_env.engine.dac import DacBox
from sfb_env.engine.events import Event
from sfb_env.engine.types import (
    ACTIVE,
    K_FREIGHTER,
    K_MONSTER,
    K_PLANET,
    K_SHIP,
    IllegalOrderError,
    Orders,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

PROBE_RANGE = 6  # (G5.12) probes fly 6 hexes; also the information-probe range (G5.2)
INFORMATION_POINTS = 20  # (G5.2)
ANTIMATTER_WARHEAD = 8  # (G5.34)
ARMING_TURNS = 2  # (G5.2, G5.32)
COST = {1: 1, 2: 2}  # ProbeKind -> energy per arming turn (G5.2 any source, G5.32 warp)


class ProbeKind(IntEnum):
    """What the launcher is arming (``st.probe_kind``)."""

    NONE = 0
    INFORMATION = 1
    ANTIMATTER = 2


class ProbeOrder(IntEnum):
    """The ``probe`` order / action component (G5)."""

    NONE = 0
    ARM_INFORMATION = 1  # Energy Allocation: 1 energy this turn (G5.2)
    ARM_ANTIMATTER = 2  # Energy Allocation: 2 warp this turn (G5.32)
    LAUNCH = 3  # Direct-Fire step: launch / fire the armed probe (G5.12, G5.33)


PROBE_ORDERS = len(ProbeOrder)  # size of the ``probe`` action component


@dataclass(frozen=True)
class ProbeLaunched(Event):
    """A probe left its launcher: kind, target (anti-matter), range, die, hit, points."""

    unit: str
    probe: str
    target: str
    range: int
    die: int
    hit: bool
    points: int


def init_state(battle: Battle) -> None:
    """Probes aboard (G5.11) where rule ``probes`` is in force; nothing armed."""
    st = battle.state
    n = len(st.kind)
    st.probes_left = np.zeros(n, dtype=np.int64)
    if battle.rules.probes:
        for u, ship in enumerate(battle.ship_classes):
            if ship is not None and ship.systems.get("probe_launcher", 0):
                st.probes_left[u] = int(ship.probes or 0)
    st.probe_kind = np.zeros(n, dtype=np.int64)
    st.probe_stage = np.zeros(n, dtype=np.int64)
    st.probe_paid_turn = np.zeros(n, dtype=np.int64)


def has_probes(battle: Battle, unit: int) -> bool:
    """Whether the unit gets a ``probe`` component: rule ``probes``, the standard form
    governing it, a probe launcher on its sheet with probes."""
    ship = battle.ship_classes[unit]
    return (bool(battle.rules.probes) and battle.rules.standard_energy
            and energy_switches.governed(battle, unit) and ship is not None
            and bool(ship.systems.get("probe_launcher", 0)) and bool(ship.probes))


def launcher_working(battle: Battle, unit: int) -> bool:
    """The probe launcher box is undestroyed (standard DAC ``Probe`` hits, D4.21)."""
    ship = battle.ship_classes[unit]
    if ship is None or not ship.systems.get("probe_launcher", 0):
        return False
    if battle.rules.damage == "standard_dac":
        return bool(battle.state.dac_boxes[unit, DacBox.PROBE] > 0)
    return True


def crippled(battle: Battle, unit: int) -> bool:
    """(G5.31) Half or more of the ship's internal boxes are gone."""
    st = battle.state
    start = int(battle.initial.internal_boxes[unit])
    rows = battle.weapons_of(unit)
    left = int(st.boxes[unit].sum()) + int((~st.w_destroyed[rows]).sum())
    return start > 0 and 2 * left <= start


def outnumbered(battle: Battle, unit: int) -> bool:
    """(G5.31) The ship's side has one ship in play against two or more enemy ships."""
    st = battle.state
    ships = (st.status == ACTIVE) & (st.kind == K_SHIP)
    own = int((ships & (st.side == st.side[unit])).sum())
    return own == 1 and int((ships & (st.side != st.side[unit])).sum()) >= 2


def antimatter_blocker(battle: Battle, unit: int) -> str | None:
    """(G5.31) Why the ship may not use an anti-matter probe now, or None."""
    if (battle.rules.antimatter_probes or crippled(battle, unit)
            or outnumbered(battle, unit)):
        return None
    return ("G5.31 an anti-matter probe needs a crippled ship, one ship against two or more, "
            "or the scenario (rules.antimatter_probes)")


def centre_row_target(battle: Battle, unit: int) -> tuple[int, int]:
    """(G5.33) The nearest enemy unit straight ahead along the centre row within range 6, and
    its range; (-1, -1) if none (a planet on the row blocks the line, P2.0)."""
    st = battle.state
    x, z = int(st.x[unit]), int(st.z[unit])
    live = np.flatnonzero((st.status == ACTIVE) & (st.kind != K_PLANET)
                          & (st.side != st.side[unit])
                          & ((st.kind == K_SHIP) | (st.kind == K_FREIGHTER)
                             | (st.kind == K_MONSTER)))
    planets = np.flatnonzero((st.status == ACTIVE) & (st.kind == K_PLANET))
    for rng in range(0, PROBE_RANGE + 1):
        if rng:
            x, z = (int(v) for v in hexmap.neighbor_np(x, z, int(st.facing[unit])))
        if rng and np.any((st.x[planets] == x) & (st.z[planets] == z)):
            return -1, -1
        here = live[(st.x[live] == x) & (st.z[live] == z)]
        if len(here):
            return int(here[0]), rng
    return -1, -1


def armed(battle: Battle, unit: int) -> bool:
    """A probe is armed for this turn (second arming turn paid this turn, G5.2, G5.32)."""
    st = battle.state
    return (int(st.probe_stage[unit]) >= ARMING_TURNS
            and int(st.probe_paid_turn[unit]) == st.turn)


def order_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """``ProbeOrder`` values 1..3 the unit may not give now, with the rule."""
    st = battle.state
    out: dict[int, str] = {}
    if not has_probes(battle, unit):
        return {v: "G5.1 no probe launcher in use (rules.probes, energy: standard)"
                for v in range(1, PROBE_ORDERS)}
    base = None
    if not launcher_working(battle, unit):
        base = "G5.11 the probe launcher is destroyed"
    elif st.probes_left[unit] <= 0:
        base = "G5.11 no probes left"
    if not energy_switches.allocation_open(battle):
        rule = "B3.0 probes are armed only at Energy Allocation (impulse 0, last impulse)"
        out[ProbeOrder.ARM_INFORMATION] = out[ProbeOrder.ARM_ANTIMATTER] = rule
    am = antimatter_blocker(battle, unit)
    if am is not None:
        out.setdefault(ProbeOrder.ARM_ANTIMATTER, am)
    if st.impulse < 1:
        out[ProbeOrder.LAUNCH] = "G5.12 probes launch in the Direct-Fire step of an impulse"
    elif not armed(battle, unit):
        out[ProbeOrder.LAUNCH] = "G5.2 no probe armed this turn (2 turns of arming energy)"
    elif int(st.probe_kind[unit]) == ProbeKind.ANTIMATTER:
        if am is not None:
            out[ProbeOrder.LAUNCH] = am
        elif centre_row_target(battle, unit)[0] < 0:
            out[ProbeOrder.LAUNCH] = ("G5.33 no enemy unit straight ahead along the centre row "
                                      "within range 6")
    if base is not None:
        out = {v: base for v in range(1, PROBE_ORDERS)}
    return out


def validate(battle: Battle, unit: int, order: Orders, name: str) -> None:
    """Refuse an illegal ``Orders.probe`` (``IllegalOrderError`` naming the rule)."""
    value = order.probe
    if not value:
        return
    if isinstance(value, bool) or value not in range(PROBE_ORDERS):
        raise IllegalOrderError(name, "probe", value,
                                f"G5 probe orders are 0..{PROBE_ORDERS - 1}")
    rule = order_blockers(battle, unit).get(int(value))
    if rule is not None:
        raise IllegalOrderError(name, "probe", ProbeOrder(int(value)).name, rule)


def allocate(battle: Battle, unit: int, order: Orders, purse) -> int:
    """Energy Allocation (G5.2, G5.32): pay this turn's probe arming; returns the shortfall.
    ``purse`` is ``engine.energy``'s purse (``pay(cost, warp_only=...)``)."""
    st = battle.state
    if not has_probes(battle, unit):
        return 0
    value = int(order.probe)
    kind = {ProbeOrder.ARM_INFORMATION: ProbeKind.INFORMATION,
            ProbeOrder.ARM_ANTIMATTER: ProbeKind.ANTIMATTER}.get(value, ProbeKind.NONE)
    if kind == ProbeKind.NONE or not launcher_working(battle, unit) or st.probes_left[unit] <= 0:
        _reset(st, unit)
        return 0
    continuing = (int(st.probe_kind[unit]) == kind and int(st.probe_paid_turn[unit]) == st.turn - 1
                  and int(st.probe_stage[unit]) >= 1
                  and not (kind == ProbeKind.ANTIMATTER and st.probe_stage[unit] >= ARMING_TURNS))
    cost = COST[int(kind)]
    if not purse.pay(cost, warp_only=kind == ProbeKind.ANTIMATTER):
        battle.log(ev.EnergyShortfall(st.turn, 0, battle.unit_ids[unit], "probe", cost))
        _reset(st, unit)
        return cost
    st.probe_kind[unit] = kind
    # (G5.2) a rolling information probe stays armed; a new cycle starts at 1
    st.probe_stage[unit] = min(ARMING_TURNS, int(st.probe_stage[unit]) + 1) if continuing else 1
    st.probe_paid_turn[unit] = st.turn
    return 0


def _reset(st, unit: int) -> None:
    st.probe_kind[unit] = ProbeKind.NONE
    st.probe_stage[unit] = 0
    st.probe_paid_turn[unit] = 0


def fire_step(battle: Battle, orders: dict[int, Orders]) -> None:
    """Direct-Fire step (G5.12): launch every probe ordered."""
    for u, order in orders.items():
        if order.probe == ProbeOrder.LAUNCH:
            launch(battle, int(u))


def launch(battle: Battle, unit: int) -> None:
    """Launch the unit's armed probe (validated already)."""
    st = battle.state
    kind = int(st.probe_kind[unit])
    st.probes_left[unit] -= 1
    _reset(st, unit)
    uid = battle.unit_ids[unit]
    if kind == ProbeKind.INFORMATION:
        mons = labs.monsters(battle)
        d = hexmap.distance_np(st.x[unit], st.z[unit], st.x[mons], st.z[mons])
        near = bool(len(mons)) and int(d.min()) <= PROBE_RANGE
        points = INFORMATION_POINTS if near else 0
        if points:  # (G5.2) within 6 hexes of the object
            labs.add_information(battle, int(st.side[unit]), points)
        target = battle.unit_ids[int(mons[np.argmin(d)])] if near else ""
        battle.log(ProbeLaunched(st.turn, st.impulse, uid, "information", target,
                                 int(d.min()) if len(mons) else -1, 0, near, points))
        return
    target, rng = centre_row_target(battle, unit)
    if target < 0:
        return
    die = int(battle.rng.integers(1, 7))
    hit = rng == 0 or die >= rng  # (G5.33) effective range = true range (no EW in CTH)
    battle.log(ProbeLaunched(st.turn, st.impulse, uid, "anti-matter", battle.unit_ids[target],
                             rng, die, hit, ANTIMATTER_WARHEAD if hit else 0))
    if not hit:
        return
    if int(st.kind[target]) == K_MONSTER and kill_methods.struck_by(
            battle, target, kill_methods.Method.ANTIMATTER_PROBE, unit):
        return  # (SCENARIOS §2.8 result 4) destroyed
    shield = 0
    if int(st.kind[target]) == K_SHIP:
        shield = shields.shield_from(battle, target, st.x[target], st.z[target],
                                     st.facing[target], st.x[unit], st.z[unit], source=unit,
                                     sf=st.facing[unit])
    battle.apply_damage(target, shield, ANTIMATTER_WARHEAD)  # (G5.34)


def end_of_turn(battle: Battle) -> None:
    """(G5.32) An anti-matter probe armed this turn and not fired is lost (energy only)."""
    st = battle.state
    lost = (st.probe_kind == ProbeKind.ANTIMATTER) & (st.probe_stage >= ARMING_TURNS)
    for u in np.flatnonzero(lost):
        _reset(st, int(u))


def has_component(battle: Battle, unit: int) -> bool:
    """Whether the unit's action has a ``probe`` component: rule ``probes`` under the standard
    form governing it (the same for every such ship, so uniform spaces need no padding; a ship
    without a launcher has it masked, G5.1)."""
    return (bool(battle.rules.probes) and battle.rules.standard_energy
            and energy_switches.governed(battle, unit))
