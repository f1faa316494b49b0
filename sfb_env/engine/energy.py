"""Energy Allocation (B3.0): the cadet Energy Allocation Form of scenarios 4-6.

Scenario rule ``energy`` (``engine.scenario``): ``chief`` (the Chief Engineer of scenarios 1-3,
SCENARIOS §2.1: nothing here applies), ``cadet`` (this module) or ``off`` (nothing pays any
energy). Under ``cadet`` the form governs every ship a player commands (controller ``agent``);
robot ships "consider every weapon armed every turn" (SCENARIOS §2.5) and freighters have no
allocation, so they stay exempt.

The form (CTH-DATA §7.2), one per ship, at Energy Allocation (the orders given at impulse 0 and
at the last impulse of a turn, with ``Orders.speed``):

* power (line 4) = undestroyed warp + impulse + APR boxes; charged batteries (line 5) may cover
  what line 4 cannot (line 21); unspent energy is lost at the end of the turn.
* movement (line 14): the ship's move cost per hex from **warp**, plus at most one impulse point
  for one hex; APR and batteries never pay movement. The engine always spends the impulse point
  first (it frees a warp point for photons). Speed is open 0..max where acceleration allows it
  (cadet: new <= previous + 8, any deceleration, CTH-DATA §7.3; previous = 0 after a turn of
  tactical maneuvers, C5.4) and warp + 1 impulse can pay it.
* tactical maneuvers (scenario rule ``tactical_maneuvers``; C5.11 "TAC" is written in the
  movement plot, so it takes movement's line and priority): a TAC plot with n warp tactical
  maneuvers (the plotted speed, C5.23) pays n x the warp energy of one hex, never impulse
  energy (C5.22 "Impulse energy may not be used to perform tactical warp maneuvers"), and 1
  impulse engine energy for the sublight maneuver (C5.12 "This energy must come from impulse
  engines"), allocated with the plot: ship power is allocated only on the form, so a ship
  without impulse power has no sublight maneuver that turn. The TAC plot values of the speed
  component open only what warp pays (n <= warp / move cost) and, for n = 0, need an impulse
  box (``tactical_blockers``, read by ``Battle.tactical_plot_blockers``).
* heavy weapons (line 10), one ``ArmOrder`` each (NONE 0 / ARM 1 / HOLD 2; a PPD takes the
  six ``ppd_fire.PpdArm`` values, adding the E11.25 underload and hold-and-top-up):

  ==========  =================  =========================================================
  weapon      arming (per turn)  holding
  ==========  =================  =========================================================
  disruptor   2, any source      none: armed for the turn it is paid (E3.2)
  fusion      2, any source      none (E7.23); not on the turn after it fired (E7.22)
  photon      2 + 2, warp only   1 per turn, any source, or ejected (E4.2); fires from the
                                 2nd arming turn on; an unfinished cycle is lost
  plasma-S    2, 2, 4            2 per turn (FP1.22); HOLD on the last arming turn pays 2 and
                                 rolls the cycle (rolling delay: the 1st turn's 2 is dropped)
  plasma-R    2, 2, 5            cannot be held: an unlaunched torpedo is ejected (FP2.0)
  plasma-F    1, 1, 3            1 per turn (FP2.0)
  ESG         ARM tops the generator up to its capacity (G23.21, G23.22), any source
  PPD         4 + 4 (E11.21)     2 per turn (E11.22); priced and kept by ``engine.ppd_fire``
  ==========  =================  =========================================================

  No torpedo is armed at the start (FP1.23, scenario 6). ``st.w_arm_stage`` counts the arming
  turns paid in the current cycle; ``st.w_armed`` says the weapon holds a charge it may fire or
  launch (a launch or a shot clears it; the next allocation then starts a new cycle).
* phaser capacitor (line 9, H6.0-H6.2): whole points in, up to its capacity (the sum of one
  firing of every phaser); energy stays across turns; each shot draws Ph-1/Ph-2 1, Ph-3 1/2,
  Ph-G 1/4 (E2.1, E2.152). A phaser cannot fire without that much in the capacitor.
* cloak (line 19, G13.0 cadet rule): decided at Energy Allocation for the whole turn, paying
  the ship's cloak cost; only ships with a cloak, where ``rules.cloak`` is in force. This module
  sets ``st.cloaked`` / ``st.cloaked_before``; ``engine.cloak`` applies the effects. Under
  ``rules.cloak: standard`` the same order is the standard rule's turn-to-turn decision: paying
  after an uncloaked turn fades out on impulses 1-4, not paying after a cloaked turn fades in.
* batteries (lines 5, 6, 16, 21): charged at the start; discharged to cover the form's excess
  over line 4; 1 energy from ship power recharges 1 empty battery. Destroyed batteries are taken
  from the empty ones first.
* fractional accounting (B3.2, ``rules.fractional_accounting``, ``engine.fractional``): off,
  every line rounds up item by item (movement: ceil(hexes x move cost)); on, the form's pools
  are exact fractions, only the turn total rounds up, and a battery may hold a fraction
  (``st.battery_fraction``).

Clamp. Masks and ``validate`` judge each component alone (a value is legal if the rules allow
it with the power the ship has); the joint budget is settled here. An allocation that asks for
more than the ship has is paid item by item in this priority, an item that cannot be paid in
full is dropped (partly paid where noted), its cost is added to ``st.energy_shortfall`` and an
``EnergyShortfall`` event names it; the env reports the total in ``infos[agent]
["energy_shortfall"]``:

1. movement, or a TAC plot's tactical maneuvers (never dropped: the speed mask only opens
   speeds and TAC plots the engines can pay);
2. holding costs and plasma rolling delays (a loaded weapon is worth the most);
3. arming continuations (photon 2nd turn, plasma 2nd and 3rd turns);
4. new arming (1st arming turn, disruptors, fusion beams), in weapon order;
   4b. the suicide shuttle's bomb, holding and arming (J2.221, ``engine.suicide_shuttles``);
5. the cloak;
6. ESG charge (partly paid: whole points);
7. the phaser capacitor (partly paid: whole points);
8. battery recharge: up to the number ordered, from the ship power left over (never battery
   power); the rest is not a shortfall (recharging is what spare power is for).

General costs are drawn from APR, then impulse, then warp (warp is kept for photons, which
only warp can arm), then batteries. Orders are judged at the decision point: a weapon fired in
the same impulse no longer holds a charge, so its HOLD lapses without cost, and a fusion beam
fired on the last impulse cools the next turn, so its ARM lapses without cost (E7.22).

PROPOSALS (the book is silent): a capacitor with room for a fraction takes a whole point and the
excess is lost (no fractional accounting, CTH-DATA §7.3); absent orders (``Orders.arm`` without
a weapon, ``capacitor``/``recharge`` None) mean the standing allocation (keep the speed,
continue or hold every weapon, fill the capacitor, recharge every battery); a destroyed phaser
does not reduce the capacitor (H6.3 not modelled).

The standard form (``energy: standard``, scenarios 7-13; CTH-DATA §7.1, §7.3, §9.2) is the cadet
form plus, right after movement in the clamp priority (priority 1b), life support 1, fire
control 1 and shields 2 per turn, paid automatically (no component). Unpaid shields: the ship's
shields are ignored for the turn, every point goes past them (CTH-DATA §7.4), and no
reinforcement can be bought (D3.34). PROPOSAL (the book is silent): unpaid fire control = no
direct fire and no launch that turn (``fire_blocker``, ``fire_control_blocker``); unpaid life
support has no further effect (an ``EnergyShortfall`` names it). Acceleration: new speed <=
max(2 x previous, previous + 10). Move cost from the ship data (Orion Raider 2/3 a hex, rounded
up without fractional accounting, CTH-DATA §7.3). Cadet ships in a standard battle (scenario 12,
SCENARIOS #12): move cost 1/2, no life support or fire control, shields 1 (they keep the cadet
DAC, ``engine.damage``). Scenario-10 rules on the standard form, each a scenario switch:

* ``reinforcement`` (D3.34): components ``reinforce_general`` (GR points 0..10, 2 energy each,
  D3.341) and ``reinforce[s]`` (specific energy 0..10 on shield #s+1, D3.342; closed on a down
  shield, D3.343), priority 5b after the cloak; ``engine.reinforcement`` absorbs (GR, then
  specific, then boxes, D3.3411) and the rest vanishes at the end of the turn. A shield that
  fell between the orders and the payment takes no specific reinforcement (not paid).
* ``damage_control`` (D9.2): component ``repair`` (0 none, s = shield #s) names the shield at
  Energy Allocation; the engine spends min(rating, 2 x boxes lost on earlier turns), rounded
  down to even, priority 5a; ``engine.damage_control`` restores the boxes at the end of the
  turn. PROPOSAL: one shield a turn (the rating, 4 at most, buys two boxes), so no joint limit
  is left to the clamp; cadet ships among full-size ones have rating 4 (CTH-DATA §7.5).
* ``reserve_power`` (H7.0-H7.3, ``engine.reserve_power``): a phaser whose capacitor holds too
  little fires on battery power (ceil of its draw, H7.2; once a turn all the same, H7.3, by
  E1.5), and, PROPOSAL (no decision point between the roll and the marking), when a volley
  strikes a shield that is up with more points than its reinforcement stops, the owner always
  discharges charged batteries into it as specific reinforcement, one per point left, as
  many as are charged (H7.2; the H7.3 example). A disruptor or fusion beam not armed at
  Energy Allocation may fire armed from charged batteries (2 each, E3.2, E7.21; H7.2,
  CTH-DATA §7.6): ``reserve_armable`` opens the fire predicate, ``pay_shot`` discharges at
  the shot (``ReserveDischarged`` "fire:<weapon>"); the fire rules still limit it (E1.5,
  E7.22 cooling, H7.3 once a turn).
* batteries on the form are reserve power (H7.0), with or without the ``reserve_power``
  switch: they may pay specific reinforcement (H7.2) but never damage control (D9.2 "Energy
  from reserve power (H7.0) cannot be allocated to damage control") nor general reinforcement
  (H7.2 names specific only); ``reserve_power.FORBIDDEN_USES`` says so and
  ``energy_form.batteries_pay`` reads it: the clamp pays those two from ship power (line 4)
  alone, and their masks open only what line 4 can pay.

Where each part lives (this module only gathers them for the Battle facade, the env and tests;
no rule area imports it, ``tests/test_layering.py``):

* ``energy_switches``: which form, which units, when it is open, the fixed standard items;
* ``energy_form``: the form's lines (power, movement cost, arming cycles, capacitor, batteries,
  damage control energy) and the start values;
* ``energy_orders``: the components' open values and the rules that close them, ``validate``;
* ``standing_orders``: the standing allocation (the env's no-op);
* ``energy_allocation``: the clamp, one item per priority (the order:
  ``rule_tables.ENERGY_PAYMENTS``), and the end of the turn;
* ``shield_absorption``: volleys on a ship's shields under the standard form;
* ``fire_energy``: the energy a shot draws (capacitor, reserve power).
"""

