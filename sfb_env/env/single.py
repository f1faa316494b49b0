"""A single-agent Gymnasium view: the learner flies one ship; every other agent of the scenario
is flown by an opponent (a policy, a per-episode factory, a registry name or checkpoint path,
or an engine robot: see ``sfb_env.env.opponents``); the scenario's robots act in the engine.

Exposes ``action_masks()`` (the flat mask) for sb3-contrib's ``MaskablePPO``; the observation
is the agent's float32 vector. With ``fixed_spaces`` the observation, action and mask are padded
to one shape for every ship and scenario (``sfb_env.env.padding``).

Usage::

    env = SingleAgentEnv("duel-x", agent="blue", opponents="doctrine")
    env = SingleAgentEnv("cth-03", fixed_spaces=FixedSpaces())   # freighters are robots
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from sfb_env.env.opponents import Opponents, Resolver, per_agent, scenario_with_robots
from sfb_env.env.padding import FixedSpaces
from sfb_env.env.parallel import SFBParallelEnv


class SingleAgentEnv(gym.Env):
    """One agent of a ``SFBParallelEnv`` as a Gymnasium env (the others from ``opponents``).

    A plain ``reset()`` draws the battle's seed from the env's own generator (seeded by the
    first ``reset(seed=...)``), so successive episodes differ and stay reproducible.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        scenario: str | Mapping[str, Any] = "cth-01",
        agent: str | None = None,
        opponents: Any = None,
        fixed_spaces: FixedSpaces | None = None,
        resolver: Resolver | None = None,
        **env_options: Any,
    ) -> None:
        if fixed_spaces is not None:
            env_options = {**env_options, **fixed_spaces.env_options()}
        probe = SFBParallelEnv(scenario=scenario, **env_options)
        self.agent = agent or probe.possible_agents[0]
        if self.agent not in probe.possible_agents:
            raise ValueError(f"{self.agent!r} is not an agent of the scenario; agents: "
                             f"{probe.possible_agents}")
        others = [a for a in probe.possible_agents if a != self.agent]
        specs = per_agent(opponents, others)
        self.opponents = Opponents(specs, resolver)
        scenario = scenario_with_robots(scenario, self.opponents.robots)
        self.parallel = probe if not self.opponents.robots else SFBParallelEnv(
            scenario=scenario, **env_options)
        self.fixed_spaces = fixed_spaces
        self._nvec = self.parallel.action_space(self.agent).nvec
        self._shape = self.parallel.action_space(self.agent).agent_shape  # (env.agent_shape)
        if fixed_spaces is None:
            self.observation_space = self.parallel.observation_space(self.agent)["observation"]
            self.action_space = self.parallel.action_space(self.agent)
        else:
            fixed_spaces.check(self._shape)
            self.observation_space = fixed_spaces.observation_space()
            self.action_space = fixed_spaces.action_space()
        self.render_mode = self.parallel.render_mode
        self._obs: dict[str, dict[str, np.ndarray]] = {}
        self._policies: dict[str, Any] = {}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**31 - 1))
        self._obs, infos = self.parallel.reset(seed=seed, options=options)
        self._policies = self.opponents.for_episode(self.parallel, seed)
        return self._observation(self._obs[self.agent]), infos.get(self.agent, {})

    def step(self, action):
        par = self.parallel
        action = np.asarray(action, dtype=np.int64)
        if self.fixed_spaces is not None:
            action = self.fixed_spaces.unpad_action(action, self._shape)
        actions = {self.agent: action}
        for other in par.agents:
            if other != self.agent:
                actions[other] = self._policies[other].act(self._obs[other],
                                                           par.action_space(other))
        obs, rewards, terms, truncs, infos = par.step(actions)
        self._obs = obs
        terminated = bool(terms.get(self.agent, False))
        truncated = bool(truncs.get(self.agent, False))
        if not (terminated or truncated) and self.agent not in par.agents:
            terminated = True
        return (self._observation(obs[self.agent]), rewards.get(self.agent, 0.0), terminated,
                truncated, infos.get(self.agent, {}))

    def action_masks(self) -> np.ndarray:
        """The flat action mask of the current decision point (sb3-contrib layout)."""
        mask = self._obs[self.agent]["action_mask"]
        if self.fixed_spaces is not None:
            mask = self.fixed_spaces.pad_mask(mask, self._shape)
        return mask.astype(bool)

    def render(self):
        return self.parallel.render()

    def close(self):
        self.parallel.close()

    def _observation(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        if self.fixed_spaces is None:
            return obs["observation"]
        return self.fixed_spaces.pad_observation(obs["observation"], self._shape)
