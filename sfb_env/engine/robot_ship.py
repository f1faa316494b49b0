"""The robot ship of scenario 4 (SCENARIOS.md §2.5, "The Robot Opponent"), controller
``robot-ship``; settings in the scenario's ``robots: {robot-ship: {...}}`` block:

* ``target``: unit id of the ship it fights (a unit's own ``target`` field wins); it never
  fires at anything else (so never at the stranded *Dakota*, §2.7);
* ``speed`` (default 12, the 16-impulse game): its speed every turn, less 1 for each warp box
  destroyed (from the next turn, for the rest of the scenario; the scenario-4 damage rule, and
  PROPOSAL [P-120] the same under a DAC);
* ``pfp_range`` (default 4): the Primary Fire Point range;
* ``photons_per_turn`` (default 1): a Federation robot fires one photon a turn, tube A on odd
  turns and B on even turns (PROPOSAL [P-121] of §2.5), the other if that one is destroyed.

No energy: every weapon is armed every turn (``start_turn`` clears the Chief Engineer's photon
delays); each weapon still fires once a turn and keeps the quarter-turn rule (E1.5). Drones:
one launch at the target on impulse 1 of every turn while ammunition lasts.

Modes (reset every turn): PURSUE until the Primary Fire Point, POST-PFP after it. The mode is
read from the state, not stored: the robot has passed its PFP once any of its direct-fire
weapons fired this turn (PROPOSALS [P-122]: a shot forced by the about-to-exit override counts
as the PFP too; an impulse within 4 hexes at which no weapon bears is no PFP, so the robot
keeps pursuing until one does). PROPOSALS [P-123] for determinism: PURSUE steers like a robot drone
(§2.3) toward the target's hex at the start of the impulse (moves are planned before anyone
moves); POST-PFP turns toward the side whose fewest successive 60-degree turns bring the most
unfired weapons' arcs onto the target (range not counted), ties to fewer turns, then a die
(odd = left), re-judged at each move. Map edge: a move is refused unless some sequence of
``LOOKAHEAD`` further moves within the turn mode keeps the robot on the map; the preferred
move, then the other turn, then straight, then any move on the map.

The decisions are pure functions of the battle (``maneuver``, ``fire_orders``,
``launch_orders``) so that a scripted captain can fly an agent ship with the same logic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import direct_fire, movement, seeking
from sfb_env.engine.seeking import pursuit_choice
from sfb_env.engine.types import ACTIVE, PLASMA_LAUNCHERS, Box, Maneuver, WeaponType

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

CONTROLLER = "robot-ship"
DEFAULT_SPEED = 12  # (§2.5) the 16-impulse game
DEFAULT_PFP_RANGE = 4
_DRONE_RACK = int(WeaponType.DRONE_RACK)
_PHOTON = int(WeaponType.PHOTON)
_TURN = {Maneuver.TURN_LEFT: -1, Maneuver.TURN_RIGHT: 1, Maneuver.STRAIGHT: 0}
_DX = tuple(int(v) for v in hexmap.DIR_TO_AXIAL[:, 0])
_DZ = tuple(int(v) for v in hexmap.DIR_TO_AXIAL[:, 1])
LOOKAHEAD = 8  # moves the map-edge check looks ahead (a U-turn at turn mode 2 takes ~6)


def settings(battle: Battle) -> dict[str, Any]:
    """The scenario's ``robots.robot-ship`` block."""
    return dict(battle.scenario.robots.get(CONTROLLER, {}) or {})


def target_of(battle: Battle, unit: int) -> int:
    """The unit row the robot fights, -1 if none is configured."""
    t = int(battle.state.target[unit])
    if t >= 0:
        return t
    name = settings(battle).get("target")
    return battle.unit_index.get(name, -1) if name else -1


def turn_speed(battle: Battle, unit: int) -> int:
    """(§2.5, CTH-DATA §10.1) The configured speed less one per warp box lost so far."""
    ship = battle.ship_classes[unit]
    lost = sum(ship.warp.values()) - int(battle.state.boxes[unit, Box.WARP]) if ship else 0
    return max(0, int(settings(battle).get("speed", DEFAULT_SPEED)) - lost)


def start_turn(battle: Battle, unit: int) -> None:
    """Speed Determination for a robot ship: its speed, and every weapon armed (§2.5) except
    plasma launchers, whose launch turns ``engine.plasma`` keeps."""
    st = battle.state
    st.speed[unit] = turn_speed(battle, unit)
    rows = battle.weapons_of(unit)
    st.w_ready_turn[rows] = np.minimum(st.w_ready_turn[rows], st.turn)
    if st.w_armed is not None:  # (plasma launch turns of a robot KR: engine.plasma, §2.5)
        plasma = np.isin(st.w_type[rows], [int(k) for k in PLASMA_LAUNCHERS])
        st.w_armed[rows[~plasma]] = True


