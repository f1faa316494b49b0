"""Engine cadet cloak effects (G13.0 cadet rule, CTH-DATA §8.2): no fire or launch while cloaked
or on the first impulse after, effective range 2 x true + 5, and the die roll of a seeking
weapon entering a cloaked ship's hex. The flags are set directly (Energy Allocation sets them
in play)."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import Dice, battle, of, row, run_to, step, unit, weapon

from sfb_env.engine import IllegalOrderError, Orders, Status
from sfb_env.engine.direct_fire import fire_mask

ROM = "romulan-cadet"
FED = "fed-cadet"
KLI = "klingon-cadet"


def _pair(rom_hex="0510", fed_hex="0507", **kw):
    # Romulan facing A (north) with the Federation ship straight ahead, facing it (D)
    return battle([unit("rom", ROM, "red", rom_hex, "A", 0),
                   unit("fed", FED, "blue", fed_hex, "D", 0)], **kw)


def test_g13_cloaked_ship_cannot_fire_or_launch():
    b = _pair()
    run_to(b, 1, 1)
    rom, fed = row(b, "rom"), row(b, "fed")
    phaser, launcher = weapon(b, "rom", "PH1-1"), weapon(b, "rom", "PL-A")
    b.state.w_armed[launcher] = True
    assert b.fire_blockers(phaser, [fed]) == [None]
    assert b.launch_blockers(launcher, [fed]) == [None]
    b.state.cloaked[rom] = True
    rule = "G13 a cloaked ship cannot fire or launch"
    assert b.fire_blockers(phaser, [fed]) == [rule]
    assert b.launch_blockers(launcher, [fed]) == [rule]
    assert not fire_mask(b, np.array([phaser])).any()
    with pytest.raises(IllegalOrderError, match="G13"):
        b.step({rom: Orders(fire={phaser: fed})})
    with pytest.raises(IllegalOrderError, match="G13"):
        b.step({rom: Orders(launch={launcher: fed})})


def test_g13_cloaked_drone_ship_cannot_launch_drones():
    b = battle([unit("k", KLI, "red", "0510", "A", 0), unit("fed", FED, "blue", "0505", "D", 0)])
    run_to(b, 1, 1)
    k, fed = row(b, "k"), row(b, "fed")
    rack = weapon(b, "k", "DRONE-1")
    assert b.launch_blockers(rack, [fed]) == [None]
    b.state.cloaked[k] = True
    assert b.launch_blockers(rack, [fed]) == ["G13 a cloaked ship cannot fire or launch"]


def test_g13_no_fire_on_the_first_impulse_after_being_cloaked():
    b = _pair()
    rom, fed = row(b, "rom"), row(b, "fed")
    phaser = weapon(b, "rom", "PH1-1")
    b.state.cloaked_before[rom] = True  # cloaked last turn, not this one
    run_to(b, 1, 1)
    rule = "G13 no fire or launch on the first impulse of a turn after being cloaked"
    assert b.fire_blockers(phaser, [fed]) == [rule]
    step(b)
    assert (b.state.turn, b.state.impulse) == (1, 2)
    assert b.fire_blockers(phaser, [fed]) == [None]


def test_g13_fire_at_a_cloaked_ship_uses_effective_range_2x_plus_5():
    b = _pair()  # true range 3 -> effective 11
    run_to(b, 1, 1)
    rom, fed = row(b, "rom"), row(b, "fed")
    b.state.cloaked[rom] = True
    phaser = weapon(b, "fed", "PH1-1")
    b.rng = Dice(1)
    b.step({fed: Orders(fire={phaser: rom})})
    (shot,) = of(b, "Fired", unit="fed")
    assert (shot.range, shot.effective_range) == (3, 11)
    from sfb_env import tables
    assert shot.damage == tables.phaser_damage("ph-1", 11, 1)


def test_g13_effective_range_beyond_the_chart_closes_the_mask():
    # photons reach 30: at true range 13 a cloaked ship is at effective 31 (PROPOSAL: no shot)
    b = _pair(rom_hex="0516", fed_hex="0503")
    run_to(b, 2, 1)  # (Chief Engineer) photons fire from turn 2
    rom = row(b, "rom")
    photon = weapon(b, "fed", "PHOT-A")
    assert b.fire_blockers(photon, [rom]) == [None]
    b.state.cloaked[rom] = True
    (why,) = b.fire_blockers(photon, [rom])
    assert why.startswith("G13 effective range 31 (2 x 13 + 5")
    assert not fire_mask(b, np.array([photon]))[0, rom]


def _drone_at(target_cls="romulan-cadet", **rules):
    # a drone one hex from its stationary target, flying straight at it
    return battle([unit("rom", target_cls, "red", "0510", "A", 0),
                   unit("fed", FED, "blue", "0505", "D", 0),
                   unit("drone", "drone", "blue", "0509", "D", 8, "robot-drone", "rom")],
                  rules=rules or None)


def test_g13_drone_entering_a_cloaked_ships_hex_misses_on_1_to_4():
    b = _drone_at()
    rom = row(b, "rom")
    b.state.cloaked[rom] = True
    b.rng = Dice(4)
    run_to(b, 1, 1)
    (evaded,) = of(b, "CloakEvaded")
    assert (evaded.unit, evaded.target, evaded.die) == ("drone", "rom", 4)
    assert b.state.status[row(b, "drone")] == Status.EXPENDED
    assert b.state.damage[rom] == 0 and not of(b, "SeekingHit")


def test_g13_drone_entering_a_cloaked_ships_hex_strikes_for_half_on_5_or_6():
    b = _drone_at(drone_warhead=5)
    rom = row(b, "rom")
    b.state.cloaked[rom] = True
    b.rng = Dice(5)
    run_to(b, 1, 1)
    (hit,) = of(b, "SeekingHit")
    assert hit.warhead == 3  # 5 / 2 = 2.5 rounds up (PROPOSAL, CTH-DATA §8.2)
    assert b.state.damage[rom] == 3


def test_g13_uncloaked_target_rolls_no_die():
    b = _drone_at()
    b.rng = Dice()  # any roll would fail the test
    run_to(b, 1, 1)
    assert of(b, "SeekingHit")[0].warhead == 6


def test_g13_plasma_torpedo_at_a_cloaked_ship_rolls_too():
    b = battle([unit("rom", ROM, "red", "0516", "A", 0),
                unit("kr", "romulan-kr-cadet", "blue", "0514", "D", 0)])
    run_to(b, 1, 1)
    w = weapon(b, "rom", "PL-A")
    b.state.w_armed[w] = True
    step(b, rom=dict(launch={"PL-A": "kr"}))
    kr = row(b, "kr")
    b.state.cloaked[kr] = True
    b.rng = Dice(6)
    step(b)
    step(b)  # two hexes: warhead 30, half = 15
    (hit,) = of(b, "SeekingHit")
    assert hit.warhead == 15 and b.state.damage[kr] == 15
