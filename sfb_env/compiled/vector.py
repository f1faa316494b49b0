"""``CompiledAgentVectorEnv``: ``env.vector.AgentVectorEnv``'s API over a ``BattleBatch``.

Slots are (battle, learner agent) pairs as in the reference view: ``learners="all"`` (shared
policy self-play), ``"alternate"``, an agent id or a list. The other agents are flown by
``opponents``: ``"random"`` (uniform masked actions, vectorised), ``"noop"`` (value 0 of
each component), or any spec ``sfb_env.env.opponents`` takes for a Python captain: a registry
name (``doctrine``, ``random-fighter``, ...), a checkpoint ``*.zip``, a policy object or a
factory (a league's). Captains act from their ship's own observation and mask, as on the
reference engine, so they fly here unchanged: each battle has its own captains, bound to a
reference env of the scenario (for ``action_components``) and reset with the battle's seed at
every start, as ``env.vector.AgentVectorEnv`` does. Robot opponents (``"robot[:controller]"``,
flown inside the engine) stay on the reference vector env: asking for them here raises
``NotCompiledError``.

Black death as in the reference view: a learner ship that left (or whose battle ended) reports
a zero observation, reward 0, ``terminated=True`` and a mask open on value 0 of each component
until its battle resets; the battle resets (inside the compiled step) when it ends. Episode
statistics (``episode``: return and length, ``result``) and ``terminal_observation`` go into
the slot's info when its ship leaves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from sfb_env.compiled import ending
from sfb_env.compiled.batch import BattleBatch, NotCompiledError
from sfb_env.compiled.dispatch import kernel
from sfb_env.env.agent_shape import AgentShape
from sfb_env.env.opponents import Opponents, Resolver, per_agent
from sfb_env.env.padding import FixedSpaces
from sfb_env.env.parallel import SFBParallelEnv
from sfb_env.env.spaces import MaskedMultiDiscrete
from sfb_env.env.vector import learner_agents

OPPONENTS = ("random", "noop")  # drawn inside the batch; any other spec is a Python captain


class CompiledAgentVectorEnv:
    """``num_envs`` battles on the compiled core; slots = battles x learner agents."""

    render_mode = None

    def __init__(self, scenario: str | Mapping[str, Any], num_envs: int = 1,
                 learners: str | Sequence[str] | None = "all", opponents: Any = None,
                 fixed_spaces: FixedSpaces | None = None, resolver: Resolver | None = None,
                 seed: int | None = None, **env_options: Any) -> None:
        unknown = set(env_options) - {"max_turns", "target_slots", "threat_slots", "reward",
                                      "uniform_spaces", "enemy_fire"}
        if unknown:
            raise NotCompiledError(f"options {sorted(unknown)} are not on the compiled core")
        if fixed_spaces is not None:
            env_options = {**env_options, **fixed_spaces.env_options()}
        agents = BattleBatch.agents_of(scenario)
        self.learners_of = [learner_agents(learners, agents, e) for e in range(num_envs)]
        if len({a for g in self.learners_of for a in g}) > 1 and fixed_spaces is None:
            env_options.setdefault("uniform_spaces", True)  # as the reference vector env
        self.batch = BattleBatch(scenario, num_envs, seed=seed, **env_options)
        if opponents is None and any(len(g) < len(agents) for g in self.learners_of):
            opponents = "random"
        self.opponents = opponents
        self._captains = _Captains(self, scenario, agents, opponents, resolver, env_options) if (
            opponents is not None and not (isinstance(opponents, str)
                                           and opponents in OPPONENTS)) else None
        self.slots = [(e, a) for e, group in enumerate(self.learners_of) for a in group]
        self._battle_of = np.array([e for e, _ in self.slots], np.int64)
        self._agent_of = np.array([agents.index(a) for _, a in self.slots], np.int64)
        shapes = None if fixed_spaces is None else [  # what the padding reads (env.agent_shape)
            space.agent_shape for space in _reference_spaces(scenario, self.batch.agents,
                                                             env_options)]
        self._pads = _Padding(self.batch, fixed_spaces, shapes)
        self.observation_space = self._pads.observation_space
        self.action_space = self._pads.action_space
        self.n_obs = self.observation_space.shape[0]
        self.n_mask = int(self.action_space.nvec.sum())
        self.num_envs = num_envs
        self.num_slots = len(self.slots)
        self._learner = np.zeros((num_envs, len(agents)), np.bool_)
        self._learner[self._battle_of, self._agent_of] = True
        self._rng = np.random.default_rng(None if seed is None else seed + 1)
        self._returns = np.zeros(self.num_slots, np.float64)
        self._lengths = np.zeros(self.num_slots, np.int64)
        self._live = np.zeros(self.num_slots, np.bool_)

    # ------------------------------------------------------------------ API

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Reset every battle (``seed`` seeds the sequence of battle seeds)."""
        if seed is not None:
            self.batch.reseed(seed)
            self._rng = np.random.default_rng(seed + 1)
        self.batch.reset()
        if self._captains is not None:
            self._captains.start(np.arange(self.num_envs))
        self._returns[:] = 0.0
        self._lengths[:] = 0
        self._live[:] = self.batch.alive[self._battle_of, self._agent_of]
        return self._obs()

    def action_masks(self) -> np.ndarray:
        """The flat masks of every slot (bool, ``(num_slots, sum(nvec))``)."""
        masks = self._pads.masks(self.batch.masks, self._battle_of, self._agent_of)
        masks[~self._live] = self._pads.dead_mask
        return masks

    def step(self, actions: np.ndarray):
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_slots, -1)
        batch = self.batch
        if self.opponents == "random":
            full = batch.sample_actions(self._rng)
        else:
            full = np.zeros((self.num_envs, len(batch.agents), batch.nvec.shape[1]), np.int64)
            if self._captains is not None:
                self._captains.act(full)
        full[self._battle_of, self._agent_of] = self._pads.actions(actions, self._agent_of,
                                                                   full.shape[2])
        full[self._battle_of[~self._live], self._agent_of[~self._live]] = 0
        batch.step(full)
        b, a = self._battle_of, self._agent_of
        rewards = np.where(self._live, batch.rewards[b, a], 0.0).astype(np.float32)
        self._returns += rewards
        self._lengths += self._live
        left = self._live & (batch.terminated[b, a] | batch.truncated[b, a])
        truncated = left & batch.truncated[b, a]
        terminated = ~self._live | (left & ~truncated)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_slots)]
        leaving = np.flatnonzero(left)
        if len(leaving):  # the last observation of each ship that left (rare: gathered alone)
            rows, ships = b[leaving], a[leaving]
            terminal = self._pads.observations(batch.obs, rows, ships)
            reset = batch.ended[rows]  # (their battle restarted: the last one is kept aside)
            if reset.any():
                terminal[reset] = self._pads.observations(batch.terminal_obs, rows[reset],
                                                          ships[reset])
        for n, i in enumerate(leaving):
            info = {"terminal_observation": terminal[n],
                    "episode": {"r": float(self._returns[i]), "l": int(self._lengths[i]),
                                "t": 0.0}}
            code = int(batch.outcomes[b[i]]) if batch.ended[b[i]] else -1
            if code >= 0:
                side = int(batch.setup.start_state.side[batch.agent_units[a[i]]])
                info["result"] = ending.outcome_results(code, side + 1)[side]
            infos[i] = info
        self._live &= ~left
        if self._captains is not None and batch.ended.any():
            self._captains.start(np.flatnonzero(batch.ended))
        ended = batch.ended[b]
        self._live |= ended & batch.alive[b, a]
        self._returns[ended] = 0.0
        self._lengths[ended] = 0
        return self._obs(), rewards, terminated, truncated, infos

    def close(self) -> None:
        pass

    def _obs(self) -> np.ndarray:
        out = self._pads.observations(self.batch.obs, self._battle_of, self._agent_of)
        out[~self._live] = 0.0
        return out


