"""Who flies the agents the learner does not: policies, engine robots, or per-episode samplers.

An opponent spec, for one agent, is one of

* a policy object (``reset(seed)`` / ``act(obs, action_space)``, see ``agents.base.Policy``);
* a factory ``f(agent) -> policy`` called at every reset (a league samples opponents this way);
* ``"robot"`` or ``"robot:<controller>"``: the engine flies the ship with a robot controller
  of ``sfb_env.engine.scenario.CONTROLLERS`` (default ``idle``: straight ahead, holding fire);
  the scenario's own robots (drones, freighters) always act in the engine;
* any other string: resolved by ``resolver`` (a registry name such as ``random`` or
  ``doctrine``, a ``module:object`` path, or a checkpoint ``*.zip``). The env layer loads no
  policy itself (``agents`` sits above it): the default resolver is the loader installed with
  ``set_default_resolver``, which importing ``agents`` does (``agents.base.load_policy``).

A policy with ``is_robot = True`` (the registry's ``robot``) counts as ``"robot"``. A policy
with a ``bind(env, agent)`` method is bound to its env and agent before each episode.

``opponents`` given to an env view is a single spec for every other agent or a mapping
``agent -> spec``; agents left out are flown by the random-masked policy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from sfb_env.data import load_data_file
from sfb_env.engine.scenario import CONTROLLERS, SCENARIO_DIR, load_scenario

Resolver = Callable[[str], Any]
ROBOT = "robot"
DEFAULT_ROBOT = "idle"


_installed: list[Resolver] = []  # the loader of named opponents (``set_default_resolver``)


def set_default_resolver(resolver: Resolver) -> None:
    """Install the loader of named opponents (``agents`` installs ``agents.base.load_policy``
    when imported), used where an env view is given no ``resolver``."""
    _installed[:] = [resolver]


def default_resolver(spec: str) -> Any:
    """The installed loader's policy for ``spec`` (see ``set_default_resolver``)."""
    if not _installed:
        raise ValueError(f"no policy loader for opponent {spec!r}: import agents (it installs "
                         "agents.base.load_policy) or pass resolver= to the env view")
    return _installed[0](spec)


def is_policy(obj: Any) -> bool:
    return hasattr(obj, "act") and hasattr(obj, "reset")


def robot_controller(spec: Any) -> str | None:
    """The engine controller a ``"robot[:controller]"`` spec names, else None."""
    if getattr(spec, "is_robot", False):
        return DEFAULT_ROBOT
    if not isinstance(spec, str) or spec.split(":", 1)[0] != ROBOT:
        return None
    controller = spec.split(":", 1)[1] if ":" in spec else DEFAULT_ROBOT
    if controller == "agent" or controller not in CONTROLLERS:
        known = [c for c in CONTROLLERS if c != "agent"]
        raise ValueError(f"unknown robot controller {controller!r} in {spec!r}; known: {known}")
    return controller


def per_agent(opponents: Any, others: list[str]) -> dict[str, Any]:
    """``opponents`` (one spec or a mapping) as ``agent -> spec`` over ``others``."""
    if opponents is None:
        return {a: "random" for a in others}
    if isinstance(opponents, Mapping):
        unknown = sorted(set(opponents) - set(others))
        if unknown:
            raise ValueError(f"opponents for {unknown}: not opponent agents; agents: {others}")
        return {a: opponents.get(a, "random") for a in others}
    return {a: opponents for a in others}


def scenario_with_robots(scenario: Any, controllers: Mapping[str, str]) -> Any:
    """The scenario with ``unit -> controller`` replaced (a dict), or unchanged if empty."""
    if not controllers:
        return scenario
    load_scenario(scenario)  # validate first: errors name the file and field
    if isinstance(scenario, Mapping):
        doc = dict(scenario)
    else:
        path = Path(scenario)
        if path.suffix not in (".yaml", ".yml"):
            path = SCENARIO_DIR / f"{scenario}.yaml"
        doc = dict(load_data_file(path))
    doc["units"] = [
        {**unit, "controller": controllers[unit["id"]]} if unit["id"] in controllers else unit
        for unit in doc["units"]
    ]
    return doc


class Opponents:
    """The per-agent specs of an env view, turned into policies at each reset."""

    def __init__(self, specs: Mapping[str, Any], resolver: Resolver | None = None) -> None:
        self.resolver = resolver or default_resolver
        self.robots = {a: c for a, s in specs.items() if (c := robot_controller(s)) is not None}
        self._fixed: dict[str, Any] = {}
        self._factories: dict[str, Callable[[str], Any]] = {}
        for agent, spec in specs.items():
            if agent in self.robots:
                continue
            if isinstance(spec, str):
                self._fixed[agent] = self.resolver(spec)
            elif is_policy(spec):
                self._fixed[agent] = spec
            elif callable(spec):
                self._factories[agent] = spec
            else:
                raise TypeError(f"opponent for {agent!r}: expected a policy, a factory or a "
                                f"string, got {type(spec).__name__}")

    def for_episode(self, env: Any, seed: int | None) -> dict[str, Any]:
        """The policies of this episode (factories sampled now), each bound to ``env`` if it
        asks (``bind(env, agent)``) and reset with its seed."""
        policies = dict(self._fixed)
        policies.update({a: f(a) for a, f in self._factories.items()})
        for i, agent in enumerate(sorted(policies)):
            bind = getattr(policies[agent], "bind", None)
            if callable(bind):
                bind(env, agent)
            policies[agent].reset(None if seed is None else seed + 1 + i)
        return policies
