"""Plasmatic pulsar devices in play (E11): charges, pulse trains and the PPD part of the Fire
Direct-Fire Weapons step. The rules themselves are :mod:`sfb_env.engine.ppd`'s pure resolver;
this module keeps its records in the weapon arrays of ``BattleState`` (``ppd_*``, one entry
per weapon row, fixed at build time) and rebuilds them on each question.

Entry points: ``charge`` and ``ready_blocker`` (E11.2: Chief Engineer, energy forms, robots),
``fire_step`` (E11.33: drops, new trains, then every pulse due), ``breaking_rule`` (E11.54),
``arm_blockers`` / ``cost`` / ``allocate`` (the ``arm[h]`` values of :class:`PpdArm`),
``top_up`` / ``top_up_blocker`` (reserve power, E11.25, H7.2), ``drop_blockers``, ``validate``.

Rules digest (charge, fire, pulses, breaking events, the energy form, E11.39, rulings where the
book is silent): docs/engine/ppd_fire.md.
"""

from __future__ import annotations

from dataclasses import replace
from enum import IntEnum
from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import (
    damage,
    energy_form,
    energy_switches,
    fire_geometry,
    planets,
    ppd,
    reserve_power,
    shields,
)
from sfb_env.engine import events as ev
from sfb_env.engine.types import (
    ACTIVE,
    DESTROYED,
    K_DRONE,
    K_FIGHTER,
    K_SHUTTLE,
    K_TARGET_DRONE,
    NEVER,
    Box,
    IllegalOrderError,
    Orders,
    PpdOrder,
    WeaponType,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

_PPD = int(WeaponType.PPD)
CHIEF_FIRST_TURN = 3  # PROPOSAL [P-056] (docs/engine/ppd_fire.md): 8 points on turns 1-2
CHIEF_REARM_TURNS = 2  # PROPOSAL [P-056]: fired on turn t, armed again on turn t + 2
ARM_ENERGY = 4  # (E11.21) an ``arm[h]`` ARM pays the full 4 of an arming turn
TOP_UP = len(PpdOrder)  # ``ppd[p]`` value 2 under rules.reserve_power: top up from batteries


class PpdArm(IntEnum):
    """The ``arm[h]`` values of a PPD row (E11.2, E11.25); 0..2 mean what ``ArmOrder``'s do."""

    NONE = 0  # no energy: let the charge go
    ARM = 1  # (E11.21) the full 4 of an arming turn
    HOLD = 2  # (E11.22) 2 to hold an armed charge
    ARM_2 = 3  # (E11.25) underload: 2 on this arming turn
    ARM_3 = 4  # (E11.25) underload: 3 on this arming turn
    HOLD_TOP_UP = 5  # (E11.25) hold (2) and fill the charge to the full 8


PPD_ARM_ORDERS = len(PpdArm)  # size of a PPD's ``arm[h]`` component
# (E11.353, E11.361, J4.47) small craft as PPD targets
SMALL_CRAFT = {K_FIGHTER: ppd.TargetKind.FIGHTER, K_SHUTTLE: ppd.TargetKind.SHUTTLE}
ARM_VALUES = {PpdArm.ARM: ARM_ENERGY, PpdArm.ARM_2: 2, PpdArm.ARM_3: 3}  # energy per arm order


def init_state(battle: Battle) -> None:
    """Empty charges and no pulse trains (battle build); ``rules.ppd_in_play`` skips the step
    in battles without a PPD in use."""
    st = battle.state
    m = len(st.w_type)
    st.ppd_stage = np.zeros(m, dtype=np.int64)
    st.ppd_energy = np.zeros(m, dtype=np.int64)
    st.ppd_paid_turn = np.zeros(m, dtype=np.int64)
    st.ppd_target = np.full(m, -1, dtype=np.int64)
    st.ppd_fired_at = np.full(m, NEVER, dtype=np.int64)
    st.ppd_pulses = np.zeros(m, dtype=np.int64)
    st.ppd_resolved = np.zeros(m, dtype=np.int64)
    st.ppd_locked = np.zeros(m, dtype=bool)


def is_ppd(battle: Battle, w: int) -> bool:
    """Whether weapon row ``w`` is a PPD."""
    return int(battle.state.w_type[w]) == _PPD


def ppd_rows(battle: Battle, unit: int) -> np.ndarray:
    """The PPD weapon rows of ``unit`` in use in the scenario (the ``ppd[p]`` components)."""
    st = battle.state
    rows = battle.weapons_of(unit)
    return rows[(st.w_type[rows] == _PPD) & st.w_enabled[rows]]


def pulsing(battle: Battle, w: int) -> bool:
    """Whether PPD ``w`` has a pulse train running (pulses left, lock not broken)."""
    return int(battle.state.ppd_target[w]) >= 0


# ---------------------------------------------------------------------- the charge (E11.2)


def _governed(battle: Battle, w: int) -> bool:
    return energy_switches.governed(battle, int(battle.state.w_owner[w]))


def charge(battle: Battle, w: int) -> ppd.PpdCharge:
    """PPD ``w``'s charge as the E11.2 resolver's record on the current turn (see
    docs/engine/ppd_fire.md for the Chief Engineer, cadet-form and robot cases)."""
    st = battle.state
    rules = battle.rules
    if _governed(battle, w):
        paid = int(st.ppd_paid_turn[w])
        return ppd.PpdCharge(ppd.PpdStage(int(st.ppd_stage[w])), int(st.ppd_energy[w]),
                             paid or None)
    full = ppd.PpdCharge(ppd.PpdStage.ARMED, ppd.FULL_CHARGE, st.turn)
    if rules.chief_engineer:
        return full if st.turn >= int(st.w_ready_turn[w]) else ppd.new_charge()
    if rules.energy == "cadet":  # (SCENARIOS §2.5) robots: every weapon armed every turn
        return full
    return ppd.new_charge()


def ready_blocker(battle: Battle, w: int) -> str | None:
    """Why PPD ``w`` cannot start a pulse train now (whatever the target), or None (E11.21,
    E11.23, E11.25); the general weapon checks are ``direct_fire.weapon_ready_blocker``'s."""
    st = battle.state
    if pulsing(battle, w):
        return "E11.23 the PPD is still pulsing: one charge at a time"
    if battle.rules.chief_engineer and st.turn < int(st.w_ready_turn[w]):
        return (f"E11.21 (Chief Engineer, PROPOSAL) the PPD is not armed before turn "  # [P-056]
                f"{int(st.w_ready_turn[w])}")
    c = charge(battle, w)
    if not ppd.can_fire(c, st.turn):
        return ("E11.21 the PPD is not armed, or its arming or holding energy was not paid "
                "this turn (E11.22)")
    if c.pulses < 2:
        return f"E11.25 a charge of {c.energy} energy gives fewer than two pulses"
    return None


def target_kind(battle: Battle, t: int) -> ppd.TargetKind:
    """What ``t`` is to a PPD: a drone (+2 to the roll where ``drone_die_modifier`` is in force,
    FD1.52; no splash, E11.353), a fighter (+1 to the roll, J4.47; the centre value only,
    E11.353; the lock lost beyond 5 hexes, E11.361), a shuttle (the centre value only, E11.353;
    5 hexes at most, E11.361) or a ship. Fighters and shuttles are the small-craft rows
    (``battle.craft_carrier`` >= 0), the rows the fire predicate keeps within 5 hexes (J4.47).
    With the modifier off a drone is a shieldless target with no roll shift (the resolver's
    MONSTER kind)."""
    kind = int(battle.state.kind[t])
    if kind in (K_DRONE, K_TARGET_DRONE):
        return (ppd.TargetKind.DRONE if battle.rules.drone_die_modifier
                else ppd.TargetKind.MONSTER)
    if battle.craft_carrier[t] >= 0 and kind in SMALL_CRAFT:
        return SMALL_CRAFT[kind]
    return ppd.TargetKind.SHIP


# ---------------------------------------------------------------------- arrays <-> records


def train(battle: Battle, w: int) -> ppd.PulseTrain:
    """PPD ``w``'s running pulse train as the resolver's record."""
    st = battle.state
    return ppd.PulseTrain(st.impulses_per_turn, int(st.ppd_fired_at[w]), int(st.ppd_pulses[w]),
                          target_kind(battle, int(st.ppd_target[w])), int(st.ppd_resolved[w]),
                          bool(st.ppd_locked[w]))


def _store(battle: Battle, w: int, record: ppd.PulseTrain, target: int) -> None:
    st = battle.state
    st.ppd_resolved[w] = record.resolved
    st.ppd_locked[w] = record.locked
    if record.active:
        st.ppd_target[w] = target
        return
    st.ppd_target[w] = -1
    st.ppd_locked[w] = False
    if record.ended_by is not None:
        battle.log(ev.PpdTrainEnded(st.turn, st.impulse, battle.unit_ids[int(st.w_owner[w])],
                                    battle.weapon_ids[w], battle.unit_ids[target],
                                    record.resolved, record.pulses, record.ended_by))


def _empty_charge(battle: Battle, w: int) -> None:
    st = battle.state
    st.ppd_stage[w] = int(ppd.PpdStage.EMPTY)
    st.ppd_energy[w] = 0
    st.w_armed[w] = False
    if battle.rules.chief_engineer:
        st.w_ready_turn[w] = st.turn + CHIEF_REARM_TURNS  # PROPOSAL [P-056]


# ---------------------------------------------------------------------- orders (E11.362)


def order_values(battle: Battle) -> int:
    """Size of the ``ppd[p]`` component: KEEP and DROP (E11.362), and TOP_UP where
    ``rules.reserve_power`` is in force (E11.25, H7.2)."""
    return len(PpdOrder) + (1 if battle.rules.reserve_power else 0)


def drop_blockers(battle: Battle, w: int) -> dict[int, str]:
    """``ppd[p]`` values PPD ``w`` may not be given now, with the rule; KEEP (0) is open."""
    st = battle.state
    out: dict[int, str] = {}
    if not pulsing(battle, w):
        out[int(PpdOrder.DROP)] = "E11.362 the PPD is not pulsing: no wave-lock to drop"
    elif int(st.ppd_resolved[w]) < 1:  # unreachable: the first pulse is fired with the order
        out[int(PpdOrder.DROP)] = "E11.362 the lock may be dropped only after one pulse"
    if order_values(battle) > TOP_UP:
        why = top_up_blocker(battle, w)
        if why is not None:
            out[TOP_UP] = why
    return out


def top_up_points(battle: Battle, w: int) -> int:
    """Batteries a TOP_UP of PPD ``w`` draws now: PROPOSAL [P-058] (docs/engine/ppd_fire.md) the
    fewest that reach the most pulses the room in the charge and the charged batteries allow
    (E11.25)."""
    c = charge(battle, w)
    most = min(ppd.FULL_CHARGE,
               c.energy + energy_form.charged(battle, int(battle.state.w_owner[w])))
    return max(0, most // ppd.ENERGY_PER_PULSE * ppd.ENERGY_PER_PULSE - c.energy)


def top_up_blocker(battle: Battle, w: int) -> str | None:
    """Why PPD ``w`` cannot be topped up with reserve power now, or None (E11.24, E11.25,
    H7.2): the charge must be armed and paid this turn, not full, not yet fired."""
    st = battle.state
    if not battle.rules.reserve_power or not _governed(battle, w):
        return "H7.2 no reserve power in this scenario"
    if st.w_destroyed[w]:
        return "D4.0 the weapon is destroyed"
    if pulsing(battle, w):
        return "E11.23 the PPD is pulsing: its charge is spent"
    c = charge(battle, w)
    if c.stage != ppd.PpdStage.ARMED:
        return "E11.24 reserve power cannot begin arming a PPD: only an armed charge is topped up"
    if not ppd.can_fire(c, st.turn):
        return "E11.22 the charge was not held this turn"
    if c.energy >= ppd.FULL_CHARGE:
        return f"E11.25 the charge is full ({ppd.FULL_CHARGE} energy, four pulses)"
    if top_up_points(battle, w) <= 0:
        charged = energy_form.charged(battle, int(st.w_owner[w]))
        return (f"H7.1 {charged} charged batteries add no pulse to a charge of {c.energy} "
                f"(E11.25: one pulse per {ppd.ENERGY_PER_PULSE} energy)")
    return None


def top_up(battle: Battle, w: int) -> None:
    """(E11.25, H7.2) Discharge batteries into PPD ``w``'s armed charge (``top_up_points``)."""
    st = battle.state
    owner = int(st.w_owner[w])
    need = top_up_points(battle, w)
    left = reserve_power.discharge(
        reserve_power.Batteries(int(st.boxes[owner, Box.BATTERY]),
                                energy_form.charged(battle, owner)),
        need, reserve_power.ReserveUse.PPD_TOP_UP)
    c = ppd.top_up(charge(battle, w), st.turn, need)
    st.batteries[owner] = left.charged
    st.ppd_energy[w] = c.energy
    battle.log(ev.ReserveDischarged(st.turn, st.impulse, battle.unit_ids[owner],
                                    f"ppd_top_up:{battle.weapon_ids[w]}", need, left.charged))


def validate(battle: Battle, unit: int, order: Orders, name: str) -> None:
    """Raise ``IllegalOrderError`` for a ``ppd`` order the rules forbid (same predicate as the
    mask)."""
    own = set(int(w) for w in ppd_rows(battle, unit))
    size = order_values(battle)
    for w, value in order.ppd.items():
        if w not in own:
            what = (f"weapon {battle.weapon_ids[w]} of {name} is not a PPD in use"
                    if 0 <= w < len(battle.weapon_ids) else f"no weapon row {w}")
            raise IllegalOrderError(name, "ppd", w, f"E11.362 {what}")
        if isinstance(value, bool) or value not in range(size):
            raise IllegalOrderError(name, f"ppd[{battle.weapon_ids[w]}]", value,
                                    "E11.362 PPD orders are 0 keep, 1 drop the wave-lock"
                                    + (", 2 top up with reserve power (E11.25)"
                                       if size > TOP_UP else ""))
        rule = drop_blockers(battle, w).get(int(value))
        if rule is not None:
            label = "TOP_UP" if value == TOP_UP else PpdOrder(int(value)).name
            raise IllegalOrderError(name, f"ppd[{battle.weapon_ids[w]}]", label, rule)


# ---------------------------------------------------------------------- the fire step


def fire_step(battle: Battle, orders: dict[int, Orders], shots: list[tuple[int, int]]) -> None:
    """(E11.31, E11.332) The PPD part of Fire Direct-Fire, before any other direct fire: drop
    orders (E11.362), new trains from ``shots`` (PPD rows -> targets), then every pulse due."""
    st = battle.state
    for order in orders.values():
        for w, value in order.ppd.items():
            if value == TOP_UP and top_up_blocker(battle, w) is None:  # (E11.25) before firing
                top_up(battle, w)
            if value == PpdOrder.DROP and pulsing(battle, w):
                _store(battle, w, ppd.drop_lock(train(battle, w)), int(st.ppd_target[w]))
    for w, t in shots:
        if st.cloaked[int(t)]:
            # (E11.472) the target began to cloak in this impulse's Cloak step, after the
            # (simultaneous, secret) orders were written: no PPD fire at it; the charge stays
            battle.log(ev.PpdFireVoid(st.turn, st.impulse, battle.unit_ids[int(st.w_owner[w])],
                                      battle.weapon_ids[int(w)], battle.unit_ids[int(t)],
                                      "E11.472"))
            continue
        start(battle, int(w), int(t))
    resolve_pulses(battle)


def start(battle: Battle, w: int, t: int) -> None:
    """Fire PPD ``w`` at unit ``t``: the charge empties and the train starts (E11.31); the
    resolver refuses a charge or a range the rules forbid."""
    st = battle.state
    owner = int(st.w_owner[w])
    rng = int(hexmap.distance_np(st.x[owner], st.z[owner], st.x[t], st.z[t]))
    _, record = ppd.fire(charge(battle, w), st.turn, st.impulse, rng, st.impulses_per_turn,
                         target=target_kind(battle, t), firer_cloaked=bool(st.cloaked[owner]),
                         target_cloaked=bool(st.cloaked[t]))
    _empty_charge(battle, w)
    st.ppd_fired_at[w] = record.fired_at
    st.ppd_pulses[w] = record.pulses
    st.ppd_resolved[w] = 0
    st.ppd_locked[w] = False
    st.ppd_target[w] = t
    st.w_fired_turn[w] = st.turn
    st.w_last_fired[w] = st.absolute_impulse


def breaking_rule(battle: Battle, w: int, t: int) -> str | None:
    """The E11.54 event (or PROPOSAL [P-057], docs/engine/ppd_fire.md) that ends PPD ``w``'s
    train on ``t`` before this impulse's pulse, or None. Range beyond 40 is the resolver's
    (E11.541)."""
    st = battle.state
    owner = int(st.w_owner[w])
    if st.w_destroyed[w] or st.status[owner] != ACTIVE:
        return ppd.LOCK_EVENT_RULE[ppd.LockEvent.PPD_DESTROYED]
    if st.status[t] == DESTROYED:
        return ppd.LOCK_EVENT_RULE[ppd.LockEvent.TARGET_DESTROYED]
    if st.status[t] != ACTIVE:
        return ppd.LOCK_EVENT_RULE[ppd.LockEvent.TARGET_OUT_OF_RANGE]
    if st.cloaked[owner]:
        return "E11.475"
    if st.cloaked[t]:
        return "E11.472"
    _, in_arc = fire_geometry.geometry(battle, w, np.array([t]))
    if not in_arc[0]:
        return ppd.LOCK_EVENT_RULE[ppd.LockEvent.TARGET_OUT_OF_ARC]
    if battle.rules.planets_in_play and planets.ppd_block_rule(battle, w, t) is not None:
        return ppd.LOCK_EVENT_RULE[ppd.LockEvent.PLANET_BLOCKS_FIRE]  # (E11.546)
    return None


def resolve_pulses(battle: Battle) -> None:
    """Resolve every pulse due now (E11.33): all rolled on the step's starting state, then each
    applied as its own volley (E11.332), in weapon-row order."""
    st = battle.state
    volleys: list[tuple[int, dict[int, int], int | None]] = []
    for w in np.flatnonzero(st.ppd_target >= 0):
        w = int(w)
        t = int(st.ppd_target[w])
        record = train(battle, w)
        broken = breaking_rule(battle, w, t)
        if broken is not None:
            _store(battle, w, replace(record, locked=False, ended_by=broken), t)
            continue
        owner = int(st.w_owner[w])
        rng = int(hexmap.distance_np(st.x[owner], st.z[owner], st.x[t], st.z[t]))
        record, result = ppd.resolve_pulse(record, st.turn, st.impulse, rng, rng,
                                           generator=_Dice(battle.rng))
        split, centre = _split(battle, w, t, rng, result.damage)
        battle.log(ev.Fired(st.turn, st.impulse, battle.unit_ids[owner], battle.weapon_ids[w],
                            "ppd", battle.unit_ids[t], rng, rng, result.roll or 0,
                            result.locked, result.damage, centre or 0))
        _store(battle, w, record, t)
        if result.damage:
            volleys.append((t, split, centre))
    for t, split, centre in volleys:  # (E11.332) each pulse its own volley
        damage.apply_split_volley(battle, t, split, centre)


class _Dice:
    """``battle.rng`` as the resolver's generator, one die per draw (scripted dice work)."""

    def __init__(self, rng) -> None:
        self.rng = rng

    def integers(self, low: int, high: int, size: int) -> np.ndarray:
        return np.array([int(self.rng.integers(low, high)) for _ in range(size)])


def _split(battle: Battle, w: int, t: int, rng: int, points: int
           ) -> tuple[dict[int, int], int | None]:
    """{shield: points} of one scoring pulse and the shield it faces (None along a hex side):
    E11.351 on an exact boundary, else E11.352 splash; no splash on a shieldless unit or a [P-046]
    freighter's single pool (E11.353; PROPOSAL [P-047] for the pool: it takes the whole pulse)."""
    st = battle.state
    if not points:
        return {}, None
    if not shields.has_facing_shields(battle, t):
        return {0: points}, 0
    owner = int(st.w_owner[w])
    hit = np.flatnonzero(hexmap.shields_hit_mask_np(st.x[t], st.z[t], st.facing[t],
                                                    st.x[owner], st.z[owner])) + 1
    strength = [int(s) for s in st.shields[t]]
    if len(hit) == 2:  # (E11.351) odd point to the stronger; equal: owner's choice, lower no.
        pair = (int(hit[0]), int(hit[1]))
        return ppd.alt_split(rng, pair, strength, owner_choice=min(pair)), None
    facing = int(hit[0])
    ccw, cw = (facing + 4) % 6 + 1, facing % 6 + 1
    # (E11.352) two points, equal neighbours: the target's owner names one (the lower number)
    return ppd.splash_split(rng, facing, strength, owner_choice=min(ccw, cw)), facing


# ---------------------------------------------------------------------- cadet form (E11.2)


def _allocation_view(battle: Battle, w: int, turn: int) -> ppd.PpdCharge:
    """PPD ``w``'s charge as the Energy Allocation of ``turn`` finds it: one not paid on the
    turn before has lapsed (E11.21, E11.22)."""
    st = battle.state
    paid = int(st.ppd_paid_turn[w])
    c = ppd.PpdCharge(ppd.PpdStage(int(st.ppd_stage[w])), int(st.ppd_energy[w]), paid or None)
    return ppd.lapse(c, turn - 1) if turn > 1 else c


def arm_blockers(battle: Battle, w: int) -> dict[int, str]:
    """``arm[h]`` values (:class:`PpdArm`) PPD ``w`` may not be given at the allocation now
    open: ARM / ARM_2 / ARM_3 (4, 2 or 3 points, E11.21, E11.25) begin or complete a charge;
    HOLD (2 points, E11.22) keeps an armed one; HOLD_TOP_UP also fills it to 8 (E11.25). The
    form's own checks (allocation open, destroyed) are ``energy``'s."""
    c = _allocation_view(battle, w, energy_switches.allocation_turn(battle))
    out: dict[int, str] = {}
    if c.stage == ppd.PpdStage.ARMED:
        why = "E11.23 the PPD holds an unfired charge: hold it (2) or let it go (0)"
        out.update({int(v): why for v in ARM_VALUES})
        if c.energy >= ppd.FULL_CHARGE:
            out[int(PpdArm.HOLD_TOP_UP)] = (f"E11.25 the charge is full ({ppd.FULL_CHARGE} "
                                            "energy, four pulses): nothing to top up")
    else:
        out[int(PpdArm.HOLD)] = "E11.22 only an armed PPD is held"
        out[int(PpdArm.HOLD_TOP_UP)] = "E11.25 only an armed PPD held for a turn is topped up"
    return out


def arm_name(value: int) -> str:
    """The name of ``arm[h]`` value ``value`` on a PPD row (for error messages)."""
    return PpdArm(int(value)).name if 0 <= int(value) < PPD_ARM_ORDERS else str(value)


def cost(battle: Battle, w: int, value: int) -> tuple[int, str] | None:
    """(energy, what) that ``arm[h]`` ``value`` on PPD ``w`` costs at this turn's Energy
    Allocation, or None (nothing to pay; an order fired away in the impulse that gave it
    lapses without cost). ``what`` is "arm", "arm:<points>" (underload, E11.25), "hold" or
    "hold:top_up" (E11.22, E11.25); ``allocate`` takes it back."""
    c = _allocation_view(battle, w, battle.state.turn)
    value = int(value)
    if value in ARM_VALUES and c.stage != ppd.PpdStage.ARMED:
        points = ARM_VALUES[PpdArm(value)]
        return points, "arm" if points == ARM_ENERGY else f"arm:{points}"
    if value == PpdArm.HOLD and c.stage == ppd.PpdStage.ARMED:
        return ppd.HOLDING_COST, "hold"
    if value == PpdArm.HOLD_TOP_UP and c.stage == ppd.PpdStage.ARMED:
        return ppd.HOLDING_COST + ppd.FULL_CHARGE - c.energy, "hold:top_up"
    return None


def allocate(battle: Battle, w: int, what: str | None) -> None:
    """Write PPD ``w``'s charge after this turn's Energy Allocation: ``what`` is ``cost``'s
    when paid, None when not (an unpaid charge is lost, E11.21, E11.22)."""
    st = battle.state
    turn = st.turn
    c = _allocation_view(battle, w, turn)
    if what is not None and what.startswith("arm"):
        points = int(what.partition(":")[2] or ARM_ENERGY)  # (E11.25) 2..4 a turn
        c = (ppd.arm_second_turn(c, turn, points) if c.stage == ppd.PpdStage.ARMING
             else ppd.arm_first_turn(c, turn, points))
    elif what == "hold":
        c = ppd.hold(c, turn)
    elif what == "hold:top_up":  # (E11.25) the holding 2 adds nothing; the rest fills it
        c = ppd.hold(c, turn, top_up=ppd.FULL_CHARGE - c.energy)
    else:
        c = ppd.new_charge()
    st.ppd_stage[w] = int(c.stage)
    st.ppd_energy[w] = c.energy
    st.ppd_paid_turn[w] = c.paid_turn or 0
    st.w_armed[w] = c.stage == ppd.PpdStage.ARMED
