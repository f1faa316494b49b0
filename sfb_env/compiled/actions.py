"""Action decoding in compiled code: an agent's flat MultiDiscrete action -> ``BatchOrders``.

``decode_action`` does what ``ActionLayout.to_orders`` (``env.actions``, ``env.components``)
does for the tier-1 components, in action order: ``launch[r]`` (0 hold, k launch the rack's
next drone at target slot k, the engine's facing), ``fire[w]`` (0 hold, k fire at slot k),
``maneuver`` (the ``Maneuver`` value) and ``speed`` (an order only where the orders set next
turn's speed, or where the value differs from the current speed; the latter is masked, so a
masked action orders no speed outside the speed choice).

Assumed, not checked (the env checks in Python; the compiled env is fed masked actions):
every value is inside its component and open in the agent's mask of this decision point, so
a slot value names a filled slot and the maneuver and speed are legal. Agents the env no longer
lists (``env.agents``) get no orders: the caller does not decode for them. The target slots are
recomputed from the state (``observe.target_slots``), which has not changed since ``observe``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from sfb_env.compiled.observe import (
    damage_balance,
    global_state,
    maneuver_blocked,
    observe,
    speed_choice_open,
    target_slots,
)

NO_ORDER = -1  # compiled.layout.NO_ORDER


@nb.njit(cache=True)
def decode_action(s, ot, b, a, action, o):
    """Write agent ``a``'s ``action`` (int64, its ``nvec`` shape) into ``o`` (``BatchOrders``)
    for battle ``b``: the agent's unit row and weapon rows are reset to "no order" first."""
    u = ot.agent_unit[a]
    k = ot.slots
    slots = np.empty(k, np.int64)
    target_slots(s, ot, b, u, slots)
    n_r, n_w = ot.n_racks[a], ot.n_weapons[a]
    c = 0
    for i in range(n_r):
        r = ot.racks[a, i]
        if r >= 0:
            o.launch[b, r] = NO_ORDER
            o.launch_facing[b, r] = NO_ORDER
            o.fire[b, r] = NO_ORDER
            v = action[c]
            if v > 0:
                o.launch[b, r] = slots[v - 1]
        c += 1
    for i in range(n_w):
        w = ot.weapons[a, i]
        if w >= 0:
            o.fire[b, w] = NO_ORDER
            o.launch[b, w] = NO_ORDER
            o.launch_facing[b, w] = NO_ORDER
            v = action[c]
            if v > 0:
                o.fire[b, w] = slots[v - 1]
        c += 1
    o.maneuver[b, u] = action[c]
    o.tactical[b, u] = False
    v = action[c + 1]
    if speed_choice_open(s, ot, b) or v != s.speed[b, u]:
        o.speed[b, u] = v
    else:
        o.speed[b, u] = NO_ORDER


@nb.njit(cache=True)
def noop_action(s, ot, b, a, out):
    """``ActionLayout.noop``: hold every weapon, straight where straight is open (else no
    move), keep the speed (the first open speed outside the speed choice: the current one).
    ``out``: int64, the agent's number of components."""
    n = ot.n_racks[a] + ot.n_weapons[a]
    for i in range(n):
        out[i] = 0
    blocked = maneuver_blocked(s, ot, b, a)
    out[n] = 1 if ((blocked >> 1) & 1) == 0 else 0
    out[n + 1] = s.speed[b, ot.agent_unit[a]]


@nb.njit(cache=True)
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
        balance[a] = damage_balance(s, b, u, s.side[b, u])
    global_state(s, ot, b, state)
