"""Rendering (issue 4): PettingZoo's render test, pixel checks of units and shots, video files."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import require

require("PIL")

import sfb_env  # noqa: E402
from sfb_env.engine import Maneuver, Orders, Status, make_battle  # noqa: E402
from sfb_env.render import Renderer, VideoWriter, colors  # noqa: E402
from sfb_env.render.geometry import ring_hexes  # noqa: E402

FED = colors.RACE["federation"]
KLINGON = colors.RACE["klingon"]


def duel(fed_hex: str = "0510", kli_hex: str = "0505") -> dict:
    """Two stationary cadet cruisers facing each other on sector A."""
    return {
        "name": "render-duel", "impulses_per_turn": 8, "map": "A", "sides": ["fed", "kli"],
        "turn_limit": 3,
        "units": [
            {"id": "fed", "class": "fed-cadet", "side": "fed", "hex": fed_hex, "facing": "A",
             "speed": 0, "controller": "agent"},
            {"id": "kli", "class": "klingon-cadet", "side": "kli", "hex": kli_hex, "facing": "D",
             "speed": 0, "controller": "agent"},
        ],
        "victory": {"kind": "sandbox"},
    }


def pixel(frame: np.ndarray, xy: tuple[float, float]) -> tuple[int, int, int]:
    x, y = xy
    return tuple(int(v) for v in frame[round(y), round(x)])


def near(frame: np.ndarray, xy: tuple[float, float], color, radius: int = 3) -> bool:
    """Whether ``color`` occurs within ``radius`` pixels of ``xy``."""
    x, y = round(xy[0]), round(xy[1])
    patch = frame[y - radius:y + radius + 1, x - radius:x + radius + 1]
    return bool(np.any(np.all(patch == np.array(color, dtype=np.uint8), axis=-1)))


def test_pettingzoo_render_test_passes_for_both_modes():
    require("pygame")  # human mode, headless under SDL_VIDEODRIVER=dummy (conftest)
    from pettingzoo.test import render_test
    from pettingzoo.utils.conversions import parallel_to_aec

    def env_fn(render_mode=None):
        return parallel_to_aec(sfb_env.parallel_env("cth-01", render_mode=render_mode))

    render_test(env_fn)


def test_rgb_array_frame_is_uint8_hxwx3_of_the_requested_size():
    battle = make_battle("cth-03", seed=0)
    frame = Renderer(battle, size=(800, 600)).frame()
    assert frame.shape == (600, 800, 3) and frame.dtype == np.uint8


def test_c1_4_moved_ship_is_drawn_at_its_new_hex_centre():
    battle = make_battle("cth-01", seed=0)
    renderer = Renderer(battle, view="map")
    before = renderer.frame(battle)
    assert pixel(before, renderer.hex_center("0111")) == FED
    battle.step({battle.unit_index["constellation"]: Orders(maneuver=Maneuver.STRAIGHT)})
    assert battle.label(battle.unit_index["constellation"]) == "0110"  # facing A: one hex up
    after = renderer.frame(battle)
    assert pixel(after, renderer.hex_center("0110")) == FED
    assert not near(after, renderer.hex_center("0111"), FED, radius=4)


@pytest.mark.parametrize("view", ["map", "units"])
def test_e1_shot_draws_a_line_between_firer_and_target(view):
    battle = make_battle(duel(), seed=1)
    fed, kli = battle.unit_index["fed"], battle.unit_index["kli"]
    battle.step({})  # impulse 0 -> 1
    phaser = battle.weapon_ids.index("fed.PH1-1")
    assert battle.fire_blockers(phaser, [kli]) == [None]
    battle.step({fed: Orders(fire={phaser: kli})})
    shot = next(e for e in battle.events if e.kind == "Fired")
    color = colors.weapon_color("ph-1")
    if shot.damage <= 0:
        color = colors.mix(color, colors.MAP_FILL, 0.55)
    renderer = Renderer(battle, view=view)
    frame = renderer.frame()
    (ax, ay), (bx, by) = renderer.hex_center("0510"), renderer.hex_center("0505")
    for t in (0.3, 0.4, 0.6, 0.7):
        assert near(frame, (ax + (bx - ax) * t, ay + (by - ay) * t), color), t
    aside = renderer.hex_center("0808")
    assert not near(frame, aside, color, radius=6)
    # the next frame without new fire shows no line
    battle.step({})
    assert not near(renderer.frame(), (ax + (bx - ax) * 0.3, ay + (by - ay) * 0.3), color)


def test_d4_destroyed_ship_disappears():
    battle = make_battle(duel(), seed=1)
    kli = battle.unit_index["kli"]
    renderer = Renderer(battle, view="map")
    centre = renderer.hex_center("0505")
    assert near(renderer.frame(), centre, KLINGON, radius=2)
    battle.apply_damage(kli, 1, 500)
    assert battle.state.status[kli] == Status.DESTROYED
    assert not near(renderer.frame(), centre, KLINGON, radius=int(renderer.camera.radius * 0.6))
    battle.step({})  # the explosion is gone too; the counter never returns
    assert not near(renderer.frame(), centre, KLINGON, radius=int(renderer.camera.radius * 0.6))


def test_units_view_frames_every_unit_and_zooms_closer_than_the_map():
    battle = make_battle("cth-03", seed=0)
    units = Renderer(battle, view="units")
    whole = Renderer(battle, view="map")
    units.frame(), whole.frame()
    assert units.camera.radius > whole.camera.radius
    width, height = units.map_size
    for u in range(5):
        x, y = units.hex_center(battle.label(u))
        assert 0 < x < width and 0 < y < height


def test_sides_of_one_race_are_drawn_apart():
    doc = duel()
    doc["units"][1]["class"] = "fed-cadet"
    battle = make_battle(doc, seed=0)
    renderer = Renderer(battle, view="map")
    frame = renderer.frame()
    blue, red = pixel(frame, renderer.hex_center("0510")), pixel(frame, renderer.hex_center("0505"))
    assert blue == FED and red != FED


def test_esg_ring_hexes_are_the_hexes_at_that_range():
    from sfb_env import hexmap

    ring = ring_hexes(5, 5, 2)
    assert len(ring) == 12 and len(set(ring)) == 12
    assert all(int(hexmap.distance_np(5, 5, x, z)) == 2 for x, z in ring)


@pytest.mark.parametrize("suffix", [".mp4", ".gif"])
def test_video_reads_back_with_the_frame_count_and_size(tmp_path, suffix):
    imageio = require("imageio.v2")
    if suffix == ".mp4":
        require("imageio_ffmpeg")
    env = sfb_env.parallel_env("cth-01", render_mode="rgb_array", illegal_action="noop")
    obs, _ = env.reset(seed=2)
    frames = [env.render()]
    while env.agents and len(frames) < 6:
        a = env.agents[0]
        obs, *_ = env.step({a: env.action_space(a).sample(mask=obs[a]["action_mask"])})
        frames.append(env.render())
    path = tmp_path / f"battle{suffix}"
    with VideoWriter(path, fps=4) as writer:
        for frame in frames:
            writer.append(frame)
    reader = imageio.get_reader(path)
    back = [np.asarray(f) for f in reader]
    reader.close()
    assert len(back) == len(frames)
    assert back[0].shape[:2] == frames[0].shape[:2]


def test_video_writer_refuses_unknown_formats_and_mixed_sizes(tmp_path):
    with pytest.raises(ValueError, match="mp4"):
        VideoWriter(tmp_path / "x.avi")
    writer = VideoWriter(tmp_path / "x.gif")
    writer.append(np.zeros((20, 30, 3), np.uint8))
    with pytest.raises(ValueError, match="differs"):
        writer.append(np.zeros((22, 30, 3), np.uint8))


def test_human_mode_without_pygame_names_the_extra(monkeypatch):
    import sys

    from gymnasium.error import DependencyNotInstalled

    monkeypatch.setitem(sys.modules, "pygame", None)  # import pygame -> ImportError
    renderer = Renderer(make_battle("cth-01", seed=0))
    with pytest.raises(DependencyNotInstalled, match=r"sfb-env\[human\]"):
        renderer.show(renderer.frame())
