"""The Energy Allocation components of one agent (``rules.energy``, B3.0; ``engine.energy``).

Present only where the energy rule governs the ship, so every other scenario's action space
is unchanged; in ``ActionLayout`` order after the transporter and suicide components, before
``maneuver``: ``arm[h]`` per heavy weapon, ``capacitor``, ``recharge``, ``cloak`` (ships with
a cloak where the cadet rule allows it), ``reinforce_general``, ``reinforce[s]`` and
``reinforce_hold`` (D3.34, D3.3411), ``repair[s]`` (D9.2), ``reserve_shields`` (H7.1) and
``esg_reserve[g]`` (G23.212) under ``rules.reserve_power``, ``suicide_arm`` (J2.221). Each
component is declared once below (see ``env.components``); ``EnergyLayout`` says which an
agent has and pads them for ``uniform_spaces`` (padded values are closed with a "padding"
reason). Masks and refusals are the engine's predicates; no rule lives here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from sfb_env.engine import Battle, Orders, energy, ppd_fire, suicide_shuttles
from sfb_env.engine.types import ARM_ORDERS, WEAPON_NAMES, ArmOrder
from sfb_env.env.components import Component, Decision


def _standing(d: Decision, value) -> int:
    """The standing allocation's value, or 0 outside Energy Allocation."""
    return value() if energy.allocation_open(d.battle) else 0


@dataclass
class Arm(Component):
    """``arm[h]``: a heavy weapon's ``ArmOrder`` (a PPD's ``PpdArm``, E11.25)."""

    kind: ClassVar[str] = "arm"
    index: int
    row: int  # weapon row (-1: padding)
    size: int

    def __post_init__(self) -> None:
        self.name = f"arm[{self.index}]"

    def reasons(self, d: Decision) -> dict[int, str]:
        if self.row < 0:
            return {v: "uniform_spaces padding: no heavy weapon in this position"
                    for v in range(1, self.size)}
        why = energy.arm_blockers(d.battle, self.row)
        why.update({v: "uniform_spaces padding: beyond this weapon's arm values"
                    for v in range(energy.arm_values(d.battle, self.row), self.size)})
        return why

    def noop(self, d: Decision) -> int:
        if self.row < 0:
            return 0
        return _standing(d, lambda: energy.standing_arm(d.battle, self.row))

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if self.row >= 0 and (energy.allocation_open(d.battle) or value):
            orders.arm[self.row] = int(value)  # outside Allocation the engine refuses it

    def describe(self, battle: Battle) -> dict[str, Any]:
        values = ArmOrder if self.size == ARM_ORDERS else ppd_fire.PpdArm
        out = {**super().describe(battle), "values": [v.name.lower() for v in values]}
        if self.row >= 0:
            out.update(weapon=battle.weapon_ids[self.row],
                       weapon_type=WEAPON_NAMES[int(battle.state.w_type[self.row])])
        return out


@dataclass
class Capacitor(Component):
    """``capacitor``: energy into the phaser capacitor, 0..C (H6.1)."""

    kind: ClassVar[str] = "capacitor"
    unit: int
    size: int
    name: str = "capacitor"

    def reasons(self, d: Decision) -> dict[int, str]:
        why = dict(energy.capacitor_blockers(d.battle, self.unit))
        why.update({k: "uniform_spaces padding: beyond this ship's capacitor values"
                    for k in range(energy.capacitor_values(d.battle, self.unit), self.size)})
        return why

    def noop(self, d: Decision) -> int:
        return _standing(d, lambda: energy.capacitor_room(d.battle, self.unit))

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        orders.capacitor = int(value)

    def describe(self, battle: Battle) -> dict[str, Any]:
        return {**super().describe(battle),
                "capacity": float(battle.state.capacitor_max[self.unit])}


