"""Expanding sphere generators in a battle (G23): state arrays, orders, energy and field contact.

The rules themselves are the pure resolver :mod:`sfb_env.engine.esg`; this module keeps each
generator's record in the ``esg_*`` weapon arrays of ``BattleState`` (one entry per weapon row,
used only on ESG rows), rebuilds an :class:`~sfb_env.engine.esg.EsgGenerator` from them when a
rule is asked, and writes the answer back. ``procedure.py`` calls it at three points:

* **Energy Allocation** (:func:`energy_allocation`): CTH ships start with their generators full
  (G23.23). Under the Chief Engineer of the cadet scenarios 1-3 (and the cadet and graduate
  duels built on scenario 3), who pays for every weapon automatically (SCENARIOS §2.1), the
  generator is topped up to its capacity at the start of every turn (G23.21: energy from any
  source, accumulated over turns; G23.22: at most 2 on the cadet cruiser). Energy stored while
  a field operates only waits for the next release (G23.212). Without the Chief Engineer
  nothing charges it (no energy allocation form yet).
* **Launch Seeking Weapons** (:func:`launch_step`): voluntary drops (G23.47), then the
  generator's own changes, expiry before release (G23.711, G23.32, G23.31), then cancellations
  (G23.33) and announcements (G23.31, G23.41).
* **Move Ships**, after tactical maneuvers (:func:`resolve_contacts`): contact is judged from
  each unit's distance to the generating ship at the start and at the end of the impulse's
  movement, so a unit and a field that cross in one impulse meet (G23.571), one that comes back
  clear does not (G23.572), and turns in place do nothing (G23.574); the damage is resolved after
  tactical maneuvers (G23.514), before Resolve Seeking Weapons (a drone destroyed by a field
  never strikes, G23.55).

``order_blockers`` is the single legality predicate of an ``esg[g]`` order: the env's masks
and the engine's order validation both call it.

Simplifications (documented choices): a zero-radius field designates no friendly unit inside
(G23.72; the duels have none); overlapping fields of two ships (G23.71) and field against field
(G23.73) are not resolved (no scenario has two ESG ships); a unit's "points still needed"
(G23.511) for a ship under the interim rule (D4.0) is its struck shield plus every internal box
and weapon it has left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import esg, shields
from sfb_env.engine import events as ev
from sfb_env.engine.esg import Contact, ContactSize, Entry, EsgGenerator, EsgPhase, EsgRuleError
from sfb_env.engine.types import (
    ACTIVE,
    K_DRONE,
    K_FREIGHTER,
    K_SHIP,
    K_TARGET_DRONE,
    NEVER,
    EsgOrder,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

SHIP_NEEDS = 10**6  # a ship that cannot be damaged (scenario 1) soaks a whole field
ANNOUNCE_ORDERS = (EsgOrder.ANNOUNCE_0, EsgOrder.ANNOUNCE_1, EsgOrder.ANNOUNCE_2,
                   EsgOrder.ANNOUNCE_3)
_IDLE, _ANNOUNCED, _ACTIVE_PHASE = (int(p) for p in EsgPhase)
_CONTACT_NAMES = {Entry.ENTERS: "enters", Entry.ENTERS_FROM_INSIDE: "from_inside",
                  Entry.JUMPS: "jumps"}
_SIZES = {K_DRONE: ContactSize.DRONE, K_TARGET_DRONE: ContactSize.DRONE,
          K_FREIGHTER: ContactSize.FREIGHTER, K_SHIP: ContactSize.SHIP}


# ---------------------------------------------------------------------- state <-> resolver


def init_state(battle: Battle, capacity: list[int], start: list[int]) -> None:
    """Fill the ``esg_*`` arrays: ``capacity`` and ``start`` charge per weapon row (G23.23)."""
    st = battle.state
    m = len(capacity)
    st.esg_max = np.array(capacity, dtype=np.int64).reshape(m)
    st.esg_stored = np.array(start, dtype=np.int64).reshape(m)
    st.esg_phase = np.zeros(m, dtype=np.int8)
    st.esg_radius = np.full(m, -1, dtype=np.int64)
    st.esg_strength = np.zeros(m, dtype=np.int64)
    for name in ("announced_at", "release_at", "activated_at", "dropped_at", "cancelled_at"):
        setattr(st, f"esg_{name}", np.full(m, NEVER, dtype=np.int64))


def esg_rows(battle: Battle) -> np.ndarray:
    """Weapon rows that are expanding sphere generators (in use in the scenario)."""
    st = battle.state
    return np.flatnonzero((st.esg_max > 0) & st.w_enabled)


def _time(value) -> int | None:
    return None if value == NEVER else int(value)


def generator(battle: Battle, w: int) -> EsgGenerator:
    """Generator ``w`` as the G23 resolver's record."""
    st = battle.state
    radius = int(st.esg_radius[w])
    return EsgGenerator(
        max_energy=int(st.esg_max[w]), impulses_per_turn=st.impulses_per_turn,
        stored=int(st.esg_stored[w]), phase=EsgPhase(int(st.esg_phase[w])),
        radius=None if radius < 0 else radius, strength=int(st.esg_strength[w]),
        announced_at=_time(st.esg_announced_at[w]), release_at=_time(st.esg_release_at[w]),
        activated_at=_time(st.esg_activated_at[w]), dropped_at=_time(st.esg_dropped_at[w]),
        cancelled_at=_time(st.esg_cancelled_at[w]),
    )


