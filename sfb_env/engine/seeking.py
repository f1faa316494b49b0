"""Seeking weapons: drone launch (FD1.2), homing movement (F2.0-F2.2), impact (FD1.6),
endurance (FD1.4) and control (FD1.3). Plasma torpedoes (FP1) live in ``engine.plasma``; they
home and strike through the same steps here.

``launch_blockers`` is the single legality predicate for a launch order (drone rack or plasma
launcher -> target).
Launch facing: of the six facings that put the target in the drone's FA (FD1.2), the one whose
first straight hex is closest to the target (ties: the facing nearest the launcher's own). [P-061]
A launch at a target in the launcher's own hex is legal (FD1.2 places the drone on the launcher;
F2.3): its facing is judged with the launcher moved back one hex directly astern (CTH-DATA
§1.5), so the drone takes the launcher's facing. Launch Seeking Weapons comes after Resolve
Seeking Weapons (B2.0), so the drone strikes in the next impulse's Resolve Seeking Weapons step
if its target is still in its hex (FD1.6: a drone in its target's hex then explodes; it does
not move, F2.1), on the shield facing the hex astern of the launcher (F2.3); a target that
moves out first is pursued, the first move straight ahead (FD1.2). PROPOSAL [P-062]: the
strike waits for the next Resolve step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import (
    boarding,
    cloak,
    energy_switches,
    kill_methods,
    planets,
    plasma,
    sensors,
    shields,
    unit_rules,
)
from sfb_env.engine import events as ev
from sfb_env.engine.fighters import drone_damage_vs_fighter
from sfb_env.engine.fire_geometry import fa_facings
from sfb_env.engine.fire_geometry import launch_facing as launch_facing
from sfb_env.engine.types import (
    ACTIVE,
    DESTROYED,
    K_DRONE,
    K_FIGHTER,
    K_MONSTER,
    K_PLASMA,
    K_SHUTTLE,
    NEVER,
    Maneuver,
    Status,
    UnitKind,
    WeaponType,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

SEEKING = (UnitKind.DRONE, UnitKind.TARGET_DRONE, UnitKind.PLASMA)
SUICIDE_MAX_WARHEAD = 18  # (J2.222) 2 x the energy put in, at most 18
AVOID = 10**6  # (P2.0 PROPOSAL [P-065]) the distance a homing move into a planet hex counts as


def launch_blockers(
    battle: Battle, rack: int, targets: np.ndarray | None = None
) -> list[str | None]:
    """For each target unit row, the rule forbidding ``rack`` to launch at it now, or None
    (a plasma launcher: ``plasma.launch_blockers``); no lock-on to a cloaked target (D6)."""
    held = boarding.fire_blocker(battle, int(battle.state.w_owner[rack]))  # (D7.0) captured
    if held is not None:
        return [held] * (len(battle.state.kind) if targets is None else len(targets))
    out = _launch_blockers(battle, rack, targets)
    if battle.rules.hold_fire:  # (SCENARIOS #8 special) hold_fire_at: drones and plasma alike
        st = battle.state
        rows = np.arange(len(st.kind)) if targets is None else np.asarray(targets)
        held = unit_rules.hold_fire(battle, int(st.w_owner[rack]), rows)
        out = [why if why is not None or not h else unit_rules.hold_fire_rule(battle, int(t))
               for why, h, t in zip(out, held, rows, strict=True)]
    if battle.rules.lock_on or battle.rules.standard_cloak:
        st = battle.state
        targets = np.arange(len(st.kind)) if targets is None else np.asarray(targets)
        hidden = sensors.target_blockers(battle, targets)
        unlocked = sensors.launch_blocker(battle, int(st.w_owner[rack]))  # (D6) plasma too
        out = [why if why is not None else unlocked or h
               for why, h in zip(out, hidden, strict=True)]
    return out


def _launch_blockers(
    battle: Battle, rack: int, targets: np.ndarray | None = None
) -> list[str | None]:
    if plasma.is_launcher(battle, rack):
        return plasma.launch_blockers(battle, rack, targets)
    st = battle.state
    targets = np.arange(len(st.kind)) if targets is None else np.asarray(targets)
    rack_rule = rack_blocker(battle, rack)
    if rack_rule is not None:
        return [rack_rule] * len(targets)
    owner = st.w_owner[rack]
    out: list[str | None] = []
    for t in targets:
        if st.status[t] != ACTIVE:
            out.append("FD1.3 the target is not in play")
        elif st.side[t] == st.side[owner]:
            out.append("FD1.3 no launch at a friendly unit")
        elif st.kind[t] == K_PLASMA:
            out.append("FD1.3 a drone may not target a plasma torpedo")
        elif battle.rules.planets_in_play and planets.landed(battle)[t]:
            out.append(planets.LANDED_RULE)
        else:
            out.append(None)
    return out


def facing_blocker(battle: Battle, rack: int, target: int, facing: int) -> str | None:
    """(FD1.2) Why a drone of ``rack`` launched at ``target`` may not take ``facing`` (0..5,
    A..F), or None: "facing any direction at the option of the owning player so long as the
    target is in the drone's FA" (rule ``launch_facing``; the launch: ``launch_blockers``)."""
    if not battle.rules.launch_facing:
        return "FD1.2 the engine picks the launch facing in this scenario (rules.launch_facing)"
    if plasma.is_launcher(battle, rack):
        return "FP1.3 a plasma torpedo takes the engine's launch facing"  # [P-067]
    owner = int(battle.state.w_owner[rack])
    if not fa_facings(battle, owner, target)[facing]:
        return (f"FD1.2 facing {hexmap.DIRECTION_LETTERS[facing]} does not put the target in "
                "the drone's FA")
    return None


