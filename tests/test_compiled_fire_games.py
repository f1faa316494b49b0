"""Whole tier-1 games in lockstep with the reference: each ``procedure.advance`` of a game played
by ``random-fighter`` captains is replayed on the packed state by the tier-1 Sequence of Play
composed in Python from the compiled phase kernels (``compiled.movement`` and
``compiled.ending`` for movement, speed and the verdict; ``compiled.fire`` and
``compiled.seeking_impacts`` for launch, fire and impacts; the robots' fire orders from the
reference ``robots.fire_orders`` on the unpacked compiled state), and the arrays, dice and
events compared after every step. Proves the phases in the order the step kernel runs them."""

from __future__ import annotations

import pytest
from compiled_phase_helpers import TIER1, decoder, fighting_pilots

import sfb_env
from sfb_env.compiled import damage, ending, fire, layout, movement, seeking_impacts
from sfb_env.engine import procedure, robots
from sfb_env.engine.battle import Battle

# Phase by phase against the reference: the whole-step lockstep parity (test_compiled_parity)
# covers CI; these compile their own kernel variants (minutes cold), so they run with -m slow.
pytestmark = pytest.mark.slow


def composed_advance(s, tables, o, setup) -> None:
    """``engine.procedure.advance`` for tier 1, battle 0 of ``s``, from the compiled phases."""
    mt, ft, et = tables
    rules = setup.rules
    last = setup.start_state.impulses_per_turn
    if s.impulse[0] >= 1:
        if rules.seeking_weapons and rules.launch_seeking_weapons:
            seeking_impacts.launch_seeking_weapons(s, ft, 0, o)
        state = setup.start_state.copy()
        layout.unpack_into(s, 0, state)
        for w, t in robots.fire_orders(Battle.from_parts(setup, state)):
            o.fire[0, w] = t
        fire.fire_direct_fire(s, ft, 0, o)
        ending.end_of_impulse(s, et, 0)
        if ending.check_end(s, et, 0, False):
            return
    if s.impulse[0] in (0, last):
        if s.impulse[0] == last:
            ending.end_of_turn(s, et, 0)
            if ending.check_end(s, et, 0, s.turn[0] > et.max_turns):
                return
        movement.speed_determination(s, mt, 0, o)
        s.impulse[0] = 1
    else:
        s.impulse[0] += 1
    movement.move_ships(s, mt, 0, o)
    movement.move_seeking_weapons(s, mt, 0, o)
    if rules.seeking_weapons:
        seeking_impacts.resolve_seeking_weapons(s, ft, 0, o)
    ending.check_end(s, et, 0, False)


@pytest.mark.parametrize("scenario", TIER1)
def test_whole_games_match_the_reference_step_by_step(scenario, monkeypatch):
    seen: dict[str, int] = {}
    tables: dict[int, tuple] = {}
    reference = procedure.advance

    def lockstep(battle, orders):
        mine = battle.copy()
        n0 = len(battle.events)
        reference(battle, orders)
        setup = battle.setup
        if id(setup) not in tables:
            tables[id(setup)] = (movement.move_tables(setup), damage.fire_tables(setup),
                                 ending.end_tables(setup))
        s = layout.pack([mine.state])
        st = mine.state
        o = layout.pack_orders([dict(orders)], len(st.kind), len(st.w_type))
        composed_advance(s, tables[id(setup)], o, setup)
        assert layout.differences(s, 0, battle.state) == []
        got = [e for e in decoder(battle).decode(s.ev[0, :s.ev_count[0]])
               if e.kind != "BattleEnded"]  # its outcome is decoded by the backend
        want = [e for e in battle.events[n0:] if e.kind != "BattleEnded"]
        assert got == want
        for e in want:
            seen[e.kind] = seen.get(e.kind, 0) + 1

    monkeypatch.setattr(procedure, "advance", lockstep)
    for seed in (0, 1):
        env = sfb_env.parallel_env(scenario)
        obs, _ = env.reset(seed=seed)
        pilots = fighting_pilots(env, seed)
        for _ in range(200):
            if not env.agents:
                break
            obs, *_ = env.step({a: pilots[a].act(obs[a], env.action_space(a))
                                for a in env.agents})
    assert seen.get("Fired", 0) > 0
