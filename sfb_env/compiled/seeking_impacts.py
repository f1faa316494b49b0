"""Launch Seeking Weapons and Resolve Seeking Weapons in compiled code, for drones (FD1.2,
FD1.6, F2.3, FD4.21), plasma torpedoes (FP1.3, FP1.5, FP1.8; ``compiled.plasma``) and the
impacts of suicide shuttles (J2.222: 2 x the energy put in, at most 18; their launch and
flight: ``compiled.suicide_shuttles``). Not ported: robot ships' launches
(``robots.launch_orders``: robot ships only). A drone striking a fighter
scores half its warhead on a natural 6 (J4.47). Tables: ``damage.FireTables``.

Where the step calls them (``engine.procedure.advance``):

* ``launch_seeking_weapons(s, ft, b, o)``: in the first half of ``advance`` (finishing impulse
  i >= 1), where ``rules.seeking_weapons and rules.launch_seeking_weapons`` (off in cth-01 and
  cth-02: the step must skip it there), before Fire Direct-Fire.
* ``resolve_seeking_weapons(s, ft, b, o)``: last in the second half (after Move Ships and Move
  Seeking Weapons of impulse i + 1), where ``rules.seeking_weapons`` (off in cth-01), before
  the end-of-battle check.

Each has an ``_a`` twin on the ``damage.FireArrays`` view (``damage.fire_view(s)``).
"""

from __future__ import annotations

import numba as nb

from sfb_env import hexmap
from sfb_env.compiled import cloak, damage, event_codes, kill_methods, plasma, shields
from sfb_env.compiled import dice as dice_mod
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine.cloak import MISS_BELOW
from sfb_env.engine.plasma import FEEDBACK_SHARE
from sfb_env.engine.seeking import SUICIDE_MAX_WARHEAD
from sfb_env.engine.types import (
    ACTIVE,
    EXPENDED,
    K_DRONE,
    K_FIGHTER,
    K_MONSTER,
    K_PLASMA,
    K_SHUTTLE,
    WeaponType,
)

LAUNCHED = event_codes.CODE["Launched"]
LAUNCH_REFUSED = event_codes.CODE["LaunchRefused"]
SEEKING_HIT = event_codes.CODE["SeekingHit"]
PLASMA_FEEDBACK = event_codes.CODE["PlasmaFeedback"]
CLOAK_EVADED = event_codes.CODE["CloakEvaded"]
RULE_LIMIT_1 = event_codes.word(
    "rule", "FD4.21 the ship launches at most 1 drone(s) per turn from all its racks")
FA_BITS = hexmap.ARC_BITS["FA"]
R = hexmap.LUT_RADIUS
_DRONE_RACK = int(WeaponType.DRONE_RACK)


@kernel(_nrt=False, error_model="numpy")
def launch_facing(x_arr, z_arr, facing_arr, ft, b, owner, target):
    """``fire_geometry.launch_facing`` (FD1.2, F2.3, [P-061]): a facing that puts the target
    in the drone's FA, closing fastest, ties the one nearest the launcher's facing."""
    x, z = x_arr[b, owner], z_arr[b, owner]
    tx, tz = x_arr[b, target], z_arr[b, target]
    own = facing_arr[b, owner]
    if x == tx and z == tz:
        x, z = shields.neighbor(x, z, (own + 3) % 6)
    vx, vz = tx - x, tz - z
    if abs(vx) > R or abs(vz) > R:
        raise IndexError("compiled launch: offset beyond hexmap.LUT_RADIUS")
    best, best_key = 0, -1
    for f in range(6):
        bits = ft.arc_lut[f, vx + R, vz + R]
        if (bits & FA_BITS) != 0:
            nx, nz = shields.neighbor(x, z, f)
            turn_away = min((f - own) % 6, (own - f) % 6)
            key = shields.distance(nx, nz, tx, tz) * 10 + turn_away
        else:
            key = 10**9
        if best_key < 0 or key < best_key:
            best, best_key = f, key
    return best


