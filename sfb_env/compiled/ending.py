"""End of Impulse, End of Turn and the victory check, compiled (tier 1).

Mirrors ``engine.seeking.end_of_impulse`` (drone endurance FD1.4 and control FD1.3, D4.41),
``engine.procedure._end_of_turn`` as it runs under the Chief Engineer (nothing but the
``TurnEnded`` event and the turn counter: no energy form, no damage control) and
``engine.victory`` for the kinds ported (``battle_drill``, ``under_attack``, ``convoy_raid``,
``duel``, ``encounter``, ``dakota_incident``), and disengagement by announcement
(``engine.disengagement``, SCENARIOS #5). A verdict is kept as ``s.outcome_code[b]``: the sum
over sides of ``result * 3 ** side`` (``RESULTS``); its level and reason text come from the
reference ``victory.evaluate`` on the converted battle (``compiled.backend``), and the parity
harness checks that both agree. The Dakota Incident (SCENARIOS #4) reads the ship's course, which
the state does not keep: ``s.victory_mark[b]`` (bit 0) records that the ship stood at range
<= 1 of the *Dakota* (PROPOSAL [P-020]), judged at each verdict on its hex and the one it left
(``prev_x``); it left by the east edge when it is out of play from a hex of column
``exit_column`` (a ship leaving the map keeps the hex it left from).
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env.compiled import event_codes, handle, planets
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine import planet_killer as ref_pk
from sfb_env.engine.setup import BattleSetup
from sfb_env.engine.types import (
    ACTIVE,
    DESTROYED,
    DISENGAGED,
    EXPENDED,
    K_DRONE,
    K_FREIGHTER,
    K_MONSTER,
    K_PLANET,
    K_SHIP,
    K_TARGET_DRONE,
    NEVER,
)

RESULTS = ("win", "loss", "draw")
WIN, LOSS, DRAW = 0, 1, 2
GOES_ON = -1
VICTORY_KINDS = ("battle_drill", "under_attack", "convoy_raid", "duel", "encounter",
                 "dakota_incident", "pirate_raid", "rescue", "planet_killer")
(BATTLE_DRILL, UNDER_ATTACK, CONVOY_RAID, DUEL, ENCOUNTER, DAKOTA, PIRATE_RAID, RESCUE,
 PLANET_KILLER) = range(9)
PLANET_DESTROYED_AT = ref_pk.PLANET_DESTROYED_AT  # (SCENARIOS §2.8) the monster wins

EXPIRED = event_codes.CODE["Expired"]
TURN_ENDED = event_codes.CODE["TurnEnded"]
BATTLE_ENDED = event_codes.CODE["BattleEnded"]
DISENGAGEMENT_ANNOUNCED = event_codes.CODE["DisengagementAnnounced"]
ENDURANCE = event_codes.word("reason", "FD1.4 endurance of 3 turns ran out")
CONTROL_LOST = event_codes.word("reason", "D4.41 the controlling ship was destroyed")
TARGET_GONE = event_codes.word("reason", "FD1.3 the target is no longer in play")

EndTables = namedtuple("EndTables", (
    "victory_kind", "side", "other", "n_sides", "pass_damage", "drone_endurance",
    "impulses_per_turn", "max_turns", "disengage_by_announcement",
    "ship", "dakota", "exit_column",  # (SCENARIOS #4) the rescuer, the Dakota; -1 elsewhere
    "monster", "planet"))  # (SCENARIOS #11) the first monster and planet rows; -1 elsewhere


def end_tables(setup: BattleSetup) -> EndTables:
    """The victory conditions and switches of ``setup`` (tier-1 kinds only)."""
    sc = setup.scenario
    cfg = sc.victory
    kind = cfg["kind"]
    if kind not in VICTORY_KINDS:
        raise ValueError(f"victory kind {kind!r} is not compiled (tier 1: {VICTORY_KINDS})")
    side = other = ship = dakota = exit_column = -1
    if kind == "dakota_incident":  # (SCENARIOS #4)
        if setup.rules.disengage_by_announcement:
            raise NotImplementedError("compiled victory: the Dakota Incident with disengagement "
                                      "by announcement (an exit without LeftMap)")
        side = setup.side_index[cfg["side"]]
        ship = list(setup.unit_ids).index(cfg["ship"])
        dakota = list(setup.unit_ids).index(cfg["dakota"])
        exit_column = int(cfg.get("exit_column", 28))
    if kind in ("battle_drill", "under_attack"):
        side = setup.side_index[cfg["side"]]
    elif kind == "convoy_raid":
        side, other = setup.side_index[cfg["raider"]], setup.side_index[cfg["convoy"]]
    elif kind == "pirate_raid":  # (SCENARIOS #8) the pirate, the defender
        side, other = setup.side_index[cfg["pirate"]], setup.side_index[cfg["defender"]]
    elif kind == "rescue":  # (SCENARIOS #9) the rescuer, the opponent
        side, other = setup.side_index[cfg["rescuer"]], setup.side_index[cfg["opponent"]]
    kinds = np.asarray(setup.start_state.kind)
    monsters = np.flatnonzero(kinds == K_MONSTER)
    planet_rows = np.flatnonzero(kinds == K_PLANET)
    return EndTables(VICTORY_KINDS.index(kind), side, other, len(sc.sides),
                     int(cfg.get("pass_damage", 3)), bool(setup.rules.drone_endurance),
                     int(sc.impulses_per_turn), int(setup.max_turns),
                     bool(setup.rules.disengage_by_announcement), ship, dakota, exit_column,
                     int(monsters[0]) if len(monsters) else -1,
                     int(planet_rows[0]) if len(planet_rows) else -1)


def outcome_results(code: int, n_sides: int) -> list[str]:
    """The result of each side from an outcome code."""
    return [RESULTS[(code // 3 ** s) % 3] for s in range(n_sides)]


@nb.njit(cache=True, inline="always")
def _code(n_sides: int, side: int, result: int) -> int:
    """(victory._pair) ``result`` for ``side``, its opposite for the others."""
    other = LOSS if result == WIN else WIN if result == LOSS else DRAW
    code = 0
    p = 1
    for s in range(n_sides):
        code += (result if s == side else other) * p
        p *= 3
    return code


@nb.njit(cache=True, inline="always")
def verdict_args(s):
    """The arguments of the call out of line that ``pin_verdict`` pins (a batch keeps them
    in a handle: ``procedure.call_args``)."""
    return (s.kind, s.side, s.status, s.damage, s.internal, s.captured_by)


@nb.njit(cache=True, inline="always")
def pin_verdict(s):
    """``_verdict_a``'s arrays, pinned (``handle.pin``: once, before a loop over battles; only
    for a caller that does not return the ref)."""
    return handle.pin(verdict_args(s))


@nb.njit(cache=True, inline="always")
def verdict(s, et, b: int, time_up: bool) -> int:
    """(engine.victory.evaluate) The outcome code, or GOES_ON (``_verdict_a`` on the arrays it
    reads, pinned at the call)."""
    return verdict_pinned(s, et, pin_verdict(s), b, time_up)


@nb.njit(cache=True, inline="always")
def verdict_pinned(s, et, pv, b: int, time_up: bool) -> int:
    """``verdict`` with ``_verdict_a``'s arrays pinned by the caller (``pv``: ``pin_verdict``).
    The other kinds' calls pass the few arrays they read."""
    if et.victory_kind == PIRATE_RAID:
        return _pirate_a(s.kind, s.side, s.status, s.captured_by, s.towed_off_by, et.side,
                         et.other, et.n_sides, b, time_up)
    if et.victory_kind == RESCUE:
        return _rescue_a(s.kind, s.side, s.status, s.crew_units, s.captured_by, et.side,
                         et.other, et.n_sides, b, time_up)
    if et.victory_kind == PLANET_KILLER:
        return _planet_killer_a(s.kind, s.side, s.status, s.damage, et.monster, et.planet,
                                et.n_sides, b, time_up)
    if et.victory_kind == DAKOTA:
        return _dakota_a(s.status, s.x, s.z, s.prev_x, s.prev_z, s.victory_mark, et.side,
                         et.n_sides, et.ship, et.dakota, et.exit_column, b, time_up)
    return _verdict_a(pv, et.victory_kind, et.side, et.other, et.n_sides, et.pass_damage, b,
                      time_up)


