"""The autoreset's shortcuts: the copy plan (``compiled.restart_plan``) writes battle ``b`` of
every hot and scalar array from the start state and its dice from its prepared row, nothing
else; a plan of arrays that do not match is refused, naming the row; a new battle's first
observation, copied from the one ``reset`` kept, is what observing it gives."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from sfb_env.compiled import layout, restart_plan
from sfb_env.compiled.batch import BattleBatch

pytestmark = pytest.mark.compiled_late


@nb.njit(cache=True)
def _copy(rows, b):
    restart_plan.copy_rows(rows, b)


def _played_batch() -> BattleBatch:
    """Three battles of grad-lyran-vs-hydran a few impulses in (their states apart from the
    start), with autoreset off."""
    bb = BattleBatch("grad-lyran-vs-hydran", num_battles=3, seed=4, autoreset=False)
    bb.reset()
    rng = np.random.default_rng(2)
    for _ in range(6):
        bb.step(bb.sample_actions(rng))
    return bb


def test_the_plan_restarts_one_battle_from_the_start_state_and_its_prepared_dice():
    bb = _played_batch()
    fields = layout.HOT_FIELDS + layout.SCALAR_FIELDS
    assert any(not np.array_equal(getattr(bb.state, f)[1], getattr(bb._start, f)[0])
               for f in fields)  # (the battle moved off the start)
    bb.reset_dice[1] = np.arange(1, bb.reset_dice.shape[1] + 1, dtype=np.uint64)
    before = {f: a.copy() for f, a in zip(bb.state._fields, bb.state, strict=True)}
    _copy(bb._restart_rows, 1)
    for f, got in zip(bb.state._fields, bb.state, strict=True):
        want = before[f].copy()
        if f in fields:
            want[1] = getattr(bb._start, f)[0]
        elif f == "dice":
            want[1] = bb.reset_dice[1]
        assert np.array_equal(got, want), f  # (events and the other battles untouched)


def test_a_plan_of_arrays_that_do_not_match_is_refused_naming_the_row():
    good = (np.zeros((4, 3), np.int64), np.ones((1, 3), np.int64))
    rows = restart_plan.plan([good])
    assert rows[0, restart_plan.ROW_BYTES] == 24 and rows[0, restart_plan.SRC_STEP] == 0
    for bad in ((np.zeros((4, 3), np.int64), np.ones((1, 3), np.int32)),
                (np.zeros((4, 3), np.int64), np.ones((1, 2), np.int64)),
                (np.zeros((4, 3), np.int64), np.ones((2, 3), np.int64)),
                (np.zeros((4, 6), np.int64)[:, ::2], np.ones((1, 3), np.int64))):
        with pytest.raises(ValueError, match="restart plan: row 1 copies"):
            restart_plan.plan([good, bad])


@pytest.mark.parametrize("scenario", ["grad-lyran-vs-hydran", "cth-01"])
def test_a_new_battles_copied_start_observation_is_what_observing_it_gives(scenario):
    # grad-lyran-vs-hydran: tier-2 parts (the restart deferred to FINISH); cth-01: tier 1
    copied, observed = (BattleBatch(scenario, num_battles=8, seed=9) for _ in range(2))
    for bb in (copied, observed):
        bb.reset()
    assert np.array_equal(copied._start_obs.obs, copied.obs[0]) and copied._start_obs.known[0]
    observed._start_obs.known[0] = False  # (as before any reset: each new battle observed)
    rng = np.random.default_rng(0)
    restarts = 0
    for _ in range(120):
        actions = copied.sample_actions(rng)
        for bb in (copied, observed):
            bb.step(actions)
        restarts += int(copied.ended.sum())
        assert np.array_equal(copied.ended, observed.ended)
        for name in ("obs", "masks", "alive", "terminal_obs", "rewards"):
            assert np.array_equal(getattr(copied, name), getattr(observed, name)), name
    assert restarts >= 8  # (battles did end and restart)
