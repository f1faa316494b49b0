"""Fuzzing with captains that fight (issue 13), over every listed scenario.

Random masked play announces disengagement at once where the scenario offers it and flies off
the map elsewhere, so it explored turn 1 only. Here ``fuzz_helpers`` captains that stay in the
fight -- ``random-fighter``, doctrine (or mission) captains with random components, and one of
each -- play every scenario with ``illegal_action="raise"`` and the engine validating every
order the masks allowed (no allowed action may be refused: DESIGN "Spaces and masks"; the
both-ways mask tests are in ``test_env_masks.py``), and each run must reach the coverage of
its row in ``COVERAGE``: the turn, the weapon kinds fired and the event kinds seen.

The CI run is ``CI_STEPS`` steps per scenario (games cut at ``CI_PER_GAME``), tiered like the
other per-scenario tests (``scenario_tiers``: the non-representative full-size graduate
pairings run under ``-m slow``), with the compiled core following every game step by step
(``parity.Mirror``: the same state, observations, masks, rewards and events, so one reference
run serves the fuzz and the parity harness); the long run (``-m slow``) is ``LONG_STEPS``
steps. A game is
reproducible from its seed and style, so the long run plays the CI games and more: the same
floor holds for it. ``benchmarks/fuzz_coverage.py`` prints what a run reaches as a markdown
table (its defaults are the CI run); the floors below were measured with it on seeds 0.. and
3.. (the CI run and the next three games), keeping what both reached, one turn less than the
fewer turns reached (above turn 2) and none of the incidental events (energy shortfalls,
unpowered fire, drones expiring, leaving the map).
"""

from __future__ import annotations

import pytest
from fuzz_helpers import Coverage, assert_covers, expect, fuzz_steps, markdown_table
from scenario_tiers import ci_params

import sfb_env

CI_STEPS, CI_PER_GAME = 240, 80  # three games (one per style) of up to 80 steps
LONG_STEPS, LONG_PER_GAME = 10_000, 600  # games to their end (turn limits, kills) mostly

SCENARIOS = sorted(sfb_env.list_scenarios())

