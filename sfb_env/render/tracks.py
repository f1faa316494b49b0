"""What a renderer reads from the event log besides the state: each unit's last hexes (its
movement trail) and where units stood when each of the latest events happened.

A frame is drawn after an env step, and one step runs an impulse's fire and then the next
impulse's movement: the state holds the hexes after that movement, while a ``Fired`` event
happened before it. Walking the step's events backwards and undoing each ``Moved`` (and
``LeftMap``) gives every unit's hex at the moment of any event, so shots are drawn between the
hexes they were fired from and at.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from sfb_env import hexmap

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle
    from sfb_env.engine.events import Event

Hex = tuple[int, int]  # axial (x, z)
TRAIL_HEXES = 4  # a trail shows the last four hexes a unit entered
MOVES = ("Moved", "LeftMap")  # events whose ``src`` is the unit's hex before them


def _axial(battle: Battle, label: str) -> Hex:
    x, z = hexmap.label_to_axial(label, battle.scenario.parity)
    return int(x), int(z)


class Trails:
    """Each unit's last ``TRAIL_HEXES`` hexes (and the one it came from), by unit id, fed with
    the log's events in order; a unit that reappears elsewhere (a reused plasma row, a launch,
    an arrival) starts a new trail."""

    def __init__(self, hexes: int = TRAIL_HEXES) -> None:
        self.hexes = hexes
        self._trails: dict[str, deque[Hex]] = {}

    def clear(self) -> None:
        self._trails.clear()

    def add(self, battle: Battle, events: Sequence[Event]) -> None:
        for event in events:
            if event.kind == "Moved":
                trail = self._trails.setdefault(event.unit, deque(maxlen=self.hexes + 1))
                src = _axial(battle, event.src)
                if not trail or trail[-1] != src:
                    trail.clear()
                    trail.append(src)
                dst = _axial(battle, event.dst)
                if dst != src:
                    trail.append(dst)
            elif event.kind in ("Launched", "UnitArrived", "LeftMap", "Landed"):
                unit = getattr(event, "drone", event.unit)  # Launched: the launched unit
                self._trails.pop(unit, None)

    def trail(self, unit: str) -> list[Hex]:
        """The unit's trail, oldest hex first (its current hex last); empty if it never moved."""
        return list(self._trails.get(unit, ()))


def positions_at(battle: Battle, events: Sequence[Event],
                 wanted: Callable[[Event], bool]) -> dict[int, dict[str, Hex]]:
    """For each event of ``events`` (the latest of the log, in order, ending at the state now)
    that ``wanted`` picks, keyed by ``id(event)``: the hexes, at that event, of the units that
    moved after it (a unit not listed stands where the state has it)."""
    undone: dict[str, Hex] = {}
    snapshot: dict[str, Hex] | None = {}
    out: dict[int, dict[str, Hex]] = {}
    for event in reversed(events):
        if wanted(event):
            if snapshot is None:
                snapshot = dict(undone)
            out[id(event)] = snapshot
        if event.kind in MOVES:
            undone[event.unit] = _axial(battle, event.src)
            snapshot = None
    return out
