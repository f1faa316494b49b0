"""Tractor beams in compiled code (``engine.tractors``, G7.0; CTH-DATA §8.3, §7.3).

``tractor_tables(setup)`` builds ``TractorTables`` (``on`` False where ``rules.tractors`` is
off: ``procedure.advance`` then calls nothing here). State (``BatchState``, as the reference's):
``tractor_link`` (B, U, NB) the unit each beam holds, ``tractor_holder`` (B, U),
``tractor_used_turn`` / ``tractor_released_at`` per beam, ``tractor_powered`` (B, U) the beams
paid this turn, ``tractor_base_speed`` (B, U) the speed paid for (the towing base) and
``towed_off_by`` (B, U) the side that towed a unit off the map. Orders:
``BatchOrders.tractor[b, NB * u + beam]`` the target row, ``NO_ORDER`` none, ``RELEASE``.

Rules applied (each as ``engine.tractors``):

* energy (``pay``, called by ``compiled.energy`` at priority 5c of the standard form, after
  damage control and reinforcement): 1 a working beam, each whole or unpaid
  (``EnergyShortfall`` "tractor"); a ship the form does not govern has every working beam
  powered (G7.0, PROPOSAL [P-107]);
* the Tractor Beams step (``tractor_step``, after Cloak/Uncloak, before Launch Seeking
  Weapons, B2.0 advanced sequence): releases, then attachments in unit and beam order; a beam
  attaches once a turn, not within 8 impulses of its release, to a freighter, drone (not its
  own side's) or shuttle in the same or an adjacent hex (``beam_free``, ``target_open``); a
  second ship taking hold of a held unit breaks both links, both beams spent for the turn
  (contest, G7.0);
* towing (CTH-DATA §7.3, ``recompute_speed``): the holder's speed at once
  floor(warp paid for movement / (move cost + 1/3 per freighter held)) + the impulse point,
  never above the speed paid for (PROPOSAL [P-108]);
* the turn (``start_turn``, after Energy Allocation): the speed paid for is the towing base,
  links on beams not powered lapse;
* movement (``tow``, after Move Ships): a held unit takes its holder's hex step (map
  relative); towed off the map it leaves play with ``towed_off_by`` = the holder's side;
* End of Impulse (``check_links``): links of units out of play or on destroyed beams (the
  standard DAC's tractor boxes) end. A held unit does not move by itself
  (``movement._is_mover_a``) and a held drone never strikes (``seeking_impacts``).

The env side (``observe.extras``): the ``tractor[b]`` masks (0 hold, 1 release, k + 1 attach to
slot k; ``components.Tractor``) and the ``tractors`` rule features; ``actions.decode_action``
writes the orders (``decode``). The monster (SCENARIOS §2.8 result 2, PROPOSAL [P-113]): a
beam attaches to it once the ship's side found kill method 2; the link destroys it
(``compiled.kill_methods``).
Not ported (``tractor_tables`` refuses; docs/compiled.md): reserve power for a beam (H7.2), a
PPD or ESG in play. Beside small craft a held craft does not move by itself.
"""

from __future__ import annotations

from collections import namedtuple
from fractions import Fraction

import numba as nb
import numpy as np

from sfb_env.compiled import event_codes, kill_methods
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.purse import log_shortfall, pay
from sfb_env.engine import energy_form
from sfb_env.engine import tractors as ref
from sfb_env.engine.dac import DacBox
from sfb_env.engine.types import (
    ACTIVE,
    DISENGAGED,
    K_DRONE,
    K_FREIGHTER,
    K_MONSTER,
    K_SHIP,
    K_SHUTTLE,
    Box,
)

