"""The Sequence of Play, compiled (tier 1): ``advance`` is ``engine.procedure.advance``.

The ported tiers switch on none of the advanced steps (tractors, transporters, small craft)
but tactical maneuvers (C5: ``compiled.maneuvers``), disengagement by announcement, the ESG
(``compiled.esg``), the standard cloak (``compiled.cloak``) and the Energy Allocation Forms
(``compiled.energy``: after Speed Determination, as the form pays for that speed), so an
impulse is: the generators' orders and timing (G23.31-G23.47) -> Cloak/Uncloak (G13) -> Launch
Seeking Weapons (the robot ships' drones after the agents') -> Fire and Resolve Direct-Fire
(the PPD pulses first, then the agents' orders, then the robots': ``compiled.robot_ship``) ->
End of Impulse -> disengagement by announcement (SCENARIOS #5) -> the verdict; on the last
impulse End of Turn and the verdict at the turn limit; then the Chief Engineer's ESG charge
(G23.21), Speed Determination and Energy Allocation (and the standard cloak's announcements,
G13) on a new turn; then the pilots' and robot ships' plans, Move Ships -> Move Seeking Weapons
-> tactical maneuvers (C1.3, C5) -> the ESG fields' contacts (G23.512) -> Resolve Seeking Weapons
-> the verdict. Each step is the rule area's own kernel (``compiled.movement``,
``compiled.maneuvers``, ``compiled.energy``, ``compiled.esg``, ``compiled.ppd``,
``compiled.fire``, ``compiled.seeking_impacts``, ``compiled.plasma``, ``compiled.ending``).

Speed: the step's kernels are compiled without numba's reference counting (``_nrt=False``: a
function taking a namedtuple of arrays otherwise increfs and decrefs each array per call).
They allocate nothing (numba refuses an allocation there at compile time): their scratch is
``ObserveTables.work`` / ``fwork`` and ``FireTables.work``, so one kernel at a time may use a
set of tables; every array they touch belongs to their caller.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb

from sfb_env.compiled import boarding as boarding_mod
from sfb_env.compiled import (
    cloak,
    damage,
    ending,
    energy,
    engineering,
    esg,
    fire,
    handle,
    maneuvers,
    movement,
    observe,
    planet_killer,
    planets,
    plasma,
    ppd,
    robot_ship,
    robots,
    seeking_impacts,
    sensors,
    small_craft,
    suicide_flight,
    suicide_shuttles,
    tractors,
    transporters,
    unit_rules,
)
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine.setup import BattleSetup
from sfb_env.engine.types import ACTIVE, NOT_ARRIVED

StepTables = namedtuple("StepTables", ("move", "fire", "end", "observe", "launch_seeking",
                                       "seeking_weapons", "plasma", "energy", "ppd", "esg",
                                       "cloak", "craft", "robot", "tractor", "transport",
                                       "boarding", "suicide", "monster"))


def step_tables(setup: BattleSetup, observe_tables) -> StepTables:
    """Every kernel's static tables for ``setup`` (``observe_tables``: the env side's, whose
    fire predicate the robots' fire orders read)."""
    rules = setup.rules
    return StepTables(movement.move_tables(setup), damage.fire_tables(setup),
                      ending.end_tables(setup), observe_tables,
                      bool(rules.seeking_weapons and rules.launch_seeking_weapons),
                      bool(rules.seeking_weapons), bool(rules.plasma_in_play),
                      energy.energy_tables(setup), bool(rules.ppd_in_play),
                      esg.esg_tables(setup), bool(rules.standard_cloak),
                      small_craft.craft_tables(setup), robot_ship.robot_tables(setup),
                      tractors.tractor_tables(setup),
                      transporters.transporter_tables(setup),
                      boarding_mod.boarding_tables(setup),
                      suicide_shuttles.suicide_tables(setup),
                      planet_killer.monster_tables(setup))


