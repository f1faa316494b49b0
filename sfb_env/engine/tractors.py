"""Tractor beams (G7.0; CTH-DATA §8.3, §7.3), scenario rule ``tractors`` (R8).

State: ``st.tractor_link`` (U, B) the unit each beam holds, ``st.tractor_holder`` (U,) the unit
holding a unit, per beam the turn it last attached (``tractor_used_turn``) and its last release
(``tractor_released_at``), ``st.tractor_powered`` the beams powered this turn.

Rules applied (every row of CTH-DATA §8.3):

* energy: 1 per beam per turn. Under ``energy: standard`` the form powers every working beam
  (PROPOSAL [P-107]: an automatic line, priority 5c after the cloak; an unpaid beam is a shortfall);
  with ``rules.reserve_power`` an unpowered beam may attach on one battery (H7.2). Without a
  form (Chief Engineer, robots, freighters) every working beam is powered.
* range / arc: same or adjacent hex, any direction.
* use: attach or release in the Tractor Beams step of an impulse (advanced sequence: after
  Cloak/Uncloak, before Launch Seeking Weapons; ``engine.procedure``); each beam attaches once a
  turn and not within 8 impulses (a quarter turn on the 32-impulse chart) of its release.
* duration: a link lapses at the start of each turn unless its beam is powered again.
* what: freighters, drones and shuttles; never plasma, never own seeking weapons, never
  starships (enemy starships: "never in CTH"; own starships are no listed target either).
* towing: a held unit does not move by itself (a freighter's engines stop) and moves parallel
  to its holder (map-relative: the same hex step, no swing when the holder turns); the holder's
  move cost rises by 1/3 per freighter held and its speed is recomputed at once:
  floor(warp paid for movement / new cost) + the impulse point (anchor: Orion Raider, 10 warp +
  1 impulse = speed 16; holding a freighter, cost 1 -> 11). PROPOSAL [P-108]: the form pays movement
  at the untowed cost; the recomputed speed applies from the start of the turn.
* contested: a second ship attaching a held unit breaks both links; both beams are unusable for
  the rest of the turn.
* loss of boxes: links are released down to the number of working beams (tractor boxes left
  under the standard DAC).
* release: the released unit continues the turn at its own speed.
* objects: a held drone never strikes (tractored objects cannot be forced into contact,
  ``seeking.resolve_impacts``); a drone held to the end of its endurance is removed by the
  ordinary endurance rule (FD1.4, CTH-DATA §5.2).

A held unit towed off the map leaves it with ``st.towed_off_by`` = the holder's side (scenario 8
captures). Not modelled: tractor landing of shuttles (J1.6, CTH-DATA §8.6). [P-109]
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import dac, energy_form, energy_switches, kill_methods, reserve_power
from sfb_env.engine import events as ev
from sfb_env.engine.types import (
    ACTIVE,
    DISENGAGED,
    K_DRONE,
    K_FREIGHTER,
    K_MONSTER,
    K_PLASMA,
    K_SHIP,
    K_SHUTTLE,
    NEVER,
    Box,
    IllegalOrderError,
    Orders,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

RELEASE = -1  # ``Orders.tractor`` value: release what the beam holds
REATTACH_IMPULSES = 8  # (G7.0) not again within 8 impulses of a release (32-impulse chart)
TOWING_COST = Fraction(1, 3)  # (CTH-DATA §7.3) move cost per freighter towed
TOWABLE = (K_FREIGHTER, K_DRONE, K_SHUTTLE)
RULE = "G7.0"


def sheet_beams(battle: Battle, unit: int) -> int:
    """Tractor beams on the unit's sheet (``systems.tractor``), 0 where the rule is off."""
    ship = battle.ship_classes[unit]
    if ship is None or not battle.rules.tractors:
        return 0
    return int(ship.systems.get("tractor", 0))


