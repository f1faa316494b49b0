"""Which scenarios the compiled core plays: every rule they switch on must be ported.

Tier 1 (issue 12) is the cadet 8-impulse game of cth-01..03 and the six cadet duels: movement
and turn modes, direct fire (phasers, disruptors, photons), shields, drones and target drones,
freighters and the scenario robots, damage (``none`` / ``interim``), victory, observation, masks
and rewards. Tier 2 so far: the 16-impulse chart, the cadet DAC (D4.21), scenario 5's
encounter victory and disengagement by announcement, plasma torpedoes (FP1, the Gorn and the
Romulan), the Hydran Cadet Cruiser's weapons (fusion beams E7, the phaser-G and its shots 2..4
E2.15), the cadet and standard Energy Allocation Forms (``energy: cadet | standard``, B3.0:
``compiled.energy``, with the cadet cloak and fractional accounting, B3.2; its reinforcement
D3.34, damage control D9 and reserve power H7, and the Klingon mutiny G6:
``compiled.engineering``), the ISC's PPD (E11,
``compiled.ppd``) and the Lyran ESG (G23, ``compiled.esg``), under the Chief Engineer and
the cadet form (their arming and charge: ``compiled.energy``). The 32-impulse full-size game,
first part: the 32-impulse chart (C1.41), the full-size classes of CTH-DATA §9.2 but the
Hydran Ranger (fighters, admin shuttles): the D7's drone rate (FD4.21), the plasma launchers,
the ISC's PPD, the Lyran Tiger's two ESGs (G23.122), the Romulans without the standard cloak;
drones of warhead 12 (CTH-DATA §5.2). The standard DAC (``damage: standard_dac``, D4.2-D4.4:
``compiled.std_dac``) and Sensor Lock-On (``lock_on: true``, D6: ``compiled.sensors``). The
standard cloak (``cloak: standard``, G13: ``compiled.cloak``). Sideslip (C4), tactical
maneuvers (C5) and the owner's drone launch facing (FD1.2): ``compiled.maneuvers``.
Small craft (``small_craft_in_play``, ``admin_shuttles``: the Hydran Ranger's J4 Stinger-F
fighters, J1.0 administrative shuttles; ``compiled.small_craft``), with the PPD (E11.361) and
the ESG (G23.515) at them and a carrier's cloak (G13). The Dakota Incident (SCENARIOS #4): the
robot ship (§2.5, ``compiled.robot_ship``), the stranded freighter (§2.7), the scenario-4
damage rule (CTH-DATA §10.1) and its victory. Tier 3: the Pirate Raid (SCENARIOS #8: tractors,
transporters, boarding, ``compiled.tractors``, ``.transporters``, ``.boarding``) and Rescue at
Rigel (SCENARIOS #9: planets and the survivors, ``compiled.planets``; suicide shuttles,
``compiled.suicide_shuttles``; the ``rescue`` verdict) and The Planet Killer (SCENARIOS #11:
the monster, its kill methods, lab research and probes, ``compiled.planet_killer``,
``.kill_methods``, ``.probes``; the ``planet_killer`` verdict).
``why_not(setup)`` names the first rule or unit that keeps a battle on the reference engine, or
returns None when the compiled core may play it; ``parallel_env``'s ``backend="auto"`` takes the
compiled core exactly then.
"""

from __future__ import annotations

from dataclasses import fields

from sfb_env.engine.rules import RULE_DEFAULTS
from sfb_env.engine.setup import BattleSetup

