"""``Rules``: the rules in force in a battle, typed and frozen (L0).

The only way the engine, the env and the captains ask whether a rule is on: the scenario's
switches (``rules:`` in a scenario file, defaults below, SCENARIOS.md §1 rule packages), what
follows from them (``energy_form``, ``standard_energy``, ``standard_cloak``), and what the
battle's units bring into play (``esg_in_play``, ``planets_in_play``, ...; set by the battle
builder, False on a scenario's own ``Rules``).

``load_rules(given, source, impulses_per_turn)`` is the loader: it fills the defaults, derives
``chief_engineer``/``energy`` from each other (B3.0), checks types, choices and the rules each
one needs, and names the field of any error (``ScenarioError``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from sfb_env.engine.types import WEAPON_KEYS


class ScenarioError(ValueError):
    """A scenario file or dict is invalid; names the file and the field."""

    def __init__(self, source: str, field: str, problem: str) -> None:
        self.source = source
        self.field = field
        super().__init__(f"{source}: field '{field}': {problem}")


# Rules in force and their defaults (SCENARIOS.md §1 rule packages); docs/rules.md says what
# each switch turns on.
RULE_DEFAULTS: dict[str, Any] = {
    "chief_engineer": True,  # (R1) automatic energy, SCENARIOS §2.1; derived from ``energy``
    "energy": "chief",  # (B3.0) chief | cadet | standard | off [P-024]
    "cloak": "none",  # (G13.0) none | cadet | standard
    "lock_on": False,  # (D6) Sensor Lock-On step each turn
    "speed_choice": False,  # scenario 3: the player picks speed 0..max each turn
    "damage": "interim",  # none | interim (D4.0) | s4 | cadet_dac | standard_dac (D4.21)
    "shield_boundary": "advanced",  # (D3.41) advanced | die
    "seeking_weapons": True,  # False: Resolve/Launch Seeking Weapons skipped (scen. 1)
    "launch_seeking_weapons": True,  # False: scen. 2 skips Launch Seeking Weapons
    "drone_endurance": True,  # (FD1) 3-turn endurance
    "drone_die_modifier": True,  # (FD1.52) +2 for disruptor/photon at drones
    "drone_warhead": 6,  # (FD1.6) cadet ships
    "drone_strength": 4,  # (FD1.54) points to destroy a drone
    "launch_facing": False,  # (FD1.2) the agent picks a drone's launch facing (``launch[r]``)
    "weapons_allowed": None,  # weapon types in use, None = all (scen. 1: ph-1)
    "explosions": False,  # house rule of rules file 003 (CTH-DATA §8.10)
    "max_speed": None,  # ship speed cap; None = the chart size (C1.42)
    "sideslip": False,  # (C4) maneuver values 4/5
    "admin_shuttles": False,  # (J1.0) administrative shuttles as unit rows
    "suicide_shuttles": False,  # (J2.22) needs admin_shuttles and energy: standard
    "tactical_maneuvers": False,  # (C5) maneuver values 6/7; plotted with the speed choice
    "reinforcement": False,  # (D3.34) needs energy: standard
    "damage_control": False,  # (D9.2) the ``repair`` component; energy: standard
    "reserve_power": False,  # (H7) batteries during the turn; energy: standard
    "tractors": False,  # (G7.0, R8) tractor beams
    "mutiny": False,  # (G6) Klingon mutiny; needs damage: standard_dac
    "disengage_by_announcement": False,  # (SCENARIOS #5 special) the ``disengage`` component
    "fractional_accounting": False,  # (B3.2, R8) needs energy: cadet or standard
    "transporters": False,  # (G8.0, R8) transporters
    "boarding": False,  # (D7.0, R8) boarding-party combat at the end of each turn, capture
    "labs": False,  # (G4.0, R11) lab research on a monster each turn
    "probes": False,  # (G5.0, R11) probe launchers; needs energy: standard
    "antimatter_probes": False,  # (G5.31) needs probes
}

RULE_CHOICES = {
    "damage": ("none", "interim", "s4", "cadet_dac", "standard_dac"),
    "shield_boundary": ("advanced", "die"),
    "energy": ("chief", "cadet", "standard", "off"),
    "cloak": ("none", "cadet", "standard"),
}


@dataclass(frozen=True)
class Rules:
    """The rules in force (see ``RULE_DEFAULTS`` for the switches and their rule numbers)."""

    chief_engineer: bool = True
    energy: str = "chief"
    cloak: str = "none"
    lock_on: bool = False
    speed_choice: bool = False
    damage: str = "interim"
    shield_boundary: str = "advanced"
    seeking_weapons: bool = True
    launch_seeking_weapons: bool = True
    drone_endurance: bool = True
    drone_die_modifier: bool = True
    drone_warhead: int = 6
    drone_strength: int = 4
    launch_facing: bool = False
    weapons_allowed: tuple[str, ...] | None = None
    explosions: bool = False
    max_speed: int = 31
    sideslip: bool = False
    admin_shuttles: bool = False
    suicide_shuttles: bool = False
    tactical_maneuvers: bool = False
    reinforcement: bool = False
    damage_control: bool = False
    reserve_power: bool = False
    tractors: bool = False
    mutiny: bool = False
    disengage_by_announcement: bool = False
    fractional_accounting: bool = False
    transporters: bool = False
    boarding: bool = False
    labs: bool = False
    probes: bool = False
    antimatter_probes: bool = False
    # --- what the battle's units bring into play (the battle builder sets these) -----------
    esg_in_play: bool = False  # (G23) an expanding sphere generator in use
    ppd_in_play: bool = False  # (E11) a plasmatic pulsar device in use
    plasma_in_play: bool = False  # (FP1) a plasma launcher in use
    small_craft_in_play: bool = False  # (J4, J1) fighters or administrative shuttles
    planets_in_play: bool = False  # (P2.0) a planet on the map
    monster_in_play: bool = False  # (scenario 11) the Planet Killer
    probes_in_play: bool = False  # (G5.11) a probe launcher with probes
    arrivals: bool = False  # a unit enters the map later (scenario 8)
    hold_fire: bool = False  # a unit may never fire at some kinds (scenario 8)
    may_not_leave: bool = False  # a unit may not leave the map (scenario 8)
    # --- what follows from the switches (derived in __post_init__) ------------------------
    energy_form: bool = field(default=False, init=False)  # (B3.0) cadet or standard form
    standard_energy: bool = field(default=False, init=False)  # the standard form (R7)
    standard_cloak: bool = field(default=False, init=False)  # (G13) the standard cloak rule
    research: bool = field(default=False, init=False)  # (G4.0) labs with a monster in play

    def __post_init__(self) -> None:
        derived = {
            "energy_form": self.energy in ("cadet", "standard"),
            "standard_energy": self.energy == "standard",
            "standard_cloak": self.cloak == "standard",
            "research": self.labs and self.monster_in_play,
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    def switches(self) -> dict[str, Any]:
        """The scenario switches as a plain dict (``RULE_DEFAULTS`` keys), e.g. for replays."""
        out = {k: getattr(self, k) for k in RULE_DEFAULTS}
        if out["weapons_allowed"] is not None:
            out["weapons_allowed"] = list(out["weapons_allowed"])
        return out


SWITCHES = tuple(f.name for f in fields(Rules) if f.name in RULE_DEFAULTS)
assert tuple(RULE_DEFAULTS) == SWITCHES, "Rules fields and RULE_DEFAULTS keys differ"


def load_rules(given: Any, source: str, impulses_per_turn: int) -> Rules:
    """The ``rules:`` mapping of a scenario, validated, as ``Rules`` (the only loader)."""
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise ScenarioError(source, "rules", "expected a mapping")
    rules = dict(RULE_DEFAULTS)
    for key, value in given.items():
        if key not in RULE_DEFAULTS:
            raise ScenarioError(source, f"rules.{key}",
                                f"unknown rule; known: {sorted(RULE_DEFAULTS)}")
        rules[key] = value
    _energy_rule(rules, given, source)
    _check_rules(rules, source, impulses_per_turn)
    if rules["weapons_allowed"] is not None:
        rules["weapons_allowed"] = tuple(rules["weapons_allowed"])
    return Rules(**rules)


def _energy_rule(rules: dict[str, Any], given: Mapping[str, Any], source: str) -> None:
    """Keep ``chief_engineer`` and ``energy`` (B3.0) one setting: the field not given is derived
    from the other (``chief_engineer: false`` alone -> ``energy: off``); both given must agree."""
    chief = rules["chief_engineer"]
    if not isinstance(chief, bool):
        return  # _check_rules names the field
    if "energy" not in given:
        rules["energy"] = "chief" if chief else "off"
    elif "chief_engineer" not in given:
        rules["chief_engineer"] = rules["energy"] == "chief"
    elif chief != (rules["energy"] == "chief"):
        raise ScenarioError(source, "rules.chief_engineer",
                            f"chief_engineer: {str(chief).lower()} contradicts energy: "
                            f"{rules['energy']!r} (B3.0: the Chief Engineer is energy 'chief')")


def _check_rules(rules: dict[str, Any], source: str, ipt: int) -> None:
    """Type and value checks of the rules in force; fills ``max_speed`` (C1.42)."""
    for key, default in RULE_DEFAULTS.items():
        value = rules[key]
        if isinstance(default, bool) and not isinstance(value, bool):
            raise ScenarioError(source, f"rules.{key}", f"expected true or false, got {value!r}")
        if type(default) is int and (isinstance(value, bool) or not isinstance(value, int)
                                     or value < 0):
            raise ScenarioError(source, f"rules.{key}", f"expected an integer >= 0, got {value!r}")
    for key, choices in RULE_CHOICES.items():
        if rules[key] not in choices:
            raise ScenarioError(source, f"rules.{key}", f"unknown {key} rule {rules[key]!r}; "
                                f"expected one of {list(choices)}")
    for key, rule in (("reinforcement", "D3.34"), ("damage_control", "D9.2"),
                      ("reserve_power", "H7.0"), ("probes", "G5.2")):
        if rules[key] and rules["energy"] != "standard":
            raise ScenarioError(source, f"rules.{key}", f"{key} ({rule}) is paid on the standard "
                                f"Energy Allocation Form: needs energy: standard")
    if rules["fractional_accounting"] and rules["energy"] not in ("cadet", "standard"):
        raise ScenarioError(source, "rules.fractional_accounting", "fractional accounting (B3.2) "
                            "is kept on an Energy Allocation Form: needs energy: cadet or standard")
    if rules["suicide_shuttles"] and not (rules["admin_shuttles"]
                                          and rules["energy"] == "standard"):
        raise ScenarioError(source, "rules.suicide_shuttles", "suicide shuttles (J2.221) are "
                            "administrative shuttles armed on the standard Energy Allocation "
                            "Form: needs admin_shuttles: true and energy: standard")
    if rules["antimatter_probes"] and not rules["probes"]:
        raise ScenarioError(source, "rules.antimatter_probes", "anti-matter probes (G5.31) are "
                            "fired from probe launchers: needs probes: true")
    if rules["mutiny"] and rules["damage"] != "standard_dac":
        raise ScenarioError(source, "rules.mutiny", "mutiny (G6.1) needs damage: standard_dac "
                            "(its flag-bridge hits destroy the security stations)")
    allowed = rules["weapons_allowed"]
    if allowed is not None:
        if not isinstance(allowed, list) or not all(isinstance(w, str) for w in allowed):
            raise ScenarioError(source, "rules.weapons_allowed", "expected a list of weapon types")
        unknown = [w for w in allowed if w not in WEAPON_KEYS]
        if unknown:
            raise ScenarioError(source, "rules.weapons_allowed",
                                f"unknown weapon type(s) {unknown}; known: {sorted(WEAPON_KEYS)}")
    chart_max = min(ipt, 31)  # (C1.42) ships: 0..8 / 0..16 / 0..31
    max_speed = rules["max_speed"]
    if max_speed is None:
        rules["max_speed"] = chart_max
    elif isinstance(max_speed, bool) or not isinstance(max_speed, int) or not (
        0 <= max_speed <= chart_max
    ):
        raise ScenarioError(source, "rules.max_speed",
                            f"max_speed {max_speed!r} outside 0..{chart_max} (C1.42)")