class _Captains:
    """The Python captains of the agents no slot flies, one set per battle (as
    ``env.vector.AgentVectorEnv`` keeps them), acting on the batch's raw observations."""

    def __init__(self, venv: CompiledAgentVectorEnv, scenario: Any, agents: list[str],
                 opponents: Any, resolver: Resolver | None,
                 env_options: Mapping[str, Any]) -> None:
        batch = venv.batch
        self.batch = batch
        self.sets: list[Opponents] = []
        for group in venv.learners_of:
            specs = per_agent(opponents, [a for a in agents if a not in group])
            self.sets.append(Opponents(specs, resolver))
            if self.sets[-1].robots:
                raise NotCompiledError(
                    f"robot opponents {self.sets[-1].robots} on the compiled core: the engine's "
                    "robot controllers fly them on the reference vector env")
        # a reference env of the scenario, for the captains' ``bind`` (action components) and
        # their action spaces; the battles themselves are the batch's
        self.binder = SFBParallelEnv(scenario=scenario, **env_options)
        ot = batch.observe_tables
        self.index = {a: i for i, a in enumerate(agents)}
        self.sizes = [(int(ot.obs_size[i]), int(ot.mask_size[i]),
                       int(np.count_nonzero(batch.nvec[i]))) for i in range(len(agents))]
        self.spaces = {a: self.binder.action_space(a) for a in agents}
        self.policies: list[dict[str, Any]] = [{} for _ in range(batch.num_battles)]

    def start(self, battles: np.ndarray) -> None:
        """New episodes in ``battles``: their captains drawn (factories), bound and reset with
        the battle's seed."""
        for e in battles:
            self.policies[e] = self.sets[e].for_episode(self.binder, int(self.batch.seeds[e]))

    def act(self, full: np.ndarray) -> None:
        """Write every live captain's orders into ``full`` (battles x agents x components)."""
        batch = self.batch
        obs, masks, alive = batch.obs, batch.masks, batch.alive
        for e, policies in enumerate(self.policies):
            for agent, policy in policies.items():
                i = self.index[agent]
                if not alive[e, i]:
                    continue
                n_obs, n_mask, k = self.sizes[i]
                view = {"observation": obs[e, i, :n_obs].copy(),
                        "action_mask": masks[e, i, :n_mask].copy()}
                full[e, i, :k] = policy.act(view, self.spaces[agent])


