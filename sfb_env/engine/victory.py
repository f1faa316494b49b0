"""Victory conditions of the scenarios (SCENARIOS.md §3): when a battle ends and who won.

``evaluate(battle, time_up)`` returns None while the battle goes on, else ``(outcome, reason)``
with ``outcome`` mapping each side to ``{"result": "win" | "loss" | "draw", "level": str}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import planet_killer, planets
from sfb_env.engine.types import ACTIVE, DESTROYED, DISENGAGED, K_DRONE, K_SHIP, UnitKind

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

Outcome = dict[str, dict[str, str]]


def evaluate(battle: Battle, time_up: bool) -> tuple[Outcome, str] | None:
    """The scenario's verdict, or None if it goes on."""
    kind = battle.scenario.victory["kind"]
    return _KINDS[kind](battle, time_up)


def _units(battle: Battle, side: str, kinds: tuple[UnitKind, ...]) -> np.ndarray:
    st = battle.state
    of_kind = np.zeros(len(st.kind), dtype=bool)
    for k in kinds:  # (cheaper than np.isin on a few rows)
        of_kind |= st.kind == int(k)
    return np.flatnonzero((st.side == battle.side_index[side]) & of_kind)


def _held(battle: Battle, rows: np.ndarray) -> np.ndarray:
    """Which ``rows`` are in play under their own side: a ship captured by another side
    (``captured_by``: boarding, D7.0; a successful mutiny, G6.33) is out of its owner's play."""
    st = battle.state
    captor = st.captured_by[rows]
    return (st.status[rows] == ACTIVE) & ((captor < 0) | (captor == st.side[rows]))


def _pair(battle: Battle, side: str, result: str, level: str) -> Outcome:
    other = {"win": "loss", "loss": "win", "draw": "draw"}[result]
    return {
        s: {"result": result if s == side else other, "level": level} for s in battle.scenario.sides
    }


def _draw(battle: Battle) -> Outcome:
    return {s: {"result": "draw", "level": "draw"} for s in battle.scenario.sides}


def _battle_drill(battle: Battle, time_up: bool):
    """Scenario 1: success = all five drones destroyed; pass = every drone took >= 3 points."""
    st = battle.state
    side = battle.scenario.victory["side"]
    ship = _units(battle, side, (UnitKind.SHIP,))
    drones = np.flatnonzero(np.isin(st.kind, (UnitKind.TARGET_DRONE, UnitKind.DRONE)))
    left_area = bool(np.any(st.status[ship] != ACTIVE))
    alive = bool(np.any(st.status[drones] == ACTIVE))
    if not (time_up or left_area or not alive):
        return None
    if left_area:
        return _pair(battle, side, "loss", "fail"), "the ship left Area A"
    if np.all(st.status[drones] == DESTROYED):
        return _pair(battle, side, "win", "success"), "all target drones destroyed"
    need = int(battle.scenario.victory.get("pass_damage", 3))
    if np.all(st.damage[drones] >= need):
        return _pair(battle, side, "draw", "pass"), f"every drone took at least {need} points"
    return _pair(battle, side, "loss", "fail"), "drones escaped undamaged"


def _under_attack(battle: Battle, time_up: bool):
    """Scenario 2: success = every drone gone, no internal damage, still on the map."""
    st = battle.state
    side = battle.scenario.victory["side"]
    ship = _units(battle, side, (UnitKind.SHIP,))
    drones = np.flatnonzero(st.kind == K_DRONE)
    if np.any(st.internal[ship] > 0):
        return _pair(battle, side, "loss", "fail"), "the ship took internal damage"
    if np.any(st.status[ship] != ACTIVE):
        return _pair(battle, side, "loss", "fail"), "the ship left the map"
    if not np.any(st.status[drones] == ACTIVE):
        return _pair(battle, side, "win", "success"), "every drone destroyed or expended"
    if time_up:
        return _pair(battle, side, "draw", "unfinished"), "turn limit reached"
    return None


