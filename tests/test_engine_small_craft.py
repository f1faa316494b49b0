"""Stinger-F fighters in play (J4.0, ``engine.small_craft``): rows, launch, movement order, the
built-in pilot, fire limits, fire at fighters (J4.47) and fighter damage.

The pure fire-at-fighter arithmetic is tested in ``test_engine_fighters.py``; these tests check
that the battle applies it.
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import Dice, of, row, run_to, scenario, unit, weapon

from sfb_env import hexmap
from sfb_env.engine import IllegalOrderError, Maneuver, Orders, make_battle, shields, small_craft
from sfb_env.engine.direct_fire import fire_blockers, fire_mask, geometry, weapon_ready_blocker
from sfb_env.engine.types import NEVER, Status, UnitKind

FULL = "grad-hydran-full-vs-klingon"


def _sandbox(*extra, ipt: int = 32, **rules):
    """Ranger (blue, 0216-B) and Klingon D7 (red, 0210-E): the Ranger's fighters aboard."""
    units = [unit("ranger", "hydran-ranger", "blue", "0216", "B", 0),
             unit("d7", "klingon-d7", "red", "0210", "E", 0), *extra]
    doc = scenario(units, rules={"damage": "interim", "max_speed": 31, **rules})
    doc["impulses_per_turn"] = ipt
    return make_battle(doc, seed=0)


def _fighters(b, carrier: str = "ranger") -> np.ndarray:
    return small_craft.fighters_of(b, row(b, carrier))


def _place(b, u: int, label: str, facing: str) -> None:
    st = b.state
    st.x[u], st.z[u] = hexmap.label_to_axial(label, b.scenario.parity)
    st.prev_x[u], st.prev_z[u] = st.x[u], st.z[u]
    st.facing[u] = st.prev_facing[u] = hexmap.direction_index(facing)


def _hold(b) -> dict[int, Orders]:
    return {u: Orders() for u in b.agent_units()}


# ---------------------------------------------------------------------- rows and launch (J4.34)


def test_j4_0_ranger_gets_nine_fighter_rows_unused_until_launched():
    b = _sandbox()
    st = b.state
    f = _fighters(b)
    assert len(f) == 9
    assert np.all(st.kind[f] == UnitKind.FIGHTER)
    assert np.all(st.status[f] == Status.UNUSED)
    assert np.all(st.side[f] == st.side[row(b, "ranger")])
    guns = b.craft_gun[f]
    assert [b.weapon_ids[g] for g in guns[:2]] == ["ranger.fighter-1.PHG", "ranger.fighter-2.PHG"]
    assert np.all(st.w_owner[guns] == f)
    assert not len(small_craft.fighters_of(b, row(b, "d7")))  # the D7 carries none


def test_j4_34_the_ranger_launches_all_nine_fighters_in_one_impulse():
    b = _sandbox()
    run_to(b, 1, 1)
    ranger, d7 = row(b, "ranger"), row(b, "d7")
    b.step({ranger: Orders(fighters=d7), d7: Orders()})
    st = b.state
    f = _fighters(b)
    assert np.all(st.status[f] == Status.ACTIVE)
    launched = of(b, "Launched", unit="ranger")
    assert len(launched) == 9 and {e.impulse for e in launched} == {1}
    assert np.all(st.target[f] == d7)
    assert np.all(st.launched_at[f] == 1)
    assert np.all(st.speed[f] == small_craft.MAX_SPEED)  # (J4.12) 15
    # launched facing the D7 in the fighter's FA (six hexes up the column: direction A)
    assert {e.facing for e in launched} == {"A"}


def test_j4_34_no_fighter_order_before_impulse_1_nor_at_a_friendly_unit():
    b = _sandbox()
    ranger, d7 = row(b, "ranger"), row(b, "d7")
    with pytest.raises(IllegalOrderError, match="B2.0"):
        b.step({ranger: Orders(fighters=d7)})
    b.step(_hold(b))
    with pytest.raises(IllegalOrderError, match="J4.34 fighters are not sent at a friendly"):
        b.step({ranger: Orders(fighters=ranger)})
    with pytest.raises(IllegalOrderError, match="J4.34 this ship carries no fighters"):
        b.step({d7: Orders(fighters=ranger)})


