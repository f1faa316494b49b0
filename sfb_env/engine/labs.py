"""Labs and research (G4.0; scenario 11, SCENARIOS.md §2.8, CTH-DATA §8.8).

Scenario rule ``labs``. Each turn every ship of a side facing a monster researches it:

* information = chart value x functioning lab boxes at the end of the turn, the chart value
  read for the closest effective range to the monster during the turn with one die:
  max(0, 11 - die - range) for ranges 0..10, 0 beyond (``tables.lab_information``, G4.0);
* a ship without a working lab uses one control space as one lab (G4.0; PROPOSAL [P-118]: "without
  labs" also covers a ship whose labs were all destroyed, and any control box will do);
* each administrative shuttle on the map counts as one lab at its own range (G4.0);
* a cloaked ship cannot use its labs outward (G4.0): its range is not tracked while cloaked;
* an information probe launched within 6 hexes adds 20 (G5.2; ``engine.probes``).

Labs need no power. One die per researching unit. Information accumulates per side in
``st.information``. At 100 points the side rolls a die, and one more for every further 50
(results accumulate in ``st.kill_methods``; the kill methods are ``planet_killer.Method``).
The rolls are made at the end of the turn, after that turn's lab research (PROPOSAL [P-119]: probe
information added during the turn waits for the same End of Turn).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap, tables
from sfb_env.data.charts import LAB_MAX_RANGE
from sfb_env.engine.events import Event
from sfb_env.engine.types import ACTIVE, K_MONSTER, K_SHIP, K_SHUTTLE, Box

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

NO_RANGE = 10**6  # "no range this turn" in ``st.lab_range``
FIRST_ROLL_AT = 100  # (SCENARIOS §2.8) the first research roll
ROLL_EVERY = 50  # ... and another every further 50 points
CONTROL_SYSTEMS = ("bridge", "emergency_bridge", "auxiliary_control")  # (G4.0) not security


@dataclass(frozen=True)
class Researched(Event):
    """A unit's lab research of the turn (G4.0): closest range, die, labs, points gained."""

    unit: str
    range: int
    die: int
    labs: int
    points: int
    side_total: int


@dataclass(frozen=True)
class ResearchRolled(Event):
    """A research roll (SCENARIOS §2.8): the die result (kill method found, 6 = nothing)."""

    side: str
    die: int
    information: int


def init_state(battle: Battle) -> None:
    """No information, no rolls, no range tracked."""
    st = battle.state
    n_sides = len(battle.scenario.sides)
    st.information = np.zeros(n_sides, dtype=np.int64)
    st.research_rolls = np.zeros(n_sides, dtype=np.int64)
    st.kill_methods = np.zeros((n_sides, 6), dtype=bool)
    st.lab_range = np.full(len(st.kind), NO_RANGE, dtype=np.int64)


def lab_value(rng: int, die: int) -> int:
    """(G4.0) Information per lab box at ``rng`` with ``die`` (CTH-DATA §8.8 chart)."""
    return tables.lab_information(rng, die)


def labs_of(battle: Battle, unit: int) -> int:
    """Lab boxes the unit researches with (G4.0): a shuttle is one lab; a ship its working
    lab boxes, or one control space if it has none."""
    st = battle.state
    if int(st.kind[unit]) == K_SHUTTLE:
        return 1
    labs = int(st.boxes[unit, Box.LAB])
    if labs > 0:
        return labs
    ship = battle.ship_classes[unit]
    has_control = ship is not None and any(ship.systems.get(s, 0) for s in CONTROL_SYSTEMS)
    return 1 if has_control else 0


def researchers(battle: Battle) -> np.ndarray:
    """Rows of the units that research: active ships and shuttles not of a monster's side."""
    st = battle.state
    mask = (st.status == ACTIVE) & ((st.kind == K_SHIP) | (st.kind == K_SHUTTLE))
    for side in {int(v) for v in st.side[st.kind == K_MONSTER]}:  # (a few rows: no np.isin)
        mask &= st.side != side
    return np.flatnonzero(mask)


def track_ranges(battle: Battle) -> None:
    """Keep each researcher's closest range to an active monster this turn (G4.0); a cloaked
    ship cannot use its labs outward."""
    st = battle.state
    active = monsters(battle)
    if not len(active):
        return
    units = researchers(battle)
    units = units[~st.cloaked[units]]
    if not len(units):
        return
    d = hexmap.distance_np(st.x[units][:, None], st.z[units][:, None],
                           st.x[active][None, :], st.z[active][None, :]).min(axis=1)
    st.lab_range[units] = np.minimum(st.lab_range[units], d)


def add_information(battle: Battle, side: int, points: int) -> None:
    """Add research points to a side (labs, an information probe)."""
    battle.state.information[side] += int(points)


def end_of_turn(battle: Battle) -> None:
    """(G4.0) The turn's research, then the research rolls now due (SCENARIOS §2.8); the
    range tracking restarts from the positions at the end of the turn."""
    st = battle.state
    track_ranges(battle)
    for u in researchers(battle):
        u = int(u)
        rng = int(st.lab_range[u])
        labs = labs_of(battle, u)
        if rng > LAB_MAX_RANGE or labs == 0:  # (G4.0) nothing beyond range 10: no die
            continue
        die = int(battle.rng.integers(1, 7))
        points = lab_value(rng, die) * labs
        side = int(st.side[u])
        add_information(battle, side, points)
        battle.log(Researched(st.turn, st.impulse, battle.unit_ids[u], rng, die, labs, points,
                              int(st.information[side])))
    roll_research(battle)
    st.lab_range[:] = NO_RANGE
    track_ranges(battle)


def rolls_due(information: int) -> int:
    """Research rolls earned by ``information`` points: 1 at 100, +1 per further 50."""
    if information < FIRST_ROLL_AT:
        return 0
    return 1 + (int(information) - FIRST_ROLL_AT) // ROLL_EVERY


def roll_research(battle: Battle) -> None:
    """Roll every research die each side has earned; results accumulate (SCENARIOS §2.8)."""
    st = battle.state
    for side in range(len(st.information)):
        while st.research_rolls[side] < rolls_due(int(st.information[side])):
            st.research_rolls[side] += 1
            die = int(battle.rng.integers(1, 7))
            st.kill_methods[side, die - 1] = True
            battle.log(ResearchRolled(st.turn, st.impulse, battle.scenario.sides[side], die,
                                      int(st.information[side])))


def method_known(battle: Battle, side: int, method: int) -> bool:
    """Whether ``side`` has found kill method ``method`` (1..5, ``planet_killer.Method``)."""
    return bool(battle.state.kill_methods[side, int(method) - 1])


def monsters(battle: Battle) -> np.ndarray:
    """Rows of the monsters in play."""
    st = battle.state
    return np.flatnonzero((st.status == ACTIVE) & (st.kind == K_MONSTER))
