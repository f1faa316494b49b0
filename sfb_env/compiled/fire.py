"""Fire Direct-Fire and Resolve Direct-Fire in compiled code: phasers (ph-1, ph-2, ph-3: E2.4),
disruptors (E3.31), photon torpedoes (E4.0), and (tier 2) the Hydran's fusion beams (E7) and
phaser-G (E2.15); the PPD's pulses are ``compiled.ppd``'s (E11.31, resolved first).

A fusion beam fires once a turn and cools the next (E7.21, E7.22: ``w_fired_turn``); its E7.32
damage reads ``FireTables.fusion_dmg``. A phaser-G fires shot 1 from ``o.fire``, shots 2..4
from ``o.gatling`` (E2.151), each its own die; ``gatling_open`` is its rate.

``fire_direct_fire(s, ft, b, o)`` mirrors ``engine.procedure._fire_direct_fire`` with
``engine.direct_fire.resolve_fire``: every shot ordered (the agents', then the phaser-Gs'
extra shots, then the robot units', ``robots.fire_orders``, already merged into ``o.fire``) is
rolled and scored, then all damage is applied volley by volley (E1.0). Orders are not judged
here (the env and ``Battle.validate`` do, with ``direct_fire.fire_blockers``).

Energy: under the cadet form ``compiled.purse.pay_shot`` draws a governed ship's phaser shot
from its capacitor before the die is rolled (an unpowered shot rolls none) and
``purse.fired`` spends a heavy weapon's charge. Under the Chief Engineer phasers and
disruptors are always armed (``w_armed`` is never spent: ``fired`` and ``pay_shot`` act on
governed ships only); a photon may fire from turn ``w_ready_turn`` (2 at the start) and its
firing on turn t sets it to t + 2 (SCENARIOS §2.1). The E1.5 rate (once a turn, a quarter turn
apart) is read from ``w_fired_turn`` and ``w_last_fired``, both written here.

Where the step calls it (``procedure.advance``): in the first half, after Launch Seeking
Weapons and before End of Impulse, every impulse 1..I; the robot units' shots are computed on
the state at that point. Shots resolve in the reference's order (the orders dict: agents in
unit row order, each in weapon row order; then the robots', whose rows come after).

Entry points: ``fire_direct_fire(s, ft, b, o)`` on the BatchState; ``fire_direct_fire_pinned(p,
b, o)`` on its arguments pinned once by the caller (``pin_args``, ``handle.pin``: the play
kernel's loop over battles); ``fire_direct_fire_a(p, b)``, the call out of line. Tables:
``damage.FireTables`` (``fire_tables(setup)``).
"""

from __future__ import annotations

import numba as nb

from sfb_env.compiled import (
    cloak,
    damage,
    dice,
    engineering,
    event_codes,
    handle,
    purse,
    sensors,
    shields,
)
from sfb_env.compiled.damage import FireTables, fire_tables
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine import phaser_g
from sfb_env.engine.types import K_DRONE, K_FIGHTER, K_TARGET_DRONE, NEVER, WeaponType

__all__ = ["FireTables", "fire_tables", "fire_direct_fire"]

FIRED = event_codes.CODE["Fired"]
_PH1, _PH2, _PH3, _PHG = (int(WeaponType.PH1), int(WeaponType.PH2), int(WeaponType.PH3),
                          int(WeaponType.PHG))
_DISRUPTOR = int(WeaponType.DISRUPTOR)
_PHOTON = int(WeaponType.PHOTON)
_FUSION = int(WeaponType.FUSION)
_PPD = int(WeaponType.PPD)
_SCANNER = sensors._SCANNER  # (D6) the DAC's scanner column
GATLING_PER_TURN = phaser_g.SHOTS_PER_TURN  # (E2.151)
GATLING_PER_QUARTER = phaser_g.SHOTS_PER_QUARTER_TURN  # (E2.151)
GATLING_EXTRA = phaser_g.SHOTS_PER_TURN - 1  # shots 2..4: order rows (layout.GATLING_EXTRA)


