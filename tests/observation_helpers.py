"""Reading an agent's observation vector by name, through the declared layout
(``sfb_env.env.observation_layout``) instead of hand-counted offsets."""

from __future__ import annotations

import numpy as np

from sfb_env.env import observation
from sfb_env.env.observation_layout import Placement


def placement(env, agent: str) -> Placement:
    """Where every block of ``agent``'s vector sits."""
    return observation.placement(env._layouts[agent], env.threat_slots)


def read(env, agent: str, vector: np.ndarray, block: str, part: str | None = None,
         row: int = 0) -> dict[str, np.ndarray]:
    """Row ``row`` of a block's part of ``agent``'s ``vector``, by field name."""
    return placement(env, agent).read(vector, block, part, row)


def span(env, agent: str, vector: np.ndarray, block: str) -> np.ndarray:
    """The whole block ``block`` of ``agent``'s ``vector``."""
    return vector[placement(env, agent).span(block)]


def flat(fields: dict[str, np.ndarray]) -> list[float]:
    """A row read by ``read``, back to its values in order."""
    return [float(x) for values in fields.values() for x in np.ravel(values)]