@kernel(_nrt=False, error_model="numpy")
def _robot_fire(s, tb, b: int, o, pw) -> None:
    """(robots.fire_orders) the convoy freighters' shots, after the players' (SCENARIOS
    §2.4), judged by the fire predicate (``direct_fire.fire_blockers``); called where one is
    due (``robots.robot_fire_due``). The ``legal`` matrix lives in the scratch
    ``ObserveTables.work``."""
    n_w, n_u = s.w_owner.shape[1], s.kind.shape[1]
    legal = tb.observe.work[:n_w * n_u].reshape((n_w, n_u))
    ft = tb.fire
    now = (s.turn[b] - 1) * ft.ipt + s.impulse[b]
    for w in range(n_w):
        ready = observe.weapon_ready_pinned(pw, s, tb.observe, b, w)
        for t in range(n_u):
            legal[w, t] = ready and observe.fire_open(s, tb.observe, b, w, t)
            if legal[w, t] and ft.lock_on:  # (D6) the effective range: doubled without
                f = s.w_owner[b, w]  # lock-on, plus the scanner (cloak.effective_range)
                rng = robots.distance(s.x[b, f], s.z[b, f], s.x[b, t], s.z[b, t])
                legal[w, t] = sensors.effective_range(
                    s.locked_on, s.cloaked, s.esg_struck_at, s.dac_boxes, ft.scanner_of, b, f,
                    t, rng, now) <= s.w_max_range[b, w]
    robots.robot_fire_orders(s, tb.move, b, o.fire, legal)


@kernel(_nrt=False, error_model="numpy")
def _craft_fire(s, ft, ot, ct, b: int, fire_out, pw) -> None:
    """(robots.craft_fire_orders, [P-087]) the small craft pilots' shots, after the agents' and
    the robots' orders: ``small_craft.craft_fire_orders`` given the fire predicate's rows of
    the craft guns (``direct_fire.fire_mask``: the gun ready, J4.32 / J1.0 ``gun_open``; the
    target code open, its arc or close combat, J4.51; the effective range with lock-on, D6,
    and the standard cloak, G13) in the scratch ``CraftTables.legal``."""
    n_u = s.kind.shape[1]
    legal = ct.legal
    now = (s.turn[b] - 1) * ft.ipt + s.impulse[b]
    a = small_craft.craft_view(s)
    for f in range(n_u):
        w = ct.gun[f]
        if w < 0 or s.status[b, f] != ACTIVE:
            continue
        ready = (observe.weapon_ready_pinned(pw, s, ot, b, w)
                 and small_craft.gun_open(a, ct, b, w))
        for t in range(n_u):
            legal[w, t] = ready and _craft_gun_open(s, ft, ot, ct, b, w, f, t, now)
    small_craft.craft_fire_orders(a, ct, b, fire_out, legal)


@nb.njit(cache=True, inline="always")
def _craft_gun_open(s, ft, ot, ct, b, w, f, t, now) -> bool:
    """``direct_fire.target_codes(...) == OPEN`` for craft gun ``w`` (of craft ``f``) at ``t``:
    in arc or in close combat (J4.51), the range effective as ``fire._shot`` counts it."""
    if s.status[b, t] != ACTIVE or s.side[b, t] == s.side[b, f]:
        return False
    if ct.planets.on and planets.fire_blocked(ct.planets, s.x, s.z, b, f, t):
        return False  # (P2.0) nothing in a planet hex fires out of it ([P-110]), nor into one
    rng = robots.distance(s.x[b, f], s.z[b, f], s.x[b, t], s.z[b, t])
    if ct.carrier[t] >= 0 and rng > 5:  # (J4.47, J1.35)
        return False
    if ft.standard_cloak:
        effective = cloak.effective_range(s.locked_on, s.cloaked, s.esg_struck_at,
                                          s.cloak_announced_at, s.dac_boxes, ft.scanner_of,
                                          fire._SCANNER, ft.lock_on, b, f, t, rng, now)
    elif ft.lock_on:
        effective = sensors.effective_range(s.locked_on, s.cloaked, s.esg_struck_at,
                                            s.dac_boxes, ft.scanner_of, b, f, t, rng, now)
    else:
        effective = fire.cloak_range(rng, s.cloaked[b, t])
    if effective > s.w_max_range[b, w] or rng < s.w_min_range[b, w]:
        return False
    # arc (D2.1), shared hex (D3.42), else close combat (J4.51)
    return observe.fire_open(s, ot, b, w, t) or small_craft.close_combat(
        small_craft.craft_view(s), ct, b, w, t, rng, s.craft_ccm)


