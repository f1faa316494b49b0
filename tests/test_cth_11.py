"""Scenario 11, The Planet Killer (SCENARIOS #11, §2.8): set-up, the monster's course, stop,
following and shots through the engine, research rolls in play, every available kill method
in play, victory, and random masked play. PettingZoo's API and seed tests run on it in
``test_env_api.py`` (parametrised over every listed scenario)."""

from __future__ import annotations

import pytest
from engine_helpers import of, random_masked_games, row
from observation_helpers import read
from planet_killer_helpers import MONSTER, PLANET, SHIP, hold, hold_to, pk_battle

import sfb_env
from sfb_env import hexmap
from sfb_env.engine import Orders, make_battle, planet_killer
from sfb_env.engine.planet_killer import Method
from sfb_env.engine.types import DESTROYED, TransportOrder, UnitKind


def _fed(b) -> int:
    return int(b.state.side[row(b, SHIP)])


def test_cth_11_setup_the_planet_killer():
    b = make_battle("cth-11", seed=0)
    sc = b.scenario
    assert sc.impulses_per_turn == 32 and sc.map_name == "A+B" and sc.turn_limit is None
    assert [(u.id, u.unit_class, u.hex) for u in sc.units] == [
        (SHIP, "fed-ca", "2503"), (MONSTER, "planet-killer", "0101"), (PLANET, "planet", "2514")]
    ship = sc.units[0]
    assert ship.speed == 31 == sc.rules.max_speed  # previous speed: the maximum
    assert hexmap.DIRECTION_LETTERS[ship.facing] == "F"  # PROPOSAL: toward the monster
    assert sc.units[1].speed == 6 and sc.units[1].controller == "planet-killer"
    rules = sc.rules
    assert rules.energy == "standard" and rules.damage == "standard_dac"
    assert all(getattr(rules, k) for k in ("labs", "probes", "antimatter_probes", "admin_shuttles",
                                  "lock_on", "tractors", "transporters", "suicide_shuttles"))
    assert sc.victory["kind"] == "planet_killer"
    st = b.state
    assert st.kind[row(b, MONSTER)] == UnitKind.MONSTER
    assert st.kind[row(b, PLANET)] == UnitKind.PLANET
    assert not b.speed_blockers(row(b, SHIP))  # any speed 0..31 on turn 1
    assert st.probes_left[row(b, SHIP)] == 5
    assert b.rules.monster_in_play and b.rules.probes_in_play


def test_cth_11_unhindered_monster_goes_to_the_planet_stops_and_destroys_it():
    b = make_battle("cth-11", seed=1, max_turns=60)
    m, p = row(b, MONSTER), row(b, PLANET)
    while not b.done:
        hold(b)
    moves = of(b, "Moved", unit=MONSTER)
    dists = [hexmap.distance(e.dst, "2514") for e in moves]
    assert dists == sorted(dists, reverse=True) and dists[-1] == 1  # closer each move, stops
    assert all(a - c == 1 for a, c in zip(dists, dists[1:], strict=False))
    assert b.state.damage[p] >= planet_killer.PLANET_DESTROYED_AT
    shots = of(b, "MonsterFired", shot="normal")
    assert {e.target for e in shots} == {PLANET} and len({e.turn for e in shots}) == len(shots)
    assert b.outcome["monster"]["result"] == "win" and "planet" in b.end_reason
    assert b.state.status[m] != DESTROYED


def test_cth_11_the_monster_wins_when_the_ship_leaves_the_map():
    env = sfb_env.parallel_env("cth-11")
    obs, _ = env.reset(seed=0)
    while env.agents:  # the no-op: speed 31 straight ahead (F) off the map
        obs, rewards, terms, truncs, infos = env.step(
            {a: env._layouts[a].noop(env.battle) for a in env.agents})
    assert env.battle.outcome["monster"]["result"] == "win"
    assert env.battle.outcome["federation"]["result"] == "loss"
    assert "no ship" in env.battle.end_reason


