"""The declared tables through which one rule area calls into others (DESIGN "Inside the
engine"): a rule area never imports the features it serves; this module, above them all, names
the features and their order once, and the Battle facade and the Sequence of Play hand the
tables down.

* ``DAMAGE_HANDLERS``: units that take points their own way, by unit kind (``damage``);
* ``ENERGY_PAYMENTS``: the Energy Allocation clamp's items in priority order (B3.0;
  ``energy_allocation``; the order docs/engine/energy.md describes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sfb_env.engine import (
    damage,
    energy_allocation,
    kill_methods,
    plasma,
    probes,
    small_craft,
    suicide_shuttles,
    tractors,
    transporters,
)
from sfb_env.engine.energy_allocation import Form, PaymentItem
from sfb_env.engine.types import UnitKind

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

#: Units that take damage points their own way (``damage.apply_damage``); every other kind
#: takes them on its shields and DAC.
DAMAGE_HANDLERS: dict[int, damage.DamageHandler] = {
    int(UnitKind.PLASMA): plasma.take_damage,  # (FP1.6) phaser points weaken a plasma torpedo
    int(UnitKind.MONSTER): kill_methods.take_damage,  # (scenario 11) immortal but for research
    int(UnitKind.FIGHTER): small_craft.take_damage,  # (J4.49) no shields
    int(UnitKind.SHUTTLE): small_craft.take_damage,  # (J1.0) no shields
}


def _suicide_bomb(battle: Battle, u: int, form: Form) -> int:
    """Priority 4b: the suicide shuttle's bomb, holding and arming (J2.221)."""
    if not battle.rules.suicide_shuttles:
        return 0
    return suicide_shuttles.allocate(battle, u, form.order, form.purse)


def _tractor_beams(battle: Battle, u: int, form: Form) -> int:
    """Priority 5c (standard form): 1 energy a tractor beam (G7.0)."""
    if not battle.rules.standard_energy:
        return 0
    return tractors.pay(battle, u, form.purse)


def _probes(battle: Battle, u: int, form: Form) -> int:
    """Priority 5d (standard form): probe arming (G5.2, G5.32)."""
    if not (battle.rules.standard_energy and battle.rules.probes_in_play):
        return 0
    return probes.allocate(battle, u, form.order, form.purse)


def _transporters(battle: Battle, u: int, form: Form) -> int:
    """Priority 5e (standard form): 1 energy per 5 transporter uses (G8.0)."""
    if not (battle.rules.standard_energy and battle.rules.transporters):
        return 0
    return transporters.pay_energy(battle, u, form.order, form.purse)


#: The Energy Allocation clamp (B3.0), in priority order: an item that cannot be paid in full is
#: dropped (or partly paid) and the next one is tried. Movement comes first; the ESG item reads
#: the heavy weapons' orders.
ENERGY_PAYMENTS: tuple[PaymentItem, ...] = (
    energy_allocation.pay_movement,  # 1: movement or the TAC plot (C5.12, C5.22; never dropped)
    energy_allocation.pay_systems,  # 1b: life support, fire control, shields (standard form)
    energy_allocation.pay_heavy_weapons,  # 2-4: holding, continuations, new arming
    _suicide_bomb,  # 4b: the suicide shuttle's bomb (J2.221)
    energy_allocation.pay_cloak,  # 5: the cloak (G13.0)
    energy_allocation.pay_repair_and_reinforcement,  # 5a, 5b: damage control, reinforcement
    _tractor_beams,  # 5c: tractor beams (G7.0)
    _probes,  # 5d: probe arming (G5.2)
    _transporters,  # 5e: transporters (G8.0)
    energy_allocation.pay_esg,  # 6: ESG charge
    energy_allocation.pay_capacitor,  # 7: the phaser capacitor
    energy_allocation.pay_recharge,  # 8: battery recharge
)


def install() -> None:
    """Hand the tables that cannot travel as arguments to their rule areas, once (the Battle
    facade does it on import): damage is dealt from every fire and impact step."""
    damage.install_handlers(DAMAGE_HANDLERS)
