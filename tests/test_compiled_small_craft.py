"""Phase parity of ``compiled.small_craft`` (J4 Stinger-F fighters, J1.0 administrative
shuttles) against ``engine.small_craft`` on states the reference plays: variants of the Hydran
Ranger's full-size scenarios with the rules other branches port replaced (``energy: chief``,
``damage: interim``, ``lock_on: false``), ``random-fighter`` captains on both sides. Each
reference call of a small-craft phase is recorded (the battle before and after, its orders,
the events it logged); the compiled kernel replays it on the packed state and must leave
every state array and event the same."""

from __future__ import annotations

import functools
from collections import Counter

import numpy as np
import pytest
from compiled_phase_helpers import decoder, play_fighting

import sfb_env
from sfb_env import hexmap
from sfb_env.compiled import damage as cdamage
from sfb_env.compiled import layout, parity
from sfb_env.compiled import small_craft as csc
from sfb_env.engine import damage, direct_fire, robots
from sfb_env.engine import small_craft as ref
from sfb_env.engine.types import K_FIGHTER, K_SHUTTLE, NEVER, UNUSED

pytestmark = pytest.mark.xdist_group("compiled-small-craft")

RULES = {"energy": "chief", "damage": "interim", "lock_on": False}
SCENARIOS = ("grad-hydran-full-vs-klingon", "grad-hydran-full-vs-federation")
CRAFT_FIELDS = ("craft_ccm", "craft_tac", "craft_landed")
REQUIRE_SEEN = True  # the short tests also require the rule to have happened


class Calls:
    """Per phase: (battle before, battle after, argument, events logged)."""

    def __init__(self) -> None:
        self.launch, self.move, self.eot, self.damage, self.pilot, self.gun, self.shots = (
            [] for _ in range(7))


def _recorder(calls: list, real, with_args: bool = True):
    def wrapped(battle, *args):
        before = battle.copy()
        n0 = len(battle.events)
        out = real(battle, *args)
        calls.append((before, battle.copy(), args, list(battle.events[n0:]), out))
        return out
    return wrapped


@functools.cache
def recorded(scenario: str, seeds: tuple[int, ...] = tuple(range(5)), steps: int = 300) -> Calls:
    """Play the variant of ``scenario`` and record every small-craft phase call (cached)."""
    calls = Calls()
    patches = [(ref, "launch_step", _recorder(calls.launch, ref.launch_step)),
               (ref, "move_fighters", _recorder(calls.move, ref.move_fighters)),
               (ref, "end_of_turn", _recorder(calls.eot, ref.end_of_turn)),
               (ref, "gun_blocker", _recorder(calls.gun, ref.gun_blocker)),
               (robots, "craft_fire_orders", _recorder(calls.shots, robots.craft_fire_orders))]
    saved = [(mod, name, getattr(mod, name)) for mod, name, _ in patches]
    handlers = dict(damage.DAMAGE_HANDLERS)
    pilots = dict(robots.PILOTS)
    try:
        for mod, name, fn in patches:
            setattr(mod, name, fn)
        for k in (K_FIGHTER, K_SHUTTLE):
            damage.DAMAGE_HANDLERS[k] = _recorder(calls.damage, handlers[k])
        robots.PILOTS[ref.SHUTTLE_CONTROLLER] = _recorder(calls.pilot,
                                                          pilots[ref.SHUTTLE_CONTROLLER])
        rules = {**RULES, **({"cloak": "none"} if scenario.endswith("orion") else {})}
        env = sfb_env.parallel_env(parity.variant(scenario, rules=rules), backend="reference")
        for seed in seeds:
            play_fighting(env, seed, steps)
    finally:
        for mod, name, fn in saved:
            setattr(mod, name, fn)
        damage.DAMAGE_HANDLERS.update(handlers)
        robots.PILOTS.update(pilots)
    return calls


def _packed(battle):
    """The battle packed, and its small-craft arrays (``layout.HOT_FIELDS`` since the step
    calls these kernels) by name."""
    a = layout.pack([battle.state])
    return a, {name: getattr(a, name) for name in CRAFT_FIELDS}


