"""The learning-curve report of a training run (training/plot_curve.py)."""

from __future__ import annotations

import pytest
from conftest import require


def _write_run(tmp_path, stages=(0, 0, 1, 1)):
    tb = require("torch.utils.tensorboard")
    writer = tb.SummaryWriter(str(tmp_path / "tb" / "run_0"))
    for i, stage in enumerate(stages):
        step = (i + 1) * 1000
        writer.add_scalar("rollout/ep_rew_mean", 0.5 * i, step)
        writer.add_scalar("eval/win_rate", i / len(stages), step)
        writer.add_scalar("curriculum/stage", stage, step)
    writer.close()
    return tmp_path


def test_read_scalars_returns_every_logged_point_in_step_order(tmp_path):
    require("tensorboard")
    from training.plot_curve import read_scalars

    run = _write_run(tmp_path)
    scalars = read_scalars(run)
    assert scalars["eval/win_rate"] == [(1000, 0.0), (2000, 0.25), (3000, 0.5), (4000, 0.75)]
    assert [s for s, _ in scalars["rollout/ep_rew_mean"]] == [1000, 2000, 3000, 4000]


def test_plot_writes_a_png_with_both_panels(tmp_path):
    require("matplotlib")
    from training.plot_curve import _stage_starts, plot

    run = _write_run(tmp_path)
    out = plot(run, tmp_path / "curve.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _stage_starts([(1, 0.0), (2, 0.0), (3, 1.0), (4, 2.0)]) == [(1, 0), (3, 1), (4, 2)]


def test_plot_names_the_run_without_logs(tmp_path):
    require("tensorboard")
    from training.plot_curve import read_scalars

    (tmp_path / "tb").mkdir()
    with pytest.raises(FileNotFoundError, match="no TensorBoard logs"):
        read_scalars(tmp_path)
