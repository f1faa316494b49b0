"""Tactical maneuvers (scenario 10 rules, C5.0) behind the scenario rule ``tactical_maneuvers``,
and the agreement of masks and engine with the C4/C5 rules on.

A TAC plot is made where speed is chosen (``Orders.tactical``; in the env: speed component
value max + 1 + n for n warp tactical maneuvers). The unit stays in its hex all turn; maneuver
values 6/7 rotate it 60 degrees in place.
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import facing_of, hex_of, of, row, scenario, step, unit

import sfb_env
from sfb_env.engine import IllegalOrderError, Maneuver, Orders, energy, make_battle
from sfb_env.engine.movement import earns_tactical_maneuver
from sfb_env.engine.types import MAX_WARP_TACTICAL, Box

CA = "fed-ca"
RULES = {"speed_choice": True, "tactical_maneuvers": True, "sideslip": True}
TACS = (Maneuver.TACTICAL_LEFT, Maneuver.TACTICAL_RIGHT)


def _battle(ipt: int = 32, hex_: str = "1010", facing: str = "A", speed: int = 8,
            parity: str = "even-down", rules=None):
    doc = scenario([unit("ca", CA, "blue", hex_, facing, speed),
                    unit("d7", "klingon-d7", "red", "2010", "F", 0, controller="idle")],
                   rules=rules or RULES)
    doc["impulses_per_turn"] = ipt
    doc["parity"] = parity
    return make_battle(doc)


def _plot(b, warp: int, maneuver: str | None = None) -> None:
    """At a speed-choice decision point: plot TAC with ``warp`` warp tactical maneuvers."""
    step(b, ca=dict(maneuver=maneuver, speed=warp, tactical=True))


def _tac_open(b) -> bool:
    return not set(TACS) & set(b.maneuver_blockers(row(b, "ca")))


# ---------------------------------------------------------------------- C5.231 earning


@pytest.mark.parametrize("ipt, warp, expected", [
    (32, 4, [2, 8, 16, 24]),  # the C5.231 example (not 32, the last impulse)
    (32, 3, [2, 11, 22]),
    (32, 2, [2, 16]),
    (32, 1, [2]),
    (16, 4, [2, 4, 8, 12]),
    (8, 4, [2, 4, 6]),  # the chart's move on impulse 2 is the first maneuver itself
    (32, 0, []),
])
def test_c5_231_warp_tactical_maneuvers_are_earned_on_impulse_2_then_on_chart_moves(
        ipt, warp, expected):
    assert [i for i in range(1, ipt + 1) if earns_tactical_maneuver(warp, i, ipt)] == expected


def test_c5_231_four_warp_maneuvers_are_used_on_impulses_2_8_16_24():
    b = _battle()
    b.state.boxes[row(b, "ca"), Box.IMPULSE] = 0  # (C5.12) no sublight maneuver: warp only
    _plot(b, 4)
    u = row(b, "ca")
    assert b.state.tactical[u] and int(b.state.speed[u]) == 4
    assert of(b, "TacticalPlotted") and of(b, "TacticalPlotted")[0].warp_maneuvers == 4
    used = []
    while b.state.impulse < 32:
        if _tac_open(b):
            step(b, ca="TR")
            used.append(b.state.impulse)
        else:
            step(b, ca="-")
        assert hex_of(b, "ca") == "1010"  # (C5.21) it stays in its hex
    assert used == [2, 8, 16, 24]
    events = of(b, "TacticalManeuver")
    assert [(e.impulse, e.paid_with, e.turned) for e in events] == [
        (2, "warp", 1), (8, "warp", 1), (16, "warp", 1), (24, "warp", 1)]
    assert facing_of(b, "ca") == "E"  # four right rotations from A
    assert not of(b, "Moved", unit="ca")


def test_c5_232_only_one_earned_maneuver_is_held():
    b = _battle()
    b.state.boxes[row(b, "ca"), Box.IMPULSE] = 0
    _plot(b, 4)
    while b.state.impulse < 12:  # earned on 2 and 8, none used: the one of 2 is lost
        step(b, ca="-")
    assert _tac_open(b)
    step(b, ca="TL")  # impulse 13: the one earned on 8
    assert b.state.impulse == 13
    blocked = b.maneuver_blockers(row(b, "ca"))
    assert blocked[Maneuver.TACTICAL_LEFT].startswith(
        "C5.231 no warp tactical maneuver earned for impulse 14")
    with pytest.raises(IllegalOrderError, match="C5.231"):
        step(b, ca="TL")
    while b.state.impulse < 15:
        step(b, ca="-")
    assert _tac_open(b)  # impulse 16 earns the next
    assert len(of(b, "TacticalManeuver")) == 1


def test_c5_11_sublight_maneuver_once_per_turn_after_the_first_impulse():
    # C5.11 example: 0305 facing A; moving one hex it could enter 0304 (1A), 0404 (1B) or 0204
    # (1F) (book hexes, even-down); on TAC it may instead turn to face one of them, once a turn
    b = _battle(ipt=8, hex_="0305", facing="A")
    assert b.maneuver_blockers(row(b, "ca"), 0)[Maneuver.TACTICAL_RIGHT] == (
        "C5.11 no tactical maneuver on the first impulse of a turn")
    _plot(b, 0)
    step(b, ca="-")
    assert b.state.impulse == 2 and _tac_open(b)
    step(b, ca="TR")
    assert (hex_of(b, "ca"), facing_of(b, "ca")) == ("0305", "B")
    (tac,) = of(b, "TacticalManeuver")
    assert (tac.impulse, tac.paid_with, tac.hex, tac.facing) == (3, "sublight", "0305", "B")
    from sfb_env import hexmap

    assert hexmap.neighbor("0305", "B") == "0404"
    assert [hexmap.neighbor("0305", d) for d in "AF"] == ["0304", "0204"]
    blocked = b.maneuver_blockers(row(b, "ca"))
    assert blocked[Maneuver.TACTICAL_LEFT].startswith("C5.231")  # used: only one a turn
    assert blocked[Maneuver.STRAIGHT] == "C5.21 a unit on tactical maneuvers stays in its hex " \
        "this turn"


def test_c5_11_rules_file_hexes_hold_under_odd_down():
    # CTH-DATA §13.1 rows 23-24: the rules file's 0405 / 0205 are the odd-down neighbours
    from sfb_env import hexmap

    assert [hexmap.neighbor("0305", d, parity="odd-down") for d in "ABF"] == [
        "0304", "0405", "0205"]
    b = _battle(ipt=8, hex_="0305", facing="A", parity="odd-down")
    _plot(b, 0)
    step(b, ca="TL")
    assert (hex_of(b, "ca"), facing_of(b, "ca")) == ("0305", "F")


def test_c5_3_warp_and_sublight_in_one_turn_never_on_one_impulse():
    b = _battle(ipt=8)
    _plot(b, 1)  # one warp maneuver, earned on impulse 2, plus the sublight one
    step(b, ca="TR")  # impulse 2: the earned warp maneuver is used first
    step(b, ca="TR")  # impulse 3: the sublight one
    assert not _tac_open(b)
    assert [(e.impulse, e.paid_with) for e in of(b, "TacticalManeuver")] == [
        (2, "warp"), (3, "sublight")]
    assert facing_of(b, "ca") == "C"


def test_c5_4_next_turn_counts_as_speed_0_and_the_mode_counts_restart():
    b = _battle(ipt=8, speed=4)
    step(b, ca=dict(speed=4))  # turn 1: moves at 4
    while b.state.impulse < 8:
        step(b, ca="S" if Maneuver.STRAIGHT not in b.maneuver_blockers(row(b, "ca")) else "-")
    u = row(b, "ca")
    _plot(b, 2)  # turn 2: TAC
    assert int(b.state.previous_speed[u]) == 4
    while b.state.impulse < 8:
        step(b, ca="-")
    step(b, ca=dict(speed=8))  # turn 3: moves again at 8
    assert b.state.turn == 3 and not b.state.tactical[u]
    assert int(b.state.previous_speed[u]) == 0  # (C5.4) speed 0 for acceleration purposes
    # impulse 1's move was the first hex since the counts restarted at zero (C5.4)
    assert (int(b.state.straight[u]), int(b.state.slip[u])) == (1, 1)
    blocked = b.maneuver_blockers(u)
    assert blocked[Maneuver.TURN_LEFT] == "C3.2 turn mode 2 not satisfied (1 hex straight)"


def test_c5_tactical_plot_is_refused_where_not_allowed():
    off = _battle(ipt=8, rules={"speed_choice": True})
    with pytest.raises(IllegalOrderError, match=r"C5\.0") as err:
        off.step({row(off, "ca"): Orders(speed=2, tactical=True)})
    assert err.value.component == "tactical"
    b = _battle(ipt=8)
    with pytest.raises(IllegalOrderError, match=r"C5\.22"):
        b.step({row(b, "ca"): Orders(speed=5, tactical=True)})
    _plot(b, 2)
    with pytest.raises(IllegalOrderError, match=r"B2\.0 tactical maneuvers are plotted only"):
        b.step({row(b, "ca"): Orders(speed=2, tactical=True)})
    with pytest.raises(IllegalOrderError, match=r"C5\.11 no tactical maneuver on the first"):
        b2 = _battle(ipt=8)
        b2.step({row(b2, "ca"): Orders(maneuver=Maneuver.TACTICAL_LEFT, speed=2, tactical=True)})
    moving = _battle(ipt=8)
    step(moving, ca=dict(maneuver="S", speed=8))
    with pytest.raises(IllegalOrderError, match=r"C5\.11 the unit did not plot"):
        step(moving, ca="TL")


def test_c5_switches_off_keep_the_existing_action_layout():
    """Scenarios without the C4/C5 switches keep the basic maneuver and speed components; those
    with them (scenario 10's rules: cth-10, cth-12, cth-13) get the documented larger ones."""
    checked = {False: 0, True: 0}
    for name in sfb_env.list_scenarios():
        env = sfb_env.parallel_env(name)
        rules = env.battle.rules
        tac = bool(rules.tactical_maneuvers)
        maneuvers = 8 if tac else 6 if rules.sideslip else 4
        for a in env.possible_agents:
            nvec = env.action_space(a).nvec
            assert nvec[-2] == maneuvers, name
            assert nvec[-1] == rules.max_speed + 1 + (MAX_WARP_TACTICAL + 1) * tac, name
        checked[tac] += 1
    assert checked[False] and checked[True] >= 3


# ---------------------------------------------------------------------- masks and engine


def _env(seed_scenario: int = 0):
    doc = scenario([
        unit("ca", CA, "blue", "1008", "C", 8),
        unit("d7", "klingon-d7", "red", "1810", "F", 8),
    ], rules=RULES, turn_limit=3)
    doc["impulses_per_turn"] = 16
    return sfb_env.parallel_env(doc, illegal_action="raise")


def test_c4_c5_env_action_components_describe_the_new_values():
    env = _env()
    env.reset(seed=0)
    comps = {c["name"]: c for c in env.action_components("ca")}
    assert comps["maneuver"]["values"][4:] == [
        "sideslip_left", "sideslip_right", "tactical_left", "tactical_right"]
    assert comps["speed"]["size"] == 16 + 1 + 5
    assert comps["speed"]["values"][-5:] == [f"tactical_{n}" for n in range(5)]


def test_c4_c5_every_allowed_maneuver_is_accepted_and_every_masked_one_refused_with_its_rule():
    env = _env()
    rng = np.random.default_rng(0)
    seen_allowed: set[int] = set()
    seen_tac_plot = False
    for episode in range(3):
        obs, _ = env.reset(seed=episode)
        while env.agents:
            for agent in env.agents:
                layout = env._layouts[agent]
                parts = env.action_space(agent).split_mask(obs[agent]["action_mask"])
                reasons = env.mask_reasons(agent)
                for comp in (-2, -1):  # maneuver, speed (with the TAC plots)
                    name = layout.component_names()[comp]
                    assert set(reasons[name]) == set(np.flatnonzero(parts[comp] == 0).tolist())
                    for v in range(len(parts[comp])):
                        action = layout.noop(env.battle)
                        action[comp] = v
                        orders = layout.to_orders(env.battle, action, env._slots[agent])
                        if parts[comp][v]:
                            env.battle.validate({layout.unit: orders})  # accepted
                            if comp == -2:
                                seen_allowed.add(v)
                        else:
                            with pytest.raises(IllegalOrderError) as err:
                                env.battle.validate({layout.unit: orders})
                            assert err.value.rule == reasons[name][v]
            actions = {}
            for a in env.agents:
                space = env.action_space(a)
                mask = obs[a]["action_mask"].copy()
                speed = space.split_mask(mask)[-1]
                top = env._layouts[a].max_speed + 1  # TAC plots follow the speeds 0..max
                if speed[top:].any() and rng.random() < 0.5:  # often plot TAC when open
                    offset = len(mask) - len(speed)
                    mask[offset:offset + top] = 0  # keep only the allowed TAC plots
                space.seed(int(rng.integers(1 << 31)))
                actions[a] = space.sample(mask=mask)
            obs, *_ = env.step(actions)  # raises if the engine refuses an allowed action
            seen_tac_plot |= bool(env.battle.state.tactical.any())
    assert seen_tac_plot
    assert {Maneuver.SIDESLIP_LEFT, Maneuver.SIDESLIP_RIGHT, Maneuver.TACTICAL_LEFT,
            Maneuver.TACTICAL_RIGHT} <= seen_allowed


# ---------------------------------------------------------------------- C5.12, C5.22 energy

STD = {"energy": "standard", "damage": "standard_dac", "tactical_maneuvers": True}


def _std(cls: str = CA):
    """A 32-impulse battle on the standard Energy Allocation Form (life support, fire control
    and shields cost 4 a turn) with tactical maneuvers."""
    doc = scenario([unit("ca", cls, "blue", "1010", "A", 8),
                    unit("d7", "klingon-d7", "red", "2010", "F", 0, controller="idle")],
                   rules=STD)
    doc["impulses_per_turn"] = 32
    return make_battle(doc)


def _tac(b, warp: int) -> Orders:
    """A TAC plot with ``warp`` warp tactical maneuvers and nothing else on the form."""
    u = row(b, "ca")
    return Orders(speed=warp, tactical=True, capacitor=0, recharge=0,
                  arm={int(w): 0 for w in energy.heavy_rows(b, u)})


def _allocated(b):
    return [e for e in b.events if e.kind == "EnergyAllocated" and e.unit == "ca"][-1]


def _set_power(b, warp: int, imp: int, apr: int, batteries: int = 0) -> None:
    s, u = b.state, row(b, "ca")
    s.boxes[u, Box.WARP], s.boxes[u, Box.IMPULSE], s.boxes[u, Box.APR] = warp, imp, apr
    s.batteries[u] = batteries


@pytest.mark.parametrize("warp_maneuvers", [0, 1, 2, 3, 4])
def test_c5_22_c5_12_tac_plot_pays_a_hex_of_warp_per_warp_maneuver_and_1_impulse(
        warp_maneuvers):
    """C5.22 "Each TAC requires the same energy the ship would have expended to move one hex"
    (Federation CA: move cost 1), C5.12 "A ship must spend one unit of impulse engine energy
    to make a sublight tactical maneuver": n warp maneuvers + 1, plus the systems' 4."""
    b = _std()
    b.step({row(b, "ca"): _tac(b, warp_maneuvers)})
    assert _allocated(b).used == warp_maneuvers + 1 + 4
    assert not of(b, "EnergyShortfall")
    u = row(b, "ca")
    assert b.state.tactical[u] and b.state.tac_sublight[u]
    assert int(b.state.speed[u]) == warp_maneuvers  # (C5.23) the speed on the chart


def test_c5_22_warp_maneuver_costs_the_orion_raiders_hex_of_two_thirds():
    """C5.22 one hex's energy each: the Orion Raider's move cost 2/3 (CTH-DATA §7.3), four
    warp maneuvers = 8/3, rounded up item by item = 3 warp; + 1 impulse (C5.12) + systems 4."""
    b = _std("orion-raider")
    assert energy.tactical_cost(b, row(b, "ca"), 4) == (3, 1)
    b.step({row(b, "ca"): _tac(b, 4)})
    assert _allocated(b).used == 3 + 1 + 4


def test_c5_22_impulse_energy_may_not_pay_warp_tactical_maneuvers():
    """C5.22 "Impulse energy may not be used to perform tactical warp maneuvers": 3 warp and 4
    impulse boxes move the ship 4 hexes (3 warp + the impulse point) but buy only 3 warp
    maneuvers; the TAC plot of 4 is refused by mask and validation with one rule."""
    b = _std()
    u = row(b, "ca")
    _set_power(b, warp=3, imp=4, apr=2)
    assert 4 not in b.speed_blockers(u)  # moving 4 hexes: 3 warp + 1 impulse point
    closed = b.tactical_plot_blockers(u)
    assert set(closed) == {4}
    assert closed[4] == ("C5.22 4 warp tactical maneuvers cost the warp energy of 4 hexes "
                         "(impulse energy may not pay them): warp pays at most 3")
    with pytest.raises(IllegalOrderError) as err:
        b.validate({u: _tac(b, 4)})
    assert (err.value.component, err.value.rule) == ("tactical", closed[4])
    b.step({u: _tac(b, 3)})
    assert _allocated(b).used == 3 + 1 + 4 and not of(b, "EnergyShortfall")


def test_c5_12_sublight_maneuver_needs_impulse_engine_energy():
    """C5.12 "This energy must come from impulse engines": without impulse power a TAC plot of
    no warp maneuver buys nothing and is refused; one with warp maneuvers is paid from warp
    and brings no sublight maneuver (APR pays the systems, not the sublight maneuver)."""
    b = _std()
    u = row(b, "ca")
    _set_power(b, warp=30, imp=0, apr=2, batteries=4)
    closed = b.tactical_plot_blockers(u)
    assert set(closed) == {0} and closed[0].startswith(
        "C5.12 the sublight tactical maneuver costs 1 impulse engine energy")
    with pytest.raises(IllegalOrderError) as err:
        b.validate({u: _tac(b, 0)})
    assert err.value.rule == closed[0]
    b.step({u: _tac(b, 1)})
    assert _allocated(b).used == 1 + 4
    assert b.state.tactical[u] and not b.state.tac_sublight[u]
    step(b, ca="TR")  # impulse 2: the warp maneuver earned there
    blocked = b.maneuver_blockers(u)
    assert blocked[Maneuver.TACTICAL_LEFT].startswith("C5.231 no warp tactical maneuver earned")


def test_c5_tac_plot_is_paid_with_movement_first_in_the_clamp():
    """C5.11 TAC is written in the movement plot and C5.22 prices it as movement: it is paid
    in movement's priority, before life support, fire control and shields (CTH-DATA §7.1):
    4 warp + 1 impulse pay the plot, 2 APR the first two systems, the shields go unpaid."""
    b = _std()
    u = row(b, "ca")
    _set_power(b, warp=4, imp=1, apr=2)
    b.step({u: _tac(b, 4)})
    assert [(e.item, e.cost) for e in of(b, "EnergyShortfall")] == [("shields", 2)]
    assert int(b.state.speed[u]) == 4 and b.state.tac_sublight[u]
    assert _allocated(b).used == 4 + 1 + 2


def test_c5_22_standing_tac_plot_warp_can_no_longer_pay_is_lowered():
    """A TAC plot kept by absent orders (the standing allocation) after warp boxes are lost:
    the warp maneuvers are cut to what warp pays (C5.22), the cut is the shortfall."""
    b = _std()
    u = row(b, "ca")
    b.step({u: _tac(b, 4)})
    while b.state.impulse < 32:
        b.step({})
    _set_power(b, warp=2, imp=4, apr=2)
    b.step({})  # no orders: the TAC plot stands
    assert b.state.turn == 2 and b.state.tactical[u] and int(b.state.speed[u]) == 2
    shortfalls = [(e.item, e.cost) for e in of(b, "EnergyShortfall", turn=2)]
    assert shortfalls[0] == ("tactical", 2)  # first (priority 1); standing arming follows
    assert of(b, "SpeedSet", unit="ca", turn=2)[-1].speed == 2


def test_c5_12_c5_22_tac_plot_masks_and_engine_agree_both_ways():
    """Scenario 10 (cth-10): the speed component's TAC plot values (max + 1 + n) are masked by
    the same predicate validation calls (C5.12, C5.22), and every open one is accepted."""
    env = sfb_env.parallel_env("cth-10")
    env.reset(seed=0)
    for agent in env.agents:
        layout, b = env._layouts[agent], env.battle
        u = layout.unit
        b.state.boxes[u, Box.WARP], b.state.boxes[u, Box.IMPULSE] = 2, 0
        parts = env.action_space(agent).split_mask(layout.mask(b, env._slots[agent]))
        reasons = env.mask_reasons(agent)["speed"]
        top = layout.max_speed + 1
        assert [int(v) for v in parts[-1][top:]] == [0, 1, 1, 0, 0]
        assert reasons[top].startswith("C5.12") and reasons[top + 3].startswith("C5.22")
        for n in range(MAX_WARP_TACTICAL + 1):
            action = layout.noop(b)
            action[-1] = top + n
            orders = layout.to_orders(b, action, env._slots[agent])
            if parts[-1][top + n]:
                b.validate({u: orders})
            else:
                with pytest.raises(IllegalOrderError) as err:
                    b.validate({u: orders})
                assert err.value.rule == reasons[top + n]
