"""PettingZoo's AEC entry points over the parallel env (PettingZoo's convention: ``raw_env``
without wrappers, ``env`` with the standard ones).

``sfb_env.env(scenario=..., **options)`` and ``sfb_env.raw_env(...)`` take the options of
``SFBParallelEnv``. The AEC env turns one impulse into one move per live agent, in
``possible_agents`` order (``pettingzoo.utils.conversions.parallel_to_aec``): the impulse is
played when the last agent has moved; ``observe(agent)`` is the agent's Dict observation with
its ``action_mask``. The only standard wrapper that applies is ``OrderEnforcingWrapper``
(``AssertOutOfBoundsWrapper`` and ``TerminateIllegalWrapper`` are for ``Discrete`` actions;
an illegal component value is the parallel env's business, ``illegal_action``).

Usage::

    env = sfb_env.env(scenario="cth-03")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(
            mask=obs["action_mask"])
        env.step(action)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.conversions import parallel_to_aec_wrapper
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from sfb_env.env.parallel import SFBParallelEnv


def raw_env(scenario: str | Mapping[str, Any] = "cth-01", **options: Any) -> AECEnv:
    """The AEC env over ``SFBParallelEnv(scenario, **options)``, without wrappers."""
    return parallel_to_aec_wrapper(SFBParallelEnv(scenario=scenario, **options))


def env(scenario: str | Mapping[str, Any] = "cth-01", **options: Any) -> AECEnv:
    """The AEC env with PettingZoo's standard wrappers (``OrderEnforcingWrapper``)."""
    return OrderEnforcingWrapper(raw_env(scenario, **options))
