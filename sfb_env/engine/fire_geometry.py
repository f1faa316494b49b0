"""Fire geometry read by every weapon: range and arc of targets from a weapon (D2.1, D3.42) and
the facing a seeking weapon is launched with (FD1.2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap
from sfb_env.engine.geometry import table as geometry_table

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle


def geometry(battle: Battle, w: int, targets: np.ndarray):
    """Range and arc membership of ``targets`` from the owner of weapon ``w``.

    At range 0 the arc is judged from both units' positions on the previous impulse (D3.42);
    if they shared a hex then too, the target counts as in arc.
    """
    st = battle.state
    rng, bits, same_hex = _owner_geometry(battle, int(st.w_owner[w]))
    rng, bits, same_hex = rng[targets], bits[targets], same_hex[targets]
    in_arc = (bits & st.w_arcs[w]) != 0
    if st.w_astern[w]:
        in_arc |= (bits & hexmap.ASTERN_ROW_BITS) == hexmap.ASTERN_ROW_BITS
    return rng, in_arc | same_hex


def _owner_geometry(battle: Battle, o: int):
    """Range, base-arc bits (D2.1) and "shared the hex on the previous impulse too" of every
    unit seen from unit ``o`` (rows of the impulse's geometry table)."""
    table = geometry_table(battle.state)
    return table.range[o], table.fire_arc_bits[o], table.shared_hex[o]


def fa_facings(battle: Battle, owner: int, target: int) -> np.ndarray:
    """(FD1.2) bool (6,): the facings A..F a drone launched by ``owner`` may take, those that
    put ``target`` in its FA. In the target's hex only the launcher's facing (F2.3, CTH-DATA
    §1.5: judged from the hex astern, the target lies straight ahead)."""
    st = battle.state
    x, z = st.x[owner], st.z[owner]
    if x == st.x[target] and z == st.z[target]:
        return np.arange(6) == int(st.facing[owner])
    bits = hexmap.arc_bits_np(x, z, np.arange(6), st.x[target], st.z[target])
    return (bits & hexmap.ARC_BITS["FA"]) != 0


def launch_facing(battle: Battle, owner: int, target: int) -> int:
    """(FD1.2) A facing that puts the target in the drone's FA, closing fastest (ties: the one
    nearest the launcher's facing). A target in the launcher's own hex is judged with the
    launcher moved back one hex directly astern (F2.3, CTH-DATA §1.5): the target then lies
    straight ahead, so the weapon takes the launcher's facing."""
    st = battle.state
    x, z = st.x[owner], st.z[owner]
    if x == st.x[target] and z == st.z[target]:  # (F2.3) launched in the target's hex
        x, z = hexmap.neighbor_np(x, z, (st.facing[owner] + 3) % 6)
    facings = np.arange(6)
    bits = hexmap.arc_bits_np(x, z, facings, st.x[target], st.z[target])
    in_fa = (bits & hexmap.ARC_BITS["FA"]) != 0
    nx, nz = hexmap.neighbor_np(x, z, facings)
    dist = hexmap.distance_np(nx, nz, st.x[target], st.z[target])
    turn_away = np.minimum((facings - st.facing[owner]) % 6, (st.facing[owner] - facings) % 6)
    key = np.where(in_fa, dist * 10 + turn_away, 10**9)
    return int(np.argmin(key))
