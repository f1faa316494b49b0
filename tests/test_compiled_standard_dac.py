"""The standard (2d6) Damage Allocation Chart (D4.2-D4.4, CTH-DATA §10.3) in compiled code
(``compiled.std_dac``) against ``engine.damage`` / ``engine.dac``: the chart cell by cell, the
weapons' classes, shields and values, and volleys (single-shield and PPD pulses through
several shields) on full-size ships down to their destruction: the same dice, boxes, weapons
lost and events."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_phase_helpers import decoder

from sfb_env import tables
from sfb_env.compiled import damage, layout, parity, std_dac
from sfb_env.engine import dac
from sfb_env.engine import damage as ref_damage
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import ACTIVE, DESTROYED

# (CTH-DATA §10.3) the chart as printed; ``*`` marks a bold cell (D4.31); ``_`` a space.
# ruff: noqa: E501
CHART = """
 2 Bridge* FlagBridge* Sensor* DamCon* A_Hull* L_Warp Trans Tractor Shuttle Lab F_Hull R_Warp Excess
 3 Drone* Phaser* Impulse L_Warp R_Warp A_Hull Shuttle DamCon* C_Warp Lab Battery Phaser Excess
 4 Phaser* Trans* R_Warp Impulse F_Hull A_Hull L_Warp APR Lab Trans Probe C_Warp Excess
 5 R_Warp* A_Hull Cargo Battery Shuttle Torp* L_Warp Impulse R_Warp Tractor Probe Any_Weapon Excess
 6 F_Hull Impulse Lab L_Warp Sensor* Tractor Shuttle R_Warp Phaser Trans Battery Any_Weapon Excess
 7 Cargo F_Hull Battery C_Warp Shuttle APR Lab Phaser Any_Warp Probe A_Hull Any_Weapon Excess
 8 A_Hull APR Shuttle R_Warp Scanner* Tractor Lab L_Warp Phaser Trans Battery Any_Weapon Excess
 9 L_Warp* F_Hull Cargo Battery Lab Drone* R_Warp Impulse L_Warp Tractor Probe Any_Weapon Excess