@kernel(_nrt=False, error_model="numpy")
def _score(cloaked, unit_kind, ft, b, kind, target, rng, die, max_range):
    """``direct_fire._score`` for phasers (phaser-G too), disruptors, photons and fusion beams:
    (damage, hit, effective)."""
    return _score_a(cloaked, unit_kind, ft.drone_die_modifier, ft.phaser_len, ft.phaser_chart,
                    ft.disr_hit, ft.disr_dmg, ft.phot_hit, ft.phot_dmg, b, kind, target, rng,
                    die, max_range, ft.fusion_dmg, -1)


@nb.njit(cache=True, inline="always")
def cloak_range(rng, cloaked):
    """(G13 cadet rule) the range that counts for fire at a cloaked target: 2 x range + 5."""
    return 2 * rng + 5 if cloaked else rng


@nb.njit(cache=True, inline="always")
def _score_a(cloaked, unit_kind, drone_die_modifier, phaser_len, phaser_chart, disr_hit,
             disr_dmg, phot_hit, phot_dmg, b, kind, target, rng, die, max_range, fusion_dmg,
             effective):
    """``_score`` on the chart arrays (a call passing the ``FireTables`` namedtuple increfs and
    decrefs each of its arrays); ``effective`` -1: the cloak rule's range (G13), else lock-on's
    (D6, ``sensors.effective_range``)."""
    if effective < 0:
        effective = cloak_range(rng, cloaked[b, target])
    if effective > max_range:
        return 0, False, effective
    tk = unit_kind[b, target]
    is_drone = tk in (K_DRONE, K_TARGET_DRONE)
    modified = die
    if is_drone and drone_die_modifier and (kind in (_DISRUPTOR, _PHOTON, _FUSION, _PPD)):
        modified = die + 2  # (FD1.52)
    if kind in (_PH1, _PH2, _PH3, _PHG):
        if effective >= phaser_len[kind]:
            raise ValueError("compiled fire: phaser range off its chart")
        dmg = phaser_chart[kind, die - 1, effective]
        return dmg, dmg > 0, effective
    if kind == _DISRUPTOR:  # (E3.31) hit number at effective range, damage at true range
        dmg = disr_dmg[rng] if modified <= disr_hit[effective] else 0
        return dmg, dmg > 0, effective
    if kind == _PHOTON:
        dmg = phot_dmg[effective] if modified <= phot_hit[effective] else 0
        return dmg, dmg > 0, effective
    if kind == _FUSION:  # (E7.32) the roll may carry the drone +2 (FD1.52, PROPOSAL [P-055])
        dmg = fusion_dmg[modified - 1, effective]
        return dmg, dmg > 0, effective
    raise NotImplementedError("compiled fire: weapon type not ported")


@kernel(_nrt=False, error_model="numpy")
def _score_vs_fighter(phaser_vf, phaser_len, disr_hit, disr_dmg, phot_hit, phot_dmg,
                      fusion_dmg, kind, rng, die, max_range, effective):
    """``direct_fire._score`` at a fighter (J4.47): a phaser reads ``die_chart_vs_fighter``
    (``FireTables.phaser_vf``); a disruptor, photon or fusion beam rolls the die + 1, a 7
    reading the die-6 row one bracket out (fusion: [P-055]). A fighter never cloaks: the
    effective range is lock-on's (D6) or the true range."""
    if effective < 0:
        effective = rng
    if effective > max_range:
        return 0, False, effective
    modified = die + 1  # (J4.47) fighters.fighter_die
    if kind in (_PH1, _PH2, _PH3, _PHG):
        if effective >= phaser_len[kind]:
            raise ValueError("compiled fire: phaser range off its chart")
        dmg = phaser_vf[kind, die - 1, effective]
        return dmg, dmg > 0, effective
    if kind == _DISRUPTOR:  # (E3.31) hit number at effective range, damage at true range
        dmg = disr_dmg[rng] if modified <= disr_hit[effective] else 0
        return dmg, dmg > 0, effective
    if kind == _PHOTON:
        dmg = phot_dmg[effective] if modified <= phot_hit[effective] else 0
        return dmg, dmg > 0, effective
    if kind == _FUSION:  # (E7.32, [P-055])
        dmg = fusion_dmg[modified - 1, effective]
        return dmg, dmg > 0, effective
    raise NotImplementedError("compiled fire: weapon type not ported")