def test_j4_34_second_order_retargets_fighters_in_flight_without_new_launches():
    b = _sandbox(unit("d7b", "klingon-d7", "red", "2801", "E", 0))
    run_to(b, 1, 1)
    ranger, d7, d7b = row(b, "ranger"), row(b, "d7"), row(b, "d7b")
    b.step({ranger: Orders(fighters=d7)})
    b.step({ranger: Orders(fighters=d7b)})
    assert len(of(b, "Launched", unit="ranger")) == 9
    assert np.all(b.state.target[_fighters(b)] == d7b)


# ---------------------------------------------------------------------- movement (J4.12)


def test_j4_12_fighters_move_after_all_ships_and_before_seeking_weapons():
    from sfb_env import impulse

    drone = unit("drone", "drone", "red", "0410", "D", 32, "robot-drone", target="ranger")
    fast = unit("fast", "fed-ca", "red", "1015", "A", 20)  # faster than the fighters
    b = _sandbox(drone, fast)
    run_to(b, 1, 1)
    b.step({row(b, "ranger"): Orders(fighters=row(b, "d7"))})
    f1 = b.unit_ids[_fighters(b)[0]]
    imp = next(i for i in range(2, 33)
               if impulse.moves_on(15, i, 32) and impulse.moves_on(20, i, 32))
    run_to(b, 1, imp)
    moved = [e.unit for e in of(b, "Moved", turn=1, impulse=imp)]
    assert f1 in moved and "fast" in moved and "drone" in moved
    assert moved.index("fast") < moved.index(f1) < moved.index("drone")


def test_j4_12_turn_mode_2_at_speed_12_or_more_else_1():
    b = _sandbox()
    f = int(_fighters(b)[0])
    assert [small_craft.turn_mode(s) for s in (8, 11, 12, 15)] == [1, 1, 2, 2]
    from sfb_env.engine import movement

    assert movement.turn_mode(b, f, 15) == 2 and movement.turn_mode(b, f, 8) == 1


def test_pilot_is_deterministic_and_homes_on_its_target():
    """(PROPOSAL, SCENARIOS §2.9) the pilot uses no dice: two battles with different seeds fly
    their fighters alike while nothing random happens."""
    paths = []
    for seed in (1, 2):
        b = _sandbox()
        b.reset(seed)
        run_to(b, 1, 1)
        b.step({row(b, "ranger"): Orders(fighters=row(b, "d7"))})
        run_to(b, 1, 12)
        paths.append([(e.unit, e.dst) for e in b.events if e.kind == "Moved"])
        f = int(_fighters(b)[0])
        d7 = row(b, "d7")
        st = b.state
        dist = hexmap.distance_np(st.x[f], st.z[f], st.x[d7], st.z[d7])
        assert dist <= 1
    assert paths[0] == paths[1]


# ---------------------------------------------------------------------- fire (J4.32, J4.47)


def _launched(b, at: str = "d7") -> int:
    """Launch the Ranger's fighters at ``at`` on impulse 1; return the first fighter row."""
    run_to(b, 1, 1)
    b.step({row(b, "ranger"): Orders(fighters=row(b, at))})
    return int(_fighters(b)[0])


def test_j4_32_no_fire_until_eight_impulses_after_launch():
    b = _sandbox()
    f = _launched(b)
    gun = int(b.craft_gun[f])
    st = b.state
    for now, expected in ((1 + 7, "J4.32"), (1 + 8, None)):
        st.impulse = now
        rule = small_craft.gun_blocker(b, gun)
        assert (rule is None) if expected is None else rule.startswith(expected)
    st.impulse = 8
    assert weapon_ready_blocker(b, gun).startswith("J4.32")


def test_j4_32_a_crippled_fighter_fires_one_shot_a_turn():
    b = _sandbox()
    f = _launched(b)
    gun = int(b.craft_gun[f])
    st = b.state
    st.impulse = 12
    st.w_gatling_shots[gun, -1] = st.absolute_impulse - 1  # one shot this turn already
    assert small_craft.gun_blocker(b, gun) is None  # healthy: four a turn (E2.151)
    b.apply_damage(f, 0, 7)
    assert small_craft.crippled(b, f)
    rule = small_craft.gun_blocker(b, gun)
    assert rule == "J4.32 a crippled fighter fires one phaser-3 shot a turn"


