"""The standard cloak (G13 standard rule, CTH-DATA §8.2; rule ``cloak: standard``) in compiled
code: ``engine.cloak`` (fades, announcements, fire blockers, the effective range of fire at a
cloaking ship) and ``knowledge.cloak_phases`` (what the other side sees of a cloak).

State (per battle and unit, the reference's ``BattleState`` fields): ``cloaked`` (engaged:
cloaked or fading out), ``cloak_paid`` (paid at Energy Allocation this turn) and
``cloak_announced_at`` (the absolute impulse of the last announcement, ``NEVER`` = -10**6).

* ``fading``: the 4 impulses from an announcement (fade-out or fade-in, ``FADE_IMPULSES``).
* ``fully_cloaked``: cloaked, past the fade-out, not struck by an ESG this impulse (G23.621):
  lock-on to it is lost (D6, PROPOSAL [P-050]: no launch at it), seeking weapons roll the die.
* ``fade_range``: range added for a fading target, fade-out +1..+4, fade-in +4..+1.
* ``effective_range``: fire at a fully cloaked target 2 x true + 5; else true + fade, doubled
  without lock-on (D6); plus the firer's scanner rating under lock-on.
* ``fire_blocked``: no fire or launch while cloaked, fading out or fading in.
* ``start_turn`` (after the energy form paid the cloaks): ``cloak_paid`` = paid; a ship paid
  after an uncloaked turn announces its cloak, one unpaid after a cloaked turn its uncloak, on
  impulse 1 (``CloakAnnounced``).
* ``toggle_blocked`` / ``cloak_step`` (B2.0 advanced sequence, Cloak/Uncloak, impulses 1 to
  the last but one): an active ship not fading announces a cloak (paid this turn) or an
  uncloak; PROPOSAL [P-053] no announcement during a fade.
* ``cloak_phases``: engaged, fading out, fading in, the fade's impulse / 4; ``observe_cloak``:
  the ``cloak`` block (own ship, then per target slot) and the cloak component's mask
  (``energy_orders.cloak_blockers``: at Energy Allocation the payment, else an announcement).

The kernels take only the arrays they read (no state namedtuple), called where the table flag
is set: ``procedure`` (``start_turn``, ``cloak_step``), ``fire``, ``seeking_impacts``,
``observe._standard_cloak_part`` and ``sensors.observe_lock_on``.
"""

from __future__ import annotations

import numba as nb

from sfb_env.compiled import event_codes
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine.cloak import FADE_IMPULSES
from sfb_env.engine.types import ACTIVE

CLOAK_ANNOUNCED = event_codes.CODE["CloakAnnounced"]
PHASES = 4  # (knowledge.cloak_phases) features per unit


@nb.njit(cache=True, inline="always")
def fading(announced_at, b, t, now):
    """(G13 standard rule, ``cloak.fading``) ``t`` is in the 4 impulses of a fade-out or
    fade-in (``now``: the absolute impulse)."""
    since = now - announced_at[b, t]
    return since >= 0 and since < FADE_IMPULSES


@nb.njit(cache=True, inline="always")
def fully_cloaked(cloaked, esg_struck_at, announced_at, b, t, now):
    """(G13 standard rule, G23.621, ``cloak.fully_cloaked``) cloaked, past its fade-out and
    not damaged by an ESG in this impulse."""
    return (cloaked[b, t] and esg_struck_at[b, t] != now
            and not fading(announced_at, b, t, now))


@nb.njit(cache=True, inline="always")
def fade_range(cloaked, announced_at, b, t, now):
    """(G13 standard rule, ``cloak.fade_range``) fade-out +1..+4, fade-in +4..+1 on the 4
    impulses from the announcement; 0 otherwise."""
    if not fading(announced_at, b, t, now):
        return 0
    since = now - announced_at[b, t]
    return since + 1 if cloaked[b, t] else FADE_IMPULSES - since


@kernel(_nrt=False, error_model="numpy")
def effective_range(locked_on, cloaked, esg_struck_at, announced_at, dac_boxes, scanner_of,
                    scanner_box, lock_on, b, owner, t, rng, now):
    """(G13 standard rule, D6, ``cloak.effective_range(battle, t, rng, owner)``) 2 x true + 5
    at a fully cloaked target; else true + the fade, doubled without lock-on; the firer's
    scanner rating added under lock-on (``scanner_box``: the DAC's scanner column)."""
    if fully_cloaked(cloaked, esg_struck_at, announced_at, b, t, now):
        out = 2 * rng + 5
    else:
        out = rng + fade_range(cloaked, announced_at, b, t, now)
        if lock_on and not locked_on[b, owner]:
            out = 2 * out  # (D6) no lock-on: range x 2
    if lock_on:
        out += scanner_of[owner, dac_boxes[b, owner, scanner_box]]
    return out


