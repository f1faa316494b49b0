"""Shared test helpers."""

from __future__ import annotations

import importlib
import os
import sys

import pytest

# Bytecode caches for the session, whatever PYTHONDONTWRITEBYTECODE says (this machine sets
# it): without them every xdist worker rewrote the asserts of every test module and compiled
# every module of the project again, and so did every subprocess a test starts (the CLI, the
# bench's workers, the benchmark scripts): collection alone 22 s a worker instead of 10 s.
# Set before the workers start (pytest loads this file first) and before anything below
# imports the project; the caches go to __pycache__ folders, which git ignores.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# The compiled core at LLVM -O1, as `sfb` compiles it (sfb_env.cli.main): about a tenth less
# cold compile than numba's default -O3, and steps as fast (docs/compiled.md "Cold compile").
# Set before anything imports numba: numba re-reads every NUMBA_* variable when one changes,
# which would also undo the cache folder sfb_env.compiled gives it.
os.environ.setdefault("NUMBA_OPT", "1")

import agents  # noqa: E402,F401 - installs the loader of named opponents (sfb_env.env.opponents)

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
# The suite tests the rules on the reference engine, the specification: many tests reach into
# ``env.battle`` or replace an engine predicate. The compiled core is tested against it by the
# parity harness and on its own API (tests/test_compiled_*.py, which choose their backend), and
# the README's envs by tests/test_standard_checkers.py (``auto``, via ``readme_backend``).
os.environ.setdefault("SFB_BACKEND", "reference")


@pytest.fixture
def readme_backend(monkeypatch):
    """Envs built as the README builds them: the default backend (``auto``)."""
    monkeypatch.delenv("SFB_BACKEND", raising=False)


def require(module: str):
    """Import an optional dependency: skipped locally if missing, an error under CI=true
    (CI installs every extra the suite needs, so a missing one must fail, not skip)."""
    if os.environ.get("CI", "").lower() == "true":
        return importlib.import_module(module)
    return pytest.importorskip(module)


# --- The compiled core on two xdist workers (.ci/run: ``-n 2 --dist loadgroup``) -----------
# The core compiles once, single-threaded, for minutes (docs/compiled.md "Cold compile"): the
# play kernel (the orders and the impulse), the step kernel (the observation) and the
# observation's second pass (the graduate scenarios' kernel). On xdist workers both start
# with the first test: gw0 compiles the play kernel, the other worker the step kernel and the
# second pass; then each runs the engine's tests.
# Tests that need the core are marked ``compiled_late``: collected last, so either worker
# takes them once the core is built (the other worker waits on the lock, then loads the
# cached kernels). A test that steps the core without the mark fails.

def pytest_configure(config):
    config.addinivalue_line(
        "markers", "compiled_late: needs the compiled core; no xdist group, collected last "
        "(tests/conftest.py)")


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("compiled_late") is not None)


_CORE_READY = False
_SESSION_NEEDS_CORE = False
_STARTED = False  # this worker's first test chose what it compiles (_start_building)


def _lock_path(kind: str):
    import hashlib
    import tempfile
    from pathlib import Path

    checkout = hashlib.sha1(str(Path(__file__).resolve().parents[1]).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"sfb-env-{kind}-{checkout}.lock"


def _build_core_once() -> None:
    """Compile (or load from the numba cache) the core's kernels, each under a lock shared
    by the xdist workers of this machine (``_build_kernel``: a kernel the other worker is
    compiling is waited for, then loaded), and step it once."""
    global _CORE_READY
    if _CORE_READY:
        return
    import numpy as np

    from sfb_env.compiled.batch import BattleBatch

    _build_kernel("core")
    _build_kernel("play")
    if os.environ.get("PYTEST_XDIST_WORKER"):  # before a graduate scenario's test (or subprocess)
        _build_kernel("extras")
    batch = BattleBatch("duel-klingon-vs-federation", num_battles=1, seed=0)
    batch.reset()
    batch.step(batch.sample_actions(np.random.default_rng(0)))
    _CORE_READY = True


def _start_building() -> None:
    """On an xdist worker, at its first test of a session that needs the core: gw0 compiles
    the play kernel (the larger), the other worker the step kernel and the observation's
    second pass meanwhile; then each goes on with the engine's tests."""
    global _STARTED
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if _STARTED or not _SESSION_NEEDS_CORE or not worker:
        return
    _STARTED = True
    if worker == "gw0":  # takes the largest xdist group first (loadgroup's order)
        _build_kernel("play")
    else:
        _build_kernel("core")
        _build_kernel("extras")


_BUILT: set[str] = set()


def _build_kernel(kind: str) -> None:
    """Compile (or load) one of the core's kernels for its signature, without running it,
    under a lock of its own: ``core`` the step kernel (``batch._step_batch``: the observation
    and the resets), ``play`` the play kernel (``batch._play_batch``: the orders and the
    impulse), ``extras`` ``batch._observe_extras`` (the tier-2 observation pass, which a
    cadet duel's step never calls)."""
    if kind in _BUILT:
        return
    import fcntl

    from sfb_env.compiled import batch as batch_mod

    with open(_lock_path(kind), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if kind == "extras":
                bb = batch_mod.BattleBatch("grad-lyran-vs-hydran", num_battles=1, seed=0)
                assert bb._extras, "grad-lyran-vs-hydran has tier-2 parts"
                bb.compile_extras_kernel()
            else:
                bb = batch_mod.BattleBatch("duel-klingon-vs-federation", num_battles=1, seed=0)
                if kind == "core":
                    bb.compile_step_kernel()
                else:
                    bb.compile_play_kernel()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    _BUILT.add(kind)


def _needs_core(item) -> bool:
    return item.get_closest_marker("compiled_late") is not None


def pytest_collection_finish(session):
    global _SESSION_NEEDS_CORE
    _SESSION_NEEDS_CORE = any(_needs_core(item) for item in session.items)


def pytest_runtest_setup(item):
    if _needs_core(item):
        _build_core_once()
    else:
        _start_building()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """A test that steps the compiled core without the mark would compile the whole core
    on its own, outside the lock, beside the worker that builds it (minutes of a cold CI
    run): it fails, naming the mark."""
    cold = not _CORE_READY and not _needs_core(item)
    before = _kernels_compiled()
    result = yield
    if cold and _kernels_compiled() != before:
        pytest.fail(f"{item.nodeid} steps the compiled core: mark it compiled_late "
                    "(tests/conftest.py), so it waits for the one build of the core",
                    pytrace=False)
    return result


def _kernels_compiled() -> tuple[int, int]:
    """How many signatures of the step kernel and of the play kernel this process compiled
    or loaded."""
    import sys

    batch = sys.modules.get("sfb_env.compiled.batch")
    if batch is None:
        return 0, 0
    return len(batch._step_batch.signatures), len(batch._play_batch.signatures)
