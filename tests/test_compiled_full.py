"""The 32-impulse full-size game in the compiled core (issue 14, tier 2), each rule area alone on
variants of the shipped 32-impulse scenarios with the rules not ported yet (the standard
Energy Allocation Form, the standard DAC, lock-on) replaced by ported ones: the Chief
Engineer (``energy: chief``), ``damage: interim`` or ``cadet_dac``, ``lock_on: false``.

- the 32-impulse movement chart (C1.41; ships 0..31, C1.42) and the speed choice's joint
  speed-and-maneuver check (C3.2, ``tiers.JOINT_SPEED_MANEUVER_CHECK``): no speed of the
  chart moves on impulse 1, so the masks leave no pair the engine refuses;
- the full-size ship classes (CTH-DATA §9.2): the D7's nine phaser-2, four disruptors and two
  drone racks with one launch a turn (FD4.21), the Federation CA's photons, the Gorn CA's and
  ISC's plasma-S launchers (FP1), the ISC's PPD (E11), the Kzinti CS's four racks, the Orion
  raider (2/3 move cost under the Chief Engineer), the Romulan KR and War Eagle without the
  standard cloak, and the Lyran Tiger's two ESGs (G23.122: both fields of one ship against
  what meets them, one volley per unit);
- drones of warhead 12 (CTH-DATA §5.2, FD1.6; ``rules.drone_warhead``);
- the same ships under the cadet Energy Allocation Form (``energy: cadet``): the plasma
  launchers armed and launched (the Chief Engineer arms none), the two ESGs charged.
"""

from __future__ import annotations

import numpy as np
import pytest
from compiled_phase_helpers import (
    decoder,
    esg_contacts,
    place_around_esg,
    validate_speed_choices,
)

import sfb_env
from sfb_env import impulse
from sfb_env.compiled import damage, esg, layout, parity, tiers
from sfb_env.engine import esg_field

pytestmark = pytest.mark.compiled_late

#: The rules of the full-size scenarios that other rule areas port, replaced by ported ones.
FULL_RULES = {"energy": "chief", "speed_choice": True, "damage": "interim", "lock_on": False}
FULL = {
    "gorn-klingon": parity.with_rules("duel-full-gorn-vs-klingon", FULL_RULES),
    "isc-klingon": parity.with_rules("grad-isc-full-vs-klingon", FULL_RULES),
    "lyran-klingon": parity.with_rules("grad-lyran-full-vs-klingon",
                                       {**FULL_RULES, "damage": "cadet_dac"}),
    "cth-07": parity.with_rules("cth-07", FULL_RULES),
    "orion-klingon": parity.with_rules("duel-full-orion-vs-klingon",
                                       {**FULL_RULES, "cloak": "none"}),
    "lyran-kzinti": parity.with_rules("grad-lyran-full-vs-kzinti", FULL_RULES),
    "isc-gorn": parity.with_rules("grad-isc-full-vs-gorn",
                                  {**FULL_RULES, "damage": "cadet_dac"}),
    # the Romulans without the standard cloak: the KR's swivel plasma-S launchers, the War
    # Eagle's fixed plasma-R (FP3.1)
    "kr-klingon": parity.with_rules("duel-full-romulan-kr-vs-klingon",
                                    {**FULL_RULES, "cloak": "none"}),
    "eagle-federation": parity.with_rules("duel-full-romulan-vs-federation",
                                          {**FULL_RULES, "cloak": "none"}),
}
# The Chief Engineer never arms a plasma launcher, and full-size ships start with none armed
# (FP1.22, FP1.23): the plasma-S and plasma-R launches are proved under the cadet Energy
# Allocation Form (B3.0, FP2.0), which also charges the Tiger's two ESGs (G23.21).
CADET_RULES = {"energy": "cadet", "damage": "interim", "lock_on": False}
FULL.update({
    "gorn-klingon-cadet": parity.with_rules("duel-full-gorn-vs-klingon", CADET_RULES),
    "isc-gorn-cadet": parity.with_rules("grad-isc-full-vs-gorn", CADET_RULES),
    "eagle-federation-cadet": parity.with_rules("duel-full-romulan-vs-federation",
                                                {**CADET_RULES, "cloak": "none"}),
    "lyran-klingon-cadet": parity.with_rules("grad-lyran-full-vs-klingon", CADET_RULES),
})
# in CI two variants (the Tiger's two ESGs under the Chief Engineer, plasma under the cadet
# form); the shipped full-size scenarios, compiled now, run in CI in test_compiled_parity
# (COMPILED), every variant in the slow long runs below
CI = ("lyran-klingon", "gorn-klingon-cadet")