RELEASE = -2  # ``BatchOrders.tractor``: release what the beam holds (layout.TRACTOR_RELEASE)
REATTACH = ref.REATTACH_IMPULSES  # (G7.0) not again within 8 impulses of a release
SCALE_BEAMS = 3.0  # (rule_features.TRACTOR_BEAMS_SCALE) the most beams on a sheet
SCALE_TOWED = 4.0  # (rule_features.TOWED_SCALE) scenario 8's four freighters
_TRACTOR_BOX = int(DacBox.TRACTOR)
_IMPULSE = int(Box.IMPULSE)
_MAX_IMPULSE = energy_form.MAX_IMPULSE_TO_MOVEMENT  # (B3.0 line 14) one impulse point
ITEM_TRACTOR = event_codes.word("item", "tractor")
ATTACHED = event_codes.CODE["TractorAttached"]
RELEASED = event_codes.CODE["TractorReleased"]
SPEED_SET = event_codes.CODE["SpeedSet"]
MOVED = event_codes.CODE["Moved"]
LEFT_MAP = event_codes.CODE["LeftMap"]
WHY_RELEASED = event_codes.word("reason", "released")
WHY_CONTESTED = event_codes.word("reason", "contested")
WHY_LAPSED = event_codes.word("reason", "lapsed: beam not powered this turn")
WHY_GONE = event_codes.word("reason", "out of play")
WHY_BEAM = event_codes.word("reason", "beam destroyed")
WHY_MONSTER_KILLED = event_codes.word("reason", "the Planet Killer was destroyed")

TractorTables = namedtuple("TractorTables", (
    "on",  # bool rules.tractors
    "beams",  # (U,) int64 tractor beams on each sheet (``setup.tractor_beams``)
    "std_dac",  # bool: working beams are the standard DAC's tractor boxes left (D4.21)
    "form_pays",  # (U,) bool: the standard form pays the unit's beams (else all powered)
    "move_num", "move_den",  # (U,) int64 the move cost (CTH-DATA §7.3), den 0: no towing speed
    "frac",  # bool (B3.2) fractional accounting: movement's warp exact
))


def tractor_tables(setup) -> TractorTables:
    """The tractor kernels' tables of ``setup``; raises ``NotImplementedError`` on what is not
    ported (see the module docstring)."""
    rules = setup.rules
    n = len(setup.unit_ids)
    on = bool(rules.tractors)
    if on:
        for flag, why in (("reserve_power", "reserve power powering a beam (H7.2)"),
                          ("ppd_in_play", "a PPD (E11)"), ("esg_in_play", "an ESG (G23)")):
            if getattr(rules, flag):
                raise NotImplementedError(f"compiled tractors (G7.0): beside {why} not ported")
    st = setup.start_state
    move_num = np.zeros(n, np.int64)
    move_den = np.zeros(n, np.int64)
    form_pays = np.zeros(n, np.bool_)
    for u, ship in enumerate(setup.ship_classes):
        form_pays[u] = bool(rules.standard_energy and rules.energy_form  # (governed)
                            and st.controllers[u] == "agent" and int(st.kind[u]) == K_SHIP)
        if ship is None or int(st.kind[u]) != K_SHIP or ship.move_cost is None:
            continue
        cost = Fraction(ship.move_cost)  # (energy_form.move_cost; SCENARIOS #12 a cadet 1/2)
        if rules.standard_energy and ship.kind == "cadet":
            cost = Fraction(energy_form.CADET_AMONG_FULL_MOVE_COST)
        move_num[u], move_den[u] = cost.numerator, cost.denominator
    beams = np.asarray(setup.tractor_beams, np.int64).copy() if on else np.zeros(n, np.int64)
    return TractorTables(on=on, beams=beams, std_dac=rules.damage == "standard_dac",
                         form_pays=form_pays, move_num=move_num, move_den=move_den,
                         frac=bool(rules.fractional_accounting))


# ---------------------------------------------------------------------- predicates


@nb.njit(cache=True, inline="always")
def working(dac_boxes, beams, std_dac, b: int, u: int) -> int:
    """(tractors.working) Undestroyed beams: the standard DAC's tractor boxes left (D4.21)."""
    n = beams[u]
    if n and std_dac:
        return min(n, dac_boxes[b, u, _TRACTOR_BOX])
    return n


