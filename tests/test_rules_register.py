"""The register of docs/rules.md: every PROPOSAL marker in code, data and the rules digests of
``docs/engine/`` carries a register id (``PROPOSAL [P-042]``, or ``# [P-042]`` at the end of a
line whose PROPOSAL is a value or a message), every id is an entry of the register, and every
entry is used somewhere."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("sfb_env", "configs", "agents", "docs/engine")  # docs/engine: the rules digests
SUFFIXES = (".py", ".yaml", ".yml", ".md")
MARKER = re.compile(r"\bPROPOSALS?\b")
TAG = re.compile(r"\[(P-\d{3})\]")
ENTRY = re.compile(r"^\| (P-\d{3}) \| (\S+) \|")
KINDS = {"choice", "simplification", "proposal"}


def scanned_files() -> list[Path]:
    return sorted(p for d in SCANNED for p in (ROOT / d).rglob("*")
                  if p.is_file() and p.suffix in SUFFIXES and "__pycache__" not in p.parts)


def register() -> list[tuple[str, str]]:
    """(id, kind) of every register row in docs/rules.md."""
    lines = (ROOT / "docs" / "rules.md").read_text().splitlines()
    return [(m.group(1), m.group(2)) for line in lines if (m := ENTRY.match(line))]


def used_ids() -> dict[str, list[str]]:
    """Register id -> the places (file:line) that carry it."""
    used: dict[str, list[str]] = {}
    for path in scanned_files():
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for rid in TAG.findall(line):
                used.setdefault(rid, []).append(f"{path.relative_to(ROOT)}:{n}")
    return used


def test_scanned_files_are_found():
    files = scanned_files()
    assert any(p.suffix == ".py" for p in files) and any(p.suffix == ".yaml" for p in files)
    assert any(p.parent == ROOT / "docs" / "engine" and p.suffix == ".md" for p in files)


def test_every_proposal_marker_carries_a_register_id():
    missing = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
               for path in scanned_files()
               for n, line in enumerate(path.read_text().splitlines(), 1)
               if MARKER.search(line) and not TAG.search(line)]
    assert not missing, "PROPOSAL markers without a [P-nnn] id:\n" + "\n".join(missing)


def test_register_rows_are_unique_and_of_a_known_kind():
    rows = register()
    assert rows, "docs/rules.md has no register rows"
    twice = [rid for rid, count in Counter(rid for rid, _ in rows).items() if count > 1]
    assert not twice, f"register ids listed twice: {twice}"
    unknown = [(rid, kind) for rid, kind in rows if kind not in KINDS]
    assert not unknown, f"register rows of an unknown kind: {unknown}"


def test_every_id_in_code_and_data_is_in_the_register():
    listed = {rid for rid, _ in register()}
    unlisted = {rid: places for rid, places in used_ids().items() if rid not in listed}
    assert not unlisted, f"ids missing from docs/rules.md: {unlisted}"


def test_every_register_entry_is_used():
    used = used_ids()
    stale = [rid for rid, _ in register() if rid not in used]
    assert not stale, f"register entries no code, data or docs/engine file carries: {stale}"


def _docstrings(tree: ast.AST) -> set[int]:
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, owners) and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}


def _strings(value: object):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@pytest.mark.parametrize("suffix", [".py", ".yaml"])
def test_register_ids_live_only_in_comments_and_docstrings(suffix):
    """An id changes no behaviour: in Python it is never part of a string the code uses (only
    comments and docstrings); in YAML it is a comment, never part of a value."""
    leaks = []
    for path in scanned_files():
        if path.suffix not in (suffix, ".yml" if suffix == ".yaml" else suffix):
            continue
        text = path.read_text()
        if not TAG.search(text):
            continue
        if suffix == ".py":
            tree = ast.parse(text)
            docs = _docstrings(tree)
            values = [node.value for node in ast.walk(tree)
                      if isinstance(node, ast.Constant) and isinstance(node.value, str)
                      and id(node) not in docs]
        else:
            values = list(_strings(yaml.safe_load(text)))
        leaks += [f"{path.relative_to(ROOT)}: {v!r}" for v in values if TAG.search(v)]
    assert not leaks, "register ids inside data or code strings:\n" + "\n".join(leaks)
