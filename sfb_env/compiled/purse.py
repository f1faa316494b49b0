"""The purse: paying energy, shared by Energy Allocation (``energy``), the engineering rules
(``engineering``: D3.34, D9, H7) and Resolve Direct-Fire (``fire``).

Mirrors ``engine.energy_allocation.Purse`` (``pay``, ``afford``: APR, impulse, warp, then
batteries; the pools in 1/``den`` points, B3.2), ``fire_energy.fire_blocker`` without reserve
power (``fire_powered``), ``fire_energy.pay_shot`` / ``fired`` (a phaser shot's capacitor
draw, H6.1, E2.1; a heavy weapon's charge spent, E3.2, E4.2, E7.23) and the
``EnergyShortfall`` event (``log_shortfall``). A leaf of the compiled energy modules: it
imports none of them, so ``energy`` and ``engineering`` can both call it.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from sfb_env.compiled import event_codes
from sfb_env.engine.types import WeaponType

# the direct-fire heavy weapons that fire their charge (E3.2, E4.2, E7.21)
ARMED_TO_FIRE = (int(WeaponType.DISRUPTOR), int(WeaponType.PHOTON), int(WeaponType.FUSION))
EPS = 1e-9  # (fire_energy, energy_form.capacitor_room) the reference's float tolerance
ENERGY_SHORTFALL = event_codes.CODE["EnergyShortfall"]
FIRE_UNPOWERED = event_codes.CODE["FireUnpowered"]


@nb.njit(cache=True, inline="always")
def fire_powered(w_type, w_armed, capacitor, fire_control, phaser_draw, b: int, w: int,
                 owner: int) -> bool:
    """(fire_energy.fire_blocker, no reserve power) a governed ship whose fire control went
    unpaid fires nothing (B3.0 standard line 8, PROPOSAL [P-028]); its phaser needs its draw in
    the capacitor (H6.1, E2.1); a disruptor or photon must be armed (E3.2, E4.2)."""
    if not fire_control[b, owner]:
        return False
    kind = w_type[b, w]
    draw = phaser_draw[kind]
    if draw > 0.0:
        return not (capacitor[b, owner] + EPS < draw)
    if kind == ARMED_TO_FIRE[0] or kind == ARMED_TO_FIRE[1] or kind == ARMED_TO_FIRE[2]:
        return w_armed[b, w]
    return True


@nb.njit(cache=True, inline="always")
def float_bits(fbits, value) -> int:
    """The int64 bits of float ``value`` (an event's float field)."""
    fbits[0] = value
    return fbits.view(np.int64)[0]


@nb.njit(cache=True, inline="always")
def log_shortfall(s, et, b: int, u: int, item: int, cost: int) -> None:
    r = event_codes.begin(s.ev, s.ev_count, b, ENERGY_SHORTFALL, s.turn[b], 0)
    s.ev[b, r, 3] = u
    s.ev[b, r, 4] = item
    s.ev[b, r, 5] = float_bits(et.fbits, float(cost))


# ---------------------------------------------------------------------- the purse


@nb.njit(cache=True, inline="always")
def pay(p, points: int, warp_only: bool, batteries: bool) -> bool:
    """(energy_allocation.Purse.pay) ``points`` in full from APR, impulse, warp, then batteries
    (warp only for photon arming, E4.2), or nothing (the pools in 1/``p[5]`` points, B3.2)."""
    cost = points * p[5]
    if warp_only:
        if p[0] < cost:
            return False
        p[0] -= cost
        return True
    reach = p[0] + p[1] + p[2] + (p[3] if batteries else 0)
    if reach < cost:
        return False
    for k in (2, 1, 0):
        take = min(cost, p[k])
        p[k] -= take
        cost -= take
    p[3] -= cost
    p[4] += cost
    return True


@nb.njit(cache=True, inline="always")
def afford(p, wanted: int, batteries: bool) -> int:
    """(Purse.afford) the most whole points of ``wanted`` payable now (pools may hold
    fractions, B3.2)."""
    reach = p[0] + p[1] + p[2] + (p[3] if batteries else 0)
    return max(0, min(wanted, reach // p[5]))


# ---------------------------------------------------------------------- Resolve Direct-Fire


@nb.njit(cache=True, inline="always")
def pay_shot(a, ft, b: int, w: int, owner: int, kind: int) -> bool:
    """(fire_energy.pay_shot, no reserve power) Draw a governed ship's phaser shot from its
    capacitor (H6.1, E2.1); False and ``FireUnpowered`` where the volley's other shots left too
    little (each mask entry is judged alone)."""
    draw = ft.phaser_draw[kind]
    if not ft.governed[owner] or draw <= 0.0:
        return True
    if a.capacitor[b, owner] + EPS < draw:
        r = event_codes.begin(a.ev, a.ev_count, b, FIRE_UNPOWERED, a.turn[b], a.impulse[b])
        a.ev[b, r, 3] = owner
        a.ev[b, r, 4] = w
        a.ev[b, r, 5] = float_bits(ft.fbits, a.capacitor[b, owner])
        return False
    a.capacitor[b, owner] = max(0.0, a.capacitor[b, owner] - draw)
    return True


@nb.njit(cache=True, inline="always")
def fired(a, ft, b: int, w: int, owner: int, kind: int) -> None:
    """(fire_energy.fired) A governed ship's disruptor, photon or fusion beam fired: its charge
    is spent, a new cycle follows (E3.2, E4.2, E7.23)."""
    if ft.governed[owner] and (kind == ARMED_TO_FIRE[0] or kind == ARMED_TO_FIRE[1]
                               or kind == ARMED_TO_FIRE[2]):
        a.w_armed[b, w] = False
        a.w_arm_stage[b, w] = 0
