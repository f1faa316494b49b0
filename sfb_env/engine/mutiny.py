"""Klingon security and mutiny (G6.0; scenario-10 rule ``mutiny``, CTH-DATA §8.5).

* G6.1 "flag bridge" hits of the standard DAC go to the Klingon security stations
  (``engine.dac``: FlagBridge -> SECURITY); the rule therefore needs ``damage: standard_dac``.
* G6.2 when the last security station is destroyed a die is rolled at once, then at the end
  of that turn and of every later turn until a mutiny breaks out: 1 = mutiny. A second die:
  1-3 put down (G6.24: no more rolls), 4-6 successful.
* G6.23 all control spaces (bridge, auxiliary control, emergency bridge) destroyed before the
  roll: -1 on the occurrence die (at least 1), +1 on the success die (at most 6).
* G6.22 every full 4 enemy boarding parties aboard (``BattleState.boarding_parties`` of the
  sides not controlling the ship, ``engine.boarding.mutiny_shift``): another -1 / +1, cumulative
  with G6.23; Klingon boarding parties have no effect (G6.21).
* G6.31-G6.34 a successful mutiny: no more rolls (G6.31); the ship stops at once and cannot
  move or fire (G6.32: speed 0; a captured unit fires nothing, ``boarding.fire_blocker``); it
  is captured by the enemy (G6.33 "the ship is captured"; G6.34 "the winning player gaining
  control"), through the capture of boarding (``boarding.capture``: ``captured_by``, the
  ``captured`` controller; ``st.side`` keeps the owner). As the only Klingon ship in play
  the scenario is then over (G6.33): ``victory`` counts a ship captured by another side as out
  of its owner's play (fate "captured", a loss). With other Klingon ships in play the battle
  goes on with the prize in the enemy's hands (G6.34).

PROPOSAL [P-106] (the book has two players): with several enemy sides the captor is the one with the
most boarding parties aboard, ties to the lower side number.
``BattleState.mutiny`` per unit: 0 quiet, 1 security gone (rolling), 2 put down, 3 captured.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env.engine import boarding, dac
from sfb_env.engine import events as ev
from sfb_env.engine.types import ACTIVE

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

QUIET, ROLLING, PUT_DOWN, CAPTURED = 0, 1, 2, 3
CONTROL_SPACES = (dac.DacBox.BRIDGE, dac.DacBox.AUX_CONTROL, dac.DacBox.EMER_BRIDGE)  # (G6.23)


def has_security(battle: Battle, unit: int) -> bool:
    """A Klingon ship whose sheet has security stations (G6.1)."""
    ship = battle.ship_classes[unit]
    return ship is not None and ship.race == "klingon" and ship.systems.get("security", 0) > 0


def modifier(battle: Battle, unit: int) -> int:
    """G6.22 (1 per full 4 enemy boarding parties aboard) + G6.23 (1 if every control space
    is destroyed)."""
    boxes = battle.state.dac_boxes[unit]
    return (boarding.mutiny_shift(battle, unit)
            + int(all(int(boxes[b]) == 0 for b in CONTROL_SPACES)))


def after_damage(battle: Battle, unit: int) -> None:
    """(G6.2) Roll at once when the ship's last security station has just been destroyed."""
    st = battle.state
    if (st.status[unit] != ACTIVE or int(st.mutiny[unit]) != QUIET
            or not has_security(battle, unit)
            or int(st.dac_boxes[unit, dac.DacBox.SECURITY]) > 0):
        return
    st.mutiny[unit] = ROLLING
    roll(battle, unit)


def end_of_turn(battle: Battle) -> None:
    """(G6.2) The end-of-turn roll of every ship without security stations still rolling."""
    st = battle.state
    for u in np.flatnonzero((st.mutiny == ROLLING) & (st.status == ACTIVE)):
        roll(battle, int(u))


def roll(battle: Battle, unit: int) -> None:
    """One occurrence roll (G6.2, G6.23) and, on a mutiny, the success roll."""
    st = battle.state
    mod = modifier(battle, unit)
    die = int(battle.rng.integers(1, 7))
    uid = battle.unit_ids[unit]
    if max(1, die - mod) != 1:
        battle.log(ev.Mutiny(st.turn, st.impulse, uid, die, 0, "no mutiny"))
        return
    second = int(battle.rng.integers(1, 7))
    if min(6, second + mod) <= 3:  # (G6.24) put down: no further rolls
        st.mutiny[unit] = PUT_DOWN
        battle.log(ev.Mutiny(st.turn, st.impulse, uid, die, second, "put down"))
        return
    st.mutiny[unit] = CAPTURED  # (G6.31) no further rolls
    st.speed[unit] = 0  # (G6.32) the ship stops at once; it cannot move or fire
    battle.log(ev.Mutiny(st.turn, st.impulse, uid, die, second, "captured"))
    boarding.capture(battle, unit, captor(battle, unit))  # (G6.33, G6.34) the enemy takes it


def captor(battle: Battle, unit: int) -> int:
    """(G6.33, G6.34) The enemy side that takes the mutinous ship (PROPOSAL [P-106] for several
    enemy sides: the most boarding parties aboard, ties to the lower side number)."""
    parties = battle.state.boarding_parties[unit]
    own = int(battle.state.side[unit])
    enemies = [s for s in range(len(battle.scenario.sides)) if s != own]
    return max(enemies, key=lambda s: (int(parties[s]), -s))
