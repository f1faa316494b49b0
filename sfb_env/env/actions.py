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
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import (
    Battle,
    Maneuver,
    Orders,
    disengagement,
    energy,
    knowledge,
    ppd_fire,
    probes,
    small_craft,
    suicide_shuttles,
    tractors,
    unit_rules,
)
from sfb_env.engine.direct_fire import fire_mask
from sfb_env.engine.types import (
    ARM_ORDERS,
    BASIC_MANEUVERS,
    DIRECT_FIRE,
    ESG_ORDERS,
    MAX_WARP_TACTICAL,
    PLASMA_LAUNCHERS,
    PPD_ORDERS,
    WEAPON_NAMES,
    ArmOrder,
    EsgOrder,
    PpdOrder,
    UnitKind,
    WeaponType,
)
from sfb_env.env import rule_features
from sfb_env.env.transport_actions import TransportLayout

N_MANEUVERS = BASIC_MANEUVERS  # the maneuver component where sideslip and TAC are not in use


def maneuver_count(battle: Battle) -> int:
    """Size of the maneuver component under the scenario's rules: 4, 6 (sideslip) or 8
    (tactical maneuvers; values 4, 5 stay masked without sideslip)."""
    return len(battle.maneuvers)


def tactical_plot_count(battle: Battle) -> int:
    """Extra values of the speed component: TAC plots with 0..4 warp maneuvers, or none."""
    return MAX_WARP_TACTICAL + 1 if battle.scenario.rules["tactical_maneuvers"] else 0


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
    """Where each component of one agent's action sits and which engine rows it drives."""

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
        racks = _pad(racks, n_racks)
        weapons = _pad(weapons, n_weapons)
        esgs = _pad(battle.esg_rows(unit), n_esgs)
        ppds = _pad(ppd_fire.ppd_rows(battle, unit), n_ppds)
        craft = tuple(
            (name, int(kind), bool(has))
            for (name, kind), has, pad in zip(
                _CRAFT_COMPONENTS, craft_components(battle, unit), pad_craft or (False, False),
                strict=True)
            if has or pad)
        power = EnergyLayout.build(battle, unit, pad_power)
        return cls(unit, racks, weapons, slots, int(battle.scenario.rules["max_speed"]),
                   maneuver_count(battle), tactical_plot_count(battle), esgs, power,
                   plasma_threats=bool(battle.has_plasma), ppds=ppds,
                   ppd_orders=ppd_fire.order_values(battle), craft=craft,
                   disengage=2 if disengagement.has_component(battle, unit) else 0,
                   probe=probes.PROBE_ORDERS if probes.has_component(battle, unit) else 0,
                   tractors=max(int(battle.tractor_beams[unit]), pad_tractors or 0),
                   transport=TransportLayout.build(battle, unit, slots, pad_transport),
                   suicide=suicide_shuttles.has_component(battle, unit),
                   rule_features=rule_features.names(
                       battle, bool(power and power.reinforce), bool(power and power.repair)))

    def __post_init__(self) -> None:
        self.size = int(self.nvec.sum())

    @property
    def nvec(self) -> np.ndarray:
        k = self.slots + 1
        return np.array(
            [k] * len(self.racks) + [k] * len(self.weapons) + [ESG_ORDERS] * len(self.esgs)
            + [self.ppd_orders] * len(self.ppds) + [k] * len(self.craft)
            + ([self.disengage] if self.disengage else [])
            + ([self.probe] if self.probe else [])
            + [k + 1] * self.tractors
            + (self.transport.nvec() if self.transport else [])
            + ([k] if self.suicide else [])
            + (self.power.nvec() if self.power else [])
            + [self.maneuvers, self.max_speed + 1 + self.tactical_plots],
            dtype=np.int64,
        )

    def component_names(self) -> list[str]:
        return (
            [f"launch[{i}]" for i in range(len(self.racks))]
            + [f"fire[{i}]" for i in range(len(self.weapons))]
            + [f"esg[{g}]" for g in range(len(self.esgs))]
            + [f"ppd[{p}]" for p in range(len(self.ppds))]
            + [name for name, _, _ in self.craft]
            + (["disengage"] if self.disengage else [])
            + (["probe"] if self.probe else [])
            + [f"tractor[{b}]" for b in range(self.tractors)]
            + (self.transport.names() if self.transport else [])
            + (["suicide"] if self.suicide else [])
            + (self.power.names() if self.power else [])
            + ["maneuver", "speed"]
        )

    def describe(self, battle: Battle) -> list[dict]:
        """A static description of each component: name, kind, weapon id/type/arcs, size."""
        st = battle.state
        out = []
        for kind, rows in (("launch", self.racks), ("fire", self.weapons)):
            for i, row in enumerate(rows):
                entry = {"name": f"{kind}[{i}]", "kind": kind, "size": self.slots + 1}
                if row >= 0:
                    entry.update(
                        weapon=battle.weapon_ids[row],
                        weapon_type=WEAPON_NAMES[int(st.w_type[row])],
                        arcs=[a for a, bit in hexmap.ARC_BITS.items()
                              if a in hexmap.BASE_ARCS and st.w_arcs[row] & bit],
                        astern_row=bool(st.w_astern[row]),
                        min_range=int(st.w_min_range[row]),
                        max_range=int(st.w_max_range[row]),
                    )
                out.append(entry)
        for g, row in enumerate(self.esgs):
            entry = {"name": f"esg[{g}]", "kind": "esg", "size": ESG_ORDERS,
                     "values": [v.name.lower() for v in EsgOrder]}
            if row >= 0:
                entry.update(weapon=battle.weapon_ids[row], weapon_type="esg",
                             max_energy=int(st.esg_max[row]))
            out.append(entry)
        for p, row in enumerate(self.ppds):
            entry = {"name": f"ppd[{p}]", "kind": "ppd", "size": self.ppd_orders,
                     "values": [v.name.lower() for v in PpdOrder]
                     + ["top_up"] * (self.ppd_orders - PPD_ORDERS)}
            if row >= 0:
                entry.update(weapon=battle.weapon_ids[row], weapon_type="ppd")
            out.append(entry)
        for name, kind, real in self.craft:
            entry = {"name": name, "kind": name, "size": self.slots + 1}
            if real:
                entry["count"] = len(small_craft.fighters_of(battle, self.unit, kind))
            out.append(entry)
        if self.disengage:
            out.append({"name": "disengage", "kind": "disengage", "size": 2,
                        "values": ["no", "announce"]})
        if self.probe:  # (G5)
            out.append({"name": "probe", "kind": "probe", "size": self.probe,
                        "values": [v.name.lower() for v in probes.ProbeOrder],
                        "probes": int(battle.state.probes_left[self.unit])})
        for b in range(self.tractors):  # (G7.0)
            out.append({"name": f"tractor[{b}]", "kind": "tractor", "size": self.slots + 2,
                        "values": ["hold", "release"]
                        + [f"attach_slot_{k}" for k in range(1, self.slots + 1)],
                        "real": b < int(battle.tractor_beams[self.unit])})
        if self.transport:  # (G8.0, G8.24)
            out += self.transport.describe(battle)
        if self.suicide:  # (J2.22)
            out.append({"name": "suicide", "kind": "suicide", "size": self.slots + 1})
        if self.power:
            out += self.power.describe(battle)
        out.append({"name": "maneuver", "kind": "maneuver", "size": self.maneuvers,
                    "values": [Maneuver(m).name.lower() for m in range(self.maneuvers)]})
        speed = {"name": "speed", "kind": "speed", "size": self.max_speed + 1 + self.tactical_plots}
        if self.tactical_plots:
            speed["values"] = ([f"speed_{v}" for v in range(self.max_speed + 1)]
                               + [f"tactical_{n}" for n in range(self.tactical_plots)])
        out.append(speed)
        return out

    # ------------------------------------------------------------------ slots

    def target_slots(self, battle: Battle) -> np.ndarray:
        """Unit rows in target slots 1..K (-1 = empty): enemy units in play, nearest first."""
        st = battle.state
        u = self.unit
        enemy = knowledge.enemies_in_play(battle, u)
        out = np.full(self.slots, -1, dtype=np.int64)
        if len(enemy):
            rng = hexmap.distance_np(st.x[u], st.z[u], st.x[enemy], st.z[enemy])
            order = enemy[np.lexsort((enemy, rng))][: self.slots]
            out[: len(order)] = order
        return out

    # ------------------------------------------------------------------ masks

    def mask(
        self, battle: Battle, slots: np.ndarray, blocked: dict | None = None
    ) -> np.ndarray:
        """The flat int8 mask aligned with ``nvec`` (``blocked``: the maneuver blockers, if
        already computed). Target slots are filled as a prefix, so slot k <-> position k."""
        if unit_rules.not_arrived(battle, self.unit):  # the no-op only until it arrives
            return self._noop_mask(battle)
        out = np.zeros(self.size, dtype=np.int8)
        width = self.slots + 1
        targets = slots[slots >= 0]
        n = len(targets)
        pos = 0
        for rack in self.racks:
            out[pos] = 1
            if rack >= 0 and n:
                blockers = battle.launch_blockers(int(rack), targets)
                out[pos + 1 : pos + 1 + n] = [b is None for b in blockers]
            pos += width
        real = self.weapons[self.weapons >= 0]
        fm = fire_mask(battle, real) if len(real) and n else None
        j = 0
        for w in self.weapons:
            out[pos] = 1
            if w >= 0:
                if fm is not None:
                    out[pos + 1 : pos + 1 + n] = fm[j, targets]
                j += 1
            pos += width
        for g in self.esgs:
            out[pos] = 1
            if g >= 0:
                closed = battle.esg_blockers(int(g))
                out[pos + 1:pos + ESG_ORDERS] = [v not in closed for v in range(1, ESG_ORDERS)]
            pos += ESG_ORDERS
        for p in self.ppds:
            out[pos] = 1
            if p >= 0:
                closed = ppd_fire.drop_blockers(battle, int(p))
                out[pos + 1:pos + self.ppd_orders] = [v not in closed
                                                      for v in range(1, self.ppd_orders)]
            pos += self.ppd_orders
        for _, kind, real in self.craft:
            out[pos] = 1
            if real and n:
                blockers = battle.fighter_blockers(self.unit, targets, kind)
                out[pos + 1 : pos + 1 + n] = [b is None for b in blockers]
            pos += width
        if self.disengage:  # (SCENARIOS #5) announce disengagement
            out[pos] = 1
            out[pos + 1] = 1 not in disengagement.announce_blockers(battle, self.unit)
            pos += 2
        if self.probe:  # (G5) arm / launch a probe
            closed = probes.order_blockers(battle, self.unit)
            out[pos:pos + self.probe] = [v not in closed for v in range(self.probe)]
            pos += self.probe
        for b in range(self.tractors):  # (G7.0) hold / release / attach at a slot
            out[pos] = 1
            out[pos + 1] = tractors.release_blocker(battle, self.unit, b) is None
            if n:
                blockers = tractors.attach_blockers(battle, self.unit, b, targets)
                out[pos + 2:pos + 2 + n] = [why is None for why in blockers]
            pos += width + 1
        if self.transport:  # (G8.0, G8.24)
            part = self.transport.mask(battle, slots)
            out[pos:pos + len(part)] = part
            pos += len(part)
        if self.suicide:  # (J2.22) launch the armed suicide shuttle at a slot
            out[pos] = 1
            if n:
                blockers = suicide_shuttles.launch_blockers(battle, self.unit, targets)
                out[pos + 1:pos + 1 + n] = [why is None for why in blockers]
            pos += width
        if self.power:
            part = self.power.mask(battle)
            out[pos:pos + len(part)] = part
            pos += len(part)
        if blocked is None:
            blocked = battle.maneuver_blockers(self.unit)
        for m in range(self.maneuvers):
            out[pos + m] = m not in blocked
        pos += self.maneuvers
        out[pos:] = self._speed_mask(battle)
        return out

    def _speed_blockers(self, battle: Battle) -> dict[int, str]:
        """Speed component values -> rule: speeds, then TAC plots (n at max + 1 + n)."""
        out = battle.speed_blockers(self.unit)
        if self.tactical_plots:
            top = self.max_speed + 1
            out.update({top + n: rule
                        for n, rule in battle.tactical_plot_blockers(self.unit).items()})
        return out

    def _speed_mask(self, battle: Battle) -> np.ndarray:
        m = np.ones(self.max_speed + 1 + self.tactical_plots, dtype=np.int8)
        m[list(self._speed_blockers(battle))] = 0
        return m

    def _noop_mask(self, battle: Battle) -> np.ndarray:
        """A mask open on the no-op only (a unit that has not arrived, engine.unit_rules)."""
        out = np.zeros(self.size, dtype=np.int8)
        starts = np.concatenate([[0], np.cumsum(self.nvec)[:-1]])
        out[starts + self.noop(battle)] = 1
        return out

    def reasons(self, battle: Battle, slots: np.ndarray) -> dict[str, dict[int, str]]:
        """For every masked choice, the rule that forbids it (component -> value -> rule)."""
        if unit_rules.not_arrived(battle, self.unit):  # (engine.unit_rules) the no-op only
            rule = unit_rules.not_arrived_rule(battle, self.unit)
            noop = self.noop(battle)
            return {name: {v: rule for v in range(int(size)) if v != noop[i]}
                    for i, (name, size) in enumerate(zip(self.component_names(), self.nvec,
                                                         strict=True))}
        out: dict[str, dict[int, str]] = {}
        names = self.component_names()
        idx = 0
        for kind, rows in (("launch", self.racks), ("fire", self.weapons)):
            check = battle.launch_blockers if kind == "launch" else battle.fire_blockers
            for row in rows:
                why = {}
                for k, t in enumerate(slots, start=1):
                    if row < 0:
                        why[k] = "uniform_spaces padding: no weapon in this position"
                    elif t < 0:
                        why[k] = f"no unit in target slot {k}"
                    else:
                        rule = check(int(row), [int(t)])[0]
                        if rule is not None:
                            why[k] = rule
                out[names[idx]] = why
                idx += 1
        for row in self.esgs:
            if row < 0:
                out[names[idx]] = {v: "uniform_spaces padding: no ESG in this position"
                                   for v in range(1, ESG_ORDERS)}
            else:
                out[names[idx]] = battle.esg_blockers(int(row))
            idx += 1
        for row in self.ppds:
            out[names[idx]] = ({v: "uniform_spaces padding: no PPD in this position"
                                for v in range(1, self.ppd_orders)} if row < 0
                               else ppd_fire.drop_blockers(battle, int(row)))
            idx += 1
        for name, kind, real in self.craft:
            why = {}
            for k, t in enumerate(slots, start=1):
                if not real:
                    why[k] = f"uniform_spaces padding: this ship has no {name}"
                elif t < 0:
                    why[k] = f"no unit in target slot {k}"
                else:
                    rule = battle.fighter_blockers(self.unit, [int(t)], kind)[0]
                    if rule is not None:
                        why[k] = rule
            out[names[idx]] = why
            idx += 1
        if self.disengage:
            out["disengage"] = disengagement.announce_blockers(battle, self.unit)
        if self.probe:
            out["probe"] = probes.order_blockers(battle, self.unit)
        for b in range(self.tractors):  # (G7.0)
            why = {}
            release = tractors.release_blocker(battle, self.unit, b)
            if release is not None:
                why[1] = release
            for k, t in enumerate(slots, start=1):
                rule = (f"no unit in target slot {k}" if t < 0 else
                        tractors.attach_blockers(battle, self.unit, b, [int(t)])[0])
                if rule is not None:
                    why[k + 1] = rule
            out[f"tractor[{b}]"] = why
        if self.transport:  # (G8.0, G8.24)
            out.update(self.transport.reasons(battle, slots))
        if self.suicide:  # (J2.22)
            why = {}
            for k, t in enumerate(slots, start=1):
                rule = (f"no unit in target slot {k}" if t < 0 else
                        suicide_shuttles.launch_blockers(battle, self.unit, [int(t)])[0])
                if rule is not None:
                    why[k] = rule
            out["suicide"] = why
        if self.power:
            out.update(self.power.reasons(battle))
        blocked = battle.maneuver_blockers(self.unit)
        out["maneuver"] = {int(m): rule for m, rule in blocked.items() if m < self.maneuvers}
        out["speed"] = self._speed_blockers(battle)
        return out

    # ------------------------------------------------------------------ decoding

    def noop(self, battle: Battle) -> np.ndarray:
        """The no-op: hold everything, the default legal move, keep the speed."""
        blocked = battle.maneuver_blockers(self.unit)
        maneuver = Maneuver.STRAIGHT if Maneuver.STRAIGHT not in blocked else Maneuver.NONE
        action = np.zeros(len(self.nvec), dtype=np.int64)
        action[-2] = int(maneuver)
        action[-1] = int(np.flatnonzero(self._speed_mask(battle))[0])
        if battle.speed_choice_open():
            action[-1] = int(battle.state.speed[self.unit])
            if self.power and energy.governed(battle, self.unit):
                action[-1] = energy.standing_speed(battle, self.unit)  # (B3.0, E4.2)
        if self.power:
            n = len(self.power.nvec())
            action[-2 - n:-2] = self.power.noop(battle)
        return action

    def to_orders(self, battle: Battle, action: np.ndarray, slots: np.ndarray) -> Orders:
        """Translate a (legal) action into engine orders."""
        orders = Orders(maneuver=Maneuver(int(action[-2])))
        n_r = len(self.racks)
        for i, rack in enumerate(self.racks):
            if action[i] and rack >= 0:
                orders.launch[int(rack)] = int(slots[action[i] - 1])
        for i, w in enumerate(self.weapons):
            a = action[n_r + i]
            if a and w >= 0:
                orders.fire[int(w)] = int(slots[a - 1])
        first = n_r + len(self.weapons)
        for g, row in enumerate(self.esgs):
            if action[first + g] and row >= 0:
                orders.esg[int(row)] = int(action[first + g])
        first += len(self.esgs)
        for p, row in enumerate(self.ppds):
            if action[first + p] and row >= 0:  # (E11.362) drop the wave-lock
                orders.ppd[int(row)] = int(action[first + p])
        first += len(self.ppds)
        for c, (name, _, real) in enumerate(self.craft):
            a = int(action[first + c])
            if a and real:  # (J4.34, J1.0) launch and send the small craft
                setattr(orders, name, int(slots[a - 1]))
        if self.disengage:  # (SCENARIOS #5) announce disengagement
            orders.disengage = bool(action[first + len(self.craft)])
        if self.probe:  # (G5) arm / launch a probe
            orders.probe = int(action[first + len(self.craft) + (1 if self.disengage else 0)])
        at = first + len(self.craft) + (1 if self.disengage else 0) + (1 if self.probe else 0)
        for b in range(self.tractors):  # (G7.0) 1 release, k + 1 attach at slot k
            a = int(action[at + b])
            if a == 1:
                orders.tractor[b] = tractors.RELEASE
            elif a > 1:
                orders.tractor[b] = int(slots[a - 2])
        if self.transport:  # (G8.0, G8.24) energy line, transport[t], drop_shield
            at += self.tractors
            self.transport.to_orders(action[at:at + len(self.transport.nvec())], slots, orders)
        if self.suicide:  # (J2.22) launch the armed suicide shuttle at slot k
            a = int(action[self.component_names().index("suicide")])
            if a:
                orders.suicide = int(slots[a - 1])
        if self.power:
            self.power.to_orders(battle, action[-2 - len(self.power.nvec()):-2], orders)
        speed = int(action[-1])
        if speed > self.max_speed:  # a TAC plot with n warp tactical maneuvers (C5.23)
            orders.tactical = True
            orders.speed = speed - self.max_speed - 1
        elif battle.speed_choice_open() or speed != int(battle.state.speed[self.unit]):
            orders.speed = speed  # outside Energy Allocation the engine refuses a change
        return orders