def working(battle: Battle, unit: int) -> int:
    """Undestroyed tractor beams: tractor boxes left under the standard DAC (D4.21)."""
    beams = sheet_beams(battle, unit)
    if beams and battle.rules.damage == "standard_dac":
        return min(beams, int(battle.state.dac_boxes[unit, dac.DacBox.TRACTOR]))
    return beams


def _form_pays(battle: Battle, unit: int) -> bool:
    return battle.rules.standard_energy and energy_switches.governed(battle, unit)


def powered(battle: Battle, unit: int) -> int:
    """Beams powered this turn (working beams where no form pays energy)."""
    if _form_pays(battle, unit):
        return min(int(battle.state.tractor_powered[unit]), working(battle, unit))
    return working(battle, unit)


def init_state(battle: Battle) -> dict[str, Any]:
    """No links at the start; returns the setup's ``tractor_beams`` (U,) the beams of each
    unit (static)."""
    st = battle.state
    n = len(st.kind)
    beams = np.array([sheet_beams(battle, u) for u in range(n)], dtype=np.int64)
    b = max(1, int(beams.max(initial=0)))
    st.tractor_holder = np.full(n, -1, dtype=np.int64)
    st.tractor_link = np.full((n, b), -1, dtype=np.int64)
    st.tractor_used_turn = np.zeros((n, b), dtype=np.int64)
    st.tractor_released_at = np.full((n, b), NEVER, dtype=np.int64)
    st.tractor_powered = np.zeros(n, dtype=np.int64)
    st.tractor_base_speed = st.speed.copy()
    st.towed_off_by = np.full(n, -1, dtype=np.int64)
    return {"tractor_beams": beams}


# ---------------------------------------------------------------------- energy


def pay(battle: Battle, unit: int, purse) -> int:
    """(G7.0, B3.0 standard form) Power every working beam, 1 energy each, from ``purse`` (the
    form's pools, ``energy_allocation.Purse``); returns the energy ordered but not paid."""
    st = battle.state
    st.tractor_powered[unit] = 0
    if not battle.rules.tractors:
        return 0
    short = 0
    for _ in range(working(battle, unit)):
        if purse.pay(1):
            st.tractor_powered[unit] += 1
        else:
            short += 1
    if short:
        battle.log(ev.EnergyShortfall(st.turn, 0, battle.unit_ids[unit], "tractor", short))
    return short


def _charged(battle: Battle, unit: int) -> int:
    st = battle.state
    return min(int(st.batteries[unit]), int(st.boxes[unit, Box.BATTERY]))


def needs_reserve(battle: Battle, unit: int, beam: int) -> bool:
    """Whether attaching ``beam`` now takes a battery (H7.2): not powered at Energy Allocation."""
    return beam >= powered(battle, unit)


# ---------------------------------------------------------------------- legality


def beam_blocker(battle: Battle, unit: int, beam: int) -> str | None:
    """Why ``unit``'s ``beam`` may not attach to anything now, or None."""
    st = battle.state
    if not battle.rules.tractors:
        return f"{RULE} tractor beams are not in use in this scenario (rules.tractors)"
    if st.status[unit] != ACTIVE:
        return f"{RULE} the ship is not in play"
    if not 0 <= beam < int(battle.tractor_beams[unit]):
        return f"{RULE} the ship has no tractor beam {beam}"
    if st.impulse == 0:
        return (f"{RULE} tractors attach in the Tractor Beams step of an impulse (impulse 1 "
                "comes first)")
    if beam >= working(battle, unit):
        return f"{RULE} tractor beam {beam} is destroyed"
    if st.tractor_link[unit, beam] >= 0:
        held = battle.unit_ids[int(st.tractor_link[unit, beam])]
        return f"{RULE} tractor beam {beam} already holds {held}: release it first"
    if st.tractor_used_turn[unit, beam] == st.turn:
        return f"{RULE} each tractor beam is used once per turn"
    since = st.absolute_impulse - int(st.tractor_released_at[unit, beam])
    if since < REATTACH_IMPULSES:
        return (f"{RULE} tractor beam {beam} released {since} impulses ago: not again within "
                f"{REATTACH_IMPULSES} impulses")
    if needs_reserve(battle, unit, beam) and not (
            battle.rules.reserve_power and _charged(battle, unit) >= 1):
        return (f"{RULE} tractor beam {beam} is not powered this turn (1 energy a beam at "
                "Energy Allocation; H7.2 reserve power: no charged battery or rule off)")
    return None


