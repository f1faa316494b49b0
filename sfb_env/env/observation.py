"""The observation vector of one agent (float32) and the global state.

``encode`` fills ``obs["observation"]``: own ship, clock, target slots, threat slots, ESG
blocks, plasma threat block, energy block, PPD blocks, then the rule-features block
(``env.rule_features``). Every offset, size and scale is read from the declaration
(``env.observation_layout``; ``placement``, ``observation_size`` and ``energy_size`` give an
agent's); blocks a scenario does not use are absent, so its vector keeps its size.
``global_state`` is ``env.state()``.

Documented in docs/observation.md ("Observation vector", "Global state"), whose tables a test
checks against the declaration.
"""

from __future__ import annotations

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import Battle, energy, geometry, knowledge, plasma, ppd, ppd_fire
from sfb_env.engine.direct_fire import weapon_ready_blocker
from sfb_env.engine.esg import EsgPhase
from sfb_env.engine.seeking import rack_blocker
from sfb_env.engine.types import EsgOrder, Maneuver, Status, UnitKind
from sfb_env.env import observation_layout as lay
from sfb_env.env import rule_features
from sfb_env.env.actions import ActionLayout

_NONE = int(Maneuver.NONE)
_LEFT = int(Maneuver.TURN_LEFT)
_SHIP, _FREIGHTER = int(UnitKind.SHIP), int(UnitKind.FREIGHTER)
_DRONE, _TARGET_DRONE = int(UnitKind.DRONE), int(UnitKind.TARGET_DRONE)
_PLASMA = int(UnitKind.PLASMA)
_BIT_COLUMNS = np.arange(6)
_ANNOUNCED, _OPERATING = int(EsgPhase.ANNOUNCED), int(EsgPhase.ACTIVE)

# row sizes of the declaration (env.observation_layout), for readers of the vector
OWN_SIZE = lay.OWN.size
CLOCK_SIZE = lay.CLOCK.size
SLOT_SIZE = lay.SLOT.size
THREAT_SIZE = lay.THREAT.size
ESG_SIZE = lay.ESG.size
PLASMA_THREAT_SIZE = lay.PLASMA_THREAT.size
PLASMA_WARHEAD_SCALE = lay.PLASMA_WARHEAD_SCALE
ENERGY_SIZE = lay.ENERGY.size
ENERGY_WEAPON_SIZE = lay.ENERGY_WEAPON.size
PPD_SIZE = lay.PPD.size
ESG_STRENGTH_SCALE = lay.ESG_STRENGTH_SCALE
RANGE_SCALE = lay.RANGE_SCALE
STATE_SPEED_SCALE = 32.0  # the movement chart's columns (C1.41): no unit is faster
SQRT3 = np.sqrt(3.0)


def counts(layout: ActionLayout, threats: int) -> lay.Counts:
    """What sizes the vector of the agent whose action layout is ``layout``."""
    return lay.Counts(
        weapons=len(layout.racks) + len(layout.weapons), slots=layout.slots, threats=threats,
        esgs=len(layout.esgs), plasma=bool(layout.plasma_threats),
        energy=layout.power is not None,
        arms=len(layout.power.heavies) if layout.power is not None else 0,
        ppds=len(layout.ppds), rule_features=tuple(layout.rule_features))


def placement(layout: ActionLayout, threats: int) -> lay.Placement:
    """Where every block and field of the agent's vector sits (``env.observation_layout``)."""
    return lay.place(counts(layout, threats))


def observation_size(layout: ActionLayout, threats: int) -> int:
    """Length of the observation vector for ``layout``."""
    return placement(layout, threats).size


def energy_size(layout: ActionLayout) -> int:
    """Length of the energy block (0 where the energy rule does not govern the ship)."""
    if layout.power is None:
        return 0
    return ENERGY_SIZE + ENERGY_WEAPON_SIZE * len(layout.power.heavies)


def _bearing(st, u: int, others: np.ndarray) -> np.ndarray:
    """Angle of ``others`` from unit ``u``, clockwise from its facing."""
    # axial -> cartesian hex centres (flat-topped hexes, y pointing down the map): x 1.5 q,
    # y sqrt(3) (r + q / 2); the unit's as Python floats (the same doubles, fewer calls)
    x, z = float(st.x[u]), float(st.z[u])
    ux, uy = 1.5 * x, SQRT3 * (z + x / 2.0)
    ox = st.x[others]
    oy = SQRT3 * (st.z[others] + ox / 2.0)
    theta = np.arctan2(1.5 * ox - ux, -(oy - uy))  # clockwise from "up" (direction A)
    return theta - st.facing[u] * (np.pi / 3)


def _scale(row: lay.Row, name: str) -> float:
    return float(row.field(name).scale)


