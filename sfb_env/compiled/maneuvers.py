"""Sideslip (C4), tactical maneuvers (C5) and the owner's drone launch facing (FD1.2) in
compiled code: the scenario rules ``sideslip``, ``tactical_maneuvers`` and ``launch_facing``
(cth-10, cth-12, cth-13).

Each kernel mirrors its reference function and takes only the arrays it needs; the hot
kernels call them behind a table flag (``ObserveTables.move_rules``,
``MoveTables.tactical_rule``), so battles without these rules pay one test:

* ``tactical_step``: ``engine.procedure._tactical_maneuvers`` (C1.3, last in Move Ships: a
  unit on TAC earns its warp maneuver, C5.231, C5.232, then rotates 60 degrees in place as
  ordered, C5.11, C5.21, C5.3; its turn and slip counts restart, C5.4; ``TacticalManeuver``);
  the move itself (a sideslip into the forward-left / -right hex, C4.2, C4.31, C4.32) is
  ``compiled.movement``'s and Speed Determination's TAC plot (C5.4, C5.11, C5.12) too;
* ``pay_tactical``: ``energy_allocation._pay_tactical`` (B3.0 line 14 for a TAC plot: each
  warp maneuver the warp energy of one hex, C5.22, the sublight one 1 impulse energy, C5.12; a
  standing plot warp no longer pays is lowered);
* ``mask``: the values ``observe`` leaves closed: ``maneuver`` 4..7 (``movement.
  maneuver_blockers``: the slip mode 1, C4.1; ``tactical_blocker``, C5.11, C5.231), the TAC
  plots after the speeds (``legality.tactical_plot_blockers``: C5.23, C1.42, C5.22, C5.12) and
  ``launch[r]``'s facing values (``seeking.facing_blocker``: FD1.2, the target in the drone's
  FA; in the target's hex only the launcher's facing; a plasma launcher none, [P-067]);
* ``decode``: those values into ``BatchOrders`` (``Launch.to_orders``: ``launch_facing``;
  ``Speed.to_orders``: ``tactical`` and the warp maneuvers as the speed).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from sfb_env import hexmap
from sfb_env.compiled import event_codes
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine.energy_form import SUBLIGHT_TAC_IMPULSE
from sfb_env.engine.types import (
    ACTIVE,
    MAX_WARP_TACTICAL,
    Box,
    Maneuver,
    WeaponType,
)

TACTICAL_MANEUVER = event_codes.CODE["TacticalManeuver"]
ENERGY_SHORTFALL = event_codes.CODE["EnergyShortfall"]
SPEED_SET = event_codes.CODE["SpeedSet"]
PAID_WARP = event_codes.word("paid_with", "warp")
PAID_SUBLIGHT = event_codes.word("paid_with", "sublight")
ITEM_TACTICAL = event_codes.word("item", "tactical")
SLIP_LEFT, SLIP_RIGHT = int(Maneuver.SIDESLIP_LEFT), int(Maneuver.SIDESLIP_RIGHT)
TAC_LEFT, TAC_RIGHT = int(Maneuver.TACTICAL_LEFT), int(Maneuver.TACTICAL_RIGHT)
N_BASIC = int(Maneuver.SIDESLIP_LEFT)  # NONE..TURN_RIGHT
PLOTS = MAX_WARP_TACTICAL + 1  # (C5.22) TAC plots with 0..4 warp tactical maneuvers
SLIP_MODE = 1  # (C4.1) engine.movement.SLIP_MODE
_WARP, _IMPULSE = int(Box.WARP), int(Box.IMPULSE)
_DRONE_RACK = int(WeaponType.DRONE_RACK)
_FA = hexmap.ARC_BITS["FA"]
_DIR = hexmap.DIR_TO_AXIAL.copy()


@nb.njit(cache=True, inline="always")
def earns(chart, warp_maneuvers: int, imp: int, ipt: int) -> bool:
    """(C5.231) ``movement.earns_tactical_maneuver``: the first on impulse 2, then on every
    impulse the chart moves that speed after impulse 2 but the turn's last."""
    if warp_maneuvers < 1:
        return False
    if imp == 2:
        return True
    return 2 < imp < ipt and chart[warp_maneuvers, imp - 1]


