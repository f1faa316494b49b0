"""Scenario rules attached to single units (scenario unit fields; scenario 8 "Pirate Raid").

* ``arrives``: the unit enters the map later, at its scenario hex and facing, on impulse 1 of
  turn n (``{turn: n}``), or on the first turn whose die (rolled at the start of every turn
  from turn 1, ``battle.rng``) shows k (``{die: k}``; scenario 8 replays: "roll a die at the
  start of each turn - the defender arrives on the first 1"). Until then its status is
  ``NOT_ARRIVED``: not in play (no move, no fire, no target), but an agent from the start.
  Decision (DESIGN "Spaces and masks"): an agent that has not arrived stays in ``agents`` and
  every component of its action is masked to the no-op (the standing allocation at Energy
  Allocation, so the turn it arrives it flies at its standing speed and arming); the engine
  refuses any other order (``validate``).
* ``may_leave: false``: the unit never leaves the map voluntarily (scenario 8 freighters and
  defender). The maneuver mask closes moves off the map while another move is open; a move
  off the map that is still ordered (or the only one left) keeps the unit in its hex
  (``StayedOnMap``). A freighter captured by the other side (``st.captured_by``, engine.boarding)
  is flown by its captor and may leave.
* ``hold_fire_at``: unit kinds the unit may never fire or launch at (scenario 8: the defender
  never fires at freighters, captured or not).
* PROPOSAL [P-037] (SCENARIOS #8: "captured by boarding parties and flown off"): a captured one
  under the convoy robot heads for the nearest map edge (turn mode 1) and leaves the map.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import energy_form, energy_switches, standing_orders
from sfb_env.engine import events as ev
from sfb_env.engine.types import (
    ACTIVE,
    NOT_ARRIVED,
    IllegalOrderError,
    Maneuver,
    Orders,
    UnitKind,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

_DEFAULTS = {f.name: getattr(Orders(), f.name) for f in fields(Orders)}
_KIND_NAMES = {"ship": UnitKind.SHIP, "freighter": UnitKind.FREIGHTER, "drone": UnitKind.DRONE,
               "plasma": UnitKind.PLASMA, "fighter": UnitKind.FIGHTER,
               "shuttle": UnitKind.SHUTTLE}


def _spec(battle: Battle, unit: int):
    units = battle.scenario.units
    return units[unit] if unit < len(units) else None


def has_arrivals(battle: Battle) -> bool:
    """Whether a scenario unit enters the map later."""
    return any(getattr(s, "arrives", None) for s in battle.scenario.units)


def arrival_text(battle: Battle, unit: int) -> str:
    """When ``unit`` arrives, in words, for the masks' reasons."""
    how, n = _spec(battle, unit).arrives
    return f"on turn {n}" if how == "turn" else f"on the first turn a die rolls {n}"


def not_arrived(battle: Battle, unit: int) -> bool:
    """Whether ``unit`` has yet to enter the map."""
    return int(battle.state.status[unit]) == NOT_ARRIVED


def in_play_or_coming(battle: Battle, unit: int) -> bool:
    """An agent's unit stays in the env's ``agents`` while in play or still to arrive."""
    return int(battle.state.status[unit]) in (ACTIVE, NOT_ARRIVED)


def init_state(battle: Battle) -> dict[str, Any]:
    """Units arriving later start ``NOT_ARRIVED`` at their arrival hex (battle build).

    Returns the setup's ``hold_fire_kinds`` (U, N kinds) bool, the kinds each unit may never
    fire at, and ``may_leave`` (U,) bool."""
    st = battle.state
    n = len(st.kind)
    hold_fire_kinds = np.zeros((n, max(int(k) for k in UnitKind) + 1), dtype=bool)
    may_leave = np.ones(n, dtype=bool)
    for u, spec in enumerate(battle.scenario.units):
        for name in getattr(spec, "hold_fire_at", ()):
            hold_fire_kinds[u, int(_KIND_NAMES[name])] = True
        may_leave[u] = getattr(spec, "may_leave", True)
        if getattr(spec, "arrives", None):
            st.status[u] = NOT_ARRIVED
    return {"hold_fire_kinds": hold_fire_kinds, "may_leave": may_leave}


def arrivals(battle: Battle) -> None:
    """Start of a turn: units due this turn enter at their scenario hex and facing."""
    st = battle.state
    for u in np.flatnonzero(st.status == NOT_ARRIVED):
        u = int(u)
        how, n = _spec(battle, u).arrives
        # (SCENARIOS #8 replays) {die: k}: a die each turn from turn 1
        due = st.turn >= n if how == "turn" else int(battle.rng.integers(1, 7)) == n
        if not due:
            continue
        st.status[u] = ACTIVE
        st.prev_x[u], st.prev_z[u], st.prev_facing[u] = st.x[u], st.z[u], st.facing[u]
        battle.log(ev.UnitArrived(st.turn, 0, battle.unit_ids[u], battle.label(u),
                                  hexmap.DIRECTION_LETTERS[int(st.facing[u])]))


