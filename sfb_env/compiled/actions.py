"""Action decoding in compiled code: an agent's flat MultiDiscrete action -> ``BatchOrders``.

``decode_action`` does what ``ActionLayout.to_orders`` (``env.actions``, ``env.components``)
does for the tier-1 components, in action order: ``launch[r]`` (0 hold, k launch the rack's next
drone at target slot k, the engine's facing), ``fire[w]`` (0 hold, k fire at slot k), ``esg[g]``
(the ``EsgOrder`` value, G23.3),
``disengage`` (1 announce, SCENARIOS #5), ``maneuver`` (the ``Maneuver`` value) and ``speed``
(an order only where the orders set next turn's speed, or where the value differs from the
current speed; the latter is masked, so a masked action orders no speed outside the speed
choice).

Assumed, not checked (the env checks in Python; the compiled env is fed masked actions):
every value is inside its component and open in the agent's mask of this decision point, so
a slot value names a filled slot and the maneuver and speed are legal. Agents the env no longer
lists (``env.agents``) get no orders: the caller does not decode for them. The target slots are
recomputed from the state (``observe.target_slots``), which has not changed since ``observe``.
"""

from __future__ import annotations

import numba as nb

from sfb_env.compiled.observe import (
    _nearest_rows,
    borrow,
    global_state,
    maneuver_blocked,
    observe,
)
from sfb_env.compiled.rewards import damage_balance

NO_ORDER = -1  # compiled.layout.NO_ORDER


@nb.njit(cache=True, inline="always")
def decode_action(s, ot, b, a, action, o):
    """Write agent ``a``'s ``action`` (int64, its ``nvec`` shape) into ``o`` (``BatchOrders``)
    for battle ``b``: the agent's unit row and weapon rows are reset to "no order" first.
    (The arrays are taken out of the namedtuples here, once: numba increfs and decrefs every
    array of a namedtuple argument on each call of a function that keeps it: this wrapper is
    inlined in its caller; the target slots go into ``ot.work``.)"""
    imp = s.impulse[b]
    choice = ot.speed_choice and (imp == 0 or imp == ot.ipt)
    _decode_a(borrow(s.status), borrow(s.side), borrow(s.kind), borrow(s.target), borrow(s.x),
              borrow(s.z), borrow(s.speed), ot.agent_unit[a], ot.slots, ot.n_racks[a],
              ot.n_weapons[a], borrow(ot.racks), borrow(ot.weapons), choice, b, a,
              borrow(action), borrow(o.launch), borrow(o.launch_facing), borrow(o.fire),
              borrow(o.maneuver), borrow(o.tactical), borrow(o.speed), borrow(o.disengage),
              ot.m_disengage[a] >= 0, ot.c_maneuver[a], borrow(ot.work), ot.n_esg[a],
              ot.esg_row[a], borrow(o.esg))


@nb.njit(cache=True, inline="always")
def _decode_a(status, side, kind, target, x, z, speed, u, k, n_r, n_w, racks, weapons, choice,
              b, a, action, launch, launch_facing, fire, maneuver, tactical, speed_order,
              disengage, has_disengage, c_maneuver, work, n_esg, esg_row, esg):
    """``decode_action`` on arrays (``work``: scratch, at least ``k`` long)."""
    slots = work[:k]
    _nearest_rows(status, side, kind, target, x, z, b, u, False, slots)
    c = 0
    for i in range(n_r):
        r = racks[a, i]
        if r >= 0:
            launch[b, r] = NO_ORDER
            launch_facing[b, r] = NO_ORDER
            fire[b, r] = NO_ORDER
            v = action[c]
            if v > 0:
                launch[b, r] = slots[v - 1]
        c += 1
    for i in range(n_w):
        w = weapons[a, i]
        if w >= 0:
            fire[b, w] = NO_ORDER
            launch[b, w] = NO_ORDER
            launch_facing[b, w] = NO_ORDER
            v = action[c]
            if v > 0:
                fire[b, w] = slots[v - 1]
        c += 1
    for _ in range(n_esg):  # (G23.3) the generator's order (a padded position orders nothing)
        if esg_row >= 0:
            esg[b, esg_row] = action[c]
        c += 1
    disengage[b, u] = has_disengage and action[c] == 1
    c = c_maneuver
    maneuver[b, u] = action[c]
    tactical[b, u] = False
    v = action[c + 1]
    if choice or v != speed[b, u]:
        speed_order[b, u] = v
    else:
        speed_order[b, u] = NO_ORDER


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def noop_action(s, ot, b, a, out):
    """``ActionLayout.noop``: hold every weapon, straight where straight is open (else no
    move), keep the speed (the first open speed outside the speed choice: the current one).
    ``out``: int64, the agent's number of components."""
    n = ot.c_maneuver[a]
    for i in range(n):
        out[i] = 0
    blocked = maneuver_blocked(s, ot, b, a)
    out[n] = 1 if ((blocked >> 1) & 1) == 0 else 0
    out[n + 1] = s.speed[b, ot.agent_unit[a]]


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def decision_point(s, ot, b, live, actions, obs, mask, state, o, balance):
    """What the env computes for battle ``b`` at one decision point, for every agent ``a``:
    ``observe`` into ``obs[a]`` and ``mask[a]`` (``live[a]`` False: the all-zero mask of an
    agent the step just ended), the orders of ``actions[a]`` into ``o`` (live agents only:
    ``decode_action``), ``balance[a]`` the damage balance of the events in ``s.ev`` (the step
    that led here: ``damage_balance``) and ``env.state()`` into ``state``."""
    for a in range(ot.n_agents):
        u = ot.agent_unit[a]
        observe(s, ot, b, a, live[a], obs[a], mask[a])
        if live[a]:
            decode_action(s, ot, b, a, actions[a], o)
        balance[a] = damage_balance(s, b, u)
    global_state(s, ot, b, state)
