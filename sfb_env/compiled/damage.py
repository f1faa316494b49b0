"""Damage in compiled code: ``engine.damage.apply_damage`` for the tier-1 rules.

Ported: drones and target drones (FD1.54), the ``none`` rule (scenario 1), the ``interim`` rule
(D4.0: one point on the least valuable weapon, the rest by ``BOX_ORDER``; a ship with nothing
left is destroyed), the ``cadet_dac`` rule (D4.21-D4.4: one die per internal point on the cadet
chart, CTH-DATA §10.2), the ``s4`` rule (scenario 4, CTH-DATA §10.1: the 1st point of a volley on
a weapon, the 2nd on a warp box, the rest by ``BOX_ORDER`` then weapons; a robot ship's by
``ROBOT_BOX_ORDER``, warp last; a point finding nothing left destroys the ship), the
``standard_dac`` rule (D4.2-D4.4, §10.3: ``compiled.std_dac``; a
cadet ship keeps the cadet DAC), abstract freighters (R1.6: one shield pool, phaser dead and
destroyed at thresholds), ``Damaged`` and ``Destroyed`` events, the standard form's unpaid
shields (a governed ship's ``shields_active`` cleared: they stop nothing, CTH-DATA §7.4). Not
ported (the ported scenarios switch them off; ``fire_tables`` refuses them): the ``s4`` rule,
reinforcement and reserve power in a struck shield (D3.34, H7.2), ship explosions
(``rules.explosions``). The units' own damage handlers: plasma torpedoes ``compiled.plasma``,
small craft ``craft_damage``, the Planet Killer ``compiled.kill_methods.take_damage`` (points
count toward kill method 3 only, SCENARIOS §2.8).

``FireTables`` (built by ``fire_tables(setup)``) are the static tables of every fire, damage,
shield and seeking kernel of this package (``compiled.fire``, ``compiled.shields``,
``compiled.seeking_impacts``).
"""

from __future__ import annotations

import functools
from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env import hexmap, impulse, tables
from sfb_env.compiled import dice as dice_mod
from sfb_env.compiled import engineering, event_codes, kill_methods, plasma, sensors, std_dac
from sfb_env.compiled.dispatch import kernel
from sfb_env.data.charts import load_weapons
from sfb_env.engine import damage as ref_damage
from sfb_env.engine import direct_fire as ref_fire
from sfb_env.engine import fighters as ref_fighters
from sfb_env.engine.types import (
    ACTIVE,
    DESTROYED,
    K_DRONE,
    K_FIGHTER,
    K_FREIGHTER,
    K_MONSTER,
    K_PLASMA,
    K_SHIP,
    K_SHUTTLE,
    K_TARGET_DRONE,
    Box,
    WeaponType,
)

DAMAGED = event_codes.CODE["Damaged"]
DESTROYED_EV = event_codes.CODE["Destroyed"]
BOX_WEAPON = event_codes.BOX_WEAPON
RULE_NONE, RULE_INTERIM, RULE_CADET_DAC, RULE_STANDARD_DAC, RULE_S4 = 0, 1, 2, 3, 4
DAMAGE_RULES = {"none": RULE_NONE, "interim": RULE_INTERIM, "cadet_dac": RULE_CADET_DAC,
                "standard_dac": RULE_STANDARD_DAC, "s4": RULE_S4}
_DRONE_RACK = int(WeaponType.DRONE_RACK)
_EXCESS = int(Box.EXCESS)
N_TYPES = max(int(k) for k in WeaponType) + 1
BOX_ORDER = np.array([int(b) for b in ref_damage.BOX_ORDER], dtype=np.int64)
ROBOT_BOX_ORDER = np.array([int(b) for b in ref_damage.ROBOT_BOX_ORDER], dtype=np.int64)
_WARP = int(Box.WARP)