@nb.njit(cache=True, inline="always")
def clear_orders(o, b: int) -> None:
    """No orders for battle ``b`` (maneuver NONE, no speed, no fire, no launch, no phaser-G
    shots). Written only where a value differs: a row fill compiles to a memset call, dearer
    than the compares on rows this short (a few units and weapons), most of which already hold
    no order."""
    _clear_row(o.maneuver, b, 0)
    _clear_row(o.speed, b, -1)
    _clear_row(o.tactical, b, False)
    _clear_row(o.disengage, b, False)
    _clear_row(o.fire, b, -1)
    _clear_row(o.launch, b, -1)
    _clear_row(o.launch_facing, b, -1)
    _clear_row(o.gatling, b, -1)  # (E2.151)
    _clear_row(o.arm, b, -1)
    _clear_row(o.capacitor, b, -1)
    _clear_row(o.recharge, b, -1)
    _clear_row(o.cloak, b, False)
    _clear_row(o.ppd, b, 0)
    _clear_row(o.esg, b, 0)
    _clear_row(o.reinforce_general, b, 0)  # (compiled.engineering: zero-wide rows without
    _clear_row(o.reinforce, b, 0)  # its rules, so nothing to clear then)
    _clear_row(o.reinforce_hold, b, 0)
    _clear_row(o.repair_boxes, b, 0)
    _clear_row(o.reserve_shields, b, 0)
    _clear_row(o.fighters, b, -1)  # (J4.34, J1.0)
    _clear_row(o.shuttles, b, -1)
    _clear_row(o.tractor, b, -1)  # (G7.0: zero-wide without tractors)
    _clear_row(o.transporters, b, 0)  # (G8.0, G8.24: zero-wide without transporters)
    _clear_row(o.transport, b, -1)
    _clear_row(o.drop_shield, b, 0)
    _clear_row(o.suicide, b, -1)  # (J2.22, J2.221)
    _clear_row(o.suicide_arm, b, -1)
    _clear_row(o.probe, b, 0)  # (G5)


@nb.njit(cache=True, inline="always")
def _clear_row(orders, b: int, none) -> None:
    """Row ``b`` of ``orders`` := ``none``, storing only where it differs."""
    for i in range(orders.shape[1]):
        if orders[b, i] != none:
            orders[b, i] = none


@nb.njit(cache=True, inline="always")
def commanded(s, b: int, u: int) -> bool:
    """(knowledge.commanded_by_player) in play (or yet to arrive) and not captured."""
    return (s.status[b, u] == ACTIVE or s.status[b, u] == NOT_ARRIVED) and s.captured_by[b, u] < 0


# the stages of ``advance`` in order (``advance_upto`` stops after one of them)
STAGES = ("launch", "robot fire", "direct fire", "end of impulse + check",
          "speed + move ships", "move seeking", "resolve seeking + check")
ALL_STAGES = len(STAGES)


# The arguments of the stages' hottest calls out of line, by address: numba passes a tuple
# argument member by member, so a call taking some fifty arrays' views copied hundreds of
# words onto the stack for each battle (a third of the play kernel's time on
# grad-lyran-vs-hydran). A batch holds them in a handle (``held_calls``); elsewhere they are
# pinned in the caller's frame (``pin_calls``). Each call passes one word.
Pinned = namedtuple("Pinned", "fire energy esg_launch esg_contacts verdict craft_launch "
                               "craft_move robots ready")


