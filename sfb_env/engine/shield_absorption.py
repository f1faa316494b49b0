"""Shield absorption on the standard form (D3.34, D3.3411, H7.2; CTH-DATA §7.4): unpaid shields,
reinforcement, reserve power discharged into the struck shield unless the owner keeps it (H7.1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sfb_env.engine import energy_form, reinforcement, reserve_power
from sfb_env.engine import events as ev
from sfb_env.engine.energy_form import ACTIVATE_GENERAL, KEEP_RESERVE
from sfb_env.engine.energy_switches import governed
from sfb_env.engine.types import Box, Orders

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle


def absorbs(battle: Battle, unit: int) -> bool:
    """Whether ``apply_shield`` judges this ship's shields (a governed ship, standard form)."""
    return battle.rules.standard_energy and governed(battle, unit)


def apply_shield(battle: Battle, unit: int, shield: int, points: int) -> tuple[int, int]:
    """One volley of ``points`` on shield #``shield`` of a governed ship on the standard form:
    (shield boxes destroyed, points going on to internal damage). Unpaid shields stop nothing
    (CTH-DATA §7.4); otherwise general, then specific reinforcement, then boxes (D3.3411), with
    reserve power discharged into the struck shield first where ``rules.reserve_power`` (H7.2;
    docs/engine/energy.md PROPOSAL [P-031]) and the owner has not kept it (H7.1,
    ``keep_reserve``)."""
    st = battle.state
    if not st.shields_active[unit]:
        return 0, points
    shields = [int(v) for v in st.shields[unit]]
    held = reinforcement.Reinforcement(int(st.reinf_general[unit]),
                                       tuple(int(v) for v in st.reinf_specific[unit]),
                                       not bool(st.reinf_held[unit]))  # (D3.3411 note)
    result = reinforcement.absorb_volley(shields, held, shield, points)
    charged = energy_form.charged(battle, unit)
    left = result.shield + result.internal  # past the reinforcement: boxes, then internal
    if (battle.rules.reserve_power and left and charged and shields[shield - 1] > 0
            and not st.reserve_kept[unit]):  # (H7.1) the owner's option: kept for fire
        need = min(left, charged)
        now = reserve_power.ReserveTurn(
            reserve_power.Batteries(int(st.boxes[unit, Box.BATTERY]), charged))
        now, result = reserve_power.reinforce_and_absorb(now, shields, held, shield, points, need)
        st.batteries[unit] = now.batteries.charged
        battle.log(ev.ReserveDischarged(st.turn, st.impulse, battle.unit_ids[unit],
                                        f"reinforce:#{shield}", need, now.batteries.charged))
    st.shields[unit] = result.shields
    st.reinf_general[unit] = result.reinforcement.general
    st.reinf_specific[unit] = result.reinforcement.specific
    return result.shield, result.internal


def switch_on_general(battle: Battle, orders: dict[int, Orders]) -> None:
    """An impulse's orders switch held general reinforcement on (D3.3411 note of rules file
    004: held inactive, then made active after the first damage); it absorbs from this
    impulse's Launch Seeking Weapons step on."""
    st = battle.state
    for u, order in orders.items():
        if order.reinforce_hold == ACTIVATE_GENERAL and st.reinf_held[u]:
            st.reinf_held[u] = False
            battle.log(ev.GeneralReinforcementHeld(st.turn, st.impulse, battle.unit_ids[u],
                                                   int(st.reinf_general[u]), True))


def keep_reserve(battle: Battle, orders: dict[int, Orders]) -> None:
    """A decision point's orders say, per ship, whether its batteries stay out of struck shields
    until the next decision point (H7.1: discharged at any time, at the owner's option; H7.2);
    a ship without the order (0) discharges into a struck shield as needed [P-031]."""
    st = battle.state
    st.reserve_kept[:] = False
    for u, order in orders.items():
        if order.reserve_shields == KEEP_RESERVE:
            st.reserve_kept[u] = True
