"""Weapons as the pure resolvers' records: a fusion beam for E7 (``engine.fusion``), a phaser-G
for E2.15 (``engine.phaser_g``), built from the battle's weapon arrays."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sfb_env.engine import energy_switches, fire_energy, fusion, phaser_g
from sfb_env.engine.types import NEVER

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle


def fusion_beam(battle: Battle, w: int, firing: bool = False) -> fusion.FusionBeam:
    """Fusion beam ``w`` as the E7 resolver's record on the current turn: its last firing turn
    (E7.22), and the Chief Engineer's 2 arming points if it may be armed now (E7.21).

    ``firing``: the beam fires in this Direct-Fire step, whose fire is simultaneous (E1.0): a
    beam destroyed in the same step (by a PPD volley, resolved first, E11.332) still fires."""
    st = battle.state
    fired = int(st.w_fired_turn[w])
    beam = fusion.FusionBeam(fired_turn=fired or None,
                             destroyed=bool(st.w_destroyed[w]) and not firing)
    if battle.rules.chief_engineer and fusion.can_arm(beam, st.turn)[0]:
        beam = fusion.arm(beam, st.turn)
    elif st.w_armed[w] and energy_switches.governed(battle, int(st.w_owner[w])):
        beam = fusion.arm(beam, st.turn)  # (E7.21) paid at Energy Allocation (engine.energy)
    elif fire_energy.reserve_arm_ready(battle, w) and fusion.can_arm(beam, st.turn)[0]:
        beam = fusion.arm(beam, st.turn, reserve=True)  # (H7.2, E7.24) batteries as it fires
    return beam


def gatling(battle: Battle, w: int) -> phaser_g.GatlingPhaser:
    """Phaser-G ``w`` with its recent shots, as the E2.15 resolver's record."""
    st = battle.state
    shots = tuple(int(t) for t in st.w_gatling_shots[w] if t != NEVER)
    return phaser_g.GatlingPhaser(st.impulses_per_turn, shots=shots)


def gatling_shots_left(battle: Battle, w: int) -> int:
    """Shots phaser-G ``w`` has left this turn (E2.151; the quarter-turn window aside)."""
    gun = gatling(battle, w)
    return gun.shots_per_turn - phaser_g.shots_this_turn(gun, battle.state.turn)