@nb.njit(cache=True, inline="always")
def fire_blocked(cloaked, announced_at, b, u, now):
    """(G13 standard rule, ``cloak.fire_blocker``) no fire or launch while cloaked or fading
    out, nor while fading in (4 impulses from the announcement)."""
    return cloaked[b, u] or fading(announced_at, b, u, now)


@kernel(_nrt=False, error_model="numpy")
def _announce(cloaked, announced_at, ev, ev_count, b, u, cloaking, at, turn, impulse):
    cloaked[b, u] = cloaking
    announced_at[b, u] = at
    r = event_codes.begin(ev, ev_count, b, CLOAK_ANNOUNCED, turn, impulse)
    ev[b, r, 3] = u
    ev[b, r, 4] = cloaking


@kernel(_nrt=False, error_model="numpy")
def start_turn(cloaked, cloaked_before, cloak_paid, announced_at, ev, ev_count, turn,
               impulses_per_turn, b):
    """(G13 standard rule, turn to turn, ``cloak.start_turn``) after the energy form set
    ``cloaked`` to "paid" and ``cloaked_before`` to last turn's: remember the payment and
    announce the cloak or uncloak of each ship that changed, on impulse 1 of ``turn``."""
    first = (turn - 1) * impulses_per_turn + 1
    for u in range(cloaked.shape[1]):
        cloak_paid[b, u] = cloaked[b, u]
    for u in range(cloaked.shape[1]):
        if cloaked[b, u] != cloaked_before[b, u]:
            _announce(cloaked, announced_at, ev, ev_count, b, u, cloaked[b, u], first, turn, 1)


@kernel(_nrt=False, error_model="numpy")
def toggle_blocked(status, cloaked, cloak_paid, announced_at, b, u, impulse, impulses_per_turn,
                   now):
    """(G13 standard rule, ``cloak.toggle_blockers``) ``u`` may not announce now: not in play,
    not impulses 1 to the last but one, a fade in progress ([P-053]), or an uncloaked ship
    that did not pay its cloak this turn."""
    if status[b, u] != ACTIVE or not 1 <= impulse < impulses_per_turn:
        return True
    if fading(announced_at, b, u, now):
        return True
    return not cloaked[b, u] and not cloak_paid[b, u]


@kernel(_nrt=False, error_model="numpy")
def cloak_step(order_cloak, status, cloaked, cloak_paid, announced_at, ev, ev_count, turn,
               impulse, impulses_per_turn, now, b):
    """(B2.0 advanced sequence, Cloak/Uncloak; ``cloak.cloak_step``) announce the ordered
    cloaks and uncloaks of this impulse, in unit order (the order dict's); the caller runs it
    on impulses 1 to the last but one."""
    for u in range(status.shape[1]):
        if order_cloak[b, u] and not toggle_blocked(status, cloaked, cloak_paid, announced_at,
                                                    b, u, impulse, impulses_per_turn, now):
            _announce(cloaked, announced_at, ev, ev_count, b, u, not cloaked[b, u], now, turn,
                      impulse)


@kernel(_nrt=False, error_model="numpy")
def cloak_phases(cloaked, announced_at, b, t, now, out, at):
    """(G13 standard rule, ``knowledge.cloak_phases``) writes ``t``'s 4 features at
    ``out[at:]``: engaged, fading out, fading in, the fade's impulse / 4 (0 when not fading)."""
    engaged = cloaked[b, t]
    fade = fading(announced_at, b, t, now)
    out[at] = 1.0 if engaged else 0.0
    out[at + 1] = 1.0 if fade and engaged else 0.0
    out[at + 2] = 1.0 if fade and not engaged else 0.0
    out[at + 3] = (now - announced_at[b, t] + 1) / float(FADE_IMPULSES) if fade else 0.0


@kernel(_nrt=False, error_model="numpy")
def observe_cloak(status, cloaked, cloak_paid, announced_at, b, u, slots, n_slots, impulse,
                  impulses_per_turn, now, allocation, m_cloak, mask, off_cloak, out):
    """The standard cloak's part of agent (unit ``u``)'s mask and observation: value 1 of the
    cloak component at ``m_cloak`` (-1: none) open at Energy Allocation (the payment, G13.0),
    elsewhere where ``u`` may announce (``toggle_blocked``); the ``cloak`` block
    (``rule_features._cloak``) at ``off_cloak``: ``u``, then each target slot (0 when empty)."""
    if m_cloak >= 0:
        mask[m_cloak] = 1
        mask[m_cloak + 1] = allocation or not toggle_blocked(
            status, cloaked, cloak_paid, announced_at, b, u, impulse, impulses_per_turn, now)
    cloak_phases(cloaked, announced_at, b, u, now, out, off_cloak)
    for j in range(n_slots):
        at = off_cloak + (1 + j) * PHASES
        t = slots[j]
        if t >= 0:
            cloak_phases(cloaked, announced_at, b, t, now, out, at)
        else:
            for k in range(PHASES):
                out[at + k] = 0.0
