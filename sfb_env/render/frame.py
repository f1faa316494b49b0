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
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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


@dataclass
class Canvas:
    """What a drawer needs: the image of the map view, the camera, the battle, unit colours."""

    image: Image.Image
    draw: ImageDraw.ImageDraw
    camera: Camera
    battle: Battle
    unit_colors: Sequence[RGB]

    @property
    def radius(self) -> int:
        return self.camera.radius

    def hex_xy(self, x: int, z: int) -> tuple[float, float]:
        """Screen centre of axial hex ``(x, z)``."""
        sx, sy = self.camera.to_screen(x, z)
        return float(sx), float(sy)

    def unit_xy(self, unit: int) -> tuple[float, float]:
        """Screen centre of a unit's hex."""
        st = self.battle.state
        return self.hex_xy(int(st.x[unit]), int(st.z[unit]))

    def text(self, xy: tuple[float, float], text: str, size: int, fill: RGB = colors.TEXT,
             anchor: str = "mm") -> None:
        """Outlined text, readable over anything."""
        self.draw.text(xy, text, fill=fill, font=font(size), anchor=anchor,
                       stroke_width=max(1, size // 7), stroke_fill=colors.TEXT_OUTLINE)


UnitDrawer = Callable[[Canvas, int], None]
EventDrawer = Callable[[Canvas, list[ev.Event]], None]
FieldDrawer = Callable[[Canvas], None]
Phase = Literal["under", "over"]

UNIT_DRAWERS: dict[int, UnitDrawer] = {}
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
    """Fields, then "under" effects, then every unit in play, then "over" effects."""
    for field in FIELD_DRAWERS:
        field(canvas)
    by_kind: dict[str, list[ev.Event]] = defaultdict(list)
    for event in events:
        if event.kind in EVENT_DRAWERS:
            by_kind[event.kind].append(event)
    _effects(canvas, by_kind, "under")
    st = canvas.battle.state
    # seeking weapons first so ships stay readable when they share a hex
    order = sorted(np.flatnonzero(st.status == Status.ACTIVE), key=lambda u: -int(st.kind[u]))
    for u in order:
        UNIT_DRAWERS.get(int(st.kind[u]), _generic_unit)(canvas, int(u))
    _effects(canvas, by_kind, "over")


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


# --------------------------------------------------------------------------- units


def _unit_label(canvas: Canvas, unit: int) -> None:
    cx, cy = canvas.unit_xy(unit)
    battle = canvas.battle
    size = max(9, round(canvas.radius * 0.34))
    text = f"{battle.names[unit]}  {int(battle.state.speed[unit])}"
    canvas.text((cx, cy + canvas.radius * 0.92), text, size, anchor="mt")


@unit_drawer(UnitKind.SHIP)
def draw_ship(canvas: Canvas, unit: int) -> None:
    """A ship: an arrow counter along its facing, its shield ring, name and speed."""
    st = canvas.battle.state
    cx, cy = canvas.unit_xy(unit)
    facing = int(st.facing[unit])
    full = canvas.battle.initial.shields[unit]
    shield_ring(canvas, cx, cy, facing,
                [colors.shield_color(int(st.shields[unit, k]), int(full[k])) for k in range(6)])
    pts = _local(cx, cy, facing, SHIP_SHAPE, canvas.radius)
    canvas.draw.polygon(pts, fill=canvas.unit_colors[unit], outline=colors.OUTLINE,
                        width=max(1, canvas.radius // 16))
    _unit_label(canvas, unit)


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
    _unit_label(canvas, unit)


@unit_drawer(UnitKind.DRONE)
def draw_drone(canvas: Canvas, unit: int) -> None:
    """A drone (FD1): a small round counter in its side's colour."""
    small_counter(canvas, unit, canvas.unit_colors[unit], "circle")


@unit_drawer(UnitKind.TARGET_DRONE)
def draw_target_drone(canvas: Canvas, unit: int) -> None:
    """A target drone (scenario 1): a small square counter."""
    small_counter(canvas, unit, canvas.unit_colors[unit], "square")


@unit_drawer(UnitKind.PLASMA)
def draw_plasma(canvas: Canvas, unit: int) -> None:
    """A plasma torpedo (FP1): a triangle in the plasma colour with its type letter."""
    from sfb_env.engine import plasma

    small_counter(canvas, unit, colors.weapon_color("plasma"), "triangle",
                  plasma.plasma_kind(canvas.battle, unit))


@unit_drawer(UnitKind.FIGHTER)
def draw_fighter(canvas: Canvas, unit: int) -> None:
    """A Stinger-F fighter (J4.0): a small triangle in its side's colour, letter F."""
    small_counter(canvas, unit, canvas.unit_colors[unit], "triangle", "F")


@unit_drawer(UnitKind.SHUTTLE)
def draw_shuttle(canvas: Canvas, unit: int) -> None:
    """An administrative shuttle (J1.0): a small square in its side's colour, letter S."""
    small_counter(canvas, unit, canvas.unit_colors[unit], "square", "S")


def _generic_unit(canvas: Canvas, unit: int) -> None:
    """Fallback for unit kinds without a registered drawer."""
    small_counter(canvas, unit, canvas.unit_colors[unit], "triangle", "?")


# --------------------------------------------------------------------------- events


@event_drawer(ev.Fired, phase="under")
def draw_shots(canvas: Canvas, shots: list[ev.Event]) -> None:
    """Direct fire: a line per shot from firer to target, the pair's damage at the midpoint;
    misses dim and thin."""
    index = canvas.battle.unit_index
    pairs: dict[tuple[str, str], list[ev.Fired]] = defaultdict(list)
    for shot in shots:
        assert isinstance(shot, ev.Fired)
        pairs[(shot.unit, shot.target)].append(shot)
    width = max(2, canvas.radius // 9)
    for (firer, target), group in pairs.items():
        (ax, ay), (bx, by) = canvas.unit_xy(index[firer]), canvas.unit_xy(index[target])
        length = math.hypot(bx - ax, by - ay)
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
        total = sum(s.damage for s in group)
        mx, my = (ax + bx) / 2, (ay + by) / 2
        size = max(10, round(canvas.radius * 0.42))
        canvas.text((mx, my), str(total) if total else "miss", size,
                    fill=colors.TEXT if total else colors.TEXT_DIM)


@event_drawer(ev.SeekingHit)
def draw_seeking_hits(canvas: Canvas, hits: list[ev.Event]) -> None:
    """A drone's impact: a burst on the target with the warhead's points."""
    index = canvas.battle.unit_index
    for hit in hits:
        assert isinstance(hit, ev.SeekingHit)
        cx, cy = canvas.unit_xy(index[hit.target])
        cx, cy = cx + canvas.radius * 0.45, cy - canvas.radius * 0.45
        burst(canvas, cx, cy, canvas.radius * 0.3, colors.SEEKING_HIT, colors.EXPLOSION_CORE)
        canvas.text((cx, cy - canvas.radius * 0.45), str(hit.warhead),
                    max(10, round(canvas.radius * 0.38)))


@event_drawer(ev.Destroyed)
def draw_destroyed(canvas: Canvas, destroyed: list[ev.Event]) -> None:
    """Where a unit was destroyed this impulse: an explosion (the counter itself is gone)."""
    index = canvas.battle.unit_index
    kinds = canvas.battle.state.kind
    for event in destroyed:
        assert isinstance(event, ev.Destroyed)
        u = index[event.unit]
        big = kinds[u] in (UnitKind.SHIP, UnitKind.FREIGHTER)
        cx, cy = canvas.unit_xy(u)
        burst(canvas, cx, cy, canvas.radius * (0.7 if big else 0.35), colors.EXPLOSION,
              colors.EXPLOSION_CORE)


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
    _unit_label(canvas, unit)


def _monster_shots(canvas: Canvas, shots: list[ev.Event]) -> None:
    """The monster's weapon (CTH-DATA §8.11): a violet line to the target with its damage."""
    index = canvas.battle.unit_index
    for shot in shots:
        (ax, ay), (bx, by) = (canvas.unit_xy(index[shot.monster]),
                              canvas.unit_xy(index[shot.target]))
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
    canvas.text((cx, cy + canvas.radius * 0.92), canvas.battle.names[unit],
                max(9, round(canvas.radius * 0.34)), anchor="mt")  # (no speed: it never moves)
