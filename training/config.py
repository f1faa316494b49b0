"""Training run configs (``configs/training/*.yaml``): schema, defaults and validation.

Every error names the file and the field: ``smoke.yaml: field 'stages[1].opponent': ...``.

Schema (defaults in brackets)::

    name: klingon-cth03              # run name [the file's stem]
    seed: 0                          # [0]
    torch_threads: 1                 # torch CPU threads [1]; small MLPs run fastest on one
    device: cpu                      # where the policy runs: cpu | cuda | cuda:<n> | auto [cpu]
    output: runs/klingon-cth03       # run folder [runs/<name>]; `sfb train --output` overrides
    env:
      reward: shaped                 # shaped | points | sparse [shaped]
      result_bonus: 0.0              # added to the last reward of an episode: + for a win,
                                     #   - for a loss (training.result_bonus) [0]
      max_turns: null                # cap for scenarios without a turn limit [env default]
      backend: auto                  # auto | compiled | reference [auto]: the engine under the
                                     #   envs (sfb_env.backends; auto takes the compiled core
                                     #   where it plays the stage's scenario and opponents)
      fixed_spaces:                  # one obs/action shape for every ship (null: the first
        positions: 12                #   stage's own spaces, every stage must then match)
        max_speed: 31                #   (sfb_env.env.padding.FixedSpaces; the fields below
        target_slots: 8              #   pad the graduate ships, docs/training.md)
        threat_slots: 4
        gatling: 0                   # phaser-G mounts (three shot components each) [0]
        esg_slots: 0                 # esg[g] components and ESG rows [0]
        ppd_slots: 0                 # ppd[p] components and PPD rows [0]
        plasma_threats: false        # the plasma threat block [false]
        energy: false                # the energy block and components (rules.energy) [false]
        arms: 0                      # arm[h] components (with energy) [0]
        arm_values: 0                # values of each arm[h] (3, a PPD's 6) [0]
        capacitor_values: 0          # values of capacitor / recharge (with energy) [0]
        recharge_values: 0
        cloak: false                 # the cloak component (with energy) [false]
        rule_features: []            # rule-features blocks, e.g. [esg_fields] [none]
        races: []                    # the identity block: own race one-hot, foes' multi-hot,
                                     #   over these races (e.g. [hydran, lyran, ...]) [none]
    ppo:                             # sb3_contrib.MaskablePPO arguments
      n_envs: 8                      # slots per rollout (battles x learner ships)
      n_steps: 256                   # steps per slot per rollout
      batch_size: 512
      n_epochs: 4
      learning_rate: 3.0e-4
      gamma: 0.99
      gae_lambda: 0.95
      clip_range: 0.2
      ent_coef: 0.01
      vf_coef: 0.5
      max_grad_norm: 0.5
      net_arch: [256, 256]           # shared sizes of the policy and value MLPs
      fused_distribution: true       # the fused masked action distribution
                                     #   (training.fused_policy) [true]; false: sb3-contrib's
                                     #   MaskableMultiCategoricalDistribution (same weights)
      seat_heads: []                 # [[race, foe race], ...]: a residual action head per seat
                                     #   on the --init checkpoint's frozen policy (training.
                                     #   seat_heads; needs fixed_spaces.races, fused) [none]
      seat_head_hidden: 64           # a head's hidden units on the observation (0: linear), or
                                     #   a list, one size per seat, a size being units or a
                                     #   list of layer widths ([[256, 256], 64]) [64]
      seat_head_from_shared: false   # fresh heads as wide as net_arch start from a copy of
                                     #   the shared actor layers, not random ones [false]
    evaluation:
      every: 50000                   # timesteps between evaluations (0: only at stage ends)
      games: 20                      # seeded games per evaluation
      seed: 100000                   # game g uses seed + g
      gate: overall                  # or every_side: a stage gate needs each side's win rate
    checkpoints:
      every: 50000                   # timesteps between checkpoints (0: stage ends only)
    league:                          # self-play league (needed by stages with opponent: league)
      pool: [random]                 # opponents the pool starts with (names or .zip paths)
      snapshot_win_rate: 0.6         # snapshot the learner into the pool at this win rate ...
      window: 100                    # ... over its last `window` league games
      max_snapshots: 8               # oldest snapshots leave the pool beyond this
      latest_weight: 0.5             # probability of facing the newest snapshot
      focus: 0.0                     # prioritised seats: a battle of a seat (scenario, side)
                                     #   whose evaluation win rate is w plays the stage's
                                     #   eval_opponent with probability focus * (1-w)**power
      focus_power: 1.0               #   (training.league; the stage's eval_opponent is needed)
      seat_slots: 0.0                # with focus, on agent: alternate stages: split a scenario's
                                     #   battles between the ships the learner flies, a share
                                     #   seat_slots of them by the seats' loss rates
                                     #   (training.league; re-split after every evaluation)
    stages:                          # the curriculum, in order
      - name: drill                  # [stage-<i>]
        scenario: cth-01             # name or path; or several at once:
        scenarios: null              #   [a, b, ...] (instead of scenario) splits the n_envs slots
                                     #   evenly over one env per scenario (needs fixed_spaces)
        agent: null                  # learner ship [first agent]; or "alternate" (both sides,
                                     #   one per battle)
        opponent: random             # random | doctrine | <registry name> | robot[:controller]
                                     #   | path/to/model.zip | self | league
        timesteps: 100000            # the stage's budget
        until_win_rate: 0.8          # optional gate: advance early at this evaluation win rate
        eval_opponent: null          # [the stage opponent; `random` for self]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import yaml

OPPONENT_KINDS = ("self", "league")  # plus registry names, robot[:controller], *.zip paths
REWARDS = ("shaped", "points", "sparse")
BACKENDS = ("auto", "compiled", "reference")  # sfb_env.backends.BACKENDS


class ConfigError(ValueError):
    """An invalid training config; names the file and the field."""

    def __init__(self, source: str, field_name: str, problem: str) -> None:
        self.source = source
        self.field = field_name
        super().__init__(f"{source}: field '{field_name}': {problem}")


@dataclass(frozen=True)
class FixedSpacesConfig:
    """``sfb_env.env.padding.FixedSpaces``' fields (the first four: the cadet duels')."""

    positions: int = 12
    max_speed: int = 31
    target_slots: int = 8
    threat_slots: int = 4
    gatling: int = 0
    esg_slots: int = 0
    ppd_slots: int = 0
    plasma_threats: bool = False
    energy: bool = False
    arms: int = 0
    arm_values: int = 0
    capacitor_values: int = 0
    recharge_values: int = 0
    cloak: bool = False
    rule_features: tuple[str, ...] = ()
    races: tuple[str, ...] = ()


@dataclass(frozen=True)
class EnvConfig:
    reward: str = "shaped"
    result_bonus: float = 0.0
    max_turns: int | None = None
    backend: str = "auto"
    fixed_spaces: FixedSpacesConfig | None = field(default_factory=FixedSpacesConfig)


@dataclass(frozen=True)
class PPOConfig:
    n_envs: int = 8
    n_steps: int = 256
    batch_size: int = 512
    n_epochs: int = 4
    learning_rate: float = 3.0e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: tuple[int, ...] = (256, 256)
    fused_distribution: bool = True
    seat_heads: tuple[tuple[str, str], ...] = ()  # [race, foe race] seats (training.seat_heads)
    seat_head_hidden: int | tuple[int | tuple[int, ...], ...] = 64  # one size, or one per seat
    seat_head_from_shared: bool = False  # fresh heads from a copy of the shared actor layers


EVAL_GATES = ("overall", "every_side")


@dataclass(frozen=True)
class EvalConfig:
    every: int = 50000
    games: int = 20
    seed: int = 100000
    gate: str = "overall"  # "overall" win rate, or "every_side": the worst side's must pass


@dataclass(frozen=True)
class CheckpointConfig:
    every: int = 50000


@dataclass(frozen=True)
class LeagueConfig:
    pool: tuple[str, ...] = ("random",)
    snapshot_win_rate: float = 0.6
    window: int = 100
    max_snapshots: int = 8
    latest_weight: float = 0.5
    focus: float = 0.0  # most battles of a seat against the evaluation opponent (training.league)
    focus_power: float = 1.0
    seat_slots: float = 0.0  # share of a scenario's battles split by its seats' loss rates


@dataclass(frozen=True)
class StageConfig:
    name: str
    scenario: str
    timesteps: int
    agent: str | None = None
    opponent: str = "random"
    until_win_rate: float | None = None
    eval_opponent: str | None = None
    scenarios: tuple[str, ...] = ()  # every scenario of the stage ([scenario] if one)

    def __post_init__(self) -> None:
        if not self.scenarios:
            object.__setattr__(self, "scenarios", (self.scenario,))

    @property
    def evaluation_opponent(self) -> str:
        """Whom the evaluation plays: ``eval_opponent``, else the stage opponent (random for
        shared-policy self-play, where the opponent is the learner itself)."""
        if self.eval_opponent is not None:
            return self.eval_opponent
        return "random" if self.opponent == "self" else self.opponent


@dataclass(frozen=True)
class TrainConfig:
    name: str
    stages: tuple[StageConfig, ...]
    seed: int = 0
    torch_threads: int = 1
    device: str = "cpu"
    output: str | None = None
    env: EnvConfig = field(default_factory=EnvConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    evaluation: EvalConfig = field(default_factory=EvalConfig)
    checkpoints: CheckpointConfig = field(default_factory=CheckpointConfig)
    league: LeagueConfig | None = None
    source: str = "<dict>"

    @property
    def total_timesteps(self) -> int:
        return sum(s.timesteps for s in self.stages)


# ---------------------------------------------------------------------- loading


HeadSize = int | Sequence[int]  # one hidden layer's units (0: none), or every layer's width


def is_head_size(size: Any) -> bool:
    """A seat head's size (``training.seat_heads``): hidden units (>= 0), or a non-empty list
    of layer widths (> 0)."""
    def units(n: Any, least: int) -> bool:
        return isinstance(n, int) and not isinstance(n, bool) and n >= least

    return units(size, 0) or (isinstance(size, (list, tuple)) and len(size) > 0
                              and all(units(n, 1) for n in size))


def head_layers(size: HeadSize) -> tuple[int, ...]:
    """A seat head's hidden layer widths: ``n`` one layer of n units (0: none, the head is
    linear on the shared latent), a list one width per layer."""
    return (size,) * (size > 0) if isinstance(size, int) else tuple(size)


def head_sizes(hidden: HeadSize | Sequence[HeadSize], seats: int) -> list[HeadSize]:
    """Each seat's head size: ``hidden`` one size (units) for every seat, or a list with one
    entry per seat, each hidden units or a list of layer widths (``[256, 256]``: two layers);
    a list of another length or a negative or empty size is refused."""
    one = isinstance(hidden, int) and not isinstance(hidden, bool)
    sizes = [hidden] * seats if one else list(hidden) if isinstance(hidden, (list, tuple)) else []
    if len(sizes) != seats or not all(map(is_head_size, sizes)) or isinstance(hidden, bool):
        raise ValueError(f"seat_head_hidden: one size (>= 0) or one per seat ({seats}: units, "
                         f"or a list of layer widths), got {hidden!r}")
    return [n if isinstance(n, int) else list(n) for n in sizes]


def _check_seat_heads(source: str, ppo: PPOConfig, env: EnvConfig) -> None:
    """Seat heads read the identity block (``fixed_spaces.races``) and ride on the fused
    policy (``training.seat_heads``)."""
    if not ppo.fused_distribution:
        raise ConfigError(source, "ppo.seat_heads", "seat heads need fused_distribution: true")
    races = () if env.fixed_spaces is None else env.fixed_spaces.races
    if not races:
        raise ConfigError(source, "ppo.seat_heads", "seat heads read the identity block: "
                          "env.fixed_spaces.races must list the races")
    for seat in ppo.seat_heads:
        for race in seat:
            if race not in races:
                raise ConfigError(source, "ppo.seat_heads", f"race {race!r} of seat "
                                  f"{list(seat)} is not in env.fixed_spaces.races {list(races)}")
    if len(set(ppo.seat_heads)) != len(ppo.seat_heads):
        raise ConfigError(source, "ppo.seat_heads", "a seat is listed twice")
    hidden = ppo.seat_head_hidden
    if isinstance(hidden, tuple) and len(hidden) != len(ppo.seat_heads):
        raise ConfigError(source, "ppo.seat_head_hidden", f"{len(hidden)} sizes for "
                          f"{len(ppo.seat_heads)} seat heads (one per seat, or one for all)")
    sizes = head_sizes(hidden, len(ppo.seat_heads))  # parsed sizes: only the length can fail
    if ppo.seat_head_from_shared and tuple(ppo.net_arch) not in map(head_layers, sizes):
        raise ConfigError(source, "ppo.seat_head_from_shared", "no seat head is as wide as the "
                          f"shared layers {list(ppo.net_arch)}: nothing to copy "
                          "(ppo.seat_head_hidden)")


def load_config(path: str | Path) -> TrainConfig:
    """Read and validate a training config YAML file."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(str(path), "<file>", "no such file")
    try:
        doc = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise ConfigError(path.name, "<yaml>", str(exc)) from None
    return parse_config(doc, path.name, default_name=path.stem)


