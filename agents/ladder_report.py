"""The ladder as a markdown page and a PNG plot (``sfb ladder --out docs/ladder.md``).

A pure function of the ladder and its games (no timing, no dates): the same seed writes the
same page.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from agents import bench
from agents.ladder import Ladder, Standing


def ratings_table(table: Sequence[Standing]) -> str:
    """Ratings best ordinal first, with mu +/- 2 sigma and each captain's record."""
    lines = ["| rank | captain | games | W-D-L | mu | sigma | mu ± 2σ | ordinal (mu − 3σ) |",
             "|---:|---|---:|---|---:|---:|---|---:|"]
    for rank, s in enumerate(table, 1):
        lines.append(f"| {rank} | {s.captain} | {s.games} | {s.wins}-{s.draws}-{s.losses} "
                     f"| {s.mu:.2f} | {s.sigma:.2f} | [{s.low:.2f}, {s.high:.2f}] "
                     f"| {s.ordinal:.2f} |")
    return "\n".join(lines)


def seats_table(ladder: Ladder) -> str:
    """Which side of which duel each entrant flies (blue = the duel's first side)."""
    lines = ["| captain | " + " | ".join(ladder.duels) + " |",
             "|---|" + "---|" * len(ladder.duels)]
    for e in ladder.entrants:
        cells = []
        for duel in ladder.duels:
            sides = list(bench.sides_with_agents(duel))
            flown = [(i, s) for i, s in enumerate(sides) if (duel, s) in e.seats]
            if len(flown) == len(sides):
                cells.append("both")
            elif flown:
                cells.append(" ".join(f"{('blue', 'red')[i]} ({s})" for i, s in flown))
            else:
                cells.append("—")
        lines.append(f"| {e.captain} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _count(items: Sequence[str], noun: str) -> str:
    return f"{len(items)} {noun}" + ("" if len(items) == 1 else "s")


def _rate(k: int, n: int) -> str:
    low, high = bench.wilson(k, n)
    return f"{k / n if n else 0.0:.3f} [{low:.3f}, {high:.3f}]"


def pairings_table(stats: Sequence[bench.MatchStats]) -> str:
    """One row per pairing: blue's W-D-L and each side's win rate with its 95% Wilson interval."""
    lines = ["| duel | blue | red | games | W-D-L (blue) | blue win rate [95% CI] "
             "| red win rate [95% CI] | turns |", "|---|---|---|---:|---|---|---|---:|"]
    for s in stats:
        lines.append(f"| {s.scenario} | {s.blue} | {s.red} | {s.games} "
                     f"| {s.wins}-{s.draws}-{s.losses} | {_rate(s.wins, s.games)} "
                     f"| {_rate(s.red_wins, s.games)} | {s.turns:.2f} |")
    return "\n".join(lines)


def page(ladder: Ladder, games: Sequence[bench.GameResult], table: Sequence[Standing],
         command: str, per_pairing: int, seed: int, backend: str = "auto",
         plot_name: str | None = None) -> str:
    """The whole markdown page."""
    stats = bench.match_stats(ladder.matches, games)
    last = seed + per_pairing - 1
    parts = [
        "# Captain ladder",
        "",
        "Written by `sfb ladder` (`agents/ladder.py`, `agents/ladder_report.py`); regenerate "
        "it, do not edit it:",
        "",
        f"```bash\n{command}\n```",
        "",
        f"A round robin of {len(ladder.entrants)} captains over {_count(ladder.duels, 'duel')}: "
        "every "
        f"ordered pair of distinct captains that fly a duel's two sides plays {per_pairing} "
        f"games there (blue is the duel's first side), in {per_pairing} rounds: round i "
        f"plays every pairing once with seed {seed} + i (seeds {seed}..{last}); "
        f"{len(ladder.matches)} pairings, {len(games)} games in all. The games are "
        "`sfb bench` games (`agents.bench`: every action checked against its mask), played "
        f"with `--backend {backend}` (`auto`: the compiled core where it plays the duel; "
        "doctrine captains and checkpoints decide in Python either way); the compiled core "
        "plays the reference engine's games (the parity harness, docs/compiled.md), so the "
        "backend does not change the table.",
        "",
        "Ratings are openskill Plackett-Luce (`agents.bench.rate`, every captain starting at "
        "mu 25, sigma 8.33), updated one game at a time in a fixed order (round, then "
        "pairing in the order of the table below), so a seed gives the same table with any "
        "`--workers`, and every pairing weighs evenly along the way (openskill's updates "
        "favour recent games a little: its tau keeps sigma from shrinking to 0). A "
        "captain's rating pools every duel and side it flies: a race's doctrine captain "
        "flies only its own ship, so its rating is the captain and its ship together, "
        "measured against the captains that fly the other ships. The interval is "
        "mu ± 2σ; the table is sorted by the ordinal mu − 3σ.",
        "",
        "## Ratings",
        "",
        ratings_table(table),
        "",
    ]
    if plot_name:
        parts += [f"![ratings: mu ± 2σ per captain]({plot_name})", ""]
    parts += [
        "## Who flies which ship",
        "",
        "`random`, `random-fighter` and `doctrine` fly every ship; a race's doctrine captain "
        "(`klingon-doctrine`, ...) flies only the ships of its race (its range bands, fire "
        "ranges and shield profile are that ship's); a checkpoint flies the seats its sidecar "
        "names (the scenario it was trained for and the agents it flew there).",
        "",
        seats_table(ladder),
        "",
    ]
    if ladder.left_out:
        parts += ["Left out (they fly none of these duels):", ""]
        parts += [f"- `{captain}`: {why}" for captain, why in ladder.left_out]
        parts.append("")
    parts += [
        "## Pairings",
        "",
        "W-D-L from blue's side; win rates with 95% Wilson intervals; turns: mean game length.",
        "",
        pairings_table(stats),
        "",
    ]
    return "\n".join(parts)


def plot(table: Sequence[Standing], path: Path) -> None:
    """mu with its ± 2 sigma interval per captain (best on top), the ordinal marked."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.0, 1.0 + 0.45 * len(table)))
    y = list(range(len(table)))[::-1]
    mus = [s.mu for s in table]
    ax.errorbar(mus, y, xerr=[[2 * s.sigma for s in table], [2 * s.sigma for s in table]],
                fmt="o", color="#1565c0", ecolor="#1565c0", capsize=4, label="mu ± 2σ")
    ax.scatter([s.ordinal for s in table], y, marker="|", s=120, color="#c62828",
               label="ordinal (mu − 3σ)", zorder=3)
    ax.set_yticks(y, [s.captain for s in table], fontsize=8)
    ax.set_xlabel("openskill rating (Plackett-Luce)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


def write_page(out: str | Path, ladder: Ladder, games: Sequence[bench.GameResult],
               table: Sequence[Standing], command: str, per_pairing: int, seed: int,
               backend: str = "auto") -> list[Path]:
    """Write ``out`` (markdown) and the plot beside it (same name, ``.png``)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    png = out.with_suffix(".png")
    plot(table, png)
    out.write_text(page(ladder, games, table, command, per_pairing, seed, backend, png.name))
    return [out, png]
