"""Shield reinforcement (D3.34), pure and engine-independent.

* D3.34 reinforcement needs active shields.
* D3.341 general reinforcement (GR) = energy // 2 points for the turn; it absorbs the first
  damage from any direction until spent, then is gone; unused points end with the turn.
* D3.3411 GR absorbs before specific reinforcement, which absorbs before shield boxes. Rules
  file 004 only (not the book): GR may be held inactive and switched on later in the turn
  (``general_active``); inactive GR absorbs nothing. [P-033]
* D3.342 specific reinforcement: 1 energy = 1 extra box on one named shield for this turn.
* D3.343 no specific reinforcement on a shield that is down; GR still covers it.
* H7.2 reserve power may add specific reinforcement mid-turn, even after a volley is rolled
  and before it is marked (:func:`add_specific`; battery bookkeeping in ``reserve_power``).

Shields are a sequence of six box counts, #1..#6. Everything returns new values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

N_SHIELDS = 6


def _int(name: str, value: object, rule: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name}={value!r}: need an int >= {low} ({rule})")
    return int(value)


def _shield_number(name: str, value: object, rule: str) -> int:
    n = _int(name, value, rule, 1)
    if n > N_SHIELDS:
        raise ValueError(f"{name}={value!r}: shields are numbered 1..6 ({rule})")
    return n


def _six(name: str, values: Sequence[int], rule: str) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)) or len(values) != N_SHIELDS:
        raise ValueError(f"{name}: need six values for shields #1..#6 ({rule})")
    return tuple(_int(f"{name}[{i}]", v, rule) for i, v in enumerate(values))


def general_reinforcement_points(energy: int) -> int:
    """GR points bought with ``energy``: half, rounded down (D3.341)."""
    return _int("general_energy", energy, "D3.341") // 2


@dataclass(frozen=True)
class Reinforcement:
    """Reinforcement left this turn."""

    general: int = 0  # GR points left (D3.341)
    specific: tuple[int, ...] = (0,) * N_SHIELDS  # extra boxes on shields #1..#6 (D3.342)
    general_active: bool = True  # rules file 004 option; the book has GR always active

    def __post_init__(self) -> None:
        _int("Reinforcement.general", self.general, "D3.341")
        specific = _six("Reinforcement.specific", self.specific, "D3.342")
        object.__setattr__(self, "specific", specific)


def allocate_reinforcement(
    shields: Sequence[int],
    general_energy: int = 0,
    specific_energy: Sequence[int] = (0,) * N_SHIELDS,
    *,
    shields_active: bool = True,
    general_active: bool = True,
) -> Reinforcement:
    """Reinforcement bought at Energy Allocation from shield boxes left ``shields``."""
    boxes = _six("shields", shields, "D3.34")
    general = general_reinforcement_points(general_energy)
    specific = _six("specific_energy", specific_energy, "D3.342")
    if not shields_active and (general or any(specific)):
        raise ValueError("shields_active: reinforcement needs active shields (D3.34)")
    for i, (extra, left) in enumerate(zip(specific, boxes, strict=True)):
        if extra and left == 0:
            raise ValueError(
                f"specific_energy[{i}]: shield #{i + 1} is down and cannot be reinforced (D3.343)"
            )
    return Reinforcement(general, specific, general_active)


def add_specific(
    reinforcement: Reinforcement, shields: Sequence[int], shield: int, energy: int
) -> Reinforcement:
    """Add ``energy`` specific reinforcement to ``shield`` now, e.g. from reserve power
    (D3.342, H7.2); it lasts to the end of the turn, never retroactively (H7.1)."""
    boxes = _six("shields", shields, "D3.343")
    n = _shield_number("shield", shield, "D3.342")
    extra = _int("energy", energy, "D3.342")
    if extra and boxes[n - 1] == 0:
        raise ValueError(f"shield: #{n} is down and cannot be reinforced (D3.343)")
    specific = list(reinforcement.specific)
    specific[n - 1] += extra
    return Reinforcement(reinforcement.general, tuple(specific), reinforcement.general_active)


def activate_general(reinforcement: Reinforcement) -> Reinforcement:
    """Switch held general reinforcement on (rules file 004's D3.3411 note; not in the book)."""
    return Reinforcement(reinforcement.general, reinforcement.specific, True)


def end_of_turn(reinforcement: Reinforcement) -> Reinforcement:
    """Unused reinforcement does not carry over (D3.341, D3.342)."""
    del reinforcement
    return Reinforcement()


@dataclass(frozen=True)
class ShieldDamage:
    """How one volley's points were absorbed (D3.3411 order) and what is left."""

    general: int  # points stopped by general reinforcement
    specific: int  # points stopped by specific reinforcement
    shield: int  # shield boxes destroyed
    internal: int  # points that go on to the DAC
    shields: tuple[int, ...]  # shield boxes left, #1..#6
    reinforcement: Reinforcement  # reinforcement left


def absorb_volley(
    shields: Sequence[int], reinforcement: Reinforcement, shield: int, points: int
) -> ShieldDamage:
    """Apply ``points`` striking ``shield``: GR, then specific, then boxes (D3.3411, D3.2)."""
    boxes = list(_six("shields", shields, "D3.2"))
    n = _shield_number("shield", shield, "D3.2")
    left = _int("points", points, "D3.2")
    general = min(left, reinforcement.general) if reinforcement.general_active else 0
    left -= general
    specific_left = list(reinforcement.specific)
    specific = min(left, specific_left[n - 1])
    specific_left[n - 1] -= specific
    left -= specific
    absorbed = min(left, boxes[n - 1])
    boxes[n - 1] -= absorbed
    after = Reinforcement(
        reinforcement.general - general, tuple(specific_left), reinforcement.general_active
    )
    return ShieldDamage(general, specific, absorbed, left - absorbed, tuple(boxes), after)
