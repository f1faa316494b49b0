"""``compiled.dispatch.kernel``: kernels compiled without numba's wrappers, the Python entry
point made at the first call from Python."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections import namedtuple
from pathlib import Path

import numba as nb
import numpy as np
import pytest

from sfb_env.compiled import handle
from sfb_env.compiled.dispatch import KernelDispatcher, kernel

Pair = namedtuple("Pair", ["a", "b"])


@kernel(_nrt=False, error_model="numpy")
def _add_and_double(p, i):
    if i < 0:
        raise ValueError("a negative row")
    p.a[i] += p.b[i]
    return p.a[i] * 2.0


@kernel(_nrt=False, error_model="numpy")
def _sum_rows(p, n):
    total = 0.0
    for i in range(n):
        total += _add_and_double(p, i)
    return total


@kernel(_nrt=False, error_model="numpy")
def _callee_only(p, i):
    return p.a[i] + p.b[i]


@kernel(_nrt=False, error_model="numpy")
def _calls_callee_only(p):
    return _callee_only(p, 0) + _callee_only(p, 1)


def _pair() -> Pair:
    return Pair(np.arange(4.0), np.full(4, 10.0))


def _wrappers(dispatcher) -> set[str]:
    """numba's wrappers that the function's own library defines (compiled or cached)."""
    (cres,) = dispatcher.overloads.values()
    defined = {f.name for f in cres.library._get_module_for_linking().functions
               if not f.is_declaration}
    return defined & {cres.fndesc.llvm_cpython_wrapper_name, cres.fndesc.llvm_cfunc_wrapper_name}


def test_a_kernel_compiled_for_its_caller_has_no_python_wrapper():
    p = _pair()
    assert isinstance(_calls_callee_only, KernelDispatcher)
    assert _calls_callee_only(p) == 21.0
    # as the caller's typing asks for it (a caller loaded from the cache needs no callee)
    entry = _callee_only.compile((nb.typeof(p), nb.int64))
    assert type(entry).__name__ != "builtin_function_or_method"  # not made yet
    assert _wrappers(_callee_only) == set()
    assert _wrappers(_calls_callee_only) == set()  # its entry point lives in a library of its own


def test_a_python_call_makes_the_entry_point_once_and_dispatch_then_takes_it():
    p = _pair()
    assert _sum_rows(p, 4) == 2 * (10 + 11 + 12 + 13)  # the callee compiled for the caller
    assert _add_and_double(p, 1) == 2 * (11 + 10)  # then called from Python
    (args,) = _add_and_double.overloads
    entry = _add_and_double.python_entry(args)
    assert type(entry).__name__ == "builtin_function_or_method"
    assert _add_and_double.compile(args) is entry
    assert handle.compiled_entry(_add_and_double, (p, 1)) is entry
    assert _add_and_double(p, 2) == 2 * (12 + 10)
    assert p.a.tolist() == [10.0, 21.0, 22.0, 13.0]  # written through, as numba's own


def test_an_exception_raised_in_a_kernel_reaches_python():
    with pytest.raises(ValueError, match="a negative row"):
        _add_and_double(_pair(), -1)


_MODULE = """
    import numpy as np
    from sfb_env.compiled.dispatch import kernel

    @kernel(_nrt=False, error_model="numpy")
    def inner(a, i):
        if i < 0:
            raise IndexError("below the first row")
        return a[i] * 3.0

    @kernel(_nrt=False, error_model="numpy")
    def outer(a):
        return inner(a, 0) + inner(a, 1)
"""


def test_a_kernel_loaded_from_the_cache_without_wrapper_is_callable_from_python(tmp_path: Path):
    """One process compiles ``outer`` (``inner`` cached as a callee: no wrapper); the next
    loads ``inner`` from the cache, makes its Python entry point (cached too) and calls it; a
    third loads both; a fourth compiles ``inner`` afresh and makes its own."""
    (tmp_path / "cached_kernels.py").write_text(textwrap.dedent(_MODULE))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(Path(__file__).parents[1])])}
    first = "import numpy as np, cached_kernels as k; print(k.outer(np.arange(3.0)))"
    then = ("from numba.core.cpu import CPUContext\n"
            "made = []\n"
            "wrap = CPUContext.create_cpython_wrapper\n"
            "CPUContext.create_cpython_wrapper = lambda *a, **k: made.append(1) or wrap(*a, **k)\n"
            "import numpy as np, cached_kernels as k\n"
            "a = np.arange(3.0)\n"
            "print(k.inner(a, 2), sum(k.inner.stats.cache_hits.values()), len(made))\n"
            "try:\n    k.inner(a, -1)\nexcept IndexError as e:\n    print(e)\n")
    # a process that compiles ``inner`` afresh (other symbol names: numba numbers them per
    # process) beside the cached entry point of the cached ``inner`` makes its own
    afresh = ("import numba\n"
              "for i in range(5):\n    numba.njit(lambda x: x + 1)(i)\n"
              "import cached_kernels as k\n"
              "k.inner._cache.load_overload = lambda *args, **kws: None\n" + then)
    out = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True).stdout.split("\n")
           for code in (first, then, then, afresh)]
    assert out[0][0] == "3.0"
    assert out[1][:2] == ["6.0 1 1", "below the first row"]  # the entry point made
    assert out[2][:2] == ["6.0 1 0", "below the first row"]  # and loaded
    assert out[3][:2] == ["6.0 0 1", "below the first row"]  # compiled afresh: made again
