"""The ISC plasmatic pulsar device (E11) in compiled code (``compiled.ppd``) against the
reference (``engine.ppd``, ``engine.ppd_fire``, ``engine.damage.apply_split_volley``) piece by
piece: the chart cell by cell, one pulse at every range and lock state, the split over the
shields, the split volley under the cadet DAC, and the whole PPD fire step on states reached in
play under the Chief Engineer."""

from __future__ import annotations

import copy
import functools

import numpy as np
import pytest
from compiled_phase_helpers import decoder, play_fighting, ppd_fire_step_both

import sfb_env
from sfb_env import tables
from sfb_env.compiled import damage, dice, layout, parity, ppd, tiers
from sfb_env.engine import damage as ref_damage
from sfb_env.engine import ppd as ref_ppd
from sfb_env.engine import ppd_fire
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import ACTIVE, K_DRONE, K_SHIP, Orders, WeaponType

pytestmark = pytest.mark.compiled_late

CHIEF = {"energy": "chief", "chief_engineer": True, "speed_choice": True}
SCENARIO = parity.variant("grad-isc-vs-klingon", rules=CHIEF)


@functools.cache
def _battle(seed: int = 0):
    return make_battle(load_scenario(SCENARIO), seed=seed)


def test_e11_chief_and_cadet_variants_are_on_the_compiled_core():
    """(E11) The graduate ISC duels, under the Chief Engineer and as shipped (the cadet form,
    E11.21-E11.25: ``compiled.energy``): nothing left for the reference."""
    for opp in ("klingon", "kzinti", "orion", "federation"):
        battle = make_battle(load_scenario(parity.variant(f"grad-isc-vs-{opp}", rules=CHIEF)))
        assert tiers.missing(battle.setup) == [], opp
    cadet = make_battle(load_scenario("grad-isc-vs-klingon"))
    assert tiers.missing(cadet.setup) == []


def test_e11_31_chart_tables_match_the_reference_cell_by_cell():
    """Hit number and damage (E11.31), splash (E11.352) and the hex-side split (E11.351) at
    every range of the chart."""
    ft = damage.fire_tables(_battle().setup)
    top = ref_ppd.ppd_chart().max_range
    assert ft.ppd_hit.shape == (top + 1,)
    for r in range(top + 1):
        assert ft.ppd_hit[r] == tables.ppd_hit_number(r), r
        assert ft.ppd_dmg[r] == tables.ppd_damage(r), r
        assert tuple(ft.ppd_splash[r]) == tables.ppd_splash(r), r
        assert tuple(ft.ppd_alt[r]) == tables.ppd_alt(r), r
        assert ref_ppd.unshielded_damage(r) == ft.ppd_splash[r, 1]


@pytest.mark.parametrize("target", [K_SHIP, K_DRONE])
def test_e11_31_one_pulse_matches_the_resolver_at_every_range(target):
    """``ppd.pulse`` against ``ppd.resolve_pulse``: locked or not, at ranges 0..40, on a ship
    and on a drone (FD1.52 +2, E11.353 centre value): same roll, lock, damage and dice."""
    ft = damage.fire_tables(_battle().setup)
    kind = ref_ppd.TargetKind.SHIP if target == K_SHIP else ref_ppd.TargetKind.DRONE
    seed = 0
    for was_locked in (False, True):
        for rng in range(ref_ppd.ppd_chart().max_range + 1):
            for _ in range(4):
                seed += 1
                gen = np.random.default_rng(seed)
                row = dice.dice_row(gen)[None, :].copy()
                train = ref_ppd.PulseTrain(16, 1, 4, kind, 0, was_locked)
                _, want = ref_ppd.resolve_pulse(train, 1, 1, rng, rng,
                                                generator=ppd_fire._Dice(gen))
                got = ppd.pulse(ft.ppd_hit, ft.ppd_dmg, ft.ppd_splash, True, row, 0,
                                was_locked, rng, target)
                assert got == (want.roll or 0, want.locked, want.damage), (was_locked, rng)
                assert np.array_equal(row[0], dice.dice_row(gen)), (was_locked, rng)