FireTables = namedtuple("FireTables", [
    "ipt",  # impulses per turn
    "suicide_rule",  # bool (J2.222) rules.suicide_shuttles: suicide shuttles strike
    "quarter_turn",  # impulses in a quarter turn (E1.5)
    "damage_rule",  # RULE_NONE / RULE_INTERIM / RULE_CADET_DAC / RULE_STANDARD_DAC / RULE_S4
    "drone_strength",  # (FD1.54)
    "drone_warhead",  # (FD1.6)
    "drone_die_modifier",  # (FD1.52) bool
    "boundary_advanced",  # (D3.41) True: advanced, False: die
    "chief_engineer",  # bool (SCENARIOS §2.1)
    "unit_weapons",  # (U, maxW) int64 weapon rows of each unit, -1 padded
    "unit_n_weapons",  # (U,) int64
    "weapon_value",  # (N_TYPES,) int64 D4.0 owner's sacrifice order (damage.WEAPON_VALUE)
    "fr_disabled_at",  # (U,) int64 (R1.6) freighter phaser dead at this internal; big if none
    "fr_destroyed_at",  # (U,) int64 (R1.6)
    "box_order",  # (10,) int64 damage.BOX_ORDER
    "s4_order",  # (U, 10) int64 (scenario-4 rule) each unit's order after the 2nd point:
    #   damage.ROBOT_BOX_ORDER for a robot ship, else BOX_ORDER
    "cadet_chart",  # (6, 5) int64 (D4.21) category of columns A..E by [die - 1]
    "cadet_boxes",  # (categories, 6) int64 Box types of a category in the owner's order, -1 pad
    "cadet_wpn", "cadet_excess",  # the categories "WPN" and "Excess" (D4.4)
    "phaser_chart",  # (N_TYPES, 6, 76) int64 damage by [type, die - 1, range]
    "phaser_len",  # (N_TYPES,) int64 chart columns (0 = not a phaser)
    "disr_hit", "disr_dmg",  # (41,) int64 (E3.31)
    "phot_hit", "phot_dmg",  # (31,) int64 (E4.0)
    "shield_lut",  # hexmap.SHIELD_LUT (6, 129, 129)
    "arc_lut",  # hexmap.ARC_LUT
    "move_chart",  # (ipt + 1, ipt) bool impulse.movement_chart
    "rack_capacity",  # (W,) int64
    "launch_limit",  # (U,) int64 (FD4.21) drones per turn from all racks, -1 none
    # (FP1) plasma.plasma_tables: torpedo rows, fixed launchers, warheads, endurance
    "plasma_launcher", "plasma_rows", "plasma_fixed", "plasma_warhead", "plasma_endurance",
    "plasma_expired",
    "governed",  # (U,) bool the cadet form governs the ship (energy.EnergyTables.governed)
    "phaser_draw",  # (N_TYPES,) float64 capacitor energy a phaser shot draws (H6.1, E2.1)
    "fbits",  # (1,) float64 scratch: a float event field's bits (FireUnpowered)
    # (E11) ppd_tables: PPD rows, the chart by range, splash and along-a-side splits
    "ppd_rows", "ppd_hit", "ppd_dmg", "ppd_splash", "ppd_alt",
    "work",  # int64 scratch of the fire and seeking kernels (volleys): no allocation per call
    "fusion_dmg",  # (8, 25) int64 (E7.32) damage by [roll - 1, range]; rolls 7-8 (FD1.52 +2
    #   against drones) per PROPOSAL [P-055] (direct_fire.fusion_damage)
    # (D4.2-D4.4) the standard DAC (std_dac.dac_tables): the units on it, the chart (11, 13)
    # by [roll - 2, column], bold cells' bits, each system's boxes and weapon classes, the
    # "Phaser" / "Any Warp" / "Excess" systems, the tracks' last box kept (D4.33), the coarse
    # Box of each DacBox, its event word; per weapon row its class, shields, owner's value
    # and phaser rank
    "dac_unit", "dac_chart", "dac_bold", "dac_sys_boxes", "dac_sys_weapon", "dac_phaser",
    "dac_any_warp", "dac_excess", "dac_keep_last", "dac_to_box", "dac_word", "w_dac_class",
    "w_dac_shields", "w_dac_value", "w_phaser_rank",
    # (D6) sensors.sensor_tables: lock-on in force, the sensor and scanner ratings by boxes left
    "lock_on", "sensor_of", "scanner_of",
    "standard_cloak",  # (G13 standard rule) bool: compiled.cloak's fades and ranges
    "gatling_after",  # (E2.151) weapon row before which the phaser-Gs' shots 2..4 resolve (the
    #   first robot unit's row, else W: procedure._fire_direct_fire's order)
    # (D3.34, H7) compiled.engineering: reinforcement or reserve power in a struck shield,
    # reserve power at fire, with the arming cycles (a disruptor armed from batteries, E3.2)
    "engineering", "reserve_power", "single_turn", "cycle",
    # (G6) engineering.mutiny_tables: the rule, Klingon ships with security stations, the
    # boarding parties' shift (G6.22), the captor (PROPOSAL [P-106])
    "mutiny", "security", "mutiny_shift", "captor",
    # (J4.12, J4.49, J1.0) per unit row a small craft's damage thresholds and crippled speed
    # (0 for other units); (J4.47) the phaser charts read against a fighter, as phaser_chart
    "craft_crippled_at", "craft_destroyed_at", "craft_crippled_speed", "phaser_vf",
])

# The BatchState arrays these kernels read and write, under the same names. Only the phase
# entry points take the whole ``BatchState`` (123 arrays: every function taking it costs ~7 s
# of numba compile time); they build this view once (``fire_view``), the phase kernels (``_a``)
# take the view (``a``), the small helpers only the arrays they read. The entry points are
# ``inline="always"``: a step kernel calling them pays for ``BatchState`` once.
FIRE_FIELDS = ("status", "kind", "damage", "shields", "shield_pool", "internal",
               "boxes", "w_destroyed", "w_type", "w_ammo", "w_owner", "w_max_range",
               "w_fired_turn", "w_last_fired", "w_ready_turn", "w_drone_rows", "x", "z",
               "facing", "prev_x", "prev_z", "prev_facing", "speed", "tactical",
               "cloaked", "straight", "target", "launcher", "launched_at", "tractor_holder",
               "capacitor", "w_armed", "w_arm_stage", "turn", "impulse", "dice", "ev",
               "ev_count", "w_gatling_shots",  # (E2.151)
               "dac_boxes",  # (D4.2-D4.4) compiled.std_dac
               "locked_on", "esg_struck_at",  # (D6, G23.621) compiled.sensors
               "cloak_announced_at",  # (G13 standard rule) compiled.cloak
               "shields_active",  # (B3.0 standard line 11) shields paid this turn
               # (D3.34, H7) compiled.engineering
               "batteries", "reinf_general", "reinf_specific", "reinf_held", "reserve_kept",
               "captured_by", "mutiny", "control_stations",  # (G6) mutiny
               "suicide_launched", "suicide_energy",  # (J2.222) suicide shuttles strike
               # (scenario 11) the monster's damage handler (compiled.kill_methods)
               "side", "monster_counted", "kill_methods")