def test_j4_12_j4_49_crippled_at_7_speed_8_destroyed_at_10():
    b = _sandbox()
    f = _launched(b)
    st = b.state
    b.apply_damage(f, 0, 6)
    assert st.speed[f] == 15 and st.status[f] == Status.ACTIVE
    b.apply_damage(f, 0, 1)
    assert st.speed[f] == small_craft.CRIPPLED_SPEED and st.status[f] == Status.ACTIVE
    b.apply_damage(f, 0, 3)
    assert st.status[f] == Status.DESTROYED
    assert of(b, "Destroyed", unit=b.unit_ids[f])


def test_j4_47_phaser_1_range_3_die_6_scores_2_against_a_fighter():
    """(J4.47 example) a Ph-1 at range 3 rolling 6 reads die 6 at range 4: 2 points, not 3."""
    fed = unit("fed", "fed-ca", "red", "0213", "A", 0)
    b = _sandbox(fed)
    f = _launched(b, at="d7")
    _place(b, f, "0210", "A")  # three hexes straight ahead of the Federation CA's FA phasers
    b.state.impulse = 2
    gun = weapon(b, "fed", "PH1-1")
    assert fire_blockers(b, gun, [f]) == [None]
    b.rng = Dice(6)
    b.step({row(b, "fed"): Orders(fire={gun: f})})
    shot = of(b, "Fired", weapon="fed.PH1-1")[0]
    assert (shot.range, shot.die, shot.damage) == (3, 6, 2)
    assert b.state.damage[f] == 2


def test_j4_47_disruptor_range_3_die_4_misses_a_fighter():
    b = _sandbox()
    f = _launched(b)
    _place(b, f, "0213", "D")  # three hexes from the D7 (0210, facing E ... put it in FA)
    d7 = row(b, "d7")
    _place(b, d7, "0210", "D")
    b.state.impulse = 2
    disr = weapon(b, "d7", "DISR-A")
    assert fire_blockers(b, disr, [f]) == [None]
    b.rng = Dice(4)
    b.step({d7: Orders(fire={disr: f})})
    shot = of(b, "Fired", weapon="d7.DISR-A")[0]
    assert (shot.range, shot.die, shot.hit, shot.damage) == (3, 4, False, 0)


def test_j4_47_a_fighter_cannot_be_fired_at_beyond_5_hexes_mask_agrees():
    fed = unit("fed", "fed-ca", "red", "0213", "A", 0)
    b = _sandbox(fed)
    f = _launched(b)
    gun = weapon(b, "fed", "PH1-1")
    b.state.impulse = 2
    _place(b, f, "0207", "A")  # range 6 ahead
    assert fire_blockers(b, gun, [f])[0].startswith("J4.47")
    assert not fire_mask(b, np.array([gun]))[0, f]
    _place(b, f, "0208", "A")  # range 5
    assert fire_blockers(b, gun, [f]) == [None]
    assert fire_mask(b, np.array([gun]))[0, f]


@pytest.mark.parametrize(("die", "points"), [(6, 3), (5, 6)])
def test_j4_47_a_drone_hitting_a_fighter_scores_half_on_a_6(die, points):
    b = _sandbox()
    f = _launched(b)
    st = b.state
    _place(b, f, "0510", "A")
    rack = weapon(b, "d7", "DRONE-1")
    d = int(st.w_drone_rows[rack, 0])
    st.status[d] = Status.ACTIVE
    _place(b, d, "0510", "A")
    st.prev_x[d], st.prev_z[d] = hexmap.label_to_axial("0511", b.scenario.parity)
    st.target[d], st.launcher[d], st.launched_at[d] = f, row(b, "d7"), 1
    b.rng = Dice(die)
    from sfb_env.engine import seeking

    seeking.resolve_impacts(b)
    assert of(b, "SeekingHit")[0].warhead == points
    assert st.damage[f] == points


