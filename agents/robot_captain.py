"""``robot-captain``: the robot ship of scenario 4 (SCENARIOS.md §2.5) as a captain that flies
an agent ship through the public env API.

It decides with the engine robot's own pure functions (``sfb_env.engine.robot_ship``: pursuit,
the turn toward unfired weapons, the map-edge check, the fire point, the photon rotation) on
what the observation shows; only the inputs differ:

* the target: the closest enemy ship or freighter in the target slots;
* PURSUE / POST-PFP: the captain remembers the turn it last ordered a direct-fire shot;
* "bears": the action mask allows the weapon to fire at the target now;
* the map edge: the play area read off the own ship's edge distances; the turn mode learned
  from the mask (PROPOSAL [P-126]: 2 until learned, the cadet ships' mode at speed 9-16);
* the target-about-to-exit override is not applied (the observation does not show the
  target's straight-hex count; PROPOSAL [P-127]);
* energy (``rules.energy: cadet``): the doctrine bridge's standing allocation (keep arming,
  fill the capacitor); speed ``speed`` (default 12) or the closest the mask allows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from agents.base import register_policy
from agents.bridge import Bridge
from agents.doctrine import DoctrineCaptain
from agents.observation_view import Target
from sfb_env.engine import robot_ship
from sfb_env.engine.types import Maneuver

DEFAULT_TURN_MODE = 2  # (CTH-DATA §3.1) cadet ships at speeds 9-16


class RobotCaptain(DoctrineCaptain):
    """The §2.5 robot flying one agent ship (see the module docstring)."""

    def __init__(self, speed: int = robot_ship.DEFAULT_SPEED,
                 pfp_range: int = robot_ship.DEFAULT_PFP_RANGE, photons_per_turn: int = 1,
                 components: list[dict[str, Any]] | None = None, seed: int | None = None
                 ) -> None:
        self.speed = speed
        self.pfp_range = pfp_range
        self.photons_per_turn = photons_per_turn
        super().__init__(None, components, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.rng = np.random.default_rng(seed)
        self.fired_turn = 0  # the turn of the last direct-fire order (PFP passed)
        self.photons: dict[int, int] = {}  # turn -> photons ordered
        self.gun_fired: dict[int, int] = {}  # action index -> turn of its last shot

    def act(self, observation: dict[str, np.ndarray], action_space: spaces.Space) -> np.ndarray:
        if self.layout is None or self.doctrine is None:
            raise RuntimeError("RobotCaptain needs its action components: call bind(env, agent)")
        return RobotBridge(self, observation, action_space).orders()


class RobotBridge(Bridge):
    """One decision of a ``RobotCaptain``."""

    captain: RobotCaptain

    def orders(self) -> np.ndarray:
        view, mem, cap = self.view, self.memory, self.captain
        if not mem.max_turns and view.clock.turn_fraction > 0:
            mem.max_turns = max(1, round(1.0 / view.clock.turn_fraction))
        self.turn = max(1, round(view.clock.turn_fraction * mem.max_turns))
        self.pose = self._pose()
        self.area = self._area()
        ships = [t for t in view.targets if t.kind in ("ship", "freighter")]
        self.target = min(ships, key=lambda t: (t.range, t.slot)) if ships else None
        self._learn_turn_mode()
        allowed = self.allowed[self.layout.speed]
        speed = min(allowed, key=lambda s: (abs(s - cap.speed), -s)) if allowed else 0
        self._set(self.layout.speed, speed)
        self._set(self.layout.maneuver, int(self._maneuver(speed)))
        self._robot_fire()
        self._robot_launch()
        return self.action

    def _die(self) -> int:
        return int(self.captain.rng.integers(1, 7))

    def _on_map(self, x: int, z: int) -> bool:
        return bool(self.area.contains_axial_np(x, z))

    def _unfired(self) -> list:
        """Working direct-fire weapons not fired this turn (photons: this turn's allowance)."""
        cap = self.captain
        guns = [g for g in self.layout.guns
                if not self._destroyed(g) and cap.gun_fired.get(g.index) != self.turn]
        keep = set(self._photons_allowed())
        return [g for g in guns if g.weapon_type != "photon" or g.index in keep]

    def _photons_allowed(self) -> list[int]:
        """(§2.5) Photon tubes still allowed this turn, in the robot's A-odd / B-even order."""
        cap = self.captain
        tubes = [g for g in self.layout.guns if g.weapon_type == "photon"]
        start = robot_ship.photon_rotation(self.turn, len(tubes))
        order = [g.index for g in tubes[start:] + tubes[:start] if not self._destroyed(g)]
        return order[:max(cap.photons_per_turn - cap.photons.get(self.turn, 0), 0)]

    def _maneuver(self, speed: int) -> Maneuver:
        pose, own = self.pose, self.view.own
        mode = self.memory.turn_mode.get(speed, DEFAULT_TURN_MODE)
        # the mask's verdict wins over the learned turn mode (C3.2)
        straight = max(own.straight, mode) if own.can_turn else min(own.straight, mode - 1)
        want = Maneuver.STRAIGHT
        target = self.target
        if target is not None:
            tx, tz = self._locate(target)
            if self.captain.fired_turn != self.turn:  # PURSUE
                want = robot_ship.pursue(pose.x, pose.z, pose.facing, tx, tz, own.can_turn,
                                         self._die)
            elif own.can_turn:  # POST-PFP: turn toward unfired weapons that do not bear
                guns = [g for g in self._unfired()
                        if target.slot not in self.allowed[g.index]]
                bearing = [g for g in self._unfired() if target.slot in self.allowed[g.index]]
                if guns and not bearing:
                    arcs = np.array([self.layout.gun_arcs[g.index] for g in guns])
                    want = robot_ship.bring_to_bear(pose.x, pose.z, pose.facing, tx, tz, arcs,
                                                    self._die)
        move = robot_ship.edge_safe_move(self._on_map, pose.x, pose.z, pose.facing, straight,
                                         mode, want)
        if int(move) not in self.allowed[self.layout.maneuver]:
            return next((m for m in (Maneuver.STRAIGHT, Maneuver.NONE) if int(m)
                         in self.allowed[self.layout.maneuver]), Maneuver.NONE)
        return move

    def _robot_fire(self) -> None:
        target: Target | None = self.target
        if target is None:
            return
        clock = self.view.clock
        cap = self.captain
        past = cap.fired_turn == self.turn
        if not robot_ship.fire_point(past, target.range, cap.pfp_range,
                                     clock.impulse == clock.impulses_per_turn):
            return
        for g in self._unfired():
            if target.slot not in self.allowed[g.index]:
                continue  # (§2.5 "bears": in arc, in range, available)
            self._set(g.index, target.slot)
            if self.action[g.index] == target.slot:
                cap.fired_turn = self.turn
                cap.gun_fired[g.index] = self.turn
                if g.weapon_type == "photon":
                    cap.photons[self.turn] = cap.photons.get(self.turn, 0) + 1

    def _robot_launch(self) -> None:
        """(§2.5) One drone at the target on impulse 1 of every turn."""
        if self.target is None or self.view.clock.impulse != 1:
            return
        for rack in self.layout.racks:
            if self.target.slot in self.allowed[rack]:
                self.action[rack] = self.target.slot
                return


register_policy("robot-captain", RobotCaptain,
                description="the scenario-4 robot ship (SCENARIOS §2.5) flying an agent ship")