# Rules whose value may differ from the default on a compiled battle, with the values ported.
PORTED_VALUES: dict[str, tuple] = {
    "chief_engineer": (True, False),  # False: with energy cadet only (rules derives them)
    "energy": ("chief", "cadet", "standard"),  # (B3.0) the cadet and standard Energy
    #   Allocation Forms: compiled.energy (the standard form without the items its
    #   STANDARD_NOT_PORTED names: energy_tables refuses them)
    "energy_form": (False, True),  # derived from energy: the cadet or standard form
    "standard_energy": (False, True),  # derived: the standard form (systems, acceleration,
    #   a cadet ship's move cost 1/2 among full-size ones: SCENARIOS #12)
    "fractional_accounting": (False, True),  # (B3.2) the pools exact: compiled.energy
    # (D3.34, D9, H7) on the standard form: compiled.engineering (energy_tables refuses them
    # beside a PPD or an ESG, and reserve power with fusion beams)
    "reinforcement": (False, True),
    "damage_control": (False, True),
    "reserve_power": (False, True),
    "mutiny": (False, True),  # (G6) compiled.engineering (a ship alone on its side: the
    #   capture ends the battle, G6.33)
    "speed_choice": (True, False),
    "damage": ("none", "interim", "cadet_dac", "standard_dac",  # (D4.2-D4.4) compiled.std_dac
               "s4"),  # (scenario-4 rule, CTH-DATA §10.1) compiled.damage
    "lock_on": (True, False),  # (D6) Sensor Lock-On, scanners: compiled.sensors
    "disengage_by_announcement": (True, False),
    "plasma_in_play": (True, False),  # (FP1) plasma torpedoes: compiled.plasma
    "cloak": ("none", "cadet", "standard"),  # (G13) paid at Energy Allocation:
    #   compiled.energy; the standard rule's fades and announcements: compiled.cloak
    "standard_cloak": (False, True),  # derived from cloak (G13 standard rule)
    "ppd_in_play": (True, False),  # (E11) compiled.ppd; its charge under the cadet form (E11.21-
    #   E11.25) compiled.energy
    # (G23) the ESG, one generator in the battle: compiled.esg (its esg_tables refuses the
    # standard form's charge, reserve power and two ships' fields); the cadet form's charge
    # (G23.21, priority 6) compiled.energy
    "esg_in_play": (True, False),
    "shield_boundary": ("advanced",),
    "seeking_weapons": (True, False),
    "launch_seeking_weapons": (True, False),
    "drone_endurance": (True, False),
    "drone_warhead": (6, 12),  # (FD1.6; CTH-DATA §5.2 full-size ships) seeking_impacts
    "drone_die_modifier": (True, False),
    "small_craft_in_play": (True, False),  # (J4, J1.0) compiled.small_craft
    "admin_shuttles": (True, False),  # (J1.0) administrative shuttles
    "weapons_allowed": "any",
    # (C4.0, C5.0, FD1.2) sideslip, tactical maneuvers (their payment on the forms, C5.12,
    # C5.22) and the owner's drone launch facing: compiled.maneuvers
    "sideslip": (True, False),
    "tactical_maneuvers": (True, False),
    "launch_facing": (True, False),
    "max_speed": "any",  # the speed component's size; movement reads the speed
    # (G7.0) tractor beams: compiled.tractors (tractor_tables refuses them beside reserve
    # power, a PPD or an ESG)
    "tractors": (False, True),
    # (G8.0, G8.24, D7.0) transporters, shield drops and boarding-party combat:
    # compiled.transporters, compiled.boarding (transporter_tables refuses reserve power and
    # fractional accounting beside them)
    "transporters": (False, True),
    "boarding": (False, True),
    # (scenario 8 unit fields) compiled.unit_rules: the masks of hold_fire_at and may_leave
    # false (observe refuses may_leave false beside sideslip or TAC, or off the 32-impulse
    # chart), arrivals (a unit not arrived: the no-op mask)
    "hold_fire": (False, True),
    "may_not_leave": (False, True),
    "arrivals": (False, True),
    # (P2.0; scenario 9's survivors, CTH-DATA §12.4) compiled.planets (planet_tables refuses
    # them beside a PPD, an ESG, sideslip, TAC, may_leave false and the robots
    # that fly ships or freighters)
    "planets_in_play": (False, True),
    # (J2.22-J2.222) suicide shuttles on the standard form: compiled.suicide_shuttles
    # (suicide_tables refuses them beside a cloak)
    "suicide_shuttles": (False, True),
    # (scenario 11, SCENARIOS §2.8) the Planet Killer, its kill methods, lab research (G4.0)
    # and probes on the standard form (G5.0): compiled.planet_killer, compiled.kill_methods,
    # compiled.probes
    "monster_in_play": (False, True),
    "labs": (False, True),
    "research": (False, True),
    "probes": (False, True),
    "probes_in_play": (False, True),
    "antimatter_probes": (False, True),
}
PORTED_CLASSES = {"fed-cadet", "klingon-cadet", "kzinti-cadet", "orion-cadet", "freighter",
                  "freighter-large",  # (scenario 8) the freighter's doubled values (R1.6)
                  "drone", "target-drone",
                  "gorn-cadet",  # tier 2: plasma-F launchers (FP1)
                  "romulan-cadet",  # tier 2: a fixed plasma-S launcher (FP3.1), the cadet cloak
                  "hydran-cadet",  # tier 2: fusion beams (E7), the phaser-G (E2.15)
                  "isc-cadet",  # tier 2: the PPD (E11; Chief Engineer and cadet form)
                  "lyran-cadet",  # tier 2: the ESG (G23; Chief Engineer and cadet form)
                  # tier 2, the full-size ships (CTH-DATA §9.2, 32 impulses): the D7's one
                  # drone launch a turn (FD4.21), plasma-S (FP1), the PPD (E11), the Tiger's
                  # two ESGs (G23.122: compiled.esg); the Orion's 2/3 move cost (CTH-DATA
                  # §7.3: compiled.energy's speed_rule, exact under B3.2)
                  "klingon-d7", "fed-ca", "gorn-ca", "kzinti-cs", "isc-star-cruiser",
                  "lyran-tiger", "orion-raider",
                  # without the standard cloak (rules cloak none / cadet only): the KR's swivel
                  # plasma-S launchers (FP3.1), the War Eagle's fixed plasma-R
                  "romulan-kr", "romulan-war-eagle",
                  "hydran-ranger",  # (J4.0, J1.0) its fighters and shuttles: small_craft
                  "planet",  # (P2.0) compiled.planets
                  "planet-killer"}  # (scenario 11) compiled.planet_killer
