"""The rule-features block of the observation: state of optional rules a captain must see.

``names`` picks the sub-blocks a scenario uses (each present only where its rule is, so every
other scenario's observation, and the published checkpoints', keeps its size), ``block_size``
and ``size`` measure them, ``encode`` fills them. Sub-blocks, in this order, after the PPD
block: ``reinforcement`` (7), ``damage_control`` (7), ``lock_on`` (1 + 2 K), ``cloak`` (4 + 4
K), ``esg_fields`` (6 + 6 K), ``boarding`` (7 + 5 (1 + K)), ``research`` (13), ``tractors``
(3 + 2 K), ``enemy_fire`` (6 K: an observation the env's ``enemy_fire`` option asks for, present
whatever the rules). The env decides nothing here: each value is read from the engine
(``engine.sensors``, ``engine.cloak``, ``engine.energy``) or the ``BattleState`` arrays.

Documented in docs/observation.md ("Rule-features block" and the sections after it).
"""

from __future__ import annotations

import numpy as np

from sfb_env.engine import (
    Battle,
    energy,
    knowledge,
    planet_killer,
    probes,
    tractors,
)
from sfb_env.engine.types import PHASERS, PLASMA_LAUNCHERS, WeaponType
from sfb_env.env import observation_layout as lay

# sizes and scales of the declaration (env.observation_layout)
REINFORCEMENT_SIZE = lay.REINFORCEMENT.size
DAMAGE_CONTROL_SIZE = lay.DAMAGE_CONTROL.size
LOCK_ON_SIZE, LOCK_ON_SLOT_SIZE = lay.LOCK_ON_OWN.size, lay.LOCK_ON_SLOT.size
CLOAK_SIZE = lay.CLOAK.size  # own ship, and again per target slot
REINFORCEMENT_SCALE = lay.REINFORCEMENT.field("general").scale  # REINFORCE_*_MAX
DC_RATING_SCALE = lay.DAMAGE_CONTROL.field("rating").scale  # full-size tracks start at 4
DC_BOXES_SCALE = lay.DAMAGE_CONTROL.field("repairs").scale  # a rating of 4 buys two (D9.2)
ESG_FIELD_GENERATORS = knowledge.ESG_FIELD_GENERATORS  # the Tiger's two (CTH-DATA §9.2)
ESG_FIELD_VALUES = lay.ESG_FIELD.size  # operating, radius / 3, strength / 20
ESG_FIELD_SIZE = ESG_FIELD_GENERATORS * ESG_FIELD_VALUES  # own ship, and again per slot
ESG_RADIUS_SCALE = lay.ESG_FIELD.field("radius").scale  # (G23.41) radius 0..3
ESG_STRENGTH_SCALE = lay.ESG_FIELD.field("strength").scale  # (G23.42) the strongest field
RESEARCH_SIZE = lay.RESEARCH.size
INFORMATION_SCALE = lay.RESEARCH.field("information").scale  # rolls at 100, 150, ..., 300
PROBES_SCALE = lay.RESEARCH.field("probes_left").scale
BOARDING_OWN_SIZE = lay.BOARDING_OWN.size  # transporter uses left, shields dropped #1..#6
BOARDING_ROW_SIZE = lay.BOARDING_ROW.size  # our parties, others, stations, crew, captured
PARTIES_SCALE = lay.BOARDING_ROW.field("our_parties").scale  # the largest complement is 16
STATIONS_SCALE = lay.BOARDING_ROW.field("control_stations").scale  # the most on a sheet: 7
CREW_SCALE = lay.BOARDING_ROW.field("crew_units").scale
USES_SCALE = lay.BOARDING_OWN.field("uses_left").scale
TRACTOR_OWN_SIZE, TRACTOR_SLOT_SIZE = lay.TRACTORS_OWN.size, lay.TRACTOR_SLOT.size  # (G7.0)
TRACTOR_BEAMS_SCALE = lay.TRACTORS_OWN.field("holding").scale  # the most beams on a sheet: 3
TOWED_SCALE = lay.TRACTORS_OWN.field("towed").scale  # scenario 8's four freighters
ENEMY_FIRE_SIZE = lay.ENEMY_FIRE.size
# (E1.5) the enemy_fire groups by weapon type: phasers; heavy direct-fire weapons; launchers
FIRE_GROUP = np.full(len(WeaponType), -1, dtype=np.int64)  # the ESG: none (esg_fields shows it)
FIRE_GROUP[list(PHASERS)] = 0
FIRE_GROUP[[WeaponType.DISRUPTOR, WeaponType.PHOTON, WeaponType.FUSION, WeaponType.PPD]] = 1
FIRE_GROUP[[*PLASMA_LAUNCHERS, WeaponType.DRONE_RACK]] = 2