10 Phaser* Tractor* L_Warp Impulse A_Hull F_Hull R_Warp APR Lab Trans Probe C_Warp Excess
11 Torp* Phaser* Impulse R_Warp L_Warp F_Hull Tractor DamCon* C_Warp Lab Battery Phaser Excess
12 AuxControl* EmerBridge* Scanner* Probe* F_Hull* R_Warp Trans Shuttle Tractor Lab A_Hull L_Warp Excess
"""

# Full-size ships under the Chief Engineer (the standard form, lock-on and the cloak are not
# this test's): the D7 and Fed CA (tracks, flag bridge as security, mirrored hulls), the Gorn
# CA (F/R hull falling to C hull), the ISC (PPD as "Drone"), the War Eagle (armor, D4.12), the
# Orion (cargo, Ph-1 and Ph-3: D4.322), the Lyran (flag bridge, ESG) and the KR (Ph-1, Ph-2).
FULL = {name: parity.variant(name, rules={"energy": "chief", "lock_on": False, "cloak": "none"})
        for name in ("cth-07", "duel-full-gorn-vs-klingon", "grad-isc-full-vs-klingon",
                     "duel-full-romulan-vs-federation", "duel-full-orion-vs-klingon",
                     "grad-lyran-full-vs-klingon", "duel-full-romulan-kr-vs-klingon")}


def _tables(scenario):
    battle = make_battle(load_scenario(scenario))
    return battle, damage.fire_tables(battle.setup)


def test_standard_dac_chart_follows_cth_data_cell_by_cell():
    """(D4.21, CTH-DATA §10.3) Every cell of the compiled chart names the printed system, and
    exactly the printed bold cells carry a bold bit (D4.31), each its own."""
    _, ft = _tables(FULL["cth-07"])
    names = tables.standard_dac_chart()[2]
    bits = set()
    for line in CHART.strip().splitlines():
        roll, *cells = line.split()
        assert len(cells) == 13
        for col, cell in enumerate(cells):
            row = int(roll) - 2
            assert names[ft.dac_chart[row, col]] == cell.rstrip("*").replace("_", " "), (roll,
                                                                                      col)
            bold = ft.dac_bold[row, col]
            assert (bold >= 0) == cell.endswith("*"), (roll, col)
            if bold >= 0:
                bits.add(int(bold))
    assert len(bits) == int((ft.dac_bold >= 0).sum())  # (D4.31) judged by cell


def test_standard_dac_systems_boxes_and_weapon_classes():
    """Each system takes the boxes of ``dac.SYSTEM_BOXES`` in order (D4.351 hulls, D4.352
    warp, D4.354 flag bridge), each weapon system the classes of ``dac.WEAPON_SYSTEMS``
    (D4.321-D4.324); the last sensor, scanner and damage-control box is kept (D4.33)."""
    _, ft = _tables(FULL["cth-07"])
    names = tables.standard_dac_chart()[2]
    for i, name in enumerate(names):
        if name in dac.WEAPON_SYSTEMS:
            want = sum(std_dac.CLASS_BIT[c] for c in dac.WEAPON_SYSTEMS[name])
            assert ft.dac_sys_weapon[i] == want and (ft.dac_sys_boxes[i] < 0).all()
        else:
            assert ft.dac_sys_weapon[i] == 0
            assert [dac.DacBox(b) for b in ft.dac_sys_boxes[i] if b >= 0] == list(
                dac.SYSTEM_BOXES[name])
    assert {dac.DacBox(b) for b in np.flatnonzero(ft.dac_keep_last)} == set(dac.KEEP_LAST_BOX)
    for box, coarse in ref_damage.DAC_TO_BOX.items():
        assert ft.dac_to_box[int(box)] == int(coarse)


@pytest.mark.parametrize("name", sorted(FULL))
def test_standard_dac_weapon_tables_follow_the_ship_boxes(name):
    """Per weapon row: the DAC class (D4.321-D4.324), the shields a phaser fires through
    (D4.321), the owner's value [P-041] and the phaser rank (D4.322) of ``dac.ship_boxes``;
    the units on the standard DAC are the full-size ships."""
    battle, ft = _tables(FULL[name])
    for u, ship in enumerate(battle.ship_classes):
        on = ship is not None and ship.freighter is None and ship.kind != "cadet"
        assert bool(ft.dac_unit[u]) == on
        if not on:
            continue
        for w, box in zip(battle.weapons_of(u), battle.dac_weapons[u], strict=True):
            assert ft.w_dac_class[w] == std_dac.CLASS_BIT[box.dac_class]
            assert {s for s in range(1, 7) if ft.w_dac_shields[w] >> s & 1} == set(box.shields)
            assert ft.w_dac_value[w] == box.owner_value
            assert ft.w_phaser_rank[w] == dac.PHASER_RANK.get(box.type, 0)


def _volleys(scenario, seeds, split_share, max_points, seen):
    rng = np.random.default_rng(7)
    for seed in seeds:
        ref = make_battle(load_scenario(scenario), seed=seed)
        s = layout.pack([ref.copy().state])
        ft = damage.fire_tables(ref.setup)
        view = damage.view_of(s)
        dec = decoder(ref)
        ships = [u for u in range(len(ref.unit_ids)) if ref.ship_classes[u] is not None]
        for n in range(2000):
            alive = [u for u in ships if ref.state.status[u] == ACTIVE]
            if not alive:
                break
            u = alive[n % len(alive)]
            n0 = len(ref.events)
            s.ev_count[0] = 0
            if rng.random() < split_share:  # a PPD pulse over two or three shields (E11.332)
                first = int(rng.integers(1, 7))
                split = {(first + k - 1) % 6 + 1: int(rng.integers(1, max_points))
                         for k in range(int(rng.integers(2, 4)))}
                ref_damage.apply_split_volley(ref, u, split)
                arr = np.zeros(7, dtype=np.int64)
                for sh, p in split.items():
                    arr[sh] = p
                damage.apply_split_volley_a(view, ft, 0, u, arr, -1)
                what = ("split", split)
            else:
                shield, points = int(rng.integers(0, 7)), int(rng.integers(1, max_points))
                ref.apply_damage(u, shield, points)
                damage.apply_damage_a(damage.view_of(s), ft, 0, u, shield, points)
                what = (shield, points)
            assert layout.differences(s, 0, ref.state) == [], (seed, n, u, what)
            want = ref.events[n0:]
            assert dec.decode(s.ev[0, :s.ev_count[0]]) == want, (seed, n, u, what)
            for e in want:
                if e.kind == "Damaged":
                    for box in e.boxes:
                        key = "weapon" if "." in box or "-" in box else box
                        seen[key] = seen.get(key, 0) + 1
                seen["destroyed"] = seen.get("destroyed", 0) + (e.kind == "Destroyed")
        assert all(ref.state.status[u] == DESTROYED for u in ships)


@pytest.mark.parametrize("name", sorted(FULL))
def test_standard_dac_volleys_match_the_reference_down_to_destruction(name):
    """Volleys of 1 to 24 points on random shields (0: none) and PPD-like pulses over two or
    three shields, on each ship alternately, until both are destroyed: after each volley the
    state (``dac_boxes``, ``boxes``, ``w_destroyed``, shields), the dice and the decoded
    events equal the reference's (D4.2-D4.4, D4.12 armor, D4.31 bold cells, D4.321-D4.322
    phasers, D4.33 tracks, D4.351 hulls, D4.352 warp, D4.354 flag bridge, D4.4 Excess)."""
    seen: dict[str, int] = {}
    _volleys(FULL[name], (0, 1), 0.3, 25, seen)
    assert seen.get("destroyed", 0) >= 4 and seen.get("weapon", 0) > 0, seen
    assert seen.get("excess", 0) > 0, seen


def test_standard_dac_reaches_every_box_kind():
    """Across the ships above, the volleys destroy every kind of box the chart names (the
    tracks down to their kept last box, D4.33), armor (D4.12) included."""
    seen: dict[str, int] = {}
    have: set[str] = set()
    for name in sorted(FULL):
        battle, _ = _tables(FULL[name])
        have |= {dac.DacBox(k).name.lower() for k in np.flatnonzero(battle.state.dac_boxes.sum(0))}
        _volleys(FULL[name], (2,), 0.2, 13, seen)
    assert {"armor", "cargo", "c_hull", "flag_bridge", "security", "sensor"} <= have
    assert have <= set(seen), sorted(have - set(seen))


def test_cadet_ships_keep_the_cadet_dac_under_standard_dac():
    """(SCENARIOS #12) A cadet ship in a ``standard_dac`` battle takes the cadet DAC: the
    compiled volleys equal the reference's down to destruction."""
    scenario = parity.variant("duel-klingon-vs-federation", rules={"damage": "standard_dac"},
                              impulses_per_turn=16)
    _, ft = _tables(scenario)
    assert not ft.dac_unit.any()
    seen: dict[str, int] = {}
    _volleys(scenario, (0,), 0.0, 13, seen)
    assert seen.get("destroyed", 0) == 2, seen
