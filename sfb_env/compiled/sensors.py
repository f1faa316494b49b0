"""Sensor Lock-On (D6, CTH-DATA §8.1; rule ``lock_on``) in compiled code: ``engine.sensors``,
``engine.sensor_ratings``, ``cloak.effective_range`` with a firer and ``knowledge.lock_on_to``.

* Ratings: a ship's sensor and scanner ratings are its tracks' best undestroyed box (D4.33):
  under the standard DAC read from ``dac_boxes`` (``compiled.std_dac`` destroys the tracks
  best-first), else the first box. The tables hold the rating by boxes left (``sensor_of``:
  -1 where the ship has no track, PROPOSAL [P-049]: cadet ships and freighters are always
  locked on; ``scanner_of``: 0 where none).
* ``lock_on_step`` (B2.0 advanced sequence, after Speed Determination and the energy form):
  each active ship or freighter with a sensor track locks on if a die is at most its sensor
  rating, no die at 6 (PROPOSAL [P-048]); ``LockOn``; a ship that fails loses its drones on
  the map (``Expired``).
* ``effective_range`` (D6, G13): fire at a fully cloaked target 2 x true + 5, else the true
  range, doubled without lock-on; the firer's scanner rating added. A cloaked ship struck by
  an ESG this impulse is not fully cloaked (G23.621).
* The masks and the observation (``observe_lock_on``, run in ``observe.extras``): a fire order
  beyond the weapon's range at the effective range is closed; a launcher of a ship without
  lock-on, a drone rack of a ship controlling its sensor rating in drones, and a launch at a
  fully cloaked ship are closed (``seeking.rack_blocker``, ``launch_blockers``); the
  ``lock_on`` block (``rule_features._lock_on``): ours, then per target slot its own lock-on
  and ours on it.

``sensor_tables(setup)`` gives the ``FireTables`` and ``ObserveTables`` fields; it refuses
lock-on beside scenario robots that fire (their fire orders are judged without it) and the
cadet cloak with an ESG (a revealed cloaked target would open a fire order the cadet range
closed; under the standard cloak ``cloak.fully_cloaked`` judges masks and fire alike).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from sfb_env.compiled import cloak, event_codes, shields
from sfb_env.compiled import dice as dice_mod
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine import dac, sensors
from sfb_env.engine.types import ACTIVE, EXPENDED, K_DRONE, K_FREIGHTER, K_SHIP

LOCK_ON = event_codes.CODE["LockOn"]
EXPIRED = event_codes.CODE["Expired"]
NO_LOCK_ON = event_codes.word("reason", "D6 its launcher has no lock-on")
AUTOMATIC = sensors.AUTOMATIC  # (D6) [P-048]
_SENSOR = int(dac.DacBox.SENSOR)
_SCANNER = int(dac.DacBox.SCANNER)


def _by_boxes_left(track, standard: bool, width: int, none: int) -> np.ndarray:
    """A track's rating by boxes left (0..width-1): ``dac.track_rating`` under the standard
    DAC, else the first box (the counts stay 0 then); ``none`` without a track."""
    out = np.full(width, none, dtype=np.int64)
    if not track:
        return out
    if not standard:
        out[:] = int(track[0])
        return out
    for k in range(len(track) + 1):
        out[k] = dac.track_rating(track, k)
    return out


def sensor_tables(setup) -> dict[str, object]:
    """``lock_on`` (bool), ``sensor_of`` and ``scanner_of`` ``(U, width)`` (the ratings by
    boxes left) for ``setup``; raises ``NotImplementedError`` on what is not ported."""
    rules = setup.rules
    on = bool(rules.lock_on)
    if on and "robot-ship" in setup.start_state.controllers:  # (the convoy freighters' fire:
        raise NotImplementedError(  # procedure._robot_fire judges the effective range)
            "compiled lock-on: the robot ship's fire under lock-on not ported")
    if on and rules.cloak == "cadet" and rules.esg_in_play:
        raise NotImplementedError("compiled lock-on: a cloak and an ESG together (G23.621)")
    standard = rules.damage == "standard_dac"
    ships = setup.ship_classes
    width = 1 + max([len(getattr(s, "sensor_track", ()) or ()) for s in ships if s] +
                    [len(getattr(s, "scanner_track", ()) or ()) for s in ships if s] + [0])
    sensor_of = np.full((len(ships), width), -1, dtype=np.int64)
    scanner_of = np.zeros((len(ships), width), dtype=np.int64)
    for u, ship in enumerate(ships):
        if ship is None:
            continue
        sensor_of[u] = _by_boxes_left(tuple(getattr(ship, "sensor_track", ()) or ()), standard,
                                      width, -1)
        if on:  # (sensor_ratings.scanner) 0 where the rule is off
            scanner_of[u] = _by_boxes_left(tuple(getattr(ship, "scanner_track", ()) or ()),
                                           standard, width, 0)
    return {"lock_on": on, "sensor_of": sensor_of, "scanner_of": scanner_of}


@nb.njit(cache=True, inline="always")
def fully_cloaked(cloaked, esg_struck_at, b, t, now):
    """(G13 cadet rule, G23.621) ``cloak.fully_cloaked``: cloaked and not struck by an ESG in
    this impulse (``now``: the absolute impulse)."""
    return cloaked[b, t] and esg_struck_at[b, t] != now


@nb.njit(cache=True, inline="always")
def _hidden(cloaked, esg_struck_at, announced_at, standard_cloak, b, t, now):
    """``cloak.fully_cloaked`` under either cloak rule (the standard one: past the fade-out)."""
    if standard_cloak:
        return cloak.fully_cloaked(cloaked, esg_struck_at, announced_at, b, t, now)
    return fully_cloaked(cloaked, esg_struck_at, b, t, now)


@nb.njit(cache=True, inline="always")
def effective_range(locked_on, cloaked, esg_struck_at, dac_boxes, scanner_of, b, owner, t,
                    rng, now):
    """(D6, G13) ``cloak.effective_range(battle, t, rng, owner)`` under lock-on: 2 x true + 5
    at a fully cloaked target, else the true range, doubled without lock-on; plus the firer's
    scanner rating."""
    if fully_cloaked(cloaked, esg_struck_at, b, t, now):
        out = 2 * rng + 5
    elif locked_on[b, owner]:
        out = rng
    else:
        out = 2 * rng  # (D6) no lock-on: true range x 2
    return out + scanner_of[owner, dac_boxes[b, owner, _SCANNER]]


@kernel(_nrt=False, error_model="numpy")
def lock_on_step(status, kind, launcher, locked_on, dac_boxes, dice, ev, ev_count, turn,
                 sensor_of, b):
    """(B2.0 Sensor Lock-On, D6) ``sensors.lock_on_step`` for battle ``b``: every active ship
    and freighter, in unit order."""
    for u in range(status.shape[1]):
        if status[b, u] != ACTIVE or (kind[b, u] != K_SHIP and kind[b, u] != K_FREIGHTER):
            continue
        rating = sensor_of[u, dac_boxes[b, u, _SENSOR]]
        if rating < 0:
            locked_on[b, u] = True  # (CTH-DATA §12.4) [P-049] no track
            continue
        die = 0 if rating >= AUTOMATIC else dice_mod.die(dice, b)
        locked_on[b, u] = die <= rating
        r = event_codes.begin(ev, ev_count, b, LOCK_ON, turn[b], 0)
        ev[b, r, 3] = u
        ev[b, r, 4] = rating
        ev[b, r, 5] = die
        ev[b, r, 6] = locked_on[b, u]
        if not locked_on[b, u]:  # (D6) its drones on the map are removed
            for d in range(status.shape[1]):
                if kind[b, d] == K_DRONE and status[b, d] == ACTIVE and launcher[b, d] == u:
                    status[b, d] = EXPENDED
                    r = event_codes.begin(ev, ev_count, b, EXPIRED, turn[b], 0)
                    ev[b, r, 3] = d
                    ev[b, r, 4] = NO_LOCK_ON


@kernel(_nrt=False, error_model="numpy")
def _controls_full(status, kind, launcher, sensor_of, dac_boxes, b, owner):
    """(D6, ``sensors.control_blocker``) ``owner`` controls its sensor rating in drones."""
    rating = sensor_of[owner, dac_boxes[b, owner, _SENSOR]]
    if rating < 0:
        return False
    flying = 0
    for d in range(status.shape[1]):
        if kind[b, d] == K_DRONE and status[b, d] == ACTIVE and launcher[b, d] == owner:
            flying += 1
    return flying >= rating


@kernel(_nrt=False, error_model="numpy")
def observe_lock_on(status, kind, launcher, locked_on, cloaked, esg_struck_at, announced_at,
                    standard_cloak, dac_boxes,
                    w_owner, w_type, w_max_range, x, z, sensor_of, scanner_of, racks, n_racks,
                    weapons, n_weapons, m_fire, off_weapons, weapon_size, usable, drone_rack,
                    off_lock_on, slots, n_slots, k, b, u, now, launch_size, mask, out):
    """Lock-on's part of agent (unit ``u``)'s mask and observation, after ``observe`` wrote
    them as without it (see the module docstring): only closes what lock-on forbids, and
    writes the ``lock_on`` block at ``off_lock_on``."""
    for i in range(n_racks):
        r = racks[i]
        if r < 0:
            continue
        owner = w_owner[b, r]
        at = i * launch_size  # (launch[r]: k + 1 values, 7 k + 1 with facings, FD1.2)
        blocked = not locked_on[b, owner] or (  # (D6) launch_blocker, control_blocker
            w_type[b, r] == drone_rack
            and _controls_full(status, kind, launcher, sensor_of, dac_boxes, b, owner))
        if blocked:
            out[off_weapons + i * weapon_size + usable] = 0.0
        for j in range(n_slots):
            if blocked or _hidden(cloaked, esg_struck_at, announced_at, standard_cloak, b,
                                  slots[j], now):
                mask[at + 1 + j] = 0  # (D6, G13) [P-050] no launch at a cloaked ship
    for i in range(n_weapons):
        w = weapons[i]
        if w < 0:
            continue
        owner = w_owner[b, w]
        at = m_fire + i * (k + 1)
        for j in range(n_slots):
            if mask[at + 1 + j]:
                t = slots[j]
                rng = shields.distance(x[b, owner], z[b, owner], x[b, t], z[b, t])
                if standard_cloak:  # (G13 standard rule) the fades
                    effective = cloak.effective_range(locked_on, cloaked, esg_struck_at,
                                                      announced_at, dac_boxes, scanner_of,
                                                      _SCANNER, True, b, owner, t, rng, now)
                else:
                    effective = effective_range(locked_on, cloaked, esg_struck_at, dac_boxes,
                                                scanner_of, b, owner, t, rng, now)
                if effective > w_max_range[b, w]:
                    mask[at + 1 + j] = 0  # (D6) beyond the chart at the effective range
    out[off_lock_on] = 1.0 if locked_on[b, u] else 0.0
    for j in range(n_slots):
        t = slots[j]
        out[off_lock_on + 1 + 2 * j] = 1.0 if locked_on[b, t] else 0.0
        ours = locked_on[b, u] and not _hidden(cloaked, esg_struck_at, announced_at,
                                               standard_cloak, b, t, now)
        out[off_lock_on + 2 + 2 * j] = 1.0 if ours else 0.0