def _assert_same(a, extra, after, events, before, where) -> None:
    st = after.state
    for name in layout.HOT_FIELDS:
        assert np.array_equal(getattr(a, name)[0], np.asarray(getattr(st, name))), (where, name)
    for name in CRAFT_FIELDS:
        assert np.array_equal(extra[name][0], np.asarray(getattr(st, name))), (where, name)
    got = decoder(before).decode(a.ev[0, :a.ev_count[0]])
    assert got == events, where


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_variants_fly_fighters_and_shuttles(scenario):
    """The recorded games exercise the rules: launches (J4.34, J1.0), fighter moves (J4.12),
    damage on craft (J4.49, J1.0) and the guns' limits (J4.32)."""
    calls = recorded(scenario)
    launched = sum(1 for *_, events, _ in calls.launch for e in events
                   if type(e).__name__ == "Launched")
    assert launched > 0 and calls.move and calls.damage and calls.gun, scenario


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_launch_and_send_match_the_reference(scenario):
    """(J4.34, J1.0) ``launch_step``: ``send`` per agent order (carriers by row), then the robot
    carriers' launch ([P-085])."""
    ct = None
    for before, after, (orders,), events, _ in recorded(scenario).launch:
        ct = ct or csc.craft_tables(before.setup)
        a, extra = _packed(before)
        n = len(before.state.kind)
        fighters, shuttles = np.full((1, n), -1), np.full((1, n), -1)
        for carrier, order in orders.items():
            if order.fighters is not None:
                fighters[0, carrier] = order.fighters
            if order.shuttles is not None:
                shuttles[0, carrier] = order.shuttles
        csc.launch_step(csc.view_of(a), ct, 0, fighters, shuttles)
        _assert_same(a, extra, after, events, before, (scenario, before.state.turn,
                                                       before.state.impulse))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_order_mask_matches_order_blockers(scenario):
    """(J4.34, J1.0, [P-095], F2.3) ``order_open`` is ``order_blockers(...) is None`` for every
    carrier, craft kind and target at every Launch step recorded."""
    ct = None
    seen = 0
    for before, *_ in recorded(scenario).launch:
        ct = ct or csc.craft_tables(before.setup)
        a, _ = _packed(before)
        n = len(before.state.kind)
        for c in np.flatnonzero(ct.capacity.sum(axis=1) > 0):
            for kind in (K_FIGHTER, K_SHUTTLE):
                if not len(ref.fighters_of(before, int(c), kind)):
                    continue
                want = [r is None for r in ref.order_blockers(before, int(c), None, kind)]
                view = csc.view_of(a)
                got = [bool(csc.order_open(view, ct, 0, int(c), kind, t)) for t in range(n)]
                assert got == want, (scenario, before.state.turn, before.state.impulse, c, kind)
                seen += sum(want)
    assert seen > 0 or not REQUIRE_SEEN


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_move_fighters_matches_the_reference(scenario):
    """(J4.12, C1.3, J4.52, J4.11, J4.48) CCM, the pilot's moves slower first, its TAC and
    crippled fighters landing: every array and event as the reference."""
    ct = None
    for before, after, _, events, _ in recorded(scenario).move:
        ct = ct or csc.craft_tables(before.setup)
        a, extra = _packed(before)
        csc.move_step(csc.view_of(a), ct, 0)  # (the view's craft_ccm, ... are extra's arrays)
        _assert_same(a, extra, after, events, before, (scenario, before.state.turn,
                                                       before.state.impulse))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_shuttle_pilot_matches_the_reference(scenario):
    """(J1.0, [P-086], [P-088]) The shuttle's pilot: the maneuver and the retargeting."""
    ct = None
    calls = recorded(scenario).pilot
    for before, after, (unit,), _, want in calls:
        ct = ct or csc.craft_tables(before.setup)
        a, _ = _packed(before)
        assert csc.pilot_maneuver(csc.view_of(a), ct, 0, int(unit)) == int(want)
        assert a.target[0, unit] == after.state.target[unit]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_take_damage_matches_the_reference(scenario):
    """(J4.12, J4.49 [P-097]; J1.0) Crippled at 7 / 3 (speed cut at once), destroyed at 10 /
    6, ``Damaged`` and ``Destroyed``."""
    ct = None
    for before, after, (unit, points, *_), events, _ in recorded(scenario).damage:
        ct = ct or csc.craft_tables(before.setup)
        a, extra = _packed(before)
        csc.take_damage(csc.view_of(a), ct, 0, int(unit), int(points))
        _assert_same(a, extra, after, events, before, (scenario, unit, points))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_gun_limits_match_gun_blocker(scenario):
    """(J4.32, J1.0) A fighter fires from 8 impulses after launch, once a turn crippled; a
    shuttle not within a quarter turn of its launch."""
    ct = None
    for before, _, (w,), _, want in recorded(scenario).gun[:3000]:
        ct = ct or csc.craft_tables(before.setup)
        a, _ = _packed(before)
        assert csc.gun_open(csc.view_of(a), ct, 0, int(w)) == (want is None), (scenario, w, want)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_end_of_turn_repair_matches_the_reference(scenario):
    """(J4.48 [P-096]) One point repaired on each fighter aboard since before the turn."""
    ct = None
    for before, after, _, events, _ in recorded(scenario).eot:
        ct = ct or csc.craft_tables(before.setup)
        a, extra = _packed(before)
        csc.end_of_turn(csc.view_of(a), ct, 0, extra["craft_landed"])
        _assert_same(a, extra, after, events, before, (scenario, before.state.turn))


