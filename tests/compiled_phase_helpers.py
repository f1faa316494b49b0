"""Reachable reference states for the compiled phase parity tests: tier-1 games played by
``random-fighter`` captains on every side, with the battle copied (and the orders kept) at the
entry of the phases under test (``procedure._fire_direct_fire``,
``procedure._launch_seeking_weapons``, ``seeking.resolve_impacts``)."""

from __future__ import annotations

import copy
import functools

import numba as nb
import numpy as np

import agents
import sfb_env
from sfb_env.compiled import esg, event_codes, handle, layout, parity
from sfb_env.engine import energy_allocation, procedure, robots, seeking
from sfb_env.env.parallel import SFBParallelEnv

TIER1 = ("cth-01", "cth-02", "cth-03", "duel-klingon-vs-federation", "duel-klingon-vs-kzinti",
         "duel-klingon-vs-orion", "duel-federation-vs-kzinti", "duel-federation-vs-orion",
         "duel-kzinti-vs-orion")


@nb.njit(cache=True)
def esg_contacts(a, g, side, ft, et, b):
    """``esg.resolve_contacts_a`` on its arrays given one by one (pinned here)."""
    esg.resolve_contacts_a(handle.pin((a, g, side, ft, et)), b)


@nb.njit(cache=True)
def esg_launch(g, et, status, w_owner, w_destroyed, ev, ev_count, turn, impulse, b, orders):
    """``esg.launch_step_a`` on its arrays given one by one (pinned here)."""
    esg.launch_step_a(handle.pin((g, et, status, w_owner, w_destroyed, ev, ev_count, turn,
                                  impulse, orders)), b)


# Tier 2 (the Hydran's fusion beams and phaser-G, E7 and E2.15): cadet duels with one ship
# replaced by the Hydran Cadet Cruiser, by name (``snapshots`` caches on hashable names).
VARIANTS = {
    "hydran-vs-klingon": parity.variant("duel-klingon-vs-federation",
                                        swap=("fed-cadet", "hydran-cadet", "hydran")),
    "hydran-vs-federation": parity.variant("duel-klingon-vs-federation",
                                           swap=("klingon-cadet", "hydran-cadet", "hydran")),
}


class Snapshots:
    """Per phase name: a list of (battle copy at the phase's entry, orders dict, extra)."""

    def __init__(self) -> None:
        self.fire: list = []
        self.launch: list = []
        self.impacts: list = []


def fighting_pilots(env, seed: int) -> dict:
    """A ``random-fighter`` captain bound to each agent of ``env``, seeded ``seed * 10 + k``."""
    pilots = {}
    for k, a in enumerate(env.possible_agents):
        pilots[a] = agents.make_policy("random-fighter")
        agents.bind_policy(pilots[a], env, a)
        pilots[a].reset(seed * 10 + k)
    return pilots


def play_fighting(env, seed: int, steps: int) -> None:
    """``env`` reset with ``seed`` and played by ``fighting_pilots`` for up to ``steps`` steps
    (fewer where the battle ends)."""
    obs, _ = env.reset(seed=seed)
    pilots = fighting_pilots(env, seed)
    n = 0
    while env.agents and n < steps:
        obs, *_ = env.step({a: pilots[a].act(obs[a], env.action_space(a)) for a in env.agents})
        n += 1


def raid_variant(rules: dict, suffix: str, raider_hex: str | None, defender_hex: str | None,
                 plain_freighters: bool = False) -> dict:
    """Scenario 8 under ``rules`` without the scenario-unit rules (arrivals, may_leave,
    hold_fire_at) and with the ``duel`` verdict, named with ``suffix``: the Orion Raider set at
    ``raider_hex``, the defender at ``defender_hex`` (where given), the large freighters made
    plain ones where ``plain_freighters``."""
    doc = parity.variant("cth-08", rules=rules)
    for u in doc["units"]:
        for key in ("arrives", "may_leave", "hold_fire_at"):
            u.pop(key, None)
        if plain_freighters and u["class"] == "freighter-large":
            u["class"] = "freighter"
        if raider_hex and u["id"] == "queen-of-diamonds":
            u["hex"] = raider_hex
        if defender_hex and u["id"] == "defender":
            u["hex"] = defender_hex
    doc["victory"] = {"kind": "duel"}
    doc["name"] += suffix
    return doc