@pytest.mark.parametrize("name", sorted(FULL))
def test_full_size_variants_are_compiled(name):
    """Every variant plays on the compiled core: its chart, classes and rules are ported."""
    from sfb_env.engine.battle import make_battle
    from sfb_env.engine.scenario import load_scenario

    assert tiers.missing(make_battle(load_scenario(FULL[name])).setup) == []


def test_c1_41_no_ship_speed_of_the_32_impulse_chart_moves_on_impulse_1():
    """(C1.41, C1.42) On 32 impulses a ship's speed is 0..31 and none of them moves on
    impulse 1 (speed 32, a drone's, is the only one): where orders pick next turn's speed
    (C3.2) the maneuver is unused at every speed, so the per-component masks cannot admit a
    pair the engine refuses (``tiers.JOINT_SPEED_MANEUVER_CHECK``)."""
    chart = impulse.movement_chart(32)
    assert not chart[:32, 0].any() and chart[32, 0]
    assert 32 in tiers.IMPULSES_PER_TURN and not tiers.JOINT_SPEED_MANEUVER_CHECK
    env = sfb_env.parallel_env(FULL["gorn-klingon"], backend="reference")
    assert env.battle.rules.max_speed == 31


@pytest.mark.parametrize("name", ["gorn-klingon", "lyran-klingon"])
def test_c3_2_masks_leave_no_speed_and_maneuver_pair_the_engine_refuses(name):
    """(C3.2) Where the orders pick next turn's speed on the 32-impulse chart, every (speed,
    maneuver) pair the masks leave open passes the engine's validation (only NONE is open:
    no speed moves on impulse 1)."""
    checked = 0
    env = sfb_env.parallel_env(FULL[name], backend="reference", illegal_action="raise")
    obs, _ = env.reset(seed=0)
    for a in env.agents:
        env.action_space(a).seed(0)
    for n in range(300):
        if not env.agents:
            obs, _ = env.reset(seed=n)
        checked += validate_speed_choices(env, obs, name, only_none=True)
        obs, *_ = env.step({a: env.action_space(a).sample(mask=obs[a]["action_mask"])
                            for a in env.agents})
    assert checked > 150


@pytest.mark.parametrize("name", CI)
def test_full_size_random_masked_play_matches_the_reference_one_battle(name):
    report = parity.lockstep(FULL[name], num_battles=1, steps=250, seed=1, autoreset=False)
    assert report.steps == 250


@pytest.mark.parametrize("name", CI)
def test_full_size_fighting_captains_match_the_reference_batched_with_autoreset(name):
    report = parity.lockstep(FULL[name], num_battles=4, steps=60, seed=2,
                             policy="random-fighter")
    assert report.events.get("Fired", 0) > 0, report.line()


def test_fp1_plasma_launches_of_the_full_size_ships_match_the_reference():
    """(FP1.22, FP2.0, FP3.1) Under the cadet form the Gorn CA's and the ISC's plasma-S and the
    War Eagle's plasma-R arm over three turns and launch on the 32-impulse chart."""
    for name in ("isc-gorn-cadet", "eagle-federation-cadet"):
        report = parity.lockstep(FULL[name], num_battles=4, steps=300, seed=4,
                                 policy="doctrine")
        assert report.events.get("Launched", 0) > 0, report.line()


def test_fd1_6_drone_warhead_12_matches_the_reference():
    """(CTH-DATA §5.2, FD1.6) Full-size ships' drones strike for 12: the D7's and the Kzinti
    CS's drones in random-fighter play, impacts included, match the reference."""
    doc = parity.with_rules("grad-lyran-full-vs-kzinti", FULL_RULES)
    report = parity.lockstep(doc, num_battles=4, steps=200, seed=5, policy="random-fighter")
    assert report.events.get("SeekingHit", 0) > 0, report.line()