def encode(
    battle: Battle,
    layout: ActionLayout,
    slots: np.ndarray,
    threats: int,
    max_turns: int,
    blocked: dict | None = None,
    ready: dict | None = None,
) -> np.ndarray:
    """The observation vector of the agent whose layout is ``layout`` (``blocked``: its
    maneuver blockers, ``ready``: ``direct_fire.ready_weapons`` of its weapons, if already
    computed)."""
    st = battle.state
    u = layout.unit
    where = placement(layout, threats)
    out = np.zeros(where.size, dtype=np.float32)
    area = battle.scenario.map_area
    col, row = hexmap.axial_to_offset_np(st.x[u], st.z[u], battle.scenario.parity)
    col, row = int(col), int(row)
    init = battle.initial
    max_speed = max(1, int(battle.rules.max_speed))
    if blocked is None:
        blocked = battle.maneuver_blockers(u)
    own, edge = where.part("own", "own"), _scale(lay.OWN, "edges")
    out[own.index("column")] = col / _scale(lay.OWN, "column")
    out[own.index("row")] = row / _scale(lay.OWN, "row")
    out[own.slice("edges")] = (
        (col - area.first_column) / edge, (area.last_column - col) / edge,
        (row - area.first_row) / edge, (area.last_row - row) / edge,
    )
    out[own.index("facing") + int(st.facing[u])] = 1.0
    out[own.index("speed")] = st.speed[u] / max_speed
    out[own.index("moves_next")] = float(_NONE in blocked)  # NONE is closed to a mover
    out[own.index("can_turn")] = float(_LEFT not in blocked and _NONE in blocked)
    straight = _scale(lay.OWN, "straight")
    out[own.index("straight")] = min(int(st.straight[u]), int(straight)) / straight
    out[own.slice("shields")] = _fraction(st.shields[u], init.shields[u])
    # capped (not scaled): internal damage past the last box adds nothing a captain can use
    out[own.index("internal")] = min(1.0, st.internal[u] / max(1, init.internal_boxes[u]))
    weapons = where.part("own", "weapons")
    for i, w in enumerate(layout.racks):
        if w >= 0:  # a plasma launcher's third value: armed (FP1.22)
            left = float(st.w_armed[w]) if plasma.is_launcher(battle, int(w)) else (
                st.w_ammo[w] / _scale(lay.WEAPON, "drones_left"))
            at = weapons.index("usable", i)
            out[at:at + 3] = (rack_blocker(battle, int(w)) is None, st.w_destroyed[w], left)
    for i, w in enumerate(layout.weapons, start=len(layout.racks)):
        if w >= 0:
            at = weapons.index("usable", i)
            out[at:at + 3] = (_ready(battle, int(w), ready), st.w_destroyed[w], 0.0)
    clock = where.part("clock")
    out[clock.index("turn")] = _turn_fraction(st.turn, max_turns)
    out[clock.index("impulse")] = st.impulse / st.impulses_per_turn
    out[clock.index("impulses_per_turn")] = (st.impulses_per_turn
                                             / _scale(lay.CLOCK, "impulses_per_turn"))
    out[where.span("targets")] = _slots(battle, u, slots).ravel()
    table, order = _threats(battle, u, threats)
    out[where.span("threats")] = table.ravel()
    esg = where.part("esg")
    for g, w in enumerate(layout.esgs):
        if w >= 0:
            out[esg.offset + g * ESG_SIZE:esg.offset + (g + 1) * ESG_SIZE] = _esg(battle, int(w))
    if layout.plasma_threats:
        block = where.part("plasma_threats")
        for k, p in enumerate(order):
            if st.kind[p] == _PLASMA:
                out[block.index("plasma", k)] = 1.0
                out[block.index("warhead", k)] = (plasma.warhead(battle, int(p))
                                                  / PLASMA_WARHEAD_SCALE)
    if layout.power is not None:
        out[where.span("energy")] = _energy(battle, layout)
    ppds = where.part("ppd")
    for p, w in enumerate(layout.ppds):
        if w >= 0:
            start = ppds.offset + p * PPD_SIZE
            out[start:start + PPD_SIZE] = _ppd(battle, int(w), ready)
    if layout.rule_features:  # (D3.34, D9, D6, G13) only where the scenario uses the rules
        start = where.span(layout.rule_features[0]).start
        out[start:] = rule_features.encode(battle, u, layout.rule_features, slots)
    return out


def _ready(battle: Battle, w: int, ready: dict | None) -> bool:
    """Whether weapon ``w`` may fire this impulse: from ``ready`` (``direct_fire.ready_weapons``
    of this decision point) when it has the row, else asked."""
    if ready is not None and w in ready:
        return ready[w]
    return weapon_ready_blocker(battle, w) is None


