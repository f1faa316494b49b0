"""Ship explosions: the house rule of rules file 003 (CTH-DATA §8.10), scenario rule
``explosions: true`` (off by default; the book has no ship explosions).

A destroyed ship explodes with strength 2 x its damage-control rating (cadet ships: 2 x 4 = 8)
over a radius of 1 hex: every other unit in play within range 1 (its own hex included) takes that
many points as one volley, on the shield facing the exploding ship (D3.4; D3.42 previous positions
in its own hex). Plasma torpedoes and ESG fields are not harmed.
A ship destroyed by an explosion explodes in turn. Freighters have no damage-control rating and do
not explode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import events as ev
from sfb_env.engine import shields
from sfb_env.engine.types import Status, UnitKind

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

RADIUS = 1


def strength(battle: Battle, unit: int) -> int:
    """Explosion strength of ``unit``: 2 x its damage-control rating (0 = no explosion)."""
    ship = battle.ship_classes[unit]
    if ship is None or battle.state.kind[unit] != UnitKind.SHIP:
        return 0
    return 2 * int(ship.damage_control)


def explode(battle: Battle, unit: int) -> None:
    """(house rule, rules file 003) ``unit`` was just destroyed: damage everything within 1 hex."""
    points = strength(battle, unit)
    if points <= 0:
        return
    st = battle.state
    battle.log(ev.Exploded(st.turn, st.impulse, battle.unit_ids[unit], battle.label(unit),
                           points, RADIUS))
    rng = hexmap.distance_np(st.x[unit], st.z[unit], st.x, st.z)
    victims = np.flatnonzero((st.status == Status.ACTIVE) & (rng <= RADIUS)
                             & (st.kind != UnitKind.PLASMA))  # (house rule) plasma unharmed
    # every shield is determined before any damage is applied (one simultaneous blast)
    hits = [(int(v), shields.struck_shield(battle, int(v), unit, range0=rng[v] == 0))
            for v in victims if v != unit]
    for v, shield in hits:
        battle.apply_damage(v, shield, points)
