"""``sfb train``: MaskablePPO over the curriculum, with evaluation, checkpoints and the league.

Run folder (``--output``, else the config's ``output``, else ``runs/<name>``)::

    config.yaml                   the config as given
    tb/                           TensorBoard logs (rollout/*, train/*, eval/*, league/*)
    checkpoints/<stage>-<t>.zip   periodic and end-of-stage checkpoints, each with a .json sidecar
    league/snapshot-<t>.zip       frozen learners that joined the league pool
    final.zip, final.json         the last model

A checkpoint's sidecar records the scenario, agents, space sizes, padding, env options and
the curriculum and league state, so ``--resume CHECKPOINT`` continues where it stopped and
``agents.sb3_policy.SB3Policy(path)`` flies it.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.sb3_policy import SB3Policy, read_sidecar, write_sidecar
from sfb_env.env.padding import FixedSpaces
from training.config import TrainConfig
from training.curriculum import Curriculum, CurriculumState
from training.evaluation import EvalResult, bench_matches, evaluate, evaluate_checkpoint
from training.league import League
from training.vec_env import SB3VecEnv


def train(
    config: TrainConfig,
    output: str | Path | None = None,
    resume: str | Path | None = None,
    progress: bool = True,
    config_path: str | Path | None = None,
    init: str | Path | None = None,
) -> Path:
    """Run the curriculum of ``config``; returns the final checkpoint's path. ``resume``
    continues a run of this config from its checkpoint (weights, curriculum and league state);
    ``init`` starts the curriculum from the start with another checkpoint's weights and
    optimizer state, under this config's PPO settings (its network, observation and action
    spaces must be this config's, or this config's without the identity block: see
    ``_init_model``)."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(config.torch_threads)
    out = Path(output or config.output or Path("runs") / config.name)
    out.mkdir(parents=True, exist_ok=True)
    if config_path is not None and Path(config_path).resolve() != (out / "config.yaml").resolve():
        shutil.copyfile(config_path, out / "config.yaml")
    league = None if config.league is None else League(config.league, out / "league", config.seed)
    state = CurriculumState()
    if resume is not None:
        sidecar = read_sidecar(resume) or {}
        state = CurriculumState(**sidecar.get("curriculum", {}))
        if league is not None and sidecar.get("league"):
            league.load_state(sidecar["league"])
    curriculum = Curriculum(config, league, state)
    if init is not None:
        curriculum.inherited = list((read_sidecar(init) or {}).get("scenarios", []))
    model = None
    bar = _progress_bar(config, progress)
    while not curriculum.finished:
        stage = curriculum.stage
        seed = curriculum.env_seed()
        venv = SB3VecEnv(curriculum.make_env(seed), seed=seed)
        if model is None and resume is not None:
            model = MaskablePPO.load(resume, env=venv, device=torch_device(config),
                                     tensorboard_log=str(out / "tb"))
        elif model is None and init is not None:
            model = _init_model(init, config, curriculum, venv, out)
        elif model is None:
            model = _new_model(config, venv, out)
        else:
            model.set_env(venv)
        if bar is not None:
            bar.set_description(stage.name)
            bar.n = model.num_timesteps
            bar.refresh()
        callback = StageCallback(config, curriculum, out, bar)
        if curriculum.remaining:
            model.learn(total_timesteps=curriculum.remaining, callback=callback,
                        reset_num_timesteps=False, tb_log_name=config.name,
                        progress_bar=False)
            if not callback.gate_passed and callback.last_eval < curriculum.state.stage_timesteps:
                callback.evaluate_now()  # every stage ends with an evaluation (one, not two)
            model.logger.dump(model.num_timesteps)
        save_checkpoint(model, config, curriculum, out / "checkpoints" /
                        f"{stage.name}-{model.num_timesteps:09d}.zip")
        model.get_env().close()  # the stage's env, or the last one its evaluations split anew
        curriculum.advance()
    if bar is not None:
        bar.close()
    if model is None:
        raise ValueError(f"{config.source}: nothing to train (the curriculum is finished)")
    return save_checkpoint(model, config, curriculum, out / "final.zip")


def torch_device(config: TrainConfig) -> str:
    """The config's ``device``, checked against this machine: ``cuda`` without a GPU is an
    error naming the field (SB3 would fall back to the CPU without a word)."""
    import torch

    if config.device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"{config.source}: field 'device': {config.device!r} asked for, but "
                         "torch sees no CUDA device on this machine")
    return config.device