@kernel(_nrt=False, error_model="numpy")
def _verdict_a(p, victory_kind: int, v_side: int, v_other: int, n_sides: int,
               pass_damage: int, b: int, time_up: bool) -> int:
    """``verdict`` on the state arrays pinned in ``p`` (``pin_verdict``) and the scalars of
    ``EndTables`` (no allocation)."""
    kind, side_, status, damage, internal, captured_by = handle.deref(p)
    n = kind.shape[1]
    if victory_kind == BATTLE_DRILL:
        left_area = False
        alive = False
        all_destroyed = True
        all_passed = True
        for u in range(n):
            k = kind[b, u]
            if k == K_SHIP and side_[b, u] == v_side and status[b, u] != ACTIVE:
                left_area = True
            if k in (K_TARGET_DRONE, K_DRONE):
                if status[b, u] == ACTIVE:
                    alive = True
                if status[b, u] != DESTROYED:
                    all_destroyed = False
                if damage[b, u] < pass_damage:
                    all_passed = False
        if not (time_up or left_area or not alive):
            return GOES_ON
        if left_area:
            return _code(n_sides, v_side, LOSS)
        if all_destroyed:
            return _code(n_sides, v_side, WIN)
        if all_passed:
            return _code(n_sides, v_side, DRAW)
        return _code(n_sides, v_side, LOSS)
    if victory_kind == UNDER_ATTACK:
        hit = False
        gone = False
        drones = False
        for u in range(n):
            k = kind[b, u]
            if k == K_SHIP and side_[b, u] == v_side:
                if internal[b, u] > 0:
                    hit = True
                if status[b, u] != ACTIVE:
                    gone = True
            if k == K_DRONE and status[b, u] == ACTIVE:
                drones = True
        if hit or gone:
            return _code(n_sides, v_side, LOSS)
        if not drones:
            return _code(n_sides, v_side, WIN)
        if time_up:
            return _code(n_sides, v_side, DRAW)
        return GOES_ON
    if victory_kind == CONVOY_RAID:
        escaped = False
        all_destroyed = True
        raider = False
        for u in range(n):
            k = kind[b, u]
            if k == K_FREIGHTER and side_[b, u] == v_other:
                if status[b, u] == DISENGAGED:
                    escaped = True
                if status[b, u] != DESTROYED:
                    all_destroyed = False
            if k == K_SHIP and side_[b, u] == v_side and status[b, u] == ACTIVE:
                raider = True
        if escaped:
            return _code(n_sides, v_side, LOSS)
        if all_destroyed:
            return _code(n_sides, v_side, WIN)
        if not raider:
            return _code(n_sides, v_side, LOSS)
        if time_up:
            return _code(n_sides, v_side, DRAW)
        return GOES_ON
    # DUEL (PROPOSAL [P-018]) and ENCOUNTER; the sides in play as a bit mask (a scenario has a
    # few sides)
    in_play = 0
    left = 0  # sides with a ship that disengaged (C1.4, SCENARIOS #5)
    for u in range(n):
        if kind[b, u] == K_SHIP:
            c = captured_by[b, u]
            if status[b, u] == ACTIVE and (c < 0 or c == side_[b, u]):  # (victory._held)
                in_play |= 1 << side_[b, u]
            if status[b, u] == DISENGAGED:
                left |= 1 << side_[b, u]
    if victory_kind == ENCOUNTER:
        return _encounter_code(in_play, left, n_sides, time_up)
    standing = 0
    winner = -1
    for side in range(n_sides):
        if (in_play >> side) & 1:
            standing += 1
            winner = side
    if standing == n_sides and not time_up:
        return GOES_ON
    if standing == 1 and n_sides > 1:
        return _code(n_sides, winner, WIN)
    if standing == 0:
        return _code(n_sides, 0, DRAW)  # DRAW for one side is a draw for all
    if not time_up:
        return GOES_ON
    total = 0
    for u in range(n):
        if kind[b, u] == K_SHIP:
            total += damage[b, u]
    best = -1
    leaders = 0
    leader = -1
    for side in range(n_sides):
        taken = 0
        for u in range(n):
            if kind[b, u] == K_SHIP and side_[b, u] == side:
                taken += damage[b, u]
        dealt = total - taken
        if dealt > best:
            best, leaders, leader = dealt, 1, side
        elif dealt == best:
            leaders += 1
    if leaders > 1:
        return _code(n_sides, 0, DRAW)  # DRAW for one side is a draw for all
    return _code(n_sides, leader, WIN)


