"""Training throughput of one ``sfb train`` stage: timesteps/s, rollout vs update, CPU time.

    python benchmarks/train_rate.py [configs/training/duel-self-play.yaml] [--timesteps 8192]
        [--backends reference compiled] [--stage 0] [--distribution fused stock]
        [--n-envs 256] [--n-steps 32] [--batch-size 2048] [--n-epochs 5] [--torch-threads 1]
        [--repeat 1] [--devices cpu cuda]

Builds the config's stage (its scenario, learners, opponents and padding, as ``sfb train``
does) with ``env.backend`` set to each backend and the action distribution set to each of
``--distribution`` (``fused``: ``training.fused_policy``; ``stock``: sb3-contrib's), the other
options overriding the config's ``ppo``, ``torch_threads`` and ``device`` (``--devices``: the
policy's torch device, each in turn; the envs always step on the CPU), and times MaskablePPO
``learn`` over at least ``--timesteps`` (whole rollouts; the model built and the env stepped once
beforehand, untimed, so numba and torch are warm). Prints, per run, timesteps/s, the seconds
spent collecting rollouts (env + policy forward) and updating (PPO epochs), and the process CPU
seconds per wall second (about 1 on a quiet machine with one torch thread; below 1 when other
processes take the core) and timesteps per CPU second (with one torch thread, about the rate
of a quiet core: the figure to compare on a shared machine). A stage whose opponents are
Python captains (doctrine, league) runs on either engine: on the compiled core the captains
fly from their ship's observation (``compiled.vector``); robot opponents stay on the
reference, and ``compiled`` then says why it is refused.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import time
from typing import Any

os.environ.setdefault("MPLBACKEND", "Agg")

import training  # noqa: E402, F401 - before torch loads, as in `sfb train` (OMP_WAIT_POLICY)


@dataclasses.dataclass
class Timing:
    """One timed ``learn``."""

    timesteps: int
    wall: float
    cpu: float
    rollout: float
    update: float
    rollout_cpu: float
    update_cpu: float
    vector_env: str

    @property
    def rate(self) -> float:
        return self.timesteps / self.wall

    @property
    def cpu_rate(self) -> float:
        """Timesteps per CPU second: with one torch thread, about the rate of a quiet core."""
        return self.timesteps / self.cpu


def rate(config_path: str, backend: str, timesteps: int, stage: int, fused: bool,
         overrides: dict[str, Any], threads: int | None, device: str | None = None) -> Timing:
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    from sfb_env.env.sb3_vec_env import SB3VecEnv
    from training.config import load_config
    from training.curriculum import Curriculum, CurriculumState
    from training.league import League
    from training.sb3_train import _new_model

    config = load_config(config_path)
    ppo = dataclasses.replace(config.ppo, fused_distribution=fused, **overrides)
    config = dataclasses.replace(
        config, env=dataclasses.replace(config.env, backend=backend), ppo=ppo,
        torch_threads=threads or config.torch_threads, device=device or config.device)
    torch.set_num_threads(config.torch_threads)
    out = tmp_folder()
    league = None if config.league is None else League(config.league, out / "league", config.seed)
    curriculum = Curriculum(config, league, CurriculumState(stage=stage))
    raw = curriculum.make_env(config.seed)
    venv = SB3VecEnv(raw, seed=config.seed)
    model = _new_model(config, venv, out)
    obs = torch.as_tensor(raw.reset(seed=config.seed), device=model.device)  # warm-up: a step
    with torch.no_grad():
        actions, _, _ = model.policy(obs, action_masks=raw.action_masks())
    raw.step(actions.cpu().numpy())

    class Clock(BaseCallback):
        """Wall and CPU seconds of rollouts and of updates (learn's setup not counted)."""

        def __init__(self) -> None:
            super().__init__()
            self.rollout = self.update = self.rollout_cpu = self.update_cpu = 0.0
            self.mark = self.mark_cpu = 0.0

        def _now(self) -> tuple[float, float]:
            now, cpu = time.perf_counter(), time.process_time()
            wall, spent = now - self.mark, cpu - self.mark_cpu
            self.mark, self.mark_cpu = now, cpu
            return wall, spent

        def _on_rollout_start(self) -> None:  # the previous update ends (or learn's setup)
            wall, spent = self._now()
            if self.rollout:
                self.update += wall
                self.update_cpu += spent

        def _on_rollout_end(self) -> None:
            wall, spent = self._now()
            self.rollout += wall
            self.rollout_cpu += spent

        def _on_step(self) -> bool:
            return True

    clock = Clock()
    start, cpu = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=timesteps, callback=clock, progress_bar=False)  # no snapshots
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    last, last_cpu = clock._now()  # the last update
    return Timing(model.num_timesteps, wall, cpu, clock.rollout, clock.update + last,
                  clock.rollout_cpu, clock.update_cpu + last_cpu, type(raw).__name__)


