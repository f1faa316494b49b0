"""``FusedMaskablePolicy``: sb3-contrib's ``MaskableActorCriticPolicy`` with the fused masked
MultiDiscrete distribution (``training.fused_distribution``) as its action distribution.

Same networks and parameter names as the stock policy (the action net is the same
``Linear(latent, sum(nvec))``), so weights move between the two; only the distribution object
differs. ``sfb train`` uses it unless the config says ``ppo.fused_distribution: false``.
"""

from __future__ import annotations

from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.type_aliases import Schedule

from training.fused_distribution import FusedMaskableMultiCategorical


class FusedMaskablePolicy(MaskableActorCriticPolicy):
    """MLP actor-critic for MultiDiscrete (or Discrete) actions, fused masked distribution."""

    def _build(self, lr_schedule: Schedule) -> None:
        space = self.action_space
        if isinstance(space, spaces.MultiDiscrete):
            dims = [int(n) for n in space.nvec.ravel()]
        elif isinstance(space, spaces.Discrete):
            dims = [int(space.n)]
        else:
            raise TypeError(f"FusedMaskablePolicy needs a (Multi)Discrete action space, "
                            f"got {space}")
        self.action_dist = FusedMaskableMultiCategorical(dims)
        super()._build(lr_schedule)