def _convoy_raid(battle: Battle, time_up: bool):
    """Scenario 3: the raider wins only by destroying every freighter before any escapes."""
    st = battle.state
    raider = battle.scenario.victory["raider"]
    convoy = battle.scenario.victory["convoy"]
    ships = _units(battle, raider, (UnitKind.SHIP,))
    freighters = _units(battle, convoy, (UnitKind.FREIGHTER,))
    if np.any(st.status[freighters] == DISENGAGED):
        return _pair(battle, raider, "loss", "convoy escaped"), "a freighter left the map"
    if np.all(st.status[freighters] == DESTROYED):
        return _pair(battle, raider, "win", "convoy destroyed"), "every freighter destroyed"
    if not np.any(st.status[ships] == ACTIVE):
        return _pair(battle, raider, "loss", "raider gone"), "the raider was destroyed or left"
    if time_up:
        return _pair(battle, raider, "draw", "unfinished"), "turn limit reached"
    return None


def _last_side_standing(battle: Battle, time_up: bool):
    """Generic duel: a side with no ship left in play (or only captured ones, D7.0, G6.33)
    loses."""
    alive = {
        s: bool(np.any(_held(battle, _units(battle, s, (UnitKind.SHIP,)))))
        for s in battle.scenario.sides
    }
    standing = [s for s, a in alive.items() if a]
    if len(standing) == 1:
        return _pair(battle, standing[0], "win", "last standing"), f"{standing[0]} holds the field"
    if not standing or time_up:
        return _draw(battle), "turn limit reached" if standing else "no ship left"
    return None


def _sandbox(battle: Battle, time_up: bool):
    """No objective (drills, tests, exercises such as "out of stardock"): ends at the turn limit."""
    if time_up:
        return _draw(battle), "turn limit reached"
    return None


def _duel(battle: Battle, time_up: bool):
    """Cadet duels (PROPOSAL [P-018], SCENARIOS §4): a side whose ships are all destroyed or off
    the map loses; at the turn limit the side that dealt more damage points (shield + internal,
    on enemy ships) wins; equal points, or no ship left on either side, is a draw. Judged on
    plain lists: a duel has a few rows, and this runs on every impulse."""
    st = battle.state
    sides = battle.scenario.sides
    kind, side, status, captor = (st.kind.tolist(), st.side.tolist(), st.status.tolist(),
                                  st.captured_by.tolist())
    ships = [u for u, k in enumerate(kind) if k == K_SHIP]
    held = {u for u in ships  # (_held) in play under their own side
            if status[u] == ACTIVE and (captor[u] < 0 or captor[u] == side[u])}
    sides_in_play = {side[u] for u in held}
    if len(sides_in_play) == len(sides) and not time_up:  # the usual impulse: nothing decided
        return None
    standing = [s for i, s in enumerate(sides) if i in sides_in_play]
    if len(standing) == 1 and len(sides) > 1:
        winner = standing[0]
        losers = [u for u in ships if side[u] != sides.index(winner)]
        destroyed = any(status[u] == DESTROYED for u in losers)
        captured = any(u not in held and status[u] == ACTIVE for u in losers)
        level, how = (("destroyed", "was destroyed") if destroyed
                      else ("captured", "was captured") if captured  # (D7.0, G6.33)
                      else ("disengaged", "left the map"))
        others = " and ".join(s for s in sides if s != winner)
        return _pair(battle, winner, "win", level), f"{others} {how}"
    if not standing:
        return _draw(battle), "no ship left"
    if not time_up:
        return None
    damage = st.damage.tolist()
    taken = [sum(damage[u] for u in ships if side[u] == i) for i in range(len(sides))]
    dealt = {s: sum(taken) - taken[i] for i, s in enumerate(sides)}  # on the others' ships
    best = max(dealt.values())
    leaders = [s for s in sides if dealt[s] == best]
    if len(leaders) > 1:
        return _draw(battle), f"turn limit reached, equal damage ({best} points each)"
    return _pair(battle, leaders[0], "win", "points"), (
        f"turn limit reached, {leaders[0]} dealt more damage ({best} points)")


