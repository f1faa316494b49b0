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

import numpy as np

from sfb_env.compiled import batch as batch_mod
from sfb_env.compiled import event_codes, handle, layout, tiers
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine import victory
from sfb_env.engine.battle import Battle
from sfb_env.env.parallel import SFBParallelEnv
from sfb_env.env.reward import REWARDS


@kernel()
def _all_open(actions: np.ndarray, nvec: np.ndarray, masks: np.ndarray,
              alive: np.ndarray) -> bool:
    """Every live agent's every component in range and open in its flat mask (battle 0 of
    ``actions`` (1, A, k), ``nvec`` (A, k) 0-padded, ``masks`` (1, A, m), ``alive`` (1, A))."""
    for a in range(actions.shape[1]):
        if not alive[0, a]:
            continue
        at = 0
        for i in range(nvec.shape[1]):
            n = nvec[a, i]
            if n == 0:
                break
            v = actions[0, a, i]
            if v < 0 or v >= n or masks[0, a, at + v] == 0:
                return False
            at += n
    return True


class CompiledParallelEnv(SFBParallelEnv):
    """``SFBParallelEnv`` whose battle runs on the compiled core (tier-1 scenarios)."""

    backend = "compiled"
    # (until __init__ sets them: the base class reads ``battle`` while it builds)
    _stale = False
    _rows: list[np.ndarray] | tuple = ()
    _decoded_steps = 0
    _reset_seed: int | None = None
    _verdict_of = -1  # the step count (len(_rows)) whose verdict is in _verdict_now
    _verdict_reads_events = False  # (tiers.EVENT_VICTORY) the verdict's wording reads events
    _joint_check = True  # (C3.2) whether speeds and maneuvers may need the engine's joint check
    _np_random: np.random.Generator | None = None
    _np_random_seed: int | None = None  # the seed of the generator not made yet (np_random)

    def __init__(self, scenario: str | Mapping[str, Any] = "cth-01", **options: Any) -> None:
        reward = options.get("reward", "shaped")
        custom = not (isinstance(reward, str) or reward in REWARDS.values())
        super().__init__(scenario, **options)
        self._batch = batch_mod.BattleBatch(
            self.scenario, 1, max_turns=self.max_turns, target_slots=self.target_slots,
            threat_slots=self.threat_slots, reward="shaped" if custom else reward,
            uniform_spaces=bool(options.get("uniform_spaces")), autoreset=False,
            enemy_fire=self.enemy_fire)
        self._custom_reward = custom  # computed in Python on the reference view
        ot = self._batch.observe_tables
        self._index = {a: i for i, a in enumerate(self._batch.agents)}
        self._unit = {a: int(ot.agent_unit[i]) for i, a in enumerate(self._batch.agents)}
        self._obs_size = [int(n) for n in ot.obs_size]
        self._mask_size = [int(n) for n in ot.mask_size]
        self._actions = np.zeros((1, len(self._batch.agents), self._batch.nvec.shape[1]), np.int64)
        self._width = [len(self._layouts[a].nvec) for a in self._batch.agents]
        self._no_reports = {a: [] for a in self.possible_agents}  # never filled (fast path)
        self._reports = self._no_reports
        self._all_open = None  # ``_all_open``'s compiled entry point (no dispatch per call)
        self._judge: Battle | None = None  # a scratch battle for the verdicts
        self._decoder = event_codes.Decoder(self.battle_setup.unit_ids,
                                            self.battle_setup.weapon_ids,
                                            list(self.scenario.sides), self.scenario.parity)
        self._rows: list[np.ndarray] = []  # event rows since the reset, one array per step
        self._events: list = []  # the decoded events of the first ``_decoded_steps`` steps
        self._decoded_steps = 0
        self._verdict_reads_events = self.scenario.victory["kind"] in tiers.EVENT_VICTORY
        self._joint_check = bool(tiers.JOINT_SPEED_MANEUVER_CHECK
                                 and self.scenario.rules.speed_choice)
        self._shortfall_unit = {a: self._unit[a] for a in self._batch.agents
                                if self._layouts[a].power is not None}  # (B3.0)
        self._stale = False

    # ------------------------------------------------------------------ the reference view

    @property
    def battle(self) -> Battle:
        """The battle as a reference ``Battle`` (rebuilt from the compiled state on demand)."""
        if self._stale:
            self._sync_state()
        if self._decoded_steps < len(self._rows):
            self._sync_events()
        return self._reference

    @battle.setter
    def battle(self, value: Battle) -> None:
        self._reference = value
        self._stale = False

    @property
    def battle_setup(self):
        return self._reference.setup

    def _sync_state(self) -> Battle:
        """The reference view's arrays and verdict from the compiled state (not its events:
        decoding them costs more than a step, so only ``battle`` does it, when asked). The
        victory kinds of the compiled tiers read the state only (``tiers.PORTED_VICTORY``)
        but those of ``tiers.EVENT_VICTORY``, judged at the end on the decoded log."""
        ref = self._reference
        if self._reset_seed is not None:
            ref.reset(self._reset_seed)
            self._reset_seed = None
        st = ref.state
        layout.unpack_into(self._batch.state, 0, st, self._batch.cold)
        st.outcome, st.end_reason = None, ""
        if st.done:
            if self._verdict_reads_events:  # (SCENARIOS #4) the course, from the event log
                st.events = self._events + [
                    e for rows in self._rows[self._decoded_steps:]
                    for e in self._decoder.decode(rows, None, "")]
            st.outcome, st.end_reason = victory.evaluate(ref, st.time_up)
        self._stale = False
        return ref

    def _sync_events(self) -> None:
        """Decode the event rows of the steps not decoded yet (each step's once)."""
        st = self._reference.state
        for rows in self._rows[self._decoded_steps:]:
            self._events.extend(self._decoder.decode(rows, st.outcome, st.end_reason))
        self._decoded_steps = len(self._rows)
        st.events = list(self._events)

    # ------------------------------------------------------------------ API

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is None:
            seed, self._seed = self._seed, None
        if seed is not None:
            self._np_random, self._np_random_seed = None, seed  # made when read (np_random)
        else:
            if self.np_random is None:
                self.np_random = np.random.default_rng()
            seed = int(self.np_random.integers(2**31 - 1))
        self._reset_seed = seed  # the reference view starts over when next asked for
        self._batch.reset([seed])
        st = self._batch.state
        self._clock = (int(st.turn[0]), int(st.impulse[0]), bool(st.done[0]))
        self._rows, self._events, self._decoded_steps = [], [], 0
        self._stale, self._verdict_of = True, -1
        self.agents = [a for a in self.possible_agents if self._batch.alive[0, self._index[a]]]
        self._event_cursor = 0
        self._observe(self.agents)
        return {a: self._obs[a] for a in self.agents}, self._infos(self.agents)

    @property
    def np_random(self) -> np.random.Generator | None:
        """The env's generator (``SFBParallelEnv``'s Seeding), made from the last seeded
        reset's seed when first read: ``default_rng(seed)`` costs about 10 us, a tenth of a
        graduate duel's random game between two resets, and a seeded reset seldom reads it."""
        if self._np_random is None and self._np_random_seed is not None:
            self._np_random = np.random.default_rng(self._np_random_seed)
            self._np_random_seed = None
        return self._np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator | None) -> None:
        self._np_random, self._np_random_seed = value, None

    def step(self, actions: Mapping[str, Any]):
        if not (type(actions) is dict and self._event_cursor is not None
                and self._fast_step(actions)):
            self._refuse_bad_call(actions)
            self._careful_step(actions)
        batch = self._batch
        batch.step(self._actions)
        st = batch.state
        self._clock = (st.turn[0].item(), st.impulse[0].item(), st.done[0].item())
        n_events = st.ev_count[0].item()
        self._rows.append(st.ev[0, :n_events].copy())
        self._stale = True
        previous = self.agents
        index = self._index
        r, te, tr = (batch.rewards[0].tolist(), batch.terminated[0].tolist(),
                     batch.truncated[0].tolist())
        rewards, terminations, truncations = {}, {}, {}
        live = []
        for a in previous:
            i = index[a]
            rewards[a] = r[i]
            terminations[a] = gone = te[i]
            truncations[a] = out = tr[i]
            if not (gone or out):
                live.append(a)
        if self._custom_reward:  # computed in Python on the reference view
            new_events = self.battle.events[self._event_cursor:]
            rewards = {a: float(self.reward_fn(self, a, new_events)) for a in previous}
        self._event_cursor += n_events
        if self._reports is not self._no_reports or self.render_mode == "human":
            return self._finish_step(previous, rewards, terminations, truncations, self._reports)
        self.agents = live  # (SFBParallelEnv._finish_step, inlined for the usual step)
        self._observe(previous)
        obs = self._obs
        return ({a: obs[a] for a in previous}, rewards, terminations, truncations,
                self._infos(previous))

    def _fast_step(self, actions: dict[str, Any]) -> bool:
        """The usual case in one pass: an int64 action of the right shape for every live
        agent (and no other), every component open in its mask, no check that needs the
        reference view. Fills ``_actions``; False (nothing decided: the caller refuses a bad
        call and checks agent by agent) when any of that does not hold."""
        live = self.agents
        if len(actions) != len(live) or self.validate_in_engine or (
                self._joint_check and self._joint_check_due()):
            return False
        acts = self._actions  # (an agent out of play keeps stale values: never decoded)
        index, width = self._index, self._width
        for agent, action in actions.items():
            if agent not in live:
                return False
            i = index[agent]
            if (type(action) is not np.ndarray or action.dtype != np.int64
                    or action.ndim != 1 or action.shape[0] != width[i]):
                return False
            acts[0, i, :width[i]] = action
        args = (acts, self._batch.nvec, self._batch.masks, self._batch.alive)
        if self._all_open is None:
            _all_open(*args)
            self._all_open = handle.compiled_entry(_all_open, args)
        if not self._all_open(*args):
            return False
        self.flown_actions = dict(actions)
        self._reports = self._no_reports
        return True

    def _careful_step(self, actions: Mapping[str, Any]) -> None:
        """The reference env's checks, agent by agent (conversions, illegal components
        refused or replaced by the no-op and reported, the engine's own validation)."""
        self._reports = reports = {a: [] for a in self.agents}
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

    # ------------------------------------------------------------------ helpers

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
        """Observations of ``agents`` from the compiled buffers (one copy of the buffers a
        step, each agent's arrays views of it); the target slots for ``mask_reasons`` and
        orders are read from the reference view when asked."""
        agents = self.agents if agents is None else agents
        obs = self._batch.obs[0].copy()
        masks = self._batch.masks[0].copy()
        index, obs_size, mask_size = self._index, self._obs_size, self._mask_size
        live = self.agents
        self._obs = out = {}
        for a in agents:
            i = index[a]
            out[a] = {"observation": obs[i, :obs_size[i]],
                      "action_mask": (masks[i, :mask_size[i]] if a in live
                                      else np.zeros(mask_size[i], np.int8))}

    @property
    def _slots(self) -> dict[str, np.ndarray]:
        battle = self.battle
        return {a: self._layouts[a].target_slots(battle) for a in self.agents}

    def _info(self, agent: str) -> dict:
        return self._infos([agent])[agent]

    def _infos(self, agents: list[str]) -> dict[str, dict]:
        """Each agent's info: the clock, the energy shortfall (B3.0) and, once the battle
        ended (the batch's done: autoreset is off), its side's outcome."""
        st = self._batch.state
        turn, impulse, done = self._clock
        shortfall = st.energy_shortfall[0].tolist() if self._shortfall_unit else None
        if done:
            outcome, reason = self._verdict()
            side = st.side[0].tolist()
        out = {}
        for agent in agents:
            info: dict[str, Any] = {"turn": turn, "impulse": impulse}
            unit = self._shortfall_unit.get(agent) if shortfall is not None else None
            if unit is not None:  # (B3.0) energy ordered but not paid
                info["energy_shortfall"] = shortfall[unit]
            if done and outcome is not None:
                sides = self.scenario.sides
                info["outcome"] = {**outcome[sides[side[self._unit[agent]]]], "reason": reason}
            out[agent] = info
        return out

    def _verdict(self) -> tuple[dict | None, str]:
        """The ended battle's verdict, judged once per battle on a scratch reference battle
        (its arrays only: the victory kinds of the compiled tiers read nothing else)."""
        if self._verdict_of != len(self._rows) and self._verdict_reads_events:
            st = self.battle.state  # (SCENARIOS #4) judged with the decoded event log
            self._verdict_now = (st.outcome, st.end_reason) if st.done else (None, "")
            self._verdict_of = len(self._rows)
        if self._verdict_of != len(self._rows):
            if not self._stale:
                ref = self._reference
            else:  # the start's cold arrays (no kernel changes them) and views of the hot
                # ones, made once: the kernels write the batch's arrays in place
                first = self._judge is None
                if first:
                    self._judge = self._reference.copy()
                ref = self._judge
                layout.view_into(self._batch.state, 0, ref.state, arrays=first)
            outcome = victory.evaluate(ref, bool(self._batch.state.time_up[0]))
            self._verdict_now = outcome if outcome is not None else (None, "")
            self._verdict_of = len(self._rows)
        return self._verdict_now