def test_repair_aboard_one_point_a_turn():
    """(J4.48) A fighter landed on an earlier turn loses one damage point at End of Turn; one
    landed this turn keeps its damage."""
    before = sfb_env.parallel_env(parity.variant(SCENARIOS[0], rules=RULES),
                                  backend="reference")
    before.reset(seed=0)
    battle = before.battle.copy()
    st = battle.state
    ct = csc.craft_tables(battle.setup)
    f1, f2 = (int(f) for f in np.flatnonzero(st.kind == K_FIGHTER)[:2])
    st.turn, st.impulse = 3, st.impulses_per_turn
    st.damage[f1] = st.damage[f2] = 8
    st.status[f1] = st.status[f2] = UNUSED
    st.craft_landed[f1] = 2 * st.impulses_per_turn  # landed last turn
    st.craft_landed[f2] = 2 * st.impulses_per_turn + 5  # landed this turn
    a, extra = _packed(battle)
    csc.end_of_turn(csc.view_of(a), ct, 0, extra["craft_landed"])
    assert a.damage[0, f1] == 7 and a.damage[0, f2] == 8
    assert st.craft_landed[f1] != NEVER


def test_fire_at_fighters_charts_shift_the_die():
    """(J4.47) Against a fighter a die-by-range chart reads one row down, a natural 6 the die-6
    row of the next longer bracket; a hit/miss die gets +1 (plasma none); a drone's natural 6
    scores half its warhead."""
    charts = cdamage.vs_fighter_charts()
    from sfb_env.tables import phaser_chart
    ph1 = phaser_chart("ph-1")
    assert charts["ph-1"][0, 0] == ph1[1, 0]  # natural 1 reads row 2
    assert charts["ph-1"][5, 0] == ph1[5, 1]  # natural 6 at range 0: die 6 at range 1
    assert csc.fighter_die(4, False) == 5 and csc.fighter_die(4, True) == 4
    assert csc.drone_vs_fighter(12, 6) == 6 and csc.drone_vs_fighter(12, 5) == 12


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pilot_fire_orders_match_the_reference(scenario):
    """([P-087], SCENARIOS §2.9) The pilots' shots: the target within 2 hexes if legal, else
    the nearest legal unit within 2 (lowest row on ties), given the fire predicate's rows."""
    ct = None
    shots = 0
    for before, _, _, _, want in recorded(scenario).shots:
        ct = ct or csc.craft_tables(before.setup)
        a, _ = _packed(before)
        n_w = len(before.state.w_owner)
        legal = np.zeros((n_w, len(before.state.kind)), dtype=np.bool_)
        for w in ct.gun[ct.gun >= 0]:
            legal[w] = direct_fire.fire_mask(before, np.array([w]))[0]
        out = np.full((1, n_w), -1, dtype=np.int64)
        csc.craft_fire_orders(csc.view_of(a), ct, 0, out, legal)
        got = [(int(w), int(out[0, w])) for w in range(n_w) if out[0, w] >= 0]
        assert got == sorted(want), (scenario, before.state.turn, before.state.impulse)
        shots += len(want)
    assert shots > 0 or not REQUIRE_SEEN


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_close_combat_and_far_craft_match_the_reference(scenario):
    """(J4.51, J4.522) The close-combat bearing of every weapon in play on every unit, and
    (J4.47, J1.35) no fire at a small craft beyond 5 hexes, at the recorded fire steps."""
    ct = None
    seen = 0
    for before, *_ in recorded(scenario).gun[::10]:
        ct = ct or csc.craft_tables(before.setup)
        st = before.state
        a, extra = _packed(before)
        targets = np.arange(len(st.kind))
        for w in range(len(st.w_owner)):
            o = int(st.w_owner[w])
            if st.status[o] != ref.ACTIVE:
                continue
            rng = hexmap.distance_np(st.x[o], st.z[o], st.x, st.z).astype(np.int64)
            want = ref.close_combat(before, w, targets, rng)
            view = csc.view_of(a)
            got = [bool(csc.close_combat(view, ct, 0, w, int(t), int(rng[t]), extra["craft_ccm"]))
                   for t in targets]
            assert got == [bool(v) for v in want], (scenario, w)
            seen += int(np.sum(want))
            for t in targets:
                assert csc.far_craft(ct, int(t), int(rng[t])) == (
                    ref.target_blocker(before, int(t), int(rng[t])) is not None)
    assert seen > 0 or not REQUIRE_SEEN


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_crippled_fighters_home_and_land_as_the_reference(scenario):
    """(J4.48 [P-093], [P-089], J1.0) Constructed from recorded Move steps: a fighter made
    crippled, in its carrier's hex or one to six hexes away on any facing, the carrier at
    speeds 0..10 and its bay busy or not: the pilot's move home and the landing (``Landed``)
    as the reference's."""
    rng = np.random.default_rng(7)
    ct = None
    landed = 0
    for before, *_ in recorded(scenario).move[::4]:
        st = before.state
        flying = np.flatnonzero((st.kind == K_FIGHTER) & (st.status == ref.ACTIVE))
        if not len(flying):
            continue
        ct = ct or csc.craft_tables(before.setup)
        battle = before.copy()
        st = battle.state
        f = int(rng.choice(flying))
        c = int(battle.craft_carrier[f])
        if st.status[c] != ref.ACTIVE:
            continue
        st.damage[f] = int(rng.integers(7, 10))
        st.speed[f] = 8
        st.speed[c] = int(rng.integers(0, 11))
        if rng.random() < 0.5:
            st.x[f], st.z[f] = st.x[c], st.z[c]
        else:
            d = int(rng.integers(0, 6))
            x, z = int(st.x[c]) + int(rng.integers(-3, 4)), int(st.z[c]) + d - 3
            if not battle.in_area(x, z):
                continue
            st.x[f], st.z[f] = x, z
        st.prev_x[f], st.prev_z[f] = st.x[f], st.z[f]
        st.facing[f] = int(rng.integers(0, 6))
        st.straight[f] = int(rng.integers(0, 3))
        if rng.random() < 0.3:
            st.launched_at[f] = st.absolute_impulse - int(rng.integers(0, 2))
        a, extra = _packed(battle)
        n0 = len(battle.events)
        ref.move_fighters(battle)
        csc.move_step(csc.view_of(a), ct, 0)
        _assert_same(a, extra, battle, list(battle.events[n0:]), before, (scenario, f))
        landed += sum(type(e).__name__ == "Landed" for e in battle.events[n0:])
    assert landed > 0 or not REQUIRE_SEEN


