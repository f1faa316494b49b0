"""Race doctrine captains: one scripted captain, parametrised by a table per race.

The doctrine notes of the book (SCENARIOS.md §5) as numbers: the range band to fight in, when
each weapon is worth firing, how drones are launched, which shields to turn toward the enemy.
Registry names: ``klingon-doctrine``, ``federation-doctrine``, ``kzinti-doctrine``,
``orion-doctrine``, ``hydran-doctrine``, ``lyran-doctrine``, ``romulan-doctrine``,
``gorn-doctrine``, ``isc-doctrine`` and ``doctrine`` (the race recognised from the ship's weapons).

A captain reads only its observation, its action mask and the static description of its action
components (``env.action_components(agent)``), plus the public charts and hex geometry
(``sfb_env.tables``, ``sfb_env.hexmap``, ``sfb_env.impulse``) a player reads off the rules.
Give it the components with ``bind(env, agent)`` (the bench harness does) or
``DoctrineCaptain(doctrine, components=...)``. It is deterministic: no dice of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from gymnasium import spaces

from agents.base import register_policy
from agents.bridge import Bridge, Memory, ShipLayout
from agents.gunnery import TYPICAL_ENEMY

# Printed shield boxes #1..#6 of the cadet ships (CTH-DATA §9.1): which shield to turn toward
# the enemy ("keep the strong #1 shield toward the enemy").
CADET_SHIELDS = {
    "klingon": (16, 12, 8, 8, 8, 12),
    "federation": (16, 12, 10, 10, 10, 12),
    "kzinti": (12, 10, 10, 12, 10, 10),
    "orion": (12, 12, 8, 8, 8, 12),
    "hydran": (16, 12, 8, 8, 8, 12),
    "lyran": (16, 12, 8, 8, 8, 12),
    "romulan": (12, 12, 12, 12, 12, 12),
    "gorn": (16, 12, 12, 12, 12, 12),
    "isc": (16, 16, 12, 12, 12, 16),  # (CTH-DATA §12.1 PROPOSAL [P-003] sheet)
}


@dataclass(frozen=True)
class Doctrine:
    """How a race fights, as numbers (ranges in hexes)."""

    race: str
    band: tuple[int, int]  # preferred range while the heavy weapons are ready
    reload_band: tuple[int, int] | None = None  # range to keep while they reload
    heavy: tuple[str, ...] = ("disruptor", "photon")  # weapons the bow is pointed for
    fire_range: dict[str, int] = field(default_factory=dict)  # fire at once within this range
    hold_photons_past_turn: bool = True  # photons wait for a good shot (they reload 2 turns)
    drone_launch_range: int = 0  # launch at the target within this range (0 = never)
    drones_per_turn: int = 1
    screen: tuple[str, ...] = ()  # weapons held back for drones while drones are inbound
    strip_weapons: bool = False  # through a fallen shield, one phaser per impulse
    position_all: bool = False  # the helm counts every live weapon, ready or not
    lead_target: float = 1.0  # share of the target's observed speed the helm projects ahead
    drone_defence_range: int = 2  # shoot drones aimed at us this close (0 = never)
    drone_urgency: tuple[int, ...] = (0, 1)  # ... that the helm sees striking on these impulses
    cruise_speed: int = 8
    opening_threat: float = 1.0  # threat multiplier on the first impulses of turn 2
    opening_impulses: int = 3
    opening_every: int = 0  # repeat the opening caution every this many turns (0 = once)
    early_band: tuple[int, int] | None = None  # range to keep early in each turn
    early_impulses: int = 0
    hold_off_turns: int = 0  # keep to the endgame band on the first turns
    endgame_turns: int = 0  # in the last turns, ahead on points: keep away (0 = never)
    endgame_margin: float = 5.0  # points ahead that count as a lead
    endgame_band: tuple[int, int] = (10, 16)
    endgame_caution: float = 3.0  # threat weight multiplier (offense divided by it)
    behind_band: tuple[int, int] | None = None  # in the last turns, behind on points: close in
    threat_model: tuple[tuple[str, str, float], ...] = TYPICAL_ENEMY  # what the enemy carries
    shields: tuple[int, ...] = (1, 1, 1, 1, 1, 1)
    weights: dict[str, float] = field(default_factory=dict)  # helm weights (see helm.Goal)
    esg_range: int = 0  # announce an ESG release when the target is this close (0 = never)
    esg_drone_range: int = 0  # ... or when a drone aimed at us is this close
    cloak_on_reload: bool = False  # cloak (G13.0) for turns no plasma torpedo is ready
    cloak_speed: int = 8  # speed ordered for a cloaked turn (the cloak takes 6-8 power)


DOCTRINES: dict[str, Doctrine] = {
    # Fast-cycling disruptors and short-ranged Ph-2: close in, bow on, drone waves.
    "klingon": Doctrine(
        race="klingon", band=(2, 4),
        fire_range={"disruptor": 4, "ph-2": 3, "ph-1": 5, "ph-3": 2},
        drone_launch_range=14, drones_per_turn=1, shields=CADET_SHIELDS["klingon"],
        weights={"shield_weight": 1.0},
    ),
    # Photons reward strike-and-withdraw: close to photon range, fire, stand off while they
    # reload; phasers at close range.
    "federation": Doctrine(
        race="federation", band=(4, 6), reload_band=(8, 12), heavy=("photon",),
        fire_range={"photon": 5, "ph-1": 5}, opening_threat=4.0, opening_impulses=8,
        hold_photons_past_turn=False, endgame_turns=2, behind_band=(2, 4),
        cruise_speed=8, shields=CADET_SHIELDS["federation"],
    ),
    # More drones than disruptors, a Ph-3 screen: swarm, then close for the Ph-3s.
    "kzinti": Doctrine(
        race="kzinti", band=(1, 3), heavy=("disruptor", "ph-1"),
        fire_range={"disruptor": 4, "ph-1": 4, "ph-3": 2},
        drone_launch_range=14, drones_per_turn=2, cruise_speed=8, screen=("ph-3",),
        shields=CADET_SHIELDS["kzinti"],
    ),
    # Photons and drones, phasers to finish.
    "orion": Doctrine(
        race="orion", band=(2, 4), reload_band=(2, 5), heavy=("photon", "ph-1"),
        fire_range={"photon": 4, "ph-1": 4, "ph-3": 2},
        drone_launch_range=14, drones_per_turn=2, shields=CADET_SHIELDS["orion"],
    ),
    # Fusion beams are deadly at 0-3 hexes and weak beyond (E7.31 table): run in fast and fight
    # at 1-3, bow on (both beams bear in LF and RF); the Ph-2s at close range, the aft Ph-G
    # mostly on drones. A beam that fired cools a turn (E7.22), so the bridge holds it for a
    # close shot; keep close for the Ph-2s meanwhile. Early in each turn, while the enemy's
    # fresh weapons are likeliest to fire, stand off at 5-8 and close in later in the turn.
    "hydran": Doctrine(
        race="hydran", band=(1, 3), heavy=("fusion",),
        fire_range={"fusion": 3, "ph-2": 3, "ph-g": 2},
        early_band=(5, 8), early_impulses=3,
        cruise_speed=8, shields=CADET_SHIELDS["hydran"],
    ),
    # Disruptors in band and the expanding sphere: close to 1-3 hexes, bow on, and announce the
    # ESG as the enemy closes so the field is up when it crosses the ring (G23.31 lead, G23.51
    # contact). A field lasts a turn and cannot form again before the second turn after
    # (G23.323), so it is spent on a ship in reach or on drones about to strike.
    "lyran": Doctrine(
        race="lyran", band=(1, 3), heavy=("disruptor",),
        fire_range={"disruptor": 3, "ph-1": 4, "ph-3": 2},
        cruise_speed=8, shields=CADET_SHIELDS["lyran"], esg_range=5, esg_drone_range=4,
    ),
    # The slow plasma torpedo is the main punch (SCENARIOS §5): close bow on to 10 hexes or
    # less, where a plasma-S still carries 30 (FP1.0), launch from the fixed tube at a ship in
    # the FA (FP3.1), phasers at 5; cloak for the turns the tube reloads (G13.0 cadet rule),
    # slowing to pay for it. Plasma in flight is shot down by the phasers (FP1.6).
    "romulan": Doctrine(
        race="romulan", band=(4, 8), heavy=("ph-1",),
        fire_range={"ph-1": 5}, drone_launch_range=10, drones_per_turn=1, cruise_speed=12,
        cloak_on_reload=True, cloak_speed=8, shields=CADET_SHIELDS["romulan"],
    ),
    # Two plasma-F tubes in the side arcs (L+LF, RF+R) lose half their 20 past 10 hexes
    # (FP1.0): close to 5, launch both, turn the strong #1 shield and the FA phaser in.
    "gorn": Doctrine(
        race="gorn", band=(2, 5), heavy=("ph-1",), fire_range={"ph-1": 5},
        drone_launch_range=6, drones_per_turn=2, cruise_speed=12,
        shields=CADET_SHIELDS["gorn"],
    ),
    # (SCENARIOS §5 ISC) the phasers are the drone defence, plasma knocks shields down and the
    # PPD's pulses strip the weapons behind them; keep the range above 3, where the PPD cannot
    # fire (E11.312). The PPD locks on 2d6 <= 9 and scores 6 a pulse at 4-10 hexes (E11.31
    # chart): fight at 4-8 bow on (it bears in FA only), fire it at 10 or less, Ph-1s at 5.
    # Through a fallen shield one phaser an impulse strips a weapon (D4.0).
    "isc": Doctrine(
        race="isc", band=(4, 8), heavy=("ppd",), fire_range={"ppd": 10, "ph-1": 5},
        drone_launch_range=8, drones_per_turn=2, strip_weapons=True, drone_defence_range=3,
        cruise_speed=8, shields=CADET_SHIELDS["isc"],
    ),
}


def doctrine_for_weapons(weapon_types: list[str]) -> Doctrine:
    """The race doctrine matching a ship's weapons (the cadet ships of CTH-DATA §9.1)."""
    kinds = set(weapon_types)
    racks = weapon_types.count("drone-rack")
    if "ppd" in kinds:
        return DOCTRINES["isc"]
    if "plasma-f" in kinds:
        return DOCTRINES["gorn"]
    if kinds & {"plasma-s", "plasma-r"}:
        return DOCTRINES["romulan"]
    if "esg" in kinds:
        return DOCTRINES["lyran"]
    if "fusion" in kinds:
        return DOCTRINES["hydran"]
    if "photon" in kinds:
        return DOCTRINES["orion" if racks else "federation"]
    if "disruptor" in kinds:
        return DOCTRINES["kzinti" if racks > 1 or "ph-3" in kinds else "klingon"]
    return replace(DOCTRINES["federation"], race="generic", heavy=())