def store(battle: Battle, w: int, gen: EsgGenerator) -> None:
    """Write a resolver record back into the arrays."""
    st = battle.state
    st.esg_stored[w] = gen.stored
    st.esg_phase[w] = int(gen.phase)
    st.esg_radius[w] = -1 if gen.radius is None else gen.radius
    st.esg_strength[w] = gen.strength
    for name in ("announced_at", "release_at", "activated_at", "dropped_at", "cancelled_at"):
        value = getattr(gen, name)
        getattr(st, f"esg_{name}")[w] = NEVER if value is None else value


# ---------------------------------------------------------------------- legality


def order_blockers(battle: Battle, w: int) -> dict[int, str]:
    """ESG order values 1..6 (``EsgOrder``) that generator ``w`` may not be given now, with
    the rule; 0 (no order) is always allowed."""
    st = battle.state
    closed: str | None = None
    if w < 0 or w >= len(st.esg_max) or st.esg_max[w] <= 0:
        closed = "G23.11 not an expanding sphere generator"
    elif not st.w_enabled[w]:
        closed = "scenario weapons_allowed: this ESG is not in use"
    elif st.w_destroyed[w]:
        closed = "G23.14 the generator is destroyed"
    elif st.impulse < 1:
        closed = "G23.31 ESG orders are given in Launch Seeking Weapons (impulses 1 and later)"
    elif not (battle.scenario.rules["seeking_weapons"]
              and battle.scenario.rules["launch_seeking_weapons"]):
        closed = "B2.0 this scenario skips Launch Seeking Weapons, where ESG orders are given"
    if closed is not None:
        return {int(v): closed for v in EsgOrder if v != EsgOrder.NONE}
    gen = generator(battle, w)
    out: dict[int, str] = {}
    ok, why = esg.can_announce(gen, st.turn, st.impulse)
    if not ok:
        out.update({int(v): why for v in ANNOUNCE_ORDERS})
    ok, why = esg.can_cancel(gen, st.turn, st.impulse)
    if not ok:
        out[int(EsgOrder.CANCEL)] = why
    ok, why = esg.can_drop(gen, st.turn, st.impulse)
    if not ok:
        out[int(EsgOrder.DROP)] = why
    return out


# ---------------------------------------------------------------------- Energy Allocation


def energy_allocation(battle: Battle) -> None:
    """Chief Engineer: top every working generator up to its capacity (G23.21, G23.22,
    SCENARIOS §2.1; see the module docstring)."""
    st = battle.state
    if not battle.scenario.rules["chief_engineer"]:
        return
    for w in esg_rows(battle):
        w = int(w)
        owner = int(st.w_owner[w])
        if st.w_destroyed[w] or st.status[owner] != ACTIVE:
            continue
        energy = int(st.esg_max[w] - st.esg_stored[w])
        if energy > 0:
            store(battle, w, esg.charge(generator(battle, w), energy))
            battle.log(ev.EsgCharged(st.turn, 0, battle.unit_ids[owner], battle.weapon_ids[w],
                                     energy, int(st.esg_stored[w])))


# ---------------------------------------------------------------------- Launch Seeking Weapons


