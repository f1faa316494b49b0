"""Disengagement by announcement (SCENARIOS.md #5 special; scenario rule
``disengage_by_announcement``).

"Either player may announce disengagement at the end of any impulse; the scenario ends at once."
The ``Orders.disengage`` flag given at the decision point of impulse i is resolved in End of
Impulse, after that impulse's fire (``procedure.advance``): an announcing ship still in play
becomes ``DISENGAGED``, the same status as a ship that left the map (C1.4 / SCENARIOS #5 map
row), so the victory rule (``engine.victory._encounter``: disengaged side -> draw, the other a
tactical victory; both announce -> both disengaged, a draw) judges it as it judges leaving.
A ship destroyed by that impulse's fire cannot disengage any more.

Who may announce (``announce_blockers``, used by the env's mask and by ``validate``):

* only where the scenario's rules say so (``rules.disengage_by_announcement``); set on the
  scenarios whose text gives scenario 5's disengagement: cth-05, cth-06, cth-07, cth-10 and
  cth-12 ("as scenario 5"). Not on cth-13 (SCENARIOS #13: "disengagement only by leaving the
  map"), nor on the ``duel-*`` / ``grad-*`` cadet duels (victory kind ``duel``, where a ship
  gone off the map loses; the published checkpoint of duel-klingon-vs-federation keeps its
  space). The ``grad-*-full-*`` encounters (scenario-7 replays) may add the key;
* only ships a player commands: "the robot never disengages" (robot units give no orders);
* PROPOSAL [P-023]: not at impulse 0 (the decision point before the battle's first impulse is no
  impulse's end); at every later decision point, including the last impulse of a turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sfb_env.engine import events as ev
from sfb_env.engine.types import ACTIVE, DISENGAGED, K_SHIP, IllegalOrderError, Orders

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

RULE = "SCENARIOS #5"


def has_component(battle: Battle, unit: int) -> bool:
    """Whether ``unit`` gets a ``disengage`` action component: a ship a player commands in a
    scenario with the rule."""
    return (battle.rules.disengage_by_announcement and battle.controllers[unit] == "agent"
            and int(battle.state.kind[unit]) == K_SHIP)


def announce_blockers(battle: Battle, unit: int) -> dict[int, str]:
    """{1: rule} where ``unit`` may not announce disengagement now, else {}."""
    if not battle.rules.disengage_by_announcement:
        return {1: f"{RULE} disengagement by announcement is not in use in this scenario "
                   "(rules.disengage_by_announcement)"}
    if battle.controllers[unit] != "agent" or int(battle.state.kind[unit]) != K_SHIP:
        return {1: f"{RULE} only a ship a player commands announces disengagement (the robot "
                   "never disengages)"}
    if int(battle.state.status[unit]) != ACTIVE:
        return {1: f"{RULE} the ship is no longer in play"}
    if battle.state.impulse == 0:
        return {1: f"{RULE} disengagement is announced at the end of an impulse; impulse 0 is "
                   "before the first impulse (PROPOSAL)"}  # [P-023]
    return {}


def validate(battle: Battle, unit: int, order: Orders, name: str) -> None:
    """Raise ``IllegalOrderError`` for an announcement the rules forbid (same predicate as the
    mask)."""
    value = order.disengage
    if not isinstance(value, (bool, int)) or value not in (0, 1):
        raise IllegalOrderError(name, "disengage", value, f"{RULE} disengage is 0 or 1")
    if value:
        rule = announce_blockers(battle, unit).get(1)
        if rule is not None:
            raise IllegalOrderError(name, "disengage", 1, rule)


def end_of_impulse(battle: Battle, orders: dict[int, Orders]) -> None:
    """(SCENARIOS #5) Every announcing ship still in play after the fire disengages at once;
    the victory check that follows ends the scenario."""
    st = battle.state
    for u, order in orders.items():
        if order.disengage and int(st.status[u]) == ACTIVE:
            st.status[u] = DISENGAGED
            battle.log(ev.DisengagementAnnounced(st.turn, st.impulse, battle.unit_ids[u],
                                                 battle.label(u)))