@nb.njit(cache=True, inline="always")
def call_args(s, tb, o):
    """The arguments of the stages' calls out of line (a ``Pinned`` of their tuples)."""
    return Pinned(fire.call_args(s, tb.fire, o), energy.call_args(s, tb.energy, o),
                  esg.launch_args(s, tb.esg, o), esg.contacts_args(s, tb.fire, tb.esg),
                  ending.verdict_args(s), small_craft.launch_args(s, tb.craft, o),
                  small_craft.move_args(s, tb.craft), robots.maneuver_args(s, tb.move),
                  observe.ready_args(s))


@nb.njit(cache=True)
def boxed_call_args(s, tb, o):
    """``call_args`` returned to Python: a batch writes them once into a handle of their own
    (``BattleBatch.handle``), and its play kernel passes refs into it (``held_calls``)."""
    return call_args(s, tb, o)


@nb.njit(cache=True, inline="always")
def pin_calls(s, tb, o):
    """The ``Pinned`` arguments of ``s``, ``tb`` and ``o``: pin them once, before the loop
    over battles, in the function that runs the stages (``handle.pin``: the refs are good
    until it returns; a batch's play kernel takes them from a handle instead,
    ``held_calls``, and stores nothing per call)."""
    a = call_args(s, tb, o)
    return Pinned(handle.pin(a.fire), handle.pin(a.energy), handle.pin(a.esg_launch),
                  handle.pin(a.esg_contacts), handle.pin(a.verdict), handle.pin(a.craft_launch),
                  handle.pin(a.craft_move), handle.pin(a.robots), handle.pin(a.ready))


@nb.njit(cache=True, inline="always")
def held_calls(ref):
    """The ``Pinned`` refs into a handle of ``call_args`` (``ref``): one address each."""
    return Pinned(handle.member(ref, 0), handle.member(ref, 1), handle.member(ref, 2),
                  handle.member(ref, 3), handle.member(ref, 4), handle.member(ref, 5),
                  handle.member(ref, 6), handle.member(ref, 7), handle.member(ref, 8))


@nb.njit(cache=True, inline="always")
def advance(s, tb, b: int, o) -> None:
    """(engine.procedure.advance) Finish impulse i with the orders ``o``, then run impulse
    i + 1 up to its decision point: every stage of ``STAGES`` in turn."""
    advance_upto(s, tb, b, o, ALL_STAGES)


@nb.njit(cache=True, inline="always")
def advance_upto(s, tb, b: int, o, upto: int) -> None:
    """``advance`` stopped after stage ``upto`` of ``STAGES`` (1 to ``ALL_STAGES``):
    ``benchmarks/profile_compiled.py`` times each stage as the difference of two cuts."""
    pc = pin_calls(s, tb, o)
    for stage in range(upto):
        if not advance_stage(s, tb, b, o, stage, pc):
            return


@nb.njit(cache=True, inline="always")
def advance_stage(s, tb, b: int, o, stage: int, pc) -> bool:
    """Stage ``stage`` (0 to ``ALL_STAGES - 1``, as ``STAGES``) of ``advance`` for battle
    ``b``; False where the battle ended in it (no later stage runs). ``pc``: ``pin_calls(s,
    tb, o)``. Inline it at one site only (a loop over the stages): each site is a copy of the
    whole impulse."""
    if stage == 0:
        return launch_stage(s, tb, b, o, pc)
    if stage == 1:
        return robot_fire_stage(s, tb, b, o, pc)
    if stage == 2:
        return direct_fire_stage(s, tb, b, o, pc)
    if stage == 3:
        return end_of_impulse_stage(s, tb, b, o, pc)
    if stage == 4:
        return move_ships_stage(s, tb, b, o, pc)
    if stage == 5:
        return move_seeking_stage(s, tb, b, o, pc)
    return resolve_seeking_stage(s, tb, b, o, pc)


