"""Transporters (G8.0) and shield drops (G8.24); CTH-DATA §8.4, §7.3, §7.4, §1.6.

Scenario rule ``transporters`` (R8). A ship's transporters are its TRAN boxes; the orders are
``transporters`` (uses to power at Energy Allocation, standard form only; priority 5e of
``rule_tables.ENERGY_PAYMENTS``), ``drop_shield`` and ``transport[t]`` (beam a boarding party
onto a target, lift a crew unit from it), both in the Shields/Transporters step.

Entry points: ``step`` (the Shields/Transporters step), ``transport_blockers`` (the one
predicate of masks and validation), ``component_blockers``, ``drop_blockers``,
``energy_blockers``, ``pay_energy``, ``energy_cost`` / ``energy_fraction``, ``validate``.

Rules digest (orders, blockers, execution PROPOSALS [P-102]): docs/engine/transporters.md.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import (
    boarding,
    energy_form,
    energy_switches,
    fractional,
    kill_methods,
    reserve_power,
    shields,
)
from sfb_env.engine import events as ev
from sfb_env.engine.planets import consent_blocker
from sfb_env.engine.types import (
    ACTIVE,
    K_FREIGHTER,
    K_MONSTER,
    K_PLANET,
    K_SHIP,
    Box,
    IllegalOrderError,
    Orders,
    TransportOrder,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

RANGE = 5  # (G8.0) transporter range
USES_PER_ENERGY = 5  # (G8.0, CTH-DATA §8.4) 1 energy powers up to 5 transporters
N_SHIELDS = 6
TARGET_KINDS = (K_SHIP, K_FREIGHTER, K_MONSTER)  # boarding parties go aboard these (J4.42:
#   never a fighter; PROPOSAL [P-101]: nor a shuttle, planet or seeking weapon)
NOT_IN_USE = "G8.0 transporters are not in use in this scenario (rules.transporters)"


# ---------------------------------------------------------------------- who, when


def sheet_count(battle: Battle, unit: int) -> int:
    """TRAN boxes on the unit's sheet (CTH-DATA §9.2), 0 without a sheet."""
    ship = battle.ship_classes[unit]
    return int(ship.systems.get("transporter", 0)) if ship is not None else 0


def has_transporters(battle: Battle, unit: int) -> bool:
    """Whether ``unit`` gets transporter components: a ship with TRAN boxes where the rule is in
    use (the env asks; the engine's blockers hold for any unit)."""
    return (battle.rules.transporters and int(battle.state.kind[unit]) == K_SHIP
            and sheet_count(battle, unit) > 0)


def working(battle: Battle, unit: int) -> int:
    """Undestroyed transporters (TRAN boxes left)."""
    return int(battle.state.boxes[unit, Box.TRANSPORTER])


def paid_by_form(battle: Battle, unit: int) -> bool:
    """Whether the unit pays transporter energy on the standard form (G8.0, B3.0)."""
    return battle.rules.standard_energy and energy_switches.governed(battle, unit)


def energy_cost(uses: int) -> int:
    """(G8.0) Whole energy for ``uses`` transporter uses: 1 per 5, rounded up (CTH-DATA §7.3)."""
    return math.ceil(int(uses) / USES_PER_ENERGY)


def energy_fraction(uses: int) -> Fraction:
    """(G8.0, B3.2) The exact energy, 1/5 per use, for fractional accounting to add up."""
    return Fraction(int(uses), USES_PER_ENERGY)


def init_state(battle: Battle) -> None:
    """No transporter used or paid, no shield dropped."""
    st = battle.state
    n = len(st.kind)
    most = max([sheet_count(battle, u) for u in range(n)] + [1])
    st.tran_used_turn = np.zeros((n, most), dtype=np.int64)
    st.tran_powered = np.zeros(n, dtype=np.int64)
    st.shield_drop_until = np.zeros((n, N_SHIELDS), dtype=np.int64)
    st.shield_held = np.zeros((n, N_SHIELDS), dtype=np.int64)


def used_this_turn(battle: Battle, unit: int) -> int:
    """Transporter uses spent this turn."""
    st = battle.state
    return int(np.count_nonzero(st.tran_used_turn[unit] == st.turn))