def play_random_masked(env, obs: dict, seed: int, steps: int) -> None:
    """``env`` (already reset, its first observations ``obs``) played by random masked actions,
    the action spaces seeded from ``seed``, for up to ``steps`` steps."""
    for k, a in enumerate(env.possible_agents):
        env.action_space(a).seed(seed * 10 + k)
    n = 0
    while env.agents and n < steps:
        obs, *_ = env.step({a: env.action_space(a).sample(mask=obs[a]["action_mask"])
                            for a in env.agents})
        n += 1


@functools.cache
def snapshots(scenario: str, seeds: tuple[int, ...] = (0, 1, 2), steps: int = 400) -> Snapshots:
    """Play ``scenario`` on ``seeds`` and collect the phase-entry snapshots (cached)."""
    snaps = Snapshots()
    fire, launch, impacts = (procedure._fire_direct_fire, procedure._launch_seeking_weapons,
                             seeking.resolve_impacts)

    def fire_hook(battle, orders):
        robot = robots.fire_orders(battle.copy())
        snaps.fire.append((battle.copy(), copy.deepcopy(dict(orders)), robot))
        fire(battle, orders)

    def launch_hook(battle, orders):
        snaps.launch.append((battle.copy(), copy.deepcopy(dict(orders)), None))
        launch(battle, orders)

    def impacts_hook(battle):
        snaps.impacts.append((battle.copy(), {}, None))
        impacts(battle)

    procedure._fire_direct_fire = fire_hook
    procedure._launch_seeking_weapons = launch_hook
    seeking.resolve_impacts = impacts_hook
    try:
        for seed in seeds:
            play_fighting(sfb_env.parallel_env(VARIANTS.get(scenario, scenario)), seed, steps)
    finally:
        procedure._fire_direct_fire = fire
        procedure._launch_seeking_weapons = launch
        seeking.resolve_impacts = impacts
    return snaps


def decoder(battle) -> event_codes.Decoder:
    setup = battle.setup
    return event_codes.Decoder(setup.unit_ids, setup.weapon_ids, list(setup.scenario.sides),
                               setup.scenario.parity)


def batch_orders(battle, orders: dict, robot_shots=None) -> layout.BatchOrders:
    """``layout.pack_orders`` of one battle's orders, the robot units' shots merged into
    ``fire`` (the compiled step's robot helper does that)."""
    st = battle.state
    o = layout.pack_orders([orders], len(st.kind), len(st.w_type))
    for w, t in robot_shots or ():
        o.fire[0, w] = t
    return o


def run_parity(snaps: list, reference, compiled, tables) -> dict:
    """For each (battle, orders, robot_shots): the reference phase on one copy, the compiled
    phase on the packed state of another; asserts identical arrays, dice and events. Returns
    counts of the event kinds seen (coverage)."""
    seen: dict[str, int] = {}
    tb = None
    for battle, orders, robot in snaps:
        ref = battle.copy()
        n0 = len(ref.events)
        reference(ref, orders, robot)
        mine = battle.copy()
        s = layout.pack([mine.state])
        if tb is None:
            tb = tables(battle.setup)
        compiled(s, tb, 0, batch_orders(battle, orders, robot))
        diffs = layout.differences(s, 0, ref.state)
        assert diffs == [], (battle.state.turn, battle.state.impulse, diffs)
        got = decoder(battle).decode(s.ev[0, :s.ev_count[0]])
        want = ref.events[n0:]
        assert got == want, (got, want)
        for e in want:
            seen[e.kind] = seen.get(e.kind, 0) + 1
    return seen


def states_of(snaps: list) -> list:
    return [b for b, _, _ in snaps]



def run_parity_batched(snaps: list, reference, compiled, tables) -> int:
    """``run_parity`` with every snapshot a battle of ONE batch (battle b of the batch is
    snapshot b): proves the kernels touch battle ``b`` only. Returns the events compared."""
    if not snaps:
        return 0
    first = snaps[0][0]
    st = first.state
    s = layout.pack([b.copy().state for b, _, _ in snaps])
    o = layout.pack_orders([orders for _, orders, _ in snaps], len(st.kind), len(st.w_type))
    for k, (_, _, robot) in enumerate(snaps):
        for w, t in robot or ():
            o.fire[k, w] = t
    tb = tables(first.setup)
    for k in range(len(snaps)):
        compiled(s, tb, k, o)
    n = 0
    dec = decoder(first)
    for k, (battle, orders, robot) in enumerate(snaps):
        ref = battle.copy()
        n0 = len(ref.events)
        reference(ref, orders, robot)
        assert layout.differences(s, k, ref.state) == [], k
        assert dec.decode(s.ev[k, :s.ev_count[k]]) == ref.events[n0:], k
        n += len(ref.events) - n0
    return n


