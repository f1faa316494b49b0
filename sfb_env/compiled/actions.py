"""Action decoding in compiled code: an agent's flat MultiDiscrete action -> ``BatchOrders``.

``decode_action`` does what ``ActionLayout.to_orders`` (``env.actions``, ``env.components``)
does for the ported components, in action order: ``launch[r]`` (0 hold, k launch the rack's
next drone at target slot k, the engine's facing), ``fire[w]`` (0 hold, k fire at slot k),
``gatling[g].shot2..shot4`` (a phaser-G's shots 2..4 of the impulse, E2.151: 0 hold, k fire at
slot k; ``BatchOrders.gatling``), ``esg[g]`` (the ``EsgOrder`` value, G23.3), ``ppd[p]``
(E11.362), ``fighters`` / ``shuttles`` (J4.34, J1.0: 0 hold, k send them at slot k),
``disengage`` (1 announce, SCENARIOS #5), ``probe`` (the ``ProbeOrder``, G5), the cadet form's
``arm[h]`` (an order at Energy Allocation; -1, none, elsewhere), ``capacitor``, ``recharge``
and ``cloak`` (``env.energy_actions``; the last components before the maneuver), ``maneuver``
(the ``Maneuver`` value) and ``speed`` (an order only where the orders set next turn's speed,
or where the value differs from the current speed; the latter is masked, so a masked action
orders no speed outside the speed choice). With ``rules.launch_facing`` a ``launch[r]`` value
past the slots names the drone's facing (FD1.2) and with ``rules.tactical_maneuvers`` a speed
value past the top speed is a TAC plot (C5.23): ``compiled.maneuvers.decode``.

Assumed, not checked (the env checks in Python; the compiled env is fed masked actions):
every value is inside its component and open in the agent's mask of this decision point, so
a slot value names a filled slot and the maneuver and speed are legal. Agents the env no longer
lists (``env.agents``) get no orders: the caller does not decode for them. The target slots are
recomputed from the state (``observe.target_slots``), which has not changed since ``observe``.
"""

from __future__ import annotations

import numba as nb

