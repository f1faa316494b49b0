"""Scenario 8, Pirate Raid (SCENARIOS #8), on the compiled core: the scenario-unit rules
(``arrives``, ``hold_fire_at``, ``may_leave: false``: ``compiled.unit_rules``), the convoy
freighters' fire under lock-on, the ``pirate_raid`` verdict against ``engine.victory`` on
constructed endings, and the shipped scenario and its replay variants in lockstep."""

from __future__ import annotations

import numpy as np
import pytest

import sfb_env
from sfb_env.compiled import ending, layout, parity, tiers
from sfb_env.engine import victory
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import ACTIVE, DESTROYED, DISENGAGED, K_FREIGHTER

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)


def test_pirate_raid_is_played_by_the_compiled_core():
    """cth-08 flips to the compiled core (``backend="auto"``)."""
    assert tiers.missing(make_battle(load_scenario("cth-08")).setup) == []
    assert "cth-08" in tiers.compiled_scenarios()
    assert sfb_env.backend_of(sfb_env.parallel_env("cth-08", backend="auto")) == "compiled"


def arriving(how: dict) -> dict:
    """cth-08 with the defender's ``arrives`` replaced (the scenario's replays)."""
    doc = parity.variant("cth-08")
    for u in doc["units"]:
        if u["id"] == "defender":
            u["arrives"] = how
    doc["name"] += f",arrives={how}"
    return doc


def test_scenario_8_pirate_raid_verdict_matches_the_reference():
    """(SCENARIOS #8, PROPOSAL [P-021]) On 400 constructed endings (the pirate in play, left or
    destroyed; each freighter in play, destroyed, towed off by either side, captured): the
    compiled verdict's results equal ``victory.evaluate``'s, at the turn limit and before."""
    battle = make_battle(load_scenario("cth-08"))
    setup = battle.setup
    et = ending.end_tables(setup)
    rng = np.random.default_rng(8)
    pirate = battle.unit_index["queen-of-diamonds"]
    freighters = np.flatnonzero(battle.state.kind == K_FREIGHTER)
    seen = set()
    for _ in range(400):
        mine = battle.copy()
        st = mine.state
        st.status[pirate] = rng.choice([ACTIVE, DISENGAGED, DESTROYED])
        for f in freighters:
            st.status[f] = rng.choice([ACTIVE, DISENGAGED, DESTROYED])
            st.towed_off_by[f] = rng.choice([-1, 0, 1])
            st.captured_by[f] = rng.choice([-1, -1, 0])
        for time_up in (False, True):
            want = victory.evaluate(mine, time_up)
            s = layout.pack([st])
            code = ending.verdict(s, et, 0, time_up)
            if want is None:
                assert code == ending.GOES_ON
                continue
            results = ending.outcome_results(code, len(setup.scenario.sides))
            assert results == [want[0][side]["result"] for side in setup.scenario.sides]
            seen.add(tuple(results))
    assert len(seen) == 3  # pirate victory, break even, defender victory


@pytest.mark.parametrize("doc,policy", [
    ("cth-08", "random"), ("cth-08", "doctrine"),
    (arriving({"turn": 1}), "random"), (arriving({"die": 1}), "random-fighter"),
])
def test_cth_08_lockstep(doc, policy):
    """The shipped scenario and its replays (the defender arriving on turn 1, or on the first
    die of 1) beside the reference: no difference."""
    parity.lockstep(doc, 2, 120, seed=1, policy=policy)