def _ppd(battle: Battle, w: int, ready: dict | None = None) -> list[float]:
    """One PPD's block (docs/observation.md, "PPD blocks")."""
    st = battle.state
    armed = ppd_fire.charge(battle, w).pulses if _ready(battle, w, ready) else 0
    left = int(st.ppd_pulses[w] - st.ppd_resolved[w]) if ppd_fire.pulsing(battle, w) else 0
    return lay.PPD.values(
        armed_pulses=armed / ppd.MAX_PULSES, pulsing=float(ppd_fire.pulsing(battle, w)),
        locked=float(st.ppd_locked[w]), pulses_left=left / ppd.MAX_PULSES)


def _energy(battle: Battle, layout: ActionLayout) -> np.ndarray:
    """The ship's energy block (docs/observation.md, "Energy block")."""
    st = battle.state
    u = layout.unit
    ship = battle.ship_classes[u]
    out = np.zeros(energy_size(layout), dtype=np.float64)
    out[0:ENERGY_SIZE] = lay.ENERGY.values(
        power=sum(energy.power(battle, u)) / max(1, ship.total_power),
        batteries=st.batteries[u] / max(1, ship.batteries),
        capacitor=(st.capacitor[u] / max(1e-9, st.capacitor_max[u]) if st.capacitor_max[u]
                   else 0.0),
        shortfall=min(1.0, st.energy_shortfall[u] / lay.ENERGY.field("shortfall").scale),
        cloaked=float(st.cloaked[u]), allocation_open=float(energy.allocation_open(battle)),
    )
    pos = ENERGY_SIZE
    for w in layout.power.heavies:
        if w >= 0:
            paid, cycle = knowledge.arming_turns_paid(battle, int(w))  # (B3.0)
            out[pos:pos + 2] = (float(st.w_armed[w]), paid / cycle)
        pos += ENERGY_WEAPON_SIZE
    return out


def _esg(battle: Battle, w: int) -> list[float]:
    """One generator's ESG block (docs/observation.md, "ESG blocks")."""
    st = battle.state
    ipt = st.impulses_per_turn
    now = st.absolute_impulse
    phase = int(st.esg_phase[w])
    release = int(st.esg_release_at[w]) - now if phase == _ANNOUNCED else 0
    expires = int(st.esg_activated_at[w]) + ipt - now if phase == _OPERATING else 0
    blocked = battle.esg_blockers(w)
    return lay.ESG.values(
        stored=st.esg_stored[w] / max(1, int(st.esg_max[w])), announced=float(phase == _ANNOUNCED),
        operating=float(phase == _OPERATING),
        radius=max(0, int(st.esg_radius[w])) / lay.ESG.field("radius").scale,
        strength=st.esg_strength[w] / ESG_STRENGTH_SCALE, release_in=max(0, release) / ipt,
        expires_in=max(0, expires) / ipt,
        can_announce=float(int(EsgOrder.ANNOUNCE_0) not in blocked),
    )


def _fraction(now: np.ndarray, start: np.ndarray) -> np.ndarray:
    return np.where(start > 0, now / np.maximum(start, 1), 0.0)


def _turn_fraction(turn: int, max_turns: int) -> float:
    """Turn / max turns, capped at 1: after the last turn the clock reads turn max + 1, the
    battle's end (observation and state)."""
    return min(int(turn), max_turns) / max_turns


def _damage_fraction(damage: np.ndarray, strength: np.ndarray) -> np.ndarray:
    """Damage taken / the points that destroy the unit, capped at 1 (observation and state)."""
    return np.minimum(damage / np.maximum(strength, 1), 1.0)


