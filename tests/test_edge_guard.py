"""The map-edge guard (``agents.edge_guard``) and ``SB3Policy``'s ``guard="map-edge"``: a
trained captain's maneuver kept off moves that leave the map sooner than another allowed one
(leaving the map disengages the ship, C1.4, and loses the duel, SCENARIOS #5)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from gymnasium import spaces

from agents import edge_guard
from agents.observation_view import OwnShip, own_ship
from agents.sb3_policy import SB3Policy
from sfb_env.engine.types import Maneuver
from sfb_env.env.observation_layout import OWN

STRAIGHT, LEFT, RIGHT = int(Maneuver.STRAIGHT), int(Maneuver.TURN_LEFT), int(Maneuver.TURN_RIGHT)
SLIP_LEFT, SLIP_RIGHT = int(Maneuver.SIDESLIP_LEFT), int(Maneuver.SIDESLIP_RIGHT)
MOVES = (STRAIGHT, LEFT, RIGHT)


def _own(column=10, row=10, facing=0, straight=8, moves_next=True, area=(1, 28, 1, 16)):
    first_col, last_col, first_row, last_row = area
    edges = (column - first_col, last_col - column, row - first_row, last_row - row)
    return OwnShip(column=column, row=row, edges=edges, facing=facing, speed=12,
                   moves_next=moves_next, can_turn=straight >= edge_guard.TURN_MODE,
                   straight=straight, shields=np.ones(6), internal=0.0)


def test_in_open_space_every_move_stays_on_the_map_for_the_whole_horizon():
    own = _own(column=14, row=8)
    assert edge_guard.escape_depths(own, MOVES) == {m: edge_guard.HORIZON for m in MOVES}
    assert edge_guard.safest(own, MOVES) == set(MOVES)


def test_a_straight_move_off_the_north_edge_scores_minus_one_c1_4():
    own = _own(row=1, facing=0)  # (C1.2) A is up: the hex ahead is row 0, off the map
    depths = edge_guard.escape_depths(own, MOVES)
    assert depths[STRAIGHT] == -1
    assert edge_guard.safest(own, MOVES) == {m for m, d in depths.items() if d == max(
        depths.values())}
    assert STRAIGHT not in edge_guard.safest(own, MOVES)


def test_turn_mode_limits_the_escape_c3_2():
    """Facing the north edge three rows out: one straight hex short of the turn mode, going
    straight leaves the ship two moves before it must turn off the map; one hex more of
    straight movement behind it and it can turn away after that move (a turn's hex counts as
    the first straight one, C3.4)."""
    short = edge_guard.escape_depths(_own(row=3, facing=0, straight=0), MOVES)
    assert short == {STRAIGHT: 2, LEFT: edge_guard.HORIZON, RIGHT: edge_guard.HORIZON}
    assert edge_guard.safest(_own(row=3, facing=0, straight=0), MOVES) == {LEFT, RIGHT}
    ready = edge_guard.escape_depths(_own(row=3, facing=0, straight=1), MOVES)
    assert ready == {m: edge_guard.HORIZON for m in MOVES}


def test_a_turn_on_the_edge_row_leaves_no_move_after_it():
    """On row 1 facing the edge, a turn enters the next column's row 1; facing up-left or
    up-right with the turn mode unmet again, every move from there leaves the map."""
    depths = edge_guard.escape_depths(_own(column=10, row=1, facing=0), MOVES)
    assert depths == {STRAIGHT: -1, LEFT: 0, RIGHT: 0}


def test_moves_on_map_counts_straight_moves_to_the_edge_without_turns():
    area = edge_guard.play_area(_own())
    x, z = 9, 0  # axial; facing A runs up the column toward row 1
    from sfb_env import hexmap
    col, row = hexmap.axial_to_offset_np(x, z)
    left = edge_guard.moves_on_map(area, x, z, 0, 0, horizon=20, turn_mode=99)
    assert left == int(row) - 1  # rows row-1 .. 1 ahead, never a turn


def test_sideslip_keeps_the_facing_and_enters_the_forward_side_hex_c4_2():
    own = _own(column=1, row=8, facing=0, area=(1, 28, 1, 16))  # the west edge on the left
    depths = edge_guard.escape_depths(own, (STRAIGHT, SLIP_LEFT, SLIP_RIGHT))
    assert depths[SLIP_LEFT] == -1  # forward-left of column 1 is column 0
    assert depths[SLIP_RIGHT] >= 0 and depths[STRAIGHT] >= 0


def test_a_ship_that_does_not_move_next_is_never_narrowed_c1_41():
    own = _own(row=1, facing=0, moves_next=False)
    assert edge_guard.safest(own, [0]) == {0}
    assert edge_guard.safest(own, [0, 6, 7]) == {0, 6, 7}  # tactical maneuvers rotate in place


def test_at_a_turns_start_none_counts_as_straight():
    """With the speed chosen on the same order, NONE is open beside the moves and is straight
    for a ship that moves on the impulse: facing the edge on row 1, it leaves the map."""
    own = _own(row=1, facing=0, moves_next=False)
    depths = edge_guard.escape_depths(own, [0, STRAIGHT, LEFT, RIGHT])
    assert depths[0] == depths[STRAIGHT] == -1
    assert edge_guard.safest(own, [0, STRAIGHT, LEFT, RIGHT]) == {LEFT, RIGHT}


def test_play_area_comes_from_the_edge_distances():
    area = edge_guard.play_area(_own(column=5, row=7, area=(2, 20, 3, 15)))
    assert (area.first_column, area.last_column, area.first_row, area.last_row) == (2, 20, 3, 15)


# ------------------------------------------------------------------ SB3Policy's guard


def _vector(own: OwnShip, size: int = 40) -> np.ndarray:
    """An observation vector whose own-ship row (OWN) holds ``own``."""
    v = np.zeros(size, np.float32)
    v[OWN.at("column")] = own.column / OWN.field("column").scale
    v[OWN.at("row")] = own.row / OWN.field("row").scale
    v[OWN.slice("edges")] = np.asarray(own.edges) / OWN.field("edges").scale
    v[OWN.slice("facing")][own.facing] = 1.0
    v[OWN.at("moves_next")] = float(own.moves_next)
    v[OWN.at("can_turn")] = float(own.can_turn)
    v[OWN.at("straight")] = own.straight / OWN.field("straight").scale
    return v


class _PrefersStraight:
    """A stand-in model: per component, the allowed value it prefers most (maneuver: straight,
    then right, then left); it counts its calls."""

    def __init__(self, size: int, nvec: list[int]):
        self.observation_space = SimpleNamespace(shape=(size,))
        self.nvec = nvec
        self.calls = 0

    def predict(self, vector, action_masks, deterministic=True):
        self.calls += 1
        out, start = [], 0
        order = {1: [STRAIGHT, RIGHT, LEFT, 0]}
        for i, n in enumerate(self.nvec):
            allowed = [v for v in range(n) if action_masks[start + v]]
            prefs = order.get(i, list(range(n)))
            out.append(next(v for v in prefs if v in allowed))
            start += n
        return np.array(out), None


def _policy(guard):
    nvec = [3, 4, 5]  # a weapon position, the maneuver, the speed (``from_nvec``'s shape)
    model = _PrefersStraight(40, nvec)
    return SB3Policy(model=model, guard=guard), model, spaces.MultiDiscrete(nvec)


def test_guarded_policy_turns_instead_of_flying_off_the_edge():
    policy, model, space = _policy("map-edge")
    own = _own(row=2, facing=0)  # straight: row 1 facing the edge, then off the map
    mask = np.ones(12, np.int8)
    mask[3] = 0  # a ship that moves next cannot order NONE
    action = policy.act({"observation": _vector(own), "action_mask": mask}, space)
    assert edge_guard.safest(own, MOVES) == {LEFT, RIGHT}
    assert action[1] == RIGHT  # the model's next choice among the safest
    assert action[0] == 0 and action[2] == 0  # the other components as the model chose them
    assert model.calls == 2


def test_guard_keeps_the_policys_choice_when_it_is_among_the_safest():
    policy, model, space = _policy("map-edge")
    obs = {"observation": _vector(_own(column=14, row=8)), "action_mask": np.ones(12, np.int8)}
    assert policy.act(obs, space)[1] == STRAIGHT and model.calls == 1


def test_unguarded_policy_flies_off_the_edge():
    policy, _, space = _policy("none")
    obs = {"observation": _vector(_own(row=1, facing=0)), "action_mask": np.ones(12, np.int8)}
    assert policy.act(obs, space)[1] == STRAIGHT


def test_own_ship_reads_back_the_test_vector():
    own = _own(column=7, row=2, facing=4, straight=3)
    back = own_ship(_vector(own))
    got = (back.column, back.row, back.edges, back.facing, back.straight)
    assert got == (7, 2, own.edges, 4, 3)


def test_unknown_guard_is_refused_naming_it():
    with pytest.raises(ValueError, match="unknown guard 'walls'.*map-edge"):
        _policy("walls")


def test_the_sidecar_guard_is_the_default_and_guard_none_overrides_it(tmp_path):
    import shutil
    from pathlib import Path

    source = Path(__file__).resolve().parent.parent / "checkpoints" / "klingon-cth03"
    path = tmp_path / "captain.zip"
    shutil.copy(source.with_suffix(".zip"), path)
    sidecar = json.loads(source.with_suffix(".json").read_text())
    assert "guard" not in sidecar and SB3Policy(source.with_suffix(".zip")).guard == "none"
    (tmp_path / "captain.json").write_text(json.dumps({**sidecar, "guard": "map-edge"}))
    assert SB3Policy(path).guard == "map-edge"
    assert SB3Policy(path, guard="none").guard == "none"
    (tmp_path / "captain.json").write_text(json.dumps({**sidecar, "guard": "walls"}))
    with pytest.raises(ValueError, match="captain.zip: unknown guard 'walls'"):
        SB3Policy(path)