FireArrays = namedtuple("FireArrays", FIRE_FIELDS)


@nb.njit(cache=True, inline="always")
def fire_view(s):
    """The ``FireArrays`` view of BatchState ``s`` (the same arrays, no copy)."""
    return FireArrays(s.status, s.kind, s.damage, s.shields, s.shield_pool,
                      s.internal, s.boxes, s.w_destroyed, s.w_type, s.w_ammo,
                      s.w_owner, s.w_max_range, s.w_fired_turn, s.w_last_fired, s.w_ready_turn,
                      s.w_drone_rows, s.x, s.z, s.facing, s.prev_x,
                      s.prev_z, s.prev_facing, s.speed, s.tactical, s.cloaked,
                      s.straight, s.target, s.launcher, s.launched_at, s.tractor_holder,
                      s.capacitor, s.w_armed, s.w_arm_stage, s.turn, s.impulse, s.dice, s.ev,
                      s.ev_count, s.w_gatling_shots, s.dac_boxes, s.locked_on,
                      s.esg_struck_at, s.cloak_announced_at, s.shields_active, s.batteries,
                      s.reinf_general, s.reinf_specific, s.reinf_held, s.reserve_kept,
                      s.captured_by, s.mutiny, s.control_stations, s.suicide_launched,
                      s.suicide_energy, s.side, s.monster_counted, s.kill_methods)


_BIG = 1 << 40


@functools.cache
def _fusion_damage_chart() -> np.ndarray:
    """(E7.32, FD1.52) ``direct_fire.fusion_damage`` by die roll 1..8 (rows) and range
    (columns): the same for every setup, so built once (read-only; ``fire_tables`` hands out
    copies)."""
    columns = np.asarray(load_weapons().fusion).shape[1]
    chart = np.array([[ref_fire.fusion_damage(r, roll) for r in range(columns)]
                      for roll in range(1, 9)], dtype=np.int64)
    chart.setflags(write=False)
    return chart


