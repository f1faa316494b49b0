"""A single-agent Gymnasium view: the learner flies one ship, every other agent of the
scenario is flown by a given policy (random-masked by default); robots act in the engine.

Exposes ``action_masks()`` (the flat mask) for sb3-contrib's ``MaskablePPO``; the observation
is the agent's float32 vector.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from sfb_env.env.parallel import SFBParallelEnv


class SingleAgentEnv(gym.Env):
    """One agent of a ``SFBParallelEnv`` as a Gymnasium env (opponents from ``opponents``)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        scenario: str | Mapping[str, Any] = "cth-01",
        agent: str | None = None,
        opponents: Mapping[str, Any] | None = None,
        **env_options: Any,
    ) -> None:
        self.parallel = SFBParallelEnv(scenario=scenario, **env_options)
        self.agent = agent or self.parallel.possible_agents[0]
        if self.agent not in self.parallel.possible_agents:
            raise ValueError(f"{self.agent!r} is not an agent of the scenario; agents: "
                             f"{self.parallel.possible_agents}")
        from agents.base import RandomMaskedPolicy

        self.opponents = dict(opponents or {})
        for other in self.parallel.possible_agents:
            if other != self.agent:
                self.opponents.setdefault(other, RandomMaskedPolicy())
        self.observation_space = self.parallel.observation_space(self.agent)["observation"]
        self.action_space = self.parallel.action_space(self.agent)
        self.render_mode = self.parallel.render_mode
        self._obs: dict[str, dict[str, np.ndarray]] = {}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._obs, infos = self.parallel.reset(seed=seed, options=options)
        for i, policy in enumerate(self.opponents.values()):
            policy.reset(None if seed is None else seed + 1 + i)
        return self._obs[self.agent]["observation"], infos.get(self.agent, {})

    def step(self, action):
        par = self.parallel
        actions = {self.agent: np.asarray(action, dtype=np.int64)}
        for other in par.agents:
            if other != self.agent:
                actions[other] = self.opponents[other].act(self._obs[other], par.action_space(other))
        obs, rewards, terms, truncs, infos = par.step(actions)
        self._obs = obs
        done_self = terms.get(self.agent, True) or truncs.get(self.agent, False)
        terminated = bool(terms.get(self.agent, False))
        truncated = bool(truncs.get(self.agent, False))
        if not done_self and self.agent not in par.agents:
            terminated = True
        return (obs[self.agent]["observation"], rewards.get(self.agent, 0.0), terminated,
                truncated, infos.get(self.agent, {}))

    def action_masks(self) -> np.ndarray:
        """The flat action mask of the current decision point (sb3-contrib layout)."""
        return self._obs[self.agent]["action_mask"].astype(bool)

    def render(self):
        return self.parallel.render()

    def close(self):
        self.parallel.close()
