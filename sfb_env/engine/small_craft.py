"""Small craft: the Hydran Stinger-F fighter (J4.0) and administrative shuttles (J1.0) as unit
rows with a built-in pilot.

Fighters a carrier's sheet lists and, under ``rules.admin_shuttles``, each ship's
administrative shuttles get unit rows (with one phaser-G or phaser-3 weapon row) when the
battle is built; ``battle.craft_carrier`` and ``battle.craft_gun`` map them to their ship and
gun. This module applies launch, movement, fire, being fired at, damage, close-combat
maneuvering, fighter tactical maneuvers, landing and repair aboard, and flies them
(PROPOSAL [P-086]).

Entry points: ``fighter_rows`` / ``shuttle_rows`` (build), ``launch_capacity``,
``carrier_blocker``, ``close_combat``, ``take_damage`` (``rule_tables.DAMAGE_HANDLERS``),
``pilot_maneuver`` (``robots.PILOTS``), ``turn_mode``, ``crippled``.

Rules digest (every rule with its number, the pilot, the documented gaps):
docs/engine/small_craft.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap, impulse
from sfb_env.data.ships import WeaponMount
from sfb_env.engine import cloak, fire_geometry, geometry, movement, planets, shields
from sfb_env.engine import events as ev
from sfb_env.engine.fighters import MAX_FIGHTER_TARGET_RANGE
from sfb_env.engine.phaser_g import shots_this_turn
from sfb_env.engine.types import (
    ACTIVE,
    K_FIGHTER,
    K_FREIGHTER,
    K_PLANET,
    K_SHIP,
    K_SHUTTLE,
    NEVER,
    UNUSED,
    IllegalOrderError,
    Maneuver,
    Orders,
    Status,
)
from sfb_env.engine.weapon_records import gatling

if TYPE_CHECKING:
    from sfb_env.data.ships import ShipClass
    from sfb_env.engine.battle import Battle

CONTROLLER = "robot-fighter"  # every fighter row flies under the built-in pilot
SHUTTLE_CONTROLLER = "robot-shuttle"  # every administrative shuttle row too
FIGHTER_TYPES = ("stinger-f",)  # (J4.0) the only fighter of the Cadet Training Handbook
MAX_SPEED = 15  # (J4.12)
CRIPPLED_SPEED = 8  # (J4.12)
TURN_MODE_2_SPEED = 12  # (J4.12) turn mode 2 at speed 12 or more, else 1
CRIPPLED_AT = 7  # (J4.12, J4.32) damage points
DESTROYED_AT = 10  # (J4.49)
FIRST_SHOT_DELAY = 8  # (J4.32) impulses after launch before the first shot
CRIPPLED_SHOTS = 1  # (J4.32) one phaser-3 shot a turn while crippled
PILOT_FIRE_RANGE = 2  # (SCENARIOS §2.9 PROPOSAL [P-087]) the pilot fires at range 2 or less
TARGET_KINDS = (K_SHIP, K_FREIGHTER, K_FIGHTER, K_SHUTTLE)  # craft targets (PROPOSAL [P-095])
GUN = WeaponMount(id="PHG", type="ph-g", arcs=("FA",))  # (J4.32) one phaser-G, FA only
SHUTTLE_GUN = WeaponMount(id="PH3", type="ph-3", arcs=("360",))  # (J1.0, CTH-DATA §8.6)
SHUTTLE_LAUNCH_GAP = 2  # (J1.0, CTH-DATA §8.6) one launch per bay per 2 consecutive impulses
LANDING_MAX_SHIP_SPEED = 6  # (J1.0, CTH-DATA §8.6) landing under own power: ship speed <= 6
RECOVERY_GAP = 2  # (J1.0, CTH-DATA §8.6) one launch or recovery per bay per 2 impulses
TAC_GAP = 4  # (J4.11, CTH-DATA §7.7) a fighter's TAC: no more often than once in 4 impulses


@dataclass(frozen=True)
class Craft:
    """One kind of small craft: speeds, damage thresholds and its one weapon."""

    kind: int
    controller: str
    max_speed: int
    crippled_speed: int
    crippled_at: int
    destroyed_at: int
    gun: WeaponMount
    name: str


CRAFT = {
    K_FIGHTER: Craft(K_FIGHTER, CONTROLLER, MAX_SPEED, CRIPPLED_SPEED, CRIPPLED_AT, DESTROYED_AT,
                     GUN, "fighter"),  # (J4.12, J4.32, J4.49)
    K_SHUTTLE: Craft(K_SHUTTLE, SHUTTLE_CONTROLLER, 6, 3, 3, 6, SHUTTLE_GUN,
                     "shuttle"),  # (J1.0, CTH-DATA §8.6)
}
SMALL_CRAFT = tuple(CRAFT)


class SmallCraftError(ValueError):
    """A carrier's fighter data the rules do not allow; names the ship and the rule."""


