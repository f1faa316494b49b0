"""``parallel_env`` with a backend: the reference engine or the compiled core.

``backend="reference"`` is ``sfb_env.env.SFBParallelEnv``; ``"compiled"`` is
``sfb_env.compiled.parallel.CompiledParallelEnv`` (same API, spaces and behaviour, numba
kernels underneath; refuses a scenario or option it has not ported, naming it); ``"auto"``
(the default) takes the compiled core when it plays the scenario with these options, else
the reference engine. ``backend_of(env)`` says which one an env runs on. ``vector_env`` (an
SB3 ``VecEnv``) and ``agent_vector_env`` (its framework-free core) choose the same way.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from sfb_env.env.parallel import SFBParallelEnv

BACKENDS = ("auto", "compiled", "reference")
COMPILED_READY = True  # tier 1 passes the lockstep parity harness (tests/test_compiled_parity.py)
BACKEND_VARIABLE = "SFB_BACKEND"  # the default backend of a process (the CLI's --backend)


def default_backend() -> str:
    """``$SFB_BACKEND`` if set (``sfb play/replay/bench --backend`` set it, so worker
    processes follow), else ``"auto"``."""
    backend = os.environ.get(BACKEND_VARIABLE, "auto")
    if backend not in BACKENDS:
        raise ValueError(f"{BACKEND_VARIABLE}={backend!r}: expected one of {BACKENDS}")
    return backend


def parallel_env(scenario: str | Mapping[str, Any] = "cth-01", backend: str | None = None,
                 **options: Any) -> SFBParallelEnv:
    """Build the parallel environment on ``backend`` (None: ``default_backend()``; see
    ``SFBParallelEnv`` for the options)."""
    backend = default_backend() if backend is None else backend
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "reference" or (backend == "auto" and not COMPILED_READY):
        return SFBParallelEnv(scenario=scenario, **options)
    from sfb_env.compiled.batch import NotCompiledError
    from sfb_env.compiled.parallel import CompiledParallelEnv

    try:
        return CompiledParallelEnv(scenario, **options)
    except NotCompiledError:
        if backend == "compiled":
            raise
        return SFBParallelEnv(scenario=scenario, **options)


def agent_vector_env(scenario: str | Mapping[str, Any], num_envs: int = 1,
                     learners: Any = "all", opponents: Any = None, fixed_spaces: Any = None,
                     seed: int | None = None, backend: str | None = None, **env_options: Any):
    """The framework-free vector view (``env.vector.AgentVectorEnv``'s API) on ``backend``:
    ``compiled.vector.CompiledAgentVectorEnv`` where the compiled core plays the scenario with
    these options and opponents (random, none or Python captains; robot opponents, which the
    engine flies, stay on the reference)."""
    backend = default_backend() if backend is None else backend
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    options = dict(num_envs=num_envs, learners=learners, opponents=opponents,
                   fixed_spaces=fixed_spaces, seed=seed, **env_options)
    if backend == "compiled" or (backend == "auto" and COMPILED_READY):
        from sfb_env.compiled.batch import NotCompiledError
        from sfb_env.compiled.vector import CompiledAgentVectorEnv

        try:
            return CompiledAgentVectorEnv(scenario, **options)
        except NotCompiledError:
            if backend == "compiled":
                raise
    from sfb_env.env.vector import AgentVectorEnv

    return AgentVectorEnv(scenario, **options)


def vector_env(scenario: str | Mapping[str, Any], num_envs: int = 1, seed: int | None = None,
               backend: str | None = None, learners: Any = "all", opponents: Any = None,
               **env_options: Any):
    """A stable-baselines3 ``VecEnv`` over ``num_envs`` battles whose slots are the learner
    ships (``num_envs`` of the VecEnv counts slots); ``action_masks()`` gives the
    ``(slots, sum(nvec))`` bool masks MaskablePPO reads. Needs the ``train`` extra."""
    from sfb_env.env.sb3_vec_env import SB3VecEnv

    venv = agent_vector_env(scenario, num_envs, learners, opponents, seed=seed,
                            backend=backend, **env_options)
    return SB3VecEnv(venv, seed=seed)


def backend_of(env: Any) -> str:
    """``"compiled"`` or ``"reference"``: the engine under a parallel env (wrappers unwrapped)."""
    while hasattr(env, "env") and not isinstance(env, SFBParallelEnv):
        env = env.env
    return getattr(env, "backend", "reference")
