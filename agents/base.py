"""The ``Policy`` protocol, the random-masked policy, the policy registry and loading.

A policy may also define ``bind(env, agent)``: whoever runs it (the bench harness, ``sfb play``)
calls it once the env is built, before the episode, so that it can read the static
``env.action_components(agent)`` (weapon types, arcs, ranges). ``bind_policy`` does that call.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any, Protocol, runtime_checkable

import numpy as np
from gymnasium import spaces

from agents.mask_values import open_values


@runtime_checkable
class Policy(Protocol):
    """Chooses an action for one agent from its observation."""

    def reset(self, seed: int | None = None) -> None:
        """Start a new episode (reseed any internal generator)."""

    def act(self, observation: dict[str, np.ndarray], action_space: spaces.Space) -> np.ndarray:
        """An action of ``action_space``; must respect ``observation["action_mask"]``."""


def view_options(policies: Iterable[Any]) -> dict[str, bool]:
    """The env's view options (``enemy_fire``) that any of ``policies`` reads: each policy's
    optional ``views``, the observation blocks it was trained with that an env option adds
    (an SB3 checkpoint's ``fixed_spaces.rule_features``). A policy that reads none of them flies
    the same in such an env: its padding drops them (``FixedSpaces``)."""
    return {name: True for policy in policies for name in getattr(policy, "views", ())}


def bind_policy(policy: Any, env: Any, agent: str) -> None:
    """Give ``policy`` its env and agent if it asks for them (an optional ``bind`` method)."""
    bind = getattr(policy, "bind", None)
    if callable(bind):
        bind(env, agent)


class RandomMaskedPolicy:
    """Uniformly random among the choices the mask allows, component by component."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], action_space: spaces.Space) -> np.ndarray:
        values = open_values(observation["action_mask"], action_space.nvec)
        action = np.zeros(len(values), dtype=np.int64)
        for i, allowed in enumerate(values):
            if allowed:  # (the draw of Generator.choice over the open values)
                action[i] = allowed[self.rng.integers(0, len(allowed))]
        return action


class ScenarioRobots:
    """``robot``: the scenario's own automatic controllers fly that side (SCENARIOS.md §2).

    Robot units act inside the engine and are not agents, so this policy only marks a side as
    robot-flown; asked to fly an agent, it refuses.
    """

    is_robot = True

    def reset(self, seed: int | None = None) -> None:
        del seed

    def act(self, observation: dict[str, np.ndarray], action_space: spaces.Space) -> np.ndarray:
        raise TypeError(
            "policy 'robot' flies only sides without agents (the scenario's robots act inside "
            "the engine); pick another policy for a ship a player commands"
        )


_REGISTRY: dict[str, Callable[..., Any]] = {"random": RandomMaskedPolicy, "robot": ScenarioRobots}
_DESCRIPTIONS: dict[str, str] = {
    "random": "uniformly random among the values the action mask allows",
    "robot": "the scenario's own robots fly that side (sides without agents only)",
}


def register_policy(name: str, factory: Callable[..., Any], description: str = "") -> None:
    """Make ``make_policy(name)`` build policies with ``factory(**kwargs)``; ``description`` is
    the one line ``sfb policies`` prints (the factory's docstring's first line by default)."""
    _REGISTRY[name] = factory
    if not description:
        doc = (getattr(factory, "__doc__", None) or "").strip()
        description = doc.splitlines()[0] if doc else ""
    _DESCRIPTIONS[name] = description


def registered_policies() -> list[str]:
    """Registry names, sorted."""
    return sorted(_REGISTRY)


def policy_descriptions() -> dict[str, str]:
    """Registry name -> its one-line description, sorted by name."""
    return {name: _DESCRIPTIONS.get(name, "") for name in sorted(_REGISTRY)}


def make_policy(name: str, **kwargs: Any) -> Policy:
    """A policy by registry name (``random``, ``robot``, ``klingon-doctrine``, ...)."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown policy {name!r}; known: {sorted(_REGISTRY)}")
    return _REGISTRY[name](**kwargs)


def load_policy(spec: str) -> Policy:
    """A policy from a registry name, a ``module:object`` path (a policy, or a class or factory
    called without arguments) or an SB3 checkpoint (``*.zip``, sb3-contrib MaskablePPO)."""
    if spec.endswith(".zip"):
        from agents.sb3_policy import SB3Policy  # the one checkpoint loader (sidecar, padding)

        return SB3Policy(spec)
    if ":" not in spec:
        return make_policy(spec)
    module_name, _, attr = spec.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot load policy {spec!r}: {exc}") from exc
    if isinstance(obj, type) or (not hasattr(obj, "act") and callable(obj)):
        obj = obj()  # a class or a factory
    if not (callable(getattr(obj, "act", None)) and callable(getattr(obj, "reset", None))):
        raise ValueError(f"policy {spec!r} does not provide reset(seed) and act(obs, space)")
    return obj