def fighter_rows(ship: ShipClass | None) -> int:
    """How many fighter rows ``ship`` needs (its sheet's ``fighters`` count; J4.0)."""
    if ship is None or ship.fighters is None:
        return 0
    if ship.fighters.type not in FIGHTER_TYPES:
        raise SmallCraftError(f"J4.0 {ship.key}: fighter type {ship.fighters.type!r} is not one "
                              f"of {', '.join(FIGHTER_TYPES)}")
    return int(ship.fighters.count)


def shuttle_rows(ship: ShipClass | None, rules) -> int:
    """How many administrative shuttle rows ``ship`` needs under ``rules.admin_shuttles``
    (J1.0): one per SHTL box, a fighter carrier one (CTH-DATA §8.7, §9.2)."""
    if ship is None or ship.freighter is not None or not rules.admin_shuttles:
        return 0
    return 1 if ship.fighters is not None else int(ship.systems.get("shuttle", 0))


def turn_mode(speed: int) -> int:
    """(J4.12) A Stinger's turn mode: 2 at speed 12 or more, else 1."""
    return 2 if speed >= TURN_MODE_2_SPEED else 1


def crippled(battle: Battle, craft: int) -> bool:
    """(J4.12; J1.0) A fighter with 7 or more damage points, a shuttle with 3 or more."""
    return int(battle.state.damage[craft]) >= CRAFT[int(battle.state.kind[craft])].crippled_at


def fighters_of(battle: Battle, carrier: int, kind: int = K_FIGHTER) -> np.ndarray:
    """Fighter rows (or, with ``kind=K_SHUTTLE``, shuttle rows) of ``carrier``, aboard or not."""
    return np.flatnonzero((battle.craft_carrier == carrier) & (battle.state.kind == kind))


def shuttles_of(battle: Battle, carrier: int) -> np.ndarray:
    """Administrative shuttle rows of ``carrier`` (aboard or not)."""
    return fighters_of(battle, carrier, K_SHUTTLE)


def aboard(battle: Battle, carrier: int, kind: int = K_FIGHTER) -> np.ndarray:
    """Rows of ``kind`` still aboard ``carrier`` (never launched)."""
    rows = fighters_of(battle, carrier, kind)
    st = battle.state
    # (J2.221 PROPOSAL [P-073]) a bomb is no admin shuttle
    if kind == K_SHUTTLE and battle.rules.suicide_shuttles:
        rows = rows[st.suicide_energy[rows] == 0]
    return rows[st.status[rows] == UNUSED]


def launch_capacity(battle: Battle, carrier: int, kind: int = K_FIGHTER) -> int:
    """Craft ``carrier`` may launch in one impulse. Fighters (J4.34): one per launch tube plus
    the bay hatch; the CTH sheets do not count tubes, and the Ranger launches all of its
    fighters at once (CTH-DATA §8.7), so every fighter on the sheet (PROPOSAL [P-085] for any other
    carrier). Shuttles: one (one bay, PROPOSAL [P-084]; J1.0)."""
    return len(fighters_of(battle, carrier)) if kind == K_FIGHTER else 1


# ---------------------------------------------------------------------- orders


def carrier_blocker(battle: Battle, carrier: int, kind: int = K_FIGHTER) -> str | None:
    """Why ``carrier`` can give no order to its craft of ``kind`` now, or None (J4.34 fighters,
    J1.0 shuttles)."""
    st = battle.state
    rule = "J4.34" if kind == K_FIGHTER else "J1.0"
    name = CRAFT[kind].name
    rows = fighters_of(battle, carrier, kind)
    if not len(rows):
        return f"{rule} this ship carries no {name}s"
    if st.status[carrier] != ACTIVE:
        return f"{rule} the ship is not in play"
    if st.impulse < 1:
        return "B2.0 no launch before the first impulse"
    if not np.any((st.status[rows] == ACTIVE) | (st.status[rows] == UNUSED)):
        return f"{rule} no {name} left aboard or in flight"
    if not len(aboard(battle, carrier, kind)):
        return None  # only a new target for the craft in flight
    if kind == K_SHUTTLE:
        last = int(st.launched_at[rows].max())
        if last != NEVER and st.absolute_impulse - last < SHUTTLE_LAUNCH_GAP:
            return "J1.0 one shuttle launch per bay per 2 consecutive impulses (CTH-DATA §8.6)"
    return cloak.fire_blocker(battle, carrier)  # (G13) a cloaked ship launches nothing


