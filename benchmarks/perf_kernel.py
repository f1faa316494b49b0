"""The step's kernels under ``perf``, by function: a perf map for numba's JIT code.

    perf record -o step.data python benchmarks/perf_kernel.py [SCENARIO] [--battles 64]
                                                              [--steps 20000]
    perf report -i step.data --sort sym

``perf`` sees numba's JIT code as anonymous memory. After a warm-up the script reads the
two kernels' object code back from numba's cache (the ``.nbc`` files of ``batch._play_batch``
and ``batch._step_batch``: every kernel one calls without inlining is a function of its
object), lists their functions with ``readelf`` and writes ``/tmp/perf-<pid>.map`` with their
load addresses, then steps the batch (random masked actions) for ``--steps`` impulses; ``perf
report`` names the functions. What is inlined in a kernel (``procedure.advance``'s stages in
``_play_batch``, ``observe`` in ``_step_batch``, ...) shows as that kernel: ``perf annotate``
cannot read JIT code, so for instructions dump the code (``/proc/self/maps``) and
``objdump`` the object. Reads numba's cache format (``CompileResult`` pickles: the object is
the first entry of the library's payload), which numba may change.
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _short(mangled: str) -> str:
    """``module.function`` from numba's Itanium-style mangled name."""
    parts, i = [], 3  # after "_ZN"
    while i < len(mangled) and mangled[i].isdigit():
        j = i
        while j < len(mangled) and mangled[j].isdigit():
            j += 1
        n = int(mangled[i:j])
        parts.append(mangled[j:j + n])
        i = j + n
    return ".".join(parts[2:]) or mangled[:60]


def write_perf_map(dispatcher, cache_dir: Path, mode: str = "w") -> int:
    """``/tmp/perf-<pid>.map`` for the functions of ``dispatcher``'s cached object (``mode``
    "a": added to the map); returns how many."""
    (_, cres), = list(dispatcher.overloads.items())[:1]
    stem = dispatcher.py_func.__module__.rsplit(".", 1)[-1] + "." + dispatcher.__name__
    nbc = max(cache_dir.rglob(f"{stem}-*.nbc"), key=os.path.getmtime)
    obj_path = Path(f"/tmp/perf-kernel-{os.getpid()}-{stem}.o")
    obj_path.write_bytes(pickle.loads(nbc.read_bytes())[0][2][0])
    table = subprocess.run(["readelf", "-sW", str(obj_path)], capture_output=True, text=True,
                           check=True).stdout
    symbols = [(int(p[1], 16), int(p[2], 0), p[7]) for p in map(str.split, table.splitlines())
               if len(p) >= 8 and p[3] == "FUNC"]
    name = cres.fndesc.llvm_func_name
    base = cres.library.get_pointer_to_function(name) - next(v for v, _, n in symbols
                                                             if n == name)
    with open(f"/tmp/perf-{os.getpid()}.map", mode) as out:
        for value, size, mangled in symbols:
            out.write(f"{base + value:x} {size:x} {_short(mangled)}\n")
    return len(symbols)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scenario", nargs="?", default="grad-lyran-vs-hydran")
    p.add_argument("--battles", type=int, default=64)
    p.add_argument("--steps", type=int, default=20000)
    args = p.parse_args()
    from sfb_env.compiled import CACHE_DIR
    from sfb_env.compiled.batch import BattleBatch, _observe_extras, _play_batch, _step_batch
    from sfb_env.compiled.sampler import _sample

    bb = BattleBatch(args.scenario, args.battles, seed=0)
    bb.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        bb.step(bb.sample_actions(rng))
    if CACHE_DIR is None:
        sys.exit("no numba cache folder: nothing to read the kernel's object from")
    n = write_perf_map(_play_batch, CACHE_DIR)
    for kernel in (_step_batch, _sample) + ((_observe_extras,) if bb._extras else ()):
        n += write_perf_map(kernel, CACHE_DIR, "a")
    t = time.perf_counter()
    for _ in range(args.steps):
        bb.step(bb.sample_actions(rng))
    dt = time.perf_counter() - t
    print(f"{n} functions mapped; {args.scenario} B={args.battles}: "
          f"{dt / args.steps / args.battles * 1e6:.3f} us per battle-impulse "
          f"({args.steps * args.battles * bb.ships_per_battle / dt:,.0f} ship-impulses/s)")


if __name__ == "__main__":
    main()