def rack_blocker(battle: Battle, rack: int) -> str | None:
    """Why ``rack`` (a drone rack or a plasma launcher) cannot launch at all this impulse, or
    None (FD1.2, E1.5; ``plasma.launcher_blocker``)."""
    st = battle.state
    if plasma.is_launcher(battle, rack):
        return (energy_switches.fire_control_blocker(battle, int(st.w_owner[rack]))  # (B3.0 line 8)
                or plasma.launcher_blocker(battle, rack)
                or sensors.launch_blocker(battle, int(st.w_owner[rack])))  # (D6)
    rules = battle.rules
    if int(st.w_type[rack]) != WeaponType.DRONE_RACK:
        return "FD1.1 only a drone rack launches drones"
    if st.status[st.w_owner[rack]] != ACTIVE:
        return "FD1.2 the launching unit is not in play"
    if not (rules.seeking_weapons and rules.launch_seeking_weapons):
        return "B2.0 this scenario skips the Launch Seeking Weapons step"
    if not st.w_enabled[rack]:
        return "scenario rules: this weapon is not used in this scenario"
    if st.w_destroyed[rack]:
        return "FD1.2 the drone rack is destroyed"
    if st.impulse < 1:
        return "B2.0 no launch before the first impulse"
    if st.w_ammo[rack] <= 0:
        return "FD1.2 the drone rack is empty"
    if st.w_fired_turn[rack] == st.turn:
        return "FD1.2 the rack has already launched this turn"
    if st.absolute_impulse - st.w_last_fired[rack] < battle.quarter_turn:
        return f"FD1.2 launched within a quarter turn ({battle.quarter_turn} impulses)"
    limit = ship_limit_blocker(battle, int(st.w_owner[rack]))
    if limit is not None:
        return limit
    unlocked = (sensors.launch_blocker(battle, int(st.w_owner[rack]))  # (D6)
                or sensors.control_blocker(battle, int(st.w_owner[rack])))
    if unlocked is not None:
        return unlocked
    unpowered = energy_switches.fire_control_blocker(battle, int(st.w_owner[rack]))  # (B3.0 line 8)
    if unpowered is not None:
        return unpowered
    return cloak.fire_blocker(battle, int(st.w_owner[rack]))  # (G13)


def ship_limit_blocker(battle: Battle, owner: int) -> str | None:
    """(FD4.21) Why ``owner`` may launch no more drones this turn: a D7/D6 launches only one
    drone per turn in total from its racks (the sheet's ``drone_launch_limit``), or None. The
    SSD note holds: one rack on impulse 32, the other on impulse 1 of the next turn."""
    ship = battle.ship_classes[owner]
    limit = getattr(ship, "drone_launch_limit", None) if ship is not None else None
    if limit is None:
        return None
    st = battle.state
    racks = (st.w_owner == owner) & (st.w_type == int(WeaponType.DRONE_RACK))
    if int(np.count_nonzero(racks & (st.w_fired_turn == st.turn))) >= limit:
        return f"FD4.21 the ship launches at most {limit} drone(s) per turn from all its racks"
    return None


