"""Masks and engine agree both ways (DESIGN "Spaces and masks").

1. No action the mask allows is refused: long fuzz runs by captains that fight with
   ``illegal_action="raise"`` and ``validate_in_engine`` (``test_fuzz.py`` for the listed
   scenarios, the dict scenarios here).
2. Every masked choice the engine can judge is refused by the engine with the same rule that
   ``mask_reasons`` gives (hypothesis picks the state and the choice).
"""

from __future__ import annotations

import copy
import functools
from collections import Counter

import numpy as np
import pytest
from engine_helpers import advance_masked, component_values_agree, masked_actions
from fuzz_helpers import assert_covers, expect, fuzz_steps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sfb_env
from sfb_env.data import load_data_file
from sfb_env.engine import IllegalOrderError
from sfb_env.engine.scenario import SCENARIO_DIR

ENERGY_DUEL = "energy-duel"  # a dict scenario: the cadet Energy Allocation Form (B3.0)
TRANSPORTER_DUEL = "transporter-duel"  # a dict scenario: R8 transporters, boarding (G8, D7)
HYDRAN_CLOSE = "hydran-close"  # a dict scenario: the Lyran-Hydran duel at close range (E2.151)
LYRAN_RESERVE = "lyran-reserve"  # a dict scenario: G23.212 reserve power into the ESGs
SCENARIOS = sorted(sfb_env.list_scenarios()) + [ENERGY_DUEL]


def energy_duel() -> dict:
    """The Federation-Kzinti duel on 16-impulse turns under ``energy: cadet`` and ``cloak:
    cadet``, the Kzinti replaced by a Romulan Cadet Cruiser (cloak, plasma-S arming)."""
    doc = dict(load_data_file(SCENARIO_DIR / "duel-federation-vs-kzinti.yaml"))
    doc.update(name=ENERGY_DUEL, impulses_per_turn=16,
               rules={"energy": "cadet", "cloak": "cadet", "damage": "interim"})
    doc["units"] = [dict(u) for u in doc["units"]]
    doc["units"][1]["class"] = "romulan-cadet"
    return doc


@functools.cache
def _transporter_duel() -> dict:
    return dict(load_data_file(SCENARIO_DIR / "cth-10.yaml"))


def transporter_duel() -> dict:
    """Scenario 10's D7 and Fed CA on the standard form, 4 hexes apart at speed 2, with
    transporters (G8.0, G8.24), boarding parties (D7.0) and general reinforcement (D3.34)."""
    doc = copy.deepcopy(_transporter_duel())
    doc.update(name=TRANSPORTER_DUEL, rules={
        "energy": "standard", "damage": "standard_dac", "reinforcement": True,
        "transporters": True, "boarding": True})
    doc["units"] = [dict(u) for u in doc["units"]]
    doc["units"][0].update(hex="1010", facing="A", speed=2)
    doc["units"][1].update(hex="1006", facing="D", speed=2)
    return doc


def hydran_close() -> dict:
    """grad-lyran-vs-hydran with the ships three hexes apart at speed 2, so that the Hydran's
    phaser-G fires its shots 2..4 (``gatling[g].shot{k}``, E2.151) early and often."""
    doc = dict(load_data_file(SCENARIO_DIR / "grad-lyran-vs-hydran.yaml"))
    doc["name"] = HYDRAN_CLOSE
    doc["units"] = [dict(u) for u in doc["units"]]
    doc["units"][0].update(hex="1010", facing="A", speed=2)
    doc["units"][1].update(hex="1013", facing="D", speed=2)
    return doc


def lyran_reserve() -> dict:
    """grad-isc-full-vs-lyran (standard form) under ``rules.reserve_power``, the ships six
    hexes apart: the Lyran Tiger's ``esg_reserve[g]`` (G23.212)."""
    doc = dict(load_data_file(SCENARIO_DIR / "grad-isc-full-vs-lyran.yaml"))
    doc.update(name=LYRAN_RESERVE, rules={**doc["rules"], "reserve_power": True})
    doc["units"] = [dict(u) for u in doc["units"]]
    doc["units"][0].update(hex="1016", facing="A", speed=4)
    doc["units"][1].update(hex="1010", facing="D", speed=4)
    return doc


