"""Boarding parties, their combat and the capture of a unit (D7.0; CTH-DATA §8.5).

State (``BattleState``): ``boarding_parties`` (U, n_sides) parties of each side aboard each
unit, ``crew_units`` (U,) rescuable crew units aboard, ``control_stations`` (U,) uncaptured
control stations, ``captured_by`` (U,) the side that captured the unit, -1 none. A ship starts
with its sheet's complement aboard (CTH-DATA §8.5, §9.2); ``engine.transporters`` moves them.

Boarding-party combat (rule ``boarding``) is its own step of the turn, after the Klingon
mutiny roll and before End of Turn (CTH-DATA §2.1), on every ship or freighter holding parties
of a side other than the one controlling it (the defenders):

* each side splits its parties aboard into groups of 10 plus a remainder and rolls a die per
  group; the chart (``tables.boarding_party_losses``) gives the enemy parties each group
  eliminates; both sides roll, then apply at once (D7.0);
* the attackers' eliminations beyond the last defending party capture control stations, one
  per point; with every control station captured the unit is captured (``capture``).

Capture (D7.0): ``captured_by`` = the captor, which now controls the unit (``controller_side``;
``st.side`` keeps the owner, so scenario victory rules can count prizes, SCENARIOS #8). The
captor may move it but not fire its weapons (``fire_blocker``, used by direct fire and seeking
launches). PROPOSALS [P-104] (the book is silent): a captured ship leaves its player (the controller
becomes ``captured``, a built-in pilot that keeps the speed and flies straight; the env ends
the agent, ``commanded``); a freighter keeps its controller (its course belongs to the
scenario: ``unit_rules``/``robots`` fly a prize off, SCENARIOS #8); a unit with enemy parties
aboard and no
defenders still has its combat step (the attackers roll, every point takes a station);
more than one attacking side: the defenders' eliminations fall on the attacking sides in side
order; a capture is final (no recapture; control stations are not retaken).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import tables
from sfb_env.engine import events as ev
from sfb_env.engine.types import ACTIVE, K_FREIGHTER, K_SHIP

if TYPE_CHECKING:
    from sfb_env.data.ships import ShipClass
    from sfb_env.engine.battle import Battle

# (D7.0, CTH-DATA §8.5) the control stations: bridge, emergency bridge and auxiliary control
# boxes; a freighter's sheet lists its 2 as ``control_station``. The Lyran flag bridge is not
# in the list (§8.5 names only these three), nor is Klingon security.
CONTROL_BOXES = ("bridge", "emergency_bridge", "auxiliary_control", "control_station")
GROUP = 10  # (D7.0) parties fight in groups of 10 plus a remainder
CAPTURED_CONTROLLER = "captured"  # a captured ship's built-in pilot (module PROPOSAL [P-104])
BOARDABLE = (K_SHIP, K_FREIGHTER)  # (J4.42) fighters cannot be boarded; nor seeking weapons
MUTINY_PARTIES = 4  # (G6.22) every full 4 enemy parties aboard shift the mutiny dice by 1


def control_station_count(ship: ShipClass | None) -> int:
    """Control stations of a ship sheet (D7.0): Fed CA 6, a freighter 2, others 0."""
    if ship is None:
        return 0
    return int(sum(ship.systems.get(name, 0) for name in CONTROL_BOXES))


def init_state(battle: Battle) -> None:
    """Start state: each ship's own boarding-party complement aboard (CTH-DATA §8.5, §9.2),
    no crew units to rescue, every control station uncaptured, nobody captured."""
    st = battle.state
    n = len(st.kind)
    n_sides = len(battle.scenario.sides)
    st.boarding_parties = np.zeros((n, n_sides), dtype=np.int64)
    st.crew_units = np.zeros(n, dtype=np.int64)
    st.control_stations = np.zeros(n, dtype=np.int64)
    st.captured_by = np.full(n, -1, dtype=np.int64)
    for u, ship in enumerate(battle.ship_classes):
        if ship is None:
            continue
        st.boarding_parties[u, int(st.side[u])] = int(ship.boarding_parties)
        st.control_stations[u] = control_station_count(ship)


# ---------------------------------------------------------------------- queries


def groups(parties: int) -> list[int]:
    """(D7.0) Groups of 10 plus a remainder: 14 -> [10, 4]; 0 -> []."""
    if parties < 0:
        raise ValueError(f"parties={parties}: need >= 0 (D7.0)")
    return [GROUP] * (parties // GROUP) + ([parties % GROUP] if parties % GROUP else [])


def eliminated(parties: int, dice: list[int]) -> int:
    """Enemy parties ``parties`` eliminate with one die per group (D7.0 chart)."""
    sizes = groups(parties)
    if len(dice) != len(sizes):
        raise ValueError(f"{parties} parties fight as {len(sizes)} groups: need "
                         f"{len(sizes)} dice, got {len(dice)} (D7.0)")
    return sum(tables.boarding_party_losses(g, d) for g, d in zip(sizes, dice, strict=True))


def controller_side(battle: Battle, unit: int) -> int:
    """The side controlling ``unit``: its captor (D7.0), else its own side (-1: a planet)."""
    st = battle.state
    captor = int(st.captured_by[unit])
    return captor if captor >= 0 else int(st.side[unit])


def enemy_parties(battle: Battle, unit: int) -> int:
    """Boarding parties aboard ``unit`` of the sides not controlling it."""
    row = battle.state.boarding_parties[unit]
    side = controller_side(battle, unit)
    return int(row.sum() - (row[side] if side >= 0 else 0))  # (P2.0) a planet: no side


def mutiny_shift(battle: Battle, unit: int) -> int:
    """(G6.22) 1 for every full 4 enemy boarding parties aboard (Klingon parties have no
    effect, G6.21)."""
    return enemy_parties(battle, unit) // MUTINY_PARTIES


def captured(battle: Battle, unit: int) -> bool:
    """Whether ``unit`` has been captured (D7.0)."""
    return int(battle.state.captured_by[unit]) >= 0


def fire_blocker(battle: Battle, unit: int) -> str | None:
    """(D7.0) A captured unit cannot fire its weapons (or launch seeking weapons)."""
    if int(battle.state.captured_by[unit]) >= 0:
        return "D7.0 a captured unit cannot fire its weapons"
    return None


def commanded(battle: Battle, unit: int) -> bool:
    """Whether the unit is still its player's (not captured): the env ends a captured agent."""
    return int(battle.state.captured_by[unit]) < 0


