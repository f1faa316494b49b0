"""The action layout of one agent: MultiDiscrete components, their flat mask and decoding.

Components, in order (``nvec`` in brackets; K = target slots):

=================  ==========  ======================================================
component          values      meaning
=================  ==========  ======================================================
``launch[r]``      K + 1       launcher r (drone racks, then plasma launchers, FP1.3):
                               0 = hold, k = launch at target slot k (a D7/D6: each rack
                               is masked alone; of two ordered on one impulse only the
                               first launches, FD4.21, ``engine.seeking``)
``fire[w]``        K + 1       direct-fire weapon w: 0 = hold, k = fire at slot k (a
                               phaser-G: one of its four shots a turn, so at most one
                               shot per impulse per mount, E2.151)
``esg[g]``         7           expanding sphere generator g (ships with an ESG only): 0 =
                               nothing, 1..4 = announce a release at radius 0..3 (G23.31,
                               G23.41), 5 = cancel the announcement (G23.33), 6 = drop the
                               operating field (G23.47); orders of Launch Seeking Weapons
``arm[h]``         3           heavy weapon h (``rules.energy: cadet`` only, B3.0 line 10:
                               disruptors, photons, fusion beams, plasma launchers, ESGs,
                               PPDs):
                               0 = no energy (let the arming or the charge go), 1 = arm
                               (next step of its cycle; an ESG: top up), 2 = hold a
                               loaded charge, or roll a plasma-S (FP1.22); a PPD's has
                               6 values (``ppd_fire.PpdArm``): 1 arm 4 (E11.21), 2 hold,
                               3 / 4 underload 2 / 3 (E11.25), 5 hold and fill to 8
``capacitor``      C + 1       energy into the phaser capacitor, 0..C (C = its capacity
                               rounded up; H6.1); ``rules.energy: cadet`` only
``recharge``       B + 1       batteries to recharge, 0..B (line 16); energy rule only
``cloak``          2           1 = cloak for the whole next turn (G13.0; ships with a
                               cloak where ``rules.cloak: cadet``); under ``standard``
                               (G13 standard rule) at Energy Allocation 1 pays the cost
                               (after an uncloaked turn: fade-out on impulses 1-4; 0
                               after a cloaked turn fades in on 1-4), and at the other
                               decision points 1 announces an uncloak / a (paid) cloak in
                               that impulse's Cloak/Uncloak step (``engine.cloak``)
``reinforce_       11          general reinforcement points 0..10, 2 energy each (D3.341;
general``                      ``rules.energy: standard`` with ``rules.reinforcement``)
``reinforce[s]``   11          specific reinforcement energy 0..10 on shield #s+1 (D3.342;
                               closed on a down shield, D3.343); same rule switch
``repair``         7           damage control: 0 none, s = repair shield #s, the energy
                               min(rating, 2 x boxes lost before) (D9.2;
                               ``rules.damage_control``)
``maneuver``       4 (6, 8)    the next move: 0 none, 1 straight, 2 turn left, 3 turn right;
                               with ``rules.sideslip`` 4 sideslip left, 5 sideslip right
                               (C4); with ``rules.tactical_maneuvers`` 6 tactical left,
                               7 tactical right (60 degrees in place, C5; size 8)
``ppd[p]``         2           plasmatic pulsar device p (ships with a PPD only): 0 = keep
                               the pulse train going, 1 = drop the wave-lock, every
                               remaining pulse lost (E11.362); open only while pulsing;
                               with ``rules.reserve_power`` 3 values: 2 = top up an armed,
                               under-loaded charge from batteries (E11.25, not E11.24)
``fighters``       K + 1       ships carrying fighters only (the Hydran Ranger, J4.0): 0 =
                               hold, k = launch every fighter aboard (all at once, J4.34)
                               and send all the ship's fighters at target slot k; with
                               none aboard it only retargets those in flight. The fighters
                               fly and fire under the built-in pilot (engine.small_craft)
``shuttles``       K + 1       ships with administrative shuttles (``rules.admin_shuttles``,
                               J1.0) only: 0 = hold, k = launch one shuttle (one per 2
                               impulses) and send all the ship's shuttles at slot k
``disengage``      2           (scenarios with ``rules.disengage_by_announcement`` only,
                               SCENARIOS #5 special) 1 = announce disengagement at the end
                               of this impulse, after its fire: the ship disengages (as if
                               it left the map) and the scenario ends at once; closed at
                               impulse 0 (``engine.disengagement``); placed after
                               ``shuttles``, before the energy components
``probe``          4           (``rules.probes`` with ``energy: standard``; every governed
                               ship, masked where it has no launcher, G5.1) 0 = nothing,
                               1 / 2 = arm an information / anti-matter probe this turn
                               (Energy Allocation; G5.2, G5.32), 3 = launch or fire the
                               armed probe in this impulse's Direct-Fire step (G5.12,
                               G5.33; ``engine.probes``); after ``disengage``
``tractor[b]``     K + 2       (``rules.tractors``, ships with tractor beams, G7.0) beam b:
                               0 = hold (keep the link or stay idle), 1 = release, k + 1 =
                               attach to target slot k in this impulse's Tractor Beams step
                               (``engine.tractors``); after ``probe``
``transporters``,  T + 1,      (``rules.transporters``, ships with TRAN boxes, G8.0) the
``transport[t]``,  2 K + 1,    transporter energy line (standard form), one component
``drop_shield``    7           per transporter (beam a party / lift a crew unit at a
                               slot) and a shield drop (G8.24); ``env.transport_actions``;
                               after ``tractor[b]``
``suicide``        K + 1       (``rules.suicide_shuttles``, ships on the standard form, J2.22)
                               0 = hold, k = launch the armed suicide shuttle at slot k
                               (``engine.suicide_shuttles``); after the transporters
``suicide_arm``    4           (same rule; an energy component, after ``repair``) warp
                               energy 1..3 into the suicide shuttle's bomb this turn, 1 =
                               hold once armed (J2.221), 0 = none (the bomb is lost)
``speed``          max + 1     next turn's speed where the scenario lets the player pick it;
                   (+ 5)       otherwise only the current speed is allowed (a no-op); with
                               ``rules.tactical_maneuvers`` max + 1 + n plots TAC for the
                               next turn with n = 0..4 warp tactical maneuvers (C5.23)
=================  ==========  ======================================================

A phaser-G mount keeps one ``fire`` component like any other weapon: each impulse it may fire
one shot, up to four a turn. One shot an impulse never puts more than I/4 shots in a quarter turn
of I impulses, so the quarter-turn limit (E2.151) binds only on the 32-impulse chart, where the
engine enforces it across the turn break; several shots in one impulse (allowed by E2.151) are
not expressible. Fusion beams (E7) are ``fire`` components; the mask closes them while cooling.

The energy components (``engine.energy``) are present only under ``rules.energy: cadet`` or
``standard`` (the reinforcement and repair components only with their scenario-10 rules), so
every other scenario's space is unchanged. They are read at Energy Allocation (impulse 0 and
the last impulse of a turn, with ``speed``); at other impulses only 0 is open. Each
component's mask is exact on its own (arming, holding, room in the capacitor, empty batteries,
acceleration and movement power for ``speed``); the joint budget is not masked: the engine
pays an over-budget allocation in its documented priority and reports the rest in
``infos[agent]["energy_shortfall"]``. The no-op is the standing allocation: keep the speed if
warp can pay it beside the photon arming, continue or hold every weapon, fill the capacitor,
recharge the batteries, no cloak.

Target slots list the enemy units in play, nearest first (ties: the unit listed first in the
scenario, then drones and plasma torpedoes by unit row). Masks and refusals come from the
engine's predicates; this module only translates (no rule lives here).

Each component kind is declared once, as a ``Component`` class (``env.components``; the energy
components in ``env.energy_actions``, the transporters' in ``env.transport_actions``) with its
size, mask, reasons, no-op, orders and description. ``ActionLayout`` lists an agent's
components in the order above and computes their offsets once; ``nvec``, the names, the flat
mask, ``mask_reasons``, the no-op, the orders and ``action_components`` all walk that list.
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
    rule_features: tuple[str, ...] = ()  # the observation's rule-features sub-blocks
    #   (env.rule_features: reinforcement, damage_control, lock_on, cloak, esg_fields)

    @classmethod
    def build(
        cls, battle: Battle, unit: int, slots: int, n_racks: int | None = None,
        n_weapons: int | None = None, n_esgs: int | None = None,
        pad_power: EnergyLayout | None = None, n_ppds: int | None = None,
        pad_craft: tuple[bool, bool] | None = None, pad_tractors: int | None = None,
        pad_transport: TransportLayout | None = None,
    ) -> ActionLayout:
        """Layout for ``unit``; ``n_racks``/``n_weapons``/``n_esgs`` pad it (uniform spaces)."""
        st = battle.state
        rows = battle.weapons_of(unit)
        rows = rows[st.w_enabled[rows]]
        racks = np.concatenate([rows[st.w_type[rows] == WeaponType.DRONE_RACK],
                                rows[np.isin(st.w_type[rows], PLASMA_LAUNCHERS)]])
        weapons = rows[np.isin(st.w_type[rows], DIRECT_FIRE)]
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
                   plasma_threats=bool(battle.rules.plasma_in_play), ppds=ppds,
                   ppd_orders=ppd_fire.order_values(battle), craft=craft,
                   disengage=2 if disengagement.has_component(battle, unit) else 0,
                   probe=probes.PROBE_ORDERS if probes.has_component(battle, unit) else 0,
                   tractors=max(int(battle.tractor_beams[unit]), pad_tractors or 0),
                   transport=TransportLayout.build(battle, unit, slots, pad_transport),
                   suicide=suicide_shuttles.has_component(battle, unit),
                   rule_features=rule_features.names(
                       battle, bool(power and power.reinforce), bool(power and power.repair)))

    def __post_init__(self) -> None:
        self.components = self._declare()
        self._nvec = np.array([c.size for c in self.components], dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self._nvec)[:-1]]).astype(np.int64)
        self.size = int(self._nvec.sum())

    def _declare(self) -> list[Component]:
        """The agent's components, in action order (see the module docstring)."""
        k, u = self.slots, self.unit
        out: list[Component] = [Launch(i, int(r), k) for i, r in enumerate(self.racks)]
        out += [Fire(i, int(w), k) for i, w in enumerate(self.weapons)]
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