def test_e11_35_split_matches_the_reference_around_the_ship():
    """(E11.351, E11.352) The split of a pulse over the target's shields from every hex around
    it within the chart, every facing, shields with ties: the same points on the same shields
    and the same centre."""
    battle = _battle().copy()
    st = battle.state
    w = int(ppd_fire.ppd_rows(battle, 0)[0])
    owner, t = 0, 1
    ft = damage.fire_tables(battle.setup)
    rng = np.random.default_rng(3)
    out = np.zeros(7, np.int64)
    seen = {"side": 0, "splash2": 0, "splash": 0}
    for _ in range(600):
        st.x[t], st.z[t] = 20, 10
        st.facing[t] = int(rng.integers(0, 6))
        while True:
            dx, dz = (int(v) for v in rng.integers(-40, 41, size=2))
            r = max(abs(dx), abs(dz), abs(dx + dz))
            if 4 <= r <= 40:
                break
        st.x[owner], st.z[owner] = 20 + dx, 10 + dz
        st.shields[t] = rng.integers(0, 4, size=6) * 4  # ties are common
        for points in sorted({int(tables.ppd_damage(r)), 2, 1}):
            want, centre = ppd_fire._split(battle, w, t, r, points)
            s = layout.pack([st])
            got_centre = ppd.split(damage.view_of(s), ft, 0, owner, t, r, points, out)
            assert {k: int(out[k]) for k in range(7) if out[k]} == want, (r, points)
            assert got_centre == (-1 if centre is None else centre)
            seen["side" if centre is None else "splash2" if points == 2 else "splash"] += 1
    assert min(seen.values()) > 0, seen


def test_e11_332_split_volley_matches_the_reference_under_the_cadet_dac():
    """``damage.apply_split_volley_a`` against ``engine.damage.apply_split_volley`` (E11.332):
    random splits on both ships until they are destroyed: the same state, dice and events."""
    rng = np.random.default_rng(7)
    n_volleys = destroyed = 0
    for seed in range(3):
        ref = _battle(seed).copy()
        s = layout.pack([ref.copy().state])
        ft = damage.fire_tables(ref.setup)
        dec = decoder(ref)
        ships = [u for u in range(len(ref.unit_ids)) if ref.ship_classes[u] is not None]
        for n in range(300):
            alive = [u for u in ships if ref.state.status[u] == ACTIVE]
            if not alive:
                break
            u = alive[n % len(alive)]
            facing = int(rng.integers(1, 7))
            ccw, cw = (facing + 4) % 6 + 1, facing % 6 + 1
            split = {ccw: int(rng.integers(0, 3)), facing: int(rng.integers(0, 10)),
                     cw: int(rng.integers(0, 3))}
            split = {k: v for k, v in split.items() if v}
            centre = facing if rng.random() < 0.7 else None
            vector = np.zeros(7, np.int64)
            for k, v in split.items():
                vector[k] = v
            n0 = len(ref.events)
            s.ev_count[0] = 0
            ref_damage.apply_split_volley(ref, u, split, centre)
            damage.apply_split_volley_a(damage.view_of(s), ft, 0, u, vector,
                                        -1 if centre is None else centre)
            assert layout.differences(s, 0, ref.state) == [], (seed, n, split)
            assert dec.decode(s.ev[0, :s.ev_count[0]]) == ref.events[n0:], (seed, n)
            n_volleys += 1
        destroyed += sum(int(ref.state.status[u] != ACTIVE) for u in ships)
    assert n_volleys > 50 and destroyed >= 3


# ---------------------------------------------------------------------- played states


@functools.cache
def _fire_steps(opp: str = "klingon", seeds: tuple[int, ...] = (0, 1, 2, 3),
                steps: int = 300) -> list:
    """(battle copy, orders) at the entry of every PPD fire step of games played by
    ``random-fighter`` captains (ISC vs ``opp`` under the Chief Engineer)."""
    out: list = []
    real = ppd_fire.fire_step

    def hook(battle, orders, shots):
        out.append((battle.copy(), copy.deepcopy(dict(orders)), list(shots)))
        real(battle, orders, shots)

    ppd_fire.fire_step = hook
    try:
        for seed in seeds:
            env = sfb_env.parallel_env(parity.variant(f"grad-isc-vs-{opp}", rules=CHIEF),
                                       backend="reference")
            play_fighting(env, seed, steps)
    finally:
        ppd_fire.fire_step = real
    return out


