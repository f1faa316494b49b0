"""Shared test helpers."""

from __future__ import annotations

import importlib
import os

import pytest

import agents  # noqa: F401 - installs the loader of named opponents (sfb_env.env.opponents)

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
