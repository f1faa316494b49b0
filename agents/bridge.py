"""One decision of a doctrine captain: read the view, steer, fire, launch, pick the speed.

``ShipLayout`` is what the static action components say about the ship; ``Memory`` is what the
captain remembers between impulses of an episode; ``Bridge`` turns one observation into one
action (always inside the mask: every choice is taken from the allowed values).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces

from agents import edge_guard, helm
from agents.gunnery import (
    PHASERS,
    Gun,
    drone_defence,
    ev_table,
    expected_damage,
    hit_chance,
)
from agents.mask_values import open_values
from agents.observation_view import ObservationView, Target, decode, placement
from sfb_env import hexmap, impulse
from sfb_env.env.observation_layout import ENERGY, ENERGY_WEAPON

if TYPE_CHECKING:
    from agents.doctrine import DoctrineCaptain

DRONE_STRENGTH = 4  # (FD1.54)

FIRST_PHOTON_TURN = 2  # (SCENARIOS §2.1) Chief Engineer: no photon fires on turn 1
STRIPPED = 0.15  # a shield with less than this fraction left counts as down
SHIP_POINTS = 105.0  # shield boxes + internal boxes of a cadet ship, about (CTH-DATA §9.1)
INTERNAL_POINTS = 40.0  # internal boxes of a cadet ship, weapons included, about
SQRT3 = math.sqrt(3.0)


@cache
def threat_batteries(model: tuple[tuple[str, str, float], ...]) -> tuple[helm.Battery, ...]:
    """A threat model ``(arc, weapon type, count)`` as helm batteries (read-only tables)."""
    batteries = tuple((hexmap.ARC_BITS[arc], count * ev_table(kind, helm.MAX_RANGE))
                      for arc, kind, count in model)
    for _, table in batteries:
        table.setflags(write=False)
    return batteries


@dataclass(frozen=True)
class ShipLayout:
    """Action indices and weapons of one ship, from ``env.action_components(agent)``."""

    racks: tuple[int, ...]  # action indices of drone racks
    guns: tuple[Gun, ...]  # direct-fire weapons
    gun_arcs: dict[int, int]  # action index -> base-arc bits (hexmap.ARC_BITS)
    maneuver: int
    speed: int
    slots: int  # target slots K
    n_weapons: int  # weapon positions in the observation (racks + direct fire, padding too)
    max_speed: int
    weapon_types: list[str]
    esgs: tuple[int, ...] = ()  # action indices of ESG components (G23)
    arms: tuple[int, ...] = ()  # action indices of ``arm[h]`` components (rules.energy, B3.0)
    fills: tuple[int, ...] = ()  # action indices of ``capacitor`` and ``recharge``
    cloak: int = -1  # action index of the ``cloak`` component (G13.0), -1 without one
    plasma_arms: tuple[int, ...] = ()  # positions h of the ``arm[h]`` of plasma launchers
    ppds: tuple[int, ...] = ()  # action indices of ``ppd[p]`` components (E11.362)
    rule_features: int = 0  # length of the observation's rule-features block, last
    #   (``env.rule_features(agent)``; D3.34, D9, D6, G13 scenarios)

    @classmethod
    def from_components(cls, components: list[dict[str, Any]]) -> ShipLayout:
        racks, guns, arcs, types, esgs, arms, fills = [], [], {}, [], [], [], []
        plasma_arms: list[int] = []
        ppds: list[int] = []
        maneuver = speed = cloak = -1
        slots, max_speed, n_weapons = 0, 0, 0
        for i, c in enumerate(components):
            kind = c["kind"]
            if kind in ("launch", "fire"):
                n_weapons += 1
                slots = (int(c["size"]) - 1) // (7 if "facings" in c else 1)  # (FD1.2) facings
                if "weapon_type" not in c:
                    continue  # uniform_spaces padding
                types.append(c["weapon_type"])
                if kind == "launch":
                    racks.append(i)
                else:
                    guns.append(Gun(i, c["weapon_type"]))
                    arcs[i] = sum(hexmap.ARC_BITS[a] for a in c["arcs"])
            elif kind == "esg":
                esgs.append(i)
                if "weapon_type" in c:
                    types.append(c["weapon_type"])
            elif kind == "arm":
                if str(c.get("weapon_type", "")).startswith("plasma"):
                    plasma_arms.append(len(arms))
                arms.append(i)
            elif kind == "cloak":
                cloak = i
            elif kind == "ppd":
                ppds.append(i)
            elif kind in ("capacitor", "recharge"):
                fills.append(i)
            elif kind == "maneuver":
                maneuver = i
            elif kind == "speed":  # values past the speeds are TAC plots (C5.23)
                values = c.get("values") or []
                speeds = sum(str(v).startswith("speed_") for v in values)
                speed, max_speed = i, (speeds or int(c["size"])) - 1
        if maneuver < 0 or speed < 0:
            raise ValueError("action components lack 'maneuver' or 'speed'")
        return cls(tuple(racks), tuple(guns), arcs, maneuver, speed, slots, n_weapons,
                   max_speed, types, tuple(esgs), tuple(arms), tuple(fills), cloak,
                   tuple(plasma_arms), tuple(ppds))

    @property
    def energy_size(self) -> int:
        """Length of the observation's energy block (0 without ``rules.energy: cadet``)."""
        if not self.fills:
            return 0
        return ENERGY.size + ENERGY_WEAPON.size * len(self.arms)