def _reference_spaces(scenario: str | Mapping[str, Any], agents: list[str],
                      env_options: Mapping[str, Any]) -> list[MaskedMultiDiscrete]:
    """The agents' action spaces as the reference env builds them (each carries its
    ``AgentShape``: component names and observation counts, which ``FixedSpaces`` pads by)."""
    env = SFBParallelEnv(scenario=scenario, **env_options)
    return [env.action_space(a) for a in agents]


class _Padding:
    """Each learner agent's observation, mask and action in the slots' common spaces: its own
    where every learner has the same spaces, else ``FixedSpaces``' padding, applied through
    index maps computed once from ``FixedSpaces``' own functions (so both views agree), by
    each agent's ``AgentShape`` (``shapes``, from the reference env's spaces)."""

    def __init__(self, batch: BattleBatch, fixed: FixedSpaces | None,
                 shapes: list[AgentShape] | None = None) -> None:
        ot = batch.observe_tables
        n_agents = len(batch.agents)
        own_nvec = [batch.nvec[i][batch.nvec[i] > 0] for i in range(n_agents)]
        if fixed is None:
            if len({tuple(v) for v in own_nvec}) > 1 or len(set(ot.obs_size)) > 1:
                raise ValueError("learner agents have different action spaces; pass "
                                 "fixed_spaces")
            nvec, n_obs = own_nvec[0], int(ot.obs_size[0])
            self.observation_space = spaces.Box(-1.0, 1.0, (n_obs,), np.float32)
            self.action_space = MaskedMultiDiscrete(nvec)
        else:
            for v in shapes:
                fixed.check(v)
            self.observation_space = fixed.observation_space()
            self.action_space = fixed.action_space()
        n_obs = self.observation_space.shape[0]
        n_mask = int(self.action_space.nvec.sum())
        k = len(self.action_space.nvec)
        # per agent: source index of every padded position (-1: padding or the identity block,
        # its constant value)
        self.obs_src = np.full((n_agents, n_obs), -1, np.int64)
        self.obs_const = np.zeros((n_agents, n_obs), np.float32)
        self.mask_src = np.full((n_agents, n_mask), -1, np.int64)
        self.mask_const = np.zeros((n_agents, n_mask), np.int8)  # padding's values
        self.action_src = np.full((n_agents, k), -1, np.int64)
        for i, v in enumerate(own_nvec):
            n, m = int(ot.obs_size[i]), int(v.sum())
            if fixed is None:
                self.obs_src[i, :n] = np.arange(n)
                self.mask_src[i, :m] = np.arange(m)
                self.action_src[i, :len(v)] = np.arange(len(v))
                continue
            shape = shapes[i]
            self.obs_const[i] = fixed.pad_observation(np.zeros(n), shape)  # the identity block
            for j in range(n):
                hit = fixed.pad_observation(np.eye(n)[j], shape) != self.obs_const[i]
                self.obs_src[i, hit] = j
            base = fixed.pad_mask(np.zeros(m, np.int8), shape).astype(bool)
            self.mask_const[i] = base
            for j in range(m):
                hit = fixed.pad_mask(np.eye(m, dtype=np.int8)[j], shape).astype(bool) & ~base
                self.mask_src[i, hit] = j
            src = fixed.unpad_action(np.arange(k), shape)
            self.action_src[i, src] = np.arange(len(src))
        self.dead_mask = np.zeros(n_mask, np.bool_)
        self.dead_mask[np.concatenate([[0], np.cumsum(self.action_space.nvec)[:-1]])] = True

    def observations(self, raw: np.ndarray, battles: np.ndarray,
                     agents: np.ndarray) -> np.ndarray:
        """Slot ``i``'s padded observation from ``raw[battles[i], agents[i]]`` (raw: (B, A, n))."""
        out = np.empty((len(battles), self.obs_src.shape[1]), np.float32)
        _gather(raw, battles, agents, self.obs_src, self.obs_const, out)
        return out

    def masks(self, raw: np.ndarray, battles: np.ndarray, agents: np.ndarray) -> np.ndarray:
        """Slot ``i``'s padded flat mask (bool) from ``raw[battles[i], agents[i]]``."""
        out = np.empty((len(battles), self.mask_src.shape[1]), np.int8)  # 0/1: a bool view
        _gather(raw, battles, agents, self.mask_src, self.mask_const, out)
        return out.view(np.bool_)

    def actions(self, padded: np.ndarray, agents: np.ndarray, width: int) -> np.ndarray:
        """The agents' own actions (zero-filled to ``width`` components)."""
        out = np.zeros((len(agents), width), np.int64)
        src = self.action_src[agents]  # padded component -> the agent's own component
        rows, cols = np.nonzero(src >= 0)
        out[rows, src[rows, cols]] = padded[rows, cols]
        return out


@kernel()
def _gather(raw, battles, agents, src, const, out):
    """``out[i, j] = raw[battles[i], agents[i], src[agents[i], j]]``, or ``const[agents[i], j]``
    where that source is -1 (padding)."""
    for i in range(battles.shape[0]):
        b, a = battles[i], agents[i]
        for j in range(out.shape[1]):
            k = src[a, j]
            if k >= 0:
                out[i, j] = raw[b, a, k]
            else:
                out[i, j] = const[a, j]