def launch(battle: Battle, rack: int, target: int, facing: int | None = None) -> None:
    """Put the next drone of ``rack`` on the map in the launcher's hex (FD1.2), facing
    ``facing`` (the owner's pick, ``facing_blocker``) or, None, the one ``launch_facing`` picks;
    a plasma launcher launches a torpedo (``plasma.launch``)."""
    if plasma.is_launcher(battle, rack):
        plasma.launch(battle, rack, target)
        return
    st = battle.state
    owner = int(st.w_owner[rack])
    over = ship_limit_blocker(battle, owner)
    if over is not None:
        # (FD4.21) PROPOSAL [P-063]: masks judge each rack alone; of two racks ordered on the same
        # impulse the first in row order launches, the others are refused and logged.
        battle.log(ev.LaunchRefused(st.turn, st.impulse, battle.unit_ids[owner],
                                    battle.weapon_ids[rack], over))
        return
    slot = battle.rack_capacity[rack] - int(st.w_ammo[rack])
    drone = int(st.w_drone_rows[rack, slot])
    st.w_ammo[rack] -= 1
    st.w_fired_turn[rack] = st.turn
    st.w_last_fired[rack] = st.absolute_impulse
    if facing is None:  # (FD1.2) the automatic facing [P-061]
        facing = launch_facing(battle, owner, target)
    st.status[drone] = Status.ACTIVE
    st.x[drone], st.z[drone] = st.x[owner], st.z[owner]
    st.prev_x[drone], st.prev_z[drone] = st.x[owner], st.z[owner]
    st.facing[drone] = st.prev_facing[drone] = facing
    st.speed[drone] = st.impulses_per_turn  # (FD1.1) scenario maximum
    st.straight[drone] = 0  # (FD1.2) one hex straight before turning
    st.target[drone] = target
    st.launcher[drone] = owner
    st.launched_at[drone] = st.absolute_impulse
    battle.log(
        ev.Launched(
            st.turn, st.impulse, battle.unit_ids[owner], battle.weapon_ids[rack],
            battle.unit_ids[drone], battle.unit_ids[target], battle.label(drone),
            hexmap.DIRECTION_LETTERS[facing],
        )
    )


def robot_drone_maneuver(battle: Battle, drone: int):
    """(F2.0 special rule, SCENARIOS §2.3) Straight unless a turn enters a strictly closer hex.

    If both turns are strictly closer than straight, the closer one; if equally close, a die
    roll (odd = left, even = right; PROPOSAL [P-064] of SCENARIOS §2.3).
    """
    st = battle.state
    t = st.target[drone]
    x, z, f = st.x[drone], st.z[drone], st.facing[drone]
    dirs = np.array([f, (f - 1) % 6, (f + 1) % 6])
    nx, nz = hexmap.neighbor_np(x, z, dirs)
    d = hexmap.distance_np(nx, nz, st.x[t], st.z[t])
    # (P2.0 PROPOSAL [P-065]) homing steers clear of planet hexes it can avoid
    if battle.rules.planets_in_play:
        d = np.where(planets.in_planet_hex(battle, nx, nz), AVOID, d)
    straight, left, right = (int(v) for v in d)
    can_turn = st.straight[drone] >= 1  # (FD1.2) turn mode 1, first move straight
    tie = can_turn and left < straight and left == right  # the die is drawn only on a tie
    return pursuit_choice(straight, left, right, can_turn,
                          int(battle.rng.integers(1, 7)) if tie else 1)


def pursuit_choice(straight: int, left: int, right: int, can_turn: bool, die: int) -> Maneuver:
    """(SCENARIOS §2.3) Straight unless a permitted turn enters a strictly closer hex; both
    closer -> the closer; equally close -> ``die`` odd = left, even = right. Shared by robot
    drones and the robot ship's pursuit (``engine.robot_ship``)."""
    if not can_turn or (left >= straight and right >= straight):
        return Maneuver.STRAIGHT
    if left < straight and (right >= straight or left < right):
        return Maneuver.TURN_LEFT
    if right < straight and (left >= straight or right < left):
        return Maneuver.TURN_RIGHT
    return Maneuver.TURN_LEFT if die % 2 else Maneuver.TURN_RIGHT


def target_in_hex(battle: Battle, drone: int) -> bool:
    """(F2.1) The target has entered the drone's hex: the drone does not move and strikes."""
    st = battle.state
    t = st.target[drone]
    return t >= 0 and st.x[t] == st.x[drone] and st.z[t] == st.z[drone]


def launched_in_hex(battle: Battle, drone: int, target: int) -> bool:
    """(F2.3) The drone was launched on the last impulse in its target's hex and the target
    stayed there: neither moved into the hex this impulse."""
    st = battle.state
    return bool(int(st.kind[drone]) == K_DRONE
                and st.launched_at[drone] == st.absolute_impulse - 1
                and st.prev_x[drone] == st.x[drone] and st.prev_z[drone] == st.z[drone]
                and st.prev_x[target] == st.x[target] and st.prev_z[target] == st.z[target])


def suicide_warhead(battle: Battle, craft: int) -> int:
    """(J2.222) Explosion: 2 x the energy put in, at most 18."""
    return min(SUICIDE_MAX_WARHEAD, 2 * int(battle.state.suicide_energy[craft]))


