"""Lockstep parity of the compiled core with the reference engine on every scenario it plays,
and on rule variants that try a tier-2 rule area alone (``parity.variant``).

The short runs are CI's: per scenario, 250 random masked steps here and the fuzz captains'
240 steps of ``test_fuzz.py`` in lockstep (``parity.Mirror``), and the batched fighting
captains for the scenarios that the CI fuzz leaves out and one of each kind;
the full runs of issues 12 and 14 are marked slow: per scenario, 10,000 random-masked steps
and 10,000 fighting-captain (``random-fighter``) steps at B=1, 50 games of the doctrine
captains at B=1 and in a B=64 batch with autoreset, and B=64 batches of mixed seeds with
autoreset.
"""

from __future__ import annotations

import pytest
from scenario_tiers import slow_only

from sfb_env.compiled import parity, tiers

pytestmark = pytest.mark.compiled_late  # after the core is built, on either xdist worker (conftest)

TIER1 = ["cth-01", "cth-02", "cth-03", "duel-klingon-vs-federation", "duel-klingon-vs-kzinti",
         "duel-klingon-vs-orion", "duel-federation-vs-kzinti", "duel-federation-vs-orion",
         "duel-kzinti-vs-orion"]
# every shipped scenario the compiled core plays (``backend="auto"`` takes it there)
COMPILED = tiers.compiled_scenarios()
# (J4, J1.0) The Hydran Ranger's scenarios with small craft: four run both CI tests (fighters
# against drones, the PPD, the ESG and a cloaking Orion), the other four the fighting captains'
# only, their one-battle random run under ``-m slow`` (the CI suite's budget).
RANGER_CI = {"grad-hydran-full-vs-klingon", "grad-isc-full-vs-hydran",
             "grad-lyran-full-vs-hydran", "grad-hydran-full-vs-orion"}


def _ci(names: list[str]) -> list:
    """``names`` as parametrize values, the Ranger's scenarios outside ``RANGER_CI`` slow (for
    the one-battle random run; every scenario runs the fighting captains' test in CI)."""
    return [pytest.param(n, marks=pytest.mark.slow)
            if "hydran-full" in n and n not in RANGER_CI else n for n in names]
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


def test_every_tier_one_scenario_is_compiled():
    assert set(TIER1) <= set(COMPILED)


@pytest.mark.parametrize("scenario", _ci(COMPILED))
def test_random_masked_play_matches_the_reference_one_battle(scenario):
    report = parity.lockstep(scenario, num_battles=1, steps=250, seed=1, autoreset=False)
    assert report.steps == 250 and report.episodes >= 1


# The scripted captains' CI parity: test_fuzz.py's CI runs play every scenario they cover in
# lockstep with the compiled core (B=1: random-fighter, doctrine captains with random
# components, one of each), so this batched run with autoreset (B=4) runs in CI for the
# scenarios those leave to ``-m slow`` (scenario_tiers) and for one of each kind besides.
BATCHED_CI = {"duel-klingon-vs-federation", "cth-09", "cth-13", "grad-lyran-vs-hydran",
              "grad-isc-vs-hydran", "grad-hydran-full-vs-kzinti"}


def _batched_ci(names: list[str]) -> list:
    return [n if slow_only(n) or n in BATCHED_CI else pytest.param(n, marks=pytest.mark.slow)
            for n in names]


@pytest.mark.parametrize("scenario", _batched_ci(COMPILED))
def test_fighting_captains_match_the_reference_batched_with_autoreset(scenario):
    report = parity.lockstep(scenario, num_battles=4, steps=60, seed=2,
                             policy="random-fighter")
    assert report.steps == 60
    assert report.events.get("Fired", 0) > 0 or scenario == "cth-02"


def test_lockstep_stops_at_the_games_asked_for():
    """``games``: the run ends on the step its Nth battle ends, well before ``steps``."""
    report = parity.lockstep("duel-klingon-vs-federation", num_battles=2, steps=2_000, seed=5,
                             policy="doctrine", games=3)
    assert 3 <= report.episodes <= 4 and report.steps < 2_000


@pytest.mark.parametrize("scenario", ["cth-03", "duel-klingon-vs-federation",
                                      "duel-kzinti-vs-orion"])