def _direct_weapons(battle: Battle, unit: int) -> np.ndarray:
    st = battle.state
    rows = battle.weapons_of(unit)
    return rows[(st.w_type[rows] != _DRONE_RACK) & st.w_enabled[rows] & ~st.w_destroyed[rows]]


def past_pfp(battle: Battle, unit: int) -> bool:
    """Whether the robot has had its Primary Fire Point this turn (POST-PFP mode)."""
    st = battle.state
    rows = battle.weapons_of(unit)
    rows = rows[st.w_type[rows] != _DRONE_RACK]
    return bool(np.any(st.w_fired_turn[rows] == st.turn))


def unfired(battle: Battle, unit: int) -> np.ndarray:
    """Working direct-fire weapons not fired this turn (photons beyond the turn's allowance
    excluded)."""
    st = battle.state
    rows = _direct_weapons(battle, unit)
    rows = rows[st.w_fired_turn[rows] != st.turn]
    allowed = _photons_allowed(battle, unit)
    return rows[(st.w_type[rows] != _PHOTON) | np.isin(rows, allowed)]


def _photons_allowed(battle: Battle, unit: int) -> np.ndarray:
    """Photon tubes the robot may still fire this turn: tube A on odd turns, B on even (the
    next working tube if that one is destroyed), ``photons_per_turn`` a turn (§2.5)."""
    st = battle.state
    rows = battle.weapons_of(unit)
    tubes = rows[st.w_type[rows] == _PHOTON]
    if not len(tubes):
        return tubes
    per_turn = int(settings(battle).get("photons_per_turn", 1))
    fired = int(np.sum(st.w_fired_turn[tubes] == st.turn))
    if fired >= per_turn:
        return tubes[:0]
    order = np.roll(tubes, -photon_rotation(st.turn, len(tubes)))
    working = order[~st.w_destroyed[order] & st.w_enabled[order]]
    return working[: per_turn - fired]


# ---------------------------------------------------------------------- pure decisions
# Plain geometry in, a decision out: the engine's robot and a captain flying an agent ship
# through the env (``agents.robot_captain``) share these. ``die`` is called only on a tie.


def photon_rotation(turn: int, tubes: int) -> int:
    """(§2.5 PROPOSAL [P-121]) Index of the first photon tube to try on ``turn``: A odd, B even."""
    return (turn - 1) % tubes if tubes else 0


def fire_point(past_pfp: bool, rng: int, pfp_range: int, last_impulse: bool,
               target_exiting: bool = False) -> bool:
    """(§2.5) Whether the robot fires this impulse: always after its PFP; before it, at the
    PFP (within ``pfp_range``), on the turn's last impulse, or when the target is about to
    leave the map."""
    return past_pfp or rng <= pfp_range or last_impulse or target_exiting


def pursue(x: int, z: int, f: int, tx: int, tz: int, can_turn: bool,
           die: Callable[[], int]) -> Maneuver:
    """(§2.5 PURSUE 1, §2.3) The move toward the target's hex (tx, tz)."""
    nx, nz = hexmap.neighbor_np(x, z, np.array([f, f - 1, f + 1]))
    straight, left, right = (int(v) for v in hexmap.distance_np(nx, nz, tx, tz))
    tie = can_turn and left < straight and left == right
    return pursuit_choice(straight, left, right, can_turn, die() if tie else 1)


def bring_to_bear(x: int, z: int, f: int, tx: int, tz: int, arcs: np.ndarray,
                  die: Callable[[], int]) -> Maneuver:
    """(§2.5 POST-PFP 2) The turn toward the side whose fewest successive 60-degree turns
    bring the most of the weapons with base-arc bitmasks ``arcs`` onto the target; ties to
    fewer turns, then ``die`` (odd = left); STRAIGHT if no turn brings any to bear."""
    facings = (f + np.array([-1, -2, -3, 1, 2, 3])) % 6
    bits = hexmap.arc_bits_np(x, z, facings, tx, tz)
    counts = np.array([int(np.sum((b & arcs) != 0)) for b in bits])
    best = {}
    for side, sl in ((Maneuver.TURN_LEFT, slice(0, 3)), (Maneuver.TURN_RIGHT, slice(3, 6))):
        c = counts[sl]
        n = int(np.argmax(c > 0)) if np.any(c > 0) else 3
        best[side] = (int(c[n]) if n < 3 else 0, -n)
    left, right = best[Maneuver.TURN_LEFT], best[Maneuver.TURN_RIGHT]
    if left == right:
        if left[0] == 0:
            return Maneuver.STRAIGHT
        return Maneuver.TURN_LEFT if die() % 2 else Maneuver.TURN_RIGHT
    return Maneuver.TURN_LEFT if left > right else Maneuver.TURN_RIGHT