def _init_model(path: str | Path, config: TrainConfig, curriculum: Curriculum,
                venv: SB3VecEnv, out: Path) -> Any:
    """``init``'s model over ``venv``: its weights and optimizer state, this config's PPO
    settings (``ppo``: learning rate, rollout and batch sizes, clipping, coefficients; its
    ``net_arch`` and ``fused_distribution`` must be the checkpoint's) and seed. A checkpoint
    padded as this config is but without its identity block (``fixed_spaces.races``, appended
    after the padded layout) or a view block (``enemy_fire`` in ``fixed_spaces.rule_features``)
    is widened: the layers that read the observation get zero weights for the new values, so
    the widened policy acts and values exactly as the checkpoint's did, and learns on from
    there (its optimizer's moments widened alike)."""
    from sb3_contrib import MaskablePPO

    device, tb = torch_device(config), str(out / "tb")
    settings = init_settings(path, config)
    columns = _old_columns(path, curriculum)
    if config.ppo.seat_heads:
        return _init_seat_heads(path, config, venv, device, tb, settings, columns)
    if columns is None:
        return MaskablePPO.load(path, env=venv, device=device, tensorboard_log=tb, **settings)
    model = MaskablePPO.load(path, device=device, tensorboard_log=tb, **settings)
    _widen(model, venv, columns)
    return model


def _old_columns(path: str | Path, curriculum: Curriculum) -> Any:
    """Where each observation value of the ``--init`` checkpoint sits in this config's padded
    vector (``FixedSpaces.columns_of``), or None where the checkpoint reads this config's
    vector as it is, or its spaces do not widen into it (the load then names the shapes)."""
    theirs = (read_sidecar(path) or {}).get("fixed_spaces")
    ours = curriculum.fixed_spaces
    if not theirs or ours is None or FixedSpaces(**theirs) == ours:
        return None
    try:
        return ours.columns_of(FixedSpaces(**theirs))
    except ValueError:
        return None


def _widen(model: Any, venv: SB3VecEnv, columns: Any) -> None:
    """``model`` rebuilt for ``venv``'s wider observation, its weights and optimizer state
    carried over with the old inputs at ``columns`` (``widen_inputs``)."""
    weights, optimizer = model.policy.state_dict(), model.policy.optimizer.state_dict()
    model.observation_space = venv.observation_space
    model.n_envs = venv.num_envs  # (a rollout of another size: the rollout buffer's)
    model.set_env(venv)
    model._setup_model()  # a policy (and rollout buffer) for the wider observation
    widen_inputs(model.policy, weights, optimizer, columns)


def seat_head_kwargs(config: TrainConfig) -> dict[str, Any]:
    """The seat-head policy's keywords for ``config`` (``training.seat_heads``)."""
    fixed, hidden = config.env.fixed_spaces, config.ppo.seat_head_hidden
    return {"seat_heads": [list(seat) for seat in config.ppo.seat_heads],
            "races": list(fixed.races if fixed is not None else ()),
            "hidden": (hidden if isinstance(hidden, int)
                       else [n if isinstance(n, int) else list(n) for n in hidden])}


def _init_seat_heads(path: str | Path, config: TrainConfig, venv: SB3VecEnv, device: str,
                     tb: str, settings: dict[str, Any], columns: Any = None) -> Any:
    """``init``'s model with this config's seat heads (``ppo.seat_heads``): a checkpoint with
    the same heads goes on as it is; a shared policy (no heads) is frozen under new heads at
    zero, so the model starts out acting exactly as the checkpoint (with
    ``ppo.seat_head_from_shared``, the new heads' hidden layers a copy of the shared ones);
    ``columns``: the checkpoint's observation widens into this config's first."""
    from sb3_contrib import MaskablePPO

    from training.seat_heads import SeatHeadPolicy, copy_shared_layers, load_shared

    wanted = seat_head_kwargs(config)
    if columns is None:
        model = MaskablePPO.load(path, env=venv, device=device, tensorboard_log=tb, **settings)
    else:
        model = MaskablePPO.load(path, device=device, tensorboard_log=tb, **settings)
        _widen(model, venv, columns)
    if isinstance(model.policy, SeatHeadPolicy):  # the same heads (init_settings checked)
        return model
    weights = model.policy.state_dict()
    model.policy_class = SeatHeadPolicy
    model.policy_kwargs = {**model.policy_kwargs, **wanted}
    model._setup_model()
    load_shared(model.policy, weights)
    if config.ppo.seat_head_from_shared:  # the config checked that some head is as wide
        copy_shared_layers(model.policy)
    return model


