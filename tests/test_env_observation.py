"""The observation vector's documented layout, checked on hand-placed units."""

from __future__ import annotations

import numpy as np
import pytest

import sfb_env
from sfb_env.env import observation as layout

OWN = layout.OWN_SIZE


def duel(fed_hex="0505", fed_facing="A", kli_hex="0502", kli_facing="D"):
    return {
        "name": "placed", "impulses_per_turn": 8, "map": "A+B", "sides": ["fed", "kli"],
        "rules": {"speed_choice": True},
        "units": [
            {"id": "fed", "class": "fed-cadet", "side": "fed", "hex": fed_hex,
             "facing": fed_facing, "speed": 8, "controller": "agent"},
            {"id": "kli", "class": "klingon-cadet", "side": "kli", "hex": kli_hex,
             "facing": kli_facing, "speed": 5, "controller": "idle"},
        ],
        "victory": {"kind": "last_side_standing"},
    }


def slot(env, obs, agent="fed", k=0):
    n_weapons = len(env._layouts[agent].racks) + len(env._layouts[agent].weapons)
    start = OWN + 3 * n_weapons + layout.CLOCK_SIZE + k * layout.SLOT_SIZE
    return obs[agent]["observation"][start:start + layout.SLOT_SIZE]


def test_target_dead_ahead_range_bearing_and_facing_shield():
    env = sfb_env.parallel_env(duel())
    obs, _ = env.reset(seed=0)
    s = slot(env, obs)
    assert s[0] == 1.0  # present
    assert s[1:4].tolist() == [1.0, 0.0, 0.0]  # a ship
    assert s[4] == pytest.approx(3 / 30)  # (D1.4) range 3
    assert s[5] == pytest.approx(0.0, abs=1e-6) and s[6] == pytest.approx(1.0)  # dead ahead
    assert s[7] == pytest.approx(0.0, abs=1e-6) and s[8] == pytest.approx(-1.0)  # facing us
    assert s[9:15].tolist() == [1, 0, 0, 0, 0, 0]  # its shield #1 faces us (D3.4)
    assert s[15:21].tolist() == [1.0] * 6
    assert s[23:29].tolist() == [1, 0, 0, 0, 0, 1]  # on our centre line: RF and LF (D2.1)


def test_target_on_the_right_beam():
    # 0804 lies inside our R arc (between the B and C rows), range 3
    env = sfb_env.parallel_env(duel(kli_hex="0804", kli_facing="A"))
    obs, _ = env.reset(seed=0)
    s = slot(env, obs)
    bearing = np.degrees(np.arctan2(s[5], s[6]))
    assert 60 < bearing < 120  # to starboard
    assert s[4] == pytest.approx(3 / 30)
    assert s[23:29].tolist() == [0, 1, 0, 0, 0, 0]  # only in our R arc
    assert s[9:15].tolist() == [0, 0, 0, 0, 1, 0]  # it faces A: we are off its #5 (left rear)


def test_own_block_facing_speed_and_shields():
    env = sfb_env.parallel_env(duel(fed_facing="C"))
    obs, _ = env.reset(seed=0)
    v = obs["fed"]["observation"]
    assert v[0] == pytest.approx(5 / 28) and v[1] == pytest.approx(5 / 32)
    assert v[6:12].tolist() == [0, 0, 1, 0, 0, 0]  # facing C
    assert v[12] == pytest.approx(8 / 8)
    assert v[16:22].tolist() == [1.0] * 6


def test_observation_is_inside_its_space():
    env = sfb_env.parallel_env("cth-03")
    obs, _ = env.reset(seed=0)
    for _ in range(30):
        if not env.agents:
            break
        a = env.agents[0]
        assert env.observation_space(a).contains(obs[a])
        obs, *_ = env.step({a: env.action_space(a).sample(mask=obs[a]["action_mask"])})
