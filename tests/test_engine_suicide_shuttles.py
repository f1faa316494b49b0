"""Suicide shuttles (J2.22-J2.222; CTH-DATA §5.4) through the engine
(``engine.suicide_shuttles``): arming on the standard form, holding, launch, flight as a drone
(F2.0), impact, and the env components."""

from __future__ import annotations

import pytest
from engine_helpers import of, row, run_to

import sfb_env
from sfb_env.data import load_data_file
from sfb_env.engine import IllegalOrderError, Orders, make_battle, small_craft
from sfb_env.engine import suicide_shuttles as ss
from sfb_env.engine.scenario import SCENARIO_DIR, ScenarioError
from sfb_env.engine.types import (
    ACTIVE,
    DESTROYED,
    EXPENDED,
    K_PLASMA,
    K_SHUTTLE,
    UNUSED,
    Box,
    UnitKind,
)


def duel(**moves) -> dict:
    """cth-09's ships 4 hexes apart at speed 0 (the Fed CA at 1012 facing A, the D7 at 1008
    facing D), the planet out of the way at 2008."""
    doc = dict(load_data_file(SCENARIO_DIR / "cth-09.yaml"))
    doc["units"] = [dict(u) for u in doc["units"]]
    doc["units"][0].update(hex="2008")
    doc["units"][1].update(hex="1012", facing="A", speed=0)
    doc["units"][2].update(hex="1008", facing="D", speed=0)
    for i, fields in moves.items():
        doc["units"][int(i[1:])].update(fields)
    return doc


def _battle():
    b = make_battle(duel(), seed=0)
    return b, row(b, "rescuer"), row(b, "opponent")


def _allocate(b, fed, kl, value):
    """Finish the current allocation point with ``suicide_arm`` = value, both ships at 0."""
    b.step({fed: Orders(speed=0, suicide_arm=value), kl: Orders(speed=0)})


def _arm_three_turns(b, fed, kl, per_turn=(3, 3, 3)):
    for turn, value in enumerate(per_turn, start=1):
        if turn > 1:
            run_to(b, turn - 1, 32)
        _allocate(b, fed, kl, value)


def test_j2_221_bomb_armed_over_three_consecutive_turns_of_warp_energy():
    b, fed, kl = _battle()
    assert ss.arm_blockers(b, fed) == {} and ss.standing_arm(b, fed) == 0
    _arm_three_turns(b, fed, kl, (3, 2, 1))
    events = of(b, "SuicideShuttleArmed", unit="rescuer")
    assert [(e.energy, e.total, e.turns, e.held) for e in events] == [
        (3, 3, 1, False), (2, 5, 2, False), (1, 6, 3, False)]
    s = ss.armed(b, fed)  # (J2.221) the third arming turn may be the launch turn
    assert s is not None and b.unit_ids[s] == "rescuer.shuttle-4"  # PROPOSAL: the last aboard
    assert ss.warhead(b, s) == 12  # (J2.222) 2 x 6


def test_j2_222_explosion_is_twice_the_energy_at_most_18():
    b, fed, kl = _battle()
    s = int(small_craft.shuttles_of(b, fed)[-1])
    for energy, points in ((1, 2), (6, 12), (9, 18), (12, 18)):
        b.state.suicide_energy[s] = energy
        assert ss.warhead(b, s) == points


def test_j2_221_armed_bomb_is_held_at_one_and_only_one():
    b, fed, kl = _battle()
    _arm_three_turns(b, fed, kl)
    run_to(b, 3, 32)
    assert ss.arm_blockers(b, fed) == {
        2: "J2.221 an armed suicide shuttle is held at 1 energy a turn",
        3: "J2.221 an armed suicide shuttle is held at 1 energy a turn"}
    assert ss.standing_arm(b, fed) == 1
    b.step({fed: Orders(speed=0), kl: Orders(speed=0)})  # the standing order holds it
    assert of(b, "SuicideShuttleArmed", turn=4, energy=1, total=9, turns=3, held=True)
    assert ss.armed(b, fed) is not None
    run_to(b, 4, 32)
    with pytest.raises(IllegalOrderError, match="held at 1 energy"):
        b.validate({fed: Orders(speed=0, suicide_arm=2)})


