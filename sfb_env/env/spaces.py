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
        return tuple(np.split(self._flat_mask(mask), np.cumsum(self.nvec)[:-1]))

    def _flat_mask(self, mask: np.ndarray) -> np.ndarray:
        flat = np.asarray(mask, dtype=np.int8).ravel()
        if flat.shape[0] != int(self.nvec.sum()):
            raise ValueError(
                f"flat action mask has {flat.shape[0]} entries; nvec {self.nvec.tolist()} "
                f"needs {int(self.nvec.sum())}"
            )
        return flat

    def sample(self, mask=None, probability=None):  # noqa: D102 - see class docstring
        if mask is None or isinstance(mask, tuple) or probability is not None \
                or self.nvec.ndim != 1:
            return super().sample(mask=mask, probability=probability)
        return self._sample_flat(self._flat_mask(mask))

    def _sample_flat(self, flat: np.ndarray) -> np.ndarray:
        """gymnasium's masked draw without its per-component Python: the same values and the
        same generator state (a component with no allowed value draws nothing and takes its
        ``start``; the others draw ``integers(0, allowed)``, in one broadcast call, as
        ``Generator.choice`` draws them one at a time), a few times faster."""
        if flat.size and (flat.min() < 0 or flat.max() > 1):
            raise ValueError(f"action mask values must be 0 or 1, got {np.unique(flat).tolist()}")
        starts = np.concatenate(([0], np.cumsum(self.nvec)[:-1]))
        ends = np.cumsum(flat, dtype=np.int64)  # allowed values up to each entry
        before = np.where(starts > 0, ends[starts - 1], 0)
        counts = ends[starts + self.nvec - 1] - before
        live = counts > 0
        offset = np.zeros(len(starts), dtype=np.int64)
        if live.any():  # the value drawn is the (before + draw + 1)-th allowed one
            draws = self.np_random.integers(0, counts[live])
            offset[live] = np.searchsorted(ends, before[live] + draws + 1) - starts[live]
        return (offset + self.start).astype(self.dtype)