def parse_config(doc: Any, source: str = "<dict>", default_name: str = "run") -> TrainConfig:
    """Validate a config document (the YAML's structure as a dict)."""
    top = _Section(doc, source, "")
    top.only(("name", "seed", "torch_threads", "device", "output", "env", "ppo", "evaluation",
              "checkpoints", "league", "stages"))
    env = _env(top.section("env"))
    ppo = _dataclass(top.section("ppo"), PPOConfig)
    if ppo.batch_size > ppo.n_envs * ppo.n_steps:
        raise ConfigError(source, "ppo.batch_size",
                          f"{ppo.batch_size} exceeds n_envs * n_steps = {ppo.n_envs * ppo.n_steps}")
    if ppo.seat_heads:
        _check_seat_heads(source, ppo, env)
    elif ppo.seat_head_from_shared:
        raise ConfigError(source, "ppo.seat_head_from_shared", "needs ppo.seat_heads")
    league_doc = top.get("league")
    league = None if league_doc is None else _league(top.section("league"))
    stages_doc = top.require("stages", list)
    if not stages_doc:
        raise ConfigError(source, "stages", "needs at least one stage")
    stages = tuple(_stage(_Section(s, source, f"stages[{i}]"), i, ppo, league)
                   for i, s in enumerate(stages_doc))
    for i, stage in enumerate(stages):
        if len(stage.scenarios) > 1 and env.fixed_spaces is None:
            raise ConfigError(source, f"stages[{i}].scenarios", "several scenarios need "
                              "env.fixed_spaces (one observation and action shape for all)")
    names = [s.name for s in stages]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise ConfigError(source, f"stages[{i}].name", f"duplicate stage name {name!r}")
    return TrainConfig(
        name=top.typed("name", str, default_name),
        stages=stages,
        seed=top.typed("seed", int, 0),
        torch_threads=top.typed("torch_threads", int, 1, minimum=1),
        device=_device(top),
        output=top.typed("output", str, None),
        env=env,
        ppo=ppo,
        evaluation=_dataclass(top.section("evaluation"), EvalConfig),
        checkpoints=_dataclass(top.section("checkpoints"), CheckpointConfig),
        league=league,
        source=source,
    )


