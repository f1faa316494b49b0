"""The observation's hex geometry in compiled code equals ``hexmap``'s (D2.1 arcs, D3.4
shields) for every offset within range 12 and every facing."""

from __future__ import annotations

import numpy as np
import pytest

from sfb_env import hexmap
from sfb_env.compiled import observe

pytestmark = pytest.mark.compiled_late


def _offsets(reach: int = 12) -> tuple[np.ndarray, np.ndarray]:
    vx, vz = np.meshgrid(np.arange(-reach, reach + 1), np.arange(-reach, reach + 1))
    vx, vz = vx.ravel(), vz.ravel()
    keep = hexmap.distance_np(0, 0, vx, vz) <= reach
    return vx[keep], vz[keep]


@pytest.mark.parametrize("facing", range(6))
def test_arc_bits_are_d2_1_arcs_of_hexmap(facing):
    vx, vz = _offsets()
    want = hexmap.arc_bits_np(3, -2, facing, vx + 3, vz - 2)
    got = [observe._arc_bits(3, -2, facing, int(x) + 3, int(z) - 2)
           for x, z in zip(vx, vz, strict=True)]
    assert got == want.tolist()


@pytest.mark.parametrize("facing", range(6))
def test_shield_bits_are_d3_4_shields_of_hexmap(facing):
    vx, vz = _offsets()
    keep = (vx != 0) | (vz != 0)  # (a line from the unit's own hex strikes no one shield)
    vx, vz = vx[keep], vz[keep]
    want = hexmap.shield_bits_np(-1, 4, facing, vx - 1, vz + 4)
    got = [observe._shield_bits(-1, 4, facing, int(x) - 1, int(z) + 4)
           for x, z in zip(vx, vz, strict=True)]
    assert got == want.tolist()
