"""The house stays honest: the rules engine and the env layer never import the captains
(``agents``) or the training code (``training``), which sit above them (DESIGN "Inside the
engine"); and the env decides no rule it can ask ``engine.knowledge`` for."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOWER = sorted((ROOT / "sfb_env" / "engine").glob("*.py")) + sorted(
    (ROOT / "sfb_env" / "env").glob("*.py"))
ABOVE = ("agents", "training")


def _imports(path: Path) -> set[str]:
    """Top-level package of every module ``path`` imports (function-level imports too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".")[0])
    return out


@pytest.mark.parametrize("path", LOWER, ids=[f"{p.parent.name}/{p.name}" for p in LOWER])
def test_engine_and_env_never_import_agents_or_training(path: Path):
    assert not _imports(path) & set(ABOVE), path


def test_env_asks_the_engine_whether_a_captured_ship_leaves_its_player():
    """(D7.0) The env's termination reads ``knowledge.commanded_by_player``, not the state."""
    source = (ROOT / "sfb_env" / "env" / "parallel.py").read_text()
    assert "captured_by" not in source and "knowledge.commanded_by_player" in source
