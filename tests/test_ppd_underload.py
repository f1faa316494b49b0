"""PPD underload and top-up through the engine (E11.24, E11.25; ``engine.ppd_fire`` PpdArm and
the ``ppd[p]`` TOP_UP order), with the masks and the engine agreeing both ways."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import (
    component_values_agree,
    masked_actions,
    of,
    row,
    run_to,
    scenario,
    step,
    unit,
    weapon,
)

import sfb_env
from sfb_env.data import load_data_file
from sfb_env.engine import IllegalOrderError, Orders, energy, make_battle
from sfb_env.engine.ppd import PpdStage
from sfb_env.engine.ppd_fire import PPD_ARM_ORDERS, TOP_UP, PpdArm, drop_blockers
from sfb_env.engine.scenario import SCENARIO_DIR
from sfb_env.engine.types import Box


def _cadet(ipt: int = 8):
    doc = scenario([unit("i", "isc-cadet", "blue", "0515", "A", 0),
                    unit("k", "klingon-cadet", "red", "0503", "A", 0)],
                   rules={"energy": "cadet", "damage": "interim"})
    doc["impulses_per_turn"] = ipt
    return make_battle(doc, seed=0)


def _reserve(reserve_power: bool = True):
    """The Star Cruiser (4 batteries) and a D7, 8 hexes apart, standard form with H7."""
    doc = scenario([unit("i", "isc-star-cruiser", "blue", "0515", "A", 0),
                    unit("k", "klingon-d7", "red", "0507", "A", 0)],
                   rules={"energy": "standard", "damage": "standard_dac", "max_speed": 31,
                          "reserve_power": reserve_power})
    doc["impulses_per_turn"] = 32
    return make_battle(doc, seed=0)


def _ppd(b):
    return weapon(b, "i", "PPD-A")


def _allocate(b, value: int, ppd: int | None = None):
    """Step through an Energy Allocation point giving the PPD ``arm`` order ``value``."""
    w, i, k = _ppd(b), row(b, "i"), row(b, "k")
    b.step({i: Orders(speed=0, arm={w: value}, ppd={} if ppd is None else {w: ppd}),
            k: Orders(speed=0)})


def _arm_two_turns(b, first: PpdArm, second: PpdArm) -> None:
    ipt = b.state.impulses_per_turn
    _allocate(b, int(first))
    run_to(b, 1, ipt)
    _allocate(b, int(second))


class _Dice:
    """Scripted single dice first (the wave-lock roll), then a seeded generator (damage)."""

    def __init__(self, dice) -> None:
        self.dice = list(dice)
        self.rng = np.random.default_rng(0)

    def integers(self, low, high=None, size=None):
        if size is None and self.dice:
            return self.dice.pop(0)
        return self.rng.integers(low, high, size=size)

    def __getattr__(self, name):
        return getattr(self.rng, name)


def _fire_train(b, dice=(1, 1), ppd: int | None = None):
    """Fire the PPD at the Klingon now (with ``ppd[p]`` order ``ppd``) and let the whole train
    run; the ``Fired`` pulses."""
    b.rng = _Dice(dice)
    w, i, k = _ppd(b), row(b, "i"), row(b, "k")
    b.step({i: Orders(fire={w: k}, ppd={} if ppd is None else {w: ppd}), k: Orders()})
    for _ in range(4):
        step(b)
    return of(b, "Fired", weapon_type="ppd")


@pytest.mark.parametrize(("first", "second", "energy_", "pulses"), [
    (PpdArm.ARM_2, PpdArm.ARM_2, 4, 2),
    (PpdArm.ARM_2, PpdArm.ARM_3, 5, 2),
    (PpdArm.ARM_3, PpdArm.ARM_3, 6, 3),
    (PpdArm.ARM_3, PpdArm.ARM, 7, 3),
    (PpdArm.ARM, PpdArm.ARM, 8, 4),
])
def test_e11_25_underload_two_to_four_a_turn_one_pulse_per_two_points(first, second, energy_,
                                                                      pulses):
    b = _cadet()
    w = _ppd(b)
    _arm_two_turns(b, first, second)
    assert (b.state.ppd_stage[w], b.state.ppd_energy[w]) == (int(PpdStage.ARMED), energy_)
    paid = [e.energy for e in of(b, "WeaponArmed", weapon="i.PPD-A")]
    assert paid == [{PpdArm.ARM: 4, PpdArm.ARM_2: 2, PpdArm.ARM_3: 3}[v] for v in (first, second)]
    fired = _fire_train(b)  # locked on the first roll: every programmed pulse scores
    assert len(fired) == pulses and b.state.ppd_pulses[w] == pulses


def test_e11_25_underload_needs_two_consecutive_turns_no_one_pulse_ppd():
    b = _cadet()
    w, k = _ppd(b), row(b, "k")
    _allocate(b, int(PpdArm.ARM_2))  # 2 points: arming, cannot fire yet (E11.21)
    assert b.state.ppd_stage[w] == int(PpdStage.ARMING)
    assert b.fire_blockers(w, [k])[0].startswith("E11.21")
    run_to(b, 1, 8)
    _allocate(b, int(PpdArm.NONE))  # the second turn not paid: the 2 points are lost
    assert b.state.ppd_stage[w] == int(PpdStage.EMPTY) and b.state.ppd_energy[w] == 0


def test_e11_25_holding_and_allocating_more_energy_fills_the_charge_to_eight():
    b = _cadet()
    w = _ppd(b)
    _arm_two_turns(b, PpdArm.ARM_2, PpdArm.ARM_2)  # 4 points, two pulses
    run_to(b, 2, 8)
    assert PpdArm.HOLD_TOP_UP not in energy.arm_blockers(b, w)
    _allocate(b, int(PpdArm.HOLD_TOP_UP))  # turn 3: hold 2 (adds nothing) + 4 top-up
    armed = of(b, "WeaponArmed", weapon="i.PPD-A")[-1]
    assert (armed.turn, armed.energy, armed.held) == (3, 2 + 4, True)
    assert b.state.ppd_energy[w] == 8
    assert len(_fire_train(b)) == 4


def test_e11_25_top_up_short_of_power_is_dropped_and_the_hold_kept():
    """PROPOSAL (the clamp, ``engine.energy``): a hold-and-top-up the ship cannot pay in full
    drops the top-up (an ``EnergyShortfall`` "top_up:") and still pays the hold of 2."""
    b = _cadet()
    w, i = _ppd(b), row(b, "i")
    _arm_two_turns(b, PpdArm.ARM_2, PpdArm.ARM_2)
    run_to(b, 2, 8)
    b.state.boxes[i, Box.WARP] = 0  # (D4.0) engines shot away: 2 impulse + 2 APR left
    b.state.batteries[i] = 0
    _allocate(b, int(PpdArm.HOLD_TOP_UP))  # 2 + 4 asked, 4 available
    short = of(b, "EnergyShortfall", item="top_up:i.PPD-A")
    assert [e.cost for e in short] == [4]
    armed = of(b, "WeaponArmed", weapon="i.PPD-A")[-1]
    assert (armed.turn, armed.energy, armed.held) == (3, 2, True)
    assert b.state.ppd_energy[w] == 4 and b.state.ppd_stage[w] == int(PpdStage.ARMED)


def test_e11_22_plain_hold_keeps_an_underloaded_charge_at_its_strength():
    b = _cadet()
    w = _ppd(b)
    _arm_two_turns(b, PpdArm.ARM_3, PpdArm.ARM_3)
    run_to(b, 2, 8)
    _allocate(b, int(PpdArm.HOLD))
    assert of(b, "WeaponArmed", weapon="i.PPD-A")[-1].energy == 2  # not reduced (E11.25)
    assert b.state.ppd_energy[w] == 6 and len(_fire_train(b)) == 3


def test_e11_23_underload_values_closed_while_a_charge_is_held_and_top_up_on_a_full_one():
    b = _cadet()
    w = _ppd(b)
    _arm_two_turns(b, PpdArm.ARM, PpdArm.ARM)
    run_to(b, 2, 8)
    closed = energy.arm_blockers(b, w)
    assert all(closed[int(v)].startswith("E11.23") for v in (1, 3, 4))
    assert closed[int(PpdArm.HOLD_TOP_UP)].startswith("E11.25 the charge is full")
    with pytest.raises(IllegalOrderError) as err:
        _allocate(b, int(PpdArm.ARM_2))
    assert err.value.rule.startswith("E11.23") and err.value.value == "ARM_2"


def test_b3_arm_values_beyond_the_ppd_component_raise():
    b = _cadet()
    with pytest.raises(IllegalOrderError) as err:
        _allocate(b, PPD_ARM_ORDERS)
    assert "E11.25" in err.value.rule


def test_e11_25_reserve_power_tops_up_an_armed_underloaded_charge():
    b = _reserve()
    w, i = _ppd(b), row(b, "i")
    _arm_two_turns(b, PpdArm.ARM_2, PpdArm.ARM_2)
    step(b)  # impulse 1 of turn 2: armed with 4, two pulses
    charged = int(b.state.batteries[i])
    assert b.state.ppd_energy[w] == 4 and charged >= 4
    assert TOP_UP not in drop_blockers(b, w)
    fired = _fire_train(b, ppd=TOP_UP)  # top up, then fire: four pulses
    assert len(fired) == 4
    used = of(b, "ReserveDischarged", use="ppd_top_up:i.PPD-A")
    assert [(e.energy, e.left) for e in used] == [(4, charged - 4)]


def test_e11_24_reserve_power_cannot_begin_arming_a_ppd():
    b = _reserve()
    w = _ppd(b)
    assert drop_blockers(b, w)[TOP_UP].startswith("E11.24")  # empty
    _allocate(b, int(PpdArm.ARM_2))
    assert drop_blockers(b, w)[TOP_UP].startswith("E11.24")  # arming, first turn paid
    with pytest.raises(IllegalOrderError) as err:
        b.step({row(b, "i"): Orders(ppd={w: TOP_UP}), row(b, "k"): Orders()})
    assert err.value.rule.startswith("E11.24")


def test_e11_25_no_top_up_component_without_reserve_power():
    env = sfb_env.parallel_env(_reserve_doc(reserve_power=False))
    env.reset(seed=0)
    names = env._layouts[env.agents[0]].component_names()
    nvec = env.action_space(env.agents[0]).nvec
    assert nvec[names.index("ppd[0]")] == 2 and nvec[names.index("arm[0]")] == PPD_ARM_ORDERS


def _reserve_doc(reserve_power: bool = True) -> dict:
    """grad-isc-full-vs-klingon with reserve power (H7) in force."""
    doc = dict(load_data_file(SCENARIO_DIR / "grad-isc-full-vs-klingon.yaml"))
    doc["rules"] = dict(doc["rules"], reserve_power=reserve_power)
    doc["name"] = "isc-reserve-duel"
    return doc


def _ppd_components(layout) -> list[int]:
    """Indices of the ``ppd[p]`` and ``arm[h]`` components."""
    return [i for i, n in enumerate(layout.component_names()) if n.startswith(("ppd[", "arm["))]


@pytest.mark.parametrize("seed", range(6))
def test_e11_25_ppd_components_masks_and_engine_agree_both_ways(seed):
    """At and between the Energy Allocation points of the ISC duel with reserve power: every
    masked ``arm``/``ppd`` value of the Star Cruiser is refused by the engine with the mask's
    rule, and every open one is accepted."""
    env = sfb_env.parallel_env(_reserve_doc())
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    agent = env.agents[0]
    checked = 0
    for _ in range(130):
        if agent not in env.agents:
            break
        layout = env._layouts[agent]
        for i in _ppd_components(layout):
            component_values_agree(env, agent, obs, i, range(int(layout.nvec[i])))
            checked += int(layout.nvec[i])
        obs, *_ = env.step(masked_actions(env, obs, rng))
    assert checked


def test_e11_25_uniform_spaces_pad_the_ppd_arm_component_for_every_ship():
    """Under ``uniform_spaces`` a position that is a PPD on one ship and another heavy weapon
    on the other takes the PPD's 6 values; the extra ones are masked as padding."""
    from fuzz_helpers import assert_fights, fuzz_games

    env = sfb_env.parallel_env("grad-isc-full-vs-lyran", uniform_spaces=True)
    obs, _ = env.reset(seed=0)
    isc, lyran = env.possible_agents
    assert list(env.action_space(isc).nvec) == list(env.action_space(lyran).nvec)
    names = env._layouts[lyran].component_names()
    why = env.mask_reasons(lyran)[names[names.index("arm[0]")]]
    assert all("padding" in why[v] for v in range(3, PPD_ARM_ORDERS))
    cov = fuzz_games("grad-isc-full-vs-lyran", range(2), max_turns=2, uniform_spaces=True)
    assert_fights("grad-isc-full-vs-lyran", cov)  # captains that fight, padded spaces
