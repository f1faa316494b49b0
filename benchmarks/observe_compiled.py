"""The compiled observation alone, as the step runs it: us per battle (all agents).

    PYTHONPATH=$PWD taskset -c 0 python benchmarks/observe_compiled.py [SCENARIO] [--rounds R]
        [--enemy-fire]

Plays the reference env with random masked actions and keeps 64 of the states it passes
through, packs them into a ``BattleBatch``'s state, then times ``_observe_battle`` over the 64
battles (inlined in a kernel compiled as the step is: no NRT) followed, where an agent has
tier-2 parts, by ``_observe_extras`` through the batch's handle address, as
``BattleBatch._call`` calls it.
Prints the compile time and the best of ``--rounds`` timings (the least disturbed by other
work on a shared machine). ``--enemy-fire``: the batch with the env's ``enemy_fire`` view (its
block is an extras part). Used to find what in the observation's code slows the step
(docs/compiled.md, "How a step stays cheap").
"""

from __future__ import annotations

import argparse
import time

import numba as nb
import numpy as np

from sfb_env.compiled import handle, layout, observe
from sfb_env.compiled.batch import BattleBatch, _observe_battle, _observe_extras
from sfb_env.env.parallel import SFBParallelEnv

BATTLES = 64
REPS = 200


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def _core(s, ot, obs, masks, alive):
    for b in range(s.turn.shape[0]):
        _observe_battle(s, ot, b, obs, masks, alive)


@nb.njit(cache=True)
def _run(ref, reps, extras):
    (s, _, _, ot, _, _, obs, masks, _, _, _, _, alive, _, _, _, _, _, _, _) = handle.deref(
        ref)  # (``BattleBatch._parts``' order)
    for _ in range(reps):
        _core(s, ot, obs, masks, alive)
        if extras:
            _observe_extras(ref, 0, s.turn.shape[0], False)


def played_states(scenario: str, n: int, seed: int = 1) -> list:
    """``n`` states the reference env passes through under random masked actions."""
    env = SFBParallelEnv(scenario)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    states = []
    while len(states) < n:
        actions = {a: env.action_space(a).sample(obs[a]["action_mask"]) for a in env.agents}
        obs, *_ = env.step(actions)
        if not env.agents:
            obs, _ = env.reset(seed=int(rng.integers(1 << 30)))
        elif rng.random() < 0.3:
            states.append(env.battle.copy().state)
    return states


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("scenario", nargs="?", default="duel-klingon-vs-federation")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--enemy-fire", action="store_true", help="the enemy_fire view on")
    args = p.parse_args()
    batch = BattleBatch(args.scenario, BATTLES, seed=0, enemy_fire=args.enemy_fire)
    packed = layout.pack(played_states(args.scenario, BATTLES), batch.state.ev.shape[1])
    for mine, theirs in zip(batch.state, packed, strict=True):
        mine[...] = theirs  # (in place: the handle holds the batch's arrays)
    ot = batch.observe_tables
    extras = any(observe.has_extras(ot, a) for a in range(ot.n_agents))
    ref = batch.handle()  # (the handle's tuple, one word: as BattleBatch._call passes it)
    t0 = time.process_time()
    _run(ref, 1, extras)
    print(f"compile/load: {time.process_time() - t0:.1f} s CPU")
    best = float("inf")
    for _ in range(args.rounds):
        t = time.perf_counter()
        _run(ref, REPS, extras)
        best = min(best, (time.perf_counter() - t) / (REPS * BATTLES) * 1e6)
    view = " (enemy_fire view)" if args.enemy_fire else ""
    print(f"{args.scenario}{view}: observe{' + extras' if extras else ''}, best of {args.rounds}: "
          f"{best:.3f} us per battle ({ot.n_agents} agents)")


if __name__ == "__main__":
    main()