def test_doctrine_captains_match_the_reference(scenario):
    report = parity.lockstep(scenario, num_battles=2, steps=120, seed=3, policy="doctrine")
    assert report.events.get("Fired", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("scenario", COMPILED)
def test_ten_thousand_random_masked_steps_match(scenario):
    report = parity.lockstep(scenario, num_battles=1, steps=10_000, seed=11, autoreset=False)
    print(report.line())


@pytest.mark.slow
@pytest.mark.parametrize("scenario", COMPILED)
def test_ten_thousand_fighting_captain_steps_match(scenario):
    """(issue 14) The scripted captains with random components, 10,000 steps at B=1: the
    ``random-fighter`` closes and fires with random choices, so battles reach later turns."""
    report = parity.lockstep(scenario, num_battles=1, steps=10_000, seed=14, autoreset=False,
                             policy="random-fighter")
    assert report.events.get("Fired", 0) > 0 or scenario == "cth-02"
    print(report.line())


@pytest.mark.slow
@pytest.mark.parametrize("scenario", COMPILED)
def test_batched_mixed_seeds_with_autoreset_match(scenario):
    report = parity.lockstep(scenario, num_battles=64, steps=400, seed=12,
                             policy="random-fighter")
    print(report.line())


# (issue 14) 50 scripted games per scenario, at B=1 and in a B=64 batch of mixed seeds, the
# doctrine captains (reset for every game) on both sides. A game lasts 35 to 600 steps (the
# 8-impulse duels to cth-11, whose monster takes about 16 turns of 32 impulses: SCENARIOS #11),
# so the runs stop at the 50th ended battle; the step caps only stop a run whose games never end.
SCRIPTED_GAMES = 50
STEP_CAP = {1: 60_000, 64: 3_000}


@pytest.mark.slow
@pytest.mark.parametrize("battles", [1, 64])
@pytest.mark.parametrize("scenario", COMPILED)
def test_fifty_scripted_games_match(scenario, battles):
    report = parity.lockstep(scenario, num_battles=battles, steps=STEP_CAP[battles], seed=13,
                             policy="doctrine", games=SCRIPTED_GAMES)
    assert report.episodes >= SCRIPTED_GAMES, report.line()
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
# Tier 2, the Hydran's weapons (fusion beams E7, the phaser-G E2.15): the cadet duel with one
# ship replaced by the Hydran Cadet Cruiser (``parity.variant``).
HYDRAN = {
    "hydran-vs-klingon": ("duel-klingon-vs-federation", "fed-cadet"),
    "hydran-vs-federation": ("duel-klingon-vs-federation", "klingon-cadet"),
}


def _hydran(name: str) -> dict:
    base, unit = HYDRAN[name]
    return parity.variant(base, swap=(unit, "hydran-cadet", "hydran"))


@pytest.mark.parametrize("name", sorted(HYDRAN))
def test_hydran_random_masked_play_matches_the_reference(name):
    report = parity.lockstep(_hydran(name), num_battles=1, steps=250, seed=1, autoreset=False)
    assert report.steps == 250 and report.episodes >= 1


@pytest.mark.parametrize("name", sorted(HYDRAN))
def test_hydran_fighting_captains_match_the_reference_batched_with_autoreset(name):
    report = parity.lockstep(_hydran(name), num_battles=8, steps=80, seed=2,
                             policy="random-fighter")
    assert report.steps == 80 and report.events.get("Fired", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HYDRAN))
@pytest.mark.parametrize("policy", ["random", "random-fighter"])
def test_hydran_thousands_of_steps_match(name, policy):
    one = parity.lockstep(_hydran(name), num_battles=1, steps=3_000, seed=21, policy=policy)
    many = parity.lockstep(_hydran(name), num_battles=16, steps=400, seed=22, policy=policy)
    assert one.episodes > 10 and many.episodes > 10
    print(one.line())
    print(many.line())
# The cadet Energy Allocation Form (B3.0, ``compiled.energy``) on the 8-impulse duels: their
# scenario files with ``energy: cadet`` in place of the Chief Engineer (``parity.with_rules``).
ENERGY = ["duel-klingon-vs-federation", "duel-kzinti-vs-orion"]
ENERGY_ALL = ["duel-klingon-vs-federation", "duel-klingon-vs-kzinti", "duel-klingon-vs-orion",
              "duel-federation-vs-kzinti", "duel-federation-vs-orion", "duel-kzinti-vs-orion"]


def _cadet(name: str) -> dict:
    return parity.with_rules(name, parity.CADET_ENERGY)


@pytest.mark.parametrize("scenario", ENERGY)
def test_cadet_energy_random_masked_play_matches_one_battle(scenario):
    report = parity.lockstep(_cadet(scenario), num_battles=1, steps=250, seed=1,
                             autoreset=False)
    assert report.steps == 250 and report.events.get("EnergyAllocated", 0) > 0


