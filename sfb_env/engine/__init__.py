"""The rules engine: pure game logic over numpy arrays; knows nothing of PettingZoo."""

from sfb_env.engine.battle import Battle, make_battle
from sfb_env.engine.scenario import Scenario, ScenarioError, list_scenarios, load_scenario
from sfb_env.engine.types import (
    BattleState,
    IllegalOrderError,
    Maneuver,
    Orders,
    Status,
    UnitKind,
    WeaponType,
)

__all__ = [
    "Battle",
    "BattleState",
    "IllegalOrderError",
    "Maneuver",
    "Orders",
    "Scenario",
    "ScenarioError",
    "Status",
    "UnitKind",
    "WeaponType",
    "list_scenarios",
    "load_scenario",
    "make_battle",
]
