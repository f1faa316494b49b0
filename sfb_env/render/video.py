"""Writing frames to video (``.mp4`` through imageio-ffmpeg, ``.gif`` through Pillow) and a
progress bar for long renders (tqdm when installed, else a counter on stderr)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from gymnasium.error import DependencyNotInstalled
from PIL import Image

from sfb_env.render import colors

T = TypeVar("T")
FORMATS = (".mp4", ".gif")


class VideoWriter:
    """Append (H, W, 3) uint8 frames of one size; ``close()`` (or the ``with`` block) finishes
    the file. ``.mp4``: H.264, streamed to ffmpeg; ``.gif``: frames kept (palette-indexed)
    until close."""

    def __init__(self, path: str | Path, fps: float = 4.0) -> None:
        self.path = Path(path)
        self.fps = float(fps)
        suffix = self.path.suffix.lower()
        if suffix not in FORMATS:
            raise ValueError(f"video file {self.path}: expected one of {list(FORMATS)}")
        if self.fps <= 0:
            raise ValueError(f"fps must be positive, got {fps}")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.frames = 0
        self._size: tuple[int, int] | None = None
        self._gif: list[Image.Image] | None = [] if suffix == ".gif" else None
        self._palette: Image.Image | None = None
        self._writer: Any = None

    def append(self, frame: np.ndarray) -> None:
        """Add one frame."""
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected an (H, W, 3) uint8 frame, got {frame.shape} {frame.dtype}")
        size = (frame.shape[1], frame.shape[0])
        if self._size is None:
            self._size = size
            if self._gif is None:
                self._writer = _ffmpeg_writer(self.path, self.fps)
        elif size != self._size:
            raise ValueError(f"frame size {size} differs from the first frame's {self._size}")
        if self._gif is not None:
            self._gif.append(self._indexed(frame))
        else:
            self._writer.append_data(frame)
        self.frames += 1

    def close(self) -> None:
        """Finish the file (an empty video writes nothing)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._gif:
            first, *rest = self._gif
            first.save(self.path, save_all=True, append_images=rest, loop=0,
                       duration=round(1000 / self.fps), disposal=1)
            self._gif = []

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _indexed(self, frame: np.ndarray) -> Image.Image:
        """A palette image: the colour tables first, the rest from the first frame."""
        image = Image.fromarray(frame)
        if self._palette is None:
            self._palette = _gif_palette(image)
        return image.quantize(palette=self._palette, dither=Image.Dither.NONE)


def _gif_palette(first: Image.Image) -> Image.Image:
    fixed = [c for table in (colors.RACE.values(), colors.WEAPON.values(), colors.SIDE)
             for c in table]
    fixed += [colors.SPACE, colors.MAP_FILL, colors.GRID, colors.LABEL, colors.SECTOR_BORDER,
              colors.AREA_BORDER, colors.TEXT, colors.TEXT_DIM, colors.HUD_FILL, colors.EXPLOSION,
              colors.EXPLOSION_CORE, colors.SEEKING_HIT, colors.SHIELD_DOWN, colors.GOOD,
              colors.WARN, colors.BAD, (0, 0, 0), (255, 255, 255)]
    fixed += [colors.shield_color(k, 8) for k in range(1, 9)]
    fixed = list(dict.fromkeys(fixed))
    adaptive = first.quantize(colors=256 - len(fixed)).getpalette() or []
    flat = [v for c in fixed for v in c] + adaptive
    flat = (flat + [0] * 768)[:768]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat)
    return palette


def _ffmpeg_writer(path: Path, fps: float) -> Any:
    try:
        import imageio.v2 as imageio
    except ImportError as exc:
        raise DependencyNotInstalled(
            'writing .mp4 needs imageio and imageio-ffmpeg: pip install "sfb-env[video]"'
        ) from exc
    return imageio.get_writer(path, format="FFMPEG", mode="I", fps=fps, codec="libx264",
                              pixelformat="yuv420p", macro_block_size=2, quality=8,
                              ffmpeg_log_level="error")


def progress(items: Iterable[T], total: int | None = None, desc: str = "frames") -> Iterator[T]:
    """Iterate with a progress bar on stderr: tqdm if installed, else a plain counter."""
    try:
        from tqdm import tqdm
    except ImportError:
        yield from _counter(items, total, desc)
        return
    yield from tqdm(items, total=total, desc=desc, unit="frame", leave=False)


def _counter(items: Iterable[T], total: int | None, desc: str) -> Iterator[T]:
    count = 0
    of = f"/{total}" if total else ""
    for count, item in enumerate(items, 1):
        if count % 10 == 0:
            print(f"\r{desc}: {count}{of}", end="", file=sys.stderr, flush=True)
        yield item
    print(f"\r{desc}: {count}{of}", file=sys.stderr, flush=True)