# The stages of ``advance`` (``STAGES``), each for battle ``b``: False where the battle ended
# in it. The play kernel runs one stage of every battle, then the next (``batch._play_batch``),
# so that each stage's code stays in the instruction cache from one battle to the next: no
# stage leaves scratch (``ObserveTables.work``, ``MoveTables.pilot_plan``, ...) for a later
# one. On impulse 0 (the turn's start only) the first four do nothing but the engineering
# orders.


@nb.njit(cache=True, inline="always")
def launch_stage(s, tb, b: int, o, pc) -> bool:
    """Stage 1: the engineering orders, then Launch Seeking Weapons and the steps before it."""
    last = tb.end.impulses_per_turn
    if tb.energy.engineering:  # (H7.1, D3.3411 note) the batteries kept, held GR switched on
        engineering.orders_step(o.reserve_shields, o.reinforce_hold, s.reserve_kept,
                                s.reinf_held, s.reinf_general, s.ev, s.ev_count, s.turn[b],
                                s.impulse[b], tb.energy.reserve_power,
                                tb.energy.reinforcement, b)
    if s.impulse[b] < 1:
        return True
    # (G23.31-G23.47) before any drone leaves its rack
    esg.launch_step_pinned(pc.esg_launch, tb.esg, b)
    if tb.cloak and s.impulse[b] < last:  # (B2.0 advanced, G13 standard) Cloak/Uncloak
        cloak.cloak_step(o.cloak, s.status, s.cloaked, s.cloak_paid, s.cloak_announced_at,
                         s.ev, s.ev_count, s.turn[b], s.impulse[b], last,
                         (s.turn[b] - 1) * last + s.impulse[b], b)
    if tb.tractor.on:  # (B2.0 advanced, G7.0) Tractor Beams
        tractors.tractor_step(s, tb.tractor, b, o.tractor, last)
    if tb.robot.on:  # (SCENARIOS §2.5) the robot ships' drones, after the agents' rows
        robot_ship.launch_orders(s, tb.observe, tb.robot, b, o.launch)
    if tb.launch_seeking:
        seeking_impacts.launch_seeking_weapons(s, tb.fire, b, o)
    if tb.transport.on:  # (B2.0 advanced) Shields/Transporters: G8.24 drops, then G8.0
        transporters.step(s, tb.fire, tb.transport, b, o.drop_shield, o.transport, last)
    if tb.craft.on:  # (J4.34, J1.0) Launch Shuttlecraft
        small_craft.launch_step_a(pc.craft_launch, b)
    if tb.suicide.on:  # (J2.22) armed suicide shuttles leave their bays
        suicide_flight.launch_step(tb.suicide, small_craft.craft_view(s), tb.craft, b,
                                   o.suicide)
    return True


@nb.njit(cache=True, inline="always")
def robot_fire_stage(s, tb, b: int, o, pc) -> bool:
    """Stage 2: the robots' and the small craft pilots' fire orders."""
    if s.impulse[b] < 1:
        return True
    if robots.robot_fire_due(s, tb.move, b):
        _robot_fire(s, tb, b, o, pc.ready)
    if tb.robot.on:  # (SCENARIOS §2.5) the robot ships' shots, after the players'
        robot_ship.fire_orders(s, tb.move, tb.observe, tb.robot, b, o.fire)
    if tb.craft.on:  # (J4.32, [P-087]) the small craft's pilots fire after the robots
        _craft_fire(s, tb.fire, tb.observe, tb.craft, b, o.fire, pc.ready)
    return True


@nb.njit(cache=True, inline="always")
def direct_fire_stage(s, tb, b: int, o, pc) -> bool:
    """Stage 3: PPD pulses, Direct Fire, probes, the monster's shot."""
    if s.impulse[b] < 1:
        return True
    if tb.ppd:  # (E11.31, E11.332) PPD pulses first, each its own volley
        ppd.fire_step(s, tb.fire, b, o)
    fire.fire_direct_fire_pinned(pc.fire, b, o)
    if tb.monster.probes:  # (G5.12, G5.33) probes launch in the Direct-Fire step
        planet_killer.probe_fire_step(s, tb.fire, b, o.probe, tb.monster.work)
    if tb.monster.on:  # (scenario 11) the monster's once-per-turn shot
        planet_killer.fire_step(s, tb.fire, tb.monster, b)
    return True


