"""Plasma torpedoes (FP1-FP4): launch, warhead by distance, phaser damage, impact, feedback.

A plasma torpedo is a seeking unit (``UnitKind.PLASMA``) that homes like a drone (F2.0-F2.2,
``seeking.robot_drone_maneuver``, turn mode 1, first move straight, FP1.3) at the scenario's
seeking speed (FP1.4: the impulses per turn, the same speed drones use), so it moves exactly one
hex every impulse until it strikes: the hexes it has travelled are the impulses since its launch.

* **Rows.** Each launcher owns ``PLASMA_ROWS`` torpedo rows, built with the battle and reused
  once a torpedo is gone (PROPOSAL [P-066]: the 3-turn arming cycle of FP1.22 and the endurance of
  most 30 hexes keep at most two torpedoes of one launcher in flight even on the 8-impulse
  chart, so three rows never run out in play; a launch with every row in flight is refused with
  the capacity named). A reused row keeps its unit id.
* **Launch** (``launch_blockers``, the single predicate for masks and validation): in Launch
  Seeking Weapons of any impulse from a launcher whose ``w_armed`` is True (the energy rules
  arm it; FP1.22, FP1.23: none is armed at the start), after which it is unarmed. A fixed
  launcher (Romulan cadets) launches straight ahead at a target in the ship's FA (FP3.1); a
  launcher with printed arcs (Gorn) takes targets in those arcs and launches the torpedo facing
  the way closing fastest with the target in its FA, as a drone (FD1.2; PROPOSAL [P-067]). A launch
  into the target's own hex is allowed (FP1.3); it then has the ship's facing. PROPOSAL [P-068]: the
  targets are enemy ships and freighters (the rules give no seeking-weapon target for plasma).
* **Warhead** (FP1.0 table, ``tables.plasma_warhead``) by hexes travelled, less one point per 2
  phaser points it has taken, cumulatively (FP1.6; PROPOSAL [P-069] of CTH-DATA §5.1:
  floor(cumulative / 2)); a torpedo whose warhead reaches 0 is destroyed. Only phasers may fire
  at a plasma torpedo (FP1.6); drones, ESGs and other plasma cannot harm it (G23.81, G7.26).
* **Endurance**: S 25 hexes (FP1.4); F 15 and R 30 (CTH-DATA §5.1, LOW-confidence inference from
  the tables).
* **Impact** on entering the target's hex, on the shield facing the hex it came from, excess
  internal (FP1.5, F2.2). A torpedo that shares the hex without having moved into it (launched
  there, FP1.3) strikes the shield facing the hex behind it (PROPOSAL [P-070]).
* **Feedback** (FP1.8): a torpedo launched in its target's hex that strikes before the target
  moves puts a quarter of its warhead (x.5 rounded up) on the launcher's shield facing the
  target.
* **Guidance** survives the launcher's destruction (D4.42, FP4.0); PROPOSAL [P-071]: a torpedo whose
  target leaves play is removed. The launcher destroyed while armed (FP1.7: may still launch
  within a quarter turn) is not modelled: a destroyed launcher launches nothing. [P-072]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap, tables
from sfb_env.engine import cloak, shields
from sfb_env.engine import events as ev
from sfb_env.engine.fire_geometry import geometry
from sfb_env.engine.fire_geometry import launch_facing as drone_facing
from sfb_env.engine.types import (
    ACTIVE,
    K_FREIGHTER,
    K_PLASMA,
    K_SHIP,
    NEVER,
    Status,
    WeaponType,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

PLASMA_TYPE = {  # launcher weapon type -> warhead table and endurance key (FP1.0, FP2.0)
    int(WeaponType.PLASMA_S): "S",
    int(WeaponType.PLASMA_R): "R",
    int(WeaponType.PLASMA_F): "F",
}
ARMING = {"S": "2+2+4", "R": "2+2+5", "F": "1+1+3"}  # (FP1.22, FP2.0) for the refusal text
FEEDBACK_SHARE = 4  # (FP1.8) a quarter of the warhead


def is_launcher(battle: Battle, w: int) -> bool:
    """Whether weapon row ``w`` is a plasma launcher."""
    return int(battle.state.w_type[w]) in PLASMA_TYPE


def plasma_kind(battle: Battle, torpedo: int) -> str:
    """Warhead table of a torpedo row: "S", "R" or "F"."""
    return PLASMA_TYPE[int(battle.state.w_type[battle.plasma_launcher_of[torpedo]])]


def travelled(battle: Battle, torpedo: int) -> int:
    """Hexes a torpedo has moved since launch: one each impulse (see the module docstring)."""
    st = battle.state
    if st.launched_at[torpedo] == NEVER:
        return 0
    return max(0, st.absolute_impulse - int(st.launched_at[torpedo]))


def warhead(battle: Battle, torpedo: int) -> int:
    """(FP1.0, FP1.6) Current warhead: the table at the hexes travelled, less 1 per 2 phaser
    points taken so far (floor of the cumulative points over 2), never below 0."""
    st = battle.state
    base = tables.plasma_warhead(plasma_kind(battle, torpedo), travelled(battle, torpedo))
    return max(0, base - int(st.damage[torpedo]) // 2)


def endurance(battle: Battle, torpedo: int) -> int:
    """(FP1.4) Hexes a torpedo may travel: S 25; F 15 and R 30 (CTH-DATA §5.1, LOW)."""
    return tables.plasma_endurance(plasma_kind(battle, torpedo))


# ---------------------------------------------------------------------- launch


def free_row(battle: Battle, w: int) -> int:
    """A torpedo row of launcher ``w`` not in flight, or -1."""
    st = battle.state
    for row in battle.state.w_plasma_rows[w]:
        if row >= 0 and st.status[row] != ACTIVE:
            return int(row)
    return -1


def launcher_blocker(battle: Battle, w: int) -> str | None:
    """Why plasma launcher ``w`` cannot launch at all this impulse, or None."""
    st = battle.state
    rules = battle.rules
    if not is_launcher(battle, w):
        return "FP1.1 only a plasma launcher launches plasma torpedoes"
    owner = int(st.w_owner[w])
    if st.status[owner] != ACTIVE:
        return "FP1.3 the launching ship is not in play"
    if not (rules.seeking_weapons and rules.launch_seeking_weapons):
        return "B2.0 this scenario skips the Launch Seeking Weapons step"
    if not st.w_enabled[w]:
        return "scenario rules: this weapon is not used in this scenario"
    if st.w_destroyed[w]:
        return ("D4.0 the plasma launcher is destroyed (FP1.7 launching within a quarter turn "
                "of its destruction is not modelled)")
    if st.impulse < 1:
        return "B2.0 no launch before the first impulse"
    if not st.w_armed[w]:
        kind = PLASMA_TYPE[int(st.w_type[w])]
        return (f"FP1.22 the launcher holds no armed torpedo (plasma-{kind} arms with "
                f"{ARMING[kind]} energy on 3 consecutive turns; none is armed at the start, "
                "FP1.23)")
    cloaked = cloak.fire_blocker(battle, owner)
    if cloaked is not None:
        return cloaked
    if free_row(battle, w) < 0:
        return (f"engine capacity: all {st.w_plasma_rows.shape[1]} torpedo rows of this "
                "launcher are in flight (PROPOSAL, engine.plasma)")  # [P-066]
    return None


def launch_blockers(
    battle: Battle, w: int, targets: np.ndarray | None = None
) -> list[str | None]:
    """For each target unit row, the rule forbidding launcher ``w`` to launch at it now, or
    None (FP1.3, FP3.1; the single predicate for masks and order validation)."""
    st = battle.state
    targets = np.arange(len(st.kind)) if targets is None else np.asarray(targets, dtype=np.int64)
    rule = launcher_blocker(battle, w)
    if rule is not None:
        return [rule] * len(targets)
    owner = st.w_owner[w]
    _, in_arc = geometry(battle, w, targets)
    out: list[str | None] = []
    for i, t in enumerate(targets):
        if st.status[t] != ACTIVE:
            out.append("FP1.3 the target is not in play")
        elif st.side[t] == st.side[owner]:
            out.append("FP1.3 no launch at a friendly unit")
        elif int(st.kind[t]) not in (K_SHIP, K_FREIGHTER):
            out.append("FP1.3 plasma torpedoes are launched at ships (PROPOSAL, engine.plasma)")  # [P-068]  # noqa: E501
        elif not in_arc[i]:
            out.append("FP3.1 a fixed launcher's target must be in the ship's FA"
                       if battle.plasma_fixed[w]
                       else "FP3.0 the target is outside the launcher's printed arcs")
        else:
            out.append(None)
    return out


def launch_facing(battle: Battle, w: int, target: int) -> int:
    """Facing of a new torpedo: the ship's facing for a fixed launcher (FP3.1) or a launch in
    the target's hex; else as a drone (FD1.2, PROPOSAL [P-067] for printed-arc launchers)."""
    st = battle.state
    owner = int(st.w_owner[w])
    same_hex = st.x[owner] == st.x[target] and st.z[owner] == st.z[target]
    if battle.plasma_fixed[w] or same_hex:
        return int(st.facing[owner])
    return drone_facing(battle, owner, target)


