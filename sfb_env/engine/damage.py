"""Damage: shields absorb first (D3.2), the rest is internal: drones (FD1.54), abstract
freighters (R1.6) and the ship damage rule of the scenario (``rules.damage``): ``none``,
``interim`` (D4.0), ``s4`` (CTH-DATA §10.1), ``cadet_dac`` (D4.21-D4.5, §10.2) or
``standard_dac`` (D4.2-D4.4, §10.3, on ``engine.dac``'s 2d6 chart), with the owner's choices
(``WEAPON_VALUE``, ``BOX_ORDER``, ``ROBOT_BOX_ORDER``) documented as rules.

Entry points: ``apply_damage`` (one volley on one shield), ``apply_split_volley`` (a volley
split over shields, PPD pulses), ``init_dac_boxes`` (the standard-DAC boxes at build);
units that take points their own way come from ``rule_tables.DAMAGE_HANDLERS``
(``install_handlers``).

Rules digest: docs/engine/damage.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from sfb_env import tables
from sfb_env.engine import dac, explosions, mutiny, ppd, shield_absorption
from sfb_env.engine import events as ev
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
# Scenario-4 rule, robot variant: boxes other than warp (and weapons) first, then warp.
ROBOT_BOX_ORDER = tuple(b for b in BOX_ORDER if b != Box.WARP) + (Box.WARP,)
# Cadet DAC categories (D4.21) in the owner's order of choice (PROPOSAL [P-040], see above).
CADET_CATEGORIES = {
    "Hull": (Box.HULL,),
    "Engine": (Box.IMPULSE, Box.WARP),
    "Other": (Box.LAB, Box.SHUTTLE, Box.TRANSPORTER, Box.OTHER, Box.BATTERY, Box.APR),
}
# Standard-DAC box types -> the coarse ``Box`` counts kept alongside (bridge, security and the
# tracks have none).
_D = dac.DacBox
DAC_TO_BOX = {
    _D.F_HULL: Box.HULL, _D.A_HULL: Box.HULL, _D.C_HULL: Box.HULL,
    _D.L_WARP: Box.WARP, _D.R_WARP: Box.WARP, _D.C_WARP: Box.WARP,
    _D.IMPULSE: Box.IMPULSE, _D.APR: Box.APR, _D.BATTERY: Box.BATTERY,
    _D.TRANSPORTER: Box.TRANSPORTER, _D.SHUTTLE: Box.SHUTTLE, _D.LAB: Box.LAB,
    _D.EXCESS: Box.EXCESS, _D.AUX_CONTROL: Box.OTHER, _D.EMER_BRIDGE: Box.OTHER,
    _D.TRACTOR: Box.OTHER, _D.PROBE: Box.OTHER, _D.CARGO: Box.OTHER, _D.ARMOR: Box.OTHER,
}


#: A unit kind's own way of taking damage points: (battle, unit, points).
DamageHandler = Callable[["Battle", int, int], None]
#: Units that take points their own way, by unit kind: declared in
#: ``engine.rule_tables.DAMAGE_HANDLERS`` (plasma torpedoes, the monster, fighters, shuttles)
#: and installed once by the Battle facade (``install_handlers``).
DAMAGE_HANDLERS: dict[int, DamageHandler] = {}


def install_handlers(handlers: dict[int, DamageHandler]) -> None:
    """Install the damage handlers by unit kind (``rule_tables.install``)."""
    DAMAGE_HANDLERS.clear()
    DAMAGE_HANDLERS.update(handlers)


def apply_damage(battle: Battle, unit: int, shield: int, points: int) -> None:
    """Apply one volley of ``points`` striking ``shield`` (1..6, 0 = no shield) of ``unit``."""
    st = battle.state
    if st.status[unit] != ACTIVE or points <= 0:
        return
    kind = int(st.kind[unit])
    handler = DAMAGE_HANDLERS.get(kind)  # (FP1.6 plasma, J4.49 / J1.0 small craft, scenario 11)
    if handler is not None:
        handler(battle, unit, points)
        return
    st.damage[unit] += points
    if kind in (K_DRONE, K_TARGET_DRONE):
        battle.log(ev.Damaged(st.turn, st.impulse, battle.unit_ids[unit], 0, 0, points, ()))
        if st.damage[unit] >= battle.rules.drone_strength:  # (FD1.54)
            _destroy(battle, unit)
        return
    if kind == UnitKind.SHIP and battle.rules.damage == "none":
        battle.log(ev.Damaged(st.turn, st.impulse, battle.unit_ids[unit], shield, 0, 0, ()))
        return  # scenario 1: the ship cannot be damaged
    if kind == UnitKind.SHIP and 1 <= shield <= 6 and shield_absorption.absorbs(battle, unit):
        # (standard form) unpaid shields stop nothing; reinforcement, reserve power (D3.34, H7.2)
        absorbed, internal = shield_absorption.apply_shield(battle, unit, shield, points)
        _internal_volley(battle, unit, shield, absorbed, internal)
        return
    # (D3.2) the struck shield absorbs what it has left; a freighter has one pool (R1.6)
    idx = 0 if st.shield_pool[unit] else shield - 1
    absorbed = min(points, int(st.shields[unit, idx]))
    st.shields[unit, idx] -= absorbed
    _internal_volley(battle, unit, shield, absorbed, points - absorbed)


def apply_split_volley(battle: Battle, unit: int, split: dict[int, int],
                       centre: int | None = None) -> None:
    """Apply one volley spread over several shields of a ship, ``split`` {shield: points}
    (a PPD pulse's splash, E11.35, E11.332): each shield absorbs its own part (D3.2), the
    points past them are one volley of internal damage. For the phaser restriction of the
    standard DAC (D4.321) it came through every shield it penetrated (E11.332). A unit without
    six shields takes the sum as one ordinary volley. ``centre``: the shield logged (default:
    the one taking most)."""
    st = battle.state
    split = {int(s): int(p) for s, p in split.items() if p > 0}
    total = sum(split.values())
    if st.status[unit] != ACTIVE or total <= 0:
        return
    if centre is None:
        centre = max(split, key=lambda s: (split[s], -s))
    if (int(st.kind[unit]) != UnitKind.SHIP or st.shield_pool[unit]
            or battle.rules.damage == "none" or len(split) == 1):
        apply_damage(battle, unit, next(iter(split)) if len(split) == 1 else centre, total)
        return
    st.damage[unit] += total
    standard = shield_absorption.absorbs(battle, unit)
    if standard and st.shields_active[unit]:
        split = _general_reinforcement(battle, unit, split)  # (E11.39)
    absorbed = internal = 0
    penetrated = []
    for shield, points in sorted(split.items()):
        if not points:
            continue
        if standard:  # unpaid shields, specific reinforcement, reserve power (D3.34, H7.2)
            took, past = shield_absorption.apply_shield(battle, unit, shield, points)
        else:
            took = min(points, int(st.shields[unit, shield - 1]))
            st.shields[unit, shield - 1] -= took
            past = points - took
        absorbed += took
        internal += past
        if past:
            penetrated.append(shield)
    _internal_volley(battle, unit, centre, absorbed, internal, tuple(penetrated))


def _general_reinforcement(battle: Battle, unit: int, split: dict[int, int]) -> dict[int, int]:
    """(E11.39) The target's general reinforcement against one PPD pulse, before any of it is
    scored on shields or specific reinforcement: all of it on this pulse unless it stops the
    whole pulse (``ppd.absorb_general_reinforcement``). The owner's choice of elements is made
    for him (PROPOSAL [P-045]): each point goes where it stops an internal point (the element that
    would pass its shield boxes and specific reinforcement by most), else on the element
    carrying most points (ties: the lower shield); this is the choice of the E11.39 example.
    Returns the damage left per shield; the points left stay in ``st.reinf_general``."""
    st = battle.state
    general = int(st.reinf_general[unit])
    if not general or st.reinf_held[unit]:  # (D3.3411 note) held GR absorbs nothing
        return split
    if general >= sum(split.values()):
        left, spare = ppd.absorb_general_reinforcement(split, general)
    else:
        take = dict.fromkeys(split, 0)
        for _ in range(general):
            rest = {s: p - take[s] for s, p in split.items() if p > take[s]}
            past = {s: p - int(st.shields[unit, s - 1]) - int(st.reinf_specific[unit, s - 1])
                    for s, p in rest.items()}
            pick = max(rest, key=lambda s: (past[s] > 0, past[s] if past[s] > 0 else rest[s],
                                            -s))
            take[pick] += 1
        left, spare = ppd.absorb_general_reinforcement(split, general, take)
    st.reinf_general[unit] = spare
    return left


def _internal_volley(battle: Battle, unit: int, shield: int, absorbed: int, internal: int,
                     penetrated: tuple[int, ...] = ()) -> None:
    """The internal part of a volley (after the shields, D3.2) by the scenario's rule."""
    st = battle.state
    kind = int(st.kind[unit])
    boxes: tuple[str, ...] = ()
    destroyed = False
    rule = battle.rules.damage
    ship = battle.ship_classes[unit]
    if rule == "standard_dac" and ship is not None and ship.kind == "cadet":
        rule = "cadet_dac"  # (SCENARIOS #12) cadet ships among full-size ones: the cadet DAC
    if internal:
        st.internal[unit] += internal
        if kind == UnitKind.FREIGHTER:
            _freighter_thresholds(battle, unit)
        elif rule == "s4":
            boxes, destroyed = _s4_internal(battle, unit, internal)
        elif rule == "cadet_dac":
            boxes, destroyed = _cadet_dac_internal(battle, unit, internal)
        elif rule == "standard_dac":
            boxes, destroyed = _standard_dac_internal(battle, unit, internal,
                                                      penetrated or shield)
        else:
            boxes = _interim_internal(battle, unit, internal)
    battle.log(
        ev.Damaged(st.turn, st.impulse, battle.unit_ids[unit], shield, absorbed, internal, boxes)
    )
    if kind == UnitKind.SHIP and (
        destroyed or (rule == "interim" and _nothing_left(battle, unit))
    ):
        _destroy(battle, unit)
    elif kind == UnitKind.SHIP and rule == "standard_dac" and battle.rules.mutiny:
        mutiny.after_damage(battle, unit)  # (G6.2) the last security station just fell?


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


def _s4_internal(battle: Battle, unit: int, points: int) -> tuple[tuple[str, ...], bool]:
    """(Scenario-4 rule, CTH-DATA §10.1) 1st point a weapon, 2nd a warp box, then the rest;
    robots: other boxes, then warp, then weapons. Returns the boxes hit and "destroyed"."""
    st = battle.state
    robot = battle.controllers[unit] == "robot-ship"
    rest = ROBOT_BOX_ORDER if robot else BOX_ORDER
    hit: list[str] = []
    for n in range(points):
        if n == 0 and _destroy_weapon(battle, unit, hit):
            continue
        if n == 1 and st.boxes[unit, Box.WARP] > 0:
            st.boxes[unit, Box.WARP] -= 1
            hit.append("warp")
            continue
        if _destroy_box(battle, unit, rest, hit) or _destroy_weapon(battle, unit, hit):
            continue
        return tuple(hit), True  # only the bridge was left: this point destroys the ship
    return tuple(hit), False


def _destroy_box(battle: Battle, unit: int, order: tuple[Box, ...], hit: list[str]) -> bool:
    """Destroy the first box of ``order`` the unit still has; False if none."""
    st = battle.state
    for box in order:
        if st.boxes[unit, box] > 0:
            st.boxes[unit, box] -= 1
            hit.append(box.name.lower())
            return True
    return False


def _destroy_weapon(
    battle: Battle, unit: int, hit: list[str], spare: set[int] | None = None
) -> bool:
    """Destroy the least valuable working weapon (ties: the one listed last), preferring a
    type not in ``spare`` (weapon types already hit this volley); False if none is left."""
    st = battle.state
    rows = battle.weapons_of(unit)
    left = [int(w) for w in rows[~st.w_destroyed[rows]]]
    if not left:
        return False
    if spare:
        fresh = [w for w in left if int(st.w_type[w]) not in spare]
        left = fresh or left
    w = min(left, key=lambda w: (_weapon_value(battle, w), -w))
    st.w_destroyed[w] = True
    hit.append(battle.weapon_ids[w])
    if spare is not None:
        spare.add(int(st.w_type[w]))
    return True


def _cadet_dac_internal(battle: Battle, unit: int, points: int) -> tuple[tuple[str, ...], bool]:
    """(D4.21-D4.4) The cadet 1d6 chart, one die per point from ``battle.rng``."""
    st = battle.state
    chart, names = tables.cadet_dac_chart()
    hit: list[str] = []
    types_hit: set[int] = set()
    for _ in range(points):
        die = int(battle.rng.integers(1, 7))
        for col in chart[die - 1]:
            category = names[col]
            if category == "Excess":  # (D4.4) column E always scores
                if st.boxes[unit, Box.EXCESS] == 0:
                    return tuple(hit), True
                st.boxes[unit, Box.EXCESS] -= 1
                hit.append("excess")
                break
            if category == "WPN":
                if _destroy_weapon(battle, unit, hit, types_hit):
                    break
            elif _destroy_box(battle, unit, CADET_CATEGORIES[category], hit):
                break
    return tuple(hit), False


def _standard_dac_internal(
    battle: Battle, unit: int, points: int, shield: int | tuple[int, ...]
) -> tuple[tuple[str, ...], bool]:
    """(D4.2-D4.4) The 2d6 chart of ``engine.dac`` on the unit's standard-DAC boxes; one
    2d6 per point is drawn from ``battle.rng`` before the volley is resolved."""
    st = battle.state
    rows = battle.weapons_of(unit)
    ship = dac.ShipBoxes(st.dac_boxes[unit].astype(np.int32), battle.dac_weapons[unit],
                         st.w_destroyed[rows])
    rolls = battle.rng.integers(1, 7, size=(points, 2)).sum(axis=1)
    shields = (shield if isinstance(shield, tuple)  # (E11.332) a PPD pulse's shields
               else (shield,) if shield else tuple(dac.SHIELD_NUMBERS))
    result = dac.resolve_volley(ship, points, shields, rolls=[int(r) for r in rolls])
    hit: list[str] = []
    by_name = {w.name: int(rows[i]) for i, w in enumerate(battle.dac_weapons[unit])}
    for h in result.hits:
        if h.weapon is not None:
            st.w_destroyed[by_name[h.weapon]] = True
            hit.append(battle.weapon_ids[by_name[h.weapon]])
        elif h.box is not None:
            st.dac_boxes[unit, h.box] -= 1
            coarse = DAC_TO_BOX.get(h.box)
            if coarse is not None and st.boxes[unit, coarse] > 0:
                st.boxes[unit, coarse] -= 1
            hit.append(h.box.name.lower())
    return tuple(hit), result.destroyed


def init_dac_boxes(battle: Battle, classes: list) -> tuple[np.ndarray, list]:
    """(U, dac.N_BOXES) standard-DAC boxes at the start: filled for the ships of a scenario
    with ``damage: standard_dac``, zeros elsewhere; and the setup's ``dac_weapons`` (per unit,
    its weapon boxes on the DAC)."""
    out = np.zeros((len(classes), dac.N_BOXES), dtype=np.int64)
    weapons: list[tuple[dac.WeaponBox, ...]] = [()] * len(classes)
    if battle.rules.damage == "standard_dac":
        for u, ship in enumerate(classes):
            if ship is not None and ship.freighter is None and ship.kind != "cadet":
                boxes = dac.ship_boxes(ship)  # cadet ships keep the cadet DAC (SCENARIOS #12)
                out[u] = boxes.boxes
                weapons[u] = boxes.weapons
    return out, weapons


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
    if battle.rules.explosions:
        explosions.explode(battle, unit)  # (house rule, rules file 003; CTH-DATA §8.10)