def names(battle: Battle, reinforce: bool, repair: bool, enemy_fire: bool = False
          ) -> tuple[str, ...]:
    """The sub-blocks in use for a ship whose energy layout has the ``reinforce`` / ``repair``
    components (``EnergyLayout``; padded under ``uniform_spaces``); ``enemy_fire``: the env
    shows what the other ships fired (its option of that name)."""
    out = []
    if reinforce:
        out.append("reinforcement")
    if repair:
        out.append("damage_control")
    if battle.rules.lock_on:
        out.append("lock_on")
    if battle.rules.standard_cloak:
        out.append("cloak")
    if battle.rules.esg_in_play:  # (G23.46) fields on the map are known to both sides
        out.append("esg_fields")
    if battle.rules.transporters or battle.rules.boarding:  # (G8.0, D7.0)
        out.append("boarding")
    if battle.rules.research or battle.rules.probes_in_play:  # (G4, G5) research and probes
        out.append("research")
    if battle.rules.tractors:  # (G7.0)
        out.append("tractors")
    if enemy_fire:  # (E1.5) fire is seen by both sides
        out.append("enemy_fire")
    return tuple(out)


def block_size(name: str, slots: int) -> int:
    """Length of one sub-block with ``slots`` target slots (``env.observation_layout``)."""
    return lay.block_size(name, slots)


def size(blocks: tuple[str, ...], slots: int) -> int:
    """Length of the whole rule-features block."""
    return sum(block_size(b, slots) for b in blocks)


def encode(battle: Battle, unit: int, blocks: tuple[str, ...], slots: np.ndarray) -> np.ndarray:
    """The rule-features block of ``unit`` (``slots``: the target slots' unit rows, -1 empty)."""
    out = [_ENCODERS[b](battle, unit, slots) for b in blocks]
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float64)


def _reinforcement(battle: Battle, u: int, slots: np.ndarray) -> np.ndarray:
    st = battle.state
    return np.concatenate([[st.reinf_general[u]], st.reinf_specific[u]]) / REINFORCEMENT_SCALE


def _damage_control(battle: Battle, u: int, slots: np.ndarray) -> np.ndarray:
    st = battle.state
    rating = energy.dc_rating(battle, u) if energy.governed(battle, u) else 0
    return np.concatenate([[min(1.0, rating / DC_RATING_SCALE)],
                           np.minimum(1.0, st.dc_repairs[u] / DC_BOXES_SCALE)])


def _lock_on(battle: Battle, u: int, slots: np.ndarray) -> np.ndarray:
    st = battle.state
    out = np.zeros(block_size("lock_on", len(slots)), dtype=np.float64)
    out[lay.LOCK_ON_OWN.at("own")] = bool(st.locked_on[u])
    rows = slots[slots >= 0]
    if len(rows):
        pairs = out[LOCK_ON_SIZE:].reshape(len(slots), LOCK_ON_SLOT_SIZE)
        pairs[:len(rows), lay.LOCK_ON_SLOT.at("holds")] = st.locked_on[rows]
        pairs[:len(rows), lay.LOCK_ON_SLOT.at("ours")] = knowledge.lock_on_to(battle, u, rows)
    return out


def _cloak(battle: Battle, u: int, slots: np.ndarray) -> np.ndarray:
    table = np.zeros((1 + len(slots), CLOAK_SIZE), dtype=np.float64)
    table[0] = knowledge.cloak_phases(battle, np.array([u]))[0]  # (G13 standard rule)
    rows = slots[slots >= 0]
    if len(rows):
        table[1:1 + len(rows)] = knowledge.cloak_phases(battle, rows)
    return table.ravel()


def _esg_fields_of(battle: Battle, unit: int) -> np.ndarray:
    """(6,): per generator of ``unit`` (first two): operating, radius / 3, strength / 20
    (what the other side may see of it: ``knowledge.esg_fields_seen``, G23.46)."""
    seen = knowledge.esg_fields_seen(battle, unit)
    seen[:, 1] /= ESG_RADIUS_SCALE
    seen[:, 2] = np.minimum(1.0, seen[:, 2] / ESG_STRENGTH_SCALE)
    return seen.ravel()


def _esg_fields(battle: Battle, u: int, slots: np.ndarray) -> np.ndarray:
    table = np.zeros((1 + len(slots), ESG_FIELD_SIZE), dtype=np.float64)
    table[0] = _esg_fields_of(battle, u)
    for k, t in enumerate(slots):
        if t >= 0:
            table[1 + k] = _esg_fields_of(battle, int(t))
    return table.ravel()