def observe_state(batch, state) -> None:
    """Battle 0 of ``batch`` set to the reference ``state`` and observed (its start state
    overwritten in place, the step kernel's handle holds those arrays, then ``restart``)."""
    packed = layout.pack([state], batch.state.ev.shape[1])
    for mine, theirs in zip(batch._start, packed, strict=True):
        mine[...] = theirs
    batch.restart(0, 0)


def ppd_fire_step_both(battle, orders: dict, shots: list) -> list:
    """``ppd_fire.fire_step`` on a copy of ``battle`` and the compiled ``ppd.fire_step_a`` on
    its packed state with the same ``ppd[p]`` orders and ``fire[w]`` shots (E11.31, E11.362):
    asserts the same state, dice and events after the step; returns the reference's new
    events."""
    from sfb_env.compiled import damage, ppd
    from sfb_env.engine import ppd_fire

    ref = battle.copy()
    s = layout.pack([battle.state])
    o = layout.empty_orders(1, len(battle.unit_ids), len(battle.weapon_ids))
    for order in orders.values():
        for w, v in order.ppd.items():
            o.ppd[0, w] = v
    for w, t in shots:
        o.fire[0, w] = t
    ft = damage.fire_tables(battle.setup)
    n0 = len(ref.events)
    ppd_fire.fire_step(ref, orders, shots)
    ppd.fire_step_a(damage.view_of(s), ft, 0, o.fire, o.ppd, s.ppd_target, s.ppd_fired_at,
                    s.ppd_pulses, s.ppd_resolved, s.ppd_locked, s.w_arcs, s.w_astern,
                    s.ppd_stage, s.ppd_energy)
    where = (battle.state.turn, battle.state.impulse)
    assert layout.differences(s, 0, ref.state) == [], where
    new = ref.events[n0:]
    assert decoder(battle).decode(s.ev[0, :s.ev_count[0]]) == new, where
    return new


def env_pair(scenario, seed: int = 5, **options):
    """The reference env and the compiled env of ``scenario`` (with ``options``), both reset
    with ``seed`` (the same infos asserted); returns ``(ref, mine, ref's observations)``."""
    import sfb_env
    from sfb_env.env.parallel import SFBParallelEnv

    ref = SFBParallelEnv(scenario, **options)
    mine = sfb_env.parallel_env(scenario, backend="compiled", **options)
    assert sfb_env.backend_of(mine) == "compiled"
    obs, infos = ref.reset(seed=seed)
    assert mine.reset(seed=seed)[1] == infos
    return ref, mine, obs


