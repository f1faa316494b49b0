"""The Sequence of Play (B2.0): the only module that knows the order of the steps.

Turn: arrivals (units entering the map this turn, ``engine.unit_rules``) -> Energy Allocation
(the Chief Engineer of scenarios 1-3; the cadet form of ``engine.energy``, B3.0, is paid once
Speed Determination has applied the speed orders, as the form pays for that speed; then unpaid
tractor links lapse and towing speeds are set, G7.0) -> Speed Determination -> Sensor Lock-On
(rule ``lock_on``, D6) -> impulses 1..I -> End of Turn.
Impulse: Move Ships -> Move Seeking Weapons -> Resolve Seeking Weapons -> Cloak/Uncloak (rule
``cloak: standard``, G13) -> Tractor Beams (rule ``tractors``, G7.0) -> Launch Seeking Weapons
-> Shields/Transporters (rule ``transporters``: shield drops, then transporters, G8.24, G8.0)
-> Launch Shuttlecraft (fighters J4.34, then suicide shuttles J2.22) -> Fire Direct-Fire ->
Resolve Direct-Fire -> End of Impulse (drone endurance and control, tractor links checked G7.0,
survivors board CTH-DATA §12.4, suicide shuttles without target J2.22) -> disengagement by
announcement (rule ``disengage_by_announcement``, SCENARIOS #5).
Inside Move Ships: monsters first (scenario 11, C1.3), then ships and shuttles, units held in
tractor beams with their holders (G7.0), fighters (J4.12), seeking weapons and suicide shuttles
(F2.0, J2.22), units in a planet hex destroyed (P2.0), tactical maneuvers (C1.3), the damage of
expanding sphere fields met in that movement (G23.512, G23.514); after all movement lab ranges
(G4.0) and the monster's plasma shots and close-in defence (scenario 11).
ESG announcements, cancellations and drops belong to Launch Seeking Weapons (G23.31, G23.33,
G23.47), before any drone leaves its rack; they run first in the impulse's second half, which
is the same as long as no ESG interacts with Cloak/Uncloak or Tractor Beams (G23.62, G23.66).
In Fire Direct-Fire the PPD pulses come first, each its own volley (E11.31, E11.332;
``engine.ppd_fire``), then the other direct fire, then probes (G5.12, G5.33) and the monster's
once-per-turn shot (scenario 11).
End of Turn: damage control repairs and reinforcement ends (D9.2, D3.341), fighters aboard
repair (J4.48), the Klingon mutiny roll (G6.2), boarding-party combat (rule ``boarding``, D7.0),
unfired anti-matter probes lost (G5.32), lab research and the research rolls (G4.0).

Decision points (DESIGN.md "The decision cycle"): a decision at impulse i is taken after its
movement and seeking-weapon resolution. ``advance`` carries out, with the orders of impulse i,
its launch, fire and end of impulse (end of turn after the last), then the movement and seeking
steps of the next impulse, and stops at the next decision point.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env.engine import (
    boarding,
    cloak,
    direct_fire,
    disengagement,
    energy_allocation,
    esg_field,
    labs,
    movement,
    mutiny,
    planet_killer,
    planets,
    ppd_fire,
    probes,
    robots,
    rule_tables,
    seeking,
    sensors,
    shield_absorption,
    small_craft,
    suicide_shuttles,
    tractors,
    transporters,
    unit_rules,
    victory,
)
from sfb_env.engine import events as ev
from sfb_env.engine.types import ACTIVE, TACTICAL_MANEUVERS, Maneuver, Orders, UnitKind

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

SHIP_KINDS = (UnitKind.SHIP, UnitKind.FREIGHTER)
SEEKING_KINDS = (UnitKind.DRONE, UnitKind.TARGET_DRONE, UnitKind.PLASMA)  # (F2.0, FP1.4)


def start(battle: Battle) -> None:
    """Turn 1 up to the first decision point ("impulse 0")."""
    st = battle.state
    st.turn, st.impulse = 1, 0  # turn 1's Speed Determination runs with the impulse-0 orders


def advance(battle: Battle, orders: dict[int, Orders]) -> None:
    """Finish impulse i with ``orders``, then run impulse i+1 up to its decision point."""
    st = battle.state
    rules = battle.rules
    if rules.reserve_power:  # (H7.1) batteries kept out of struck shields, or not, till next
        shield_absorption.keep_reserve(battle, orders)
    if st.impulse >= 1:
        if rules.reinforcement:  # (D3.3411 note) held general reinforcement switched on
            shield_absorption.switch_on_general(battle, orders)
        # (G23.32, G23.31) the generators' own timing runs every impulse
        if battle.rules.esg_in_play:
            if rules.reserve_power:  # (G23.212, H7.1) batteries into the generators first
                esg_field.reserve_step(battle, orders)
            esg_field.launch_step(battle, orders)
        if battle.rules.standard_cloak and st.impulse < st.impulses_per_turn:
            cloak.cloak_step(battle, orders)  # (B2.0 advanced, G13) Cloak/Uncloak
        if battle.rules.tractors:  # (B2.0 advanced, G7.0) Tractor Beams
            tractors.tractor_step(battle, orders)
        if rules.seeking_weapons and rules.launch_seeking_weapons:
            _launch_seeking_weapons(battle, orders)
        if rules.transporters:  # (B2.0 advanced) Shields/Transporters: drops, G8.0, G8.24
            transporters.step(battle, orders)
        # (J4.34) launch shuttlecraft: fighters leave their carriers
        if battle.rules.small_craft_in_play:
            small_craft.launch_step(battle, orders)
        if battle.rules.suicide_shuttles:  # (J2.22) armed suicide shuttles leave their bays
            suicide_shuttles.launch_step(battle, orders)
        _fire_direct_fire(battle, orders)
        _end_of_impulse(battle)
        if rules.disengage_by_announcement:  # (SCENARIOS #5) after the fire, at once
            disengagement.end_of_impulse(battle, orders)
        if _check_end(battle, time_up=False):
            return
    if st.impulse in (0, st.impulses_per_turn):
        if st.impulse == st.impulses_per_turn:
            _end_of_turn(battle)
            if _check_end(battle, time_up=st.turn > battle.max_turns):
                return
        if battle.rules.arrivals:  # units entering the map this turn (engine.unit_rules)
            unit_rules.arrivals(battle)
        if battle.rules.esg_in_play:  # (B2.0 Energy Allocation) the Chief Engineer charges ESGs
            esg_field.energy_allocation(battle)
        _speed_determination(battle, orders)
        if battle.rules.energy_form:  # (B3.0) the form pays for the speed just set
            energy_allocation.energy_allocation(battle, orders, rule_tables.ENERGY_PAYMENTS)
        if battle.rules.tractors:  # (G7.0) unpaid links lapse; towing speeds (CTH-DATA §7.3)
            tractors.start_turn(battle)
        if battle.rules.lock_on:  # (B2.0 advanced sequence, D6) Sensor Lock-On
            sensors.lock_on_step(battle)
        st.impulse = 1
    else:
        st.impulse += 1
    _move_ships(battle, orders)
    if battle.rules.tractors:  # (G7.0) held units move parallel to their holders
        tractors.tow(battle)
    if battle.rules.small_craft_in_play:  # (J4.12) after all ships, before seeking weapons
        small_craft.move_fighters(battle)
    _move_seeking_weapons(battle)
    if battle.rules.suicide_shuttles:  # (J2.22, F2.0) suicide shuttles home as drones do
        suicide_shuttles.move(battle)
    # (P2.0) ships and seeking weapons in a planet hex are destroyed
    if battle.rules.planets_in_play:
        planets.movement_step(battle)
    if rules.tactical_maneuvers:
        _tactical_maneuvers(battle, orders)
    if battle.rules.esg_in_play:  # (G23.512, G23.514) judged in movement, resolved after TACs
        esg_field.resolve_contacts(battle)
    # (G4.0) lab ranges; (scenario 11) plasma shots, close-in defence
    if battle.rules.monster_in_play:
        planet_killer.after_movement(battle)
    if rules.seeking_weapons:
        seeking.resolve_impacts(battle)
    _check_end(battle, time_up=False)


# ---------------------------------------------------------------------- turn steps


def _speed_determination(battle: Battle, orders: dict[int, Orders]) -> None:
    """(B2.0 Speed Determination) Chief Engineer speeds; the player's pick in scenario 3;
    freighters slowed by damage from the start of the next turn (R1.6)."""
    st = battle.state
    tactical_rule = battle.rules.tactical_maneuvers
    for u in np.flatnonzero(st.status == ACTIVE):
        order = orders.get(int(u))
        plot = tactical_rule and bool(order.tactical if order is not None else st.tactical[u])
        movement.start_turn_tactical(battle, int(u), plot)  # before the speed changes (C5.4)
        if order is not None and order.speed is not None:
            st.speed[u] = order.speed
        if battle.controllers[u] != "agent":
            robots.start_turn(battle, int(u))  # (SCENARIOS §2.5) robot ship speed and arming
        ship = battle.ship_classes[u]
        if ship is not None and ship.freighter is not None:
            # (R1.6) the scenario's speed less the loss for the internal damage taken so far
            fr, internal = ship.freighter, int(st.internal[u])
            lost = max((loss for at, loss in fr.speed_reductions if internal >= at), default=0)
            st.speed[u] = max(0, int(battle.start_speed[u]) - lost)
        if int(st.kind[u]) in SHIP_KINDS:
            battle.log(ev.SpeedSet(st.turn, 0, battle.unit_ids[u], int(st.speed[u])))
            if st.tactical[u]:
                battle.log(ev.TacticalPlotted(st.turn, 0, battle.unit_ids[u], int(st.speed[u])))


def _end_of_turn(battle: Battle) -> None:
    st = battle.state
    # (D9.2) damage control repairs; (D3.341) reinforcement ends
    energy_allocation.end_of_turn(battle)
    if battle.rules.small_craft_in_play:  # (J4.48) fighters aboard the whole turn repair one point
        small_craft.end_of_turn(battle)
    if battle.rules.mutiny:
        mutiny.end_of_turn(battle)  # (G6.2) the end-of-turn mutiny roll
    if battle.rules.boarding:
        boarding.end_of_turn(battle)  # (D7.0) boarding-party combat, after the mutiny roll
    if battle.rules.probes_in_play:  # (G5.32) an unfired anti-matter probe is lost
        probes.end_of_turn(battle)
    if battle.rules.research:  # (G4.0) the turn's research and the research rolls
        labs.end_of_turn(battle)
    battle.log(ev.TurnEnded(st.turn, st.impulse))
    st.turn += 1
    st.impulse = 0


# ---------------------------------------------------------------------- impulse steps


def _move_ships(battle: Battle, orders: dict[int, Orders]) -> None:
    """(C1.3) Move Ships: slower units first; equal speeds simultaneously on written orders."""
    st = battle.state
    st.prev_x[:], st.prev_z[:], st.prev_facing[:] = st.x, st.z, st.facing  # (D3.42)
    if battle.rules.monster_in_play:  # (C1.3, scenario 11) monsters move before ships
        planet_killer.move_step(battle)
    moving = movement.movers(battle, (*SHIP_KINDS, UnitKind.SHUTTLE))  # (J1.0) with the ships
    if battle.rules.suicide_shuttles:  # (J2.22, F2.0) suicide shuttles move as seeking weapons
        moving = moving[~st.suicide_launched[moving]]
    plan = {}
    for u in moving:  # orders are fixed before anyone moves (secret, simultaneous)
        order = orders.get(int(u))
        if battle.controllers[u] == "agent":
            plan[int(u)] = order.maneuver if order and order.maneuver else Maneuver.STRAIGHT
        else:
            plan[int(u)] = robots.maneuver(battle, int(u))
    for u in sorted(plan, key=lambda u: (int(st.speed[u]), u)):
        movement.move_unit(battle, u, plan[u])


def _move_seeking_weapons(battle: Battle) -> None:
    """Move Seeking Weapons: each drone and plasma torpedo homes on its target's new hex
    (F2.0, F2.1, FP1.4)."""
    for d in movement.movers(battle, SEEKING_KINDS):
        m = robots.maneuver(battle, int(d))
        if m != Maneuver.NONE:
            movement.move_unit(battle, int(d), m)


def _tactical_maneuvers(battle: Battle, orders: dict[int, Orders]) -> None:
    """(C1.3) Last in Move Ships: units on tactical maneuvers earn their warp maneuvers
    (C5.231, C5.232) and rotate in place as ordered (C5.11, C5.21)."""
    st = battle.state
    for u in np.flatnonzero(st.tactical & (st.status == ACTIVE)):
        u = int(u)
        movement.earn_tactical_maneuver(battle, u)
        order = orders.get(u)
        if order is not None and order.maneuver in TACTICAL_MANEUVERS:
            movement.tactical_maneuver(battle, u, order.maneuver)


def _launch_seeking_weapons(battle: Battle, orders: dict[int, Orders]) -> None:
    """Launch Seeking Weapons: drones leave their racks (FD1.2), plasma torpedoes their
    launchers (FP1.3)."""
    for order in orders.values():
        for rack, target in order.launch.items():  # (FD1.2) the owner's facing, if given
            seeking.launch(battle, rack, target, order.launch_facing.get(rack))
    for rack, target in robots.launch_orders(battle):  # (SCENARIOS §2.5) robot ships
        seeking.launch(battle, rack, target)


def _fire_direct_fire(battle: Battle, orders: dict[int, Orders]) -> None:
    """Fire and Resolve Direct-Fire Weapons, simultaneously for every unit (E1)."""
    shots = [(w, t) for order in orders.values() for w, t in order.fire.items()]
    shots += [(w, t) for order in orders.values()  # (E2.151) a phaser-G's shots 2..4
              for w, more in order.gatling.items() for _, t in sorted(more.items())]
    shots += robots.fire_orders(battle)
    # (J4.32) the fighters' built-in pilots (engine.small_craft)
    if battle.rules.small_craft_in_play:
        shots += robots.craft_fire_orders(battle)
    if battle.rules.ppd_in_play:  # (E11.31, E11.332) PPD pulses first, each its own volley
        pulses = [(w, t) for w, t in shots if ppd_fire.is_ppd(battle, w)]
        shots = [(w, t) for w, t in shots if not ppd_fire.is_ppd(battle, w)]
        ppd_fire.fire_step(battle, orders, pulses)
    if shots:
        direct_fire.resolve_fire(battle, shots)
    if battle.rules.probes_in_play:  # (G5.12, G5.33) probes launch in the Direct-Fire step
        probes.fire_step(battle, orders)
    if battle.rules.monster_in_play:  # (scenario 11) the monster's once-per-turn shot
        planet_killer.fire_step(battle)


def _end_of_impulse(battle: Battle) -> None:
    """End of Impulse: drone endurance and control (FD1.4, FD1.3)."""
    seeking.end_of_impulse(battle)
    if battle.rules.tractors:  # (G7.0) links of units gone or beams destroyed end
        tractors.check_links(battle)
    if battle.rules.planets_in_play:  # (CTH-DATA §12.4) survivors board; shuttles bring them home
        small_craft.lift_survivors(battle)
    # (J2.22 PROPOSAL [P-075]) suicide shuttles that lost target or control
    if battle.rules.suicide_shuttles:
        suicide_shuttles.end_of_impulse(battle)


def _check_end(battle: Battle, time_up: bool) -> bool:
    verdict = victory.evaluate(battle, time_up)
    if verdict is None:
        return False
    st = battle.state
    st = battle.state
    st.done = True
    st.time_up = time_up
    st.outcome, st.end_reason = verdict
    battle.log(ev.BattleEnded(st.turn, st.impulse, battle.outcome, battle.end_reason))
    return True