def order_blockers(battle: Battle, carrier: int, targets=None,
                   kind: int = K_FIGHTER) -> list[str | None]:
    """Per target unit row, the rule forbidding the order "launch (every fighter aboard / one
    administrative shuttle) and send ``carrier``'s craft of ``kind`` at this target" now (None =
    allowed); the single predicate of the ``fighters`` / ``shuttles`` action components and of
    ``Battle.validate``."""
    st = battle.state
    targets = np.arange(len(st.kind)) if targets is None else np.asarray(targets, dtype=np.int64)
    rule = carrier_blocker(battle, carrier, kind)
    if rule is not None:
        return [rule] * len(targets)
    code = "J4.34" if kind == K_FIGHTER else "J1.0"
    name = CRAFT[kind].name
    launching = len(aboard(battle, carrier, kind)) > 0
    out: list[str | None] = []
    for t in targets:
        if st.status[t] != ACTIVE:
            out.append(f"{code} the target is not in play")
        elif st.side[t] == st.side[carrier]:
            out.append(f"{code} {name}s are not sent at a friendly unit")
        elif st.kind[t] == K_PLANET:  # (P2.0) shuttles may land on a planet; fighters not (J4.34)
            out.append(None if kind == K_SHUTTLE else
                       "J4.34 fighters cannot land on planets in the Cadet Training Handbook")
        elif int(st.kind[t]) not in TARGET_KINDS:
            out.append(f"{code} {name}s are sent at ships, freighters, fighters or shuttles "
                       "(PROPOSAL: not at seeking weapons)")  # [P-095]
        elif launching and st.x[t] == st.x[carrier] and st.z[t] == st.z[carrier]:
            out.append("F2.3 launch at a target in the carrier's hex is not modelled")
        else:
            out.append(None)
    return out


def validate(battle: Battle, unit: int, order: Orders, name: str) -> None:
    """Raise ``IllegalOrderError`` for a fighter (J4.34) or shuttle (J1.0) order the rules
    forbid."""
    for component, target, kind in (("fighters", order.fighters, K_FIGHTER),
                                    ("shuttles", order.shuttles, K_SHUTTLE)):
        if target is None:
            continue
        if isinstance(target, bool) or not isinstance(target, (int, np.integer)) \
                or not 0 <= target < len(battle.state.kind):
            raise IllegalOrderError(name, component, target, "no such target unit")
        rule = order_blockers(battle, unit, [int(target)], kind)[0]
        if rule is not None:
            raise IllegalOrderError(name, component, battle.unit_ids[int(target)], rule)


# ---------------------------------------------------------------------- launch


def launch_step(battle: Battle, orders: dict[int, Orders]) -> None:
    """Launch and target small craft (J4.34, J1.0): agents' ``fighters`` and ``shuttles``
    orders, then robot carriers' fighters on impulse 1, turn 1 (SCENARIOS §2.9 PROPOSAL [P-085])."""
    st = battle.state
    for carrier, order in orders.items():
        if order.fighters is not None:
            send(battle, int(carrier), int(order.fighters))
        if order.shuttles is not None:
            send(battle, int(carrier), int(order.shuttles), K_SHUTTLE)
    if st.turn == 1 and st.impulse == 1:
        carriers = battle.craft_carrier[st.kind == K_FIGHTER]
        for carrier in np.unique(carriers):
            c = int(carrier)
            if battle.controllers[c] == "agent" or st.status[c] != ACTIVE:
                continue
            target = _nearest(battle, c, (K_SHIP,))
            if target is not None and order_blockers(battle, c, [target])[0] is None:
                send(battle, c, target)


