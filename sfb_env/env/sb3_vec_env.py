"""``SB3VecEnv``: the vectorised multi-agent view as a stable-baselines3 ``VecEnv``
(``sfb_env.vector_env`` builds it over either backend; needs the ``train`` extra).

Why hand-written rather than SuperSuit (``pettingzoo_env_to_vec_env_v1`` +
``concat_vec_envs_v1``): SuperSuit's vec env does not forward ``env_method``, so MaskablePPO
cannot reach ``action_masks`` without a wrapper over its internals; its ``black_death`` wrapper
needs Box observations (ours are Dict with the mask); and its chain resets every agent of a
battle together. ``AgentVectorEnv`` already batches slots with auto-reset and black death, so
this adapter is only the VecEnv protocol: ``env_method("action_masks")`` returns one mask per
slot (what ``sb3_contrib.common.maskable.utils.get_action_masks`` stacks) and
``has_attr("action_masks")`` is true.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from sfb_env.env.vector import AgentVectorEnv  # or compiled.vector.CompiledAgentVectorEnv


class SB3VecEnv(VecEnv):
    """An ``AgentVectorEnv`` for SB3: one VecEnv index per slot."""

    def __init__(self, venv: AgentVectorEnv, seed: int | None = None) -> None:
        self.venv = venv
        self._seed = seed
        self._actions: np.ndarray | None = None
        super().__init__(venv.num_slots, venv.observation_space, venv.action_space)

    def reset(self) -> np.ndarray:
        obs = self.venv.reset(seed=self._seed)
        self._seed = None  # later resets continue the seeded sequence
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        dones = terminated | truncated
        for i in np.flatnonzero(truncated & ~terminated):
            infos[i]["TimeLimit.truncated"] = True
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """All slots' masks at once (faster than ``env_method``; same values)."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def seed(self, seed: int | None = None) -> Sequence[None | int]:
        self._seed = seed
        return [seed] * self.num_envs

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None,
                   **method_kwargs) -> list[Any]:
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self.venv, attr_name)