def test_j2_221_unpaid_hold_deactivates_the_bomb_and_grounds_the_shuttle_that_turn():
    b, fed, kl = _battle()
    _arm_three_turns(b, fed, kl)
    s = ss.armed(b, fed)
    run_to(b, 3, 32)
    _allocate(b, fed, kl, 0)
    assert b.state.suicide_energy[s] == 0 and ss.armed(b, fed) is None
    assert b.state.suicide_idle_turn[s] == 4
    assert of(b, "SuicideShuttleDeactivated", shuttle="rescuer.shuttle-4")
    assert ss.launch_blockers(b, fed, [kl])[0].startswith("J2.221 no armed suicide shuttle")


def test_j2_221_letting_an_arming_chain_go_loses_its_energy():
    b, fed, kl = _battle()
    _arm_three_turns(b, fed, kl, (3, 0))
    assert not b.state.suicide_energy.any()
    assert of(b, "SuicideShuttleDeactivated", reason="let go at Energy Allocation")


def test_j2_221_arming_energy_is_warp_only():
    b, fed, kl = _battle()
    b.state.boxes[fed, Box.WARP] = 2
    assert ss.arm_blockers(b, fed) == {
        3: "J2.221 suicide shuttle arming energy is warp only (2 warp boxes)"}
    with pytest.raises(IllegalOrderError, match="warp only"):
        b.validate({fed: Orders(speed=0, suicide_arm=3)})


def test_j2_221_no_energy_outside_energy_allocation():
    b, fed, kl = _battle()
    run_to(b, 1, 1)
    assert ss.arm_blockers(b, fed)[1].startswith("B3.0 energy is allocated only")


def test_j2_221_a_bomb_shuttle_is_no_administrative_shuttle():
    """PROPOSAL: the ``shuttles`` order launches the shuttles without a bomb."""
    b, fed, kl = _battle()
    before = len(small_craft.aboard(b, fed, K_SHUTTLE))
    _allocate(b, fed, kl, 1)
    assert len(small_craft.aboard(b, fed, K_SHUTTLE)) == before - 1


def test_j2_222_launch_targets_ship_shuttle_or_drone_never_plasma():
    b, fed, kl = _battle()
    _arm_three_turns(b, fed, kl)
    st = b.state
    p = row(b, "rigel")
    fake = next(i for i, u in enumerate(b.unit_ids) if u.startswith("opponent.DRONE"))
    st.status[fake], st.kind[fake] = ACTIVE, K_PLASMA  # a torpedo stand-in in play
    st.x[fake], st.z[fake] = st.x[kl], st.z[kl] - 1
    rules = ss.launch_blockers(b, fed, [kl, p, fed, fake])
    assert rules == [None, "J2.222 a suicide shuttle targets a ship, shuttle or drone",
                     "J2.22 no launch at a friendly unit",
                     "J2.222 a suicide shuttle may not target a plasma torpedo"]
    with pytest.raises(IllegalOrderError, match="plasma"):
        b.validate({fed: Orders(suicide=fake)})


def test_j2_22_moves_as_a_drone_and_strikes_with_its_hidden_bomb():
    """(J2.22) launched on the third arming turn at speed 6 (PROPOSAL), it homes as a drone
    (F2.0) in Move Seeking Weapons, stays a shuttle row (identity hidden until impact), and
    explodes on entering the D7's hex for 2 x 9 = 18 on the shield facing it (J2.222)."""
    b, fed, kl = _battle()
    _arm_three_turns(b, fed, kl)
    s = ss.armed(b, fed)
    assert ss.launch_blockers(b, fed, [kl]) == [None]
    b.step({fed: Orders(suicide=kl)})
    st = b.state
    assert st.status[s] == ACTIVE and st.kind[s] == K_SHUTTLE and st.speed[s] == ss.SPEED
    assert st.suicide_launched[s] and st.target[s] == kl
    assert of(b, "Launched", drone="rescuer.shuttle-4", target="opponent")
    gun = int(b.craft_gun[s])  # (PROPOSAL) it does not fire
    assert b.fire_blockers(gun, [kl])[0] == "J2.22 a suicide shuttle does not fire (PROPOSAL)"
    internal = int(st.internal[kl])
    shields = st.shields[kl].copy()
    while st.status[s] == ACTIVE:
        run_to(b, st.turn, st.impulse + 1)
    assert st.status[s] == EXPENDED
    hit = of(b, "SeekingHit", unit="rescuer.shuttle-4", target="opponent")
    assert [(h.shield, h.warhead) for h in hit] == [(1, 18)]
    assert int(shields.sum() - st.shields[kl].sum()) + int(st.internal[kl]) - internal >= 18 \
        or st.status[kl] == DESTROYED
    moves = of(b, "Moved", unit="rescuer.shuttle-4")
    assert [m.dst for m in moves] == ["1011", "1010", "1009", "1008"]


