"""sb3-contrib MaskablePPO trains on the single-ship view of cth-01 through ``action_masks()``
and never takes a masked action (issue 3)."""

from __future__ import annotations

import numpy as np
from conftest import require

from sfb_env.env.single import SingleAgentEnv


class MaskCheckingEnv(SingleAgentEnv):
    """Counts every action the mask did not allow."""

    masked_actions = 0
    steps = 0

    def step(self, action):
        mask = self.action_masks()
        nvec = self.action_space.nvec
        offsets = np.concatenate([[0], np.cumsum(nvec)[:-1]])
        if not all(mask[o + int(a)] for o, a in zip(offsets, action, strict=True)):
            MaskCheckingEnv.masked_actions += 1
        MaskCheckingEnv.steps += 1
        return super().step(action)


def test_maskable_ppo_few_thousand_steps_never_takes_a_masked_action():
    sb3_contrib = require("sb3_contrib")
    env = MaskCheckingEnv("cth-01")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=512, batch_size=256, n_epochs=2, seed=0
    )
    model.learn(total_timesteps=2048)
    assert MaskCheckingEnv.steps >= 2048
    assert MaskCheckingEnv.masked_actions == 0
