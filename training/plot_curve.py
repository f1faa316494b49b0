"""Learning curves of an ``sfb train`` run as a PNG, read from its TensorBoard logs.

    python -m training.plot_curve runs/klingon-cth03 --out docs/training/klingon-cth03.png

Two panels against environment steps: the mean training episode return
(``rollout/ep_rew_mean``) and the periodic evaluation win rate (``eval/win_rate``, with the
stage boundaries of the curriculum when it has several stages).
"""

from __future__ import annotations

import argparse
from pathlib import Path

RETURN = "rollout/ep_rew_mean"
WIN_RATE = "eval/win_rate"
STAGE = "curriculum/stage"


def read_scalars(run: str | Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar of the run's TensorBoard logs (``RUN/tb/*``), merged and sorted by step."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logs = sorted(Path(run, "tb").glob("*")) if Path(run, "tb").is_dir() else [Path(run)]
    if not logs:
        raise FileNotFoundError(f"no TensorBoard logs under {Path(run, 'tb')}")
    series: dict[str, dict[int, float]] = {}
    for log in logs:
        acc = EventAccumulator(str(log), size_guidance={"scalars": 0})
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            series.setdefault(tag, {}).update((e.step, e.value) for e in acc.Scalars(tag))
    return {tag: sorted(points.items()) for tag, points in series.items()}


def plot(run: str | Path, out: str | Path, title: str | None = None) -> Path:
    """Write the two-panel learning curve of ``run`` to ``out`` (PNG); returns the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scalars = read_scalars(run)
    if RETURN not in scalars and WIN_RATE not in scalars:
        raise ValueError(f"{run}: the logs hold neither {RETURN!r} nor {WIN_RATE!r}")
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    if RETURN in scalars:
        steps, values = zip(*scalars[RETURN], strict=True)
        top.plot(steps, values, color="tab:blue")
    top.set_ylabel("mean episode return")
    top.grid(alpha=0.3)
    if WIN_RATE in scalars:
        steps, values = zip(*scalars[WIN_RATE], strict=True)
        bottom.plot(steps, values, marker="o", color="tab:green")
    for step, stage in _stage_starts(scalars.get(STAGE, []))[1:]:
        for ax in (top, bottom):
            ax.axvline(step, color="grey", linestyle=":", linewidth=1)
        bottom.text(step, 1.02, f"stage {stage}", fontsize=8, color="grey")
    bottom.set_ylim(-0.02, 1.08)
    bottom.set_ylabel("evaluation win rate")
    bottom.set_xlabel("environment steps (impulses of the learner)")
    bottom.grid(alpha=0.3)
    fig.suptitle(title or Path(run).name)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def _stage_starts(stages: list[tuple[int, float]]) -> list[tuple[int, int]]:
    """(step, stage) where the curriculum stage changes."""
    starts: list[tuple[int, int]] = []
    for step, value in stages:
        if not starts or int(value) != starts[-1][1]:
            starts.append((step, int(value)))
    return starts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="an sfb train output folder (holding tb/)")
    parser.add_argument("--out", required=True, help="PNG file to write")
    parser.add_argument("--title", default=None)
    args = parser.parse_args(argv)
    print(plot(args.run, args.out, args.title))


if __name__ == "__main__":
    main()