class _Section:
    """A mapping of the config with its path, for error messages."""

    def __init__(self, doc: Any, source: str, where: str) -> None:
        if doc is None:
            doc = {}
        if not isinstance(doc, Mapping):
            raise ConfigError(source, where or "<root>", f"expected a mapping, got {doc!r}")
        self.doc, self.source, self.where = doc, source, where

    def name(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def error(self, key: str, problem: str) -> ConfigError:
        return ConfigError(self.source, self.name(key), problem)

    def only(self, keys: tuple[str, ...]) -> None:
        for key in self.doc:
            if key not in keys:
                raise self.error(str(key), f"unknown field; expected one of {list(keys)}")

    def get(self, key: str) -> Any:
        return self.doc.get(key)

    def section(self, key: str) -> _Section:
        return _Section(self.doc.get(key), self.source, self.name(key))

    def require(self, key: str, kind: type) -> Any:
        if key not in self.doc:
            raise self.error(key, "missing")
        value = self.doc[key]
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            raise self.error(key, f"expected {kind.__name__}, got {value!r}")
        return value

    def typed(self, key: str, kind: type, default: Any, minimum: float | None = None,
              maximum: float | None = None) -> Any:
        if self.doc.get(key) is None:
            return default
        value = self.doc[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if isinstance(value, bool) or not isinstance(value, kind):
            raise self.error(key, f"expected {kind.__name__}, got {value!r}")
        if minimum is not None and value < minimum:
            raise self.error(key, f"must be >= {minimum}, got {value!r}")
        if maximum is not None and value > maximum:
            raise self.error(key, f"must be <= {maximum}, got {value!r}")
        return value


def _dataclass(sec: _Section, cls: type) -> Any:
    """Fill a flat dataclass of ints/floats (and ``net_arch``) from a section."""
    names = tuple(f.name for f in fields(cls))
    sec.only(names)
    kwargs: dict[str, Any] = {}
    defaults = cls()
    for name in names:
        default = getattr(defaults, name)
        if name == "gate":
            kwargs[name] = sec.typed(name, str, default)
            if kwargs[name] not in EVAL_GATES:
                raise sec.error(name, f"unknown gate {kwargs[name]!r}; expected one of "
                                      f"{list(EVAL_GATES)}")
            continue
        if name in ("rule_features", "races"):
            value = sec.get(name)
            if value is None:
                continue
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                what = "block names" if name == "rule_features" else "races"
                raise sec.error(name, f"expected a list of {what}, got {value!r}")
            kwargs[name] = tuple(value)
            continue
        if name == "seat_heads":
            value = sec.get(name)
            if value is None:
                continue
            if not isinstance(value, list) or not all(
                    isinstance(v, list) and len(v) == 2 and all(isinstance(r, str) for r in v)
                    for v in value):
                raise sec.error(name, f"expected a list of [race, foe race] seats, got {value!r}")
            kwargs[name] = tuple(tuple(v) for v in value)
            continue
        if name == "seat_head_hidden":
            value = sec.get(name)
            value = default if value is None else value
            if isinstance(value, list) and all(map(is_head_size, value)):
                kwargs[name] = tuple(v if isinstance(v, int) else tuple(v) for v in value)
            elif isinstance(value, int) and is_head_size(value):
                kwargs[name] = value
            else:
                raise sec.error(name, "expected hidden units (>= 0) or a list with one size per "
                                      "seat (units, or a list of layer widths), got "
                                      f"{value!r}")
            continue
        if name == "net_arch":
            value = sec.get(name)
            if value is None:
                continue
            if not isinstance(value, list) or not value or not all(
                    isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value):
                raise sec.error(name, f"expected a list of positive layer sizes, got {value!r}")
            kwargs[name] = tuple(value)
            continue
        kind = type(default)
        if kind is bool:
            value = sec.get(name)
            if value is not None and not isinstance(value, bool):
                raise sec.error(name, f"expected true or false, got {value!r}")
            kwargs[name] = default if value is None else value
            continue
        minimum = 1 if name in ("n_envs", "n_steps", "batch_size", "n_epochs", "games") else 0
        kwargs[name] = sec.typed(name, kind, default, minimum=minimum)
    return cls(**kwargs)


def _env(sec: _Section) -> EnvConfig:
    sec.only(("reward", "result_bonus", "max_turns", "backend", "fixed_spaces"))
    reward = sec.typed("reward", str, "shaped")
    if reward not in REWARDS:
        raise sec.error("reward", f"unknown reward {reward!r}; expected one of {list(REWARDS)}")
    backend = sec.typed("backend", str, "auto")
    if backend not in BACKENDS:
        raise sec.error("backend", f"unknown backend {backend!r}; expected one of {list(BACKENDS)}")
    if "fixed_spaces" in sec.doc and sec.doc["fixed_spaces"] is None:
        fixed = None
    else:
        fixed = _dataclass(sec.section("fixed_spaces"), FixedSpacesConfig)
        _check_fixed_spaces(sec.section("fixed_spaces"), fixed)
    return EnvConfig(reward=reward,
                     result_bonus=sec.typed("result_bonus", float, 0.0, minimum=0.0),
                     max_turns=sec.typed("max_turns", int, None, minimum=1),
                     backend=backend, fixed_spaces=fixed)


def _check_fixed_spaces(sec: _Section, fixed: FixedSpacesConfig) -> None:
    """``FixedSpaces``' own checks (a field it needs, an unknown rule-features block), as a
    ``ConfigError`` naming the field."""
    from sfb_env.env.padding import FixedSpaces, FixedSpacesError  # the env's, not a copy

    try:
        FixedSpaces(**vars(fixed))
    except FixedSpacesError as exc:
        raise sec.error(exc.field or "<fields>", str(exc)) from None


def _league(sec: _Section) -> LeagueConfig:
    sec.only(tuple(f.name for f in fields(LeagueConfig)))
    pool = sec.get("pool")
    if pool is None:
        pool = ["random"]
    if not isinstance(pool, list) or not pool or not all(isinstance(p, str) for p in pool):
        raise sec.error("pool", f"expected a non-empty list of opponent names, got {pool!r}")
    for i, spec in enumerate(pool):
        if spec in OPPONENT_KINDS:
            raise sec.error(f"pool[{i}]", f"{spec!r} cannot be a pool member")
        _check_opponent(sec, f"pool[{i}]", spec)
    return LeagueConfig(
        pool=tuple(pool),
        snapshot_win_rate=sec.typed("snapshot_win_rate", float, 0.6, minimum=0.0, maximum=1.0),
        window=sec.typed("window", int, 100, minimum=1),
        max_snapshots=sec.typed("max_snapshots", int, 8, minimum=1),
        latest_weight=sec.typed("latest_weight", float, 0.5, minimum=0.0, maximum=1.0),
        focus=sec.typed("focus", float, 0.0, minimum=0.0, maximum=1.0),
        focus_power=sec.typed("focus_power", float, 1.0, minimum=0.0),
        seat_slots=_seat_slots(sec),
    )


def _seat_slots(sec: _Section) -> float:
    """``league.seat_slots``: it splits battles by the seats' win rates, which focus keeps."""
    seat_slots = sec.typed("seat_slots", float, 0.0, minimum=0.0, maximum=1.0)
    if seat_slots and not sec.typed("focus", float, 0.0):
        raise sec.error("seat_slots", "seat slots split battles by the seats' evaluation win "
                                      "rates, which league.focus keeps: set focus > 0")
    return seat_slots


def _device(top: _Section) -> str:
    """``device``: the torch device of the policy (the envs always run on the CPU)."""
    device = top.typed("device", str, "cpu")
    kind, _, index = device.partition(":")
    if kind not in ("cpu", "cuda", "auto") or (index and (kind != "cuda" or not index.isdigit())):
        raise top.error("device", f"expected cpu, cuda, cuda:<n> or auto, got {device!r}")
    return device


def _stage(sec: _Section, i: int, ppo: PPOConfig, league: LeagueConfig | None) -> StageConfig:
    sec.only(tuple(f.name for f in fields(StageConfig)))
    scenarios, key = _scenarios(sec)
    ships = {}
    for n, scenario in enumerate(scenarios):
        where = key if key == "scenario" else f"{key}[{n}]"
        ships[scenario] = _scenario_agents(sec, where, scenario)
    scenario = scenarios[0]
    agent = sec.typed("agent", str, None)
    for name, agents in ships.items():
        if agent is not None and agent != "alternate" and agent not in agents:
            raise sec.error("agent", f"{agent!r} is not an agent of {name}; agents: {agents} "
                                     "(or 'alternate')")
    if len(scenarios) > 1 and ppo.n_envs % len(scenarios):
        raise sec.error(key, f"{len(scenarios)} scenarios split ppo.n_envs={ppo.n_envs} "
                             "slots evenly: it must be a multiple")
    opponent = sec.typed("opponent", str, "random")
    _check_opponent(sec, "opponent", opponent)
    if opponent == "league" and league is None:
        raise sec.error("opponent", "opponent 'league' needs a top-level 'league' section")
    if opponent == "self":
        if agent is not None:
            raise sec.error("agent", "self-play flies every agent; leave 'agent' out")
        per_scenario = ppo.n_envs // len(scenarios)
        for name, agents in ships.items():
            if per_scenario % len(agents):
                raise sec.error("opponent", f"self-play on {name} has {len(agents)} ships per "
                                            f"battle; its {per_scenario} slots (ppo.n_envs="
                                            f"{ppo.n_envs} over {len(scenarios)} scenarios) "
                                            "must be a multiple")
    eval_opponent = sec.typed("eval_opponent", str, None)
    if eval_opponent is not None:
        if eval_opponent == "self":
            raise sec.error("eval_opponent", "'self' cannot be an evaluation opponent")
        _check_opponent(sec, "eval_opponent", eval_opponent)
    if (opponent == "league" and league is not None and league.focus
            and eval_opponent in (None, "league")):
        raise sec.error("eval_opponent", "league.focus plays each seat against the stage's "
                                         "evaluation opponent: name one (e.g. doctrine)")
    if (opponent == "league" and league is not None and league.seat_slots
            and agent != "alternate"):
        raise sec.error("agent", "league.seat_slots splits a scenario's battles between the "
                                 "ships the learner flies: it needs agent: alternate")
    until = sec.typed("until_win_rate", float, None, minimum=0.0, maximum=1.0)
    return StageConfig(
        name=sec.typed("name", str, f"stage-{i}"),
        scenario=scenario,
        timesteps=sec.typed("timesteps", int, None, minimum=1) or _missing(sec, "timesteps"),
        agent=agent,
        opponent=opponent,
        until_win_rate=until,
        eval_opponent=eval_opponent,
        scenarios=tuple(scenarios),
    )


def _scenarios(sec: _Section) -> tuple[list[str], str]:
    """The stage's scenarios (``scenario: x`` or ``scenarios: [x, y]``, not both) and the key."""
    if "scenarios" in sec.doc and sec.doc["scenarios"] is not None:
        if "scenario" in sec.doc:
            raise sec.error("scenarios", "give either 'scenario' or 'scenarios', not both")
        value = sec.doc["scenarios"]
        if not isinstance(value, list) or not value or not all(
                isinstance(v, str) for v in value):
            raise sec.error("scenarios", f"expected a non-empty list of scenario names, got "
                                         f"{value!r}")
        for n, name in enumerate(value):
            if name in value[:n]:
                raise sec.error(f"scenarios[{n}]", f"duplicate scenario {name!r}")
        return list(value), "scenarios"
    return [sec.require("scenario", str)], "scenario"


def _scenario_agents(sec: _Section, where: str, scenario: str) -> list[str]:
    from sfb_env.engine.scenario import ScenarioError, load_scenario

    try:
        agents = [u.id for u in load_scenario(scenario).units if u.controller == "agent"]
    except ScenarioError as exc:
        raise ConfigError(sec.source, sec.name(where), str(exc)) from None
    if not agents:
        raise ConfigError(sec.source, sec.name(where),
                          f"scenario {scenario!r} has no agent to train")
    return agents


def _missing(sec: _Section, key: str) -> Any:
    raise sec.error(key, "missing")


def _check_opponent(sec: _Section, key: str, spec: str) -> None:
    """Names are checked against the policy registry, checkpoints for existence, robots against
    the engine's controllers."""
    if spec in OPPONENT_KINDS:
        return
    from sfb_env.env.opponents import robot_controller

    try:
        if robot_controller(spec) is not None:
            return
    except ValueError as exc:
        raise sec.error(key, str(exc)) from None
    if spec.endswith(".zip"):
        if not Path(spec).exists():
            raise sec.error(key, f"checkpoint {spec!r} not found")
        return
    from agents.base import load_policy

    try:
        load_policy(spec)
    except ValueError as exc:
        raise sec.error(key, str(exc)) from None
