"""Scenario rules of single units in compiled code (``engine.unit_rules``; scenario 8, "Pirate
Raid"): the env side of ``hold_fire_at`` and ``may_leave: false``, and ``arrives``.

* ``hold_fire_at`` (``mask_part``): a unit never fires or launches at units of the listed kinds,
  captured or not (``direct_fire.target_codes`` HELD, ``seeking.launch_blockers``): its
  ``fire[w]`` and ``launch[r]`` slot values (and a launch's facing values, FD1.2) at such a
  unit are closed. The robots never hold fire (no robot lists kinds).
* ``may_leave: false`` (``mask_part``): the maneuver values that would take the unit off the
  map are closed while another move stays open (``unit_rules.exit_blockers``, not for a unit
  captured by another side); the move itself keeps such a unit on the map
  (``movement._move_unit_a``: ``StayedOnMap``).
* ``arrives`` (``arrivals``, at the start of a turn before Energy Allocation): a unit due this
  turn (``{turn: n}``; a die each turn from turn 1 for ``{die: k}``, the battle's dice) enters
  at its scenario hex and facing (``UnitArrived``); until then it is ``NOT_ARRIVED``, an agent
  whose every component is masked to its no-op (``observe``, ``actions.noop_action``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from sfb_env import hexmap
from sfb_env.compiled import dice, event_codes
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine.types import ACTIVE, NOT_ARRIVED, Maneuver

UNIT_ARRIVED = event_codes.CODE["UnitArrived"]
_STRAIGHT, _LEFT, _RIGHT = int(Maneuver.STRAIGHT), int(Maneuver.TURN_LEFT), int(
    Maneuver.TURN_RIGHT)
_SLIP_LEFT, _SLIP_RIGHT = int(Maneuver.SIDESLIP_LEFT), int(Maneuver.SIDESLIP_RIGHT)


def tables(setup) -> dict[str, np.ndarray]:
    """``hold_kinds`` (U, kinds) bool (``BattleSetup.hold_fire_kinds``), ``no_leave`` (U,) bool
    (not ``may_leave``), ``arrive_turn`` / ``arrive_die`` (U,) int64 (-1: none)."""
    n = len(setup.unit_ids)
    arrive_turn = np.full(n, -1, np.int64)
    arrive_die = np.full(n, -1, np.int64)
    for u, spec in enumerate(setup.scenario.units):
        how = getattr(spec, "arrives", None)
        if how:
            (arrive_turn if how[0] == "turn" else arrive_die)[u] = int(how[1])
    return {"hold_kinds": np.ascontiguousarray(setup.hold_fire_kinds, dtype=np.bool_),
            "no_leave": ~np.asarray(setup.may_leave, dtype=np.bool_),
            "arrive_turn": arrive_turn, "arrive_die": arrive_die}


@kernel(_nrt=False, error_model="numpy")
def arrivals(status, x, z, facing, prev_x, prev_z, prev_facing, dice_, ev, ev_count, turn: int,
             arrive_turn, arrive_die, b: int) -> None:
    """(unit_rules.arrivals) Start of a turn: each unit not arrived whose turn has come (or
    whose die shows its number, rolled each turn from turn 1) enters in its hex and facing."""
    for u in range(status.shape[1]):
        if status[b, u] != NOT_ARRIVED:
            continue
        if arrive_turn[u] >= 0:
            due = turn >= arrive_turn[u]
        else:  # (SCENARIOS #8 replays) {die: k}
            due = dice.roll(dice_, b, 1, 7) == arrive_die[u]
        if not due:
            continue
        status[b, u] = ACTIVE
        prev_x[b, u], prev_z[b, u], prev_facing[b, u] = x[b, u], z[b, u], facing[b, u]
        r = event_codes.begin(ev, ev_count, b, UNIT_ARRIVED, turn, 0)
        ev[b, r, 3] = u
        ev[b, r, 4] = x[b, u]
        ev[b, r, 5] = z[b, u]
        ev[b, r, 6] = facing[b, u]


@kernel(_nrt=False, error_model="numpy")
def mask_part(kind, side, captured_by, x, z, facing, hold_kinds, no_leave, racks, n_racks,
              weapons, n_weapons, m_fire, launch_size, k, facings, slots, n_slots, m_maneuver,
              n_maneuvers, first_column, last_column, first_row, last_row, odd_down, b, u,
              m) -> None:
    """``hold_fire_at`` and ``may_leave: false`` in the agent's mask ``m`` (see the module
    docstring): the fire and launch values at held kinds, then the moves off the map."""
    for j in range(n_slots):
        t = slots[j]
        if not hold_kinds[u, kind[b, t]]:
            continue
        at = 0
        for i in range(n_racks):  # launch[r]: slot j, and its six facings (FD1.2)
            if racks[i] >= 0:
                m[at + 1 + j] = 0
                if facings:
                    for f in range(6):
                        m[at + k + 6 * j + f + 1] = 0
            at += launch_size
        at = m_fire
        for i in range(n_weapons):
            if weapons[i] >= 0:
                m[at + 1 + j] = 0
            at += k + 1
    c = captured_by[b, u]
    if not no_leave[u] or (c >= 0 and c != side[b, u]):
        return
    open_ = 0
    off = 0
    for v in (_STRAIGHT, _LEFT, _RIGHT, _SLIP_LEFT, _SLIP_RIGHT):
        if v >= n_maneuvers or not m[m_maneuver + v]:
            continue
        open_ += 1
        if _off_map(x[b, u], z[b, u], facing[b, u], v, first_column, last_column, first_row,
                    last_row, odd_down):
            off += 1
    if off == 0 or off == open_:
        return
    for v in (_STRAIGHT, _LEFT, _RIGHT, _SLIP_LEFT, _SLIP_RIGHT):
        if v < n_maneuvers and m[m_maneuver + v] and _off_map(
                x[b, u], z[b, u], facing[b, u], v, first_column, last_column, first_row,
                last_row, odd_down):
            m[m_maneuver + v] = 0


_DX, _DZ = hexmap.DIR_DX, hexmap.DIR_DZ  # (by direction A..F)


@nb.njit(cache=True, inline="always")
def _off_map(x, z, f, v, first_column, last_column, first_row, last_row, odd_down) -> bool:
    """(unit_rules.destination) the hex move ``v`` enters (turn, or slip, then forward) lies
    off the play area (a rectangle of columns and rows)."""
    turn = -1 if v == _LEFT else (1 if v == _RIGHT else 0)
    slip = -1 if v == _SLIP_LEFT else (1 if v == _SLIP_RIGHT else 0)
    d = (f + turn + slip + 12) % 6
    nx, nz = x + _DX[d], z + _DZ[d]
    odd = nx & 1
    row = (nz + (nx + odd) // 2 if odd_down else nz + (nx - odd) // 2) + 1
    col = nx + 1
    return not (first_column <= col <= last_column and first_row <= row <= last_row)
