"""``Battle``: a scenario's units compiled into a ``BattleState``, its seeded dice and event log.

The order of play lives in ``procedure.py``; this module builds the state (the scenario is the
generator), answers questions about it (labels, weapons of a unit, legal orders) and validates
orders with the same predicates the env's masks use.

Usage::

    battle = make_battle("cth-03", seed=7)
    while not battle.done:
        orders = {u: Orders(maneuver=...) for u in battle.agent_units()}
        battle.step(orders)
    battle.outcome, battle.events
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from sfb_env import hexmap, impulse, tables
from sfb_env.data.ships import ShipClass, load_ship
from sfb_env.engine import (
    boarding,
    damage,
    energy,
    esg_field,
    legality,
    movement,
    planet_killer,
    planets,
    plasma,
    ppd,
    ppd_fire,
    procedure,
    rule_tables,
    small_craft,
    suicide_shuttles,
    tractors,
    transporters,
    unit_rules,
)
from sfb_env.engine.events import Event
from sfb_env.engine.scenario import Scenario, load_scenario
from sfb_env.engine.setup import BattleSetup, InitialState
from sfb_env.engine.types import (
    GATLING_SHOTS,
    N_BOX,
    NEVER,
    PLASMA_LAUNCHERS,
    PLASMA_ROWS,
    WEAPON_KEYS,
    BattleState,
    Box,
    Maneuver,
    Orders,
    Status,
    UnitKind,
    WeaponType,
)

rule_tables.install()  # (DESIGN: declared tables) the damage handlers by unit kind

DEFAULT_MAX_TURNS = 30  # truncation for scenarios without a turn limit (cth-02, cth-03)

_SYSTEM_BOXES = {"transporter": Box.TRANSPORTER, "lab": Box.LAB, "shuttle": Box.SHUTTLE}
_INDESTRUCTIBLE = ("bridge", "security", "flag_bridge")  # (D4.0) cadet game


def make_battle(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    seed: int | None = None,
    max_turns: int | None = None,
) -> Battle:
    """Build a battle from a scenario name, YAML path, dict or loaded ``Scenario``."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    return Battle(scenario, seed=seed, max_turns=max_turns)


def step(setup: BattleSetup, state: BattleState, orders: Mapping[int, Orders] | None = None,
         validate: bool = True) -> None:
    """The core entry: advance ``state`` under ``setup`` by one decision point (in place)."""
    Battle.from_parts(setup, state).step(orders, validate)


