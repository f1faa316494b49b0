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
from sfb_env.engine import IllegalOrderError, Maneuver, Orders, make_battle
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