def test_the_fighters_fire_their_phaser_g_under_the_pilot_at_range_2():
    b = make_battle(FULL, seed=3)
    ranger, d7 = row(b, "tenacity"), row(b, "destruction")
    run_to(b, 1, 1)
    b.step({ranger: Orders(maneuver=Maneuver.STRAIGHT, fighters=d7),
            d7: Orders(maneuver=Maneuver.STRAIGHT)})
    while not of(b, "Fired") and b.state.turn == 1:
        run_to(b, 1, b.state.impulse + 1)
    shots = of(b, "Fired")
    assert shots and all(s.unit.startswith("tenacity.fighter-") for s in shots)
    assert all(s.range <= small_craft.PILOT_FIRE_RANGE for s in shots)
    first = min(s.impulse for s in shots)
    assert first >= 1 + small_craft.FIRST_SHOT_DELAY  # (J4.32)
    assert b.state.launched_at[_fighters(b, "tenacity")[0]] != NEVER


def test_a_fighter_order_value_that_is_not_a_unit_is_refused():
    b = _sandbox()
    run_to(b, 1, 1)
    with pytest.raises(IllegalOrderError, match="no such target unit"):
        b.step({row(b, "ranger"): Orders(fighters=999)})
    with pytest.raises(IllegalOrderError, match="fighters"):
        b.step({row(b, "ranger"): Orders(fighters=int(_fighters(b)[0]))})  # not in play



def test_robot_carrier_launches_all_fighters_on_impulse_1_of_turn_1():
    """(SCENARIOS §2.9 PROPOSAL) a robot Ranger sends all nine at the nearest enemy ship."""
    units = [unit("ranger", "hydran-ranger", "blue", "0216", "B", 20, "robot-ship"),
             unit("d7", "klingon-d7", "red", "2801", "E", 20)]
    doc = scenario(units, rules={"damage": "standard_dac", "max_speed": 31})
    doc["impulses_per_turn"] = 32
    b = make_battle(doc, seed=0)
    run_to(b, 1, 1)
    assert not of(b, "Launched")
    run_to(b, 1, 2)
    launched = of(b, "Launched", unit="ranger")
    assert len(launched) == 9 and {(e.turn, e.impulse, e.target) for e in launched} == {
        (1, 1, "d7")}


def test_g23_51_fighters_entering_an_esg_field_are_struck_as_shuttle_sized_units():
    """Nine fighters flying into a Lyran Tiger's radius-2 field share its strength (G23.51,
    G23.52 step 5: fighters rank with shuttles)."""
    units = [unit("ranger", "hydran-ranger", "blue", "0816", "A", 0),
             unit("tiger", "lyran-tiger", "red", "0810", "A", 0)]
    doc = scenario(units, rules={"damage": "standard_dac", "max_speed": 31})
    doc["impulses_per_turn"] = 32
    b = make_battle(doc, seed=0)
    ranger, tiger = row(b, "ranger"), row(b, "tiger")
    run_to(b, 1, 1)
    announce = Orders()
    announce.esg[weapon(b, "tiger", "ESG-1")] = 3  # EsgOrder.ANNOUNCE_2: radius 2
    b.step({ranger: Orders(fighters=tiger), tiger: announce})
    run_to(b, 1, 12)
    struck = of(b, "EsgStruck", unit="tiger")
    released = of(b, "EsgReleased", unit="tiger")[0]
    assert struck and all(e.target.startswith("ranger.fighter-") for e in struck)
    assert sum(e.points for e in struck) == released.strength
    assert int(b.state.damage[_fighters(b)].sum()) == released.strength


# ---------------------------------------------------------------------- administrative shuttles


def _shuttle_sandbox(*extra):
    return _sandbox(*extra, admin_shuttles=True)


def test_j1_admin_shuttles_get_rows_only_under_the_rule():
    """(J1.0, CTH-DATA §9.2 SHTL boxes; the Ranger: 9 fighters + 1 admin shuttle, §8.7)"""
    assert not len(small_craft.shuttles_of(_sandbox(), 0))
    b = _shuttle_sandbox(unit("fed", "fed-ca", "red", "1010", "A", 0))
    counts = {uid: len(small_craft.shuttles_of(b, row(b, uid))) for uid in ("ranger", "d7", "fed")}
    assert counts == {"ranger": 1, "d7": 2, "fed": 4}
    s = small_craft.shuttles_of(b, row(b, "d7"))
    assert np.all(b.state.kind[s] == UnitKind.SHUTTLE)
    assert np.all(b.state.status[s] == Status.UNUSED)
    assert [b.weapon_ids[g] for g in b.craft_gun[s]] == ["d7.shuttle-1.PH3", "d7.shuttle-2.PH3"]


