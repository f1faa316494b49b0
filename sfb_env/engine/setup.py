"""``BattleSetup``: the half of a battle that never changes once built (L0).

The scenario builder (``engine.battle``) compiles a scenario into a setup and a start state;
``Battle.reset`` copies the start state, so a reset rebuilds nothing. Arrays here are shared by
every copy of a battle and must not be written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from sfb_env.data.ships import ShipClass
    from sfb_env.engine.rules import Rules
    from sfb_env.engine.scenario import Scenario
    from sfb_env.engine.types import BattleState


@dataclass(frozen=True)
class InitialState:
    """Start values for fractions in observations: (U, 6) shields, (U,) internal boxes and
    (U,) points that destroy the unit."""

    shields: np.ndarray
    internal_boxes: np.ndarray
    strength: np.ndarray


@dataclass(frozen=True, eq=False)
class BattleSetup:
    """Units, sheets, weapon and seeking rows, lookup tables and the ``Rules`` of a battle.

    Shapes: U units, W weapons, S sides.
    """

    scenario: Scenario
    rules: Rules  # switches and what the units bring into play (engine.rules)
    max_turns: int  # truncation turn (the scenario's limit, else the caller's, else 30)
    quarter_turn: int  # impulses in a quarter turn (E1.5)
    side_index: dict[str, int]  # side name -> index
    maneuvers: tuple[int, ...]  # Maneuver values in use (C3, C4, C5 switches)
    area_labels: dict[tuple[int, int], str]  # every hex of the play area: axial -> label
    unit_ids: list[str]  # (U,) unique ids ("destruction", "destruction.DRONE-1.drone-2")
    unit_index: dict[str, int]  # id -> row
    names: list[str]  # (U,) display names
    ship_classes: list[ShipClass | None]  # (U,) sheets; None for seeking weapons, craft, ...
    weapon_ids: list[str]  # (W,) "unit.mount"
    weapon_rows: list[np.ndarray]  # (U,) weapon rows of each unit
    turn_mode_chart: list[str]  # (U,) turn-mode chart letter or "seeking" (C3)
    craft_carrier: np.ndarray  # (U,) int64 carrier of a fighter / shuttle row, -1
    craft_gun: np.ndarray  # (U,) int64 the craft's weapon row, -1
    plasma_launcher_of: np.ndarray  # (U,) int64 launcher of a plasma torpedo row, -1
    plasma_fixed: np.ndarray  # (W,) bool fixed launchers fire straight ahead (FP3.1)
    initial: InitialState  # start values for observation fractions
    start_speed: np.ndarray  # (U,) int64 scenario speeds (a freighter's base speed, R1.6)
    rack_capacity: np.ndarray  # (W,) int64 drones a rack holds when full
    dac_weapons: list[tuple[Any, ...]]  # (U,) weapon boxes on the standard DAC (D4.21)
    planet_rows: np.ndarray  # unit rows of the planets (P2.0; planets never move)
    planet_hexes: list[tuple[int, int]]  # their axial hexes
    planet_crew_side: dict[int, int]  # planet row -> side of its crew units (G8.0 consent)
    tractor_beams: np.ndarray  # (U,) int64 tractor beams on each sheet (G7.0)
    hold_fire_kinds: np.ndarray  # (U, kinds) bool kinds a unit may never fire at (scenario 8)
    may_leave: np.ndarray  # (U,) bool whether a unit may leave the map (scenario 8)
    start_state: BattleState  # the state before the first decision point, dice unset