@nb.njit(cache=True, inline="always")
def gatling_open(w_gatling_shots, b, w, turn, imp, ipt, quarter_turn, shot):
    """(E2.151) ``phaser_g.can_fire(gatling(battle, w), turn, imp, shot)``: a ``shot``-th shot
    in this impulse leaves at most four shots in the turn and four in the last quarter turn
    (across the turn break), counted from the gun's last four shots (``NEVER``: none)."""
    first = (turn - 1) * ipt + 1
    now = first + imp - 1
    this_turn = 0
    window = 0
    for i in range(w_gatling_shots.shape[2]):
        t = w_gatling_shots[b, w, i]
        if first <= t < first + ipt:
            this_turn += 1
        if now - t < quarter_turn:
            window += 1
    return this_turn + shot <= GATLING_PER_TURN and window + shot <= GATLING_PER_QUARTER


@nb.njit(cache=True, inline="always")
def _record_gatling(w_gatling_shots, b, w, turn, ipt, quarter_turn, now):
    """(E2.151) ``phaser_g.fire`` then ``resolve_fire``'s record: the shots older than both
    this turn and the last quarter turn are dropped, ``now`` appended, the last four kept,
    right-aligned after ``NEVER`` padding."""
    g = w_gatling_shots.shape[2]
    horizon = min((turn - 1) * ipt + 1, now - quarter_turn + 1)
    n = 0
    for i in range(g):
        t = w_gatling_shots[b, w, i]
        if t >= horizon:
            w_gatling_shots[b, w, n] = t
            n += 1
    if n == g:
        for i in range(g - 1):
            w_gatling_shots[b, w, i] = w_gatling_shots[b, w, i + 1]
        w_gatling_shots[b, w, g - 1] = now
        return
    w_gatling_shots[b, w, n] = now
    shift = g - n - 1
    for i in range(g - 1, -1, -1):
        w_gatling_shots[b, w, i] = w_gatling_shots[b, w, i - shift] if i >= shift else NEVER


@kernel(_nrt=False, error_model="numpy")
def fire_direct_fire_a(p, b):
    """``engine.procedure._fire_direct_fire`` -> ``engine.direct_fire.resolve_fire`` (E1), on
    ``p``, the pinned ``(damage.fire_view(s), ft, o)`` (``pin_args``):
    each ordered shot rolls one die, scores, picks the struck shield (``shields.struck_shield``,
    only if it scored) and logs ``Fired``; then the volleys (target, shield) are applied in
    first-shot order (``damage.apply_damage_a``). The shots in the reference's order: the agents'
    ``o.fire[b, w]`` (target row, -1 none) in weapon row order, then the phaser-Gs' shots 2..4
    (``o.gatling``, E2.151: weapon row, then shot number), then the robots' ``o.fire`` (rows from
    ``ft.gatling_after``). A PPD's order is ``compiled.ppd.fire_step``'s, resolved before
    (E11.31). No probe or monster fire, no fighters' pilots. Under the cadet form
    (``purse.pay_shot``, ``purse.fired``) a governed ship's phaser shot draws its capacitor
    (H6.1) and a heavy weapon's shot spends its charge."""
    a, ft, o = handle.deref(p)
    n_w = o.fire.shape[1]
    nv = 0  # volleys in the scratch ft.work: target, shield, points (no allocation)
    for w in range(min(n_w, ft.gatling_after)):
        if o.fire[b, w] >= 0:
            nv = _shot(a, ft, b, w, o.fire[b, w], nv)
    for w in range(n_w):  # (E2.151) a phaser-G's shots 2..4, each its own die
        for k in range(GATLING_EXTRA):
            if o.gatling[b, GATLING_EXTRA * w + k] >= 0:
                nv = _shot(a, ft, b, w, o.gatling[b, GATLING_EXTRA * w + k], nv)
    for w in range(ft.gatling_after, n_w):
        if o.fire[b, w] >= 0:
            nv = _shot(a, ft, b, w, o.fire[b, w], nv)
    vt = ft.work
    for k in range(nv):  # (E1.0) all damage of the step, now applied
        damage.apply_damage_a(a, ft, b, vt[3 * k], vt[3 * k + 1], vt[3 * k + 2])


