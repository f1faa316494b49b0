"""Energy drawn as a weapon fires (H6.1, E2.1, E2.152, H7.2, E3.2, E7.21): the phaser capacitor,
reserve power arming or firing from charged batteries, a spent charge."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sfb_env.engine import events as ev
from sfb_env.engine import reserve_power
from sfb_env.engine.energy_form import ARMING_RULE, CYCLE, PHASER_DRAW, SINGLE_TURN, charged
from sfb_env.engine.energy_switches import fire_control_blocker, governed
from sfb_env.engine.types import Box, WeaponType

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle


def fire_blocker(battle: Battle, w: int) -> str | None:
    """Why weapon ``w`` of a governed ship has no energy to fire now, or None (H6.1 capacitor;
    E3.2 / E4.2 armed at Energy Allocation; fusion beams: ``direct_fire.fusion_beam``)."""
    st = battle.state
    owner = int(st.w_owner[w])
    if not governed(battle, owner):
        return None
    no_control = fire_control_blocker(battle, owner)
    if no_control is not None:
        return no_control
    kind = int(st.w_type[w])
    draw = PHASER_DRAW.get(kind)
    if draw is not None:
        if st.capacitor[owner] + 1e-9 < draw:
            if not battle.rules.reserve_power:
                return (f"H6.1 the phaser capacitor holds {st.capacitor[owner]:g} energy; "
                        f"a shot needs {draw:g}")
            if charged(battle, owner) < math.ceil(draw):  # (H7.2) batteries may fire it
                return (f"H7.2 the phaser capacitor holds {st.capacitor[owner]:g} energy and "
                        f"{charged(battle, owner)} batteries are charged; a shot needs {draw:g}")
        return None
    if kind in (int(WeaponType.DISRUPTOR), int(WeaponType.PHOTON)) and not st.w_armed[w]:
        if reserve_armable(battle, w):
            need = CYCLE[kind][0]
            if charged(battle, owner) >= need:  # (H7.2) batteries arm it as it fires
                return None
            return (f"H7.2 {ARMING_RULE[kind]} the weapon is not armed and "
                    f"{charged(battle, owner)} batteries are charged; arming it needs {need}")
        return f"{ARMING_RULE[kind]} the weapon is not armed (Energy Allocation)"
    return None


def reserve_armable(battle: Battle, w: int) -> bool:
    """Whether single-turn heavy weapon ``w`` (disruptor, fusion beam) of a governed ship may be
    armed from charged batteries as it fires, under ``rules.reserve_power`` (H7.2, CTH-DATA
    §7.6): it was not armed at Energy Allocation. The cost is its arming, 2 (E3.2, E7.21); the
    fire rules still apply (E1.5 once a turn and a quarter turn apart, E7.22 cooling, H7.3)."""
    st = battle.state
    return (int(st.w_type[w]) in SINGLE_TURN and not st.w_armed[w]
            and not st.w_destroyed[w] and bool(battle.rules.reserve_power)
            and governed(battle, int(st.w_owner[w])))


def reserve_arm_ready(battle: Battle, w: int) -> bool:
    """Whether ``reserve_armable`` weapon ``w``'s ship has the batteries to arm it now (H7.2)."""
    st = battle.state
    return (reserve_armable(battle, w)
            and charged(battle, int(st.w_owner[w])) >= CYCLE[int(st.w_type[w])][0])


def pay_shot(battle: Battle, w: int) -> bool:
    """Draw phaser ``w``'s shot from its ship's capacitor as it fires (H6.1, E2.1, E2.152);
    False (and a ``FireUnpowered`` event) if the capacitor no longer holds enough: the phasers
    of one volley share it and each mask entry is judged alone. An unarmed disruptor or fusion
    beam under ``rules.reserve_power`` is armed here from batteries (``reserve_armable``);
    False and ``FireUnpowered`` (``capacitor``: the charged batteries) when other shots of the
    volley took them first."""
    st = battle.state
    owner = int(st.w_owner[w])
    kind = int(st.w_type[w])
    if reserve_armable(battle, w):  # (H7.2, E3.2, E7.21) batteries arm it as it fires
        need = CYCLE[kind][0]
        if charged(battle, owner) < need:  # the volley's other shots took the batteries
            battle.log(ev.FireUnpowered(st.turn, st.impulse, battle.unit_ids[owner],
                                        battle.weapon_ids[w], float(charged(battle, owner))))
            return False
        left = reserve_power.discharge(
            reserve_power.Batteries(int(st.boxes[owner, Box.BATTERY]), charged(battle, owner)),
            need, reserve_power.ReserveUse.FIRE_WEAPON)
        st.batteries[owner] = left.charged
        st.w_armed[w] = True  # armed now; ``fired`` spends it with the shot
        battle.log(ev.ReserveDischarged(st.turn, st.impulse, battle.unit_ids[owner],
                                        f"fire:{battle.weapon_ids[w]}", need, left.charged))
        return True
    if kind not in PHASER_DRAW or not governed(battle, owner):
        return True
    draw = PHASER_DRAW[kind]
    need = math.ceil(draw)
    if (st.capacitor[owner] + 1e-9 < draw and battle.rules.reserve_power
            and charged(battle, owner) >= need):  # (H7.2) reserve power fires the phaser
        left = reserve_power.discharge(
            reserve_power.Batteries(int(st.boxes[owner, Box.BATTERY]), charged(battle, owner)),
            need, reserve_power.ReserveUse.FIRE_WEAPON)
        st.batteries[owner] = left.charged
        battle.log(ev.ReserveDischarged(st.turn, st.impulse, battle.unit_ids[owner],
                                        f"fire:{battle.weapon_ids[w]}", need, left.charged))
        return True
    if st.capacitor[owner] + 1e-9 < draw:
        battle.log(ev.FireUnpowered(st.turn, st.impulse, battle.unit_ids[owner],
                                    battle.weapon_ids[w], float(st.capacitor[owner])))
        return False
    st.capacitor[owner] = max(0.0, float(st.capacitor[owner]) - draw)
    return True


def fired(battle: Battle, w: int) -> None:
    """A heavy weapon of a governed ship fired: its charge is spent, a new cycle follows."""
    st = battle.state
    if int(st.w_type[w]) in CYCLE and governed(battle, int(st.w_owner[w])):
        st.w_armed[w] = False
        st.w_arm_stage[w] = 0
