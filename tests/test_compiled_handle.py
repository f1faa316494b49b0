"""``compiled.handle``: one word carries a batch's arrays into a kernel, borrowed.

The handles here hold plain tuples: numba's cache index of a kernel pickles the types it was
compiled for, so a namedtuple class defined in a test module would make every later process
that loads that index import the test module (and fail).
"""

from __future__ import annotations

import sys

import numba as nb
import numpy as np
import pytest

from sfb_env.compiled import handle
from sfb_env.compiled.batch import BattleBatch

pytestmark = pytest.mark.compiled_late


@nb.njit(cache=True)
def _bump(ref, by):
    (left, right), counts, flag = handle.deref(ref)
    for i in range(left.shape[0]):
        left[i] += by
    right[0, 1] = by * 2
    counts[0] += 1
    return flag


def test_a_kernel_through_the_handle_writes_into_the_callers_arrays():
    left, right, counts = np.zeros(3), np.zeros((2, 2), np.int64), np.zeros(1, np.int64)
    ref = handle.make(((left, right), counts, True))
    assert _bump(ref, 5) is True
    _bump(ref, 5)
    np.testing.assert_array_equal(left, [10.0, 10.0, 10.0])
    assert right[0, 1] == 10 and counts[0] == 2


def test_deref_leaves_every_reference_count_as_it_was():
    """No reference is taken or dropped per call (the handle keeps the arrays alive)."""
    left, right, counts = np.zeros(3), np.zeros((2, 2), np.int64), np.zeros(1, np.int64)
    ref = handle.make(((left, right), counts, False))
    _bump(ref, 1)
    before = [sys.getrefcount(a) for a in (left, right, counts)]
    for _ in range(1000):
        _bump(ref, 1)
    assert [sys.getrefcount(a) for a in (left, right, counts)] == before
    assert counts[0] == 1001


@nb.njit(cache=True)
def _total(ref):
    (left, right), counts, _ = handle.deref(ref)
    return left.sum() + right.sum() + counts.sum()


def test_the_handle_keeps_its_arrays_alive():
    """Arrays whose only owner is the handle stay valid (read back after a collection)."""
    import gc

    ref = handle.make(((np.arange(4.0), np.full((2, 2), 3, np.int64)),
                       np.ones(1, np.int64), True))
    gc.collect()
    np.zeros(10_000)  # fresh allocations where freed memory would be reused
    assert _total(ref) == 6.0 + 12 + 1


# scenarios of every rule family the core plays (tiers 1 and 2: 8/16/32 impulses, the forms,
# the DACs, plasma, cloaks, the PPD, the ESG, small craft, the scenario-10 rules)
FAMILIES = ("cth-03", "duel-klingon-vs-federation", "cth-06", "cth-07", "cth-13",
            "grad-lyran-vs-hydran", "grad-isc-vs-romulan", "duel-full-romulan-vs-federation",
            "grad-lyran-full-vs-klingon", "grad-isc-full-vs-hydran", "grad-hydran-full-vs-orion")


def test_every_rule_family_steps_through_one_compiled_signature():
    """The step kernel's argument types are the same for every scenario (``nb.typeof`` of the
    handle's tuple: dtypes, dimensions, layouts, read-only flags), so numba compiles the whole
    core once, not once per scenario family (docs/compiled.md, "Cold compile")."""
    first = None
    for name in FAMILIES:
        item = BattleBatch(name, num_battles=1, seed=0).handle().item_type
        if first is None:
            first = item
        assert item == first, name


def test_compile_step_and_play_kernels_compile_the_signatures_the_first_step_uses():
    from sfb_env.compiled import batch as batch_mod

    bb = BattleBatch("grad-lyran-vs-hydran", num_battles=2, seed=0)
    bb.compile_step_kernel()
    bb.compile_play_kernel()
    assert bb._handle is None  # compiled without making the handle
    kernels = (batch_mod._step_batch, batch_mod._play_batch)
    compiled = [set(k.signatures) for k in kernels]
    assert all(len(c) == 1 for c in compiled)
    bb.reset()
    bb.step(bb.sample_actions(np.random.default_rng(0)))
    assert [set(k.signatures) for k in kernels] == compiled  # nothing new to compile


