"""A kernel of the compiled core built cold, timed by function (numba's compile events).

    taskset -c 0 python benchmarks/compile_time.py [--kernel play|step|extras] [--top 20]
                                                   [--cache DIR] [--passes]

Builds one of the core's kernels for the duel's types (``play``: ``batch._play_batch`` through
``BattleBatch.compile_play_kernel``; ``step``: ``batch._step_batch``; ``extras``: the tier-2
pass ``batch._observe_extras``, for grad-lyran-vs-hydran) without running it, in an empty numba
cache (a fresh temporary folder unless ``--cache``: a cache root as ``$NUMBA_CACHE_DIR`` takes
it, the parent of ``sfb_env.compiled``'s digest folders, where what is already cached is loaded
instead), at the suite's ``NUMBA_OPT=1`` unless the environment sets it. Prints the wall and
process CPU time, then the functions that took longest to compile, each with its own time (its
callees' compiles taken out) and its time with them. ``--passes`` turns on numba's LLVM pass
timers (``NUMBA_LLVM_PASS_TIMINGS``) and prints the slowest passes on the kernel's own body
(SROA, the register allocator, ...). Compile times swing with the machine and with what else
runs on it: compare two trees side by side, one per core.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KERNELS = ("play", "step", "extras")


class CompileClock:
    """Each function's compile time from numba's ``numba:compile`` events, which nest (a
    callee compiles while its caller types): ``own`` excludes the callees', ``total`` not."""

    def __init__(self) -> None:
        self._stack: list[list] = []
        self.own: dict[str, float] = {}
        self.total: dict[str, float] = {}

    def start(self, name: str, now: float) -> None:
        self._stack.append([name, now, 0.0])

    def end(self, now: float) -> None:
        name, began, callees = self._stack.pop()
        took = now - began
        self.own[name] = self.own.get(name, 0.0) + took - callees
        self.total[name] = self.total.get(name, 0.0) + took
        if self._stack:
            self._stack[-1][2] += took

    def slowest(self, top: int) -> list[tuple[str, float, float]]:
        ranked = sorted(self.own.items(), key=lambda kv: -kv[1])[:top]
        return [(name, own, self.total[name]) for name, own in ranked]


def _listen(clock: CompileClock) -> None:
    from numba.core import event

    def name_of(ev) -> str:
        func = ev.data["dispatcher"].py_func
        return f"{func.__module__.rsplit('.', 1)[-1]}.{func.__name__}"

    class Listener(event.Listener):
        def on_start(self, ev) -> None:
            clock.start(name_of(ev), time.process_time())

        def on_end(self, ev) -> None:
            clock.end(time.process_time())

    event.register("numba:compile", Listener())


def build(kernel: str):
    """Compile (or load) ``kernel``; the dispatcher whose body is the kernel's."""
    from sfb_env.compiled import batch

    if kernel == "extras":
        batch.BattleBatch("grad-lyran-vs-hydran", num_battles=1, seed=0).compile_extras_kernel()
        return batch._observe_extras
    bb = batch.BattleBatch("duel-klingon-vs-federation", num_battles=1, seed=0)
    if kernel == "play":
        bb.compile_play_kernel()
        return batch._play_batch
    bb.compile_step_kernel()
    return batch._step_batch


def _passes(dispatcher, top: int) -> list[tuple[str, float]]:
    """The slowest LLVM passes on the kernel's own module (numba's pass timers)."""
    seconds: dict[str, float] = {}
    for sig in dispatcher.signatures:
        timings = dispatcher.get_metadata(sig).get("llvm_pass_timings")
        for record in timings or ():
            # LLVM reports each pass of a run twice (the same name and time): count it once
            for name, wall in {(r.pass_name, r.wall_time) for r in record.timings.list_records()
                               if r.pass_name != "Total"}:  # (LLVM's own sum of the run)
                seconds[name] = seconds.get(name, 0.0) + wall
    return sorted(seconds.items(), key=lambda kv: -kv[1])[:top]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernel", choices=KERNELS, default="play")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--cache", help="numba cache root, set as $NUMBA_CACHE_DIR: the parent "
                        "of the sources' digest folders, e.g. ~/.cache/sfb-env/numba, not "
                        "a digest folder itself (default: a fresh one)")
    parser.add_argument("--passes", action="store_true", help="LLVM pass timers")
    args = parser.parse_args(argv)
    os.environ.setdefault("NUMBA_OPT", "1")
    os.environ["NUMBA_CACHE_DIR"] = args.cache or tempfile.mkdtemp(prefix="sfb-compile-")
    if args.passes:
        os.environ["NUMBA_LLVM_PASS_TIMINGS"] = "1"
    clock = CompileClock()
    _listen(clock)
    wall, cpu = time.perf_counter(), time.process_time()
    dispatcher = build(args.kernel)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"kernel {args.kernel}: {wall:.1f} s wall, {cpu:.1f} s CPU, {len(clock.own)} "
          f"functions compiled (NUMBA_OPT={os.environ['NUMBA_OPT']}, cache "
          f"{os.environ['NUMBA_CACHE_DIR']}, CPUs {sorted(os.sched_getaffinity(0))})")
    print("\n| function | own s | with its callees s |\n|---|---:|---:|")
    for name, own, total in clock.slowest(args.top):
        print(f"| {name} | {own:.1f} | {total:.1f} |")
    if args.passes:
        print("\n| LLVM pass on the kernel's body | s |\n|---|---:|")
        for name, seconds in _passes(dispatcher, args.top):
            print(f"| {name} | {seconds:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
