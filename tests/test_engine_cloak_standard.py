"""The standard cloak rule (G13 standard rule, CTH-DATA §8.2; ``rules.cloak: standard``): the
turn-to-turn cost at Energy Allocation, announcements during the turn (Cloak/Uncloak step), the
4-impulse fade-out (+1..+4 range, lock-on kept), full cloak (lock-on lost, 2 x true + 5), the
fade-in (+4..+1, lock-on regained at the announcement) and no fire while cloaked or fading."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import of, row, scenario, unit, weapon

from sfb_env.engine import IllegalOrderError, Orders, cloak, energy, make_battle
from sfb_env.engine.direct_fire import fire_mask


def std(units, **rules):
    """A 32-impulse battle on the standard form, the standard DAC and the standard cloak."""
    doc = scenario(units, rules={"energy": "standard", "damage": "standard_dac",
                                 "cloak": "standard", **rules})
    doc["impulses_per_turn"] = 32
    return make_battle(doc, seed=0)


def duel(enemy="fed-ca", **rules):
    """War Eagle (agent, 0510 facing A) with the enemy 3 hexes ahead (0507 facing D), both
    stationary agents."""
    return std([unit("rom", "romulan-war-eagle", "red", "0510", "A", 0),
                unit("foe", enemy, "blue", "0507", "D", 0)], **rules)


def go(b, rom_cloak: bool = False, turns: int = 0, impulse: int = 1, bare: bool = False) -> None:
    """Step to (current turn + turns, impulse); the War Eagle orders ``cloak`` at each Energy
    Allocation met on the way (``bare``: and nothing else, no capacitor, arming or recharge)."""
    st = b.state
    target = (st.turn + turns if st.impulse else 1 + turns, impulse)
    rom, enemy = row(b, "rom"), row(b, "foe")
    while (st.turn, st.impulse) != target:
        energy_time = st.impulse in (0, st.impulses_per_turn)
        extra = dict(capacitor=0, recharge=0, arm={int(w): 0 for w in energy.heavy_rows(b, rom)})
        order = Orders(speed=0, cloak=rom_cloak, **(extra if bare else {}))
        b.step({rom: order if energy_time else Orders(),
                enemy: Orders(speed=0) if energy_time else Orders()})


def test_g13_standard_cost_paid_at_energy_allocation_turn_to_turn():
    b = duel()
    rom = row(b, "rom")
    go(b, rom_cloak=True, bare=True)
    used = [e for e in b.events if e.kind == "EnergyAllocated" and e.unit == "rom"][-1].used
    assert b.state.cloaked[rom] and not b.state.cloaked_before[rom]
    go(b, rom_cloak=False, turns=1, bare=True)  # not paying after a cloaked turn: fade-in
    used_after = [e for e in b.events if e.kind == "EnergyAllocated" and e.unit == "rom"][-1].used
    assert used - used_after == 6  # (CTH-DATA §8.2) the War Eagle's cloak costs 6
    assert not b.state.cloaked[rom] and b.state.cloaked_before[rom]


def test_g13_standard_fade_out_adds_1_to_4_then_2x_true_plus_5():
    b = duel()
    rom, foe = row(b, "rom"), row(b, "foe")
    seen = []
    go(b, rom_cloak=True)
    for i in range(1, 7):
        assert b.state.impulse == i
        seen.append(cloak.effective_range(b, rom, 3, foe))
        b.step({})
    assert seen == [4, 5, 6, 7, 11, 11]  # true range 3: +1..+4, then 2 x 3 + 5


def test_g13_standard_fire_during_fade_out_uses_the_faded_range():
    b = duel()
    rom, foe = row(b, "rom"), row(b, "foe")
    phaser = weapon(b, "foe", "PH1-1")
    go(b, rom_cloak=True, impulse=2)
    b.step({foe: Orders(fire={phaser: rom})})
    (shot,) = of(b, "Fired")
    assert (shot.impulse, shot.range, shot.effective_range) == (2, 3, 5)


def test_g13_standard_fade_in_adds_4_to_1():
    b = duel()
    rom, foe = row(b, "rom"), row(b, "foe")
    go(b, rom_cloak=True, impulse=32)
    assert cloak.effective_range(b, rom, 3, foe) == 11
    go(b, rom_cloak=False, turns=1, impulse=1)
    seen = []
    for i in range(1, 7):
        assert b.state.impulse == i
        seen.append(cloak.effective_range(b, rom, 3, foe))
        b.step({})
    assert seen == [7, 6, 5, 4, 3, 3]


def test_g13_standard_cloaked_all_turn_after_a_cloaked_turn():
    b = duel()
    rom, foe = row(b, "rom"), row(b, "foe")
    go(b, rom_cloak=True, impulse=32)
    go(b, rom_cloak=True, turns=1, impulse=1)
    assert cloak.fully_cloaked(b, rom)
    assert cloak.effective_range(b, rom, 3, foe) == 11  # no fade: cloaked since last turn


def test_g13_standard_no_fire_while_fading_out_cloaked_or_fading_in():
    b = duel()
    rom, foe = row(b, "rom"), row(b, "foe")
    phaser = weapon(b, "rom", "PH1-1")
    out_rule = "G13 no fire or launch while cloaked or fading out"
    in_rule = "G13 no fire or launch while fading in (4 impulses from the announcement)"
    go(b, rom_cloak=True)
    for _ in range(4):  # fade-out
        assert b.fire_blockers(phaser, [foe]) == [out_rule]
        b.step({})
    go(b, rom_cloak=True, impulse=20)  # fully cloaked
    assert b.fire_blockers(phaser, [foe]) == [out_rule]
    assert not fire_mask(b, np.array([phaser])).any()
    with pytest.raises(IllegalOrderError, match="G13"):
        b.step({rom: Orders(fire={phaser: foe})})
    go(b, rom_cloak=False, turns=1, impulse=1)
    for _ in range(4):  # fade-in
        assert b.fire_blockers(phaser, [foe]) == [in_rule]
        b.step({})
    assert b.state.impulse == 5
    assert b.fire_blockers(phaser, [foe]) == [None]


def test_g13_standard_no_plasma_launch_while_fading():
    b = duel()
    foe = row(b, "foe")
    launcher = weapon(b, "rom", "PL-A")
    go(b, rom_cloak=True)
    b.state.w_armed[launcher] = True  # a loaded torpedo (set directly)
    assert b.launch_blockers(launcher, [foe]) == [
        "G13 no fire or launch while cloaked or fading out"]


def test_g13_standard_lock_on_kept_in_fade_out_lost_when_fully_cloaked():
    # a D7's drone may be launched at the War Eagle while it fades out, not once it is cloaked
    b = duel(enemy="klingon-d7", lock_on=True)
    rom = row(b, "rom")
    rack = weapon(b, "foe", "DRONE-1")
    go(b, rom_cloak=True, impulse=4)
    assert not cloak.fully_cloaked(b, rom)
    assert b.launch_blockers(rack, [rom]) == [None]
    b.step({})
    assert cloak.fully_cloaked(b, rom)
    assert b.launch_blockers(rack, [rom]) == ["D6 no lock-on to a cloaked ship: no launch at it"]


def test_g13_standard_lock_on_regained_at_the_uncloak_announcement():
    b = duel(enemy="klingon-d7", lock_on=True)
    rom = row(b, "rom")
    rack = weapon(b, "foe", "DRONE-1")
    go(b, rom_cloak=True, impulse=32)
    assert b.launch_blockers(rack, [rom]) == ["D6 no lock-on to a cloaked ship: no launch at it"]
    go(b, rom_cloak=False, turns=1, impulse=1)  # fade-in announced on impulse 1
    assert b.launch_blockers(rack, [rom]) == [None]


def test_g13_standard_seeking_weapon_strikes_a_fading_ship_in_full():
    # the cadet die (1-4 misses) is for a fully cloaked ship; in the fade-out lock-on holds
    b = duel()
    rom = row(b, "rom")
    go(b, rom_cloak=True)
    assert cloak.seeking_impact(b, rom, rom, 12) == 12


def test_g13_cadet_rule_unchanged_by_the_standard_rule():
    b = duel(cloak="cadet")
    rom, foe = row(b, "rom"), row(b, "foe")
    go(b, rom_cloak=True)
    assert cloak.effective_range(b, rom, 3, foe) == 11  # whole turn, no fade
    assert cloak.fade_range(b, rom) == 0


# ----------------------------------------------------------------------------- during the turn


def cloaked_duel(**rules):
    """The War Eagle cloaked since turn 1, cost paid again for turn 2, at turn 2 impulse 10."""
    b = duel(**rules)
    go(b, rom_cloak=True, impulse=32)
    go(b, rom_cloak=True, turns=1, impulse=10)
    return b


def test_g13_standard_uncloak_announced_mid_turn_fades_in_over_4_impulses():
    b = cloaked_duel()
    rom, foe = row(b, "rom"), row(b, "foe")
    phaser = weapon(b, "rom", "PH1-1")
    assert cloak.effective_range(b, rom, 3, foe) == 11
    b.step({rom: Orders(cloak=True)})  # announced in impulse 10's Cloak/Uncloak step
    (announced,) = of(b, "CloakAnnounced", turn=2)
    assert (announced.impulse, announced.cloaking) == (10, False)
    seen, blocked = [], []
    for _ in range(5):  # impulses 11..15 (impulse 10's fire already passed)
        seen.append(cloak.effective_range(b, rom, 3, foe))
        blocked.append(b.fire_blockers(phaser, [foe])[0] is not None)
        b.step({})
    assert seen == [6, 5, 4, 3, 3]  # +4 on 10, then +3, +2, +1 on 11..13
    assert blocked == [True, True, True, False, False]


def test_g13_standard_no_fire_on_the_uncloak_announcement_impulse():
    # the announcement impulse is the first fade-in impulse: no fire with the uncloak order
    b = cloaked_duel()
    rom, foe = row(b, "rom"), row(b, "foe")
    phaser = weapon(b, "rom", "PH1-1")
    assert energy.cloak_blockers(b, rom) == {}
    with pytest.raises(IllegalOrderError, match="G13 no fire or launch while cloaked"):
        b.step({rom: Orders(cloak=True, fire={phaser: foe})})


def test_g13_standard_lock_on_regained_at_a_mid_turn_uncloak():
    b = cloaked_duel(enemy="klingon-d7", lock_on=True)
    rom = row(b, "rom")
    rack = weapon(b, "foe", "DRONE-1")
    assert b.launch_blockers(rack, [rom]) == ["D6 no lock-on to a cloaked ship: no launch at it"]
    b.step({rom: Orders(cloak=True)})
    assert b.launch_blockers(rack, [rom]) == [None]  # fading in: lock-on regained


def test_g13_standard_no_announcement_while_fading():
    b = cloaked_duel()
    rom = row(b, "rom")
    b.step({rom: Orders(cloak=True)})
    rule = "G13 a fade-out or fade-in is in progress (4 impulses; PROPOSAL)"
    assert energy.cloak_blockers(b, rom) == {1: rule}
    with pytest.raises(IllegalOrderError, match="fade-out or fade-in is in progress"):
        b.step({rom: Orders(cloak=True)})


def test_g13_standard_recloak_mid_turn_when_paid_fades_out_again():
    b = cloaked_duel()
    rom, foe = row(b, "rom"), row(b, "foe")
    b.step({rom: Orders(cloak=True)})  # uncloak announced on impulse 10
    go(b, impulse=20)
    assert energy.cloak_blockers(b, rom) == {}  # paid this turn: may cloak again
    b.step({rom: Orders(cloak=True)})  # cloak announced on impulse 20
    seen = []
    for _ in range(4):  # impulses 21..24
        seen.append(cloak.effective_range(b, rom, 3, foe))
        b.step({})
    assert seen == [5, 6, 7, 11]  # +2, +3, +4 on 21..23, fully cloaked from 24


def test_g13_standard_no_mid_turn_cloak_without_the_cost_paid():
    b = duel()
    rom = row(b, "rom")
    go(b, rom_cloak=False, impulse=10)
    assert energy.cloak_blockers(b, rom) == {
        1: "G13 the cloak was not paid at Energy Allocation this turn"}
    with pytest.raises(IllegalOrderError, match="not paid"):
        b.step({rom: Orders(cloak=True)})


def test_g13_standard_fade_in_runs_across_the_turn_break():
    # uncloak announced on impulse 30: fade-in 30, 31, 32 and impulse 1 of the next turn
    b = cloaked_duel()
    rom, foe = row(b, "rom"), row(b, "foe")
    go(b, impulse=30)
    b.step({rom: Orders(cloak=True)})
    go(b, rom_cloak=False, turns=1, impulse=1)
    assert cloak.effective_range(b, rom, 3, foe) == 4  # +1 on the 4th fade impulse
    assert b.fire_blockers(weapon(b, "rom", "PH1-1"), [foe])[0].startswith("G13")
    b.step({})
    assert cloak.effective_range(b, rom, 3, foe) == 3
