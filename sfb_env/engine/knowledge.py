"""What a side knows and whether a ship is still its player's: rule decisions the env reads.

The env layer (``sfb_env.env``) translates; it decides no rule. Where an observation or a
termination depends on a rule (a capture ends the player's command of the ship, D7.0; lock-on
to a cloaked ship is lost, D6 / G13; an announced ESG field is secret until it forms, G23.43,
G23.46; the phase of a cloak's fade, G13; the transporter uses a ship has left, G8.0; the
arming turns a heavy weapon has paid, B3.0; who is an enemy in play, what is aimed at a ship),
the verdict is one function here. Each takes the ``Battle`` and returns plain values (bools,
ints, numpy arrays); none writes the state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env.engine import cloak, energy, transporters, unit_rules
from sfb_env.engine.esg import EsgPhase
from sfb_env.engine.types import Status, UnitKind

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

ESG_FIELD_GENERATORS = 2  # generators shown per ship (the Tiger's two, CTH-DATA §9.2)
_OPERATING = int(EsgPhase.ACTIVE)
_ACTIVE = int(Status.ACTIVE)
_THREAT_KINDS = (int(UnitKind.DRONE), int(UnitKind.PLASMA), int(UnitKind.FIGHTER),
                 int(UnitKind.SHUTTLE))
_IS_THREAT = np.zeros(max(int(k) for k in UnitKind) + 1, dtype=bool)  # by UnitKind
_IS_THREAT[list(_THREAT_KINDS)] = True


def commanded_by_player(battle: Battle, unit: int) -> bool:
    """Whether ``unit`` is still its player's to command: in play (or yet to arrive) and not
    captured (D7.0: a captured ship leaves its player; the captor's pilot flies it)."""
    return (unit_rules.in_play_or_coming(battle, unit)
            and int(battle.state.captured_by[unit]) < 0)


def enemies_in_play(battle: Battle, unit: int) -> np.ndarray:
    """Unit rows of the other sides' units in play (candidates for ``unit``'s target slots)."""
    st = battle.state
    return np.flatnonzero((st.status == Status.ACTIVE) & (st.side != st.side[unit]))


def threats_to(battle: Battle, unit: int) -> np.ndarray:
    """Unit rows in play aimed at ``unit``: drones and plasma torpedoes (F2.0, FP1.0), and
    fighters and shuttles sent at it (J4.0, J1.0); a seeking weapon's target is known."""
    st = battle.state
    return np.flatnonzero((st.target == unit) & (st.status == _ACTIVE)
                          & _IS_THREAT[st.kind])


def lock_on_to(battle: Battle, unit: int, rows: np.ndarray) -> np.ndarray:
    """(D6, G13) Whether ``unit``'s fire and launches at each of ``rows`` have lock-on: its own
    lock-on this turn, and the target not fully cloaked (bool array like ``rows``)."""
    own = bool(battle.state.locked_on[unit])
    return own & ~np.asarray(cloak.fully_cloaked(battle, rows), dtype=bool)


def cloak_phases(battle: Battle, rows: np.ndarray) -> np.ndarray:
    """(G13 standard rule) (n, 4) per unit of ``rows``: cloak engaged (cloaked or fading out),
    fading out, fading in, the fade's impulse / 4 (1..4 from the announcement, 0 when not
    fading); what the other side sees of a cloak."""
    st = battle.state
    engaged = st.cloaked[rows].astype(bool)
    fading = np.asarray(cloak.fading(battle, rows), dtype=bool)
    since = st.absolute_impulse - st.cloak_announced_at[rows]
    return np.column_stack([engaged, fading & engaged, fading & ~engaged,
                            np.where(fading, (since + 1) / float(cloak.FADE_IMPULSES), 0.0)])


def esg_fields_seen(battle: Battle, unit: int) -> np.ndarray:
    """(G23.46, G23.43) (2, 3) for the first two generators of ``unit`` (weapon-row order):
    field operating (0/1), radius (0..3), strength. "The size and strength of the sphere can be
    detected and must be announced" once it operates; an announced field not yet released
    shows nothing (its energy and radius are secret until the release)."""
    st = battle.state
    out = np.zeros((ESG_FIELD_GENERATORS, 3), dtype=np.float64)
    for g, w in enumerate(battle.esg_rows(unit)[:ESG_FIELD_GENERATORS]):
        if int(st.esg_phase[w]) == _OPERATING:
            out[g] = (1.0, max(0, int(st.esg_radius[w])), float(st.esg_strength[w]))
    return out


def transporter_uses_left(battle: Battle, unit: int) -> int:
    """(G8.0) Transporter uses ``unit`` has left this turn: the uses paid on the standard form
    (else the working transporters), at most the working ones, less those used; 0 without
    transporters in use or on the sheet."""
    if not (battle.rules.transporters and transporters.sheet_count(battle, unit)):
        return 0
    paid = (int(battle.state.tran_powered[unit]) if transporters.paid_by_form(battle, unit)
            else transporters.working(battle, unit))
    return max(0, min(paid, transporters.working(battle, unit))
               - transporters.used_this_turn(battle, unit))


def arming_turns_paid(battle: Battle, weapon: int) -> tuple[int, int]:
    """(B3.0) ``(paid, cycle)``: arming turns paid toward heavy ``weapon``'s charge and the
    turns of its cycle (photon 2, plasma 3, PPD 2, others 1). A single-turn weapon (disruptor,
    fusion beam: E3.2, E7.23) shows this turn's payment, which the next allocation starts
    afresh; the others their cycle's so far."""
    kind = int(battle.state.w_type[weapon])
    paid = (int(battle.state.w_arm_stage[weapon]) if kind in energy.SINGLE_TURN
            else energy.stage(battle, weapon))
    return paid, energy.cycle_turns(kind)
