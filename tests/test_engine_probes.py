"""Probes (G5.0; CTH-DATA §5.4, §9.2): 5 probes a launcher, information probes (+20 within 6,
1 energy on each of 2 turns, rolling), anti-matter probes (when allowed, 2 warp on each of 2
turns, must fire on the 2nd, straight ahead along the centre row, die >= range, warhead 8),
the order's legality predicate and the ``probe`` action component."""

from __future__ import annotations

import pytest
from engine_helpers import component_values_agree, of, row
from planet_killer_helpers import MONSTER, SHIP, FixedDie, hold, hold_to, pk_battle

import sfb_env
from sfb_env.engine import IllegalOrderError, Orders, energy, probes
from sfb_env.engine.planet_killer import Method
from sfb_env.engine.probes import ProbeOrder
from sfb_env.engine.types import DESTROYED

# ship at 1509 facing A: the centre row runs 1508, 1507, 1506, 1505 (the monster, range 4);
# the planet beside the monster keeps it in place
PLACE = dict(ship="1509", facing="A", monster="1505", planet="1504")


def _arm(b, order: ProbeOrder) -> None:
    """Arm at the Energy Allocation of turns 1 and 2; stop at turn 2, impulse 1."""
    hold(b, probe=int(order))
    hold_to(b, 1, 32)
    hold(b, probe=int(order))
    assert (b.state.turn, b.state.impulse) == (2, 1)


def test_g5_11_five_probes_per_launcher():
    b = pk_battle(**PLACE)
    s = row(b, SHIP)
    assert b.ship_classes[s].systems["probe_launcher"] == 1
    assert b.state.probes_left[s] == 5 == b.ship_classes[s].probes


def test_g5_11_no_probes_without_the_rule():
    b = pk_battle(rules={"probes": False, "antimatter_probes": False}, **PLACE)
    s = row(b, SHIP)
    assert b.state.probes_left[s] == 0 and not b.rules.probes_in_play
    assert set(probes.order_blockers(b, s)) == {1, 2, 3}


def test_g5_31_antimatter_probes_without_probes_is_a_scenario_error_naming_the_field():
    from planet_killer_helpers import cth_11

    from sfb_env.engine import make_battle
    from sfb_env.engine.scenario import ScenarioError

    with pytest.raises(ScenarioError, match="G5.31") as err:
        make_battle(cth_11(rules={"probes": False, "antimatter_probes": True}))
    assert err.value.field == "rules.antimatter_probes"


def test_g5_2_information_probe_two_turns_of_energy_then_launch_adds_20_within_6():
    b = pk_battle(**PLACE)
    s = row(b, SHIP)
    st = b.state
    side = int(st.side[s])
    hold(b, probe=ProbeOrder.ARM_INFORMATION)
    assert st.probe_stage[s] == 1 and not probes.armed(b, s)
    blocked = probes.order_blockers(b, s)
    assert blocked[ProbeOrder.LAUNCH].startswith("G5.2 no probe armed")
    assert blocked[ProbeOrder.ARM_INFORMATION].startswith("B3.0")  # not Energy Allocation
    hold_to(b, 1, 32)
    assert ProbeOrder.ARM_INFORMATION not in probes.order_blockers(b, s)
    hold(b, probe=ProbeOrder.ARM_INFORMATION)  # turn 2: second arming turn
    before = int(st.information[side])
    assert probes.armed(b, s) and ProbeOrder.LAUNCH not in probes.order_blockers(b, s)
    hold(b, probe=ProbeOrder.LAUNCH)  # the Direct-Fire step of turn 2, impulse 1
    (launched,) = of(b, "ProbeLaunched")
    assert launched.probe == "information" and launched.range == 4 and launched.points == 20
    assert st.information[side] == before + 20
    assert st.probes_left[s] == 4 and not probes.armed(b, s)


def test_g5_2_information_probe_beyond_6_gives_nothing():
    b = pk_battle(ship="1512", facing="A", monster="1505", planet="1504")
    _arm(b, ProbeOrder.ARM_INFORMATION)
    side = int(b.state.side[row(b, SHIP)])
    before = int(b.state.information[side])
    hold(b, probe=ProbeOrder.LAUNCH)
    (launched,) = of(b, "ProbeLaunched")
    assert launched.range == 7 and launched.points == 0
    assert b.state.information[side] == before


