"""Engine plasma torpedoes (FP1-FP4): warhead by distance (FP1.0), launch and arcs (FP1.3,
FP3.1, Gorn printed arcs), first move straight (FP1.3), endurance (FP1.4), impact (FP1.5),
phaser damage (FP1.6), feedback (FP1.8), guidance after the launcher's loss (D4.42) and the
immunities (drones FD1.3, ESG G23.81, explosions)."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import Dice, battle, of, row, run_to, step, unit, weapon

from sfb_env import hexmap, tables
from sfb_env.engine import IllegalOrderError, Status, plasma
from sfb_env.engine.direct_fire import fire_mask
from sfb_env.engine.types import PLASMA_ROWS, UnitKind

ROM = "romulan-cadet"
GORN = "gorn-cadet"
FED = "fed-cadet"
KLI = "klingon-cadet"


def _duel(rom_hex="0516", rom_facing="A", fed_hex="0501", fed_facing="D", cls=ROM, **kw):
    """A stationary launcher (speed 0) and a stationary Federation target (speed 0)."""
    b = battle([unit("rom", cls, "red", rom_hex, rom_facing, 0),
                unit("fed", FED, "blue", fed_hex, fed_facing, 0)], **kw)
    return b


def _arm(b, mount="PL-A", uid="rom"):
    w = weapon(b, uid, mount)
    b.state.w_armed[w] = True  # the energy rules arm it (FP1.22); set directly here
    return w


def _launch(b, mount="PL-A", uid="rom", target="fed"):
    step(b, **{uid: dict(launch={mount: target})})
    (launched,) = of(b, "Launched", rack=f"{uid}.{mount}")[-1:]
    return row(b, launched.drone)


def test_fp1_build_gives_each_launcher_its_torpedo_rows():
    b = _duel(cls=GORN)
    st = b.state
    for mount in ("PL-A", "PL-B"):
        rows = st.w_plasma_rows[weapon(b, "rom", mount)]
        assert len(rows) == PLASMA_ROWS and (rows >= 0).all()
        assert (st.kind[rows] == UnitKind.PLASMA).all() and (st.status[rows] == Status.UNUSED).all()
    assert b.unit_ids[rows[0]] == "rom.PL-B.plasma-1"


def test_fp1_23_no_torpedo_armed_at_start_and_fp1_22_unarmed_launcher_refuses():
    b = _duel()
    run_to(b, 1, 1)
    w = weapon(b, "rom", "PL-A")
    assert not b.state.w_armed[w]
    (why,) = b.launch_blockers(w, [row(b, "fed")])
    assert why.startswith("FP1.22 the launcher holds no armed torpedo (plasma-S arms with 2+2+4")
    with pytest.raises(IllegalOrderError, match="FP1.22"):
        step(b, rom=dict(launch={"PL-A": "fed"}))


def test_fp1_22_launch_unarms_the_launcher():
    b = _duel()
    run_to(b, 1, 1)
    w = _arm(b)
    assert b.launch_blockers(w, [row(b, "fed")]) == [None]
    _launch(b)
    assert not b.state.w_armed[w]
    assert b.launch_blockers(w, [row(b, "fed")])[0].startswith("FP1.22")


def test_fp1_0_fp1_5_plasma_s_at_15_hexes_strikes_22_on_the_facing_shield():
    # 0516 -> 0501 straight up the column: 15 hexes; S warhead 11-15 = 22 (FP1.0)
    b = _duel()
    run_to(b, 1, 1)
    _arm(b)
    p = _launch(b)
    fed = row(b, "fed")
    assert b.state.facing[p] == b.state.facing[row(b, "rom")]  # (FP3.1) straight ahead
    while not of(b, "SeekingHit"):
        assert plasma.warhead(b, p) == tables.plasma_warhead("S", plasma.travelled(b, p))
        step(b)
    (hit,) = of(b, "SeekingHit")
    assert (hit.unit, hit.target, hit.warhead, hit.shield) == (b.unit_ids[p], "fed", 22, 1)
    assert plasma.travelled(b, p) == 15
    assert b.state.shields[fed, 0] == 0 and b.state.internal[fed] == 22 - 16  # (FP1.5) excess
    assert b.state.status[p] == Status.EXPENDED


def test_fp3_1_fixed_launcher_only_at_a_target_in_the_ships_fa():
    b = battle([unit("rom", ROM, "red", "0516", "A", 0),
                unit("ahead", FED, "blue", "0614", "D", 0),  # FA
                unit("beside", FED, "blue", "0815", "D", 0)])  # R, not FA
    run_to(b, 1, 1)
    w = _arm(b)
    ahead, beside = row(b, "ahead"), row(b, "beside")
    assert b.launch_blockers(w, [ahead, beside]) == [
        None, "FP3.1 a fixed launcher's target must be in the ship's FA"]


def test_gorn_plasma_f_launchers_take_targets_in_their_printed_arcs():
    # PL-A L+LF, PL-B RF+R (CTH-DATA §9.1, Gorn cadet SSD)
    b = battle([unit("rom", GORN, "red", "0516", "A", 0),
                unit("left", FED, "blue", "0416", "D", 0),
                unit("right", FED, "blue", "0716", "D", 0)])
    run_to(b, 1, 1)
    a, bb = _arm(b, "PL-A"), _arm(b, "PL-B")
    left, right = row(b, "left"), row(b, "right")
    outside = "FP3.0 the target is outside the launcher's printed arcs"
    assert b.launch_blockers(a, [left, right]) == [None, outside]
    assert b.launch_blockers(bb, [left, right]) == [outside, None]
    p = _launch(b, "PL-B", target="right")
    bits = hexmap.arc_bits_np(b.state.x[p], b.state.z[p], b.state.facing[p],
                              b.state.x[right], b.state.z[right])
    assert bits & hexmap.ARC_BITS["FA"]  # launched with its target in its FA (FD1.2 facing)


def test_fp1_3_first_move_straight_then_homing_turns():
    # target ahead-right (FA): a right turn (0615) would close faster than straight (0515)
    assert hexmap.distance("0615", "1013") < hexmap.distance("0515", "1013")
    b = _duel(fed_hex="1013", fed_facing="D")
    run_to(b, 1, 1)
    _arm(b)
    p = _launch(b)  # launched on impulse 1; the step runs impulse 2's movement
    pid = b.unit_ids[p]
    (first,) = of(b, "Moved", unit=pid)
    assert (first.src, first.dst, first.turned) == ("0516", "0515", 0)
    step(b)
    second = of(b, "Moved", unit=pid)[-1]
    assert second.turned == 1  # then it homes with turn mode 1 (F2.0)


def test_fp1_4_endurance_plasma_f_15_hexes_then_removed():
    b = battle([unit("rom", GORN, "red", "0116", "A", 0),
                unit("fed", FED, "blue", "2801", "E", 0)], turn_limit=6)
    run_to(b, 1, 1)
    w = weapon(b, "rom", "PL-B")
    b.state.w_armed[w] = True
    p = _launch(b, "PL-B")
    while b.state.status[p] == Status.ACTIVE:
        step(b)
    (gone,) = of(b, "Expired", unit=b.unit_ids[p])
    assert gone.reason == "FP1.4 endurance of 15 hexes ran out"
    assert len(of(b, "Moved", unit=b.unit_ids[p])) == 15
    assert not of(b, "SeekingHit")


def test_fp1_4_endurance_of_each_type():
    assert [tables.plasma_endurance(k) for k in "SFR"] == [25, 15, 30]


def test_fp1_6_phaser_points_weaken_the_torpedo_2_to_1_cumulatively():
    b = _duel()
    run_to(b, 1, 1)
    _arm(b)
    p = _launch(b)
    base = plasma.warhead(b, p)
    assert base == 30
    b.apply_damage(p, 0, 3)
    assert plasma.warhead(b, p) == 29  # floor(3 / 2)
    b.apply_damage(p, 0, 3)
    assert plasma.warhead(b, p) == 27  # floor(6 / 2): cumulative, not 1 + 1 (PROPOSAL)
    assert b.state.status[p] == Status.ACTIVE
    b.apply_damage(p, 0, 60)
    assert b.state.status[p] == Status.DESTROYED  # warhead 0: gone
    assert of(b, "Destroyed", unit=b.unit_ids[p])


def test_fp1_6_reduction_is_permanent_as_the_torpedo_flies():
    b = _duel()
    run_to(b, 1, 1)
    _arm(b)
    p = _launch(b)
    b.apply_damage(p, 0, 10)  # -5
    while not of(b, "SeekingHit"):
        step(b)
    assert of(b, "SeekingHit")[0].warhead == 22 - 5


def test_fp1_6_only_phasers_may_fire_at_a_plasma_torpedo():
    b = _duel(rom_hex="0516", fed_hex="0508")
    run_to(b, 2, 1)  # (Chief Engineer) photons fire from turn 2
    _arm(b)
    p = _launch(b)  # impulse 2: the torpedo is 7 hexes from the Federation ship, in its FA
    fed = row(b, "fed")
    photon, phaser = weapon(b, "fed", "PHOT-A"), weapon(b, "fed", "PH1-1")
    assert b.fire_blockers(photon, [p]) == ["FP1.6 only phasers may fire at a plasma torpedo"]
    assert b.fire_blockers(phaser, [p]) == [None]
    mask = fire_mask(b, np.array([photon, phaser]))
    assert not mask[0, p] and mask[1, p]
    with pytest.raises(IllegalOrderError, match="FP1.6"):
        b.step({fed: _fire(b, photon, p)})
    b.rng = Dice(1)  # Ph-1 at range 7, die 1: 5 points (E2.4 chart)
    expected = tables.phaser_damage("ph-1", 7, 1)
    b.step({fed: _fire(b, phaser, p)})
    assert b.state.damage[p] == expected
    assert plasma.warhead(b, p) == tables.plasma_warhead("S", 2) - expected // 2


def _fire(b, w, t):
    from sfb_env.engine import Orders

    return Orders(fire={w: t})


def test_fp1_3_launch_into_the_targets_hex_and_fp1_8_feedback():
    b = _duel(rom_hex="1008", fed_hex="1008", fed_facing="A")
    run_to(b, 1, 1)
    _arm(b)
    rom, fed = row(b, "rom"), row(b, "fed")
    before = b.state.shields[rom].sum()
    p = _launch(b)  # (FP1.3) allowed in the target's hex; on impulse 2 nobody moves and
    #   the torpedo strikes before the target moves
    (hit,) = of(b, "SeekingHit")
    assert hit.warhead == 30
    (fb,) = of(b, "PlasmaFeedback")
    assert (fb.unit, fb.torpedo, fb.points) == ("rom", b.unit_ids[p], 8)  # 30 / 4 = 7.5 -> 8
    assert before - b.state.shields[rom].sum() == 8
    assert b.state.damage[fed] == 30


def test_d4_42_torpedo_keeps_going_after_its_launcher_is_destroyed():
    b = _duel()
    run_to(b, 1, 1)
    _arm(b)
    p = _launch(b)
    b.state.status[row(b, "rom")] = Status.DESTROYED
    step(b)
    step(b)
    assert b.state.status[p] == Status.ACTIVE
    assert plasma.travelled(b, p) == 3
    assert len(of(b, "Moved", unit=b.unit_ids[p])) == 3


def test_fd1_3_a_drone_may_not_target_a_plasma_torpedo():
    b = battle([unit("rom", ROM, "red", "0516", "A", 0),
                unit("k", KLI, "blue", "0501", "D", 0)])
    run_to(b, 1, 1)
    _arm(b)
    p = _launch(b, target="k")
    rack = weapon(b, "k", "DRONE-1")
    run_to(b, 1, 4)
    assert b.launch_blockers(rack, [p]) == [
        "FD1.3 a drone may not target a plasma torpedo"]


def test_g23_81_plasma_is_not_an_esg_contact():
    b = battle([unit("rom", ROM, "red", "0516", "A", 0),
                unit("ly", "lyran-cadet", "blue", "0508", "D", 0)])
    run_to(b, 1, 1)
    _arm(b)
    p = _launch(b, target="ly")
    ly = row(b, "ly")
    # an operating field of radius 2 round the Lyran: the torpedo crosses it unharmed
    from sfb_env.engine.esg import EsgPhase
    g = int(b.esg_rows(ly)[0])
    st = b.state
    st.esg_phase[g], st.esg_radius[g], st.esg_strength[g] = int(EsgPhase.ACTIVE), 2, 10
    st.esg_activated_at[g] = st.absolute_impulse
    st.esg_stored[g] = 0
    while plasma.travelled(b, p) < 6:
        step(b)
    assert not of(b, "EsgStruck", target=b.unit_ids[p])
    assert b.state.damage[p] == 0 and b.state.status[p] == Status.ACTIVE


def test_house_rule_explosion_spares_plasma_torpedoes():
    # rules file 003 house rule: an explosion damages everything within 1 hex except plasma
    b = _duel(rom_hex="0516", fed_hex="0514", rules={"explosions": True})
    run_to(b, 1, 1)
    _arm(b)
    p = _launch(b)  # now in 0515, next to both ships
    rom = row(b, "rom")
    b.apply_damage(rom, 1, 500)  # the Romulan is destroyed and explodes
    assert b.state.status[rom] == Status.DESTROYED and of(b, "Exploded")
    assert b.state.damage[p] == 0 and b.state.status[p] == Status.ACTIVE