@pytest.mark.parametrize("scenario", ENERGY)
def test_cadet_energy_fighting_captains_match_batched_with_autoreset(scenario):
    report = parity.lockstep(_cadet(scenario), num_battles=8, steps=60, seed=2,
                             policy="random-fighter")
    assert report.events.get("Fired", 0) > 0 and report.events.get("WeaponArmed", 0) > 0


@pytest.mark.parametrize("scenario", ENERGY)
def test_cadet_energy_doctrine_captains_match(scenario):
    report = parity.lockstep(_cadet(scenario), num_battles=2, steps=120, seed=3,
                             policy="doctrine")
    assert report.events.get("EnergyAllocated", 0) > 0 and report.events.get("Fired", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ENERGY_ALL)
def test_cadet_energy_thousands_of_random_masked_steps_match(scenario):
    report = parity.lockstep(_cadet(scenario), num_battles=1, steps=3_000, seed=21,
                             autoreset=False)
    print(report.line())


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ENERGY_ALL)
@pytest.mark.parametrize("policy", ["random", "random-fighter"])
def test_cadet_energy_batched_with_autoreset_match(scenario, policy):
    report = parity.lockstep(_cadet(scenario), num_battles=16, steps=300, seed=22,
                             policy=policy)
    print(report.line())


# (E11) The ISC's plasmatic pulsar device under the Chief Engineer (PROPOSAL [P-056]): the
# graduate ISC duels with the energy form replaced by the Chief Engineer (compiled.ppd).
PPD_CHIEF = {"energy": "chief", "chief_engineer": True, "speed_choice": True}
PPD_VARIANTS = {opp: parity.variant(f"grad-isc-vs-{opp}", rules=PPD_CHIEF)
                for opp in ("klingon", "kzinti", "orion", "federation")}


def _ppd_events(report) -> int:
    return report.events.get("PpdTrainEnded", 0) + report.events.get("Fired", 0)


@pytest.mark.parametrize("opp", ["klingon", "kzinti"])
def test_ppd_chief_duels_match_the_reference(opp):
    """Random masked play at B=1 and fighting captains batched with autoreset: PPD trains,
    pulses, breaking events and split volleys (E11.31-E11.54) in lockstep."""
    report = parity.lockstep(PPD_VARIANTS[opp], num_battles=1, steps=300, seed=1)
    assert report.steps == 300
    report = parity.lockstep(PPD_VARIANTS[opp], num_battles=4, steps=80, seed=2,
                             policy="random-fighter")
    assert _ppd_events(report) > 0


def _never_drop(monkeypatch) -> None:
    """Random play that never drops the wave-lock (E11.362): trains run to their last pulse,
    across impulses and turn breaks, unless an E11.54 event ends them. (The harness closes the
    mask value ``_announce_index`` names: here the ISC's ``ppd[0]`` DROP.)"""
    announce = parity._announce_index

    def closed(env, agent):
        lo = env._layouts[agent]
        names = lo.component_names()
        if "ppd[0]" in names:
            return int(lo.offsets[names.index("ppd[0]")]) + 1
        return announce(env, agent)

    monkeypatch.setattr(parity, "_announce_index", closed)


