"""Lockstep over whole tier-1 games with ``sfb_env.compiled.movement`` in place of the
reference's Speed Determination, Move Ships and Move Seeking Weapons (every other step stays
the reference's): the same captains play the same game."""

from __future__ import annotations

import pytest
from compiled_move_recording import TIER1, compiled_phases, games, play

from sfb_env.compiled import layout

# Phase by phase against the reference: the whole-step lockstep parity (test_compiled_parity)
# covers CI; these compile their own kernel variants (minutes cold), so they run with -m slow.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("scenario", TIER1)
def test_whole_games_with_compiled_movement_match_the_reference(scenario):
    """Lockstep over whole games: with the three compiled phases in place of the reference
    ones, the same captains play the same game (same event log, same final state, dice
    included), turn after turn."""
    turns = []
    for _, seed, policy in games((scenario,), (5,)):
        ref = play(scenario, seed, policy)
        with compiled_phases():
            mine = play(scenario, seed, policy)
        assert mine.events == ref.events
        assert layout.differences(layout.pack([mine.state]), 0, ref.state) == []
        turns.append(ref.state.turn)
    assert max(turns) >= 2
