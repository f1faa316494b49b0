"""The cadet Damage Allocation Chart (D4.21-D4.4, CTH-DATA §10.2) in compiled code
(``compiled.damage._cadet_dac_internal``) against ``engine.damage`` volley by volley: the
same dice, the same boxes and weapons lost, the same events, down to the Excess hit that
destroys the ship."""

from __future__ import annotations

import numpy as np
from compiled_phase_helpers import volleys_until_destroyed

from sfb_env import tables
from sfb_env.compiled import damage, parity
from sfb_env.engine import damage as ref_damage
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import DESTROYED, Box

SCENARIO = parity.variant("duel-klingon-vs-kzinti", rules={"damage": "cadet_dac"},
                          impulses_per_turn=16)


def test_cadet_dac_tables_follow_the_chart_and_the_categories():
    """Every cell of the compiled chart names the category of the chart (D4.21) and every
    category lists the boxes of ``engine.damage.CADET_CATEGORIES`` in the owner's order."""
    ft = damage.fire_tables(make_battle(load_scenario(SCENARIO)).setup)
    chart, names = tables.cadet_dac_chart()
    for die in range(1, 7):
        assert [names[c] for c in ft.cadet_chart[die - 1]] == list(tables.cadet_dac(die))
    assert names[ft.cadet_wpn] == "WPN" and names[ft.cadet_excess] == "Excess"
    for c, name in enumerate(names):
        listed = [Box(b) for b in ft.cadet_boxes[c] if b >= 0]
        assert listed == list(ref_damage.CADET_CATEGORIES.get(name, ()))


def test_cadet_dac_volleys_match_the_reference_down_to_destruction():
    """Volleys of 1 to 12 points on each ship, alternately, until both are destroyed: after
    each volley the state, the dice and the decoded events equal the reference's."""
    rng = np.random.default_rng(5)
    seen = {"weapon": 0, "box": 0, "excess": 0, "destroyed": 0}
    for seed in range(3):
        ref = make_battle(load_scenario(SCENARIO), seed=seed)
        ships = [u for u in range(len(ref.unit_ids)) if ref.ship_classes[u] is not None]
        for _, want in volleys_until_destroyed(ref, ships, rng, 400):
            for e in want:
                if e.kind == "Damaged":
                    for box in e.boxes:
                        key = ("excess" if box == "excess" else
                               "weapon" if "." in box else "box")
                        seen[key] += 1
                seen["destroyed"] += e.kind == "Destroyed"
        assert all(ref.state.status[u] == DESTROYED for u in ships)
    assert min(seen.values()) > 0, seen