@nb.njit(cache=True, inline="always")
def powered(tractor_powered, dac_boxes, captured_by, beams, form_pays, std_dac, b: int,
            u: int) -> int:
    """(tractors.powered) Beams powered this turn (every working beam where no form pays)."""
    w = working(dac_boxes, beams, std_dac, b, u)
    if form_pays[u] and captured_by[b, u] < 0:  # (a captured ship has no form, D7.0)
        return min(tractor_powered[b, u], w)
    return w


@nb.njit(cache=True, inline="always")
def beam_free(s, beams, form_pays, std_dac, b: int, u: int, beam: int, now: int) -> bool:
    """(tractors.beam_blocker is None) ``beam`` of ``u`` may attach now: the ship in play, an
    impulse step, the beam working, holding nothing, unused this turn, not released within 8
    impulses, powered (no reserve power: refused by ``tractor_tables``)."""
    if s.status[b, u] != ACTIVE or beam >= beams[u] or s.impulse[b] == 0:
        return False
    if beam >= working(s.dac_boxes, beams, std_dac, b, u):
        return False
    if s.tractor_link[b, u, beam] >= 0 or s.tractor_used_turn[b, u, beam] == s.turn[b]:
        return False
    if now - s.tractor_released_at[b, u, beam] < REATTACH:
        return False
    return beam < powered(s.tractor_powered, s.dac_boxes, s.captured_by, beams, form_pays,
                          std_dac, b, u)


@nb.njit(cache=True, inline="always")
def target_open(s, b: int, u: int, t: int) -> bool:
    """(tractors.attach_blockers, the target's part) ``t`` in play, a freighter, a drone of the
    other side or a shuttle (never plasma or a starship), in the same or an adjacent hex, not
    already held by ``u``."""
    if s.status[b, t] != ACTIVE:
        return False
    k = s.kind[b, t]
    if k == K_MONSTER:  # (SCENARIOS §2.8 result 2, PROPOSAL [P-113]) held only at the crack
        if not kill_methods.known(s.kill_methods, b, s.side[b, u], kill_methods.TRACTOR):
            return False  # research found (kill_methods.tractor_blocker)
    elif k not in (K_FREIGHTER, K_DRONE, K_SHUTTLE):
        return False
    if k == K_DRONE and s.side[b, t] == s.side[b, u]:
        return False
    dx = s.x[b, t] - s.x[b, u]
    dz = s.z[b, t] - s.z[b, u]
    if max(max(abs(dx), abs(dz)), abs(dx + dz)) > 1:
        return False
    return s.tractor_holder[b, t] != u


@nb.njit(cache=True, inline="always")
def release_open(s, beams, b: int, u: int, beam: int) -> bool:
    """(tractors.release_blocker is None) the beam holds something, in an impulse step."""
    return beam < beams[u] and s.tractor_link[b, u, beam] >= 0 and s.impulse[b] != 0


# ---------------------------------------------------------------------- energy


@nb.njit(cache=True, inline="always")
def pay_beams(s, et, b: int, u: int, p, beams, std_dac) -> int:
    """(tractors.pay, priority 5c of the standard form) 1 energy a working beam from the
    purse ``p``; returns the energy not paid (``EnergyShortfall`` "tractor")."""
    s.tractor_powered[b, u] = 0
    short = 0
    for _ in range(working(s.dac_boxes, beams, std_dac, b, u)):
        if pay(p, 1, False, True):
            s.tractor_powered[b, u] += 1
        else:
            short += 1
    if short:
        log_shortfall(s, et, b, u, ITEM_TRACTOR, short)
    return short


# ---------------------------------------------------------------------- links and speed


