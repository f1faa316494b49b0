"""Energy Allocation rule switches (B3.0): which form the scenario uses, which units it governs,
when it is open, what it charges every turn (docs/engine/energy.md describes the form)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sfb_env.engine.types import K_SHIP

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

#: (B3.0 standard lines 7, 8, 11; CTH-DATA §7.1, §9.2) energy every turn, in payment order.
STANDARD_SYSTEMS = (("life support", 1), ("fire control", 1), ("shields", 2))
CADET_AMONG_FULL_SYSTEMS = (("shields", 1),)  # (SCENARIOS #12) no life support, fire control
NOT_NOW = "B3.0 energy is allocated only at Energy Allocation (impulse 0 and the last impulse)"


def cadet_among_full(battle: Battle, unit: int) -> bool:
    """A cadet ship on the standard form (scenario 12): move cost 1/2, shields 1 (SCENARIOS #12)."""
    ship = battle.ship_classes[unit]
    return battle.rules.standard_energy and ship is not None and ship.kind == "cadet"


def system_costs(battle: Battle, unit: int) -> tuple[tuple[str, int], ...]:
    """The standard form's fixed items for ``unit`` (none on the cadet form)."""
    if not battle.rules.standard_energy:
        return ()
    return CADET_AMONG_FULL_SYSTEMS if cadet_among_full(battle, unit) else STANDARD_SYSTEMS


def governed(battle: Battle, unit: int) -> bool:
    """Whether ``unit``'s energy is allocated on the form: a ship a player commands."""
    return (battle.rules.energy_form and battle.controllers[unit] == "agent"
            and int(battle.state.kind[unit]) == K_SHIP)


def allocation_open(battle: Battle) -> bool:
    """Whether orders now allocate the next turn's energy (impulse 0 and the last impulse)."""
    st = battle.state
    return battle.rules.energy_form and st.impulse in (0, st.impulses_per_turn)


def allocation_turn(battle: Battle) -> int:
    """The turn the allocation now open is for."""
    st = battle.state
    return st.turn if st.impulse == 0 else st.turn + 1


def has_cloak(battle: Battle, unit: int) -> bool:
    """Whether the ship carries a cloaking device (G13.0). PROPOSAL [P-032]: the Orions' optional
    cloak (CTH-DATA §8.2) counts wherever ``rules.cloak`` is in force."""
    ship = battle.ship_classes[unit]
    return ship is not None and bool(getattr(ship, "cloak_cost", None))


def cloak_allowed(battle: Battle) -> bool:
    """Whether a scenario rule lets cloaks be used (``rules.cloak``: ``cadet`` or ``standard``;
    under the standard rule the same order is the turn-to-turn decision, G13, ``engine.cloak``)."""
    value = battle.rules.cloak
    return value in ("cadet", "standard")


def fire_control_blocker(battle: Battle, unit: int) -> str | None:
    """PROPOSAL [P-028] (docs/engine/energy.md): a ship whose fire control went unpaid neither
    fires nor launches this turn (B3.0 standard line 8)."""
    if battle.state.fire_control[unit] or not governed(battle, unit):
        return None
    return "B3.0 line 8: fire control was not paid this turn: no fire, no launch (PROPOSAL)"  # [P-028]  # noqa: E501