def not_arrived_rule(battle: Battle, unit: int) -> str:
    """The reason every choice but the no-op is closed to a unit that has not arrived."""
    return (f"the unit has not arrived yet (scenario arrives: {arrival_text(battle, unit)}): "
            "the no-op only")


def validate(battle: Battle, unit: int, order: Orders, name: str) -> None:
    """A unit that has not arrived may give only the no-op: no move, fire, launch or other
    action, and at Energy Allocation the standing allocation (``standing_orders.standing_speed``,
    ``standing_arm``, a full capacitor, every empty battery recharged, nothing else)."""
    if not not_arrived(battle, unit):
        return
    st = battle.state
    rule = not_arrived_rule(battle, unit)
    governed = energy_switches.governed(battle, unit)
    allocating = governed and energy_switches.allocation_open(battle)
    speed = (standing_orders.standing_speed(battle, unit)
             if governed and battle.speed_choice_open() else int(st.speed[unit]))
    # every component but the standing allocation must keep its default (no action)
    acts = {f.name: getattr(order, f.name) != _DEFAULTS[f.name] for f in fields(Orders)
            if f.name not in ("speed", "arm", "capacitor", "recharge", "reinforce")}
    acts["reinforce"] = any(order.reinforce.values())
    acts["speed"] = order.speed not in (None, speed)
    if governed:
        room = energy_form.capacitor_room(battle, unit) if allocating else 0
        empty = energy_form.empty_batteries(battle, unit) if allocating else 0
        acts["capacitor"] = order.capacitor not in (None, room)
        acts["recharge"] = order.recharge not in (None, empty)
        acts["arm"] = any(v != (standing_orders.standing_arm(battle, w) if allocating else 0)
                          for w, v in order.arm.items())
    for component, given in acts.items():
        if given:
            raise IllegalOrderError(name, component, "", rule)


def hold_fire(battle: Battle, shooter: int, targets: np.ndarray) -> np.ndarray:
    """Bool per target: ``shooter`` may never fire or launch at it (``hold_fire_at``)."""
    st = battle.state
    return battle.hold_fire_kinds[shooter, st.kind[np.asarray(targets, dtype=np.int64)]]


HOLD_FIRE_RULE = ("SCENARIOS #8 special: this unit may never fire at a {kind}, captured or "
                  "not (scenario hold_fire_at)")


def hold_fire_rule(battle: Battle, target: int) -> str:
    """The reason for a ``hold_fire`` refusal."""
    return HOLD_FIRE_RULE.format(kind=UnitKind(int(battle.state.kind[target])).name.lower())


def captured_by_enemy(battle: Battle, unit: int) -> bool:
    """Whether another side captured ``unit`` (D7.0, ``st.captured_by``, engine.boarding)."""
    captured = int(battle.state.captured_by[unit])
    return captured >= 0 and captured != int(battle.state.side[unit])


def leaves_voluntarily(battle: Battle, unit: int) -> bool:
    """Whether ``unit`` may not move off the map now (``may_leave: false``, unless captured by
    another side: a prize is flown off by its captor)."""
    if battle.may_leave[unit]:
        return False
    return not captured_by_enemy(battle, unit)


def exit_blockers(battle: Battle, unit: int, open_moves: list[Maneuver]) -> dict[Maneuver, str]:
    """Moves among ``open_moves`` that would take a unit that may not leave off the map, while
    another move stays open."""
    if not leaves_voluntarily(battle, unit):
        return {}
    out = {m: "SCENARIOS #8: this unit may not leave the map voluntarily"
           for m in open_moves if not battle.in_area(*destination(battle, unit, m))}
    return out if len(out) < len(open_moves) else {}


def destination(battle: Battle, unit: int, maneuver: Maneuver) -> tuple[int, int]:
    """The hex a move would enter (C3.1 turn then forward; C4.2 sideslip)."""
    st = battle.state
    turn = {Maneuver.TURN_LEFT: -1, Maneuver.TURN_RIGHT: 1}.get(maneuver, 0)
    slip = {Maneuver.SIDESLIP_LEFT: -1, Maneuver.SIDESLIP_RIGHT: 1}.get(maneuver, 0)
    x, z = hexmap.neighbor_np(st.x[unit], st.z[unit], (int(st.facing[unit]) + turn + slip) % 6)
    return int(x), int(z)


def edge_course(battle: Battle, unit: int) -> Maneuver:
    """PROPOSAL [P-037] (module docstring): a captured freighter's move toward the nearest map edge:
    of straight / turn left / turn right (turn mode 1), the one entering the hex nearest an
    edge (off the map is nearest), ties straight, then left."""
    area = battle.scenario.map_area
    best, best_d = Maneuver.STRAIGHT, None
    for m in (Maneuver.STRAIGHT, Maneuver.TURN_LEFT, Maneuver.TURN_RIGHT):
        x, z = destination(battle, unit, m)
        if not battle.in_area(x, z):
            d = -1
        else:
            col, row = hexmap.parse_label(battle.area_labels[(x, z)])
            d = min(col - area.first_column, area.last_column - col, row - area.first_row,
                    area.last_row - row)
        if best_d is None or d < best_d:
            best, best_d = m, d
    return best
