"""Scripted captains for the scenarios with a mission beyond the duel: cth-08 (Pirate Raid),
cth-09 (Rescue at Rigel) and cth-11 (The Planet Killer), SCENARIOS.md #8, #9, #11.

Registered names: ``pirate`` and ``defender`` (cth-08), ``rescuer`` and ``rescue-opponent``
(cth-09), ``researcher`` (cth-11). Each is a doctrine captain (``agents.bridge``: gunnery,
drones, the standing energy allocation) given a mission: it picks its target, flies to a hex
or off the nearest map edge when the mission asks for it, and orders the scenario's extra
components — tractors (G7.0), transporters and shield drops (G8.0, G8.24), administrative and
suicide shuttles (J1.0, J2.22), probes (G5.0). Like the doctrine captains they read only the
observation (its rule-features blocks: ``boarding``, ``tractors``, ``research``), the action
mask, ``env.action_components`` / ``env.rule_features`` and the static scenario description
(``env.scenario``: where the planets lie); every order is taken from the values the mask
allows, so the captains always play inside the mask.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
from gymnasium import spaces

from agents import helm
from agents.base import register_policy
from agents.bridge import Bridge, nearest_speed
from agents.doctrine import DOCTRINES, Doctrine, DoctrineCaptain
from agents.observation_view import Target, placement
from sfb_env import hexmap
from sfb_env.env import observation_layout as obs_layout
from sfb_env.env.observation_layout import SLOT

# rule-features layout (``env.rule_features``; declared in sfb_env/env/observation_layout.py)
BOARDING_OWN = obs_layout.BOARDING_OWN.size  # transporter uses left, own shields #1..#6 dropped
BOARDING_ROW = obs_layout.BOARDING_ROW.size  # our parties, others, stations, crew, captured
CREW = obs_layout.BOARDING_ROW.at("crew_units")
CAPTURED = obs_layout.BOARDING_ROW.at("captured")
OUR_PARTIES = obs_layout.BOARDING_ROW.at("our_parties")
CREW_SCALE = obs_layout.BOARDING_ROW.field("crew_units").scale
TRACTOR_OWN = obs_layout.TRACTORS_OWN.size  # beams holding, beams free, freighters towed
TRACTOR_SLOT = obs_layout.TRACTOR_SLOT.size  # held by this ship, held by another
RESEARCH_METHODS = obs_layout.RESEARCH.slice("kill_methods")  # results 1..6 (SCENARIOS §2.8)
RESEARCH_ARMED = obs_layout.RESEARCH.at("armed")  # a probe armed now

TRANSPORT_RANGE = 5  # (G8.0) transporter range
TRACTOR_RANGE = 1  # (G7.0, CTH-DATA §8.3) same or adjacent hex
DETECTION_RANGE = 2  # (SCENARIOS §2.8) the Planet Killer follows a starship this close
PROBE_RANGE = 6  # (G5.2) an information probe scores within 6 hexes
LAB_BAND = (DETECTION_RANGE + 2, PROBE_RANGE)  # the researcher's range from the monster
OFF_MAP_BONUS = 1000.0
SEARCH_DEPTH = 6  # moves the navigator looks ahead
EDGE_WEIGHT = 8.0  # the navigator's cost per hex short of room to turn away from an edge
PIRATE_WINS = 3  # (SCENARIOS #8) captures for a pirate victory
RANGE_CLIP = 30  # the observation's range scale (ranges beyond read 30)
SQRT3 = math.sqrt(3.0)

# maneuver values (``env.action_components``: none, straight, turn_left, turn_right)
STRAIGHT, LEFT, RIGHT = 1, 2, 3


class ScenarioCaptain(DoctrineCaptain):
    """A doctrine captain with a scenario mission (subclasses set ``race`` and the bridge)."""

    race = "federation"
    speed = 16  # the speed asked for at Energy Allocation (the nearest the mask allows)

    def __init__(self, components: list[dict[str, Any]] | None = None,
                 seed: int | None = None) -> None:
        self.index: dict[str, int] = {}
        self.blocks: dict[str, int] = {}
        self.planets: list[tuple[int, int]] = []
        super().__init__(self.mission_doctrine(), components, seed)

    def mission_doctrine(self) -> Doctrine:
        return DOCTRINES[self.race]

    def bind(self, env: Any, agent: str) -> None:
        super().bind(env, agent)
        blocks = getattr(env, "rule_features", None)
        self.blocks = dict(blocks(agent)) if callable(blocks) else {}
        scenario = getattr(env, "scenario", None)
        self.planets = [hexmap.label_to_axial(u.hex) for u in getattr(scenario, "units", ())
                        if getattr(u, "kind", "") == "planet"]

    def configure(self, components: list[dict[str, Any]]) -> None:
        super().configure(components)
        self.index = {c["name"]: i for i, c in enumerate(components)}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.state: dict[str, Any] = {}

    bridge: type[MissionBridge]

    def act(self, observation: dict[str, np.ndarray], action_space: spaces.Space) -> np.ndarray:
        if self.layout is None:
            raise RuntimeError(f"{type(self).__name__} needs its action components: call "
                               "bind(env, agent) first")
        return self.bridge(self, observation, action_space).orders()


class MissionBridge(Bridge):
    """One decision: the doctrine bridge plus a destination and the mission's components."""

    captain: ScenarioCaptain
    approach_range = 8  # a target farther than this: the navigator closes in (0: never)

    def __init__(self, captain: ScenarioCaptain, observation: dict[str, np.ndarray],
                 action_space: spaces.Space) -> None:
        super().__init__(captain, observation, action_space)
        lay = self.layout
        where = placement(len(self.raw), lay.n_weapons, lay.slots, len(lay.esgs),
                          lay.energy_size, len(lay.ppds), lay.rule_features)
        self.slot_rows = self.raw[where.span("targets")].reshape(lay.slots, SLOT.size)
        self.mem = captain.state

    # ------------------------------------------------------------------ reading

    def block(self, name: str) -> np.ndarray | None:
        """A rule-features sub-block of the raw observation (they come last, in order)."""
        blocks = self.captain.blocks
        if name not in blocks:
            return None
        start = len(self.raw) - sum(blocks.values())
        for key, size in blocks.items():
            if key == name:
                return self.raw[start:start + size]
            start += size
        return None

    def is_other(self, t: Target) -> bool:
        """A slot that is no ship, freighter or seeking weapon: a planet or a monster."""
        return not self.slot_rows[t.slot - 1, SLOT.slice("kind")].any()

    def planet(self) -> Target | None:
        """The planet's slot: of the "other" slots, the one whose range and bearing best
        match a planet hex of the scenario (ranges beyond the observation's scale clip)."""
        if "_planet" not in self.__dict__:
            others = [t for t in self.view.targets if self.is_other(t)]
            best, found = 1e9, None
            for px, pz in self.captain.planets:
                d = int(hexmap.distance_np(self.pose.x, self.pose.z, px, pz))
                for t in others:
                    miss = abs(min(d, RANGE_CLIP) - t.range) + self._bearing_miss(t, px, pz)
                    if miss < best:
                        best, found = miss, t
            self.__dict__["_planet"] = found
        return self.__dict__["_planet"]

    def _bearing_miss(self, t: Target, x: int, z: int) -> float:
        if (x, z) == (self.pose.x, self.pose.z):
            return 0.0
        cx, cy = 1.5 * (x - self.pose.x), SQRT3 * ((z - self.pose.z) + (x - self.pose.x) / 2.0)
        angle = math.atan2(cx, -cy) - self.pose.facing * (math.pi / 3)
        return abs(math.remainder(angle - t.bearing, 2 * math.pi))

    def monster(self) -> Target | None:
        p = self.planet()
        return next((t for t in self.view.targets if self.is_other(t) and t is not p), None)

    def ships(self) -> list[Target]:
        return [t for t in self.view.targets if t.kind == "ship" and not self.is_other(t)]

    def freighters(self) -> list[Target]:
        return [t for t in self.view.targets if t.kind == "freighter"]

    def crew_on(self, t: Target) -> float:
        """Crew units aboard the unit in slot ``t`` (boarding block; 0 without it)."""
        b = self.block("boarding")
        if b is None:
            return 0.0
        return float(b[BOARDING_OWN + BOARDING_ROW * t.slot + CREW]) * CREW_SCALE

    def towing(self) -> bool:
        b = self.block("tractors")
        return b is not None and b[0] > 0

    def held_by_me(self, t: Target) -> bool:
        b = self.block("tractors")
        return b is not None and b[TRACTOR_OWN + TRACTOR_SLOT * (t.slot - 1)] > 0.5

    def methods(self) -> set[int]:
        """(SCENARIOS §2.8) Kill methods the research has found (results 1..6)."""
        r = self.block("research")
        return set() if r is None else {k + 1 for k, v in enumerate(r[RESEARCH_METHODS]) if v > 0.5}

    def nearest_edge_distance(self) -> int:
        return int(min(self.view.own.edges))

    # ------------------------------------------------------------------ the decision

    def orders(self) -> np.ndarray:
        view, mem = self.view, self.memory
        if not mem.max_turns and view.clock.turn_fraction > 0:
            mem.max_turns = max(1, round(1.0 / view.clock.turn_fraction))
        self.turn = max(1, round(view.clock.turn_fraction * mem.max_turns)) if mem.max_turns \
            else 1
        self.pose = self._pose()
        self.area = self._area()
        self.target = self.pick_target()
        self._learn_turn_mode()
        speed = self._speed()
        self._set(self.layout.speed, speed)
        where = self.destination()
        chase = self.approach_range
        if where is None and chase and self.target is not None and self.target.range > chase:
            # the helm's six-impulse horizon is short at full-size speeds: close in first
            where = self._locate(self.target), False
        if where is None:
            self.plan = self._steer(speed)
        else:
            self.plan = helm.Plan(self.navigate(*where), [], [])
        self._set(self.layout.maneuver, self.plan.maneuver)
        self._fire(self.plan.track)
        self._launch()
        self.mission()
        return self.action

    def pick_target(self) -> Target | None:
        return self._primary()

    def destination(self) -> tuple[tuple[int, int] | None, bool] | None:
        """``(hex, leave)``: fly to an axial hex, or (``leave``) off the nearest edge; None:
        the doctrine helm fights the target."""
        return None

    def mission(self) -> None:
        """The scenario's extra components (tractors, transporters, shuttles, probes)."""

    def _speed(self, cloaking: bool = False) -> int:
        return nearest_speed(self.allowed[self.layout.speed], self.want_speed(),
                             self.layout.max_speed)

    def want_speed(self) -> int:
        return self.captain.speed

    def _primary(self) -> Target | None:
        ships = [t for t in self.view.targets if t.kind in ("ship", "freighter")
                 and not self.is_other(t)]
        if not ships:
            return None
        return max(ships, key=lambda t: (2.0 * t.damage - t.range / 10.0, -t.slot))

    def _gun_target(self, gun, allowed: set[int], slots: dict[int, Target]) -> int | None:
        keep = {s for s in allowed if s in slots and self.may_fire_at(slots[s])}
        return super()._gun_target(gun, keep, slots)

    def may_fire_at(self, t: Target) -> bool:
        return not (self.is_other(t) and self.monster() is not t)

    # ------------------------------------------------------------------ helm

    def navigate(self, goal: tuple[int, int] | None, leave: bool,
                 keep: tuple[int, int] | None = None) -> int:
        """The first maneuver of the best move sequence over ``SEARCH_DEPTH`` moves toward
        ``goal`` (axial; with ``keep = (lo, hi)``: at a range from it in lo..hi, never
        closer than lo on the way) or, with ``leave``, off the map soonest (within the mask:
        the first move from the allowed maneuvers, later ones by the learned turn mode,
        C3.2)."""
        allowed = self.allowed[self.layout.maneuver]
        moving = allowed & {STRAIGHT, LEFT, RIGHT}
        if not moving or not self.view.own.moves_next:
            return 0 if 0 in allowed else min(allowed, default=0)
        # PROPOSAL [P-126]: until the mask has taught it (C3.2), assume a cautious turn mode for the
        # faster of this turn's speed and the one ordered for the next
        mode = max(self.memory.turn_mode.get(v, 1 + v // 8)
                   for v in (self.view.own.speed, int(self.action[self.layout.speed])))
        pose = self.pose
        x, z = np.array([pose.x]), np.array([pose.z])
        f, s = np.array([pose.facing]), np.array([min(pose.straight, 99)])
        first = np.zeros(1, dtype=np.int64)
        score = np.zeros(1)
        gone = np.zeros(1, dtype=bool)
        for t in range(SEARCH_DEPTH):
            rows, x, z, f, s = helm._expand(x, z, f, s, mode, moving if t == 0 else None)
            first, score, gone = first[rows], score[rows], gone[rows]
            if t == 0:
                first = helm._first_choice(f, pose.facing)
            off = ~self.area.contains_axial_np(x, z)
            for px, pz in self.captain.planets:  # (P2.0) a ship entering a planet hex dies
                score = score - np.where((x == px) & (z == pz), OFF_MAP_BONUS, 0.0)
            if leave:
                score = score + np.where(off & ~gone, OFF_MAP_BONUS * 0.9 ** t, 0.0)
                gone = gone | off
            else:
                score = score - np.where(off, OFF_MAP_BONUS, 0.0) - EDGE_WEIGHT * 0.9 ** t \
                    * helm._edge_pressure(self.area, x, z, f, mode, s)
            if keep is not None and goal is not None:
                near = hexmap.distance_np(x, z, goal[0], goal[1]) < keep[0]
                score = score - np.where(near, OFF_MAP_BONUS / 10, 0.0)
        if leave:
            col, row = hexmap.axial_to_offset_np(x, z)
            a = self.area
            edge = np.minimum.reduce([col - a.first_column, a.last_column - col,
                                      row - a.first_row, a.last_row - row])
            score = score - np.where(gone, 0.0, edge)
        if goal is not None:
            d = hexmap.distance_np(x, z, goal[0], goal[1])
            lo, hi = keep if keep is not None else (0, 0)
            score = score - np.maximum(lo - d, 0) - np.maximum(d - hi, 0)
        best = int(np.lexsort((first, -score))[0])
        choice = int(first[best])
        return choice if choice in allowed else next(
            (m for m in (STRAIGHT, LEFT, RIGHT, 0) if m in allowed), 0)

    # ------------------------------------------------------------------ components

    def value(self, name: str, want: int) -> bool:
        """Order ``want`` on component ``name`` if it exists and the mask allows it."""
        i = self.captain.index.get(name)
        if i is None or want not in self.allowed[i]:
            return False
        self.action[i] = want
        return True

    def power_transporters(self) -> None:
        """(G8.0) Pay for every transporter use the line allows (Energy Allocation)."""
        i = self.captain.index.get("transporters")
        if i is not None and self.allowed[i]:
            self.action[i] = max(self.allowed[i])

    def transport(self, t: Target, lift: bool) -> bool:
        """(G8.0) Beam a boarding party to, or (``lift``) a crew unit from, slot ``t``."""
        want = (self.layout.slots + t.slot) if lift else t.slot
        return any(self.value(f"transport[{k}]", want) for k in range(8))

    def drop_facing_shield(self, t: Target) -> bool:
        """(G8.24) Drop the own shield facing slot ``t`` (transports pass a dropped shield)."""
        x, z = self._locate(t)
        bits = int(hexmap.shield_bits_np(self.pose.x, self.pose.z, self.pose.facing, x, z))
        dropped = self.block("boarding")
        for s in range(6):
            if bits >> s & 1:
                if dropped is not None and dropped[1 + s] > 0.5:
                    return True  # already down (G8.24: 1/4 turn)
                if self.value("drop_shield", s + 1):
                    return True
        return False

    def attach_tractor(self, t: Target) -> bool:
        """(G7.0) Attach a free tractor beam to slot ``t``."""
        return any(self.value(f"tractor[{b}]", t.slot + 1) for b in range(4))


# ---------------------------------------------------------------------- cth-08 Pirate Raid


class PirateBridge(MissionBridge):
    """(SCENARIOS #8 advice) Close on the freighters, strip a freighter's shield with weapons
    and drones, beam boarding parties onto it (D7.0: a freighter captured by boarding counts
    when the pirate leaves), tractor two more and tow them off the nearest edge; leave when
    both beams hold a freighter, when the defender closes in, or as time runs out (the pirate
    must leave before the end of turn 12 or counts as destroyed)."""

    FLEE_RANGE = 8  # the defender this close, with something taken: leave
    LEAVE_TURN = 10  # PROPOSAL [P-128]: start for the edge by turn 10 whatever happens
    BANK_TURN = 5  # both beams full by then: tow them off before the defender (turn 6)

    def captured(self, t: Target) -> bool:
        b = self.block("boarding")
        return b is not None and b[BOARDING_OWN + BOARDING_ROW * t.slot + CAPTURED] > 0.5

    def boarded(self, t: Target) -> bool:
        """Our boarding parties are aboard ``t`` (D7.0)."""
        b = self.block("boarding")
        return b is not None and b[BOARDING_OWN + BOARDING_ROW * t.slot + OUR_PARTIES] > 0

    def prizes(self) -> list[Target]:
        """Freighters taken: held by our tractors, or captured by our boarding parties."""
        return [t for t in self.freighters() if self.held_by_me(t) or self.captured(t)]

    def pick_target(self) -> Target | None:
        free = [t for t in self.freighters() if not self.held_by_me(t) and not self.captured(t)]
        if free:
            # the weakest pool first, then the nearest (strip it and board it)
            return min(free, key=lambda t: (self.held_by_me(t), round(float(t.shields[0]), 1),
                                            t.range, t.slot))
        return min(self.ships(), key=lambda t: t.range, default=None)

    def leaving(self) -> bool:
        b = self.block("tractors")
        full = b is not None and b[0] > 0 and b[0] * 3 >= self.mem.get("beams", 2) - 0.01
        defender = min((t.range for t in self.ships()), default=99)
        seen = len(self.freighters())
        if seen < self.mem.get("seen", seen) and self.mem.get("held", 0):
            # freighters we held have left the map with us (towed off the edge, G7.0)
            self.mem["towed"] = self.mem.get("towed", 0) + min(self.mem["seen"] - seen,
                                                               self.mem["held"])
        self.mem["seen"] = seen
        self.mem["held"] = sum(self.held_by_me(t) for t in self.freighters())
        taken = len(self.prizes()) + self.mem.get("towed", 0)
        if self.mem.get("leaving"):
            return True
        go = taken >= PIRATE_WINS or (full and self.turn >= self.BANK_TURN) or (
            self.turn >= self.LEAVE_TURN) or (taken and defender <= self.FLEE_RANGE) or (
            taken and not [t for t in self.freighters() if not self.held_by_me(t)
                           and not self.captured(t)])
        if go:
            self.mem["leaving"] = True
        return go

    def destination(self):
        if self.leaving():
            return None, True
        t = self.target
        if t is not None and t.kind == "freighter":
            return self.inward(self._locate(t)), False
        return None

    def inward(self, where: tuple[int, int]) -> tuple[int, int]:
        """The hex next to ``where`` toward the map centre: close on a freighter from the
        inside, keeping room to turn (the convoy sails along the west edge)."""
        a = self.area
        cx, cz = hexmap.offset_to_axial_np((a.first_column + a.last_column) // 2,
                                           (a.first_row + a.last_row) // 2)
        nx, nz = hexmap.neighbor_np(np.full(6, where[0]), np.full(6, where[1]), np.arange(6))
        k = int(np.argmin(hexmap.distance_np(nx, nz, int(cx), int(cz))))
        return int(nx[k]), int(nz[k])

    def want_speed(self) -> int:
        return 20 if self.mem.get("leaving") else 16

    def may_fire_at(self, t: Target) -> bool:
        # strip a freighter's pool, but never shoot into a stripped one (a wreck is no prize)
        if t.kind == "freighter":
            return t.shields[0] > 0.0 and not self.captured(t)
        return super().may_fire_at(t)

    def _launch(self) -> None:
        t = self.target
        if t is not None and (t.kind == "ship" or t.shields[0] > 0.5):
            super()._launch()

    def mission(self) -> None:
        self.power_transporters()
        self.mem["beams"] = sum(1 for n in self.captain.index if n.startswith("tractor["))
        for t in sorted(self.freighters(), key=lambda t: t.range):
            # (G7.0) a freighter in the same or an adjacent hex: tow it
            if (t.range <= TRACTOR_RANGE and not self.held_by_me(t) and not self.captured(t)
                    and self.attach_tractor(t)):
                break
        if self.mem.get("leaving"):
            return
        for t in sorted(self.freighters(), key=lambda t: t.range):
            if t.range <= TRANSPORT_RANGE and t.shields[0] <= 0.0 and not self.captured(t):
                # (G8.0) beam parties onto a freighter whose pool is down, through our
                # dropped facing shield (G8.24); (D7.0) they fight its boarding parties
                sent = 0
                for k in range(8):
                    sent += self.value(f"transport[{k}]", t.slot)
                if not sent:
                    self.drop_facing_shield(t)
                break


class PirateCaptain(ScenarioCaptain):
    """``pirate``: the Orion raider of cth-08 (see ``PirateBridge``)."""

    race = "orion"
    speed = 20
    bridge = PirateBridge

    def mission_doctrine(self) -> Doctrine:
        return replace(DOCTRINES["orion"], fire_range={"photon": 8, "ph-1": 6, "ph-3": 3},
                       drone_launch_range=10, cruise_speed=20)


class DefenderBridge(MissionBridge):
    """(SCENARIOS #8 special) The defender hunts the pirate and never fires at a freighter."""

    def pick_target(self) -> Target | None:
        return min(self.ships(), key=lambda t: t.range, default=None)

    def destination(self):
        return (self._locate(self.target), False) if self.target is not None else None

    def may_fire_at(self, t: Target) -> bool:
        return t.kind != "freighter" and super().may_fire_at(t)

    def _launch(self) -> None:
        if self.target is not None:
            super()._launch()


class DefenderCaptain(ScenarioCaptain):
    """``defender``: the defending starship of cth-08, after it arrives (turn 6)."""

    race = "federation"
    speed = 16
    bridge = DefenderBridge

    def mission_doctrine(self) -> Doctrine:
        return replace(DOCTRINES["federation"], band=(3, 6), reload_band=(3, 8),
                       fire_range={"photon": 8, "ph-1": 6}, cruise_speed=16)


# ---------------------------------------------------------------------- cth-09 Rescue at Rigel


class RescuerBridge(MissionBridge):
    """(SCENARIOS #9 advice) Fly to the planet, drop the facing shield and transport the
    survivors at range <= 5 (or, after a while in range without a transport, send a shuttle
    to land on the planet and wait for it at speed 6), then leave the map with them."""

    SHUTTLE_AFTER = 16  # PROPOSAL [P-129]: impulses in transporter range before risking a shuttle

    def pick_target(self) -> Target | None:
        return min(self.ships(), key=lambda t: t.range, default=None)

    def aboard(self) -> bool:
        """The survivors are aboard (the own row of the boarding block: crew units)."""
        b = self.block("boarding")
        return b is not None and b[BOARDING_OWN + CREW] > 0.0

    def waiting(self) -> bool:
        """Survivors on the planet still."""
        p = self.planet()
        return p is not None and self.crew_on(p) > 0.0

    def destination(self):
        if self.aboard():
            return None, True
        p = self.planet()
        if self.waiting() and p is not None:
            return self._locate(p), False  # the mask keeps us out of its hex (P2.0)
        return None  # a shuttle is bringing them home: fight meanwhile

    def want_speed(self) -> int:
        if self.aboard():
            return 31
        p = self.planet()
        if self.waiting() and p is not None:
            return 8 if p.range <= 8 else 24
        return 6  # (J1.0) a shuttle lands aboard at speed 6 or less

    def mission(self) -> None:
        self.power_transporters()
        p = self.planet()
        if p is None or not self.waiting() or p.range > TRANSPORT_RANGE:
            return
        self.mem["in_range"] = self.mem.get("in_range", 0) + 1
        # (G8.0) lift the crew unit through the dropped shield facing the planet (G8.24)
        if not self.transport(p, lift=True):
            self.drop_facing_shield(p)
        if self.mem["in_range"] > self.SHUTTLE_AFTER and not self.mem.get("shuttle"):
            # (J1.0, CTH-DATA §12.4 PROPOSAL [P-111]) a shuttle lands on the planet and lifts them
            self.mem["shuttle"] = self.value("shuttles", p.slot)


class RescuerCaptain(ScenarioCaptain):
    """``rescuer``: the Federation CA of cth-09 (see ``RescuerBridge``)."""

    race = "federation"
    speed = 24
    bridge = RescuerBridge

    def mission_doctrine(self) -> Doctrine:
        return replace(DOCTRINES["federation"], cruise_speed=24)


class RescueOpponentBridge(MissionBridge):
    """(SCENARIOS #9) The opponent intercepts and fights the rescuer; it never enters the
    planet hex (P2.0: the mask closes those moves) and never fires at the planet."""

    def pick_target(self) -> Target | None:
        return min(self.ships(), key=lambda t: t.range, default=None)

    def destination(self):
        if self.target is None:
            p = self.planet()
            return (self._locate(p), False) if p is not None and p.range > 4 else None
        # the doctrine helm's six-impulse horizon is short at full-size speeds: the
        # navigator (which keeps room from the edges) runs at the rescuer
        return self._locate(self.target), False


class RescueOpponentCaptain(ScenarioCaptain):
    """``rescue-opponent``: the Klingon D7 of cth-09."""

    race = "klingon"
    speed = 16  # a tighter turn mode than at full speed (C3.2): it stays with the rescuer
    bridge = RescueOpponentBridge

    def mission_doctrine(self) -> Doctrine:
        return replace(DOCTRINES["klingon"], fire_range={"disruptor": 8, "ph-2": 4, "ph-1": 6},
                       cruise_speed=16)


# ---------------------------------------------------------------------- cth-11 Planet Killer


class ResearcherBridge(MissionBridge):
    """(SCENARIOS #11, §2.8) Research the monster from lab range but outside its 2-hex
    detection, launch information probes within 6 hexes, then kill it by a method the
    research found (results 1..5), firing on it all along (method 3 counts earlier damage
    up to 150)."""

    approach_range = 0  # the helm keeps the lab band (below)

    def pick_target(self) -> Target | None:
        return self.monster()

    def may_fire_at(self, t: Target) -> bool:
        return t is self.monster()

    def destination(self):
        m = self.monster()
        if m is None:
            return None
        found = self.methods()
        # (SCENARIOS §2.8) research done: the band suits a boarding party by transporter
        # (range 5 or less, G8.0), an anti-matter probe (G5.33: hits on a die >= range) and a
        # suicide shuttle; only a tractor link needs the same or an adjacent hex (G7.0)
        if 2 in found and not found & {1, 4, 5}:
            return self._locate(m), False, (TRACTOR_RANGE, TRACTOR_RANGE)
        if 5 in found:
            return self._locate(m), False, (LAB_BAND[0], TRANSPORT_RANGE)
        # (G4.0) labs work to range 10; the monster follows a starship within 2: keep 4-6
        # (inside the probes' 6), never within 3
        return self._locate(m), False, LAB_BAND

    def want_speed(self) -> int:
        return 12

    def mission(self) -> None:
        m = self.monster()
        found = self.methods()
        r = self.block("research")
        # (G5.2, G5.32) arm a probe at Energy Allocation: anti-matter once result 4 is known
        if 4 in found:
            self.value("probe", 2)
        else:
            self.value("probe", 1)
        if m is None:
            return
        self.power_transporters()
        if r is not None and r[RESEARCH_ARMED] > 0.5:
            if 4 in found:
                if m.range <= PROBE_RANGE:  # the mask opens it: the monster on the centre row
                    self.value("probe", 3)  # (G5.33) fire the anti-matter probe
            elif m.range <= PROBE_RANGE:
                self.value("probe", 3)  # (G5.2) +20 information within 6 hexes
        if 1 in found:
            self.value("suicide_arm", 3) or self.value("suicide_arm", 1)  # (J2.221)
            if m.range <= PROBE_RANGE:
                self.value("suicide", m.slot)  # (J2.22, §2.8 result 1)
        if 2 in found and m.range <= TRACTOR_RANGE:
            self.attach_tractor(m)  # (G7.0, §2.8 result 2)
        # (G8.0, §2.8 result 5) a boarding party to the brain cell
        if 5 in found and m.range <= TRANSPORT_RANGE and not self.transport(m, lift=False):
            self.drop_facing_shield(m)


class ResearcherCaptain(ScenarioCaptain):
    """``researcher``: the Federation CA of cth-11 (see ``ResearcherBridge``)."""

    race = "federation"
    speed = 12
    bridge = ResearcherBridge

    def mission_doctrine(self) -> Doctrine:
        return replace(DOCTRINES["federation"], band=(4, 6), reload_band=(4, 6),
                       fire_range={"photon": 6, "ph-1": 6}, cruise_speed=12)


register_policy("pirate", PirateCaptain, description="cth-08 pirate captain")
register_policy("defender", DefenderCaptain, description="cth-08 defender captain")
register_policy("rescuer", RescuerCaptain, description="cth-09 rescuing captain")
register_policy("rescue-opponent", RescueOpponentCaptain,
                description="cth-09 captain opposing the rescue")
register_policy("researcher", ResearcherCaptain, description="cth-11 research captain")