# ---------------------------------------------------------------------- combat


def resolve_combat(battle: Battle, unit: int, dice: dict[int, list[int]] | None = None) -> None:
    """(D7.0) One round of boarding-party combat aboard ``unit``; ``dice`` (side -> one die per
    group, tests) replaces the battle's generator."""
    st = battle.state
    defender = controller_side(battle, unit)
    before = st.boarding_parties[unit].copy()
    sides = [s for s in range(len(before)) if before[s] > 0]
    if not any(s != defender for s in sides):
        return
    rolled: dict[int, list[int]] = {}
    hits: dict[int, int] = {}
    for s in sides:  # both sides roll before anything is applied (simultaneous)
        n_groups = len(groups(int(before[s])))
        rolled[s] = (list(dice[s]) if dice is not None
                     else [int(battle.rng.integers(1, 7)) for _ in range(n_groups)])
        hits[s] = eliminated(int(before[s]), rolled[s])
    after = before.copy()
    against_defender = sum(h for s, h in hits.items() if s != defender)
    after[defender] = max(0, int(before[defender]) - against_defender)
    excess = max(0, against_defender - int(before[defender]))  # beyond the last defender
    left = hits.get(defender, 0)
    for s in sides:  # (module PROPOSAL [P-105]) several attacking sides: in side order
        if s != defender:
            lost = min(left, int(before[s]))
            after[s] = int(before[s]) - lost
            left -= lost
    taken = min(excess, int(st.control_stations[unit]))
    st.control_stations[unit] -= taken
    st.boarding_parties[unit] = after
    names = battle.scenario.sides
    battle.log(ev.BoardingCombat(
        st.turn, st.impulse, battle.unit_ids[unit],
        tuple((names[s], tuple(rolled[s])) for s in sides),
        tuple(int(v) for v in before), tuple(int(v) for v in after), taken))
    if taken and st.control_stations[unit] == 0 and not captured(battle, unit):
        attackers = [s for s in sides if s != defender]
        captor = max(attackers, key=lambda s: (hits[s], -s))  # the side that took the bridge
        capture(battle, unit, captor)


def capture(battle: Battle, unit: int, side: int) -> None:
    """(D7.0) ``side`` captures ``unit``: it takes control (``captured_by``); the unit cannot
    fire; a ship leaves its player for the built-in ``captured`` pilot (module PROPOSAL [P-104])."""
    st = battle.state
    st.captured_by[unit] = side
    st.control_stations[unit] = 0
    if int(st.kind[unit]) == K_SHIP:
        battle.state.controllers[unit] = CAPTURED_CONTROLLER
    battle.log(ev.Captured(st.turn, st.impulse, battle.unit_ids[unit],
                           battle.scenario.sides[side]))


def end_of_turn(battle: Battle) -> None:
    """(D7.0, CTH-DATA §2.1) The boarding-party combat step: every ship or freighter in play
    holding parties of a side other than the one controlling it."""
    st = battle.state
    if not battle.rules.boarding:
        return
    rows = np.flatnonzero(((st.kind == K_SHIP) | (st.kind == K_FREIGHTER))
                          & (st.status == ACTIVE) & (st.side >= 0))
    for u in rows:
        if enemy_parties(battle, int(u)) > 0:
            resolve_combat(battle, int(u))