@dataclass
class Recharge(Component):
    """``recharge``: batteries to recharge, 0..B (B3.0 line 16)."""

    kind: ClassVar[str] = "recharge"
    unit: int
    size: int
    name: str = "recharge"

    def reasons(self, d: Decision) -> dict[int, str]:
        why = dict(energy.recharge_blockers(d.battle, self.unit))
        why.update({k: "uniform_spaces padding: beyond this ship's recharge values"
                    for k in range(energy.battery_boxes(d.battle, self.unit) + 1, self.size)})
        return why

    def noop(self, d: Decision) -> int:
        return _standing(d, lambda: energy.empty_batteries(d.battle, self.unit))

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        orders.recharge = int(value)


@dataclass
class Cloak(Component):
    """``cloak``: 1 = cloak for the next turn (G13.0), or announce an (un)cloak (G13)."""

    kind: ClassVar[str] = "cloak"
    unit: int
    size: int = 2
    name: str = "cloak"

    def reasons(self, d: Decision) -> dict[int, str]:
        return energy.cloak_blockers(d.battle, self.unit)

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        orders.cloak = bool(value)


@dataclass
class ReinforceGeneral(Component):
    """``reinforce_general``: general reinforcement points 0..10, 2 energy each (D3.341)."""

    kind: ClassVar[str] = "reinforce_general"
    unit: int
    size: int = energy.REINFORCE_GENERAL_MAX + 1
    name: str = "reinforce_general"

    def reasons(self, d: Decision) -> dict[int, str]:
        return energy.reinforce_general_blockers(d.battle, self.unit)

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        orders.reinforce_general = int(value)


@dataclass
class Reinforce(Component):
    """``reinforce[s]``: specific reinforcement 0..10 on shield #s+1 (D3.342, D3.343)."""

    kind: ClassVar[str] = "reinforce"
    unit: int
    index: int
    size: int = energy.REINFORCE_SPECIFIC_MAX + 1

    def __post_init__(self) -> None:
        self.name = f"reinforce[{self.index}]"

    def reasons(self, d: Decision) -> dict[int, str]:
        return energy.reinforce_blockers(d.battle, self.unit, self.index + 1)

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if value:
            orders.reinforce[self.index + 1] = int(value)


@dataclass
class ReinforceHold(Component):
    """``reinforce_hold``: 0 automatic (general reinforcement active from Energy Allocation),
    1 hold it inactive (Energy Allocation), 2 switch held GR on now (an impulse); D3.3411 note."""

    kind: ClassVar[str] = "reinforce_hold"
    unit: int
    size: int = energy.REINFORCE_HOLD_VALUES
    name: str = "reinforce_hold"

    def reasons(self, d: Decision) -> dict[int, str]:
        return energy.reinforce_hold_blockers(d.battle, self.unit)

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        orders.reinforce_hold = int(value)

    def describe(self, battle: Battle) -> dict[str, Any]:
        return {**super().describe(battle), "values": ["automatic", "hold", "activate"]}


@dataclass
class RepairBoxes(Component):
    """``repair[s]``: shield boxes damage control repairs on shield #s+1 this turn, 2 energy
    each, the rating spread over the shields (D9.2)."""

    kind: ClassVar[str] = "repair"
    unit: int
    index: int
    size: int = energy.REPAIR_BOX_VALUES

    def __post_init__(self) -> None:
        self.name = f"repair[{self.index}]"

    def reasons(self, d: Decision) -> dict[int, str]:
        return energy.repair_box_blockers(d.battle, self.unit, self.index + 1)

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if value:
            orders.repair_boxes[self.index + 1] = int(value)


@dataclass
class ReserveShields(Component):
    """``reserve_shields``: 0 automatic (batteries discharged into a struck shield as needed,
    [P-031]), 1 keep them out of struck shields until the next decision point (H7.1, H7.2)."""

    kind: ClassVar[str] = "reserve_shields"
    unit: int
    size: int = energy.RESERVE_SHIELD_VALUES
    name: str = "reserve_shields"

    def reasons(self, d: Decision) -> dict[int, str]:
        return energy.reserve_shields_blockers(d.battle, self.unit)

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        orders.reserve_shields = int(value)

    def describe(self, battle: Battle) -> dict[str, Any]:
        return {**super().describe(battle), "values": ["automatic", "keep"]}