@kernel(_nrt=False, error_model="numpy")
def recompute_speed(s, tt, b: int, u: int) -> None:
    """(tractors.recompute_speed, CTH-DATA §7.3) ``u``'s speed for its freighters in tow:
    floor(W / (cost + towed / 3)) + the impulse point, W the warp paid for the base speed's
    movement (rounded up a line, exact under B3.2); at most the base."""
    den = tt.move_den[u]
    if den == 0:
        return
    base = s.tractor_base_speed[b, u]
    towed = 0
    for k in range(s.tractor_link.shape[2]):
        t = s.tractor_link[b, u, k]
        if t >= 0 and s.kind[b, t] == K_FREIGHTER:
            towed += 1
    speed = base
    if towed:
        num = tt.move_num[u]
        imp_pt = min(_MAX_IMPULSE, s.boxes[b, u, _IMPULSE], base)
        hexes = base - imp_pt
        if tt.frac:  # (B3.2) W = hexes * num / den exactly
            q = (3 * num * hexes) // (3 * num + towed * den)
        else:  # W rounded up to a whole point
            warp = (hexes * num + den - 1) // den
            q = (3 * den * warp) // (3 * num + towed * den)
        speed = min(base, q + imp_pt)
    if speed != s.speed[b, u]:
        s.speed[b, u] = speed
        r = event_codes.begin(s.ev, s.ev_count, b, SPEED_SET, s.turn[b], s.impulse[b])
        s.ev[b, r, 3] = u
        s.ev[b, r, 4] = speed


@kernel(_nrt=False, error_model="numpy")
def release(s, tt, b: int, u: int, beam: int, reason: int, now: int) -> None:
    """(tractors.release) End ``beam``'s link; the released unit goes on at its own speed."""
    t = s.tractor_link[b, u, beam]
    if t < 0:
        return
    s.tractor_link[b, u, beam] = -1
    s.tractor_holder[b, t] = -1
    s.tractor_released_at[b, u, beam] = now
    _released_event(s, b, u, beam, t, reason)
    recompute_speed(s, tt, b, u)


@nb.njit(cache=True, inline="always")
def _released_event(s, b, u, beam, t, reason):
    r = event_codes.begin(s.ev, s.ev_count, b, RELEASED, s.turn[b], s.impulse[b])
    s.ev[b, r, 3] = u
    s.ev[b, r, 4] = beam
    s.ev[b, r, 5] = t
    s.ev[b, r, 6] = reason


@kernel(_nrt=False, error_model="numpy")
def tractor_step(s, tt, b: int, order, ipt: int) -> None:
    """(tractors.tractor_step; B2.0 advanced sequence, G7.0) The Tractor Beams step: the
    releases, then the attachments, in unit and beam order (``order``: ``BatchOrders.tractor``)."""
    n_b = s.tractor_link.shape[2]
    now = (s.turn[b] - 1) * ipt + s.impulse[b]
    for u in range(s.kind.shape[1]):
        for beam in range(n_b):
            if order[b, n_b * u + beam] == RELEASE and s.tractor_link[b, u, beam] >= 0:
                release(s, tt, b, u, beam, WHY_RELEASED, now)
    for u in range(s.kind.shape[1]):
        for beam in range(n_b):
            t = order[b, n_b * u + beam]
            if t >= 0:
                _attach(s, tt, b, u, beam, t, now)