_CRAFT_COMPONENTS = (("fighters", UnitKind.FIGHTER), ("shuttles", UnitKind.SHUTTLE))


def craft_components(battle: Battle, unit: int) -> tuple[bool, bool]:
    """Whether ``unit`` gets a ``fighters`` and a ``shuttles`` component (J4.0, J1.0)."""
    return tuple(bool(len(small_craft.fighters_of(battle, unit, kind)))
                 for _, kind in _CRAFT_COMPONENTS)


def _pad(rows: np.ndarray, n: int | None) -> np.ndarray:
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
    """The energy components of one agent (``rules.energy: cadet``, B3.0): ``arm[h]`` per heavy
    weapon, ``capacitor``, ``recharge`` and, where used, ``cloak``; sizes padded for
    ``uniform_spaces`` (padded values are masked with a "padding" reason)."""

    unit: int
    heavies: np.ndarray  # weapon rows taking an ArmOrder (padded entries = -1)
    capacitor: int  # size of the capacitor component (0..C)
    recharge: int  # size of the recharge component (0..B)
    cloak: int  # 2 with a cloak component, else 0
    reinforce: bool = False  # reinforce_general + reinforce[0..5] (rules.reinforcement)
    repair: bool = False  # the repair component (rules.damage_control)
    arm_sizes: tuple[int, ...] = ()  # size of each ``arm[h]`` (a PPD's 6, E11.25; else 3)
    suicide: bool = False  # the ``suicide_arm`` component (J2.221, rules.suicide_shuttles)

    @classmethod
    def build(cls, battle: Battle, unit: int, pad: EnergyLayout | None = None
              ) -> EnergyLayout | None:
        """The unit's energy components, or None where the form does not govern it; ``pad``
        (the largest over the agents) widens them for uniform spaces."""
        if not energy.governed(battle, unit):
            return None
        cloak = 2 if energy.has_cloak(battle, unit) and energy.cloak_allowed(battle) else 0
        rules = battle.scenario.rules
        out = cls(unit, energy.heavy_rows(battle, unit), energy.capacitor_values(battle, unit),
                  energy.battery_boxes(battle, unit) + 1, cloak,
                  energy.standard(battle) and bool(rules["reinforcement"]),
                  energy.standard(battle) and bool(rules["damage_control"]),
                  tuple(energy.arm_values(battle, int(w))
                        for w in energy.heavy_rows(battle, unit)),
                  suicide_shuttles.has_component(battle, unit))
        if pad is not None:
            out.heavies = _pad(out.heavies, len(pad.heavies))
            out.arm_sizes = _widest_arms([out.arm_sizes, pad.arm_sizes])
            out.capacitor = max(out.capacitor, pad.capacitor)
            out.recharge = max(out.recharge, pad.recharge)
            out.cloak = max(out.cloak, pad.cloak)
            out.reinforce = out.reinforce or pad.reinforce
            out.repair = out.repair or pad.repair
            out.suicide = out.suicide or pad.suicide
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
                            any(p.suicide for p in real))

    def _extras(self) -> list[tuple[str, int]]:
        """The scenario-10 components (name, size) after the cloak."""
        out = []
        if self.reinforce:
            out.append(("reinforce_general", energy.REINFORCE_GENERAL_MAX + 1))
            out += [(f"reinforce[{s}]", energy.REINFORCE_SPECIFIC_MAX + 1)
                    for s in range(energy.N_SHIELDS)]
        if self.repair:
            out.append(("repair", energy.REPAIR_VALUES))
        if self.suicide:  # (J2.221) warp energy into the suicide shuttle's bomb
            out.append(("suicide_arm", suicide_shuttles.ARM_VALUES))
        return out

    def nvec(self) -> list[int]:
        return ([*self._arm_sizes()] + [self.capacitor, self.recharge]
                + ([self.cloak] if self.cloak else []) + [n for _, n in self._extras()])

    def _arm_sizes(self) -> tuple[int, ...]:
        """Each ``arm[h]`` size (``ArmOrder``'s 3 where not given)."""
        n = len(self.heavies)
        return tuple(self.arm_sizes[:n]) + (ARM_ORDERS,) * (n - len(self.arm_sizes[:n]))

    def names(self) -> list[str]:
        return ([f"arm[{h}]" for h in range(len(self.heavies))] + ["capacitor", "recharge"]
                + (["cloak"] if self.cloak else []) + [name for name, _ in self._extras()])

    def describe(self, battle: Battle) -> list[dict]:
        st = battle.state
        out = []
        for h, (row, size) in enumerate(zip(self.heavies, self._arm_sizes(), strict=True)):
            values = ArmOrder if size == ARM_ORDERS else ppd_fire.PpdArm
            entry = {"name": f"arm[{h}]", "kind": "arm", "size": size,
                     "values": [v.name.lower() for v in values]}
            if row >= 0:
                entry.update(weapon=battle.weapon_ids[row],
                             weapon_type=WEAPON_NAMES[int(st.w_type[row])])
            out.append(entry)
        out.append({"name": "capacitor", "kind": "capacitor", "size": self.capacitor,
                    "capacity": float(st.capacitor_max[self.unit])})
        out.append({"name": "recharge", "kind": "recharge", "size": self.recharge})
        if self.cloak:
            out.append({"name": "cloak", "kind": "cloak", "size": 2})
        out += [{"name": name, "kind": name.split("[")[0], "size": size}
                for name, size in self._extras()]
        return out

    def reasons(self, battle: Battle) -> dict[str, dict[int, str]]:
        """Component name -> masked value -> rule (engine predicates; padding named)."""
        u = self.unit
        out: dict[str, dict[int, str]] = {}
        for h, (row, size) in enumerate(zip(self.heavies, self._arm_sizes(), strict=True)):
            if row < 0:
                out[f"arm[{h}]"] = {v: "uniform_spaces padding: no heavy weapon in this position"
                                    for v in range(1, size)}
                continue
            why = energy.arm_blockers(battle, row)
            why.update({v: "uniform_spaces padding: beyond this weapon's arm values"
                        for v in range(energy.arm_values(battle, int(row)), size)})
            out[f"arm[{h}]"] = why
        for name, blockers, size, own in (
            ("capacitor", energy.capacitor_blockers, self.capacitor,
             energy.capacitor_values(battle, u)),
            ("recharge", energy.recharge_blockers, self.recharge,
             energy.battery_boxes(battle, u) + 1),
        ):
            why = dict(blockers(battle, u))
            why.update({k: f"uniform_spaces padding: beyond this ship's {name} values"
                        for k in range(own, size)})
            out[name] = why
        if self.cloak:
            out["cloak"] = energy.cloak_blockers(battle, u)
        if self.reinforce:
            out["reinforce_general"] = energy.reinforce_general_blockers(battle, u)
            for s in range(energy.N_SHIELDS):
                out[f"reinforce[{s}]"] = energy.reinforce_blockers(battle, u, s + 1)
        if self.repair:
            out["repair"] = energy.repair_blockers(battle, u)
        if self.suicide:
            out["suicide_arm"] = suicide_shuttles.arm_blockers(battle, u)
        return out

    def mask(self, battle: Battle) -> np.ndarray:
        """The flat mask of the energy components (exact per component)."""
        out = np.ones(sum(self.nvec()), dtype=np.int8)
        pos = 0
        reasons = self.reasons(battle)
        for name, size in zip(self.names(), self.nvec(), strict=True):
            for v in reasons[name]:
                out[pos + v] = 0
            pos += size
        return out

    def noop(self, battle: Battle) -> np.ndarray:
        """The standing allocation: continue or hold every weapon, fill the capacitor,
        recharge the batteries, no cloak (all 0 outside Energy Allocation)."""
        out = np.zeros(len(self.nvec()), dtype=np.int64)
        if not energy.allocation_open(battle):
            return out
        for h, row in enumerate(self.heavies):
            if row >= 0:
                out[h] = energy.standing_arm(battle, int(row))
        n = len(self.heavies)
        out[n] = energy.capacitor_room(battle, self.unit)
        out[n + 1] = energy.empty_batteries(battle, self.unit)
        if self.suicide:  # (J2.221) hold an armed bomb, continue an arming chain
            out[self.names().index("suicide_arm")] = suicide_shuttles.standing_arm(battle,
                                                                                   self.unit)
        return out

    def to_orders(self, battle: Battle, action: np.ndarray, orders: Orders) -> None:
        """Write the energy part of ``action`` into ``orders`` (values outside Energy
        Allocation are passed on, so the engine refuses them with the rule)."""
        open_now = energy.allocation_open(battle)
        for h, row in enumerate(self.heavies):
            if row >= 0 and (open_now or action[h]):
                orders.arm[int(row)] = int(action[h])
        n = len(self.heavies)
        orders.capacitor = int(action[n])
        orders.recharge = int(action[n + 1])
        orders.cloak = bool(self.cloak and action[n + 2])
        at = n + 2 + (1 if self.cloak else 0)
        if self.reinforce:  # (D3.341, D3.342) GR points; specific energy per shield
            orders.reinforce_general = int(action[at])
            orders.reinforce = {s + 1: int(action[at + 1 + s])
                                for s in range(energy.N_SHIELDS) if action[at + 1 + s]}
            at += 1 + energy.N_SHIELDS
        if self.repair:  # (D9.2) the shield damage control works on
            orders.repair = int(action[at])
        if self.suicide and (open_now or action[self.names().index("suicide_arm")]):
            orders.suicide_arm = int(action[self.names().index("suicide_arm")])  # (J2.221)
