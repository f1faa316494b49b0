"""Rendering (issue 4): PettingZoo's render test, pixel checks of units and shots, video files."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import require

require("PIL")

import sfb_env  # noqa: E402
from sfb_env import hexmap  # noqa: E402
from sfb_env.engine import Maneuver, Orders, Status, UnitKind, make_battle  # noqa: E402
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


def items(renderer: Renderer, kind: str, unit: str | None = None) -> list:
    """The last frame's draw-list items of a kind (and unit)."""
    return [i for i in renderer.scene if i.kind == kind and (unit is None or i.unit == unit)]


def close_to(a, b, tol: float = 1.5) -> bool:
    return abs(a[0] - b[0]) <= tol and abs(a[1] - b[1]) <= tol


def test_destroyed_unit_drawn_as_wreck():
    """(D4.4) A destroyed ship leaves its live counter for a greyed one with an X, at its last
    hex, for the rest of the battle."""
    battle = make_battle(duel(), seed=1)
    kli = battle.unit_index["kli"]
    renderer = Renderer(battle, view="map")
    centre = renderer.hex_center("0505")
    assert near(renderer.frame(), centre, KLINGON, radius=2) and not items(renderer, "wreck")
    battle.apply_damage(kli, 1, 500)
    assert battle.state.status[kli] == Status.DESTROYED
    for _ in range(2):  # the frame of the destruction, and later ones
        frame = renderer.frame()
        r = int(renderer.camera.radius * 0.6)
        assert not near(frame, centre, KLINGON, radius=r)  # no live counter
        assert near(frame, centre, colors.WRECK_X, radius=r)  # the X of the wreck
        (wreck,) = items(renderer, "wreck", "kli")
        assert close_to(wreck.points[0], centre)
        battle.step({})


def test_destroyed_drone_drawn_as_wreck_on_the_frame_of_its_destruction():
    """A drone shot down (FD1.54) shows a wreck where it was, on that frame only: the shot
    never ends in an empty hex."""
    from sfb_env.engine import seeking

    battle = make_battle(duel(fed_hex="0510", kli_hex="0507"), seed=1)
    fed = battle.unit_index["fed"]
    battle.step({})
    seeking.launch(battle, battle.weapon_ids.index("kli.DRONE-1"), fed)
    drone = int(np.flatnonzero(battle.state.kind == UnitKind.DRONE)[0])
    renderer = Renderer(battle, view="map")
    renderer.frame()
    assert items(renderer, "drone", battle.unit_ids[drone])
    where = renderer.hex_center(battle.label(drone))
    battle.apply_damage(drone, 0, 50)
    assert battle.state.status[drone] != Status.ACTIVE
    frame = renderer.frame()
    (wreck,) = items(renderer, "wreck", battle.unit_ids[drone])
    assert close_to(wreck.points[0], where)
    assert near(frame, where, colors.WRECK_X, radius=int(renderer.camera.radius * 0.4))
    battle.step({})
    renderer.frame()
    assert not items(renderer, "wreck", battle.unit_ids[drone])


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


def test_shots_drawn_at_fire_positions():
    """A step runs impulse N's fire, then impulse N+1's movement (C1.4): the shot is drawn
    from the hex the firer fired from, not the hex it moved on to."""
    doc = duel(fed_hex="0510", kli_hex="0506")
    doc["units"][0]["speed"] = 8  # moves every impulse (8 impulses a turn)
    battle = make_battle(doc, seed=1)
    fed, kli = battle.unit_index["fed"], battle.unit_index["kli"]
    renderer = Renderer(battle, view="map")
    battle.step({fed: Orders(maneuver=Maneuver.STRAIGHT)})
    phaser = battle.weapon_ids.index("fed.PH1-1")
    assert battle.fire_blockers(phaser, [kli]) == [None]
    cursor = len(battle.events)
    battle.step({fed: Orders(maneuver=Maneuver.STRAIGHT, fire={phaser: kli})})
    new = battle.events[cursor:]
    fired = next(i for i, e in enumerate(new) if e.kind == "Fired")
    moved = next(e for e in new[fired:] if e.kind == "Moved" and e.unit == "fed")
    assert moved.dst == battle.label(fed) != moved.src  # the firer moved after firing
    frame = renderer.frame()
    (shot,) = items(renderer, "shot", "fed")
    src, dst = renderer.hex_center(moved.src), renderer.hex_center("0506")
    assert close_to(shot.points[0], src) and close_to(shot.points[1], dst)
    color = colors.weapon_color("ph-1")
    if new[fired].damage <= 0:
        color = colors.mix(color, colors.MAP_FILL, 0.55)
    (ax, ay), (bx, by) = src, dst
    for t in (0.2, 0.3, 0.7, 0.8):
        assert near(frame, (ax + (bx - ax) * t, ay + (by - ay) * t), color), t
    (cx, cy) = renderer.hex_center(moved.dst)  # the line starts behind the counter's hex now
    assert near(frame, (ax + (cx - ax) * 0.25, ay + (cy - ay) * 0.25), color)