def send(battle: Battle, carrier: int, target: int, kind: int = K_FIGHTER) -> None:
    """Put up to ``launch_capacity`` craft of ``kind`` aboard ``carrier`` on the map in its hex
    (J4.34, J1.0) and point every craft of that kind in flight at ``target``."""
    st = battle.state
    now = st.absolute_impulse
    craft = CRAFT[kind]
    for f in aboard(battle, carrier, kind)[: launch_capacity(battle, carrier, kind)]:
        f = int(f)
        # (FD1.2 analogy) FA at the target
        facing = fire_geometry.launch_facing(battle, carrier, target)
        st.status[f] = Status.ACTIVE
        st.x[f], st.z[f] = st.x[carrier], st.z[carrier]
        st.prev_x[f], st.prev_z[f] = st.x[carrier], st.z[carrier]
        st.facing[f] = st.prev_facing[f] = facing
        st.speed[f] = craft.crippled_speed if crippled(battle, f) else craft.max_speed
        st.straight[f] = 0  # (J1, CTH-DATA §8.6) one hex straight after launch
        st.launched_at[f] = now
        battle.log(ev.Launched(
            st.turn, st.impulse, battle.unit_ids[carrier], f"{battle.unit_ids[carrier]}.bay",
            battle.unit_ids[f], battle.unit_ids[target], battle.label(f),
            hexmap.DIRECTION_LETTERS[facing]))
    rows = fighters_of(battle, carrier, kind)
    flying = st.status[rows] == ACTIVE
    if battle.rules.suicide_shuttles:  # (J2.22) a suicide shuttle's target is fixed at launch
        flying &= ~st.suicide_launched[rows]
    st.target[rows[flying]] = target


# ---------------------------------------------------------------------- movement


def move_fighters(battle: Battle) -> None:
    """(J4.12) Fighters move after all ships, before seeking weapons, on the pilot's choice;
    among themselves slower first, then by row (C1.3)."""
    st = battle.state
    close_combat_maneuvers(battle)  # (J4.52) before anyone else moves: those stay in the hex
    moving = movement.movers(battle, (K_FIGHTER,))
    for f in sorted((int(f) for f in moving), key=lambda f: (int(st.speed[f]), f)):
        m = pilot_maneuver(battle, f)
        if m != Maneuver.NONE:
            movement.move_unit(battle, f, m)
        else:
            _pilot_tac(battle, f)
    home = battle.craft_carrier
    hurt = np.flatnonzero((st.kind == K_FIGHTER) & (st.status == ACTIVE)
                          & (st.damage >= CRIPPLED_AT))
    for f in hurt:  # (J4.48, J1.0) the pilot lands a crippled fighter in its carrier's hex
        if st.x[f] == st.x[home[f]] and st.z[f] == st.z[home[f]] \
                and land_blocker(battle, int(f)) is None:
            land(battle, int(f))


def land_blocker(battle: Battle, craft: int) -> str | None:
    """Why ``craft`` cannot land aboard its carrier now, or None (J4.48 "landing as shuttles",
    J1.0 as in CTH-DATA §8.6): in play, in the carrier's hex, the carrier in play and moving at
    speed 6 or less, and the carrier's bay neither launched nor recovered a craft on this or the
    previous impulse (one launch or recovery per bay per 2 consecutive impulses; one bay,
    PROPOSAL [P-084] as for launches). Its own box is free: every craft keeps its row."""
    st = battle.state
    carrier = int(battle.craft_carrier[craft])
    if carrier < 0 or st.status[craft] != ACTIVE:
        return "J4.48 only a small craft in play lands"
    if st.status[carrier] != ACTIVE:
        return "J4.48 its carrier is not in play"
    if st.x[craft] != st.x[carrier] or st.z[craft] != st.z[carrier]:
        return "J1.0 a craft lands only in its carrier's hex (CTH-DATA §8.6)"
    if int(st.speed[carrier]) > LANDING_MAX_SHIP_SPEED:
        return (f"J1.0 a craft lands under its own power only aboard a ship moving at speed "
                f"{LANDING_MAX_SHIP_SPEED} or less (CTH-DATA §8.6)")
    rows = np.flatnonzero(battle.craft_carrier == carrier)
    last = max(int(battle.state.craft_landed[rows].max()), int(st.launched_at[rows].max()))
    if last != NEVER and st.absolute_impulse - last < RECOVERY_GAP:
        return ("J1.0 one launch or recovery per bay per 2 consecutive impulses "
                "(CTH-DATA §8.6)")
    return None