def fire_tables(setup) -> FireTables:
    """The static tables of the fire, damage, shield and seeking kernels for one setup; raises
    ``NotImplementedError`` on a rule these kernels do not port."""
    rules = setup.rules
    if rules.damage not in DAMAGE_RULES:
        raise NotImplementedError(f"compiled damage: rule damage={rules.damage!r} not ported")
    if rules.explosions:
        raise NotImplementedError("compiled damage: rules.explosions not ported")
    if rules.energy not in ("chief", "cadet", "standard"):
        raise NotImplementedError("compiled fire: energy 'off' is not ported")
    from sfb_env.compiled.energy import energy_tables
    et = energy_tables(setup)
    if rules.standard_cloak and ({"convoy-freighter", "robot-ship"}
                                 & set(setup.start_state.controllers)):
        raise NotImplementedError("compiled fire: robots' fire beside the standard cloak (G13)")
    n_units = len(setup.unit_ids)
    rows = setup.weapon_rows
    width = max([len(r) for r in rows] + [1])
    unit_weapons = np.full((n_units, width), -1, dtype=np.int64)
    for u, r in enumerate(rows):
        unit_weapons[u, :len(r)] = r
    weapon_value = np.zeros(N_TYPES, dtype=np.int64)
    for k, v in ref_damage.WEAPON_VALUE.items():
        weapon_value[int(k)] = v
    fr_disabled = np.full(n_units, _BIG, dtype=np.int64)
    fr_destroyed = np.full(n_units, _BIG, dtype=np.int64)
    limit = np.full(n_units, -1, dtype=np.int64)
    for u, ship in enumerate(setup.ship_classes):
        if ship is not None and ship.freighter is not None:
            fr_disabled[u] = ship.freighter.phaser_disabled_at
            fr_destroyed[u] = ship.freighter.destroyed_at
        lim = getattr(ship, "drone_launch_limit", None) if ship is not None else None
        if lim is not None:
            if lim != 1:
                raise NotImplementedError("compiled launch: drone_launch_limit other than 1")
            limit[u] = lim
    weapons = load_weapons()
    chart = np.zeros((N_TYPES, 6, 76), dtype=np.int64)
    plen = np.zeros(N_TYPES, dtype=np.int64)
    for key, kind in (("ph-1", WeaponType.PH1), ("ph-2", WeaponType.PH2),
                      ("ph-3", WeaponType.PH3), ("ph-g", WeaponType.PHG)):
        c = np.asarray(weapons.phasers[key], dtype=np.int64)
        chart[int(kind), :, :c.shape[1]] = c
        plen[int(kind)] = c.shape[1]
    ipt = int(setup.start_state.impulses_per_turn)
    fusion_dmg = _fusion_damage_chart().copy()
    controllers = setup.start_state.controllers
    robot_rows = [int(w) for u, r in enumerate(rows) if controllers[u] != "agent" for w in r]
    return FireTables(
        ipt=ipt, quarter_turn=int(setup.quarter_turn),
        suicide_rule=bool(rules.suicide_shuttles),
        damage_rule=DAMAGE_RULES[rules.damage],
        drone_strength=int(rules.drone_strength), drone_warhead=int(rules.drone_warhead),
        drone_die_modifier=bool(rules.drone_die_modifier),
        boundary_advanced=rules.shield_boundary == "advanced",
        chief_engineer=bool(rules.chief_engineer),
        unit_weapons=unit_weapons, unit_n_weapons=np.array([len(r) for r in rows], np.int64),
        weapon_value=weapon_value, fr_disabled_at=fr_disabled, fr_destroyed_at=fr_destroyed,
        box_order=BOX_ORDER.copy(), s4_order=np.stack(
            [ROBOT_BOX_ORDER if c == "robot-ship" else BOX_ORDER for c in controllers]
            or [BOX_ORDER]).astype(np.int64), **_cadet_dac_tables(), phaser_chart=chart,
        phaser_len=plen,
        disr_hit=np.asarray(weapons.disruptor.hit_number, np.int64),
        disr_dmg=np.asarray(weapons.disruptor.damage, np.int64),
        phot_hit=np.asarray(weapons.photon.hit_number, np.int64),
        phot_dmg=np.asarray(weapons.photon.damage, np.int64),
        shield_lut=np.ascontiguousarray(hexmap.SHIELD_LUT, dtype=np.int64),
        arc_lut=np.ascontiguousarray(hexmap.ARC_LUT, dtype=np.int64),
        move_chart=np.ascontiguousarray(impulse.movement_chart(ipt)),
        rack_capacity=np.asarray(setup.rack_capacity, dtype=np.int64).copy(),
        launch_limit=limit, **plasma.plasma_tables(setup), **ppd_tables(setup),
        governed=et.governed, phaser_draw=et.phaser_draw, fbits=et.fbits.copy(),
        work=np.zeros(max(3 * max(n_units, len(setup.weapon_ids), 1),
                          PPD_VOLLEY * len(setup.weapon_ids)), dtype=np.int64),
        fusion_dmg=fusion_dmg, **std_dac.dac_tables(setup), **sensors.sensor_tables(setup),
        gatling_after=min(robot_rows, default=len(setup.weapon_ids)),
        standard_cloak=bool(rules.standard_cloak),
        engineering=bool(et.engineering), reserve_power=bool(et.reserve_power),
        single_turn=et.single_turn, cycle=et.cycle, **engineering.mutiny_tables(setup),
        **_craft_fire_tables(setup, chart),
    )


def vs_fighter_chart(chart: np.ndarray) -> np.ndarray:
    """(J4.47) A die-by-range chart ``[die - 1, range]`` read against a fighter: natural die d
    reads row d + 1, a natural 6 the die-6 row of the next longer bracket (0 past the last);
    built by ``engine.fighters.die_chart_vs_fighter`` itself."""
    out = np.zeros_like(chart)
    for d in range(6):
        for r in range(chart.shape[1]):
            out[d, r] = ref_fighters.die_chart_vs_fighter(chart, r, d + 1)
    return out


def vs_fighter_charts() -> dict[str, np.ndarray]:
    """(J4.47) The phaser and fusion charts against fighters, by weapon name."""
    out = {k: vs_fighter_chart(tables.phaser_chart(k)) for k in ("ph-1", "ph-2", "ph-3", "ph-g")}
    out["fusion"] = vs_fighter_chart(tables.fusion_chart())
    return out


def _craft_fire_tables(setup, chart: np.ndarray) -> dict[str, np.ndarray]:
    """(J4.12, J4.49, J1.0; J4.47) the small craft's part of ``FireTables``."""
    from sfb_env.engine import small_craft as ref_craft

    kind = np.asarray(setup.start_state.kind, dtype=np.int64)
    carrier = np.asarray(setup.craft_carrier, dtype=np.int64)
    n = len(kind)
    out = {name: np.zeros(n, np.int64) for name in (
        "craft_crippled_at", "craft_destroyed_at", "craft_crippled_speed")}
    for u in np.flatnonzero(carrier >= 0):
        spec = ref_craft.CRAFT[int(kind[u])]
        out["craft_crippled_at"][u] = spec.crippled_at
        out["craft_destroyed_at"][u] = spec.destroyed_at
        out["craft_crippled_speed"][u] = spec.crippled_speed
    vf = np.zeros_like(chart)
    if setup.rules.small_craft_in_play:
        charts = vs_fighter_charts()
        for key, kind_ in (("ph-1", WeaponType.PH1), ("ph-2", WeaponType.PH2),
                           ("ph-3", WeaponType.PH3), ("ph-g", WeaponType.PHG)):
            c = np.asarray(charts[key], dtype=np.int64)
            vf[int(kind_), :, :c.shape[1]] = c
    out["phaser_vf"] = vf
    return out


PPD_VOLLEY = 9  # (E11.332) scratch words of one PPD pulse's volley (compiled.ppd)