def launch_step(battle: Battle, orders: dict) -> None:
    """The ESG part of Launch Seeking Weapons: drops, expiry and release, cancellations and
    announcements, in that order (G23.711 deactivations before activations)."""
    st = battle.state
    turn, imp = st.turn, st.impulse
    now = st.absolute_impulse
    for w in esg_rows(battle):
        w = int(w)
        owner = int(st.w_owner[w])
        uid, gid = battle.unit_ids[owner], battle.weapon_ids[w]
        order = orders.get(owner)
        value = int(order.esg.get(w, 0)) if order is not None else 0
        gen = generator(battle, w)
        if st.w_destroyed[w] or st.status[owner] != ACTIVE:
            if gen.phase != EsgPhase.IDLE:  # the box is gone: no field, no announcement
                store(battle, w, EsgGenerator(gen.max_energy, gen.impulses_per_turn,
                                              dropped_at=now, activated_at=gen.activated_at))
                battle.log(ev.EsgDropped(turn, imp, uid, gid, "destroyed"))
            continue
        if value == EsgOrder.DROP:
            gen = esg.drop(gen, turn, imp)  # (G23.47) at once
            battle.log(ev.EsgDropped(turn, imp, uid, gid, "voluntary"))
        before = gen
        gen = esg.launch_step(gen, turn, imp)
        if before.phase == EsgPhase.ACTIVE and gen.phase != EsgPhase.ACTIVE:
            battle.log(ev.EsgDropped(turn, imp, uid, gid, "expired"))  # (G23.32)
        if before.phase == EsgPhase.ANNOUNCED and gen.activated_at == now:
            battle.log(ev.EsgReleased(turn, imp, uid, gid, int(before.radius or 0),
                                      before.stored, gen.strength if gen.phase else 0))
            if gen.phase != EsgPhase.ACTIVE:  # released empty: dropped at once (G23.322)
                battle.log(ev.EsgDropped(turn, imp, uid, gid, "exhausted"))
        if value == EsgOrder.CANCEL:
            gen = esg.cancel(gen, turn, imp)
            battle.log(ev.EsgCancelled(turn, imp, uid, gid))
        elif value in ANNOUNCE_ORDERS:
            gen = esg.announce(gen, value - EsgOrder.ANNOUNCE_0, turn, imp)
            at = gen.release_at - 1
            battle.log(ev.EsgAnnounced(turn, imp, uid, gid, int(gen.radius),
                                       at // st.impulses_per_turn + 1,
                                       at % st.impulses_per_turn + 1))
        store(battle, w, gen)


# ---------------------------------------------------------------------- contact (Move Ships)


def resolve_contacts(battle: Battle) -> None:
    """Fields against the units that entered them in this impulse's movement (G23.51-G23.574).

    One volley per ship's fields for each unit struck (G23.512), on the shield facing the
    generating ship (G23.513), after tactical maneuvers (G23.514).
    """
    st = battle.state
    rows = esg_rows(battle)
    if not len(rows):
        return
    active = rows[st.esg_phase[rows] == _ACTIVE_PHASE]
    if not len(active):
        return
    for owner in np.unique(st.w_owner[active]):
        owner = int(owner)
        if st.status[owner] != ACTIVE:
            continue
        gens_rows = [int(w) for w in rows if st.w_owner[w] == owner]
        _ship_fields(battle, owner, gens_rows)


def _ship_fields(battle: Battle, owner: int, rows: list[int]) -> None:
    st = battle.state
    gens = [generator(battle, w) for w in rows]
    live = [esg.is_operating(g, st.turn, st.impulse) and not st.w_destroyed[w]
            for g, w in zip(gens, rows, strict=True)]
    if not any(live):
        return
    others = np.flatnonzero((st.status == ACTIVE) & (np.arange(len(st.kind)) != owner))
    if not len(others):
        return
    before = hexmap.distance_np(st.prev_x[owner], st.prev_z[owner], st.prev_x[others],
                                st.prev_z[others])
    after = hexmap.distance_np(st.x[owner], st.z[owner], st.x[others], st.z[others])
    ship_moved = bool(st.x[owner] != st.prev_x[owner] or st.z[owner] != st.prev_z[owner])
    unit_moved = (st.x[others] != st.prev_x[others]) | (st.z[others] != st.prev_z[others])
    contacts: list[list[Contact]] = [[] for _ in gens]
    entries: dict[int, Entry] = {}
    for i, (gen, ok) in enumerate(zip(gens, live, strict=True)):
        if not ok:
            continue
        r = int(gen.radius)
        # only a unit whose distance reaches the ring can meet it (a cheap filter)
        near = ((before - r) * (after - r) <= 0) & (unit_moved | ship_moved)
        for j in np.flatnonzero(near):
            u = int(others[j])
            entry = esg.field_entry(r, int(before[j]), int(after[j]), ship_moved=ship_moved,
                                    unit_moved=bool(unit_moved[j]))
            if entry == Entry.NONE:
                continue
            entries.setdefault(u, entry)
            contacts[i].append(Contact(unit=u, needed=0, size=_SIZES[int(st.kind[u])],
                                       jumper=entry == Entry.JUMPS))
    if not any(contacts):
        return
    struck = sorted(entries)
    shield_of = {u: _struck_shield(battle, u, owner, entries[u], ship_moved) for u in struck}
    needed = {u: _needed(battle, u, shield_of[u]) for u in struck}
    # (G23.52 step 5) a die breaks ties of size among units striking one field together
    ties = {u: int(battle.rng.integers(1, 7)) for u in struck} if len(struck) > 1 else {}
    contacts = [[Contact(c.unit, needed[c.unit], c.kind, c.size, c.jumper, ties.get(c.unit, 0))
                 for c in group] for group in contacts]
    try:
        new_gens, volley = esg.strike(gens, contacts, st.turn, st.impulse)
    except EsgRuleError as err:  # an engine bug, not a player's order: say which rule broke
        raise RuntimeError(f"ESG contact resolution failed: {err}") from err
    uid = battle.unit_ids[owner]
    for u in struck:
        points = volley.get(u, 0)
        battle.log(ev.EsgStruck(st.turn, st.impulse, uid, battle.unit_ids[u],
                                _CONTACT_NAMES[entries[u]], points, shield_of[u]))
        if points:
            battle.apply_damage(u, shield_of[u], points)
    for w, old, new in zip(rows, gens, new_gens, strict=True):
        store(battle, w, new)
        if old.phase == EsgPhase.ACTIVE and new.phase != EsgPhase.ACTIVE:
            battle.log(ev.EsgDropped(st.turn, st.impulse, uid, battle.weapon_ids[w],
                                     "exhausted"))  # (G23.322)


