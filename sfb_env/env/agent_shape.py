"""What sizes one agent's spaces: its action components (names and sizes, in action order) and
the counts of its observation vector (``env.observation_layout.Counts``).

``AgentShape.of(layout, threats)`` reads them off the agent's ``ActionLayout``;
``SFBParallelEnv.action_space(agent)`` carries it (``MaskedMultiDiscrete.agent_shape``), so a
policy handed only the space, a padded checkpoint (``env.padding.FixedSpaces``), can pad any
ship. ``AgentShape.from_nvec`` is the shape an ``nvec`` alone implies: weapon positions, then
maneuver and speed, and no optional observation block (what ``FixedSpaces`` read before the
component names were at hand).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sfb_env.env import observation_layout as lay
from sfb_env.env.actions import ActionLayout
from sfb_env.env.observation import counts


@dataclass(frozen=True)
class AgentShape:
    """One agent's action component names and sizes, its observation counts, and the races
    of its ship and of the ships it fights (``FixedSpaces.races``' identity block)."""

    names: tuple[str, ...]  # action component names, in action order (``component_names``)
    nvec: tuple[int, ...]  # their sizes
    counts: lay.Counts  # what sizes the observation vector (``observation_layout.place``)
    race: str = ""  # the ship's race (CTH-DATA; "" unknown: a shape from an nvec alone)
    foes: tuple[str, ...] = ()  # the races of the other sides' ships, sorted, once each

    def __post_init__(self) -> None:
        if len(self.names) != len(self.nvec):
            raise ValueError(f"{len(self.names)} component names for {len(self.nvec)} sizes")

    @classmethod
    def of(cls, layout: ActionLayout, threats: int, race: str = "",
           foes: tuple[str, ...] = ()) -> AgentShape:
        """The shape of the agent whose ``ActionLayout`` is ``layout`` (``threats`` threat
        slots), with the encoder's own counts (``env.observation.counts``), flying a ship of
        ``race`` against ships of ``foes``."""
        return cls(tuple(layout.component_names()), tuple(int(n) for n in layout.nvec),
                   counts(layout, threats), race, tuple(sorted(set(foes))))

    @classmethod
    def from_nvec(cls, nvec, slots: int, threats: int) -> AgentShape:
        """What ``nvec`` alone says: ``len(nvec) - 2`` weapon positions (``position[i]``),
        ``maneuver`` and ``speed``; no optional observation block."""
        nvec = tuple(int(n) for n in np.asarray(nvec).reshape(-1))
        if len(nvec) < 2:
            raise ValueError(f"nvec {list(nvec)} lacks the maneuver and speed components")
        positions = len(nvec) - 2
        names = tuple(f"position[{i}]" for i in range(positions)) + ("maneuver", "speed")
        return cls(names, nvec, lay.Counts(positions, slots, threats))

    @property
    def size(self) -> int:
        """Length of the observation vector."""
        return lay.place(self.counts).size


def kind_of(name: str) -> str:
    """A component's kind from its name: ``fire[3]`` -> ``fire``, ``gatling[0].shot2`` ->
    ``gatling``, ``capacitor`` -> ``capacitor``."""
    return name.split("[", 1)[0].split(".", 1)[0]
