"""``Renderer``: a battle -> an RGB frame (map view on the left, HUD on the right)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from PIL import Image, ImageDraw

from sfb_env import hexmap
from sfb_env.engine.types import Status, UnitKind
from sfb_env.render import colors
from sfb_env.render.background import background
from sfb_env.render.colors import RGB
from sfb_env.render.frame import Canvas, SceneItem, display_names, draw_map_view
from sfb_env.render.geometry import (
    SQRT3,
    Bounds,
    Camera,
    area_bounds,
    camera_at,
    fit_camera,
    hex_to_plane,
)
from sfb_env.render.hud import draw_hud
from sfb_env.render.tracks import Trails, positions_at

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle
    from sfb_env.engine.events import Event

View = Literal["units", "map"]
FOCUS_MARGIN = (3 * 1.5 + 1.0, 2.5 * SQRT3)  # plane units around the units in view
FOCUS_MIN = (12 * 1.5, 7 * SQRT3)  # never zoom closer than 12 columns x 7 rows
ZOOM_STEP = 1.15  # the units view's hex radius changes by at most 15% a frame
PAN_STEP = 0.5  # and its centre moves at most half-way to where it is going, a frame
POSITIONED = ("Fired", "MonsterFired", "SeekingHit", "Destroyed")  # drawn where they happened


class Renderer:
    """Draws frames of a battle with Pillow over a cached map background.

    ``view="units"`` zooms on the units in play (the camera moves only when a unit nears the
    edge or the view is far too wide, and then eases there: the zoom changes by at most
    ``ZOOM_STEP`` a frame, unless a unit would leave the view); ``view="map"`` shows the whole
    play area. The frame shows every unit in play with a trail of its last hexes, the wrecks of
    destroyed ships, and the effects (shots, hits, destructions) of the latest impulse since
    the previous frame, drawn where the units stood when they happened. ``hex_center`` maps a
    hex to the pixel of its centre in the last frame; ``scene`` is the last frame's draw list
    (``SceneItem``: kind, unit id, screen points, text, style).
    """

    def __init__(self, battle: Battle, size: tuple[int, int] = (1280, 720), view: View = "units",
                 hud: bool = True, hud_width: int = 320) -> None:
        if view not in ("units", "map"):
            raise ValueError(f"unknown view {view!r}; expected 'units' or 'map'")
        width, height = (int(v) for v in size)
        if width % 2 or height % 2 or width < 160 + hud * hud_width or height < 120:
            raise ValueError(f"frame size {width}x{height}: expected even sizes, at least "
                             f"{160 + hud * hud_width}x120")
        self.size = (width, height)
        self.view: View = view
        self.hud_width = hud_width if hud else 0
        self.camera: Camera | None = None
        self._battle = battle
        self._colors: list[RGB] = unit_colors(battle)
        self._names: list[str] = display_names(battle)
        self._events_list: list | None = None
        self._cursor = 0
        self._effects: list[Event] = []
        self._positions: dict[int, dict[str, tuple[int, int]]] = {}
        self._trails = Trails()
        self._easing = False  # the units view is on its way to a new framing
        self._now: tuple[int, int, int] | None = None
        self._window = None
        self.scene: list[SceneItem] = []

    @property
    def map_size(self) -> tuple[int, int]:
        """(width, height) of the map view in pixels."""
        return self.size[0] - self.hud_width, self.size[1]

    def frame(self, battle: Battle | None = None) -> np.ndarray:
        """The frame of the battle now: an (H, W, 3) uint8 array."""
        battle = self._use(battle)
        effects = self._latest_effects(battle)
        self.camera = self._fit(battle)
        cam = self.camera
        sc = battle.scenario
        image = Image.new("RGB", self.size, colors.SPACE)
        bg = background(sc.map_area, sc.parity, cam.radius)
        image.paste(bg.image, (bg.left - round(cam.left), bg.top - round(cam.top)))
        view = image.crop((0, 0, *self.map_size)) if self.hud_width else image
        canvas = Canvas(view, ImageDraw.Draw(view), cam, battle, self._colors, self._names,
                        self._positions, self._trails)
        draw_map_view(canvas, effects)
        if self.hud_width:
            image.paste(view, (0, 0))
            draw_hud(image, battle, self._colors, self.map_size[0], self._names, canvas.scene)
        self.scene = canvas.scene
        return np.asarray(image, dtype=np.uint8).copy()

    def hex_center(self, hex_: str | tuple[int, int]) -> tuple[float, float]:
        """Pixel (x, y) of a hex's centre (label or axial pair) in the last frame's camera."""
        battle = self._battle
        if isinstance(hex_, str):
            hex_ = hexmap.label_to_axial(hex_, battle.scenario.parity)
        cam = self.camera or self._fit(battle)
        sx, sy = cam.to_screen(*hex_)
        return float(sx), float(sy)

    def show(self, frame: np.ndarray) -> None:
        """Show a frame in a window (pygame, the ``human`` extra)."""
        from sfb_env.render.window import Window

        if self._window is None:
            self._window = Window(frame.shape[1], frame.shape[0], self._battle.scenario.title)
        self._window.show(frame)

    def close(self) -> None:
        """Close the window, if one is open."""
        if self._window is not None:
            self._window.close()
            self._window = None

    # ------------------------------------------------------------------ helpers

    def _use(self, battle: Battle | None) -> Battle:
        if battle is not None and battle is not self._battle:
            self._battle = battle
            self._colors = unit_colors(battle)
            self._names = display_names(battle)
            self.camera = None
        return self._battle

    def _fit(self, battle: Battle) -> Camera:
        sc = battle.scenario
        area = area_bounds(sc.map_area, sc.parity)
        width, height = self.map_size
        st = battle.state
        live = np.flatnonzero(st.status == Status.ACTIVE)
        if self.view == "map" or len(live) == 0:
            return fit_camera(area, None, width, height)
        x, z = self._framed(battle, live)
        px, py = hex_to_plane(x, z)
        focus = Bounds(float(px.min()), float(py.min()), float(px.max()), float(py.max()))
        focus = focus.grown(*FOCUS_MARGIN)
        focus = focus.grown(max(0.0, FOCUS_MIN[0] - focus.width) / 2,
                            max(0.0, FOCUS_MIN[1] - focus.height) / 2)
        wanted = fit_camera(area, focus, width, height)
        old = self.camera
        if old is None or (old.width, old.height) != (width, height):
            self._easing = False
            return wanted
        sx, sy = old.to_screen(x, z)
        if not self._easing and old.contains(sx, sy, 1.3 * old.radius) \
                and wanted.radius < 1.5 * old.radius:
            return old
        return self._ease(area, old, wanted, x, z)

    def _framed(self, battle: Battle, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Axial hexes the units view keeps in frame: the units in play and, on the frame of
        their destruction, the units destroyed (the wreck where a shot ended)."""
        st = battle.state
        xs, zs = [int(v) for v in st.x[live]], [int(v) for v in st.z[live]]
        for event in self._effects:
            if event.kind == "Destroyed" and event.unit in battle.unit_index:
                u = battle.unit_index[event.unit]
                x, z = self._positions.get(id(event), {}).get(event.unit,
                                                           (int(st.x[u]), int(st.z[u])))
                xs.append(x)
                zs.append(z)
        return np.array(xs, dtype=np.int64), np.array(zs, dtype=np.int64)

    def _ease(self, area: Bounds, old: Camera, wanted: Camera, x, z) -> Camera:
        """A step from ``old`` toward ``wanted``: the radius changes by at most ``ZOOM_STEP``,
        the centre by ``PAN_STEP`` of the way; a step that would leave a unit outside the view
        recentres, then widens as far as needed (never past ``wanted``)."""
        width, height = old.width, old.height
        if wanted.radius > old.radius:
            radius = min(wanted.radius, max(old.radius + 1, int(old.radius * ZOOM_STEP)))
        else:
            radius = max(wanted.radius, min(old.radius - 1, int(old.radius / ZOOM_STEP) + 1))
        (ox, oy), (wx, wy) = old.center, wanted.center
        cam = camera_at(area, (ox + (wx - ox) * PAN_STEP, oy + (wy - oy) * PAN_STEP), radius,
                        width, height)

        def shows_all(c: Camera) -> bool:
            return c.contains(*c.to_screen(x, z), 0.6 * c.radius)

        if not shows_all(cam):
            cam = camera_at(area, (wx, wy), radius, width, height)
        while not shows_all(cam) and cam.radius > wanted.radius:
            cam = camera_at(area, (wx, wy), cam.radius - 1, width, height)
        if not shows_all(cam):
            cam = wanted
        done = cam.radius == wanted.radius and \
            abs(cam.left - wanted.left) + abs(cam.top - wanted.top) <= 2
        self._easing = not done
        return wanted if done else cam

    def _latest_effects(self, battle: Battle) -> list[Event]:
        """Events since the previous frame, limited to the latest impulse and its movement
        (an impulse's fire and the drone hits that follow its next move)."""
        events = battle.events
        now = (battle.state.turn, battle.state.impulse, len(events))
        if events is not self._events_list or len(events) < self._cursor:
            self._events_list, self._cursor, self._effects, self._now = events, 0, [], None
            self._trails.clear()
        if now == self._now:  # the same moment drawn again
            return self._effects
        self._now = now
        new = events[self._cursor:]
        self._cursor = len(events)
        self._trails.add(battle, new)
        if not new:
            self._effects, self._positions = [], {}
            return self._effects
        self._positions = positions_at(battle, new, lambda e: e.kind in POSITIONED)
        ipt = battle.state.impulses_per_turn
        clock = [(e.turn - 1) * ipt + e.impulse for e in new]
        recent = max(clock) - 1
        last_fire = max((t for e, t in zip(new, clock, strict=True) if e.kind == "Fired"),
                        default=None)
        self._effects = [
            e for e, t in zip(new, clock, strict=True)
            if t >= recent and (e.kind != "Fired" or t == last_fire)
        ]
        return self._effects