@kernel(_nrt=False, error_model="numpy")
def _dakota_a(status, x, z, prev_x, prev_z, mark, side: int, n_sides: int, ship: int,
              dakota: int, exit_column: int, b: int, time_up: bool) -> int:
    """(victory._dakota_incident, SCENARIOS #4) ``side`` wins iff ``ship`` passed at range
    <= 1 of the *Dakota* (PROPOSAL [P-020]; ``mark`` bit 0, updated here from the ship's hex
    and the hex it moved from) and then left by the east edge (from column
    ``exit_column``); destroyed, another edge, no rescue, or still in play at the env's turn
    cap: a loss."""
    dx, dz = x[b, dakota], z[b, dakota]  # (§2.7) the Dakota never moves
    ex, ez = x[b, ship] - dx, z[b, ship] - dz
    px, pz = prev_x[b, ship] - dx, prev_z[b, ship] - dz
    if (max(max(abs(ex), abs(ez)), abs(ex + ez)) <= 1
            or max(max(abs(px), abs(pz)), abs(px + pz)) <= 1):
        mark[b] |= 1
    st = status[b, ship]
    if st == ACTIVE:
        return _code(n_sides, side, LOSS) if time_up else GOES_ON
    if st == DESTROYED or x[b, ship] + 1 != exit_column:  # (hexmap: the column is x + 1)
        return _code(n_sides, side, LOSS)
    return _code(n_sides, side, WIN if mark[b] & 1 else LOSS)


