"""Fractional accounting (B3.2, optional rule of scenario 8 / R8; CTH-DATA §7.3; scenario rule
``fractional_accounting``, default false).

Without it every cost on the Energy Allocation Form rounds up to a whole point, item by item
(1 1/3 -> 2). With it the fractions add up and only the turn total is rounded up; batteries may
hold fractions. Anchor (CTH-DATA §7.3): an Orion Raider moving 10 hexes (6 2/3), one Ph-3 shot
(1/2) and two transporter uses (2 x 1/5 = 2/5) cost 7 + 1 + 1 = 9 points item by item and
7.567 -> 8 with fractions (``form_total``).

The single place where an energy line's cost is charged is ``line_cost``: every fractional
line of the form (movement at a move cost of 2/3 or 1/2; transporters at 1/5 each; tractor
beams cost a whole point each, G7.0) goes through it, and ``form_total`` sums a list of lines
the way the rule says. How the engine applies it (``engine.energy``):

* movement's warp cost is ``line_cost`` of (hexes x move cost): whole points item by item,
  the exact fraction under B3.2;
* under B3.2 the form's pools (warp, impulse, APR, charged batteries) are kept as exact
  fractions, so a fraction left in the warp pool after movement helps pay the next item, and
  batteries discharge only the fraction the form lacks. Unspent ship power is lost at the end
  of the turn (CTH-DATA §7.2), which is the turn total rounded up;
* ``BattleState.battery_fraction`` holds the fraction of a partly discharged battery
  (``batteries`` keeps the whole charged ones, as every other rule reads them; reserve power
  discharges whole batteries, H7.1);
* the phaser capacitor already keeps fractions (H6.1: a Ph-3 shot draws 1/2, a Ph-G 1/4) under
  either setting, so the anchor's Ph-3 line is the capacitor's draw in the engine.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, NamedTuple

from sfb_env.engine.types import Box

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

#: (CTH-DATA §7.3 anchor) energy of one transporter use and of one Ph-3 shot
TRANSPORTER_ENERGY = Fraction(1, 5)
PH3_SHOT_ENERGY = Fraction(1, 2)


class EnergyLine(NamedTuple):
    """One item of the Energy Allocation Form and its exact cost."""

    name: str
    energy: Fraction


def round_line(energy: Fraction | int, fractional: bool) -> Fraction:
    """(B3.2) One line as the form charges it: exact with fractional accounting, else rounded
    up to a whole point (CTH-DATA §7.3)."""
    value = Fraction(energy)
    if value < 0:
        raise ValueError(f"energy={energy}: a form line costs 0 or more (B3.2)")
    return value if fractional else Fraction(math.ceil(value))


def line_cost(battle: Battle, energy: Fraction | int) -> Fraction:
    """(B3.2) The cost of one energy line in ``battle`` (see ``round_line``)."""
    return round_line(energy, battle.rules.fractional_accounting)


def form_total(lines: Iterable[EnergyLine | tuple[str, Fraction]], fractional: bool) -> int:
    """(B3.2) The turn's total in whole points: each line rounded up, or (fractional
    accounting) the exact sum rounded up once."""
    total = sum((round_line(energy, fractional) for _, energy in lines), Fraction(0))
    return math.ceil(total)


def settle_batteries(battle: Battle, unit: int, energy: Fraction) -> None:
    """(B3.2) Store ``energy`` (charged battery energy after the form, exact) as whole charged
    batteries plus the fraction a partly discharged battery holds, capped at the undestroyed
    batteries. PROPOSAL [P-029]: recharging a part-charged battery fills it; what would overfill it
    is lost with the turn's unspent power."""
    st = battle.state
    energy = max(Fraction(0), min(Fraction(energy), Fraction(int(st.boxes[unit, Box.BATTERY]))))
    whole = math.floor(energy)
    st.batteries[unit] = whole
    st.battery_fraction[unit] = float(energy - whole)
