"""The ``Policy`` protocol, the random-masked policy and the policy registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np
from gymnasium import spaces


@runtime_checkable
class Policy(Protocol):
    """Chooses an action for one agent from its observation."""

    def reset(self, seed: int | None = None) -> None:
        """Start a new episode (reseed any internal generator)."""

    def act(self, observation: dict[str, np.ndarray], action_space: spaces.Space) -> np.ndarray:
        """An action of ``action_space``; must respect ``observation["action_mask"]``."""


class RandomMaskedPolicy:
    """Uniformly random among the choices the mask allows, component by component."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], action_space: spaces.Space) -> np.ndarray:
        nvec = np.asarray(action_space.nvec)
        mask = np.asarray(observation["action_mask"]).astype(bool)
        action = np.zeros(len(nvec), dtype=np.int64)
        start = 0
        for i, n in enumerate(nvec):
            allowed = np.flatnonzero(mask[start:start + n])
            action[i] = self.rng.choice(allowed) if len(allowed) else 0
            start += n
        return action


_REGISTRY: dict[str, Callable[..., Any]] = {"random": RandomMaskedPolicy}


def register_policy(name: str, factory: Callable[..., Any]) -> None:
    """Make ``make_policy(name)`` build policies with ``factory(**kwargs)``."""
    _REGISTRY[name] = factory


def make_policy(name: str, **kwargs: Any) -> Policy:
    """A policy by registry name (``random``, ...)."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown policy {name!r}; known: {sorted(_REGISTRY)}")
    return _REGISTRY[name](**kwargs)
