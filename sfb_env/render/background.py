"""The cached map background: the play area's hex grid with XXYY labels and sector borders.

One image per (play area, parity, hex radius) holds the whole area in map-plane pixels;
frames crop it, so a background is drawn once per zoom level, not once per frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from sfb_env import hexmap
from sfb_env.render import colors
from sfb_env.render.fonts import font
from sfb_env.render.geometry import area_bounds, hex_corners, hex_to_plane


@dataclass(frozen=True)
class Background:
    """The image and the plane pixel of its top-left corner."""

    image: Image.Image
    left: int
    top: int


@lru_cache(maxsize=8)
def background(area: hexmap.MapArea, parity: str, radius: int) -> Background:
    """The play area drawn at ``radius`` pixels per hex (cached)."""
    bounds = area_bounds(area, parity).grown(0.5, 0.5)
    left, top = int(np.floor(bounds.left * radius)), int(np.floor(bounds.top * radius))
    width = int(np.ceil(bounds.right * radius)) - left
    height = int(np.ceil(bounds.bottom * radius)) - top
    image = Image.new("RGB", (width, height), colors.SPACE)
    draw = ImageDraw.Draw(image)
    labels = area.labels()
    cols = np.array([int(lab[:2]) for lab in labels])
    rows = np.array([int(lab[2:]) for lab in labels])
    x, z = hexmap.offset_to_axial_np(cols, rows, parity)
    px, py = hex_to_plane(x, z)
    cx, cy = px * radius - left, py * radius - top
    for i in range(len(labels)):
        draw.polygon(hex_corners(cx[i], cy[i], radius), fill=colors.MAP_FILL, outline=colors.GRID)
    _sector_letters(draw, area, parity, radius, left, top)
    label_font = font(max(7, round(radius * 0.36)))
    if radius >= 14:
        for i, label in enumerate(labels):
            draw.text((cx[i], cy[i] - radius * 0.58), label, fill=colors.LABEL, font=label_font,
                      anchor="mm")
    _borders(draw, cols, rows, x, z, cx, cy, area, parity, radius)
    return Background(image, left, top)


def _borders(draw, cols, rows, x, z, cx, cy, area, parity, radius) -> None:
    """Hex edges between printed sectors, and the edge of the play area."""
    width = max(1, radius // 12)
    for i in range(len(cols)):
        corners = hex_corners(cx[i], cy[i], radius)
        sector = hexmap.sector_of(hexmap.format_label(int(cols[i]), int(rows[i])))
        for d in range(6):
            nx, nz = hexmap.neighbor_np(x[i], z[i], d)
            ncol, nrow = hexmap.axial_to_offset_np(nx, nz, parity)
            inside = bool(area.contains_offset_np(ncol, nrow))
            if inside:
                other = hexmap.sector_of(hexmap.format_label(int(ncol), int(nrow)))
                if other == sector:
                    continue
            # direction d's edge joins corners d+4 and d+5 (corner 0 points right, clockwise)
            a, b = corners[(d + 4) % 6], corners[(d + 5) % 6]
            color = colors.SECTOR_BORDER if inside else colors.AREA_BORDER
            draw.line([a, b], fill=color, width=width + (0 if inside else 1))


def _sector_letters(draw, area, parity, radius, left, top) -> None:
    """A large faint letter at the centre of each printed sector inside the play area."""
    letter_font = font(int(radius * 5))
    for name, sector in hexmap.SECTORS.items():
        c0 = max(sector.first_column, area.first_column)
        c1 = min(sector.last_column, area.last_column)
        r0, r1 = max(sector.first_row, area.first_row), min(sector.last_row, area.last_row)
        if c0 > c1 or r0 > r1:
            continue
        x, z = hexmap.offset_to_axial_np([c0, c1], [r0, r1], parity)
        px, py = hex_to_plane(x, z)
        draw.text((float(px.mean()) * radius - left, float(py.mean()) * radius - top),
                  name, fill=colors.SECTOR_LETTER, font=letter_font, anchor="mm")