def _dakota_incident(battle: Battle, time_up: bool):
    """Scenario 4: the Federation wins iff its ship passed through a hex at range <= 1 of the
    Dakota (PROPOSAL [P-020] of SCENARIOS #4 for "adjacent") and then left by the east edge (from a
    hex of column ``exit_column``, default 28); leaving by another edge is a loss (the ship is
    destroyed), and so is anything else. No turn limit: the env's cap ends it as a loss."""
    st = battle.state
    cfg = battle.scenario.victory
    side = cfg["side"]
    ship = battle.unit_index[cfg["ship"]]
    status = int(st.status[ship])
    if status == ACTIVE:
        if time_up:
            return _pair(battle, side, "loss", "unfinished"), "turn limit reached"
        return None
    if status == DESTROYED:
        return _pair(battle, side, "loss", "destroyed"), f"{cfg['ship']} was destroyed"
    name = battle.unit_ids[ship]
    exit_hex = next((e.src for e in reversed(battle.events)
                     if e.kind == "LeftMap" and e.unit == name), None)
    column = int(cfg.get("exit_column", 28))
    if exit_hex is None or int(exit_hex[:2]) != column:
        return _pair(battle, side, "loss", "destroyed"), (
            f"{cfg['ship']} left the map away from the east edge and is lost")
    if not _passed_near(battle, name, cfg["dakota"]):
        return _pair(battle, side, "loss", "no rescue"), (
            f"{cfg['ship']} left without passing next to {cfg['dakota']}")
    return _pair(battle, side, "win", "rescue"), (
        f"{cfg['ship']} passed {cfg['dakota']} and left by the east edge")


def _passed_near(battle: Battle, unit: str, dakota: str) -> bool:
    """Whether ``unit`` stood in a hex at range <= 1 of ``dakota`` (which never moves)."""
    parity = battle.scenario.parity
    there = battle.label(battle.unit_index[dakota])
    start = battle.scenario.units[battle.unit_index[unit]].hex
    hexes = {start} | {e.dst for e in battle.events if e.kind == "Moved" and e.unit == unit}
    return any(hexmap.distance(h, there, parity) <= 1 for h in hexes)


def _encounter(battle: Battle, time_up: bool):
    """Scenario 5: a side with no ship in play is out, "destroyed" if none of its ships left
    the map, else "disengaged". Destroyed -> loss, disengaged -> draw; a side still in play
    wins ("destroyed" level) against a destroyed side, a tactical victory ("tactical") against
    a disengaged one; both destroyed -> both lose. No turn limit: the env's cap is a draw.
    A ship captured by the other side (a successful mutiny, G6.33: "the scenario is over and
    the ship is captured") is out of its side's play: "captured", a loss as "destroyed"."""
    st = battle.state
    sides = battle.scenario.sides
    fate: dict[str, str] = {}
    for s in sides:
        ships = _units(battle, s, (UnitKind.SHIP,))
        if not np.any(_held(battle, ships)):
            fate[s] = ("disengaged" if np.any(st.status[ships] == DISENGAGED)
                       else "captured" if np.any(st.status[ships] == ACTIVE)  # (G6.33)
                       else "destroyed")
    if not fate:
        return (_draw(battle), "turn limit reached") if time_up else None
    out: Outcome = {}
    for s in sides:
        if s in fate:
            out[s] = {"result": "draw" if fate[s] == "disengaged" else "loss", "level": fate[s]}
        elif "destroyed" in fate.values():
            out[s] = {"result": "win", "level": "destroyed"}
        elif "captured" in fate.values():
            out[s] = {"result": "win", "level": "captured"}
        else:
            out[s] = {"result": "win", "level": "tactical"}
    how = {"destroyed": "was destroyed", "captured": "was captured", "disengaged": "disengaged"}
    reason = " and ".join(f"{s} {how[f]}" for s, f in fate.items())
    return out, reason


def _planet_killer(battle: Battle, time_up: bool):
    """Scenario 11 (SCENARIOS §2.8): see ``planet_killer.verdict``."""
    return planet_killer.verdict(battle, time_up, _pair, _draw)


