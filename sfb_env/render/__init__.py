"""Frames, video and the human window for sfb-env battles (Pillow; the ``video`` extra).

``Renderer(battle).frame()`` gives an (H, W, 3) uint8 frame; ``Renderer.hex_center(label)``
the pixel of a hex's centre in it. ``VideoWriter`` writes frames to ``.mp4`` (imageio-ffmpeg)
or ``.gif``. New unit kinds and effects plug into the registries of ``sfb_env.render.frame``.
"""

from sfb_env.render.geometry import hex_to_plane
from sfb_env.render.renderer import Renderer, unit_colors
from sfb_env.render.video import VideoWriter, progress

__all__ = ["Renderer", "VideoWriter", "hex_to_plane", "progress", "unit_colors"]
