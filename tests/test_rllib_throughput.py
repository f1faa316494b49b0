"""training/rllib/throughput.py: env steps/s of an RLlib run from its result dicts (no ray)."""

from __future__ import annotations

import json
import math

from training.rllib.throughput import Throughput, lookup


def result(lifetime: float, sampling: object = None, timer: float | None = None) -> dict:
    out: dict = {"num_env_steps_sampled_lifetime": lifetime, "env_runners": {}, "timers": {}}
    if sampling is not None:
        out["env_runners"]["num_env_steps_sampled_lifetime_throughput"] = sampling
    if timer is not None:
        out["timers"]["env_runner_sampling_timer"] = timer
    return out


def test_each_iteration_counts_the_steps_added_since_the_last_one():
    run = Throughput()
    run.record(result(1000), 4.0)
    row = run.record(result(2500), 3.0)
    assert row["env_steps"] == 1500
    assert row["env_steps_per_s"] == 500
    assert row["env_steps_lifetime"] == 2500


def test_the_run_figure_is_lifetime_steps_over_summed_train_time():
    run = Throughput()
    run.record(result(1000), 4.0)
    run.record(result(2000), 6.0)
    assert run.summary() == {"iterations": 2, "env_steps": 2000, "seconds": 10.0,
                             "env_steps_per_s": 200.0}


def test_sampling_rate_divides_the_iterations_steps_by_rllibs_sampling_timer():
    run = Throughput()
    run.record(result(400), 4.0)
    row = run.record(result(1400, timer=2.5), 5.0)
    assert row["sampling_env_steps_per_s"] == 400


def test_rllib_lifetime_throughput_is_read_plain_or_from_its_since_restore_entry():
    assert lookup(result(0, sampling=321.5), ("env_runners",
                  "num_env_steps_sampled_lifetime_throughput")) == 321.5
    nested = result(0, sampling={"throughput_since_last_restore": 12.0, "throughput": 9.0})
    assert lookup(nested, ("env_runners", "num_env_steps_sampled_lifetime_throughput")) == 12.0


def test_missing_rllib_figures_are_nan_not_errors():
    row = Throughput().record({"env_runners": {}}, 1.0)
    assert math.isnan(row["rllib_lifetime_env_steps_per_s"])
    assert math.isnan(row["sampling_env_steps_per_s"])
    assert math.isnan(row["env_steps_lifetime"])


def test_save_writes_the_summary_rows_and_run_details(tmp_path):
    run = Throughput()
    run.record(result(800, sampling=250.0, timer=2.5), 4.0)
    run.save(tmp_path / "out" / "throughput.json", ray="2.60.0", engines=[["compiled"]])
    body = json.loads((tmp_path / "out" / "throughput.json").read_text())
    assert body["ray"] == "2.60.0"
    assert body["engines"] == [["compiled"]]
    assert body["summary"]["env_steps_per_s"] == 200.0
    assert body["iterations"][0]["rllib_lifetime_env_steps_per_s"] == 250.0
    assert body["iterations"][0]["sampling_env_steps_per_s"] == 320.0