@kernel(_nrt=False, error_model="numpy")
def launch_seeking_weapons_a(a, ft, b, o):
    """``engine.procedure._launch_seeking_weapons`` -> ``engine.seeking.launch`` for drone
    racks: each order ``o.launch[b, r]`` (target row, -1 none; rack rows ascending; facing
    ``o.launch_facing[b, r]``, -1 = ``launch_facing``) puts the rack's next drone on the map
    (``Launched``), unless the ship's per-turn limit (FD4.21) refuses it (``LaunchRefused``).
    Orders are carried out as given (the env validates them with ``launch_blockers``)."""
    turn = a.turn[b]
    now = (turn - 1) * ft.ipt + a.impulse[b]
    for rack in range(o.launch.shape[1]):
        target = o.launch[b, rack]
        if target < 0:
            continue
        if plasma.is_launcher(a.w_type[b, rack]):
            launch_plasma(a, ft, b, rack, target)
            continue
        if a.w_type[b, rack] != _DRONE_RACK:
            raise NotImplementedError("compiled launch: only drone racks and plasma launchers")
        owner = a.w_owner[b, rack]
        limit = ft.launch_limit[owner]
        if limit >= 0:  # (FD4.21) PROPOSAL [P-063]
            fired = 0
            for k in range(ft.unit_n_weapons[owner]):
                w = ft.unit_weapons[owner, k]
                if a.w_type[b, w] == _DRONE_RACK and a.w_fired_turn[b, w] == turn:
                    fired += 1
            if fired >= limit:
                r = event_codes.begin(a.ev, a.ev_count, b, LAUNCH_REFUSED, turn, a.impulse[b])
                a.ev[b, r, 3] = owner
                a.ev[b, r, 4] = rack
                a.ev[b, r, 5] = RULE_LIMIT_1
                continue
        slot = ft.rack_capacity[rack] - a.w_ammo[b, rack]
        drone = a.w_drone_rows[b, rack, slot]
        a.w_ammo[b, rack] -= 1
        a.w_fired_turn[b, rack] = turn
        a.w_last_fired[b, rack] = now
        facing = o.launch_facing[b, rack]
        if facing < 0:
            facing = launch_facing(a.x, a.z, a.facing, ft, b, owner, target)
        _place_seeking(a, ft, b, owner, rack, drone, target, facing, now)


@nb.njit(cache=True, inline="always")
def _place_seeking(a, ft, b, owner, weapon, row, target, facing, now):
    """A seeking weapon ``row`` leaves ``weapon`` of ``owner``: in the ship's hex, at the
    scenario's seeking speed (FD1.1, FP1.4), its first move straight ahead (FD1.2, FP1.3),
    homing on ``target`` (``Launched``)."""
    a.status[b, row] = ACTIVE
    a.x[b, row], a.z[b, row] = a.x[b, owner], a.z[b, owner]
    a.prev_x[b, row], a.prev_z[b, row] = a.x[b, owner], a.z[b, owner]
    a.facing[b, row] = facing
    a.prev_facing[b, row] = facing
    a.speed[b, row] = ft.ipt
    a.straight[b, row] = 0
    a.target[b, row] = target
    a.launcher[b, row] = owner
    a.launched_at[b, row] = now
    r = event_codes.begin(a.ev, a.ev_count, b, LAUNCHED, a.turn[b], a.impulse[b])
    a.ev[b, r, 3] = owner
    a.ev[b, r, 4] = weapon
    a.ev[b, r, 5] = row
    a.ev[b, r, 6] = target
    a.ev[b, r, 7] = a.x[b, row]
    a.ev[b, r, 8] = a.z[b, row]
    a.ev[b, r, 9] = facing


@kernel(_nrt=False, error_model="numpy")
def launch_plasma(a, ft, b, w, target):
    """``engine.plasma.launch``: a torpedo of launcher ``w`` enters the map in the ship's hex
    at the scenario's seeking speed (FP1.4), facing the ship's way if the launcher is fixed
    (FP3.1) or the target shares the hex, else as a drone (FD1.2, [P-067]); the launcher is
    unarmed (FP1.22)."""
    owner = a.w_owner[b, w]
    row = plasma.free_row(a.status, ft, b, w)
    if row < 0:
        raise RuntimeError("compiled launch: no free plasma torpedo row")
    if ft.plasma_fixed[w] or (a.x[b, owner] == a.x[b, target]
                              and a.z[b, owner] == a.z[b, target]):
        facing = a.facing[b, owner]
    else:
        facing = launch_facing(a.x, a.z, a.facing, ft, b, owner, target)
    now = (a.turn[b] - 1) * ft.ipt + a.impulse[b]
    a.w_armed[b, w] = False
    a.w_fired_turn[b, w] = a.turn[b]
    a.w_last_fired[b, w] = now
    a.damage[b, row] = 0  # a reused row starts whole (FP1.6)
    _place_seeking(a, ft, b, owner, w, row, target, facing, now)