def _env(scenario: str, **kw):
    doc = {ENERGY_DUEL: energy_duel, TRANSPORTER_DUEL: transporter_duel,
           HYDRAN_CLOSE: hydran_close, LYRAN_RESERVE: lyran_reserve}.get(scenario)
    return sfb_env.parallel_env(doc() if doc else scenario, **kw)


# 1. lives in test_fuzz.py for the listed scenarios: captains that fight (random-fighter,
# doctrine captains with random components) play each with the engine validating every order
# the masks allowed, and each run reaches its scenario's coverage. Here the same fuzzing runs on
# the test-only dict scenarios.
SHORT, LONG, PER_GAME = 240, 10_000, 80  # CI; -m slow
DICT_COVERAGE = {  # the least a fuzz run reaches (measured as test_fuzz.COVERAGE)
    # the cadet Energy Allocation Form and the cadet cloak: photons, plasma, drones struck
    ENERGY_DUEL: expect(4, "ph-1 photon plasma", "Damaged Launched SeekingHit"),
    # transporters and boarding: shields dropped, parties transported, reinforcement
    TRANSPORTER_DUEL: expect(3, "disruptor drone ph-1 ph-2 photon",
                             "Damaged Destroyed ShieldDropped ShieldsReinforced Transported"),
    # reserve power into the ESGs (G23.212): the ESG cycle and reserve discharged
    LYRAN_RESERVE: expect(3, "disruptor ph-1 ph-3 plasma ppd",
                          "EsgAnnounced EsgCharged EsgReleased EsgStruck ReserveDischarged"),
}


@pytest.mark.parametrize("scenario", sorted(DICT_COVERAGE))
def test_no_allowed_action_is_refused_over_240_fuzzed_steps(scenario):
    cov = fuzz_steps(scenario, SHORT, PER_GAME, env=_env(scenario, illegal_action="raise"))
    assert_covers(scenario, cov, DICT_COVERAGE[scenario])


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(DICT_COVERAGE))
def test_no_allowed_action_is_refused_over_10000_fuzzed_steps(scenario):
    cov = fuzz_steps(scenario, LONG, 600, env=_env(scenario, illegal_action="raise"))
    assert_covers(scenario, cov, DICT_COVERAGE[scenario])


def test_e2_151_no_allowed_phaser_g_shot_is_refused_over_480_fuzzed_steps():
    """The Hydran at close range: captains that fight fire a phaser-G up to four times in one
    impulse (``gatling[g].shot{k}``), and the engine accepts every allowed combination."""
    most = 0

    def count(battle) -> None:
        nonlocal most
        shots = Counter((e.turn, e.impulse, e.weapon) for e in battle.events
                        if e.kind == "Fired" and e.weapon_type == "ph-g")
        most = max(most, *shots.values(), 0)

    cov = fuzz_steps(HYDRAN_CLOSE, 480, 120, env=_env(HYDRAN_CLOSE, illegal_action="raise"),
                     after_game=count)
    assert cov.turns >= 5 and "fusion" in cov.weapons
    assert most >= 3  # (E2.151) three or four shots of the phaser-G in one impulse


def _advance(env, rng, n):
    obs, _ = env.reset(seed=int(rng.integers(1000)))
    return advance_masked(env, obs, rng, n)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scenario=st.sampled_from(SCENARIOS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 40),
    pick=st.integers(0, 10_000),
)
def test_engine_refuses_every_masked_choice_with_the_mask_reason(scenario, seed, steps, pick):
    _engine_refuses_masked_choice(scenario, seed, steps, pick)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([0, 1, 2, 5, 15, 16, 17, 31, 32, 40]),
       pick=st.integers(0, 10_000))
def test_b3_energy_components_masks_and_engine_agree_both_ways(seed, steps, pick):
    """The energy duel alone, at and between its Energy Allocation points (impulses 0, 16)."""
    _engine_refuses_masked_choice(ENERGY_DUEL, seed, steps, pick)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([0, 1, 2, 31, 32, 33, 64]),
       pick=st.integers(0, 10_000))
