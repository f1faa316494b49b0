"""Reachable reference states for the compiled movement parity tests: play tier-1 scenarios
with the reference env and record, at the entry of a reference phase function, a copy of the
battle and the orders it was called with.

``record(scenario, seed, policy, phases)`` plays one game (``policy`` on every side) and returns
``{phase name: [(battle copy, orders), ...]}``; a phase is a ``(module, function name)`` pair,
patched for the game only.
"""

from __future__ import annotations

import contextlib
from functools import cache

import numpy as np

import agents
import sfb_env
from sfb_env.engine import procedure, robots

TIER1 = ("cth-01", "cth-02", "cth-03", "duel-klingon-vs-federation", "duel-klingon-vs-kzinti",
         "duel-klingon-vs-orion", "duel-federation-vs-kzinti", "duel-federation-vs-orion",
         "duel-kzinti-vs-orion")
DUELS = TIER1[3:]

PHASES = {
    "speed_determination": (procedure, "_speed_determination"),
    "move_ships": (procedure, "_move_ships"),
    "move_seeking_weapons": (procedure, "_move_seeking_weapons"),
    "fire_orders": (robots, "fire_orders"),
}


@contextlib.contextmanager
def _recording(names, out, limit):
    saved = {}
    for name in names:
        module, attr = PHASES[name]
        original = getattr(module, attr)
        saved[name] = original

        def wrapper(battle, *args, _name=name, _original=original):
            if len(out[_name]) < limit:
                out[_name].append((battle.copy(), *args))
            return _original(battle, *args)

        setattr(module, attr, wrapper)
    try:
        yield
    finally:
        for name, original in saved.items():
            module, attr = PHASES[name]
            setattr(module, attr, original)


def record(scenario: str, seed: int, policy: str, names=tuple(PHASES), limit: int = 400,
           max_steps: int = 400) -> dict[str, list]:
    """Play one game of ``scenario`` and record the reference phases ``names``."""
    out = {n: [] for n in names}
    env = sfb_env.parallel_env(scenario)
    obs, _ = env.reset(seed=seed)
    pilots = {}
    for k, a in enumerate(env.possible_agents):
        pilots[a] = agents.make_policy(policy)
        agents.bind_policy(pilots[a], env, a)
        pilots[a].reset(seed * 10 + k)
    steps = 0
    with _recording(names, out, limit):
        while env.agents and steps < max_steps:
            actions = {a: pilots[a].act(obs[a], env.action_space(a)) for a in env.agents}
            obs, *_ = env.step(actions)
            steps += 1
    return out


@cache
def recorded(scenario: str, seed: int, policy: str) -> dict[str, list]:
    """``record`` of every phase, cached for the session (tests share the games)."""
    return record(scenario, seed, policy)


def games(scenarios=TIER1, seeds=(0, 1, 2), policies=("random", "random-fighter", "doctrine")):
    """(scenario, seed, policy) triples; doctrine only where it flies the scenario's ships."""
    for sc in scenarios:
        for seed in seeds:
            for p in policies:
                if p == "doctrine" and sc in ("cth-01", "cth-02"):
                    continue
                yield sc, seed, p


def sample(items: list, n: int, seed: int = 0) -> list:
    """At most ``n`` of ``items``, the first and the last always among them."""
    if len(items) <= n:
        return items
    rng = np.random.default_rng(seed)
    mid = sorted(rng.choice(np.arange(1, len(items) - 1), size=n - 2, replace=False))
    return [items[0], *(items[i] for i in mid), items[-1]]


def run_reference(phase: str, battle, orders) -> None:
    """The reference phase ``phase`` on ``battle`` (the unpatched functions)."""
    if phase == "speed_determination":
        procedure._speed_determination(battle, orders)
    elif phase == "move_ships":
        procedure._move_ships(battle, orders)
    elif phase == "move_seeking_weapons":
        procedure._move_seeking_weapons(battle)
    else:
        raise KeyError(phase)