def test_j2_22_is_shot_down_as_a_shuttle_and_lost_with_its_target():
    b, fed, kl = _battle()
    _arm_three_turns(b, fed, kl)
    s = ss.armed(b, fed)
    b.step({fed: Orders(suicide=kl)})
    b.apply_damage(s, 0, 6)  # (J1.0) 6 points destroy a shuttle
    assert b.state.status[s] == DESTROYED
    b2, fed2, kl2 = _battle()
    _arm_three_turns(b2, fed2, kl2)
    s2 = ss.armed(b2, fed2)
    b2.step({fed2: Orders(suicide=kl2)})
    b2.state.status[kl2] = DESTROYED
    run_to(b2, 3, 3)
    assert b2.state.status[s2] == EXPENDED  # (PROPOSAL, FD1.3) its target left play
    assert of(b2, "Expired", unit="rescuer.shuttle-4",
              reason="FD1.3 the target is no longer in play")


def test_j2_22_rule_needs_shuttles_and_the_standard_form():
    doc = duel()
    doc["rules"] = dict(doc["rules"], admin_shuttles=False)
    with pytest.raises(ScenarioError) as err:
        make_battle(doc)
    assert err.value.field == "rules.suicide_shuttles"


def test_j2_22_components_only_where_the_rule_is_on():
    env = sfb_env.parallel_env(duel())
    env.reset(seed=0)
    names = env._layouts["rescuer"].component_names()
    assert "suicide" in names and "suicide_arm" in names
    plain = sfb_env.parallel_env("cth-07")
    plain.reset(seed=0)
    assert not {"suicide", "suicide_arm"} & set(plain._layouts["constellation"].component_names())


def test_j2_22_env_launch_component_drives_the_engine():
    env = sfb_env.parallel_env(duel(), illegal_action="raise")
    obs, _ = env.reset(seed=0)
    b = env.battle
    fed = b.unit_index["rescuer"]
    layout = env._layouts["rescuer"]
    names = layout.component_names()
    for turn in range(3):  # arm 3 a turn at each Energy Allocation, speeds 0
        actions = {a: env._layouts[a].noop(b) for a in env.agents}
        for a in env.agents:
            actions[a][-1] = 0
        actions["rescuer"][names.index("suicide_arm")] = 3
        obs, *_ = env.step(actions)
        while b.state.impulse != b.state.impulses_per_turn and turn < 2:
            obs, *_ = env.step({a: env._layouts[a].noop(b) for a in env.agents})
    assert ss.armed(b, fed) is not None
    slots = list(env._slots["rescuer"])
    k = slots.index(b.unit_index["opponent"]) + 1
    part = env.action_space("rescuer").split_mask(obs["rescuer"]["action_mask"])
    assert part[names.index("suicide")][k] == 1
    action = layout.noop(b)
    action[names.index("suicide")] = k
    env.step({"rescuer": action, "opponent": env._layouts["opponent"].noop(b)})
    s = next(i for i, u in enumerate(b.unit_ids) if u == "rescuer.shuttle-4")
    assert b.state.status[s] == ACTIVE and b.state.suicide_launched[s]
    assert b.state.status[s] != UNUSED and int(UnitKind.SHUTTLE) == int(b.state.kind[s])
