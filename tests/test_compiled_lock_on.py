"""Sensor Lock-On (D6, CTH-DATA §8.1) in compiled code (``compiled.sensors``) against
``engine.sensors`` / ``engine.sensor_ratings`` / ``cloak.effective_range``: the ratings read
from the standard DAC's tracks (D4.33), the lock-on step's dice, results and drones removed,
and the effective range of fire with lock-on lost, scanners and a cloaked target."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_phase_helpers import decoder

from sfb_env.compiled import damage, layout, parity, sensors
from sfb_env.engine import cloak, dac
from sfb_env.engine import sensors as ref_sensors
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import ACTIVE, K_DRONE

# The D7 and the Fed CA (sensor 6 6 5 3 1 0, scanner 0 0 1 3 5 9) under the Chief Engineer.
FULL = parity.variant("cth-07", rules={"energy": "chief"})
CADET = parity.variant("duel-klingon-vs-federation", rules={"lock_on": True})


def _battle(scenario, seed=0):
    battle = make_battle(load_scenario(scenario), seed=seed)
    return battle, damage.fire_tables(battle.setup)


def test_sensor_and_scanner_ratings_follow_the_tracks():
    """(D6, D4.33) For every count of track boxes left the compiled ratings equal
    ``sensor_ratings.sensor`` / ``scanner``; a cadet ship has no track (always locked on, scanner
    0: PROPOSAL [P-049])."""
    battle, ft = _battle(FULL)
    for u in (0, 1):
        for left in range(7):
            battle.state.dac_boxes[u, dac.DacBox.SENSOR] = left
            battle.state.dac_boxes[u, dac.DacBox.SCANNER] = left
            assert ft.sensor_of[u, left] == ref_sensors.sensor(battle, u)
            assert ft.scanner_of[u, left] == ref_sensors.scanner(battle, u)
    cadet, ft = _battle(CADET)
    for u in (0, 1):
        assert ref_sensors.sensor(cadet, u) is None and (ft.sensor_of[u] == -1).all()
        assert (ft.scanner_of[u] == 0).all()


@pytest.mark.parametrize("seed", range(4))
def test_lock_on_step_matches_the_reference(seed):
    """(B2.0, D6) With sensors damaged to every level and drones on the map, the compiled step
    draws the same dice (none at a sensor of 6, [P-048]), sets the same ``locked_on``, removes
    the same drones and logs the same ``LockOn`` and ``Expired`` events."""
    rng = np.random.default_rng(seed)
    ref, ft = _battle(FULL, seed)
    dec = decoder(ref)
    st = ref.state
    drones = np.flatnonzero(st.kind == K_DRONE)
    seen = {"locked": 0, "lost": 0, "expired": 0, "automatic": 0}
    for _ in range(30):
        for u in (0, 1):
            st.dac_boxes[u, dac.DacBox.SENSOR] = int(rng.integers(0, 7))
        st.status[drones] = ACTIVE
        st.launcher[drones] = rng.integers(0, 2, size=len(drones))
        s = layout.pack([ref.copy().state])
        n0 = len(ref.events)
        ref_sensors.lock_on_step(ref)
        sensors.lock_on_step(s.status, s.kind, s.launcher, s.locked_on, s.dac_boxes, s.dice,
                             s.ev, s.ev_count, s.turn, ft.sensor_of, 0)
        assert layout.differences(s, 0, ref.state) == []
        want = ref.events[n0:]
        assert dec.decode(s.ev[0, :s.ev_count[0]]) == want
        for e in want:
            if e.kind == "LockOn":
                seen["locked" if e.locked else "lost"] += 1
                seen["automatic"] += e.die == 0
            seen["expired"] += e.kind == "Expired"
    assert min(seen.values()) > 0, seen


def test_effective_range_matches_the_reference():
    """(D6, G13, G23.621) The range fire counts with lock-on: true, doubled without lock-on,
    2 x true + 5 at a cloaked ship unless an ESG struck it this impulse, plus the firer's
    scanner rating (its boxes destroyed best-first)."""
    ref, ft = _battle(FULL)
    st = ref.state
    rng = np.random.default_rng(3)
    for _ in range(300):
        st.locked_on[:] = rng.random(len(st.locked_on)) < 0.5
        st.cloaked[:] = rng.random(len(st.cloaked)) < 0.3
        st.esg_struck_at[:] = np.where(rng.random(len(st.cloaked)) < 0.3,
                                       st.absolute_impulse, -1)
        st.dac_boxes[:2, dac.DacBox.SCANNER] = rng.integers(1, 7, size=2)
        s = layout.pack([st])
        now = st.absolute_impulse
        for owner, t in ((0, 1), (1, 0)):
            true = int(rng.integers(0, 30))
            want = cloak.effective_range(ref, t, true, owner)
            got = sensors.effective_range(s.locked_on, s.cloaked, s.esg_struck_at, s.dac_boxes,
                                          ft.scanner_of, 0, owner, t, true, now)
            assert got == want
