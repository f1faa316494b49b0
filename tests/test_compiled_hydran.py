"""The Hydran Cadet Cruiser's weapons in the compiled core (tier 2): fusion beams (E7) and the
phaser-G with its shots 2..4 (E2.15), against the reference engine.

CI (small kernels, compiled in seconds): the fusion and phaser-G damage of ``compiled.fire``'s
scorer cell by cell (every range and die, ship and drone targets) against
``engine.direct_fire._score`` and the printed charts; the phaser-G's clock (``gatling_open``,
``_record_gatling``) against ``engine.phaser_g`` over long random firing sequences at 8, 16 and
32 impulses; the fusion beam's readiness against ``direct_fire.weapon_ready_blocker``.
Slow (they compile their own kernel variants): Fire Direct-Fire on reachable states of the
Hydran duels, and the observation, the masks of the ``gatling[g].shot{k}`` components and the
decoded orders decision point by decision point. The whole-step lockstep parity of the Hydran
duels is in ``tests/test_compiled_parity.py``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from compiled_phase_helpers import VARIANTS, run_parity, snapshots

import sfb_env
from sfb_env import tables
from sfb_env.compiled import damage, fire, observe
from sfb_env.engine import direct_fire, fusion, phaser_g, procedure
from sfb_env.engine.types import K_DRONE, NEVER, WeaponType
from sfb_env.impulse import absolute_impulse, quarter_turn

_FUSION, _PHG = int(WeaponType.FUSION), int(WeaponType.PHG)


def _battle(name: str = "hydran-vs-klingon"):
    return sfb_env.parallel_env(VARIANTS[name], backend="reference").battle


def _weapon(battle, kind: int) -> int:
    return int(np.flatnonzero(battle.state.w_type == kind)[0])


def _score_both(battle, ft, kind: int, target: int, rng: int, die: int):
    """(compiled, reference) ``_score`` of one shot of ``kind`` at ``target``."""
    st = battle.state
    w = _weapon(battle, kind)
    max_range = int(st.w_max_range[w])
    mine = fire._score(st.cloaked[None, :].copy(), st.kind[None, :].copy(), ft, 0, kind,
                       target, rng, die, max_range)
    ref = direct_fire._score(battle, WeaponType(kind), target, rng, die, max_range,
                             int(st.w_owner[w]))
    return tuple(int(v) for v in mine), tuple(int(v) for v in ref)


def test_e7_32_fusion_damage_by_range_cell_by_cell_matches_the_chart():
    battle = _battle()
    ft = damage.fire_tables(battle.setup)
    target = battle.unit_index["klingon-cadet"]
    chart = tables.fusion_chart()
    assert chart.shape == (6, 25)
    for rng in range(chart.shape[1]):
        for die in range(1, 7):
            mine, ref = _score_both(battle, ft, _FUSION, target, rng, die)
            assert mine == ref == (chart[die - 1, rng], chart[die - 1, rng] > 0, rng), (rng, die)
            assert mine[0] == fusion.damage(rng, die)


@pytest.mark.parametrize("modifier", [True, False])
def test_e7_32_fusion_at_a_drone_reads_the_modified_roll_fd1_52(modifier):
    """Against a drone the roll carries +2 (FD1.52) where the rule is on; rolls 7 and 8 read
    the die-6 row one and two brackets further out (PROPOSAL [P-055])."""
    battle = _battle()
    battle.rules = dataclasses.replace(battle.rules, drone_die_modifier=modifier)
    target = battle.unit_index["klingon-cadet"]
    battle.state.kind[target] = K_DRONE
    ft = damage.fire_tables(battle.setup)._replace(drone_die_modifier=modifier)
    for rng in range(25):
        for die in range(1, 7):
            mine, ref = _score_both(battle, ft, _FUSION, target, rng, die)
            assert mine == ref, (rng, die)
            roll = die + 2 if modifier else die
            assert mine[0] == direct_fire.fusion_damage(rng, roll)


def test_e2_152_phaser_g_damage_cell_by_cell_is_the_phaser_3_chart():
    battle = _battle()
    ft = damage.fire_tables(battle.setup)
    target = battle.unit_index["klingon-cadet"]
    chart = tables.phaser_chart("ph-g")
    assert np.array_equal(chart, tables.phaser_chart("ph-3")[:, :chart.shape[1]])
    for rng in range(chart.shape[1]):
        for die in range(1, 7):
            mine, ref = _score_both(battle, ft, _PHG, target, rng, die)
            assert mine == ref and mine[0] == chart[die - 1, rng] == phaser_g.damage(rng, die)


def test_fire_tables_carry_the_fusion_rows_of_every_roll():
    ft = damage.fire_tables(_battle().setup)
    for roll in range(1, 9):
        for rng in range(25):
            assert ft.fusion_dmg[roll - 1, rng] == direct_fire.fusion_damage(rng, roll)
    assert ft.gatling_after == len(_battle().setup.weapon_ids)  # no robot units: last


@pytest.mark.parametrize("ipt", [8, 16, 32])
def test_e2_151_phaser_g_shots_per_turn_and_quarter_turn_match_the_resolver(ipt):
    """Random firing over 40 turns: before each impulse's shots the compiled clock opens shot
    k = 1..4 exactly where ``phaser_g.can_fire`` does (four a turn, four in any quarter turn
    across the turn break), and after them the shot record is ``resolve_fire``'s (pruned, the
    last four, right-aligned after ``NEVER``)."""
    rng = np.random.default_rng(ipt)
    qt = quarter_turn(ipt)
    record = np.full((1, 1, 4), NEVER, np.int64)
    gun = phaser_g.new_phaser_g(ipt)
    fired = 0
    for turn in range(1, 41):
        for imp in range(1, ipt + 1):
            opened = [bool(fire.gatling_open(record, 0, 0, turn, imp, ipt, qt, k))
                      for k in range(1, 5)]
            want = [phaser_g.can_fire(gun, turn, imp, k)[0] for k in range(1, 5)]
            assert opened == want, (turn, imp, opened, want)
            if rng.random() < 0.6:
                continue
            for _ in range(int(rng.integers(0, sum(want) + 1))):
                gun = phaser_g.fire(gun, turn, imp)
                now = absolute_impulse(turn, imp, ipt)
                fire._record_gatling(record, 0, 0, turn, ipt, qt, now)
                recent = gun.shots[-4:]
                assert record[0, 0].tolist() == [NEVER] * (4 - len(recent)) + list(recent)
                fired += 1
    assert fired > 100


def test_e7_22_fusion_readiness_matches_the_reference():
    """Fired this turn (E1.5), cooling the next (E7.22), armed again by the Chief Engineer the
    turn after (E7.21); never fired: ready from turn 1."""
    battle = _battle()
    st = battle.state
    w = _weapon(battle, _FUSION)
    for turn in range(1, 6):
        for fired_turn in range(0, turn + 1):
            st.turn, st.impulse = turn, 3
            st.w_fired_turn[w] = fired_turn
            s = _packed(battle)
            mine = bool(observe.weapon_ready(s, _tables(battle), 0, w))
            ref = direct_fire.weapon_ready_blocker(battle, w) is None
            assert mine == ref == (fired_turn not in (turn, turn - 1) or fired_turn == 0), (
                turn, fired_turn)


def _packed(battle):
    from sfb_env.compiled import layout

    return observe.state_view(layout.pack([battle.state]))


_TABLES: dict = {}


def _tables(battle):
    key = id(battle.setup)
    if key not in _TABLES:
        _TABLES[key] = observe.observe_tables(battle.setup)
    return _TABLES[key]


# ---------------------------------------------------------------------- slow: phase parity


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(VARIANTS))
def test_fire_direct_fire_with_fusion_and_gatling_shots_matches_the_reference(scenario):
    snaps = snapshots(scenario).fire
    shots = [x for x in snaps if any(o.fire or o.gatling for o in x[1].values())]
    assert any(o.gatling for x in shots for o in x[1].values()), "no phaser-G shot 2..4"
    seen = run_parity(shots, lambda b, o, r: procedure._fire_direct_fire(b, o),
                      fire.fire_direct_fire, damage.fire_tables)
    assert seen.get("Fired", 0) > 50 and seen.get("Damaged", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(VARIANTS))
def test_gatling_masks_observation_and_orders_match_the_env(scenario):
    """``gatling[g].shot{k}`` masks (open while k shots are left, at the fire[w] targets), the
    "usable" flags of the phaser-G and the fusion beams, and ``Orders.gatling`` decoded."""
    from test_compiled_observe import play_and_compare

    for seed in range(4):
        play_and_compare(VARIANTS[scenario], seed, captains=seed % 2 == 0)
    play_and_compare(VARIANTS[scenario], 5, True, uniform_spaces=True)
