"""The transporter components of one agent (``rules.transporters``, G8.0; ``engine.transporters``).

Present only for ships with TRAN boxes in scenarios whose rules enable transporters, so every
other scenario's action space is unchanged. In ``ActionLayout`` order, after ``tractor[b]``:

=================  ==========  ======================================================
component          values      meaning
=================  ==========  ======================================================
``transporters``   T + 1       (``rules.energy: standard`` only) transporter uses to power
                               this turn, 0..T, 1 energy per 5 (G8.0); Energy Allocation
``transport[t]``   2 K + 1     transporter t: 0 = nothing, k = beam one boarding party to
                               target slot k (D7.0), K + k = lift one crew unit from slot k
                               (a planet's survivors, G8.0); Shields/Transporters step
``drop_shield``    7           0 = nothing, s = drop shield #s for 1/4 turn (G8.24), in the
                               same step before the transporters operate
=================  ==========  ======================================================

Each component is declared once below (see ``env.components``); ``TransportLayout`` says
which an agent has and pads them for ``uniform_spaces``. Masks and refusals are the engine's
predicates (``transporters.energy_blockers``, ``component_blockers``, ``drop_blockers``). A
drop opens the ship's end only from the next impulse (the mask is judged before the step). No
rule lives here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from sfb_env.engine import Battle, Orders
from sfb_env.engine import transporters as tr
from sfb_env.engine.types import TransportOrder
from sfb_env.env.components import Component, Decision

DROP_VALUES = tr.N_SHIELDS + 1
PADDING = "uniform_spaces padding: no transporter in this position"


def _real(d: Decision, unit: int) -> int:
    """The unit's transporters on the sheet (0 without transporters)."""
    return tr.sheet_count(d.battle, unit) if tr.has_transporters(d.battle, unit) else 0


@dataclass
class TransporterEnergy(Component):
    """``transporters``: transporter uses to power this turn, 0..T (G8.0)."""

    kind: ClassVar[str] = "transporters"
    unit: int
    size: int
    name: str = "transporters"

    def reasons(self, d: Decision) -> dict[int, str]:
        real = _real(d, self.unit)
        own = real + 1 if tr.paid_by_form(d.battle, self.unit) and real else 1
        why = tr.energy_blockers(d.battle, self.unit) if own > 1 else {}
        why.update({v: PADDING for v in range(own, self.size)})
        return why

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        orders.transporters = int(value)


@dataclass
class Transport(Component):
    """``transport[t]``: 0 nothing, k beam a party to slot k, K + k lift a crew unit (G8.0)."""

    kind: ClassVar[str] = "transport"
    index: int
    unit: int
    slots: int

    def __post_init__(self) -> None:
        self.name, self.size = f"transport[{self.index}]", 2 * self.slots + 1

    def reasons(self, d: Decision) -> dict[int, str]:
        if self.index < _real(d, self.unit):
            return tr.component_blockers(d.battle, self.unit, self.index, d.slots)
        return {v: PADDING for v in range(1, self.size)}

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if value:
            k = self.slots
            what = TransportOrder.BEAM_PARTY if value <= k else TransportOrder.LIFT_CREW
            orders.transport[self.index] = (int(what), int(d.slots[(value - 1) % k]))

    def describe(self, battle: Battle) -> dict[str, Any]:
        k = self.slots
        return {**super().describe(battle),
                "values": ["none"] + [f"beam_party_slot_{i}" for i in range(1, k + 1)]
                + [f"lift_crew_slot_{i}" for i in range(1, k + 1)],
                "real": self.index < tr.sheet_count(battle, self.unit)}


@dataclass
class DropShield(Component):
    """``drop_shield``: 0 nothing, s drop shield #s for 1/4 turn (G8.24)."""

    kind: ClassVar[str] = "drop_shield"
    unit: int
    size: int = DROP_VALUES
    name: str = "drop_shield"

    def reasons(self, d: Decision) -> dict[int, str]:
        if _real(d, self.unit):
            return tr.drop_blockers(d.battle, self.unit)
        return {s: PADDING for s in range(1, DROP_VALUES)}

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        orders.drop_shield = int(value)

    def describe(self, battle: Battle) -> dict[str, Any]:
        return {**super().describe(battle),
                "values": ["none"] + [f"shield_{s}" for s in range(1, DROP_VALUES)]}


@dataclass
class TransportLayout:
    """Sizes of one agent's transporter components (padded for ``uniform_spaces``)."""

    unit: int
    energy: int  # size of the ``transporters`` energy line (T + 1), 0 = none
    count: int  # ``transport[t]`` components (the sheet's TRAN boxes, padded)
    slots: int  # K

    @classmethod
    def build(cls, battle: Battle, unit: int, slots: int,
              pad: TransportLayout | None = None) -> TransportLayout | None:
        """The unit's components, or None without transporters (and no padding)."""
        if not tr.has_transporters(battle, unit):
            if pad is None:
                return None
            return cls(unit, pad.energy, pad.count, slots)
        real = tr.sheet_count(battle, unit)
        out = cls(unit, real + 1 if tr.paid_by_form(battle, unit) else 0, real, slots)
        if pad is not None:
            out.energy, out.count = max(out.energy, pad.energy), max(out.count, pad.count)
        return out

    @staticmethod
    def widest(layouts: list[TransportLayout | None]) -> TransportLayout | None:
        """The padding covering every layout (None if no agent has transporters)."""
        real = [p for p in layouts if p is not None]
        if not real:
            return None
        return TransportLayout(-1, max(p.energy for p in real), max(p.count for p in real),
                               real[0].slots)

    def components(self) -> list[Component]:
        """The transporter components, in action order."""
        out: list[Component] = [TransporterEnergy(self.unit, self.energy)] if self.energy else []
        out += [Transport(t, self.unit, self.slots) for t in range(self.count)]
        return [*out, DropShield(self.unit)]