def _research(battle: Battle, u: int, slots: np.ndarray) -> np.ndarray:
    st = battle.state
    side = int(st.side[u])
    out = np.zeros(RESEARCH_SIZE, dtype=np.float64)
    row = lay.RESEARCH
    out[row.at("information")] = min(1.0, st.information[side] / INFORMATION_SCALE)
    out[row.slice("kill_methods")] = st.kill_methods[side]
    out[row.at("probes_left")] = min(1.0, st.probes_left[u] / PROBES_SCALE)
    out[row.at("arming_information")] = st.probe_kind[u] == probes.ProbeKind.INFORMATION
    out[row.at("arming_antimatter")] = st.probe_kind[u] == probes.ProbeKind.ANTIMATTER
    out[row.at("arming_turns")] = st.probe_stage[u] / row.field("arming_turns").scale
    out[row.at("armed")] = probes.armed(battle, u)
    monsters = np.flatnonzero(st.kind == planet_killer.K_MONSTER)
    if len(monsters):
        out[row.at("method_3_damage")] = min(1.0, st.monster_counted[monsters[0]]
                                             / row.field("method_3_damage").scale)
    return out


def _boarding(battle: Battle, u: int, slots: np.ndarray) -> np.ndarray:
    st = battle.state
    side = int(st.side[u])
    own = np.zeros(BOARDING_OWN_SIZE, dtype=np.float64)
    own[lay.BOARDING_OWN.at("uses_left")] = min(
        1.0, knowledge.transporter_uses_left(battle, u) / USES_SCALE)  # (G8.0)
    own[lay.BOARDING_OWN.slice("shields_dropped")] = st.shield_drop_until[u] > 0
    table = np.zeros((1 + len(slots), BOARDING_ROW_SIZE), dtype=np.float64)
    for k, t in enumerate([u, *[int(r) for r in slots]]):
        if t < 0:
            continue
        ours = int(st.boarding_parties[t, side]) if side >= 0 else 0
        table[k] = (min(1.0, ours / PARTIES_SCALE),
                    min(1.0, (int(st.boarding_parties[t].sum()) - ours) / PARTIES_SCALE),
                    min(1.0, st.control_stations[t] / STATIONS_SCALE),
                    min(1.0, st.crew_units[t] / CREW_SCALE), st.captured_by[t] >= 0)
    return np.concatenate([own, table.ravel()])


def _tractors(battle: Battle, u: int, slots: np.ndarray) -> np.ndarray:
    st = battle.state
    out = np.zeros(block_size("tractors", len(slots)), dtype=np.float64)
    beams = int(battle.tractor_beams[u])
    own = lay.TRACTORS_OWN
    out[own.at("holding")] = np.sum(st.tractor_link[u, :beams] >= 0) / TRACTOR_BEAMS_SCALE
    out[own.at("free")] = sum(tractors.beam_blocker(battle, u, b) is None
                              for b in range(beams)) / TRACTOR_BEAMS_SCALE
    out[own.at("towed")] = min(1.0, tractors.freighters_towed(battle, u) / TOWED_SCALE)
    rows = slots[slots >= 0]
    if len(rows):
        pairs = out[TRACTOR_OWN_SIZE:].reshape(len(slots), TRACTOR_SLOT_SIZE)
        holder = st.tractor_holder[rows]
        pairs[:len(rows), lay.TRACTOR_SLOT.at("held_by_us")] = holder == u
        pairs[:len(rows), lay.TRACTOR_SLOT.at("held_by_other")] = (holder >= 0) & (holder != u)
    return out


def _enemy_fire(battle: Battle, u: int, slots: np.ndarray) -> np.ndarray:
    """Per target slot, per group (``lay.FIRE_GROUPS``): the fraction of the unit's weapons of
    the group (enabled on its sheet) that fired or launched this turn, and impulses since one
    last did / I (capped at 1). Fire is resolved in the open (E1.5; launches FD2, FP1)."""
    st = battle.state
    ipt = st.impulses_per_turn
    now = st.absolute_impulse
    table = np.zeros((len(slots), ENEMY_FIRE_SIZE), dtype=np.float64)
    fired, since = lay.ENEMY_FIRE.slice("fired"), lay.ENEMY_FIRE.slice("since")
    for k, t in enumerate(slots):
        if t < 0:
            continue
        rows = battle.weapons_of(int(t))
        rows = rows[st.w_enabled[rows]]
        group = FIRE_GROUP[st.w_type[rows]]
        last = st.w_last_fired[rows]
        for g in range(len(lay.FIRE_GROUPS)):
            mine = last[group == g]
            this_turn = mine > (st.turn - 1) * ipt  # fired on an impulse of this turn
            table[k, fired.start + g] = this_turn.sum() / len(mine) if len(mine) else 0.0
            gap = now - mine.max() if len(mine) else ipt
            table[k, since.start + g] = min(1.0, gap / ipt)
    return table.ravel()


_ENCODERS = {"reinforcement": _reinforcement, "damage_control": _damage_control,
             "lock_on": _lock_on, "cloak": _cloak, "esg_fields": _esg_fields,
             "research": _research, "boarding": _boarding, "tractors": _tractors,
             "enemy_fire": _enemy_fire}
