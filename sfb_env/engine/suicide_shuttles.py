"""Suicide shuttles (J2.22-J2.222; CTH-DATA §5.4): an administrative shuttle armed as a bomb.

Scenario rule ``suicide_shuttles`` (needs ``admin_shuttles`` and ``energy: standard``). State:
``suicide_energy``, ``suicide_turns``, ``suicide_paid_turn``, ``suicide_idle_turn`` and
``suicide_launched`` (``BattleState``, one entry per unit row, used on shuttle rows).

Arming (J2.221), on the standard Energy Allocation Form, component ``suicide_arm`` (0..3) of a
ship the form governs:

* 1-3 **warp** energy a turn for three consecutive turns; the third may be the launch turn. A
  turn without payment breaks the chain: the energy put in is lost;
* once armed (three turns paid) it is held at 1 energy a turn from any source (``suicide_arm``
  1; 2 and 3 are closed); unpaid (0 ordered, or not affordable) the bomb is deactivated, its
  energy lost, and the shuttle is unusable for that turn (``suicide_idle_turn``);
* PROPOSALS [P-073] (the book is silent): a ship arms one bomb at a time, on its last shuttle aboard
  (the highest row), and a shuttle carrying a bomb is no administrative shuttle (the
  ``shuttles`` order launches the others); paid after the heavy weapons in the form's clamp
  (priority 4b: holding and arming alike); the standing allocation continues an arming chain
  with 1 energy and holds an armed bomb, and starts none.

Launch (component ``suicide``, target slots): the armed bomb (paid this turn) leaves through the
bay under the shuttle launch rule (one launch or recovery per bay per 2 impulses, J1.0), at a
target in play that is an enemy ship, freighter, shuttle, fighter or drone, never a plasma
torpedo (J2.222), nor a planet or a shuttle landed on one (P2.0); lock-on as for drones (D6).
The launch facing puts the target in its FA (FD1.2), and it must move one hex straight first.

Flight and impact (J2.22, J2.222): it moves as a drone (F2.0, ``seeking.robot_drone_maneuver``)
in the Move Seeking Weapons step, at a shuttle's top speed 6 (PROPOSAL [P-074]: "moves as a drone"
names the movement rules, not the drone's speed), with unlimited endurance; it explodes on
entering its target's hex for 2 x the energy put in (at most 18), as a seeking weapon
(``seeking.resolve_impacts``). It stays a shuttle row (``UnitKind.SHUTTLE``), so observations
show it as an administrative shuttle sent at the target: its identity is hidden until impact.
It can be shot like a shuttle (6 points destroy it), does not fire its phaser. PROPOSAL [P-075] (as
drones, FD1.3, D4.41): removed when its target leaves play or its launching ship is destroyed;
entering a planet hex destroys it as a seeking weapon (P2.0).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap, impulse
from sfb_env.engine import (
    cloak,
    energy_form,
    energy_switches,
    fire_geometry,
    movement,
    planets,
    seeking,
    sensors,
    small_craft,
)
from sfb_env.engine import events as ev
from sfb_env.engine.types import (
    ACTIVE,
    DESTROYED,
    K_DRONE,
    K_FIGHTER,
    K_FREIGHTER,
    K_MONSTER,
    K_PLASMA,
    K_SHIP,
    K_SHUTTLE,
    K_TARGET_DRONE,
    NEVER,
    UNUSED,
    IllegalOrderError,
    Maneuver,
    Orders,
    Status,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

ARM_VALUES = 4  # ``suicide_arm``: 0 none, 1..3 energy (1 = hold once armed)
MAX_ARM = 3  # (J2.221) 1-3 warp energy per arming turn
ARMING_TURNS = 3  # (J2.221) three consecutive turns
HOLD_COST = 1  # (J2.221) held at 1 a turn, any source
SPEED = 6  # (J1.0, CTH-DATA §8.6) a shuttle's maximum speed (PROPOSAL [P-074], module docstring)
TARGET_KINDS = (K_SHIP, K_FREIGHTER, K_SHUTTLE, K_FIGHTER, K_DRONE, K_TARGET_DRONE,  # (J2.222)
                K_MONSTER)  # (SCENARIOS §2.8 result 1: a suicide shuttle hit; planet_killer)
MAX_WARHEAD = seeking.SUICIDE_MAX_WARHEAD  # (J2.222) 2 x the energy put in, at most 18
warhead = seeking.suicide_warhead  # (J2.222) the explosion, resolved where seeking weapons strike
OFF = "J2.22 suicide shuttles are not in use in this scenario (rules.suicide_shuttles)"


# ---------------------------------------------------------------------- state


def init_state(battle: Battle) -> None:
    """No bomb anywhere at the start (J2.221: arming takes three turns)."""
    st = battle.state
    n = len(st.kind)
    st.suicide_energy = np.zeros(n, dtype=np.int64)
    st.suicide_turns = np.zeros(n, dtype=np.int64)
    st.suicide_paid_turn = np.zeros(n, dtype=np.int64)
    st.suicide_idle_turn = np.zeros(n, dtype=np.int64)
    st.suicide_launched = np.zeros(n, dtype=bool)


def in_use(battle: Battle, ship: int) -> bool:
    """Whether ``ship`` arms suicide shuttles: the rule is on, the form governs it, and it
    carries administrative shuttles."""
    return (bool(battle.rules.suicide_shuttles) and battle.rules.standard_energy
            and energy_switches.governed(battle, ship)
            and bool(len(small_craft.shuttles_of(battle, ship))))


def off_rule(battle: Battle, ship: int) -> str:
    """Why ``ship`` arms no suicide shuttle at all (``in_use`` is False)."""
    if not battle.rules.suicide_shuttles:
        return OFF
    if not (battle.rules.standard_energy and energy_switches.governed(battle, ship)):
        return "J2.221 suicide shuttles are armed on the standard Energy Allocation Form"
    return "J2.22 this ship carries no administrative shuttle"


def bomb(battle: Battle, ship: int) -> int | None:
    """The shuttle aboard ``ship`` carrying its bomb (any energy in it), or None."""
    st = battle.state
    rows = small_craft.shuttles_of(battle, ship)
    rows = rows[(st.status[rows] == UNUSED) & (st.suicide_energy[rows] > 0)]
    return int(rows[-1]) if len(rows) else None


def candidate(battle: Battle, ship: int, turn: int) -> int | None:
    """The shuttle a new bomb goes on (PROPOSAL [P-073]: the last aboard not unusable this turn)"""
    st = battle.state
    rows = small_craft.shuttles_of(battle, ship)
    rows = rows[(st.status[rows] == UNUSED) & (st.suicide_idle_turn[rows] != turn)]
    return int(rows[-1]) if len(rows) else None


def _chain(battle: Battle, b: int, turn: int) -> str:
    """The bomb on shuttle ``b`` as the allocation for ``turn`` sees it: "armed" (three turns
    paid, paid last turn), "arming" (1-2 turns, paid last turn), "paid" (already paid for
    ``turn``) or "broken" (a turn was missed)."""
    st = battle.state
    paid = int(st.suicide_paid_turn[b])
    if paid == turn:
        return "paid"
    if paid != turn - 1:
        return "broken"
    return "armed" if int(st.suicide_turns[b]) >= ARMING_TURNS else "arming"


def armed(battle: Battle, ship: int) -> int | None:
    """The shuttle aboard ``ship`` with an armed bomb paid for this turn (J2.221: the third
    arming turn may be the launch turn), or None."""
    st = battle.state
    b = bomb(battle, ship)
    if b is None or int(st.suicide_turns[b]) < ARMING_TURNS:
        return None
    return b if int(st.suicide_paid_turn[b]) == st.turn else None


# ---------------------------------------------------------------------- energy


def arm_blockers(battle: Battle, ship: int) -> dict[int, str]:
    """``suicide_arm`` values 1..3 ``ship`` may not order now, with the rule (0 is open)."""
    values = range(1, ARM_VALUES)
    if not in_use(battle, ship):
        return {v: off_rule(battle, ship) for v in values}
    if not energy_switches.allocation_open(battle):
        return {v: energy_switches.NOT_NOW for v in values}
    turn = energy_switches.allocation_turn(battle)
    b = bomb(battle, ship)
    state = None if b is None else _chain(battle, b, turn)
    if state == "armed":
        return {v: f"J2.221 an armed suicide shuttle is held at {HOLD_COST} energy a turn"
                for v in values if v != HOLD_COST}
    if state not in ("arming",) and candidate(battle, ship, turn) is None:
        return {v: "J2.221 no shuttle aboard to arm as a suicide shuttle" for v in values}
    warp, _, _ = energy_form.power(battle, ship)
    return {v: f"J2.221 suicide shuttle arming energy is warp only ({warp} warp boxes)"
            for v in values if v > warp}


def standing_arm(battle: Battle, ship: int) -> int:
    """The standing order (the env's no-op): hold an armed bomb, continue an arming chain with
    1 energy, start nothing (PROPOSAL [P-076])."""
    if not in_use(battle, ship) or not energy_switches.allocation_open(battle):
        return 0
    b = bomb(battle, ship)
    if b is None:
        return 0
    state = _chain(battle, b, energy_switches.allocation_turn(battle))
    value = HOLD_COST if state in ("armed", "arming") else 0
    return 0 if value in arm_blockers(battle, ship) else value


def _deactivate(battle: Battle, ship: int, b: int, reason: str, idle_turn: int = 0) -> None:
    st = battle.state
    st.suicide_energy[b] = 0
    st.suicide_turns[b] = 0
    st.suicide_paid_turn[b] = 0
    if idle_turn:
        st.suicide_idle_turn[b] = idle_turn
    battle.log(ev.SuicideShuttleDeactivated(st.turn, 0, battle.unit_ids[ship],
                                            battle.unit_ids[b], reason))


def allocate(battle: Battle, ship: int, order: Orders, purse) -> int:
    """(J2.221) Pay ``ship``'s suicide shuttle line of the form for the turn now starting
    (``energy_allocation``, priority 4b, after the heavy weapons); returns the energy ordered
    but unpaid."""
    if not in_use(battle, ship):
        return 0
    st = battle.state
    turn = st.turn
    value = standing_arm(battle, ship) if order.suicide_arm is None else int(order.suicide_arm)
    b = bomb(battle, ship)
    state = None if b is None else _chain(battle, b, turn)
    uid = battle.unit_ids[ship]
    if state == "paid":
        return 0
    if state == "broken":  # (J2.221) three consecutive turns: the chain is lost
        _deactivate(battle, ship, b, "a turn went unpaid: arming lost")
        b, state = None, None
    if value <= 0:
        if b is not None:
            idle = turn if state == "armed" else 0  # (J2.221) unpaid hold: unusable this turn
            _deactivate(battle, ship, b, "let go at Energy Allocation", idle)
        return 0
    if state == "armed":
        if purse.pay(HOLD_COST):
            st.suicide_paid_turn[b] = turn
            battle.log(ev.SuicideShuttleArmed(turn, 0, uid, battle.unit_ids[b], HOLD_COST,
                                              int(st.suicide_energy[b]), ARMING_TURNS, True))
            return 0
        battle.log(ev.EnergyShortfall(turn, 0, uid, "suicide:hold", HOLD_COST))
        _deactivate(battle, ship, b, "hold not paid: energy shortfall", turn)
        return HOLD_COST
    if b is None:
        b = candidate(battle, ship, turn)
        if b is None:
            return 0
    cost = min(value, MAX_ARM)
    if not purse.pay(cost, warp_only=True):  # (J2.221) arming energy is warp only
        battle.log(ev.EnergyShortfall(turn, 0, uid, "suicide:arm", cost))
        if st.suicide_energy[b]:
            _deactivate(battle, ship, b, "not paid: energy shortfall")
        return cost
    st.suicide_energy[b] += cost
    st.suicide_turns[b] += 1
    st.suicide_paid_turn[b] = turn
    battle.log(ev.SuicideShuttleArmed(turn, 0, uid, battle.unit_ids[b], cost,
                                      int(st.suicide_energy[b]), int(st.suicide_turns[b]), False))
    return 0


# ---------------------------------------------------------------------- launch


def ship_blocker(battle: Battle, ship: int) -> str | None:
    """Why ``ship`` cannot launch a suicide shuttle at all now, or None."""
    st = battle.state
    if not in_use(battle, ship):
        return off_rule(battle, ship)
    if st.status[ship] != ACTIVE:
        return "J2.22 the ship is not in play"
    if st.impulse < 1:
        return "B2.0 no launch before the first impulse"
    if armed(battle, ship) is None:
        return ("J2.221 no armed suicide shuttle aboard (three consecutive arming turns, "
                "held since, paid this turn)")
    rows = small_craft.shuttles_of(battle, ship)
    last = max(int(st.launched_at[rows].max()), int(st.craft_landed[rows].max()))
    if last != NEVER and st.absolute_impulse - last < small_craft.SHUTTLE_LAUNCH_GAP:
        return "J1.0 one shuttle launch or recovery per bay per 2 consecutive impulses"
    return (energy_switches.fire_control_blocker(battle, ship)
            or sensors.launch_blocker(battle, ship) or cloak.fire_blocker(battle, ship))


def launch_blockers(battle: Battle, ship: int, targets=None) -> list[str | None]:
    """Per target unit row, the rule forbidding "launch the armed suicide shuttle at it" now
    (None = allowed): the single predicate of the ``suicide`` component and of ``validate``."""
    st = battle.state
    targets = np.arange(len(st.kind)) if targets is None else np.asarray(targets, dtype=np.int64)
    rule = ship_blocker(battle, ship)
    if rule is not None:
        return [rule] * len(targets)
    hidden = sensors.target_blockers(battle, targets)  # (D6) no lock-on to a cloaked ship
    landed = (planets.landed(battle) if battle.rules.planets_in_play
              else np.zeros(len(st.kind), bool))
    out: list[str | None] = []
    for t, h in zip(targets, hidden, strict=True):
        kind = int(st.kind[t])
        if st.status[t] != ACTIVE:
            out.append("J2.22 the target is not in play")
        elif st.side[t] == st.side[ship]:
            out.append("J2.22 no launch at a friendly unit")
        elif kind == K_PLASMA:
            out.append("J2.222 a suicide shuttle may not target a plasma torpedo")
        elif kind not in TARGET_KINDS:
            out.append("J2.222 a suicide shuttle targets a ship, shuttle or drone")
        elif landed[t]:
            out.append(planets.LANDED_RULE)
        elif st.x[t] == st.x[ship] and st.z[t] == st.z[ship]:
            out.append("F2.3 launch at a target in the launcher's hex is not modelled")
        else:
            out.append(h)
    return out


def validate(battle: Battle, unit: int, order: Orders, name: str) -> None:
    """Raise ``IllegalOrderError`` for a ``suicide`` or ``suicide_arm`` order the rules forbid."""
    if order.suicide is not None:
        t = order.suicide
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)) \
                or not 0 <= t < len(battle.state.kind):
            raise IllegalOrderError(name, "suicide", t, "no such target unit")
        rule = launch_blockers(battle, unit, [int(t)])[0]
        if rule is not None:
            raise IllegalOrderError(name, "suicide", battle.unit_ids[int(t)], rule)
    if order.suicide_arm is not None:
        v = order.suicide_arm
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) \
                or not 0 <= v < ARM_VALUES:
            raise IllegalOrderError(name, "suicide_arm", v,
                                    f"J2.221 suicide_arm is 0..{ARM_VALUES - 1}")
        rule = arm_blockers(battle, unit).get(int(v))
        if rule is not None:
            raise IllegalOrderError(name, "suicide_arm", int(v), rule)


def launch_step(battle: Battle, orders: dict[int, Orders]) -> None:
    """Launch every ordered suicide shuttle (J2.22), in the launch step of the impulse."""
    for ship, order in orders.items():
        if order.suicide is not None:
            launch(battle, int(ship), int(order.suicide))


def launch(battle: Battle, ship: int, target: int) -> None:
    """Put ``ship``'s armed suicide shuttle on the map in its hex, facing so that the target is
    in its FA (FD1.2), speed 6, one hex straight first (J1.0)."""
    st = battle.state
    b = armed(battle, ship)
    if b is None:
        return
    facing = fire_geometry.launch_facing(battle, ship, target)
    st.status[b] = Status.ACTIVE
    st.x[b], st.z[b] = st.x[ship], st.z[ship]
    st.prev_x[b], st.prev_z[b] = st.x[ship], st.z[ship]
    st.facing[b] = st.prev_facing[b] = facing
    st.speed[b] = SPEED
    st.straight[b] = 0
    st.target[b] = target
    st.launcher[b] = ship
    st.launched_at[b] = st.absolute_impulse
    st.suicide_launched[b] = True
    battle.log(ev.Launched(st.turn, st.impulse, battle.unit_ids[ship],
                           f"{battle.unit_ids[ship]}.bay", battle.unit_ids[b],
                           battle.unit_ids[target], battle.label(b),
                           hexmap.DIRECTION_LETTERS[facing]))


# ---------------------------------------------------------------------- flight


def flying(battle: Battle) -> np.ndarray:
    """Rows of suicide shuttles in flight."""
    st = battle.state
    return np.flatnonzero(st.suicide_launched & (st.status == ACTIVE))


def move(battle: Battle) -> None:
    """(F2.0, F2.1) In Move Seeking Weapons: each suicide shuttle that moves on this impulse
    homes on its target as a robot drone does; in its target's hex it stays (and strikes)."""
    st = battle.state
    rows = flying(battle)
    if not len(rows):
        return
    moving = rows[impulse.moves_on_np(st.speed[rows], st.impulse, st.impulses_per_turn)]
    for d in moving:
        d = int(d)
        if seeking.target_in_hex(battle, d):
            continue
        m = seeking.robot_drone_maneuver(battle, d)
        if m != Maneuver.NONE:
            movement.move_unit(battle, d, m)


def end_of_impulse(battle: Battle) -> None:
    """PROPOSAL [P-075] (as drones, FD1.3, D4.41): a suicide shuttle whose target left play or whose
    launching ship was destroyed is removed. No endurance limit (J2.222)."""
    st = battle.state
    for d in flying(battle):
        t, launcher = int(st.target[d]), int(st.launcher[d])
        reason = None
        if launcher >= 0 and st.status[launcher] == DESTROYED:
            reason = "D4.41 the controlling ship was destroyed"
        elif t < 0 or st.status[t] != ACTIVE:
            reason = "FD1.3 the target is no longer in play"
        if reason:
            st.status[d] = Status.EXPENDED
            battle.log(ev.Expired(st.turn, st.impulse, battle.unit_ids[d], reason))


def has_component(battle: Battle, ship: int) -> bool:
    """Whether ``ship`` gets the ``suicide`` and ``suicide_arm`` action components: the rule is
    on and the standard form governs it (masked where it carries no shuttle)."""
    return (bool(battle.rules.suicide_shuttles) and battle.rules.standard_energy
            and energy_switches.governed(battle, ship))
