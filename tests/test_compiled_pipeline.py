"""The kernels' compiler pipeline (``compiled.pipeline``): copies forwarded only where the
source holds one value, and the programs unchanged."""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np
import pytest
from numba.core.compiler import run_frontend

from sfb_env.compiled import boarding, event_codes
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


# --- InlineSharingScopes: one scope copy per copy of the callee's IR --------------------------

@nb.njit(inline="always")
def _clamp(x, low, high):
    """Branches: an inlined body of several blocks, sharing one scope."""
    if x < low:
        y = low
    elif x > high:
        y = high
    else:
        y = x
    return y


@nb.njit(inline="always")
def _clamped_sum(values, low, high):
    """Inlines ``_clamp`` itself (the callee's own untyped pipeline inlines it too), with a
    local named as the caller's."""
    total = 0
    for k in range(values.shape[0]):
        y = _clamp(values[k], low, high)
        total += y
    return total


def _inlines_twice(values):
    y = _clamped_sum(values, 2, 6)  # the same callee inlined at two sites: its copies apart
    z = _clamped_sum(values, 0, 3)
    w = _clamp(y - z, 0, 100)
    return y * 1000 + z * 10 + w


def test_nested_and_repeated_inlining_gives_the_python_results():
    from sfb_env.compiled import pipeline

    values = np.arange(10, dtype=np.int64)
    piped = nb.njit(pipeline_class=KernelPipeline)(_inlines_twice)
    assert piped(values) == nb.njit(_inlines_twice)(values) == _python_inlines_twice(values)
    assert not pipeline._SHARING and not pipeline._SCOPE_COPIES  # nothing kept after inlining


def _python_inlines_twice(values) -> int:
    def clamp(x, low, high):
        return min(max(x, low), high)
    y = sum(clamp(int(v), 2, 6) for v in values)
    z = sum(clamp(int(v), 0, 3) for v in values)
    return y * 1000 + z * 10 + clamp(y - z, 0, 100)


def test_a_shared_scope_copied_outside_inlining_is_a_new_copy_each_time():
    import copy

    from numba.core import ir

    from sfb_env.compiled.pipeline import _SharedScope

    scope = ir.Scope(None, ir.Loc("f", 1))
    scope.define("x", ir.Loc("f", 1))
    scope.__class__ = _SharedScope
    first, second = copy.deepcopy(scope), copy.deepcopy(scope)
    assert first is not second and first is not scope
    assert "x" in first.localvars and first.localvars.get("x").scope is first


def _clamps_once(x):
    return _clamp(x, 0, 10)


def test_the_blocks_of_one_copy_of_the_callee_share_one_scope_copy(monkeypatch):
    """numba copies the callee's IR twice per inlining (the copy it mutates and the one it
    returns): two scope copies, whatever the number of the callee's blocks."""
    from sfb_env.compiled.pipeline import _SharedScope

    copies = []
    deepcopy = _SharedScope.__deepcopy__

    def counting(self, memo):
        new = deepcopy(self, memo)
        copies.append(new)
        return new

    monkeypatch.setattr(_SharedScope, "__deepcopy__", counting)
    kernel = nb.njit(pipeline_class=KernelPipeline)(_clamps_once)
    assert [kernel(x) for x in (-3, 4, 12)] == [0, 4, 10]
    assert len(copies) > 2  # one per block of the callee, at least three blocks
    assert len({id(c) for c in copies}) == 2


@nb.njit(pipeline_class=KernelPipeline)
def _two_rows(buf, count, turn, impulse):
    event_codes.begin(buf, count, 0, boarding.COMBAT, turn, impulse)
    return event_codes.begin(buf, count, 0, boarding.CAPTURED, turn, impulse)


def test_event_rows_of_different_codes_compile_the_row_writer_once():
    """The kernels pass event codes as module constants (numba literals): through
    ``PlainConstantArguments`` ``begin`` gets a plain int, so it is compiled once, not once
    per code (64 in the core)."""
    buf, count = np.zeros((1, 4, event_codes.WIDTH), np.int64), np.zeros(1, np.int64)
    assert _two_rows(buf, count, 3, 7) == 1
    assert buf[0, :2, :3].tolist() == [[boarding.COMBAT, 3, 7], [boarding.CAPTURED, 3, 7]]
    codes = [sig[3] for sig in event_codes.begin.signatures]  # (other kernels' too)
    assert codes and not any(isinstance(code, nb.types.Literal) for code in codes)


CODE_A, CODE_B = 17, 18


@nb.njit(pipeline_class=KernelPipeline)
def _scaled(x, code, flag):
    return x * code + (1 if flag else 0)