def survives(on_map: Callable[[int, int], bool], x: int, z: int, f: int, straight: int,
             mode: int, depth: int = LOOKAHEAD) -> bool:
    """Whether some sequence of ``depth`` legal moves (straight first; a turn once ``straight``
    reaches the turn mode ``mode``, C3.2) keeps a ship in (x, z) facing ``f`` on the map."""
    if depth == 0:
        return True
    for turn in (0, -1, 1) if straight >= mode else (0,):
        nf = (f + turn) % 6
        nx, nz = x + _DX[nf], z + _DZ[nf]
        if on_map(nx, nz) and survives(on_map, nx, nz, nf, 1 if turn else straight + 1, mode,
                                       depth - 1):
            return True
    return False


def edge_safe_move(on_map: Callable[[int, int], bool], x: int, z: int, f: int, straight: int,
                   mode: int, want: Maneuver) -> Maneuver:
    """(§2.5 map edge, PROPOSAL [P-124]) ``want`` if it keeps the ship able to fly on in its turn
    mode for ``LOOKAHEAD`` moves, else the other turn, then straight; failing all, any move
    that stays on the map now (STRAIGHT if none does)."""
    can_turn = straight >= mode
    options = [want] if can_turn else [Maneuver.STRAIGHT]
    if can_turn:
        other = {Maneuver.TURN_LEFT: Maneuver.TURN_RIGHT, Maneuver.TURN_RIGHT: Maneuver.TURN_LEFT}
        options += [other.get(want, Maneuver.TURN_LEFT), Maneuver.STRAIGHT,
                    Maneuver.TURN_RIGHT]
    for m in options:
        nf = (f + _TURN[m]) % 6
        nx, nz = x + _DX[nf], z + _DZ[nf]
        if on_map(nx, nz) and survives(on_map, nx, nz, nf,
                                       1 if m != Maneuver.STRAIGHT else straight + 1, mode):
            return m
    for m in options:
        nf = (f + _TURN[m]) % 6
        if on_map(x + _DX[nf], z + _DZ[nf]):
            return m
    return Maneuver.STRAIGHT


# ---------------------------------------------------------------------- movement


def maneuver(battle: Battle, unit: int) -> Maneuver:
    """(§2.5) The robot's move on this impulse: PURSUE, or POST-PFP turning toward unfired
    weapons, with the map-edge override."""
    st = battle.state
    target = target_of(battle, unit)
    mode = movement.turn_mode(battle, unit)
    straight = int(st.straight[unit])
    can_turn = straight >= mode  # (C3.2)
    x, z, f = int(st.x[unit]), int(st.z[unit]), int(st.facing[unit])
    die = lambda: int(battle.rng.integers(1, 7))  # noqa: E731 - drawn only on a tie
    want = Maneuver.STRAIGHT
    if target >= 0 and st.status[target] == ACTIVE:
        tx, tz = int(st.x[target]), int(st.z[target])
        if not past_pfp(battle, unit):
            want = pursue(x, z, f, tx, tz, can_turn, die)
        else:
            left = unfired(battle, unit)
            bearing = [w for w in left if direct_fire.fire_blockers(battle, int(w), [target])[0]
                       is None]
            if len(left) and not bearing and can_turn:
                want = bring_to_bear(x, z, f, tx, tz, st.w_arcs[left], die)
    return edge_safe_move(battle.in_area, x, z, f, straight, mode, want)


# ---------------------------------------------------------------------- fire and launch


def _target_about_to_exit(battle: Battle, target: int) -> bool:
    """(§2.5 override, PROPOSAL [P-125] test) The target moves next impulse, the hex straight on is
    off the map and its turn mode allows no turn."""
    st = battle.state
    if not movement.moves_next(battle, target):
        return False
    x, z = hexmap.neighbor_np(st.x[target], st.z[target], int(st.facing[target]))
    if battle.in_area(x, z):
        return False
    return int(st.straight[target]) < movement.turn_mode(battle, target)


def fire_orders(battle: Battle, unit: int) -> list[tuple[int, int]]:
    """(§2.5) Shots of the robot ``unit`` in this impulse's Fire Direct-Fire step."""
    st = battle.state
    target = target_of(battle, unit)
    if target < 0 or st.status[target] != ACTIVE:
        return []
    past = past_pfp(battle, unit)
    dist = int(hexmap.distance_np(st.x[unit], st.z[unit], st.x[target], st.z[target]))
    pfp_range = int(settings(battle).get("pfp_range", DEFAULT_PFP_RANGE))
    last = st.impulse == st.impulses_per_turn
    if not fire_point(past, dist, pfp_range, last,
                      not past and _target_about_to_exit(battle, target)):
        return []
    return [(int(w), target) for w in unfired(battle, unit)
            if direct_fire.fire_blockers(battle, int(w), [target])[0] is None]


def launch_orders(battle: Battle, unit: int) -> list[tuple[int, int]]:
    """(§2.5) One drone at the target on impulse 1 of every turn while ammunition lasts."""
    st = battle.state
    target = target_of(battle, unit)
    if st.impulse != 1 or target < 0:
        return []
    for rack in battle.weapons_of(unit):
        if st.w_type[rack] == _DRONE_RACK and seeking.launch_blockers(
                battle, int(rack), [target])[0] is None:
            return [(int(rack), target)]
    return []