def ppd_tables(setup) -> dict[str, object]:
    """The static PPD tables of ``setup`` (``compiled.ppd``): ``ppd_rows`` the PPD weapon rows
    in use, ``ppd_hit`` / ``ppd_dmg`` (41,) the chart by range (E11.31), ``ppd_splash`` (41, 3)
    left / centre / right (E11.352), ``ppd_alt`` (41, 2) (E11.351)."""
    st = setup.start_state
    chart = load_weapons().ppd
    rows = np.flatnonzero((np.asarray(st.w_type) == int(WeaponType.PPD))
                          & np.asarray(st.w_enabled))
    return {"ppd_rows": rows.astype(np.int64),
            "ppd_hit": np.asarray(chart.hit_number, np.int64).copy(),
            "ppd_dmg": np.asarray(chart.damage, np.int64).copy(),
            "ppd_splash": np.ascontiguousarray(chart.splash, dtype=np.int64),
            "ppd_alt": np.ascontiguousarray(chart.alt, dtype=np.int64)}


def _cadet_dac_tables() -> dict[str, object]:
    """(D4.21) The cadet chart and its categories' boxes (``damage.CADET_CATEGORIES``)."""
    chart, names = tables.cadet_dac_chart()
    boxes = np.full((len(names), 6), -1, dtype=np.int64)
    for c, name in enumerate(names):
        for k, box in enumerate(ref_damage.CADET_CATEGORIES.get(name, ())):
            boxes[c, k] = int(box)
    return {"cadet_chart": np.asarray(chart, dtype=np.int64).copy(), "cadet_boxes": boxes,
            "cadet_wpn": names.index("WPN"), "cadet_excess": names.index("Excess")}


@kernel(_nrt=False, error_model="numpy")
def destroy(status, ev, ev_count, turn, impulse, b, unit):
    """``damage._destroy``: the unit is destroyed (``Destroyed``); explosions are not ported."""
    status[b, unit] = DESTROYED
    r = event_codes.begin(ev, ev_count, b, DESTROYED_EV, turn[b], impulse[b])
    ev[b, r, 3] = unit


@kernel(_nrt=False, error_model="numpy")
def _least_weapon(w_destroyed, w_type, w_ammo, ft, b, unit, skip=0):
    """The working weapon of ``unit`` with the lowest value (``damage._weapon_value``: an empty
    drone rack is worth 0), ties the highest row; -1 if none
    (``min(weapons, key=lambda w: (_weapon_value(w), -w))``). ``skip``: a bit set of weapon
    types passed over."""
    best, best_v = -1, 0
    for k in range(ft.unit_n_weapons[unit]):
        w = ft.unit_weapons[unit, k]
        if w_destroyed[b, w] or (skip >> w_type[b, w]) & 1:
            continue
        kind = w_type[b, w]
        v = 0 if kind == _DRONE_RACK and w_ammo[b, w] == 0 else ft.weapon_value[kind]
        if best < 0 or v < best_v or (v == best_v and w > best):
            best, best_v = w, v
    return best


@kernel(_nrt=False, error_model="numpy")
def _interim_internal(boxes, w_destroyed, w_type, w_ammo, ev, ft, b, unit, points, r):
    """``damage._interim_internal`` (D4.0): one point on a weapon, the rest by BOX_ORDER, then
    weapons; the boxes go into Damaged row ``r``."""
    w = _least_weapon(w_destroyed, w_type, w_ammo, ft, b, unit)
    if w >= 0:
        w_destroyed[b, w] = True
        event_codes.put_box(ev, b, r, w + BOX_WEAPON)
        points -= 1
    for _ in range(points):
        done = False
        for k in range(ft.box_order.shape[0]):
            box = ft.box_order[k]
            if boxes[b, unit, box] > 0:
                boxes[b, unit, box] -= 1
                event_codes.put_box(ev, b, r, box)
                done = True
                break
        if not done:
            w = _least_weapon(w_destroyed, w_type, w_ammo, ft, b, unit)
            if w < 0:
                break
            w_destroyed[b, w] = True
            event_codes.put_box(ev, b, r, w + BOX_WEAPON)


@kernel(_nrt=False, error_model="numpy")
def _s4_internal(boxes, w_destroyed, w_type, w_ammo, ev, ft, b, unit, points, r):
    """``damage._s4_internal`` (scenario-4 rule, CTH-DATA §10.1): the 1st point of the volley
    on the least valuable weapon, the 2nd on a warp box, each other (and a 1st or 2nd finding
    none) on the first box of the unit's order (``ft.s4_order``: a robot ship's keeps warp
    last) else a weapon; a point finding nothing left (only the bridge, which the rule leaves
    standing) destroys the ship (returns True). The boxes go into Damaged row ``r``."""
    for n in range(points):
        if n == 0:
            w = _least_weapon(w_destroyed, w_type, w_ammo, ft, b, unit)
            if w >= 0:
                w_destroyed[b, w] = True
                event_codes.put_box(ev, b, r, w + BOX_WEAPON)
                continue
        if n == 1 and boxes[b, unit, _WARP] > 0:
            boxes[b, unit, _WARP] -= 1
            event_codes.put_box(ev, b, r, _WARP)
            continue
        done = False
        for k in range(ft.s4_order.shape[1]):
            box = ft.s4_order[unit, k]
            if boxes[b, unit, box] > 0:
                boxes[b, unit, box] -= 1
                event_codes.put_box(ev, b, r, box)
                done = True
                break
        if done:
            continue
        w = _least_weapon(w_destroyed, w_type, w_ammo, ft, b, unit)
        if w < 0:
            return True
        w_destroyed[b, w] = True
        event_codes.put_box(ev, b, r, w + BOX_WEAPON)
    return False