@dataclass
class Memory:
    """What a captain remembers within an episode."""

    max_turns: int = 0
    turn_mode: dict[int, int] = field(default_factory=dict)  # speed -> least straight hexes
    track: list[tuple[int, int, int]] = field(default_factory=list)  # (time, x, z) of target
    track_kind: str = ""
    photon_fired: dict[int, int] = field(default_factory=dict)  # gun index -> turn
    fusion_fired: dict[int, int] = field(default_factory=dict)  # gun index -> turn (E7.22)
    launches: dict[int, int] = field(default_factory=dict)  # turn -> drones launched
    rate: float = 1.0  # the target's hexes per impulse, last estimate


class Bridge:
    """One decision point of ``captain``."""

    def __init__(self, captain: DoctrineCaptain, observation: dict[str, np.ndarray],
                 action_space: spaces.Space) -> None:
        self.captain = captain
        self.doctrine = captain.doctrine
        self.layout: ShipLayout = captain.layout
        self.memory: Memory = captain.memory
        self.allowed = [set(values) for values in
                        open_values(observation["action_mask"], action_space.nvec)]
        self.raw = np.asarray(observation["observation"])  # the energy block is read raw
        self.view: ObservationView = decode(observation["observation"], self.layout.n_weapons,
                                            self.layout.slots, self.layout.max_speed,
                                            len(self.layout.esgs), self.layout.energy_size,
                                            len(self.layout.ppds), self.layout.rule_features)
        self.action = np.array([0 if 0 in a or not a else min(a) for a in self.allowed],
                               dtype=np.int64)
        # (B3.0) the standing allocation, read off the mask as the env's no-op is: continue
        # arming (1), else hold (2); fill the capacitor and recharge every empty battery
        for i in self.layout.arms:
            self.action[i] = next((v for v in (1, 2) if v in self.allowed[i]), 0)
        for i in self.layout.fills:
            self.action[i] = max(self.allowed[i], default=0)

    # ------------------------------------------------------------------ the decision

    def orders(self) -> np.ndarray:
        view = self.view
        mem = self.memory
        if not mem.max_turns and view.clock.turn_fraction > 0:
            mem.max_turns = max(1, round(1.0 / view.clock.turn_fraction))  # seen on turn 1
        self.turn = max(1, round(view.clock.turn_fraction * mem.max_turns))
        self.pose = self._pose()
        self.area = self._area()
        self.target = self._primary()
        self._learn_turn_mode()
        cloaking = self._cloak()
        speed = self._speed(cloaking)
        self.plan = self._steer(speed)
        maneuver = self.plan.maneuver
        self._set(self.layout.speed, speed)
        self._set(self.layout.maneuver, maneuver)
        self._fire(self.plan.track)
        self._launch()
        self._esg()
        return self.action

    def _set(self, index: int, value: int) -> None:
        if value in self.allowed[index]:
            self.action[index] = value

    # ------------------------------------------------------------------ where we are

    def _pose(self) -> helm.Pose:
        own = self.view.own
        x, z = hexmap.label_to_axial(hexmap.format_label(own.column, own.row))
        return helm.Pose(x, z, own.facing, own.straight)

    def _area(self) -> hexmap.MapArea:
        return edge_guard.play_area(self.view.own)

    def _locate(self, target: Target) -> tuple[int, int]:
        """The target's hex from its range and bearing (exact within RANGE_SCALE)."""
        if target.range == 0:
            return self.pose.x, self.pose.z
        dx, dz, angle = _ring(target.range)
        bearing = angle - self.pose.facing * (math.pi / 3)
        error = np.abs(np.angle(np.exp(1j * (bearing - target.bearing))))
        k = int(np.argmin(error))
        return self.pose.x + int(dx[k]), self.pose.z + int(dz[k])

    def _primary(self) -> Target | None:
        """The ship or freighter to fight: damaged and close ones first (focus fire)."""
        ships = [t for t in self.view.targets if t.kind in ("ship", "freighter")]
        if not ships:
            return None
        return max(ships, key=lambda t: (2.0 * t.damage - t.range / 10.0, -t.slot))

    def _learn_turn_mode(self) -> None:
        """Learn the turn mode at this speed from the mask (C3.2) while the speed is fixed."""
        own = self.view.own
        if len(self.allowed[self.layout.speed]) != 1 or not own.moves_next:
            return
        known = self.memory.turn_mode.get(own.speed, 1)
        if not own.can_turn and own.straight < 8:
            self.memory.turn_mode[own.speed] = max(known, own.straight + 1)

    # ------------------------------------------------------------------ helm

    def _speed(self, cloaking: bool = False) -> int:
        """The speed component's value: the allowed speed nearest the doctrine's; values above
        the maximum speed are TAC plots (C5.23: ``max + 1 + n``), taken only when no speed is
        allowed (then the ship stands still this turn, C5.11)."""
        d = self.doctrine
        want = d.cloak_speed if cloaking else d.cruise_speed  # (G13.0) power for the cloak
        return nearest_speed(self.allowed[self.layout.speed], want, self.layout.max_speed)

    def _steer(self, speed: int) -> helm.Plan:
        if speed > self.layout.max_speed:  # a TAC plot (C5.23): no movement this turn
            speed = 0
        clock = self.view.clock
        ipt = clock.impulses_per_turn
        schedule, scale = [], []
        i, current = clock.impulse, self.view.own.speed
        turn = self.turn
        if i in (0, ipt):
            i, current, turn = 0, speed, turn + (i == ipt)
        for _ in range(self.captain.horizon):
            i += 1
            if i > ipt:
                i, current, turn = 1, speed, turn + 1
            schedule.append(bool(current) and impulse.moves_on(current, i, ipt))
            # (SCENARIOS §2.1) photons open fire on turn 2: its first impulses are the danger
            opening = (turn == FIRST_PHOTON_TURN or (
                self.doctrine.opening_every and turn > FIRST_PHOTON_TURN
                and (turn - FIRST_PHOTON_TURN) % self.doctrine.opening_every == 0)
            ) and i <= self.doctrine.opening_impulses
            scale.append(self.doctrine.opening_threat if opening else 1.0)
        turn_mode = self.memory.turn_mode.get(speed, 1)
        allowed = self.allowed[self.layout.maneuver]
        goal = self._goal()
        goal.threat_scale = tuple(scale)
        plan = helm.plan(self.pose, self.area, schedule, allowed, turn_mode, goal)
        if plan.maneuver not in allowed:
            fallback = next((m for m in (1, 0, 2, 3) if m in allowed), 0)
            plan = helm.Plan(fallback, plan.track, plan.drone_strikes)
        return plan

    def _goal(self) -> helm.Goal:
        d = self.doctrine
        goal = helm.Goal(target=None, **d.weights)
        shields = np.asarray(d.shields, dtype=np.float64)
        goal.shield_value = shields / shields.max() * self.view.own.shields
        goal.drones = tuple((*self._locate(t), (self.pose.facing + t.relative_facing) % 6)
                            for t in self._inbound())
        if self.target is None:
            return goal
        goal.target = self._locate(self.target)
        goal.target_facing = (self.pose.facing + self.target.relative_facing) % 6
        goal.target_rate = self._target_rate(goal.target) * self.doctrine.lead_target
        clock = self.view.clock
        between_turns = clock.impulse in (0, clock.impulses_per_turn)
        upcoming = self.turn + (clock.impulse > 0)
        goal.turn_left = 0 if between_turns else clock.impulses_per_turn - clock.impulse
        live = [g for g in self.layout.guns if not self._destroyed(g)]
        goal.offense_now = tuple(self._battery(g) for g in live
                                 if self.view.weapons[g.index].usable or d.position_all)
        goal.offense_next = tuple(self._battery(g) for g in live
                                  if self._ready_in(g, upcoming) or d.position_all)
        goal.threat = threat_batteries(d.threat_model)
        heavy = [g for g in live if g.weapon_type in d.heavy and self._ready_in(g, upcoming)]
        goal.band = d.band if heavy or d.reload_band is None else d.reload_band
        if self.turn <= d.hold_off_turns:
            goal.band = d.endgame_band
        if d.early_band is not None and 0 < clock.impulse <= d.early_impulses:
            goal.band = d.early_band
        if self.turn > self.memory.max_turns - d.endgame_turns:
            lead = self._lead()
            if lead > d.endgame_margin:  # ahead on points: keep it (duel victory on points)
                goal.band = d.endgame_band
                goal.threat_weight *= d.endgame_caution
                goal.offense_weight /= d.endgame_caution
            elif lead < -d.endgame_margin and d.behind_band is not None:
                goal.band = d.behind_band  # behind: only damage dealt can still win it
        return goal

    def _lead(self) -> float:
        """Points dealt minus points taken, estimated from the damage fractions (cadet ships
        of about ``SHIP_POINTS`` points; own shields from the doctrine's shield boxes)."""
        own = self.view.own
        shields = np.asarray(self.doctrine.shields, dtype=np.float64)
        taken = float(((1.0 - own.shields) * shields).sum()) + own.internal * INTERNAL_POINTS
        dealt = SHIP_POINTS * (self.target.damage if self.target is not None else 0.0)
        return dealt - taken

    def _battery(self, gun: Gun) -> helm.Battery:
        return self.layout.gun_arcs[gun.index], ev_table(gun.weapon_type, helm.MAX_RANGE)

    def _target_rate(self, where: tuple[int, int]) -> float:
        """Hexes per impulse the target has moved over the last turn."""
        mem = self.memory
        clock = self.view.clock
        now = self.turn * clock.impulses_per_turn + clock.impulse
        if mem.track_kind != self.target.kind or (
            mem.track and hexmap.distance_np(mem.track[-1][1], mem.track[-1][2], *where) > 2
        ):
            mem.track = []
        mem.track_kind = self.target.kind
        mem.track.append((now, *where))
        mem.track = mem.track[-clock.impulses_per_turn:]
        t0, x0, z0 = mem.track[0]
        if now <= t0:
            return 0.0
        moved = int(hexmap.distance_np(x0, z0, *where))
        mem.rate = min(1.0, moved / (now - t0))
        return mem.rate

    # ------------------------------------------------------------------ weapons

    def _destroyed(self, gun: Gun) -> bool:
        return self.view.weapons[self._position(gun.index)].destroyed

    def _position(self, index: int) -> int:
        """Weapon position in the observation of the action component ``index``."""
        return index  # racks, then direct-fire weapons, in action order

    def _ready_in(self, gun: Gun, turn: int) -> bool:
        """Whether ``gun`` can fire on ``turn`` (Chief Engineer, SCENARIOS §2.1: a photon
        fires from turn 2, then every other turn; a fusion beam cools the turn after it fired,
        E7.22)."""
        if gun.weapon_type == "fusion":
            fired = self.memory.fusion_fired.get(gun.index)
            return fired is None or turn - fired >= 2
        if gun.weapon_type != "photon":
            return True
        fired = self.memory.photon_fired.get(gun.index)
        return turn >= 2 and (fired is None or turn - fired >= 2)

    def _fire(self, track: list[tuple[int, int]]) -> None:
        guns = [g for g in self.layout.guns if self.allowed[g.index] - {0}]
        if not guns:
            return
        slots = {t.slot: t for t in self.view.targets}
        allowed = {g.index: self.allowed[g.index] - {0} for g in guns}
        busy = {g.index for g in guns
                if self.target is not None and self.target.slot in allowed[g.index]}
        inbound = self._inbound()
        strikes = dict(zip((t.slot for t in inbound), self.plan.drone_strikes, strict=False))
        clock = self.view.clock
        left = clock.impulses_per_turn - clock.impulse
        urgent = [t for t in inbound if t.range <= self.doctrine.drone_defence_range
                  and (t.range <= 1 or strikes.get(t.slot) in self.doctrine.drone_urgency)]
        orders = drone_defence(guns, allowed, [_drone(t) for t in urgent], busy)
        coming = sum(1 for t in inbound if t not in urgent
                     and strikes.get(t.slot) is not None and strikes[t.slot] < left)
        reserved = self._reserve_for_drones([g for g in guns if g.index not in orders], busy,
                                            coming)
        strip = self._shield_down()
        chips = 0 if clock.impulse < clock.impulses_per_turn else -len(guns)
        for gun in sorted(guns, key=lambda g: (g.weapon_type not in PHASERS, g.cost, g.index)):
            if gun.index in orders or gun.index in reserved:
                continue
            choice = self._gun_target(gun, allowed[gun.index], slots)
            if choice is None:
                continue
            target = slots[choice]
            if strip and target is self.target and gun.weapon_type in PHASERS:
                # (D4.0) the first internal point of each volley destroys a weapon: through a
                # fallen shield, one phaser per impulse strips a weapon per hit
                if chips < 1 and hit_chance(gun.weapon_type, target.range) >= 0.5:
                    orders[gun.index] = choice
                    chips += 1
                continue
            if self._worth_it(gun, target, track):
                orders[gun.index] = choice
        if left == 0:  # use it or lose it (E1.5): spare phasers at drones still inbound
            spare = [g for g in guns if g.index not in orders]
            late = [_drone(t) for t in inbound if t.range <= 3]
            orders.update(drone_defence(spare, allowed, late, at_least=0.3))
        for index, slot in orders.items():
            self._set(index, slot)
            gun = next(g for g in guns if g.index == index)
            if gun.weapon_type == "photon" and self.action[index] == slot:
                self.memory.photon_fired[index] = self.turn
            if gun.weapon_type == "fusion" and self.action[index] == slot:
                self.memory.fusion_fired[index] = self.turn

    def _inbound(self) -> list[Target]:
        """Drones aimed at us, in target-slot order (the helm's drone order)."""
        return [t for t in self.view.targets if t.kind == "drone" and t.seeking_us]

    def _shield_down(self) -> bool:
        """Whether the target's shield toward us is (nearly) gone (freighters: the pool)."""
        t = self.target
        if t is None or not self.doctrine.strip_weapons:
            return False
        if t.kind == "freighter":
            return bool(t.shields[0] < STRIPPED)
        return any(t.shields[k - 1] < STRIPPED for k in t.shields_toward_us)

    def _reserve_for_drones(self, guns: list[Gun], busy: set[int], coming: int) -> set[int]:
        """Phasers held back for the ``coming`` drones the helm expects to strike before the
        phasers can fire again (next turn, E1.5): one per drone (two Ph-3s), those not bearing
        on the target first; the doctrine's screen weapons whenever a drone is inbound."""
        phasers = sorted((g for g in guns if g.weapon_type in PHASERS),
                         key=lambda g: (g.index in busy, g.cost, g.index))
        reserved = {g.index for g in phasers
                    if self._inbound() and g.weapon_type in self.doctrine.screen}
        if not self.doctrine.drone_defence_range:
            return reserved
        need = sum(2 if g.weapon_type == "ph-3" else 1 for g in phasers[:coming])
        reserved.update(g.index for g in phasers[:need])
        return reserved

    def _gun_target(self, gun: Gun, allowed: set[int], slots: dict[int, Target]) -> int | None:
        ships = [s for s in allowed if s in slots and slots[s].kind != "drone"]
        if not ships:
            return None
        if self.target is not None and self.target.slot in ships:
            return self.target.slot
        return max(ships, key=lambda s: (expected_damage(gun.weapon_type, slots[s].range), -s))

    def _worth_it(self, gun: Gun, target: Target, track: list[tuple[int, int]]) -> bool:
        """Fire now if the range is good, or if no better shot is likely before the weapon's
        chance passes (photons keep; other weapons fire once per turn, E1.5)."""
        kind = gun.weapon_type
        now = expected_damage(kind, target.range)
        if now <= 0:
            return False
        if target.range <= self.doctrine.fire_range.get(kind, 0):
            return True
        clock = self.view.clock
        left = clock.impulses_per_turn - clock.impulse
        last_turn = self.turn >= self.memory.max_turns
        if kind == "photon" and self.doctrine.hold_photons_past_turn and not last_turn:
            return False
        if kind == "fusion" and not last_turn:
            return False  # a long shot costs next turn's close one (cooling, E7.22); unfired,
            #   the charge is only released (E7.23) and the beam is armed again next turn
        future = track[:left] if target is self.target else []
        bits = self.layout.gun_arcs[gun.index]
        best = max((expected_damage(kind, r) for r, arcs in future if arcs & bits), default=0.0)
        return now >= 0.9 * best

    def _launch(self) -> None:
        d = self.doctrine
        if self.target is None or self.target.range > d.drone_launch_range:
            return
        done = self.memory.launches.get(self.turn, 0)
        for rack in self.layout.racks:
            if done >= d.drones_per_turn:
                break
            if self.target.slot in self.allowed[rack]:
                self.action[rack] = self.target.slot
                done += 1
        self.memory.launches[self.turn] = done


    def _cloak(self) -> bool:
        """(G13.0 cadet rule) "Cloak to survive the reload" (SCENARIOS §5, Romulan): at Energy
        Allocation, cloak for the next turn while no plasma torpedo is armed and none completes
        its arming with this allocation (read from the energy block: held, turns paid)."""
        lay, d = self.layout, self.doctrine
        if lay.cloak < 0 or not d.cloak_on_reload or 1 not in self.allowed[lay.cloak]:
            return False
        arms = placement(len(self.raw), lay.n_weapons, lay.slots, len(lay.esgs),
                         lay.energy_size, len(lay.ppds), lay.rule_features).part("energy", "arms")
        for h in lay.plasma_arms:
            held, paid = self.raw[arms.index("charged", h)], self.raw[arms.index("arming", h)]
            if held > 0.5 or paid >= 0.6:  # armed, or 2 of 3 arming turns paid
                return False
        self.action[lay.cloak] = 1
        return True

    def _esg(self) -> None:
        """Announce an ESG release (G23.31) when the target or an inbound drone is close, at a
        radius it is about to cross: the ring just inside its range (3 from farther out)."""
        d = self.doctrine
        near = [t.range for t in self._inbound() if t.range <= d.esg_drone_range]
        if self.target is not None and self.target.range <= d.esg_range:
            near.append(self.target.range)
        if not near:
            return
        radius = max(0, min(3, min(near) - 1))
        for index in self.layout.esgs:
            value = 1 + radius  # EsgOrder.ANNOUNCE_0 + radius
            if value in self.allowed[index]:
                self.action[index] = value
                return  # one generator a decision is enough


@cache
def _ring(r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Axial offsets at distance ``r`` and their bearings from direction A (clockwise)."""
    grid = np.arange(-r, r + 1)
    dx, dz = np.meshgrid(grid, grid, indexing="ij")
    dx, dz = dx.ravel(), dz.ravel()
    keep = hexmap.distance_np(0, 0, dx, dz) == r
    dx, dz = dx[keep], dz[keep]
    cx, cy = 1.5 * dx, SQRT3 * (dz + dx / 2.0)
    return dx, dz, np.arctan2(cx, -cy)


def _drone(t: Target) -> tuple[int, int, int]:
    """A drone target as ``(slot, range, strength left)`` for ``drone_defence``."""
    return t.slot, t.range, DRONE_STRENGTH - round(DRONE_STRENGTH * t.damage)


def nearest_speed(allowed: set[int], want: int, max_speed: int) -> int:
    """The allowed speed-component value nearest ``want`` (ties: the faster). Values above
    ``max_speed`` are TAC plots (C5.23), taken only when no speed is allowed."""
    speeds = [s for s in allowed if s <= max_speed]
    if not speeds:
        return min(allowed) if allowed else 0
    return min(speeds, key=lambda s: (abs(s - want), -s))
