"""Expanding sphere generators (G23) in play: the rules the cadet duels never reach.

Two generators on one ship (the Tiger CA, G23.12x), fields of two ships (G23.71x, G23.73), zero
radius and its designated insiders (G23.72x), the order of moves within an impulse (G23.571),
and the graduate text's worked examples reproduced in a battle where the engine can express
them (the drone + shuttle + ship example needs shuttles: resolver only, ``test_engine_esg.py``).
The pure resolver's new pieces (overlap, field against field, sequenced entry) are tested first.
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import hex_of, of, random_orders, row, run_to, scenario, unit, weapon

from sfb_env import hexmap
from sfb_env.engine import IllegalOrderError, Maneuver, Orders, esg, make_battle
from sfb_env.engine.esg import EsgPhase, EsgRuleError, Overlap
from sfb_env.engine.types import Status
from sfb_env.tables import esg_strength

ANNOUNCE = {r: 1 + r for r in range(4)}  # EsgOrder.ANNOUNCE_0 + radius
DROP = 6
TIGER_ENERGY = 5  # (G23.22, G23.23) each Tiger generator starts full
CADET_ENERGY = 2  # (G23.22) the cadet cruiser holds at most 2


# ---------------------------------------------------------------------- resolver


@pytest.mark.parametrize(("distance", "ra", "rb", "overlap"), [
    (0, 0, 0, True),  # (G23.713) same hex, even at zero radius
    (3, 1, 2, True),  # rings touch in one hex
    (2, 3, 0, True),  # one sphere inside the other
    (4, 1, 2, False),  # adjacent rings, no common hex
    (7, 3, 3, False),
])
def test_g23_71_fields_of_two_ships_overlap_or_nest_within_the_sum_of_radii(distance, ra, rb,
                                                                            overlap):
    assert esg.fields_overlap(distance, ra, rb) is overlap
    assert esg.fields_overlap(distance, rb, ra) is overlap


def test_g23_712_713_release_overlap_collapses_unless_same_hex_same_radius():
    assert esg.release_overlap(5, 3, 2) == Overlap.COLLAPSE  # (G23.712)
    assert esg.release_overlap(0, 1, 2) == Overlap.COLLAPSE  # (G23.713) same hex, radii differ
    assert esg.release_overlap(0, 1, 1) == Overlap.DAMAGE  # (G23.713) same radius: G23.73
    assert esg.release_overlap(0, 0, 0) == Overlap.DAMAGE  # "even at zero radius"
    assert esg.release_overlap(6, 3, 2) == Overlap.NONE
    with pytest.raises(EsgRuleError, match="G23.41"):
        esg.release_overlap(3, 4, 0)


def test_g23_73_fields_of_two_ships_each_lose_the_smaller_strength():
    assert esg.fields_meet(18, 7) == (11, 0)
    assert esg.fields_meet(7, 7) == (0, 0)
    assert esg.fields_meet(3, 20) == (0, 17)
    with pytest.raises(EsgRuleError, match="G23.42"):
        esg.fields_meet(-1, 3)


def test_g23_712_only_a_field_released_in_this_step_collapses():
    gen = esg.announce(esg.new_generator(5, 8, stored=5), 2, turn=1, impulse=1)
    gen = esg.launch_step(gen, turn=1, impulse=2)
    gone = esg.collapse(gen, turn=1, impulse=2)
    assert (gone.phase, gone.stored, gone.strength) == (EsgPhase.IDLE, 0, 0)  # energy lost
    assert esg.earliest_activation(gone) == esg.absolute_impulse(3, 1, 8)  # (G23.323) PROPOSAL
    with pytest.raises(EsgRuleError, match="G23.712"):
        esg.collapse(gen, turn=1, impulse=3)


def test_g23_571_slower_unit_reaching_the_ring_first_is_struck_though_the_ship_moves_away():
    # distance 3 -> 2 by the unit's own move (it moves first, C1.3) -> 3 by the ship's move
    assert esg.field_entry(2, 3, 3, ship_moved=True, unit_moved=True, middle=2,
                         unit_first=True) == esg.Entry.ENTERS
    # judged together (equal speeds) the same distances are no contact
    assert esg.field_entry(2, 3, 3, ship_moved=True, unit_moved=True) == esg.Entry.NONE


def test_g23_572_ring_moved_onto_the_unit_first_lets_it_move_clear():
    # the ship moves first and brings its ring onto the unit (3 -> 2), which then moves clear
    assert esg.field_entry(2, 3, 3, ship_moved=True, unit_moved=True, middle=2) == esg.Entry.NONE
    # ... but not across it (G23.571): 3 -> 2 -> 1
    assert esg.field_entry(2, 3, 1, ship_moved=True, unit_moved=True, middle=2) == esg.Entry.JUMPS
    # a ring carried across the unit by the ship's own move is a jump whatever follows
    assert esg.field_entry(2, 2, 2, ship_moved=True, unit_moved=True, middle=1) == esg.Entry.JUMPS
    with pytest.raises(EsgRuleError, match="G23.571"):
        esg.field_entry(2, 3, 3, ship_moved=True, unit_moved=True, middle=5)


# ---------------------------------------------------------------------- battle helpers


def _battle(*units, ipt: int = 8, seed: int = 0, **rules):
    doc = scenario(units, rules={"damage": "interim", **rules})
    doc["impulses_per_turn"] = ipt
    return make_battle(doc, seed=seed)


def _go(b, orders_esg: dict[tuple[str, str], int] | None = None,
        **maneuvers: Maneuver) -> None:
    """One step: every agent straight where it moves (or ``maneuvers[uid]``), ESG orders by
    ``(unit id, mount)``."""
    orders = {}
    for u in b.agent_units():
        m = maneuvers.get(b.unit_ids[u])
        if m is None:
            m = Maneuver.NONE if Maneuver.STRAIGHT in b.maneuver_blockers(u) else Maneuver.STRAIGHT
        orders[u] = Orders(maneuver=m)
    for (uid, mount), value in (orders_esg or {}).items():
        orders[row(b, uid)].esg[weapon(b, uid, mount)] = value
    b.step(orders)


def _field(b, uid: str, mount: str = "ESG-1") -> tuple[EsgPhase, int]:
    w = weapon(b, uid, mount)
    return EsgPhase(int(b.state.esg_phase[w])), int(b.state.esg_strength[w])


def _needing(b, uid: str, points: int) -> None:
    """Wear unit ``uid`` down so that ``points`` more would destroy it (G23.511): shields
    down, internal boxes removed until boxes plus working weapons make ``points``."""
    st = b.state
    u = row(b, uid)
    st.shields[u] = 0
    extra = int(st.boxes[u].sum()) + int((~st.w_destroyed[b.weapons_of(u)]).sum()) - points
    assert extra >= 0
    for k in range(st.boxes.shape[1]):
        take = min(extra, int(st.boxes[u, k]))
        st.boxes[u, k] -= take
        extra -= take


# ---------------------------------------------------------------------- two generators (G23.12x)


def test_g23_122_two_20_point_fields_against_35_points_the_older_goes_to_0_the_other_to_5():
    # the Tiger's two radius-0 fields (5 energy: 20 points each, G23.42); the Klingon closes
    b = _battle(unit("tiger", "lyran-tiger", "blue", "0410", "A"),
                unit("kli", "klingon-cadet", "red", "0406", "D", 8))
    run_to(b, 1, 1)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[0]})  # released impulse 2
    _go(b, {("tiger", "ESG-2"): ANNOUNCE[0]})  # released impulse 3: younger
    assert _field(b, "tiger", "ESG-1") == (EsgPhase.ACTIVE, 20)
    _needing(b, "kli", 35)
    _go(b)  # impulse 4: the Klingon enters the Tiger's hex
    assert hex_of(b, "kli") == hex_of(b, "tiger")
    # the field active longer is resolved completely first, with no gap between them
    assert _field(b, "tiger", "ESG-1") == (EsgPhase.IDLE, 0)
    assert _field(b, "tiger", "ESG-2") == (EsgPhase.ACTIVE, 5)
    (hit,) = of(b, "EsgStruck", target="kli")  # (G23.512) one volley for both fields
    assert (hit.points, hit.contact) == (35, "enters")
    assert b.state.status[row(b, "kli")] == Status.DESTROYED


def test_g23_122_fields_released_together_meet_in_the_owners_order():
    b = _battle(unit("tiger", "lyran-tiger", "blue", "0410", "A"),
                unit("kli", "klingon-cadet", "red", "0406", "D", 8))
    run_to(b, 1, 1)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[0], ("tiger", "ESG-2"): ANNOUNCE[0]})
    _go(b)
    _needing(b, "kli", 35)
    _go(b)
    # PROPOSAL: the owner's choice defaults to the generators' own order
    assert _field(b, "tiger", "ESG-1") == (EsgPhase.IDLE, 0)
    assert _field(b, "tiger", "ESG-2") == (EsgPhase.ACTIVE, 5)


def test_g23_121_one_generator_may_be_released_while_the_other_operates_at_another_radius():
    b = _battle(unit("tiger", "lyran-tiger", "blue", "0410", "A"),
                unit("kli", "klingon-cadet", "red", "0402", "D", 0))
    run_to(b, 1, 1)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[3]})
    _go(b, {("tiger", "ESG-2"): ANNOUNCE[1]})  # announced while ESG-1 operates
    _go(b, {("tiger", "ESG-1"): DROP})  # one of two shut down, the other runs on
    assert _field(b, "tiger", "ESG-1") == (EsgPhase.IDLE, 0)
    assert _field(b, "tiger", "ESG-2") == (EsgPhase.ACTIVE, esg_strength(1, TIGER_ENERGY))
    assert not of(b, "EsgDropped", reason="collapsed")  # (G23.71 is for two ships only)


def test_g23_42_radius_2_with_3_energy_makes_a_10_point_field_in_play():
    b = _battle(unit("tiger", "lyran-tiger", "blue", "0410", "A"),
                unit("kli", "klingon-cadet", "red", "0402", "D", 0))
    run_to(b, 1, 1)
    b.state.esg_stored[weapon(b, "tiger", "ESG-1")] = 3  # (G23.211) 3 of 5 stored
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[2]})
    _go(b)
    (rel,) = of(b, "EsgReleased")
    assert (rel.radius, rel.energy, rel.strength) == (2, 3, 10)


def test_g23_323_example_activated_impulse_10_of_turn_2_not_again_before_turn_4_impulse_1():
    b = _battle(unit("tiger", "lyran-tiger", "blue", "0410", "A"),
                unit("kli", "klingon-cadet", "red", "0402", "D", 0), ipt=32)
    w = weapon(b, "tiger", "ESG-1")
    run_to(b, 2, 6)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[2]})  # announced impulse 6 (lead 4, G23.31)
    run_to(b, 2, 10)
    _go(b)
    assert of(b, "EsgReleased", turn=2, impulse=10)
    run_to(b, 2, 20)
    _go(b, {("tiger", "ESG-1"): DROP})  # dropped before the end of turn 2
    run_to(b, 3, 28)
    assert b.esg_blockers(w)[ANNOUNCE[2]].startswith("G23.323")
    with pytest.raises(IllegalOrderError, match="G23.323"):
        _go(b, {("tiger", "ESG-1"): ANNOUNCE[2]})
    _go(b)
    assert (b.state.turn, b.state.impulse) == (3, 29)
    assert ANNOUNCE[2] not in b.esg_blockers(w)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[2]})  # announced impulse 29 of turn 3
    run_to(b, 4, 1)
    _go(b)
    assert of(b, "EsgReleased", turn=4, impulse=1)


# ---------------------------------------------------------------------- two ships (G23.7x)


def _two_lyrans(tiger_hex: str, lyr_hex: str, lyr_facing: str = "D", lyr_speed: int = 0):
    return _battle(unit("tiger", "lyran-tiger", "blue", tiger_hex, "A"),
                   unit("lyr", "lyran-cadet", "red", lyr_hex, lyr_facing, lyr_speed))


def test_g23_712_a_field_released_overlapping_another_ships_field_collapses():
    b = _two_lyrans("0410", "0405")  # 5 hexes apart
    run_to(b, 1, 1)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[3]})
    _go(b, {("lyr", "ESG-1"): ANNOUNCE[2]})  # 3 + 2 >= 5: the spheres would overlap
    assert _field(b, "tiger") == (EsgPhase.ACTIVE, esg_strength(3, TIGER_ENERGY))
    _go(b)
    assert of(b, "EsgReleased", unit="lyr", impulse=3)
    assert of(b, "EsgDropped", unit="lyr", impulse=3, reason="collapsed")
    assert _field(b, "lyr") == (EsgPhase.IDLE, 0)
    assert b.state.esg_stored[weapon(b, "lyr", "ESG-1")] == 0  # the energy is lost
    assert _field(b, "tiger") == (EsgPhase.ACTIVE, esg_strength(3, TIGER_ENERGY))


def test_g23_712_fields_released_together_both_fail():
    b = _two_lyrans("0410", "0405")
    run_to(b, 1, 1)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[3], ("lyr", "ESG-1"): ANNOUNCE[2]})
    _go(b)
    assert {e.unit for e in of(b, "EsgDropped", reason="collapsed")} == {"tiger", "lyr"}
    assert _field(b, "tiger") == _field(b, "lyr") == (EsgPhase.IDLE, 0)


def test_g23_71_fields_clear_of_each_other_both_form():
    b = _two_lyrans("0410", "0405")
    run_to(b, 1, 1)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[2], ("lyr", "ESG-1"): ANNOUNCE[2]})  # 2 + 2 < 5
    _go(b)
    assert _field(b, "tiger")[0] == _field(b, "lyr")[0] == EsgPhase.ACTIVE
    assert not of(b, "EsgDropped")


def test_g23_711_a_field_dropped_in_the_step_no_longer_bars_a_release():
    b = _two_lyrans("0410", "0405")
    run_to(b, 1, 1)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[3]})
    _go(b, {("lyr", "ESG-1"): ANNOUNCE[2]})
    # in the step of the cadet's release the Tiger drops its field: deactivation comes first
    assert (b.state.turn, b.state.impulse) == (1, 3)
    _go(b, {("tiger", "ESG-1"): DROP})
    assert not of(b, "EsgDropped", reason="collapsed")
    assert _field(b, "lyr") == (EsgPhase.ACTIVE, esg_strength(2, CADET_ENERGY))


def test_g23_713_ships_in_one_hex_with_fields_of_the_same_radius_damage_each_other():
    b = _two_lyrans("0410", "0410", "A")
    run_to(b, 1, 1)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[1], ("lyr", "ESG-1"): ANNOUNCE[1]})
    _go(b)
    big, small = esg_strength(1, TIGER_ENERGY), esg_strength(1, CADET_ENERGY)
    (met,) = of(b, "EsgFieldsMet")
    assert met.points == small
    assert _field(b, "tiger") == (EsgPhase.ACTIVE, big - small)
    assert _field(b, "lyr") == (EsgPhase.IDLE, 0)
    assert of(b, "EsgDropped", unit="lyr", reason="exhausted")


def test_g23_713_ships_in_one_hex_with_fields_of_different_radii_collapse():
    b = _two_lyrans("0410", "0410", "A")
    run_to(b, 1, 1)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[1], ("lyr", "ESG-1"): ANNOUNCE[0]})
    _go(b)
    assert {e.unit for e in of(b, "EsgDropped", reason="collapsed")} == {"tiger", "lyr"}
    assert not of(b, "EsgFieldsMet")


def test_g23_73_moving_fields_of_two_ships_strike_each_other_before_the_ship():
    b = _two_lyrans("0410", "0402", "D", 8)
    run_to(b, 1, 1)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[2], ("lyr", "ESG-1"): ANNOUNCE[1]})
    big, small = esg_strength(2, TIGER_ENERGY), esg_strength(1, CADET_ENERGY)
    while not of(b, "EsgFieldsMet"):
        _go(b)
        assert b.state.impulse <= 6
    (met,) = of(b, "EsgFieldsMet")
    d = hexmap.distance(hex_of(b, "tiger"), hex_of(b, "lyr"))
    assert d == 2 + 1  # (G23.73) the rings share a hex
    assert (met.unit, met.other_unit, met.points) == ("tiger", "lyr", small)
    assert _field(b, "tiger") == (EsgPhase.ACTIVE, big - small)
    assert _field(b, "lyr") == (EsgPhase.IDLE, 0) and not of(b, "EsgStruck")
    _go(b)  # next impulse the cadet itself enters the Tiger's weakened ring
    (hit,) = of(b, "EsgStruck", target="lyr")
    assert hit.points == big - small


# ---------------------------------------------------------------------- zero radius (G23.72x)


def test_g23_72_zero_radius_friendly_unit_in_the_hex_is_inside_an_enemy_outside():
    b = _battle(unit("lyr", "lyran-cadet", "blue", "0410", "A"),
                unit("ally", "klingon-cadet", "blue", "0410", "A", 2),
                unit("kli", "klingon-cadet", "red", "0410", "D", 2))
    run_to(b, 1, 1)
    _go(b, {("lyr", "ESG-1"): ANNOUNCE[0]})  # released impulse 2 with both in the hex
    while b.state.impulse < 4:
        _go(b)
    assert hex_of(b, "ally") != "0410" and hex_of(b, "kli") != "0410"  # both left on impulse 4
    # (G23.721) the designated insider strikes the field leaving; the outsider does not
    (hit,) = of(b, "EsgStruck")
    assert (hit.target, hit.contact, hit.points) == ("ally", "from_inside",
                                                    esg_strength(0, CADET_ENERGY))


def test_g23_722_two_zero_radius_fields_of_one_ship_share_their_insiders():
    b = _battle(unit("tiger", "lyran-tiger", "blue", "0410", "A"),
                unit("ally", "klingon-cadet", "blue", "0410", "A", 2),
                unit("kli", "klingon-cadet", "red", "0410", "D", 2))
    run_to(b, 1, 1)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[0], ("tiger", "ESG-2"): ANNOUNCE[0]})
    while b.state.impulse < 4:
        _go(b)
    # the ally strikes both fields from inside (one volley, G23.512); the enemy neither
    (hit,) = of(b, "EsgStruck")
    assert (hit.target, hit.contact, hit.points) == ("ally", "from_inside",
                                                    2 * esg_strength(0, TIGER_ENERGY))


def test_g23_723_parallel_moves_hit_outsiders_of_a_zero_radius_field_not_insiders():
    b = _battle(unit("lyr", "lyran-cadet", "blue", "0410", "A", 8),
                unit("ally", "klingon-cadet", "blue", "0410", "A", 8),
                unit("kli", "klingon-cadet", "red", "0410", "A", 8))
    run_to(b, 1, 1)
    _go(b, {("lyr", "ESG-1"): ANNOUNCE[0]})
    _go(b)  # impulse 3: all three move together, still in one hex
    assert hex_of(b, "lyr") == hex_of(b, "ally") == hex_of(b, "kli")
    (hit,) = of(b, "EsgStruck")
    assert (hit.target, hit.contact) == ("kli", "enters")


def test_g23_55_drone_strikes_a_zero_radius_field_before_its_target():
    drone = unit("drone", "drone", "red", "0406", "D", 8, controller="robot-drone",
                 target="lyr")
    b = _battle(unit("lyr", "lyran-cadet", "blue", "0410", "A"),
                unit("kli", "klingon-cadet", "red", "0201", "A"), drone)
    run_to(b, 1, 1)
    _go(b, {("lyr", "ESG-1"): ANNOUNCE[0]})
    while b.state.status[row(b, "drone")] == Status.ACTIVE:
        _go(b)
        assert b.state.impulse <= 5
    (hit,) = of(b, "EsgStruck", target="drone")
    assert hit.points == b.rules.drone_strength
    assert not of(b, "SeekingHit")
    assert _field(b, "lyr") == (EsgPhase.ACTIVE, esg_strength(0, CADET_ENERGY) - hit.points)


# ---------------------------------------------------------------------- damage (G23.5x)


def test_g23_511_example_field_5_against_a_drone_is_left_at_1_in_play():
    drone = unit("drone", "drone", "red", "0404", "D", 8, controller="robot-drone",
                 target="lyr")
    b = _battle(unit("lyr", "lyran-cadet", "blue", "0410", "A"),
                unit("kli", "klingon-cadet", "red", "0201", "A"), drone)
    run_to(b, 1, 1)
    _go(b, {("lyr", "ESG-1"): ANNOUNCE[2]})
    _go(b)
    b.state.esg_strength[weapon(b, "lyr", "ESG-1")] = 5  # a field worn down to 5 points
    while not of(b, "EsgStruck"):
        _go(b)
    assert b.state.status[row(b, "drone")] == Status.DESTROYED
    assert _field(b, "lyr") == (EsgPhase.ACTIVE, 1)


def test_g23_53_the_field_damages_friendly_ships_too():
    b = _battle(unit("lyr", "lyran-cadet", "blue", "0410", "A"),
                unit("ally", "klingon-cadet", "blue", "0405", "D", 8),
                unit("kli", "klingon-cadet", "red", "0201", "A"))
    run_to(b, 1, 1)
    _go(b, {("lyr", "ESG-1"): ANNOUNCE[2]})
    while not of(b, "EsgStruck"):
        _go(b)
        assert b.state.impulse <= 5
    (hit,) = of(b, "EsgStruck")
    assert (hit.target, hit.points) == ("ally", esg_strength(2, CADET_ENERGY))


def test_g23_571_slower_ship_entering_the_ring_is_struck_though_the_lyran_then_moves_away():
    # Lyran speed 8 moving away, Klingon speed 4 chasing: on impulse 4 both move, the slower
    # first (C1.3); the Klingon reaches the radius-3 ring, then the Lyran draws it away again
    b = _battle(unit("lyr", "lyran-cadet", "blue", "0412", "D", 8),
                unit("kli", "klingon-cadet", "red", "0410", "D", 4))
    run_to(b, 1, 1)
    _go(b, {("lyr", "ESG-1"): ANNOUNCE[3]})  # released impulse 2, the Klingon on the ring
    assert hexmap.distance(hex_of(b, "lyr"), hex_of(b, "kli")) == 3
    _go(b)  # impulse 3: the Lyran moves away alone (G23.562: no damage)
    _go(b)  # impulse 4
    assert hexmap.distance(hex_of(b, "lyr"), hex_of(b, "kli")) == 4
    (hit,) = of(b, "EsgStruck", impulse=4)
    assert (hit.target, hit.contact, hit.points) == ("kli", "enters",
                                                    esg_strength(3, CADET_ENERGY))


def test_g23_54_hollow_moving_inside_the_sphere_is_harmless_g23_5131_leaving_hits_the_far_shield():
    b = _battle(unit("tiger", "lyran-tiger", "blue", "0410", "A"),
                unit("ally", "klingon-cadet", "blue", "0411", "D", 2),
                unit("kli", "klingon-cadet", "red", "0201", "A"))
    run_to(b, 1, 1)
    _go(b, {("tiger", "ESG-1"): ANNOUNCE[3]})  # released impulse 2, the ally 1 hex out
    run_to(b, 1, 4)
    assert hex_of(b, "ally") == "0412" and not of(b, "EsgStruck")  # (G23.54) inside: nothing
    while not of(b, "EsgStruck"):
        _go(b)
    assert (b.state.impulse, hex_of(b, "ally")) == (8, "0413")
    (hit,) = of(b, "EsgStruck")
    (facing_ship,) = hexmap.shields_hit("0413", "D", "0410")
    # (G23.5131) moving out of the sphere: the shield opposite the one facing the Tiger
    assert (hit.target, hit.contact) == ("ally", "from_inside")
    assert hit.shield == (facing_ship + 2) % 6 + 1 == 1


def test_g23_621_a_cloaked_ship_is_struck_as_if_not_cloaked():
    b = _battle(unit("lyr", "lyran-cadet", "blue", "0410", "A"),
                unit("kli", "klingon-cadet", "red", "0405", "D", 8))
    run_to(b, 1, 1)
    _go(b, {("lyr", "ESG-1"): ANNOUNCE[2]})
    b.state.cloaked[row(b, "kli")] = True
    _go(b)  # impulse 3: the cloaked Klingon enters the ring
    (hit,) = of(b, "EsgStruck", impulse=3)
    assert (hit.target, hit.points) == ("kli", esg_strength(2, CADET_ENERGY))


def test_g23_52_example_drone_and_field_passing_each_other_is_a_jumper():
    # the ship moves its ring onto the drone's hex while the drone moves through it (C1.3:
    # ships first); the drone cannot pass the field unharmed
    drone = unit("drone", "drone", "red", "0415", "A", 8, controller="robot-drone",
                 target="lyr")
    b = _battle(unit("lyr", "lyran-cadet", "blue", "0401", "D", 8),
                unit("kli", "klingon-cadet", "red", "0201", "A"), drone)
    run_to(b, 1, 1)
    _go(b, {("lyr", "ESG-1"): ANNOUNCE[3]})
    while not of(b, "EsgStruck"):
        _go(b)
        assert b.state.impulse <= 7
    (hit,) = of(b, "EsgStruck")
    assert hexmap.distance(hex_of(b, "lyr"), hex_of(b, "drone")) == 2  # now inside the ring
    assert (hit.target, hit.contact, hit.points) == ("drone", "jumps", 4)
    assert b.state.status[row(b, "drone")] == Status.DESTROYED
    assert _field(b, "lyr") == (EsgPhase.ACTIVE, esg_strength(3, CADET_ENERGY) - 4)


# ---------------------------------------------------------------------- random play


def _random_esg_game(seed: int) -> int:
    """Tiger against a Lyran cadet and a Klingon, random legal orders (ESG orders included);
    checks the G23.71 invariant at every decision point. Returns the fields released."""
    b = _battle(unit("tiger", "lyran-tiger", "blue", "0410", "A", 6),
                unit("lyr", "lyran-cadet", "red", "0404", "D", 8),
                unit("kli", "klingon-cadet", "red", "0606", "E", 4), seed=seed)
    g = np.random.default_rng(seed)
    st = b.state
    rows = [int(w) for u in b.agent_units() for w in b.esg_rows(u)]
    while not b.done:
        live = [w for w in rows if st.esg_phase[w] == EsgPhase.ACTIVE and st.esg_strength[w] > 0
                and st.status[st.w_owner[w]] == Status.ACTIVE]
        for i, a in enumerate(live):
            assert 0 < st.esg_strength[a] <= esg_strength(0, TIGER_ENERGY)
            for c in live[i + 1:]:
                oa, oc = st.w_owner[a], st.w_owner[c]
                if oa != oc:  # (G23.71, G23.73) never two ships' fields sharing a hex
                    d = hexmap.distance_np(st.x[oa], st.z[oa], st.x[oc], st.z[oc])
                    assert d > st.esg_radius[a] + st.esg_radius[c]
        orders = random_orders(b, g)
        for w in rows:
            if st.status[st.w_owner[w]] != Status.ACTIVE:
                continue
            blocked = b.esg_blockers(w)
            legal = [v for v in range(7) if v not in blocked]
            if g.random() < 0.3:
                orders[int(st.w_owner[w])].esg[w] = int(legal[g.integers(len(legal))])
        b.step(orders)
    return len(of(b, "EsgReleased"))


def test_random_play_with_two_esg_ships_keeps_fields_apart():
    released = sum(_random_esg_game(seed) for seed in range(6))
    assert released > 0


def test_g23_51_an_esg_is_never_a_direct_fire_weapon():
    b = _two_lyrans("0410", "0405")
    run_to(b, 1, 1)
    w = weapon(b, "tiger", "ESG-1")
    assert all(why.startswith("G23.51") for why in b.fire_blockers(w))
    with pytest.raises(IllegalOrderError, match="G23.51"):
        b.step({row(b, "tiger"): Orders(fire={w: row(b, "lyr")})})


def test_g23_52_drone_and_ship_entering_together_take_one_point_each_in_turn_smallest_first():
    drone = unit("drone", "drone", "red", "0405", "D", 8, controller="robot-drone",
                 target="lyr")
    b = _battle(unit("lyr", "lyran-cadet", "blue", "0410", "A"),
                unit("kli", "klingon-cadet", "red", "0405", "D", 8), drone)
    run_to(b, 1, 1)
    _go(b, {("lyr", "ESG-1"): ANNOUNCE[2]})  # 7 points (G23.42)
    _go(b)  # released on impulse 2; on impulse 3 both enter the ring together
    assert hex_of(b, "drone") == hex_of(b, "kli") == "0408"
    hits = {e.target: e.points for e in of(b, "EsgStruck", impulse=3)}
    # drone, ship, drone, ship, drone, ship, drone: the drone's 4 destroy it (G23.511)
    assert hits == {"drone": 4, "kli": 3}
    assert b.state.status[row(b, "drone")] == Status.DESTROYED
    assert _field(b, "lyr") == (EsgPhase.IDLE, 0)