def init_settings(path: str | Path, config: TrainConfig) -> dict[str, Any]:
    """The config's PPO settings for a model loaded from ``path`` (``--init``), after checking
    that the checkpoint's network is the one the config describes (weights of another shape
    or another distribution cannot be carried over). Reads the checkpoint's saved settings
    only, not its weights."""
    import zipfile

    from stable_baselines3.common.save_util import json_to_data

    ppo = config.ppo
    with zipfile.ZipFile(path) as archive:
        data = json_to_data(archive.read("data").decode())
    arch = dict(data.get("policy_kwargs") or {}).get("net_arch")
    arch = arch.get("pi") if isinstance(arch, dict) else arch
    if arch is not None and list(arch) != list(ppo.net_arch):
        raise ValueError(f"{config.source}: field 'ppo.net_arch': {list(ppo.net_arch)}, but the "
                         f"--init checkpoint {path} has {list(arch)}")
    kind = getattr(data.get("policy_class"), "__name__", "")
    fused = kind in ("FusedMaskablePolicy", "SeatHeadPolicy")
    if fused != ppo.fused_distribution:
        raise ValueError(f"{config.source}: field 'ppo.fused_distribution': "
                         f"{ppo.fused_distribution}, but the --init checkpoint {path} was "
                         f"trained with {fused}")
    wanted = seat_head_kwargs(config) if ppo.seat_heads else None
    theirs = None
    if kind == "SeatHeadPolicy":
        kwargs = dict(data.get("policy_kwargs") or {})
        theirs = {key: kwargs.get(key) for key in ("seat_heads", "races", "hidden")}
    if theirs is not None and wanted is not None:  # one size for all equals that size per seat
        from training.config import head_layers, head_sizes

        for kwargs in (theirs, wanted):
            kwargs["hidden"] = [head_layers(n) for n in
                                head_sizes(kwargs["hidden"], len(kwargs["seat_heads"] or ()))]
    if theirs is not None and theirs != wanted:
        raise ValueError(f"{config.source}: field 'ppo.seat_heads': {wanted or 'none'}, but "
                         f"the --init checkpoint {path} has the seat heads {theirs}")
    return _ppo_settings(config)


def _ppo_settings(config: TrainConfig) -> dict[str, Any]:
    """The config's PPO settings and seed as ``MaskablePPO`` keywords (a new model's, and a
    model ``--init`` loads)."""
    ppo = config.ppo
    return {"n_steps": ppo.n_steps, "batch_size": ppo.batch_size, "n_epochs": ppo.n_epochs,
            "learning_rate": ppo.learning_rate, "gamma": ppo.gamma,
            "gae_lambda": ppo.gae_lambda, "clip_range": ppo.clip_range,
            "ent_coef": ppo.ent_coef, "vf_coef": ppo.vf_coef,
            "max_grad_norm": ppo.max_grad_norm, "seed": config.seed}


def widen_inputs(policy: Any, weights: dict[str, Any], optimizer: dict[str, Any] | None,
                 columns: Any) -> None:
    """Load ``weights`` into ``policy`` where a layer of ``policy`` reads more inputs than
    its weights have (the observation grew): the weights' columns go to ``columns``
    (``FixedSpaces.columns_of``), the new ones are zero. Integer buffers
    (a seat-head policy's identity positions) are the new policy's. Every other tensor must
    match in shape. ``optimizer`` (the old policy's optimizer state) is widened the same way
    (zero moments for the new columns)."""
    import torch

    target = policy.state_dict()
    if set(target) != set(weights):
        odd = sorted(set(weights) ^ set(target))
        raise ValueError(f"tensors {odd} are in one of the checkpoint's policy and the new "
                         "policy, not both")
    policy.load_state_dict({
        name: (tensor if not tensor.is_floating_point()
               else _widened(name, weights[name], tensor.shape, columns))
        for name, tensor in target.items()})
    if optimizer is not None:  # the optimizer's parameters in its order (its state's indices)
        params = [p for group in policy.optimizer.param_groups for p in group["params"]]
        state = {"param_groups": optimizer["param_groups"], "state": {
            i: {key: _widened(f"optimizer state {i}.{key}", value, params[i].shape, columns)
                if torch.is_tensor(value) and value.dim() == 2 else value
                for key, value in entry.items()}
            for i, entry in optimizer["state"].items()}}
        policy.optimizer.load_state_dict(state)


def _widened(name: str, given: Any, shape: Any, columns: Any) -> Any:
    """``given`` widened to ``shape`` (the same rows): its columns at ``columns``, the others
    zero."""
    import torch

    if given.shape == shape:
        return given
    if given.dim() != 2 or given.shape[0] != shape[0] or given.shape[1] > shape[1]:
        raise ValueError(f"{name}: the checkpoint's {tuple(given.shape)} does not fit "
                         f"{tuple(shape)}")
    if len(columns) != given.shape[1]:
        raise ValueError(f"{name}: the checkpoint's {given.shape[1]} inputs, but "
                         f"{len(columns)} columns to place them")
    out = torch.zeros(shape, dtype=given.dtype, device=given.device)
    out[:, torch.as_tensor(list(columns), dtype=torch.long)] = given
    return out