def test_j1_one_shuttle_launch_per_bay_every_2_impulses_at_speed_6():
    b = _shuttle_sandbox()
    run_to(b, 1, 1)
    ranger, d7 = row(b, "ranger"), row(b, "d7")
    b.step({d7: Orders(shuttles=ranger)})
    s1, s2 = small_craft.shuttles_of(b, d7)
    st = b.state
    assert st.status[s1] == Status.ACTIVE and st.status[s2] == Status.UNUSED
    assert st.speed[s1] == 6 and st.target[s1] == ranger
    with pytest.raises(IllegalOrderError, match="J1.0 one shuttle launch per bay per 2"):
        b.step({d7: Orders(shuttles=ranger)})
    assert small_craft.order_blockers(b, d7, [ranger], UnitKind.SHUTTLE)[0] is not None
    b.step({})
    b.step({d7: Orders(shuttles=ranger)})
    assert st.status[s2] == Status.ACTIVE and st.launched_at[s2] == 3


def test_j1_shuttle_phaser_3_not_within_a_quarter_turn_of_launch_then_once_a_turn():
    b = _shuttle_sandbox()
    run_to(b, 1, 1)
    ranger, d7 = row(b, "ranger"), row(b, "d7")
    b.step({d7: Orders(shuttles=ranger)})
    s = int(small_craft.shuttles_of(b, d7)[0])
    gun = int(b.craft_gun[s])
    st = b.state
    st.impulse = 1 + 7  # a quarter turn of 32 impulses is 8 (E1.5)
    assert weapon_ready_blocker(b, gun).startswith("J1.0 a shuttle may not fire within")
    st.impulse = 1 + 8
    assert weapon_ready_blocker(b, gun) is None
    st.w_fired_turn[gun] = st.turn
    assert weapon_ready_blocker(b, gun).startswith("E1.5")


def test_j1_shuttle_crippled_at_3_speed_3_destroyed_at_6():
    b = _shuttle_sandbox()
    run_to(b, 1, 1)
    b.step({row(b, "d7"): Orders(shuttles=row(b, "ranger"))})
    s = int(small_craft.shuttles_of(b, row(b, "d7"))[0])
    st = b.state
    b.apply_damage(s, 0, 2)
    assert st.speed[s] == 6
    b.apply_damage(s, 0, 1)
    assert st.speed[s] == 3 and st.status[s] == Status.ACTIVE
    b.apply_damage(s, 0, 3)
    assert st.status[s] == Status.DESTROYED


def test_j1_35_shuttle_not_fired_at_beyond_5_and_no_fighter_die_shift():
    """A Ph-1 at range 3 rolling 6 scores the chart's 3 against a shuttle (J4.47's +1 is for
    fighters only); at range 6 the shuttle cannot be fired at (J1.35)."""
    fed = unit("fed", "fed-ca", "red", "0213", "A", 0)
    b = _shuttle_sandbox(fed)
    run_to(b, 1, 1)
    ranger = row(b, "ranger")
    b.step({ranger: Orders(shuttles=row(b, "d7"))})
    s = int(small_craft.shuttles_of(b, ranger)[0])
    gun = weapon(b, "fed", "PH1-1")
    _place(b, s, "0207", "A")
    assert fire_blockers(b, gun, [s])[0].startswith("J1.35")
    assert not fire_mask(b, np.array([gun]))[0, s]
    _place(b, s, "0210", "A")
    b.rng = Dice(6)
    b.step({row(b, "fed"): Orders(fire={gun: s})})
    shot = of(b, "Fired", weapon="fed.PH1-1")[0]
    assert (shot.range, shot.die, shot.damage) == (3, 6, 3)