@kernel(_nrt=False, error_model="numpy")
def _cadet_dac_internal(boxes, w_destroyed, w_type, w_ammo, dice, ev, ft, b, unit, points, r):
    """``damage._cadet_dac_internal`` (D4.21-D4.4): one die per point; the point takes the
    first column A..E of that row that can be scored: a weapon (the least valuable, a type not
    hit this volley first: ``damage._destroy_weapon``), a box of the category in the owner's
    order (``damage.CADET_CATEGORIES``), or Excess, which always scores; an Excess hit with no
    Excess box left destroys the ship (returns True). The boxes go into Damaged row ``r``."""
    types_hit = 0  # bit set of the weapon types destroyed this volley
    for _ in range(points):
        row = dice_mod.die(dice, b) - 1
        for col in range(ft.cadet_chart.shape[1]):
            category = ft.cadet_chart[row, col]
            if category == ft.cadet_excess:  # (D4.4) column E always scores
                if boxes[b, unit, _EXCESS] == 0:
                    return True
                boxes[b, unit, _EXCESS] -= 1
                event_codes.put_box(ev, b, r, _EXCESS)
                break
            if category == ft.cadet_wpn:
                w = _least_weapon(w_destroyed, w_type, w_ammo, ft, b, unit, types_hit)
                if w < 0:
                    w = _least_weapon(w_destroyed, w_type, w_ammo, ft, b, unit)
                if w >= 0:
                    w_destroyed[b, w] = True
                    event_codes.put_box(ev, b, r, w + BOX_WEAPON)
                    types_hit |= 1 << w_type[b, w]
                    break
                continue
            scored = False
            for k in range(ft.cadet_boxes.shape[1]):
                box = ft.cadet_boxes[category, k]
                if box >= 0 and boxes[b, unit, box] > 0:
                    boxes[b, unit, box] -= 1
                    event_codes.put_box(ev, b, r, box)
                    scored = True
                    break
            if scored:
                break
    return False


@kernel(_nrt=False, error_model="numpy")
def _standard_dac(a, ft, b, unit, points, shields, r):
    """``damage._standard_dac_internal`` (D4.2-D4.4): ``compiled.std_dac`` on the arrays it
    reads; True when the ship is destroyed (D4.4)."""
    return std_dac.standard_dac_internal(
        a.boxes, a.dac_boxes, a.w_destroyed, a.dice, a.ev, ft.unit_weapons, ft.unit_n_weapons,
        ft.dac_chart, ft.dac_bold, ft.dac_sys_boxes, ft.dac_sys_weapon, ft.dac_phaser,
        ft.dac_any_warp, ft.dac_excess, ft.dac_keep_last, ft.dac_to_box, ft.dac_word,
        ft.w_dac_class, ft.w_dac_shields, ft.w_dac_value, ft.w_phaser_rank, b, unit, points,
        shields, r)


@kernel(_nrt=False, error_model="numpy")
def _nothing_left(boxes, w_destroyed, ft, b, unit):
    """``damage._nothing_left``: no box and no working weapon."""
    total = 0
    for k in range(boxes.shape[2]):
        total += boxes[b, unit, k]
    if total != 0:
        return False
    for k in range(ft.unit_n_weapons[unit]):  # noqa: SIM110 (a plain loop for numba)
        if not w_destroyed[b, ft.unit_weapons[unit, k]]:
            return False
    return True


@kernel(_nrt=False, error_model="numpy")
def craft_damage(status, damage, speed, ev, ev_count, turn, imp, crippled_at, destroyed_at,
                 crippled_speed, b, u, points):
    """``small_craft.take_damage``: points on a small craft (no shields): a fighter crippled at
    7 (speed 8 at once, [P-097]) and destroyed at 10 (J4.12, J4.49); a shuttle crippled at 3
    (speed 3) and destroyed at 6 (J1.0, CTH-DATA §8.6)."""
    was = damage[b, u] >= crippled_at[u]
    damage[b, u] += points
    r = event_codes.begin(ev, ev_count, b, DAMAGED, turn, imp)
    ev[b, r, 3] = u
    ev[b, r, 6] = points  # shield 0, to_shield 0, internal points, boxes ()
    if damage[b, u] >= destroyed_at[u]:
        status[b, u] = DESTROYED
        r = event_codes.begin(ev, ev_count, b, DESTROYED_EV, turn, imp)
        ev[b, r, 3] = u
    elif not was and damage[b, u] >= crippled_at[u]:
        speed[b, u] = min(speed[b, u], crippled_speed[u])