def attach_blockers(battle: Battle, unit: int, beam: int,
                    targets: np.ndarray | list[int]) -> list[str | None]:
    """Per target unit row, the rule forbidding ``beam`` of ``unit`` to attach to it now."""
    why = beam_blocker(battle, unit, beam)
    if why is not None:
        return [why] * len(targets)
    st = battle.state
    out: list[str | None] = []
    for t in targets:
        t = int(t)
        kind = int(st.kind[t])
        if st.status[t] != ACTIVE:
            out.append(f"{RULE} the target is not in play")
        elif kind == K_PLASMA:
            out.append(f"{RULE} a tractor beam never holds a plasma torpedo")
        elif kind == K_SHIP:
            out.append(f"{RULE} no tractor on a starship in CTH (freighters, drones and "
                       "shuttles only)")
        elif kind == K_MONSTER and (crack := kill_methods.tractor_blocker(battle, unit)):
            out.append(crack)  # (SCENARIOS §2.8 result 2)
        elif kind not in TOWABLE and kind != K_MONSTER:
            out.append(f"{RULE} tractors hold freighters, drones and shuttles only")
        elif kind == K_DRONE and st.side[t] == st.side[unit]:
            out.append(f"{RULE} a tractor beam never holds its own side's seeking weapons")
        elif hexmap.distance_np(st.x[unit], st.z[unit], st.x[t], st.z[t]) > 1:
            out.append(f"{RULE} tractor range is the same or an adjacent hex")
        elif st.tractor_holder[t] == unit:
            out.append(f"{RULE} this ship already holds {battle.unit_ids[t]}")
        else:
            out.append(None)
    return out


def release_blocker(battle: Battle, unit: int, beam: int) -> str | None:
    """Why ``beam`` may not release now, or None (it must hold something; impulse step)."""
    st = battle.state
    if not battle.rules.tractors:
        return f"{RULE} tractor beams are not in use in this scenario (rules.tractors)"
    if not 0 <= beam < int(battle.tractor_beams[unit]) or st.tractor_link[unit, beam] < 0:
        return f"{RULE} tractor beam {beam} holds nothing to release"
    if st.impulse == 0:
        return f"{RULE} tractors release in the Tractor Beams step of an impulse"
    return None


def validate(battle: Battle, unit: int, order: Orders, name: str) -> None:
    """Raise ``IllegalOrderError`` for a tractor order the rules forbid (the masks' predicates)."""
    st = battle.state
    if not isinstance(order.tractor, dict):
        raise IllegalOrderError(name, "tractor", order.tractor, f"{RULE} beam -> target or -1")
    for beam, target in order.tractor.items():
        comp = f"tractor[{beam}]"
        if isinstance(target, bool) or not isinstance(target, (int, np.integer)):
            raise IllegalOrderError(name, comp, target, f"{RULE} a unit row or -1 (release)")
        if target == RELEASE:
            why = release_blocker(battle, unit, int(beam))
        elif 0 <= target < len(st.kind):
            why = attach_blockers(battle, unit, int(beam), [int(target)])[0]
        else:
            why = "no such target unit"
        if why is not None:
            value = "release" if target == RELEASE else (
                battle.unit_ids[target] if 0 <= target < len(st.kind) else target)
            raise IllegalOrderError(name, comp, value, why)


# ---------------------------------------------------------------------- the step


