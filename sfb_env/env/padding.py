"""Fixed spaces: one observation and action shape for every ship and scenario.

A policy network has one input and one output size, but ships differ in weapon positions
(drone racks + direct-fire weapons) and scenarios in maximum speed. ``FixedSpaces`` pads an
agent's observation, mask and action to a fixed number of weapon positions and a fixed top
speed, so one model can follow a curriculum across scenarios (cth-01 -> cth-03 -> duels) or fly
either side of a duel. Padding is a pure function of the agent's ``nvec``
(``[K+1] * positions + [4, max_speed + 1]``), so a checkpoint can pad for any ship:

* observation: the own-ship block (``own``, ``env.observation_layout``) gets zero weapon positions
  appended; clock, target slots and threats follow unchanged;
* mask: padded weapon positions allow only 0 (hold), speeds above the ship's top are masked;
* action: padded components are dropped (``unpad_action``).

Target and threat slot counts must match the env's ``target_slots`` / ``threat_slots``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from gymnasium import spaces

from sfb_env.env import observation_layout as lay
from sfb_env.env.actions import N_MANEUVERS
from sfb_env.env.spaces import MaskedMultiDiscrete


@dataclass(frozen=True)
class FixedSpaces:
    """Pad every agent to ``positions`` weapon positions and speeds ``0..max_speed``."""

    positions: int = 12
    max_speed: int = 31
    target_slots: int = 8
    threat_slots: int = 4

    def __post_init__(self) -> None:
        for name in ("positions", "max_speed", "target_slots", "threat_slots"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"FixedSpaces.{name} must be an integer >= 0, got {value!r}")

    # ------------------------------------------------------------------ spaces

    @property
    def nvec(self) -> np.ndarray:
        k = self.target_slots + 1
        return np.array([k] * self.positions + [N_MANEUVERS, self.max_speed + 1], np.int64)

    @property
    def observation_size(self) -> int:
        return self._placement(self.positions).size

    def _placement(self, positions: int) -> lay.Placement:
        """The declared layout (``env.observation_layout``) with ``positions`` weapon positions
        and no optional block (``check`` refuses agents with one)."""
        return lay.place(lay.Counts(positions, self.target_slots, self.threat_slots))

    def observation_space(self) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, shape=(self.observation_size,), dtype=np.float32)

    def action_space(self) -> MaskedMultiDiscrete:
        return MaskedMultiDiscrete(self.nvec)

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    # ------------------------------------------------------------------ padding

    def check(self, nvec: np.ndarray) -> None:
        """Raise ``ValueError`` if an agent with ``nvec`` does not fit."""
        nvec = np.asarray(nvec)
        positions = len(nvec) - 2
        if len(nvec) >= 2 and nvec[-2] != N_MANEUVERS:
            raise ValueError(f"the agent has {nvec[-2]} maneuver values; FixedSpaces pads the "
                             f"{N_MANEUVERS} basic ones only (scenario rules sideslip and "
                             "tactical_maneuvers are not supported with fixed spaces)")
        if positions > self.positions:
            raise ValueError(f"the ship has {positions} weapon positions; FixedSpaces.positions "
                             f"is {self.positions}")
        if nvec[-1] - 1 > self.max_speed:
            raise ValueError(f"the scenario allows speed {nvec[-1] - 1}; FixedSpaces.max_speed "
                             f"is {self.max_speed}")
        if positions and nvec[0] != self.target_slots + 1:
            raise ValueError(f"the env has {nvec[0] - 1} target slots; FixedSpaces.target_slots "
                             f"is {self.target_slots}")
        if any(int(n) != self.target_slots + 1 for n in nvec[:-2]):
            raise ValueError("the agent has action components other than weapon positions "
                             "(an ESG, G23, a PPD's ppd[p], E11.362, or the energy components "
                             "of rules.energy, B3.0); "
                             "FixedSpaces pads racks and direct-fire weapons only")

    def pad_observation(self, vector: np.ndarray, nvec: np.ndarray) -> np.ndarray:
        """The agent's observation vector with zero weapon positions appended to its own ship."""
        own = self._placement(len(nvec) - 2).span("own").stop
        padded = self._placement(self.positions).span("own").stop
        out = np.zeros(self.observation_size, dtype=np.float32)
        out[:own] = vector[:own]
        tail = np.asarray(vector[own:])
        if len(tail) != self.observation_size - padded:
            raise ValueError(f"observation of size {len(vector)} does not match target_slots="
                             f"{self.target_slots}, threat_slots={self.threat_slots}")
        out[padded:] = tail
        return out

    def pad_mask(self, mask: np.ndarray, nvec: np.ndarray) -> np.ndarray:
        """The flat mask over ``self.nvec``: padded positions hold, speeds above the top masked."""
        nvec = np.asarray(nvec)
        positions = len(nvec) - 2
        width = self.target_slots + 1
        out = np.zeros(int(self.nvec.sum()), dtype=np.int8)
        real = positions * width
        out[:real] = mask[:real]
        out[real:self.positions * width:width] = 1  # padded weapon positions: hold only
        start = self.positions * width
        out[start:start + N_MANEUVERS] = mask[real:real + N_MANEUVERS]
        speeds = int(nvec[-1])
        start += N_MANEUVERS
        out[start:start + speeds] = mask[real + N_MANEUVERS:real + N_MANEUVERS + speeds]
        return out

    def unpad_action(self, action: np.ndarray, nvec: np.ndarray) -> np.ndarray:
        """The agent's action: its own weapon positions, then maneuver and speed."""
        action = np.asarray(action, dtype=np.int64).reshape(-1)
        positions = len(nvec) - 2
        return np.concatenate([action[:positions], action[-2:]])