@nb.njit(cache=True, inline="always")
def end_of_impulse_stage(s, tb, b: int, o, pc) -> bool:
    """Stage 4: the end of the impulse's fire, then the check for the battle's end."""
    if s.impulse[b] < 1:
        return True
    last = tb.end.impulses_per_turn
    if tb.plasma:  # (seeking.end_of_impulse) the torpedoes first (FP1.4)
        plasma.end_of_impulse_a(s.status, s.kind, s.w_type, s.launched_at, s.target, s.ev,
                                s.ev_count, s.turn, s.impulse, tb.fire, tb.fire.ipt, b)
    ending.end_of_impulse(s, tb.end, b)
    if tb.tractor.on:  # (G7.0) links of units gone or beams destroyed end
        tractors.check_links(s, tb.tractor, b, last)
    if tb.craft.on and tb.craft.planets.on:  # (CTH-DATA §12.4) survivors board, come home
        small_craft.lift_survivors(small_craft.craft_view(s), tb.craft, b)
    if tb.suicide.on:  # (J2.22 [P-075]) suicide shuttles that lost target or control
        suicide_flight.end_of_impulse(s, b)
    if tb.end.disengage_by_announcement:  # (SCENARIOS #5) after the fire, at once
        ending.disengage_by_announcement(s, tb.end, b, o)
    return not ending.check_end_pinned(s, tb.end, pc.verdict, b, False)


@nb.njit(cache=True, inline="always")
def move_ships_stage(s, tb, b: int, o, pc) -> bool:
    """Stage 5: the End of Turn and the next turn's start where due, the next impulse, then
    the pilots' plans and the units' moves; False where the turn limit ended the battle."""
    last = tb.end.impulses_per_turn
    if s.impulse[b] == 0 or s.impulse[b] == last:
        if s.impulse[b] == last:
            if tb.energy.engineering:  # (D9.2) repairs; (D3.341, D3.342) reinforcement ends
                engineering.end_of_turn(s.status, s.shields, s.dc_repairs, s.reinf_general,
                                        s.reinf_specific, s.reinf_held, s.ev, s.ev_count,
                                        s.turn[b], s.impulse[b], tb.energy.init_shields, b)
            if tb.craft.on:  # (J4.48) fighters aboard the whole turn repair one point
                small_craft.end_of_turn_step(small_craft.craft_view(s), tb.craft, b)
            if tb.fire.mutiny:  # (G6.2) the end-of-turn mutiny roll
                engineering.mutiny_end_of_turn(
                    s.status, s.mutiny, s.dac_boxes, s.captured_by, s.control_stations,
                    s.speed, s.dice, s.ev, s.ev_count, s.turn[b], s.impulse[b],
                    tb.fire.mutiny_shift, tb.fire.captor, b)
            if tb.boarding.on:  # (D7.0) boarding-party combat, after the mutiny roll
                boarding_mod.end_of_turn(s, tb.boarding, b)
            if tb.monster.on or tb.monster.probes:  # (G5.32) probes lost; (G4.0) research
                planet_killer.end_of_turn(s, tb.monster, b)
            ending.end_of_turn(s, tb.end, b)
            if ending.check_end_pinned(s, tb.end, pc.verdict, b,
                                       s.turn[b] > tb.end.max_turns):
                return False
        if tb.observe.arrivals:  # units entering the map this turn (compiled.unit_rules)
            unit_rules.arrivals(s.status, s.x, s.z, s.facing, s.prev_x, s.prev_z,
                                s.prev_facing, s.dice, s.ev, s.ev_count, s.turn[b],
                                tb.observe.arrive_turn, tb.observe.arrive_die, b)
        esg.energy_allocation(s, tb.esg, b)  # (B2.0 Energy Allocation, G23.21)
        movement.speed_determination(s, tb.move, b, o)
        if tb.energy.on:  # (B3.0) the cadet form pays for the speed just set
            energy.energy_allocation_a(pc.energy, b)
            if tb.cloak:  # (G13 standard rule) turn-to-turn announcements
                cloak.start_turn(s.cloaked, s.cloaked_before, s.cloak_paid,
                                 s.cloak_announced_at, s.ev, s.ev_count, s.turn[b], last, b)
        if tb.tractor.on:  # (G7.0) unpaid links lapse; towing speeds (CTH-DATA §7.3)
            tractors.start_turn(s, tb.tractor, b, last)
        if tb.fire.lock_on:  # (B2.0 advanced sequence, D6) Sensor Lock-On
            sensors.lock_on_step(s.status, s.kind, s.launcher, s.locked_on, s.dac_boxes, s.dice,
                                 s.ev, s.ev_count, s.turn, tb.fire.sensor_of, b)
        s.impulse[b] = 1
    else:
        s.impulse[b] += 1
    if tb.craft.on:  # (J1.0) the shuttles' pilots plan before any unit moves
        small_craft.plan_pilots(small_craft.craft_view(s), tb.craft, b, tb.move.pilot_plan)
    if tb.robot.on:  # (SCENARIOS §2.5) so do the robot ships
        robot_ship.plan_moves(s, tb.move, tb.observe, tb.robot, b)
    if tb.monster.on:  # (C1.3, scenario 11) monsters move before ships
        movement.keep_previous(s, b)
        planet_killer.move_step(s, tb.fire, tb.move, tb.monster, b)
        movement.move_units_pinned(s, tb.move, b, o, pc.robots)
    else:
        movement.move_ships_pinned(s, tb.move, b, o, pc.robots)
    if tb.tractor.on:  # (G7.0) held units move parallel to their holders
        tractors.tow(s, tb.tractor, tb.move, b)
    if tb.craft.on:  # (J4.12) the fighters after all ships, before seeking weapons
        small_craft.move_fighters(pc.craft_move, b)
    return True


