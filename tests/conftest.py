"""Shared test helpers."""

from __future__ import annotations

import importlib
import os

import pytest

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
# The whole core compiles once, single-threaded, for minutes (docs/compiled.md "Cold
# compile"). Tests in the xdist group "compiled" run on one worker, which compiles it first
# while the other worker runs the engine's tests; tests marked ``compiled_late`` have no group
# and are collected last, so either worker takes them once it is free. Whichever worker needs
# the core first builds it under a file lock beside the numba cache; the other waits on the
# lock and then loads the cached kernels instead of compiling them a second time.

def pytest_configure(config):
    config.addinivalue_line(
        "markers", "compiled_late: needs the compiled core; no xdist group, collected last "
        "(tests/conftest.py)")


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("compiled_late") is not None)


_CORE_READY = False


def _build_core_once() -> None:
    """Compile (or load from the numba cache) the step kernel, under a lock shared by the
    xdist workers of this machine."""
    global _CORE_READY
    if _CORE_READY:
        return
    import fcntl
    import hashlib
    import tempfile
    from pathlib import Path

    import numpy as np

    from sfb_env.compiled.batch import BattleBatch

    checkout = hashlib.sha1(str(Path(__file__).resolve().parents[1]).encode()).hexdigest()[:12]
    with open(Path(tempfile.gettempdir()) / f"sfb-env-core-{checkout}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            # A graduate duel, not a cadet one: its step also runs the observation's second
            # pass (``observe.extras``, a kernel of its own), which every scenario with
            # tier-2 parts needs; built here once, no later test or subprocess compiles it.
            batch = BattleBatch("grad-lyran-vs-hydran", num_battles=1, seed=0)
            batch.reset()
            batch.step(batch.sample_actions(np.random.default_rng(0)))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    _CORE_READY = True


def pytest_runtest_setup(item):
    if item.get_closest_marker("compiled_late") is not None or any(
            m.args[:1] == ("compiled",) for m in item.iter_markers("xdist_group")):
        _build_core_once()
