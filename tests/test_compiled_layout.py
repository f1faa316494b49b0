"""The compiled state is ``BattleState`` with a battle axis: pack, unpack, copy, events."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sfb_env import make_battle
from sfb_env.compiled import event_codes, layout
from sfb_env.engine import events as ev
from sfb_env.engine.types import Maneuver, Orders

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)


def test_every_battle_state_array_is_packed_with_a_battle_axis():
    battles = [make_battle("duel-klingon-vs-federation", seed=s) for s in range(3)]
    batch = layout.pack([b.state for b in battles])
    cold = layout.pack_cold([b.state for b in battles])
    assert set(layout.HOT_FIELDS) | set(layout.COLD_FIELDS) == set(layout.ARRAY_FIELDS)
    for name in layout.ARRAY_FIELDS:
        ref = getattr(battles[0].state, name)
        mine = getattr(batch, name) if name in layout.HOT_FIELDS else cold[name]
        assert mine.shape == (3, *ref.shape), name
        assert mine.dtype == ref.dtype, name
    for b, battle in enumerate(battles):
        assert layout.differences(batch, b, battle.state, cold) == []


def test_one_battle_packs_as_a_stack_of_one_into_arrays_of_its_own():
    """``pack`` of one state (its fast path) gives what stacking gives: the same dtype, shape
    and values, C-contiguous and writeable, sharing no memory with the state."""
    battle = make_battle("grad-lyran-vs-hydran", seed=4)
    one = layout.pack([battle.state])
    cold = layout.pack_cold([battle.state])
    for name in layout.ARRAY_FIELDS:
        ref = np.asarray(getattr(battle.state, name))
        mine = getattr(one, name) if name in layout.HOT_FIELDS else cold[name]
        stacked = np.stack([ref])
        assert (mine.dtype, mine.shape) == (stacked.dtype, stacked.shape), name
        assert np.array_equal(mine, stacked), name
        assert mine.flags.c_contiguous and mine.flags.writeable, name
        assert not np.shares_memory(mine, ref), name


def test_unpack_gives_back_the_state_and_its_dice():
    battle = make_battle("cth-03", seed=5)
    for _ in range(12):
        battle.step({battle.unit_index["destruction"]: Orders(maneuver=Maneuver.STRAIGHT)})
    batch = layout.pack([battle.state])
    other = make_battle("cth-03", seed=9)
    layout.unpack_into(batch, 0, other.state)
    assert layout.differences(batch, 0, other.state) == []
    assert other.state.rng.integers(1, 7, size=30).tolist() == (
        battle.state.rng.integers(1, 7, size=30).tolist())


def test_differences_name_the_array_and_index():
    battle = make_battle("cth-01", seed=1)
    batch = layout.pack([battle.state])
    batch.x[0, 2] += 1
    (line,) = layout.differences(batch, 0, battle.state)
    assert line.startswith("x[2]")


def test_generated_copy_kernel_is_current():
    path = Path(layout.__file__).with_name("copy_battle.py")
    assert path.read_text() == layout.copy_kernel_source(), (
        "regenerate sfb_env/compiled/copy_battle.py from layout.copy_kernel_source()")


def test_orders_pack_and_unported_orders_are_refused():
    o = layout.pack_orders([{0: Orders(maneuver=Maneuver.TURN_LEFT, fire={1: 3}, speed=5)}, {}],
                           4, 3)
    assert o.maneuver[0].tolist() == [int(Maneuver.TURN_LEFT), 0, 0, 0]
    assert o.fire[0].tolist() == [-1, 3, -1] and o.fire[1].tolist() == [-1, -1, -1]
    assert o.speed[0, 0] == 5 and o.speed[1, 0] == layout.NO_ORDER
    try:
        layout.pack_orders([{0: Orders(tractor={0: 1})}], 4, 3)
    except ValueError as exc:
        assert "tractor" in str(exc)
    else:
        raise AssertionError("an unported order was accepted")


def test_event_rows_decode_into_engine_events():
    battle = make_battle("duel-klingon-vs-federation", seed=0)
    dec = event_codes.Decoder(battle.unit_ids, battle.weapon_ids, list(battle.scenario.sides),
                              battle.scenario.parity)
    row = np.zeros(event_codes.WIDTH, np.int64)
    row[:8] = [event_codes.CODE["Expired"], 2, 5, 1,
               event_codes.word("reason", "FD1.3 the target is no longer in play"), 0, 0, 0]
    assert dec.decode_row(row) == ev.Expired(2, 5, battle.unit_ids[1],
                                             "FD1.3 the target is no longer in play")
    row[:] = 0
    w = 2
    row[:10] = [event_codes.CODE["Damaged"], 1, 3, 0, 4, 2, 2, 2, 0,
                event_codes.BOX_WEAPON + w]
    assert dec.decode_row(row) == ev.Damaged(1, 3, battle.unit_ids[0], 4, 2, 2,
                                             ("hull", battle.weapon_ids[w]))


@pytest.mark.parametrize("scenario", ["duel-full-romulan-vs-federation", "cth-07",
                                      "grad-isc-full-vs-romulan"])
def test_d4_2_event_rows_hold_a_damaged_row_listing_every_box_and_weapon_of_a_ship(scenario):
    # (D4.2-D4.4) one volley may destroy all of a full-size ship's DAC boxes and weapons; its
    # Damaged row lists each after 8 leading columns (a fixed 56 overflowed, IndexError)
    state = make_battle(scenario, seed=0).state
    width = layout.pack([state]).ev.shape[2]
    items = [int(state.dac_boxes[u].sum()) + int((state.w_owner == u).sum())
             for u in range(state.dac_boxes.shape[0])]
    assert width == 8 + max(items) > event_codes.WIDTH, (items, width)


def test_cadet_event_rows_keep_the_fixed_width():
    state = make_battle("duel-klingon-vs-federation", seed=0).state
    assert layout.pack([state]).ev.shape[2] == event_codes.WIDTH
