"""Legality (L3): one predicate per order kind, saying whether a unit may give an order now and,
if not, which rule forbids it. The env's masks and ``mask_reasons`` and the engine's validation
(``validate``) all call these, so they cannot disagree.

Order kinds and their predicates: speed (``speed_blockers``, ``speed_range``), TAC plots
(``tactical_plot_blockers``), maneuvers (``maneuver_blockers``), direct fire
(``fire_blockers``: ``direct_fire.target_codes``), launches (``launch_blockers``), ESG orders
(``esg_blockers``), fighters and shuttles (``fighter_blockers``); the energy, PPD, small craft,
suicide shuttle, transporter, probe, tractor and disengagement orders are checked by their rule
areas' ``validate`` (each over the blockers its env components mask with).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from sfb_env.engine import (
    direct_fire,
    disengagement,
    energy,
    esg_field,
    movement,
    phaser_g,
    ppd_fire,
    probes,
    seeking,
    small_craft,
    suicide_shuttles,
    tractors,
    transporters,
    unit_rules,
)
from sfb_env.engine.types import (
    ESG_ORDERS,
    MAX_WARP_TACTICAL,
    EsgOrder,
    IllegalOrderError,
    Maneuver,
    Orders,
    UnitKind,
    WeaponType,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle


def speed_choice_open(battle: Battle) -> bool:
    """Whether orders now set next turn's speed (scenario 3, and Energy Allocation under
    ``rules.energy: cadet``: at impulse 0 and the last)."""
    st = battle.state
    return (bool(battle.rules.speed_choice) or battle.rules.energy_form) and (
        st.impulse in (0, st.impulses_per_turn))


def speed_range(battle: Battle, unit: int) -> range | list[int]:
    """Speeds a player may pick for the next turn (Chief Engineer: 0..max, no limit; the
    cadet form: those acceleration and movement power allow, B3.0)."""
    top = int(battle.rules.max_speed)
    if energy.governed(battle, unit) and speed_choice_open(battle):
        closed = energy.speed_blockers(battle, unit, top)
        return [s for s in range(top + 1) if s not in closed]
    return range(0, top + 1)


def speed_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """Speeds 0..max the unit may not order now, with the rule.

    Where the orders do not set speed (fixed-speed scenarios, or not the turn's last
    impulse), only the current speed is allowed: ordering it changes nothing.
    """
    top = int(battle.rules.max_speed)
    if speed_choice_open(battle):
        allowed = set(speed_range(battle, unit))
        rule = f"C1.42 speed outside 0..{top}"
        if energy.governed(battle, unit):  # (B3.0) acceleration and movement power
            return energy.speed_blockers(battle, unit, top)
    else:
        allowed = {int(battle.state.speed[unit])}
        rule = "B2.0 speed is set only at Energy Allocation (scenario 3, last impulse)"
    return {s: rule for s in range(top + 1) if s not in allowed}


def tactical_plot_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """TAC plots (``Orders.tactical``) with 0..4 warp tactical maneuvers the unit may not
    order now, with the rule (scenario rule ``tactical_maneuvers``; plotted where speed is
    chosen, C5.23; at most four, C5.22, and no more than the speed chart allows, C1.42; on
    the Energy Allocation Form, what the ship can pay, C5.12, C5.22)."""
    rules = battle.rules
    paying = (energy.tactical_blockers(battle, unit)
              if rules.tactical_maneuvers and energy.governed(battle, unit)
              and speed_choice_open(battle) else {})
    out = {}
    for n in range(MAX_WARP_TACTICAL + 1):
        if not rules.tactical_maneuvers:
            out[n] = ("C5.0 tactical maneuvers are not in use in this scenario "
                      "(rules.tactical_maneuvers)")
        elif not speed_choice_open(battle):
            out[n] = ("B2.0 tactical maneuvers are plotted only at Energy Allocation "
                      "(speed choice, last impulse)")
        elif n > int(rules.max_speed):
            out[n] = f"C1.42 {n} warp tactical maneuvers exceed the maximum speed"
        elif n in paying:
            out[n] = paying[n]
    return out


def maneuver_blockers(battle: Battle, unit: int, speed: int | None = None) -> dict[Maneuver, str]:
    """Forbidden maneuvers for the unit's next move, with the rule (see ``movement``).

    ``speed``: judge at that speed (the one the same orders pick for the next turn). Where
    the orders pick next turn's speed and ``speed`` is not given, a maneuver is open if some
    allowed speed permits it; the engine then uses it only if the chosen speed moves the unit
    on impulse 1 (see ``validate``).
    """
    if speed is not None:
        can = movement.moves_next(battle, unit, speed)
        return movement.maneuver_blockers(battle, unit, can, speed)
    if not speed_choice_open(battle):
        return movement.maneuver_blockers(battle, unit, movement.moves_next(battle, unit))
    current = int(battle.state.speed[unit])
    speeds = sorted(speed_range(battle, unit), key=lambda s: s != current)  # current first
    per_speed = [maneuver_blockers(battle, unit, s) for s in speeds]
    return {
        m: per_speed[0].get(m) or next(b[m] for b in per_speed if m in b)
        for m in battle.maneuvers
        if all(m in b for b in per_speed)
    }


def fire_blockers(battle: Battle, weapon: int, targets=None, shot: int = 1) -> list[str | None]:
    """Per target, the rule forbidding ``weapon`` to fire at it now (None = allowed).

    ``shot``: the weapon's ``shot``-th shot of this impulse; a phaser-G may fire shots 2..4
    while that many shots are left (E2.151; ``Orders.gatling``)."""
    return direct_fire.fire_blockers(battle, weapon, targets, shot)


def launch_blockers(battle: Battle, rack: int, targets=None) -> list[str | None]:
    """Per target, the rule forbidding ``rack`` (a drone rack or plasma launcher, FP1.3)
    to launch at it now (None = allowed)."""
    return seeking.launch_blockers(battle, rack, targets)


def launch_facing_blocker(battle: Battle, rack: int, target: int, facing: int) -> str | None:
    """The rule forbidding a drone of ``rack`` launched at ``target`` to take ``facing`` (0..5,
    FD1.2), or None (the launch itself: ``launch_blockers``)."""
    return seeking.facing_blocker(battle, rack, target, facing)


def esg_blockers(battle: Battle, generator: int) -> dict[int, str]:
    """``EsgOrder`` values 1..6 the ESG weapon row ``generator`` may not be given now,
    with the rule (see ``esg_field.order_blockers``)."""
    return esg_field.order_blockers(battle, generator)


def fighter_blockers(battle: Battle, carrier: int, targets=None,
                     kind: int = UnitKind.FIGHTER) -> list[str | None]:
    """Per target, the rule forbidding ``carrier``'s small-craft order now (None = allowed;
    ``small_craft.order_blockers``): fighters (launch every one aboard, J4.34) or, with
    ``kind=UnitKind.SHUTTLE``, administrative shuttles (launch one, J1.0); either way all
    of that kind in flight are sent at the target."""
    return small_craft.order_blockers(battle, carrier, targets, int(kind))


def esg_rows(battle: Battle, unit: int) -> np.ndarray:
    """Weapon rows of the unit's expanding sphere generators in use (G23.11)."""
    rows = battle.weapons_of(unit)
    return rows[(battle.state.esg_max[rows] > 0) & battle.state.w_enabled[rows]]