class Battle:
    """A thin facade over a ``BattleSetup`` (static: units, sheets, tables, ``Rules``) and a
    ``BattleState`` (everything that changes, the dice and the event log included).

    The setup's fields read as attributes (``battle.unit_ids``, ``battle.rules``, ...); the
    state's course as properties (``battle.rng``, ``battle.events``, ``battle.done``, ...).
    ``copy()`` gives an independent battle that shares the setup.
    """

    setup: BattleSetup
    state: BattleState

    def __init__(self, scenario: Scenario, seed: int | None = None, max_turns: int | None = None):
        self._build(scenario, max_turns or scenario.turn_limit or DEFAULT_MAX_TURNS)
        self.reset(seed)

    @classmethod
    def from_parts(cls, setup: BattleSetup, state: BattleState) -> Battle:
        """The facade over an existing setup and state (no building)."""
        battle = cls.__new__(cls)
        battle._attach(setup, state)
        return battle

    def _attach(self, setup: BattleSetup, state: BattleState) -> None:
        self.__dict__.update({f.name: getattr(setup, f.name) for f in fields(setup)})
        self.setup = setup
        self.state = state

    def reset(self, seed: int | None = None) -> None:
        """Back to the start state (the setup is reused); all dice come from
        ``numpy.random.default_rng(seed)``."""
        state = self.setup.start_state.copy()
        state.seed = seed
        state.rng = np.random.default_rng(seed)
        self.state = state
        procedure.start(self)

    def copy(self) -> Battle:
        """An independent battle at the same point: same setup, a deep copy of the state (the
        dice generator's state included)."""
        return Battle.from_parts(self.setup, self.state.copy())

    # ------------------------------------------------------------------ the state's course

    @property
    def seed(self) -> int | None:
        return self.state.seed

    @property
    def rng(self) -> np.random.Generator:
        """The battle's dice: every draw of the rules comes from here, in order."""
        return self.state.rng

    @rng.setter
    def rng(self, dice: np.random.Generator) -> None:  # tests script the dice
        self.state.rng = dice

    @property
    def events(self) -> list[Event]:
        return self.state.events

    @property
    def controllers(self) -> list[str]:
        """(U,) who commands each unit: ``agent`` or a robot name (capture changes it, D7.0)."""
        return self.state.controllers

    @property
    def done(self) -> bool:
        return self.state.done

    @property
    def time_up(self) -> bool:
        """The battle ended on its turn limit (truncation)."""
        return self.state.time_up

    @property
    def outcome(self) -> dict | None:
        return self.state.outcome

    @property
    def end_reason(self) -> str:
        return self.state.end_reason

    # ------------------------------------------------------------------ building (the generator)

    def _build(self, scenario: Scenario, max_turns: int) -> None:
        """Compile ``scenario`` into ``self.setup`` and its start state (no dice drawn)."""
        self.scenario = sc = scenario
        self.rules = scenario.rules  # the switches; what the units bring is added below
        self.max_turns = max_turns
        self.quarter_turn = impulse.quarter_turn(scenario.impulses_per_turn)
        self.side_index = {s: i for i, s in enumerate(scenario.sides)}
        self.maneuvers = movement.maneuvers_in_use(scenario.rules)  # C4 / C5 switches
        # every hex of the play area: axial (x, z) -> label (labels and bounds in one lookup)
        self.area_labels = scenario.map_area.axial_labels(scenario.parity)
        unit_ids: list[str] = []
        names: list[str] = []
        controllers: list[str] = []
        classes: list[ShipClass | None] = []
        rows: list[dict[str, Any]] = []
        weapons: list[dict[str, Any]] = []
        weapon_ids: list[str] = []
        allowed = sc.rules.weapons_allowed
        for spec in sc.units:
            row = len(unit_ids)
            unit_ids.append(spec.id)
            names.append(spec.name)
            controllers.append(spec.controller)
            x, z = hexmap.label_to_axial(spec.hex, sc.parity)
            if spec.unit_class == planets.PLANET_CLASS:  # (P2.0) a planet: no side, no sheet
                classes.append(None)
                rows.append(planets.planet_row(x, z))
                continue
            base = dict(side=self.side_index[spec.side], x=x, z=z, facing=spec.facing,
                        speed=spec.speed, target=spec.target)
            if spec.unit_class == planet_killer.CLASS:  # (scenario 11) the monster
                classes.append(None)
                rows.append(dict(base, kind=UnitKind.MONSTER))
                continue
            if spec.unit_class in ("drone", "target-drone"):
                kind = UnitKind.DRONE if spec.unit_class == "drone" else UnitKind.TARGET_DRONE
                classes.append(None)
                rows.append(dict(base, kind=kind, launched_at=0))
                continue
            ship = load_ship(spec.unit_class)
            classes.append(ship)
            kind = UnitKind.FREIGHTER if ship.freighter is not None else UnitKind.SHIP
            rows.append(dict(base, kind=kind, ship=ship))
            for mount in ship.weapons:
                wtype = WEAPON_KEYS[mount.type]
                weapons.append(dict(owner=row, mount=mount, type=wtype,
                                    enabled=allowed is None or mount.type in allowed))
                weapon_ids.append(f"{spec.id}.{mount.id}")
        # Seeking weapons get their unit rows now, so nothing grows during play: every drone a
        # rack can launch, then (FP1) PLASMA_ROWS torpedo rows per plasma launcher, reused
        # (engine.plasma).
        for label, controller, kind, launchers in (
            ("drone", "robot-drone", UnitKind.DRONE, (WeaponType.DRONE_RACK,)),
            ("plasma", "robot-plasma", UnitKind.PLASMA, PLASMA_LAUNCHERS),
        ):
            for w in weapons:
                if w["type"] not in launchers:
                    continue
                owner = w["owner"]
                count = PLASMA_ROWS if kind == UnitKind.PLASMA else int(w["mount"].ammo or 0)
                w[f"{label}_rows"] = []
                for k in range(count):
                    unit_ids.append(f"{unit_ids[owner]}.{w['mount'].id}.{label}-{k + 1}")
                    names.append(unit_ids[-1])
                    controllers.append(controller)
                    classes.append(None)
                    w[f"{label}_rows"].append(len(rows))
                    rows.append(dict(side=rows[owner]["side"], x=0, z=0, facing=0, speed=0,
                                     target=None, kind=kind, unused=True))
        # (J4.0, J1.0) every fighter a carrier's sheet lists and, under rules.admin_shuttles,
        # every administrative shuttle: a unit row and its one weapon (engine.small_craft)
        for owner in range(len(sc.units)):
            for kind, count in ((UnitKind.FIGHTER, small_craft.fighter_rows(classes[owner])),
                                (UnitKind.SHUTTLE,
                                 small_craft.shuttle_rows(classes[owner], sc.rules))):
                craft = small_craft.CRAFT[int(kind)]
                for k in range(count):
                    unit_ids.append(f"{unit_ids[owner]}.{craft.name}-{k + 1}")
                    names.append(unit_ids[-1])
                    controllers.append(craft.controller)
                    classes.append(None)
                    rows.append(dict(side=rows[owner]["side"], x=0, z=0, facing=0, speed=0,
                                     target=None, kind=kind, unused=True, carrier=owner,
                                     gun=len(weapons)))
                    weapons.append(dict(owner=len(rows) - 1, mount=craft.gun,
                                        type=WEAPON_KEYS[craft.gun.type],
                                        enabled=allowed is None or craft.gun.type in allowed))
                    weapon_ids.append(f"{unit_ids[-1]}.{craft.gun.id}")
        self.craft_carrier = np.array([r.get("carrier", -1) for r in rows], dtype=np.int64)
        self.craft_gun = np.array([r.get("gun", -1) for r in rows], dtype=np.int64)
        self.unit_ids = unit_ids
        self.unit_index = {u: i for i, u in enumerate(unit_ids)}
        self.names = names
        self.ship_classes = classes
        self.weapon_ids = weapon_ids
        self.turn_mode_chart = [c.turn_mode if c is not None else "seeking" for c in classes]
        self.weapon_rows = [
            np.array([j for j, w in enumerate(weapons) if w["owner"] == u], dtype=np.int64)
            for u in range(len(unit_ids))]
        self.state = self._state(rows, weapons, controllers)
        st = self.state
        self.plasma_launcher_of = np.full(len(unit_ids), -1, dtype=np.int64)  # static
        for j, w in enumerate(weapons):
            self.plasma_launcher_of[w.get("plasma_rows", [])] = j
        self.plasma_fixed = np.array(  # (FP3.1) fixed launchers fire straight ahead
            [w["type"] in PLASMA_LAUNCHERS and w["mount"].launcher == "fixed" for w in weapons],
            dtype=bool)
        self.initial = _initial(self)
        self.start_speed = st.speed.copy()  # scenario speeds (a freighter's base speed, R1.6)
        self.rack_capacity = np.array(
            [int(w["mount"].ammo or 0) if w["type"] == WeaponType.DRONE_RACK else 0
             for w in weapons], dtype=np.int64)
        self.rules = replace(self.rules, **self._in_play(weapons))
        self.setup = BattleSetup(
            **{f.name: getattr(self, f.name) for f in fields(BattleSetup)
               if f.name != "start_state"},
            start_state=st.copy())

    def _in_play(self, weapons: list[dict[str, Any]]) -> dict[str, bool]:
        """What the battle's units bring into play (``Rules`` fields), so a step skips the
        rule areas nothing uses."""
        st = self.state
        enabled = [w for w in weapons if w["enabled"]]
        return {
            "esg_in_play": bool(len(esg_field.esg_rows(self))),  # (G23)
            "ppd_in_play": any(w["type"] == WeaponType.PPD for w in enabled),  # (E11)
            "plasma_in_play": any(w["type"] in PLASMA_LAUNCHERS for w in enabled),  # (FP1)
            "small_craft_in_play": bool(np.any(self.craft_carrier >= 0)),  # (J4, J1)
            "planets_in_play": bool(len(self.planet_rows)),  # (P2.0)
            "monster_in_play": bool(np.any(st.kind == UnitKind.MONSTER)),  # (scenario 11)
            "probes_in_play": bool(np.any(st.probes_left > 0)),  # (G5.11)
            "arrivals": unit_rules.has_arrivals(self),  # (scenario 8) units entering later
            "hold_fire": bool(self.hold_fire_kinds.any()),
            "may_not_leave": not bool(self.may_leave.all()),
        }

    def _state(self, rows: list[dict[str, Any]], weapons: list[dict[str, Any]],
               controllers: list[str]) -> BattleState:
        n, m = len(rows), len(weapons)
        st = BattleState(self.scenario.impulses_per_turn)
        st.controllers = list(controllers)
        i64 = np.int64
        st.kind = np.array([r["kind"] for r in rows], dtype=np.int8)
        st.side = np.array([r["side"] for r in rows], dtype=np.int8)
        st.status = np.array(
            [Status.UNUSED if r.get("unused") else Status.ACTIVE for r in rows], dtype=np.int8
        )
        st.x = np.array([r["x"] for r in rows], dtype=i64)
        st.z = np.array([r["z"] for r in rows], dtype=i64)
        st.facing = np.array([r["facing"] for r in rows], dtype=i64)
        st.prev_x, st.prev_z, st.prev_facing = st.x.copy(), st.z.copy(), st.facing.copy()
        st.speed = np.array([r["speed"] for r in rows], dtype=i64)
        st.straight = np.full(n, movement.SATISFIED, dtype=i64)  # (C3.43)
        st.slip = np.full(n, movement.SATISFIED, dtype=i64)  # (C3.43) slip mode satisfied too
        st.tactical = np.zeros(n, dtype=bool)
        st.tac_earned = np.zeros(n, dtype=bool)
        st.tac_sublight = np.zeros(n, dtype=bool)
        st.previous_speed = st.speed.copy()
        st.cloaked = np.zeros(n, dtype=bool)  # (G13) nobody starts cloaked
        st.craft_ccm = np.full(n, NEVER, dtype=i64)  # (J4.52) impulse of the last CCM
        st.craft_tac = np.full(n, NEVER, dtype=i64)  # (J4.11) impulse of the last fighter TAC
        st.craft_landed = np.full(n, NEVER, dtype=i64)  # (J4.48) impulse it landed aboard
        st.cloaked_before = np.zeros(n, dtype=bool)
        st.locked_on = np.ones(n, dtype=bool)  # (D6) set each turn where rules.lock_on
        st.cloak_paid = np.zeros(n, dtype=bool)  # (G13 standard rule)
        st.cloak_announced_at = np.full(n, NEVER, dtype=np.int64)
        st.esg_struck_at = np.full(n, NEVER, dtype=np.int64)  # (G23.621)
        st.shields = np.zeros((n, 6), dtype=i64)
        st.shield_pool = np.zeros(n, dtype=bool)
        st.boxes = np.zeros((n, N_BOX), dtype=i64)
        for i, r in enumerate(rows):
            ship = r.get("ship")
            if ship is None:
                continue
            if ship.freighter is not None:
                st.shield_pool[i] = True
                st.shields[i, 0] = ship.freighter.shield_pool  # (R1.6) one pool, any side
                continue
            st.shields[i] = ship.shields
            st.boxes[i] = _boxes(ship)
        st.dac_boxes, self.dac_weapons = damage.init_dac_boxes(  # (D4.21) standard DAC
            self, self.ship_classes)
        st.internal = np.zeros(n, dtype=i64)
        st.damage = np.zeros(n, dtype=i64)
        index = self.unit_index
        st.target = np.array([index[r["target"]] if r["target"] else -1 for r in rows], dtype=i64)
        st.launcher = np.array([r.get("carrier", -1) for r in rows], dtype=i64)  # fighters
        st.launched_at = np.array([r.get("launched_at", NEVER) for r in rows], dtype=i64)
        st.w_owner = np.array([w["owner"] for w in weapons], dtype=i64).reshape(m)
        st.w_type = np.array([w["type"] for w in weapons], dtype=i64).reshape(m)
        st.w_arcs = np.array(
            [sum(hexmap.arc_bits(a) for a in w["mount"].arcs) & 63 for w in weapons], dtype=i64
        ).reshape(m)
        st.w_astern = np.array([bool(w["mount"].astern_row) for w in weapons], dtype=bool)
        st.w_min_range = np.array([_min_range(w["type"]) for w in weapons], dtype=i64).reshape(m)
        st.w_max_range = np.array([_max_range(w) for w in weapons], dtype=i64).reshape(m)
        st.w_destroyed = np.zeros(m, dtype=bool)
        st.w_enabled = np.array([w["enabled"] for w in weapons], dtype=bool)
        st.w_last_fired = np.full(m, NEVER, dtype=i64)
        st.w_fired_turn = np.zeros(m, dtype=i64)
        chief = self.rules.chief_engineer
        st.w_ready_turn = np.array(
            [2 if chief and w["type"] == WeaponType.PHOTON
             else ppd_fire.CHIEF_FIRST_TURN if chief and w["type"] == WeaponType.PPD
             else 1 for w in weapons], dtype=i64
        ).reshape(m)  # (SCENARIOS §2.1) no photon on turn 1; a fusion beam arms within
        #   the turn (E7.21), so the Chief Engineer has it ready on turn 1
        st.w_armed = np.array(  # (FP1.23) no plasma torpedo is armed at the start
            [w["type"] not in PLASMA_LAUNCHERS for w in weapons], dtype=bool).reshape(m)
        st.w_gatling_shots = np.full((m, GATLING_SHOTS), NEVER, dtype=i64)  # (E2.151)
        st.w_ammo = np.array([int(w["mount"].ammo or 0) for w in weapons], dtype=i64).reshape(m)
        st.w_drone_rows = np.full((m, 4), -1, dtype=i64)
        st.w_plasma_rows = np.full((m, PLASMA_ROWS), -1, dtype=i64)
        for j, w in enumerate(weapons):
            for k, r in enumerate(w.get("drone_rows", [])):
                st.w_drone_rows[j, k] = r
            for k, r in enumerate(w.get("plasma_rows", [])):
                st.w_plasma_rows[j, k] = r
        self.state = st  # (the rule areas' init_state write into it)
        esgs = [w["mount"] if w["type"] == WeaponType.ESG else None for w in weapons]
        esg_field.init_state(  # (G23.23) CTH ships start with their generators charged
            self, [int(e.max_energy or 0) if e else 0 for e in esgs],
            [int(e.start_charge or 0) if e else 0 for e in esgs])
        energy.init_state(self)  # (B3.0) batteries charged, capacitors empty, nothing armed
        ppd_fire.init_state(self)  # (E11.2) PPD charges empty, no pulse train
        planet_killer.init_state(self)  # (G4, G5, scenario 11) research, probes, monster
        boarding.init_state(self)  # (D7.0) BP complements aboard, control stations, no capture
        transporters.init_state(self)  # (G8.0) no transporter used, no shield dropped
        self.__dict__.update(planets.init_state(self))  # (scenario 9) survivors on planets
        suicide_shuttles.init_state(self)  # (J2.221) no bomb armed at the start
        self.__dict__.update(tractors.init_state(self))  # (G7.0) no tractor links at start
        self.__dict__.update(unit_rules.init_state(self))  # arrivals, may_leave, hold_fire_at
        return st

    # ------------------------------------------------------------------ queries

    def log(self, event: Event) -> None:
        """Append an event to the battle's log."""
        self.events.append(event)

    def label(self, unit: int) -> str:
        """The hex label of a unit."""
        st = self.state
        return self.area_labels[(int(st.x[unit]), int(st.z[unit]))]

    def in_area(self, x: int, z: int) -> bool:
        """Whether the axial hex (x, z) lies in the scenario's play area."""
        return (int(x), int(z)) in self.area_labels

    def weapons_of(self, unit: int) -> np.ndarray:
        """Weapon rows of a unit."""
        return self.weapon_rows[unit]

    def agent_units(self) -> list[int]:
        """Rows of the units players command that are still in play (or arriving later)."""
        return [
            u for u, c in enumerate(self.controllers)
            if c == "agent" and unit_rules.in_play_or_coming(self, u)  # (or arriving later)
        ]

    def apply_damage(self, unit: int, shield: int, points: int) -> None:
        """Apply one volley (see ``engine.damage``)."""
        damage.apply_damage(self, unit, shield, points)

    # ------------------------------------------------------------------ legality (engine.legality)

    def speed_choice_open(self) -> bool:
        """Whether orders now set next turn's speed (``legality.speed_choice_open``)."""
        return legality.speed_choice_open(self)

    def speed_range(self, unit: int) -> range | list[int]:
        """Speeds a player may pick for the next turn (``legality.speed_range``)."""
        return legality.speed_range(self, unit)

    def speed_blockers(self, unit: int) -> dict[int, str]:
        """Speeds the unit may not order now, with the rule (``legality.speed_blockers``)."""
        return legality.speed_blockers(self, unit)

    def tactical_plot_blockers(self, unit: int) -> dict[int, str]:
        """TAC plots the unit may not order now (``legality.tactical_plot_blockers``)."""
        return legality.tactical_plot_blockers(self, unit)

    def maneuver_blockers(self, unit: int, speed: int | None = None) -> dict[Maneuver, str]:
        """Forbidden maneuvers for the unit's next move (``legality.maneuver_blockers``)."""
        return legality.maneuver_blockers(self, unit, speed)

    def fire_blockers(self, weapon: int, targets=None, shot: int = 1) -> list[str | None]:
        """Per target, the rule forbidding ``weapon`` to fire at it now (None = allowed);
        ``shot``: a phaser-G's ``shot``-th shot of this impulse (E2.151)."""
        return legality.fire_blockers(self, weapon, targets, shot)

    def launch_blockers(self, rack: int, targets=None) -> list[str | None]:
        """Per target, the rule forbidding ``rack`` to launch at it now (None = allowed)."""
        return legality.launch_blockers(self, rack, targets)

    def launch_facing_blocker(self, rack: int, target: int, facing: int) -> str | None:
        """The rule forbidding a drone of ``rack`` at ``target`` to take ``facing`` (FD1.2)."""
        return legality.launch_facing_blocker(self, rack, target, facing)

    def esg_blockers(self, generator: int) -> dict[int, str]:
        """``EsgOrder`` values the ESG row ``generator`` may not be given now, with the rule."""
        return legality.esg_blockers(self, generator)

    def fighter_blockers(self, carrier: int, targets=None,
                         kind: int = UnitKind.FIGHTER) -> list[str | None]:
        """Per target, the rule forbidding ``carrier``'s small-craft order now."""
        return legality.fighter_blockers(self, carrier, targets, kind)

    def esg_rows(self, unit: int) -> np.ndarray:
        """Weapon rows of the unit's expanding sphere generators in use (G23.11)."""
        return legality.esg_rows(self, unit)

    def validate(self, orders: Mapping[int, Orders]) -> None:
        """Raise ``IllegalOrderError`` for any order the rules forbid (``legality.validate``)."""
        legality.validate(self, orders)

    def step(self, orders: Mapping[int, Orders] | None = None, validate: bool = True) -> None:
        """Validate the orders of every commanded unit and advance to the next decision point.

        ``validate=False``: the caller has already checked the orders with the same legality
        predicates (the env checks every action against its mask), so they are not checked twice.
        """
        if self.done:
            raise RuntimeError("the battle is over; call reset()")
        orders = dict(orders or {})
        if validate:
            self.validate(orders)
        procedure.advance(self, orders)


