"""The PettingZoo layer: spaces, observations, masks with reasons, rewards. Thin: it
translates; the engine decides."""

from sfb_env.env.actions import IllegalActionError
from sfb_env.env.parallel import SFBParallelEnv, parallel_env
from sfb_env.env.spaces import MaskedMultiDiscrete

__all__ = ["IllegalActionError", "MaskedMultiDiscrete", "SFBParallelEnv", "parallel_env"]