@kernel(_nrt=False, error_model="numpy")
def apply_damage_a(a, ft, b, unit, shield, points):
    """``engine.damage.apply_damage`` (with ``_internal_volley``) on the view ``a``: one volley
    of ``points`` striking ``shield`` (1..6, 0 = none) of ``unit`` (tier-1 rules: see the
    module docstring)."""
    if a.status[b, unit] != ACTIVE or points <= 0:
        return
    kind = a.kind[b, unit]
    if kind == K_PLASMA:  # (FP1.6) the unit kind's own handler
        plasma.take_damage(a, ft, b, unit, points)
        return
    if kind in (K_FIGHTER, K_SHUTTLE):  # (J4.49, J1.0) no shields
        craft_damage(a.status, a.damage, a.speed, a.ev, a.ev_count, a.turn[b], a.impulse[b],
                     ft.craft_crippled_at, ft.craft_destroyed_at, ft.craft_crippled_speed, b,
                     unit, points)
        return
    if kind == K_MONSTER:  # (scenario 11) immortal but for research (compiled.kill_methods)
        kill_methods.take_damage(a.status, a.side, a.damage, a.monster_counted, a.kill_methods,
                                 a.ev, a.ev_count, a.turn[b], a.impulse[b], b, unit, points)
        return
    a.damage[b, unit] += points
    if kind in (K_DRONE, K_TARGET_DRONE):
        r = event_codes.begin(a.ev, a.ev_count, b, DAMAGED, a.turn[b], a.impulse[b])
        a.ev[b, r, 3] = unit
        a.ev[b, r, 6] = points
        if a.damage[b, unit] >= ft.drone_strength:  # (FD1.54)
            destroy(a.status, a.ev, a.ev_count, a.turn, a.impulse, b, unit)
        return
    if kind == K_SHIP and ft.damage_rule == RULE_NONE:  # scenario 1: no damage
        r = event_codes.begin(a.ev, a.ev_count, b, DAMAGED, a.turn[b], a.impulse[b])
        a.ev[b, r, 3] = unit
        a.ev[b, r, 4] = shield
        return
    # (D3.2) the struck shield absorbs what it has left; a freighter has one pool (R1.6)
    idx = 0 if a.shield_pool[b, unit] else shield - 1
    if idx < 0:
        idx += a.shields.shape[2]  # as numpy: shield 0 of a six-shield unit reads shield #6
    governed = kind == K_SHIP and shield >= 1 and _form_governs(a, ft, b, unit)
    if (ft.engineering and governed
            and a.shields_active[b, unit]):  # (D3.3411, H7.2) reinforcement, reserve power
        absorbed, internal = engineering.absorb(
            a.shields, a.reinf_general, a.reinf_specific, a.reinf_held, a.batteries, a.boxes,
            a.reserve_kept, a.ev, a.ev_count, a.turn[b], a.impulse[b], ft.reserve_power, b,
            unit, idx, points)
    else:
        absorbed = min(points, a.shields[b, unit, idx])
        if governed and not a.shields_active[b, unit]:
            absorbed = 0  # (shield_absorption.apply_shield, CTH-DATA §7.4) unpaid shields
            #   stop nothing (only the standard form clears the flag, of a governed ship)
        a.shields[b, unit, idx] -= absorbed
        internal = points - absorbed
    # ``damage._internal_volley`` for the ``none``/``interim`` rules and freighters
    r = event_codes.begin(a.ev, a.ev_count, b, DAMAGED, a.turn[b], a.impulse[b])
    a.ev[b, r, 3] = unit
    a.ev[b, r, 4] = shield
    a.ev[b, r, 5] = absorbed
    a.ev[b, r, 6] = internal
    if internal:
        a.internal[b, unit] += internal
        if kind == K_FREIGHTER:  # (R1.6) thresholds
            if a.internal[b, unit] >= ft.fr_disabled_at[unit]:
                for k in range(ft.unit_n_weapons[unit]):
                    a.w_destroyed[b, ft.unit_weapons[unit, k]] = True
            if a.internal[b, unit] >= ft.fr_destroyed_at[unit]:
                # the reference logs Destroyed before Damaged: swap the rows' order
                a.status[b, unit] = DESTROYED
                r2 = event_codes.begin(a.ev, a.ev_count, b, DAMAGED, a.turn[b], a.impulse[b])
                for k in range(a.ev.shape[2]):
                    a.ev[b, r2, k] = a.ev[b, r, k]
                for k in range(3, a.ev.shape[2]):
                    a.ev[b, r, k] = 0
                a.ev[b, r, 0] = DESTROYED_EV
                a.ev[b, r, 3] = unit
                return
        elif ft.damage_rule == RULE_S4:  # (scenario-4 rule, CTH-DATA §10.1)
            if (_s4_internal(a.boxes, a.w_destroyed, a.w_type, a.w_ammo, a.ev, ft, b, unit,
                             internal, r) and kind == K_SHIP):
                destroy(a.status, a.ev, a.ev_count, a.turn, a.impulse, b, unit)
        elif ft.damage_rule == RULE_STANDARD_DAC and ft.dac_unit[unit]:
            if _standard_dac(a, ft, b, unit, internal, 1 << shield if shield > 0
                             else std_dac.ALL_SHIELDS, r) and kind == K_SHIP:  # (D4.321)
                destroy(a.status, a.ev, a.ev_count, a.turn, a.impulse, b, unit)
        elif ft.damage_rule >= RULE_CADET_DAC:  # standard: a cadet ship's (SCENARIOS #12)
            if (_cadet_dac_internal(a.boxes, a.w_destroyed, a.w_type, a.w_ammo, a.dice, a.ev,
                                    ft, b, unit, internal, r) and kind == K_SHIP):
                destroy(a.status, a.ev, a.ev_count, a.turn, a.impulse, b, unit)
        else:
            _interim_internal(a.boxes, a.w_destroyed, a.w_type, a.w_ammo, a.ev, ft, b, unit,
                              internal, r)
    if (kind == K_SHIP and ft.damage_rule == RULE_INTERIM
            and _nothing_left(a.boxes, a.w_destroyed, ft, b, unit)):
        destroy(a.status, a.ev, a.ev_count, a.turn, a.impulse, b, unit)
    if (ft.mutiny and kind == K_SHIP and ft.damage_rule == RULE_STANDARD_DAC
            and ft.dac_unit[unit]):  # (G6.2) the last security station just fell?
        engineering.after_damage(a.status, a.mutiny, a.dac_boxes, a.captured_by,
                                 a.control_stations, a.speed, a.dice, a.ev, a.ev_count,
                                 a.turn[b], a.impulse[b], ft.security, ft.mutiny_shift,
                                 ft.captor, b, unit)


