"""A vectorised multi-agent view: ``num_envs`` battles whose learner agents form one batch.

Every (battle, learner agent) pair is a *slot* (``slots[i] = (battle, agent)``). With
``learners="all"`` one shared policy flies every ship of every battle (self-play); otherwise
the other agents are flown by ``opponents`` (see ``sfb_env.env.opponents``). Framework-free
numpy API, wrapped for SB3 by ``training.vec_env.SB3VecEnv`` and used as is by
``training/examples``:

* ``reset(seed) -> obs (B, n)``; ``action_masks() -> bool (B, m)``;
* ``step(actions (B, k)) -> obs, rewards (B,), terminated (B,), truncated (B,), infos``.

Battles reset automatically when they end (or when none of their learner agents is left); the
returned observation is then the new battle's, and the last one is in
``infos[i]["terminal_observation"]``. An episode's end also puts ``"episode": {"r", "l"}`` and
``"result"`` (win / loss / draw, if decided) into the slot's info.

A learner ship that leaves the battle while it goes on is *black-dead*: its slot reports zero
observations, reward 0, ``terminated=True`` and a mask allowing only value 0 of each component
(so any action is legal and its log-probability does not depend on the policy) until its battle
resets. That keeps the batch rectangular, as SB3's VecEnv needs, without learning from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from sfb_env.env.opponents import Opponents, Resolver, per_agent, scenario_with_robots
from sfb_env.env.padding import FixedSpaces
from sfb_env.env.parallel import SFBParallelEnv


class AgentVectorEnv:
    """``num_envs`` copies of a scenario; slots = battles x learner agents (see module doc).

    ``learners``: ``"all"`` (every agent of every battle; shared-policy self-play),
    ``"alternate"`` (one agent per battle, battle ``e`` flies ``possible_agents[e % n]``, so a
    policy learns both sides against ``opponents``), an agent id, or a list of agent ids.
    """

    render_mode = None

    def __init__(
        self,
        scenario: str | Mapping[str, Any],
        num_envs: int = 1,
        learners: str | Sequence[str] | None = "all",
        opponents: Any = None,
        fixed_spaces: FixedSpaces | None = None,
        resolver: Resolver | None = None,
        seed: int | None = None,
        **env_options: Any,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        if fixed_spaces is not None:
            env_options = {**env_options, **fixed_spaces.env_options()}
        agents = list(SFBParallelEnv(scenario=scenario, **env_options).possible_agents)
        self.learners_of = [learner_agents(learners, agents, e) for e in range(num_envs)]
        distinct = sorted({a for group in self.learners_of for a in group})
        if len(distinct) > 1 and fixed_spaces is None:
            env_options.setdefault("uniform_spaces", True)
        self.slots = [(e, a) for e, group in enumerate(self.learners_of) for a in group]
        self._slot_of = {(e, a): i for i, (e, a) in enumerate(self.slots)}
        self.envs: list[SFBParallelEnv] = []
        self._opponents: list[Opponents] = []
        for group in self.learners_of:
            specs = per_agent(opponents, [a for a in agents if a not in group])
            self._opponents.append(Opponents(specs, resolver))
            battle = scenario_with_robots(scenario, self._opponents[-1].robots)
            self.envs.append(SFBParallelEnv(scenario=battle, **env_options))
        self.fixed_spaces = fixed_spaces
        self._nvec = {a: self.envs[e].action_space(a).nvec for e, a in reversed(self.slots)}
        # what the padding reads: component names and observation counts (env.agent_shape)
        self._shape = {a: self.envs[e].action_space(a).agent_shape
                       for e, a in reversed(self.slots)}
        if fixed_spaces is None:
            e, first = self.slots[0]
            if any(not np.array_equal(self._nvec[a], self._nvec[first]) for a in distinct):
                raise ValueError("learner agents have different action spaces; pass fixed_spaces")
            self.observation_space = self.envs[e].observation_space(first)["observation"]
            self.action_space = self.envs[e].action_space(first)
        else:
            for a in distinct:
                fixed_spaces.check(self._shape[a])
            self.observation_space = fixed_spaces.observation_space()
            self.action_space = fixed_spaces.action_space()
        self.num_envs = num_envs
        self.num_slots = len(self.slots)
        self._rng = np.random.default_rng(seed)
        n, m = self.observation_space.shape[0], int(self.action_space.nvec.sum())
        self._obs_buf = np.zeros((self.num_slots, n), dtype=np.float32)
        self._mask_buf = np.zeros((self.num_slots, m), dtype=bool)
        self._dead_mask = np.zeros(m, dtype=bool)
        self._dead_mask[np.concatenate([[0], np.cumsum(self.action_space.nvec)[:-1]])] = True
        self._raw: list[dict[str, dict[str, np.ndarray]]] = [{} for _ in range(num_envs)]
        self._policies: list[dict[str, Any]] = [{} for _ in range(num_envs)]
        self._returns = np.zeros(self.num_slots, dtype=np.float64)
        self._lengths = np.zeros(self.num_slots, dtype=np.int64)
        self._live = np.zeros(self.num_slots, dtype=bool)

    # ------------------------------------------------------------------ API

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Reset every battle (``seed`` seeds the sequence of battle seeds)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        for e in range(self.num_envs):
            self._reset_battle(e)
        return self._obs_buf.copy()

    def action_masks(self) -> np.ndarray:
        """The flat masks of every slot (bool, ``(num_slots, sum(nvec))``)."""
        return self._mask_buf.copy()

    def step(self, actions: np.ndarray):
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_slots, -1)
        rewards = np.zeros(self.num_slots, dtype=np.float32)
        terminated = np.zeros(self.num_slots, dtype=bool)
        truncated = np.zeros(self.num_slots, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_slots)]
        for e, env in enumerate(self.envs):
            group = self.learners_of[e]
            orders = {}
            for agent in group:
                slot = self._slot_of[e, agent]
                if self._live[slot] and agent in env.agents:
                    orders[agent] = self._unpad(agent, actions[slot])
            for agent in env.agents:
                if agent not in group:
                    orders[agent] = self._policies[e][agent].act(self._raw[e][agent],
                                                                 env.action_space(agent))
            obs, rew, terms, truncs, step_infos = env.step(orders)
            self._raw[e] = obs
            for agent in group:
                slot = self._slot_of[e, agent]
                if not self._live[slot]:
                    terminated[slot] = True  # black death until the battle resets
                    continue
                rewards[slot] = rew.get(agent, 0.0)
                self._returns[slot] += rewards[slot]
                self._lengths[slot] += 1
                self._write(slot, agent, obs)
                if agent in env.agents:
                    infos[slot] = step_infos.get(agent, {})
                    continue
                truncated[slot] = bool(truncs.get(agent, False))
                terminated[slot] = not truncated[slot]
                infos[slot] = self._episode_end(slot, step_infos.get(agent, {}))
            if not any(a in env.agents for a in group):
                self._reset_battle(e)
        return self._obs_buf.copy(), rewards, terminated, truncated, infos

    def close(self) -> None:
        for env in self.envs:
            env.close()

    # ------------------------------------------------------------------ helpers

    def _reset_battle(self, e: int) -> None:
        seed = int(self._rng.integers(2**31 - 1))
        env = self.envs[e]
        self._raw[e], _ = env.reset(seed=seed)
        self._policies[e] = self._opponents[e].for_episode(env, seed)
        for agent in self.learners_of[e]:
            slot = self._slot_of[e, agent]
            self._returns[slot] = 0.0
            self._lengths[slot] = 0
            self._live[slot] = agent in env.agents
            if self._live[slot]:
                self._write(slot, agent, self._raw[e])
            else:
                self._obs_buf[slot] = 0.0
                self._mask_buf[slot] = self._dead_mask

    def _write(self, slot: int, agent: str, obs: dict[str, dict[str, np.ndarray]]) -> None:
        vector, mask = obs[agent]["observation"], obs[agent]["action_mask"]
        if self.fixed_spaces is not None:
            vector = self.fixed_spaces.pad_observation(vector, self._shape[agent])
            mask = self.fixed_spaces.pad_mask(mask, self._shape[agent])
        self._obs_buf[slot] = vector
        self._mask_buf[slot] = mask.astype(bool)

    def _unpad(self, agent: str, action: np.ndarray) -> np.ndarray:
        if self.fixed_spaces is None:
            return action
        return self.fixed_spaces.unpad_action(action, self._shape[agent])

    def _episode_end(self, slot: int, info: dict[str, Any]) -> dict[str, Any]:
        """The slot's agent left: episode statistics, terminal observation, black death."""
        out = dict(info)
        out["terminal_observation"] = self._obs_buf[slot].copy()
        out["episode"] = {"r": float(self._returns[slot]), "l": int(self._lengths[slot]),
                          "t": 0.0}
        if "outcome" in info:
            out["result"] = info["outcome"]["result"]
        self._live[slot] = False
        self._obs_buf[slot] = 0.0
        self._mask_buf[slot] = self._dead_mask
        return out


def learner_agents(learners: str | Sequence[str] | None, agents: list[str], e: int) -> list[str]:
    """The learner agents of battle ``e`` (see ``AgentVectorEnv``)."""
    if learners in ("all", None):
        return list(agents)
    if learners == "alternate":
        return [agents[e % len(agents)]]
    group = [learners] if isinstance(learners, str) else list(learners)
    unknown = [a for a in group if a not in agents]
    if unknown or not group:
        raise ValueError(f"learners {group} are not agents of the scenario; agents: {agents}")
    return group
