"""The PettingZoo layer: spaces, observations, masks with reasons, rewards. Thin: it
translates; the engine decides.

Entry points: ``parallel_env`` (the PettingZoo ``ParallelEnv``); the package itself is
callable, ``sfb_env.env(scenario=...)``, for PettingZoo's AEC convention (``env.aec``; also
``raw_env``), while ``sfb_env.env.<module>`` stays this package; Gymnasium's registry holds
the single-ship view as ``SINGLE_ID`` (``gymnasium.make("sfb_env/Single-v1",
scenario="cth-03")``, ``env.single.SingleAgentEnv``).
"""

import sys
import types
from typing import Any

import gymnasium

from sfb_env.env.actions import IllegalActionError
from sfb_env.env.aec import env as aec_env
from sfb_env.env.aec import raw_env
from sfb_env.env.parallel import SFBParallelEnv, UnknownAgentError, parallel_env
from sfb_env.env.spaces import MaskedMultiDiscrete

#: Gymnasium id of the single-ship view; its version follows the env's (``sfb_v1``)
SINGLE_ID = "sfb_env/Single-v1"
if SINGLE_ID not in gymnasium.registry:
    gymnasium.register(SINGLE_ID, entry_point="sfb_env.env.single:SingleAgentEnv")


class _CallablePackage(types.ModuleType):
    """``sfb_env.env(scenario, **options)`` builds the AEC env (PettingZoo's ``env()``)."""

    def __call__(self, scenario: Any = "cth-01", **options: Any):
        return aec_env(scenario, **options)


sys.modules[__name__].__class__ = _CallablePackage

__all__ = ["IllegalActionError", "MaskedMultiDiscrete", "SFBParallelEnv", "SINGLE_ID",
           "UnknownAgentError", "aec_env", "parallel_env", "raw_env"]
