"""Per-kernel profile of the compiled step (µs per battle per impulse, per CPU-second).

    PYTHONPATH=$PWD python benchmarks/profile_compiled.py [SCENARIO] [--battles B] [--reps R]

Plays B battles a few random impulses to reach varied states, snapshots them, then times over
the snapshot (restored before every rep): the restore itself, ``_observe_battle`` (both
agents' observation and mask), ``decode_action``, and ``procedure.advance_upto`` (the step's
``advance`` cut after each of ``procedure.STAGES``: cumulative, each stage's cost is the
difference), and the whole ``BattleBatch.step``.
The harness kernels are compiled as the step kernel is (without NRT, observe inlined), so the
cuts cost what they cost in the step; robot fire runs only where due, as in ``advance``.
"""

from __future__ import annotations

import argparse
import time

import numba as nb
import numpy as np

from sfb_env.compiled import actions, procedure
from sfb_env.compiled.batch import BattleBatch, _observe_battle
from sfb_env.compiled.copy_battle import copy_battle
from sfb_env.compiled.layout import BatchState


@nb.njit(cache=True)
def _restore(s, snap, b):
    """Battle ``b`` back to the snapshot (compiled with the NRT, as the step's ``_restart``:
    ``copy_battle``'s row assignments need it)."""
    copy_battle(s, b, snap, b)
    s.dice[b] = snap.dice[b]
    s.ev_count[b] = 0


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def _run(s, snap, tb, ot, o, acts, alive, obs, masks, what, upto, reps):
    """``what``: 0 restore only, 1 observe, 2 restore + decode, 3 restore + decode + advance
    up to ``upto``."""
    n_b = s.turn.shape[0]
    for _ in range(reps):
        for b in range(n_b):
            if what == 1:
                _observe_battle(s, ot, b, obs, masks, alive)
                continue
            _restore(s, snap, b)
            if what >= 2 and not s.done[b]:
                procedure.clear_orders(o, b)
                for a in range(ot.n_agents):
                    if alive[b, a]:
                        actions.decode_action(s, ot, b, a, acts[b, a], o)
                if what == 3:
                    procedure.advance_upto(s, tb, b, o, upto)


def _copy(state: BatchState) -> BatchState:
    return BatchState(*(np.array(a, copy=True) for a in state))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("scenario", nargs="?", default="duel-klingon-vs-federation")
    p.add_argument("--battles", type=int, default=256)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--warm", type=int, default=30, help="random impulses before the snapshot")
    args = p.parse_args()
    bb = BattleBatch(args.scenario, args.battles, seed=0)
    bb.reset()
    rng = np.random.default_rng(0)
    for _ in range(args.warm):
        bb.step(bb.sample_actions(rng))
    acts = bb.sample_actions(rng)
    snap = _copy(bb.state)
    alive0 = bb.alive.copy()
    s, tb, ot, o = bb.state, bb.tables, bb.observe_tables, bb.orders
    n_b, reps = args.battles, args.reps
    t0 = time.process_time()
    _restore(s, snap, 0)  # compiled first with the NRT: a callee takes its first caller's flags
    for what in range(4):
        _run(s, snap, tb, ot, o, acts, bb.alive, bb.obs, bb.masks, what, 7, 1)
    print(f"compile/load: {time.process_time() - t0:.1f} s CPU")

    def timed(what, upto=7):
        bb.alive[:] = alive0
        t = time.process_time()
        _run(s, snap, tb, ot, o, acts, bb.alive, bb.obs, bb.masks, what, upto, reps)
        return (time.process_time() - t) / reps / n_b * 1e6

    restore = timed(0)
    print(f"{args.scenario}, B={n_b}, {reps} reps; µs per battle per impulse (CPU):")
    print(f"  restore (harness only)        {restore:7.2f}")
    print(f"  observe (all agents)          {timed(1):7.2f}")
    dec = timed(2) - restore
    print(f"  decode_action (all agents)    {dec:7.2f}")
    prev = restore + dec
    total = 0.0
    for k, name in enumerate(procedure.STAGES, start=1):
        t = timed(3, k)
        print(f"  {name:<30}{t - prev:7.2f}")
        total += t - prev
        prev = t
    print(f"  advance total                 {total:7.2f}")
    steps = 20
    t = time.process_time()
    for _ in range(steps):
        bb.step(acts)
    dt = (time.process_time() - t) / steps / n_b * 1e6
    print(f"  BattleBatch.step (whole)      {dt:7.2f}  "
          f"({bb.ships_per_battle / dt * 1e6:,.0f} ship-impulses/s)")


if __name__ == "__main__":
    main()