@dataclass
class EsgReserve(Component):
    """``esg_reserve[g]``: batteries 0..5 discharged into ESG generator g in this impulse,
    stored for its next field, never into the active one (G23.212, H7.1)."""

    kind: ClassVar[str] = "esg_reserve"
    unit: int
    index: int
    row: int  # ESG weapon row (-1: padding)
    size: int = energy.ESG_RESERVE_VALUES

    def __post_init__(self) -> None:
        self.name = f"esg_reserve[{self.index}]"

    def reasons(self, d: Decision) -> dict[int, str]:
        if self.row < 0:
            return {v: "uniform_spaces padding: no ESG in this position"
                    for v in range(1, self.size)}
        return energy.esg_reserve_blockers(d.battle, self.unit, self.row)

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if value and self.row >= 0:
            orders.esg_reserve[self.row] = int(value)

    def describe(self, battle: Battle) -> dict[str, Any]:
        out = super().describe(battle)
        if self.row >= 0:
            out["weapon"] = battle.weapon_ids[self.row]
        return out


@dataclass
class SuicideArm(Component):
    """``suicide_arm``: warp energy into the suicide shuttle's bomb, 1 = hold (J2.221)."""

    kind: ClassVar[str] = "suicide_arm"
    unit: int
    size: int = suicide_shuttles.ARM_VALUES
    name: str = "suicide_arm"

    def reasons(self, d: Decision) -> dict[int, str]:
        return suicide_shuttles.arm_blockers(d.battle, self.unit)

    def noop(self, d: Decision) -> int:  # (J2.221) hold an armed bomb, continue the arming
        return _standing(d, lambda: suicide_shuttles.standing_arm(d.battle, self.unit))

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if energy.allocation_open(d.battle) or value:
            orders.suicide_arm = int(value)


def pad_rows(rows: np.ndarray, n: int | None) -> np.ndarray:
    """``rows`` padded with -1 to ``n`` entries (uniform spaces; None: as they are)."""
    rows = np.asarray(rows, dtype=np.int64)
    if n is None or n <= len(rows):
        return rows
    return np.concatenate([rows, np.full(n - len(rows), -1, dtype=np.int64)])