@kernel(_nrt=False, error_model="numpy")
def _plasma_feedback(a, ft, b, d, t, points):
    """``plasma.feedback`` (FP1.8): the launcher takes a quarter of the warhead struck (x.5
    rounds up) on its shield facing the target (D3.42 at range 0)."""
    launcher = a.launcher[b, d]
    share = -(-points // FEEDBACK_SHARE)
    if launcher < 0 or a.status[b, launcher] != ACTIVE or share <= 0:
        return
    same = a.x[b, launcher] == a.x[b, t] and a.z[b, launcher] == a.z[b, t]
    shield = shields.struck_shield(a, ft, b, launcher, t, same)
    r = event_codes.begin(a.ev, a.ev_count, b, PLASMA_FEEDBACK, a.turn[b], a.impulse[b])
    a.ev[b, r, 3] = launcher
    a.ev[b, r, 4] = d
    a.ev[b, r, 5] = shield
    a.ev[b, r, 6] = share
    damage.apply_damage_a(a, ft, b, launcher, shield, share)


@kernel(_nrt=False, error_model="numpy")
def resolve_seeking_weapons_a(a, ft, b, o):
    """``engine.seeking.resolve_impacts`` (FD1.6, F2.2, F2.3) for drones: each active drone in
    its active target's hex strikes the shield facing its approach (``shields.shield_from``,
    no temporary movement), is expended and logs ``SeekingHit``; the warheads striking one
    shield of one unit are one volley (D4.0), applied after all strikes in first-strike order.
    ``o`` is not read (the signature of the phase kernels)."""
    n_u = a.kind.shape[1]
    vt = ft.work[:n_u]  # volleys: target, shield, points (the scratch: no allocation)
    vs = ft.work[n_u:2 * n_u]
    vp = ft.work[2 * n_u:3 * n_u]
    nv = 0
    now = (a.turn[b] - 1) * ft.ipt + a.impulse[b]
    for d in range(n_u):
        kd = a.kind[b, d]
        if a.status[b, d] != ACTIVE or not (kd in (K_DRONE, K_PLASMA) or (
                ft.suicide_rule and a.suicide_launched[b, d])):  # (J2.222) suicide shuttles
            continue
        t = a.target[b, d]
        if t < 0 or a.status[b, t] != ACTIVE:
            continue
        if not (a.x[b, t] == a.x[b, d] and a.z[b, t] == a.z[b, d]):
            continue
        if a.tractor_holder[b, d] >= 0:  # (G7.0)
            continue
        fed_back = False
        moved = a.prev_x[b, d] != a.x[b, d] or a.prev_z[b, d] != a.z[b, d]
        in_hex = (a.launched_at[b, d] == now - 1 and not moved
                  and a.prev_x[b, t] == a.x[b, t] and a.prev_z[b, t] == a.z[b, t])
        if kd == K_PLASMA:  # (plasma.impact, FP1.5)
            target_moved = a.prev_x[b, t] != a.x[b, t] or a.prev_z[b, t] != a.z[b, t]
            warhead = plasma.warhead(a.w_type, a.damage, a.launched_at, a.turn, a.impulse, ft,
                                     ft.ipt, b, d)
            if moved:  # entered the target's hex: the shield facing the hex it came from
                shield = shields.shield_from(a, ft, b, t, a.x[b, t], a.z[b, t],
                                             a.facing[b, t], a.prev_x[b, d], a.prev_z[b, d],
                                             -1, -1)
            elif target_moved:  # the target entered the torpedo's hex (F2.1)
                shield = shields.shield_from(a, ft, b, t, a.prev_x[b, t], a.prev_z[b, t],
                                             a.facing[b, t], a.x[b, d], a.z[b, d], -1, -1)
            else:  # launched in the target's hex (FP1.3): from the hex behind it [P-070]
                bx, bz = shields.neighbor(a.x[b, d], a.z[b, d], (a.facing[b, d] + 3) % 6)
                shield = shields.shield_from(a, ft, b, t, a.x[b, t], a.z[b, t],
                                             a.facing[b, t], bx, bz, -1, -1)
                fed_back = plasma.travelled(a.launched_at, a.turn, a.impulse, ft.ipt, b,
                                            d) <= 1
        elif in_hex:  # (F2.3) from the hex astern of the launcher
            bx, bz = shields.neighbor(a.x[b, d], a.z[b, d], (a.facing[b, d] + 3) % 6)
            shield = shields.shield_from(a, ft, b, t, a.x[b, t], a.z[b, t], a.facing[b, t],
                                         bx, bz, -1, -1)
        elif a.prev_x[b, d] == a.x[b, d] and a.prev_z[b, d] == a.z[b, d]:
            shield = shields.shield_from(a, ft, b, t, a.prev_x[b, t], a.prev_z[b, t],
                                         a.facing[b, t], a.x[b, d], a.z[b, d], -1, -1)
        else:
            shield = shields.shield_from(a, ft, b, t, a.x[b, t], a.z[b, t], a.facing[b, t],
                                         a.prev_x[b, d], a.prev_z[b, d], -1, -1)
        if kd == K_DRONE:
            warhead = ft.drone_warhead
            if a.kind[b, t] == K_FIGHTER and dice_mod.die(a.dice, b) == 6:
                warhead = (warhead + 1) // 2  # (J4.47) a natural 6: half the warhead
        elif kd != K_PLASMA:  # (J2.222) a suicide shuttle: 2 x the energy put in, at most 18
            warhead = min(SUICIDE_MAX_WARHEAD, 2 * a.suicide_energy[b, d])
        a.status[b, d] = EXPENDED
        hidden = a.cloaked[b, t]  # (G13 cadet rule, cloak.seeking_impact) 1-4 miss, 5-6 half
        if hidden and ft.standard_cloak:  # (G13 standard rule) past the fade-out; G23.621
            hidden = cloak.fully_cloaked(a.cloaked, a.esg_struck_at, a.cloak_announced_at, b,
                                         t, (a.turn[b] - 1) * ft.ipt + a.impulse[b])
        if hidden:
            die = dice_mod.die(a.dice, b)
            if die < MISS_BELOW:
                r = event_codes.begin(a.ev, a.ev_count, b, CLOAK_EVADED, a.turn[b],
                                      a.impulse[b])
                a.ev[b, r, 3] = d
                a.ev[b, r, 4] = t
                a.ev[b, r, 5] = die
                warhead = 0
            else:
                warhead = -(-warhead // 2)
        if warhead <= 0:
            continue
        if fed_back:
            _plasma_feedback(a, ft, b, d, t, warhead)
        r = event_codes.begin(a.ev, a.ev_count, b, SEEKING_HIT, a.turn[b], a.impulse[b])
        a.ev[b, r, 3] = d
        a.ev[b, r, 4] = t
        a.ev[b, r, 5] = shield
        a.ev[b, r, 6] = warhead
        if a.kind[b, t] == K_MONSTER and a.kind[b, d] == K_SHUTTLE:
            # (SCENARIOS §2.8 result 1) a suicide shuttle hit kills a researched monster
            kill_methods.struck_by(a.status, a.kind, a.side, a.kill_methods, a.ev, a.ev_count,
                                   a.turn[b], a.impulse[b], b, t, kill_methods.SUICIDE_SHUTTLE,
                                   d)
        k = 0
        while k < nv and not (vt[k] == t and vs[k] == shield):
            k += 1
        if k == nv:
            vt[k], vs[k], vp[k] = t, shield, 0
            nv += 1
        vp[k] += warhead
    for k in range(nv):
        damage.apply_damage_a(a, ft, b, vt[k], vs[k], vp[k])


@nb.njit(cache=True, inline="always")
def launch_seeking_weapons(s, ft, b, o):
    """The phase entry point on BatchState ``s``: ``launch_seeking_weapons_a`` on
    ``damage.fire_view(s)``, called only where some launch is ordered (a call that passes the
    view and the tables costs an incref and a decref of each of their arrays)."""
    for rack in range(o.launch.shape[1]):
        if o.launch[b, rack] >= 0:
            launch_seeking_weapons_a(damage.fire_view(s), ft, b, o)
            return


@nb.njit(cache=True, inline="always")
def resolve_seeking_weapons(s, ft, b, o):
    """The phase entry point on BatchState ``s``: ``resolve_seeking_weapons_a`` on
    ``damage.fire_view(s)``, called only where some drone stands in its target's hex (or a
    plasma torpedo is in play, which it refuses): elsewhere it does nothing."""
    status, kind, target, x, z = s.status, s.kind, s.target, s.x, s.z
    due = False
    for d in range(kind.shape[1]):
        if status[b, d] != ACTIVE:
            continue
        kd = kind[b, d]
        if kd == K_PLASMA:
            due = True
            break
        if kd != K_DRONE and not (ft.suicide_rule and s.suicide_launched[b, d]):
            continue
        t = target[b, d]
        if t >= 0 and status[b, t] == ACTIVE and x[b, t] == x[b, d] and z[b, t] == z[b, d]:
            due = True
            break
    if not due:
        return
    resolve_seeking_weapons_a(damage.fire_view(s), ft, b, o)
