"""The step's kernels under ``perf``, by function: a perf map for numba's JIT code.

    perf record -o step.data python benchmarks/perf_kernel.py [SCENARIO] [--battles 64]
                                                              [--steps 20000]
    perf report -i step.data --sort sym
    python benchmarks/perf_kernel.py --hot step.data PID batch._step_batch [--windows 12]

``perf`` sees numba's JIT code as anonymous memory. After a warm-up the script reads the
kernels' object code back from numba's cache (the ``.nbc`` files of ``batch._play_batch``,
``batch._step_batch``, ``sampler._sample`` and, where an agent has tier-2 parts,
``batch._observe_extras``: every kernel one calls without inlining is a function of its
object), lists their functions with ``readelf`` and writes ``/tmp/perf-<pid>.map`` with their
load addresses (and each object as ``/tmp/perf-kernel-<pid>-<kernel>.o``), then steps the batch
(random masked actions) for ``--steps`` impulses; ``perf report`` names the functions. What is
inlined in a kernel (``procedure.advance``'s stages in ``_play_batch``, ``observe`` in
``_step_batch``, ...) shows as that kernel. ``perf annotate`` cannot read JIT code: ``--hot``
reads the samples of one function (``perf script``), and prints its hottest 256-byte windows
with their instructions (``objdump`` of the saved object) and samples per instruction. Reads
numba's cache format (``CompileResult`` pickles: the object is the first entry of the
library's payload), which numba may change.
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
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


def _functions(obj_path: Path) -> list[tuple[int, int, str]]:
    """(value, size, mangled name) of every function of an object file (``readelf``)."""
    table = subprocess.run(["readelf", "-sW", str(obj_path)], capture_output=True, text=True,
                           check=True).stdout
    return [(int(p[1], 16), int(p[2], 0), p[7]) for p in map(str.split, table.splitlines())
            if len(p) >= 8 and p[3] == "FUNC"]


def _cached_object(cache_dir: Path, stem: str, symbol: str) -> bytes:
    """The object code in numba's cache of the overload of ``stem`` that defines ``symbol``
    (a kernel's name for the signature this process runs; another overload of the same
    kernel, or the Python entry point that ``compiled.dispatch`` saves beside it as a tuple
    ``(key, library)``, the key starting "python entry", may be newer)."""
    for nbc in sorted(cache_dir.rglob(f"{stem}-*.nbc"), key=os.path.getmtime, reverse=True):
        data = pickle.loads(nbc.read_bytes())
        if isinstance(data[0], tuple) and data[0][:1] == ("python entry",):
            continue
        obj = data[0][2][0]
        if symbol.encode() in obj:
            return obj
    raise FileNotFoundError(f"no compiled overload of {stem} defining {symbol} in {cache_dir}")


def write_perf_map(dispatcher, cache_dir: Path, mode: str = "w") -> int:
    """``/tmp/perf-<pid>.map`` for the functions of ``dispatcher``'s cached object (``mode``
    "a": added to the map); returns how many."""
    (_, cres), = list(dispatcher.overloads.items())[:1]
    stem = dispatcher.py_func.__module__.rsplit(".", 1)[-1] + "." + dispatcher.__name__
    name = cres.fndesc.llvm_func_name
    obj_path = Path(f"/tmp/perf-kernel-{os.getpid()}-{stem}.o")
    obj_path.write_bytes(_cached_object(cache_dir, stem, name))
    symbols = _functions(obj_path)
    base = cres.library.get_pointer_to_function(name) - next(v for v, _, n in symbols
                                                             if n == name)
    with open(f"/tmp/perf-{os.getpid()}.map", mode) as out:
        for value, size, mangled in symbols:
            out.write(f"{base + value:x} {size:x} {_short(mangled)}\n")
    return len(symbols)


def hot_windows(data: str, pid: int, function: str, windows: int = 12) -> None:
    """The hottest 256-byte windows of ``function`` (a name of ``/tmp/perf-<pid>.map``) in the
    ``perf record`` file ``data``, each with its instructions and their samples."""
    start, size = next((int(s[0], 16), int(s[1], 16)) for s in map(
        str.split, Path(f"/tmp/perf-{pid}.map").read_text().splitlines()) if s[2] == function)
    script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True,
                            text=True, check=True).stdout
    samples: dict[int, int] = {}
    total = 0
    for line in script.splitlines():
        parts = line.split()
        total += 1
        if len(parts) >= 2 and parts[1] == function:
            offset = int(parts[0], 16) - start
            samples[offset] = samples.get(offset, 0) + 1
    mine = sum(samples.values())
    print(f"{function}: {mine} of {total} samples")
    kernel, base = next((path, value) for path in Path("/tmp").glob(f"perf-kernel-{pid}-*.o")
                        for value, _, mangled in _functions(path) if _short(mangled) == function)
    dump = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={base}",
                           f"--stop-address={base + size}", str(kernel)], capture_output=True,
                          text=True, check=True).stdout
    code = {}
    for line in dump.splitlines():
        address, _, text = line.strip().partition(":")
        if text and all(c in "0123456789abcdef" for c in address):
            code[int(address, 16) - base] = re.sub(r"<(_ZN[^>]{0,40})[^>]*>", r"<\1...>",
                                                   text.strip())[:110]
    by_window: dict[int, int] = {}
    for offset, n in samples.items():
        by_window[offset // 256] = by_window.get(offset // 256, 0) + n
    for window, n in sorted(by_window.items(), key=lambda w: -w[1])[:windows]:
        print(f"--- {window * 256:#x}: {n / max(mine, 1):.1%} of {function}")
        for offset in sorted(o for o in code if window * 256 <= o < window * 256 + 256):
            print(f"{samples.get(offset, 0):6d} {offset:#8x}  {code[offset]}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scenario", nargs="?", default="grad-lyran-vs-hydran")
    p.add_argument("--battles", type=int, default=64)
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--hot", nargs=3, metavar=("DATA", "PID", "FUNCTION"),
                   help="print FUNCTION's hottest code in the perf record DATA of process PID")
    p.add_argument("--windows", type=int, default=12, help="how many windows --hot prints")
    args = p.parse_args()
    if args.hot:
        hot_windows(args.hot[0], int(args.hot[1]), args.hot[2], args.windows)
        return
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
    print(f"{n} functions mapped (process {os.getpid()}); {args.scenario} B={args.battles}: "
          f"{dt / args.steps / args.battles * 1e6:.3f} us per battle-impulse "
          f"({args.steps * args.battles * bb.ships_per_battle / dt:,.0f} ship-impulses/s)")


if __name__ == "__main__":
    main()