def tmp_folder() -> Any:
    """A throwaway run folder (tensorboard, league)."""
    import tempfile
    from pathlib import Path

    return Path(tempfile.mkdtemp(prefix="sfb-train-rate-"))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("config", nargs="?", default="configs/training/duel-self-play.yaml")
    p.add_argument("--timesteps", type=int, default=8192)
    p.add_argument("--backends", nargs="+", default=["reference", "compiled"])
    p.add_argument("--stage", type=int, default=0)
    p.add_argument("--distribution", nargs="+", default=["fused"], choices=("fused", "stock"))
    p.add_argument("--n-envs", type=int)
    p.add_argument("--n-steps", type=int)
    p.add_argument("--batch-size", type=int)
    p.add_argument("--n-epochs", type=int)
    p.add_argument("--torch-threads", type=int)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--devices", nargs="+", default=[None],
                   help="torch devices of the policy (cpu, cuda, ...) [the config's device]")
    args = p.parse_args()
    overrides = {k: v for k, v in (("n_envs", args.n_envs), ("n_steps", args.n_steps),
                                   ("batch_size", args.batch_size), ("n_epochs", args.n_epochs))
                 if v is not None}
    print(f"config {args.config}, stage {args.stage}, >= {args.timesteps} timesteps, "
          f"{os.cpu_count()} CPUs, overrides {overrides or 'none'}, torch threads "
          f"{args.torch_threads or 'as configured'}")
    print("| backend | vector env | distribution | device | timesteps/s | timesteps / CPU s | "
          "timesteps | rollout s (CPU) | update s (CPU) | CPU s / wall s |\n"
          "|---|---|---|---|---:|---:|---:|---:|---:|---:|")
    rates: dict[tuple[str, str], float] = {}
    for backend, dist, device in itertools.product(args.backends, args.distribution,
                                                   args.devices):
        shown = device or "as configured"
        for _ in range(args.repeat):
            try:
                t = rate(args.config, backend, args.timesteps, args.stage, dist == "fused",
                         overrides, args.torch_threads, device)
            except Exception as exc:  # a backend or device refused for this stage: say why
                print(f"| {backend} | n/a ({exc}) | {dist} | {shown} | | | | | | |")
                break
            if device in (None, args.devices[0]):
                rates[backend, dist] = max(rates.get((backend, dist), 0.0), t.rate)
            print(f"| {backend} | {t.vector_env} | {dist} | {shown} | {t.rate:,.0f} | "
                  f"{t.cpu_rate:,.0f} | {t.timesteps} | "
                  f"{t.rollout:.1f} ({t.rollout_cpu:.1f}) | "
                  f"{t.update:.1f} ({t.update_cpu:.1f}) | {t.cpu / t.wall:.2f} |", flush=True)
    for dist in args.distribution:
        if ("reference", dist) in rates and ("compiled", dist) in rates:
            print(f"{dist}: compiled / reference: "
                  f"{rates['compiled', dist] / rates['reference', dist]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
