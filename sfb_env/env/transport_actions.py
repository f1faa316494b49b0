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

Masks and refusals are the engine's predicates (``transporters.energy_blockers``,
``component_blockers``, ``drop_blockers``). A drop opens the ship's end only from the next
impulse (the mask is judged before the step). No rule lives here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sfb_env.engine import Battle, Orders
from sfb_env.engine import transporters as tr
from sfb_env.engine.types import TransportOrder

DROP_VALUES = tr.N_SHIELDS + 1
PADDING = "uniform_spaces padding: no transporter in this position"


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

    def nvec(self) -> list[int]:
        return (([self.energy] if self.energy else []) + [2 * self.slots + 1] * self.count
                + [DROP_VALUES])

    def names(self) -> list[str]:
        return ((["transporters"] if self.energy else [])
                + [f"transport[{t}]" for t in range(self.count)] + ["drop_shield"])

    def describe(self, battle: Battle) -> list[dict]:
        k = self.slots
        out = []
        if self.energy:
            out.append({"name": "transporters", "kind": "transporters", "size": self.energy})
        for t in range(self.count):
            out.append({"name": f"transport[{t}]", "kind": "transport", "size": 2 * k + 1,
                        "values": ["none"] + [f"beam_party_slot_{i}" for i in range(1, k + 1)]
                        + [f"lift_crew_slot_{i}" for i in range(1, k + 1)],
                        "real": t < tr.sheet_count(battle, self.unit)})
        out.append({"name": "drop_shield", "kind": "drop_shield", "size": DROP_VALUES,
                    "values": ["none"] + [f"shield_{s}" for s in range(1, DROP_VALUES)]})
        return out

    def reasons(self, battle: Battle, slots: np.ndarray) -> dict[str, dict[int, str]]:
        """Component name -> masked value -> rule (engine predicates; padding named)."""
        u = self.unit
        real = tr.sheet_count(battle, u) if tr.has_transporters(battle, u) else 0
        out: dict[str, dict[int, str]] = {}
        if self.energy:
            own = real + 1 if tr.paid_by_form(battle, u) and real else 1
            why = tr.energy_blockers(battle, u) if own > 1 else {}
            why.update({v: PADDING for v in range(own, self.energy)})
            out["transporters"] = why
        for t in range(self.count):
            out[f"transport[{t}]"] = (
                tr.component_blockers(battle, u, t, slots) if t < real
                else {v: PADDING for v in range(1, 2 * self.slots + 1)})
        out["drop_shield"] = (tr.drop_blockers(battle, u) if real
                              else {s: PADDING for s in range(1, DROP_VALUES)})
        return out

    def mask(self, battle: Battle, slots: np.ndarray) -> np.ndarray:
        """The flat mask of the components (exact per component)."""
        out = np.ones(sum(self.nvec()), dtype=np.int8)
        reasons = self.reasons(battle, slots)
        pos = 0
        for name, size in zip(self.names(), self.nvec(), strict=True):
            for v in reasons[name]:
                out[pos + v] = 0
            pos += size
        return out

    def to_orders(self, action: np.ndarray, slots: np.ndarray, orders: Orders) -> None:
        """Write this part of ``action`` into ``orders`` (values passed on for the engine)."""
        at = 0
        if self.energy:
            orders.transporters = int(action[0])
            at = 1
        k = self.slots
        for t in range(self.count):
            a = int(action[at + t])
            if a:
                what = TransportOrder.BEAM_PARTY if a <= k else TransportOrder.LIFT_CREW
                orders.transport[t] = (int(what), int(slots[(a - 1) % k]))
        orders.drop_shield = int(action[at + self.count])