def _new_model(config: TrainConfig, venv: SB3VecEnv, out: Path) -> Any:
    from sb3_contrib import MaskablePPO

    ppo = config.ppo
    if ppo.seat_heads:
        raise ValueError(f"{config.source}: field 'ppo.seat_heads': seat heads ride on a "
                         "trained policy, frozen; start the run with --init CHECKPOINT")
    arch = list(ppo.net_arch)
    policy: Any = "MlpPolicy"
    if ppo.fused_distribution:
        from training.fused_policy import FusedMaskablePolicy

        policy = FusedMaskablePolicy
    return MaskablePPO(
        policy, venv, **_ppo_settings(config),
        policy_kwargs={"net_arch": {"pi": arch, "vf": arch}},
        tensorboard_log=str(out / "tb"), device=torch_device(config), verbose=0,
    )


def _progress_bar(config: TrainConfig, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=config.total_timesteps, unit="step", dynamic_ncols=True)


def save_checkpoint(model: Any, config: TrainConfig, curriculum: Curriculum, path: Path) -> Path:
    """``model.save(path)`` plus its JSON sidecar."""
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    index = min(curriculum.state.stage, len(config.stages) - 1)
    stage = config.stages[index]
    fixed = curriculum.fixed_spaces
    nvec = np.asarray(model.action_space.nvec)
    write_sidecar(path, {
        "algorithm": "MaskablePPO",
        "run": config.name,
        "config": config.source,
        "scenario": stage.scenario,
        # check_checkpoint accepts any of them: the stage's, and those the weights it started
        # from (``--init``) were trained on
        "scenarios": list(stage.scenarios) + [
            s for s in curriculum.inherited if s not in stage.scenarios],
        "agents": curriculum.agents(stage),
        "stage": stage.name,
        "opponent": stage.opponent,
        "timesteps": int(model.num_timesteps),
        "observation_size": int(model.observation_space.shape[0]),
        "action_nvec": nvec.tolist(),
        "mask_size": int(nvec.sum()),
        "fixed_spaces": None if fixed is None else fixed.to_dict(),
        "env_options": curriculum.env_options(),
        "curriculum": curriculum.state.as_dict(),
        "league": None if curriculum.league is None else curriculum.league.state(),
        "versions": {p: _version(p) for p in ("sfb-env", "stable_baselines3", "sb3_contrib")},
    })
    return path


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