# ------------------------------------------------------- two generators on one ship (G23.122)


def _tiger_states(steps: int = 300) -> list:
    """Reference battles of the Lyran Tiger variant at the entry of each ``resolve_contacts``."""
    out = []
    original = esg_field.resolve_contacts

    def contacts(battle):
        out.append(battle.copy())
        original(battle)

    esg_field.resolve_contacts = contacts
    try:
        env = sfb_env.parallel_env(FULL["lyran-kzinti"], backend="reference")
        obs, _ = env.reset(seed=0)
        for k, a in enumerate(env.possible_agents):
            env.action_space(a).seed(k)
        for n in range(steps):
            if not env.agents:
                obs, _ = env.reset(seed=n + 1)
            obs, *_ = env.step({a: env.action_space(a).sample(mask=obs[a]["action_mask"])
                                for a in env.agents})
    finally:
        esg_field.resolve_contacts = original
    return out


def _two_fields(battle, rng):
    """``battle`` with both of the Tiger's fields operating (random radii, strengths, ages)
    and every other unit in play within 5 hexes, each unit having moved one hex or not."""
    rows = [int(w) for w in esg_field.esg_rows(battle)]
    return place_around_esg(battle, rng, rows, max_speed=31)


def test_g23_122_both_fields_of_one_ship_match_the_reference():
    """(G23.122, G23.511, G23.512, G23.52) The Tiger's two fields against units placed around
    them: contacts of one field or both, the larger field first, a unit damaged by one needing
    less from the other, one volley per unit, a field exhausted dropped: the same as
    ``esg_field.resolve_contacts``, dice and events included."""
    rng = np.random.default_rng(122)
    states = _tiger_states()[:150]
    setup = states[0].setup
    et, ft = esg.esg_tables(setup), damage.fire_tables(setup)
    assert et.rows.shape[0] == 2
    seen: dict = {}
    for battle in states:
        for _ in range(4):
            placed = _two_fields(battle, rng)
            ref = placed.copy()
            n0 = len(ref.events)
            esg_field.resolve_contacts(ref)
            s = layout.pack([placed.copy().state])
            esg_contacts(damage.view_of(s), esg.view_of(s), s.side, ft, et, 0)
            assert layout.differences(s, 0, ref.state) == []
            want = ref.events[n0:]
            assert decoder(placed).decode(s.ev[0, :s.ev_count[0]]) == want
            for e in want:
                key = e.kind if e.kind != "EsgDropped" else f"EsgDropped:{e.reason}"
                seen[key] = seen.get(key, 0) + 1
            both = [w for w in esg_field.esg_rows(placed)
                    if ref.state.esg_strength[w] < placed.state.esg_strength[w]]
            seen["both"] = seen.get("both", 0) + (len(both) == 2)
    for kind in ("EsgStruck", "Damaged", "EsgDropped:exhausted", "both"):
        assert seen.get(kind, 0) > 0, (kind, seen)


def test_g23_122_tiger_duel_matches_the_reference():
    """(G23.122) The Tiger's two generators in play: announced, released and striking, masks
    and ESG blocks of both, against the reference."""
    report = parity.lockstep(FULL["lyran-kzinti"], num_battles=2, steps=300, seed=7)
    assert report.events.get("EsgReleased", 0) > 0, report.line()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FULL))
@pytest.mark.parametrize("policy", ["random", "random-fighter", "doctrine"])
def test_full_size_long_runs_match(name, policy):
    if policy == "random":
        report = parity.lockstep(FULL[name], num_battles=1, steps=3000, seed=11,
                                 autoreset=False)
    elif policy == "random-fighter":
        report = parity.lockstep(FULL[name], num_battles=16, steps=300, seed=12, policy=policy)
    else:
        report = parity.lockstep(FULL[name], num_battles=4, steps=300, seed=13, policy=policy)
    print(report.line())