def unit_colors(battle: Battle) -> list[RGB]:
    """Per unit row: its race's colour (drones: their launcher's or side's); a race that a
    lower side already uses is drawn lighter so the sides stay apart."""
    st = battle.state
    n = len(st.kind)
    owner = {int(r): int(st.w_owner[w]) for w in range(len(st.w_owner))
             for r in st.w_drone_rows[w] if r >= 0}
    side_race: dict[int, str] = {}
    for u, ship in enumerate(battle.ship_classes):
        if ship is not None and st.kind[u] == UnitKind.SHIP:
            side_race.setdefault(int(st.side[u]), ship.race)
    races: list[str | None] = []
    for u in range(n):
        ship = battle.ship_classes[owner.get(u, u)]
        races.append(ship.race if ship is not None else side_race.get(int(st.side[u])))
    first_side: dict[str, int] = {}
    for u in np.argsort(st.side, kind="stable"):
        if races[u] is not None:
            first_side.setdefault(races[u], int(st.side[u]))
    out: list[RGB] = []
    for u in range(n):
        race, side = races[u], int(st.side[u])
        if race is None:
            out.append(colors.SIDE[side % len(colors.SIDE)])
            continue
        color = colors.RACE.get(race, colors.SIDE[side % len(colors.SIDE)])
        out.append(colors.mix(color, (255, 255, 255), 0.45) if first_side[race] < side else color)
    return out