# scenario -> the least a run reaches: expect(turn, weapon kinds fired, event kinds seen).
# Weapon kinds are ``Fired.weapon_type`` and, for launches, the kind of unit launched (drone,
# plasma, fighter, shuttle).
COVERAGE = {
    # cth-01: Battle Drill, the cruiser against five target drones that never shoot back (no seeking
    #   hit, no shield hit on the cruiser); the drill is over in turn 2 (drones destroyed or gone),
    #   before the photons arm
    "cth-01": expect(2, "ph-1", "Damaged Destroyed"),
    # cth-02: Under Attack, eight robot drones: photons and phasers against seeking hits
    "cth-02": expect(6, "ph-1 photon", "Damaged Destroyed SeekingHit"),
    # cth-03: Convoy Raid, the Klingon against robot freighters: disruptors, drones, destruction
    "cth-03": expect(6, "disruptor drone ph-2",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # cth-04: The Dakota Incident against the robot Klingon BC (R1-R4)
    "cth-04": expect(4, "disruptor drone ph-1 ph-2 photon",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # cth-04-three: The Dakota Incident against three robot BCs: the cruiser is soon destroyed, so
    #   few turns
    "cth-04-three": expect(2, "disruptor drone ph-1 ph-2 photon",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # cth-05: Encounter with disengagement closed to the captains (random play announced it at
    #   once): fights to turn 4+ with phasers, photons, disruptors and drones
    "cth-05": expect(4, "disruptor drone ph-1 ph-2 photon",
                  "Damaged Destroyed Launched SeekingHit"),
    # cth-06: The Enemy Unseen: plasma and the cadet cloak (the Romulan cloaks under doctrine and
    #   random orders, test_plasma_scenarios)
    "cth-06": expect(4, "ph-1 photon plasma", "Damaged Launched SeekingHit ShieldBoundary"),
    # cth-07: Single Combat, full-size ships on standard energy and DAC: lock-on, drones, photons
    "cth-07": expect(2, "disruptor drone ph-1 ph-2 photon",
                  "Damaged Destroyed Launched LockOn SeekingHit"),
    # cth-08: Pirate Raid with the pirate and defender captains: tractors, transporters, boarding
    #   and captures; the defender arrives on turn 6, past the CI run (the 10,000-step run reaches
    #   it)
    "cth-08": expect(2, "drone ph-1 ph-2 ph-3 photon",
                  "BoardingCombat Damaged Launched LockOn SeekingHit ShieldDropped "
                  "TractorAttached TractorReleased Transported"),
    # cth-09: Rescue at Rigel with the rescuer and opponent captains: shuttles, transporters,
    #   tractors, boarding; rescues and planet crashes vary by seed
    "cth-09": expect(2, "disruptor drone ph-1 ph-2 ph-3 photon shuttle",
                  "Damaged Destroyed Launched LockOn SeekingHit ShieldBoundary ShieldDropped "
                  "SuicideShuttleArmed SuicideShuttleDeactivated TractorAttached "
                  "TractorReleased Transported"),
    # cth-10: Direct Combat with the scenario-10 rules: reinforcement, shield repair, reserve power,
    #   TAC
    "cth-10": expect(2, "disruptor drone ph-1 ph-2 photon",
                  "Damaged GeneralReinforcementHeld Launched LockOn ReserveDischarged "
                  "SeekingHit ShieldBoundary ShieldsReinforced ShieldsRepaired"),
    # cth-11: The Planet Killer with the researcher: probes, labs, the monster fires and is struck;
    #   killing it needs several turns of research, past the CI run
    "cth-11": expect(2, "ph-1 photon shuttle",
                  "Damaged Launched LockOn MonsterFired MonsterStruck ProbeLaunched Researched "
                  "ShieldDropped Transported"),
    # cth-12: Force Dynamics, one D7 against three cadet cruisers under the scenario-10 rules
    "cth-12": expect(2, "disruptor drone ph-1 ph-2 photon",
                  "Damaged Destroyed GeneralReinforcementHeld Launched LockOn ReserveDischarged "
                  "SeekingHit ShieldBoundary ShieldsReinforced ShieldsRepaired TacticalManeuver "
                  "TacticalPlotted"),
    # cth-13: Earning Respect, every CTH advanced rule: reinforcement, reserve power, TAC
    "cth-13": expect(2, "disruptor drone ph-1 ph-2 photon",
                  "Damaged Destroyed GeneralReinforcementHeld Launched LockOn ReserveDischarged "
                  "SeekingHit ShieldsReinforced TacticalManeuver TacticalPlotted"),
    # duel-federation-vs-kzinti: cadet duel to the turn limit or a kill
    "duel-federation-vs-kzinti": expect(6, "disruptor drone ph-1 ph-3 photon",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # duel-federation-vs-orion: cadet duel to the turn limit or a kill
    "duel-federation-vs-orion": expect(6, "drone ph-1 ph-3 photon",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # duel-full-gorn-vs-klingon: full-size R7 duel (cloak, lock-on); plasma arms over turns 1-3, so
    #   not every CI run launches it
    "duel-full-gorn-vs-klingon": expect(2, "disruptor drone ph-1 ph-2 plasma",
                  "Damaged Destroyed Launched LockOn SeekingHit"),
    # duel-full-orion-vs-klingon: full-size R7 duel (cloak, lock-on); plasma arms over turns 1-3, so
    #   not every CI run launches it
    "duel-full-orion-vs-klingon": expect(2, "disruptor drone ph-1 ph-2 ph-3 photon",
                  "CloakAnnounced Damaged Destroyed Launched LockOn SeekingHit"),
    # duel-full-romulan-kr-vs-klingon: full-size R7 duel (cloak, lock-on); plasma arms over turns
    #   1-3, so not every CI run launches it
    "duel-full-romulan-kr-vs-klingon": expect(2, "disruptor drone ph-1 ph-2 plasma",
                  "CloakAnnounced Damaged Destroyed Launched LockOn SeekingHit"),
    # duel-full-romulan-vs-federation: full-size R7 duel (cloak, lock-on); plasma arms over turns
    #   1-3, so not every CI run launches it
    "duel-full-romulan-vs-federation": expect(2, "ph-1 photon", "CloakAnnounced Damaged LockOn"),
    # duel-gorn-vs-federation: cadet duel to the turn limit or a kill
    "duel-gorn-vs-federation": expect(4, "ph-1 photon plasma",
                  "Damaged Launched SeekingHit ShieldBoundary"),
    # duel-gorn-vs-klingon: cadet duel to the turn limit or a kill
    "duel-gorn-vs-klingon": expect(4, "disruptor drone ph-1 ph-2 plasma",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # duel-gorn-vs-kzinti: cadet duel to the turn limit or a kill
    "duel-gorn-vs-kzinti": expect(4, "disruptor drone ph-1 ph-3 plasma",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # duel-gorn-vs-orion: cadet duel to the turn limit or a kill
    "duel-gorn-vs-orion": expect(4, "drone ph-1 ph-3 photon plasma",
                  "Damaged Destroyed Launched SeekingHit"),
    # duel-klingon-vs-federation: cadet duel to the turn limit or a kill
    "duel-klingon-vs-federation": expect(6, "disruptor drone ph-1 ph-2 photon",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # duel-klingon-vs-kzinti: cadet duel to the turn limit or a kill
    "duel-klingon-vs-kzinti": expect(6, "disruptor drone ph-1 ph-2 ph-3",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # duel-klingon-vs-orion: cadet duel to the turn limit or a kill
    "duel-klingon-vs-orion": expect(6, "disruptor drone ph-1 ph-2 ph-3 photon",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # duel-kzinti-vs-orion: cadet duel to the turn limit or a kill
    "duel-kzinti-vs-orion": expect(6, "disruptor drone ph-1 ph-3 photon",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # duel-romulan-vs-federation: cadet duel to the turn limit or a kill
    "duel-romulan-vs-federation": expect(4, "ph-1 photon plasma", "Damaged Launched SeekingHit"),
    # duel-romulan-vs-gorn: cadet duel to the turn limit or a kill
    "duel-romulan-vs-gorn": expect(4, "ph-1 plasma", "Damaged Launched SeekingHit ShieldBoundary"),
    # duel-romulan-vs-klingon: cadet duel to the turn limit or a kill
    "duel-romulan-vs-klingon": expect(4, "disruptor drone ph-1 ph-2 plasma",
                  "CloakEvaded Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # duel-romulan-vs-kzinti: cadet duel to the turn limit or a kill
    "duel-romulan-vs-kzinti": expect(4, "disruptor drone ph-1 ph-3 plasma",
                  "CloakEvaded Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # duel-romulan-vs-orion: cadet duel to the turn limit or a kill
    "duel-romulan-vs-orion": expect(4, "drone ph-1 ph-3 photon",
                  "CloakEvaded Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # grad-hydran-full-vs-federation: full-size graduate duel: fighters, shuttles, fusion and
    #   phaser-G
    "grad-hydran-full-vs-federation": expect(2, "fighter fusion ph-1 ph-2 ph-3 ph-g photon shuttle",
                  "Damaged Destroyed Launched LockOn ShieldBoundary TacticalManeuver"),
    # grad-hydran-full-vs-gorn: full-size graduate duel: fighters, shuttles, fusion and phaser-G
    "grad-hydran-full-vs-gorn": expect(2, "fighter fusion ph-1 ph-2 ph-3 ph-g shuttle",
                  "Damaged Destroyed Launched LockOn ShieldBoundary TacticalManeuver"),
    # grad-hydran-full-vs-klingon: full-size graduate duel: fighters, shuttles, fusion and phaser-G
    "grad-hydran-full-vs-klingon": expect(
        2, "disruptor drone fighter fusion ph-2 ph-3 ph-g shuttle",
        "Damaged Destroyed Launched LockOn SeekingHit ShieldBoundary TacticalManeuver"),
    # grad-hydran-full-vs-kzinti: full-size graduate duel: fighters, shuttles, fusion and phaser-G
    "grad-hydran-full-vs-kzinti": expect(
        2, "disruptor drone fighter fusion ph-1 ph-2 ph-3 ph-g shuttle",
        "Damaged Destroyed Launched LockOn SeekingHit ShieldBoundary"),
    # grad-hydran-full-vs-orion: full-size graduate duel: fighters, shuttles, fusion and phaser-G
    "grad-hydran-full-vs-orion": expect(
        2, "drone fighter fusion ph-1 ph-2 ph-3 ph-g photon shuttle",
        "Damaged Destroyed Launched LockOn SeekingHit ShieldBoundary"),
    # grad-hydran-full-vs-romulan: full-size graduate duel: fighters, shuttles, fusion and phaser-G
    "grad-hydran-full-vs-romulan": expect(2, "fighter fusion ph-1 ph-2 ph-3 ph-g shuttle",
                  "CloakAnnounced Damaged Destroyed Launched LockOn ShieldBoundary "
                  "TacticalManeuver"),
    # grad-hydran-vs-federation: graduate cadet duel: fusion and phaser-G
    "grad-hydran-vs-federation": expect(4, "fusion ph-1 ph-2 ph-g photon", "Damaged"),
    # grad-hydran-vs-gorn: graduate cadet duel: fusion and phaser-G
    "grad-hydran-vs-gorn": expect(4, "fusion ph-1 ph-2 ph-g plasma",
                  "Damaged Launched SeekingHit ShieldBoundary"),
    # grad-hydran-vs-klingon: graduate cadet duel: fusion and phaser-G
    "grad-hydran-vs-klingon": expect(4, "disruptor drone fusion ph-2 ph-g",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # grad-hydran-vs-kzinti: graduate cadet duel: fusion and phaser-G
    "grad-hydran-vs-kzinti": expect(4, "disruptor drone fusion ph-1 ph-2 ph-3 ph-g",
                  "Damaged Destroyed Launched SeekingHit ShieldBoundary"),
    # grad-hydran-vs-orion: graduate cadet duel: fusion and phaser-G
    "grad-hydran-vs-orion": expect(4, "drone fusion ph-1 ph-2 ph-3 ph-g photon",
                  "Damaged Destroyed Launched SeekingHit"),
    # grad-hydran-vs-romulan: graduate cadet duel: fusion and phaser-G
    "grad-hydran-vs-romulan": expect(4, "fusion ph-1 ph-2 ph-g plasma",
                  "Damaged Launched SeekingHit"),
    # grad-isc-full-vs-federation: full-size graduate duel: PPD and plasma-S (plasma arms over turns
    #   1-3: not in every CI run)
    "grad-isc-full-vs-federation": expect(2, "ph-1 photon plasma ppd",
                  "Damaged Launched LockOn ShieldBoundary"),
    # grad-isc-full-vs-gorn: full-size graduate duel: PPD and plasma-S (plasma arms over turns 1-3:
    #   not in every CI run)
    "grad-isc-full-vs-gorn": expect(2, "ph-1 ppd", "Damaged LockOn ShieldBoundary"),
    # grad-isc-full-vs-hydran: full-size graduate duel: PPD and plasma-S (plasma arms over turns
    #   1-3: not in every CI run)
    "grad-isc-full-vs-hydran": expect(2, "fighter fusion ph-1 ph-2 ph-3 ph-g ppd shuttle",
                  "Damaged Destroyed Launched LockOn PpdTrainEnded ShieldBoundary"),
    # grad-isc-full-vs-klingon: full-size graduate duel: PPD and plasma-S (plasma arms over turns
    #   1-3: not in every CI run)
    "grad-isc-full-vs-klingon": expect(2, "disruptor drone ph-1 ph-2 plasma ppd",
                  "Damaged Destroyed Launched LockOn PpdTrainEnded SeekingHit"),
    # grad-isc-full-vs-kzinti: full-size graduate duel: PPD and plasma-S (plasma arms over turns
    #   1-3: not in every CI run)
    "grad-isc-full-vs-kzinti": expect(2, "disruptor drone ph-1 ph-3 ppd",
                  "Damaged Destroyed Launched LockOn SeekingHit"),
    # grad-isc-full-vs-lyran: full-size graduate duel: PPD and plasma-S (plasma arms over turns 1-3:
    #   not in every CI run)
    "grad-isc-full-vs-lyran": expect(2, "disruptor ph-1 ph-3 ppd",
                  "Damaged EsgAnnounced EsgCancelled EsgCharged EsgDropped EsgReleased LockOn "
                  "PpdTrainEnded"),
    # grad-isc-full-vs-orion: full-size graduate duel: PPD and plasma-S (plasma arms over turns 1-3:
    #   not in every CI run)
    "grad-isc-full-vs-orion": expect(2, "drone ph-1 ph-3 photon ppd",
                  "Damaged Launched LockOn SeekingHit"),
    # grad-isc-full-vs-romulan: full-size graduate duel: PPD and plasma-S (plasma arms over turns
    #   1-3: not in every CI run)
    "grad-isc-full-vs-romulan": expect(2, "ph-1 plasma ppd",
                  "CloakAnnounced Damaged Launched LockOn PpdTrainEnded SeekingHit ShieldBoundary"),
    # grad-isc-vs-federation: graduate cadet duel: PPD and plasma
    "grad-isc-vs-federation": expect(4, "ph-1 photon plasma ppd",
                  "Damaged Launched PpdTrainEnded SeekingHit ShieldBoundary"),
    # grad-isc-vs-gorn: graduate cadet duel: PPD and plasma
    "grad-isc-vs-gorn": expect(4, "ph-1 plasma ppd",
                  "Damaged Launched PpdTrainEnded SeekingHit ShieldBoundary"),
    # grad-isc-vs-hydran: graduate cadet duel: PPD and plasma
    "grad-isc-vs-hydran": expect(4, "fusion ph-1 ph-2 ph-g plasma ppd",
                  "Damaged Launched PpdTrainEnded SeekingHit"),
    # grad-isc-vs-klingon: graduate cadet duel: PPD and plasma
    "grad-isc-vs-klingon": expect(4, "disruptor drone ph-1 ph-2 plasma ppd",
                  "Damaged Destroyed Launched PpdTrainEnded SeekingHit ShieldBoundary"),
    # grad-isc-vs-kzinti: graduate cadet duel: PPD and plasma
    "grad-isc-vs-kzinti": expect(4, "disruptor drone ph-1 ph-3 plasma ppd",
                  "Damaged Destroyed Launched PpdTrainEnded SeekingHit"),
    # grad-isc-vs-lyran: graduate cadet duel: PPD and plasma
    "grad-isc-vs-lyran": expect(4, "disruptor ph-1 ph-3 plasma ppd",
                  "Damaged EsgAnnounced EsgCancelled EsgCharged EsgDropped EsgReleased Launched "
                  "PpdTrainEnded SeekingHit ShieldBoundary"),
    # grad-isc-vs-orion: graduate cadet duel: PPD and plasma
    "grad-isc-vs-orion": expect(4, "drone ph-1 ph-3 photon plasma ppd",
                  "Damaged Destroyed Launched PpdTrainEnded SeekingHit ShieldBoundary"),
    # grad-isc-vs-romulan: graduate cadet duel: PPD and plasma
    "grad-isc-vs-romulan": expect(4, "ph-1 plasma ppd",
                  "Damaged Launched PpdTrainEnded SeekingHit ShieldBoundary"),
    # grad-lyran-full-vs-federation: full-size graduate duel: ESGs and disruptors
    "grad-lyran-full-vs-federation": expect(2, "disruptor ph-1 ph-3 photon",
                  "Damaged EsgAnnounced EsgCancelled EsgCharged EsgDropped EsgReleased LockOn"),
    # grad-lyran-full-vs-gorn: full-size graduate duel: ESGs and disruptors
    "grad-lyran-full-vs-gorn": expect(2, "disruptor ph-1 ph-3",
                  "Damaged EsgAnnounced EsgCancelled EsgCharged EsgDropped EsgReleased LockOn "
                  "ShieldBoundary"),
    # grad-lyran-full-vs-hydran: full-size graduate duel: ESGs and disruptors
    "grad-lyran-full-vs-hydran": expect(2, "disruptor fighter fusion ph-1 ph-2 ph-3 ph-g shuttle",
                  "Damaged Destroyed EsgAnnounced EsgCancelled EsgCharged EsgDropped "
                  "EsgReleased EsgStruck Launched LockOn ShieldBoundary TacticalManeuver"),
    # grad-lyran-full-vs-klingon: full-size graduate duel: ESGs and disruptors
    "grad-lyran-full-vs-klingon": expect(2, "disruptor drone ph-1 ph-2 ph-3",
                  "Damaged Destroyed EsgAnnounced EsgCancelled EsgCharged EsgDropped "
                  "EsgReleased Launched LockOn SeekingHit ShieldBoundary"),
    # grad-lyran-full-vs-kzinti: full-size graduate duel: ESGs and disruptors
    "grad-lyran-full-vs-kzinti": expect(2, "disruptor drone ph-1 ph-3",
                  "Damaged Destroyed EsgAnnounced EsgCancelled EsgCharged EsgDropped "
                  "EsgReleased Launched LockOn SeekingHit"),
    # grad-lyran-full-vs-orion: full-size graduate duel: ESGs and disruptors
    "grad-lyran-full-vs-orion": expect(2, "disruptor drone ph-1 ph-3 photon",
                  "Damaged Destroyed EsgAnnounced EsgCancelled EsgCharged EsgDropped "
                  "EsgReleased EsgStruck Launched LockOn SeekingHit"),
    # grad-lyran-full-vs-romulan: full-size graduate duel: ESGs and disruptors
    "grad-lyran-full-vs-romulan": expect(2, "disruptor ph-1 ph-3",
                  "CloakAnnounced Damaged EsgAnnounced EsgCancelled EsgCharged EsgDropped "
                  "EsgReleased LockOn"),
    # grad-lyran-vs-federation: graduate cadet duel: ESGs and disruptors
    "grad-lyran-vs-federation": expect(4, "disruptor ph-1 ph-3 photon",
                  "Damaged EsgAnnounced EsgCancelled EsgCharged EsgDropped EsgReleased"),
    # grad-lyran-vs-gorn: graduate cadet duel: ESGs and disruptors
    "grad-lyran-vs-gorn": expect(4, "disruptor ph-1 ph-3 plasma",
                  "Damaged Destroyed EsgAnnounced EsgCancelled EsgCharged EsgDropped "
                  "EsgReleased EsgStruck Launched SeekingHit ShieldBoundary"),
    # grad-lyran-vs-hydran: graduate cadet duel: ESGs and disruptors
    "grad-lyran-vs-hydran": expect(4, "disruptor fusion ph-1 ph-2 ph-3 ph-g",
                  "Damaged EsgAnnounced EsgCancelled EsgCharged EsgDropped EsgReleased EsgStruck"),
    # grad-lyran-vs-klingon: graduate cadet duel: ESGs and disruptors
    "grad-lyran-vs-klingon": expect(4, "disruptor drone ph-1 ph-2 ph-3",
                  "Damaged Destroyed EsgAnnounced EsgCancelled EsgCharged EsgDropped "
                  "EsgReleased EsgStruck Launched SeekingHit ShieldBoundary"),
    # grad-lyran-vs-kzinti: graduate cadet duel: ESGs and disruptors
    "grad-lyran-vs-kzinti": expect(4, "disruptor drone ph-1 ph-3",
                  "Damaged Destroyed EsgAnnounced EsgCancelled EsgCharged EsgDropped "
                  "EsgReleased EsgStruck Launched SeekingHit ShieldBoundary"),
    # grad-lyran-vs-orion: graduate cadet duel: ESGs and disruptors
    "grad-lyran-vs-orion": expect(4, "disruptor drone ph-1 ph-3 photon",
                  "Damaged Destroyed EsgAnnounced EsgCancelled EsgCharged EsgDropped "
                  "EsgReleased Launched SeekingHit ShieldBoundary"),
    # grad-lyran-vs-romulan: graduate cadet duel: ESGs and disruptors
    "grad-lyran-vs-romulan": expect(4, "disruptor ph-1 ph-3",
                  "Damaged EsgAnnounced EsgCancelled EsgCharged EsgDropped EsgReleased "
                  "EsgStruck ShieldBoundary"),
}


def _report(scenario: str, cov: Coverage) -> None:
    print()  # shown with -s / -rP: the run's row of benchmarks/fuzz_coverage.py's table
    print(markdown_table({scenario: cov}))


def test_every_listed_scenario_has_a_coverage_row():
    assert sorted(COVERAGE) == SCENARIOS


@pytest.mark.compiled_late  # the compiled core follows every game (conftest: after its build)
@pytest.mark.parametrize("scenario", ci_params(SCENARIOS))  # scenario_tiers: CI / slow
def test_fuzz_reaches_the_scenario_coverage_and_no_allowed_order_is_refused(scenario):
    """The CI run, in lockstep with the compiled core (``parity.Mirror``): the scripted
    captains' parity run of CI for the scenarios it covers (test_compiled_parity.py)."""
    cov = fuzz_steps(scenario, CI_STEPS, CI_PER_GAME, lockstep=True)
    _report(scenario, cov)
    assert cov.steps == CI_STEPS
    assert_covers(scenario, cov, COVERAGE[scenario])


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_fuzz_10000_steps_reach_the_scenario_coverage_and_no_allowed_order_is_refused(scenario):
    cov = fuzz_steps(scenario, LONG_STEPS, LONG_PER_GAME)
    _report(scenario, cov)
    assert cov.steps == LONG_STEPS
    assert_covers(scenario, cov, COVERAGE[scenario])