PORTED_CONTROLLERS = {"agent", "target-drone", "robot-drone", "convoy-freighter",
                      "robot-plasma",
                      "robot-fighter", "robot-shuttle",  # (J4.12, J1.0) compiled.small_craft
                      "robot-ship",  # (SCENARIOS §2.5) compiled.robot_ship
                      "stranded",  # (SCENARIOS §2.7) the Dakota: neither moves nor fires
                      "planet",  # (P2.0) a planet never moves or fires
                      "planet-killer"}  # (SCENARIOS §2.8) compiled.planet_killer
PORTED_VICTORY = {"battle_drill", "under_attack", "convoy_raid", "duel", "encounter",
                  "dakota_incident",  # (SCENARIOS #4) compiled.ending._dakota_a
                  "pirate_raid",  # (SCENARIOS #8) compiled.ending._pirate_a
                  "rescue",  # (SCENARIOS #9) compiled.ending._rescue_a
                  "planet_killer"}  # (SCENARIOS #11) compiled.ending._planet_killer_a
# Victory kinds whose wording (level, reason) reads the event log, not the state alone: the
# compiled env decodes its events before asking ``engine.victory`` (``compiled.parallel``).
EVENT_VICTORY = {"dakota_incident"}
IMPULSES_PER_TURN = (8, 16, 32)
# (C3.2) Where orders pick next turn's speed the engine judges the maneuver at that speed, a
# joint check the per-component masks cannot make. On the 8- and 16-impulse charts only the
# top speed moves on impulse 1, so every (speed, maneuver) pair the masks leave open passes it
# (tests/test_compiled_env.py checks this over played battles): no joint check is needed. On
# the 32-impulse chart ships move at 0..31 (C1.42) and only speed 32 moves on impulse 1
# (C1.41), so no ship speed moves there and the maneuver is unused at every speed (the masks
# open NONE alone; tests/test_compiled_full.py). Sideslips (C4.1) follow the same union (open
# where an allowed speed moves on impulse 1 and the slip mode is met) and no tactical maneuver
# is open on impulse 1 (C5.11), so the check stays unneeded with them
# (tests/test_compiled_maneuvers.py).
JOINT_SPEED_MANEUVER_CHECK = False


def why_not(setup: BattleSetup) -> str | None:
    """The first reason ``setup`` needs the reference engine, or None if tier 1 covers it."""
    reasons = missing(setup)
    return reasons[0] if reasons else None


def missing(setup: BattleSetup) -> list[str]:
    """Every reason ``setup`` needs the reference engine (empty: the compiled core plays it):
    the impulse chart, the victory kind, each unit class and controller, each rule value."""
    sc = setup.scenario
    out = []
    if sc.impulses_per_turn not in IMPULSES_PER_TURN:
        out.append(f"impulses_per_turn {sc.impulses_per_turn} (ported: "
                   f"{', '.join(map(str, IMPULSES_PER_TURN))})")
    if sc.victory["kind"] not in PORTED_VICTORY:
        out.append(f"victory kind {sc.victory['kind']!r} not ported")
    for spec in sc.units:
        if spec.unit_class not in PORTED_CLASSES:
            out.append(f"unit {spec.id!r} of class {spec.unit_class!r} not ported")
        if spec.controller not in PORTED_CONTROLLERS:
            out.append(f"unit {spec.id!r} flown by {spec.controller!r}, not ported")
    rules = setup.rules
    for f in fields(rules):
        value = getattr(rules, f.name)
        allowed = PORTED_VALUES.get(f.name)
        if allowed == "any":
            continue
        if allowed is not None:
            if value not in allowed:
                out.append(f"rule {f.name}={value!r} not ported (ported: {list(allowed)})")
            continue
        default = RULE_DEFAULTS.get(f.name, _derived_default(f.name))
        if value != default:
            out.append(f"rule {f.name}={value!r} not ported (only {default!r})")
    if not out:  # what the rule areas' tables refuse (a weapon a ported rule does not arm, ...)
        refused = _tables_refuse(setup)
        if refused:
            out.append(refused)
    return out


def _tables_refuse(setup: BattleSetup) -> str | None:
    """The first refusal of the compiled tables' builders for ``setup``, or None."""
    from sfb_env.compiled import observe, procedure

    try:
        procedure.step_tables(setup, observe.observe_tables(setup))
    except NotImplementedError as exc:
        return f"compiled tables: {exc}"
    return None


def compiled_scenarios() -> list[str]:
    """The shipped scenarios (``configs/scenarios``) the compiled core plays, by name."""
    from sfb_env.engine.battle import make_battle
    from sfb_env.engine.scenario import list_scenarios, load_scenario

    return [name for name in list_scenarios()
            if not missing(make_battle(load_scenario(name)).setup)]


def _derived_default(name: str) -> object:
    """Derived and in-play flags of ``Rules`` that tier 1 needs off (False / empty)."""
    return False