def test_cloaked_ship_drawn_differently():
    """(G13) A cloaked ship is a ghost counter (faded fill, dashed outline), named cloaked."""
    battle = make_battle(duel(), seed=0)
    kli = battle.unit_index["kli"]
    renderer = Renderer(battle, view="map")
    centre = renderer.hex_center("0505")
    visible = renderer.frame()
    assert pixel(visible, centre) == KLINGON
    assert items(renderer, "ship", "kli")[0].style == ""
    battle.state.cloaked[kli] = True
    ghost = renderer.frame()
    assert pixel(ghost, centre) not in (KLINGON, colors.MAP_FILL)  # faded, still there
    assert items(renderer, "ship", "kli")[0].style == "cloaked"
    assert "cloaked" in items(renderer, "unit-label", "kli")[0].text
    assert items(renderer, "ship", "fed")[0].style == ""


def test_hex_labels_and_unit_labels_drawn_under_counters():
    """An occupied hex's XXYY label is cleared under its counter, a free hex keeps its label;
    every name label is drawn before every counter."""
    battle = make_battle(duel(), seed=0)
    renderer = Renderer(battle, view="units")
    frame = renderer.frame()
    r = renderer.camera.radius

    def label_pixels(label: str) -> int:
        x, y = renderer.hex_center(label)
        box = frame[round(y - 0.75 * r):round(y - 0.4 * r), round(x - 0.4 * r):round(x + 0.4 * r)]
        return int(np.sum(np.all(box == np.array(colors.LABEL, np.uint8), axis=-1)))

    assert label_pixels("0707") > 0  # a free hex: its label
    assert label_pixels("0505") == 0 and label_pixels("0510") == 0  # under the ships
    kinds = [i.kind for i in renderer.scene]
    last_label = max(k for k, kind in enumerate(kinds) if kind == "unit-label")
    first_counter = min(k for k, kind in enumerate(kinds) if kind == "ship")
    assert last_label < first_counter


def test_hud_title_fits():
    """A title too long for the panel shrinks, then wraps; it never runs off the frame."""
    for title in ("Graduate duel, Hydran Ranger vs Klingon D7",
                  "A very long scenario title that cannot possibly fit on one line of the HUD"):
        doc = duel()
        doc["title"] = title
        battle = make_battle(doc, seed=0)
        renderer = Renderer(battle, size=(1280, 720))
        frame = renderer.frame()
        lines = items(renderer, "title")
        assert " ".join(i.text for i in lines) == title
        assert all(i.points[1][0] <= 1280 - 8 for i in lines)
        top, bottom = 8, int(lines[-1].points[1][1]) + 2
        assert np.all(frame[top:bottom, -8:] == np.array(colors.HUD_FILL, np.uint8))
    assert len(lines) == 2


def test_render_legend_lists_shield_order():
    """The HUD's legend says the shield order (#1 ahead, clockwise), each weapon colour of
    the battle and what drones, wrecks, cloaked ships and trails look like."""
    battle = make_battle(duel(), seed=0)
    renderer = Renderer(battle)
    frame = renderer.frame()
    legend = items(renderer, "legend")
    texts = {i.text for i in legend}
    assert "shields #1 ahead, #2-#6 clockwise" in texts
    styles = {i.style: i for i in legend}
    assert {"ph-1", "photon", "disruptor"} <= set(styles)  # the duel's weapons
    assert {"drone", "wreck", "cloaked", "trail"} <= set(styles)
    x, y = styles["photon"].points[0]  # the colour sample is drawn in the weapon's colour
    assert near(frame, (x + 9, y), colors.weapon_color("photon"), radius=2)
    assert x > renderer.map_size[0]  # in the HUD, not over the map


