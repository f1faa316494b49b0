"""Standing energy orders (the env's no-op at an open allocation): continue arming, else hold;
keep the speed warp can still pay (B3.0, E4.2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sfb_env.engine.energy_form import (
    CYCLE,
    MAX_IMPULSE_TO_MOVEMENT,
    WARP_ONLY,
    heavy_rows,
    move_cost,
    power,
    stage,
)
from sfb_env.engine.energy_orders import arm_blockers, speed_blockers
from sfb_env.engine.types import ArmOrder

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle


def standing_arm(battle: Battle, w: int) -> int:
    """The standing order (the env's no-op): continue arming, else hold, else none."""
    closed = arm_blockers(battle, w)
    return next((v for v in (int(ArmOrder.ARM), int(ArmOrder.HOLD)) if v not in closed), 0)


def standing_speed(battle: Battle, unit: int) -> int:
    """The standing speed (the env's no-op) at an open allocation: the current speed, lowered
    to what warp still pays once the standing photon arming has taken its warp (E4.2; the
    Federation cadet arming both tubes runs at most 12 warp + 1 impulse = 13), and to the
    fastest speed the acceleration and movement rules leave open."""
    st = battle.state
    top = int(battle.rules.max_speed)
    closed = speed_blockers(battle, unit, top)
    warp, imp, _ = power(battle, unit)
    for w in heavy_rows(battle, unit):
        w = int(w)
        kind = int(st.w_type[w])
        if kind in WARP_ONLY and standing_arm(battle, w) == ArmOrder.ARM:
            warp -= CYCLE[kind][stage(battle, w)]
    cap = int(max(0, warp) / move_cost(battle, unit)) + min(MAX_IMPULSE_TO_MOVEMENT, imp)
    speed = min(int(st.speed[unit]), cap)
    while speed > 0 and speed in closed:
        speed -= 1
    return speed
