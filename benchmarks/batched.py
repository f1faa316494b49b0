"""Ship-impulses per second of the compiled batch API on one core, by batch size.

    taskset -c 0 python benchmarks/batched.py [--scenario duel-klingon-vs-federation]
                                              [--sizes 1 64 1024 4096] [--seconds 5]
                                              [--seed 0] [--no-reference] [--quick]

Run it under ``taskset -c 0`` (or another single CPU): the figure wanted is per core, and a
numba kernel compiled with ``parallel=True`` would otherwise spread over every CPU.  The script
prints the CPUs it may run on and numba's thread count, and warns when it is not pinned.

For each batch size ``B`` it builds ``BattleBatch(scenario, num_battles=B, seed=seed)``
(``sfb_env.compiled.batch``), resets it, steps it a few times untimed (numba compiles there;
the set-up column is construction + reset + warm-up), then for ``--seconds`` of wall clock
repeats ``bb.step(bb.sample_actions(rng))`` (random masked actions, vectorised; battles that
end are reset inside ``step``).  One step is one impulse of every battle, and one impulse for
each of ``bb.ships_per_battle`` ships in each battle, so

    ship-impulses/s = steps x B x ships_per_battle / seconds.

The table also gives the rate of ``step`` alone (the sampler's time taken out) and the
sampler's share of the loop.  Unless ``--no-reference``, a last row measures the reference
engine through ``sfb_env.parallel_env(scenario, backend="reference")`` (one battle, the
masked sampler of ``benchmarks/peers.py``), counting the same ``ships_per_battle`` per env
step, and every row shows its speed-up over it.

Until ``sfb_env.compiled.batch`` exists the script prints ``compiled batch API not available``
and exits 0.  ``--quick`` is a tiny run for the tests (sizes 1 and 64, 0.2 s each).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# This tree's sfb_env, not the editable install's (which may be another worktree).
sys.path.insert(0, str(ROOT))
from peers import machine, masked_policy, play  # noqa: E402  (benchmarks/ is sys.path[0])

DEFAULT_SIZES = (1, 64, 1024, 4096)
UNAVAILABLE = "compiled batch API not available"


@dataclass
class Row:
    label: str
    battles: int
    steps: int
    seconds: float
    step_seconds: float  # the time in step alone (the sampler's taken out)
    ships: int
    setup_s: float
    cpu_seconds: float = 0.0  # CPU time of the timed loop (a shared machine's fair figure)

    @property
    def ship_impulses_per_s(self) -> float:
        return self.steps * self.battles * self.ships / self.seconds

    @property
    def step_only_per_s(self) -> float:
        return self.steps * self.battles * self.ships / self.step_seconds

    @property
    def per_cpu_second(self) -> float:
        return self.steps * self.battles * self.ships / self.cpu_seconds if self.cpu_seconds \
            else float("nan")

    @property
    def sampler_share(self) -> float:
        return 1.0 - self.step_seconds / self.seconds


def measure_batch(batch_class: Any, scenario: str, battles: int, seconds: float, seed: int,
                  warmup: int) -> tuple[Row, str]:
    """One batch size: the row, and the shapes ``reset`` gave (for the header)."""
    t0 = time.perf_counter()
    bb = batch_class(scenario, num_battles=battles, seed=seed)
    obs, masks = bb.reset()
    shapes = f"obs {tuple(obs.shape)} {obs.dtype}, masks {tuple(masks.shape)} {masks.dtype}"
    rng = np.random.default_rng(seed)
    for _ in range(warmup):
        bb.step(bb.sample_actions(rng))
    setup = time.perf_counter() - t0
    clock = time.perf_counter
    steps = 0
    stepping = 0.0
    t0 = now = clock()
    cpu0 = time.process_time()
    deadline = t0 + seconds
    actions = bb.sample_actions(rng)
    while now < deadline:
        actions = bb.sample_actions(rng, out=actions)  # (written in place: no allocation)
        s0 = clock()
        bb.step(actions)
        now = clock()
        stepping += now - s0
        steps += 1
    row = Row(f"compiled B={battles}", battles, steps, now - t0, stepping,
              int(bb.ships_per_battle), setup, time.process_time() - cpu0)
    return row, shapes


def measure_reference(scenario: str, ships: int, seconds: float, seed: int, warmup: int) -> Row:
    import sfb_env

    t0 = time.perf_counter()
    try:  # (backend="auto", the default, is the compiled core on the tier-1 scenarios)
        env = sfb_env.parallel_env(scenario, backend="reference")
    except TypeError:  # a tree from before the backends: the reference is all it has
        env = sfb_env.parallel_env(scenario)
    policy, _ = masked_policy(env, seed)
    played = play(env, policy, seconds, seed, warmup)
    built = time.perf_counter() - t0 - played.seconds - played.warmup_s
    return Row("reference env (1 battle)", 1, played.steps, played.seconds,
               played.seconds - played.sampling, ships, built + played.warmup_s)


def threads() -> str:
    try:
        import numba
    except ImportError:
        return "numba not installed"
    return f"numba threads {numba.get_num_threads()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", default="duel-klingon-vs-federation")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES),
                        help="batch sizes B (default: %(default)s)")
    parser.add_argument("--seconds", type=float, default=5.0, help="timed length of each size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--warmup", type=int, default=3,
                        help="untimed steps before each size (numba compiles here)")
    parser.add_argument("--no-reference", action="store_true",
                        help="skip the reference env row (and the speed-up column)")
    parser.add_argument("--quick", action="store_true",
                        help="tiny run for the tests: sizes 1 and 64, 0.2 s each")
    args = parser.parse_args(argv)
    sizes, seconds, warmup = args.sizes, args.seconds, args.warmup
    if args.quick:
        sizes, seconds, warmup = [1, 64], 0.2, 2
    if seconds <= 0 or warmup < 0 or min(sizes) < 1:
        parser.error("--seconds must be > 0, --warmup >= 0 and every size >= 1")

    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    print("\n".join(machine()))
    pinned = cpus is not None and len(cpus) == 1
    print(f"running on CPUs {cpus if cpus is not None else 'unknown'}, {threads()}"
          + ("" if pinned else "  (not pinned to one core: use taskset -c 0 for per-core "
                               "figures)"), flush=True)
    try:
        from sfb_env.compiled.batch import BattleBatch
    except ImportError as error:
        print(f"{UNAVAILABLE} (from sfb_env.compiled.batch import BattleBatch: {error})")
        return 0

    try:
        BattleBatch(args.scenario, 1, seed=args.seed)
    except ValueError as error:  # NotCompiledError: the compiled core does not play it yet
        print(f"{args.scenario}: not on the compiled core ({error})")
        print(target_line([], args.scenario))
        return 0
    rows: list[Row] = []
    shapes = ""
    for battles in sizes:
        row, seen = measure_batch(BattleBatch, args.scenario, battles, seconds, args.seed,
                                  warmup)
        rows.append(row)
        shapes = shapes or f"B={battles}: {seen}"
        print(f"  measured B={battles}: {row.steps} steps", file=sys.stderr, flush=True)
    reference = None
    if not args.no_reference:
        reference = measure_reference(args.scenario, rows[0].ships, seconds, args.seed, warmup)
        rows.append(reference)

    print(f"\n{args.scenario}: {rows[0].ships} ships per battle, random masked actions, "
          f"{seconds:g} s per row after {warmup} untimed warm-up steps; reset gave {shapes}\n")
    head = "| batch | steps | battle-impulses/s | ship-impulses/s | step alone, ship-imp/s |"
    rule = "|---|---:|---:|---:|---:|"
    if reference:
        head, rule = head + " vs reference |", rule + "---:|"
    print(head + " per CPU-second, ship-imp/s | sampler share | set-up s |")
    print(rule + "---:|---:|---:|")
    for r in rows:
        line = (f"| {r.label} | {r.steps:,} | {r.steps * r.battles / r.seconds:,.0f} | "
                f"{r.ship_impulses_per_s:,.0f} | {r.step_only_per_s:,.0f} |")
        if reference:
            line += f" {r.ship_impulses_per_s / reference.ship_impulses_per_s:,.1f}x |"
        print(line + f" {r.per_cpu_second:,.0f} | {r.sampler_share:.1%} | {r.setup_s:.1f} |")
    print("\n" + target_line([r for r in rows if r is not reference], args.scenario))
    return 0


TARGET = 1_000_000  # ship-impulses/s on one core at the best B
TARGET_ISSUES = {"duel-klingon-vs-federation": "issue 12", "grad-lyran-vs-hydran": "issue 14"}


def target_line(rows: list[Row], scenario: str = "duel-klingon-vs-federation") -> str:
    """The issue's batched target against the best B, with and without the sampler (issue 12
    on the duel, issue 14 on grad-lyran-vs-hydran; other scenarios have only their figures)."""
    issue = TARGET_ISSUES.get(scenario)
    if issue is None:
        return f"no batched target for {scenario} (issue 14 asks for its figures)"
    if not rows:
        return (f"target ({issue}, on {scenario}): >= {TARGET:,} ship-impulses/s on one core: "
                "not met (not on the compiled core)")
    best = max(rows, key=lambda r: r.ship_impulses_per_s)
    best_step = max(rows, key=lambda r: r.step_only_per_s)

    def verdict(value: float) -> str:
        return "met" if value >= TARGET else f"not met, {value / TARGET:.2f}x"

    return (f"target ({issue}, on {scenario}): >= {TARGET:,} ship-impulses/s on one core at the "
            f"best B; sampler included: B={best.battles} {best.ship_impulses_per_s:,.0f} "
            f"({verdict(best.ship_impulses_per_s)}); step alone: B={best_step.battles} "
            f"{best_step.step_only_per_s:,.0f} ({verdict(best_step.step_only_per_s)})")


if __name__ == "__main__":
    sys.exit(main())
