"""The Planet Killer's immortality and its kill methods, compiled (``engine.kill_methods``;
scenario 11, SCENARIOS.md §2.8).

Points scored on the monster count only toward kill method 3 (``take_damage``: at most 150
before a side has found that method); a hit of a researched method destroys it
(``struck_by``: a suicide shuttle hit ``compiled.seeking_impacts``, a tractor link
``compiled.tractors``, an anti-matter probe ``compiled.planet_killer``, a boarding party
``compiled.transporters``). Kernels on arrays only (every rule area calls them on its own
view of the state); a leaf beside ``event_codes``.
"""

from __future__ import annotations

import numba as nb

from sfb_env.compiled import event_codes
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine.kill_methods import KILL_DAMAGE, PRIOR_DAMAGE_CAP, Method
from sfb_env.engine.types import ACTIVE, DESTROYED, K_MONSTER

MONSTER_STRUCK = event_codes.CODE["MonsterStruck"]
MONSTER_KILLED = event_codes.CODE["MonsterKilled"]
DESTROYED_EV = event_codes.CODE["Destroyed"]
BY_SIDE = event_codes.BY_SIDE
SUICIDE_SHUTTLE = int(Method.SUICIDE_SHUTTLE)  # 1 (J2.2)
TRACTOR = int(Method.TRACTOR)  # 2, PROPOSAL [P-113]
DAMAGE = int(Method.DAMAGE)  # 3
ANTIMATTER_PROBE = int(Method.ANTIMATTER_PROBE)  # 4 (G5.3)
BOARDING = int(Method.BOARDING)  # 5, PROPOSAL [P-114]


@nb.njit(cache=True, inline="always")
def known(kill_methods, b: int, side: int, method: int) -> bool:
    """(labs.method_known) ``side`` has found kill method ``method`` (1..5)."""
    return side >= 0 and kill_methods[b, side, method - 1]


@nb.njit(cache=True, inline="always")
def known_by_any(kill_methods, b: int, monster_side: int, method: int) -> int:
    """(kill_methods._known_by_any) The first side other than the monster's that knows
    ``method``, else -1."""
    for side in range(kill_methods.shape[1]):
        if side != monster_side and kill_methods[b, side, method - 1]:
            return side
    return -1


@kernel(_nrt=False, error_model="numpy")
def kill(status, ev, ev_count, turn: int, imp: int, b: int, m: int, method: int,
         by: int) -> None:
    """(kill_methods.kill) Destroy the monster by a researched method (``by``: a unit row, or
    ``BY_SIDE - side``); ``MonsterKilled``, ``Destroyed``."""
    status[b, m] = DESTROYED
    r = event_codes.begin(ev, ev_count, b, MONSTER_KILLED, turn, imp)
    ev[b, r, 3] = m
    ev[b, r, 4] = method
    ev[b, r, 5] = by
    r = event_codes.begin(ev, ev_count, b, DESTROYED_EV, turn, imp)
    ev[b, r, 3] = m


@kernel(_nrt=False, error_model="numpy")
def take_damage(status, side, damage, monster_counted, kill_methods, ev, ev_count, turn: int,
                imp: int, b: int, m: int, points: int) -> None:
    """(kill_methods.take_damage, SCENARIOS §2.8) Points scored on the monster: they count
    only toward kill method 3, at most 150 of them before a side has found it; with it found,
    200 counted destroy the monster."""
    damage[b, m] += points
    found = known_by_any(kill_methods, b, side[b, m], DAMAGE)
    if found >= 0:
        monster_counted[b, m] += points
    else:
        monster_counted[b, m] = min(PRIOR_DAMAGE_CAP, monster_counted[b, m] + points)
    r = event_codes.begin(ev, ev_count, b, MONSTER_STRUCK, turn, imp)
    ev[b, r, 3] = m
    ev[b, r, 4] = points
    ev[b, r, 5] = monster_counted[b, m]
    if found >= 0 and monster_counted[b, m] >= KILL_DAMAGE:
        kill(status, ev, ev_count, turn, imp, b, m, DAMAGE, BY_SIDE - found)


@kernel(_nrt=False, error_model="numpy")
def struck_by(status, kind, side, kill_methods, ev, ev_count, turn: int, imp: int, b: int,
              m: int, method: int, by: int) -> bool:
    """(kill_methods.struck_by) A hit of kill method ``method`` (1, 2, 4, 5) on unit ``m`` by
    unit ``by``: destroys the monster if ``by``'s side has found that method (actions before
    the result do not count, SCENARIOS §2.8). Returns whether it was destroyed."""
    if status[b, m] != ACTIVE or kind[b, m] != K_MONSTER:
        return False
    if not known(kill_methods, b, side[b, by], method):
        return False
    kill(status, ev, ev_count, turn, imp, b, m, method, by)
    return True
