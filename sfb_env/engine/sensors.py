"""Sensors, scanners and lock-on (D6.0, CTH-DATA §8.1; scenario rule ``lock_on``).

* Sensor Lock-On step (B2.0 advanced sequence, after Speed Determination and the energy form):
  each ship locks on if a die is at most its best undestroyed sensor value. Every CTH
  full-size ship starts at 6: PROPOSAL [P-048], a sensor of 6 locks on without a die (the roll could
  not fail), so battles with undamaged sensors draw no extra dice from ``battle.rng``.
* A ship without lock-on launches no seeking weapons (``launch_blocker``), its drones on the
  map are removed at the step, and its direct fire uses the true range x 2 (``cloak.
  effective_range`` with the firer).
* Scanner adjustment: the best undestroyed scanner value (starts 0) is added to the (possibly
  doubled) range of every shot (``scanner``).
* Track boxes are destroyed best-first and the last sensor and scanner box is never destroyed
  (D4.33; ``engine.dac`` keeps the counts in ``st.dac_boxes``, ``dac.track_rating`` reads them).
  Without the standard DAC the tracks keep their first value.
* A ship controls at most (sensor rating) drones: no launch beyond (``control_blocker``).
* No lock-on to a (fully) cloaked ship (G13): PROPOSAL [P-050], no seeking weapon may be launched at
  one (``target_blockers``, also under ``rules.cloak: standard`` alone); direct fire at it uses
  the cloak's 2 x true + 5. A cloaked ship damaged by an ESG can be locked on during that
  impulse (G23.621; ``cloak.fully_cloaked`` is False for it then).
* Cadet SSDs and freighters have no sensor or scanner tracks: PROPOSAL [P-049] of CTH-DATA §12.4,
  permanently locked on, scanner 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env.engine import cloak
from sfb_env.engine import events as ev
from sfb_env.engine.sensor_ratings import scanner as scanner
from sfb_env.engine.sensor_ratings import sensor as sensor
from sfb_env.engine.types import ACTIVE, EXPENDED, K_DRONE, K_FREIGHTER, K_SHIP

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

AUTOMATIC = 6  # (D6) a die of 1-6 never exceeds a sensor of 6


def lock_on_step(battle: Battle) -> None:
    """(B2.0 Sensor Lock-On, D6) Roll every active ship's lock-on for the turn now starting;
    a ship that fails loses its drones on the map."""
    st = battle.state
    ships = (st.status == ACTIVE) & ((st.kind == K_SHIP) | (st.kind == K_FREIGHTER))
    for u in np.flatnonzero(ships):
        u = int(u)
        rating = sensor(battle, u)
        if rating is None:
            st.locked_on[u] = True  # (CTH-DATA §12.4) cadet ships, freighters
            continue
        die = 0 if rating >= AUTOMATIC else int(battle.rng.integers(1, 7))
        st.locked_on[u] = die <= rating
        battle.log(ev.LockOn(st.turn, 0, battle.unit_ids[u], rating, die,
                             bool(st.locked_on[u])))
        if not st.locked_on[u]:  # (D6) its drones on the map are removed
            for d in np.flatnonzero((st.kind == K_DRONE) & (st.status == ACTIVE)
                                    & (st.launcher == u)):
                st.status[d] = EXPENDED
                battle.log(ev.Expired(st.turn, 0, battle.unit_ids[d],
                                      "D6 its launcher has no lock-on"))


def launch_blocker(battle: Battle, owner: int) -> str | None:
    """Why ``owner`` may launch no seeking weapon this turn for want of lock-on, or None (D6)."""
    if battle.rules.lock_on and not battle.state.locked_on[owner]:
        return "D6 no sensor lock-on this turn: no seeking weapons may be launched"
    return None


def control_blocker(battle: Battle, owner: int) -> str | None:
    """(D6) Why ``owner`` may launch no further drone: a ship controls at most its sensor
    rating in drones (those of its drones on the map count), or None."""
    rating = sensor(battle, owner) if battle.rules.lock_on else None
    if rating is None:
        return None
    st = battle.state
    flying = int(np.count_nonzero((st.kind == K_DRONE) & (st.status == ACTIVE)
                                  & (st.launcher == owner)))
    if flying >= rating:
        return f"D6 the ship controls at most {rating} drones (its sensor rating)"
    return None


def target_blockers(battle: Battle, targets: np.ndarray) -> list[str | None]:
    """Per target, why no seeking weapon may be launched at it for want of lock-on (a fully
    cloaked ship, G13 / D6 PROPOSAL [P-050]), or None."""
    if not (battle.rules.lock_on or battle.rules.standard_cloak):
        return [None] * len(targets)
    hidden = cloak.fully_cloaked(battle, np.asarray(targets, dtype=np.int64))
    return ["D6 no lock-on to a cloaked ship: no launch at it" if h else None for h in hidden]


__all__ = ["control_blocker", "launch_blocker", "lock_on_step", "scanner", "sensor",
           "target_blockers"]