@nb.njit(cache=True, inline="always")
def _shot(a, ft, b, w, t, nv):
    """One shot of ``resolve_fire``: weapon ``w`` at unit ``t``; its damage joins the volleys
    (``ft.work``, ``nv`` of them so far); returns the new ``nv``."""
    vt = ft.work
    turn = a.turn[b]
    now = (turn - 1) * ft.ipt + a.impulse[b]
    x, z, facing, prev_x, prev_z, prev_facing = a.x, a.z, a.facing, a.prev_x, a.prev_z, \
        a.prev_facing
    unit_kind, shield_pool, cloaked, dice_ = a.kind, a.shield_pool, a.cloaked, a.dice
    lut = ft.shield_lut
    owner = a.w_owner[b, w]
    kind = a.w_type[b, w]
    if kind == _PPD:  # (E11.31) fired first, by compiled.ppd.fire_step
        return nv
    cadet = not ft.chief_engineer  # (B3.0) the cadet form (tiers: chief or cadet)
    if cadet and not (engineering.pay_shot(a, ft, b, w, owner, kind) if ft.reserve_power
                      else purse.pay_shot(a, ft, b, w, owner, kind)):  # (H6.1, H7.2) ran dry
        return nv
    rng = shields.distance(x[b, owner], z[b, owner], x[b, t], z[b, t])
    die = dice.die(dice_, b)
    effective = -1
    if ft.standard_cloak:  # (G13 standard rule) the fades; lock-on and scanners (D6)
        effective = cloak.effective_range(a.locked_on, cloaked, a.esg_struck_at,
                                          a.cloak_announced_at, a.dac_boxes, ft.scanner_of,
                                          _SCANNER, ft.lock_on, b, owner, t, rng, now)
    elif ft.lock_on:  # (D6) the firer's lock-on and scanners
        effective = sensors.effective_range(a.locked_on, cloaked, a.esg_struck_at, a.dac_boxes,
                                            ft.scanner_of, b, owner, t, rng, now)
    if unit_kind[b, t] == K_FIGHTER:  # (J4.47) +1 to the die; phasers read their own chart
        dmg, hit, effective = _score_vs_fighter(ft.phaser_vf, ft.phaser_len, ft.disr_hit,
                                                ft.disr_dmg, ft.phot_hit, ft.phot_dmg,
                                                ft.fusion_dmg, kind, rng, die,
                                                a.w_max_range[b, w], effective)
    else:
        dmg, hit, effective = _score_a(cloaked, unit_kind, ft.drone_die_modifier,
                                       ft.phaser_len, ft.phaser_chart, ft.disr_hit,
                                       ft.disr_dmg, ft.phot_hit, ft.phot_dmg, b, kind, t, rng,
                                       die, a.w_max_range[b, w], ft.fusion_dmg, effective)
    shield = 0
    if dmg and shields.has_facing_shields(unit_kind, shield_pool, b, t):
        # shields.struck_shield's common case (one shield faces the shooter) here; the
        # rest (shared hex, exact boundaries and their events, off the LUT) there
        if rng == 0:
            tx, tz, tf = prev_x[b, t], prev_z[b, t], prev_facing[b, t]
            vx, vz = prev_x[b, owner] - tx, prev_z[b, owner] - tz
        else:
            tx, tz, tf = x[b, t], z[b, t], facing[b, t]
            vx, vz = x[b, owner] - tx, z[b, owner] - tz
        if (vx != 0 or vz != 0) and abs(vx) <= shields.R and abs(vz) <= shields.R:
            shield = shields._single(lut[tf % 6, vx + shields.R, vz + shields.R])
        if shield == 0:
            shield = shields.struck_shield(a, ft, b, t, owner, rng == 0)
    if cadet:
        purse.fired(a, ft, b, w, owner, kind)  # (E3.2, E4.2) the charge leaves with it
    if kind == _FUSION:
        a.w_ready_turn[b, w] = turn + 2  # (E7.22) cools on t+1, armed again on t+2
    elif kind == _PHG:
        _record_gatling(a.w_gatling_shots, b, w, turn, ft.ipt, ft.quarter_turn, now)
    a.w_fired_turn[b, w] = turn
    a.w_last_fired[b, w] = now
    if kind == _PHOTON and ft.chief_engineer:
        a.w_ready_turn[b, w] = turn + 2  # (SCENARIOS §2.1) fired on turn t -> ready t+2
    r = event_codes.begin(a.ev, a.ev_count, b, FIRED, turn, a.impulse[b])
    a.ev[b, r, 3] = owner
    a.ev[b, r, 4] = w
    a.ev[b, r, 5] = kind
    a.ev[b, r, 6] = t
    a.ev[b, r, 7] = rng
    a.ev[b, r, 8] = effective
    a.ev[b, r, 9] = die
    a.ev[b, r, 10] = hit
    a.ev[b, r, 11] = dmg
    a.ev[b, r, 12] = shield
    if dmg:
        k = 0
        while k < nv and not (vt[3 * k] == t and vt[3 * k + 1] == shield):
            k += 1
        if k == nv:
            vt[3 * k], vt[3 * k + 1], vt[3 * k + 2] = t, shield, 0
            nv += 1
        vt[3 * k + 2] += dmg
    return nv