def land(battle: Battle, craft: int) -> None:
    """(J4.48, J1.0) ``craft`` lands aboard its carrier: off the map (status UNUSED again), so
    the carrier's ``fighters`` launch order includes it. Raises ``ValueError`` naming the rule
    when ``land_blocker`` forbids it."""
    rule = land_blocker(battle, craft)
    if rule is not None:
        raise ValueError(f"{rule} ({battle.unit_ids[craft]})")
    st = battle.state
    carrier = int(battle.craft_carrier[craft])
    battle.log(ev.Landed(st.turn, st.impulse, battle.unit_ids[craft], battle.unit_ids[carrier],
                         battle.label(craft)))
    st.status[craft] = UNUSED
    st.target[craft] = -1
    battle.state.craft_landed[craft] = st.absolute_impulse


def end_of_turn(battle: Battle) -> None:
    """(J4.48) Every fighter aboard since before this turn began (landed on an earlier turn, not
    launched since) has 1 damage point repaired; below 7 it is no longer crippled. PROPOSAL [P-096]:
    every such fighter is declared under repair."""
    st = battle.state
    start = (st.turn - 1) * st.impulses_per_turn  # the absolute impulse before impulse 1
    rows = np.flatnonzero((st.kind == K_FIGHTER) & (st.status == UNUSED) & (st.damage > 0)
                          & (st.craft_landed != NEVER) & (st.craft_landed <= start))
    for f in rows:
        st.damage[f] -= 1
        battle.log(ev.CraftRepaired(st.turn, st.impulse, battle.unit_ids[f], int(st.damage[f])))


def tac_blocker(battle: Battle, craft: int) -> str | None:
    """Why ``craft`` cannot make a tactical maneuver now, or None (J4.11): fighters only, at
    speed 0 (it does not move this impulse), whenever its maximum current speed (8 when
    crippled, J4.12) would move it, no more often than once in every 4 impulses. No energy."""
    st = battle.state
    if st.kind[craft] != K_FIGHTER:
        return "J4.11 only fighters (not other shuttles) make tactical maneuvers"
    if st.status[craft] != ACTIVE:
        return "J4.11 the fighter is not in play"
    if st.impulse < 1:
        return "B2.0 no movement before the first impulse"
    spec = CRAFT[K_FIGHTER]
    top = spec.crippled_speed if crippled(battle, craft) else spec.max_speed
    if not impulse.moves_on_np(np.array([top]), st.impulse, st.impulses_per_turn)[0]:
        return f"J4.11 its maximum speed {top} calls for no movement on impulse {st.impulse}"
    last = int(battle.state.craft_tac[craft])
    if last != NEVER and st.absolute_impulse - last < TAC_GAP:
        return f"J4.11 no more than one tactical maneuver in {TAC_GAP} impulses"
    return None


def fighter_tac(battle: Battle, craft: int, turned: int) -> None:
    """(J4.11, C5.2) Rotate fighter ``craft`` 60 degrees in place, ``turned`` -1 left / +1 right;
    its straight-hex count restarts (C5.4). Raises ``ValueError`` naming J4.11 when forbidden."""
    rule = tac_blocker(battle, craft)
    if rule is not None:
        raise ValueError(f"{rule} ({battle.unit_ids[craft]})")
    if turned not in (-1, 1):
        raise ValueError(f"J4.11 a tactical maneuver turns one hex side (-1 or +1), not {turned!r}")
    st = battle.state
    st.facing[craft] = (int(st.facing[craft]) + turned) % 6
    st.straight[craft] = 0
    battle.state.craft_tac[craft] = st.absolute_impulse
    battle.log(ev.TacticalManeuver(st.turn, st.impulse, battle.unit_ids[craft],
                                   battle.label(craft),
                                   hexmap.DIRECTION_LETTERS[int(st.facing[craft])], turned,
                                   "J4.11 fighter"))


def _pilot_tac(battle: Battle, fighter: int) -> None:
    """The pilot's TAC (PROPOSAL [P-092], J4.11): a fighter holding in its target's hex without CCM
    (the target has no shields, or entered this impulse) turns one hex side toward the target's
    facing, the shorter way (left when opposite), so it can follow straight when the target
    leaves."""
    st = battle.state
    t = int(st.target[fighter])
    if t < 0 or battle.state.craft_ccm[fighter] == st.absolute_impulse \
            or st.x[t] != st.x[fighter] or st.z[t] != st.z[fighter]:
        return
    off = (int(st.facing[t]) - int(st.facing[fighter])) % 6
    if off and tac_blocker(battle, fighter) is None:
        fighter_tac(battle, fighter, 1 if off in (1, 2) else -1)


