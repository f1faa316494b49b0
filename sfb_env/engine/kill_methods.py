"""The monster's immortality and its kill methods (scenario 11; SCENARIOS.md §2.8): points scored
on it count only toward kill method 3; a hit of a researched method destroys it. Rule areas
report such hits here (``struck_by``); the rest of the Planet Killer is ``engine.planet_killer``."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

from sfb_env.engine import events as ev
from sfb_env.engine import labs
from sfb_env.engine.events import Event
from sfb_env.engine.types import ACTIVE, K_MONSTER, Status

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

PRIOR_DAMAGE_CAP = 150  # (SCENARIOS §2.8) damage before result 3 counts up to 150
KILL_DAMAGE = 200  # (SCENARIOS §2.8) kill method 3


class Method(IntEnum):
    """Research results (SCENARIOS §2.8): how the monster can be destroyed."""

    SUICIDE_SHUTTLE = 1  # a suicide shuttle hit (J2.2)
    TRACTOR = 2  # PROPOSAL [P-113]: destroyed when a tractor link is established (G7)
    DAMAGE = 3  # 200 damage points, counting up to 150 scored before
    ANTIMATTER_PROBE = 4  # a hit by an anti-matter probe fired as a weapon (G5.3)
    BOARDING = 5  # PROPOSAL [P-114]: destroyed when one boarding party is beamed over (G8, D7)
    NOTHING = 6  # nothing yet: gather 50 more points


@dataclass(frozen=True)
class MonsterStruck(Event):
    """Points scored on the monster and what counts toward kill method 3."""

    monster: str
    points: int
    counted: int


@dataclass(frozen=True)
class MonsterKilled(Event):
    """The monster was destroyed by a researched method."""

    monster: str
    method: int
    by: str


def take_damage(battle: Battle, m: int, points: int) -> None:
    """Points scored on the monster (from ``damage.apply_damage``): they count only toward kill
    method 3, at most 150 of them before a side has found it (SCENARIOS §2.8)."""
    st = battle.state
    st.damage[m] += points
    known = _known_by_any(battle, m, Method.DAMAGE)
    if known >= 0:
        st.monster_counted[m] += points
    else:
        st.monster_counted[m] = min(PRIOR_DAMAGE_CAP, int(st.monster_counted[m]) + points)
    battle.log(MonsterStruck(st.turn, st.impulse, battle.unit_ids[m], points,
                             int(st.monster_counted[m])))
    if known >= 0 and st.monster_counted[m] >= KILL_DAMAGE:
        kill(battle, m, Method.DAMAGE, battle.scenario.sides[known])


def _known_by_any(battle: Battle, m: int, method: Method) -> int:
    """A side (index) other than the monster's that knows ``method``, else -1."""
    st = battle.state
    for side in range(len(battle.scenario.sides)):
        if side != int(st.side[m]) and labs.method_known(battle, side, method):
            return side
    return -1


def struck_by(battle: Battle, m: int, method: Method, by: int) -> bool:
    """A hit of kill method ``method`` (1, 2, 4, 5) on the monster by unit ``by``: destroys it
    if ``by``'s side has found that method (actions before the result do not count,
    SCENARIOS §2.8). Returns whether it was destroyed."""
    st = battle.state
    if st.status[m] != ACTIVE or int(st.kind[m]) != K_MONSTER:
        return False
    if not labs.method_known(battle, int(st.side[by]), method):
        return False
    kill(battle, m, method, battle.unit_ids[by])
    return True


def kill(battle: Battle, m: int, method: Method, by: str) -> None:
    """Destroy the monster by a researched method."""
    st = battle.state
    st.status[m] = Status.DESTROYED
    battle.log(MonsterKilled(st.turn, st.impulse, battle.unit_ids[m], int(method), by))
    battle.log(ev.Destroyed(st.turn, st.impulse, battle.unit_ids[m]))


def tractor_blocker(battle: Battle, unit: int) -> str | None:
    """PROPOSAL [P-113] (SCENARIOS §2.8 result 2): a tractor beam may hold the monster only at
    the crack research found, so only once ``unit``'s side has result 2 (``engine.tractors``
    then destroys it as the link is established)."""
    if labs.method_known(battle, int(battle.state.side[unit]), Method.TRACTOR):
        return None
    return ("SCENARIOS §2.8 the Planet Killer can be held only at the crack research finds "
            "(result 2)")
