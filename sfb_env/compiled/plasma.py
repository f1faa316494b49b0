"""Plasma torpedoes in compiled code (FP1-FP4): ``engine.plasma``'s warhead, launcher readiness,
phaser damage and end of impulse.

A torpedo is a seeking unit row (``K_PLASMA``) that moves one hex every impulse (FP1.4: the
scenario's seeking speed, ``compiled.movement``); its warhead is the FP1.0 table at the hexes
travelled (the impulses since its launch) less one point per two phaser points taken
(FP1.6, PROPOSAL [P-069]). Launch and impact live with the drones' in ``compiled.seeking_impacts``
(``launch_plasma``, ``plasma_impact``); the static tables here (``plasma_tables``) join
``damage.FireTables`` and ``observe.ObserveTables``. Not ported: cloaked launchers and targets
(G13), the fire-control energy line (B3.0 line 8), lock-on (D6) — the tiers refuse them.
"""

from __future__ import annotations

import functools

import numba as nb
import numpy as np

from sfb_env import tables
from sfb_env.compiled import event_codes
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine import plasma as ref_plasma
from sfb_env.engine.types import ACTIVE, DESTROYED, EXPENDED, K_PLASMA, NEVER, WeaponType

N_TYPES = max(int(k) for k in WeaponType) + 1
MAX_TRAVEL = 64  # warhead table columns (the longest endurance is 30 hexes, FP2.0)
DAMAGED = event_codes.CODE["Damaged"]
DESTROYED_EV = event_codes.CODE["Destroyed"]
EXPIRED = event_codes.CODE["Expired"]
TARGET_GONE = event_codes.word(
    "reason", "FP1.3 the target is no longer in play (PROPOSAL: removed)")  # [P-071]
_PLASMA_S, _PLASMA_F = int(WeaponType.PLASMA_S), int(WeaponType.PLASMA_F)


def plasma_tables(setup) -> dict[str, np.ndarray]:
    """The static plasma tables of ``setup``: ``plasma_launcher`` (U,) the launcher weapon row
    of a torpedo row (-1); ``plasma_rows`` (W, 3) a launcher's torpedo rows (-1 padded; a
    reused row keeps its id, [P-066]); ``plasma_fixed`` (W,) (FP3.1); ``plasma_warhead``
    (N_TYPES, MAX_TRAVEL) the FP1.0 warhead by launcher type and hexes travelled;
    ``plasma_endurance`` (N_TYPES,) hexes (FP1.4) and its Expired reason word."""
    warhead, endurance, reason = (chart.copy() for chart in _plasma_charts())
    return {"plasma_launcher": np.asarray(setup.plasma_launcher_of, np.int64).copy(),
            "plasma_rows": np.asarray(setup.start_state.w_plasma_rows, np.int64).copy(),
            "plasma_fixed": np.asarray(setup.plasma_fixed, np.bool_).copy(),
            "plasma_warhead": warhead, "plasma_endurance": endurance,
            "plasma_expired": reason}


@functools.cache
def _plasma_charts() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The setup-free part of ``plasma_tables`` (the FP1.0 warheads, the FP1.4 endurance and
    its Expired reason word), built once (read-only; ``plasma_tables`` hands out copies)."""
    warhead = np.zeros((N_TYPES, MAX_TRAVEL), np.int64)
    endurance = np.zeros(N_TYPES, np.int64)
    reason = np.zeros(N_TYPES, np.int64)
    for kind, key in ref_plasma.PLASMA_TYPE.items():
        warhead[kind] = [tables.plasma_warhead(key, d) for d in range(MAX_TRAVEL)]
        endurance[kind] = tables.plasma_endurance(key)
        reason[kind] = event_codes.word(
            "reason", f"FP1.4 endurance of {endurance[kind]} hexes ran out")
    for chart in (warhead, endurance, reason):
        chart.setflags(write=False)
    return warhead, endurance, reason


@nb.njit(cache=True, inline="always")
def is_launcher(kind: int) -> bool:
    """(FP1.1) A plasma launcher's weapon type (S, R or F)."""
    return _PLASMA_S <= kind <= _PLASMA_F


@nb.njit(cache=True, inline="always")
def travelled(launched_at, turn, impulse, ipt: int, b: int, p: int) -> int:
    """``plasma.travelled``: hexes moved since launch, one each impulse."""
    if launched_at[b, p] == NEVER:
        return 0
    return max(0, (turn[b] - 1) * ipt + impulse[b] - launched_at[b, p])


@kernel(_nrt=False, error_model="numpy")
def warhead(w_type, damage, launched_at, turn, impulse, t, ipt: int, b: int, p: int) -> int:
    """``plasma.warhead`` (FP1.0, FP1.6) of torpedo row ``p``; ``t``: a table namedtuple with
    ``plasma_launcher`` and ``plasma_warhead``."""
    kind = w_type[b, t.plasma_launcher[p]]
    d = min(travelled(launched_at, turn, impulse, ipt, b, p), MAX_TRAVEL - 1)
    return max(0, t.plasma_warhead[kind, d] - damage[b, p] // 2)


@kernel(_nrt=False, error_model="numpy")
def free_row(status, t, b: int, w: int) -> int:
    """``plasma.free_row``: a torpedo row of launcher ``w`` not in flight, or -1."""
    for k in range(t.plasma_rows.shape[1]):
        row = t.plasma_rows[w, k]
        if row >= 0 and status[b, row] != ACTIVE:
            return row
    return -1


@kernel(_nrt=False, error_model="numpy")
def take_damage(a, ft, b: int, p: int, points: int) -> None:
    """``plasma.take_damage`` (FP1.6): phaser points weaken the torpedo for good; at warhead 0
    it is destroyed."""
    a.damage[b, p] += points
    r = event_codes.begin(a.ev, a.ev_count, b, DAMAGED, a.turn[b], a.impulse[b])
    a.ev[b, r, 3] = p
    a.ev[b, r, 6] = points
    if warhead(a.w_type, a.damage, a.launched_at, a.turn, a.impulse, ft, ft.ipt, b, p) <= 0:
        a.status[b, p] = DESTROYED
        r = event_codes.begin(a.ev, a.ev_count, b, DESTROYED_EV, a.turn[b], a.impulse[b])
        a.ev[b, r, 3] = p


@kernel(_nrt=False, error_model="numpy")
def end_of_impulse_a(status, kind, w_type, launched_at, target_, ev, ev_count, turn, impulse,
                     t, ipt: int, b: int) -> None:
    """``plasma.end_of_impulse`` (FP1.4 endurance in hexes; PROPOSAL [P-071]: a torpedo whose
    target left play is removed)."""
    for p in range(kind.shape[1]):
        if status[b, p] != ACTIVE or kind[b, p] != K_PLASMA:
            continue
        reason = -1
        launcher_type = w_type[b, t.plasma_launcher[p]]
        if travelled(launched_at, turn, impulse, ipt, b, p) >= t.plasma_endurance[launcher_type]:
            reason = t.plasma_expired[launcher_type]
        target = target_[b, p]
        if target >= 0 and status[b, target] != ACTIVE:
            reason = TARGET_GONE
        if reason >= 0:
            status[b, p] = EXPENDED
            r = event_codes.begin(ev, ev_count, b, EXPIRED, turn[b], impulse[b])
            ev[b, r, 3] = p
            ev[b, r, 4] = reason
