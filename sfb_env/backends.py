"""``parallel_env`` with a backend: the reference engine or the compiled core.

``backend="reference"`` is ``sfb_env.env.SFBParallelEnv``; ``"compiled"`` is
``sfb_env.compiled.parallel.CompiledParallelEnv`` (same API, spaces and behaviour, numba
kernels underneath; refuses a scenario or option it has not ported, naming it); ``"auto"``
(the default) takes the compiled core when it plays the scenario with these options, else
the reference engine. ``backend_of(env)`` says which one an env runs on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sfb_env.env.parallel import SFBParallelEnv

BACKENDS = ("auto", "compiled", "reference")
COMPILED_READY = False  # set once the tier-1 parity harness passes (issue 12)


def parallel_env(scenario: str | Mapping[str, Any] = "cth-01", backend: str = "auto",
                 **options: Any) -> SFBParallelEnv:
    """Build the parallel environment on ``backend`` (see ``SFBParallelEnv`` for options)."""
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


def backend_of(env: Any) -> str:
    """``"compiled"`` or ``"reference"``: the engine under a parallel env (wrappers unwrapped)."""
    while hasattr(env, "env") and not isinstance(env, SFBParallelEnv):
        env = env.env
    return getattr(env, "backend", "reference")