# ---------------------------------------------------------------------- energy line


def energy_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """``transporters`` energy-line values 1..TRAN the ship may not order now (G8.0)."""
    values = range(1, sheet_count(battle, unit) + 1)
    if not battle.rules.transporters:
        return {k: NOT_IN_USE for k in values}
    if not energy_switches.allocation_open(battle):
        return {k: energy_switches.NOT_NOW for k in values}
    left = working(battle, unit)
    out = {k: f"G8.0 only {left} transporter(s) left to power" for k in values if k > left}
    most = energy_form.reach(battle, unit)
    out.update({k: f"B3.0 line 20: {energy_cost(k)} energy is more than the ship has ({most})"
                for k in values if k not in out and energy_cost(k) > most})
    return out


def pay_energy(battle: Battle, unit: int, order: Orders, purse) -> int:
    """(G8.0) Energy Allocation of the transporter line (``engine.energy`` priority 5e, on its
    purse); returns the energy ordered but not paid (the uses then stay unpowered)."""
    st = battle.state
    uses = min(int(order.transporters), working(battle, unit))
    cost = fractional.line_cost(battle, energy_fraction(uses))  # (B3.2) exact, else rounded up
    st.tran_powered[unit] = 0
    if not uses:
        return 0
    if purse.pay(cost):
        st.tran_powered[unit] = uses
        return 0
    short = math.ceil(cost)
    battle.log(ev.EnergyShortfall(st.turn, 0, battle.unit_ids[unit], "transporters", short))
    return short


# ---------------------------------------------------------------------- geometry


def facing_shields(battle: Battle, unit: int, other: int) -> np.ndarray:
    """Bool (6,): the shields of ``unit`` facing ``other`` (D3.4 line, CTH-DATA §1.6): one, or
    two on an exact boundary; at range 0 the previous positions (D3.42), all six if shared."""
    st = battle.state
    if st.x[unit] == st.x[other] and st.z[unit] == st.z[other]:
        ux, uz, uf = st.prev_x[unit], st.prev_z[unit], st.prev_facing[unit]
        ox, oz = st.prev_x[other], st.prev_z[other]
        if ux == ox and uz == oz:
            return np.ones(N_SHIELDS, dtype=bool)
    else:
        ux, uz, uf = st.x[unit], st.z[unit], st.facing[unit]
        ox, oz = st.x[other], st.z[other]
    return np.asarray(hexmap.shields_hit_mask_np(ux, uz, uf, ox, oz), dtype=bool)


def shield_blocker(battle: Battle, unit: int, other: int, end: str) -> str | None:
    """Why ``unit``'s shields stop a transport to or from ``other`` (G8.0, G8.24), or None:
    some shield facing ``other`` must be down (either one on a boundary). ``end`` names the
    unit in the rule text."""
    st = battle.state
    kind = int(st.kind[unit])
    if kind not in (K_SHIP, K_FREIGHTER) or not st.shields_active[unit]:
        return None  # no shields, or unpaid shields are ignored (CTH-DATA §7.4)
    if st.shield_pool[unit]:  # (R1.6) a freighter's one pool faces every way
        if st.shields[unit, 0] > 0:
            return f"G8.0 the shields of {end} are up (a freighter's pool: {st.shields[unit, 0]})"
        return None
    facing = facing_shields(battle, unit, int(other))
    if np.any(st.shields[unit][facing] <= 0):
        return None
    names = "/".join(f"#{k + 1}" for k in np.flatnonzero(facing))
    return f"G8.0 no transport through an active shield: shield {names} of {end} is up"


def _range(battle: Battle, a: int, b: int) -> int:
    st = battle.state
    return int(hexmap.distance_np(st.x[a], st.z[a], st.x[b], st.z[b]))


# ---------------------------------------------------------------------- blockers