def tractor_step(battle: Battle, orders: dict[int, Orders]) -> None:
    """(B2.0 advanced sequence, G7.0) Tractor Beams step: releases, then attachments in unit
    order; a second ship taking hold of a held unit breaks both links (contest)."""
    for u in sorted(orders):
        for beam, target in sorted(orders[u].tractor.items()):
            if target == RELEASE and battle.state.tractor_link[u, beam] >= 0:
                release(battle, u, int(beam), "released")
    for u in sorted(orders):
        for beam, target in sorted(orders[u].tractor.items()):
            if target != RELEASE:
                attach(battle, u, int(beam), int(target))


def attach(battle: Battle, unit: int, beam: int, target: int) -> None:
    """Take hold of ``target`` (legality checked by ``validate``); contest a held unit."""
    st = battle.state
    if attach_blockers(battle, unit, beam, [target])[0] is not None:
        return  # changed since the orders (another attachment of this step)
    reserve = 0
    if needs_reserve(battle, unit, beam):  # (H7.2) one battery powers the beam to turn end
        left = reserve_power.discharge(
            reserve_power.Batteries(int(st.boxes[unit, Box.BATTERY]), _charged(battle, unit)),
            1, reserve_power.ReserveUse.TRACTOR)
        st.batteries[unit] = left.charged
        st.tractor_powered[unit] = beam + 1
        reserve = 1
        battle.log(ev.ReserveDischarged(st.turn, st.impulse, battle.unit_ids[unit],
                                        f"tractor:{beam}", 1, left.charged))
    st.tractor_used_turn[unit, beam] = st.turn
    holder = int(st.tractor_holder[target])
    if holder >= 0:  # (G7.0) contested: both links break, both beams done for the turn
        other = int(np.flatnonzero(st.tractor_link[holder] == target)[0])
        release(battle, holder, other, "contested")
        st.tractor_used_turn[holder, other] = st.turn
        st.tractor_released_at[unit, beam] = st.absolute_impulse
        battle.log(ev.TractorReleased(st.turn, st.impulse, battle.unit_ids[unit], beam,
                                      battle.unit_ids[target], "contested"))
        return
    st.tractor_link[unit, beam] = target
    st.tractor_holder[target] = unit
    battle.log(ev.TractorAttached(st.turn, st.impulse, battle.unit_ids[unit], beam,
                                  battle.unit_ids[target], reserve))
    if int(st.kind[target]) == K_MONSTER:  # (SCENARIOS §2.8 result 2, PROPOSAL [P-113]) the link
        kill_methods.struck_by(battle, target, kill_methods.Method.TRACTOR, unit)  # kills
        release(battle, unit, beam, "the Planet Killer was destroyed")
        return
    recompute_speed(battle, unit)


def release(battle: Battle, unit: int, beam: int, reason: str) -> None:
    """End ``beam``'s link; the released unit goes on at its own speed (G7.0)."""
    st = battle.state
    target = int(st.tractor_link[unit, beam])
    if target < 0:
        return
    st.tractor_link[unit, beam] = -1
    st.tractor_holder[target] = -1
    st.tractor_released_at[unit, beam] = st.absolute_impulse
    battle.log(ev.TractorReleased(st.turn, st.impulse, battle.unit_ids[unit], beam,
                                  battle.unit_ids[target], reason))
    recompute_speed(battle, unit)


def freighters_towed(battle: Battle, unit: int) -> int:
    """Freighters ``unit`` holds (each adds 1/3 to its move cost, CTH-DATA §7.3)."""
    st = battle.state
    held = st.tractor_link[unit][st.tractor_link[unit] >= 0]
    return int(np.sum(st.kind[held] == K_FREIGHTER))


def towing_speed(move_warp: int, impulse_point: int, move_cost: Fraction, towed: int) -> int:
    """(CTH-DATA §7.3) floor(warp for movement / (cost + towed/3)) + the impulse point."""
    return int(math.floor(Fraction(move_warp) / (move_cost + TOWING_COST * towed))) \
        + impulse_point


