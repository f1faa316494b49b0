"""``ResultBonus``: a vector env whose episodes end with an extra ``+bonus`` for a win and
``-bonus`` for a loss (``env.result_bonus`` of a training config).

The env's rewards (``shaped``: damage balance plus the +1/-1 result) price a destroyed cadet ship
at about two losses, so a ship that cannot win learns to leave the map: a loss, but a cheap one.
A bonus on the result makes the outcome outweigh the damage. It is applied to the reward of the
step where the slot's ship leaves the battle (the step whose info carries ``result``, which both
vector envs set from the scenario's victory conditions, SCENARIOS #victory); the info's
``episode`` return stays the env's own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sfb_env.env.reward import RESULT_VALUE


class ResultBonus:
    """The ``AgentVectorEnv`` API of ``venv`` with the result bonus added to its rewards."""

    def __init__(self, venv: Any, bonus: float) -> None:
        if bonus < 0:
            raise ValueError(f"result bonus must be >= 0, got {bonus}")
        self.venv = venv
        self.bonus = float(bonus)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.venv, name)

    def step(self, actions: np.ndarray):
        obs, rewards, terminated, truncated, infos = self.venv.step(actions)
        for i, info in enumerate(infos):
            result = info.get("result")
            if result is not None:
                rewards[i] += self.bonus * RESULT_VALUE[result]
        return obs, rewards, terminated, truncated, infos