@nb.njit(pipeline_class=KernelPipeline)
def _scales_by_constants(x):
    return _scaled(x, CODE_A, True) + _scaled(x, CODE_B, False) + _scaled(x, 3, True)


def test_constant_arguments_compile_the_called_kernel_once():
    """``PlainConstantArguments``: module constants and literals reach a called kernel as plain
    ints and bools (numba would compile it once per value), and the results are the same."""
    assert _scales_by_constants(2) == (2 * 17 + 1) + (2 * 18) + (2 * 3 + 1)
    assert _scaled.signatures == [(nb.types.int64, nb.types.int64, nb.types.boolean)]


# --- FieldLoads: a field read loads the field, not the whole namedtuple ----------------------

_Wide = namedtuple("_Wide", [f"a{i}" for i in range(12)])


def _reads_fields_in_a_loop(w, n):
    """``w`` is used in several blocks (so numba keeps it in a stack slot); its fields are
    read in a loop, one of them written."""
    total = 0
    for b in range(n):
        if w.a3[b] > 0:
            total += w.a3[b] * w.a7[b]
        else:
            total -= w.a11[b]
        w.a5[b] = total
    return total


def _copies_in_a_loop(w, n):
    """A copy of ``w`` stored in a slot on every pass, deleted and stored again."""
    total = 0
    for b in range(n):
        v = w
        if b % 2 == 0:
            v = _Wide(*w[6:], *w[:6])  # the fields rotated: another tuple in the same slot
        total += v.a0[b] * 10 + v.a6[b]
        v.a1[b] = total
    return total


def _lowered_ir(lower_class, nrt: bool) -> str:
    """The unoptimized LLVM IR of ``_reads_fields_in_a_loop`` as ``lower_class`` lowers it,
    after ``KernelPipeline``'s other passes."""
    from sfb_env.compiled import pipeline

    lowered: list[str] = []

    class Recording(lower_class):
        def lower(self):
            super().lower()
            lowered.append(str(self.module))

    recording = pipeline.lowering_pass(Recording, "test_recording_lowering")

    class Pipeline(pipeline.KernelPipeline):
        def define_pipelines(self):
            [pm] = pipeline.KernelPipeline.define_pipelines(self)
            pipeline.replace_pass(pm, pipeline.FieldLoadsLowering, recording).finalize()
            return [pm]

    kernel = nb.njit(_nrt=nrt, pipeline_class=Pipeline)(_reads_fields_in_a_loop)
    w = _Wide(*[np.arange(4, dtype=np.int64) - 1 for _ in range(12)])
    assert kernel(w, 4) == _reads_fields_in_a_loop(w, 4)
    return lowered[0]


def _whole_loads(ir_text: str) -> int:
    return ir_text.count("load [12 x ")  # the namedtuple of 12 arrays, loaded whole


def test_a_field_read_loads_the_field_not_the_whole_namedtuple():
    from numba.core import lowering

    from sfb_env.compiled.pipeline import FieldLoads

    assert _whole_loads(_lowered_ir(lowering.Lower, nrt=False)) >= 4  # numba: one per read
    assert _whole_loads(_lowered_ir(FieldLoads, nrt=False)) == 0
    assert _whole_loads(_lowered_ir(FieldLoads, nrt=True)) == 1  # the del, to release it


def test_without_reference_counts_a_store_and_a_del_do_not_load_the_old_value():
    from numba.core import lowering

    from sfb_env.compiled.pipeline import FieldLoads

    zero_fill = "store [12 x {i8*, i8*, i64, i64, i64*, [1 x i64], [1 x i64]}] zeroinitializer"
    # numba fills every slot with zeros where it allocates it, and again where it deletes it
    assert _lowered_ir(lowering.Lower, nrt=False).count(zero_fill) == 2
    assert _lowered_ir(FieldLoads, nrt=False).count(zero_fill) == 1
    assert _lowered_ir(FieldLoads, nrt=True).count(zero_fill) == 2  # released: numba's del


@pytest.mark.parametrize("nrt", [False, True])
@pytest.mark.parametrize("func", [_reads_fields_in_a_loop, _copies_in_a_loop])
def test_field_loads_give_the_python_results(func, nrt):
    kernel = nb.njit(_nrt=nrt, pipeline_class=KernelPipeline)(func)
    made = [_Wide(*[(np.arange(6, dtype=np.int64) * (k + 1)) % 5 - 2 for k in range(12)])
            for _ in range(2)]
    assert kernel(made[0], 6) == func(made[1], 6)
    assert all((a == b).all() for a, b in zip(*made, strict=True))  # the same writes