@nb.njit(cache=True, inline="always")
def move_seeking_stage(s, tb, b: int, o, pc) -> bool:
    """Stage 6: seeking weapons and suicide shuttles move; planets, TACs, ESG contacts."""
    last = tb.end.impulses_per_turn
    movement.move_seeking_weapons_pinned(s, tb.move, b, o, pc.robots)
    if tb.suicide.on:  # (J2.22, F2.0) suicide shuttles home as drones do
        suicide_flight.move(s, tb.move, b)
    if tb.move.planets.on:  # (P2.0) ships and seeking weapons in a planet hex are destroyed
        planets.movement_step(tb.move.planets, s.kind, s.status, s.x, s.z, s.suicide_launched,
                              tb.move.suicide_rule, s.ev, s.ev_count, s.turn[b], s.impulse[b],
                              b)
    if tb.move.tactical_rule:  # (C1.3, C5) last in Move Ships: TACs (compiled.maneuvers)
        maneuvers.tactical_step(s.status, s.tactical, s.tac_earned, s.tac_sublight, s.speed,
                                s.facing, s.straight, s.slip, s.x, s.z, o.maneuver, s.ev,
                                s.ev_count, tb.move.chart, s.turn[b], s.impulse[b], last, b)
    # (G23.512, G23.514) after all movement
    esg.resolve_contacts_pinned(s, pc.esg_contacts, tb.esg, b)
    if tb.monster.on:  # (G4.0) lab ranges; (scenario 11) plasma shots, close-in defence
        planet_killer.after_movement(s, tb.fire, b)
    return True


@nb.njit(cache=True, inline="always")
def resolve_seeking_stage(s, tb, b: int, o, pc) -> bool:
    """Stage 7: seeking weapons reach their targets; the check for the battle's end."""
    if tb.seeking_weapons:
        seeking_impacts.resolve_seeking_weapons(s, tb.fire, b, o)
    return not ending.check_end_pinned(s, tb.end, pc.verdict, b, False)