@nb.njit(cache=True)
def _scalars(ref):
    (pair, small, wide, flag, ratio, unsigned), grid = handle.deref(ref)
    grid[1, 2] = pair[0][0] + pair[1][1]
    return small, wide, flag, ratio, unsigned, pair[0].shape[0], grid.strides[0]


def test_make_writes_numba_s_layout_of_every_member_type():
    """``make`` writes the tuple in numba's data layout from Python: a UniTuple of arrays (an
    LLVM array), a bool (one byte before 8-byte members), narrow and wide integers, a float,
    an unsigned; a kernel reads each back and writes through the arrays."""
    pair = (np.arange(3, dtype=np.int64), np.arange(5, 8, dtype=np.int64))
    grid = np.zeros((3, 4), np.int32)
    parts = ((pair, np.int8(-3), 2**40 + 7, True, 0.25, np.uint16(65535)), grid)
    made = handle.make(parts)
    assert made.address % 8 == 0 and made.parts is parts
    assert _scalars(made) == (-3, 2**40 + 7, True, 0.25, 65535, 3, 16)
    assert grid[1, 2] == 0 + 6


def test_make_refuses_a_value_numba_s_layout_cannot_hold_naming_its_type():
    with pytest.raises(TypeError, match="cannot hold a value of type unicode_type"):
        handle.make((np.zeros(2), "cruiser"))


@nb.njit(cache=True)
def _pinned_callee(p, i, by):
    """A callee out of line taking its arguments pinned (``handle.pin``), as the play
    kernel's stages do (``procedure.pin_calls``)."""
    (left, right), scale, flag = handle.deref(p)
    left[i] += by * scale
    if flag:
        right[i % right.shape[0], 0] += 1
    return left[i]


@nb.njit(cache=True)
def _pin_once_call_many(left, right, scale, flag):
    p = handle.pin(((left, right), scale, flag))  # stored once, before the loop
    total = 0.0
    for i in range(left.shape[0]):
        total += _pinned_callee(p, i, 1.0)
    return total


def test_pin_passes_a_tuple_by_one_word_that_reads_and_writes_the_callers_arrays():
    """The callee reads the pinned arrays, scalar and boolean (stored as numba's data: the
    boolean an i8) and writes into the caller's arrays."""
    left, right = np.arange(4.0), np.zeros((2, 1), np.int64)
    assert _pin_once_call_many(left, right, 3.0, True) == pytest.approx(0 + 1 + 2 + 3 + 4 * 3)
    np.testing.assert_array_equal(left, [3.0, 4.0, 5.0, 6.0])
    np.testing.assert_array_equal(right, [[2], [2]])
    _pin_once_call_many(left, right, 1.0, False)
    np.testing.assert_array_equal(left, [4.0, 5.0, 6.0, 7.0])
    np.testing.assert_array_equal(right, [[2], [2]])  # the flag read back False


def test_pinned_calls_leave_every_reference_count_as_it_was():
    """The pinned arrays are borrowed: no reference taken or dropped per call."""
    left, right = np.zeros(64), np.zeros((2, 1), np.int64)
    _pin_once_call_many(left, right, 1.0, True)
    before = [sys.getrefcount(a) for a in (left, right)]
    for _ in range(100):
        _pin_once_call_many(left, right, 1.0, True)
    assert [sys.getrefcount(a) for a in (left, right)] == before
    assert left[0] == 101.0


@nb.njit(cache=True)
def _through_member(ref, by):
    """The second member of the handle's tuple reached by address (``handle.member``), then
    read and written as the play kernel's calls do (``procedure.held_calls``)."""
    return _pinned_callee(handle.member(ref, 1), 0, by)


def test_member_is_the_address_of_a_member_of_a_handles_tuple():
    left, right = np.arange(3.0), np.zeros((1, 1), np.int64)
    other = np.zeros(2)
    ref = handle.make((other, ((left, right), 2.0, True)))
    assert _through_member(ref, 5.0) == 10.0  # left[0] += 5 * 2.0
    np.testing.assert_array_equal(left, [10.0, 1.0, 2.0])
    assert right[0, 0] == 1 and not other.any()
