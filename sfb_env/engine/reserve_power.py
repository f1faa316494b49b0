"""Reserve power: discharging batteries during the turn (H7.0-H7.4), pure and
engine-independent.

* H7.1 a charged battery may be discharged at any moment, 1 energy each; the effect runs from
  then to the end of the turn, never retroactively, never into the next turn.
* H7.2 allowed uses: ``ALLOWED_USES`` (specific shield reinforcement even after a volley is
  rolled and before it is marked, transporters, tractors, single-turn weapons, completing a
  rolling-delay plasma torpedo; CTH-DATA §7.6 adds charging an ESG and topping up a PPD).
* Not allowed: ``FORBIDDEN_USES`` — damage control (D9.2), general reinforcement (H7.2 names
  specific only), starting PPD arming, strengthening an active ESG field, reserve warp (H7.4).
* H7.3 a system still operates no more often than its rules allow: a weapon fires once per
  turn whether from capacitor, allocated energy or batteries.
* Destroyed battery boxes are taken from the discharged ones first (CTH-DATA §7.2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from sfb_env.engine.reinforcement import Reinforcement, ShieldDamage, absorb_volley, add_specific


class ReserveUse(Enum):
    """What battery power is spent on."""

    SPECIFIC_REINFORCEMENT = "specific reinforcement"
    TRANSPORTER = "transporter"
    TRACTOR = "tractor"
    FIRE_WEAPON = "fire weapon"
    ROLLING_DELAY_PLASMA = "rolling-delay plasma"
    ESG_CHARGE = "ESG charge"
    PPD_TOP_UP = "PPD top-up"
    DAMAGE_CONTROL = "damage control"
    GENERAL_REINFORCEMENT = "general reinforcement"
    PPD_START_ARMING = "PPD start arming"
    ESG_STRENGTHEN_FIELD = "ESG strengthen field"
    RESERVE_WARP = "reserve warp"


ALLOWED_USES = frozenset(
    {
        ReserveUse.SPECIFIC_REINFORCEMENT,
        ReserveUse.TRANSPORTER,
        ReserveUse.TRACTOR,
        ReserveUse.FIRE_WEAPON,
        ReserveUse.ROLLING_DELAY_PLASMA,
        ReserveUse.ESG_CHARGE,
        ReserveUse.PPD_TOP_UP,
    }
)
FORBIDDEN_USES: dict[ReserveUse, str] = {
    ReserveUse.DAMAGE_CONTROL: "D9.2",
    ReserveUse.GENERAL_REINFORCEMENT: "H7.2",
    ReserveUse.PPD_START_ARMING: "H7.2, E11.24",
    ReserveUse.ESG_STRENGTHEN_FIELD: "H7.2, G23",
    ReserveUse.RESERVE_WARP: "H7.4",
}


def _int(name: str, value: object, rule: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name}={value!r}: need an int >= {low} ({rule})")
    return int(value)


@dataclass(frozen=True)
class Batteries:
    """Undestroyed battery boxes (1 energy each) and how many of them are charged."""

    boxes: int
    charged: int

    def __post_init__(self) -> None:
        _int("Batteries.boxes", self.boxes, "H7.1")
        _int("Batteries.charged", self.charged, "H7.1")
        if self.charged > self.boxes:
            raise ValueError(
                f"Batteries.charged={self.charged} is above Batteries.boxes={self.boxes} (H7.1)"
            )


@dataclass(frozen=True)
class ReserveTurn:
    """A ship's reserve power within one turn: batteries and the weapons fired (H7.3)."""

    batteries: Batteries
    fired: frozenset[str] = frozenset()  # weapons fired this turn from any source


def discharge(batteries: Batteries, energy: int, use: ReserveUse) -> Batteries:
    """Draw ``energy`` from charged batteries for ``use`` (H7.1, H7.2)."""
    if not isinstance(use, ReserveUse):
        raise ValueError(f"use={use!r}: need a ReserveUse (H7.2)")
    if use in FORBIDDEN_USES:
        rule = FORBIDDEN_USES[use]
        raise ValueError(f"use: reserve power cannot be used for {use.value} ({rule})")
    n = _int("energy", energy, "H7.1")
    if n > batteries.charged:
        raise ValueError(f"energy={n}: only {batteries.charged} batteries are charged (H7.1)")
    return Batteries(batteries.boxes, batteries.charged - n)


def recharge(batteries: Batteries, energy: int) -> Batteries:
    """Energy Allocation: 1 energy refills 1 empty battery (B3.0 line 16)."""
    n = _int("energy", energy, "H7.1")
    if batteries.charged + n > batteries.boxes:
        raise ValueError(
            f"energy={n}: only {batteries.boxes - batteries.charged} batteries are empty (H7.1)"
        )
    return Batteries(batteries.boxes, batteries.charged + n)


def destroy_battery(batteries: Batteries) -> Batteries:
    """A battery box destroyed by damage: an empty one first (CTH-DATA §7.2)."""
    if batteries.boxes == 0:
        raise ValueError("batteries: no battery box left to destroy (D4.21)")
    boxes = batteries.boxes - 1
    return Batteries(boxes, min(batteries.charged, boxes))


def fire_weapon(turn: ReserveTurn, weapon: str, energy: int = 0) -> ReserveTurn:
    """Record ``weapon`` firing this turn, drawing ``energy`` from batteries (0 = capacitor or
    allocated power). A weapon fires once per turn whatever the source (H7.3)."""
    if not isinstance(weapon, str) or not weapon:
        raise ValueError(f"weapon={weapon!r}: need a weapon name (H7.3)")
    if weapon in turn.fired:
        raise ValueError(f"weapon: {weapon} already fired this turn (H7.3)")
    batteries = turn.batteries
    if energy:
        batteries = discharge(batteries, energy, ReserveUse.FIRE_WEAPON)
    else:
        _int("energy", energy, "H7.2")
    return ReserveTurn(batteries, turn.fired | {weapon})


def reinforce_and_absorb(
    turn: ReserveTurn,
    shields: Sequence[int],
    reinforcement: Reinforcement,
    shield: int,
    points: int,
    reserve: int,
) -> tuple[ReserveTurn, ShieldDamage]:
    """A volley of ``points`` on ``shield`` has been rolled; before marking it, discharge
    ``reserve`` energy into that shield as specific reinforcement, then absorb (H7.2, D3.342)."""
    batteries = discharge(turn.batteries, reserve, ReserveUse.SPECIFIC_REINFORCEMENT)
    reinforced = add_specific(reinforcement, shields, shield, reserve)
    return ReserveTurn(batteries, turn.fired), absorb_volley(shields, reinforced, shield, points)


def end_of_turn(turn: ReserveTurn) -> ReserveTurn:
    """Next turn: nothing fired yet; battery charge is kept (H7.1 effects end with the turn)."""
    return ReserveTurn(turn.batteries)
