"""The ``human`` render mode's window (pygame, the optional ``human`` extra; imported lazily)."""

from __future__ import annotations

import os

import numpy as np
from gymnasium.error import DependencyNotInstalled


class Window:
    """A pygame window showing frames; closing it just hides further frames."""

    def __init__(self, width: int, height: int, title: str, fps: float = 4.0) -> None:
        try:
            import pygame
        except ImportError as exc:
            raise DependencyNotInstalled(
                'render_mode="human" needs pygame: pip install "sfb-env[human]"'
            ) from exc
        self._pygame = pygame
        pygame.init()
        pygame.display.set_caption(f"sfb-env: {title}")
        self._screen = pygame.display.set_mode((width, height))
        self._clock = pygame.time.Clock()
        # pace real windows at the env's render_fps; a headless (dummy) display never waits
        self._fps = 0.0 if os.environ.get("SDL_VIDEODRIVER") == "dummy" else fps
        self._open = True

    def show(self, frame: np.ndarray) -> None:
        """Blit one (H, W, 3) frame and process window events."""
        if not self._open:
            return
        pygame = self._pygame
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self.close()
                return
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(frame.swapaxes(0, 1)))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        if self._fps:
            self._clock.tick(self._fps)

    def close(self) -> None:
        """Close the window (pygame's display is shut down)."""
        if self._open:
            self._pygame.display.quit()
            self._open = False
