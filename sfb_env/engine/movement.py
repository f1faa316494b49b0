"""Movement: facing (C1.2), proportional movement (C1.41), turn modes (C3), sideslip (C4),
tactical maneuvers (C5), leaving the map.

``maneuver_blockers`` is the single legality predicate for a unit's next move: the env's masks
and the engine's order validation both call it.

Sideslip and tactical maneuvers are scenario rules (``rules.sideslip``,
``rules.tactical_maneuvers``, both off by default); where a rule is off its maneuver values are
always blocked with the rule that would allow them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap, impulse, tables
from sfb_env.engine import events as ev
from sfb_env.engine import planets, unit_rules
from sfb_env.engine.types import (
    ACTIVE,
    BASIC_MANEUVERS,
    K_DRONE,
    K_FIGHTER,
    K_PLASMA,
    K_SHUTTLE,
    K_TARGET_DRONE,
    SIDESLIPS,
    TACTICAL_MANEUVERS,
    Box,
    Maneuver,
    Status,
    UnitKind,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle
    from sfb_env.engine.rules import Rules

SATISFIED = 10**6  # (C3.43) every unit starts with its turn mode (and slip mode) satisfied
SLIP_MODE = 1  # (C4.1) every ship at every speed
_TURNS = {Maneuver.TURN_LEFT: -1, Maneuver.TURN_RIGHT: 1}
_SLIPS = {Maneuver.SIDESLIP_LEFT: -1, Maneuver.SIDESLIP_RIGHT: 1}
_TACS = {Maneuver.TACTICAL_LEFT: -1, Maneuver.TACTICAL_RIGHT: 1}


def maneuvers_in_use(rules: Rules) -> tuple[Maneuver, ...]:
    """The maneuver values of a scenario (its maneuver component): NONE..TURN_RIGHT, then the
    two sideslips with ``rules.sideslip`` (C4), and all eight with ``rules.tactical_maneuvers``
    (C5; the sideslips stay blocked there unless ``rules.sideslip`` is on too)."""
    if rules.tactical_maneuvers:
        return tuple(Maneuver)
    return tuple(Maneuver)[: BASIC_MANEUVERS + (2 if rules.sideslip else 0)]


def not_in_use_rule(maneuver: Maneuver) -> str:
    """The rule that a maneuver value needs when the scenario does not use it."""
    if maneuver in TACTICAL_MANEUVERS:
        return "C5.0 tactical maneuvers are not in use in this scenario (rules.tactical_maneuvers)"
    return "C4.0 sideslip is not in use in this scenario (rules.sideslip)"


def turn_mode(battle: Battle, unit: int, speed: int | None = None) -> int:
    """(C3.2, C3.3) Hexes of straight movement needed before a turn, at the unit's speed
    (or at ``speed``)."""
    st = battle.state
    kind = st.kind[unit]
    if kind in (K_DRONE, K_TARGET_DRONE, K_PLASMA):
        return 1  # seeking weapons: turn mode 1 (CTH-DATA §3.2; plasma FP1.4)
    chart = battle.turn_mode_chart[unit]
    s = int(st.speed[unit]) if speed is None else speed
    if kind == K_FIGHTER:
        return 2 if s >= 12 else 1  # (J4.12) Stinger fighters (engine.small_craft)
    if kind == K_SHUTTLE:
        return 1  # (J1.0, CTH-DATA §8.6) administrative shuttles
    return tables.turn_mode(chart, max(s, 1))


def next_move_impulse(battle: Battle) -> int:
    """The impulse whose move the current decision orders (i + 1, or 1 after the last)."""
    st = battle.state
    return 1 if st.impulse in (0, st.impulses_per_turn) else st.impulse + 1


def moves_next(battle: Battle, unit: int, speed: int | None = None) -> bool:
    """Whether the unit moves on the next impulse (at ``speed`` if given: a plain move plotted
    for the next turn). A unit on tactical maneuvers this turn never moves (C5.21)."""
    st = battle.state
    if st.status[unit] != ACTIVE:
        return False
    if speed is None and st.tactical[unit]:
        return False
    s = int(st.speed[unit]) if speed is None else speed
    return impulse.moves_on(s, next_move_impulse(battle), st.impulses_per_turn)


def earns_tactical_maneuver(warp_maneuvers: int, imp: int, impulses_per_turn: int) -> bool:
    """(C5.231) Whether a unit that bought ``warp_maneuvers`` warp tactical maneuvers earns one
    on impulse ``imp``: the first on impulse 2, then on every impulse the chart moves that speed
    after impulse 2, except the last impulse of the turn (4 on 32 impulses: 2, 8, 16, 24)."""
    if warp_maneuvers < 1:
        return False
    if imp == 2:
        return True
    return 2 < imp < impulses_per_turn and impulse.moves_on(
        warp_maneuvers, imp, impulses_per_turn)


def tactical_blocker(battle: Battle, unit: int) -> str | None:
    """The rule forbidding a tactical maneuver (60 degree rotation in place) on the unit's next
    impulse, or None: a warp one earned and unused (C5.231, C5.232) or earned on that impulse,
    else the turn's one sublight maneuver (C5.11), never on the first impulse."""
    st = battle.state
    if not battle.rules.tactical_maneuvers:
        return "C5.0 tactical maneuvers are not in use in this scenario (rules.tactical_maneuvers)"
    nxt = next_move_impulse(battle)
    if nxt == 1:
        return "C5.11 no tactical maneuver on the first impulse of a turn"
    if not st.tactical[unit] or st.status[unit] != ACTIVE:
        return "C5.11 the unit did not plot tactical maneuvers (TAC) this turn"
    if st.tac_earned[unit] or earns_tactical_maneuver(int(st.speed[unit]), nxt,
                                                      st.impulses_per_turn):
        return None
    if st.tac_sublight[unit]:
        return None
    return (f"C5.231 no warp tactical maneuver earned for impulse {nxt} and no sublight one "
            "left (C5.11 one a turn, C5.12 paid with impulse energy)")