def test_g5_2_an_unlaunched_information_probe_rolls_like_plasma():
    b = pk_battle(**PLACE)
    s = row(b, SHIP)
    _arm(b, ProbeOrder.ARM_INFORMATION)
    hold_to(b, 2, 32)
    hold(b, probe=ProbeOrder.ARM_INFORMATION)  # turn 3: 1 more energy keeps it armed
    assert probes.armed(b, s) and b.state.probe_stage[s] == 2
    hold_to(b, 3, 32)
    hold(b)  # no energy on turn 4: the arming is lost
    assert b.state.probe_stage[s] == 0 and not probes.armed(b, s)


def test_g5_2_g5_32_arming_costs_1_energy_or_2_warp():
    b = pk_battle(**PLACE)
    s = row(b, SHIP)
    purse = energy._Purse(warp=5, imp=0, apr=3, batteries=0)
    assert probes.allocate(b, s, Orders(probe=ProbeOrder.ARM_INFORMATION), purse) == 0
    assert (purse.warp, purse.apr) == (5, 2)  # any source: APR first
    b.state.probe_kind[s] = 0
    purse = energy._Purse(warp=5, imp=0, apr=3, batteries=0)
    assert probes.allocate(b, s, Orders(probe=ProbeOrder.ARM_ANTIMATTER), purse) == 0
    assert (purse.warp, purse.apr) == (3, 3)  # (G5.32) warp only
    b.state.probe_kind[s] = 0
    purse = energy._Purse(warp=1, imp=0, apr=3, batteries=0)
    assert probes.allocate(b, s, Orders(probe=ProbeOrder.ARM_ANTIMATTER), purse) == 2
    assert b.state.probe_stage[s] == 0  # unpaid: no arming


def test_g5_31_antimatter_probe_only_when_crippled_outnumbered_or_allowed():
    b = pk_battle(rules={"antimatter_probes": False}, **PLACE)
    s = row(b, SHIP)
    rule = probes.order_blockers(b, s)[ProbeOrder.ARM_ANTIMATTER]
    assert rule.startswith("G5.31")
    with pytest.raises(IllegalOrderError) as err:
        b.step({s: Orders(speed=0, probe=ProbeOrder.ARM_ANTIMATTER)})
    assert err.value.rule == rule
    b.state.boxes[s] = 0  # crippled: half its internal boxes gone
    assert probes.crippled(b, s)
    assert ProbeOrder.ARM_ANTIMATTER not in probes.order_blockers(b, s)
    enemies = [{"id": f"k{i}", "class": "klingon-d7", "side": "monster", "hex": h,
                "facing": "A", "speed": 0, "controller": "idle"} for i, h in ((1, "0101"),
                                                                             (2, "0201"))]
    b = pk_battle(rules={"antimatter_probes": False}, extra=enemies, **PLACE)
    s = row(b, SHIP)
    assert probes.outnumbered(b, s)  # one ship against two
    assert ProbeOrder.ARM_ANTIMATTER not in probes.order_blockers(b, s)


@pytest.mark.parametrize("die", [3, 4, 6])
def test_g5_33_antimatter_probe_along_the_centre_row_hits_on_die_at_least_range(die):
    b = pk_battle(**PLACE)
    s, m = row(b, SHIP), row(b, MONSTER)
    _arm(b, ProbeOrder.ARM_ANTIMATTER)
    assert probes.centre_row_target(b, s) == (m, 4)
    b.rng = FixedDie(die)
    hold(b, probe=ProbeOrder.LAUNCH)
    (launched,) = of(b, "ProbeLaunched")
    assert launched.probe == "anti-matter" and launched.target == MONSTER
    assert launched.hit == (die >= 4) and launched.points == (8 if die >= 4 else 0)
    struck = of(b, "MonsterStruck")
    assert [e.points for e in struck] == ([8] if die >= 4 else [])  # (G5.34) warhead 8
    assert b.state.status[m] != DESTROYED  # result 4 not found: no kill


def test_sc11_result_4_an_antimatter_probe_hit_destroys_the_monster():
    b = pk_battle(**PLACE)
    s, m = row(b, SHIP), row(b, MONSTER)
    _arm(b, ProbeOrder.ARM_ANTIMATTER)
    b.state.kill_methods[b.state.side[s], Method.ANTIMATTER_PROBE - 1] = True
    b.rng = FixedDie(5)
    hold(b, probe=ProbeOrder.LAUNCH)
    assert b.state.status[m] == DESTROYED
    (killed,) = of(b, "MonsterKilled")
    assert killed.method == Method.ANTIMATTER_PROBE and killed.by == SHIP
    assert b.done and b.outcome["federation"]["result"] == "win"