def test_cth_11_the_monster_follows_the_ship_that_comes_within_2_and_shoots_it():
    b = pk_battle(ship="2512", facing="A", planet="2514")
    s, m = row(b, SHIP), row(b, MONSTER)
    while not of(b, "MonsterFollows"):
        hold(b)
    (follow,) = of(b, "MonsterFollows")
    assert follow.unit == SHIP
    earlier = [e for e in of(b, "MonsterFired", target=SHIP, turn=follow.turn)
               if e.impulse < follow.impulse]  # its normal shot of the turn went first
    assert bool(of(b, "MonsterFired", shot="detection", target=SHIP)) == (not earlier)
    hold_to(b, b.state.turn + 1, 12)  # moves on 6 and 11 of the next turn at least
    assert hexmap.distance_np(b.state.x[m], b.state.z[m], b.state.x[s], b.state.z[s]) == 0


def test_cth_11_research_near_the_monster_rolls_for_kill_methods():
    b = pk_battle(ship="2511", facing="A", planet="2514")
    fed = _fed(b)
    while not of(b, "ResearchRolled"):
        hold(b)
    research = of(b, "Researched", unit=SHIP)
    assert sum(e.points for e in research) == b.state.information[fed] >= 100
    roll = of(b, "ResearchRolled")[0]
    assert b.state.kill_methods[fed, roll.die - 1]


def test_cth_11_kill_method_3_two_hundred_points_of_fire():
    b = pk_battle(ship="1506", facing="A", monster="1505", planet="1504")
    s, m = row(b, SHIP), row(b, MONSTER)
    st = b.state
    hold(b)
    st.kill_methods[_fed(b), Method.DAMAGE - 1] = True
    st.monster_counted[m] = 195
    fire = {int(w): m for w in b.weapons_of(s) if b.fire_blockers(int(w), [m])[0] is None}
    assert fire
    b.step({s: Orders(fire=fire)})
    assert st.status[m] == DESTROYED and of(b, "MonsterKilled")[0].method == Method.DAMAGE
    assert b.done and b.outcome["federation"]["result"] == "win"


def test_cth_11_kill_method_2_tractor_link_proposal():
    b = pk_battle(ship="1506", facing="A", monster="1505", planet="1504")
    s, m = row(b, SHIP), row(b, MONSTER)
    hold(b)
    from sfb_env.engine import tractors

    (rule,) = tractors.attach_blockers(b, s, 0, [m])
    assert rule.startswith("SCENARIOS §2.8")  # not before result 2
    b.state.kill_methods[_fed(b), Method.TRACTOR - 1] = True
    assert tractors.attach_blockers(b, s, 0, [m]) == [None]
    b.step({s: Orders(tractor={0: m})})
    (killed,) = of(b, "MonsterKilled")
    assert killed.method == Method.TRACTOR and b.outcome["federation"]["result"] == "win"


def test_cth_11_kill_method_5_boarding_party_beamed_over_proposal():
    b = pk_battle(ship="1509", facing="A", monster="1505", planet="1504")
    s, m = row(b, SHIP), row(b, MONSTER)
    b.step({s: Orders(speed=0, transporters=2)})
    b.step({s: Orders(drop_shield=1)})  # (G8.24) the shield facing the monster
    beam = {0: (int(TransportOrder.BEAM_PARTY), m)}
    b.step({s: Orders(transport=beam)})  # before result 5: the party goes, nothing happens
    assert b.state.status[m] != DESTROYED and not of(b, "MonsterKilled")
    b.state.kill_methods[_fed(b), Method.BOARDING - 1] = True
    b.step({s: Orders(transport={1: beam[0]})})
    (killed,) = of(b, "MonsterKilled")
    assert killed.method == Method.BOARDING and b.outcome["federation"]["result"] == "win"


def _suicide_run(seed: int, known: bool):
    """Arm the CA's suicide shuttle over turns 1-3 (J2.221), hold it on turn 4 and launch it at
    the monster 4 hexes ahead; play to the end of turn 5."""
    b = pk_battle(seed=seed, ship="1509", facing="A", monster="1505", planet="1504")
    m = row(b, MONSTER)
    b.state.kill_methods[_fed(b), Method.SUICIDE_SHUTTLE - 1] = known
    for turn in (1, 2, 3):
        hold(b, suicide_arm=3)
        hold_to(b, turn, 32)
    hold(b, suicide_arm=1)
    hold(b, suicide=m)
    while not b.done and b.state.turn < 6:
        hold(b)
    return b