def ccm_blocker(battle: Battle, fighter: int, ship: int) -> str | None:
    """Why ``fighter`` cannot use close-combat maneuvering against ``ship`` now, or None
    (J4.52, J4.521): an active fighter and an active ship with shields, in one hex, both there
    at the end of the previous impulse (neither entered this impulse)."""
    st = battle.state
    if st.kind[fighter] != K_FIGHTER or st.status[fighter] != ACTIVE:
        return "J4.52 only a fighter in play uses close-combat maneuvering"
    if st.status[ship] != ACTIVE or not shields.has_facing_shields(battle, ship):
        return "J4.52 close-combat maneuvering is used against a ship in play"
    here = (st.x[ship], st.z[ship])
    if (st.x[fighter], st.z[fighter]) != here:
        return "J4.521 the fighter must be in the ship's hex"
    if (st.prev_x[ship], st.prev_z[ship]) != here:
        return "J4.521 not against a ship that entered the hex this impulse"
    if (st.prev_x[fighter], st.prev_z[fighter]) != here:
        return "J4.521 not by a fighter that entered the hex this impulse"
    return None


def ccm_shield(battle: Battle, ship: int) -> int:
    """The shield 1..6 the pilot's fighter faces when it uses CCM on ``ship`` (PROPOSAL [P-091],
    J4.522 "usually facing a down or weak shield"): the one with the fewest boxes left, the
    lowest number on ties. Deterministic, no dice."""
    return int(np.argmin(battle.state.shields[ship])) + 1


def close_combat_maneuver(battle: Battle, fighter: int, ship: int, shield: int) -> None:
    """(J4.522) ``fighter`` stays in the hex and is re-faced to put ``ship`` on its forward
    centre line, facing ``shield``; it is then in the ship's matching arcs (J4.523: a D6 facing
    A, #3 shield, fighter facing F, in the R and RR arcs). Implemented by placing the fighter's
    previous-impulse position (the one range-0 arcs and shields are judged from, D3.42) in the
    hex next to the ship in that shield's direction, facing the ship: "deemed to have moved
    around the ship". Until the next impulse every ship in the hex may fire at it regardless of
    arcs (``close_combat``). Raises ``ValueError`` naming J4.52 when the rules forbid it."""
    rule = ccm_blocker(battle, fighter, ship)
    if rule is not None:
        raise ValueError(f"{rule} ({battle.unit_ids[fighter]} against {battle.unit_ids[ship]})")
    if not 1 <= shield <= 6:
        raise ValueError(f"J4.522 shield {shield!r} is not one of 1..6")
    st = battle.state
    side = (int(st.facing[ship]) + shield - 1) % 6  # shield #k faces ship facing + k - 1
    nx, nz = hexmap.neighbor_np(st.x[ship], st.z[ship], np.array([side]))
    st.prev_x[fighter], st.prev_z[fighter] = int(nx[0]), int(nz[0])
    st.facing[fighter] = st.prev_facing[fighter] = (side + 3) % 6
    battle.state.craft_ccm[fighter] = st.absolute_impulse
    battle.log(ev.TacticalManeuver(st.turn, st.impulse, battle.unit_ids[fighter],
                                   battle.label(fighter),
                                   hexmap.DIRECTION_LETTERS[int(st.facing[fighter])], 0,
                                   f"J4.52 close-combat maneuvering, shield #{shield}"))


def close_combat_maneuvers(battle: Battle) -> None:
    """The pilot uses CCM (J4.52) every impulse its fighter may against the ship it is sent at
    (PROPOSAL [P-091]: it always wants the weakest shield, ``ccm_shield``)."""
    st = battle.state
    rows = np.flatnonzero((st.kind == K_FIGHTER) & (st.status == ACTIVE) & (st.target >= 0))
    for f in rows:
        t = int(st.target[f])
        if crippled(battle, int(f)) and st.status[battle.craft_carrier[f]] == ACTIVE:
            continue  # (J4.48 PROPOSAL [P-093]) a crippled fighter heads home instead
        if st.x[t] == st.x[f] and st.z[t] == st.z[f] and ccm_blocker(battle, int(f), t) is None:
            close_combat_maneuver(battle, int(f), t, ccm_shield(battle, t))


