"""Env steps per second of an RLlib run, from its per-iteration result dicts (no ray import).

``Throughput.record(result, seconds)`` takes what ``Algorithm.train()`` returned and the wall
time that call took; it keeps one row per iteration (steps this iteration, its wall time, steps/s)
beside RLlib's own figures:

* ``num_env_steps_sampled_lifetime`` (top level), the env steps the runners sampled so far;
* ``timers/env_runner_sampling_timer``: the seconds of the iteration spent sampling, so
  ``sampling_env_steps_per_s`` = that iteration's env steps over it (sampling alone, without
  the learner update);
* ``env_runners/num_env_steps_sampled_lifetime_throughput`` (ray 2.60 reports
  ``{"throughput_since_last_restore": x, ...}``; ``x`` is kept): RLlib's own figure, lifetime
  env steps over the wall time since the algorithm's metrics were created, the algorithm's
  setup (env runner start-up) included, so it is low on short runs.

``summary()`` is the whole run: lifetime env steps over the summed ``train()`` wall time.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LIFETIME = "num_env_steps_sampled_lifetime"
RUNNER_THROUGHPUT = ("env_runners", "num_env_steps_sampled_lifetime_throughput")
SAMPLING_TIMER = ("timers", "env_runner_sampling_timer")


def lookup(result: dict[str, Any], path: tuple[str, ...]) -> float:
    """The number at ``path`` in a nested result dict, ``nan`` if absent.

    RLlib reports some lifetime throughputs as ``{"throughput_since_last_restore": x, ...}``;
    that entry is taken then.
    """
    value: Any = result
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return math.nan
        value = value[key]
    if isinstance(value, dict):
        value = value.get("throughput_since_last_restore", math.nan)
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


@dataclass
class Throughput:
    """Per-iteration and whole-run env steps/s of one training run."""

    rows: list[dict[str, float]] = field(default_factory=list)

    @property
    def env_steps(self) -> float:
        return self.rows[-1]["env_steps_lifetime"] if self.rows else 0.0

    @property
    def seconds(self) -> float:
        return sum(row["seconds"] for row in self.rows)

    def record(self, result: dict[str, Any], seconds: float) -> dict[str, float]:
        """Add the iteration whose ``train()`` returned ``result`` after ``seconds`` of wall."""
        lifetime = lookup(result, (LIFETIME,))
        steps = lifetime - self.env_steps
        row = {
            "iteration": float(len(self.rows) + 1),
            "seconds": seconds,
            "env_steps": steps,
            "env_steps_lifetime": lifetime,
            "env_steps_per_s": steps / seconds if seconds > 0 else math.nan,
            "sampling_seconds": lookup(result, SAMPLING_TIMER),
            "rllib_lifetime_env_steps_per_s": lookup(result, RUNNER_THROUGHPUT),
        }
        row["sampling_env_steps_per_s"] = (
            steps / row["sampling_seconds"] if row["sampling_seconds"] > 0 else math.nan)
        self.rows.append(row)
        return row

    def summary(self) -> dict[str, float]:
        """The run: lifetime env steps over the summed wall time of the ``train()`` calls."""
        seconds = self.seconds
        return {
            "iterations": float(len(self.rows)),
            "env_steps": self.env_steps,
            "seconds": seconds,
            "env_steps_per_s": self.env_steps / seconds if seconds > 0 else math.nan,
        }

    def save(self, path: Path, **extra: Any) -> None:
        """Write the rows, the summary and ``extra`` (backend, ray version, ...) as JSON."""
        path.parent.mkdir(parents=True, exist_ok=True)
        body = {**extra, "summary": self.summary(), "iterations": self.rows}
        path.write_text(json.dumps(body, indent=2) + "\n")


def row_line(row: dict[str, float]) -> str:
    """One iteration as printed by ``train.py``."""
    return (f"{row['env_steps']:.0f} env steps in {row['seconds']:.1f} s = "
            f"{row['env_steps_per_s']:.1f} env steps/s (sampling {row['sampling_seconds']:.1f} s"
            f" = {row['sampling_env_steps_per_s']:.1f}/s; RLlib lifetime "
            f"{row['rllib_lifetime_env_steps_per_s']:.1f}/s)")