from __future__ import annotations

from sfb_env.engine.energy_allocation import (
    Form,
    PaymentItem,
    Purse,
    end_of_turn,
    energy_allocation,
    pay_capacitor,
    pay_cloak,
    pay_esg,
    pay_heavy_weapons,
    pay_movement,
    pay_recharge,
    pay_repair_and_reinforcement,
    pay_systems,
)
from sfb_env.engine.energy_form import (
    ARMING_RULE,
    CADET_ACCELERATION,
    CADET_AMONG_FULL_MOVE_COST,
    CYCLE,
    HEAVY,
    HOLD_COST,
    MAX_IMPULSE_TO_MOVEMENT,
    N_SHIELDS,
    PHASER_DRAW,
    PPD_TURNS,
    REINFORCE_GENERAL_MAX,
    REINFORCE_SPECIFIC_MAX,
    REPAIR_VALUES,
    ROLL_COST,
    SINGLE_TURN,
    STANDARD_ACCELERATION,
    SUBLIGHT_TAC_IMPULSE,
    WARP_ONLY,
    batteries_pay,
    battery_boxes,
    capacitor_room,
    capacitor_values,
    charged,
    cycle_turns,
    dc_rating,
    destroyed_before,
    empty_batteries,
    heavy_rows,
    init_state,
    max_payable_speed,
    max_payable_tactical,
    move_cost,
    movement_cost,
    power,
    previous_speed,
    reach,
    repair_energy,
    stage,
    tactical_cost,
)
from sfb_env.engine.energy_orders import (
    arm_blockers,
    arm_values,
    capacitor_blockers,
    cloak_blockers,
    recharge_blockers,
    reinforce_blockers,
    reinforce_general_blockers,
    repair_blockers,
    speed_blockers,
    tactical_blockers,
    validate,
)
from sfb_env.engine.energy_switches import (
    CADET_AMONG_FULL_SYSTEMS,
    NOT_NOW,
    STANDARD_SYSTEMS,
    allocation_open,
    allocation_turn,
    cadet_among_full,
    cloak_allowed,
    fire_control_blocker,
    governed,
    has_cloak,
    system_costs,
)
from sfb_env.engine.fire_energy import (
    fire_blocker,
    fired,
    pay_shot,
    reserve_arm_ready,
    reserve_armable,
)
from sfb_env.engine.shield_absorption import (
    absorbs,
    apply_shield,
)
from sfb_env.engine.standing_orders import (
    standing_arm,
    standing_speed,
)