def _needed(battle: Battle, u: int, shield: int) -> int:
    """(G23.511) Damage points that would still destroy unit ``u`` struck on ``shield``."""
    st = battle.state
    kind = int(st.kind[u])
    if kind in (K_DRONE, K_TARGET_DRONE):
        return max(0, int(battle.scenario.rules["drone_strength"]) - int(st.damage[u]))
    ship = battle.ship_classes[u]
    if ship is not None and ship.freighter is not None:
        return int(st.shields[u, 0]) + max(0, ship.freighter.destroyed_at - int(st.internal[u]))
    if battle.scenario.rules["damage"] == "none":
        return SHIP_NEEDS
    weapons = battle.weapons_of(u)
    left = int(st.boxes[u].sum()) + int((~st.w_destroyed[weapons]).sum())
    return (int(st.shields[u, shield - 1]) if shield else 0) + left


def _direction(x0, z0, x1, z1) -> int | None:
    """Direction 0..5 of the step from (x0, z0) to the adjacent (x1, z1), None if not a step."""
    d = hexmap.DIR_TO_AXIAL
    match = np.flatnonzero((d[:, 0] == x1 - x0) & (d[:, 1] == z1 - z0))
    return int(match[0]) if len(match) else None


def _struck_shield(battle: Battle, u: int, owner: int, entry: Entry, ship_moved: bool) -> int:
    """(G23.513) The shield of ``u`` facing the generating ship, judged as direct fire (D3.4);
    from inside, the opposite one (G23.5131). On an exact boundary, the shield that faced the
    field hex entered: the hex the unit moved into if it moved first (C1.3: slower first), else
    the field hex that the generating ship's move brought onto it (both at once: as if the
    unit moved first)."""
    if not shields.has_facing_shields(battle, u):
        return 0
    st = battle.state
    if st.x[u] == st.x[owner] and st.z[u] == st.z[owner]:
        shield = shields.struck_shield(battle, u, owner, range0=True)  # zero radius (D3.42)
    else:
        hit = np.flatnonzero(hexmap.shields_hit_mask_np(st.x[u], st.z[u], st.facing[u],
                                                        st.x[owner], st.z[owner]))
        shield = int(hit[0]) + 1
        if len(hit) == 2:
            unit_dir = _direction(st.prev_x[u], st.prev_z[u], st.x[u], st.z[u])
            ship_dir = _direction(st.prev_x[owner], st.prev_z[owner], st.x[owner], st.z[owner])
            unit_first = unit_dir is not None and (
                not ship_moved or int(st.speed[u]) <= int(st.speed[owner]))
            if unit_first:
                faced = unit_dir  # the hex it entered lay ahead of its move
            elif ship_dir is not None:
                faced = (ship_dir + 3) % 6  # the field hex came from behind the ship's move
            else:
                faced = None
            if faced is None:
                shield = shields.shield_from(battle, u, st.x[u], st.z[u], st.facing[u],
                                             st.x[owner], st.z[owner], source=owner)
            else:
                want = (faced - int(st.facing[u])) % 6  # shield index facing that hex
                gap = [min((k - want) % 6, (want - k) % 6) for k in hit]
                shield = int(hit[int(np.argmin(gap))]) + 1
    if entry == Entry.ENTERS_FROM_INSIDE:
        shield = (shield + 2) % 6 + 1  # the opposite shield (G23.5131)
    return shield
