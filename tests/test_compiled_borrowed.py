"""``compiled.borrowed``: ``opaque`` passes its value through unchanged, behind an asm barrier."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from sfb_env.compiled.borrowed import opaque


@nb.njit
def _sum_rows(a):
    total = 0
    for i in range(a.shape[0]):
        b = opaque(i)
        for j in range(a.shape[1]):
            total += a[b, j] * (b + 1)
    return total


@nb.njit
def _through(x):
    return opaque(x)


def test_opaque_gives_back_its_value_for_every_integer_type():
    for value in (np.int8(-5), np.int32(123456), np.uint64(2**63 + 7), -(2**62), 0):
        out = _through(value)
        assert out == value
    a = np.arange(12, dtype=np.int64).reshape(4, 3)
    assert _sum_rows(a) == sum(int(a[i, j]) * (i + 1) for i in range(4) for j in range(3))


def test_opaque_takes_integers_only():
    with pytest.raises(nb.core.errors.TypingError, match="opaque"):
        _through(1.5)


def test_opaque_is_an_inline_asm_barrier_in_the_compiled_loop():
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    _sum_rows(a)
    llvm = _sum_rows.inspect_llvm(_sum_rows.signatures[0])
    assert 'asm "", "=r,0"' in llvm
