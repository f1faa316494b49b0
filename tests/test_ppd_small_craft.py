"""The PPD against fighters and shuttles in play (``ppd_fire.target_kind``): the centre value of
the splash line only (E11.353), the wave-lock lost beyond 5 hexes (E11.361, J4.47) and +1 to the
2d6 against a fighter (J4.47). A Hydran Ranger's fighter or administrative shuttle is launched,
then set at the range the rule names; the ISC cadet's PPD fires on turn 3 (Chief Engineer)."""

from __future__ import annotations

import pytest
from engine_helpers import Dice, of, row, run_to, scenario, step, unit, weapon

from sfb_env import hexmap, tables
from sfb_env.engine import Orders, make_battle, ppd_fire, small_craft
from sfb_env.engine.ppd import TargetKind
from sfb_env.engine.types import K_SHUTTLE


def _battle():
    """ISC cadet (blue, 0515-A) and a Hydran Ranger (red, 0505-D) with its fighters and an
    administrative shuttle aboard."""
    doc = scenario([unit("i", "isc-cadet", "blue", "0515", "A", 0),
                    unit("h", "hydran-ranger", "red", "0505", "D", 0)],
                   rules={"admin_shuttles": True, "max_speed": 31})
    doc["impulses_per_turn"] = 32  # the fighters' speed 15 (J4.12)
    return make_battle(doc, seed=0)


def _craft(b, kind: str) -> int:
    carrier = row(b, "h")
    if kind == "fighter":
        return int(small_craft.fighters_of(b, carrier)[0])
    return int(next(u for u in range(len(b.state.kind))
                    if b.craft_carrier[u] == carrier and b.state.kind[u] == K_SHUTTLE))


def _out(b, kind: str, label: str) -> int:
    """Launch ``kind`` from the Ranger at the ISC on turn 3, impulse 1 and hold it, stopped
    and facing A, in hex ``label`` (the PPD fires on the next impulse)."""
    run_to(b, 3, 1)
    order = (Orders(fighters=row(b, "i")) if kind == "fighter"
             else Orders(shuttles=row(b, "i")))
    b.step({row(b, "h"): order, row(b, "i"): Orders()})
    craft = _craft(b, kind)
    _place(b, craft, label)
    return craft


def _place(b, u: int, label: str) -> None:
    st = b.state
    st.x[u], st.z[u] = hexmap.label_to_axial(label, b.scenario.parity)
    st.prev_x[u], st.prev_z[u] = st.x[u], st.z[u]
    st.facing[u] = st.prev_facing[u] = hexmap.direction_index("A")
    st.speed[u] = 0


def _fire(b, target: int, dice=()) -> None:
    b.rng = Dice(*dice)
    step(b, i=dict(fire={"PPD-A": b.unit_ids[target]}), h=None)


def _pulses(b):
    return of(b, "Fired", weapon_type="ppd")


@pytest.mark.parametrize("kind, expected", [("fighter", TargetKind.FIGHTER),
                                            ("shuttle", TargetKind.SHUTTLE)])
def test_e11_353_fighters_and_shuttles_are_small_craft_to_the_ppd(kind, expected):
    b = _battle()
    assert ppd_fire.target_kind(b, _craft(b, kind)) == expected
    assert ppd_fire.target_kind(b, row(b, "h")) == TargetKind.SHIP


def test_j4_47_plus_one_to_the_ppd_2d6_against_a_fighter():
    b = _battle()
    f = _out(b, "fighter", "0510")  # range 5 dead ahead
    assert tables.ppd_hit_number(5) == 9
    _fire(b, f, dice=(4, 5))  # natural 9 hits a ship; + 1 against a fighter: 10, no lock
    pulse = _pulses(b)[0]
    assert (pulse.range, pulse.die, pulse.hit, pulse.damage) == (5, 10, False, 0)


@pytest.mark.parametrize("kind", ["fighter", "shuttle"])
def test_e11_353_a_fighter_or_shuttle_takes_the_centre_value_only(kind):
    b = _battle()
    craft = _out(b, kind, "0510")
    assert tables.ppd_splash(5) == (1, 4, 1) and tables.ppd_damage(5) == 6
    _fire(b, craft, dice=(1, 1))
    pulse = _pulses(b)[0]
    assert (pulse.range, pulse.hit, pulse.damage) == (5, True, 4)  # not the 6 of a ship
    assert [e.internal for e in of(b, "Damaged", unit=b.unit_ids[craft])] == [4]


def test_e11_361_wave_lock_on_a_fighter_at_5_is_lost_at_6():
    b = _battle()
    f = _out(b, "fighter", "0510")
    _fire(b, f, dice=(1, 1))  # locked at range 5
    assert _pulses(b)[0].hit
    _place(b, f, "0509")  # the fighter is now 6 hexes away
    step(b, i=None, h=None)
    second = _pulses(b)[1]
    assert (second.range, second.hit, second.damage) == (6, False, 0)
    ended = of(b, "PpdTrainEnded")
    assert [e.rule for e in ended] == ["E11.361"]
    assert b.state.ppd_target[weapon(b, "i", "PPD-A")] == -1