@kernel(_nrt=False, error_model="numpy")
def tactical_step(status, tactical, tac_earned, tac_sublight, speed, facing, straight, slip,
                  x, z, maneuver, ev, ev_count, chart, turn: int, imp: int, ipt: int,
                  b: int) -> None:
    """``engine.procedure._tactical_maneuvers`` for battle ``b`` (units in row order):
    ``movement.earn_tactical_maneuver`` (C5.231, C5.232: one held at most) then, where the
    unit's order (``maneuver``) is a tactical maneuver, ``movement.tactical_maneuver``: the
    earned warp maneuver first, else the turn's sublight one (C5.11); facing +-1, the turn and
    slip counts 0 (C5.4); ``TacticalManeuver``."""
    for u in range(status.shape[1]):
        if not tactical[b, u] or status[b, u] != ACTIVE:
            continue
        if earns(chart, speed[b, u], imp, ipt):
            tac_earned[b, u] = True
        m = maneuver[b, u]
        if m != TAC_LEFT and m != TAC_RIGHT:
            continue
        if tac_earned[b, u]:
            tac_earned[b, u] = False
            paid = PAID_WARP
        elif tac_sublight[b, u]:
            tac_sublight[b, u] = False
            paid = PAID_SUBLIGHT
        else:  # (validated when ordered: cannot happen on masked orders)
            continue
        turned = -1 if m == TAC_LEFT else 1
        facing[b, u] = (facing[b, u] + turned + 6) % 6
        straight[b, u] = 0
        slip[b, u] = 0
        r = event_codes.begin(ev, ev_count, b, TACTICAL_MANEUVER, turn, imp)
        ev[b, r, 3] = u
        ev[b, r, 4] = x[b, u]
        ev[b, r, 5] = z[b, u]
        ev[b, r, 6] = facing[b, u]
        ev[b, r, 7] = turned
        ev[b, r, 8] = paid


