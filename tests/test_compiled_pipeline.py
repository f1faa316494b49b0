"""The kernels' compiler pipeline (``compiled.pipeline``): copies forwarded only where the
source holds one value, and the programs unchanged."""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.core.compiler import run_frontend

from sfb_env.compiled.pipeline import KernelPipeline, forwardable_copies


def _copies_of(func) -> dict[str, str]:
    blocks = run_frontend(func).blocks
    return {name: var.name for name, var in forwardable_copies(blocks).items()}


def _argument_copy(s):
    t = s
    return t[0] + t[1]


def _first_of_a_loop(n):
    total = 0
    first = 0
    for i in range(n):
        v = i * 2 + 1  # set once in the code, but again on every pass of the loop
        if i == 0:
            alias = v  # set once, on the first pass only
        total += alias  # noqa: F821 - the first pass's v, not the current one
        first = alias
    return total + first


@nb.njit(inline="always")
def _head(values, k):
    return values[k] * 2


def _inlines_a_helper(values, n):
    total = 0
    for k in range(n):
        total += _head(values, k)
    return total


def test_a_copy_of_an_argument_is_forwarded():
    assert _copies_of(_argument_copy) == {"t": "s"}


def test_a_copy_of_a_value_set_inside_a_loop_is_kept():
    assert "alias" not in _copies_of(_first_of_a_loop)
    kernel = nb.njit(pipeline_class=KernelPipeline)(_first_of_a_loop)
    assert kernel(5) == _first_of_a_loop(5) == 5 + 1


def test_an_inlined_helper_gives_the_same_result_through_the_pipeline():
    values = np.arange(10, dtype=np.int64)
    plain = nb.njit(_inlines_a_helper)
    piped = nb.njit(pipeline_class=KernelPipeline)(_inlines_a_helper)
    assert piped(values, 10) == plain(values, 10) == 90
