"""Policies for sfb-env: users of the public API only.

A policy maps one agent's observation (``{"observation", "action_mask"}``) to an action of its
``MaskedMultiDiscrete`` space. ``get(name)`` (alias ``make_policy``) builds one from the
registry: ``random``, ``random-fighter`` (random masked orders that never disengage and keep
to the map, ``agents.random_fighter``), ``robot`` (the scenario's own robots fly that side),
the race doctrine captains ``klingon-doctrine``, ``federation-doctrine``, ``kzinti-doctrine``,
``orion-doctrine``, ``hydran-doctrine``, ``lyran-doctrine``, ``romulan-doctrine``,
``gorn-doctrine``, ``isc-doctrine`` and ``doctrine`` (race recognised from the ship's
weapons); ``robot-captain`` (the scenario-4 robot ship, SCENARIOS §2.5, flying an agent ship);
the scenario captains ``pirate``, ``defender`` (cth-08), ``rescuer``, ``rescue-opponent``
(cth-09) and ``researcher`` (cth-11) (``agents.scenario_captains``). ``sfb policies`` lists
the registry with one line each. ``load_policy(spec)`` also takes ``module:object`` paths and
SB3 ``*.zip`` checkpoints.
"""

from agents import doctrine as _doctrine  # noqa: F401 - registers the doctrine captains
from agents import random_fighter as _random_fighter  # noqa: F401 - registers random-fighter
from agents import robot_captain as _robot_captain  # noqa: F401 - registers robot-captain
from agents import scenario_captains as _scenario_captains  # noqa: F401 - cth-08/09/11
from agents.base import (
    Policy,
    RandomMaskedPolicy,
    bind_policy,
    load_policy,
    make_policy,
    register_policy,
)
from sfb_env.env.opponents import set_default_resolver

set_default_resolver(load_policy)  # the env views resolve named opponents with it
get = make_policy

__all__ = [
    "Policy", "RandomMaskedPolicy", "bind_policy", "get", "load_policy", "make_policy",
    "register_policy",
]
