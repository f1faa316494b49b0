"""A suicide shuttle's launch, flight and removal in compiled code (``engine.suicide_shuttles``
``launch``, ``move``, ``end_of_impulse``; J2.22-J2.222); its bomb, arming and masks are
``compiled.suicide_shuttles``'.

* ``launch_step`` / ``launch`` (Launch Shuttlecraft, after the shuttles' launch): the armed bomb
  leaves the bay in the ship's hex (``small_craft.launch_craft``: FA at the target, FD1.2) at
  speed 6 ([P-074]), one hex straight first, its target fixed;
* ``move`` (Move Seeking Weapons): homing as a robot drone (F2.0, ``robots.homing_maneuver_a``,
  planets avoided); in its target's hex it stays;
* ``end_of_impulse`` ([P-075], as drones FD1.3, D4.41): removed when its target left play or
  its launcher was destroyed (``Expired``). No endurance limit (J2.222).
"""

from __future__ import annotations

import numba as nb

from sfb_env.compiled import event_codes, movement, robots, small_craft
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.suicide_shuttles import SPEED, armed_a
from sfb_env.engine.types import ACTIVE, DESTROYED, EXPENDED

CONTROL_LOST = event_codes.word("reason", "D4.41 the controlling ship was destroyed")
TARGET_GONE = event_codes.word("reason", "FD1.3 the target is no longer in play")
EXPIRED = event_codes.CODE["Expired"]


@kernel(_nrt=False, error_model="numpy")
def launch(t, a, ct, b, ship, target) -> None:
    """(``launch``) ``ship``'s armed bomb on the map in its hex, FA at the target (FD1.2,
    ``small_craft._launch_facing``), speed 6, one hex straight first; ``Launched`` from
    "<ship>.bay". ``a``: ``small_craft.craft_view``."""
    f = armed_a(t, a.status, a.suicide_energy, a.suicide_turns, a.suicide_paid_turn, a.turn,
                b, ship)
    if f < 0:
        return
    small_craft.launch_craft(a, ct, b, ship, f, target, SPEED)
    a.target[b, f] = target
    a.launcher[b, f] = ship
    a.suicide_launched[b, f] = True


@kernel(_nrt=False, error_model="numpy")
def launch_step(t, a, ct, b, orders) -> None:
    """(J2.22, ``launch_step``) every ordered launch (``orders[b, ship]``: a target row, -1
    none), ships by row, after the shuttles' launch."""
    for ship in range(orders.shape[1]):
        if orders[b, ship] >= 0:
            launch(t, a, ct, b, ship, orders[b, ship])


@nb.njit(cache=True, inline="always")
def move(s, mt, b) -> None:
    """(F2.0, F2.1; ``move``) In Move Seeking Weapons: each suicide shuttle that moves on this
    impulse (fixed before any of them moves) homes on its target as a robot drone does; in its
    target's hex it stays."""
    imp = s.impulse[b]
    n = s.kind.shape[1]
    order = mt.pilot_plan  # scratch: the movers, in row order
    m_count = 0
    for d in range(n):
        if s.suicide_launched[b, d] and s.status[b, d] == ACTIVE \
                and mt.chart[s.speed[b, d], imp - 1]:
            order[m_count] = d
            m_count += 1
    for i in range(m_count):
        d = order[i]
        t = s.target[b, d]
        if t >= 0 and s.x[b, t] == s.x[b, d] and s.z[b, t] == s.z[b, d]:
            continue
        m = robots.homing_maneuver_a(s.target, s.x, s.z, s.facing, s.straight, s.dice, b, d,
                                     mt.planets)
        if m != robots.NONE:
            movement._move_unit_a(s.facing, s.straight, s.slip, s.x, s.z, s.status,
                                  s.captured_by, s.side, s.ev, s.ev_count, s.turn[b], imp,
                                  mt.area, mt.area_x0, mt.area_z0, mt.may_leave, b, d, m)


@nb.njit(cache=True, inline="always")
def end_of_impulse(s, b) -> None:
    """([P-075], as drones FD1.3, D4.41) a flying bomb whose launcher was destroyed or whose
    target left play is removed (``Expired``). No endurance limit (J2.222)."""
    for d in range(s.kind.shape[1]):
        if not s.suicide_launched[b, d] or s.status[b, d] != ACTIVE:
            continue
        t, launcher = s.target[b, d], s.launcher[b, d]
        reason = -1
        if launcher >= 0 and s.status[b, launcher] == DESTROYED:
            reason = CONTROL_LOST
        elif t < 0 or s.status[b, t] != ACTIVE:
            reason = TARGET_GONE
        if reason >= 0:
            s.status[b, d] = EXPENDED
            r = event_codes.begin(s.ev, s.ev_count, b, EXPIRED, s.turn[b], s.impulse[b])
            s.ev[b, r, 3] = d
            s.ev[b, r, 4] = reason