class StageCallback(BaseCallback):
    """Per-step bookkeeping of one stage: progress, league results and snapshots, periodic
    evaluation (ending the stage at the win-rate gate) and checkpoints."""

    def __init__(self, config: TrainConfig, curriculum: Curriculum, out: Path, bar: Any) -> None:
        super().__init__()
        self.config = config
        self.curriculum = curriculum
        self.out = out
        self.bar = bar
        self.last_eval = 0
        self.last_checkpoint = 0
        self.gate_passed = False
        self.resplit = False  # seat slots: build the env anew at the end of this rollout

    def _on_training_start(self) -> None:
        self.last_eval = self.last_checkpoint = self.curriculum.state.stage_timesteps
        league = self.curriculum.focused_league
        if league is not None and not any(scenario in self.curriculum.stage.scenarios
                                          for scenario, _ in league.seat_rates):
            self.evaluate_now()  # a focused league needs its seats' win rates from the start

    def _on_step(self) -> bool:
        n = self.training_env.num_envs
        state = self.curriculum.state
        state.stage_timesteps += n
        if self.bar is not None:
            self.bar.update(n)
        league = self.curriculum.league
        if league is not None and self.curriculum.stage.opponent == "league":
            for info in self.locals.get("infos", []):
                if "result" in info:
                    league.record(info["result"])
            if league.ready_for_snapshot():
                self._snapshot(league)
        every = self.config.evaluation.every
        if every and state.stage_timesteps - self.last_eval >= every:
            self.evaluate_now()
            if self.gate_passed:
                return False
        every = self.config.checkpoints.every
        if every and state.stage_timesteps - self.last_checkpoint >= every:
            self.last_checkpoint = state.stage_timesteps
            save_checkpoint(self.model, self.config, self.curriculum, self.out / "checkpoints" /
                            f"{self.curriculum.stage.name}-{self.model.num_timesteps:09d}.zip")
        return True

    def evaluate_now(self) -> float:
        """Evaluate against the stage's evaluation opponent in every scenario of the stage
        (``evaluation.games`` games each, every side the learner flies); log, and check the
        gate (``every_side``: the worst scenario and side)."""
        self.last_eval = self.curriculum.state.stage_timesteps
        stage = self.curriculum.stage
        cfg = self.config.evaluation
        opponent = self.curriculum.evaluation_opponent()
        parts = {scenario: self._evaluate(scenario, opponent) for scenario in stage.scenarios}
        if len(stage.scenarios) == 1:
            result = parts[stage.scenario]
        else:
            result = EvalResult()
            for scenario, part in parts.items():
                result.merge(part, prefix=scenario)
                self.logger.record(f"eval/{scenario}/win_rate", part.win_rate)
        league = self.curriculum.focused_league
        if league is not None:
            league.observe_seats(seat_rates(parts))
            for seat in league.seat_rates:
                self.logger.record(f"league/focus/{'/'.join(seat)}",
                                   league.focus_probability(seat))
            self.resplit = bool(league.config.seat_slots)
        self.curriculum.state.last_win_rate = result.win_rate
        for key, value in result.as_dict().items():
            self.logger.record(f"eval/{key}", value)
        self.logger.record("curriculum/stage", self.curriculum.state.stage)
        if self.bar is not None:
            self.bar.set_postfix(stage=stage.name, win_rate=f"{result.win_rate:.2f}")
        self.gate_passed = self.curriculum.gate_passed(result.gate_rate(cfg.gate))
        return result.win_rate

    def _on_rollout_end(self) -> None:
        if self.resplit and self.curriculum.remaining and not self.gate_passed:
            self.resplit = False
            self.split_seats()

    def split_seats(self) -> None:
        """Seat slots (``league.seat_slots``): the stage's env built anew with its battles split
        by the seats' newest win rates. Called between a rollout and its update, so the rollout
        stays whole; the battles under way are dropped (as at a stage's end)."""
        model, old = self.model, self.model.get_env()
        seed = self.curriculum.env_seed()
        venv = SB3VecEnv(self.curriculum.make_env(seed), seed=seed)
        model.set_env(venv, force_reset=False)
        model._last_obs = venv.reset()  # what set_env's forced reset leaves to learn's set-up
        model._last_episode_starts = np.ones((venv.num_envs,), dtype=bool)
        old.close()
        for scenario, split in self.curriculum.seat_splits.items():
            for agent, battles in split.items():
                side = League.seat_of(scenario, agent)[1]
                self.logger.record(f"league/seat_battles/{scenario}/{side}", battles)

    def _evaluate(self, scenario: str, opponent: Any) -> EvalResult:
        """``evaluation.games`` games in ``scenario`` (through the bench where it can)."""
        stage = self.curriculum.stage
        fixed = self.curriculum.fixed_spaces
        agents = self.curriculum.agents(stage, scenario)
        options = self.curriculum.env_options()
        if fixed is None and len(agents) > 1:
            options["uniform_spaces"] = True
        cfg = self.config.evaluation
        matches = bench_matches(scenario, agents, "<learner>", opponent)
        if matches is not None and (fixed is not None or len(agents) == 1):
            with tempfile.TemporaryDirectory() as tmp:  # a fresh path: the bench caches by spec
                path = save_checkpoint(self.model, self.config, self.curriculum,
                                       Path(tmp) / f"eval-{self.model.num_timesteps}.zip")
                matches = bench_matches(scenario, agents, str(path), opponent)
                return evaluate_checkpoint(str(path), scenario, matches, cfg.games, cfg.seed)
        policy = SB3Policy(model=self.model, fixed_spaces=fixed)
        return evaluate(policy, scenario, agents, opponent, cfg.games, cfg.seed, **options)

    def _snapshot(self, league: League) -> None:
        path = league.snapshot_path(self.model.num_timesteps)
        rate = league.win_rate
        save_checkpoint(self.model, self.config, self.curriculum, path)
        league.add_snapshot(path)
        self.logger.record("league/snapshot_win_rate", rate)
        self.logger.record("league/pool_size", len(league.pool))


def seat_rates(parts: dict[str, EvalResult]) -> dict[tuple[str, str], float]:
    """Each seat's (scenario, side) win rate in an evaluation's ``parts`` (per scenario); the
    fallback loop counts per agent, which ``League.seat_of`` turns into sides."""
    rates = {}
    for scenario, part in parts.items():
        for key, result in part.per_side.items():
            seat = (scenario, key) if key in ("blue", "red") else League.seat_of(scenario, key)
            rates[seat] = result.win_rate
    return rates