@nb.njit(cache=True, inline="always")
def _form_governs(a, ft, b, unit):
    """(shield_absorption.absorbs, energy_switches.governed) whether the ship's player's energy
    form governs it now: a ship a player commands, not captured (D7.0: capture hands it to
    the ``captured`` pilot, and its shields absorb whatever its last form paid)."""
    return ft.governed[unit] and a.captured_by[b, unit] < 0


def view_of(s) -> FireArrays:
    """``fire_view`` in plain Python (tests call the helpers on it)."""
    return FireArrays(*(getattr(s, f) for f in FIRE_FIELDS))


@kernel(_nrt=False, error_model="numpy")
def apply_split_volley_a(a, ft, b, unit, split, centre):
    """``engine.damage.apply_split_volley`` (a PPD pulse, E11.35, E11.332) on the view ``a``:
    ``split[0..6]`` the points on each shield (0: a unit without facing shields), ``centre``
    the shield logged (-1: the one taking most, the lower number on ties). Each shield absorbs
    its own part (D3.2); the points past them are one volley of internal damage. A unit that
    is not a ship with six shields, or a pulse on one shield, is an ordinary volley."""
    total, n, single = 0, 0, 0
    for s in range(7):
        if split[s] > 0:
            total += split[s]
            n += 1
            single = s
    if a.status[b, unit] != ACTIVE or total <= 0:
        return
    if centre < 0:
        best = -1
        for s in range(7):
            if split[s] > 0 and (best < 0 or split[s] > split[best]):
                best = s
        centre = best
    kind = a.kind[b, unit]
    if kind != K_SHIP or a.shield_pool[b, unit] or ft.damage_rule == RULE_NONE or n == 1:
        apply_damage_a(a, ft, b, unit, single if n == 1 else centre, total)
        return
    a.damage[b, unit] += total
    absorbed, internal, penetrated = 0, 0, 0
    # (as ``apply_damage_a``) unpaid shields stop nothing on a governed ship
    active = a.shields_active[b, unit] or not _form_governs(a, ft, b, unit)
    for s in range(1, 7):
        points = split[s]
        if points > 0:
            took = min(points, a.shields[b, unit, s - 1]) if active else 0
            a.shields[b, unit, s - 1] -= took
            absorbed += took
            internal += points - took
            if points > took:
                penetrated |= 1 << s  # (E11.332) the pulse came through this shield
    r = event_codes.begin(a.ev, a.ev_count, b, DAMAGED, a.turn[b], a.impulse[b])
    a.ev[b, r, 3] = unit
    a.ev[b, r, 4] = centre
    a.ev[b, r, 5] = absorbed
    a.ev[b, r, 6] = internal
    destroyed = False
    if internal:
        a.internal[b, unit] += internal
        if ft.damage_rule == RULE_S4:  # (scenario-4 rule, CTH-DATA §10.1)
            destroyed = _s4_internal(a.boxes, a.w_destroyed, a.w_type, a.w_ammo, a.ev, ft, b,
                                     unit, internal, r)
        elif ft.damage_rule == RULE_STANDARD_DAC and ft.dac_unit[unit]:
            destroyed = _standard_dac(a, ft, b, unit, internal, penetrated, r)
        elif ft.damage_rule >= RULE_CADET_DAC:
            destroyed = _cadet_dac_internal(a.boxes, a.w_destroyed, a.w_type, a.w_ammo, a.dice,
                                            a.ev, ft, b, unit, internal, r)
        else:
            _interim_internal(a.boxes, a.w_destroyed, a.w_type, a.w_ammo, a.ev, ft, b, unit,
                              internal, r)
    if destroyed or (ft.damage_rule == RULE_INTERIM
                     and _nothing_left(a.boxes, a.w_destroyed, ft, b, unit)):
        destroy(a.status, a.ev, a.ev_count, a.turn, a.impulse, b, unit)