def test_b3_standard_form_and_r10_components_masks_and_engine_agree_both_ways(seed, steps, pick):
    """cth-10 (standard form, reinforcement D3.34, damage control D9.2, reserve power H7) at and
    between its Energy Allocation points (impulses 0, 32)."""
    _engine_refuses_masked_choice("cth-10", seed, steps, pick)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([0, 1, 2, 3, 5, 33]),
       pick=st.integers(0, 10_000))
def test_g8_0_transporter_components_masks_and_engine_agree_both_ways(seed, steps, pick):
    """The transporter duel: ``transporters`` (energy line), ``transport[t]`` and
    ``drop_shield`` (G8.0, G8.24): every allowed transport value is accepted, every masked
    one refused with the mask's rule; then any masked choice."""
    env = _env(TRANSPORTER_DUEL)
    rng = np.random.default_rng(seed)
    obs = _advance(env, rng, steps)
    if obs is None:
        return
    for agent in env.agents:
        parts = env.action_space(agent).split_mask(obs[agent]["action_mask"])
        for i in _components(env, agent, ("transport", "drop_shield")):
            masked = [v for v in range(1, len(parts[i])) if not parts[i][v]][:3]
            allowed = [v for v in range(1, len(parts[i])) if parts[i][v]]
            component_values_agree(env, agent, obs, i, allowed + masked)
    _engine_refuses_masked_choice(TRANSPORTER_DUEL, seed, steps, pick)


def _components(env, agent, prefixes) -> list[int]:
    """Indices of ``agent``'s action components whose names start with ``prefixes``."""
    names = env._layouts[agent].component_names()
    return [i for i, name in enumerate(names) if name.startswith(prefixes)]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([0, 1, 2, 31, 32, 33, 64, 65]),
       pick=st.integers(0, 10_000))
def test_j2_22_suicide_shuttle_components_masks_and_engine_agree_both_ways(seed, steps, pick):
    """cth-09: ``suicide`` (launch at a slot) and ``suicide_arm`` (J2.221 warp energy) on the
    standard form: every allowed value is accepted, every masked one refused with the mask's
    rule; then any masked choice."""
    env = _env("cth-09")
    rng = np.random.default_rng(seed)
    obs = _advance(env, rng, steps)
    if obs is None:
        return
    _every_value_agrees(env, obs, ("suicide",))
    _engine_refuses_masked_choice("cth-09", seed, steps, pick)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([0, 1, 2, 5, 31, 32]),
       hits=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 4)), max_size=4),
       held=st.booleans())
def test_d9_2_repair_and_d3_3411_reinforce_hold_components_masks_and_engine_agree_both_ways(
        seed, steps, hits, held):
    """cth-10: ``repair[s]`` (D9.2 boxes per shield within the rating, lost boxes only) and
    ``reinforce_hold`` (the D3.3411 note: hold GR at Energy Allocation, switch it on later),
    each value alone, with shields damaged on earlier turns and general reinforcement held."""
    env = _env("cth-10")
    if _advance_staying(env, np.random.default_rng(seed), steps) is None:
        return
    b = env.battle
    for agent in env.agents:
        layout = env._layouts[agent]
        for k, n in hits:  # boxes lost before: damage control comes into play
            b.state.shields[layout.unit, k] = max(0, int(b.state.shields[layout.unit, k]) - n)
        if held:
            b.state.reinf_general[layout.unit] = max(1, int(b.state.reinf_general[layout.unit]))
            b.state.reinf_held[layout.unit] = True
        now = {agent: {"action_mask": layout.mask(b, env._slots[agent])}}
        for i in _components(env, agent, ("repair[", "reinforce_hold")):
            component_values_agree(env, agent, now, i, range(1, int(layout.nvec[i])))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([0, 1, 2, 5, 31, 32]),
       scenario=st.sampled_from(["cth-10", "cth-12", "cth-13"]))
def test_h7_1_reserve_shields_component_masks_and_engine_agree_both_ways(seed, steps, scenario):
    """``reserve_shields`` (H7.1: keep the batteries out of struck shields, at any decision
    point under ``rules.reserve_power``): every value alone, allowed accepted, masked refused."""
    env = _env(scenario)
    obs = _advance_staying(env, np.random.default_rng(seed), steps)
    if obs is None:
        return
    for agent in env.agents:
        layout = env._layouts[agent]
        (i,) = _components(env, agent, ("reserve_shields",))
        assert layout.nvec[i] == 2
        component_values_agree(env, agent, obs, i, range(1, int(layout.nvec[i])))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([0, 1, 2, 5, 9, 31, 32]),
       stored=st.integers(0, 5), batteries=st.integers(0, 5))
