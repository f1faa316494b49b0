"""The values a flat action mask allows, read component by component.

Its own module so that both ``agents.base`` (which loads checkpoints through
``agents.sb3_policy``) and ``agents.sb3_policy`` can read masks without an import cycle.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def open_values(mask: np.ndarray, nvec: Any) -> list[list[int]]:
    """The values a flat action mask allows, component by component (``nvec``: the sizes),
    as Python lists: a captain reads a few values a component every decision, where numpy
    calls on such small arrays cost more than the reading."""
    flags = np.asarray(mask).astype(bool).tolist()
    values: list[list[int]] = []
    start = 0
    for n in np.asarray(nvec).tolist():
        values.append([v for v in range(n) if flags[start + v]])
        start += n
    return values
