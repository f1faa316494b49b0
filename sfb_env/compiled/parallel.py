"""``CompiledParallelEnv``: the PettingZoo env of ``SFBParallelEnv`` on the compiled core.

Same spaces, observations, masks, rewards, terminations, infos, seeding and errors as the
reference env (the parity harness, ``compiled.parity``, checks it step by step); a step is one
compiled call over a ``BattleBatch`` of one battle. The reference ``Battle`` is rebuilt from
the compiled state only when something asks for it (``env.battle``: ``mask_reasons``,
``state()``, rendering, replays, a custom reward function, the outcome's wording at the end,
the no-op of an agent that gave no action, and the joint speed-and-maneuver check that the
engine makes at the impulses where speeds are chosen, C3.2); its event log is decoded from
the compiled event rows then.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numba as nb
import numpy as np

from sfb_env.compiled import batch as batch_mod
from sfb_env.compiled import event_codes, layout, tiers
from sfb_env.engine import victory
from sfb_env.engine.battle import Battle
from sfb_env.env.parallel import SFBParallelEnv
from sfb_env.env.reward import REWARDS


@nb.njit(cache=True)
def _all_open(action: np.ndarray, nvec: np.ndarray, starts: np.ndarray,
              mask: np.ndarray) -> bool:
    """Every component's value in range and open in the flat ``mask``."""
    for i in range(action.shape[0]):
        v = action[i]
        if v < 0 or v >= nvec[i] or mask[starts[i] + v] == 0:
            return False
    return True