def _widest_arms(sizes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """Position-wise largest ``arm[h]`` size over ``sizes`` (a missing position counts 3)."""
    n = max((len(s) for s in sizes), default=0)
    return tuple(max((s[h] if h < len(s) else ARM_ORDERS) for s in sizes) for h in range(n))


@dataclass
class EnergyLayout:
    """Which energy components one agent has (``rules.energy``, B3.0), sizes padded for
    ``uniform_spaces``; ``components()`` declares them in action order."""

    unit: int
    heavies: np.ndarray  # weapon rows taking an ArmOrder (padded entries = -1)
    capacitor: int  # size of the capacitor component (0..C)
    recharge: int  # size of the recharge component (0..B)
    cloak: int  # 2 with a cloak component, else 0
    reinforce: bool = False  # reinforce_general + reinforce[0..5] (rules.reinforcement)
    repair: bool = False  # the repair component (rules.damage_control)
    arm_sizes: tuple[int, ...] = ()  # size of each ``arm[h]`` (a PPD's 6, E11.25; else 3)
    suicide: bool = False  # the ``suicide_arm`` component (J2.221, rules.suicide_shuttles)
    reserve: bool = False  # the ``reserve_shields`` component (H7.1, rules.reserve_power)
    esg_reserve: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #   ESG weapon rows taking reserve power (G23.212, rules.reserve_power; padded: -1)

    @classmethod
    def build(cls, battle: Battle, unit: int, pad: EnergyLayout | None = None
              ) -> EnergyLayout | None:
        """The unit's energy components, or None where the form does not govern it; ``pad``
        (the largest over the agents) widens them for uniform spaces."""
        if not energy.governed(battle, unit):
            return None
        cloak = 2 if energy.has_cloak(battle, unit) and energy.cloak_allowed(battle) else 0
        rules = battle.rules
        out = cls(unit, energy.heavy_rows(battle, unit), energy.capacitor_values(battle, unit),
                  energy.battery_boxes(battle, unit) + 1, cloak,
                  battle.rules.standard_energy and bool(rules.reinforcement),
                  battle.rules.standard_energy and bool(rules.damage_control),
                  tuple(energy.arm_values(battle, int(w))
                        for w in energy.heavy_rows(battle, unit)),
                  suicide_shuttles.has_component(battle, unit),
                  battle.rules.standard_energy and bool(rules.reserve_power))
        if out.reserve:  # (G23.212) reserve power into the ship's generators
            out.esg_reserve = np.asarray(battle.esg_rows(unit), dtype=np.int64)
        if pad is not None:
            out.heavies = pad_rows(out.heavies, len(pad.heavies))
            out.arm_sizes = _widest_arms([out.arm_sizes, pad.arm_sizes])
            out.capacitor = max(out.capacitor, pad.capacitor)
            out.recharge = max(out.recharge, pad.recharge)
            out.cloak = max(out.cloak, pad.cloak)
            out.reinforce = out.reinforce or pad.reinforce
            out.repair = out.repair or pad.repair
            out.suicide = out.suicide or pad.suicide
            out.reserve = out.reserve or pad.reserve
            out.esg_reserve = pad_rows(out.esg_reserve, len(pad.esg_reserve))
        return out

    @staticmethod
    def widest(layouts: list[EnergyLayout | None]) -> EnergyLayout | None:
        """The padding covering every layout of ``layouts`` (None if none has energy)."""
        real = [p for p in layouts if p is not None]
        if not real:
            return None
        return EnergyLayout(-1, np.full(max(len(p.heavies) for p in real), -1, np.int64),
                            max(p.capacitor for p in real), max(p.recharge for p in real),
                            max(p.cloak for p in real), any(p.reinforce for p in real),
                            any(p.repair for p in real), _widest_arms([p.arm_sizes for p in real]),
                            any(p.suicide for p in real), any(p.reserve for p in real),
                            np.full(max(len(p.esg_reserve) for p in real), -1, np.int64))

    def arm_values(self) -> tuple[int, ...]:
        """Each ``arm[h]`` size (``ArmOrder``'s 3 where not given)."""
        n = len(self.heavies)
        return tuple(self.arm_sizes[:n]) + (ARM_ORDERS,) * (n - len(self.arm_sizes[:n]))

    def components(self) -> list[Component]:
        """The energy components, in action order."""
        u = self.unit
        out: list[Component] = [Arm(h, int(row), size) for h, (row, size)
                                in enumerate(zip(self.heavies, self.arm_values(), strict=True))]
        out += [Capacitor(u, self.capacitor), Recharge(u, self.recharge)]
        if self.cloak:
            out.append(Cloak(u))
        if self.reinforce:
            out.append(ReinforceGeneral(u))
            out += [Reinforce(u, s) for s in range(energy.N_SHIELDS)]
            out.append(ReinforceHold(u))  # (D3.3411 note) hold general reinforcement inactive
        if self.repair:  # (D9.2) the rating spread over the shields
            out += [RepairBoxes(u, s) for s in range(energy.N_SHIELDS)]
        if self.reserve:  # (H7.1) keep the batteries out of struck shields
            out.append(ReserveShields(u))
        out += [EsgReserve(u, g, int(w)) for g, w in enumerate(self.esg_reserve)]  # (G23.212)
        if self.suicide:  # (J2.221) warp energy into the suicide shuttle's bomb
            out.append(SuicideArm(u))
        return out