def test_ppd_full_trains_match_the_reference(monkeypatch):
    _never_drop(monkeypatch)
    report = parity.lockstep(PPD_VARIANTS["klingon"], num_battles=1, steps=1_500, seed=21)
    assert report.events.get("Damaged", 0) > 0 and report.events.get("PpdTrainEnded", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("opp", list(PPD_VARIANTS))
def test_ppd_full_trains_long_runs_match(opp, monkeypatch):
    _never_drop(monkeypatch)
    print(parity.lockstep(PPD_VARIANTS[opp], num_battles=1, steps=5_000, seed=21).line())


@pytest.mark.slow
@pytest.mark.parametrize("opp", list(PPD_VARIANTS))
def test_ppd_chief_duels_long_runs_match(opp):
    print(parity.lockstep(PPD_VARIANTS[opp], num_battles=1, steps=3_000, seed=11).line())
    print(parity.lockstep(PPD_VARIANTS[opp], num_battles=8, steps=400, seed=12,
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


# (B3.0 standard form, CTH-DATA §7.1; B3.2) The standard Energy Allocation Form alone on the
# 16-impulse cadet games: the cadet ships pay shields 1 and move at 1/2 a hex among full-size
# rules (SCENARIOS #12), with the standard acceleration; some under fractional accounting.
_STD = {"energy": "standard"}
_FRAC = {"energy": "standard", "fractional_accounting": True}
_FULL = {"energy": "standard", "damage": "interim", "lock_on": False}
STANDARD_ENERGY = {
    "gorn-klingon": parity.variant("duel-gorn-vs-klingon", rules=_STD),
    "isc-hydran": parity.variant("grad-isc-vs-hydran", rules=_STD),
    "lyran-hydran-frac": parity.variant("grad-lyran-vs-hydran", rules=_FRAC),
    "cth-06-frac": parity.variant("cth-06", rules=_FRAC),
}
# (slow only) the 32-impulse full-size duels (life support, fire control, shields 2), their
# standard DAC and lock-on replaced: in CI the shipped full-size duels, compiled now with both,
# run the standard form (COMPILED above)
STANDARD_ENERGY_ALL = {
    **STANDARD_ENERGY,
    "full-gorn-klingon": parity.variant("duel-full-gorn-vs-klingon", rules=_FULL),
    "full-orion-klingon-frac": parity.variant(
        "duel-full-orion-vs-klingon",
        rules={**_FULL, "cloak": "none", "fractional_accounting": True}),
    "cth-05": parity.variant("cth-05", rules=_STD),
    "romulan-gorn-frac": parity.variant("duel-romulan-vs-gorn", rules=_FRAC),
    "hydran-klingon": parity.variant("grad-hydran-vs-klingon", rules=_STD),
    "isc-lyran-frac": parity.variant("grad-isc-vs-lyran", rules=_FRAC),
    "full-isc-klingon": parity.variant("grad-isc-full-vs-klingon", rules=_FULL),
    "full-lyran-klingon-frac": parity.variant("grad-lyran-full-vs-klingon",
                                              rules={**_FULL, "fractional_accounting": True}),
    "cth-07": parity.variant("cth-07", rules=_FULL),
}


@pytest.mark.parametrize("name", sorted(STANDARD_ENERGY))
def test_standard_energy_random_masked_play_matches(name):
    report = parity.lockstep(STANDARD_ENERGY[name], num_battles=2, steps=150, seed=4)
    assert report.events.get("EnergyAllocated", 0) > 0 and report.events.get("Fired", 0) > 0


@pytest.mark.parametrize("name", sorted(STANDARD_ENERGY))
def test_standard_energy_fighting_captains_match_batched_with_autoreset(name):
    report = parity.lockstep(STANDARD_ENERGY[name], num_battles=6, steps=60, seed=5,
                             policy="random-fighter")
    assert report.events.get("Fired", 0) > 0 and report.events.get("WeaponArmed", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(STANDARD_ENERGY_ALL))
@pytest.mark.parametrize("policy", ["random", "random-fighter"])
def test_standard_energy_long_runs_match(name, policy):
    report = parity.lockstep(STANDARD_ENERGY_ALL[name], num_battles=16, steps=300, seed=23,
                             policy=policy)
    print(report.line())


def test_mirror_follows_a_reference_env_and_names_the_first_difference():
    """``parity.Mirror`` (the fuzz runs' lockstep): it follows a reference env step by step,
    and a compiled battle started on another seed than the env's differs at the reset."""
    import numpy as np

    from sfb_env.env.parallel import SFBParallelEnv

    env = SFBParallelEnv("duel-klingon-vs-federation")
    mirror = parity.Mirror(env)
    obs, _ = env.reset(seed=3)
    mirror.start(3, obs)
    for k, a in enumerate(env.possible_agents):
        env.action_space(a).seed(k)
    for _ in range(20):
        actions = {a: env.action_space(a).sample(mask=obs[a]["action_mask"]) for a in env.agents}
        before = len(env.battle.events)
        obs, rewards, terminations, truncations, _ = env.step(actions)
        mirror.follow(actions, obs, rewards, terminations, truncations, before)
    assert mirror.step == 20 and np.array_equal(mirror.batch.state.turn[:1],
                                                [env.battle.state.turn])
    obs, _ = env.reset(seed=4)
    with pytest.raises(parity.ParityError, match="first difference at reset"):
        mirror.start(5, obs)


def test_mirror_refuses_an_env_on_the_compiled_core(readme_backend):
    import sfb_env

    with pytest.raises(ValueError, match="reference env"):
        parity.Mirror(sfb_env.parallel_env("duel-klingon-vs-federation"))