def launch(battle: Battle, w: int, target: int) -> None:
    """Put a torpedo of launcher ``w`` on the map in the ship's hex; the launcher is unarmed."""
    st = battle.state
    owner = int(st.w_owner[w])
    row = free_row(battle, w)
    if row < 0:  # validated when ordered; cannot happen through Battle.step
        raise RuntimeError(f"{battle.weapon_ids[w]}: no free torpedo row")
    facing = launch_facing(battle, w, target)
    st.w_armed[w] = False  # (FP1.22) the next torpedo arms from nothing
    st.w_fired_turn[w] = st.turn
    st.w_last_fired[w] = st.absolute_impulse
    st.status[row] = Status.ACTIVE
    st.x[row], st.z[row] = st.x[owner], st.z[owner]
    st.prev_x[row], st.prev_z[row] = st.x[owner], st.z[owner]
    st.facing[row] = st.prev_facing[row] = facing
    st.speed[row] = st.impulses_per_turn  # (FP1.4) the scenario's seeking speed
    st.straight[row] = 0  # (FP1.3) the first move is straight ahead
    st.damage[row] = 0
    st.target[row] = target
    st.launcher[row] = owner
    st.launched_at[row] = st.absolute_impulse
    battle.log(
        ev.Launched(
            st.turn, st.impulse, battle.unit_ids[owner], battle.weapon_ids[w],
            battle.unit_ids[row], battle.unit_ids[target], battle.label(row),
            hexmap.DIRECTION_LETTERS[facing],
        )
    )