def test_g23_212_esg_reserve_components_masks_and_engine_agree_both_ways(
        seed, steps, stored, batteries):
    """The Lyran of a dict scenario under ``rules.reserve_power``: every ``esg_reserve[g]``
    value alone (G23.212 into the generator, G23.22 its room, H7.1 the charged batteries)."""
    env = _env(LYRAN_RESERVE)
    if _advance_staying(env, np.random.default_rng(seed), steps) is None:
        return
    b = env.battle
    seen = 0
    for agent in env.agents:
        layout = env._layouts[agent]
        for w in b.esg_rows(layout.unit):
            b.state.esg_stored[w] = min(stored, int(b.state.esg_max[w]))
        b.state.batteries[layout.unit] = batteries
        now = {agent: {"action_mask": layout.mask(b, env._slots[agent])}}
        for i in _components(env, agent, ("esg_reserve[",)):
            seen += 1
            component_values_agree(env, agent, now, i, range(1, int(layout.nvec[i])))
    assert seen == sum(len(b.esg_rows(env._layouts[a].unit)) for a in env.agents)


def test_h7_1_reserve_shields_component_only_under_reserve_power():
    """cth-07 (standard form, no reserve power) keeps its space: no ``reserve_shields``."""
    env = _env("cth-07")
    env.reset(seed=0)
    for agent in env.agents:
        assert not _components(env, agent, ("reserve_shields",))


def _advance_staying(env, rng, steps):
    """Random masked play that stays in the fight (no disengagement, SCENARIOS #5): the last
    observations, or None once the battle has ended."""
    obs, _ = env.reset(seed=int(rng.integers(1000)))
    for _ in range(steps):
        actions = masked_actions(env, obs, rng)
        for agent in env.agents:
            for i in _components(env, agent, ("disengage",)):
                actions[agent][i] = 0
        obs, *_ = env.step(actions)
        if not env.agents:
            return None
    return obs


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([1, 2, 3, 5, 9, 17]))
def test_fd1_2_launch_facing_values_masks_and_engine_agree_both_ways(seed, steps):
    """cth-10 (``rules.launch_facing``): every ``launch[r]`` value of the D7's racks alone, the
    facing values K + 6 (k - 1) + f + 1 included (FD1.2: the target in the drone's FA)."""
    env = _env("cth-10")
    obs = _advance_staying(env, np.random.default_rng(seed), steps)
    if obs is None:
        return
    for agent in env.agents:
        layout = env._layouts[agent]
        for i in _components(env, agent, ("launch[",)):
            assert layout.nvec[i] == 7 * layout.slots + 1
            component_values_agree(env, agent, obs, i, range(1, int(layout.nvec[i])))


def test_fd1_2_launch_facing_values_only_where_the_rule_is_on():
    for name, facings in (("cth-10", True), ("cth-03", False), ("duel-klingon-vs-federation",
                                                                 False)):
        env = _env(name)
        env.reset(seed=0)
        layout = env._layouts[env.agents[0]]
        sizes = {int(layout.nvec[i]) for i in _components(env, env.agents[0], ("launch[",))}
        assert sizes == {(7 if facings else 1) * layout.slots + 1}, name


def test_g8_0_transporter_components_only_where_the_rule_is_on():
    env = _env(TRANSPORTER_DUEL)
    env.reset(seed=0)
    names = env._layouts["constellation"].component_names()
    assert names.count("drop_shield") == 1 and "transporters" in names
    assert [n for n in names if n.startswith("transport[")] == [
        f"transport[{t}]" for t in range(3)]  # (CTH-DATA §9.2) Fed CA: TRAN 3
    plain = _env("cth-10")
    plain.reset(seed=0)
    assert not [n for n in plain._layouts["constellation"].component_names()
                if n.startswith(("transport", "drop_shield"))]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([0, 1, 2, 31, 32, 33, 64, 65]),
       pick=st.integers(0, 10_000))
