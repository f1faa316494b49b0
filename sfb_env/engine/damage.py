"""Damage: shields absorb first (D3.2), the rest is internal: drones (FD1.54), abstract
freighters (R1.6) and the interim damage rule of scenarios 2-3 (D4.0).

Owner's choices under D4.0, taken by this documented rule (a player could choose otherwise):

* the first internal point of each volley destroys the least valuable working weapon
  (``WEAPON_VALUE``; an empty drone rack is worth least, then phaser-3, phaser-2, phaser-1,
  loaded drone racks, disruptors, photons), even one that already fired;
* the other points go to hull boxes, then other boxes (lab, transporter, shuttle, battery, APR),
  then impulse and warp engines, then Excess Damage, then the remaining weapons;
* the ship is destroyed when every destructible box, weapon and Excess Damage box is gone.
Bridge, security, the drone ammunition track and the other shields never take damage (D4.0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env.engine import events as ev
from sfb_env.engine import explosions
from sfb_env.engine.types import ACTIVE, K_DRONE, K_TARGET_DRONE, Box, Status, UnitKind, WeaponType

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

# Lower = sacrificed first under D4.0's "one point on a weapon".
WEAPON_VALUE = {
    WeaponType.PH3: 1,
    WeaponType.PHG: 1,
    WeaponType.PH2: 2,
    WeaponType.PH1: 3,
    WeaponType.DRONE_RACK: 4,
    WeaponType.DISRUPTOR: 5,
    WeaponType.FUSION: 5,
    WeaponType.PHOTON: 6,
    WeaponType.PLASMA_F: 6,
    WeaponType.PLASMA_S: 7,
    WeaponType.PLASMA_R: 7,
    WeaponType.PPD: 7,
    WeaponType.ESG: 7,
}
BOX_ORDER = (
    Box.HULL, Box.LAB, Box.TRANSPORTER, Box.SHUTTLE, Box.OTHER, Box.BATTERY, Box.APR,
    Box.IMPULSE, Box.WARP, Box.EXCESS,
)


def apply_damage(battle: Battle, unit: int, shield: int, points: int) -> None:
    """Apply one volley of ``points`` striking ``shield`` (1..6, 0 = no shield) of ``unit``."""
    st = battle.state
    if st.status[unit] != ACTIVE or points <= 0:
        return
    kind = int(st.kind[unit])
    st.damage[unit] += points
    if kind in (K_DRONE, K_TARGET_DRONE):
        battle.log(ev.Damaged(st.turn, st.impulse, battle.unit_ids[unit], 0, 0, points, ()))
        if st.damage[unit] >= battle.scenario.rules["drone_strength"]:  # (FD1.54)
            _destroy(battle, unit)
        return
    if kind == UnitKind.SHIP and battle.scenario.rules["damage"] == "none":
        battle.log(ev.Damaged(st.turn, st.impulse, battle.unit_ids[unit], shield, 0, 0, ()))
        return  # scenario 1: the ship cannot be damaged
    # (D3.2) the struck shield absorbs what it has left; a freighter has one pool (R1.6)
    idx = 0 if st.shield_pool[unit] else shield - 1
    absorbed = min(points, int(st.shields[unit, idx]))
    st.shields[unit, idx] -= absorbed
    internal = points - absorbed
    boxes: tuple[str, ...] = ()
    if internal:
        st.internal[unit] += internal
        if kind == UnitKind.FREIGHTER:
            _freighter_thresholds(battle, unit)
        else:
            boxes = _interim_internal(battle, unit, internal)
    battle.log(
        ev.Damaged(st.turn, st.impulse, battle.unit_ids[unit], shield, absorbed, internal, boxes)
    )
    if kind == UnitKind.SHIP and _nothing_left(battle, unit):
        _destroy(battle, unit)


def _freighter_thresholds(battle: Battle, unit: int) -> None:
    """(R1.6) Phaser dead at the threshold, destroyed at the last; speed falls next turn."""
    st = battle.state
    rules = battle.ship_classes[unit].freighter
    if st.internal[unit] >= rules.phaser_disabled_at:
        st.w_destroyed[battle.weapons_of(unit)] = True
    if st.internal[unit] >= rules.destroyed_at:
        _destroy(battle, unit)


def _interim_internal(battle: Battle, unit: int, points: int) -> tuple[str, ...]:
    """(D4.0) Interim rule: one point on a weapon, the rest by ``BOX_ORDER``."""
    st = battle.state
    hit: list[str] = []
    weapons = [w for w in battle.weapons_of(unit) if not st.w_destroyed[w]]
    if weapons:
        w = min(weapons, key=lambda w: (_weapon_value(battle, w), -w))
        st.w_destroyed[w] = True
        hit.append(battle.weapon_ids[w])
        points -= 1
    for _ in range(points):
        for box in BOX_ORDER:
            if st.boxes[unit, box] > 0:
                st.boxes[unit, box] -= 1
                hit.append(box.name.lower())
                break
        else:
            left = [w for w in battle.weapons_of(unit) if not st.w_destroyed[w]]
            if not left:
                break
            w = min(left, key=lambda w: (_weapon_value(battle, w), -w))
            st.w_destroyed[w] = True
            hit.append(battle.weapon_ids[w])
    return tuple(hit)


def _weapon_value(battle: Battle, w: int) -> int:
    st = battle.state
    kind = WeaponType(int(st.w_type[w]))
    if kind == WeaponType.DRONE_RACK and st.w_ammo[w] == 0:
        return 0
    return WEAPON_VALUE[kind]


def _nothing_left(battle: Battle, unit: int) -> bool:
    st = battle.state
    weapons = battle.weapons_of(unit)
    return int(st.boxes[unit].sum()) == 0 and bool(np.all(st.w_destroyed[weapons]))


def _destroy(battle: Battle, unit: int) -> None:
    st = battle.state
    st.status[unit] = Status.DESTROYED
    battle.log(ev.Destroyed(st.turn, st.impulse, battle.unit_ids[unit]))
    if battle.scenario.rules["explosions"]:
        explosions.explode(battle, unit)  # (house rule, rules file 003; CTH-DATA §8.10)
