"""``ConcatAgentVectorEnv``: several vector envs (one per scenario) as one, slot after slot.

A multi-scenario stage (``scenarios: [a, b, ...]``) trains one policy on all its scenarios at
once: each scenario gets its own vector env (``sfb_env.backends.agent_vector_env``, the compiled
core where it plays them) with ``n_envs / len(scenarios)`` slots, and this wrapper concatenates
their observations, rewards, dones, infos and action masks and splits the actions back. Every
part must have the same spaces, which ``env.fixed_spaces`` gives them (each part checks that its
ships fit, ``FixedSpaces.check``); a mismatch is refused naming the scenarios.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

SEED_STRIDE = 7919  # part i of a seeded reset uses seed + i * SEED_STRIDE


class ConcatAgentVectorEnv:
    """The ``AgentVectorEnv`` API over ``parts``: slots of part 0, then part 1, ..."""

    render_mode = None

    def __init__(self, parts: Sequence[Any], names: Sequence[str] | None = None) -> None:
        if not parts:
            raise ValueError("ConcatAgentVectorEnv needs at least one vector env")
        self.parts = list(parts)
        self.names = list(names) if names is not None else [str(i) for i in range(len(parts))]
        if len(self.names) != len(self.parts):
            raise ValueError(f"{len(self.names)} names for {len(self.parts)} vector envs")
        first = self.parts[0]
        for name, part in zip(self.names[1:], self.parts[1:], strict=True):
            if (part.observation_space.shape != first.observation_space.shape
                    or not np.array_equal(part.action_space.nvec, first.action_space.nvec)):
                raise ValueError(
                    f"scenario {name!r} has observation shape {part.observation_space.shape} and "
                    f"action nvec {list(part.action_space.nvec)}, but {self.names[0]!r} has "
                    f"{first.observation_space.shape} and {list(first.action_space.nvec)}: "
                    "a multi-scenario stage needs env.fixed_spaces")
        self.observation_space = first.observation_space
        self.action_space = first.action_space
        sizes = [p.num_slots for p in self.parts]
        self.bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.num_slots = int(self.bounds[-1])
        self.num_envs = sum(p.num_envs for p in self.parts)

    def slice_of(self, i: int) -> slice:
        """The slots of part ``i``."""
        return slice(int(self.bounds[i]), int(self.bounds[i + 1]))

    def reset(self, seed: int | None = None) -> np.ndarray:
        return np.concatenate([
            p.reset(seed=None if seed is None else seed + i * SEED_STRIDE)
            for i, p in enumerate(self.parts)])

    def action_masks(self) -> np.ndarray:
        return np.concatenate([p.action_masks() for p in self.parts])

    def step(self, actions: np.ndarray):
        actions = np.asarray(actions)
        results = [p.step(actions[self.slice_of(i)]) for i, p in enumerate(self.parts)]
        obs, rewards, terminated, truncated, infos = zip(*results, strict=True)
        return (np.concatenate(obs), np.concatenate(rewards), np.concatenate(terminated),
                np.concatenate(truncated), [info for part in infos for info in part])

    def close(self) -> None:
        for part in self.parts:
            part.close()