@nb.njit(cache=True, inline="always")
def call_args(s, ft, o):
    """The arguments of the call out of line that ``pin_args`` pins (a batch keeps them
    in a handle: ``procedure.call_args``)."""
    return (damage.fire_view(s), ft, o)


@nb.njit(cache=True, inline="always")
def pin_args(s, ft, o):
    """``fire_direct_fire_a``'s arguments, pinned (``handle.pin``: once, before a loop over
    battles; only for a caller that does not return the ref)."""
    return handle.pin(call_args(s, ft, o))


@nb.njit(cache=True, inline="always")
def _ordered(o, b) -> bool:
    """Some shot is ordered in battle ``b`` (an agent's or a robot's, or a phaser-G's shots
    2..4 alone, E2.151)."""
    for w in range(o.fire.shape[1]):
        if o.fire[b, w] >= 0:
            return True
    for i in range(o.gatling.shape[1]):  # noqa: SIM110 (numba: no generator here)
        if o.gatling[b, i] >= 0:
            return True
    return False


@nb.njit(cache=True, inline="always")
def fire_direct_fire(s, ft, b, o):
    """The phase entry point on BatchState ``s``: ``fire_direct_fire_a``, called only where
    some shot is ordered (its arguments pinned at the call)."""
    if _ordered(o, b):
        fire_direct_fire_a(pin_args(s, ft, o), b)


@nb.njit(cache=True, inline="always")
def fire_direct_fire_pinned(p, b, o):
    """``fire_direct_fire`` on the arguments ``p`` pinned by the caller (``pin_args``)."""
    if _ordered(o, b):
        fire_direct_fire_a(p, b)