class CompiledParallelEnv(SFBParallelEnv):
    """``SFBParallelEnv`` whose battle runs on the compiled core (tier-1 scenarios)."""

    backend = "compiled"

    def __init__(self, scenario: str | Mapping[str, Any] = "cth-01", **options: Any) -> None:
        reward = options.get("reward", "shaped")
        custom = not (isinstance(reward, str) or reward in REWARDS.values())
        super().__init__(scenario, **options)
        self._batch = batch_mod.BattleBatch(
            self.scenario, 1, max_turns=self.max_turns, target_slots=self.target_slots,
            threat_slots=self.threat_slots, reward="shaped" if custom else reward,
            uniform_spaces=bool(options.get("uniform_spaces")), autoreset=False)
        self._custom_reward = custom  # computed in Python on the reference view
        ot = self._batch.observe_tables
        self._index = {a: i for i, a in enumerate(self._batch.agents)}
        self._obs_size = np.asarray(ot.obs_size)
        self._mask_size = np.asarray(ot.mask_size)
        self._actions = np.zeros((1, len(self._batch.agents), self._batch.nvec.shape[1]), np.int64)
        self._decoder = event_codes.Decoder(self.battle_setup.unit_ids,
                                            self.battle_setup.weapon_ids,
                                            list(self.scenario.sides), self.scenario.parity)
        self._starts = {a: np.concatenate([[0], np.cumsum(lay.nvec)[:-1]]).astype(np.int64)
                        for a, lay in self._layouts.items()}
        self._rows: list[np.ndarray] = []  # event rows since the reset, one array per step
        self._events: list = []  # the decoded events of the first ``_decoded_steps`` steps
        self._decoded_steps = 0
        self._stale = False

    # ------------------------------------------------------------------ the reference view

    @property
    def battle(self) -> Battle:
        """The battle as a reference ``Battle`` (rebuilt from the compiled state on demand)."""
        if self._stale:
            self._sync()
        return self._reference

    @battle.setter
    def battle(self, value: Battle) -> None:
        self._reference = value
        self._stale = False

    @property
    def battle_setup(self):
        return self._reference.setup

    def _sync(self) -> None:
        ref = self._reference
        st = ref.state
        layout.unpack_into(self._batch.state, 0, st, self._batch.cold)
        st.outcome, st.end_reason = None, ""
        if st.done:
            st.outcome, st.end_reason = victory.evaluate(ref, st.time_up)
        for rows in self._rows[self._decoded_steps:]:  # decoded once, as they come
            self._events.extend(self._decoder.decode(rows, st.outcome, st.end_reason))
        self._decoded_steps = len(self._rows)
        st.events = list(self._events)
        self._stale = False

    # ------------------------------------------------------------------ API

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is None:
            seed, self._seed = self._seed, None
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        else:
            if self.np_random is None:
                self.np_random = np.random.default_rng()
            seed = int(self.np_random.integers(2**31 - 1))
        self._reference.reset(seed)
        self._batch.reset([seed])
        self._rows, self._events, self._decoded_steps = [], [], 0
        self._stale = True
        self.agents = [a for a in self.possible_agents if self._batch.alive[0, self._index[a]]]
        self._event_cursor = 0
        self._observe(self.agents)
        return {a: self._obs[a] for a in self.agents}, {a: self._info(a) for a in self.agents}

    def step(self, actions: Mapping[str, Any]):
        self._refuse_bad_call(actions)
        reports: dict[str, list[dict]] = {a: [] for a in self.agents}
        chosen = {}
        self.flown_actions = {}
        for agent in self.agents:
            if agent not in actions:
                chosen[agent] = self._layouts[agent].noop(self.battle)
            else:
                action = self._as_action(agent, actions[agent])
                chosen[agent] = self._check(agent, action, reports[agent])
                self.flown_actions[agent] = chosen[agent]
        battle = (self.battle if self.validate_in_engine or self._joint_check_due()
                  or any(reports.values()) or len(chosen) > len(self.flown_actions) else None)
        if battle is not None:  # (C3.2) the speed and the maneuver judged together
            battle.validate({self._layouts[a].unit: self._layouts[a].to_orders(
                battle, chosen[a], self._slots[a]) for a in self.agents})
        self._actions[:] = 0
        for agent, action in chosen.items():
            self._actions[0, self._index[agent], :len(action)] = action
        self._batch.step(self._actions)
        st = self._batch.state
        self._rows.append(st.ev[0, :st.ev_count[0]].copy())
        self._stale = True
        previous = list(self.agents)
        rewards, terminations, truncations = {}, {}, {}
        custom = self._custom_reward
        if custom:
            new_events = self.battle.events[self._event_cursor:]
        for a in previous:
            i = self._index[a]
            rewards[a] = (float(self.reward_fn(self, a, new_events)) if custom
                          else float(self._batch.rewards[0, i]))
            terminations[a] = bool(self._batch.terminated[0, i])
            truncations[a] = bool(self._batch.truncated[0, i])
        self._event_cursor += len(self._rows[-1])
        return self._finish_step(previous, rewards, terminations, truncations, reports)

    # ------------------------------------------------------------------ helpers

    def _check(self, agent: str, action: np.ndarray, report: list[dict]) -> np.ndarray:
        """The reference check, with a vectorised fast path for an action whose every
        component is open (the usual case: masked sampling, trained policies)."""
        nvec = self._layouts[agent].nvec
        if action.shape == nvec.shape and _all_open(action, nvec, self._starts[agent],
                                                    self._obs[agent]["action_mask"]):
            return action
        return super()._check(agent, action, report)

    def _as_action(self, agent: str, action: Any) -> np.ndarray:
        """The reference conversion, skipped for an int64 array of the right shape."""
        if (type(action) is np.ndarray and action.dtype == np.int64
                and action.shape == self._layouts[agent].nvec.shape):
            return action
        return super()._as_action(agent, action)

    def _joint_check_due(self) -> bool:
        """Whether the engine must judge speed and maneuver together here (C3.2): never on
        the tiers ported so far (``tiers.JOINT_SPEED_MANEUVER_CHECK``), else where orders set
        next turn's speed (``legality.speed_choice_open``: impulse 0 or the turn's last)."""
        if not tiers.JOINT_SPEED_MANEUVER_CHECK:
            return False
        st = self._batch.state
        return bool(self.scenario.rules.speed_choice
                    and int(st.impulse[0]) in (0, self.scenario.impulses_per_turn))

    def _observe(self, agents: list[str] | None = None) -> None:
        """Observations of ``agents`` from the compiled buffers; the target slots for
        ``mask_reasons`` and orders are read from the reference view when asked."""
        agents = self.agents if agents is None else agents
        self._obs = {}
        for a in agents:
            i = self._index[a]
            live = a in self.agents
            mask = (self._batch.masks[0, i, :self._mask_size[i]].copy() if live
                    else np.zeros(self._mask_size[i], np.int8))
            self._obs[a] = {"observation": self._batch.obs[0, i, :self._obs_size[i]].copy(),
                            "action_mask": mask}

    @property
    def _slots(self) -> dict[str, np.ndarray]:
        battle = self.battle
        return {a: self._layouts[a].target_slots(battle) for a in self.agents}

    def _info(self, agent: str) -> dict:
        st = self._batch.state
        info: dict[str, Any] = {"turn": int(st.turn[0]), "impulse": int(st.impulse[0])}
        if st.done[0]:
            battle = self.battle
            if battle.outcome is not None:
                side = battle.scenario.sides[battle.state.side[battle.unit_index[agent]]]
                info["outcome"] = {**battle.outcome[side], "reason": battle.end_reason}
        return info
