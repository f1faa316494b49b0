"""``MaskedPPOTorchRLModule``: RLlib's PPO module with sfb-env's flat action mask.

The env's observation is ``{"observation": float32 (n,), "action_mask": int8 (sum(nvec),)}``.
The module builds its networks on the ``observation`` part only, and before sampling adds
``log(mask)`` (clamped to RLlib's ``FLOAT_MIN``) to the action-distribution inputs. For a
``MultiDiscrete`` action RLlib's distribution inputs are the concatenated per-component logits,
the same layout as the flat mask, so masked choices get probability zero in exploration,
inference and training (RLlib's ``action_masking_rlm`` example, for a MultiDiscrete space).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
    DefaultPPOTorchRLModule,
)
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

OBS, MASK = "observation", "action_mask"


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO over ``obs["observation"]`` with logits masked by ``obs["action_mask"]``."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        spaces = getattr(observation_space, "spaces", {})
        if not isinstance(observation_space, gym.spaces.Dict) or MASK not in spaces:
            raise ValueError("MaskedPPOTorchRLModule needs the sfb-env Dict observation space "
                             f"with {OBS!r} and {MASK!r}, got {observation_space}")
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space[OBS], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.observation_space_with_mask

    def _forward_inference(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        if isinstance(batch[Columns.OBS], dict):
            mask, batch = self._split(batch)
        else:
            mask = batch[MASK]
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings: Any = None) -> Any:
        # GAE calls this on the learner batch before the train pass: unpack it in place and
        # keep the mask beside it for ``_forward_train`` (as RLlib's masking example does).
        if isinstance(batch[Columns.OBS], dict):
            obs = batch[Columns.OBS]
            batch[MASK] = obs[MASK]
            batch[Columns.OBS] = obs[OBS]
        return super().compute_values(batch, embeddings)

    @staticmethod
    def _split(batch: dict) -> tuple[torch.Tensor, dict]:
        obs = batch[Columns.OBS]
        batch = dict(batch)
        batch[Columns.OBS] = obs[OBS]
        return obs[MASK], batch

    @staticmethod
    def _masked(outs: dict, mask: torch.Tensor) -> dict:
        outs[Columns.ACTION_DIST_INPUTS] = outs[Columns.ACTION_DIST_INPUTS] + torch.clamp(
            torch.log(mask.float()), min=FLOAT_MIN)
        return outs
