"""The self-play league: an opponent pool that grows with frozen snapshots of the learner.

The pool starts with ``league.pool`` (e.g. ``random``, ``doctrine``). Each battle of a
``league`` stage samples its opponent: the newest snapshot with probability
``latest_weight``, else a uniform member. The learner's results in those battles feed a window
of ``window`` games; when its win rate over a full window reaches ``snapshot_win_rate``, the
learner is saved as ``league/snapshot-<timesteps>.zip`` and joins the pool (the oldest snapshot
leaves beyond ``max_snapshots``), and the window starts afresh.

**Focus** (``league.focus`` > 0, a prioritised league in the manner of prioritised fictitious
self-play): the learner's seats (a scenario and the side it flies) do not all need the same
opponents. The stage's evaluations give each seat a win rate against the evaluation opponent
(the doctrine, say), smoothed over evaluations (``FOCUS_SMOOTHING``); a battle of a seat with
win rate ``w`` is then against that opponent with probability ``focus * (1 - w) ** focus_power``,
else against a pool draw as above. A seat that loses to the doctrine plays it nearly always; a
seat that beats it trains mostly against the pool. Seats not yet evaluated are not focused.

**Seat slots** (``league.seat_slots`` = ``s`` > 0, with focus, on ``agent: alternate`` stages):
focus moves a seat's battles between opponents; the seats' shares of the rollout stay even (the
learner flies each ship of a duel in half its battles). With seat slots, a scenario's battles
are split between the ships the learner flies by the same loss rates: ship ``a`` (seat ``i``)
gets a share ``(1 - s) / n + s * l_i / sum(l)`` of them, ``l_i = (1 - w_i) ** focus_power``
(``seat_battles``), every ship at least one battle, so a duel whose blue seat wins and red seat
loses trains mostly as red. The training loop rebuilds the stage's env with the new split after
every evaluation (``training.sb3_train``). Before a scenario's seats are evaluated, or when
none loses, the split is even.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import load_policy
from agents.bench import blue_agents
from agents.sb3_policy import SB3Policy
from training.config import LeagueConfig

FOCUS_SMOOTHING = 0.5  # weight of the newest evaluation in a seat's smoothed win rate

Seat = tuple[str, str]  # (scenario, the side the learner flies: "blue" or "red")


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
        self.seat_rates: dict[Seat, float] = {}  # smoothed evaluation win rates (focus)

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

    def focus_probability(self, seat: Seat) -> float:
        """The probability that a battle of ``seat`` plays the focus opponent (see the module
        docstring); 0 without focus or before the seat's first evaluation."""
        rate = self.seat_rates.get(seat)
        if not self.config.focus or rate is None:
            return 0.0
        return self.config.focus * (1.0 - rate) ** self.config.focus_power

    def sample_for(self, seat: Seat, focus_opponent: str) -> str:
        """The spec of the next battle's opponent in ``seat``: ``focus_opponent`` (the stage's
        evaluation opponent) with the seat's focus probability, else ``sample``."""
        p = self.focus_probability(seat)
        if p > 0.0 and self.rng.random() < p:
            return focus_opponent
        return self.sample()

    def opponent(self, agent: str) -> Any:
        """An opponent policy for ``agent`` (a factory for ``sfb_env.env.opponents``)."""
        del agent
        return self._policy(self.sample())

    @staticmethod
    def seat_of(scenario: str, agent: str) -> Seat:
        """The seat of the learner flying ``agent`` in ``scenario``: blue if ``agent`` is on
        the scenario's first side (the bench's blue, ``agents.bench.blue_agents``)."""
        return (scenario, "blue" if agent in blue_agents(scenario) else "red")

    @staticmethod
    def other_seat(seat: Seat) -> Seat:
        """The seat across the table from ``seat``: the same duel, the other side."""
        scenario, side = seat
        return (scenario, "red" if side == "blue" else "blue")

    def opponent_for(self, scenario: str, focus_opponent: str) -> Callable[[str], Any]:
        """The opponent factory of ``scenario``'s focused battles: asked to fly one ship of a
        duel, it plays the learner's seat in the other."""

        def factory(agent: str) -> Any:
            seat = self.other_seat(self.seat_of(scenario, agent))
            return self._policy(self.sample_for(seat, focus_opponent))

        return factory

    def seat_battles(self, scenario: str, agents: Sequence[str], battles: int) -> list[int]:
        """How many of ``scenario``'s ``battles`` the learner flies each of ``agents`` in: see
        "Seat slots" in the module docstring. Shares round by largest remainder (ties to the
        earlier agent)."""
        n = len(agents)
        if battles < n:
            raise ValueError(f"{scenario}: {battles} battles cannot give each of its {n} ships "
                             "one (league.seat_slots)")
        rates = [self.seat_rates.get(self.seat_of(scenario, a)) for a in agents]
        losses = np.array([0.0 if r is None else (1.0 - r) ** self.config.focus_power
                           for r in rates])
        share = np.full(n, 1.0 / n)
        if None not in rates and losses.sum() > 0.0:
            s = self.config.seat_slots
            share = (1.0 - s) / n + s * losses / losses.sum()
        exact = share * battles
        counts = np.floor(exact).astype(np.int64)
        for i in np.argsort(-(exact - counts), kind="stable")[:battles - int(counts.sum())]:
            counts[i] += 1
        while counts.min() == 0:  # every ship keeps a battle
            counts[int(np.argmax(counts))] -= 1
            counts[int(np.argmin(counts))] += 1
        return [int(c) for c in counts]

    def observe_seats(self, rates: Mapping[Seat, float]) -> None:
        """Fold an evaluation's per-seat win rates against the focus opponent into the smoothed
        rates (a seat's first evaluation is taken as it is)."""
        for seat, rate in rates.items():
            old = self.seat_rates.get(seat)
            self.seat_rates[seat] = float(rate) if old is None else (
                FOCUS_SMOOTHING * float(rate) + (1.0 - FOCUS_SMOOTHING) * old)

    def _policy(self, spec: str) -> Any:
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
                "results": list(self.results),
                "seat_rates": [[scenario, side, rate]
                               for (scenario, side), rate in sorted(self.seat_rates.items())]}

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore ``state``: relative snapshot names resolve in the league folder; snapshots
        that no longer exist leave the pool."""
        paths = [Path(s) if Path(s).is_absolute() else self.folder / s
                 for s in state.get("snapshots", [])]
        self.snapshots = [str(p) for p in paths if p.exists()]
        self.results.clear()
        self.results.extend(state.get("results", []))
        self.seat_rates = {(str(scenario), str(side)): float(rate)
                           for scenario, side, rate in state.get("seat_rates", [])}