def recompute_speed(battle: Battle, unit: int) -> None:
    """Set ``unit``'s speed for its freighters in tow, at once (CTH-DATA §7.3)."""
    st = battle.state
    ship = battle.ship_classes[unit]
    if ship is None or int(st.kind[unit]) != K_SHIP or ship.move_cost is None:
        return
    base = int(st.tractor_base_speed[unit])
    towed = freighters_towed(battle, unit)
    speed = base
    if towed:
        warp, imp = energy_form.movement_cost(battle, unit, base)
        cost = (energy_form.CADET_AMONG_FULL_MOVE_COST
                if energy_switches.cadet_among_full(battle, unit) else Fraction(ship.move_cost))
        speed = min(base, towing_speed(warp, imp, cost, towed))
    if speed != int(st.speed[unit]):
        st.speed[unit] = speed
        battle.log(ev.SpeedSet(st.turn, st.impulse, battle.unit_ids[unit], speed))


# ---------------------------------------------------------------------- turn, movement


def start_turn(battle: Battle) -> None:
    """After Energy Allocation: the speed paid for is the towing base; links on beams not
    powered lapse (G7.0); towers' speeds are recomputed."""
    st = battle.state
    st.tractor_base_speed[:] = st.speed
    for u in np.flatnonzero((st.tractor_link >= 0).any(axis=1)):
        u = int(u)
        for beam in np.flatnonzero(st.tractor_link[u] >= 0):
            if beam >= powered(battle, u):
                release(battle, u, int(beam), "lapsed: beam not powered this turn")
        recompute_speed(battle, u)


def check_links(battle: Battle) -> None:
    """Release links whose holder or held unit left play, or whose beam was destroyed (box
    loss: down to the working beams)."""
    st = battle.state
    for u in np.flatnonzero((st.tractor_link >= 0).any(axis=1)):
        u = int(u)
        for beam in np.flatnonzero(st.tractor_link[u] >= 0):
            t = int(st.tractor_link[u, beam])
            if st.status[u] != ACTIVE or st.status[t] != ACTIVE:
                release(battle, u, int(beam), "out of play")
            elif beam >= working(battle, u):
                release(battle, u, int(beam), "beam destroyed")


def tow(battle: Battle) -> None:
    """(G7.0) After Move Ships: every held unit takes its holder's hex step (map-relative);
    a holder that left the map takes its held units with it, and a unit towed off the map
    leaves it (``st.towed_off_by``)."""
    st = battle.state
    for t in np.flatnonzero(st.tractor_holder >= 0):
        t = int(t)
        h = int(st.tractor_holder[t])
        if st.status[t] != ACTIVE:
            continue
        src = battle.label(t)
        facing = hexmap.DIRECTION_LETTERS[int(st.facing[t])]
        if st.status[h] == DISENGAGED:
            _towed_off(battle, h, t, src, facing)
            continue
        dx, dz = int(st.x[h] - st.prev_x[h]), int(st.z[h] - st.prev_z[h])
        if dx == 0 and dz == 0:
            continue
        nx, nz = int(st.x[t]) + dx, int(st.z[t]) + dz
        if not battle.in_area(nx, nz):
            _towed_off(battle, h, t, src, facing)
            continue
        st.x[t], st.z[t] = nx, nz
        battle.log(ev.Moved(st.turn, st.impulse, battle.unit_ids[t], src, battle.label(t),
                            facing, 0))
    check_links(battle)


def _towed_off(battle: Battle, holder: int, unit: int, src: str, facing: str) -> None:
    st = battle.state
    st.status[unit] = DISENGAGED
    st.towed_off_by[unit] = int(st.side[holder])
    battle.log(ev.LeftMap(st.turn, st.impulse, battle.unit_ids[unit], src, facing))