@nb.njit(cache=True, inline="always")
def _attach(s, tt, b, u, beam, t, now):
    """(tractors.attach) Take hold of ``t`` (an order no longer open is dropped); a held unit is
    contested: both links break, both beams spent for the turn (G7.0)."""
    if not (beam_free(s, tt.beams, tt.form_pays, tt.std_dac, b, u, beam, now)
            and target_open(s, b, u, t)):
        return
    s.tractor_used_turn[b, u, beam] = s.turn[b]
    h = s.tractor_holder[b, t]
    if h >= 0:
        other = 0
        while s.tractor_link[b, h, other] != t:
            other += 1
        release(s, tt, b, h, other, WHY_CONTESTED, now)
        s.tractor_used_turn[b, h, other] = s.turn[b]
        s.tractor_released_at[b, u, beam] = now
        _released_event(s, b, u, beam, t, WHY_CONTESTED)
        return
    s.tractor_link[b, u, beam] = t
    s.tractor_holder[b, t] = u
    r = event_codes.begin(s.ev, s.ev_count, b, ATTACHED, s.turn[b], s.impulse[b])
    s.ev[b, r, 3] = u
    s.ev[b, r, 4] = beam
    s.ev[b, r, 5] = t
    s.ev[b, r, 6] = 0  # (H7.2) no battery: reserve power is refused
    if s.kind[b, t] == K_MONSTER:  # (SCENARIOS §2.8 result 2, PROPOSAL [P-113]) the link kills
        kill_methods.struck_by(s.status, s.kind, s.side, s.kill_methods, s.ev, s.ev_count,
                               s.turn[b], s.impulse[b], b, t, kill_methods.TRACTOR, u)
        release(s, tt, b, u, beam, WHY_MONSTER_KILLED, now)
        return
    recompute_speed(s, tt, b, u)


@kernel(_nrt=False, error_model="numpy")
def start_turn(s, tt, b: int, ipt: int) -> None:
    """(tractors.start_turn, after Energy Allocation) The speed paid for is the towing base;
    links on beams not powered lapse (G7.0); the towers' speeds are set."""
    now = (s.turn[b] - 1) * ipt + s.impulse[b]
    n_b = s.tractor_link.shape[2]
    for u in range(s.kind.shape[1]):
        s.tractor_base_speed[b, u] = s.speed[b, u]
    for u in range(s.kind.shape[1]):
        holds = False
        for beam in range(n_b):
            holds = holds or s.tractor_link[b, u, beam] >= 0
        if not holds:
            continue
        n_pow = powered(s.tractor_powered, s.dac_boxes, s.captured_by, tt.beams, tt.form_pays,
                        tt.std_dac, b, u)
        for beam in range(n_b):
            if s.tractor_link[b, u, beam] >= 0 and beam >= n_pow:
                release(s, tt, b, u, beam, WHY_LAPSED, now)
        recompute_speed(s, tt, b, u)


@kernel(_nrt=False, error_model="numpy")
def check_links(s, tt, b: int, ipt: int) -> None:
    """(tractors.check_links) Release the links whose holder or held unit left play, or whose
    beam was destroyed (down to the working beams)."""
    now = (s.turn[b] - 1) * ipt + s.impulse[b]
    for u in range(s.kind.shape[1]):
        for beam in range(s.tractor_link.shape[2]):
            t = s.tractor_link[b, u, beam]
            if t < 0:
                continue
            if s.status[b, u] != ACTIVE or s.status[b, t] != ACTIVE:
                release(s, tt, b, u, beam, WHY_GONE, now)
            elif beam >= working(s.dac_boxes, tt.beams, tt.std_dac, b, u):
                release(s, tt, b, u, beam, WHY_BEAM, now)


@kernel(_nrt=False, error_model="numpy")
def tow(s, tt, mt, b: int) -> None:
    """(tractors.tow, G7.0) After Move Ships: each held unit takes its holder's hex step (map
    relative, facing kept); a holder that left the map, or a step off it, takes the held unit
    off (``LeftMap``, ``towed_off_by``); then ``check_links``."""
    for t in range(s.kind.shape[1]):
        h = s.tractor_holder[b, t]
        if h < 0 or s.status[b, t] != ACTIVE:
            continue
        sx, sz = s.x[b, t], s.z[b, t]
        if s.status[b, h] == DISENGAGED:
            _towed_off(s, b, h, t)
            continue
        dx, dz = s.x[b, h] - s.prev_x[b, h], s.z[b, h] - s.prev_z[b, h]
        if dx == 0 and dz == 0:
            continue
        nx, nz = sx + dx, sz + dz
        ix, iz = nx - mt.area_x0, nz - mt.area_z0
        if not (0 <= ix < mt.area.shape[0] and 0 <= iz < mt.area.shape[1] and mt.area[ix, iz]):
            _towed_off(s, b, h, t)
            continue
        s.x[b, t] = nx
        s.z[b, t] = nz
        r = event_codes.begin(s.ev, s.ev_count, b, MOVED, s.turn[b], s.impulse[b])
        s.ev[b, r, 3] = t
        s.ev[b, r, 4] = sx
        s.ev[b, r, 5] = sz
        s.ev[b, r, 6] = nx
        s.ev[b, r, 7] = nz
        s.ev[b, r, 8] = s.facing[b, t]  # turned, slipped: 0
    check_links(s, tt, b, mt.ipt)


