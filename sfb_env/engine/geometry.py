"""One geometry table per impulse (L1): ranges and arcs between every pair of units.

Fire, the masks, the observation and the built-in pilots read the same table instead of
recomputing ranges unit by unit. It is derived from the positions, so it lives in the state's
cache keyed by them (recomputed after any movement, never copied with the state).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap

if TYPE_CHECKING:
    from sfb_env.engine.types import BattleState


@dataclass(frozen=True)
class Geometry:
    """(U, U) tables, row = the unit looking, column = the unit seen."""

    range: np.ndarray  # int64 true range (D1.4)
    arc_bits: np.ndarray  # int64 base arcs (hexmap.BASE_ARCS bits, D2.1) by the row's facing
    fire_arc_bits: np.ndarray  # int64 the same for fire: at range 0 judged from both units'
    #   positions on the previous impulse (D3.42)
    shared_hex: np.ndarray  # bool at range 0 on the previous impulse too: in every arc (D3.42)


def table(state: BattleState) -> Geometry:
    """The geometry of the state's current positions (cached until a unit moves or turns)."""
    key = (state.x.tobytes(), state.z.tobytes(), state.facing.tobytes(),
           state.prev_x.tobytes(), state.prev_z.tobytes(), state.prev_facing.tobytes())
    hit = state.cache.get("geometry")
    if hit is not None and hit[0] == key:
        return hit[1]
    x, z, f = state.x[:, None], state.z[:, None], state.facing[:, None]
    tx, tz = state.x[None, :], state.z[None, :]
    rng = hexmap.distance_np(x, z, tx, tz)
    bits = hexmap.arc_bits_np(x, z, f, tx, tz)
    same = rng == 0
    ox = np.where(same, state.prev_x[:, None], x)
    oz = np.where(same, state.prev_z[:, None], z)
    of = np.where(same, state.prev_facing[:, None], f)
    px = np.where(same, state.prev_x[None, :], tx)
    pz = np.where(same, state.prev_z[None, :], tz)
    value = Geometry(rng, bits, hexmap.arc_bits_np(ox, oz, of, px, pz), (ox == px) & (oz == pz))
    state.cache["geometry"] = (key, value)
    return value