# ------------------------------------------------------------------ orders


def validate(battle: Battle, orders: Mapping[int, Orders]) -> None:
    """Raise ``IllegalOrderError`` for any order the rules forbid."""
    st = battle.state
    agents = set(battle.agent_units())
    for unit, order in orders.items():
        name = battle.unit_ids[unit] if 0 <= unit < len(battle.unit_ids) else str(unit)
        if unit not in agents:
            raise IllegalOrderError(name, "unit", unit, "B2.0 not a unit a player commands now")
        unit_rules.validate(battle, unit, order, name)  # not arrived yet: the no-op only
        if order.tactical:
            n = int(st.speed[unit]) if order.speed is None else order.speed
            blocked_tac = tactical_plot_blockers(battle, unit)
            if n in blocked_tac or not 0 <= n <= MAX_WARP_TACTICAL:
                rule = blocked_tac.get(n, "C5.22 at most four warp tactical maneuvers")
                raise IllegalOrderError(name, "tactical", n, rule)
        elif order.speed is not None:
            blocked_speed = speed_blockers(battle, unit)
            top = battle.rules.max_speed
            if order.speed in blocked_speed or not 0 <= order.speed <= top:
                rule = blocked_speed.get(order.speed, "C1.42 speed outside the chart")
                raise IllegalOrderError(name, "speed", order.speed, rule)
        if speed_choice_open(battle):
            speed = int(st.speed[unit]) if order.speed is None else int(order.speed)
            if not order.tactical and movement.moves_next(battle, unit, speed):
                blocked = maneuver_blockers(battle, unit, speed)
                blocked.pop(Maneuver.NONE, None)  # NONE = straight when the unit moves
            else:
                blocked = {}  # the unit does not move on impulse 1: the maneuver is unused
            if order.maneuver not in blocked and order.maneuver != Maneuver.NONE:
                # a maneuver no speed permits (the mask's verdict) is refused all the same
                union = maneuver_blockers(battle, unit)
                if order.maneuver in union:
                    blocked = union
        else:
            blocked = maneuver_blockers(battle, unit)
        if order.maneuver not in battle.maneuvers:
            try:
                rule = movement.not_in_use_rule(Maneuver(order.maneuver))
            except ValueError:
                rule = f"no maneuver value {order.maneuver!r}"
            raise IllegalOrderError(name, "maneuver", order.maneuver, rule)
        if order.maneuver in blocked:
            raise IllegalOrderError(name, "maneuver", Maneuver(order.maneuver).name,
                                    blocked[order.maneuver])
        own = set(int(w) for w in battle.weapons_of(unit))
        for component, table, check in (("fire", order.fire, battle.fire_blockers),
                                         ("launch", order.launch, battle.launch_blockers)):
            for w, t in table.items():
                if w not in own:
                    what = (f"weapon {battle.weapon_ids[w]} is not on {name}"
                            if 0 <= w < len(battle.weapon_ids) else f"no weapon row {w}")
                    raise IllegalOrderError(name, component, w, what)
                if not 0 <= t < len(st.kind):
                    raise IllegalOrderError(name, component, t, "no such target unit")
                rule = check(w, [t])[0]
                if rule is not None:
                    raise IllegalOrderError(name, f"{component}[{battle.weapon_ids[w]}]",
                                            battle.unit_ids[t], rule)
        _validate_gatling(battle, order, own, name)  # (E2.151) a phaser-G's shots 2..4
        for w, facing in order.launch_facing.items():  # (FD1.2) the owner's launch facing
            if w not in order.launch:
                raise IllegalOrderError(name, "launch_facing", w,
                                        "FD1.2 a launch facing goes with a launch order")
            if isinstance(facing, bool) or facing not in range(6):
                raise IllegalOrderError(name, f"launch_facing[{battle.weapon_ids[w]}]", facing,
                                        "FD1.2 facings are 0..5 (A..F)")
            rule = launch_facing_blocker(battle, w, order.launch[w], int(facing))
            if rule is not None:
                raise IllegalOrderError(name, f"launch_facing[{battle.weapon_ids[w]}]",
                                        int(facing), rule)
        energy.validate(battle, unit, order, name)  # (B3.0) arm, capacitor, recharge, cloak
        ppd_fire.validate(battle, unit, order, name)  # (E11.362) drop the wave-lock
        small_craft.validate(battle, unit, order, name)  # (J4.34) launch and send fighters
        suicide_shuttles.validate(battle, unit, order, name)  # (J2.22) arm and launch bombs
        transporters.validate(battle, unit, order, name)  # (G8.0, G8.24) transporters
        probes.validate(battle, unit, order, name)  # (G5) arm / launch a probe
        tractors.validate(battle, unit, order, name)  # (G7.0) attach / release beams
        disengagement.validate(battle, unit, order, name)  # (SCENARIOS #5) announce it
        for w, value in order.esg.items():
            if w not in own:
                what = (f"weapon {battle.weapon_ids[w]} is not on {name}"
                        if 0 <= w < len(battle.weapon_ids) else f"no weapon row {w}")
                raise IllegalOrderError(name, "esg", w, what)
            if isinstance(value, bool) or value not in range(ESG_ORDERS):
                raise IllegalOrderError(name, f"esg[{battle.weapon_ids[w]}]", value,
                                        f"G23.3 ESG orders are 0..{ESG_ORDERS - 1}")
            rule = esg_blockers(battle, w).get(int(value))
            if rule is not None:
                raise IllegalOrderError(name, f"esg[{battle.weapon_ids[w]}]",
                                        EsgOrder(int(value)).name, rule)