def test_j4_51_a_fighter_fires_at_a_shuttle_in_its_hex_regardless_of_facing():
    """The shuttle entered the fighter's hex from directly behind it (D3.42: the arc is judged
    from the previous positions): out of the FA-only gun's arc, yet open by close-combat
    maneuvering; the D7 arriving the same way stays out of arc (J4.51 is only for shuttles)."""
    b = _shuttle_sandbox()
    run_to(b, 1, 1)
    ranger, d7 = row(b, "ranger"), row(b, "d7")
    b.step({ranger: Orders(fighters=d7), d7: Orders(shuttles=ranger)})
    f = int(_fighters(b)[0])
    s = int(small_craft.shuttles_of(b, d7)[0])
    st = b.state
    st.impulse = 12  # more than 8 impulses after the launch (J4.32)
    for u, before in ((f, "1010"), (s, "1011"), (d7, "1011")):
        _place(b, u, "1010", "A")
        st.prev_x[u], st.prev_z[u] = hexmap.label_to_axial(before, b.scenario.parity)
    gun = int(b.craft_gun[f])
    blockers = fire_blockers(b, gun, [s, d7])
    assert blockers[0] is None
    assert blockers[1].startswith("D2.1")
    assert list(fire_mask(b, np.array([gun]))[0, [s, d7]]) == [True, False]


# ------------------------------------------------------- close combat vs ships (J4.52)


def _ccm_setup(shield_down: int = 3):
    """A fighter sent at the D7 shares its hex (1010) with it since the previous impulse; the
    D7 faces A and its shield #``shield_down`` is down."""
    b = _sandbox()
    f = _launched(b)
    d7 = row(b, "d7")
    st = b.state
    st.impulse = 12  # more than 8 impulses after the launch (J4.32)
    _place(b, d7, "1010", "A")
    _place(b, f, "1010", "B")
    st.shields[d7, shield_down - 1] = 0
    return b, f, d7


def test_j4_523_ccm_faces_the_down_shield_3_of_a_ship_facing_a_from_direction_f():
    """(J4.523) The ship faces A, its #3 shield is down: the fighter announces CCM, faces F,
    strikes the #3 shield and is in the ship's R and RR arcs (D7 PH2-8: R, RR)."""
    b, f, d7 = _ccm_setup(3)
    assert small_craft.ccm_blocker(b, f, d7) is None
    assert small_craft.ccm_shield(b, d7) == 3  # the pilot's choice: the weakest shield
    small_craft.close_combat_maneuver(b, f, d7, 3)
    st = b.state
    assert hexmap.DIRECTION_LETTERS[int(st.facing[f])] == "F"
    assert (st.x[f], st.z[f]) == (st.x[d7], st.z[d7])  # (J4.522) it stays in the hex
    assert shields.struck_shield(b, d7, f, range0=True) == 3
    _, in_arc = geometry(b, weapon(b, "d7", "PH2-8"), np.array([f]))
    assert in_arc[0]  # R, RR: by the arcs themselves
    _, in_arc = geometry(b, int(b.craft_gun[f]), np.array([d7]))
    assert in_arc[0]  # the ship on the fighter's centre line: its FA gun bears
    assert of(b, "TacticalManeuver", unit=b.unit_ids[f])


def test_j4_522_any_ship_in_the_hex_fires_any_weapon_at_a_ccm_fighter_mask_agrees():
    """(J4.522) PH2-6 (L, LR) does not bear on the fighter at shield #3 by its arcs, yet may
    fire at it while it uses CCM; fire_blockers and fire_mask agree."""
    b, f, d7 = _ccm_setup(3)
    small_craft.close_combat_maneuver(b, f, d7, 3)
    w = weapon(b, "d7", "PH2-6")
    _, in_arc = geometry(b, w, np.array([f]))
    assert not in_arc[0]
    assert fire_blockers(b, w, [f])[0] is None
    assert fire_mask(b, np.array([w]))[0, f]
    b.state.impulse += 1  # the next impulse: no longer maneuvering (until it announces again)
    assert not small_craft.close_combat(b, w, np.array([f]), np.array([0]))[0]


def test_j4_521_no_ccm_when_the_ship_or_the_fighter_entered_the_hex_this_impulse():
    b, f, d7 = _ccm_setup(3)
    st = b.state
    st.prev_x[d7], st.prev_z[d7] = hexmap.label_to_axial("1011", b.scenario.parity)
    assert small_craft.ccm_blocker(b, f, d7).startswith("J4.521 not against a ship")
    with pytest.raises(ValueError, match="J4.521"):
        small_craft.close_combat_maneuver(b, f, d7, 3)
    b, f, d7 = _ccm_setup(3)
    b.state.prev_x[f], b.state.prev_z[f] = hexmap.label_to_axial("1011", b.scenario.parity)
    assert small_craft.ccm_blocker(b, f, d7).startswith("J4.521 not by a fighter")
    assert small_craft.ccm_blocker(b, f, row(b, "ranger")).startswith("J4.521")