def test_g5_probe_component_masks_and_engine_agree_both_ways(seed, steps, pick):
    """cth-11 (labs G4, probes G5: the ``probe`` component armed at Energy Allocation, launched
    in the Direct-Fire step) at and between its Energy Allocation points (impulses 0, 32)."""
    _engine_refuses_masked_choice("cth-11", seed, steps, pick)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([0, 1, 31, 32, 33, 64]),
       pick=st.integers(0, 10_000))
def test_e11_25_ppd_arm_values_masks_and_engine_agree_both_ways(seed, steps, pick):
    """grad-isc-full-vs-lyran, the Star Cruiser first: its PPD's six ``arm[h]`` values (E11.21,
    E11.22, E11.25 underload and hold-and-top-up) at and between Energy Allocation points; the
    ``ppd[p]`` reserve top-up (E11.24, E11.25) in tests/test_ppd_underload.py."""
    _engine_refuses_masked_choice("grad-isc-full-vs-lyran", seed, steps, pick)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([1, 2, 3, 4, 5, 8, 12, 16, 17, 20]),
       pick=st.integers(0, 10_000))
def test_e2_151_phaser_g_shot_components_masks_and_engine_agree_both_ways(seed, steps, pick):
    """The Hydran at close range (16-impulse turns, a quarter turn of 4): every value of each
    ``gatling[g].shot{k}`` (shot k open while k shots are left, this turn and in the quarter
    turn, at a target its first shot may take) is accepted if allowed and refused with the
    mask's rule if masked; then any masked choice."""
    env = _env(HYDRAN_CLOSE)
    rng = np.random.default_rng(seed)
    obs = _advance(env, rng, steps)
    if obs is None:
        return
    _every_value_agrees(env, obs, ("gatling",))
    _engine_refuses_masked_choice(HYDRAN_CLOSE, seed, steps, pick)


def test_e2_151_shot_k_closes_when_fewer_than_k_shots_are_left():
    """Three shots of the Hydran's phaser-G in one impulse leave one: ``fire`` stays open,
    shots 2..4 close with the E2.151 rule and the engine refuses them with it."""
    env = _env(HYDRAN_CLOSE)
    obs, _ = env.reset(seed=0)
    agent = "hydran-cadet"
    layout = env._layouts[agent]
    names = layout.component_names()
    gun = next(i for i, c in enumerate(layout.describe(env.battle))
               if c["kind"] == "fire" and c.get("weapon_type") == "ph-g")
    shots = [names.index(f"gatling[0].shot{k}") for k in (2, 3, 4)]
    for _ in range(8):  # until the phaser-G may fire at slot 1
        parts = env.action_space(agent).split_mask(obs[agent]["action_mask"])
        if parts[gun][1]:
            break
        obs, *_ = env.step({a: env._layouts[a].noop(env.battle) for a in env.agents})
    assert all(env.action_space(agent).split_mask(obs[agent]["action_mask"])[i][1]
               for i in [gun, *shots])
    action = layout.noop(env.battle)
    action[[gun, shots[0], shots[1]]] = 1
    other = "lyran-cadet"
    obs, *_ = env.step({agent: action, other: env._layouts[other].noop(env.battle)})
    fired = [e for e in env.battle.events if e.kind == "Fired" and e.weapon_type == "ph-g"]
    assert len(fired) == 3 and len({(e.turn, e.impulse) for e in fired}) == 1
    parts = env.action_space(agent).split_mask(obs[agent]["action_mask"])
    reasons = env.mask_reasons(agent)
    assert parts[gun][1]
    for i in shots:
        assert not parts[i][1:].any()
        assert reasons[names[i]][1] == "E2.151 3 of 4 shots already fired this turn"
        component_values_agree(env, agent, obs, i, [1])


def _every_value_agrees(env, obs, kinds: tuple[str, ...]) -> None:
    """Every value 1.. of each live agent's components named ``kinds`` both ways: accepted if
    the mask allows it, refused with the mask's rule if not."""
    for agent in env.agents:
        layout = env._layouts[agent]
        for i in _components(env, agent, kinds):
            component_values_agree(env, agent, obs, i, range(1, int(layout.nvec[i])))


