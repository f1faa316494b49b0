"""Training throughput of ``sfb train``'s first stage on each backend, side by side.

    python benchmarks/train_rate.py [configs/training/duel-self-play.yaml] [--timesteps 4096]
                                    [--backends reference compiled] [--stage 0]

Builds the config's stage (its scenario, learners, opponents and padding, as ``sfb train``
does) with ``env.backend`` set to each backend, and times MaskablePPO ``learn`` over
``--timesteps`` (rollouts and updates, the model built beforehand; a first short ``learn``
warms numba up untimed). Prints timesteps/s per backend and their ratio. A stage whose
opponents are Python captains (doctrine, league) stays on the reference engine under
``auto``; ``compiled`` then says why it is refused.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time

os.environ.setdefault("MPLBACKEND", "Agg")


def rate(config_path: str, backend: str, timesteps: int, stage: int) -> tuple[float, str]:
    import torch

    from sfb_env.backends import backend_of  # noqa: F401 - the env's backend, for the report
    from sfb_env.env.sb3_vec_env import SB3VecEnv
    from training.config import load_config
    from training.curriculum import Curriculum, CurriculumState
    from training.sb3_train import _new_model

    config = load_config(config_path)
    config = dataclasses.replace(config, env=dataclasses.replace(config.env, backend=backend))
    torch.set_num_threads(config.torch_threads)
    curriculum = Curriculum(config, None, CurriculumState(stage=stage))
    raw = curriculum.make_env(config.seed)
    venv = SB3VecEnv(raw, seed=config.seed)
    model = _new_model(config, venv, Path_tmp())
    model.learn(total_timesteps=config.ppo.n_envs * 8, progress_bar=False)  # warm-up
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps, reset_num_timesteps=False, progress_bar=False)
    took = time.perf_counter() - start
    return timesteps / took, type(raw).__name__


def Path_tmp():  # noqa: N802 - a throwaway tensorboard folder
    import tempfile
    from pathlib import Path

    return Path(tempfile.mkdtemp(prefix="sfb-train-rate-"))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("config", nargs="?", default="configs/training/duel-self-play.yaml")
    p.add_argument("--timesteps", type=int, default=4096)
    p.add_argument("--backends", nargs="+", default=["reference", "compiled"])
    p.add_argument("--stage", type=int, default=0)
    args = p.parse_args()
    print(f"config {args.config}, stage {args.stage}, {args.timesteps} timesteps, "
          f"{os.cpu_count()} CPUs")
    print("| backend | vector env | timesteps/s |\n|---|---|---:|")
    rates = {}
    for backend in args.backends:
        try:
            r, kind = rate(args.config, backend, args.timesteps, args.stage)
        except Exception as exc:  # a backend refused for this stage: say why
            print(f"| {backend} | n/a ({exc}) | |")
            continue
        rates[backend] = r
        print(f"| {backend} | {kind} | {r:,.0f} |", flush=True)
    if "reference" in rates and "compiled" in rates:
        print(f"compiled / reference: {rates['compiled'] / rates['reference']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
