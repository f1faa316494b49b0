"""The action layout of one agent: MultiDiscrete components, their flat mask and decoding.

``ActionLayout.build(battle, unit, slots)`` says which components an agent has and computes
their offsets once; ``nvec``, ``component_names``, ``describe`` (``env.action_components``),
``mask``, ``reasons`` (``env.mask_reasons``), ``noop`` and ``to_orders`` all walk that list.
``target_slots`` lists the enemy units in play, nearest first (K slots). Each component kind
is declared once, as a ``Component`` class (``env.components``; the energy components in
``env.energy_actions``, the transporters' in ``env.transport_actions``). Masks and refusals
come from the engine's predicates; this module only translates (no rule lives here).

Documented in docs/observation.md ("Action components": every component in action order, its
size and values, the energy components and the masks).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sfb_env.engine import (
    Battle,
    Orders,
    disengagement,
    geometry,
    knowledge,
    ppd_fire,
    probes,
    small_craft,
    suicide_shuttles,
    unit_rules,
)
from sfb_env.engine.phaser_g import SHOTS_PER_TURN
from sfb_env.engine.types import (
    BASIC_MANEUVERS,
    DIRECT_FIRE,
    MAX_WARP_TACTICAL,
    PLASMA_LAUNCHERS,
    PPD_ORDERS,
    UnitKind,
    WeaponType,
)
from sfb_env.env import rule_features
from sfb_env.env.components import (
    Component,
    Craft,
    Decision,
    Disengage,
    Esg,
    Fire,
    GatlingShot,
    Launch,
    ManeuverChoice,
    Ppd,
    Probe,
    Speed,
    Suicide,
    Tractor,
)
from sfb_env.env.energy_actions import EnergyLayout, pad_rows
from sfb_env.env.transport_actions import TransportLayout

__all__ = ["ActionLayout", "EnergyLayout", "IllegalActionError", "N_MANEUVERS",
           "TransportLayout", "craft_components", "maneuver_count", "tactical_plot_count"]

N_MANEUVERS = BASIC_MANEUVERS  # the maneuver component where sideslip and TAC are not in use


def maneuver_count(battle: Battle) -> int:
    """Size of the maneuver component under the scenario's rules: 4, 6 (sideslip) or 8
    (tactical maneuvers; values 4, 5 stay masked without sideslip)."""
    return len(battle.maneuvers)


def tactical_plot_count(battle: Battle) -> int:
    """Extra values of the speed component: TAC plots with 0..4 warp maneuvers, or none."""
    return MAX_WARP_TACTICAL + 1 if battle.rules.tactical_maneuvers else 0


class IllegalActionError(ValueError):
    """An action the mask forbids: names the agent, component, value and rule."""

    def __init__(self, agent: str, component: str, value: int, rule: str) -> None:
        self.agent = agent
        self.component = component
        self.value = value
        self.rule = rule
        super().__init__(f"illegal action for {agent}: {component}={value}: {rule}")


@dataclass
class ActionLayout:
    """Which components one agent's action has (``components``, in action order, with their
    ``offsets`` into the flat mask) and which engine rows they drive."""

    unit: int
    racks: np.ndarray  # weapon rows of drone racks, then plasma launchers (padded: -1)
    weapons: np.ndarray  # weapon rows of direct-fire weapons (padded entries = -1)
    slots: int  # K
    max_speed: int
    maneuvers: int = N_MANEUVERS  # size of the maneuver component (see ``maneuver_count``)
    tactical_plots: int = 0  # TAC plot values after the speeds (see ``tactical_plot_count``)
    esgs: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # weapon
    #   rows of expanding sphere generators (padded entries = -1); none on most ships
    power: EnergyLayout | None = None  # the energy components (rules.energy: cadet only)
    ppds: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # weapon
    #   rows of plasmatic pulsar devices (padded entries = -1); none on most ships (E11)
    ppd_orders: int = PPD_ORDERS  # size of each ``ppd[p]``: 3 with rules.reserve_power (E11.25)
    craft: tuple[tuple[str, int, bool], ...] = ()  # (J4.34, J1.0) the ``fighters`` /
    #   ``shuttles`` components: (name, UnitKind, real); real False = uniform_spaces padding
    plasma_threats: bool = False  # the battle has plasma launchers: the observation carries
    #   the plasma threat block (env.observation)
    disengage: int = 0  # 2 with the ``disengage`` component (SCENARIOS #5), else 0
    probe: int = 0  # PROBE_ORDERS with the ``probe`` component (G5, engine.probes), else 0
    tractors: int = 0  # (G7.0) ``tractor[b]`` components, one per tractor beam (padded)
    transport: TransportLayout | None = None  # (G8.0, G8.24) env.transport_actions
    suicide: bool = False  # (J2.22) the ``suicide`` launch component (rules.suicide_shuttles)
    launch_facing: bool = False  # (FD1.2, rules.launch_facing) ``launch[r]`` with facing values
    rule_features: tuple[str, ...] = ()  # the observation's rule-features sub-blocks
    #   (env.rule_features: reinforcement, damage_control, lock_on, cloak, esg_fields, ...,
    #   enemy_fire)
    gatling: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # weapon
    #   rows of phaser-Gs (padded entries = -1): shots 2..4 of an impulse (E2.151)

    @classmethod
    def build(
        cls, battle: Battle, unit: int, slots: int, n_racks: int | None = None,
        n_weapons: int | None = None, n_esgs: int | None = None,
        pad_power: EnergyLayout | None = None, n_ppds: int | None = None,
        pad_craft: tuple[bool, bool] | None = None, pad_tractors: int | None = None,
        pad_transport: TransportLayout | None = None, n_gatling: int | None = None,
        enemy_fire: bool = False,
    ) -> ActionLayout:
        """Layout for ``unit``; ``n_racks``/``n_weapons``/``n_esgs``/``n_gatling`` pad it
        (uniform spaces); ``enemy_fire``: the observation shows the other ships' fire (the
        env's option)."""
        st = battle.state
        rows = battle.weapons_of(unit)
        rows = rows[st.w_enabled[rows]]
        racks = np.concatenate([rows[st.w_type[rows] == WeaponType.DRONE_RACK],
                                rows[np.isin(st.w_type[rows], PLASMA_LAUNCHERS)]])
        weapons = rows[np.isin(st.w_type[rows], DIRECT_FIRE)]
        gatling = pad_rows(weapons[st.w_type[weapons] == WeaponType.PHG], n_gatling)
        racks = pad_rows(racks, n_racks)
        weapons = pad_rows(weapons, n_weapons)
        esgs = pad_rows(battle.esg_rows(unit), n_esgs)
        ppds = pad_rows(ppd_fire.ppd_rows(battle, unit), n_ppds)
        craft = tuple(
            (name, int(kind), bool(has))
            for (name, kind), has, pad in zip(
                _CRAFT_COMPONENTS, craft_components(battle, unit), pad_craft or (False, False),
                strict=True)
            if has or pad)
        power = EnergyLayout.build(battle, unit, pad_power)
        return cls(unit, racks, weapons, slots, int(battle.rules.max_speed),
                   maneuver_count(battle), tactical_plot_count(battle), esgs, power,
                   gatling=gatling, plasma_threats=bool(battle.rules.plasma_in_play), ppds=ppds,
                   ppd_orders=ppd_fire.order_values(battle), craft=craft,
                   disengage=2 if disengagement.has_component(battle, unit) else 0,
                   probe=probes.PROBE_ORDERS if probes.has_component(battle, unit) else 0,
                   tractors=max(int(battle.tractor_beams[unit]), pad_tractors or 0),
                   transport=TransportLayout.build(battle, unit, slots, pad_transport),
                   suicide=suicide_shuttles.has_component(battle, unit),
                   launch_facing=bool(battle.rules.launch_facing),
                   rule_features=rule_features.names(
                       battle, bool(power and power.reinforce), bool(power and power.repair),
                       enemy_fire))

    def __post_init__(self) -> None:
        self.components = self._declare()
        self._nvec = np.array([c.size for c in self.components], dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self._nvec)[:-1]]).astype(np.int64)
        self.size = int(self._nvec.sum())

    def _declare(self) -> list[Component]:
        """The agent's components, in action order (docs/observation.md, "Action components")."""
        k, u = self.slots, self.unit
        out: list[Component] = [Launch(i, int(r), k, self.launch_facing)
                                for i, r in enumerate(self.racks)]
        out += [Fire(i, int(w), k) for i, w in enumerate(self.weapons)]
        out += [GatlingShot(g, int(w), shot, k) for g, w in enumerate(self.gatling)  # (E2.151)
                for shot in range(2, SHOTS_PER_TURN + 1)]
        out += [Esg(g, int(w)) for g, w in enumerate(self.esgs)]
        out += [Ppd(p, int(w), self.ppd_orders) for p, w in enumerate(self.ppds)]
        out += [Craft(name, kind, real, k, u) for name, kind, real in self.craft]
        if self.disengage:  # (SCENARIOS #5)
            out.append(Disengage(u))
        if self.probe:  # (G5)
            out.append(Probe(u, self.probe))
        out += [Tractor(b, u, k) for b in range(self.tractors)]  # (G7.0)
        if self.transport:  # (G8.0, G8.24)
            out += self.transport.components()
        if self.suicide:  # (J2.22)
            out.append(Suicide(u, k))
        if self.power:  # (B3.0)
            out += self.power.components()
        return [*out, ManeuverChoice(u, self.maneuvers),
                Speed(u, self.max_speed, self.tactical_plots, self.power is not None)]

    @property
    def nvec(self) -> np.ndarray:
        return self._nvec.copy()

    def component_names(self) -> list[str]:
        return [c.name for c in self.components]

    def describe(self, battle: Battle) -> list[dict]:
        """A static description of each component: name, kind, weapon id/type/arcs, size."""
        return [c.describe(battle) for c in self.components]

    def _decision(self, battle: Battle, slots: np.ndarray | None = None,
                  blocked: dict | None = None, ready: dict | None = None) -> Decision:
        slots = np.full(self.slots, -1, dtype=np.int64) if slots is None else slots
        return Decision(battle, self.unit, slots, blocked, self.weapons[self.weapons >= 0],
                        ready)

    # ------------------------------------------------------------------ slots

    def target_slots(self, battle: Battle) -> np.ndarray:
        """Unit rows in target slots 1..K (-1 = empty): enemy units in play, nearest first."""
        st = battle.state
        u = self.unit
        enemy = knowledge.enemies_in_play(battle, u)
        out = np.full(self.slots, -1, dtype=np.int64)
        if len(enemy):
            rng = geometry.table(st).range[u, enemy]  # the impulse's geometry table
            order = enemy[np.lexsort((enemy, rng))][: self.slots]
            out[: len(order)] = order
        return out

    # ------------------------------------------------------------------ masks

    def mask(
        self, battle: Battle, slots: np.ndarray, blocked: dict | None = None,
        ready: dict | None = None,
    ) -> np.ndarray:
        """The flat int8 mask aligned with ``nvec`` (``blocked``: the maneuver blockers,
        ``ready``: ``direct_fire.ready_weapons`` of the direct-fire weapons, if already
        computed). Target slots are filled as a prefix, so slot k <-> position k."""
        if unit_rules.not_arrived(battle, self.unit):  # the no-op only until it arrives
            return self._noop_mask(battle)
        d = self._decision(battle, slots, blocked, ready)
        out = np.zeros(self.size, dtype=np.int8)
        for c, at in zip(self.components, self.offsets, strict=True):
            out[at:at + c.size] = c.mask(d)
        return out

    def _noop_mask(self, battle: Battle) -> np.ndarray:
        """A mask open on the no-op only (a unit that has not arrived, engine.unit_rules)."""
        out = np.zeros(self.size, dtype=np.int8)
        out[self.offsets + self.noop(battle)] = 1
        return out

    def reasons(self, battle: Battle, slots: np.ndarray) -> dict[str, dict[int, str]]:
        """For every masked choice, the rule that forbids it (component -> value -> rule)."""
        if unit_rules.not_arrived(battle, self.unit):  # (engine.unit_rules) the no-op only
            rule = unit_rules.not_arrived_rule(battle, self.unit)
            noop = self.noop(battle)
            return {c.name: {v: rule for v in range(c.size) if v != noop[i]}
                    for i, c in enumerate(self.components)}
        d = self._decision(battle, slots)
        return {c.name: c.reasons(d) for c in self.components}

    # ------------------------------------------------------------------ decoding

    def noop(self, battle: Battle) -> np.ndarray:
        """The no-op: hold everything, the default legal move, keep the speed (the standing
        energy allocation)."""
        d = self._decision(battle)
        return np.array([c.noop(d) for c in self.components], dtype=np.int64)

    def to_orders(self, battle: Battle, action: np.ndarray, slots: np.ndarray) -> Orders:
        """Translate a (legal) action into engine orders."""
        d = self._decision(battle, slots)
        orders = Orders()
        for c, value in zip(self.components, action, strict=True):
            c.to_orders(d, int(value), orders)
        return orders


_CRAFT_COMPONENTS = (("fighters", UnitKind.FIGHTER), ("shuttles", UnitKind.SHUTTLE))


def craft_components(battle: Battle, unit: int) -> tuple[bool, bool]:
    """Whether ``unit`` gets a ``fighters`` and a ``shuttles`` component (J4.0, J1.0)."""
    return tuple(bool(len(small_craft.fighters_of(battle, unit, kind)))
                 for _, kind in _CRAFT_COMPONENTS)