@kernel(_nrt=False, error_model="numpy")
def _pirate_a(kind, side_, status, captured_by, towed_off_by, pirate: int, defender: int,
              n_sides: int, b: int, time_up: bool) -> int:
    """(victory._pirate_raid, SCENARIOS #8, PROPOSAL [P-021]) The battle ends when the pirate's
    ships are out of play, or at the turn limit (a pirate still on the map counts as
    destroyed): left with 3 or more freighters taken (towed off the map by the pirate, G7.0,
    or captured by its boarding parties, D7.0, off the map or still on it) the pirate wins;
    1-2 break even (a draw); none, or destroyed, the defender wins."""
    active = False
    gone = False
    for u in range(kind.shape[1]):
        if kind[b, u] == K_SHIP and side_[b, u] == pirate:
            active = active or status[b, u] == ACTIVE
            gone = gone or status[b, u] == DISENGAGED
    if active and not time_up:
        return GOES_ON
    if not gone or active:
        return _code(n_sides, defender, WIN)
    taken = 0
    for u in range(kind.shape[1]):
        if kind[b, u] == K_FREIGHTER and side_[b, u] == defender:
            prize = captured_by[b, u] == pirate
            if status[b, u] == DISENGAGED and (towed_off_by[b, u] == pirate or prize):
                taken += 1
            if prize and status[b, u] == ACTIVE:
                taken += 1
    if taken >= 3:
        return _code(n_sides, pirate, WIN)
    if taken >= 1:
        return _code(n_sides, 0, DRAW)  # (break even: a draw for every side)
    return _code(n_sides, defender, WIN)


@kernel(_nrt=False, error_model="numpy")
def _rescue_a(kind, side_, status, crew_units, captured_by, rescuer: int, opponent: int,
              n_sides: int, b: int, time_up: bool) -> int:
    """(victory._rescue, SCENARIOS #9, PROPOSAL [P-022]) The opponent wins at once if the
    survivors die (crew units aboard a destroyed unit); the rescuer wins by leaving the map
    with them aboard, or if the opponent leaves first; the rescuer leaving without them,
    destroyed or captured, and the turn limit, are opponent wins."""
    if planets.survivors_killed(status, crew_units, b):
        return _code(n_sides, opponent, WIN)
    gone = False
    aboard = 0
    theirs_left = False
    held = False
    for u in range(kind.shape[1]):
        if kind[b, u] != K_SHIP:
            continue
        if side_[b, u] == rescuer:
            if status[b, u] == DISENGAGED:
                gone = True
                aboard += crew_units[b, u]
            held = held or (status[b, u] == ACTIVE and captured_by[b, u] < 0)
        elif side_[b, u] == opponent:
            theirs_left = theirs_left or status[b, u] == DISENGAGED
    if gone and aboard > 0:
        return _code(n_sides, rescuer, WIN)
    if theirs_left:
        return _code(n_sides, rescuer, WIN)
    if not held or time_up:
        return _code(n_sides, opponent, WIN)
    return GOES_ON


@kernel(_nrt=False, error_model="numpy")
def _planet_killer_a(kind, side_, status, damage, m: int, p: int, n_sides: int, b: int,
                     time_up: bool) -> int:
    """(planet_killer.verdict, scenario 11 "How to win") The players' side wins by destroying
    the monster; the monster's side wins when the planet has taken 200 points or no ship of
    the other side is left in play; with no turn limit the env's truncation is a draw."""
    if m < 0:
        return GOES_ON
    monster_side = side_[b, m]
    if status[b, m] == DESTROYED:
        return _code(n_sides, monster_side, LOSS)
    if p >= 0 and damage[b, p] >= PLANET_DESTROYED_AT:
        return _code(n_sides, monster_side, WIN)
    ships = 0
    active = 0
    for u in range(kind.shape[1]):
        if kind[b, u] == K_SHIP and side_[b, u] != monster_side and side_[b, u] >= 0:
            ships += 1
            if status[b, u] == ACTIVE:
                active += 1
    if ships and not active:
        return _code(n_sides, monster_side, WIN)
    if time_up:
        return _code(n_sides, 0, DRAW)
    return GOES_ON