def test_j4_52_the_pilot_uses_ccm_on_the_weakest_shield_in_play():
    """In play the pilot's fighter, in its target's hex since the previous impulse, stays and
    uses CCM on the weakest shield (#5 here) before the fire step."""
    b, f, d7 = _ccm_setup(5)
    st = b.state
    st.speed[d7] = 0
    b.step(_hold(b))
    assert (st.x[f], st.z[f]) == (st.x[d7], st.z[d7])
    assert of(b, "TacticalManeuver", unit=b.unit_ids[f], paid_with=(
        "J4.52 close-combat maneuvering, shield #5"))
    assert b.state.craft_ccm[f] == st.absolute_impulse


# ---------------------------------------------------------- fighter tactical maneuvers (J4.11)


def _mover_impulse(b, speed: int, after: int = 0) -> int:
    """The first impulse after ``after`` on which ``speed`` moves (C1.41)."""
    from sfb_env.impulse import moves_on_np

    st = b.state
    return next(i for i in range(after + 1, st.impulses_per_turn + 1)
                if moves_on_np(np.array([speed]), i, st.impulses_per_turn)[0])


def test_j4_11_fighter_tac_only_when_its_speed_moves_it_and_once_in_4_impulses():
    b, f, _ = _ccm_setup(3)
    st = b.state
    still = next(i for i in range(9, 33) if i != _mover_impulse(b, 15, i - 1))
    st.impulse = still
    assert small_craft.tac_blocker(b, f).startswith("J4.11 its maximum speed 15")
    st.impulse = _mover_impulse(b, 15, 8)
    assert small_craft.tac_blocker(b, f) is None
    before = int(st.facing[f])
    small_craft.fighter_tac(b, f, 1)
    assert st.facing[f] == (before + 1) % 6
    assert of(b, "TacticalManeuver", unit=b.unit_ids[f], paid_with="J4.11 fighter")
    nxt = _mover_impulse(b, 15, st.impulse)
    assert nxt - (st.impulse) < small_craft.TAC_GAP
    st.impulse = nxt
    assert small_craft.tac_blocker(b, f).startswith("J4.11 no more than one")
    with pytest.raises(ValueError, match="J4.11"):
        small_craft.fighter_tac(b, f, -1)
    st.impulse = _mover_impulse(b, 15, st.impulse + small_craft.TAC_GAP - 1)
    assert small_craft.tac_blocker(b, f) is None


def test_j4_11_a_crippled_fighter_tacs_on_its_speed_8_schedule_shuttles_never():
    b, f, _ = _ccm_setup(3)
    st = b.state
    b.apply_damage(f, 0, 7)
    off8 = next(i for i in range(9, 33) if i == _mover_impulse(b, 15, i - 1)
                and i != _mover_impulse(b, 8, i - 1))
    st.impulse = off8
    assert small_craft.tac_blocker(b, f).startswith("J4.11 its maximum speed 8")
    b = _shuttle_sandbox()
    s = int(small_craft.shuttles_of(b, row(b, "ranger"))[0])
    assert small_craft.tac_blocker(b, s).startswith("J4.11 only fighters")


def test_j4_11_the_pilot_tacs_toward_its_targets_facing_when_holding_without_ccm():
    """The D7 entered the fighter's hex this impulse (no CCM, J4.521): the holding fighter
    (facing B, the D7 facing D) turns one hex side right, then none within 4 impulses."""
    b, f, d7 = _ccm_setup(3)
    st = b.state
    _place(b, d7, "1010", "D")
    st.prev_x[d7], st.prev_z[d7] = hexmap.label_to_axial("1011", b.scenario.parity)
    st.impulse = _mover_impulse(b, 15, 8)
    small_craft.move_fighters(b)
    assert hexmap.DIRECTION_LETTERS[int(st.facing[f])] == "C"
    assert b.label(f) == "1010"
    st.impulse = _mover_impulse(b, 15, st.impulse)
    small_craft.move_fighters(b)
    assert hexmap.DIRECTION_LETTERS[int(st.facing[f])] == "C"  # (J4.11) once in 4 impulses


