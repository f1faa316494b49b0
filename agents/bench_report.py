"""Bench results as text and files: a markdown table, JSON, CSV and a PNG plot.

Everything here is a pure function of the results (no timing, no dates), so the same games
give byte-identical output.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.bench import GameResult, MatchStats, Rating, as_dict


def _rate(p: float, ci: tuple[float, float]) -> str:
    return f"{p:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def markdown_table(stats: Sequence[MatchStats]) -> str:
    """Per-match results from blue's side, 95% Wilson intervals in brackets, and red's own
    win rate (it differs from blue's loss rate where outcomes are not zero-sum)."""
    lines = [
        "| scenario | blue | red | games | W-D-L | win rate [95% CI] | draw rate [95% CI] "
        "| loss rate [95% CI] | red win rate [95% CI] | dealt | taken | turns |",
        "|---|---|---|---:|---|---|---|---|---|---:|---:|---:|",
    ]
    for s in stats:
        lines.append(
            f"| {s.scenario} | {s.blue} | {s.red} | {s.games} | {s.wins}-{s.draws}-{s.losses} "
            f"| {_rate(s.win_rate, s.win_ci)} | {_rate(s.draw_rate, s.draw_ci)} "
            f"| {_rate(s.loss_rate, s.loss_ci)} | {_rate(s.red_win_rate, s.red_win_ci)} "
            f"| {s.damage_dealt:.1f} | {s.damage_taken:.1f} "
            f"| {s.turns:.2f} |"
        )
    return "\n".join(lines)


def ratings_table(ratings: Sequence[Rating]) -> str:
    """openskill ratings, best first (ordinal = mu - 3 sigma)."""
    lines = ["| player | mu | sigma | ordinal | games |", "|---|---:|---:|---:|---:|"]
    for r in ratings:
        lines.append(f"| {r.player} | {r.mu:.2f} | {r.sigma:.2f} | {r.ordinal:.2f} | {r.games} |")
    return "\n".join(lines)


def report(stats: Sequence[MatchStats], ratings: Sequence[Rating]) -> str:
    """The printed report: results per match, then ratings."""
    return (
        "Results (blue's side; 95% Wilson intervals; dealt/taken = mean damage points per game)"
        f"\n\n{markdown_table(stats)}\n\n"
        f"Ratings (openskill Plackett-Luce)\n\n{ratings_table(ratings)}\n"
    )


def write_outputs(
    out: str | Path,
    config: dict[str, Any],
    games: Sequence[GameResult],
    stats: Sequence[MatchStats],
    ratings: Sequence[Rating],
) -> list[Path]:
    """Write results.json, games.csv, summary.csv, summary.md and winrates.png to ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / n for n in ("results.json", "games.csv", "summary.csv", "summary.md",
                               "winrates.png")]
    doc = {"config": config, "matches": [as_dict(s) for s in stats],
           "ratings": [as_dict(r) for r in ratings], "games": [as_dict(g) for g in games]}
    paths[0].write_text(json.dumps(doc, indent=2) + "\n")
    _csv(paths[1], [as_dict(g) for g in games])
    _csv(paths[2], [_flat(as_dict(s)) for s in stats])
    paths[3].write_text(report(stats, ratings))
    plot(stats, paths[4])
    return paths


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in row.items():
        if isinstance(value, (tuple, list)):
            out[f"{key}_low"], out[f"{key}_high"] = value
        else:
            out[key] = value
    return out


def _csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="") as f:
        if not rows:
            return
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def plot(stats: Sequence[MatchStats], path: Path) -> None:
    """Stacked win/draw/loss bars per match with the win rate's 95% interval."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{s.blue} vs {s.red}\n{s.scenario}" for s in stats]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(stats) + 2), 4.5))
    x = range(len(stats))
    wins = [s.win_rate for s in stats]
    draws = [s.draw_rate for s in stats]
    losses = [s.loss_rate for s in stats]
    ax.bar(x, wins, color="#2e7d32", label="win")
    ax.bar(x, draws, bottom=wins, color="#9e9e9e", label="draw")
    ax.bar(x, losses, bottom=[w + d for w, d in zip(wins, draws, strict=True)], color="#c62828",
           label="loss")
    # clipped at 0: the Wilson bound at a 0% or 100% rate equals it up to rounding
    err = [[max(0.0, w - s.win_ci[0]) for w, s in zip(wins, stats, strict=True)],
           [max(0.0, s.win_ci[1] - w) for w, s in zip(wins, stats, strict=True)]]
    ax.errorbar(x, wins, yerr=err, fmt="none", ecolor="black", capsize=4, label="win 95% CI")
    ax.set_xticks(list(x), labels, fontsize=7, rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of games (blue's side)")
    ax.legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
