"""Action components, each kind declared once: size, mask, reasons, no-op, orders, description.

A ``Component`` is one entry of an agent's ``MultiDiscrete`` (one value of ``nvec``). Its kind
says, in one class, everything the env needs of it: how many values it has, which are open now
(``mask``) and the rule closing each other one (``reasons``), its no-op, how a value becomes
engine ``Orders`` (``to_orders``) and its static description (``describe``, for
``env.action_components``). ``ActionLayout`` (``env.actions``) is the list of an agent's
components with their offsets, computed once. Masks and reasons come from the engine's
predicates; no rule lives here. The energy components are in ``env.energy_actions``, the
transporter components in ``env.transport_actions``.

A phaser-G has ``fire[w]`` for its first shot of an impulse and ``gatling[g].shot2..shot4`` for
the others (E2.151); each shot component is judged alone (shot k: k shots left).

Target slots: value k (1..K) of a slot component means target slot k; slots are filled as a
prefix, so the first n values after 0 are the n units in the slots.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import (
    Battle,
    Maneuver,
    Orders,
    disengagement,
    energy,
    ppd_fire,
    probes,
    small_craft,
    suicide_shuttles,
    tractors,
)
from sfb_env.engine.direct_fire import fire_mask, gatling_shot_blocker
from sfb_env.engine.types import ESG_ORDERS, PPD_ORDERS, WEAPON_NAMES, EsgOrder, PpdOrder

NO_WEAPON = "uniform_spaces padding: no weapon in this position"


@dataclass
class Decision:
    """One decision point of one agent: what its components' masks, reasons and orders read.

    ``slots``: the target slots' unit rows (-1 empty); ``blocked``: the maneuver blockers, if
    already computed; ``fire_rows``: the agent's direct-fire weapon rows (for one vectorised
    fire mask, ``engine.direct_fire.fire_mask``)."""

    battle: Battle
    unit: int
    slots: np.ndarray
    blocked: dict | None = None
    fire_rows: np.ndarray | None = None
    ready: dict[int, bool] | None = None  # weapon row -> may fire this impulse, if computed

    @cached_property
    def targets(self) -> np.ndarray:
        """Unit rows of the filled slots (slot k at position k - 1)."""
        return self.slots[self.slots >= 0]

    @cached_property
    def maneuver_blockers(self) -> dict:
        """The maneuver blockers (computed here if not given)."""
        if self.blocked is None:
            return self.battle.maneuver_blockers(self.unit)
        return self.blocked

    @cached_property
    def fire_mask(self) -> dict[int, np.ndarray]:
        """Direct-fire weapon row -> bool (U,): may it fire at each unit now."""
        rows = np.asarray(self.fire_rows if self.fire_rows is not None else [], dtype=np.int64)
        if not len(rows) or not len(self.targets):
            return {}
        table = fire_mask(self.battle, rows, self.ready)
        return {int(w): table[j] for j, w in enumerate(rows)}


class Component:
    """One action component (see the module docstring). Subclasses set ``kind``, ``name``
    and ``size`` and override what differs from the defaults: no reasons, a mask open
    wherever no reason closes a value, the no-op 0, no orders."""

    kind: ClassVar[str] = ""
    name: str
    size: int

    def reasons(self, d: Decision) -> dict[int, str]:
        """Closed value -> the rule that closes it (engine predicates; padding named)."""
        return {}

    def mask(self, d: Decision) -> np.ndarray:
        """int8 (size,): 1 where the value is open now."""
        out = np.ones(self.size, dtype=np.int8)
        for v in self.reasons(d):
            out[v] = 0
        return out

    def noop(self, d: Decision) -> int:
        """The value that changes nothing (the standing order)."""
        return 0

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        """Write ``value`` into ``orders``."""

    def describe(self, battle: Battle) -> dict[str, Any]:
        """Static description: name, kind, size and what the values mean."""
        return {"name": self.name, "kind": self.kind, "size": self.size}


def slot_reasons(d: Decision, blocker, offset: int = 1) -> dict[int, str]:
    """Value ``k + offset - 1`` -> rule for each target slot k that ``blocker(target)`` (rule or
    None) closes, or that is empty."""
    why = {}
    for k, t in enumerate(d.slots, start=1):
        rule = f"no unit in target slot {k}" if t < 0 else blocker(int(t))
        if rule is not None:
            why[k + offset - 1] = rule
    return why


def open_slots(size: int, first: int, open_: list[bool] | np.ndarray | None) -> np.ndarray:
    """A mask with value 0 open and ``open_`` (per filled slot) from value ``first``."""
    out = np.zeros(size, dtype=np.int8)
    out[0] = 1
    if open_ is not None and len(open_):
        out[first:first + len(open_)] = open_
    return out


def _weapon_entry(battle: Battle, row: int) -> dict[str, Any]:
    st = battle.state
    return dict(weapon=battle.weapon_ids[row], weapon_type=WEAPON_NAMES[int(st.w_type[row])],
                arcs=[a for a, bit in hexmap.ARC_BITS.items()
                      if a in hexmap.BASE_ARCS and st.w_arcs[row] & bit],
                astern_row=bool(st.w_astern[row]), min_range=int(st.w_min_range[row]),
                max_range=int(st.w_max_range[row]))


# ---------------------------------------------------------------------- seeking and direct fire


@dataclass
class Launch(Component):
    """``launch[r]``: a drone rack or plasma launcher (FP1.3): 0 hold, k launch at slot k with
    the engine's facing; with ``rules.launch_facing`` also K + 6 (k - 1) + f + 1: launch at
    slot k facing f (0..5, A..F), open where the target is in the drone's FA (FD1.2)."""

    kind: ClassVar[str] = "launch"
    index: int
    row: int  # weapon row (-1: uniform_spaces padding)
    slots: int
    facings: bool = False  # (FD1.2) the facing values (rules.launch_facing)

    def __post_init__(self) -> None:
        self.name = f"launch[{self.index}]"
        self.size = self.slots + 1 + (6 * self.slots if self.facings else 0)

    def value(self, k: int, facing: int) -> int:
        """The value launching at slot k facing ``facing`` (FD1.2)."""
        return self.slots + 6 * (k - 1) + facing + 1

    def mask(self, d: Decision) -> np.ndarray:
        ok = None
        if self.row >= 0 and len(d.targets):
            ok = [b is None for b in d.battle.launch_blockers(self.row, d.targets)]
        out = open_slots(self.size, 1, ok)
        if self.facings and ok is not None:
            for k, (t, open_) in enumerate(zip(d.targets, ok, strict=True), start=1):
                for f in range(6):
                    out[self.value(k, f)] = open_ and d.battle.launch_facing_blocker(
                        self.row, int(t), f) is None
        return out

    def reasons(self, d: Decision) -> dict[int, str]:
        if self.row < 0:
            return {k: NO_WEAPON for k in range(1, len(d.slots) * (7 if self.facings else 1) + 1)}
        why = slot_reasons(d, lambda t: d.battle.launch_blockers(self.row, [t])[0])
        if self.facings:
            for k, t in enumerate(d.slots, start=1):
                for f in range(6):
                    rule = why.get(k) or d.battle.launch_facing_blocker(self.row, int(t), f)
                    if rule is not None:
                        why[self.value(k, f)] = rule
        return why

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if value and self.row >= 0:
            k, facing = (value, None) if value <= self.slots else (
                (value - self.slots - 1) // 6 + 1, (value - self.slots - 1) % 6)
            orders.launch[self.row] = int(d.slots[k - 1])
            if facing is not None:  # (FD1.2) the owner's facing
                orders.launch_facing[self.row] = facing

    def describe(self, battle: Battle) -> dict[str, Any]:
        out = super().describe(battle)
        if self.facings:
            out["facings"] = [hexmap.DIRECTION_LETTERS[f] for f in range(6)]
        if self.row >= 0:
            out.update(_weapon_entry(battle, self.row))
        return out


@dataclass
class Fire(Launch):
    """``fire[w]``: a direct-fire weapon (E1): 0 hold, k fire at slot k."""

    kind: ClassVar[str] = "fire"

    def __post_init__(self) -> None:
        self.name, self.size = f"fire[{self.index}]", self.slots + 1

    def mask(self, d: Decision) -> np.ndarray:
        table = d.fire_mask.get(self.row) if self.row >= 0 else None
        return open_slots(self.size, 1, None if table is None else table[d.targets])

    def reasons(self, d: Decision) -> dict[int, str]:
        if self.row < 0:
            return {k: NO_WEAPON for k in range(1, len(d.slots) + 1)}
        return slot_reasons(d, lambda t: d.battle.fire_blockers(self.row, [t])[0])

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if value and self.row >= 0:
            orders.fire[self.row] = int(d.slots[value - 1])


@dataclass
class GatlingShot(Component):
    """``gatling[g].shot{k}``: shot k (2..4) of phaser-G g in this impulse, after its
    ``fire[w]`` shot (E2.151): 0 hold, j fire at slot j. Open while k shots are left."""

    kind: ClassVar[str] = "gatling"
    index: int  # the ship's g-th phaser-G
    row: int  # weapon row (-1: uniform_spaces padding)
    shot: int  # 2..4
    slots: int

    def __post_init__(self) -> None:
        self.name, self.size = f"gatling[{self.index}].shot{self.shot}", self.slots + 1

    def mask(self, d: Decision) -> np.ndarray:
        table = None
        if self.row >= 0 and gatling_shot_blocker(d.battle, self.row, self.shot) is None:
            table = d.fire_mask.get(self.row)  # the same targets as its first shot
        return open_slots(self.size, 1, None if table is None else table[d.targets])

    def reasons(self, d: Decision) -> dict[int, str]:
        if self.row < 0:
            return {k: "uniform_spaces padding: no phaser-G in this position"
                    for k in range(1, len(d.slots) + 1)}
        return slot_reasons(d, lambda t: d.battle.fire_blockers(self.row, [t], self.shot)[0])

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if value and self.row >= 0:
            orders.gatling.setdefault(self.row, {})[self.shot] = int(d.slots[value - 1])

    def describe(self, battle: Battle) -> dict[str, Any]:
        out = {**super().describe(battle), "shot": self.shot}
        if self.row >= 0:
            out.update(_weapon_entry(battle, self.row))
        return out


@dataclass
class Esg(Component):
    """``esg[g]``: an expanding sphere generator's ``EsgOrder`` (G23.3)."""

    kind: ClassVar[str] = "esg"
    index: int
    row: int  # weapon row (-1: padding)

    def __post_init__(self) -> None:
        self.name, self.size = f"esg[{self.index}]", ESG_ORDERS

    def _closed(self, d: Decision) -> dict[int, str]:
        return d.battle.esg_blockers(self.row)

    def _padding(self) -> str:
        return "uniform_spaces padding: no ESG in this position"

    def mask(self, d: Decision) -> np.ndarray:
        out = np.zeros(self.size, dtype=np.int8)
        out[0] = 1
        if self.row >= 0:
            closed = self._closed(d)
            out[1:] = [v not in closed for v in range(1, self.size)]
        return out

    def reasons(self, d: Decision) -> dict[int, str]:
        if self.row < 0:
            return {v: self._padding() for v in range(1, self.size)}
        return self._closed(d)

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if value and self.row >= 0:
            orders.esg[self.row] = int(value)

    def describe(self, battle: Battle) -> dict[str, Any]:
        out = {**super().describe(battle), "values": [v.name.lower() for v in EsgOrder]}
        if self.row >= 0:
            out.update(weapon=battle.weapon_ids[self.row], weapon_type="esg",
                       max_energy=int(battle.state.esg_max[self.row]))
        return out


@dataclass
class Ppd(Esg):
    """``ppd[p]``: a plasmatic pulsar device's ``PpdOrder`` (E11.362; top up, E11.25)."""

    kind: ClassVar[str] = "ppd"
    values: int = PPD_ORDERS  # 3 with rules.reserve_power

    def __post_init__(self) -> None:
        self.name, self.size = f"ppd[{self.index}]", self.values

    def _closed(self, d: Decision) -> dict[int, str]:
        return ppd_fire.drop_blockers(d.battle, self.row)

    def _padding(self) -> str:
        return "uniform_spaces padding: no PPD in this position"

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if value and self.row >= 0:  # (E11.362) drop the wave-lock
            orders.ppd[self.row] = int(value)

    def describe(self, battle: Battle) -> dict[str, Any]:
        out = {"name": self.name, "kind": self.kind, "size": self.size,
               "values": [v.name.lower() for v in PpdOrder] + ["top_up"] * (self.size - PPD_ORDERS)}
        if self.row >= 0:
            out.update(weapon=battle.weapon_ids[self.row], weapon_type="ppd")
        return out


# ---------------------------------------------------------------------- small craft and orders


@dataclass
class Craft(Component):
    """``fighters`` / ``shuttles`` (J4.34, J1.0): 0 hold, k launch and send them at slot k."""

    name: str
    craft: int  # UnitKind of the craft
    real: bool  # False: uniform_spaces padding
    slots: int
    unit: int

    def __post_init__(self) -> None:
        self.size = self.slots + 1

    @property
    def kind(self) -> str:  # type: ignore[override]
        return self.name

    def mask(self, d: Decision) -> np.ndarray:
        ok = None
        if self.real and len(d.targets):
            ok = [b is None for b in d.battle.fighter_blockers(self.unit, d.targets, self.craft)]
        return open_slots(self.size, 1, ok)

    def reasons(self, d: Decision) -> dict[int, str]:
        if not self.real:
            return {k: f"uniform_spaces padding: this ship has no {self.name}"
                    for k in range(1, len(d.slots) + 1)}
        return slot_reasons(d, lambda t: d.battle.fighter_blockers(self.unit, [t],
                                                                   self.craft)[0])

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if value and self.real:  # (J4.34, J1.0) launch and send the small craft
            setattr(orders, self.name, int(d.slots[value - 1]))

    def describe(self, battle: Battle) -> dict[str, Any]:
        out = super().describe(battle)
        if self.real:
            out["count"] = len(small_craft.fighters_of(battle, self.unit, self.craft))
        return out


@dataclass
class Disengage(Component):
    """``disengage`` (SCENARIOS #5): 1 announce disengagement at the end of this impulse."""

    kind: ClassVar[str] = "disengage"
    unit: int
    name: str = "disengage"
    size: int = 2

    def mask(self, d: Decision) -> np.ndarray:
        return np.array([1, 1 not in self.reasons(d)], dtype=np.int8)

    def reasons(self, d: Decision) -> dict[int, str]:
        return disengagement.announce_blockers(d.battle, self.unit)

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        orders.disengage = bool(value)

    def describe(self, battle: Battle) -> dict[str, Any]:
        return {**super().describe(battle), "values": ["no", "announce"]}


@dataclass
class Probe(Component):
    """``probe`` (G5): 0 nothing, 1 / 2 arm an information / anti-matter probe, 3 launch."""

    kind: ClassVar[str] = "probe"
    unit: int
    size: int = probes.PROBE_ORDERS
    name: str = "probe"

    def mask(self, d: Decision) -> np.ndarray:
        closed = self.reasons(d)
        return np.array([v not in closed for v in range(self.size)], dtype=np.int8)

    def reasons(self, d: Decision) -> dict[int, str]:
        return probes.order_blockers(d.battle, self.unit)

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        orders.probe = int(value)

    def describe(self, battle: Battle) -> dict[str, Any]:
        return {**super().describe(battle),
                "values": [v.name.lower() for v in probes.ProbeOrder],
                "probes": int(battle.state.probes_left[self.unit])}


@dataclass
class Tractor(Component):
    """``tractor[b]`` (G7.0): 0 hold, 1 release, k + 1 attach to slot k."""

    kind: ClassVar[str] = "tractor"
    index: int
    unit: int
    slots: int

    def __post_init__(self) -> None:
        self.name, self.size = f"tractor[{self.index}]", self.slots + 2

    def mask(self, d: Decision) -> np.ndarray:
        ok = None
        if len(d.targets):
            ok = [why is None for why in tractors.attach_blockers(d.battle, self.unit,
                                                                  self.index, d.targets)]
        out = open_slots(self.size, 2, ok)
        out[1] = tractors.release_blocker(d.battle, self.unit, self.index) is None
        return out

    def reasons(self, d: Decision) -> dict[int, str]:
        why = {}
        release = tractors.release_blocker(d.battle, self.unit, self.index)
        if release is not None:
            why[1] = release
        why.update(slot_reasons(d, lambda t: tractors.attach_blockers(
            d.battle, self.unit, self.index, [t])[0], offset=2))
        return why

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if value == 1:
            orders.tractor[self.index] = tractors.RELEASE
        elif value > 1:
            orders.tractor[self.index] = int(d.slots[value - 2])

    def describe(self, battle: Battle) -> dict[str, Any]:
        return {**super().describe(battle),
                "values": ["hold", "release"]
                + [f"attach_slot_{k}" for k in range(1, self.slots + 1)],
                "real": self.index < int(battle.tractor_beams[self.unit])}


@dataclass
class Suicide(Component):
    """``suicide`` (J2.22): 0 hold, k launch the armed suicide shuttle at slot k."""

    kind: ClassVar[str] = "suicide"
    unit: int
    slots: int
    name: str = "suicide"

    def __post_init__(self) -> None:
        self.size = self.slots + 1

    def mask(self, d: Decision) -> np.ndarray:
        ok = None
        if len(d.targets):
            ok = [why is None for why in suicide_shuttles.launch_blockers(d.battle, self.unit,
                                                                          d.targets)]
        return open_slots(self.size, 1, ok)

    def reasons(self, d: Decision) -> dict[int, str]:
        return slot_reasons(d, lambda t: suicide_shuttles.launch_blockers(
            d.battle, self.unit, [t])[0])

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        if value:
            orders.suicide = int(d.slots[value - 1])


# ---------------------------------------------------------------------- movement


@dataclass
class ManeuverChoice(Component):
    """``maneuver``: the next move (C3; sideslip C4; tactical maneuvers C5)."""

    kind: ClassVar[str] = "maneuver"
    unit: int
    size: int
    name: str = "maneuver"

    def mask(self, d: Decision) -> np.ndarray:
        blocked = d.maneuver_blockers
        return np.array([m not in blocked for m in range(self.size)], dtype=np.int8)

    def reasons(self, d: Decision) -> dict[int, str]:
        blocked = d.battle.maneuver_blockers(self.unit)
        return {int(m): rule for m, rule in blocked.items() if m < self.size}

    def noop(self, d: Decision) -> int:
        blocked = d.battle.maneuver_blockers(self.unit)
        return int(Maneuver.STRAIGHT if Maneuver.STRAIGHT not in blocked else Maneuver.NONE)

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        orders.maneuver = Maneuver(int(value))

    def describe(self, battle: Battle) -> dict[str, Any]:
        return {**super().describe(battle),
                "values": [Maneuver(m).name.lower() for m in range(self.size)]}


@dataclass
class Speed(Component):
    """``speed``: next turn's speed 0..max (C2), then TAC plots with n warp maneuvers (C5.23)."""

    kind: ClassVar[str] = "speed"
    unit: int
    max_speed: int
    tactical_plots: int
    allocation: bool  # the energy components govern the ship (the standing speed, B3.0)
    name: str = "speed"

    def __post_init__(self) -> None:
        self.size = self.max_speed + 1 + self.tactical_plots

    def reasons(self, d: Decision) -> dict[int, str]:
        out = d.battle.speed_blockers(self.unit)
        if self.tactical_plots:
            top = self.max_speed + 1
            out.update({top + n: rule
                        for n, rule in d.battle.tactical_plot_blockers(self.unit).items()})
        return out

    def mask(self, d: Decision) -> np.ndarray:
        out = np.ones(self.size, dtype=np.int8)
        out[list(self.reasons(d))] = 0
        return out

    def noop(self, d: Decision) -> int:
        battle = d.battle
        first_open = int(np.flatnonzero(self.mask(d))[0])
        if not battle.speed_choice_open():
            return first_open
        if self.allocation and energy.governed(battle, self.unit):
            return energy.standing_speed(battle, self.unit)  # (B3.0, E4.2)
        return int(battle.state.speed[self.unit])

    def to_orders(self, d: Decision, value: int, orders: Orders) -> None:
        battle = d.battle
        if value > self.max_speed:  # a TAC plot with n warp tactical maneuvers (C5.23)
            orders.tactical = True
            orders.speed = value - self.max_speed - 1
        elif battle.speed_choice_open() or value != int(battle.state.speed[self.unit]):
            orders.speed = int(value)  # outside Energy Allocation the engine refuses a change

    def describe(self, battle: Battle) -> dict[str, Any]:
        out = super().describe(battle)
        if self.tactical_plots:
            out["values"] = ([f"speed_{v}" for v in range(self.max_speed + 1)]
                             + [f"tactical_{n}" for n in range(self.tactical_plots)])
        return out
