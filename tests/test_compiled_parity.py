"""Lockstep parity of the compiled core with the reference engine on every scenario it plays,
and on rule variants that try a tier-2 rule area alone (``parity.variant``).

The short runs are CI's (about 500 steps per scenario over the policies and batch shapes);
the full runs of issue 12 are marked slow: 10,000 random-masked steps per scenario, 200 games
of the scripted captains (20 battles x 500 steps: about 200 duels), and B=64 batches of mixed
seeds with autoreset.
"""

from __future__ import annotations

import pytest

from sfb_env.compiled import parity

pytestmark = pytest.mark.xdist_group("compiled")  # one xdist worker compiles the kernels (.ci/run)

TIER1 = ["cth-01", "cth-02", "cth-03", "duel-klingon-vs-federation", "duel-klingon-vs-kzinti",
         "duel-klingon-vs-orion", "duel-federation-vs-kzinti", "duel-federation-vs-orion",
         "duel-kzinti-vs-orion"]
# Tier-2 rule areas alone, on tier-1 ships: the 16-impulse chart with the cadet DAC
# (D4.21-D4.4) under the Chief Engineer; scenario 5's encounter victory and disengagement by
# announcement (SCENARIOS #5).
VARIANTS = {
    "dac16": parity.variant("duel-klingon-vs-federation", impulses_per_turn=16,
                            rules={"damage": "cadet_dac"}),
    "encounter16": parity.variant("duel-kzinti-vs-orion", impulses_per_turn=16,
                                  turn_limit=None, victory={"kind": "encounter"},
                                  rules={"damage": "cadet_dac",
                                         "disengage_by_announcement": True}),
}
# (G23) The Lyran ESG alone: the graduate Lyran duels under the Chief Engineer, who charges the
# generator at Energy Allocation (the duels' cadet energy form apart).
ESG_RULES = {"energy": "chief", "chief_engineer": True, "speed_choice": True}
ESG_DUELS = {opponent: parity.variant(f"grad-lyran-vs-{opponent}", rules=ESG_RULES)
             for opponent in ("klingon", "kzinti", "orion", "federation")}


@pytest.mark.parametrize("scenario", TIER1)
def test_random_masked_play_matches_the_reference_one_battle(scenario):
    report = parity.lockstep(scenario, num_battles=1, steps=250, seed=1, autoreset=False)
    assert report.steps == 250 and report.episodes >= 1


@pytest.mark.parametrize("scenario", TIER1)
def test_fighting_captains_match_the_reference_batched_with_autoreset(scenario):
    report = parity.lockstep(scenario, num_battles=4, steps=60, seed=2,
                             policy="random-fighter")
    assert report.steps == 60
    assert report.events.get("Fired", 0) > 0 or scenario == "cth-02"


@pytest.mark.parametrize("scenario", ["cth-03", "duel-klingon-vs-federation",
                                      "duel-kzinti-vs-orion"])
def test_doctrine_captains_match_the_reference(scenario):
    report = parity.lockstep(scenario, num_battles=2, steps=120, seed=3, policy="doctrine")
    assert report.events.get("Fired", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("scenario", TIER1)
def test_ten_thousand_random_masked_steps_match(scenario):
    report = parity.lockstep(scenario, num_battles=1, steps=10_000, seed=11, autoreset=False)
    print(report.line())


@pytest.mark.slow
@pytest.mark.parametrize("scenario", TIER1)
def test_batched_mixed_seeds_with_autoreset_match(scenario):
    report = parity.lockstep(scenario, num_battles=64, steps=400, seed=12,
                             policy="random-fighter")
    print(report.line())


@pytest.mark.slow
@pytest.mark.parametrize("scenario", TIER1)
def test_scripted_captains_games_match(scenario):
    report = parity.lockstep(scenario, num_battles=20, steps=500, seed=13, policy="doctrine")
    assert report.episodes >= 20
    print(report.line())


@pytest.mark.parametrize("name", VARIANTS)
def test_tier_two_variants_match_the_reference(name):
    """Random masked play (disengagement closed) at B=1 and fighting captains batched."""
    report = parity.lockstep(VARIANTS[name], num_battles=1, steps=250, seed=1)
    assert report.steps == 250 and report.episodes >= 1
    report = parity.lockstep(VARIANTS[name], num_battles=4, steps=80, seed=2,
                             policy="random-fighter")
    assert report.events.get("Damaged", 0) > 0


def test_announced_disengagement_matches_the_reference():
    """(SCENARIOS #5) Random play that may announce: most battles end at once, a draw for the
    side that left and a tactical victory for the other."""
    report = parity.lockstep(VARIANTS["encounter16"], num_battles=2, steps=60, seed=4,
                             disengage=True)
    assert report.events.get("DisengagementAnnounced", 0) > 5


@pytest.mark.slow
@pytest.mark.parametrize("name", VARIANTS)
def test_tier_two_variants_long_runs_match(name):
    print(parity.lockstep(VARIANTS[name], num_battles=1, steps=5_000, seed=11).line())
    print(parity.lockstep(VARIANTS[name], num_battles=64, steps=200, seed=12,
                          policy="random-fighter").line())


@pytest.mark.parametrize("opponent", ["klingon", "kzinti"])
def test_g23_esg_duels_match_the_reference(opponent):
    """Random masked play (announcements, cancellations, drops, releases, contacts) at B=1,
    and fighting captains batched with autoreset."""
    report = parity.lockstep(ESG_DUELS[opponent], num_battles=1, steps=300, seed=1)
    assert report.events.get("EsgAnnounced", 0) > 0 and report.events.get("EsgReleased", 0) > 0
    assert report.events.get("EsgCharged", 0) > 0
    report = parity.lockstep(ESG_DUELS[opponent], num_battles=4, steps=60, seed=2,
                             policy="random-fighter")
    assert report.events.get("Fired", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("opponent", ESG_DUELS)
def test_g23_esg_duels_long_runs_match(opponent):
    """Random masked play at B=1 and fighting captains at B=8 and B=64 with autoreset: the
    captains close in, so their fields meet ships and drones (EsgStruck)."""
    print(parity.lockstep(ESG_DUELS[opponent], num_battles=1, steps=3_000, seed=11).line())
    print(parity.lockstep(ESG_DUELS[opponent], num_battles=8, steps=300, seed=12,
                          policy="random-fighter").line())
    report = parity.lockstep(ESG_DUELS[opponent], num_battles=64, steps=300, seed=23,
                             policy="random-fighter")
    print(report.line())
    assert report.events.get("EsgStruck", 0) > 0