def test_g5_33_antimatter_probe_needs_a_target_straight_ahead():
    b = pk_battle(ship="1509", facing="B", monster="1505", planet="1504")
    s = row(b, SHIP)
    _arm(b, ProbeOrder.ARM_ANTIMATTER)
    assert probes.centre_row_target(b, s) == (-1, -1)
    rule = probes.order_blockers(b, s)[ProbeOrder.LAUNCH]
    assert rule.startswith("G5.33")
    with pytest.raises(IllegalOrderError) as err:
        hold(b, probe=ProbeOrder.LAUNCH)
    assert err.value.rule == rule


def test_g5_32_an_unfired_antimatter_probe_is_lost_at_the_end_of_its_turn():
    b = pk_battle(**PLACE)
    s = row(b, SHIP)
    _arm(b, ProbeOrder.ARM_ANTIMATTER)
    hold_to(b, 2, 32)
    hold(b, probe=ProbeOrder.ARM_ANTIMATTER)  # cannot roll: a new cycle starts
    assert b.state.probe_stage[s] == 1 and not probes.armed(b, s)
    assert b.state.probes_left[s] == 5


def test_g5_13_one_probe_at_a_time_and_five_in_all():
    b = pk_battle(**PLACE)
    s = row(b, SHIP)
    b.state.probes_left[s] = 1
    _arm(b, ProbeOrder.ARM_INFORMATION)
    hold(b, probe=ProbeOrder.LAUNCH)
    assert b.state.probes_left[s] == 0
    assert set(probes.order_blockers(b, s).values()) == {"G5.11 no probes left"}


def test_g5_probe_order_values_are_checked():
    b = pk_battle(**PLACE)
    s = row(b, SHIP)
    with pytest.raises(IllegalOrderError, match="probe orders are 0..3"):
        b.step({s: Orders(speed=0, probe=7)})


def test_g5_probe_component_in_the_action_space_and_its_mask():
    env = sfb_env.parallel_env("cth-11")
    obs, _ = env.reset(seed=0)
    agent = env.agents[0]
    layout = env._layouts[agent]
    names = layout.component_names()
    assert "probe" in names and names.index("probe") < names.index("capacitor")
    i = names.index("probe")
    assert env.action_space(agent).nvec[i] == probes.PROBE_ORDERS
    part = env.action_space(agent).split_mask(obs[agent]["action_mask"])[i]
    assert list(part) == [1, 1, 1, 0]  # arming open at impulse 0, nothing to launch
    assert env.mask_reasons(agent)["probe"] == probes.order_blockers(env.battle, layout.unit)
    action = layout.noop(env.battle)
    action[i] = ProbeOrder.ARM_INFORMATION
    obs, *_ = env.step({agent: action})
    assert env.battle.state.probe_stage[layout.unit] == 1
    # scenarios without the rule keep their spaces (no probe component)
    env7 = sfb_env.parallel_env("cth-07")
    env7.reset(seed=0)
    assert all("probe" not in env7._layouts[a].component_names() for a in env7.agents)


def test_g5_probe_mask_and_engine_agree_both_ways_over_a_game():
    """Every masked ``probe`` value is refused with the mask's reason; every open one is
    accepted (arming at impulses 0 and 32, launching once armed)."""
    env = sfb_env.parallel_env(cth_11_doc())
    obs, _ = env.reset(seed=3)
    agent = env.agents[0]
    layout = env._layouts[agent]
    i = layout.component_names().index("probe")
    seen_open, seen_closed = set(), set()
    for _ in range(36):
        if not env.agents:
            break
        part = env.action_space(agent).split_mask(obs[agent]["action_mask"])[i]
        reasons = env.mask_reasons(agent)["probe"]
        assert set(reasons) == {v for v in range(probes.PROBE_ORDERS) if not part[v]}
        component_values_agree(env, agent, obs, i, range(1, probes.PROBE_ORDERS))
        seen_open |= {v for v in range(1, probes.PROBE_ORDERS) if part[v]}
        seen_closed |= {v for v in range(1, probes.PROBE_ORDERS) if not part[v]}
        action = layout.noop(env.battle)
        want = (ProbeOrder.LAUNCH if part[ProbeOrder.LAUNCH]
                else ProbeOrder.ARM_INFORMATION if part[ProbeOrder.ARM_INFORMATION] else 0)
        action[i] = want
        obs, *_ = env.step({agent: action})
    assert seen_open == {1, 2, 3} and seen_closed == {1, 2, 3}


def cth_11_doc():
    """cth-11 with the ship at speed 0 near the monster (stays on the map)."""
    from planet_killer_helpers import cth_11

    return cth_11(**PLACE, speed=0)
