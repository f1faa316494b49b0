"""Policies for sfb-env: users of the public API only.

A policy maps one agent's observation (``{"observation", "action_mask"}``) to an action of its
``MaskedMultiDiscrete`` space. ``make_policy(name)`` builds one from the registry.
"""

from agents.base import Policy, RandomMaskedPolicy, make_policy, register_policy

__all__ = ["Policy", "RandomMaskedPolicy", "make_policy", "register_policy"]