def pilot_maneuver(battle: Battle, fighter: int) -> Maneuver:
    """The pilot's move for a fighter or shuttle (PROPOSAL [P-086], SCENARIOS §2.9, §2.3): stay in
    the target's hex, else straight unless a turn the turn mode allows enters a strictly closer
    hex (the closer turn, ties to the left); no target: straight. A crippled fighter's target is
    its carrier (J4.48), and it turns whenever straight brings it no closer."""
    st = battle.state
    t = _current_target(battle, fighter)
    home = int(battle.craft_carrier[fighter])
    homing = bool(((st.kind[fighter] == K_FIGHTER and crippled(battle, fighter))
                   or (battle.rules.planets_in_play and planets.homing(battle, fighter)))
                  and st.status[home] == ACTIVE)  # (scenario 9) survivors aboard: home
    if homing:
        t = home  # (J4.48 PROPOSAL [P-093]) the pilot brings a crippled fighter home to land
    if t is None:
        return Maneuver.STRAIGHT
    x, z, f = st.x[fighter], st.z[fighter], st.facing[fighter]
    if st.x[t] == x and st.z[t] == z:
        return Maneuver.NONE
    dirs = np.array([f, (f - 1) % 6, (f + 1) % 6])
    nx, nz = hexmap.neighbor_np(x, z, dirs)
    straight, left, right = (int(v) for v in hexmap.distance_np(nx, nz, st.x[t], st.z[t]))
    if st.straight[fighter] < movement.turn_mode(battle, fighter):  # (C3.2, J4.12, J1.0)
        return Maneuver.STRAIGHT
    if homing and straight >= int(hexmap.distance_np(x, z, st.x[t], st.z[t])):
        # (PROPOSAL [P-089]) homing, it turns back when straight gains nothing: the closer turn that
        # stays on the map, ties to the left
        on_map = [battle.in_area(int(nx[i]), int(nz[i])) for i in (1, 2)]
        if on_map[0] and (left <= right or not on_map[1]):
            return Maneuver.TURN_LEFT
        return Maneuver.TURN_RIGHT if on_map[1] else Maneuver.STRAIGHT
    if left < straight and left <= right:
        return Maneuver.TURN_LEFT
    if right < straight:
        return Maneuver.TURN_RIGHT
    return Maneuver.STRAIGHT


def _current_target(battle: Battle, fighter: int) -> int | None:
    """The fighter's target, retargeted to the nearest enemy ship or freighter once it left
    play (PROPOSAL [P-088])."""
    st = battle.state
    t = int(st.target[fighter])
    if t >= 0 and st.status[t] == ACTIVE:
        return t
    t = _nearest(battle, fighter, (K_SHIP, K_FREIGHTER))
    st.target[fighter] = -1 if t is None else t
    return t


def _nearest(battle: Battle, unit: int, kinds: tuple[int, ...]) -> int | None:
    st = battle.state
    rows = np.flatnonzero((st.status == ACTIVE) & (st.side != st.side[unit])
                          & np.isin(st.kind, kinds))
    if not len(rows):
        return None
    rng = geometry.table(st).range[unit, rows]
    return int(rows[np.lexsort((rows, rng))[0]])


# ---------------------------------------------------------------------- fire


def gun_blocker(battle: Battle, w: int) -> str | None:
    """Why a small craft's gun ``w`` cannot fire now, or None. A fighter: eight impulses after
    launch (J4.32), one shot a turn while crippled (J4.32); the phaser-G limits are
    ``direct_fire``'s. A shuttle: not within a quarter turn of its launch (J1.0, CTH-DATA §8.6);
    once a turn and a quarter turn after its last shot are E1.5's."""
    st = battle.state
    f = int(st.w_owner[w])
    launched = int(st.launched_at[f])
    if st.kind[f] == K_SHUTTLE:
        if battle.rules.suicide_shuttles and st.suicide_launched[f]:
            return "J2.22 a suicide shuttle does not fire (PROPOSAL)"  # [P-077]
        if launched == NEVER or st.absolute_impulse - launched < battle.quarter_turn:
            return (f"J1.0 a shuttle may not fire within a quarter turn ({battle.quarter_turn} "
                    "impulses) of its launch (CTH-DATA §8.6)")
        return None
    if launched == NEVER or st.absolute_impulse - launched < FIRST_SHOT_DELAY:
        return (f"J4.32 a fighter may not fire until {FIRST_SHOT_DELAY} impulses after its "
                "launch")
    if crippled(battle, f) and shots_this_turn(gatling(battle, w), st.turn) >= CRIPPLED_SHOTS:
        return "J4.32 a crippled fighter fires one phaser-3 shot a turn"
    return None