# ---------------------------------------------------------- landing and repair aboard (J4.48)


def _home(b, f: int, damage: int = 7) -> int:
    """Damage fighter ``f`` and put it in its (stopped) carrier's hex; return the carrier."""
    ranger = row(b, "ranger")
    b.apply_damage(f, 0, damage)
    b.state.speed[ranger] = 0
    _place(b, f, b.label(ranger), "A")
    return ranger


def test_j4_48_landing_as_shuttles_in_the_carriers_hex_at_ship_speed_6_or_less():
    b = _sandbox()
    f = _launched(b)
    st = b.state
    st.impulse = 12
    ranger = _home(b, f)
    st.speed[ranger] = 7
    assert small_craft.land_blocker(b, f).startswith("J1.0 a craft lands under its own power")
    st.speed[ranger] = 6
    _place(b, f, "0215", "A")
    assert small_craft.land_blocker(b, f).startswith("J1.0 a craft lands only in its carrier")
    with pytest.raises(ValueError, match="J1.0"):
        small_craft.land(b, f)
    _place(b, f, b.label(ranger), "A")
    small_craft.land(b, f)
    assert st.status[f] == Status.UNUSED and of(b, "Landed", unit=b.unit_ids[f])
    other = int(_fighters(b)[1])
    _place(b, other, b.label(ranger), "A")
    assert small_craft.land_blocker(b, other).startswith("J1.0 one launch or recovery")
    st.impulse += small_craft.RECOVERY_GAP
    assert small_craft.land_blocker(b, other) is None


def test_j4_48_a_landed_fighter_is_launched_again_by_the_fighters_order():
    b = _sandbox()
    f = _launched(b)
    st = b.state
    st.impulse = 12
    ranger = _home(b, f)
    small_craft.land(b, f)
    assert f in small_craft.aboard(b, ranger)
    st.impulse = 20
    assert b.fighter_blockers(ranger, [row(b, "d7")])[0] is None
    small_craft.send(b, ranger, row(b, "d7"))
    assert st.status[f] == Status.ACTIVE
    assert st.speed[f] == small_craft.CRIPPLED_SPEED  # still crippled (J4.12)
    assert st.launched_at[f] == st.absolute_impulse


def test_j4_48_nine_damage_points_fully_repaired_after_nine_turns_aboard():
    """(J4.48) One point a turn for a fighter aboard the whole turn; none on the turn it lands;
    below 7 it is no longer crippled."""
    b = _sandbox()
    f = _launched(b)
    st = b.state
    st.impulse = 12
    _home(b, f, damage=9)
    small_craft.land(b, f)
    small_craft.end_of_turn(b)
    assert st.damage[f] == 9  # it was not aboard for the whole turn
    for turns in range(1, 10):
        st.turn += 1
        small_craft.end_of_turn(b)
        assert st.damage[f] == 9 - turns
        assert small_craft.crippled(b, f) == (st.damage[f] >= small_craft.CRIPPLED_AT)
    assert st.damage[f] == 0 and len(of(b, "CraftRepaired", unit=b.unit_ids[f])) == 9
    st.turn += 1
    small_craft.end_of_turn(b)
    assert st.damage[f] == 0


def test_j4_48_the_pilot_brings_a_crippled_fighter_home_and_lands_it():
    b = _sandbox()
    f = _launched(b)
    st = b.state
    for _ in range(4):
        b.step(_hold(b))
    b.apply_damage(f, 0, 7)
    ranger = row(b, "ranger")
    assert b.label(f) != b.label(ranger)
    for _ in range(2 * st.impulses_per_turn):  # speed 8: it turns back and comes home
        if of(b, "Landed") or b.done:
            break
        b.step(_hold(b))
    assert of(b, "Landed", unit=b.unit_ids[f], carrier="ranger")
    assert st.status[f] == Status.UNUSED
    assert all(st.status[g] == Status.ACTIVE for g in _fighters(b) if g != f)