def _initial(battle: Battle) -> InitialState:
    st = battle.state
    weapons = np.bincount(st.w_owner, minlength=len(st.kind)) if len(st.w_owner) else 0
    internal = st.boxes.sum(axis=1) + weapons
    strength = st.shields.sum(axis=1) + internal
    for u, ship in enumerate(battle.ship_classes):
        if ship is not None and ship.freighter is not None:
            internal[u] = ship.freighter.destroyed_at
            strength[u] = ship.freighter.shield_pool + ship.freighter.destroyed_at
        elif battle.plasma_launcher_of[u] >= 0:  # (FP1.6) 2 phaser points per warhead point
            strength[u] = 2 * tables.plasma_warhead(plasma.plasma_kind(battle, u), 0)
        elif battle.craft_carrier[u] >= 0:  # (J4.49, J1.0) fighters 10, shuttles 6
            strength[u] = small_craft.CRAFT[int(st.kind[u])].destroyed_at
        elif ship is None:
            strength[u] = battle.rules.drone_strength  # (FD1.54)
    return InitialState(st.shields.copy(), internal, strength)


def _boxes(ship: ShipClass) -> np.ndarray:
    """Destructible internal boxes of a sheet by category (weapons are tracked apart)."""
    out = np.zeros(N_BOX, dtype=np.int64)
    out[Box.WARP] = sum(ship.warp.values())
    out[Box.IMPULSE] = ship.impulse
    out[Box.APR] = ship.apr
    out[Box.BATTERY] = ship.batteries
    out[Box.EXCESS] = ship.excess_damage
    for name, count in ship.systems.items():
        if name in _INDESTRUCTIBLE:
            continue
        if "hull" in name:
            out[Box.HULL] += count
        else:
            out[_SYSTEM_BOXES.get(name, Box.OTHER)] += count
    return out


def _min_range(kind: WeaponType) -> int:
    return {WeaponType.DISRUPTOR: 1, WeaponType.PHOTON: 2,  # fusion: 0 (E7.31)
            WeaponType.PPD: ppd.MYOPIC_RANGE + 1}.get(kind, 0)  # (E11.312) PPD: 4


def _max_range(weapon: dict[str, Any]) -> int:
    kind, mount = weapon["type"], weapon["mount"]
    if kind in (WeaponType.PH1, WeaponType.PH2, WeaponType.PH3, WeaponType.PHG):
        return tables.phaser_max_range(mount.type)
    if kind == WeaponType.DISRUPTOR:
        return int(mount.max_range or tables.disruptor_max_range())
    if kind == WeaponType.PHOTON:
        return 30
    if kind == WeaponType.FUSION:
        return tables.fusion_chart().shape[1] - 1  # (E7.31) the fusion beam table: 24
    if kind == WeaponType.PPD:
        return tables.ppd_chart().max_range  # (E11.52) 40
    return 0
