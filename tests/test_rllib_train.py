"""training/rllib/train.py's arguments and PPO config; skipped where ray[rllib] is not installed
(it is not in CI: see training/rllib/README.md for its own virtual environment)."""

from __future__ import annotations

import argparse

import pytest

pytest.importorskip("ray.rllib")

from training.rllib import train  # noqa: E402


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    train.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_per_side_policies_get_one_masked_module_per_side():
    config = train.build_config(parse("--scenario", "duel-klingon-vs-federation"))
    assert set(config.policies) == {"klingon", "federation"}
    assert config.policy_mapping_fn("klingon-cadet") == "klingon"
    assert config.policy_mapping_fn("fed-cadet") == "federation"


def test_shared_policy_maps_every_ship_to_one_module():
    config = train.build_config(parse("--policies", "shared"))
    assert set(config.policies) == {"shared"}


def test_cluster_options_reach_the_config():
    config = train.build_config(parse("--num-env-runners", "6", "--envs-per-runner", "2",
                                      "--batch", "1200", "--address", "auto",
                                      "--num-learners", "2", "--num-gpus-per-learner", "1"))
    assert config.num_env_runners == 6
    assert config.num_envs_per_env_runner == 2
    assert config.train_batch_size_per_learner == 1200
    assert config.num_learners == 2
    assert config.num_gpus_per_learner == 1