@nb.njit(cache=True, inline="always")
def _towed_off(s, b, h, t):
    """(tractors._towed_off) ``t`` leaves the map in tow: disengaged, the holder's side."""
    s.status[b, t] = DISENGAGED
    s.towed_off_by[b, t] = s.side[b, h]
    r = event_codes.begin(s.ev, s.ev_count, b, LEFT_MAP, s.turn[b], s.impulse[b])
    s.ev[b, r, 3] = t
    s.ev[b, r, 4] = s.x[b, t]
    s.ev[b, r, 5] = s.z[b, t]
    s.ev[b, r, 6] = s.facing[b, t]


# ---------------------------------------------------------------------- the env side


@kernel(_nrt=False, error_model="numpy")
def observe_part(s, beams, form_pays, std_dac, b: int, u: int, live: bool, m_tractor: int,
                 n_tractor: int, k: int, slots, n_slots: int, now: int, m, out,
                 off: int) -> None:
    """The ``tractor[b]`` masks (``components.Tractor.mask``: 0 hold, 1 release, value j + 2
    attach to slot j) where ``live``, and the ``tractors`` rule features at ``off``
    (``rule_features._tractors``: beams holding and free, freighters towed, per slot held by
    us or by another)."""
    if live:
        at = m_tractor
        for beam in range(n_tractor):
            m[at] = 1
            m[at + 1] = release_open(s, beams, b, u, beam)
            free = beam_free(s, beams, form_pays, std_dac, b, u, beam, now)
            for j in range(k):
                m[at + 2 + j] = j < n_slots and free and target_open(s, b, u, slots[j])
            at += k + 2
    if off < 0:
        return
    holding = 0
    free_n = 0
    towed = 0
    for beam in range(beams[u]):
        t = s.tractor_link[b, u, beam]
        if t >= 0:
            holding += 1
        if beam_free(s, beams, form_pays, std_dac, b, u, beam, now):
            free_n += 1
    for beam in range(s.tractor_link.shape[2]):
        t = s.tractor_link[b, u, beam]
        if t >= 0 and s.kind[b, t] == K_FREIGHTER:
            towed += 1
    out[off] = holding / SCALE_BEAMS
    out[off + 1] = free_n / SCALE_BEAMS
    out[off + 2] = min(1.0, towed / SCALE_TOWED)
    for j in range(n_slots):
        h = s.tractor_holder[b, slots[j]]
        out[off + 3 + 2 * j] = 1.0 if h == u else 0.0
        out[off + 4 + 2 * j] = 1.0 if (h >= 0 and h != u) else 0.0


@kernel(_nrt=False, error_model="numpy")
def decode(action, c_tractor: int, n_tractor: int, beams_u: int, n_b: int, u: int, slots,
           b: int, order) -> None:
    """(components.Tractor.to_orders) ``tractor[b]`` values: 1 release, j + 2 attach to slot
    j, into ``order[b, n_b * u + beam]`` (the agent's real beams; padding is masked to 0)."""
    for beam in range(min(n_tractor, beams_u)):
        v = action[c_tractor + beam]
        if v == 1:
            order[b, n_b * u + beam] = RELEASE
        elif v > 1:
            order[b, n_b * u + beam] = slots[v - 2]
