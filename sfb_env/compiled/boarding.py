"""Boarding-party combat and the capture of a unit in compiled code (``engine.boarding``,
D7.0; CTH-DATA §8.5).

``boarding_tables(setup)`` builds ``BoardingTables`` (``on`` False where ``rules.boarding`` is
off). State (``BatchState``): ``boarding_parties`` (B, U, sides) the parties of each side
aboard each unit, ``crew_units`` (B, U), ``control_stations`` and ``captured_by`` (B, U); the
parties move by transporter (``compiled.transporters``).

The combat step (``end_of_turn``, after the Klingon mutiny roll, before End of Turn, CTH-DATA
§2.1): aboard every ship or freighter in play holding parties of a side other than its
controller's, each side present splits its parties into groups of 10 and a remainder and rolls
a die a group (in side order, ``battle.rng``'s order); the D7.0 chart (``tables.
boarding_party_chart``) gives the enemy parties each group eliminates; both sides apply at
once, the defenders' eliminations falling on the attacking sides in side order
(PROPOSAL [P-105]); the attackers' eliminations beyond the last defender capture control
stations, and with the last one the unit is captured by the attacking side that scored most
(ties: the lower side): ``captured_by``, ``Captured`` (``capture``; a ship's pilot becomes the
built-in ``captured`` one, which flies straight at its speed: the compiled movement flies an
agent's ship without orders straight, PROPOSAL [P-104]). ``BoardingCombat``'s ``dice`` field
is a side-and-dice list (``event_codes``: per side present its index, its group count, its
dice).
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env import tables
from sfb_env.compiled import dice, event_codes
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine import boarding as ref
from sfb_env.engine.types import ACTIVE, K_FREIGHTER, K_SHIP

GROUP = ref.GROUP  # (D7.0) groups of 10 plus a remainder
MAX_SIDES = 8  # the scratch's sides (a scenario has 2 or 3)
COMBAT = event_codes.CODE["BoardingCombat"]
CAPTURED = event_codes.CODE["Captured"]

BoardingTables = namedtuple("BoardingTables", (
    "on",  # bool rules.boarding
    "chart",  # (6, 10) int64 the D7.0 chart by [die - 1, group size - 1]
    "work",  # (3, MAX_SIDES) int64 scratch: before, hits, after
))


def boarding_tables(setup) -> BoardingTables:
    """The boarding kernels' tables of ``setup``."""
    n_sides = len(setup.scenario.sides)
    rules = setup.rules
    if rules.mutiny and (rules.boarding or rules.transporters):  # (G6.22)
        raise NotImplementedError("compiled boarding (D7.0): enemy parties shifting the mutiny "
                                  "roll (G6.22) not ported")
    if n_sides > MAX_SIDES:
        raise NotImplementedError(f"compiled boarding: more than {MAX_SIDES} sides")
    return BoardingTables(on=bool(setup.rules.boarding),
                          chart=np.ascontiguousarray(tables.boarding_party_chart(),
                                                     dtype=np.int64),
                          work=np.zeros((3, MAX_SIDES), np.int64))


@kernel(_nrt=False, error_model="numpy")
def end_of_turn(s, bt, b: int) -> None:
    """(boarding.end_of_turn, D7.0) The boarding-party combat step: each ship or freighter in
    play (of a side) holding parties of a side other than its controller's."""
    n_sides = s.boarding_parties.shape[2]
    for u in range(s.kind.shape[1]):
        k = s.kind[b, u]
        if k not in (K_SHIP, K_FREIGHTER) or s.status[b, u] != ACTIVE:
            continue
        if s.side[b, u] < 0:
            continue
        c = s.captured_by[b, u]
        defender = c if c >= 0 else s.side[b, u]
        enemy = 0
        for x in range(n_sides):
            if x != defender:
                enemy += s.boarding_parties[b, u, x]
        if enemy > 0:
            _combat(s, bt, b, u, defender, n_sides)


@nb.njit(cache=True, inline="always")
def _combat(s, bt, b, u, defender, n_sides):
    """(boarding.resolve_combat) One round aboard ``u`` (some enemy party is aboard)."""
    before, hits, after = bt.work[0], bt.work[1], bt.work[2]
    r = event_codes.begin(s.ev, s.ev_count, b, COMBAT, s.turn[b], s.impulse[b])
    s.ev[b, r, 3] = u
    at = 5  # the dice: per side present (side, groups, dice...); col 4 counts the sides
    present = 0
    for x in range(n_sides):
        before[x] = s.boarding_parties[b, u, x]
        hits[x] = 0
        if before[x] <= 0:
            continue
        present += 1
        n = before[x]
        groups = (n + GROUP - 1) // GROUP
        s.ev[b, r, at] = x
        s.ev[b, r, at + 1] = groups
        at += 2
        for g in range(groups):  # (D7.0) one die a group, both sides before any loss
            size = GROUP if g < n // GROUP else n % GROUP
            die = dice.roll(s.dice, b, 1, 7)
            s.ev[b, r, at] = die
            at += 1
            hits[x] += bt.chart[die - 1, size - 1]
    s.ev[b, r, 4] = present
    against = 0
    for x in range(n_sides):
        after[x] = before[x]
        if x != defender and before[x] > 0:
            against += hits[x]
    after[defender] = max(0, before[defender] - against)
    excess = max(0, against - before[defender])  # beyond the last defender
    left = hits[defender] if before[defender] > 0 else 0
    for x in range(n_sides):  # ([P-105]) the defenders' eliminations in side order
        if x != defender and before[x] > 0:
            lost = min(left, before[x])
            after[x] = before[x] - lost
            left -= lost
    taken = min(excess, s.control_stations[b, u])
    s.control_stations[b, u] -= taken
    s.ev[b, r, at] = n_sides  # before, after, the stations taken
    at += 1
    for x in range(n_sides):
        s.boarding_parties[b, u, x] = after[x]
        s.ev[b, r, at] = before[x]
        at += 1
    s.ev[b, r, at] = n_sides
    at += 1
    for x in range(n_sides):
        s.ev[b, r, at] = after[x]
        at += 1
    s.ev[b, r, at] = taken
    if taken and s.control_stations[b, u] == 0 and s.captured_by[b, u] < 0:
        captor, best = -1, -1
        for x in range(n_sides):  # the attacking side that took the bridge: most hits, then
            if x != defender and before[x] > 0 and hits[x] > best:  # the lower side
                captor, best = x, hits[x]
        capture(s, b, u, captor)


@nb.njit(cache=True, inline="always")
def capture(s, b, u, side):
    """(boarding.capture, D7.0) ``side`` takes control of ``u``: it cannot fire; a ship's
    player loses it ([P-104])."""
    s.captured_by[b, u] = side
    s.control_stations[b, u] = 0
    r = event_codes.begin(s.ev, s.ev_count, b, CAPTURED, s.turn[b], s.impulse[b])
    s.ev[b, r, 3] = u
    s.ev[b, r, 4] = side