def step_env_pair(ref, mine, obs: dict, step: int):
    """One step of the reference env ``ref`` and the compiled env ``mine`` with the same random
    masked actions of ``ref`` (``obs``: its last observations); on every fourth step one agent
    gets no action and flies its no-op (the standing orders). Asserts the same infos, rewards,
    terminations, truncations, observations and masks; returns ``(obs, infos)``."""
    import numpy as np

    acts = {a: ref.action_space(a).sample(mask=obs[a]["action_mask"]) for a in ref.agents}
    if step % 4 == 0:
        acts.pop(ref.agents[step // 4 % len(ref.agents)], None)
    o1, r1, t1, u1, i1 = ref.step(acts)
    o2, r2, t2, u2, i2 = mine.step({a: np.asarray(v, np.int64) for a, v in acts.items()})
    assert i1 == i2 and r1 == r2 and t1 == t2 and u1 == u2
    for a in o1:
        np.testing.assert_array_equal(o1[a]["observation"], o2[a]["observation"])
        np.testing.assert_array_equal(o1[a]["action_mask"], o2[a]["action_mask"])
    return o1, i1


def decisions_match(scenario, decisions: list, allocation_impulses: tuple) -> int:
    """At each played decision point ``(battle, obs, noops)`` of ``decisions``: the compiled
    observation and flat mask of every agent, and its no-op (``noop_action``: the standing
    orders), equal the reference env's. Returns how many were at ``allocation_impulses``
    (Energy Allocation)."""
    import numpy as np

    from sfb_env.compiled import actions
    from sfb_env.compiled.batch import BattleBatch

    batch = BattleBatch(scenario, 1, seed=0, autoreset=False)
    batch.reset([0])
    ot = batch.observe_tables
    at_allocation = 0
    for battle, obs, noops in decisions:
        observe_state(batch, battle.state)
        at_allocation += battle.state.impulse in allocation_impulses
        for a, o in obs.items():
            i = batch.agents.index(a)
            when = f"{a} at {battle.state.turn}.{battle.state.impulse}"
            np.testing.assert_array_equal(batch.obs[0, i, :ot.obs_size[i]], o["observation"],
                                          err_msg=when)
            np.testing.assert_array_equal(batch.masks[0, i, :ot.mask_size[i]],
                                          o["action_mask"], err_msg=when)
            out = np.zeros(len(noops[a]), np.int64)
            actions.noop_action(batch.state, ot, 0, i, out)
            assert out.tolist() == noops[a].tolist(), when
    return at_allocation


class Allocations:
    """``allocations`` (battle at the entry of Energy Allocation, orders, None) and
    ``decisions`` (battle at a decision point, each agent's observation and mask, each agent's
    no-op) of played battles."""

    def __init__(self) -> None:
        self.allocations: list = []
        self.decisions: list = []


def play_recording_allocations(scenario: dict, seeds: tuple[int, ...],
                               steps: int) -> Allocations:
    """Random masked play of ``scenario`` on the reference env, ``steps`` steps per seed (the
    next battle seeded ``seed + 1000`` when one ends), recording each Energy Allocation."""
    out = Allocations()
    pay = energy_allocation.energy_allocation

    def hook(battle, orders, payments):
        out.allocations.append((battle.copy(), copy.deepcopy(dict(orders)), None))
        pay(battle, orders, payments)

    energy_allocation.energy_allocation = hook
    try:
        for seed in seeds:
            env = SFBParallelEnv(scenario)
            obs, _ = env.reset(seed=seed)
            for k, a in enumerate(env.possible_agents):
                env.action_space(a).seed(seed * 10 + k)
            for _ in range(steps):
                if not env.agents:
                    obs, _ = env.reset(seed=seed + 1000)
                battle = env.battle
                noops = {a: env._layouts[a].noop(battle) for a in env.agents}
                out.decisions.append((battle.copy(), {a: obs[a] for a in env.agents}, noops))
                actions = {a: env.action_space(a).sample(mask=obs[a]["action_mask"])
                           for a in env.agents}
                obs, *_ = env.step(actions)
    finally:
        energy_allocation.energy_allocation = pay
    return out


def place_around_esg(battle, rng, rows: list[int], max_speed: int):
    """``battle`` with the ESG fields of weapon rows ``rows`` operating (random radius, strength
    and age) and every other unit in play placed within 5 hexes of their ship, each unit (the
    ship too) having moved one hex or not this impulse, at random facings and speeds (ships
    ``0..max_speed``): contacts of every kind (jumps, from inside, several units together,
    exact shield boundaries) that random games seldom reach (G23.52)."""
    import numpy as np

    from sfb_env import hexmap
    from sfb_env.engine import esg as ref_esg
    from sfb_env.engine.types import ACTIVE, K_SHIP

    b = battle.copy()
    st = b.state
    owner = int(st.w_owner[rows[0]])
    now = st.absolute_impulse
    for w in rows:
        st.esg_phase[w] = int(ref_esg.EsgPhase.ACTIVE)
        st.esg_radius[w] = int(rng.integers(0, 4))
        st.esg_strength[w] = int(rng.integers(1, 21))
        st.esg_activated_at[w] = now - int(rng.integers(1, min(st.impulses_per_turn, now) + 1))
    steps = hexmap.DIR_TO_AXIAL
    for u in np.flatnonzero(st.status == ACTIVE):
        u = int(u)
        if u != owner:
            while True:
                dx, dz = (int(v) for v in rng.integers(-5, 6, size=2))
                if max(abs(dx), abs(dz), abs(dx + dz)) <= 5:
                    break
            st.x[u], st.z[u] = st.x[owner] + dx, st.z[owner] + dz
        st.facing[u] = int(rng.integers(0, 6))
        if st.kind[u] == K_SHIP:
            st.speed[u] = int(rng.integers(0, max_speed + 1))
        d = int(rng.integers(0, 8))
        st.prev_x[u] = st.x[u] - (steps[d, 0] if d < 6 else 0)
        st.prev_z[u] = st.z[u] - (steps[d, 1] if d < 6 else 0)
        st.prev_facing[u] = st.facing[u]
    return b


def validate_speed_choices(env, obs: dict, label: str, only_none: bool = False) -> int:
    """(C3.2) Where ``env``'s battle (reference, ``illegal_action="raise"``) picks next turn's
    speed, every (maneuver, speed) pair each agent's mask leaves open passes the engine's
    validation (``only_none``: and the maneuver mask opens NONE alone); returns the pairs
    checked."""
    import numpy as np
    import pytest

    from sfb_env.engine.types import IllegalOrderError

    battle = env.battle
    if not battle.speed_choice_open():
        return 0
    checked = 0
    for a in env.agents:
        lay = env._layouts[a]
        names = lay.component_names()
        im, isp = names.index("maneuver"), names.index("speed")
        parts = env.action_space(a).split_mask(obs[a]["action_mask"])
        if only_none:
            assert list(np.flatnonzero(parts[im])) == [0]
        for m in np.flatnonzero(parts[im]):
            for s in np.flatnonzero(parts[isp]):
                act = lay.noop(battle)
                act[im], act[isp] = m, s
                try:
                    battle.validate({lay.unit: lay.to_orders(battle, act, env._slots[a])})
                except IllegalOrderError as exc:
                    pytest.fail(f"{label}: {exc}")
                checked += 1
    return checked


def volleys_until_destroyed(ref, ships: list[int], rng, volleys: int, low_shield: int = 0,
                            max_points: int = 13):
    """Volleys of 1 to ``max_points - 1`` points on shield ``low_shield``..6 (0: none) of
    ``ships`` in turn until all are out of play, each applied by the reference and by
    ``compiled.damage.apply_damage`` on a packed copy: after each, the state, the dice and the
    decoded events must be equal. Yields ``(unit, the reference's events)`` per volley."""
    from sfb_env.compiled import damage
    from sfb_env.engine.types import ACTIVE

    s = layout.pack([ref.copy().state])
    ft = damage.fire_tables(ref.setup)
    dec = decoder(ref)
    for n in range(volleys):
        alive = [u for u in ships if ref.state.status[u] == ACTIVE]
        if not alive:
            return
        u = alive[n % len(alive)]
        shield, points = int(rng.integers(low_shield, 7)), int(rng.integers(1, max_points))
        n0 = len(ref.events)
        s.ev_count[0] = 0
        ref.apply_damage(u, shield, points)
        damage.apply_damage_a(damage.view_of(s), ft, 0, u, shield, points)
        assert layout.differences(s, 0, ref.state) == [], (n, u, shield, points)
        want = ref.events[n0:]
        assert dec.decode(s.ev[0, :s.ev_count[0]]) == want, (n, u, shield, points)
        yield u, want


def random_slot_actions(venv, rng) -> np.ndarray:
    """A uniformly random open value of every component of every slot of a vector env."""
    nvec = venv.action_space.nvec
    starts = np.concatenate([[0], np.cumsum(nvec)[:-1]])
    return np.stack([[rng.choice(np.flatnonzero(m[s:s + n]))
                      for s, n in zip(starts, nvec, strict=True)]
                     for m in venv.action_masks()])


def lockstep_vector_envs(ref, cmp, rng, steps: int):
    """Step two vector envs with the same random masked actions for up to ``steps`` steps,
    asserting equal masks, observations, rewards and dones; yields each step's infos
    (reference, compiled)."""
    for _ in range(steps):
        np.testing.assert_array_equal(cmp.action_masks(), ref.action_masks())
        acts = random_slot_actions(ref, rng)
        want, got = ref.step(acts), cmp.step(acts)
        for w, g in zip(want[:4], got[:4], strict=True):
            np.testing.assert_array_equal(g, w)
        yield want[4], got[4]
