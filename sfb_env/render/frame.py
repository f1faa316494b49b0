"""Drawing a frame's map view: units by kind, effects by event kind, fields under the units.

Three registries are the hooks for what the engine does not have yet:

- ``UNIT_DRAWERS[UnitKind]``: draws one unit row (ships, freighters, drones, target drones;
  plasma torpedoes and fighters register here with ``@unit_drawer(UnitKind.PLASMA)`` using
  :func:`small_counter`);
- ``EVENT_DRAWERS[event kind]``: draws the latest impulse's events of that kind, ``"under"``
  or ``"over"`` the units (``Fired`` lines, ``Destroyed`` bursts; a PPD registers its pulse
  event with :func:`pulse_line`);
- ``FIELD_DRAWERS``: area effects under everything (an ESG draws its ring with
  :func:`hex_ring`).

Drawing order, bottom to top: hex labels of occupied hexes erased, fields, movement trails,
"under" effects (shots), wrecks, unit labels, unit counters, "over" effects, then what a
drawer put in ``Canvas.on_top`` (the points a shot scored). Every drawer notes
what it drew in ``Canvas.scene`` (kind, unit, screen points, text): the frame's draw list,
which tests and tools read instead of pixels.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Literal

import numpy as np
from PIL import Image, ImageDraw

from sfb_env.engine import events as ev
from sfb_env.engine.types import Status, UnitKind
from sfb_env.render import colors
from sfb_env.render.colors import RGB
from sfb_env.render.fonts import font
from sfb_env.render.geometry import (
    Camera,
    direction_angle,
    direction_vector,
    hex_corners,
    ring_hexes,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle
    from sfb_env.render.tracks import Trails

XY = tuple[float, float]
BIG_UNITS = (UnitKind.SHIP, UnitKind.FREIGHTER, UnitKind.MONSTER)  # wrecks stay on the map


@dataclass(frozen=True)
class SceneItem:
    """One thing drawn on a frame: ``kind`` ("ship", "drone", "wreck", "shot", "trail",
    "unit-label", "legend", "title", ...), the unit id it belongs to (if any), its screen
    points (a counter's centre; a shot's two ends; a trail's hexes), its text and ``style``
    (e.g. "cloaked", "miss")."""

    kind: str
    unit: str = ""
    points: tuple[XY, ...] = ()
    text: str = ""
    style: str = ""


@dataclass
class Canvas:
    """What a drawer needs: the image of the map view, the camera, the battle, unit colours,
    display names, where units stood at the latest events, their trails; and the draw list."""

    image: Image.Image
    draw: ImageDraw.ImageDraw
    camera: Camera
    battle: Battle
    unit_colors: Sequence[RGB]
    names: Sequence[str] = ()
    positions: dict[int, dict[str, tuple[int, int]]] = field(default_factory=dict)
    trails: Trails | None = None
    scene: list[SceneItem] = field(default_factory=list)
    on_top: list[Callable[[], None]] = field(default_factory=list)  # drawn last (shot damage)

    def __post_init__(self) -> None:
        if not self.names:
            self.names = display_names(self.battle)

    @property
    def radius(self) -> int:
        return self.camera.radius

    def hex_xy(self, x: int, z: int) -> XY:
        """Screen centre of axial hex ``(x, z)``."""
        sx, sy = self.camera.to_screen(x, z)
        return float(sx), float(sy)

    def unit_hex(self, unit: int, at: ev.Event | None = None) -> tuple[int, int]:
        """A unit's axial hex now, or when event ``at`` (one of the latest impulse's)
        happened: a shot is drawn where it was fired, not where the units moved after it."""
        st = self.battle.state
        where = self.positions.get(id(at)) if at is not None else None
        uid = self.battle.unit_ids[unit]
        if where and uid in where:
            return where[uid]
        return int(st.x[unit]), int(st.z[unit])

    def unit_xy(self, unit: int, at: ev.Event | None = None) -> XY:
        """Screen centre of a unit's hex now, or when event ``at`` happened (``unit_hex``)."""
        return self.hex_xy(*self.unit_hex(unit, at))

    def note(self, kind: str, unit: int | None = None, points: Sequence[XY] = (),
             text: str = "", style: str = "") -> None:
        """Add an item to the frame's draw list."""
        uid = self.battle.unit_ids[unit] if unit is not None else ""
        pts = tuple((round(float(x), 1), round(float(y), 1)) for x, y in points)
        self.scene.append(SceneItem(kind, uid, pts, text, style))

    def text(self, xy: XY, text: str, size: int, fill: RGB = colors.TEXT,
             anchor: str = "mm") -> None:
        """Outlined text, readable over anything."""
        self.draw.text(xy, text, fill=fill, font=font(size), anchor=anchor,
                       stroke_width=max(1, size // 7), stroke_fill=colors.TEXT_OUTLINE)


def display_names(battle: Battle) -> list[str]:
    """Per unit row, the name frames and the HUD show: the scenario's ``name``; a ship given
    only an ``id`` shows its class's name ("Lyran Cadet Cruiser", not "lyran-cadet"), and ships
    sharing a class name add the rest of their id ("Freighter A"); a drone or torpedo shows its
    launcher's name and its number ("Destruction D2")."""
    names = list(battle.names)
    by_class: list[int] = []
    for u, ship in enumerate(battle.ship_classes):
        if ship is not None and names[u] == battle.unit_ids[u]:
            names[u] = re.sub(r"\s*\(.*\)$", "", ship.name)  # "Freighter (full-size rules)"
            by_class.append(u)
    shared = Counter(names[u] for u in by_class)
    for u in by_class:
        if shared[names[u]] > 1:
            uid, key = battle.unit_ids[u], battle.ship_classes[u].key
            rest = uid[len(key):] if uid.startswith(key) else uid
            names[u] = f"{names[u]} {rest.strip('-_ ') or u}"
    st = battle.state
    for kind, letter, rows in ((UnitKind.DRONE, "D", "w_drone_rows"),
                               (UnitKind.PLASMA, "P", "w_plasma_rows")):
        table = getattr(st, rows, None)
        if table is None:
            continue
        count: Counter[int] = Counter()
        for w in range(len(table)):
            owner = int(st.w_owner[w])
            for r in table[w]:
                if r >= 0 and st.kind[r] == kind:
                    count[owner] += 1
                    names[int(r)] = f"{names[owner]} {letter}{count[owner]}"
    return names


UnitDrawer = Callable[[Canvas, int], None]
EventDrawer = Callable[[Canvas, list[ev.Event]], None]
FieldDrawer = Callable[[Canvas], None]
Phase = Literal["under", "over"]

UNIT_DRAWERS: dict[int, UnitDrawer] = {}
LABEL_DRAWERS: dict[int, UnitDrawer] = {}  # a unit kind's name label (drawn under counters)
EVENT_DRAWERS: dict[str, tuple[Phase, EventDrawer]] = {}
FIELD_DRAWERS: list[FieldDrawer] = []


def unit_drawer(kind: UnitKind) -> Callable[[UnitDrawer], UnitDrawer]:
    """Register the drawer of a unit kind."""

    def register(fn: UnitDrawer) -> UnitDrawer:
        UNIT_DRAWERS[int(kind)] = fn
        return fn

    return register


def event_drawer(
    kind: type[ev.Event], phase: Phase = "over"
) -> Callable[[EventDrawer], EventDrawer]:
    """Register the drawer of an event class (given the latest impulse's events of it)."""

    def register(fn: EventDrawer) -> EventDrawer:
        EVENT_DRAWERS[kind.__name__] = (phase, fn)
        return fn

    return register


def draw_map_view(canvas: Canvas, events: Sequence[ev.Event]) -> None:
    """Erased hex labels under the units, fields, trails, "under" effects, wrecks, unit labels,
    every unit in play, then "over" effects."""
    st = canvas.battle.state
    live = np.flatnonzero(st.status == Status.ACTIVE)
    wrecks = _wrecks(canvas, events)
    held = [(int(u), None) for u in live] + wrecks
    hexes = [canvas.unit_hex(u, at) for u, at in held]
    # a ship's name label runs into the label of the hex below (axial z + 1)
    hexes += [(x, z + 1) for (u, _), (x, z) in zip(held, hexes, strict=True)
              if st.kind[u] in BIG_UNITS]
    _erase_hex_labels(canvas, [h for h in hexes if h in canvas.battle.area_labels])
    for field_drawer in FIELD_DRAWERS:
        field_drawer(canvas)
    for u in live:
        draw_trail(canvas, int(u))
    by_kind: dict[str, list[ev.Event]] = defaultdict(list)
    for event in events:
        if event.kind in EVENT_DRAWERS:
            by_kind[event.kind].append(event)
    _effects(canvas, by_kind, "under")
    for u, at in wrecks:
        draw_wreck(canvas, u, at)
    # seeking weapons first so ships stay readable when they share a hex
    order = sorted(live, key=lambda u: -int(st.kind[u]))
    for u in order:  # every label under every counter (a name never hides a counter)
        LABEL_DRAWERS.get(int(st.kind[u]), _no_label)(canvas, int(u))
    for u in order:
        UNIT_DRAWERS.get(int(st.kind[u]), _generic_unit)(canvas, int(u))
    _effects(canvas, by_kind, "over")
    for draw_late in canvas.on_top:
        draw_late()


def _wrecks(canvas: Canvas, events: Sequence[ev.Event]) -> list[tuple[int, ev.Event | None]]:
    """Destroyed units to draw: ships, freighters and monsters for the rest of the battle (at
    their last hex), any other unit on the frame of its destruction (at the hex it had then)."""
    battle = canvas.battle
    st = battle.state
    out: list[tuple[int, ev.Event | None]] = [
        (int(u), None) for u in np.flatnonzero(st.status == Status.DESTROYED)
        if st.kind[u] in BIG_UNITS]
    for event in events:
        if event.kind == "Destroyed":
            u = battle.unit_index[event.unit]
            if st.kind[u] not in BIG_UNITS and st.status[u] != Status.ACTIVE:
                out.append((u, event))
    return out


def _erase_hex_labels(canvas: Canvas, hexes: Sequence[tuple[int, int]]) -> None:
    """Paint over the XXYY label (top of the hex, from the cached background) of each hex a
    unit or wreck stands in: the counter is drawn over a clean hex, never under a label."""
    r = canvas.radius
    for x, z in dict.fromkeys(hexes):
        cx, cy = canvas.hex_xy(x, z)
        canvas.draw.rectangle((cx - 0.45 * r, cy - 0.8 * r, cx + 0.45 * r, cy - 0.36 * r),
                              fill=colors.MAP_FILL)


def _effects(canvas: Canvas, by_kind: dict[str, list[ev.Event]], phase: Phase) -> None:
    for kind, items in by_kind.items():
        when, fn = EVENT_DRAWERS[kind]
        if when == phase:
            fn(canvas, items)


# --------------------------------------------------------------------------- primitives


def _local(cx: float, cy: float, facing: float, pts, scale: float) -> list[tuple[float, float]]:
    """Counter outline points (forward, right) in hex radii -> screen points."""
    fx, fy = direction_vector(facing)
    rx, ry = -fy, fx
    return [(cx + scale * (f * fx + r * rx), cy + scale * (f * fy + r * ry)) for f, r in pts]


SHIP_SHAPE = ((0.64, 0.0), (-0.42, 0.46), (-0.2, 0.0), (-0.42, -0.46))  # an arrowhead
FREIGHTER_SHAPE = ((0.56, 0.0), (0.3, 0.27), (-0.46, 0.27), (-0.46, -0.27), (0.3, -0.27))


def shield_ring(canvas: Canvas, cx: float, cy: float, facing: int,
                segments: Sequence[RGB]) -> None:
    """Six arcs around a counter, shield #1 ahead then clockwise (D3.1), one colour each."""
    r = canvas.radius * 0.8
    width = max(2, round(canvas.radius * 0.11))
    box = (cx - r, cy - r, cx + r, cy + r)
    for k, color in enumerate(segments):
        mid = direction_angle(facing + k)
        canvas.draw.arc(box, mid - 26, mid + 26, fill=color, width=width)


def small_counter(canvas: Canvas, unit: int, color: RGB, shape: str = "circle",
                  letter: str = "") -> None:
    """A small counter for seeking weapons and fighters: a circle, square or triangle with a
    heading tick and an optional letter (plasma type, fighter squadron)."""
    cx, cy = canvas.unit_xy(unit)
    facing = int(canvas.battle.state.facing[unit])
    s = max(4.0, canvas.radius * 0.24)
    if shape == "square":
        canvas.draw.rectangle((cx - s, cy - s, cx + s, cy + s), fill=color, outline=colors.OUTLINE)
    elif shape == "triangle":
        pts = _local(cx, cy, facing, ((1.2, 0.0), (-0.8, 0.9), (-0.8, -0.9)), s)
        canvas.draw.polygon(pts, fill=color, outline=colors.OUTLINE)
    else:
        canvas.draw.ellipse((cx - s, cy - s, cx + s, cy + s), fill=color, outline=colors.OUTLINE)
    fx, fy = direction_vector(facing)
    canvas.draw.line([(cx + fx * s, cy + fy * s), (cx + fx * s * 1.9, cy + fy * s * 1.9)],
                     fill=color, width=max(1, round(s / 3)))
    if letter:
        canvas.text((cx, cy), letter, max(7, round(s * 1.3)), fill=colors.TEXT)


def hex_ring(canvas: Canvas, x: int, z: int, radius: int, color: RGB) -> None:
    """Outline the ring of hexes at ``radius`` from ``(x, z)`` (an ESG field)."""
    for hx, hz in ring_hexes(x, z, radius):
        cx, cy = canvas.hex_xy(hx, hz)
        canvas.draw.polygon(hex_corners(cx, cy, canvas.radius * 0.92), outline=color,
                            width=max(1, canvas.radius // 10))


def pulse_line(canvas: Canvas, src: tuple[float, float], dst: tuple[float, float], pulses: int,
               color: RGB) -> None:
    """``pulses`` short dashes from ``src`` to ``dst`` (a PPD's wave of pulses)."""
    for k in range(max(1, pulses)):
        t0, t1 = (k + 0.25) / pulses, (k + 0.75) / pulses
        a = (src[0] + (dst[0] - src[0]) * t0, src[1] + (dst[1] - src[1]) * t0)
        b = (src[0] + (dst[0] - src[0]) * t1, src[1] + (dst[1] - src[1]) * t1)
        canvas.draw.line([a, b], fill=color, width=max(2, canvas.radius // 8))


def burst(canvas: Canvas, cx: float, cy: float, size: float, outer: RGB, inner: RGB) -> None:
    """A star-shaped burst (explosions, seeking-weapon hits)."""
    pts = []
    for k in range(16):
        r = size if k % 2 == 0 else size * 0.45
        a = math.radians(k * 22.5)
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    canvas.draw.polygon(pts, fill=outer)
    canvas.draw.ellipse((cx - size * 0.3, cy - size * 0.3, cx + size * 0.3, cy + size * 0.3),
                        fill=inner)


def dashed_polygon(canvas: Canvas, pts: Sequence[XY], color: RGB, width: int,
                   dash: float) -> None:
    """A polygon's outline in dashes of ``dash`` pixels (a cloaked counter)."""
    for (ax, ay), (bx, by) in zip(pts, [*pts[1:], pts[0]], strict=True):
        length = math.hypot(bx - ax, by - ay)
        steps = max(1, int(length / dash))
        for k in range(0, steps, 2):
            t0, t1 = k / steps, min(1.0, (k + 1) / steps)
            canvas.draw.line([(ax + (bx - ax) * t0, ay + (by - ay) * t0),
                              (ax + (bx - ax) * t1, ay + (by - ay) * t1)],
                             fill=color, width=width)


def wreck_x(canvas: Canvas, cx: float, cy: float, size: float) -> None:
    """The X over a destroyed unit."""
    width = max(2, round(size / 4))
    for sx in (-1, 1):
        canvas.draw.line([(cx - sx * size, cy - size), (cx + sx * size, cy + size)],
                         fill=colors.WRECK_X, width=width)


# --------------------------------------------------------------------------- units


def cloaked(battle: Battle, unit: int) -> bool:
    """Whether a unit is cloaked this turn (G13), fading out or in included."""
    flags = battle.state.cloaked
    return flags is not None and bool(flags[unit])


def label_drawer(*kinds: UnitKind) -> Callable[[UnitDrawer], UnitDrawer]:
    """Register the name-label drawer of unit kinds (drawn before every counter)."""

    def register(fn: UnitDrawer) -> UnitDrawer:
        for kind in kinds:
            LABEL_DRAWERS[int(kind)] = fn
        return fn

    return register


@label_drawer(UnitKind.SHIP, UnitKind.FREIGHTER, UnitKind.MONSTER)
def unit_label(canvas: Canvas, unit: int) -> None:
    """Name and speed under the counter ("cloaked" added while cloaked)."""
    cx, cy = canvas.unit_xy(unit)
    size = max(9, round(canvas.radius * 0.34))
    text = f"{canvas.names[unit]}  {int(canvas.battle.state.speed[unit])}"
    if cloaked(canvas.battle, unit):
        text += "  cloaked"
    canvas.text((cx, cy + canvas.radius * 0.92), text, size, anchor="mt")
    canvas.note("unit-label", unit, [(cx, cy + canvas.radius * 0.92)], text)


@label_drawer(UnitKind.DRONE, UnitKind.PLASMA)
def seeking_label(canvas: Canvas, unit: int) -> None:
    """A seeking weapon's launcher and number ("Destruction D2") beside it, and a dotted line
    in its launcher's colour to its target (FD1.2: every drone seeks one target)."""
    st = canvas.battle.state
    cx, cy = canvas.unit_xy(unit)
    color = canvas.unit_colors[unit]
    target = int(st.target[unit]) if st.target is not None else -1
    if target >= 0 and st.status[target] == Status.ACTIVE:
        tx, ty = canvas.unit_xy(target)
        length = math.hypot(tx - cx, ty - cy)
        dots = int(length / max(4.0, canvas.radius * 0.22))
        dim = colors.mix(color, colors.MAP_FILL, 0.35)
        for k in range(1, dots):
            px, py = cx + (tx - cx) * k / dots, cy + (ty - cy) * k / dots
            d = max(1.0, canvas.radius * 0.04)
            canvas.draw.ellipse((px - d, py - d, px + d, py + d), fill=dim)
        canvas.note("seeking-target", unit, [(cx, cy), (tx, ty)],
                    canvas.battle.unit_ids[target])
    size = max(8, round(canvas.radius * 0.28))
    xy = (cx + canvas.radius * 0.3, cy - canvas.radius * 0.3)
    canvas.text(xy, canvas.names[unit], size, fill=colors.mix(color, colors.TEXT, 0.5),
                anchor="ls")
    canvas.note("unit-label", unit, [xy], canvas.names[unit])


def _no_label(canvas: Canvas, unit: int) -> None:
    """Fighters, shuttles and target drones carry a letter on the counter, no label."""


def draw_trail(canvas: Canvas, unit: int) -> None:
    """The last hexes a unit entered: a line through their centres that fades with age."""
    if canvas.trails is None:
        return
    trail = canvas.trails.trail(canvas.battle.unit_ids[unit])
    st = canvas.battle.state
    if len(trail) < 2 or trail[-1] != (int(st.x[unit]), int(st.z[unit])):
        return
    pts = [canvas.hex_xy(x, z) for x, z in trail]
    color = canvas.unit_colors[unit]
    small = st.kind[unit] not in BIG_UNITS
    width = max(1, canvas.radius // (14 if small else 9))
    for k, (a, b) in enumerate(zip(pts, pts[1:], strict=False)):
        fade = 0.85 - 0.5 * (k + 1) / (len(pts) - 1)  # older segments fade into the map
        canvas.draw.line([a, b], fill=colors.mix(color, colors.MAP_FILL, fade), width=width)
    for k, (px, py) in enumerate(pts[:-1]):
        d = max(1.5, width * 0.9)
        fill = colors.mix(color, colors.MAP_FILL, 0.85 - 0.5 * k / (len(pts) - 1))
        canvas.draw.ellipse((px - d, py - d, px + d, py + d), fill=fill)
    canvas.note("trail", unit, pts)


@unit_drawer(UnitKind.SHIP)
def draw_ship(canvas: Canvas, unit: int) -> None:
    """A ship: an arrow counter along its facing and its shield ring; a cloaked ship (G13) is
    a ghost: faded fill and ring, dashed outline."""
    st = canvas.battle.state
    cx, cy = canvas.unit_xy(unit)
    facing = int(st.facing[unit])
    full = canvas.battle.initial.shields[unit]
    ring = [colors.shield_color(int(st.shields[unit, k]), int(full[k])) for k in range(6)]
    pts = _local(cx, cy, facing, SHIP_SHAPE, canvas.radius)
    color = canvas.unit_colors[unit]
    if cloaked(canvas.battle, unit):
        shield_ring(canvas, cx, cy, facing, [colors.mix(c, colors.MAP_FILL, 0.7) for c in ring])
        canvas.draw.polygon(pts, fill=colors.mix(color, colors.MAP_FILL, 0.75))
        dashed_polygon(canvas, pts, color, max(2, canvas.radius // 12),
                       max(3.0, canvas.radius * 0.14))
        canvas.note("ship", unit, [(cx, cy)], style="cloaked")
        return
    shield_ring(canvas, cx, cy, facing, ring)
    canvas.draw.polygon(pts, fill=color, outline=colors.OUTLINE, width=max(1, canvas.radius // 16))
    canvas.note("ship", unit, [(cx, cy)])


@unit_drawer(UnitKind.FREIGHTER)
def draw_freighter(canvas: Canvas, unit: int) -> None:
    """A freighter: a block counter; its one shield pool (R1.6) colours all six segments."""
    st = canvas.battle.state
    cx, cy = canvas.unit_xy(unit)
    facing = int(st.facing[unit])
    color = colors.shield_color(int(st.shields[unit, 0]),
                                int(canvas.battle.initial.shields[unit, 0]))
    shield_ring(canvas, cx, cy, facing, [color] * 6)
    pts = _local(cx, cy, facing, FREIGHTER_SHAPE, canvas.radius)
    canvas.draw.polygon(pts, fill=canvas.unit_colors[unit], outline=colors.OUTLINE,
                        width=max(1, canvas.radius // 16))
    canvas.note("freighter", unit, [(cx, cy)])


@unit_drawer(UnitKind.DRONE)
def draw_drone(canvas: Canvas, unit: int) -> None:
    """A drone (FD1): a small round counter in its launcher's colour."""
    small_counter(canvas, unit, canvas.unit_colors[unit], "circle")
    canvas.note("drone", unit, [canvas.unit_xy(unit)])


@unit_drawer(UnitKind.TARGET_DRONE)
def draw_target_drone(canvas: Canvas, unit: int) -> None:
    """A target drone (scenario 1): a small square counter."""
    small_counter(canvas, unit, canvas.unit_colors[unit], "square")
    canvas.note("target-drone", unit, [canvas.unit_xy(unit)])


@unit_drawer(UnitKind.PLASMA)
def draw_plasma(canvas: Canvas, unit: int) -> None:
    """A plasma torpedo (FP1): a triangle in the plasma colour with its type letter."""
    from sfb_env.engine import plasma

    small_counter(canvas, unit, colors.weapon_color("plasma"), "triangle",
                  plasma.plasma_kind(canvas.battle, unit))
    canvas.note("plasma", unit, [canvas.unit_xy(unit)])


@unit_drawer(UnitKind.FIGHTER)
def draw_fighter(canvas: Canvas, unit: int) -> None:
    """A Stinger-F fighter (J4.0): a small triangle in its side's colour, letter F."""
    small_counter(canvas, unit, canvas.unit_colors[unit], "triangle", "F")
    canvas.note("fighter", unit, [canvas.unit_xy(unit)])


@unit_drawer(UnitKind.SHUTTLE)
def draw_shuttle(canvas: Canvas, unit: int) -> None:
    """An administrative shuttle (J1.0): a small square in its side's colour, letter S."""
    small_counter(canvas, unit, canvas.unit_colors[unit], "square", "S")
    canvas.note("shuttle", unit, [canvas.unit_xy(unit)])


def _generic_unit(canvas: Canvas, unit: int) -> None:
    """Fallback for unit kinds without a registered drawer."""
    small_counter(canvas, unit, canvas.unit_colors[unit], "triangle", "?")


def draw_wreck(canvas: Canvas, unit: int, at: ev.Event | None = None) -> None:
    """A destroyed unit: its counter greyed with an X over it, at its last hex (``at``: the
    ``Destroyed`` event of this frame, for a unit that may have moved after it); a ship's
    name stays under it."""
    st = canvas.battle.state
    cx, cy = canvas.unit_xy(unit, at)
    r = canvas.radius
    kind = st.kind[unit]
    color = colors.mix(canvas.unit_colors[unit], colors.WRECK, 0.7)
    if kind in (UnitKind.SHIP, UnitKind.FREIGHTER):
        shape = SHIP_SHAPE if kind == UnitKind.SHIP else FREIGHTER_SHAPE
        canvas.draw.polygon(_local(cx, cy, int(st.facing[unit]), shape, r), fill=color,
                            outline=colors.OUTLINE)
        size = r * 0.42
    else:
        size = max(4.0, r * (0.5 if kind == UnitKind.MONSTER else 0.24))
        canvas.draw.ellipse((cx - size, cy - size, cx + size, cy + size), fill=color,
                            outline=colors.OUTLINE)
        size *= 1.25
    wreck_x(canvas, cx, cy, size)
    text = canvas.names[unit]
    if kind in BIG_UNITS:
        canvas.text((cx, cy + r * 0.92), f"{text}  destroyed", max(9, round(r * 0.34)),
                    fill=colors.TEXT_DIM, anchor="mt")
    canvas.note("wreck", unit, [(cx, cy)], text)


# --------------------------------------------------------------------------- events


@event_drawer(ev.Fired, phase="under")
def draw_shots(canvas: Canvas, shots: list[ev.Event]) -> None:
    """Direct fire: a line per shot from firer to target as they stood when it was fired, the
    pair's damage at the midpoint; misses dim and thin."""
    index = canvas.battle.unit_index
    pairs: dict[tuple[str, str], list[ev.Fired]] = defaultdict(list)
    for shot in shots:
        assert isinstance(shot, ev.Fired)
        pairs[(shot.unit, shot.target)].append(shot)
    width = max(2, canvas.radius // 9)
    for (firer, target), group in pairs.items():
        at = group[0]
        (ax, ay), (bx, by) = canvas.unit_xy(index[firer], at), canvas.unit_xy(index[target], at)
        length = math.hypot(bx - ax, by - ay)
        total = sum(s.damage for s in group)
        canvas.note("shot", index[firer], [(ax, ay), (bx, by)], str(total) if total else "miss",
                    group[0].weapon_type)
        if length < 1:
            continue
        nx, ny = -(by - ay) / length, (bx - ax) / length
        for k, shot in enumerate(group):
            off = (k - (len(group) - 1) / 2) * (width + 1)
            color = colors.weapon_color(shot.weapon_type)
            if not shot.hit or shot.damage <= 0:
                color = colors.mix(color, colors.MAP_FILL, 0.55)
            canvas.draw.line([(ax + nx * off, ay + ny * off), (bx + nx * off, by + ny * off)],
                             fill=color, width=width if shot.damage > 0 else max(1, width // 2))
        mx, my = (ax + bx) / 2, (ay + by) / 2
        size = max(10, round(canvas.radius * 0.42))
        canvas.on_top.append(partial(  # the points scored stay readable over any counter
            canvas.text, (mx, my), str(total) if total else "miss", size,
            colors.TEXT if total else colors.TEXT_DIM))


@event_drawer(ev.SeekingHit)
def draw_seeking_hits(canvas: Canvas, hits: list[ev.Event]) -> None:
    """A drone's impact: a burst on the target with the warhead's points."""
    index = canvas.battle.unit_index
    for hit in hits:
        assert isinstance(hit, ev.SeekingHit)
        cx, cy = canvas.unit_xy(index[hit.target], hit)
        cx, cy = cx + canvas.radius * 0.45, cy - canvas.radius * 0.45
        burst(canvas, cx, cy, canvas.radius * 0.3, colors.SEEKING_HIT, colors.EXPLOSION_CORE)
        canvas.text((cx, cy - canvas.radius * 0.45), str(hit.warhead),
                    max(10, round(canvas.radius * 0.38)))
        canvas.note("seeking-hit", index[hit.unit], [(cx, cy)], str(hit.warhead))


@event_drawer(ev.Destroyed)
def draw_destroyed(canvas: Canvas, destroyed: list[ev.Event]) -> None:
    """Where a unit was destroyed this impulse: an explosion over its wreck."""
    index = canvas.battle.unit_index
    kinds = canvas.battle.state.kind
    for event in destroyed:
        assert isinstance(event, ev.Destroyed)
        u = index[event.unit]
        big = kinds[u] in BIG_UNITS
        cx, cy = canvas.unit_xy(u, event)
        size = canvas.radius * (0.7 if big else 0.35)
        cx, cy = (cx - size * 0.5, cy - size * 0.5) if big else (cx, cy - size)
        burst(canvas, cx, cy, size * (0.8 if big else 1.0), colors.EXPLOSION,
              colors.EXPLOSION_CORE)
        canvas.note("explosion", u, [(cx, cy)])


@event_drawer(ev.Exploded, phase="under")
def draw_explosion_radius(canvas: Canvas, explosions: list[ev.Event]) -> None:
    """A ship's explosion (house rule): the ring of hexes it reaches."""
    from sfb_env import hexmap

    parity = canvas.battle.scenario.parity
    for event in explosions:
        assert isinstance(event, ev.Exploded)
        x, z = hexmap.label_to_axial(event.hex, parity)
        for r in range(1, event.radius + 1):
            hex_ring(canvas, x, z, r, colors.EXPLOSION)


def draw_esg_fields(canvas: Canvas) -> None:
    """Every operating expanding sphere field: the ring of hexes at its radius (G23.41, G23.54)."""
    st = canvas.battle.state
    if st.esg_phase is None:
        return
    for w in np.flatnonzero((st.esg_phase == 2) & (st.esg_strength > 0)):  # EsgPhase.ACTIVE
        owner = int(st.w_owner[w])
        if st.status[owner] == Status.ACTIVE:
            hex_ring(canvas, int(st.x[owner]), int(st.z[owner]), int(st.esg_radius[w]),
                     colors.ESG)


FIELD_DRAWERS.append(draw_esg_fields)


# --------------------------------------------------------------------------- scenario 11

MONSTER_COLOR: RGB = (190, 60, 230)  # the Planet Killer (engine.planet_killer)


@unit_drawer(UnitKind.MONSTER)
def draw_monster(canvas: Canvas, unit: int) -> None:
    """The Planet Killer: a large violet disc with its heading tick and name."""
    cx, cy = canvas.unit_xy(unit)
    r = canvas.radius * 0.55
    canvas.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=MONSTER_COLOR,
                        outline=colors.OUTLINE, width=max(1, canvas.radius // 16))
    fx, fy = direction_vector(int(canvas.battle.state.facing[unit]))
    canvas.draw.line([(cx + fx * r, cy + fy * r), (cx + fx * r * 1.5, cy + fy * r * 1.5)],
                     fill=MONSTER_COLOR, width=max(2, canvas.radius // 8))
    canvas.note("monster", unit, [(cx, cy)])


def _monster_shots(canvas: Canvas, shots: list[ev.Event]) -> None:
    """The monster's weapon (CTH-DATA §8.11): a violet line to the target with its damage."""
    index = canvas.battle.unit_index
    for shot in shots:
        (ax, ay), (bx, by) = (canvas.unit_xy(index[shot.monster], shot),
                              canvas.unit_xy(index[shot.target], shot))
        canvas.note("shot", index[shot.monster], [(ax, ay), (bx, by)], str(shot.damage),
                    "monster")
        canvas.draw.line([(ax, ay), (bx, by)], fill=MONSTER_COLOR,
                         width=max(2, canvas.radius // 7))
        canvas.text(((ax + bx) / 2, (ay + by) / 2), str(shot.damage),
                    max(10, round(canvas.radius * 0.42)))


def _register_monster_shots() -> None:
    from sfb_env.engine.planet_killer import MonsterFired

    event_drawer(MonsterFired, phase="under")(_monster_shots)


_register_monster_shots()


# --------------------------------------------------------------------------- planets (P2.0)

PLANET_COLOR: RGB = (70, 120, 160)  # a planet (engine.planets)


@unit_drawer(UnitKind.PLANET)
def draw_planet(canvas: Canvas, unit: int) -> None:
    """A planet (P2.0): a disc filling most of its hex, its name beside it; a shuttle landed
    on it is drawn on top (lower unit kinds are drawn after it)."""
    cx, cy = canvas.unit_xy(unit)
    r = canvas.radius * 0.8
    canvas.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=PLANET_COLOR,
                        outline=colors.OUTLINE, width=max(1, canvas.radius // 16))
    canvas.note("planet", unit, [(cx, cy)])


@label_drawer(UnitKind.PLANET)
def planet_label(canvas: Canvas, unit: int) -> None:
    """A planet's name under it (no speed: it never moves)."""
    cx, cy = canvas.unit_xy(unit)
    canvas.text((cx, cy + canvas.radius * 0.92), canvas.names[unit],
                max(9, round(canvas.radius * 0.34)), anchor="mt")
    canvas.note("unit-label", unit, [(cx, cy + canvas.radius * 0.92)], canvas.names[unit])