# ---------------------------------------------------------------------- impact


def impact(battle: Battle, torpedo: int, target: int) -> tuple[int, int, bool]:
    """(FP1.5) Shield struck and warhead of a torpedo in its target's hex, and whether the
    strike feeds back to the launcher (FP1.8: launched in the target's hex, striking before the
    target moved). The caller applies the warhead (after a cloak's die, G13) and calls
    ``feedback`` with the points struck."""
    st = battle.state
    moved = st.prev_x[torpedo] != st.x[torpedo] or st.prev_z[torpedo] != st.z[torpedo]
    target_moved = st.prev_x[target] != st.x[target] or st.prev_z[target] != st.z[target]
    points = warhead(battle, torpedo)
    fed_back = False
    if moved:  # entered the target's hex: the shield facing the hex it came from
        shield = shields.shield_from(battle, target, st.x[target], st.z[target],
                                     st.facing[target], st.prev_x[torpedo], st.prev_z[torpedo])
    elif target_moved:  # the target entered the torpedo's hex (F2.1)
        shield = shields.shield_from(battle, target, st.prev_x[target], st.prev_z[target],
                                     st.facing[target], st.x[torpedo], st.z[torpedo])
    else:  # launched in the target's hex (FP1.3): from the hex behind it (PROPOSAL [P-070])
        bx, bz = hexmap.neighbor_np(st.x[torpedo], st.z[torpedo], (st.facing[torpedo] + 3) % 6)
        shield = shields.shield_from(battle, target, st.x[target], st.z[target],
                                     st.facing[target], bx, bz)
        fed_back = travelled(battle, torpedo) <= 1
    return shield, points, fed_back


def feedback(battle: Battle, torpedo: int, target: int, points: int) -> None:
    """(FP1.8) The launcher takes a quarter of the warhead struck (x.5 rounds up) on its shield
    facing the target (D3.42 at range 0)."""
    st = battle.state
    launcher = int(st.launcher[torpedo])
    share = -(-points // FEEDBACK_SHARE)
    if launcher < 0 or st.status[launcher] != ACTIVE or share <= 0:
        return
    same = st.x[launcher] == st.x[target] and st.z[launcher] == st.z[target]
    shield = shields.struck_shield(battle, launcher, target, range0=bool(same))
    battle.log(ev.PlasmaFeedback(st.turn, st.impulse, battle.unit_ids[launcher],
                                 battle.unit_ids[torpedo], shield, share))
    battle.apply_damage(launcher, shield, share)


def take_damage(battle: Battle, torpedo: int, points: int) -> None:
    """(FP1.6) Phaser points on a torpedo: they weaken it permanently; at warhead 0 it is
    destroyed (called by ``damage.apply_damage``)."""
    st = battle.state
    st.damage[torpedo] += points
    battle.log(ev.Damaged(st.turn, st.impulse, battle.unit_ids[torpedo], 0, 0, points, ()))
    if warhead(battle, torpedo) <= 0:
        st.status[torpedo] = Status.DESTROYED
        battle.log(ev.Destroyed(st.turn, st.impulse, battle.unit_ids[torpedo]))


def end_of_impulse(battle: Battle) -> None:
    """(FP1.4) Endurance in hexes; PROPOSAL [P-071]: a torpedo whose target left play is gone. The
    launcher's destruction does not matter (D4.42, FP4.0)."""
    st = battle.state
    for p in np.flatnonzero((st.status == ACTIVE) & (st.kind == K_PLASMA)):
        p = int(p)
        reason = None
        if travelled(battle, p) >= endurance(battle, p):
            reason = f"FP1.4 endurance of {endurance(battle, p)} hexes ran out"
        target = st.target[p]
        if target >= 0 and st.status[target] != ACTIVE:
            reason = "FP1.3 the target is no longer in play (PROPOSAL: removed)"  # [P-071]
        if reason:
            st.status[p] = Status.EXPENDED
            battle.log(ev.Expired(st.turn, st.impulse, battle.unit_ids[p], reason))


__all__ = [
    "end_of_impulse",
    "impact",
    "launch",
    "launch_blockers",
    "launcher_blocker",
    "take_damage",
    "travelled",
    "warhead",
]
