"""``random-fighter``: random masked orders that stay in the fight.

Plain ``random`` draws every component uniformly among its open values, so where the scenario
offers a ``disengage`` component (SCENARIOS #5) it announces disengagement within a few impulses
and the battle ends before anyone fires. ``random-fighter`` draws the same way except that:

* ``disengage`` stays at its no-op (0): it never announces disengagement;
* ``maneuver`` is drawn among the open maneuvers whose next hex stays on the map, read from the
  own-ship ``edges`` of the observation (``agents.observation_view.own_ship``): those that leave
  ``ROOM`` hexes of straight run ahead, or else those that leave the most; where no open
  maneuver keeps the ship on the map, among all open ones.

It needs its action components: ``bind(env, agent)`` (the bench harness, ``sfb play`` and the env's
named opponents call it) or ``RandomFighter(components=env.action_components(agent))``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from agents.base import register_policy
from agents.mask_values import open_values
from agents.observation_view import own_ship
from sfb_env import hexmap

# Maneuver value -> (direction of the hex entered or None, new facing), both relative to the
# facing: straight and turns enter the new forward hex (C3.1), sideslips the forward-left or
# -right hex keeping the facing (C4), tactical turns rotate in place (C5); none stays.
_MOVES = {0: (None, 0), 1: (0, 0), 2: (-1, -1), 3: (1, 1), 4: (-1, 0), 5: (1, 0),
          6: (None, -1), 7: (None, 1)}
ROOM = 6  # hexes of straight run ahead that count as open water


def _bounds(edges: tuple[int, ...], column: int, row: int) -> tuple[int, int, int, int]:
    west, east, north, south = edges
    return column - west, column + east, row - north, row + south


def _inside(bounds: tuple[int, int, int, int], column: int, row: int) -> bool:
    return bounds[0] <= column <= bounds[1] and bounds[2] <= row <= bounds[3]


_DX = hexmap.DIR_DX.tolist()
_DZ = hexmap.DIR_DZ.tolist()


def _step(column: int, row: int, direction: int) -> tuple[int, int]:
    """The neighbouring hex in ``direction`` (C1.2), in 1-based column and row: the
    even-down conversions of ``hexmap.offset_to_axial_np`` and ``axial_to_offset_np`` in
    integers (this runs a few times a decision)."""
    x = column - 1
    z = row - 1 - (x - (x & 1)) // 2
    d = direction % 6
    x, z = x + _DX[d], z + _DZ[d]
    return x + 1, z + (x - (x & 1)) // 2 + 1


def room_after(edges: tuple[int, ...], column: int, row: int, facing: int,
               maneuver: int) -> int:
    """Straight hexes the ship could still run (up to ``ROOM``) after ``maneuver``; -1 where the
    maneuver itself leaves the play area (``edges``: hexes to the west, east, north and south
    edges, as the observation gives them)."""
    bounds = _bounds(edges, column, row)
    enter, turn = _MOVES.get(maneuver, (None, 0))
    if enter is not None:
        column, row = _step(column, row, facing + enter)
        if not _inside(bounds, column, row):
            return -1
    heading = facing + turn
    run = 0
    while run < ROOM:
        column, row = _step(column, row, heading)
        if not _inside(bounds, column, row):
            break
        run += 1
    return run


def stays_on_map(edges: tuple[int, ...], column: int, row: int, facing: int,
                 maneuver: int) -> bool:
    """Whether ``maneuver`` leaves the ship inside the play area."""
    return room_after(edges, column, row, facing, maneuver) >= 0


class RandomFighter:
    """Uniformly random among the open values, never disengaging, keeping to the map."""

    def __init__(self, seed: int | None = None,
                 components: list[dict[str, Any]] | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.kinds: list[str] | None = None
        if components is not None:
            self.configure(components)

    def bind(self, env: Any, agent: str) -> None:
        """Read the component kinds of ``agent`` (``env.action_components``)."""
        self.configure(env.action_components(agent))

    def configure(self, components: list[dict[str, Any]]) -> None:
        self.kinds = [str(c["kind"]) for c in components]

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], action_space: spaces.Space) -> np.ndarray:
        nvec = np.asarray(action_space.nvec)
        if self.kinds is None or len(self.kinds) != len(nvec):
            raise RuntimeError(
                "random-fighter needs its action components: call bind(env, agent) or pass "
                "components=env.action_components(agent)"
            )
        own = own_ship(observation["observation"])
        action = np.zeros(len(nvec), dtype=np.int64)
        for i, allowed in enumerate(open_values(observation["action_mask"], nvec)):
            if self.kinds[i] == "disengage":
                allowed = [v for v in allowed if v == 0]
            elif self.kinds[i] == "maneuver" and allowed:
                room = [room_after(own.edges, own.column, own.row, own.facing, m)
                        for m in allowed]
                most = max(room)
                if most >= 0:  # some maneuver keeps the ship on the map
                    least = min(ROOM, most)
                    allowed = [m for m, r in zip(allowed, room, strict=True) if r >= least]
            if allowed:  # (the draw of Generator.choice over the open values)
                action[i] = allowed[self.rng.integers(0, len(allowed))]
        return action


register_policy("random-fighter", RandomFighter,
                description="random masked orders that never disengage and keep to the map")
