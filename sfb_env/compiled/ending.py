"""End of Impulse, End of Turn and the victory check, compiled (tier 1).

Mirrors ``engine.seeking.end_of_impulse`` (drone endurance FD1.4 and control FD1.3, D4.41),
``engine.procedure._end_of_turn`` as it runs under the Chief Engineer (nothing but the
``TurnEnded`` event and the turn counter: no energy form, no damage control) and
``engine.victory`` for the tier-1 kinds (``battle_drill``, ``under_attack``, ``convoy_raid``,
``duel``). A verdict is kept as ``s.outcome_code[b]``: the sum over sides of
``result * 3 ** side`` (``RESULTS``); its level and reason text come from the reference
``victory.evaluate`` on the converted battle (``compiled.backend``), and the parity harness
checks that both agree.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env.compiled import event_codes
from sfb_env.engine.setup import BattleSetup
from sfb_env.engine.types import (
    ACTIVE,
    DESTROYED,
    DISENGAGED,
    EXPENDED,
    K_DRONE,
    K_FREIGHTER,
    K_SHIP,
    K_TARGET_DRONE,
    NEVER,
)

RESULTS = ("win", "loss", "draw")
WIN, LOSS, DRAW = 0, 1, 2
GOES_ON = -1
VICTORY_KINDS = ("battle_drill", "under_attack", "convoy_raid", "duel")
BATTLE_DRILL, UNDER_ATTACK, CONVOY_RAID, DUEL = range(4)

EXPIRED = event_codes.CODE["Expired"]
TURN_ENDED = event_codes.CODE["TurnEnded"]
BATTLE_ENDED = event_codes.CODE["BattleEnded"]
ENDURANCE = event_codes.word("reason", "FD1.4 endurance of 3 turns ran out")
CONTROL_LOST = event_codes.word("reason", "D4.41 the controlling ship was destroyed")
TARGET_GONE = event_codes.word("reason", "FD1.3 the target is no longer in play")

EndTables = namedtuple("EndTables", (
    "victory_kind", "side", "other", "n_sides", "pass_damage", "drone_endurance",
    "impulses_per_turn", "max_turns"))


def end_tables(setup: BattleSetup) -> EndTables:
    """The victory conditions and switches of ``setup`` (tier-1 kinds only)."""
    sc = setup.scenario
    cfg = sc.victory
    kind = cfg["kind"]
    if kind not in VICTORY_KINDS:
        raise ValueError(f"victory kind {kind!r} is not compiled (tier 1: {VICTORY_KINDS})")
    side = other = -1
    if kind in ("battle_drill", "under_attack"):
        side = setup.side_index[cfg["side"]]
    elif kind == "convoy_raid":
        side, other = setup.side_index[cfg["raider"]], setup.side_index[cfg["convoy"]]
    return EndTables(VICTORY_KINDS.index(kind), side, other, len(sc.sides),
                     int(cfg.get("pass_damage", 3)), bool(setup.rules.drone_endurance),
                     int(sc.impulses_per_turn), int(setup.max_turns))


def outcome_results(code: int, n_sides: int) -> list[str]:
    """The result of each side from an outcome code."""
    return [RESULTS[(code // 3 ** s) % 3] for s in range(n_sides)]


@nb.njit(cache=True, inline="always")
def _pair(et, side: int, result: int) -> int:
    """(victory._pair) ``result`` for ``side``, its opposite for the others."""
    other = LOSS if result == WIN else WIN if result == LOSS else DRAW
    code = 0
    p = 1
    for s in range(et.n_sides):
        code += (result if s == side else other) * p
        p *= 3
    return code


@nb.njit(cache=True, inline="always")
def _held(s, b: int, u: int) -> bool:
    c = s.captured_by[b, u]
    return s.status[b, u] == ACTIVE and (c < 0 or c == s.side[b, u])


@nb.njit(cache=True)
def verdict(s, et, b: int, time_up: bool) -> int:
    """(engine.victory.evaluate) The outcome code, or GOES_ON."""
    n = s.kind.shape[1]
    if et.victory_kind == BATTLE_DRILL:
        left_area = False
        alive = False
        all_destroyed = True
        all_passed = True
        for u in range(n):
            k = s.kind[b, u]
            if k == K_SHIP and s.side[b, u] == et.side and s.status[b, u] != ACTIVE:
                left_area = True
            if k in (K_TARGET_DRONE, K_DRONE):
                if s.status[b, u] == ACTIVE:
                    alive = True
                if s.status[b, u] != DESTROYED:
                    all_destroyed = False
                if s.damage[b, u] < et.pass_damage:
                    all_passed = False
        if not (time_up or left_area or not alive):
            return GOES_ON
        if left_area:
            return _pair(et, et.side, LOSS)
        if all_destroyed:
            return _pair(et, et.side, WIN)
        if all_passed:
            return _pair(et, et.side, DRAW)
        return _pair(et, et.side, LOSS)
    if et.victory_kind == UNDER_ATTACK:
        internal = False
        gone = False
        drones = False
        for u in range(n):
            k = s.kind[b, u]
            if k == K_SHIP and s.side[b, u] == et.side:
                if s.internal[b, u] > 0:
                    internal = True
                if s.status[b, u] != ACTIVE:
                    gone = True
            if k == K_DRONE and s.status[b, u] == ACTIVE:
                drones = True
        if internal or gone:
            return _pair(et, et.side, LOSS)
        if not drones:
            return _pair(et, et.side, WIN)
        if time_up:
            return _pair(et, et.side, DRAW)
        return GOES_ON
    if et.victory_kind == CONVOY_RAID:
        escaped = False
        all_destroyed = True
        raider = False
        for u in range(n):
            k = s.kind[b, u]
            if k == K_FREIGHTER and s.side[b, u] == et.other:
                if s.status[b, u] == DISENGAGED:
                    escaped = True
                if s.status[b, u] != DESTROYED:
                    all_destroyed = False
            if k == K_SHIP and s.side[b, u] == et.side and s.status[b, u] == ACTIVE:
                raider = True
        if escaped:
            return _pair(et, et.side, LOSS)
        if all_destroyed:
            return _pair(et, et.side, WIN)
        if not raider:
            return _pair(et, et.side, LOSS)
        if time_up:
            return _pair(et, et.side, DRAW)
        return GOES_ON
    # DUEL (PROPOSAL [P-018])
    in_play = np.zeros(et.n_sides, np.bool_)
    taken = np.zeros(et.n_sides, np.int64)
    for u in range(n):
        if s.kind[b, u] == K_SHIP:
            taken[s.side[b, u]] += s.damage[b, u]
            if _held(s, b, u):
                in_play[s.side[b, u]] = True
    standing = 0
    winner = -1
    for side in range(et.n_sides):
        if in_play[side]:
            standing += 1
            winner = side
    if standing == et.n_sides and not time_up:
        return GOES_ON
    if standing == 1 and et.n_sides > 1:
        return _pair(et, winner, WIN)
    if standing == 0:
        return _pair(et, 0, DRAW)  # DRAW for one side is a draw for all
    if not time_up:
        return GOES_ON
    total = taken.sum()
    best = -1
    leaders = 0
    leader = -1
    for side in range(et.n_sides):
        dealt = total - taken[side]
        if dealt > best:
            best, leaders, leader = dealt, 1, side
        elif dealt == best:
            leaders += 1
    if leaders > 1:
        return _pair(et, 0, DRAW)  # DRAW for one side is a draw for all
    return _pair(et, leader, WIN)


@nb.njit(cache=True, inline="always")
def check_end(s, et, b: int, time_up: bool) -> bool:
    """(procedure._check_end) Ends battle ``b`` on a verdict: done, time_up, the outcome code
    and a ``BattleEnded`` row (its outcome and reason are decoded in Python)."""
    code = verdict(s, et, b, time_up)
    if code == GOES_ON:
        return False
    s.done[b] = True
    s.time_up[b] = time_up
    s.outcome_code[b] = code
    event_codes.begin(s.ev, s.ev_count, b, BATTLE_ENDED, s.turn[b], s.impulse[b])
    return True


@nb.njit(cache=True)
def end_of_impulse(s, et, b: int) -> None:
    """(engine.seeking.end_of_impulse) FD1.4 endurance, D4.41 and FD1.3 control (tier 1 has no
    plasma torpedoes)."""
    now = (s.turn[b] - 1) * et.impulses_per_turn + s.impulse[b]
    for d in range(s.kind.shape[1]):
        if s.status[b, d] != ACTIVE or s.kind[b, d] != K_DRONE:
            continue
        reason = -1
        if (et.drone_endurance and s.launched_at[b, d] != NEVER
                and now - s.launched_at[b, d] >= 3 * et.impulses_per_turn):
            reason = ENDURANCE
        launcher, target = s.launcher[b, d], s.target[b, d]
        if launcher >= 0 and s.status[b, launcher] == DESTROYED:
            reason = CONTROL_LOST
        if target >= 0 and s.status[b, target] != ACTIVE:
            reason = TARGET_GONE
        if reason >= 0:
            s.status[b, d] = EXPENDED
            r = event_codes.begin(s.ev, s.ev_count, b, EXPIRED, s.turn[b], s.impulse[b])
            s.ev[b, r, 3] = d
            s.ev[b, r, 4] = reason


@nb.njit(cache=True, inline="always")
def end_of_turn(s, et, b: int) -> None:
    """(procedure._end_of_turn under the Chief Engineer) ``TurnEnded``; the turn moves on."""
    event_codes.begin(s.ev, s.ev_count, b, TURN_ENDED, s.turn[b], s.impulse[b])
    s.turn[b] += 1
    s.impulse[b] = 0