class DoctrineCaptain:
    """A scripted captain flying one ship by a race ``Doctrine`` (``None``: recognise the race
    from the weapons when the components arrive).

    Call ``bind(env, agent)`` (or pass ``components``) before ``act``; ``reset(seed)`` starts an
    episode (the captain keeps a short memory: the target's track, its own turn mode, when its
    photons fired).
    """

    horizon = 6  # impulses the helm looks ahead

    def __init__(
        self,
        doctrine: Doctrine | str | None = None,
        components: list[dict[str, Any]] | None = None,
        seed: int | None = None,
    ) -> None:
        self.auto = doctrine is None
        self.doctrine = DOCTRINES[doctrine] if isinstance(doctrine, str) else doctrine
        self.layout: ShipLayout | None = None
        if components is not None:
            self.configure(components)
        self.reset(seed)

    # ------------------------------------------------------------------ Policy protocol

    def bind(self, env: Any, agent: str) -> None:
        """Read the static action components of ``agent`` (``env.action_components``) and the
        length of its observation's rule-features block (``env.rule_features``)."""
        self.configure(env.action_components(agent))
        blocks = getattr(env, "rule_features", None)
        if callable(blocks):
            self.layout = replace(self.layout, rule_features=sum(blocks(agent).values()))

    def configure(self, components: list[dict[str, Any]]) -> None:
        """Set up from an action-component description (see ``env.action_components``)."""
        self.layout = ShipLayout.from_components(components)
        if self.auto or self.doctrine is None:
            self.doctrine = doctrine_for_weapons(self.layout.weapon_types)

    def reset(self, seed: int | None = None) -> None:
        del seed  # deterministic: nothing to draw
        self.memory = Memory()

    def act(self, observation: dict[str, np.ndarray], action_space: spaces.Space) -> np.ndarray:
        if self.layout is None or self.doctrine is None:
            raise RuntimeError(
                "DoctrineCaptain needs its action components: call bind(env, agent) first"
            )
        return Bridge(self, observation, action_space).orders()


def _factory(race: str | None):
    def make(**kwargs: Any) -> DoctrineCaptain:
        return DoctrineCaptain(race, **kwargs)

    make.__doc__ = f"The {race or 'auto-detected race'} doctrine captain."
    return make


for _race in DOCTRINES:
    register_policy(f"{_race}-doctrine", _factory(_race),
                    description=f"{_race} race doctrine captain (scripted, deterministic)")
register_policy("doctrine", _factory(None),
                description="race doctrine captain, race recognised from the ship's weapons")
