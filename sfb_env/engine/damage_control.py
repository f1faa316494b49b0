"""Damage control: repairing shield boxes in combat (D9.0-D9.2), pure and engine-independent.

* D9.1 the rating is the best undestroyed box of the damage-control track (tracks lose their
  best box first, D4.33).
* D9.2 energy up to the rating each turn; every 2 energy repair 1 shield box at the end of the
  turn; only boxes destroyed on earlier turns; the shield is named at Energy Allocation; no
  energy for undamaged boxes in anticipation; no reserve power (also H7.2); a rating cut
  during the turn applies from the next turn (a plan keeps the rating it was made under).
* D9.0 internal repairs (EDR/CDR) are not used in CTH and are not modelled. [P-044]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from sfb_env.engine.dac import track_rating

N_SHIELDS = 6


def _int(name: str, value: object, rule: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name}={value!r}: need an int >= {low} ({rule})")
    return int(value)


def damage_control_rating(track: Sequence[int], remaining: int) -> int:
    """Rating = best undestroyed damage-control box, ``remaining`` boxes left (D9.1)."""
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in track):
        raise ValueError(f"track={tuple(track)!r}: need int box values (D9.1)")
    _int("remaining", remaining, "D9.1")
    return track_rating(track, remaining)


@dataclass(frozen=True)
class DamageControlPlan:
    """Energy put into damage control this turn and the boxes it will repair."""

    rating: int  # the rating at Energy Allocation (D9.2: cuts apply next turn)
    energy: tuple[int, ...]  # energy per shield #1..#6
    repairs: tuple[int, ...]  # boxes repaired at end of turn per shield #1..#6

    @property
    def total_energy(self) -> int:
        return sum(self.energy)


def plan_damage_control(
    rating: int,
    energy: Mapping[int, int],
    destroyed_before_turn: Sequence[int],
    *,
    reserve_energy: int = 0,
) -> DamageControlPlan:
    """Validate the Energy Allocation ``{shield: energy}`` for damage control (D9.2).

    ``destroyed_before_turn``: shield boxes destroyed on earlier turns, #1..#6.
    """
    rating = _int("rating", rating, "D9.1")
    if _int("reserve_energy", reserve_energy, "D9.2"):
        raise ValueError("reserve_energy: reserve power cannot go to damage control (D9.2, H7.2)")
    if isinstance(destroyed_before_turn, (str, bytes)) or len(destroyed_before_turn) != N_SHIELDS:
        raise ValueError("destroyed_before_turn: need six counts for shields #1..#6 (D9.2)")
    damaged = [
        _int(f"destroyed_before_turn[{i}]", v, "D9.2") for i, v in enumerate(destroyed_before_turn)
    ]
    per_shield = [0] * N_SHIELDS
    for shield, e in energy.items():
        n = _int("energy shield", shield, "D9.2", 1)
        if n > N_SHIELDS:
            raise ValueError(f"energy: shield #{n} does not exist; shields are 1..6 (D9.2)")
        per_shield[n - 1] += _int(f"energy[{n}]", e, "D9.2")
    total = sum(per_shield)
    if total > rating:
        raise ValueError(f"energy: {total} is above the damage control rating {rating} (D9.2)")
    for i, e in enumerate(per_shield):
        if e // 2 > damaged[i]:
            raise ValueError(
                f"energy[{i + 1}]: {e} would repair {e // 2} boxes but shield #{i + 1} lost only "
                f"{damaged[i]} on earlier turns; no energy in anticipation of damage (D9.2)"
            )
    return DamageControlPlan(rating, tuple(per_shield), tuple(e // 2 for e in per_shield))


def repair_shields(
    shields: Sequence[int], max_shields: Sequence[int], plan: DamageControlPlan
) -> tuple[int, ...]:
    """End of turn: add the plan's repairs, never above a shield's printed boxes (D9.2)."""
    if len(shields) != N_SHIELDS or len(max_shields) != N_SHIELDS:
        raise ValueError("shields/max_shields: need six values for shields #1..#6 (D9.2)")
    out = []
    for i in range(N_SHIELDS):
        now = _int(f"shields[{i}]", shields[i], "D9.2")
        top = _int(f"max_shields[{i}]", max_shields[i], "D9.2")
        if now > top:
            raise ValueError(f"shields[{i}]={now} is above max_shields[{i}]={top} (D9.2)")
        out.append(min(top, now + plan.repairs[i]))
    return tuple(out)
