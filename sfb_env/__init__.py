"""sfb-env: a PettingZoo environment and rules engine for Star Fleet Battles (CTH rules).

Layers (each imports only from the ones before it): ``sfb_env.data`` (rules data) ->
``hexmap`` / ``impulse`` (geometry and clock) -> ``engine`` (the rules) -> ``env`` (PettingZoo)
-> ``render`` / ``replay`` / ``cli``.
"""

from sfb_env import hexmap, impulse, tables
from sfb_env.backends import backend_of, parallel_env, vector_env
from sfb_env.engine import list_scenarios, make_battle
from sfb_env.env import raw_env

__version__ = "0.1.0"

__all__ = [
    "hexmap", "impulse", "tables", "list_scenarios", "make_battle", "parallel_env", "backend_of",
    "vector_env", "raw_env", "env", "__version__",
]
# ``sfb_env.env`` is the env package, callable as PettingZoo's AEC ``env(scenario, ...)``
