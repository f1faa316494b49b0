"""``MaskedMultiDiscrete``: a MultiDiscrete whose ``sample`` accepts the flat int8 mask.

sb3-contrib's ``MaskablePPO`` uses one flat mask aligned with ``nvec`` (the concatenation of
each component's choices); gymnasium's ``MultiDiscrete.sample`` wants a tuple of per-component
masks. This class accepts both, so PettingZoo's ``parallel_api_test`` can sample with
``obs["action_mask"]`` unmodified. An env's space carries the agent's ``AgentShape``
(``agent_shape``: its component names and observation counts, ``env.agent_shape``) for
policies that pad (``env.padding.FixedSpaces``); None on a space made from an ``nvec`` alone.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces


class MaskedMultiDiscrete(spaces.MultiDiscrete):
    """MultiDiscrete accepting a flat mask of length ``nvec.sum()`` in ``sample``."""

    agent_shape = None  # the agent's ``env.agent_shape.AgentShape`` where an env made it

    def __init__(self, nvec, *args, agent_shape=None, **kwargs) -> None:
        super().__init__(nvec, *args, **kwargs)
        self.agent_shape = agent_shape

    def split_mask(self, mask: np.ndarray) -> tuple[np.ndarray, ...]:
        """Flat mask -> tuple of per-component int8 masks."""
        flat = np.asarray(mask, dtype=np.int8).ravel()
        if flat.shape[0] != int(self.nvec.sum()):
            raise ValueError(
                f"flat action mask has {flat.shape[0]} entries; nvec {self.nvec.tolist()} "
                f"needs {int(self.nvec.sum())}"
            )
        bounds = np.cumsum(self.nvec)[:-1]
        return tuple(np.split(flat, bounds))

    def sample(self, mask=None, probability=None):  # noqa: D102 - see class docstring
        if mask is not None and not isinstance(mask, tuple):
            mask = self.split_mask(mask)
        return super().sample(mask=mask, probability=probability)
