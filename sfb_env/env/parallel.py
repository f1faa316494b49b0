"""The PettingZoo ``ParallelEnv`` over the engine: one step = one impulse.

Version history:

* ``sfb_v1`` - a phaser-G fires up to four shots in one impulse (E2.151): each phaser-G mount
  has ``gatling[g].shot2..shot4`` action components after the ``fire[w]`` components; the
  captain's own choices: damage control spread over the shields (``repair[s]`` replaces
  ``repair``, D9.2), general reinforcement held inactive (``reinforce_hold``, D3.34), and, under
  ``rules.launch_facing`` (cth-10, -12, -13), the drone's launch facing in ``launch[r]`` (FD1.2);
  under ``rules.reserve_power`` (cth-10, -12, -13) ``reserve_shields`` keeps the batteries out of
  struck shields until the next decision point (H7.1, H7.2), and ``esg_reserve[g]`` puts
  batteries into an ESG generator (G23.212; a Lyran ship under the rule). Scenarios with none
  of these (no phaser-G on an agent's ship, neither damage control, reinforcement nor reserve
  power) keep their ``sfb_v0`` spaces (``changes_since``: their replays still run).
  Within ``sfb_v1`` (issue 13) the default ``illegal_action`` became ``"noop"`` (was
  ``"raise"``): a masked value is replaced by the component's no-op and reported in
  ``infos[agent]["illegal_action"]``; the spaces and the outcome of every legal action are
  unchanged (a masked policy never sees the difference, and replays, which hold only actions
  that were flown, still run), so the env name stays ``sfb_v1``. Pass ``illegal_action="raise"``
  for the old behaviour.
* ``sfb_v0`` - first release (scenarios cth-01..cth-03).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from sfb_env.engine import Battle, knowledge, load_scenario, unit_rules
from sfb_env.engine.battle import DEFAULT_MAX_TURNS
from sfb_env.engine.direct_fire import ready_weapons
from sfb_env.env import observation as obs_mod
from sfb_env.env import rule_features
from sfb_env.env.actions import (
    ActionLayout,
    EnergyLayout,
    IllegalActionError,
    craft_components,
)
from sfb_env.env.agent_shape import AgentShape
from sfb_env.env.reward import REWARDS, RewardFn
from sfb_env.env.spaces import MaskedMultiDiscrete
from sfb_env.env.transport_actions import TransportLayout


class UnknownAgentError(KeyError):
    """``action_space`` / ``observation_space`` of a name that is no agent of the scenario:
    a ``KeyError`` whose message names the agent and lists the possible agents."""

    def __init__(self, agent: object, scenario: str, possible: list[str]) -> None:
        super().__init__(agent)
        self.agent, self.possible_agents = agent, list(possible)
        self.message = (f"{agent!r} is not an agent of {scenario}; possible agents: "
                        f"{self.possible_agents}")

    def __str__(self) -> str:  # KeyError would print the message as a repr
        return self.message


class SFBParallelEnv(ParallelEnv):
    """Star Fleet Battles as a PettingZoo parallel environment.

    **Agents** are the ships a player commands in the scenario (unit ids, e.g.
    ``"destruction"``); robots, drones and freighters of the scenario act inside the engine.
    A destroyed or disengaged ship leaves ``agents`` and never returns. A ship that enters the
    map later (scenario unit ``arrives``, engine.unit_rules) is in ``agents`` from the start,
    its every action masked to the no-op until it arrives.

    **Decision cycle**: ``reset()`` returns the decision point "impulse 0"; each ``step`` carries
    out launch and fire of impulse i, ends it (and the turn after the last), moves every unit on
    impulse i+1 and returns that decision point (positions final).

    **Action** (``MaskedMultiDiscrete``; see ``sfb_env.env.actions`` for the table):
    ``launch[r]`` per drone rack and plasma launcher and ``fire[w]`` per direct-fire weapon (0
    hold, k = target slot k; with ``rules.launch_facing`` a launch also names the drone's
    facing, FD1.2), ``gatling[g].shot2..shot4`` per phaser-G (its 2nd..4th shot of the
    impulse, E2.151; since ``sfb_v1``), ``maneuver`` (none / straight / left / right;
    + sideslip left / right with ``rules.sideslip``, + tactical left / right with
    ``rules.tactical_maneuvers``) and ``speed``
    (open where the scenario lets the player choose, at impulse 0 and the last impulse of each
    turn; with ``rules.tactical_maneuvers`` max + 1 + n plots TAC with n warp maneuvers). Under
    ``rules.energy: cadet`` the Energy Allocation components ``arm[h]``, ``capacitor``,
    ``recharge`` (and ``cloak``) come before ``maneuver``; ``infos[agent]["energy_shortfall"]``
    is the energy the last allocation ordered but could not pay (``sfb_env.engine.energy``).
    The standard form's scenario-10 rules add ``reinforce_general``, ``reinforce[s]``,
    ``reinforce_hold`` (D3.34, D3.3411), ``repair[s]`` (D9.2) and, with ``rules.reserve_power``,
    ``reserve_shields`` (H7.1) and ``esg_reserve[g]`` (G23.212; docs/observation.md).
    With ``rules.disengage_by_announcement`` (SCENARIOS #5) a ``disengage`` component announces
    disengagement at the end of the impulse (``sfb_env.engine.disengagement``).

    **Observation**: ``{"observation": float32 (n,), "action_mask": int8 (sum(nvec),)}``; the
    vector layout is declared in ``sfb_env.env.observation_layout`` and documented in
    docs/observation.md; the optional rule-features block at its end is listed by
    ``rule_features(agent)``. ``enemy_fire=True`` adds its ``enemy_fire`` sub-block: per
    target slot, which of the ship's weapons fired this turn and when (fire is in the open).

    **Reward**: ``"shaped"`` (0.05 per internal point dealt minus taken, plus +1/-1/0 at the
    end), ``"points"`` (0.05 per damage point, shield and internal, scored on enemy ships minus
    taken, plus the result: a duel's turn-limit measure) or ``"sparse"`` (end result only), or
    a callable.

    **Seeding** (Gymnasium's convention): ``reset(seed=s)`` plays the battle whose dice are
    ``numpy.random.default_rng(s)`` (same seed and actions, same battle; replays record ``s``)
    and seeds the env's own generator ``np_random`` with ``s``; a plain ``reset()`` continues
    that generator: the next battle's seed is ``int(np_random.integers(2**31 - 1))`` (the
    battle's ``seed``), so successive episodes differ and the sequence is reproducible. The
    constructor's ``seed`` stands in for the first reset's when that gives none; with neither,
    the generator starts from fresh entropy.

    **Illegal actions** (``illegal_action``): with ``"noop"`` (the default) every component
    value the mask forbids is replaced by that component's no-op and reported in
    ``infos[agent]["illegal_action"]`` (a list of ``{"component", "value", "rule"}``), so
    checkers and learners that sample unmasked actions (PettingZoo's ``parallel_seed_test``,
    Gymnasium's and SB3's ``check_env``) keep flying and see what was refused; with
    ``"raise"`` the first such value raises ``IllegalActionError`` naming the agent,
    component, value and rule (the strict mode the mask tests use).

    **Errors**: ``step()`` before ``reset()`` raises ``RuntimeError``; an action that is not an
    integer array of the agent's ``nvec`` shape (a string, ``None``, floats, another shape)
    raises ``TypeError`` / ``ValueError`` naming the agent; an action keyed by an unknown or
    departed agent raises ``ValueError`` naming the live agents; ``action_space`` /
    ``observation_space`` of an unknown agent raise ``UnknownAgentError`` (a ``KeyError``) naming
    it and the possible agents.

    **Termination**: the ship destroyed or gone, or the scenario decided; **truncation**: the
    turn limit (scenario's, else ``max_turns``, default 30). ``infos[agent]["outcome"]`` at the end.

    Usage::

        env = sfb_env.parallel_env(scenario="cth-03", seed=0)
        obs, infos = env.reset(seed=0)
        while env.agents:
            actions = {a: env.action_space(a).sample(mask=obs[a]["action_mask"])
                       for a in env.agents}
            obs, rewards, terms, truncs, infos = env.step(actions)
    """

    backend = "reference"  # the engine underneath (``sfb_env.backends``)
    validate_in_engine = False  # True: the engine validates every order again (tests use it
    #   to check that the masks and the engine's validation never disagree)

    metadata = {
        "name": "sfb_v1",
        "render_modes": ["rgb_array", "human"],
        "render_fps": 4,
        "is_parallelizable": True,
    }

    def __init__(
        self,
        scenario: str | Mapping[str, Any] = "cth-01",
        render_mode: str | None = None,
        seed: int | None = None,
        illegal_action: str = "noop",
        uniform_spaces: bool = False,
        reward: str | RewardFn = "shaped",
        max_turns: int | None = None,
        target_slots: int = 8,
        threat_slots: int = 4,
        enemy_fire: bool = False,
    ) -> None:
        if illegal_action not in ("raise", "noop"):
            raise ValueError(f"illegal_action must be 'raise' or 'noop', got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}")
        if isinstance(reward, str):
            if reward not in REWARDS:
                raise ValueError(
                    f"unknown reward {reward!r}; expected {list(REWARDS)} or a callable"
                )
            reward = REWARDS[reward]
        self.scenario = load_scenario(scenario)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.reward_fn = reward
        self.max_turns = max_turns or self.scenario.turn_limit or DEFAULT_MAX_TURNS
        self.target_slots = target_slots
        self.threat_slots = threat_slots
        self.enemy_fire = bool(enemy_fire)
        self._seed = seed  # the first reset's seed when it gives none
        self.np_random: np.random.Generator | None = None  # seeded by reset (see Seeding)
        self._spaces: dict[tuple[str, str], spaces.Space] = {}  # one space object per agent
        self._event_cursor: int | None = None  # None until the first reset
        self.battle = Battle(self.scenario, seed=seed, max_turns=self.max_turns)
        self.possible_agents = [
            self.battle.unit_ids[u] for u in range(len(self.battle.unit_ids))
            if self.battle.controllers[u] == "agent"
        ]
        self.agents: list[str] = []
        pads = (None, None)
        if uniform_spaces:
            probe = [ActionLayout.build(self.battle, self.battle.unit_index[a], target_slots)
                     for a in self.possible_agents]
            pads = (max(len(p.racks) for p in probe), max(len(p.weapons) for p in probe),
                    max(len(p.esgs) for p in probe),
                    EnergyLayout.widest([p.power for p in probe]),  # (B3.0) energy components
                    max(len(p.ppds) for p in probe),  # (E11.362) ppd[p] components
                    tuple(any(c[i] for c in (craft_components(self.battle, p.unit)
                                             for p in probe)) for i in range(2)))  # (J4.34)
        gatling_pad = (max(len(p.gatling) for p in probe)  # (E2.151) phaser-G shots 2..4
                       if uniform_spaces else None)
        tractor_pad = (max(int(self.battle.tractor_beams[self.battle.unit_index[a]])
                           for a in self.possible_agents) if uniform_spaces else None)  # (G7.0)
        transport_pad = (TransportLayout.widest(  # (G8.0) transporter components
            [TransportLayout.build(self.battle, self.battle.unit_index[a], target_slots)
             for a in self.possible_agents]) if uniform_spaces else None)
        self._layouts = {
            a: ActionLayout.build(self.battle, self.battle.unit_index[a], target_slots, *pads,
                                  pad_tractors=tractor_pad, pad_transport=transport_pad,
                                  n_gatling=gatling_pad, enemy_fire=self.enemy_fire)
            for a in self.possible_agents
        }
        self._renderer = None
        #: the last step's actions as flown: each given action with every value the mask
        #: forbade replaced by its no-op (``illegal_action="noop"``); what replays record
        self.flown_actions: dict[str, np.ndarray] = {}

    def changes_since(self, version: str) -> list[str]:
        """What differs in this env's spaces from env ``version`` (e.g. ``"sfb_v0"``), in
        words; empty when an action recorded under ``version`` means the same here (see the
        version history). Raises ``ValueError`` for an env version this one does not know."""
        name = self.metadata["name"]
        if version == name:
            return []
        if version != "sfb_v0":
            raise ValueError(f"unknown env version {version!r}; this sfb-env provides "
                             f"{name!r} (and reads replays of 'sfb_v0')")
        changes = []
        if any(len(layout.gatling) for layout in self._layouts.values()):
            changes.append(f"in {name} the phaser-G mounts of {self.scenario.name} have extra "
                           "shot components (E2.151)")
        rules = self.battle.rules
        if rules.damage_control:
            changes.append(f"in {name} damage control is spread over the shields: repair[s] "
                           "replaces repair (D9.2)")
        if rules.reinforcement:
            changes.append(f"in {name} general reinforcement may be held: reinforce_hold "
                           "(D3.34)")
        if rules.reserve_power and rules.standard_energy:
            changes.append(f"in {name} the batteries may be kept out of struck shields: "
                           "reserve_shields (H7.1)")
            if rules.esg_in_play:
                changes.append(f"in {name} reserve power may go into an ESG generator: "
                               "esg_reserve[g] (G23.212)")
        return changes

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space:
        key = ("observation", agent)
        if key not in self._spaces:
            layout = self._layout_of(agent)
            n = obs_mod.observation_size(layout, self.threat_slots)
            self._spaces[key] = spaces.Dict({
                "observation": spaces.Box(-1.0, 1.0, shape=(n,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(int(layout.nvec.sum()),),
                                          dtype=np.int8),
            })
        return self._spaces[key]

    def action_space(self, agent: str) -> MaskedMultiDiscrete:
        key = ("action", agent)
        if key not in self._spaces:
            layout = self._layout_of(agent)
            self._spaces[key] = MaskedMultiDiscrete(
                layout.nvec, agent_shape=AgentShape.of(layout, self.threat_slots,
                                                       *self._races_of(agent)))
        return self._spaces[key]

    def _races_of(self, agent: str) -> tuple[str, tuple[str, ...]]:
        """The race of ``agent``'s ship and those of the other sides' ships (CTH-DATA)."""
        classes, side = self.battle.ship_classes, self.battle.state.side
        u = self.battle.unit_index[agent]
        own = classes[u].race if classes[u] is not None else ""
        foes = tuple(c.race for v, c in enumerate(classes)
                     if c is not None and side[v] != side[u])
        return own, foes

    @property
    def state_space(self) -> spaces.Box:
        """The space of ``state()`` (PettingZoo's state test): its true bounds per entry."""
        key = ("state", "")
        if key not in self._spaces:
            low, high = obs_mod.global_state_bounds(self.battle, self.max_turns)
            self._spaces[key] = spaces.Box(low, high, dtype=np.float32)
        return self._spaces[key]

    def _layout_of(self, agent: str) -> ActionLayout:
        if agent not in self._layouts:
            raise UnknownAgentError(agent, self.scenario.name, self.possible_agents)
        return self._layouts[agent]

    # ------------------------------------------------------------------ API

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is None:
            seed, self._seed = self._seed, None  # the constructor's seed, once
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        else:  # continue the env's generator (Gymnasium): the next battle's seed comes from it
            if self.np_random is None:
                self.np_random = np.random.default_rng()
            seed = int(self.np_random.integers(2**31 - 1))
        self.battle.reset(seed)
        self.agents = [a for a in self.possible_agents  # (or arriving later: unit_rules)
                       if unit_rules.in_play_or_coming(self.battle, self.battle.unit_index[a])]
        self._event_cursor = len(self.battle.events)
        self._observe()
        infos = {a: self._info(a) for a in self.agents}
        return {a: self._obs[a] for a in self.agents}, infos

    def step(self, actions: Mapping[str, Any]):
        self._refuse_bad_call(actions)
        battle = self.battle
        reports: dict[str, list[dict]] = {a: [] for a in self.agents}
        orders, unchecked = {}, {}
        self.flown_actions = {}
        for agent in self.agents:
            layout = self._layouts[agent]
            if agent not in actions:
                action = layout.noop(battle)
            else:
                action = self._as_action(agent, actions[agent])
                action = self._check(agent, action, reports[agent])
                self.flown_actions[agent] = action
            orders[layout.unit] = layout.to_orders(battle, action, self._slots[agent])
            if agent not in actions or reports[agent]:  # the no-op stood in: not mask-checked
                unchecked[layout.unit] = orders[layout.unit]
        if self.validate_in_engine or battle.speed_choice_open():
            # (C3.2) with the speed picked, the maneuver is judged at that speed: a joint check
            # of two components the per-component mask cannot make, so the engine still does it
            unchecked = orders
        if unchecked:
            battle.validate(unchecked)
        battle.step(orders, validate=False)  # the rest were checked against their masks
        new_events = battle.events[self._event_cursor:]
        self._event_cursor = len(battle.events)
        previous = list(self.agents)
        rewards = {a: float(self.reward_fn(self, a, new_events)) for a in previous}
        terminations, truncations = {}, {}
        for a in previous:
            gone = not knowledge.commanded_by_player(battle, battle.unit_index[a])  # (D7.0)
            truncations[a] = bool(battle.done and battle.time_up and not gone)
            terminations[a] = bool(gone or (battle.done and not truncations[a]))
        return self._finish_step(previous, rewards, terminations, truncations, reports)

    def _finish_step(self, previous: list[str], rewards: dict, terminations: dict,
                     truncations: dict, reports: dict[str, list[dict]]):
        """The end of ``step()`` (both backends): the agents left, their observations, infos
        with the illegal-action reports, the human render, the five dicts."""
        self.agents = [a for a in previous if not (terminations[a] or truncations[a])]
        self._observe(previous)
        infos = {a: self._info(a) for a in previous}
        for a, lines in reports.items():
            if lines:
                infos[a]["illegal_action"] = lines
        if self.render_mode == "human":
            self.render()
        return {a: self._obs[a] for a in previous}, rewards, terminations, truncations, infos

    def _refuse_bad_call(self, actions: Any) -> None:
        """``step()`` before ``reset()``, actions that are not a dict, or actions keyed by an
        unknown or departed agent: refused, naming the live agents."""
        if self._event_cursor is None:
            raise RuntimeError("step() before reset(): call reset() first")
        if not isinstance(actions, Mapping):
            raise TypeError(f"step() takes a dict agent -> action, got {type(actions).__name__}")
        strangers = [a for a in actions if a not in self.agents]
        if strangers:
            gone = [a for a in strangers if a in self.possible_agents]
            unknown = [a for a in strangers if a not in self.possible_agents]
            why = "; ".join(part for part in (
                f"unknown agent(s) {unknown}" if unknown else "",
                f"agent(s) {gone} no longer in play" if gone else "") if part)
            raise ValueError(f"step() actions for {why}; live agents: {self.agents}")

    def _as_action(self, agent: str, action: Any) -> np.ndarray:
        """``agent``'s action as an int64 vector of its ``nvec`` shape; anything else (a string,
        ``None``, floats, another shape) is refused rather than coerced."""
        nvec = self._layouts[agent].nvec
        if action is None or isinstance(action, (str, bytes)):
            raise TypeError(f"action for {agent!r} must be integers of shape {nvec.shape}, "
                            f"got {action!r}")
        array = np.asarray(action)
        if array.dtype.kind not in "iu":
            raise TypeError(f"action for {agent!r} must be integers of shape {nvec.shape}, "
                            f"got dtype {array.dtype} ({action!r})")
        if array.ndim == 0:  # a numpy int scalar flies a one-component action
            array = array.reshape(1)
        if array.shape != nvec.shape:
            raise IllegalActionError(
                agent, "action", -1, f"expected {len(nvec)} components, got shape {array.shape}"
            )
        return array.astype(np.int64)

    def _check(self, agent: str, action: np.ndarray, report: list[dict]) -> np.ndarray:
        """Refuse (or replace by the no-op) every component the mask forbids."""
        layout = self._layouts[agent]
        nvec = layout.nvec
        if action.shape != nvec.shape:
            raise IllegalActionError(
                agent, "action", -1, f"expected {len(nvec)} components, got shape {action.shape}"
            )
        mask = self._obs[agent]["action_mask"]
        inside = (action >= 0) & (action < nvec)
        if inside.all() and mask[layout.offsets + action].all():
            return action  # every component allowed (the usual case: one vector test)
        mask_parts = self.action_space(agent).split_mask(mask)
        names = layout.component_names()
        noop = None
        for i, (value, part) in enumerate(zip(action, mask_parts, strict=True)):
            if 0 <= value < nvec[i] and part[value]:
                continue
            if value < 0 or value >= nvec[i]:
                rule = f"value outside 0..{nvec[i] - 1}"
            else:
                rule = self.mask_reasons(agent)[names[i]].get(int(value), "masked")
            if self.illegal_action == "raise":
                raise IllegalActionError(agent, names[i], int(value), rule)
            noop = layout.noop(self.battle) if noop is None else noop
            report.append({"component": names[i], "value": int(value), "rule": rule})
            action = action.copy()
            action[i] = noop[i]
        return action

    def mask_reasons(self, agent: str) -> dict[str, dict[int, str]]:
        """For each masked choice of ``agent``'s action: the rule that forbids it."""
        if agent not in self.agents:
            raise ValueError(f"{agent!r} is not a live agent; live: {self.agents}")
        return self._layouts[agent].reasons(self.battle, self._slots[agent])

    def action_components(self, agent: str) -> list[dict]:
        """What each action component of ``agent`` commands (static: names, weapon types,
        arcs and ranges of the ship sheet, component sizes), for captains and UIs."""
        return self._layouts[agent].describe(self.battle)

    def rule_features(self, agent: str) -> dict[str, int]:
        """The rule-features sub-blocks at the end of ``agent``'s observation and their lengths
        (``env.rule_features``; empty where the scenario uses none of those rules)."""
        layout = self._layouts[agent]
        return {name: rule_features.block_size(name, layout.slots)
                for name in layout.rule_features}

    def state(self) -> np.ndarray:
        """The global state (every unit and the clock) for centralised critics."""
        return obs_mod.global_state(self.battle, self.max_turns)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._obs[agent]

    def render(self):
        if self.render_mode is None:
            return None
        from sfb_env.render import Renderer

        if self._renderer is None:
            self._renderer = Renderer(self.battle)
        frame = self._renderer.frame(self.battle)
        if self.render_mode == "human":
            self._renderer.show(frame)
            return None
        return frame

    def close(self):
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    # ------------------------------------------------------------------ helpers

    def _observe(self, agents: list[str] | None = None) -> None:
        agents = self.agents if agents is None else agents
        self._slots = {}
        self._obs = {}
        for a in agents:
            layout = self._layouts[a]
            slots = layout.target_slots(self.battle)
            self._slots[a] = slots
            # readiness of the direct-fire weapons: read by the mask and the observation
            ready = ready_weapons(self.battle, layout.weapons[layout.weapons >= 0])
            if a in self.agents:
                blocked = self.battle.maneuver_blockers(layout.unit)
                mask = layout.mask(self.battle, slots, blocked, ready)
            else:
                blocked, mask = None, np.zeros(layout.size, np.int8)
            vector = obs_mod.encode(
                self.battle, layout, slots, self.threat_slots, self.max_turns, blocked, ready
            )
            self._obs[a] = {"observation": vector, "action_mask": mask}

    def _info(self, agent: str) -> dict:
        battle = self.battle
        info: dict[str, Any] = {"turn": battle.state.turn, "impulse": battle.state.impulse}
        if self._layouts[agent].power is not None:  # (B3.0) energy ordered but not paid
            info["energy_shortfall"] = int(battle.state.energy_shortfall[battle.unit_index[agent]])
        if battle.done and battle.outcome is not None:
            side = battle.scenario.sides[battle.state.side[battle.unit_index[agent]]]
            info["outcome"] = {**battle.outcome[side], "reason": battle.end_reason}
        return info


def parallel_env(scenario: str | Mapping[str, Any] = "cth-01", **options: Any) -> SFBParallelEnv:
    """Build the parallel environment (see ``SFBParallelEnv`` for the options)."""
    return SFBParallelEnv(scenario=scenario, **options)