def compare_phase(phase: str, kernel, items: list) -> tuple[list[str], list]:
    """Run the reference ``phase`` and the compiled ``kernel`` on every recorded
    ``(battle, orders)`` of ``items`` (one scenario), the compiled side as ONE batch (battle b =
    item b). Returns the mismatches (empty = parity) and the reference events of each item."""
    from sfb_env.compiled import event_codes, layout, movement

    first = items[0][0]
    setup = first.setup
    mt = movement.move_tables(setup)
    n_units, n_weapons = len(first.state.kind), len(first.state.w_owner)
    refs, orders_list, starts = [], [], []
    for battle, *args in items:
        orders = args[0] if args else {}
        ref = battle.copy()
        starts.append(len(ref.events))
        run_reference(phase, ref, orders)
        refs.append(ref)
        orders_list.append(orders)
    batch = layout.pack([battle.state for battle, *_ in items])
    bo = layout.pack_orders(orders_list, n_units, n_weapons)
    for b in range(len(items)):
        kernel(batch, mt, b, bo)
    expected = layout.pack([r.state for r in refs])
    problems = []
    bad = set()
    for name in layout.HOT_FIELDS + ("turn", "impulse", "done", "time_up", "dice"):
        mine, ref = getattr(batch, name), getattr(expected, name)
        if not np.array_equal(mine, ref):
            bad.update(np.flatnonzero((mine != ref).reshape(len(items), -1).any(axis=1)).tolist())
    decoder = event_codes.Decoder(setup.unit_ids, setup.weapon_ids, list(setup.scenario.sides),
                                  setup.scenario.parity)
    ref_events = []
    for b, ref in enumerate(refs):
        theirs = ref.events[starts[b]:]
        ref_events.append(theirs)
        mine = decoder.decode(batch.ev[b, :batch.ev_count[b]])
        st = items[b][0].state
        where = f"{setup.scenario.name} turn {st.turn} impulse {st.impulse} item {b}"
        if b in bad:
            problems.append(f"{where}: {layout.differences(batch, b, ref.state)[:3]}")
        if mine != theirs:
            problems.append(f"{where}: events {mine} != reference {theirs}")
    return problems, ref_events


@contextlib.contextmanager
def compiled_phases(names=("speed_determination", "move_ships", "move_seeking_weapons")):
    """Replace the reference phases ``names`` by the compiled kernels for the duration: each
    call packs the battle, runs the kernel, unpacks the state and appends the decoded events
    (a whole game then runs with compiled movement)."""
    from sfb_env.compiled import event_codes, layout, movement

    kernels = {"speed_determination": movement.speed_determination,
               "move_ships": movement.move_ships,
               "move_seeking_weapons": movement.move_seeking_weapons}
    saved = {n: getattr(procedure, PHASES[n][1]) for n in names}
    tables: dict[int, tuple] = {}

    def make(name):
        def compiled(battle, orders=None):
            setup = battle.setup
            if id(setup) not in tables:
                tables[id(setup)] = (setup, movement.move_tables(setup), event_codes.Decoder(
                    setup.unit_ids, setup.weapon_ids, list(setup.scenario.sides),
                    setup.scenario.parity))
            _, mt, decoder = tables[id(setup)]
            st = battle.state
            batch = layout.pack([st])
            bo = layout.pack_orders([orders or {}], len(st.kind), len(st.w_owner))
            kernels[name](batch, mt, 0, bo)
            layout.unpack_into(batch, 0, st)
            battle.events.extend(decoder.decode(batch.ev[0, :batch.ev_count[0]]))
        return compiled

    for n in names:
        setattr(procedure, PHASES[n][1], make(n))
    try:
        yield
    finally:
        for n, f in saved.items():
            setattr(procedure, PHASES[n][1], f)


def play(scenario: str, seed: int, policy: str, max_steps: int = 400):
    """One game's final battle (``policy`` on every side)."""
    env = sfb_env.parallel_env(scenario)
    obs, _ = env.reset(seed=seed)
    pilots = {}
    for k, a in enumerate(env.possible_agents):
        pilots[a] = agents.make_policy(policy)
        agents.bind_policy(pilots[a], env, a)
        pilots[a].reset(seed * 10 + k)
    steps = 0
    while env.agents and steps < max_steps:
        actions = {a: pilots[a].act(obs[a], env.action_space(a)) for a in env.agents}
        obs, *_ = env.step(actions)
        steps += 1
    return env.battle
