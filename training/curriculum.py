"""The curriculum: which stage is running, its vectorised env, and when it ends.

A stage ends when its ``timesteps`` are spent or, with ``until_win_rate``, at the first
evaluation whose win rate reaches the gate. Every stage's env has the same number of slots
(``ppo.n_envs``) and, with ``env.fixed_spaces``, the same spaces, so one model follows the
whole curriculum: a ``self`` stage runs ``n_envs / ships`` battles with every ship a slot;
other stages run ``n_envs`` battles with one learner ship each. A stage with several
``scenarios`` splits the slots evenly over one env per scenario.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sfb_env.backends import agent_vector_env
from sfb_env.env.padding import FixedSpaces
from sfb_env.env.parallel import SFBParallelEnv
from sfb_env.env.vector import AgentVectorEnv
from training.config import StageConfig, TrainConfig
from training.league import League
from training.multi_env import ConcatAgentVectorEnv
from training.result_bonus import ResultBonus

SEAT_STRIDE = 104729  # the env of the j-th ship of a seat-split scenario uses seed + j * stride


@dataclass
class CurriculumState:
    """Where the run is: the stage index and the timesteps spent in it (saved in sidecars)."""

    stage: int = 0
    stage_timesteps: int = 0
    last_win_rate: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"stage": self.stage, "stage_timesteps": self.stage_timesteps,
                "last_win_rate": self.last_win_rate}


class Curriculum:
    """The stages of a ``TrainConfig`` and the envs they train in."""

    def __init__(self, config: TrainConfig, league: League | None = None,
                 state: CurriculumState | None = None) -> None:
        self.config = config
        self.league = league
        self.state = state or CurriculumState()
        self.inherited: list[str] = []  # scenarios an ``--init`` checkpoint was trained on
        # the battles per ship of each scenario in the env built last (league.seat_slots)
        self.seat_splits: dict[str, dict[str, int]] = {}
        fixed = config.env.fixed_spaces
        self.fixed_spaces = None if fixed is None else FixedSpaces(**vars(fixed))

    @property
    def stage(self) -> StageConfig:
        return self.config.stages[self.state.stage]

    @property
    def finished(self) -> bool:
        return self.state.stage >= len(self.config.stages)

    @property
    def remaining(self) -> int:
        """Timesteps left in the current stage."""
        return max(0, self.stage.timesteps - self.state.stage_timesteps)

    def advance(self) -> None:
        self.state = CurriculumState(stage=self.state.stage + 1)

    def gate_passed(self, win_rate: float) -> bool:
        gate = self.stage.until_win_rate
        return gate is not None and win_rate >= gate

    # ------------------------------------------------------------------ envs

    def env_options(self) -> dict[str, Any]:
        env = self.config.env
        options: dict[str, Any] = {"reward": env.reward}
        if env.max_turns is not None:
            options["max_turns"] = env.max_turns
        return options

    def agents(self, stage: StageConfig, scenario: str | None = None) -> list[str]:
        """The ships the learner flies in ``stage`` (in ``scenario``, else in every scenario of
        the stage, each ship once)."""
        if scenario is None:
            ships: list[str] = []
            for name in stage.scenarios:
                ships += [a for a in self.agents(stage, name) if a not in ships]
            return ships
        possible = SFBParallelEnv(scenario, **self.env_options()).possible_agents
        if stage.opponent == "self" or stage.agent == "alternate":
            return list(possible)
        return [stage.agent or possible[0]]

    def make_env(self, seed: int) -> Any:
        """The current stage's vectorised env with ``ppo.n_envs`` slots (split evenly over the
        stage's scenarios, ``training.multi_env.ConcatAgentVectorEnv``, if it has several)."""
        stage = self.stage
        per_scenario = self.config.ppo.n_envs // len(stage.scenarios)
        self.seat_splits = {}
        parts = [self._scenario_env(scenario, per_scenario, seed + i)
                 for i, scenario in enumerate(stage.scenarios)]
        venv = parts[0] if len(parts) == 1 else ConcatAgentVectorEnv(parts, stage.scenarios)
        if venv.num_slots != self.config.ppo.n_envs:
            raise ValueError(f"stage {stage.name!r} has {venv.num_slots} slots, expected "
                             f"{self.config.ppo.n_envs}")
        if self.config.env.result_bonus:
            venv = ResultBonus(venv, self.config.env.result_bonus)
        return venv

    def _scenario_env(self, scenario: str, n_slots: int, seed: int
                      ) -> AgentVectorEnv | ConcatAgentVectorEnv:
        stage = self.stage
        opponents: Any = stage.opponent
        if stage.opponent == "self":
            learners: Any = "all"
            battles = n_slots // len(self.agents(stage, scenario))
            opponents = None
        else:
            learners = "alternate" if stage.agent == "alternate" else self.agents(stage,
                                                                                  scenario)
            battles = n_slots
        if stage.opponent == "league":
            if self.league is None:
                raise ValueError(f"stage {stage.name!r}: opponent 'league' needs a league")
            opponents = self.league.opponent
            if self.focused_league is not None:
                opponents = self.league.opponent_for(scenario, stage.evaluation_opponent)
        split = self.seat_battles(scenario, n_slots)
        if split is not None:  # league.seat_slots: one env per ship the learner flies
            self.seat_splits[scenario] = split
            parts = [self._agent_env(scenario, battles, [agent], opponents, seed + SEAT_STRIDE * j)
                     for j, (agent, battles) in enumerate(split.items())]
            return ConcatAgentVectorEnv(parts, [f"{scenario}:{agent}" for agent in split])
        return self._agent_env(scenario, battles, learners, opponents, seed)

    def _agent_env(self, scenario: str, battles: int, learners: Any, opponents: Any,
                   seed: int) -> AgentVectorEnv:
        return agent_vector_env(scenario, num_envs=battles, learners=learners,
                                opponents=opponents, fixed_spaces=self.fixed_spaces, seed=seed,
                                backend=self.config.env.backend, **self.env_options())

    def seat_battles(self, scenario: str, n_slots: int) -> dict[str, int] | None:
        """The battles of ``scenario`` (of ``n_slots``) the learner flies each ship in, when
        the stage splits them by its seats (``league.seat_slots``), else None."""
        league = self.focused_league
        if league is None or not league.config.seat_slots or self.stage.agent != "alternate":
            return None
        agents = self.agents(self.stage, scenario)
        return dict(zip(agents, league.seat_battles(scenario, agents, n_slots), strict=True))

    def env_seed(self) -> int:
        """The seed of the env built now: the config's, moved on by stage and timesteps (so a
        resumed run builds the env it would have built)."""
        return self.config.seed + 1000 * self.state.stage + self.state.stage_timesteps

    @property
    def focused_league(self) -> League | None:
        """The league, if the current stage plays it with ``league.focus`` (each seat's
        battles drawn by its evaluation win rate), else None."""
        league = self.league
        if league is not None and league.config.focus and self.stage.opponent == "league":
            return league
        return None

    def evaluation_opponent(self) -> Any:
        """The current stage's evaluation opponent (the league samples its pool)."""
        spec = self.stage.evaluation_opponent
        if spec == "league":
            if self.league is None:
                raise ValueError("evaluation against 'league' needs a league")
            return self.league.opponent
        return spec
