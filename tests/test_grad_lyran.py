"""The Lyran Cadet Cruiser in play: its expanding sphere generator in the engine (G23), the
``esg[g]`` action component, the graduate duels and the ``lyran-doctrine`` captain.

The ESG rules themselves are tested on the pure resolver in ``test_engine_esg.py``; these tests
check that the battle applies them at the right steps (G23.31, G23.33, G23.47 in Launch Seeking
Weapons; damage in Move Ships, G23.512, G23.514). PettingZoo's ``parallel_api_test`` and
``parallel_seed_test`` run on the ``grad-lyran-*`` scenarios in ``test_env_api.py`` and the
both-ways mask test in ``test_env_masks.py`` (both parametrised over every listed scenario).
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import (
    hex_of,
    of,
    random_masked_games,
    row,
    run_to,
    scenario,
    weapon,
)
from observation_helpers import read

import agents
import sfb_env
from agents import bench
from agents.doctrine import DoctrineCaptain, doctrine_for_weapons
from sfb_env import hexmap
from sfb_env.engine import IllegalOrderError, Maneuver, Orders, make_battle
from sfb_env.engine.esg import EsgPhase
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import Status
from sfb_env.env import rule_features
from sfb_env.env.actions import IllegalActionError
from sfb_env.env.observation import ENERGY_WEAPON_SIZE, ESG_SIZE, PLASMA_THREAT_SIZE
from sfb_env.tables import esg_strength

ENEMIES = {"klingon": "klingon-cadet", "federation": "fed-cadet", "kzinti": "kzinti-cadet",
           "orion": "orion-cadet"}
GRAD = [f"grad-lyran-vs-{race}" for race in ENEMIES]
LYRAN = "lyran-cadet"
ANNOUNCE = {r: 1 + r for r in range(4)}  # EsgOrder.ANNOUNCE_0 + radius
CANCEL, DROP = 5, 6
CADET_ENERGY = 2  # (G23.22) the cadet cruiser's generator holds 2


# ---------------------------------------------------------------------- engine helpers


def _battle(lyran, kli, ipt: int = 8, extra=(), **rules):
    """A sandbox battle: (hex, facing, speed) of the Lyran and the Klingon cadets."""
    units = [
        {"id": "lyran", "class": "lyran-cadet", "side": "blue", "hex": lyran[0],
         "facing": lyran[1], "speed": lyran[2], "controller": "agent"},
        {"id": "kli", "class": "klingon-cadet", "side": "red", "hex": kli[0],
         "facing": kli[1], "speed": kli[2], "controller": "agent"},
        *extra,
    ]
    doc = scenario(units, rules={"damage": "interim", **rules})
    doc["impulses_per_turn"] = ipt
    return make_battle(doc, seed=0)


def _esg(b) -> int:
    return weapon(b, "lyran", "ESG-1")


def _step(b, lyran_esg: int = 0, **maneuvers) -> None:
    """One step: every agent straight where it moves (or ``maneuvers[uid]``), the Lyran's ESG
    order ``lyran_esg``."""
    orders = {}
    for u in b.agent_units():
        uid = b.unit_ids[u]
        m = maneuvers.get(uid)
        if m is None:
            m = Maneuver.NONE if Maneuver.STRAIGHT in b.maneuver_blockers(u) else Maneuver.STRAIGHT
        orders[u] = Orders(maneuver=m)
    if lyran_esg:
        orders[row(b, "lyran")].esg[_esg(b)] = lyran_esg
    b.step(orders)


def _phase(b) -> EsgPhase:
    return EsgPhase(int(b.state.esg_phase[_esg(b)]))


# ---------------------------------------------------------------------- energy (G23.2)


def test_g23_23_cadet_generator_starts_charged_and_chief_engineer_recharges_each_turn():
    b = _battle(("0410", "A", 0), ("0402", "D", 0))
    w = _esg(b)
    assert b.state.esg_stored[w] == b.state.esg_max[w] == CADET_ENERGY  # (G23.22, G23.23)
    run_to(b, 1, 1)
    _step(b, ANNOUNCE[2])  # released on impulse 2 with all its energy (G23.43)
    _step(b)
    assert b.state.esg_stored[w] == 0
    run_to(b, 2, 1)  # (G23.21) the Chief Engineer tops it up at Energy Allocation
    assert b.state.esg_stored[w] == CADET_ENERGY
    assert of(b, "EsgCharged", turn=2, energy=CADET_ENERGY, stored=CADET_ENERGY)


# ---------------------------------------------------------------------- timing (G23.3)


def test_g23_31_release_follows_the_announcement_by_one_impulse_on_the_8_impulse_chart():
    b = _battle(("0410", "A", 0), ("0402", "D", 0))
    blocked = b.esg_blockers(_esg(b))
    assert set(blocked) == {1, 2, 3, 4, 5, 6}  # impulse 0: no Launch Seeking Weapons step yet
    assert all(rule.startswith("G23.31") for rule in blocked.values())
    run_to(b, 1, 1)
    _step(b, ANNOUNCE[1])
    assert _phase(b) == EsgPhase.ANNOUNCED
    assert of(b, "EsgAnnounced", turn=1, impulse=1, radius=1, release_turn=1, release_impulse=2)
    _step(b)  # impulse 2: released in its Launch Seeking Weapons step
    assert _phase(b) == EsgPhase.ACTIVE
    (released,) = of(b, "EsgReleased")
    assert (released.impulse, released.energy) == (2, CADET_ENERGY)
    assert released.strength == esg_strength(radius=1, energy=CADET_ENERGY)  # (G23.42)


def test_g23_31_a_second_announcement_waits_for_the_first():
    b = _battle(("0410", "A", 0), ("0402", "D", 0))
    run_to(b, 1, 1)
    _step(b, ANNOUNCE[3])
    rule = b.esg_blockers(_esg(b))[ANNOUNCE[0]]
    assert rule.startswith("G23.31")
    with pytest.raises(IllegalOrderError) as err:
        _step(b, ANNOUNCE[0])
    assert err.value.rule == rule


def test_g23_33_cancel_only_while_announced_then_a_quarter_turn_lockout():
    b = _battle(("0410", "A", 0), ("0402", "D", 0), ipt=16)  # lead 2, lockout 4 (CTH-DATA §6)
    run_to(b, 1, 1)
    assert b.esg_blockers(_esg(b))[CANCEL].startswith("G23.33")  # nothing announced
    with pytest.raises(IllegalOrderError, match="G23.33"):
        _step(b, CANCEL)
    _step(b, ANNOUNCE[2])  # impulse 1: release due on impulse 3
    assert CANCEL not in b.esg_blockers(_esg(b))  # impulse 2: still before the release
    _step(b, CANCEL)
    assert _phase(b) == EsgPhase.IDLE and of(b, "EsgCancelled", impulse=2)
    for _ in range(3):  # impulses 3, 4, 5: within 1/4 turn of the cancellation
        rule = b.esg_blockers(_esg(b))[ANNOUNCE[2]]
        assert rule.startswith("G23.33")
        with pytest.raises(IllegalOrderError) as err:
            _step(b, ANNOUNCE[2])
        assert err.value.rule == rule
        _step(b)
    assert b.state.impulse == 6 and ANNOUNCE[2] not in b.esg_blockers(_esg(b))
    _step(b, ANNOUNCE[2])
    assert not of(b, "EsgReleased", impulse=3)  # the cancelled release never formed


def test_g23_33_no_cancel_on_the_impulse_of_release():
    b = _battle(("0410", "A", 0), ("0402", "D", 0))  # 8 impulses: lead 1
    run_to(b, 1, 1)
    _step(b, ANNOUNCE[0])
    assert b.esg_blockers(_esg(b))[CANCEL].startswith("G23.33 only before")


def test_g23_32_field_expires_one_turn_after_release():
    b = _battle(("0410", "A", 0), ("0402", "D", 0))
    run_to(b, 1, 1)
    _step(b, ANNOUNCE[3])
    run_to(b, 2, 2)  # released turn 1 impulse 2: ends in the step of turn 2 impulse 2
    assert _phase(b) == EsgPhase.ACTIVE
    _step(b)
    assert _phase(b) == EsgPhase.IDLE
    assert of(b, "EsgDropped", turn=2, impulse=2, reason="expired")


def test_g23_47_drop_only_while_operating_and_g23_323_reactivation_delay():
    b = _battle(("0410", "A", 0), ("0402", "D", 0))
    run_to(b, 1, 1)
    assert b.esg_blockers(_esg(b))[DROP].startswith("G23.47")
    _step(b, ANNOUNCE[2])
    # impulse 2: the field forms in this step; no drop before it operates
    assert b.esg_blockers(_esg(b))[DROP].startswith("G23.47")
    with pytest.raises(IllegalOrderError, match="G23.47"):
        _step(b, DROP)
    _step(b)
    run_to(b, 1, 4)
    assert DROP not in b.esg_blockers(_esg(b))
    _step(b, DROP)  # at once (G23.47)
    assert _phase(b) == EsgPhase.IDLE and of(b, "EsgDropped", impulse=4, reason="voluntary")
    # (G23.323) not within 8 impulses of the drop (turn 2 impulse 4) nor before the start of the
    # second turn after activation (turn 3): the later one binds, so a release on turn 3
    # impulse 1 at the earliest, announced on turn 2 impulse 8 (lead 1)
    while (b.state.turn, b.state.impulse) != (2, 8):
        rule = b.esg_blockers(_esg(b))[ANNOUNCE[2]]
        assert rule.startswith("G23.323")
        _step(b)
    assert ANNOUNCE[2] not in b.esg_blockers(_esg(b))
    _step(b, ANNOUNCE[2])
    _step(b)
    assert of(b, "EsgReleased", turn=3, impulse=1)


def test_destroyed_generator_takes_no_orders():
    b = _battle(("0410", "A", 0), ("0402", "D", 0))
    run_to(b, 1, 1)
    b.state.w_destroyed[_esg(b)] = True
    assert all(rule.startswith("G23.14") for rule in b.esg_blockers(_esg(b)).values())


# ---------------------------------------------------------------------- contact (G23.5)


def _shield(b, uid: str) -> np.ndarray:
    return b.state.shields[row(b, uid)].copy()


def test_g23_51_unit_entering_the_field_by_its_own_move_takes_its_strength():
    # Klingon closes from 5 hexes; radius-2 field released on impulse 2, met on impulse 3
    b = _battle(("0410", "A", 0), ("0405", "D", 8))
    run_to(b, 1, 1)
    _step(b, ANNOUNCE[2])
    before = _shield(b, "kli")
    assert hexmap.distance(hex_of(b, "kli"), hex_of(b, "lyran")) == 3
    _step(b)  # impulse 3: the Klingon enters a ring hex
    assert hex_of(b, "kli") == "0408"
    (hit,) = of(b, "EsgStruck", impulse=3)
    strength = esg_strength(radius=2, energy=CADET_ENERGY)
    (shield,) = hexmap.shields_hit(hex_of(b, "kli"), "D", hex_of(b, "lyran"))  # (G23.513)
    assert (hit.target, hit.contact, hit.points, hit.shield) == ("kli", "enters", strength,
                                                                shield)
    assert before[shield - 1] - _shield(b, "kli")[shield - 1] == strength
    # (G23.511, G23.322) every point scored costs the field one: a ship soaks it all
    assert _phase(b) == EsgPhase.IDLE and of(b, "EsgDropped", impulse=3, reason="exhausted")


def test_g23_57_the_generating_ship_moving_its_field_onto_a_unit_damages_it():
    b = _battle(("0410", "A", 8), ("0405", "A", 0))
    run_to(b, 1, 1)
    _step(b, ANNOUNCE[2])
    assert hex_of(b, "lyran") == "0408"
    before = _shield(b, "kli")
    _step(b)  # impulse 3: Lyran 0407, the ring reaches 0405
    assert hex_of(b, "lyran") == "0407"
    (hit,) = of(b, "EsgStruck", impulse=3)
    (shield,) = hexmap.shields_hit("0405", "A", "0407")
    assert (hit.contact, hit.shield) == ("enters", shield)
    assert before[shield - 1] - _shield(b, "kli")[shield - 1] == hit.points > 0


def test_g23_574_turns_in_place_in_a_field_hex_do_no_damage():
    rules = {"speed_choice": True, "tactical_maneuvers": True}
    b = _battle(("0410", "A", 0), ("0408", "D", 0), **rules)
    lyr, kli = row(b, "lyran"), row(b, "kli")
    b.step({lyr: Orders(speed=0), kli: Orders(tactical=True, speed=0)})  # TAC plot (C5.23)
    b.step({lyr: Orders(esg={_esg(b): ANNOUNCE[2]}), kli: Orders()})  # on the ring at formation
    b.step({lyr: Orders(), kli: Orders(maneuver=Maneuver.TACTICAL_LEFT)})  # rotate, impulse 3
    assert of(b, "TacticalManeuver", impulse=3, unit="kli")
    assert _phase(b) == EsgPhase.ACTIVE and not of(b, "EsgStruck")
    assert (b.state.shields[kli] == b.initial.shields[kli]).all()


def test_g23_571_lyran_and_d7_closing_in_one_impulse_meet_the_field():
    # CTH-DATA §13.1 row 27: Lyran 1010 facing A with a radius-3 field through 1007, D7 1006
    # facing D; both move straight: D7 to 1007, Lyran to 1009, field to 1006 -> contact
    b = _battle(("1012", "A", 8), ("1004", "D", 8))
    run_to(b, 1, 1)
    _step(b, ANNOUNCE[3])  # released in impulse 2's Launch Seeking Weapons step
    assert (hex_of(b, "lyran"), hex_of(b, "kli")) == ("1010", "1006")
    _step(b)
    assert (hex_of(b, "lyran"), hex_of(b, "kli")) == ("1009", "1007")
    (hit,) = of(b, "EsgStruck", impulse=3)
    assert (hit.target, hit.contact) == ("kli", "jumps")
    assert hit.points == esg_strength(radius=3, energy=CADET_ENERGY)


def test_g23_572_d7_moving_clear_in_the_same_impulse_is_not_struck():
    # CTH-DATA §13.1 row 28: the D7 moving A instead ends in 1005, clear of the field
    b = _battle(("1012", "A", 8), ("1008", "A", 8))
    run_to(b, 1, 1)
    _step(b, ANNOUNCE[3])
    assert (hex_of(b, "lyran"), hex_of(b, "kli")) == ("1010", "1006")
    _step(b)
    assert (hex_of(b, "lyran"), hex_of(b, "kli")) == ("1009", "1005")
    assert not of(b, "EsgStruck")
    assert _phase(b) == EsgPhase.ACTIVE


def test_g23_511_a_drone_entering_the_field_is_destroyed_and_weakens_it():
    drone = {"id": "drone", "class": "drone", "side": "red", "hex": "0404", "facing": "D",
             "speed": 8, "target": "lyran", "controller": "robot-drone"}
    b = _battle(("0410", "A", 0), ("0201", "A", 0), extra=[drone])
    run_to(b, 1, 1)
    _step(b, ANNOUNCE[2])  # released on impulse 2 with the drone 4 hexes out
    _step(b)  # impulse 3: 3 hexes out
    _step(b)  # impulse 4: the drone enters the ring (distance 2)
    (hit,) = of(b, "EsgStruck", target="drone")
    needed = b.rules.drone_strength  # (FD1.54)
    assert hit.points == needed and hit.shield == 0
    assert b.state.status[row(b, "drone")] == Status.DESTROYED
    assert b.state.esg_strength[_esg(b)] == esg_strength(radius=2, energy=CADET_ENERGY) - needed
    assert not of(b, "SeekingHit")


# ---------------------------------------------------------------------- scenarios and env


def test_a_graduate_lyran_duel_against_every_cadet_race():
    assert set(GRAD) <= set(sfb_env.list_scenarios())


@pytest.mark.parametrize("name", GRAD)
def test_grad_lyran_setup_copies_the_cadet_duels(name):
    sc = load_scenario(name)
    duel = load_scenario("duel-gorn-vs-klingon")  # SCENARIOS §4 gt-cadet
    assert (sc.impulses_per_turn, sc.map_name, sc.turn_limit) == (
        duel.impulses_per_turn, duel.map_name, duel.turn_limit)
    assert sc.rules.switches() == duel.rules.switches()
    assert sc.victory == duel.victory
    a, b = sc.units
    assert (a.unit_class, b.unit_class) == (LYRAN, ENEMIES[name.rsplit("-", 1)[1]])
    assert (a.hex, a.facing, b.hex, b.facing) == tuple(
        getattr(u, f) for u in duel.units for f in ("hex", "facing"))


def test_g23_3_grad_duel_esg_timing_on_the_16_impulse_chart_and_cadet_form_recharge():
    """In the gt-cadet duel (16 impulses, CTH-DATA §6): an announcement leads its release by 2
    impulses (G23.31), the field lasts 16 (G23.32), the standing allocation tops the spent
    generator up at the next Energy Allocation (G23.21, G23.22, B3.0), and no new release
    before the second turn after activation, 16 impulses after the drop (G23.323)."""
    b = make_battle("grad-lyran-vs-klingon", seed=0)
    lyr, kli = row(b, LYRAN), row(b, "klingon-cadet")
    b.step({lyr: Orders(speed=0), kli: Orders(speed=0)})  # impulse 0: both stop (B3.0)
    g = weapon(b, LYRAN, "ESG-1")
    b.step({lyr: Orders(esg={g: ANNOUNCE[1]}), kli: Orders()})
    assert of(b, "EsgAnnounced", turn=1, impulse=1, release_turn=1, release_impulse=3)
    run_to(b, 2, 3)
    assert EsgPhase(int(b.state.esg_phase[g])) == EsgPhase.ACTIVE
    assert of(b, "EsgCharged", turn=2, impulse=0, energy=CADET_ENERGY, stored=CADET_ENERGY)
    _step_all(b)
    assert of(b, "EsgDropped", turn=2, impulse=3, reason="expired")
    while (b.state.turn, b.state.impulse) != (3, 1):  # release on turn 3 impulse 3 at once
        assert b.esg_blockers(g)[ANNOUNCE[1]].startswith("G23.323")
        _step_all(b)
    assert ANNOUNCE[1] not in b.esg_blockers(g)


def _step_all(b) -> None:
    """One step, every agent straight where it moves (the standing allocation)."""
    b.step({u: Orders(maneuver=Maneuver.NONE if Maneuver.STRAIGHT in b.maneuver_blockers(u)
                      else Maneuver.STRAIGHT) for u in b.agent_units()})


@pytest.mark.parametrize("name", GRAD)
def test_only_the_lyran_gets_an_esg_component(name):
    env = sfb_env.parallel_env(name)
    comps = env.action_components(LYRAN)
    esg = [c for c in comps if c["kind"] == "esg"]
    assert [c["weapon"] for c in esg] == [f"{LYRAN}.ESG-1"] and esg[0]["size"] == 7
    names = [c["name"] for c in comps]
    # the cadet form's energy components (B3.0) sit between the ESG and the maneuver; the
    # generator is charged through its own ``arm[h]`` (G23.21)
    assert names[names.index("esg[0]"):] == [
        "esg[0]", "arm[0]", "arm[1]", "arm[2]", "capacitor", "recharge", "maneuver", "speed"]
    arms = [c["weapon"] for c in comps if c["kind"] == "arm"]
    assert arms == [f"{LYRAN}.DISR-A", f"{LYRAN}.DISR-B", f"{LYRAN}.ESG-1"]
    enemy = ENEMIES[name.rsplit("-", 1)[1]]
    race = enemy.split("-")[0].replace("fed", "federation")
    # the gt-cadet duel of the same enemy (SCENARIOS §4: 0216-B / 2801-E, 16 impulses, R1-R6)
    other = sfb_env.parallel_env(f"duel-gorn-vs-{race}")
    assert other.battle.rules.switches() == env.battle.rules.switches()
    # the enemy's action space is that of the gt-cadet duels (checkpoints), its observation too
    # but for the plasma threat block the Gorn's launchers add there (FP1.0)
    assert (env.action_space(enemy).nvec == other.action_space(enemy).nvec).all()
    # and for the ESG fields every ship sees in a battle with a generator (G23.46)
    fields = rule_features.block_size("esg_fields", env._layouts[enemy].slots)
    assert (env.observation_space(enemy)["observation"].shape[0]
            == other.observation_space(enemy)["observation"].shape[0]
            - other.threat_slots * PLASMA_THREAT_SIZE + fields)
    lyran_obs = env.observation_space(LYRAN)["observation"].shape[0]
    kli = sfb_env.parallel_env("grad-lyran-vs-klingon")
    kli_comps = kli.action_components("klingon-cadet")
    n_pos = sum(c["kind"] in ("launch", "fire") for c in comps)
    n_kli = sum(c["kind"] in ("launch", "fire") for c in kli_comps)
    n_arm = len(arms) - sum(c["kind"] == "arm" for c in kli_comps)
    assert n_arm == 1  # the ESG's charge: the Klingon arms two disruptors as the Lyran does
    assert lyran_obs == (kli.observation_space("klingon-cadet")["observation"].shape[0]
                         + 3 * (n_pos - n_kli) + ESG_SIZE + ENERGY_WEAPON_SIZE * n_arm)


def test_env_masks_the_esg_component_and_refuses_with_the_rule():
    env = sfb_env.parallel_env("grad-lyran-vs-klingon", seed=0, illegal_action="raise")
    obs, _ = env.reset(seed=0)
    names = env._layouts[LYRAN].component_names()
    k = names.index("esg[0]")
    parts = env.action_space(LYRAN).split_mask(obs[LYRAN]["action_mask"])
    assert parts[k].tolist() == [1, 0, 0, 0, 0, 0, 0]  # impulse 0
    noop = {a: env._layouts[a].noop(env.battle) for a in env.agents}
    obs, *_ = env.step(noop)
    parts = env.action_space(LYRAN).split_mask(obs[LYRAN]["action_mask"])
    assert parts[k].tolist() == [1, 1, 1, 1, 1, 0, 0]  # announce open, cancel/drop closed
    reasons = env.mask_reasons(LYRAN)["esg[0]"]
    assert reasons[CANCEL].startswith("G23.33") and reasons[DROP].startswith("G23.47")
    action = env._layouts[LYRAN].noop(env.battle)
    action[k] = CANCEL
    with pytest.raises(IllegalActionError) as err:
        env.step({**{a: env._layouts[a].noop(env.battle) for a in env.agents}, LYRAN: action})
    assert err.value.component == "esg[0]" and err.value.rule == reasons[CANCEL]
    action[k] = ANNOUNCE[3]
    obs, *_ = env.step({**{a: env._layouts[a].noop(env.battle) for a in env.agents},
                        LYRAN: action})
    assert env.battle.state.impulse == 2
    view = {k: float(v[0]) for k, v in _esg_block(env, obs[LYRAN]["observation"]).items()}
    assert (view["announced"], view["operating"], view["radius"]) == (1.0, 0.0, 1.0)  # radius 3
    assert view["stored"] == 1.0  # (G23.23) charged with its 2 energy
    # released on impulse 3: a lead of 2 on the 16-impulse chart (G23.31, CTH-DATA §6)
    assert view["release_in"] == pytest.approx(1 / 16)


def _esg_block(env, vector: np.ndarray) -> dict[str, np.ndarray]:
    """The Lyran's first ESG block by field name, at its declared place
    (``env.observation_layout``): after the threat slots; the energy block follows (B3.0)."""
    return read(env, LYRAN, vector, "esg", row=0)


def test_uniform_spaces_pad_the_esg_component():
    env = sfb_env.parallel_env("grad-lyran-vs-kzinti", uniform_spaces=True)
    spaces = {a: tuple(env.action_space(a).nvec) for a in env.possible_agents}
    assert len(set(spaces.values())) == 1
    obs, _ = env.reset(seed=1)
    assert len({obs[a]["observation"].shape for a in env.agents}) == 1


def _random_games(name: str, seeds) -> None:
    random_masked_games(name, seeds)


@pytest.mark.parametrize("name", GRAD)
def test_random_masked_play_10_seeds_without_error(name):
    _random_games(name, range(10))


@pytest.mark.slow
@pytest.mark.parametrize("name", GRAD)
def test_random_masked_play_100_seeds_without_error(name):
    _random_games(name, range(100))


# ---------------------------------------------------------------------- captain


def test_lyran_is_recognised_from_the_esg():
    env = sfb_env.parallel_env("grad-lyran-vs-orion")
    types = [c["weapon_type"] for c in env.action_components(LYRAN) if "weapon_type" in c]
    assert doctrine_for_weapons(types).race == "lyran"


def test_lyran_captain_beats_random():
    matches = [bench.Match("grad-lyran-vs-klingon", "lyran-doctrine", "random")]
    games = bench.run_games(bench.plan_games(matches, games=3, seed=0), progress=False)
    assert sum(g.result == "win" for g in games) >= 2
    assert np.mean([g.damage_dealt - g.damage_taken for g in games]) > 0


def test_lyran_captain_announces_its_esg_within_the_mask():
    """Against the Kzinti doctrine captain (on the gt-cadet layout a random ship mostly leaves
    the map on turn 1, 28 hexes away), every order of the Lyran captain is within its mask, it
    announces the ESG (G23.31) and recharges the spent generator on the cadet form (G23.21)."""
    env = sfb_env.parallel_env("grad-lyran-vs-kzinti")
    captain = DoctrineCaptain("lyran")
    captain.bind(env, LYRAN)
    enemy = env.possible_agents[1]
    other = agents.get("kzinti-doctrine")
    other.bind(env, enemy)
    obs, _ = env.reset(seed=3)
    captain.reset(3)
    other.reset(3)
    while env.agents:
        actions = {}
        for a in env.agents:
            policy = captain if a == LYRAN else other
            actions[a] = policy.act(obs[a], env.action_space(a))
            bench.check_action("captain", a, env, actions[a], obs[a]["action_mask"])
        obs, *_ = env.step(actions)
    announced = [e for e in env.battle.events if e.kind == "EsgAnnounced"]
    assert announced and of(env.battle, "EsgReleased")
    spent = of(env.battle, "EsgDropped")[0]
    assert [e for e in of(env.battle, "EsgCharged", energy=CADET_ENERGY) if e.turn > spent.turn]