def maneuver_blockers(
    battle: Battle, unit: int, can_move: bool, speed: int | None = None
) -> dict[Maneuver, str]:
    """Maneuvers the unit may not order for its next move, each with the rule that forbids it
    (only the values of ``battle.maneuvers``, the scenario's maneuver component).

    ``can_move``: whether the unit moves on that impulse (C1.41). A unit that does not move may
    only order NONE, or a tactical maneuver where one is open (C5, see ``tactical_blocker``); a
    unit that moves may go straight, turn once its turn mode (at its current speed, or at
    ``speed``) is met (C3.2; the hex entered on the turn counts as the first straight hex, C3.4;
    the count carries over turns, C3.41/C3.42), or sideslip once its slip mode 1 is met (C4.1;
    a turn and a slip are two different values, so never both on one impulse, C4.33).
    """
    st = battle.state
    rules = battle.rules
    in_use = battle.maneuvers
    if not can_move:
        if speed is None and st.tactical[unit] and next_move_impulse(battle) != 1:
            rule = "C5.21 a unit on tactical maneuvers stays in its hex this turn"
        else:
            rule = "C1.41 the impulse chart does not move this unit on the next impulse"
        blocked = {m: rule for m in in_use[1:] if m not in TACTICAL_MANEUVERS}
    else:
        blocked = {Maneuver.NONE: "C1.41 the unit moves on the next impulse: order its move"}
        need = turn_mode(battle, unit, speed)
        have = int(st.straight[unit])
        if have < need:
            hexes = "hex" if have == 1 else "hexes"
            rule = f"C3.2 turn mode {need} not satisfied ({have} {hexes} straight)"
            blocked[Maneuver.TURN_LEFT] = rule
            blocked[Maneuver.TURN_RIGHT] = rule
        if rules.sideslip and int(st.slip[unit]) < SLIP_MODE:
            rule = ("C4.1 sideslip mode 1 not satisfied (0 hexes straight since the last "
                    "sideslip or turn)")
            blocked[Maneuver.SIDESLIP_LEFT] = rule
            blocked[Maneuver.SIDESLIP_RIGHT] = rule
    if can_move and battle.rules.may_not_leave:  # (scenario may_leave: false)
        blocked.update(unit_rules.exit_blockers(
            battle, unit, [m for m in in_use if m not in blocked and m not in TACTICAL_MANEUVERS]))
    if len(in_use) > BASIC_MANEUVERS:  # only the values of the scenario's component
        if not rules.sideslip:  # (tactical maneuvers on, sideslip off)
            for m in SIDESLIPS:
                blocked[m] = not_in_use_rule(m)
        if rules.tactical_maneuvers:
            tac_rule = tactical_blocker(battle, unit)
            if tac_rule is not None:
                for m in TACTICAL_MANEUVERS:
                    blocked[m] = tac_rule
    if battle.rules.planets_in_play:  # (P2.0) ships may not enter a planet hex
        blocked = planets.maneuver_blockers(battle, unit, blocked)
    return blocked