@nb.njit(cache=True, inline="always")
def _encounter_code(in_play: int, left: int, n_sides: int, time_up: bool) -> int:
    """(victory._encounter, scenario 5) A side out of play loses, or draws if one of its ships
    disengaged; the sides still in play win; nobody out: a draw at the env's turn cap."""
    if in_play == (1 << n_sides) - 1:
        return _code(n_sides, 0, DRAW) if time_up else GOES_ON
    code = 0
    p = 1
    for side in range(n_sides):
        result = WIN if (in_play >> side) & 1 else DRAW if (left >> side) & 1 else LOSS
        code += result * p
        p *= 3
    return code


@nb.njit(cache=True, inline="always")
def disengage_by_announcement(s, et, b: int, o) -> None:
    """(engine.disengagement.end_of_impulse, SCENARIOS #5) After the impulse's fire, every
    announcing ship still in play disengages at once (``DisengagementAnnounced``)."""
    for u in range(s.kind.shape[1]):
        if o.disengage[b, u] and s.status[b, u] == ACTIVE:
            s.status[b, u] = DISENGAGED
            r = event_codes.begin(s.ev, s.ev_count, b, DISENGAGEMENT_ANNOUNCED, s.turn[b],
                                  s.impulse[b])
            s.ev[b, r, 3] = u
            s.ev[b, r, 4] = s.x[b, u]
            s.ev[b, r, 5] = s.z[b, u]


@nb.njit(cache=True, inline="always")
def check_end(s, et, b: int, time_up: bool) -> bool:
    """(procedure._check_end) Ends battle ``b`` on a verdict: done, time_up, the outcome code
    and a ``BattleEnded`` row (its outcome and reason are decoded in Python)."""
    return check_end_pinned(s, et, pin_verdict(s), b, time_up)


@nb.njit(cache=True, inline="always")
def check_end_pinned(s, et, pv, b: int, time_up: bool) -> bool:
    """``check_end`` with ``_verdict_a``'s arrays pinned by the caller (``pin_verdict``)."""
    code = verdict_pinned(s, et, pv, b, time_up)
    if code == GOES_ON:
        return False
    s.done[b] = True
    s.time_up[b] = time_up
    s.outcome_code[b] = code
    event_codes.begin(s.ev, s.ev_count, b, BATTLE_ENDED, s.turn[b], s.impulse[b])
    return True


@nb.njit(cache=True, inline="always")
def end_of_impulse(s, et, b: int) -> None:
    """(engine.seeking.end_of_impulse) FD1.4 endurance, D4.41 and FD1.3 control (tier 1 has no
    plasma torpedoes): ``_end_of_impulse_a``, called only where a drone is in play."""
    for d in range(s.kind.shape[1]):
        if s.status[b, d] == ACTIVE and s.kind[b, d] == K_DRONE:
            _end_of_impulse_a(s.status, s.kind, s.launched_at, s.launcher, s.target, s.ev,
                              s.ev_count, s.turn[b], s.impulse[b], et.drone_endurance,
                              et.impulses_per_turn, b)
            return


@kernel(_nrt=False, error_model="numpy")
def _end_of_impulse_a(status, kind, launched_at, launcher, target_, ev, ev_count, turn: int,
                      imp: int, endurance: bool, ipt: int, b: int) -> None:
    """``end_of_impulse`` on the state arrays."""
    now = (turn - 1) * ipt + imp
    for d in range(kind.shape[1]):
        if status[b, d] != ACTIVE or kind[b, d] != K_DRONE:
            continue
        reason = -1
        if (endurance and launched_at[b, d] != NEVER
                and now - launched_at[b, d] >= 3 * ipt):
            reason = ENDURANCE
        launcher_, target = launcher[b, d], target_[b, d]
        if launcher_ >= 0 and status[b, launcher_] == DESTROYED:
            reason = CONTROL_LOST
        if target >= 0 and status[b, target] != ACTIVE:
            reason = TARGET_GONE
        if reason >= 0:
            status[b, d] = EXPENDED
            r = event_codes.begin(ev, ev_count, b, EXPIRED, turn, imp)
            ev[b, r, 3] = d
            ev[b, r, 4] = reason


@nb.njit(cache=True, inline="always")
def end_of_turn(s, et, b: int) -> None:
    """(procedure._end_of_turn under the Chief Engineer) ``TurnEnded``; the turn moves on."""
    event_codes.begin(s.ev, s.ev_count, b, TURN_ENDED, s.turn[b], s.impulse[b])
    s.turn[b] += 1
    s.impulse[b] = 0
