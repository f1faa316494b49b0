"""The self-play league: an opponent pool that grows with frozen snapshots of the learner.

The pool starts with ``league.pool`` (e.g. ``random``, ``doctrine``). Each battle of a
``league`` stage samples its opponent: the newest snapshot with probability
``latest_weight``, else a uniform member. The learner's results in those battles feed a window
of ``window`` games; when its win rate over a full window reaches ``snapshot_win_rate``, the
learner is saved as ``league/snapshot-<timesteps>.zip`` and joins the pool (the oldest snapshot
leaves beyond ``max_snapshots``), and the window starts afresh.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import load_policy
from agents.sb3_policy import SB3Policy
from training.config import LeagueConfig


class League:
    """The opponent pool of the self-play league and the learner's recent results."""

    def __init__(self, config: LeagueConfig, folder: Path, seed: int | None = None) -> None:
        self.config = config
        self.folder = Path(folder)
        self.members: list[str] = list(config.pool)
        self.snapshots: list[str] = []
        self.results: deque[float] = deque(maxlen=config.window)
        self.rng = np.random.default_rng(seed)
        self._cache: dict[str, SB3Policy] = {}

    # ------------------------------------------------------------------ opponents

    @property
    def pool(self) -> list[str]:
        return self.members + self.snapshots

    def sample(self) -> str:
        """The spec of the next battle's opponent."""
        if self.snapshots and self.rng.random() < self.config.latest_weight:
            return self.snapshots[-1]
        pool = self.pool
        return pool[int(self.rng.integers(len(pool)))]

    def opponent(self, agent: str) -> Any:
        """An opponent policy for ``agent`` (a factory for ``sfb_env.env.opponents``)."""
        del agent
        spec = self.sample()
        if spec.endswith(".zip"):
            if spec not in self._cache:  # frozen snapshots are stateless: share one model
                self._cache[spec] = SB3Policy(spec, deterministic=False)
            return self._cache[spec]
        return load_policy(spec)

    # ------------------------------------------------------------------ results

    def record(self, result: str) -> None:
        """A finished league game: ``win`` / ``draw`` / ``loss`` from the learner's side."""
        self.results.append(1.0 if result == "win" else 0.0)

    @property
    def win_rate(self) -> float | None:
        """The learner's win rate over the last full window, None before one is full."""
        if len(self.results) < self.config.window:
            return None
        return float(np.mean(self.results))

    def ready_for_snapshot(self) -> bool:
        rate = self.win_rate
        return rate is not None and rate >= self.config.snapshot_win_rate

    def add_snapshot(self, path: str | Path) -> None:
        """Put the checkpoint at ``path`` into the pool and restart the window."""
        self.snapshots.append(str(path))
        while len(self.snapshots) > self.config.max_snapshots:
            self._cache.pop(self.snapshots.pop(0), None)
        self.results.clear()

    def _portable(self, snapshot: str) -> str:
        path = Path(snapshot)
        return path.name if path.parent.resolve() == self.folder.resolve() else snapshot

    def snapshot_path(self, timesteps: int) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        return self.folder / f"snapshot-{timesteps:09d}.zip"

    # ------------------------------------------------------------------ resume

    def state(self) -> dict[str, Any]:
        """The resumable state; snapshots inside the league folder are stored by file name, so
        a checkpoint's sidecar stays valid when the run folder moves."""
        return {"snapshots": [self._portable(s) for s in self.snapshots],
                "results": list(self.results)}

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore ``state``: relative snapshot names resolve in the league folder; snapshots
        that no longer exist leave the pool."""
        paths = [Path(s) if Path(s).is_absolute() else self.folder / s
                 for s in state.get("snapshots", [])]
        self.snapshots = [str(p) for p in paths if p.exists()]
        self.results.clear()
        self.results.extend(state.get("results", []))