def transporter_blocker(battle: Battle, unit: int, t: int) -> str | None:
    """Why transporter ``t`` of ``unit`` cannot operate now at all, or None (G8.0)."""
    st = battle.state
    if not battle.rules.transporters:
        return NOT_IN_USE
    if not 0 <= t < sheet_count(battle, unit):
        return f"G8.0 the ship has no transporter {t} ({sheet_count(battle, unit)} on its sheet)"
    if st.status[unit] != ACTIVE:
        return "G8.0 the ship is not in play"
    held = boarding.fire_blocker(battle, unit)
    if held is not None:
        return "D7.0 a captured ship's transporters are its captor's (PROPOSAL: not used)"  # [P-103]  # noqa: E501
    if t >= working(battle, unit):
        return f"D4.0 transporter {t} is destroyed"
    if st.impulse < 1:
        return "B2.0 transporters operate in the Shields/Transporters step of an impulse"
    if int(st.tran_used_turn[unit, t]) == st.turn:
        return f"G8.0 transporter {t} has already operated this turn"
    if (paid_by_form(battle, unit) and used_this_turn(battle, unit) >= int(st.tran_powered[unit])
            and not _reserve(battle, unit)):
        return (f"G8.0 no powered transporter use left this turn ({int(st.tran_powered[unit])} "
                "paid at Energy Allocation; 1 energy powers up to 5)")
    return None


def _reserve(battle: Battle, unit: int) -> bool:
    """(H7.2) Whether a charged battery can power more transporter uses now (reserve power)."""
    st = battle.state
    return bool(battle.rules.reserve_power) and min(
        int(st.batteries[unit]), int(st.boxes[unit, Box.BATTERY])) > 0


def _power_from_batteries(battle: Battle, unit: int) -> None:
    """(H7.1, H7.2) Discharge one battery: up to 5 more transporter uses this turn."""
    st = battle.state
    left = reserve_power.discharge(
        reserve_power.Batteries(int(st.boxes[unit, Box.BATTERY]),
                                min(int(st.batteries[unit]), int(st.boxes[unit, Box.BATTERY]))),
        1, reserve_power.ReserveUse.TRANSPORTER)
    st.batteries[unit] = left.charged
    st.tran_powered[unit] += USES_PER_ENERGY
    battle.log(ev.ReserveDischarged(st.turn, st.impulse, battle.unit_ids[unit], "transporters",
                                    1, left.charged))


def transport_blockers(battle: Battle, unit: int, t: int, what: int,
                       target: int) -> str | None:
    """The rule forbidding transporter ``t`` of ``unit`` to carry out ``what`` (a
    ``TransportOrder``) with ``target`` now, or None (see docs/engine/transporters.md)."""
    st = battle.state
    rule = transporter_blocker(battle, unit, t)
    if rule is not None:
        return rule
    if what not in (TransportOrder.BEAM_PARTY, TransportOrder.LIFT_CREW):
        return f"G8.0 transport orders are {[o.name for o in TransportOrder]}"
    if not 0 <= target < len(st.kind) or target == unit:
        return "G8.0 no such target unit"
    if st.status[target] != ACTIVE:
        return "G8.0 the target is not in play"
    if _range(battle, unit, target) > RANGE:
        return f"G8.0 the target is beyond transporter range {RANGE}"
    kind = int(st.kind[target])
    friendly = boarding.controller_side(battle, target) == int(st.side[unit])  # (D7.0)
    if what == TransportOrder.BEAM_PARTY:
        if kind not in TARGET_KINDS:
            return "D7.0 boarding parties go aboard ships, freighters or the monster (J4.42)"
        if int(st.boarding_parties[unit, int(st.side[unit])]) <= 0:
            return "D7.0 no boarding party of the ship's side left aboard"
    else:
        if not friendly and kind != K_PLANET:
            return "G8.0 no beaming of enemy personnel without consent"
        # (G8.0) survivors: their own side only
        if kind == K_PLANET and battle.rules.planets_in_play:
            consent = consent_blocker(battle, unit, target)
            if consent is not None:
                return consent
        if int(st.crew_units[target]) <= 0:
            return "G8.0 no crew unit to lift there"
    own = shield_blocker(battle, unit, target, battle.unit_ids[unit])
    if own is not None:
        return own
    return shield_blocker(battle, target, unit, battle.unit_ids[target])


