"""Suicide shuttles in compiled code (``engine.suicide_shuttles``, J2.22-J2.222; CTH-DATA §5.4):
an administrative shuttle armed as a bomb on the standard Energy Allocation Form, launched at a
target, flying as a drone and exploding in its hex.

``suicide_tables(setup)`` builds ``SuicideTables`` (``on`` False without the rule): per ship
its administrative shuttles' rows (ascending) and whether the form governs it. The kernels,
each as the reference's function of the same name:

* ``bomb`` / ``candidate`` / ``chain`` / ``armed``: the bomb aboard, the shuttle a new bomb
  goes on (PROPOSAL [P-073]: the last aboard not unusable this turn), the chain's state for
  the turn allocated, an armed bomb paid for this turn;
* ``arm_open`` (the ``suicide_arm`` mask, J2.221: 1-3 warp energy a turn for three turns, then
  held at 1) and ``allocate`` (priority 4b of the form, after the heavy weapons:
  ``SuicideShuttleArmed``, ``SuicideShuttleDeactivated``, ``EnergyShortfall``
  "suicide:arm" / "suicide:hold"; the standing order [P-076] where ``o.suicide_arm`` is -1);
* ``ship_open`` and ``target_open`` (the ``suicide`` mask: an armed bomb paid this turn, the
  bay's 2-impulse rule, fire control paid, lock-on, D6; at an enemy ship, freighter, shuttle,
  fighter or drone in play, never a plasma torpedo nor a shuttle landed on a planet, J2.222,
  P2.0; not in the launcher's hex, F2.3).

The launch, the flight and the removal are ``compiled.suicide_flight``'s (apart: they use the
small craft's launch and the movement kernels, which the energy form must not import); the
impact is ``compiled.seeking_impacts``' (2 x the energy put in, at most 18, J2.222).

The monster is a target (SCENARIOS §2.8 result 1: a hit destroys it once the side found kill
method 1, ``compiled.kill_methods`` from ``seeking_impacts``). Refused (``suicide_tables``): a
cloak in the battle (G13: the launch and target blockers of the cloak are not ported here).
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env.compiled import event_codes, planets
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.purse import log_shortfall, pay
from sfb_env.engine import small_craft as ref_craft
from sfb_env.engine import suicide_shuttles as ref
from sfb_env.engine.types import (
    ACTIVE,
    K_SHIP,
    K_SHUTTLE,
    NEVER,
    UNUSED,
    Box,
)

ARM_VALUES = ref.ARM_VALUES  # ``suicide_arm``: 0 none, 1..3 energy (1 = hold once armed)
MAX_ARM = ref.MAX_ARM
ARMING_TURNS = ref.ARMING_TURNS
HOLD_COST = ref.HOLD_COST
SPEED = ref.SPEED
MAX_WARHEAD = ref.MAX_WARHEAD
ARMED_EVENT = event_codes.CODE["SuicideShuttleArmed"]
DEACTIVATED = event_codes.CODE["SuicideShuttleDeactivated"]
LOST_CHAIN = event_codes.word("reason", "a turn went unpaid: arming lost")
LET_GO = event_codes.word("reason", "let go at Energy Allocation")
HOLD_UNPAID = event_codes.word("reason", "hold not paid: energy shortfall")
NOT_PAID = event_codes.word("reason", "not paid: energy shortfall")
ITEM_HOLD = event_codes.word("item", "suicide:hold")
ITEM_ARM = event_codes.word("item", "suicide:arm")
PAID, BROKEN, ARMED, ARMING = 0, 1, 2, 3  # ``chain``
TARGET_KINDS = ref.TARGET_KINDS  # (J2.222; SCENARIOS §2.8 result 1: the monster, kill_methods)
SHUTTLE_LAUNCH_GAP = ref_craft.SHUTTLE_LAUNCH_GAP  # (J1.0) one launch per bay per 2 impulses
_WARP = int(Box.WARP)

SuicideTables = namedtuple("SuicideTables", (
    "on",  # bool rules.suicide_shuttles (with the standard form)
    "shuttles",  # (U, S) int64 each ship's administrative shuttle rows, ascending, -1 padded
    "governed",  # (U,) bool the standard form governs the ship (energy_switches.governed)
    "lock_on",  # bool rules.lock_on (D6: no launch without lock-on)
))


def suicide_tables(setup) -> SuicideTables:
    """The suicide shuttles of ``setup`` (``on`` False where the rule is off)."""
    rules = setup.rules
    st = setup.start_state
    n = len(setup.unit_ids)
    carrier = np.asarray(setup.craft_carrier, dtype=np.int64)
    kind = np.asarray(st.kind, dtype=np.int64)
    governed = np.array([bool(rules.energy_form and rules.standard_energy
                              and st.controllers[u] == "agent" and kind[u] == K_SHIP)
                         for u in range(n)], np.bool_)
    on = bool(rules.suicide_shuttles and rules.standard_energy)
    rows = [[int(f) for f in np.flatnonzero((carrier == u) & (kind == K_SHUTTLE))]
            for u in range(n)]
    width = max([1] + [len(r) for r in rows])
    shuttles = np.full((n, width), -1, np.int64)
    for u, r in enumerate(rows):
        shuttles[u, :len(r)] = r
    if on:
        for flag, why in (("standard_cloak", "the standard cloak (G13)"),):
            if getattr(rules, flag):
                raise NotImplementedError(f"compiled suicide shuttles (J2.22): beside {why} "
                                          "not ported")
        if rules.cloak != "none":
            raise NotImplementedError("compiled suicide shuttles (J2.22): beside a cloak (G13) "
                                      "not ported")
    return SuicideTables(on, shuttles, governed & on, bool(rules.lock_on))


# ---------------------------------------------------------------------- the bomb


@nb.njit(cache=True, inline="always")
def in_use(t, b, ship) -> bool:
    """(``in_use``) the rule is on, the form governs the ship, it carries shuttles."""
    return t.on and t.governed[ship] and t.shuttles[ship, 0] >= 0


@kernel(_nrt=False, error_model="numpy")
def bomb(t, status, suicide_energy, b, ship) -> int:
    """The shuttle aboard ``ship`` carrying its bomb (any energy in it), or -1."""
    out = -1
    for i in range(t.shuttles.shape[1]):
        f = t.shuttles[ship, i]
        if f >= 0 and status[b, f] == UNUSED and suicide_energy[b, f] > 0:
            out = f
    return out


@kernel(_nrt=False, error_model="numpy")
def candidate(t, status, suicide_idle_turn, b, ship, turn) -> int:
    """([P-073]) the shuttle a new bomb goes on: the last aboard not unusable this turn."""
    out = -1
    for i in range(t.shuttles.shape[1]):
        f = t.shuttles[ship, i]
        if f >= 0 and status[b, f] == UNUSED and suicide_idle_turn[b, f] != turn:
            out = f
    return out


@nb.njit(cache=True, inline="always")
def chain(suicide_paid_turn, suicide_turns, b, f, turn) -> int:
    """(``_chain``) PAID for ``turn`` already, BROKEN (a turn missed), ARMED or ARMING."""
    paid = suicide_paid_turn[b, f]
    if paid == turn:
        return PAID
    if paid != turn - 1:
        return BROKEN
    return ARMED if suicide_turns[b, f] >= ARMING_TURNS else ARMING


@nb.njit(cache=True, inline="always")
def armed_a(t, status, suicide_energy, suicide_turns, suicide_paid_turn, turn, b, ship) -> int:
    """(``armed``) the shuttle with an armed bomb paid for this turn, or -1."""
    f = bomb(t, status, suicide_energy, b, ship)
    if f < 0 or suicide_turns[b, f] < ARMING_TURNS:
        return -1
    return f if suicide_paid_turn[b, f] == turn[b] else -1


@nb.njit(cache=True, inline="always")
def armed(t, s, b, ship) -> int:
    """``armed_a`` on a ``BatchState``."""
    return armed_a(t, s.status, s.suicide_energy, s.suicide_turns, s.suicide_paid_turn, s.turn,
                   b, ship)


# ---------------------------------------------------------------------- energy


@nb.njit(cache=True, inline="always")
def arm_open(t, s, b, ship, value, allocation, allocation_turn, warp) -> bool:
    """(``arm_blockers``) whether ``suicide_arm`` ``value`` (1..3) is open: in use, Energy
    Allocation open, an armed bomb held at 1 only, a shuttle to arm, warp for the energy."""
    if not in_use(t, b, ship) or not allocation:
        return False
    f = bomb(t, s.status, s.suicide_energy, b, ship)
    state = -1 if f < 0 else chain(s.suicide_paid_turn, s.suicide_turns, b, f, allocation_turn)
    if state == ARMED:
        return value == HOLD_COST
    if state != ARMING and candidate(t, s.status, s.suicide_idle_turn, b, ship,
                                     allocation_turn) < 0:
        return False
    return value <= warp


@nb.njit(cache=True, inline="always")
def standing_arm(t, s, b, ship, allocation, allocation_turn, warp) -> int:
    """([P-076]) the standing order: hold an armed bomb, continue a chain with 1, start none."""
    if not in_use(t, b, ship) or not allocation:
        return 0
    f = bomb(t, s.status, s.suicide_energy, b, ship)
    if f < 0:
        return 0
    state = chain(s.suicide_paid_turn, s.suicide_turns, b, f, allocation_turn)
    value = HOLD_COST if state in (ARMED, ARMING) else 0
    if value and not arm_open(t, s, b, ship, value, allocation, allocation_turn, warp):
        return 0
    return value


@nb.njit(cache=True, inline="always")
def _deactivate(s, b, ship, f, reason, idle_turn) -> None:
    s.suicide_energy[b, f] = 0
    s.suicide_turns[b, f] = 0
    s.suicide_paid_turn[b, f] = 0
    if idle_turn:
        s.suicide_idle_turn[b, f] = idle_turn
    r = event_codes.begin(s.ev, s.ev_count, b, DEACTIVATED, s.turn[b], 0)
    s.ev[b, r, 3] = ship
    s.ev[b, r, 4] = f
    s.ev[b, r, 5] = reason


@nb.njit(cache=True, inline="always")
def _armed_event(s, b, ship, f, energy, held) -> None:
    r = event_codes.begin(s.ev, s.ev_count, b, ARMED_EVENT, s.turn[b], 0)
    s.ev[b, r, 3] = ship
    s.ev[b, r, 4] = f
    s.ev[b, r, 5] = energy
    s.ev[b, r, 6] = s.suicide_energy[b, f]
    s.ev[b, r, 7] = s.suicide_turns[b, f] if not held else ARMING_TURNS
    s.ev[b, r, 8] = held


@nb.njit(cache=True, inline="always")
def allocate(s, et, t, b, ship, order, p) -> int:
    """(J2.221, ``allocate``) Pay ``ship``'s suicide shuttle line for the turn now starting
    (priority 4b): ``order`` the ``suicide_arm`` value, -1 the standing order; returns the
    energy ordered but unpaid."""
    if not in_use(t, b, ship):
        return 0
    turn = s.turn[b]
    warp = s.boxes[b, ship, _WARP]
    value = standing_arm(t, s, b, ship, True, turn, warp) if order < 0 else order
    f = bomb(t, s.status, s.suicide_energy, b, ship)
    state = -1 if f < 0 else chain(s.suicide_paid_turn, s.suicide_turns, b, f, turn)
    if state == PAID:
        return 0
    if state == BROKEN:  # (J2.221) three consecutive turns: the chain is lost
        _deactivate(s, b, ship, f, LOST_CHAIN, 0)
        f, state = -1, -1
    if value <= 0:
        if f >= 0:  # (J2.221) an armed bomb let go: the shuttle unusable this turn
            _deactivate(s, b, ship, f, LET_GO, turn if state == ARMED else 0)
        return 0
    if state == ARMED:
        if pay(p, HOLD_COST, False, True):
            s.suicide_paid_turn[b, f] = turn
            _armed_event(s, b, ship, f, HOLD_COST, True)
            return 0
        log_shortfall(s, et, b, ship, ITEM_HOLD, HOLD_COST)
        _deactivate(s, b, ship, f, HOLD_UNPAID, turn)
        return HOLD_COST
    if f < 0:
        f = candidate(t, s.status, s.suicide_idle_turn, b, ship, turn)
        if f < 0:
            return 0
    cost = min(value, MAX_ARM)
    if not pay(p, cost, True, True):  # (J2.221) arming energy is warp only
        log_shortfall(s, et, b, ship, ITEM_ARM, cost)
        if s.suicide_energy[b, f]:
            _deactivate(s, b, ship, f, NOT_PAID, 0)
        return cost
    s.suicide_energy[b, f] += cost
    s.suicide_turns[b, f] += 1
    s.suicide_paid_turn[b, f] = turn
    _armed_event(s, b, ship, f, cost, False)
    return 0


# ---------------------------------------------------------------------- launch


@nb.njit(cache=True, inline="always")
def ship_open(t, s, b, ship, ipt) -> bool:
    """(``ship_blocker`` is None) in use, in play, impulse 1 on, an armed bomb paid this turn,
    the bay idle this impulse and the last (J1.0), fire control paid ([P-028]), lock-on (D6)."""
    if not in_use(t, b, ship) or s.status[b, ship] != ACTIVE or s.impulse[b] < 1:
        return False
    if armed(t, s, b, ship) < 0:
        return False
    last = NEVER
    for i in range(t.shuttles.shape[1]):
        f = t.shuttles[ship, i]
        if f >= 0:
            last = max(last, s.launched_at[b, f], s.craft_landed[b, f])
    now = (s.turn[b] - 1) * ipt + s.impulse[b]
    if last != NEVER and now - last < SHUTTLE_LAUNCH_GAP:
        return False
    if t.governed[ship] and not s.fire_control[b, ship]:
        return False
    return not (t.lock_on and not s.locked_on[b, ship])


@nb.njit(cache=True, inline="always")
def target_open(pt, s, b, ship, target) -> bool:
    """(``launch_blockers``' per-target part) an enemy ship, freighter, shuttle, fighter or
    drone in play, not a shuttle landed on a planet (P2.0), not in the launcher's hex (F2.3)."""
    if s.status[b, target] != ACTIVE or s.side[b, target] == s.side[b, ship]:
        return False
    if s.kind[b, target] not in TARGET_KINDS:
        return False
    if planets.landed(pt, s.kind, s.status, s.x, s.z, b, target):
        return False
    return not (s.x[b, target] == s.x[b, ship] and s.z[b, target] == s.z[b, ship])