def close_combat(battle: Battle, w: int, targets: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """(J4.51) Close-combat maneuvering against shuttles: a fighter's gun ``w`` bears on any
    other shuttle (fighters are shuttles too, J4.0) in its own hex, whatever its facing; a
    ship's weapon ``w`` bears on any fighter in its hex using CCM this impulse (J4.522)."""
    st = battle.state
    if st.kind[st.w_owner[w]] != K_FIGHTER:
        if not shields.has_facing_shields(battle, int(st.w_owner[w])):
            return np.zeros(len(targets), dtype=bool)
        # (J4.522) any ship in the hex fires any weapon at a fighter using CCM, whatever its arcs
        return (battle.state.craft_ccm[targets] == st.absolute_impulse) & (rng == 0)
    return (battle.craft_carrier[targets] >= 0) & (rng == 0)


def target_blocker(battle: Battle, target: int, rng: int) -> str | None:
    """(J4.47, J1.35) A fighter or shuttle cannot be fired at beyond 5 hexes."""
    kind = int(battle.state.kind[target])
    if kind in SMALL_CRAFT and rng > MAX_FIGHTER_TARGET_RANGE:
        rule = "J4.47" if kind == K_FIGHTER else "J1.35"
        return (f"{rule} a {CRAFT[kind].name} cannot be fired at beyond "
                f"{MAX_FIGHTER_TARGET_RANGE} hexes (range {rng})")
    return None


# ---------------------------------------------------------------------- damage


def take_damage(battle: Battle, craft: int, points: int) -> None:
    """Points on a small craft (no shields). A fighter (J4.12, J4.49): crippled at 7, its speed
    cut to 8 at once (PROPOSAL [P-097]: the book gives no moment; the shuttle's is "at once"),
    destroyed at 10. A shuttle (J1.0, CTH-DATA §8.6): crippled at 3 (speed at most 3 at once),
    destroyed at 6."""
    st = battle.state
    spec = CRAFT[int(st.kind[craft])]
    was_crippled = crippled(battle, craft)
    st.damage[craft] += points
    battle.log(ev.Damaged(st.turn, st.impulse, battle.unit_ids[craft], 0, 0, points, ()))
    if st.damage[craft] >= spec.destroyed_at:
        st.status[craft] = Status.DESTROYED
        battle.log(ev.Destroyed(st.turn, st.impulse, battle.unit_ids[craft]))
    elif not was_crippled and crippled(battle, craft):
        st.speed[craft] = min(int(st.speed[craft]), spec.crippled_speed)


def lift_survivors(battle: Battle) -> None:
    """(CTH-DATA §12.4 PROPOSAL [P-111]) Survivors board each shuttle landed on their planet this
    impulse; a shuttle carrying them lands aboard its carrier when the landing limits allow
    (J1.0, ``land_blocker``), the crew units going aboard with it."""
    st = battle.state
    if not len(planets.planet_rows(battle)):
        return
    for s in np.flatnonzero(planets.landed(battle)):
        s = int(s)
        p = int(st.target[s])
        if p >= 0 and planets.lift_blocker(battle, s, p) is None:
            st.crew_units[p] -= 1
            st.crew_units[s] += 1
            battle.log(ev.CrewLifted(st.turn, st.impulse, battle.unit_ids[s],
                                     battle.unit_ids[p], "shuttle"))
    for s in np.flatnonzero((st.kind == K_SHUTTLE) & (st.status == ACTIVE)
                            & (st.crew_units > 0)):
        s = int(s)
        home = int(battle.craft_carrier[s])
        if land_blocker(battle, s) is None:
            crew = int(st.crew_units[s])
            land(battle, s)
            st.crew_units[s] = 0
            st.crew_units[home] += crew
            battle.log(ev.CrewLifted(st.turn, st.impulse, battle.unit_ids[home],
                                     battle.unit_ids[s], "landed"))