def _engine_refuses_masked_choice(scenario, seed, steps, pick):
    env = _env(scenario)
    rng = np.random.default_rng(seed)
    obs = _advance(env, rng, steps)
    if obs is None:
        return
    agent = env.agents[0]
    layout = env._layouts[agent]
    reasons = env.mask_reasons(agent)
    names = layout.component_names()
    mask_parts = env.action_space(agent).split_mask(obs[agent]["action_mask"])
    masked = [
        (i, v) for i, part in enumerate(mask_parts) for v in np.flatnonzero(part == 0)
    ]
    # every masked choice has a reason, and no allowed choice has one
    for i, part in enumerate(mask_parts):
        assert set(reasons[names[i]]) == {int(v) for v in np.flatnonzero(part == 0)}
    judgeable = [
        (i, v) for i, v in masked if "target slot" not in reasons[names[i]][int(v)]
        and "padding" not in reasons[names[i]][int(v)]
    ]
    if not judgeable:
        return
    i, v = judgeable[pick % len(judgeable)]
    action = layout.noop(env.battle)
    action[i] = v
    orders = layout.to_orders(env.battle, action, env._slots[agent])
    with pytest.raises(IllegalOrderError) as err:
        env.battle.validate({layout.unit: orders})
    assert err.value.rule == reasons[names[i]][int(v)]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.sampled_from([0, 1, 2, 5, 16, 17]),
       pick=st.integers(0, 10_000))
def test_scenario_5_disengage_component_masks_and_engine_agree_both_ways(seed, steps, pick):
    """cth-05 (SCENARIOS #5 special, ``disengage``): the announcement's mask entry and the
    engine agree both ways at impulse 0 (closed) and later (open), then any masked choice."""
    env = _env("cth-05")
    rng = np.random.default_rng(seed)
    obs = _advance_quietly(env, rng, steps)
    if obs is not None:
        for agent in env.agents:
            i = env._layouts[agent].component_names().index("disengage")
            component_values_agree(env, agent, obs, i, [1])
    _engine_refuses_masked_choice("cth-05", seed, steps, pick)


def _advance_quietly(env, rng, n):
    """``_advance`` without announcing disengagement (the game would end at once)."""
    obs, _ = env.reset(seed=int(rng.integers(1000)))
    for _ in range(n):
        actions = masked_actions(env, obs, rng)
        for a in env.agents:
            actions[a][env._layouts[a].component_names().index("disengage")] = 0
        obs, *_ = env.step(actions)
        if not env.agents:
            return None
    return obs


def _tractor_choices_agree(env, agent) -> int:
    """Every ``tractor[b]`` value of ``agent`` both ways; returns how many were open."""
    layout = env._layouts[agent]
    obs = {agent: env.observe(agent)}
    return sum(component_values_agree(env, agent, obs, i, range(1, int(layout.nvec[i])))
               for i in _components(env, agent, ("tractor[",)))


def test_g7_tractor_components_masks_and_engine_agree_both_ways():
    """cth-08 (G7.0, ``tractor[b]``): the pirate beside a freighter at an impulse decision;
    every allowed choice passes the engine, every masked one is refused with the mask's rule;
    again once a beam holds it (release open, the held freighter closed to the other beam)."""
    from sfb_env import hexmap

    env = _env("cth-08")
    env.reset(seed=0)
    agent = "queen-of-diamonds"
    assert _tractor_choices_agree(env, agent) == 0  # impulse 0: no Tractor Beams step yet
    env.step({a: env._layouts[a].noop(env.battle) for a in env.agents})
    b = env.battle
    pirate = b.unit_index[agent]
    b.state.x[pirate], b.state.z[pirate] = hexmap.label_to_axial("0214")  # by freighter-D
    env._observe()
    assert _tractor_choices_agree(env, agent) >= 2  # both beams may take freighter-D
    layout = env._layouts[agent]
    action = layout.noop(b)
    slot = int(np.flatnonzero(env._slots[agent] == b.unit_index["freighter-D"])[0]) + 1
    action[layout.component_names().index("tractor[0]")] = slot + 1
    env.step({agent: action})
    assert b.state.tractor_holder[b.unit_index["freighter-D"]] == pirate
    assert _tractor_choices_agree(env, agent) >= 1  # the release of beam 0