def test_vs_fighter_charts_match_the_reference_functions():
    """(J4.47) Every phaser and fusion chart against a fighter, every die and every range a
    fighter may be fired at (0..5), as ``engine.fighters``' functions."""
    from sfb_env.engine import fighters
    charts = cdamage.vs_fighter_charts()
    for rng in range(fighters.MAX_FIGHTER_TARGET_RANGE + 1):
        for die in range(1, 7):
            for kind in ("ph-1", "ph-2", "ph-3", "ph-g"):
                assert charts[kind][die - 1, rng] == fighters.phaser_damage_vs_fighter(
                    kind, rng, die)
            assert charts["fusion"][die - 1, rng] == fighters.fusion_damage_vs_fighter(rng, die)
            for warhead in (6, 12):
                assert csc.drone_vs_fighter(warhead, die) == fighters.drone_damage_vs_fighter(
                    warhead, die)
            assert csc.fighter_die(die, False) == fighters.fighter_die(die)
            assert csc.fighter_die(die, True) == fighters.fighter_die(die, plasma=True)


ALL_HYDRAN = ("grad-hydran-full-vs-klingon", "grad-hydran-full-vs-federation",
              "grad-hydran-full-vs-gorn", "grad-hydran-full-vs-kzinti",
              "grad-hydran-full-vs-orion", "grad-isc-full-vs-hydran",
              "grad-lyran-full-vs-hydran")