@kernel(_nrt=False, error_model="numpy")
def pay_tactical(speed, boxes, tac_sublight, ev, ev_count, fbits, speed_rule, p, frac: bool,
                 turn: int, b: int, u: int) -> int:
    """(energy_allocation._pay_tactical) Priority 1 for a TAC plot, the movement line it
    replaces (C5.11): the plotted warp maneuvers (``speed``, C5.23) each the warp energy of one
    hex at the move cost (C5.22; rounded up as movement is, exact under fractional accounting,
    B3.2), 1 impulse engine energy for the sublight maneuver where the ship has impulse power
    (C5.12: else none this turn). A plot warp no longer pays is lowered (``EnergyShortfall``
    "tactical", ``SpeedSet``). ``p``: the purse (``compiled.energy``, 1/``p[5]`` points).
    Returns the shortfall."""
    num, mden, den = speed_rule[u, 0], speed_rule[u, 1], p[5]
    payable = max(0, boxes[b, u, _WARP]) * mden // num  # energy_form.max_payable_tactical
    n = speed[b, u]
    shortfall = 0
    if n > payable:
        r = event_codes.begin(ev, ev_count, b, ENERGY_SHORTFALL, turn, 0)
        ev[b, r, 3] = u
        ev[b, r, 4] = ITEM_TACTICAL
        fbits[0] = float(n - payable)
        ev[b, r, 5] = fbits.view(np.int64)[0]
        speed[b, u] = payable
        r = event_codes.begin(ev, ev_count, b, SPEED_SET, turn, 0)
        ev[b, r, 3] = u
        ev[b, r, 4] = payable
        shortfall = n - payable
        n = payable
    if frac:  # (fractional.line_cost) the exact fraction, in 1/den points
        p[0] -= n * num * (den // mden)
    else:  # rounded up to a whole point (CTH-DATA §7.3)
        p[0] -= (n * num + mden - 1) // mden * den
    imp = min(SUBLIGHT_TAC_IMPULSE, boxes[b, u, _IMPULSE])
    p[1] -= imp * den
    tac_sublight[b, u] = imp > 0  # (C5.12) paid from the impulse engines, or none this turn
    return shortfall


@nb.njit(cache=True, inline="always")
def _fa(x, z, f, tx, tz) -> bool:
    """(FD1.2, ``fire_geometry.fa_facings``) the target in the FA of a drone at (x, z) facing
    ``f`` (``hexmap.arc_bits_np``)."""
    vx = tx - x
    vz = tz - z
    bits = 0
    for d1 in range(6):
        d2 = d1 + 1 if d1 < 5 else 0
        a = vx * _DIR[d2, 1] - vz * _DIR[d2, 0]
        c = _DIR[d1, 0] * vz - _DIR[d1, 1] * vx
        if a >= 0 and c >= 0:
            bits |= 1 << d1
    bits = ((bits >> f) | (bits << (6 - f))) & 63
    return (bits & _FA) != 0


@kernel(_nrt=False, error_model="numpy")
def mask(status, tactical, tac_earned, tac_sublight, speed, slip, x, z, facing,
         w_owner, w_type, boxes, move_chart, speed_rule, racks, slots, n_slots: int, m,
         sideslip: bool,
         tac: bool, facings: bool, governed: bool, choice: bool, imp: int, ipt: int,
         max_speed: int, k: int, n_r: int, launch_size: int, m_maneuver: int, m_speed: int,
         b: int, a: int, u: int) -> None:
    """Agent ``a``'s mask values that ``observe`` leaves closed, for a live agent (unit row
    ``u``; ``slots[:n_slots]``: its target slots; ``choice``: ``speed_choice_open``), after
    every other part of the mask (lock-on and the standard cloak close launch slots first)."""
    nxt = 1 if (imp == 0 or imp == ipt) else imp + 1
    active = status[b, u] == ACTIVE
    if sideslip:  # (C4.1) slip mode 1 at a speed that moves the unit on the next impulse
        ok = False
        if slip[b, u] >= SLIP_MODE and active:
            if not choice:
                ok = not tactical[b, u] and move_chart[speed[b, u], nxt - 1]
            else:  # (legality.maneuver_blockers) open where some speed allowed opens it: on
                # the charts only the speeds that move on impulse 1; ``observe``'s speed mask
                # (written before) says which speeds are allowed
                for sp in range(max_speed + 1):
                    if m[m_speed + sp] and move_chart[sp, nxt - 1]:
                        ok = True
                        break
        m[m_maneuver + SLIP_LEFT] = ok
        m[m_maneuver + SLIP_RIGHT] = ok
    if tac:
        # (movement.tactical_blocker) not on impulse 1 (C5.11); a warp maneuver earned and
        # unused or earned on the next impulse (C5.231, C5.232), else the sublight one
        ok = (nxt != 1 and tactical[b, u] and active
              and (tac_earned[b, u] or earns(move_chart, speed[b, u], nxt, ipt)
                   or tac_sublight[b, u]))
        m[m_maneuver + TAC_LEFT] = ok
        m[m_maneuver + TAC_RIGHT] = ok
        # (legality.tactical_plot_blockers) plotted where speed is chosen (C5.23), at most
        # the top speed (C1.42); under the form what warp pays (C5.22) and a plot of none
        # only with impulse power (C5.12)
        top = m_speed + max_speed + 1
        payable = MAX_WARP_TACTICAL
        if governed:
            payable = max(0, boxes[b, u, _WARP]) * speed_rule[u, 1] // speed_rule[u, 0]
        for n in range(PLOTS):
            m[top + n] = (choice and n <= max_speed and n <= payable
                          and (not governed or n > 0 or boxes[b, u, _IMPULSE] > 0))
    if facings:  # (FD1.2, seeking.facing_blocker) the drone's facing at an open slot
        for i in range(n_r):
            r = racks[a, i]
            at = i * launch_size
            if r < 0 or w_type[b, r] != _DRONE_RACK:
                continue  # (FP1.3, [P-067]) a plasma torpedo takes the engine's facing
            owner = w_owner[b, r]
            for j in range(n_slots):
                t = slots[j]
                if not m[at + 1 + j]:
                    continue
                base = at + k + 6 * j + 1
                same = x[b, owner] == x[b, t] and z[b, owner] == z[b, t]
                for f in range(6):
                    if same:  # (F2.3, CTH-DATA §1.5) only the launcher's facing
                        m[base + f] = f == facing[b, owner]
                    else:
                        m[base + f] = _fa(x[b, owner], z[b, owner], f, x[b, t], z[b, t])


@kernel(_nrt=False, error_model="numpy")
def decode(action, slots, launch, launch_facing, tactical, speed_order, racks, k: int,
           n_r: int, c_maneuver: int, max_speed: int, b: int, a: int, u: int) -> None:
    """(``Launch.to_orders``, ``Speed.to_orders``) a ``launch[r]`` value past the slots: slot
    (v - k - 1) // 6 + 1 facing (v - k - 1) % 6 (FD1.2); a speed value past the top speed: a
    TAC plot with v - max - 1 warp maneuvers (C5.23). ``decode_action`` wrote the rest."""
    for i in range(n_r):
        r = racks[a, i]
        v = action[i]
        if r >= 0 and v > k:
            launch[b, r] = slots[(v - k - 1) // 6]
            launch_facing[b, r] = (v - k - 1) % 6
    v = action[c_maneuver + 1]
    if v > max_speed:
        tactical[b, u] = True
        speed_order[b, u] = v - max_speed - 1
