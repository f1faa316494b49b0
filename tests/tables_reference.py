"""Helpers for the ``test_tables_*`` modules: read chart blocks copied from CTH-DATA.md.

Each test module holds the chart blocks as literal text copied from
``shared/reference/CTH-DATA.md`` and parses them here, independently of ``sfb_env``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CTH_DATA = Path(__file__).resolve().parents[2] / "shared/reference/CTH-DATA.md"


def assert_in_reference(block: str) -> None:
    """The literal ``block`` appears verbatim in CTH-DATA.md (skipped when the file is absent)."""
    if not CTH_DATA.is_file():
        pytest.skip(f"{CTH_DATA} not available")
    assert block in CTH_DATA.read_text(encoding="utf-8"), f"not verbatim in CTH-DATA.md:\n{block}"


def bracket(label: str) -> range:
    """Ranges of a printed bracket label: ``R3``, ``6-8``, ``1–6`` (en dash), ``31+`` (to 99)."""
    match = re.fullmatch(r"R?(\d+)(?:[-–](\d+)|(\+))?", label)
    assert match, f"bad bracket label {label!r}"
    low = int(match[1])
    high = 99 if match[3] else int(match[2] or low)
    return range(low, high + 1)


def lines(block: str) -> list[list[str]]:
    """Whitespace-split non-empty lines of ``block``."""
    return [line.split() for line in block.splitlines() if line.strip()]


def die_chart(block: str) -> dict[tuple[int, int], int]:
    """A phaser-type block (``die`` + bracket labels, rows die 1..6) as {(range, die): value}."""
    header, *rows = lines(block)
    assert header[0] == "die" and len(rows) == 6
    cells = {}
    for row in rows:
        die, values = int(row[0]), [int(v) for v in row[1:]]
        assert len(values) == len(header) - 1
        for label, value in zip(header[1:], values, strict=True):
            for rng in bracket(label):
                cells[rng, die] = value
    return cells
