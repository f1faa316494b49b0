"""Reserve power (H7.0-H7.4) in ``engine/reserve_power.py``."""

from __future__ import annotations

import pytest

from sfb_env.data.ships import load_ship
from sfb_env.engine.reinforcement import Reinforcement, absorb_volley, allocate_reinforcement
from sfb_env.engine.reserve_power import (
    ALLOWED_USES,
    FORBIDDEN_USES,
    Batteries,
    ReserveTurn,
    ReserveUse,
    destroy_battery,
    discharge,
    end_of_turn,
    fire_weapon,
    recharge,
    reinforce_and_absorb,
)

CA = load_ship("fed-ca")


def test_h7_3_example_fed_ca_phasers_then_front_shield():
    assert CA.batteries == 4
    turn = ReserveTurn(Batteries(CA.batteries, 4))
    # Two phasers fired on unallocated power: 1 battery each.
    turn = fire_weapon(turn, "PH1-1", energy=1)
    turn = fire_weapon(turn, "PH1-2", energy=1)
    assert turn.batteries.charged == 2
    # 4 damage on #1, specifically reinforced by 2; the last 2 batteries go into #1 too.
    shields = CA.shields
    reinforcement = allocate_reinforcement(shields, 0, (2, 0, 0, 0, 0, 0))
    turn, hit = reinforce_and_absorb(turn, shields, reinforcement, 1, 4, reserve=2)
    assert (hit.specific, hit.shield, hit.internal) == (4, 0, 0)
    assert hit.shields == shields  # none of the damage is permanent
    assert turn.batteries == Batteries(4, 0)


def test_h7_3_weapon_fires_once_per_turn_whatever_the_source():
    turn = fire_weapon(ReserveTurn(Batteries(4, 4)), "PH1-1")  # capacitor
    with pytest.raises(ValueError, match=r"weapon: PH1-1 already fired this turn \(H7\.3\)"):
        fire_weapon(turn, "PH1-1", energy=1)
    turn = end_of_turn(turn)
    assert fire_weapon(turn, "PH1-1", energy=1).batteries.charged == 3


def test_h7_1_not_retroactive():
    shields = CA.shields
    marked = absorb_volley(shields, allocate_reinforcement(shields, 0, (2, 0, 0, 0, 0, 0)), 1, 4)
    assert marked.shield == 2
    # Discharging afterwards protects only later volleys; the marked boxes stay lost.
    turn, later = reinforce_and_absorb(
        ReserveTurn(Batteries(4, 2)), marked.shields, marked.reinforcement, 1, 2, reserve=2
    )
    assert later.shields[0] == shields[0] - 2 and later.shield == 0
    assert turn.batteries.charged == 0


def test_h7_1_discharge_limited_to_charged_batteries():
    with pytest.raises(ValueError, match=r"energy=3: only 2 batteries are charged \(H7\.1\)"):
        discharge(Batteries(4, 2), 3, ReserveUse.TRANSPORTER)


@pytest.mark.parametrize("use", sorted(ALLOWED_USES, key=lambda u: u.value))
def test_h7_2_allowed_uses(use):
    assert discharge(Batteries(4, 4), 2, use) == Batteries(4, 2)


@pytest.mark.parametrize("use", list(FORBIDDEN_USES))
def test_h7_2_forbidden_uses_name_their_rule(use):
    with pytest.raises(ValueError) as err:
        discharge(Batteries(4, 4), 1, use)
    assert "use:" in str(err.value) and FORBIDDEN_USES[use] in str(err.value)


def test_h7_4_no_reserve_warp_power():
    with pytest.raises(ValueError, match=r"reserve warp \(H7\.4\)"):
        discharge(Batteries(4, 4), 1, ReserveUse.RESERVE_WARP)


def test_h7_2_rolling_delay_plasma_completed_by_two_reserve():
    # Gorn S torpedo armed 2+2, third turn paid with 2 reserve power.
    assert discharge(Batteries(4, 4), 2, ReserveUse.ROLLING_DELAY_PLASMA).charged == 2


def test_b3_destroyed_batteries_taken_from_discharged_first():
    assert destroy_battery(Batteries(4, 2)) == Batteries(3, 2)
    assert destroy_battery(Batteries(2, 2)) == Batteries(1, 1)
    assert recharge(Batteries(3, 1), 2) == Batteries(3, 3)


def test_h7_1_battery_charge_carries_over_turn_but_firing_record_does_not():
    turn = fire_weapon(ReserveTurn(Batteries(4, 4)), "PH1-1", energy=1)
    nxt = end_of_turn(turn)
    assert nxt.batteries == Batteries(4, 3) and nxt.fired == frozenset()


@pytest.mark.parametrize(("call", "words"), [
    (lambda: Batteries(2, 3), ["Batteries.charged", "H7.1"]),
    (lambda: Batteries(-1, 0), ["Batteries.boxes", "H7.1"]),
    (lambda: discharge(Batteries(4, 4), -1, ReserveUse.TRACTOR), ["energy", "H7.1"]),
    (lambda: discharge(Batteries(4, 4), 1, "tractor"), ["use", "H7.2"]),
    (lambda: recharge(Batteries(4, 3), 2), ["energy", "H7.1"]),
    (lambda: destroy_battery(Batteries(0, 0)), ["batteries", "D4.21"]),
    (lambda: fire_weapon(ReserveTurn(Batteries(1, 1)), "", 1), ["weapon", "H7.3"]),
    (lambda: fire_weapon(ReserveTurn(Batteries(1, 1)), "PH1-1", -1), ["energy", "H7.1"]),
    (lambda: reinforce_and_absorb(ReserveTurn(Batteries(4, 1)), CA.shields, Reinforcement(),
                                  1, 4, reserve=2), ["energy=2", "H7.1"]),
    (lambda: reinforce_and_absorb(ReserveTurn(Batteries(4, 4)), (0,) + CA.shields[1:],
                                  Reinforcement(), 1, 4, reserve=2), ["shield", "D3.343"]),
])
def test_h7_bad_input_names_field_and_rule(call, words):
    with pytest.raises(ValueError) as err:
        call()
    for w in words:
        assert w in str(err.value)
