"""Direct fire: readiness and rate (E1.5), range (D1.4), arcs (D2), phasers (E2), phaser-G
(E2.15), disruptors (E3), photon torpedoes (E4), fusion beams (E7); simultaneous resolution (E1).
Only phasers may fire at a plasma torpedo (FP1.6); a cloaked ship neither fires nor is fired at
on its true range (G13 cadet rule, ``engine.cloak``).

``fire_blockers`` is the single legality predicate for a fire order (weapon -> target): the
env's masks and the engine's order validation both use it, so they cannot disagree.

The Hydran weapons go through their resolvers (``engine.fusion``, ``engine.phaser_g``), rebuilt
from the weapon arrays on each question:

* fusion beam: the Chief Engineer arms every beam that may be armed at the start of each turn
  (2 points within the turn, E7.21), as it does photons and disruptors (SCENARIOS §2.1); an
  unfired charge is released at the end of the turn (E7.23). It fires once a turn; a beam that
  fired on turn t cools on t+1 (E7.22) and is armed again on t+2. Without the Chief Engineer
  nothing pays its energy, so it never fires.
* PPD (E11): readiness is ``ppd_fire.ready_blocker`` (armed with two pulses or more, not
  pulsing); range 4..40 (E11.312, E11.52); never at a cloaked ship (E11.472). Its shots do not
  come here: ``procedure`` hands them to ``ppd_fire.fire_step``, before other direct fire.
* phaser-G: ``fire[w]`` fires its first shot of the impulse, ``Orders.gatling`` shots 2..4 at
  the same or different targets (E2.151); shot ``k`` is open while ``k`` shots are left: at
  most four a turn and four in any quarter turn, across the turn break, counted from its last
  four shots (``w_gatling_shots``). It is exempt from the once-a-turn and quarter-turn rate of
  other weapons (E1.5). Each shot rolls its own die (E2.151 "each firing") and its damage joins
  the impulse's volleys like any other weapon's (E1.0, simultaneous fire).
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap, tables
from sfb_env.engine import (
    cloak,
    fire_energy,
    fusion,
    phaser_g,
    planets,
    ppd_fire,
    shields,
    small_craft,
    unit_rules,
)
from sfb_env.engine import events as ev
from sfb_env.engine.fighters import (
    MAX_FIGHTER_TARGET_RANGE,
    die_chart_vs_fighter,
    fighter_die,
    next_bracket,
)
from sfb_env.engine.fire_geometry import geometry as geometry
from sfb_env.engine.geometry import table as geometry_table
from sfb_env.engine.types import (
    GATLING_SHOTS,
    K_FIGHTER,
    K_PLASMA,
    NEVER,
    PHASERS,
    PLASMA_LAUNCHERS,
    WEAPON_NAMES,
    Status,
    UnitKind,
    WeaponType,
)
from sfb_env.engine.weapon_records import fusion_beam as fusion_beam
from sfb_env.engine.weapon_records import gatling as gatling
from sfb_env.engine.weapon_records import gatling_shots_left as gatling_shots_left

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

DRONE_KINDS = (UnitKind.DRONE, UnitKind.TARGET_DRONE)
# (FD1.52) +2 to the die for these weapons when the target is a drone.
DRONE_MODIFIED = (WeaponType.DISRUPTOR, WeaponType.PHOTON, WeaponType.FUSION, WeaponType.PPD)
_ACTIVE = int(Status.ACTIVE)  # plain ints for the hot path (enum attribute access is slow)
_DRONE_RACK = int(WeaponType.DRONE_RACK)
_FUSION = int(WeaponType.FUSION)
_PPD = int(WeaponType.PPD)
_PHG = int(WeaponType.PHG)
_ESG = int(WeaponType.ESG)
_PHASERS = tuple(int(k) for k in PHASERS)
_PLASMA_LAUNCHERS = tuple(int(k) for k in PLASMA_LAUNCHERS)
_PHASER_TYPES = np.zeros(max(int(k) for k in WeaponType) + 1, dtype=bool)  # by WeaponType
_PHASER_TYPES[list(_PHASERS)] = True
DIE_FACES = 6


def weapon_ready_blocker(battle: Battle, w: int, shot: int = 1) -> str | None:
    """Why weapon ``w`` cannot fire this impulse at all, or None (E1.5, E4.2 Chief Engineer).

    ``shot``: the weapon's ``shot``-th shot of this impulse; only a phaser-G fires more than
    one (E2.151: open while ``shot`` shots are left)."""
    st = battle.state
    if shot != 1 and st.w_type[w] != _PHG:
        return "E1.5 only a phaser-G fires more than once in an impulse (E2.151)"
    if st.status[st.w_owner[w]] != _ACTIVE:
        return "E1.2 the firing unit is not in play"
    if st.captured_by[st.w_owner[w]] >= 0:
        return "D7.0 a captured unit cannot fire its weapons"
    if not st.w_enabled[w]:
        return "scenario rules: this weapon is not used in this scenario"
    if st.w_destroyed[w]:
        return "D4.0 the weapon is destroyed"
    if st.w_type[w] == _DRONE_RACK:
        return "FD1.2 a drone rack launches; it does not fire direct"
    if int(st.w_type[w]) in _PLASMA_LAUNCHERS:
        return "FP1.3 a plasma launcher launches; it does not fire direct"
    if st.w_type[w] == _ESG:
        return "G23.51 an ESG is not fired: its field strikes what enters it (esg[g] orders)"
    if st.impulse < 1:
        return "B2.0 no fire before the first impulse"
    cloaked = cloak.fire_blocker(battle, int(st.w_owner[w]))  # (G13)
    if cloaked is not None:
        return cloaked
    if battle.craft_gun[st.w_owner[w]] == w:  # (J4.32, J1.0) launch delay, crippled rate
        grounded = small_craft.gun_blocker(battle, w)
        if grounded is not None:
            return grounded
    kind = int(st.w_type[w])
    unpowered = fire_energy.fire_blocker(battle, w)  # (H6.1, E3.2, E4.2) energy rules only
    if unpowered is not None:
        return unpowered
    if kind == _FUSION:  # armed, cooling, fired this turn (E7.21, E7.22, E1.5)
        return fusion.can_fire(fusion_beam(battle, w), st.turn)[1] or None
    if kind == _PHG:  # four a turn, four a quarter turn (E2.151); no E1.5 limits
        return phaser_g.can_fire(gatling(battle, w), st.turn, st.impulse, shot)[1] or None
    if kind == _PPD:  # armed with >= 2 pulses, not pulsing (E11.21, E11.23, E11.25)
        return ppd_fire.ready_blocker(battle, w)
    if st.turn < st.w_ready_turn[w]:
        return f"E4.2 (Chief Engineer) the photon is not armed before turn {st.w_ready_turn[w]}"
    if st.w_fired_turn[w] == st.turn:
        return "E1.5 the weapon has already fired this turn"
    now = st.absolute_impulse
    if now - st.w_last_fired[w] < battle.quarter_turn:
        return f"E1.5 fired within a quarter turn ({battle.quarter_turn} impulses) of its last shot"
    return None


class TargetCode(IntEnum):
    """Why a ready weapon may not fire at a target, in the order the rules are checked."""

    OPEN = 0
    INACTIVE = 1  # (E1.2) the target is not in play
    HELD = 2  # (SCENARIOS #8 special) hold_fire_at
    FRIENDLY = 3  # (E1.2)
    PLANET = 4  # (P2.0) at, into or through a planet hex
    FAR_FIGHTER = 5  # (J4.47) fighters beyond their target range
    PLASMA = 6  # (FP1.6) only phasers at a plasma torpedo
    PPD_CLOAKED = 7  # (E11.472)
    SHORT = 8  # below the minimum range (E3.32, E4.0, E11.312)
    LONG = 9  # beyond the maximum (effective) range (E2.4, D6, G13, ...)
    ARC = 10  # (D2.1) outside the firing arc


def target_codes(battle: Battle, weapons: np.ndarray, targets: np.ndarray):
    """The fire predicate: ``(codes, rng, effective)`` with ``codes`` ``(len(weapons),
    len(targets))``, one ``TargetCode`` per weapon and target (OPEN = allowed), for ready
    weapons (``weapon_ready_blocker``) of one owner; ``rng`` and ``effective`` (per target), the
    true and effective ranges, give the reasons their numbers."""
    st = battle.state
    weapons = np.asarray(weapons, dtype=np.int64)
    owner = int(st.w_owner[weapons[0]])
    table = geometry_table(st)
    rng = table.range[owner, targets]
    bits = table.fire_arc_bits[owner, targets]
    in_arc = (bits[None, :] & st.w_arcs[weapons][:, None]) != 0  # (D2.1)
    in_arc |= st.w_astern[weapons][:, None] & (  # the astern row of an RX/FX mount
        (bits & hexmap.ASTERN_ROW_BITS) == hexmap.ASTERN_ROW_BITS)[None, :]
    in_arc |= (table.shared_hex[owner, targets]  # (D3.42) shared the hex before too
               | small_craft.close_combat(battle, int(weapons[0]), targets, rng))[None, :]  # J4.51
    kinds = st.w_type[weapons]
    effective = cloak.effective_range(battle, targets, rng, owner)  # (G13, D6)
    # per target, whatever the weapon: the first failing condition
    target_code = np.zeros(len(targets), dtype=np.int8)
    for code, failing in (  # last first: the first failing condition wins
        (TargetCode.FAR_FIGHTER,  # (J4.47)
         (battle.craft_carrier[targets] >= 0) & (rng > MAX_FIGHTER_TARGET_RANGE)),
        (TargetCode.PLANET, planets.fire_blocked(battle, owner, targets)
         if battle.rules.planets_in_play else None),
        (TargetCode.FRIENDLY, st.side[targets] == st.side[owner]),
        (TargetCode.HELD, unit_rules.hold_fire(battle, owner, targets)
         if battle.rules.hold_fire else None),
        (TargetCode.INACTIVE, st.status[targets] != _ACTIVE),
    ):
        if failing is not None:
            target_code[failing] = code
    # per weapon and target
    codes = np.where(in_arc, 0, int(TargetCode.ARC)).astype(np.int8)
    codes[effective[None, :] > st.w_max_range[weapons][:, None]] = TargetCode.LONG
    codes[rng[None, :] < st.w_min_range[weapons][:, None]] = TargetCode.SHORT
    ppd = kinds == _PPD
    if ppd.any():  # (E11.472)
        codes[np.outer(ppd, st.cloaked[targets])] = TargetCode.PPD_CLOAKED
    plasma = st.kind[targets] == K_PLASMA
    if plasma.any():  # (FP1.6)
        codes[np.outer(~_PHASER_TYPES[kinds], plasma)] = TargetCode.PLASMA
    codes = np.where(target_code[None, :] > 0, target_code[None, :], codes)
    return codes, rng, effective


def target_reason(battle: Battle, w: int, target: int, code: int, rng: int,
                  effective: int) -> str | None:
    """The rule, in words, behind a ``TargetCode`` of weapon ``w`` at ``target``."""
    st = battle.state
    owner = int(st.w_owner[w])
    if code == TargetCode.OPEN:
        return None
    if code == TargetCode.INACTIVE:
        return "E1.2 the target is not in play"
    if code == TargetCode.HELD:  # (SCENARIOS #8 special: captured or not, whatever its side)
        return unit_rules.hold_fire_rule(battle, target)
    if code == TargetCode.FRIENDLY:
        return "E1.2 no fire at a friendly unit"
    if code == TargetCode.PLANET:
        return planets.fire_rule(battle, owner, target)
    if code == TargetCode.FAR_FIGHTER:
        return small_craft.target_blocker(battle, target, rng)
    if code == TargetCode.PLASMA:
        return "FP1.6 only phasers may fire at a plasma torpedo"
    if code == TargetCode.PPD_CLOAKED:
        return "E11.472 a PPD cannot be fired at a cloaked ship (Cadet Training Handbook)"
    if code == TargetCode.SHORT:
        return (f"{_range_rule(st.w_type[w])} range {rng} is below the minimum "
                f"range {st.w_min_range[w]}")
    if code == TargetCode.LONG:
        if effective != 2 * rng + 5 and effective != rng:
            return (f"D6/G13 effective range {effective} (true range {rng} with the "
                    f"lock-on, scanner and cloak-fade adjustments) is beyond the maximum "
                    f"range {st.w_max_range[w]}")
        if effective != rng:
            return (f"G13 effective range {effective} (2 x {rng} + 5 against a "
                    f"cloaked ship) is beyond the maximum range {st.w_max_range[w]}")
        return (f"{_range_rule(st.w_type[w], long=True)} range {rng} is beyond the "
                f"maximum range {st.w_max_range[w]}")
    return "D2.1 the target is outside the weapon's firing arc"


def fire_blockers(battle: Battle, w: int, targets: np.ndarray | None = None,
                  shot: int = 1) -> list[str | None]:
    """For each target unit row, the rule that forbids weapon ``w`` firing at it, or None
    (``weapon_ready_blocker``, then ``target_codes``: the one fire predicate). ``shot``: the
    weapon's ``shot``-th shot of this impulse (a phaser-G's shots 2..4, E2.151)."""
    st = battle.state
    targets = np.arange(len(st.kind)) if targets is None else np.asarray(targets, dtype=np.int64)
    ready = weapon_ready_blocker(battle, w, shot)
    if ready is not None:
        return [ready] * len(targets)
    codes, rng, effective = target_codes(battle, np.array([w]), targets)
    codes = codes[0]
    out: list[str | None] = [None] * len(targets)
    for i in np.flatnonzero(codes):
        out[i] = target_reason(battle, w, int(targets[i]), int(codes[i]), int(rng[i]),
                               int(effective[i]))
    return out


def _range_rule(kind: int, long: bool = False) -> str:
    """The rule setting a weapon's range limits: phaser charts (E2.4), disruptors (E3.32: none at
    range 0, maximum by class), photon chart (E4.0: 2..30), fusion beam table (E7.31: 0..24),
    PPD (E11.312: no fire at 3 or less; E11.52: 40 at most)."""
    if kind == WeaponType.PPD:
        return "E11.52" if long else "E11.312"
    if kind == WeaponType.FUSION:
        return "E7.31"
    if kind == WeaponType.DISRUPTOR:
        return "E3.32"
    if kind == WeaponType.PHOTON:
        return "E4.0"
    return "E2.4"


def gatling_shot_blocker(battle: Battle, w: int, shot: int) -> str | None:
    """Why phaser-G ``w`` cannot fire a ``shot``-th shot in this impulse, or None (E2.151;
    ``weapon_ready_blocker`` with the shot number)."""
    return weapon_ready_blocker(battle, w, shot)


def ready_weapons(battle: Battle, weapons) -> dict[int, bool]:
    """Weapon row -> whether it may fire at all this impulse (``weapon_ready_blocker``)."""
    return {int(w): weapon_ready_blocker(battle, int(w)) is None for w in weapons}


def fire_mask(battle: Battle, weapons: np.ndarray,
              ready: dict[int, bool] | None = None) -> np.ndarray:
    """Boolean ``(len(weapons), U)``: which targets each weapon may fire at now (the same
    predicate as ``fire_blockers``, without the words). ``ready``: ``ready_weapons`` of the
    same decision point, if already computed."""
    st = battle.state
    n_units = len(st.kind)
    mask = np.zeros((len(weapons), n_units), dtype=bool)
    if ready is None:
        ready = ready_weapons(battle, weapons)
    ready = [i for i, w in enumerate(weapons) if ready[int(w)]]
    owners = st.w_owner[np.asarray(weapons, dtype=np.int64)[ready]] if ready else ()
    for owner in dict.fromkeys(int(o) for o in owners):  # weapons of one owner at once
        rows = [i for i in ready if st.w_owner[weapons[i]] == owner]
        codes = target_codes(battle, np.asarray(weapons)[rows], np.arange(n_units))[0]
        mask[rows] = codes == TargetCode.OPEN
    return mask


def resolve_fire(battle: Battle, shots: list[tuple[int, int]]) -> None:
    """(E1) Resolve every shot of the impulse: roll and score all, then apply all damage."""
    st = battle.state
    now = st.absolute_impulse
    volleys: dict[tuple[int, int], list[int]] = {}
    for w, t in shots:
        if not fire_energy.pay_shot(battle, w):  # (H6.1) the capacitor ran dry in this volley
            continue
        owner = int(st.w_owner[w])
        kind = WeaponType(int(st.w_type[w]))
        rng = int(hexmap.distance_np(st.x[owner], st.z[owner], st.x[t], st.z[t]))
        die = int(battle.rng.integers(1, 7))  # one die per shot, each phaser-G shot too (E2.151)
        damage, hit, effective = _score(battle, kind, t, rng, die, int(st.w_max_range[w]),
                                        owner)
        shield = shields.struck_shield(battle, t, owner, range0=rng == 0) if damage else 0
        if kind == WeaponType.FUSION:
            fusion.fire(fusion_beam(battle, w, firing=True), st.turn)  # refuses an
            #   unarmed or cooling beam
            st.w_ready_turn[w] = st.turn + 2  # (E7.22) cools on t+1, armed again on t+2
        elif kind == WeaponType.PHG:
            gun = phaser_g.fire(gatling(battle, w), st.turn, st.impulse)  # (E2.151)
            recent = gun.shots[-GATLING_SHOTS:]
            st.w_gatling_shots[w] = (NEVER,) * (GATLING_SHOTS - len(recent)) + recent
        fire_energy.fired(battle, w)  # (E4.2, E3.2, E7.21) the charge leaves with the shot
        st.w_fired_turn[w] = st.turn
        st.w_last_fired[w] = now
        if kind == WeaponType.PHOTON and battle.rules.chief_engineer:
            st.w_ready_turn[w] = st.turn + 2  # (SCENARIOS §2.1) fired on turn t -> ready t+2
        battle.log(
            ev.Fired(
                st.turn, st.impulse, battle.unit_ids[owner], battle.weapon_ids[w],
                WEAPON_NAMES[int(kind)], battle.unit_ids[t], rng, effective, die, hit,
                damage, shield,
            )
        )
        if damage:
            volleys.setdefault((int(t), shield), []).append(damage)
    # (E1.0) all damage of the step was computed above; now it is applied.
    for (t, shield), points in volleys.items():
        battle.apply_damage(t, shield, sum(points))


def _score(battle: Battle, kind: WeaponType, target: int, rng: int, die: int, max_range: int,
           firer: int | None = None):
    """Damage, hit flag and effective range of one shot with a rolled ``die``."""
    st = battle.state
    effective = cloak.effective_range(battle, target, rng, firer)  # (G13, D6)
    if effective > max_range:  # PROPOSAL [P-051] (G13 standard): the target announced its cloak
        return 0, False, effective  # in this impulse's Cloak/Uncloak step, after the fire orders
        #   were given, and its fade took it past the chart: the shot scores nothing
    is_drone = st.kind[target] in DRONE_KINDS
    modified = die
    if is_drone and kind in DRONE_MODIFIED and battle.rules.drone_die_modifier:
        modified = die + 2  # (FD1.52)
    if st.kind[target] == K_FIGHTER:  # (J4.47) +1 to the die; a 7 reads the next bracket
        modified = fighter_die(die)
        if kind in PHASERS:
            chart = tables.phaser_chart(WEAPON_NAMES[int(kind)])
            damage = die_chart_vs_fighter(chart, effective, die)
            return damage, damage > 0, effective
    if kind in PHASERS:
        damage = tables.phaser_damage(WEAPON_NAMES[int(kind)], effective, die)
        return damage, damage > 0, effective
    if kind == WeaponType.DISRUPTOR:
        # (E3.31) hit number at effective range, damage at true range
        damage = tables.disruptor_damage(effective, modified, true_range=rng, max_range=max_range)
        return damage, damage > 0, effective
    if kind == WeaponType.PHOTON:
        damage = tables.photon_damage(effective, modified)
        return damage, damage > 0, effective
    if kind == WeaponType.FUSION:
        damage = fusion_damage(effective, modified)  # (E7.32)
        return damage, damage > 0, effective
    raise NotImplementedError(f"{WEAPON_NAMES[int(kind)]} fire is not in scenarios 1-3")


def fusion_damage(rng: int, roll: int) -> int:
    """(E7.32) Fusion damage at ``rng`` for a roll that may carry the +2 against drones (FD1.52).

    The fusion table has no row past 6. PROPOSAL [P-055], as the fighter rule (J4.47): each
    point past 6 reads the die-6 row one range bracket further out; past the last bracket the
    shot scores nothing.
    """
    if roll <= DIE_FACES:
        return tables.fusion_damage(rng, roll)
    chart = tables.fusion_chart()
    column: int | None = rng
    for _ in range(roll - DIE_FACES):
        column = next_bracket(chart, column)
        if column is None:
            return 0
    return int(chart[DIE_FACES - 1, column])


def reset_weapon_clock(battle: Battle) -> None:
    """Mark every weapon as never fired (battle start)."""
    st = battle.state
    st.w_last_fired[:] = NEVER
    st.w_fired_turn[:] = 0
    st.w_gatling_shots[:] = NEVER