def _validate_gatling(battle: Battle, order: Orders, own: set[int], name: str) -> None:
    """(E2.151) ``Orders.gatling``: shots 2..4 of the unit's own phaser-Gs, each at a target
    the fire predicate allows for that shot number (``fire_blockers(..., shot)``)."""
    st = battle.state
    for w, more in order.gatling.items():
        if w not in own:
            what = (f"weapon {battle.weapon_ids[w]} is not on {name}"
                    if 0 <= w < len(battle.weapon_ids) else f"no weapon row {w}")
            raise IllegalOrderError(name, "gatling", w, what)
        component = f"gatling[{battle.weapon_ids[w]}]"
        if st.w_type[w] != WeaponType.PHG:
            raise IllegalOrderError(name, component, dict(more), "E1.5 only a phaser-G fires "
                                    "more than once in an impulse (E2.151)")
        for shot, t in more.items():
            if isinstance(shot, bool) or shot not in range(2, phaser_g.SHOTS_PER_TURN + 1):
                raise IllegalOrderError(name, component, shot, "E2.151 a phaser-G's extra "
                                        f"shots are numbered 2..{phaser_g.SHOTS_PER_TURN}")
            if not 0 <= t < len(st.kind):
                raise IllegalOrderError(name, component, t, "no such target unit")
            rule = battle.fire_blockers(w, [t], int(shot))[0]
            if rule is not None:
                raise IllegalOrderError(name, f"{component}.shot{shot}", battle.unit_ids[t],
                                        rule)
