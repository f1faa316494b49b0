"""Shared test helpers."""

from __future__ import annotations

import importlib
import os

import pytest

import agents  # noqa: F401 - installs the loader of named opponents (sfb_env.env.opponents)

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


def require(module: str):
    """Import an optional dependency: skipped locally if missing, an error under CI=true
    (CI installs every extra the suite needs, so a missing one must fail, not skip)."""
    if os.environ.get("CI", "").lower() == "true":
        return importlib.import_module(module)
    return pytest.importorskip(module)