def test_drone_drawn_with_its_owner_and_target():
    """(FD1.2) A drone in flight is labelled with its launcher and number and joined to its
    target by a dotted line."""
    from sfb_env.engine import seeking

    battle = make_battle(duel(), seed=1)
    fed = battle.unit_index["fed"]
    battle.step({})
    seeking.launch(battle, battle.weapon_ids.index("kli.DRONE-1"), fed)
    drone = battle.unit_ids[int(np.flatnonzero(battle.state.kind == UnitKind.DRONE)[0])]
    renderer = Renderer(battle, view="map")
    renderer.frame()
    assert items(renderer, "unit-label", drone)[0].text == "Klingon Cadet Battlecruiser D1"
    (line,) = items(renderer, "seeking-target", drone)
    assert line.text == "fed"
    assert close_to(line.points[1], renderer.hex_center("0510"))


def test_ship_labels_use_name_or_class_display_name():
    """A ship given only an id shows its class's name on the map and in the HUD; ships of one
    class add the rest of their id; a named ship shows its name."""
    from sfb_env.render.frame import display_names

    battle = make_battle("grad-lyran-vs-hydran", seed=0)
    renderer = Renderer(battle)
    renderer.frame()
    lyran = items(renderer, "unit-label", "lyran-cadet")[0].text
    assert lyran.startswith("Lyran Cadet Cruiser") and "lyran-cadet" not in lyran
    assert items(renderer, "hud-ship", "lyran-cadet")[0].text == "Lyran Cadet Cruiser"
    convoy = make_battle("cth-03", seed=0)
    names = display_names(convoy)
    assert names[:5] == ["Destruction", "Freighter A", "Freighter B", "Freighter C",
                         "Freighter D"]
    assert names[convoy.unit_index["destruction.DRONE-1.drone-2"]] == "Destruction D2"


def test_units_leave_movement_trails():
    """A moving ship trails its last hexes (C1.4), oldest first, ending at its counter."""
    doc = duel()
    doc["units"][0]["speed"] = 8
    battle = make_battle(doc, seed=0)
    renderer = Renderer(battle, view="map")
    for _ in range(4):
        battle.step({battle.unit_index["fed"]: Orders(maneuver=Maneuver.STRAIGHT)})
        frame = renderer.frame()
    (trail,) = items(renderer, "trail", "fed")
    assert len(trail.points) >= 4
    assert close_to(trail.points[-1], renderer.hex_center(battle.label(battle.unit_index["fed"])))
    assert close_to(trail.points[0], renderer.hex_center("0510"))
    (ax, ay), (bx, by) = trail.points[0], trail.points[1]
    mid = pixel(frame, ((ax + bx) / 2, (ay + by) / 2))
    assert mid != colors.MAP_FILL  # a line between the old hexes
    assert not items(renderer, "trail", "kli")  # it never moved


def test_camera_zoom_changes_smoothly():
    """The units view eases to a new framing: as a unit runs off (a hex a frame) and back, the
    hex radius changes by at most ZOOM_STEP a frame (no 2x jump), every unit stays in view, and
    the camera arrives where a fresh one would frame the units."""
    from sfb_env.render.renderer import ZOOM_STEP

    doc = duel(fed_hex="0510", kli_hex="0508")
    doc["map"] = "A+B"
    battle = make_battle(doc, seed=0)
    st = battle.state
    kli = battle.unit_index["kli"]
    renderer = Renderer(battle, size=(800, 480), view="units")
    renderer.frame()
    radii = [renderer.camera.radius]
    for direction, hexes in (("B", 12), ("E", 12)):  # off to the north-east, then back
        for k in range(hexes + 8):
            if k < hexes:
                label = hexmap.neighbor(battle.label(kli), direction)
                st.x[kli], st.z[kli] = hexmap.label_to_axial(label, battle.scenario.parity)
            renderer.frame()
            radii.append(renderer.camera.radius)
            width, height = renderer.map_size
            for u in (0, 1):
                x, y = renderer.hex_center(battle.label(u))
                assert 0 < x < width and 0 < y < height
        fresh = Renderer(battle, size=(800, 480), view="units")
        fresh.frame()
        if direction == "B":  # zoomed out all the way to the fresh framing
            assert renderer.camera == fresh.camera, radii
        else:  # back in, until the view is no longer far too wide (it then holds still)
            assert renderer.camera.radius <= fresh.camera.radius < 1.5 * renderer.camera.radius
    steps = [max(a, b) / min(a, b) for a, b in zip(radii, radii[1:], strict=False)]
    assert max(steps) <= ZOOM_STEP + 1 / min(radii), radii
    assert max(radii) / min(radii) > 1.5, radii  # the zoom did change, over several frames
