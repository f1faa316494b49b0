"""Colour tables of the renderer (RGB tuples), Minigrid-style: one table per concern."""

from __future__ import annotations

RGB = tuple[int, int, int]

# --- map ---------------------------------------------------------------------------------
SPACE: RGB = (8, 11, 22)  # off the play area
MAP_FILL: RGB = (14, 20, 38)  # inside the play area
GRID: RGB = (38, 50, 80)  # hex outlines
LABEL: RGB = (88, 104, 140)  # XXYY labels
SECTOR_BORDER: RGB = (96, 120, 176)  # borders between the printed sectors A-D
AREA_BORDER: RGB = (150, 170, 215)  # edge of the play area
SECTOR_LETTER: RGB = (24, 33, 60)  # faint sector letters

# --- units -------------------------------------------------------------------------------
RACE: dict[str, RGB] = {
    "federation": (74, 163, 255),
    "klingon": (228, 62, 62),
    "romulan": (64, 190, 96),
    "gorn": (196, 128, 64),
    "kzinti": (240, 156, 40),
    "orion": (150, 150, 160),
    "hydran": (40, 200, 190),
    "lyran": (236, 216, 60),
    "isc": (190, 130, 255),
    "civilian": (214, 214, 206),
}
SIDE: tuple[RGB, ...] = (  # units of no race (target drones): by side index
    (74, 163, 255),
    (255, 110, 96),
    (130, 220, 120),
    (220, 160, 255),
)
OUTLINE: RGB = (10, 12, 18)
TEXT: RGB = (226, 232, 244)
TEXT_DIM: RGB = (130, 140, 160)
TEXT_OUTLINE: RGB = (0, 0, 0)

# Shield segments by remaining fraction: (fraction, colour) stops, interpolated.
SHIELD_STOPS: tuple[tuple[float, RGB], ...] = (
    (0.0, (200, 40, 40)),
    (0.5, (230, 200, 50)),
    (1.0, (60, 220, 130)),
)
SHIELD_DOWN: RGB = (60, 60, 66)  # a shield with no box left

# --- fire and effects ----------------------------------------------------------------------
WEAPON: dict[str, RGB] = {
    "ph-1": (255, 236, 120),
    "ph-2": (255, 236, 120),
    "ph-3": (255, 236, 120),
    "ph-g": (255, 200, 120),
    "disruptor": (150, 255, 60),
    "photon": (250, 250, 255),
    "fusion": (255, 90, 220),
    "ppd": (200, 150, 255),
    "plasma": (255, 150, 40),
}
WEAPON_DEFAULT: RGB = (255, 255, 255)
EXPLOSION: RGB = (255, 140, 26)
EXPLOSION_CORE: RGB = (255, 244, 200)
SEEKING_HIT: RGB = (255, 100, 200)
ESG: RGB = (120, 220, 255)
WRECK: RGB = (92, 94, 102)  # a destroyed unit's counter, greyed
WRECK_X: RGB = (236, 80, 70)  # the X over it

# --- HUD ---------------------------------------------------------------------------------
HUD_FILL: RGB = (18, 22, 34)
HUD_RULE: RGB = (48, 58, 84)
GOOD: RGB = (90, 220, 130)
WARN: RGB = (236, 200, 60)
BAD: RGB = (236, 80, 70)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """Linear blend: ``t = 0`` gives ``a``, ``t = 1`` gives ``b``."""
    t = min(1.0, max(0.0, t))
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def shield_color(remaining: int, full: int) -> RGB:
    """Colour of a shield segment with ``remaining`` of ``full`` boxes."""
    if remaining <= 0 or full <= 0:
        return SHIELD_DOWN
    f = remaining / full
    for (f0, c0), (f1, c1) in zip(SHIELD_STOPS, SHIELD_STOPS[1:], strict=False):
        if f <= f1:
            return mix(c0, c1, (f - f0) / (f1 - f0))
    return SHIELD_STOPS[-1][1]


def weapon_color(weapon_type: str) -> RGB:
    """Line colour of a direct-fire weapon type (data-file key, e.g. ``"ph-2"``)."""
    if weapon_type.startswith("plasma"):
        return WEAPON["plasma"]
    return WEAPON.get(weapon_type, WEAPON_DEFAULT)
