"""Plasmatic pulsar devices in play (E11): charges, pulse trains and the PPD part of the Fire
Direct-Fire Weapons step. The rules themselves are :mod:`sfb_env.engine.ppd`'s pure resolver;
this module keeps its records in the weapon arrays of ``BattleState`` (``ppd_*``, one entry
per weapon row, fixed at build time) and rebuilds them on each question.

* **Charge** (E11.2). Under the Chief Engineer (``energy: chief``) PROPOSAL: the Chief Engineer
  arms a full 8-point charge (four pulses, E11.25) over two turns, so a PPD is first armed on
  turn 3 and armed again two turns after each firing (``w_ready_turn``), like the photon's
  Chief Engineer rule (SCENARIOS §2.1). Under the cadet form (``energy: cadet``) the charge is
  the one paid at Energy Allocation (``ppd_stage``/``ppd_energy``/``ppd_paid_turn``, written
  by :func:`allocate`); a robot ship's PPD is armed every turn (SCENARIOS §2.5). Under
  ``energy: off`` nothing arms it.
* **Fire** (E11.31). An order ``fire[w]`` at a target starts a train of one pulse per two
  points of charge (E11.25) on this impulse and the next ones, across the turn break (E11.30,
  E11.23). The fire predicate (``direct_fire.fire_blockers``) opens it only with a charge of at
  least two pulses paid this turn, no train running (E11.23), the target in arc, true range
  4..40 (E11.312, E11.52), not cloaked (E11.472), the firer not cloaked (E11.475).
* **Pulses** (E11.33). :func:`fire_step` runs first in Fire Direct-Fire (E11.332: PPD volleys
  before other direct fire): voluntary drops (``Orders.ppd``, E11.362), new trains, then every
  pulse due now. Each pulse rolls 2d6 from ``battle.rng`` at the effective range until locked
  (E11.31, E11.331), scores by true range (E11.52), keeps its lock in the myopic zone
  (E11.521); its damage is its own volley (E11.332), split by shield (E11.351 along a hex side,
  E11.352 splash) through ``damage.apply_split_volley``; drones take the centre element only
  (E11.353). Each pulse is logged as a ``Fired`` event of weapon type "ppd" (``die``: the
  2d6, 0 when none was rolled; ``hit``: the lock held; ``shield``: the facing shield, 0 along a
  hex side or on a shieldless unit); a train ended early logs ``PpdTrainEnded``. All pulses of
  the impulse are judged on the positions and state at the start of
  the step and applied after, so they are simultaneous with each other (E1).
* **Breaking events** (E11.54) checked before each pulse: target out of arc or beyond 40
  (E11.541), target destroyed (E11.542), PPD destroyed (E11.544). PROPOSALS where the book is
  silent: the firer destroyed counts as its PPD destroyed (E11.544); a target that disengaged
  or left play otherwise is out of range (E11.541); a target that cloaks at a turn break ends
  the train (E11.472, no fade-out in the cadet cloak); a firer that cloaks ends its own train
  (E11.475). Everything else the engine has (speed and direction changes, range changes
  within 40) does not break the lock (E11.58, E11.52). Fire control, capture, planets,
  tractors and docking (E11.545, E11.546, E11.549, E11.56) are not in the engine.
* Cadet form: ``arm[h]`` ARM pays the full 4 of an arming turn (E11.21), so a charge is 8 and
  four pulses; the 2-3 point underload, the top-up with reserve power (E11.24, E11.25) and the
  robot ship's every-other-turn PPD schedule (SCENARIOS §2.5) are not wired (the resolver has
  the underload and top-up rules).
* General reinforcement (E11.39): under ``energy: standard`` ``damage.apply_split_volley``
  spends the target's GR on the first pulse it meets (the resolver's
  ``absorb_general_reinforcement``; the element choice is damage.py's PROPOSAL), then each
  element goes through the standard-form shield path (unpaid shields, specific reinforcement,
  reserve power; ``energy.apply_shield``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import damage, ppd
from sfb_env.engine import events as ev
from sfb_env.engine.types import (
    ACTIVE,
    DESTROYED,
    K_DRONE,
    K_TARGET_DRONE,
    NEVER,
    ArmOrder,
    IllegalOrderError,
    Orders,
    PpdOrder,
    WeaponType,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

_PPD = int(WeaponType.PPD)
CHIEF_FIRST_TURN = 3  # PROPOSAL (module docstring): 8 points over turns 1-2, armed on turn 3
CHIEF_REARM_TURNS = 2  # PROPOSAL: fired on turn t, armed again on turn t + 2
ARM_ENERGY = 4  # (E11.21) an ``arm[h]`` ARM pays the full 4 of an arming turn


def init_state(battle: Battle) -> None:
    """Empty charges and no pulse trains (battle build); ``battle.has_ppd`` skips the step in
    battles without a PPD in use."""
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
    battle.has_ppd = bool(m) and bool(np.any((st.w_type == _PPD) & st.w_enabled))


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
    from sfb_env.engine import energy

    return energy.governed(battle, int(battle.state.w_owner[w]))


def charge(battle: Battle, w: int) -> ppd.PpdCharge:
    """PPD ``w``'s charge as the E11.2 resolver's record on the current turn (see the module
    docstring for the Chief Engineer, cadet-form and robot cases)."""
    st = battle.state
    rules = battle.scenario.rules
    if _governed(battle, w):
        paid = int(st.ppd_paid_turn[w])
        return ppd.PpdCharge(ppd.PpdStage(int(st.ppd_stage[w])), int(st.ppd_energy[w]),
                             paid or None)
    full = ppd.PpdCharge(ppd.PpdStage.ARMED, ppd.FULL_CHARGE, st.turn)
    if rules["chief_engineer"]:
        return full if st.turn >= int(st.w_ready_turn[w]) else ppd.new_charge()
    if rules["energy"] == "cadet":  # (SCENARIOS §2.5) robots: every weapon armed every turn
        return full
    return ppd.new_charge()


def ready_blocker(battle: Battle, w: int) -> str | None:
    """Why PPD ``w`` cannot start a pulse train now (whatever the target), or None (E11.21,
    E11.23, E11.25); the general weapon checks are ``direct_fire.weapon_ready_blocker``'s."""
    st = battle.state
    if pulsing(battle, w):
        return "E11.23 the PPD is still pulsing: one charge at a time"
    if battle.scenario.rules["chief_engineer"] and st.turn < int(st.w_ready_turn[w]):
        return (f"E11.21 (Chief Engineer, PROPOSAL) the PPD is not armed before turn "
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
    FD1.52; no splash, E11.353) or a ship. With the modifier off a drone is a shieldless target
    with no roll shift (the resolver's MONSTER kind)."""
    if int(battle.state.kind[t]) in (K_DRONE, K_TARGET_DRONE):
        return (ppd.TargetKind.DRONE if battle.scenario.rules["drone_die_modifier"]
                else ppd.TargetKind.MONSTER)
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
    if battle.scenario.rules["chief_engineer"]:
        st.w_ready_turn[w] = st.turn + CHIEF_REARM_TURNS  # PROPOSAL (module docstring)


# ---------------------------------------------------------------------- orders (E11.362)


def drop_blockers(battle: Battle, w: int) -> dict[int, str]:
    """``ppd[p]`` values PPD ``w`` may not be given now, with the rule; KEEP (0) is open."""
    st = battle.state
    if not pulsing(battle, w):
        return {int(PpdOrder.DROP): "E11.362 the PPD is not pulsing: no wave-lock to drop"}
    if int(st.ppd_resolved[w]) < 1:  # unreachable: the first pulse is fired with the order
        return {int(PpdOrder.DROP): "E11.362 the lock may be dropped only after one pulse"}
    return {}


def validate(battle: Battle, unit: int, order: Orders, name: str) -> None:
    """Raise ``IllegalOrderError`` for a ``ppd`` order the rules forbid (same predicate as the
    mask)."""
    own = set(int(w) for w in ppd_rows(battle, unit))
    for w, value in order.ppd.items():
        if w not in own:
            what = (f"weapon {battle.weapon_ids[w]} of {name} is not a PPD in use"
                    if 0 <= w < len(battle.weapon_ids) else f"no weapon row {w}")
            raise IllegalOrderError(name, "ppd", w, f"E11.362 {what}")
        if isinstance(value, bool) or value not in (0, 1):
            raise IllegalOrderError(name, f"ppd[{battle.weapon_ids[w]}]", value,
                                    "E11.362 PPD orders are 0 keep, 1 drop the wave-lock")
        rule = drop_blockers(battle, w).get(int(value))
        if rule is not None:
            raise IllegalOrderError(name, f"ppd[{battle.weapon_ids[w]}]",
                                    PpdOrder(int(value)).name, rule)


# ---------------------------------------------------------------------- the fire step


def fire_step(battle: Battle, orders: dict[int, Orders], shots: list[tuple[int, int]]) -> None:
    """(E11.31, E11.332) The PPD part of Fire Direct-Fire, before any other direct fire: drop
    orders (E11.362), new trains from ``shots`` (PPD rows -> targets), then every pulse due."""
    st = battle.state
    for order in orders.values():
        for w, value in order.ppd.items():
            if value == PpdOrder.DROP and pulsing(battle, w):
                _store(battle, w, ppd.drop_lock(train(battle, w)), int(st.ppd_target[w]))
    for w, t in shots:
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
    """The E11.54 event (or PROPOSAL, module docstring) that ends PPD ``w``'s train on ``t``
    before this impulse's pulse, or None. Range beyond 40 is the resolver's (E11.541)."""
    from sfb_env.engine import direct_fire

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
    _, in_arc = direct_fire.geometry(battle, w, np.array([t]))
    if not in_arc[0]:
        return ppd.LOCK_EVENT_RULE[ppd.LockEvent.TARGET_OUT_OF_ARC]
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
    E11.351 on an exact boundary, else E11.352 splash; no splash on a shieldless unit or a
    freighter's single pool (E11.353; PROPOSAL for the pool: it takes the whole pulse)."""
    from sfb_env.engine import shields

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
    """``arm[h]`` values (ArmOrder) PPD ``w`` may not be given at the allocation now open:
    ARM (4 points, E11.21) begins or completes a charge; HOLD (2 points, E11.22) keeps an
    armed one. The form's own checks (allocation open, destroyed) are ``energy``'s."""
    from sfb_env.engine import energy

    c = _allocation_view(battle, w, energy.allocation_turn(battle))
    out: dict[int, str] = {}
    if c.stage == ppd.PpdStage.ARMED:
        out[1] = "E11.23 the PPD holds an unfired charge: hold it (2) or let it go (0)"
    else:
        out[2] = "E11.22 only an armed PPD is held"
    return out


def cost(battle: Battle, w: int, value: int) -> tuple[int, str] | None:
    """(energy, "arm" or "hold") that ``arm[h]`` ``value`` on PPD ``w`` costs at this turn's
    Energy Allocation, or None (nothing to pay; an order fired away in the impulse that gave it
    lapses without cost)."""
    c = _allocation_view(battle, w, battle.state.turn)
    if value == ArmOrder.ARM and c.stage != ppd.PpdStage.ARMED:
        return ARM_ENERGY, "arm"
    if value == ArmOrder.HOLD and c.stage == ppd.PpdStage.ARMED:
        return ppd.HOLDING_COST, "hold"
    return None


def allocate(battle: Battle, w: int, what: str | None) -> None:
    """Write PPD ``w``'s charge after this turn's Energy Allocation: ``what`` is "arm" or
    "hold" when paid, None when not (an unpaid charge is lost, E11.21, E11.22)."""
    st = battle.state
    turn = st.turn
    c = _allocation_view(battle, w, turn)
    if what == "arm":
        c = (ppd.arm_second_turn(c, turn, ARM_ENERGY) if c.stage == ppd.PpdStage.ARMING
             else ppd.arm_first_turn(c, turn, ARM_ENERGY))
    elif what == "hold":
        c = ppd.hold(c, turn)
    else:
        c = ppd.new_charge()
    st.ppd_stage[w] = int(c.stage)
    st.ppd_energy[w] = c.energy
    st.ppd_paid_turn[w] = c.paid_turn or 0
    st.w_armed[w] = c.stage == ppd.PpdStage.ARMED