def _slots(battle: Battle, u: int, slots: np.ndarray) -> np.ndarray:
    st = battle.state
    table = np.zeros((len(slots), SLOT_SIZE), dtype=np.float64)
    rows = slots[slots >= 0]
    n = len(rows)
    if not n:
        return table
    view = geometry.table(st)  # the impulse's geometry table (engine.geometry)
    rng = view.range[u, rows]
    bearing = _bearing(st, u, rows)
    rel_facing = (st.facing[rows] - st.facing[u]) * (np.pi / 3)
    facing_us = (hexmap.shield_bits_np(st.x[rows], st.z[rows], st.facing[rows], st.x[u], st.z[u])
                 [:, None] >> _BIT_COLUMNS) & 1
    facing_us[rng == 0] = 0
    arc_bits = (view.arc_bits[u, rows][:, None] >> _BIT_COLUMNS) & 1
    init = battle.initial
    kind = st.kind[rows]
    col = lay.SLOT.at
    table[:n, col("present")] = 1.0
    table[:n, col("kind")] = kind == _SHIP
    table[:n, col("kind") + 1] = kind == _FREIGHTER
    table[:n, col("kind") + 2] = (kind == _DRONE) | (kind == _TARGET_DRONE) | (kind == _PLASMA)
    table[:n, col("range")] = np.minimum(rng / RANGE_SCALE, 1.0)
    table[:n, col("bearing")] = np.sin(bearing)
    table[:n, col("bearing") + 1] = np.cos(bearing)
    table[:n, col("relative_facing")] = np.sin(rel_facing)
    table[:n, col("relative_facing") + 1] = np.cos(rel_facing)
    table[:n, lay.SLOT.slice("shield_facing_us")] = facing_us
    table[:n, lay.SLOT.slice("shields")] = _fraction(st.shields[rows], init.shields[rows])
    # capped: points past those that destroy it (the last volley's overkill; a planet killer
    # no points destroy, whose method-3 damage the research block shows) say nothing more
    table[:n, col("damage")] = _damage_fraction(st.damage[rows], init.strength[rows])
    table[:n, col("seeking_us")] = st.target[rows] == u
    table[:n, lay.SLOT.slice("arcs")] = arc_bits
    return table


def _threats(battle: Battle, u: int, threats: int) -> tuple[np.ndarray, np.ndarray]:
    """The threat slots (drones and plasma torpedoes aimed at ``u``) and their unit rows."""
    st = battle.state
    table = np.zeros((threats, THREAT_SIZE), dtype=np.float64)
    incoming = knowledge.threats_to(battle, u)
    if not len(incoming) or not threats:
        return table, incoming[:0]
    ranges = geometry.table(st).range[u]
    order = incoming[np.lexsort((incoming, ranges[incoming]))][:threats]
    rng = ranges[order]
    bearing = _bearing(st, u, order)
    shield = (hexmap.shield_bits_np(st.x[u], st.z[u], st.facing[u], st.x[order], st.z[order])
              [:, None] >> _BIT_COLUMNS) & 1
    n = len(order)
    col = lay.THREAT.at
    table[:n, col("present")] = 1.0
    table[:n, col("range")] = np.minimum(rng / RANGE_SCALE, 1.0)
    table[:n, col("bearing")] = np.sin(bearing)
    table[:n, col("bearing") + 1] = np.cos(bearing)
    table[:n, lay.THREAT.slice("shield")] = shield
    return table, order


def global_state(battle: Battle, max_turns: int) -> np.ndarray:
    """``env.state()``: every unit row (status, side, kind, place, facing, speed, shields,
    damage) and the clock, for centralised critics."""
    st = battle.state
    init = battle.initial
    col, row = hexmap.axial_to_offset_np(st.x, st.z, battle.scenario.parity)
    active = st.status == Status.ACTIVE
    per_unit = np.column_stack([
        active, st.side, st.kind, col / 28.0 * active, row / 32.0 * active,
        np.eye(6)[st.facing] * active[:, None],
        st.speed / STATE_SPEED_SCALE, _fraction(st.shields, init.shields),
        _damage_fraction(st.damage, init.strength),
    ])
    clock = [_turn_fraction(st.turn, max_turns), st.impulse / st.impulses_per_turn]
    return np.concatenate([per_unit.ravel(), clock]).astype(np.float32)


def global_state_bounds(battle: Battle, max_turns: int) -> tuple[np.ndarray, np.ndarray]:
    """``env.state_space``: the bounds every entry of ``global_state`` keeps, per unit row:
    status, side (-1: a unit of no side), kind, column and row (the printed map), facing,
    speed (no unit moves more than once an impulse on the 32-impulse chart, C1.41), shields
    (remaining boxes never exceed the sheet's: repair restores, reinforcement is kept apart,
    D9.2, D3.34), damage (capped at 1, as in the observation), then the turn fraction (the
    battle ends after turn ``max_turns``) and the impulse fraction."""
    n_sides = len(battle.scenario.sides)
    low = np.concatenate([[0.0, -1.0, 0.0, 0.0, 0.0], np.zeros(6), [0.0],
                          np.zeros(battle.state.shields.shape[1]), [0.0]])
    high = np.concatenate([[1.0, n_sides - 1, max(UnitKind),
                            hexmap.PRINTED_COLUMNS / 28.0, hexmap.PRINTED_ROWS / 32.0],
                           np.ones(6), [1.0], np.ones(battle.state.shields.shape[1]), [1.0]])
    units = len(battle.unit_ids)
    low = np.concatenate([np.tile(low, units), [0.0, 0.0]]).astype(np.float32)
    high = np.concatenate([np.tile(high, units), [1.0, 1.0]]).astype(np.float32)
    return low, high