def resolve_impacts(battle: Battle) -> None:
    """(FD1.6, F2.2, FP1.5) Drones and plasma torpedoes in their target's hex strike the shield
    facing their approach; against a cloaked target a die decides first (G13, ``cloak``).

    Seeking weapons striking one shield of one unit on one impulse form one volley (D4.0).
    """
    st = battle.state
    volleys: dict[tuple[int, int], int] = {}
    striking = (st.kind == K_DRONE) | (st.kind == K_PLASMA)
    if battle.rules.suicide_shuttles:  # (J2.222) suicide shuttles strike as seeking weapons
        striking = striking | st.suicide_launched
    active = np.flatnonzero((st.status == ACTIVE) & striking)
    for d in active:
        t = int(st.target[d])
        if t < 0 or st.status[t] != ACTIVE or not target_in_hex(battle, d):
            continue
        if st.tractor_holder[d] >= 0:  # (G7.0) a held object is never forced into contact
            continue
        fed_back = False
        if st.kind[d] == K_PLASMA:
            shield, warhead, fed_back = plasma.impact(battle, int(d), t)
        elif launched_in_hex(battle, int(d), t):
            # (F2.3) launched in the target's hex: from the hex astern of the launcher, the
            # hex behind the drone (it took the launcher's facing, ``launch_facing``)
            bx, bz = hexmap.neighbor_np(st.x[d], st.z[d], (st.facing[d] + 3) % 6)
            shield = shields.shield_from(battle, t, st.x[t], st.z[t], st.facing[t], bx, bz)
        elif st.prev_x[d] == st.x[d] and st.prev_z[d] == st.z[d]:
            # the target entered the drone's hex: the shield that faced the drone on entry
            shield = shields.shield_from(
                battle, t, st.prev_x[t], st.prev_z[t], st.facing[t], st.x[d], st.z[d]
            )
        else:
            shield = shields.shield_from(
                battle, t, st.x[t], st.z[t], st.facing[t], st.prev_x[d], st.prev_z[d]
            )
        if st.kind[d] == K_DRONE:
            warhead = int(battle.rules.drone_warhead)
            if st.kind[t] == K_FIGHTER:  # (J4.47) a natural 6: half the warhead
                warhead = drone_damage_vs_fighter(warhead, int(battle.rng.integers(1, 7)))
        elif st.kind[d] != K_PLASMA:  # (J2.222) a suicide shuttle: 2 x its energy, max 18
            warhead = suicide_warhead(battle, int(d))
        st.status[d] = Status.EXPENDED
        warhead = cloak.seeking_impact(battle, int(d), t, warhead)  # (G13)
        if warhead <= 0:
            continue
        if fed_back:
            plasma.feedback(battle, int(d), t, warhead)  # (FP1.8)
        battle.log(ev.SeekingHit(st.turn, st.impulse, battle.unit_ids[d], battle.unit_ids[t],
                                 shield, warhead))
        if battle.rules.monster_in_play and st.kind[t] == K_MONSTER and st.kind[d] == K_SHUTTLE:
            # (SCENARIOS §2.8 result 1) a suicide shuttle hit kills a researched monster
            kill_methods.struck_by(battle, t, kill_methods.Method.SUICIDE_SHUTTLE, int(d))
        volleys[(t, shield)] = volleys.get((t, shield), 0) + warhead
    for (t, shield), points in volleys.items():
        battle.apply_damage(t, shield, points)


def end_of_impulse(battle: Battle) -> None:
    """(FD1.4) Endurance of 3 turns counted in impulses (C1.44: launched on impulse 4 of turn 3,
    removed at the end of impulse 4 of turn 6); (FD1.3, D4.41) drones that lost their target or
    their controlling ship are removed. Plasma torpedoes: ``plasma.end_of_impulse``."""
    plasma.end_of_impulse(battle)
    st = battle.state
    rules = battle.rules
    now = st.absolute_impulse
    for d in np.flatnonzero((st.status == ACTIVE) & (st.kind == K_DRONE)):
        reason = None
        if (rules.drone_endurance and st.launched_at[d] != NEVER
                and now - st.launched_at[d] >= 3 * st.impulses_per_turn):
            reason = "FD1.4 endurance of 3 turns ran out"
        launcher, target = st.launcher[d], st.target[d]
        if launcher >= 0 and st.status[launcher] == DESTROYED:
            reason = "D4.41 the controlling ship was destroyed"
        if target >= 0 and st.status[target] != ACTIVE:
            reason = "FD1.3 the target is no longer in play"
        if reason:
            st.status[d] = Status.EXPENDED
            battle.log(ev.Expired(st.turn, st.impulse, battle.unit_ids[d], reason))


__all__ = [
    "WeaponType",
    "launch",
    "launch_blockers",
    "rack_blocker",
    "suicide_warhead",
    "resolve_impacts",
    "robot_drone_maneuver",
    "end_of_impulse",
]