def move_unit(battle: Battle, unit: int, maneuver: Maneuver) -> None:
    """Move one unit one hex: turn first if ordered (C3.1), then enter the hex in front; or
    sideslip into the forward-left / forward-right hex keeping the facing (C4.2)."""
    st = battle.state
    turned = _TURNS.get(maneuver, 0)
    slipped = _SLIPS.get(maneuver, 0)
    if turned:
        st.facing[unit] = (st.facing[unit] + turned) % 6
        st.straight[unit] = 0  # (C3.4) the hex entered on the turn counts as the first
        st.slip[unit] = 0  # ... for the slip mode too (C4.33 example)
    nx, nz = hexmap.neighbor_np(st.x[unit], st.z[unit], (st.facing[unit] + slipped) % 6)
    src = battle.label(unit)
    facing = hexmap.DIRECTION_LETTERS[int(st.facing[unit])]
    if not battle.in_area(nx, nz):
        if unit_rules.leaves_voluntarily(battle, unit):  # (scenario may_leave: false)
            battle.log(ev.StayedOnMap(st.turn, st.impulse, battle.unit_ids[unit], src))
            return
        st.status[unit] = Status.DISENGAGED
        battle.log(ev.LeftMap(st.turn, st.impulse, battle.unit_ids[unit], src, facing))
        return
    st.x[unit], st.z[unit] = int(nx), int(nz)
    # (C3.41) carries over turns; (C4.32) a slip counts as straight movement for the turn mode
    st.straight[unit] = min(int(st.straight[unit]) + 1, SATISFIED)
    # (C4.31) the hex entered by a slip does not count toward the next slip
    st.slip[unit] = 0 if slipped else min(int(st.slip[unit]) + 1, SATISFIED)
    battle.log(ev.Moved(st.turn, st.impulse, battle.unit_ids[unit], src, battle.label(unit),
                        facing, turned, slipped))


def earn_tactical_maneuver(battle: Battle, unit: int) -> None:
    """(C5.231, C5.232) Earn a warp tactical maneuver on this impulse if the chart says so; an
    earned one still unused is lost (the unit holds one at most)."""
    st = battle.state
    if earns_tactical_maneuver(int(st.speed[unit]), st.impulse, st.impulses_per_turn):
        st.tac_earned[unit] = True


def tactical_maneuver(battle: Battle, unit: int, maneuver: Maneuver) -> None:
    """Rotate 60 degrees in place (C5.11, C5.21): with the earned warp maneuver if there is one,
    else with the turn's sublight maneuver (one maneuver an impulse, C5.3). The turn and slip
    counts restart from zero (C5.4)."""
    st = battle.state
    if st.tac_earned[unit]:
        st.tac_earned[unit] = False
        kind = "warp"
    elif st.tac_sublight[unit]:
        st.tac_sublight[unit] = False
        kind = "sublight"
    else:  # validated when ordered; nothing left (cannot happen through Battle.step)
        return
    turned = _TACS[maneuver]
    st.facing[unit] = (st.facing[unit] + turned) % 6
    st.straight[unit] = 0
    st.slip[unit] = 0
    battle.log(ev.TacticalManeuver(st.turn, st.impulse, battle.unit_ids[unit], battle.label(unit),
                                   hexmap.DIRECTION_LETTERS[int(st.facing[unit])], turned, kind))


def start_turn_tactical(battle: Battle, unit: int, tactical: bool) -> None:
    """Speed Determination for one unit: set this turn's TAC plot (C5.11, C5.23). After a turn
    of tactical maneuvers the unit counts as having had speed 0 (for acceleration) and its turn
    and slip counts restart from zero (C5.4). An earned warp maneuver is not carried into the
    next turn (PROPOSAL [P-035]: C5.22 counts them per turn)."""
    st = battle.state
    if st.tactical[unit]:
        st.previous_speed[unit] = 0
        st.straight[unit] = 0
        st.slip[unit] = 0
    else:
        st.previous_speed[unit] = st.speed[unit]
    st.tactical[unit] = tactical
    st.tac_earned[unit] = False
    # (C5.12) the sublight maneuver is paid with impulse engine energy (Chief Engineer; on the
    # Energy Allocation Form the payment sets it again, energy_allocation._pay_tactical)
    st.tac_sublight[unit] = tactical and st.boxes[unit, Box.IMPULSE] > 0


def movers(battle: Battle, kinds: tuple[UnitKind, ...]) -> np.ndarray:
    """Active units of ``kinds`` that move on the current impulse (C1.41)."""
    st = battle.state
    active = st.status == ACTIVE
    of_kind = np.zeros(len(st.kind), dtype=bool)
    for k in kinds:  # (cheaper than np.isin on a few rows)
        of_kind |= st.kind == int(k)
    active &= of_kind & ~st.tactical  # (C5.21) units on tactical maneuvers stay in their hex
    active &= st.tractor_holder < 0  # (G7.0) a held unit moves only with its holder
    moving = impulse.moves_on_np(st.speed, st.impulse, st.impulses_per_turn)
    return np.flatnonzero(active & moving)
