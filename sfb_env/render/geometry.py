"""Hex -> pixel geometry and the camera (which part of the map a frame shows, at what scale).

Flat-topped hexes of circumradius ``R`` pixels; the map plane puts axial hex ``(x, z)`` at
``(1.5 R x, sqrt(3) R (z + x / 2))``, which is right for both column parities (parity only
enters when labels are converted to axial coordinates). Direction A points up and B..F follow
clockwise, so direction ``d`` is at ``-90 + 60 d`` degrees in Pillow's clockwise angles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sfb_env import hexmap

SQRT3 = math.sqrt(3.0)


def hex_to_plane(x: float | np.ndarray, z: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Axial coordinates -> map-plane coordinates for ``R = 1`` (multiply by the radius)."""
    x = np.asarray(x, dtype=np.float64)
    z = np.asarray(z, dtype=np.float64)
    return 1.5 * x, SQRT3 * (z + 0.5 * x)


def direction_angle(direction: int) -> float:
    """Screen angle (degrees, clockwise from +x, y down) of map direction 0..5 (A..F)."""
    return -90.0 + 60.0 * (int(direction) % 6)


def direction_vector(direction: float) -> tuple[float, float]:
    """Unit screen vector of a (possibly fractional) map direction."""
    a = math.radians(-90.0 + 60.0 * direction)
    return math.cos(a), math.sin(a)


def hex_corners(cx: float, cy: float, radius: float) -> list[tuple[float, float]]:
    """The six corners of a flat-topped hex, clockwise from the right-hand corner."""
    return [
        (cx + radius * math.cos(math.radians(60 * k)), cy + radius * math.sin(math.radians(60 * k)))
        for k in range(6)
    ]


def ring_hexes(x: int, z: int, radius: int) -> list[tuple[int, int]]:
    """Axial hexes at exactly ``radius`` from ``(x, z)`` (an ESG field's ring), clockwise."""
    if radius == 0:
        return [(x, z)]
    out = []
    dx, dz = (int(v) for v in hexmap.DIR_TO_AXIAL[4])  # start at direction E, walk A..F
    cx, cz = x + dx * radius, z + dz * radius
    for d in range(6):
        for _ in range(radius):
            out.append((cx, cz))
            cx, cz = cx + int(hexmap.DIR_TO_AXIAL[d, 0]), cz + int(hexmap.DIR_TO_AXIAL[d, 1])
    return out


@dataclass(frozen=True)
class Bounds:
    """A rectangle of the map plane for ``R = 1``."""

    left: float
    top: float
    right: float
    bottom: float

    @property
    def width(self) -> float:
        return self.right - self.left

    @property
    def height(self) -> float:
        return self.bottom - self.top

    @property
    def center(self) -> tuple[float, float]:
        return (self.left + self.right) / 2, (self.top + self.bottom) / 2

    def grown(self, dx: float, dy: float) -> Bounds:
        return Bounds(self.left - dx, self.top - dy, self.right + dx, self.bottom + dy)


def area_bounds(area: hexmap.MapArea, parity: str) -> Bounds:
    """Plane bounds (``R = 1``) of a play area, hex corners and edges included."""
    cols = np.arange(area.first_column, area.last_column + 1)
    rows = np.array([area.first_row, area.last_row])
    cc, rr = np.meshgrid(cols, rows)
    x, z = hexmap.offset_to_axial_np(cc.ravel(), rr.ravel(), parity)
    px, py = hex_to_plane(x, z)
    return Bounds(float(px.min()) - 1.0, float(py.min()) - SQRT3 / 2,
                  float(px.max()) + 1.0, float(py.max()) + SQRT3 / 2)


@dataclass(frozen=True)
class Camera:
    """Hex radius in pixels and the plane point at the view's top-left corner (in pixels)."""

    radius: int
    left: int
    top: int
    width: int
    height: int

    def to_screen(self, x, z) -> tuple[np.ndarray, np.ndarray]:
        """Axial coordinates -> screen pixels of the map view."""
        px, py = hex_to_plane(x, z)
        return px * self.radius - self.left, py * self.radius - self.top

    @property
    def center(self) -> tuple[float, float]:
        """The plane point (``R = 1``) at the middle of the view."""
        return ((self.left + self.width / 2) / self.radius,
                (self.top + self.height / 2) / self.radius)

    def contains(self, sx: np.ndarray, sy: np.ndarray, margin: float) -> bool:
        """Whether every screen point lies at least ``margin`` pixels inside the view."""
        sx, sy = np.asarray(sx), np.asarray(sy)
        return bool(np.all((sx >= margin) & (sx <= self.width - margin)
                           & (sy >= margin) & (sy <= self.height - margin)))


def fit_camera(
    area: Bounds,
    focus: Bounds | None,
    width: int,
    height: int,
    max_radius: int = 48,
) -> Camera:
    """The camera showing ``focus`` (plane bounds, ``R = 1``) as large as allowed, or the whole
    play area when ``focus`` is None; it never zooms out past the whole area and keeps the view
    on the area (plus half a hex, for labels) where the area is larger than the view."""
    whole = whole_radius(area, width, height)
    if focus is None:
        radius = whole
        cx, cy = area.center
    else:
        radius = int(min(width / max(focus.width, 1e-6), height / max(focus.height, 1e-6)))
        radius = max(whole, min(max_radius, radius))
        radius -= radius % 2 if radius > whole + 1 else 0  # even steps: fewer cached backgrounds
        cx, cy = focus.center
    return camera_at(area, (cx, cy), radius, width, height)


def whole_radius(area: Bounds, width: int, height: int) -> int:
    """The hex radius that shows the whole play area (the widest a camera ever zooms out)."""
    return max(6, int(min(width / area.width, height / area.height)))


def camera_at(area: Bounds, center: tuple[float, float], radius: int, width: int,
              height: int) -> Camera:
    """The camera of ``radius`` centred on plane point ``center`` (``R = 1``), kept on the
    play area (plus half a hex, for labels) where the area is larger than the view."""
    cx, cy = center
    room = area.grown(0.5, 0.5)
    left = _clamp(cx * radius - width / 2, room.left * radius, room.right * radius, width)
    top = _clamp(cy * radius - height / 2, room.top * radius, room.bottom * radius, height)
    return Camera(radius, round(left), round(top), width, height)


def _clamp(start: float, lo: float, hi: float, size: int) -> float:
    """Keep a view of ``size`` pixels inside [lo, hi]; centre it where [lo, hi] is smaller."""
    if hi - lo <= size:
        return (lo + hi - size) / 2
    return min(max(start, lo), hi - size)