def test_cth_11_kill_method_1_suicide_shuttle_hit():
    for seed in range(10):
        b = _suicide_run(seed, known=True)
        (defence,) = of(b, "CloseInDefence")  # rolled once that turn, shuttle within 3
        if defence.destroyed:
            assert not of(b, "MonsterKilled")
            continue
        (killed,) = of(b, "MonsterKilled")
        assert killed.method == Method.SUICIDE_SHUTTLE and "shuttle" in killed.by
        assert b.done and b.outcome["federation"]["result"] == "win"
        break
    else:
        pytest.fail("no suicide shuttle got through the close-in defence in 10 seeds")


def test_cth_11_a_suicide_shuttle_hit_before_result_1_only_scores_damage():
    for seed in range(10):
        b = _suicide_run(seed, known=False)
        hits = of(b, "SeekingHit", target=MONSTER)
        if hits:
            assert not of(b, "MonsterKilled") and not b.done
            assert of(b, "MonsterStruck")[-1].points == hits[0].warhead
            return
    pytest.fail("no suicide shuttle got through the close-in defence in 10 seeds")


def test_cth_11_observation_carries_the_research_block():
    """(G4, G5) The rule-features ``research`` block: information, results found, probes."""
    from sfb_env.engine.probes import ProbeOrder

    env = sfb_env.parallel_env("cth-11")
    obs, _ = env.reset(seed=0)
    agent = env.agents[0]
    layout = env._layouts[agent]
    blocks = layout.rule_features
    assert "research" in blocks
    action = layout.noop(env.battle)
    action[layout.component_names().index("probe")] = ProbeOrder.ARM_INFORMATION
    st = env.battle.state
    st.information[_fed(env.battle)] = 150
    st.kill_methods[_fed(env.battle), Method.TRACTOR - 1] = True
    obs, *_ = env.step({agent: action})
    research = read(env, agent, obs[agent]["observation"], "research")
    assert research["information"][0] == pytest.approx(0.5)
    assert research["kill_methods"].tolist() == [0, 1, 0, 0, 0, 0]  # (tractor: result 2)
    rest = ("probes_left", "arming_information", "arming_antimatter", "arming_turns", "armed",
            "method_3_damage")
    assert [research[f][0] for f in rest] == pytest.approx([1, 1, 0, 0.5, 0, 0])
    env7 = sfb_env.parallel_env("cth-07")
    env7.reset(seed=0)
    assert all("research" not in env7._layouts[a].rule_features for a in env7.agents)


def test_cth_11_frames_draw_the_monster_and_its_shots():
    from sfb_env.render import Renderer
    from sfb_env.render.frame import EVENT_DRAWERS, UNIT_DRAWERS

    assert int(UnitKind.MONSTER) in UNIT_DRAWERS and "MonsterFired" in EVENT_DRAWERS
    b = pk_battle(ship="1510", facing="A", monster="1505", planet="1508")
    hold_to(b, 1, 2)
    assert of(b, "MonsterFired")
    frame = Renderer(b).frame()
    assert frame.ndim == 3 and frame.shape[2] == 3


def test_cth_11_random_masked_play_3_seeds():
    random_masked_games("cth-11", range(3))


@pytest.mark.slow
def test_cth_11_random_masked_play_seeds_0_to_99():
    random_masked_games("cth-11", range(100))


def test_cth_11_bad_scenarios_name_the_field():
    from planet_killer_helpers import cth_11

    from sfb_env.engine.scenario import ScenarioError

    doc = cth_11()
    doc["units"] = [u for u in doc["units"] if u["id"] != MONSTER]
    with pytest.raises(ScenarioError, match="victory.kind.*planet-killer"):
        make_battle(doc)
    doc = cth_11(rules={"energy": "cadet", "damage": "cadet_dac", "lock_on": False,
                        "tractors": False, "transporters": False, "suicide_shuttles": False})
    with pytest.raises(ScenarioError, match="rules.probes.*standard"):
        make_battle(doc)
    doc = cth_11()
    doc["units"][1]["speed"] = 33
    with pytest.raises(ScenarioError, match=r"units\[1\].speed"):
        make_battle(doc)
