"""Fonts: Pillow's built-in scalable font (Pillow >= 10.1), cached by size."""

from __future__ import annotations

from functools import cache

from PIL import ImageFont

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@cache
def font(size: int) -> Font:
    """The default font at ``size`` pixels (the fixed bitmap font on very old Pillow)."""
    try:
        return ImageFont.load_default(size=max(6, int(size)))
    except TypeError:  # Pillow < 10.1: no size argument
        return ImageFont.load_default()