def _pirate_raid(battle: Battle, time_up: bool):
    """Scenario 8: a freighter is captured when the pirate takes it off the map, towed by a
    tractor (``st.towed_off_by``) or captured by boarding parties (``st.captured_by``) and flown
    off. The battle ends when the pirate's ship leaves play or at the turn limit (12: a pirate
    still on the map then counts as destroyed). Captures >= 3: pirate wins; 1-2: break even
    (draw); 0, or the pirate destroyed: defender wins (PROPOSAL [P-021] of SCENARIOS #8). PROPOSAL:
    freighters the pirate captured by boarding and still on the map when it leaves are flown
    off by their prize crews and count."""
    st = battle.state
    cfg = battle.scenario.victory
    pirate = cfg["pirate"]
    p = battle.side_index[pirate]
    raiders = _units(battle, pirate, (UnitKind.SHIP,))
    if np.any(st.status[raiders] == ACTIVE) and not time_up:
        return None
    freighters = _units(battle, cfg["defender"], (UnitKind.FREIGHTER,))
    prize = st.captured_by[freighters] == p  # (D7.0) taken by the pirate's boarding parties
    gone = st.status[freighters] == DISENGAGED
    left = bool(np.any(st.status[raiders] == DISENGAGED)) and not np.any(
        st.status[raiders] == ACTIVE)
    if not left:
        why = "the pirate was destroyed" if not time_up else (
            "the pirate was still on the map at the end of the turn limit (counts as destroyed)")
        return _pair(battle, cfg["defender"], "win", "pirate destroyed"), why
    taken = int(np.sum(gone & ((st.towed_off_by[freighters] == p) | prize))
                + np.sum(prize & (st.status[freighters] == ACTIVE)))
    if taken >= 3:
        return _pair(battle, pirate, "win", "pirate victory"), f"the pirate took {taken} freighters"
    if taken >= 1:
        return ({s: {"result": "draw", "level": "break even"} for s in battle.scenario.sides},
                f"break even: the pirate took {taken} freighter(s)")
    return _pair(battle, cfg["defender"], "win", "defender victory"), (
        "the pirate left without a freighter")


def _rescue(battle: Battle, time_up: bool):
    """Scenario 9, Rescue at Rigel (SCENARIOS #9): the opponent wins at once if the survivors
    die (crew units aboard a destroyed unit, ``planets.survivors_killed``); the rescuer wins by
    leaving the map with the survivors aboard, or if the opponent leaves the map first. The
    battle also ends when the rescuer leaves without them, is destroyed or captured (an
    opponent win), and at the turn limit; every result but the two rescuer wins is an opponent
    victory. PROPOSAL [P-022]: every ship of a side counts (the book has one each)."""
    st = battle.state
    cfg = battle.scenario.victory
    rescuer, opponent = cfg["rescuer"], cfg["opponent"]
    ours = _units(battle, rescuer, (UnitKind.SHIP,))
    theirs = _units(battle, opponent, (UnitKind.SHIP,))
    if planets.survivors_killed(battle):
        return _pair(battle, opponent, "win", "survivors killed"), "the survivors were killed"
    gone = ours[st.status[ours] == DISENGAGED]
    if len(gone) and int(st.crew_units[gone].sum()) > 0:
        return _pair(battle, rescuer, "win", "rescue"), (
            f"{rescuer} left the map with the survivors aboard")
    if np.any(st.status[theirs] == DISENGAGED):
        return _pair(battle, rescuer, "win", "opponent left"), (
            f"{opponent} left the map before the end")
    captured = st.captured_by[ours] >= 0
    if not np.any((st.status[ours] == ACTIVE) & ~captured):
        how = ("left the map without the survivors" if len(gone) else
               "was captured" if np.any(captured) else "was destroyed")
        return _pair(battle, opponent, "win", "no rescue"), f"{rescuer} {how}"
    if time_up:
        return _pair(battle, opponent, "win", "no rescue"), "turn limit reached"
    return None


_KINDS = {
    "pirate_raid": _pirate_raid,
    "battle_drill": _battle_drill,
    "under_attack": _under_attack,
    "convoy_raid": _convoy_raid,
    "last_side_standing": _last_side_standing,
    "sandbox": _sandbox,
    "duel": _duel,
    "dakota_incident": _dakota_incident,
    "encounter": _encounter,
    "planet_killer": _planet_killer,
    "rescue": _rescue,
}