@pytest.mark.parametrize("opp", ["klingon", "kzinti"])
def test_e11_33_ppd_fire_step_matches_the_reference_on_played_states(opp):
    """``ppd.fire_step_a`` on every PPD fire step reached in play: drops (E11.362), new trains
    (E11.31), breaking events (E11.54), pulses and their volleys (E11.332): the same state,
    dice and events after the step."""
    counts = {"Fired": 0, "PpdTrainEnded": 0, "Damaged": 0, "trains": 0}
    for battle, orders, shots in _fire_steps(opp):
        new = ppd_fire_step_both(battle, orders, shots)
        counts["trains"] += len(shots)
        for e in new:
            if e.kind in counts and (e.kind != "Fired" or e.weapon_type == "ppd"):
                counts[e.kind] += 1
    assert counts["trains"] > 0 and counts["Fired"] > 0, counts
    print(opp, counts)


def test_e11_362_ppd_orders_are_packed():
    """``layout.pack_orders`` carries a ``ppd[p]`` order (E11.362)."""
    battle = _battle()
    w = int(ppd_fire.ppd_rows(battle, 0)[0])
    order = Orders()
    order.ppd[w] = 1
    o = layout.pack_orders([{0: order}], len(battle.unit_ids), len(battle.weapon_ids))
    assert o.ppd[0, w] == 1 and int(battle.state.w_type[w]) == int(WeaponType.PPD)


def test_e11_362_masks_and_ppd_block_match_the_reference_on_compiled_play():
    """The compiled batch plays (random open values, the wave-lock seldom dropped); after every
    step the reference env, given the compiled battle, computes the same masks (``fire[w]`` of
    the PPD: armed, not pulsing, 4..40 hexes, E11.21-E11.312; ``ppd[p]``: drop between pulses,
    E11.362) and observations (the PPD block), and the states the masks guard are reached."""
    from sfb_env.compiled.batch import BattleBatch
    from sfb_env.env.parallel import SFBParallelEnv

    batch = BattleBatch(SCENARIO, 1, seed=5)
    batch.reset()
    env = SFBParallelEnv(SCENARIO, max_turns=batch.setup.max_turns)
    env.reset(seed=int(batch.seeds[0]))
    isc = batch.agents.index("isc-cadet")
    lo = env._layouts["isc-cadet"]
    names = lo.component_names()
    drop_at = int(lo.offsets[names.index("ppd[0]")]) + 1
    fire_at = int(lo.offsets[names.index("fire[3]")])
    assert lo.weapons[3] == ppd_fire.ppd_rows(env.battle, 0)[0]
    rng = np.random.default_rng(9)
    seen = {"drop open": 0, "ppd fire open": 0, "pulsing": 0}
    actions = np.zeros((1, len(batch.agents), batch.nvec.shape[1]), np.int64)
    for _ in range(600):
        for i, a in enumerate(batch.agents):
            lay_a = env._layouts[a]
            mask = batch.masks[0, i]
            for c, (off, size) in enumerate(zip(lay_a.offsets, lay_a.nvec, strict=True)):
                open_ = np.flatnonzero(mask[off:off + size])
                if off + 1 == drop_at and a == "isc-cadet":
                    open_ = open_ if rng.random() < 0.1 else open_[:1]
                actions[0, i, c] = rng.choice(open_) if len(open_) else 0
        batch.step(actions)
        battle = batch.to_battle(0)
        env.battle = battle
        env.agents = [a for i, a in enumerate(batch.agents) if batch.alive[0, i]]
        env._observe()
        for a in env.agents:
            want = env._obs[a]
            size = len(want["action_mask"])
            assert np.array_equal(batch.masks[0, batch.agents.index(a), :size],
                                  want["action_mask"]), (a, battle.state.turn)
            n = len(want["observation"])
            assert np.array_equal(batch.obs[0, batch.agents.index(a), :n],
                                  want["observation"]), (a, battle.state.turn)
        if "isc-cadet" in env.agents:
            m = batch.masks[0, isc]
            seen["drop open"] += int(m[drop_at])
            seen["ppd fire open"] += int(m[fire_at + 1:fire_at + 1 + lo.slots].any())
            seen["pulsing"] += int(battle.state.ppd_target[lo.weapons[3]] >= 0)
    assert min(seen.values()) > 0, seen