_Purse = Purse  # (tests) the form's pools under their former name

__all__ = [
    "ARMING_RULE",
    "CADET_ACCELERATION",
    "CADET_AMONG_FULL_MOVE_COST",
    "CADET_AMONG_FULL_SYSTEMS",
    "CYCLE",
    "Form",
    "HEAVY",
    "HOLD_COST",
    "MAX_IMPULSE_TO_MOVEMENT",
    "NOT_NOW",
    "N_SHIELDS",
    "PHASER_DRAW",
    "PPD_TURNS",
    "PaymentItem",
    "Purse",
    "REINFORCE_GENERAL_MAX",
    "REINFORCE_SPECIFIC_MAX",
    "REPAIR_VALUES",
    "ROLL_COST",
    "SINGLE_TURN",
    "STANDARD_ACCELERATION",
    "STANDARD_SYSTEMS",
    "SUBLIGHT_TAC_IMPULSE",
    "WARP_ONLY",
    "absorbs",
    "allocation_open",
    "allocation_turn",
    "apply_shield",
    "arm_blockers",
    "arm_values",
    "batteries_pay",
    "battery_boxes",
    "cadet_among_full",
    "capacitor_blockers",
    "capacitor_room",
    "capacitor_values",
    "charged",
    "cloak_allowed",
    "cloak_blockers",
    "cycle_turns",
    "dc_rating",
    "destroyed_before",
    "empty_batteries",
    "end_of_turn",
    "energy_allocation",
    "fire_blocker",
    "fire_control_blocker",
    "fired",
    "governed",
    "has_cloak",
    "heavy_rows",
    "init_state",
    "max_payable_speed",
    "max_payable_tactical",
    "move_cost",
    "movement_cost",
    "pay_capacitor",
    "pay_cloak",
    "pay_esg",
    "pay_heavy_weapons",
    "pay_movement",
    "pay_recharge",
    "pay_repair_and_reinforcement",
    "pay_shot",
    "pay_systems",
    "power",
    "previous_speed",
    "reach",
    "recharge_blockers",
    "reinforce_blockers",
    "reinforce_general_blockers",
    "repair_blockers",
    "repair_energy",
    "reserve_arm_ready",
    "reserve_armable",
    "speed_blockers",
    "stage",
    "standing_arm",
    "standing_speed",
    "system_costs",
    "tactical_blockers",
    "tactical_cost",
    "validate",
]