def component_blockers(battle: Battle, unit: int, t: int, targets: np.ndarray
                       ) -> dict[int, str]:
    """The ``transport[t]`` component: value k (1..K) beams a party to slot k, K + k lifts a
    crew unit from slot k; value -> rule for every closed value (empty slots named)."""
    k = len(targets)
    rule = transporter_blocker(battle, unit, t)
    if rule is not None:  # the transporter cannot operate at all now
        return {v: rule for v in range(1, 2 * k + 1)}
    out: dict[int, str] = {}
    for i, target in enumerate(targets):
        for base, what in ((1, TransportOrder.BEAM_PARTY), (k + 1, TransportOrder.LIFT_CREW)):
            if target < 0:
                out[base + i] = f"no unit in target slot {i + 1}"
                continue
            rule = transport_blockers(battle, unit, t, what, int(target))
            if rule is not None:
                out[base + i] = rule
    return out


def drop_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """``drop_shield`` values 1..6 the ship may not order now (G8.24)."""
    st = battle.state
    values = range(1, N_SHIELDS + 1)
    if not battle.rules.transporters:
        return {s: NOT_IN_USE for s in values}
    if st.status[unit] != ACTIVE or int(st.kind[unit]) != K_SHIP or st.shield_pool[unit]:
        return {s: "G8.24 only a ship in play drops a shield" for s in values}
    if st.impulse < 1:
        return {s: "B2.0 shields drop in the Shields/Transporters step of an impulse"
                for s in values}
    return {s: f"G8.24 shield #{s} is already down" for s in values
            if st.shields[unit, s - 1] <= 0 and not st.shield_drop_until[unit, s - 1]}


def validate(battle: Battle, unit: int, order: Orders, name: str) -> None:
    """Raise ``IllegalOrderError`` for a transporter order the rules forbid (the same
    predicates as the masks)."""
    if order.transporters:
        value = order.transporters
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not (
                0 <= value <= sheet_count(battle, unit)):
            raise IllegalOrderError(name, "transporters", value,
                                    f"G8.0 transporters is 0..{sheet_count(battle, unit)}")
        if not paid_by_form(battle, unit):
            raise IllegalOrderError(name, "transporters", value, "G8.0 transporter energy is a "
                                    "line of the standard form (rules.energy: standard)")
        rule = energy_blockers(battle, unit).get(int(value))
        if rule is not None:
            raise IllegalOrderError(name, "transporters", int(value), rule)
    if order.drop_shield:
        s = order.drop_shield
        if isinstance(s, bool) or s not in range(1, N_SHIELDS + 1):
            raise IllegalOrderError(name, "drop_shield", s, "G8.24 shields are #1..#6")
        rule = drop_blockers(battle, unit).get(int(s))
        if rule is not None:
            raise IllegalOrderError(name, "drop_shield", int(s), rule)
    if not isinstance(order.transport, dict):
        raise IllegalOrderError(name, "transport", order.transport,
                                "G8.0 transport maps a transporter to (order, target)")
    for t, value in order.transport.items():
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)):
            raise IllegalOrderError(name, "transport", t, "G8.0 transporters are numbered 0..")
        if (not isinstance(value, tuple) or len(value) != 2
                or not all(isinstance(v, (int, np.integer)) for v in value)):
            raise IllegalOrderError(name, f"transport[{t}]", value,
                                    "G8.0 a transport order is (TransportOrder, target row)")
        what, target = int(value[0]), int(value[1])
        if what == TransportOrder.NONE:
            continue
        rule = transport_blockers(battle, unit, int(t), what, target)
        if rule is not None:
            raise IllegalOrderError(name, f"transport[{t}]", value, rule)


# ---------------------------------------------------------------------- the step


def step(battle: Battle, orders: dict[int, Orders]) -> None:
    """The Shields/Transporters step of an impulse (CTH-DATA §2.1): dropped shields whose 1/4
    turn is over come back up, the ordered drops, then every transporter order."""
    st = battle.state
    now = st.absolute_impulse
    for u, s in zip(*np.nonzero(st.shield_drop_until), strict=True):
        if st.shield_drop_until[u, s] <= now:
            raise_shield(battle, int(u), int(s) + 1)
    for u in sorted(orders):
        if orders[u].drop_shield:
            drop_shield(battle, u, int(orders[u].drop_shield))
    for u in sorted(orders):
        for t, (what, target) in sorted(orders[u].transport.items()):
            if int(what) != TransportOrder.NONE:
                transport(battle, u, int(t), int(what), int(target))