from sfb_env.compiled import energy, engineering, maneuvers, small_craft, tractors, transporters
from sfb_env.compiled.borrowed import borrow
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.fire import GATLING_EXTRA
from sfb_env.compiled.observe import (
    _nearest_rows,
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
    if ot.m_arm[a] >= 0:  # (energy_actions) the components before the maneuver
        _decode_energy(ot.c_energy[a], ot.agent_unit[a], ot.n_heavy[a],
                       borrow(ot.heavy), energy.allocation_open(imp, ot.ipt), b, a,
                       borrow(action), borrow(o.arm), borrow(o.capacitor), borrow(o.recharge),
                       ot.c_cloak[a], borrow(o.cloak))
        if ot.c_eng[a] >= 0:  # (D3.34, D9.2, H7.1) compiled.engineering
            engineering.decode(borrow(action), ot.c_eng[a], ot.eng_flags[a], ot.agent_unit[a],
                               b, borrow(o.reinforce_general), borrow(o.reinforce),
                               borrow(o.reinforce_hold), borrow(o.repair_boxes),
                               borrow(o.reserve_shields))
    _decode_a(borrow(s.status), borrow(s.side), borrow(s.kind), borrow(s.target), borrow(s.x),
              borrow(s.z), borrow(s.speed), ot.agent_unit[a], ot.slots, ot.n_racks[a],
              ot.n_weapons[a], borrow(ot.racks), borrow(ot.weapons), choice, b, a,
              borrow(action), borrow(o.launch), borrow(o.launch_facing), borrow(o.fire),
              borrow(o.maneuver), borrow(o.tactical), borrow(o.speed), ot.c_maneuver[a],
              borrow(ot.work))
    if ot.n_gatling[a] or ot.n_esg[a] or ot.n_ppds[a] or ot.c_disengage[a] >= 0:
        _decode_tier2(ot.agent_unit[a], ot.slots, ot.n_racks[a] + ot.n_weapons[a], b, a,
                      borrow(action), borrow(ot.work), ot.n_gatling[a], borrow(ot.gatling),
                      borrow(o.gatling), ot.n_esg[a], borrow(ot.esg_row), borrow(o.esg),
                      ot.n_ppds[a], ot.c_ppd[a], borrow(ot.ppds), borrow(o.ppd),
                      ot.c_disengage[a], borrow(o.disengage))
    if ot.move_rules:  # (FD1.2, C5.23) launch facings and TAC plots: compiled.maneuvers
        maneuvers.decode(borrow(action), borrow(ot.work), borrow(o.launch),
                         borrow(o.launch_facing), borrow(o.tactical), borrow(o.speed),
                         borrow(ot.racks), ot.slots, ot.n_racks[a], ot.c_maneuver[a],
                         ot.max_speed, b, a, ot.agent_unit[a])
    if ot.small_craft:  # (J4.34, J1.0) the fighters / shuttles components
        _decode_craft(ot.c_fighters[a], ot.c_shuttles[a], ot.agent_unit[a], ot.slots, b,
                      borrow(action), borrow(ot.work), borrow(o.fighters), borrow(o.shuttles))
    if ot.n_tractor[a]:  # (G7.0) the tractor[b] components: compiled.tractors
        u = ot.agent_unit[a]
        tractors.decode(borrow(action), ot.c_tractor[a], ot.n_tractor[a], ot.tr_beams[u],
                        ot.tr_width, u, borrow(ot.work[:ot.slots]), b, borrow(o.tractor))
    if ot.c_drop[a] >= 0:  # (G8.0, G8.24) transporters, transport[t], drop_shield
        u = ot.agent_unit[a]
        transporters.decode(borrow(action), ot.c_tp_energy[a], ot.c_transport[a],
                            ot.n_transport[a], ot.c_drop[a], ot.tp_count[u], ot.tp_width,
                            ot.slots, u, borrow(ot.work[:ot.slots]), b, borrow(o.transporters),
                            borrow(o.transport), borrow(o.drop_shield))
    if ot.c_probe[a] >= 0:  # (G5, components.Probe.to_orders) the ProbeOrder value
        o.probe[b, ot.agent_unit[a]] = action[ot.c_probe[a]]
    if ot.c_suicide[a] >= 0 or ot.c_suicide_arm[a] >= 0:  # (J2.22, J2.221)
        _decode_suicide(ot.c_suicide[a], ot.c_suicide_arm[a], ot.agent_unit[a], ot.slots,
                        energy.allocation_open(imp, ot.ipt), b, borrow(action),
                        borrow(ot.work), borrow(o.suicide), borrow(o.suicide_arm))


@kernel(_nrt=False, error_model="numpy")
def _decode_suicide(c_suicide, c_arm, u, k, allocation, b, action, work, suicide, suicide_arm):
    """(``components.Suicide.to_orders``, ``energy_actions.SuicideArm.to_orders``) value j of
    ``suicide`` launches the bomb at slot j (the slots are ``work[:k]``); ``suicide_arm``'s
    value is ordered at Energy Allocation (or where not 0)."""
    if c_suicide >= 0 and action[c_suicide] > 0:
        suicide[b, u] = work[action[c_suicide] - 1]
    if c_arm >= 0 and (allocation or action[c_arm] != 0):
        suicide_arm[b, u] = action[c_arm]


@kernel(_nrt=False, error_model="numpy")
def _decode_craft(c_fighters, c_shuttles, u, k, b, action, work, fighters, shuttles):
    """``decode_action``'s ``fighters`` / ``shuttles`` (``small_craft.decode``; the target
    slots are ``work[:k]``, ``_decode_a``'s)."""
    small_craft.decode(c_fighters, c_shuttles, u, work[:k], b, action, fighters, shuttles)


@nb.njit(cache=True, inline="always")
def _decode_a(status, side, kind, target, x, z, speed, u, k, n_r, n_w, racks, weapons, choice,
              b, a, action, launch, launch_facing, fire, maneuver, tactical, speed_order,
              c_maneuver, work):
    """``decode_action``'s ``launch[r]``, ``fire[w]``, ``maneuver`` and ``speed`` on arrays
    (``work``: scratch, at least ``k`` long: the target slots, left there for
    ``_decode_tier2``)."""
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
            if 0 < v <= k:  # (a facing value past the slots: compiled.maneuvers.decode)
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
    c = c_maneuver
    maneuver[b, u] = action[c]
    tactical[b, u] = False
    v = action[c + 1]
    if choice or v != speed[b, u]:
        speed_order[b, u] = v
    else:
        speed_order[b, u] = NO_ORDER


@nb.njit(cache=True, inline="always")
def _decode_tier2(u, k, c, b, a, action, work, n_g, gatling, gatling_order, n_esg, esg_row,
                  esg, n_p, c_p, ppds, ppd_order, c_disengage, disengage):
    """``decode_action``'s tier-2 components from component ``c`` (the one after the last
    ``fire[w]``): ``gatling[g].shot2..4``, ``esg[g]``, ``ppd[p]`` (from ``c_p``) and
    ``disengage`` (``c_disengage``, -1 none); the target slots are ``work[:k]``
    (``_decode_a``'s)."""
    slots = work[:k]
    for i in range(n_g):  # (E2.151) gatling[g].shot2..shot4: Orders.gatling
        w = gatling[a, i]
        for j in range(GATLING_EXTRA):
            if w >= 0:
                v = action[c]
                gatling_order[b, GATLING_EXTRA * w + j] = slots[v - 1] if v > 0 else NO_ORDER
            c += 1
    for i in range(n_esg):  # (G23.3, G23.122) each generator's order (a padded one: nothing)
        if esg_row[a, i] >= 0:
            esg[b, esg_row[a, i]] = action[c]
        c += 1
    for i in range(n_p):  # (E11.362) ``ppd[p]``: 0 keep, 1 drop the lock
        w = ppds[a, i]
        if w >= 0:
            ppd_order[b, w] = action[c_p + i]
    disengage[b, u] = c_disengage >= 0 and action[c_disengage] == 1


@nb.njit(cache=True, inline="always")
def _decode_energy(c, u, n_h, heavy, allocation, b, a, action, arm, capacitor, recharge,
                   c_cloak, cloak):
    """(energy_actions ``Arm``, ``Capacitor``, ``Recharge``, ``Cloak``.to_orders) from component
    ``c``: ``arm[h]`` an order only at Energy Allocation or where not NONE (masked: never
    outside it), ``capacitor``, ``recharge`` and ``cloak`` (component ``c_cloak``, -1 none)
    always (the engine reads them at Energy Allocation)."""
    cloak[b, u] = c_cloak >= 0 and action[c_cloak] == 1
    for h in range(n_h):
        w = heavy[a, h]
        if w >= 0:
            v = action[c + h]
            arm[b, w] = v if allocation or v != 0 else -1
    capacitor[b, u] = action[c + n_h]
    recharge[b, u] = action[c + n_h + 1]


@kernel(_nrt=False, error_model="numpy")
def noop_action(s, ot, b, a, out):
    """``ActionLayout.noop``: hold every weapon, the standing energy allocation at Energy
    Allocation (``energy_actions``: continue arming, else hold; fill the capacitor; recharge
    every empty battery; 0 outside it), straight where straight is open (else no move), keep
    the speed (the first open speed outside the speed choice: the current one; the cadet
    form's standing speed, ``standing_orders.standing_speed``).
    ``out``: int64, the agent's number of components."""
    n = ot.c_maneuver[a]
    for i in range(n):
        out[i] = 0
    u = ot.agent_unit[a]
    speed = s.speed[b, u]
    if ot.m_arm[a] >= 0:  # the energy components (the cloak's no-op: 0, not cloaking)
        speed = _standing_energy(s, ot, b, a, u, out[ot.c_energy[a]:n])
    blocked = maneuver_blocked(s, ot, b, a)
    out[n] = 1 if ((blocked >> 1) & 1) == 0 else 0
    out[n + 1] = speed


@kernel(_nrt=False, error_model="numpy")
def noop_mask(s, ot, b, a, mask):
    """(ActionLayout._noop_mask, engine.unit_rules) A unit that has not arrived: its mask open
    on the no-op of each component only (``noop_action``)."""
    out = ot.noop[a]
    noop_action(s, ot, b, a, out)
    for i in range(ot.mask_size[a]):
        mask[i] = 0
    for c in range(ot.n_comps[a]):
        mask[ot.comp_offsets[a, c] + out[c]] = 1


@nb.njit(cache=True, inline="always")
def _standing_energy(s, ot, b, a, u, out):
    """The standing allocation of agent ``a`` into ``out`` (``arm[h]``, ``capacitor``,
    ``recharge``); returns the no-op speed (standing_orders.standing_speed at Energy
    Allocation: the current speed, lowered to what warp pays once the standing photon arming
    has taken its warp, E4.2, and to the fastest speed the form leaves open)."""
    n_h = ot.n_heavy[a]
    imp = s.impulse[b]
    if not energy.allocation_open(imp, ot.ipt):
        for i in range(n_h + 2):
            out[i] = 0
        return s.speed[b, u]
    warp = s.boxes[b, u, energy._WARP]
    for h in range(n_h):
        w = ot.heavy[a, h]
        out[h] = 0
        if w < 0:
            continue
        bits = energy.heavy_open(s, ot.esg_cap, ot.single_turn, ot.cycle_len, ot.hold_cost,
                                 ot.roll_cost, True, s.turn[b] + (imp != 0), b, w)
        out[h] = energy.standing_arm(bits)
        kind = s.w_type[b, w]
        if out[h] == 1 and kind == energy.PORTED_HEAVY[1]:  # (E4.2) photons arm from warp
            warp -= ot.cycle[kind, energy.stage(s.w_type, s.w_arm_stage, s.w_armed,
                                                ot.single_turn, ot.cycle_len, b, w)]
    out[n_h] = energy.capacitor_room(s.capacitor, s.capacitor_max, b, u)
    out[n_h + 1] = energy.empty_batteries(s.boxes, s.batteries, b, u)
    imp_boxes = s.boxes[b, u, energy._IMPULSE]
    cap = (energy.warp_hexes(warp, ot.speed_rule, u)  # (CTH-DATA §7.3) at the move cost
           + min(energy.MAX_IMPULSE_TO_MOVEMENT, imp_boxes))
    speed = min(s.speed[b, u], cap)
    top = energy.speed_top(energy.previous_speed(s.speed, s.previous_speed, s.tactical, imp,
                                                 b, u), ot.speed_rule, u)
    payable = energy.payable_speed(s.boxes, ot.speed_rule, b, u)
    while speed > 0 and not energy.speed_open(speed, top, payable):
        speed -= 1
    return speed


@kernel(_nrt=False, error_model="numpy")
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