PHASE_TESTS = (test_launch_and_send_match_the_reference, test_order_mask_matches_order_blockers,
               test_move_fighters_matches_the_reference, test_shuttle_pilot_matches_the_reference,
               test_take_damage_matches_the_reference, test_gun_limits_match_gun_blocker,
               test_end_of_turn_repair_matches_the_reference,
               test_pilot_fire_orders_match_the_reference,
               test_close_combat_and_far_craft_match_the_reference,
               test_crippled_fighters_home_and_land_as_the_reference)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ALL_HYDRAN)
def test_long_phase_parity(scenario, monkeypatch):
    """Every phase check above over 30 seeds of each Ranger scenario's variant (the Orion's
    under ``cloak: none``; the Romulan's needs the standard cloak: not here)."""
    calls = recorded(scenario, tuple(range(30)), 600)
    monkeypatch.setitem(globals(), "recorded", lambda _sc: calls)
    monkeypatch.setitem(globals(), "REQUIRE_SEEN", False)
    for check in PHASE_TESTS:
        check(scenario)
    seen = Counter(type(e).__name__ + (f" {e.paid_with[:5]}" if hasattr(e, "paid_with") else "")
                   for phase in (calls.launch, calls.move, calls.eot, calls.damage)
                   for *_, events, _ in phase for e in events)
    print(scenario, {k: len(getattr(calls, k)) for k in vars(calls)}, dict(seen))


def test_gun_limits_on_constructed_states():
    """(J4.32, J1.0) Crippled fighters (one shot a turn, the shots of this turn and the last in
    the phaser-G's record) and launches 0..40 impulses ago, fighters and shuttles, as
    ``gun_blocker``."""
    rng = np.random.default_rng(3)
    ct = None
    blocked = Counter()
    for before, _, (w,), _, _ in recorded(SCENARIOS[0]).gun[::5]:
        ct = ct or csc.craft_tables(before.setup)
        battle = before.copy()
        st = battle.state
        f = int(st.w_owner[w])
        now = st.absolute_impulse
        st.launched_at[f] = now - int(rng.integers(0, 41)) if rng.random() < 0.9 else NEVER
        st.damage[f] = int(rng.integers(0, 10))
        shots = now - rng.integers(0, 2 * st.impulses_per_turn, size=st.w_gatling_shots.shape[1])
        st.w_gatling_shots[w] = np.where(rng.random(len(shots)) < 0.5, shots, NEVER)
        a, _ = _packed(battle)
        want = ref.gun_blocker(battle, int(w))
        assert csc.gun_open(csc.view_of(a), ct, 0, int(w)) == (want is None), (w, want)
        blocked[(want or "open")[:5]] += 1
    assert blocked["J4.32"] and blocked["open"], blocked


RANGER_SCENARIOS = ("grad-hydran-full-vs-federation", "grad-hydran-full-vs-gorn",
                    "grad-hydran-full-vs-klingon", "grad-hydran-full-vs-kzinti",
                    "grad-hydran-full-vs-orion", "grad-hydran-full-vs-romulan",
                    "grad-isc-full-vs-hydran", "grad-lyran-full-vs-hydran")


def test_the_ranger_scenarios_run_on_the_compiled_core():
    """(J4, J1.0) The eight shipped scenarios with the Ranger's fighters and the ships'
    administrative shuttles are compiled: small craft beside drones, plasma, the PPD
    (E11.361), the ESG (G23.515) and a cloaking ship (G13); ``backend="auto"`` takes them
    (their lockstep parity: ``tests/test_compiled_parity.py``)."""
    from sfb_env.compiled import tiers
    from sfb_env.engine import make_battle

    for name in RANGER_SCENARIOS:
        setup = make_battle(name).setup
        assert setup.rules.small_craft_in_play and setup.rules.admin_shuttles, name
        assert tiers.missing(setup) == [], name
    assert set(RANGER_SCENARIOS) <= set(tiers.compiled_scenarios())