def drop_shield(battle: Battle, unit: int, shield: int) -> None:
    """(G8.24) Drop shield #``shield`` for 1/4 turn (a dropped one: the 1/4 turn restarts)."""
    st = battle.state
    s = shield - 1
    if not st.shield_drop_until[unit, s]:
        st.shield_held[unit, s] = st.shields[unit, s]
        st.shields[unit, s] = 0
        st.reinf_specific[unit, s] = 0  # (module PROPOSAL [P-100]) no specific reinforcement on it
    st.shield_drop_until[unit, s] = st.absolute_impulse + battle.quarter_turn
    battle.log(ev.ShieldDropped(st.turn, st.impulse, battle.unit_ids[unit], shield,
                                int(st.shield_drop_until[unit, s])))


def raise_shield(battle: Battle, unit: int, shield: int) -> None:
    """A dropped shield comes back up with its boxes (damage control repairs added, up to the
    sheet's boxes)."""
    st = battle.state
    s = shield - 1
    st.shields[unit, s] = min(int(battle.initial.shields[unit, s]),
                              int(st.shields[unit, s] + st.shield_held[unit, s]))
    st.shield_held[unit, s] = 0
    st.shield_drop_until[unit, s] = 0
    battle.log(ev.ShieldDropped(st.turn, st.impulse, battle.unit_ids[unit], shield, 0))


def transport(battle: Battle, unit: int, t: int, what: int, target: int) -> bool:
    """Carry out one transporter action (G8.0); returns whether it moved anyone. An order no
    longer legal (an earlier transporter took the last party) is refused without using the
    transporter; the attempts that fail use it (docs/engine/transporters.md)."""
    st = battle.state
    label = "boarding party" if what == TransportOrder.BEAM_PARTY else "crew unit"
    src, dst = (unit, target) if what == TransportOrder.BEAM_PARTY else (target, unit)
    ids = battle.unit_ids

    def log(result: str) -> None:
        battle.log(ev.Transported(st.turn, st.impulse, ids[unit], t, label, ids[src], ids[dst],
                                  result))

    rule = transport_blockers(battle, unit, t, what, target)
    if rule is not None:
        log(rule)
        return False
    if paid_by_form(battle, unit) and used_this_turn(battle, unit) >= int(st.tran_powered[unit]):
        _power_from_batteries(battle, unit)  # (H7.2) reserve power, as the blocker allowed
    st.tran_used_turn[unit, t] = st.turn
    if st.reinf_general[dst] > 0:  # (D3.341, CTH-DATA §7.4) GR blocks the transport
        log(f"D3.34 general reinforcement on {ids[dst]} blocks the transporter")
        return False
    if (int(st.kind[target]) in (K_SHIP, K_FREIGHTER)
            and boarding.controller_side(battle, target) != int(st.side[unit])
            and st.shields_active[target] and not st.shield_pool[target]):
        s = shields.struck_shield(battle, target, unit, range0=bool(
            st.x[target] == st.x[unit] and st.z[target] == st.z[unit]))  # (D3.41, D3.42)
        if s and st.shields[target, s - 1] > 0:
            log(f"G8.0 D3.41 shield #{s} of {ids[target]} faces the ship and is up")
            return False
    if what == TransportOrder.BEAM_PARTY:
        side = int(st.side[unit])
        st.boarding_parties[unit, side] -= 1
        st.boarding_parties[target, side] += 1
    else:
        st.crew_units[target] -= 1
        st.crew_units[unit] += 1
    log("done")
    if what == TransportOrder.BEAM_PARTY and int(st.kind[target]) == K_MONSTER:
        # (SCENARIOS §2.8 kill method 5, PROPOSAL [P-114])
        kill_methods.struck_by(battle, target, kill_methods.Method.BOARDING, unit)
    return True
