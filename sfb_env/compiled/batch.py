"""``BattleBatch``: B battles of one scenario stepped by two compiled calls per impulse.

One ``step(actions)`` runs, for every battle, the orders' decoding, the Sequence of Play up to
the next decision point (``compiled.procedure``), the rewards, terminations and truncations
(the play kernel, ``_play_batch``), then (the step kernel, ``_step_batch``) the autoreset of
a battle that ended (its dice prepared beforehand; the kernel then draws the seed after it
from the batch's seed generator and seeds its dice, ``dice.seed_into``, as
``default_rng(seed)`` would) and every agent's observation and flat mask, written into
preallocated buffers. Framework-free numpy API (the PettingZoo env, the SB3 vector env and the
benchmarks sit on it):

* ``reset() -> obs (B, A, n) float32, masks (B, A, m) int8``;
* ``step(actions (B, A, k) int64) -> obs, masks, rewards (B, A), terminated (B, A),
  truncated (B, A)``; ``ended`` (B,) says which battles ended in that step (their last
  observation is in ``terminal_obs``, their verdict in ``outcomes``) and were replaced;
* ``sample_actions(rng) -> (B, A, k)`` random masked actions (vectorised).

Agents are the scenario's ``possible_agents`` in order (every battle has the same). An agent
whose ship left the battle (or whose battle ended) is not ``alive``: it is still observed, its
mask is all 0 (as the reference env reports a departed agent's last step); a vector env turns
that into its black-dead convention with ``dead_masks``.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np

from sfb_env.compiled import actions as actions_mod
from sfb_env.compiled import dice as dice_mod
from sfb_env.compiled import handle, layout, observe, procedure, restart_plan, rewards
from sfb_env.compiled.borrowed import opaque
from sfb_env.compiled.copy_battle import (
    borrowed_esg,
    borrowed_fire,
    borrowed_move,
    borrowed_observe,
    borrowed_orders,
    borrowed_state,
)
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.sampler import MaskedSampler, sample_masked
from sfb_env.engine import make_battle
from sfb_env.engine.battle import Battle
from sfb_env.engine.scenario import Scenario, load_scenario
from sfb_env.engine.types import NOT_ARRIVED

SEED_RANGE = 2**31 - 1
STEP, RESET, RESTART, FINISH = 0, 1, 2, 3  # the step kernel's modes (``_step_batch``)
StartObservation = namedtuple("StartObservation", "obs masks alive known")
StartObservation.__doc__ = """Every battle's first observation (A, n_obs), masks (A, n_mask)
and alive (A,), and whether ``reset`` has written them yet (``known``, one bool)."""


class NotCompiledError(ValueError):
    """A scenario that uses a rule the compiled core has not ported (``compiled.tiers``)."""


def build_reference(scenario: str | Path | Mapping[str, Any] | Scenario,
                    max_turns: int | None = None) -> Battle:
    """The reference battle whose setup a batch plays (refuses scenarios outside the tiers)."""
    from sfb_env.compiled import tiers
    from sfb_env.env.parallel import DEFAULT_MAX_TURNS

    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    battle = make_battle(sc, max_turns=max_turns or sc.turn_limit or DEFAULT_MAX_TURNS)
    why = tiers.why_not(battle.setup)
    if why is not None:
        raise NotCompiledError(f"scenario {sc.name!r} is not on the compiled core: {why}")
    return battle


class BattleBatch:
    """B battles of ``scenario`` (see the module docstring)."""

    def __init__(self, scenario: str | Path | Mapping[str, Any] | Scenario,
                 num_battles: int = 1, seed: int | None = None, max_turns: int | None = None,
                 target_slots: int = 8, threat_slots: int = 4, reward: object = "shaped",
                 uniform_spaces: bool = False, autoreset: bool = True,
                 event_capacity: int = 64, enemy_fire: bool = False) -> None:
        if num_battles < 1:
            raise ValueError(f"num_battles must be >= 1, got {num_battles}")
        self.reference = build_reference(scenario, max_turns)
        setup = self.reference.setup
        self.setup = setup
        self.num_battles = n_b = num_battles
        self.reward_kind = rewards.reward_kind(reward)
        self.autoreset = autoreset
        options = {"target_slots": target_slots, "threat_slots": threat_slots,
                   "max_turns": setup.max_turns, "uniform_spaces": uniform_spaces,
                   "enemy_fire": enemy_fire}
        try:
            self.observe_tables = observe.observe_tables(setup, options)
        except NotImplementedError as exc:
            raise NotCompiledError(f"scenario {setup.scenario.name!r}: {exc}") from exc
        ot = self.observe_tables
        try:
            self.tables = procedure.step_tables(setup, ot)
        except NotImplementedError as exc:
            raise NotCompiledError(f"scenario {setup.scenario.name!r}: {exc}") from exc
        self.agents = observe.agent_names(setup)
        self.agent_units = np.asarray(ot.agent_unit, dtype=np.int64)
        layouts = observe._layouts(self.reference, target_slots, uniform_spaces, enemy_fire)
        width = max(len(layouts[a].nvec) for a in self.agents)
        self.nvec = np.zeros((len(self.agents), width), np.int64)  # (A, k), 0-padded
        for i, a in enumerate(self.agents):
            self.nvec[i, :len(layouts[a].nvec)] = layouts[a].nvec
        self.n_obs, self.n_mask = int(max(ot.obs_size)), int(max(ot.mask_size))
        self.ships_per_battle = sum(1 for c in setup.ship_classes if c is not None)
        n_a = len(self.agents)
        start = self.reference.copy()
        start.reset(None)
        self._start = layout.pack([start.state], event_capacity)
        self.state = layout.pack([start.state] * n_b, event_capacity)
        self.cold = layout.pack_cold([start.state] * n_b)  # never changed by a kernel
        self.orders = layout.empty_orders(n_b, len(setup.unit_ids), len(setup.weapon_ids),
                                          self.tables.energy.engineering,
                                          int(ot.tr_width),  # (G7.0) tractor orders
                                          int(ot.tp_width))  # (G8.0) transporter orders
        self.obs = np.zeros((n_b, n_a, self.n_obs), np.float32)
        self.masks = np.zeros((n_b, n_a, self.n_mask), np.int8)
        self.terminal_obs = np.zeros_like(self.obs)
        self.rewards = np.zeros((n_b, n_a), np.float64)
        self.terminated = np.zeros((n_b, n_a), np.bool_)
        self.truncated = np.zeros((n_b, n_a), np.bool_)
        self.alive = np.zeros((n_b, n_a), np.bool_)
        # every battle's first observation, the same (the start state; no die is observed):
        # kept by ``reset``, copied by the autoreset (``_step_batch``)
        self._start_obs = StartObservation(np.zeros((n_a, self.n_obs), np.float32),
                                           np.zeros((n_a, self.n_mask), np.int8),
                                           np.zeros(n_a, np.bool_), np.zeros(1, np.bool_))
        self.ended = np.zeros(n_b, np.bool_)
        self.outcomes = np.full(n_b, -1, np.int64)
        self.reset_dice = np.zeros((n_b, dice_mod.DICE_WORDS), np.uint64)
        self.seeds = np.zeros(n_b, np.int64)
        # the batch's seed generator, default_rng(seed), as a dice row: the step kernel draws
        # the next battle's seed from it when one ends (``reseed`` restarts it)
        self._seed_dice = np.zeros((1, dice_mod.DICE_WORDS), np.uint64)
        # the autoreset's copy (``_restart``): every hot and scalar array from the start
        # state's one battle, the dice from ``reset_dice``'s row of the battle
        self._restart_rows = restart_plan.plan(
            [(getattr(self.state, f), getattr(self._start, f))
             for f in layout.HOT_FIELDS + layout.SCALAR_FIELDS]
            + [(self.state.dice, self.reset_dice)])
        self.reseed(seed)
        self._next_seeds = np.zeros(n_b, np.int64)
        self._handle = None  # the step's arrays in one handle (``compiled.handle``)
        self._calls = None  # (and the play kernel's calls' arguments: ``procedure.call_args``)
        self._entry = None  # the step kernel's compiled entry point for these argument types
        self._extras_entry = None  # (and ``_observe_extras``'s)
        self._play_entry = None  # (and ``_play_batch``'s)
        self._extras = any(observe.has_extras.py_func(ot, a) for a in range(n_a))
        self._no_actions = np.zeros((n_b, n_a, width), np.int64)  # (RESET and RESTART)
        self._sampler: MaskedSampler | None = None  # made on first use
        self._outputs = (self.obs, self.masks, self.rewards, self.terminated, self.truncated)

    @staticmethod
    def agents_of(scenario: str | Path | Mapping[str, Any] | Scenario) -> list[str]:
        """The agents a batch of ``scenario`` would have (no kernel built)."""
        return observe.agent_names(build_reference(scenario).setup)

    # ------------------------------------------------------------------ seeds

    def draw_seed(self) -> int:
        """The next battle seed from the batch's generator."""
        return int(_draw_seed(self._seed_dice))

    def reseed(self, seed: int | None) -> None:
        """The batch's seed generator restarted as ``default_rng(seed)`` (written in place: the
        step kernel's handle holds the array)."""
        self._seed_dice[0] = dice_mod.dice_row(np.random.default_rng(seed))

    def _prepare(self, rows: np.ndarray) -> None:
        """Draw the next battle's seed and dice for the battles ``rows``."""
        for b in rows:
            s = self.draw_seed()
            self._next_seeds[b] = s
            dice_mod.seed_into(self.reset_dice, int(b), s)

    # ------------------------------------------------------------------ API

    def reset(self, seeds: list[int] | np.ndarray | None = None):
        """Every battle from the start; battle b's dice are ``default_rng(seeds[b])`` (drawn
        from the batch's generator when None)."""
        n_b = self.num_battles
        if seeds is None:
            seeds = [self.draw_seed() for _ in range(n_b)]
        if len(seeds) != n_b:
            raise ValueError(f"reset needs {n_b} seeds, got {len(seeds)}")
        for b, s in enumerate(seeds):
            self._seed_row(b, int(s))
        self._call(RESET)
        start = self._start_obs  # (battle 0's first observation is every battle's, and the
        if not start.known[0]:  # same at every reset: kept once)
            start.obs[:], start.masks[:] = self.obs[0], self.masks[0]
            start.alive[:] = self.alive[0]
            start.known[0] = True
        if self.autoreset:  # (without it, the caller restarts ended battles)
            self._prepare(np.arange(n_b))
        return self.obs, self.masks

    def restart(self, b: int, seed: int) -> None:
        """Battle ``b`` from the start with the dice of ``default_rng(seed)`` (without
        autoreset, the caller restarts ended battles)."""
        self._seed_row(b, int(seed))
        self._call(RESTART, b)
        if self.autoreset:
            self._prepare(np.array([b]))

    def _seed_row(self, b: int, seed: int) -> None:
        """Battle ``b``'s seed and its dice, ``default_rng(seed)``: compiled (``seed_into``,
        the autoreset's) for the seeds it takes, numpy's seeding for any other."""
        self.seeds[b] = seed
        if 0 <= seed < 2**63:
            dice_mod.seed_into(self.reset_dice, b, seed)
        else:
            self.reset_dice[b] = dice_mod.seeded_row(seed)

    def step(self, actions: np.ndarray):
        """One impulse of every battle (see the module docstring)."""
        if type(actions) is not np.ndarray or actions.dtype != np.int64 or not (
                actions.flags.c_contiguous):
            actions = np.ascontiguousarray(actions, dtype=np.int64)
        self._call(STEP, 0, actions)
        return self._outputs  # (one tuple, made once: no allocation for the GC to count)

    def _call(self, mode: int, only: int = 0, actions: np.ndarray | None = None) -> None:
        """The step kernel in ``mode`` (STEP, RESET, RESTART of battle ``only``): one kernel
        for all three, so ``observe`` is compiled once (``_step_batch``), after the play
        kernel in STEP (``_play_batch``: the orders and the impulse); where an agent has
        tier-2 parts (``observe.has_extras``), their pass (``_observe_extras``), then the
        autoresets it deferred (FINISH: the ended battles' last observations are whole
        before they restart)."""
        if actions is None:
            actions = self._no_actions
        if mode == STEP:
            self._play(actions)
        if self._entry is None:
            self.handle()
            args = (self._handle, self.autoreset, mode, only, self._extras)
            n_ended = _step_batch(*args)
            self._entry = handle.compiled_entry(_step_batch, args)
        else:  # the compiled function itself: numba's dispatch (~25 us) is skipped
            n_ended = self._entry(self._handle, self.autoreset, mode, only, self._extras)
        if self._extras:
            self._observe_extras(mode, only, n_ended)

    def _play(self, actions: np.ndarray) -> None:
        """STEP's first half, ``_play_batch``: every battle's orders decoded and its impulse
        played, its rewards and ends."""
        if self._play_entry is None:
            self.handle()
            args = (self._handle, self._calls, actions, self.reward_kind)
            _play_batch(*args)
            self._play_entry = handle.compiled_entry(_play_batch, args)
        else:
            self._play_entry(self._handle, self._calls, actions, self.reward_kind)

    def _observe_extras(self, mode: int, only: int, n_ended: int) -> None:
        """The tier-2 pass after ``_step_batch`` in ``mode``, and the deferred autoresets (of
        the ``n_ended`` battles that ended in STEP)."""
        n_b = self.num_battles
        first, last = (only, only + 1) if mode == RESTART else (0, n_b)
        args = (self._handle, first, last, False)
        if self._extras_entry is None:
            _observe_extras(*args)
            self._extras_entry = handle.compiled_entry(_observe_extras, args)
        else:
            self._extras_entry(*args)
        if mode == STEP and self.autoreset and n_ended:
            self._entry(self._handle, self.autoreset, FINISH, 0, True)
            if not self._start_obs.known[0]:  # (no reset yet: the new battles were observed)
                self._extras_entry(self._handle, 0, n_b, True)

    def _parts(self) -> tuple:
        """The batch's arrays, as the handle holds them."""
        return (self.state, self.orders, self.tables, self.observe_tables, self._start,
                self.reset_dice, self.obs, self.masks, self.terminal_obs, self.rewards,
                self.terminated, self.truncated, self.alive, self.ended, self.outcomes,
                self.seeds, self._next_seeds, self._seed_dice, self._restart_rows,
                self._start_obs)

    def handle(self):
        """The batch's arrays in one handle (``compiled.handle.Handle``), made on first use."""
        if self._handle is None:
            self._handle = handle.make(self._parts())
            self._calls = handle.make(self._call_args())
        return self._handle

    def _call_args(self):
        """The arguments of the play kernel's calls out of line, written once into a handle
        of their own (``procedure.held_calls``: the kernel passes each call one address)."""
        return procedure.boxed_call_args(self.state, self.tables, self.orders)

    def compile_step_kernel(self) -> None:
        """Compile (or load from the cache) the step kernel (``_step_batch``: observation,
        resets) for this batch's types without making its handle or stepping: a process may
        compile the tier-2 pass or the play kernel meanwhile (every batch's parts have the
        same types). The first step then finds
        the kernel ready."""
        ref = handle.PartsRef(nb.typeof(self._parts()))
        _step_batch.compile((ref, nb.typeof(self.autoreset), nb.int64, nb.int64,
                             nb.typeof(self._extras)))

    def compile_play_kernel(self) -> None:
        """Compile (or load) the play kernel (``_play_batch``: the orders and the impulse), as
        ``compile_step_kernel``: a kernel of its own, so two processes (the suite's xdist
        workers) may build the two at once."""
        ref = handle.PartsRef(nb.typeof(self._parts()))
        calls = handle.PartsRef(nb.typeof(self._call_args()))
        _play_batch.compile((ref, calls, nb.typeof(self._no_actions),
                             nb.typeof(self.reward_kind)))

    def compile_extras_kernel(self) -> None:
        """Compile (or load) the tier-2 pass (``_observe_extras``), as
        ``compile_step_kernel``; every batch's handle has the same types, so one build serves
        every scenario with tier-2 parts."""
        _observe_extras.compile((handle.PartsRef(nb.typeof(self._parts())), nb.int64, nb.int64,
                                 nb.boolean))

    def sample_actions(self, rng: np.random.Generator, out: np.ndarray | None = None
                       ) -> np.ndarray:
        """Random masked actions (B, A, k): per component a uniform open value (into ``out``
        when given: a loop that samples every step need not allocate)."""
        if self._sampler is None:
            self._sampler = MaskedSampler(self.masks, self.nvec)
        return self._sampler.sample(rng, out)

    # ------------------------------------------------------------------ reference views

    def to_battle(self, b: int = 0) -> Battle:
        """Battle ``b`` as a reference ``Battle`` (state, dice; events of this step only)."""
        battle = self.reference.copy()
        layout.unpack_into(self.state, b, battle.state, self.cold)
        battle.state.seed = int(self.seeds[b])
        return battle


@nb.njit(cache=True, inline="always")
def _copy_start(start, b, obs, masks, alive):
    """Battle ``b``'s observation, masks and alive flags from the start observation (a copy of
    some 3 kB: observing it again, tier-2 parts included, cost about 0.9 us a battle of
    grad-lyran-vs-hydran, and random battles restart every ten impulses). Loops: a row
    assignment needs the NRT."""
    for a in range(start.obs.shape[0]):
        alive[b, a] = start.alive[a]
        for i in range(start.obs.shape[1]):
            obs[b, a, i] = start.obs[a, i]
        for i in range(start.masks.shape[1]):
            masks[b, a, i] = start.masks[a, i]


@nb.njit(cache=True, inline="always")
def _observe_battle(s, ot, b, obs, masks, alive):
    """Every agent's observation but its tier-2 parts (``_observe_extras`` adds them); a ship
    that left is still observed, as the reference env does for its last step; the mask of an
    agent out of play, or of an ended battle, is 0."""
    for a in range(ot.n_agents):
        u = ot.agent_unit[a]
        alive[b, a] = procedure.commanded(s, b, u) and not s.done[b]
        observe.observe(s, ot, b, a, alive[b, a], obs[b, a], masks[b, a])


@kernel(_nrt=False, error_model="numpy")
def _observe_extras(ref, first, last, ended_only):
    """``observe.extras`` of every agent that has one in battles ``first`` to ``last - 1``
    (those that ``ended`` only, if ``ended_only``), after ``_observe_battle``, on the arrays
    of ``ref`` (``handle.PartsRef``: one word, as ``_step_batch`` takes them; the typed list
    itself cost a microsecond a call to unbox). Apart from ``_step_batch``: a call there with
    every array of ``s`` and ``ot`` kept them all live in its loop, and the tier-1 observe
    ran some 50% slower. The agent loop's ``a`` is ``opaque`` too: as a plain induction
    variable LLVM kept a pointer into each of ``ot``'s per-agent arrays that the pass reads,
    spilled and advanced, and the pass took 0.74 us a battle, not 0.41 (grad-lyran-vs-hydran)."""
    (s, _, _, ot, _, _, obs, masks, _, _, _, _, alive, ended, _, _, _, _, _, _) = (
        handle.deref(ref))
    s = borrowed_state(s)
    ot = borrowed_observe(ot)
    for i_b in range(first, last):
        b = opaque(i_b)
        if ended_only and not ended[b]:
            continue
        for i_a in range(ot.n_agents):
            a = opaque(i_a)
            if observe.has_extras(ot, a):
                observe.extras(s, ot, b, a, alive[b, a], obs[b, a], masks[b, a])
                if (ot.arrivals and alive[b, a]
                        and s.status[b, ot.agent_unit[a]] == NOT_ARRIVED):  # the no-op only
                    actions_mod.noop_mask(s, ot, b, a, masks[b, a])


def dead_masks(nvec: np.ndarray, n_mask: int) -> np.ndarray:
    """(A, m) int8: value 0 of each component open (a black-dead agent's mask in a vector
    env, where every action must stay legal until its battle resets)."""
    out = np.zeros((nvec.shape[0], n_mask), np.int8)
    for a, sizes in enumerate(nvec):
        starts = np.concatenate([[0], np.cumsum(sizes[sizes > 0])[:-1]])
        out[a, starts] = 1
    return out


@kernel(_nrt=False, error_model="numpy")
def _draw_seed(seed_dice):
    """``default_rng(seed).integers(SEED_RANGE)`` from the batch's seed generator row."""
    return dice_mod.roll(seed_dice, 0, 0, SEED_RANGE)


@kernel(_nrt=False, error_model="numpy")
def _restart(ref, b):
    """Battle ``b`` back to the start with its prepared dice (its events stay: they are the
    ended battle's last step), on the arrays of ``ref`` (``handle.PartsRef``): the batch's
    ``restart_plan`` (a loop of word moves; the generated element loops of ``copy_battle``
    were 65 kB of code, fetched again at each restart). A call of its own, taking one word:
    called with the state and the start state, it was passed every array of both
    namedtuples (some two thousand machine words)."""
    (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rows, _) = handle.deref(ref)
    restart_plan.copy_rows(rows, b)


# ``outcomes`` between the play kernel and the step kernel: a battle that ended before this
# step (autoreset off: not played, not observed); inside the play kernel, one that ended in a
# stage of ``advance`` (no later stage)
_STAYS, _STOPPED = -2, -3


@kernel(_nrt=False, error_model="numpy")
def _play_batch(ref, calls, actions, reward_kind):
    """STEP's first half (``_step_batch`` observes after it): every battle's orders decoded
    from ``actions``, its impulse played (``procedure.advance``) and its rewards and ends.
    Each part runs for every battle before the next part (the decoding, each stage of
    ``advance``, the rewards): a part's code then stays in the instruction cache from one
    battle to the next (the whole impulse's is several times that cache: a loop over battles
    running all of it fetched it again for each battle). A kernel of its own, apart from the
    observation's: two processes may compile the two at once, and neither is linked into the
    other (numba optimises a callee again inside its caller). ``outcomes`` marks the battles
    out of the later parts meanwhile."""
    (s, o, tb, ot, _, _, _, _, _, rewards_, terminated, truncated, alive, ended, outcomes, _,
     _, _, _, _) = handle.deref(ref)
    # borrowed views, made once: the per-battle calls below take whole namedtuples, and numba
    # increfs and decrefs every array of one per call (atomics) unless it is borrowed
    s = borrowed_state(s)
    o = borrowed_orders(o)
    ot = borrowed_observe(ot)
    tb = procedure.StepTables(borrowed_move(tb.move), borrowed_fire(tb.fire), tb.end,
                              borrowed_observe(tb.observe), tb.launch_seeking,
                              tb.seeking_weapons, tb.plasma, tb.energy, tb.ppd,
                              borrowed_esg(tb.esg), tb.cloak, tb.craft, tb.robot, tb.tractor,
                              tb.transport, tb.boarding, tb.suicide, tb.monster)
    pc = procedure.held_calls(calls)  # the calls out of line take one word each
    n_agents = ot.n_agents
    n_b = s.turn.shape[0]
    for i_b in range(n_b):
        b = opaque(i_b)  # (no pointer per array kept across battles: ``opaque``)
        s.ev_count[b] = 0
        ended[b] = False
        outcomes[b] = -1
        procedure.clear_orders(o, b)
        if s.done[b]:  # (autoreset off) an ended battle stays as it is
            outcomes[b] = _STAYS
            continue
        for a in range(n_agents):
            if alive[b, a]:
                actions_mod.decode_action(s, ot, b, a, actions[b, a], o)
    for stage in range(procedure.ALL_STAGES):  # (``procedure.advance``, a loop per stage)
        for i_b in range(n_b):
            b = opaque(i_b)
            if outcomes[b] == -1 and not procedure.advance_stage(s, tb, b, o, stage, pc):
                outcomes[b] = _STOPPED  # (the battle ended: no later stage)
    for i_b in range(n_b):
        b = opaque(i_b)
        if outcomes[b] == _STAYS:
            continue
        outcomes[b] = -1
        for a in range(n_agents):
            u = ot.agent_unit[a]
            if not alive[b, a]:
                rewards_[b, a] = 0.0
                terminated[b, a] = True
                truncated[b, a] = False
                continue
            gone = not procedure.commanded(s, b, u)
            truncated[b, a] = s.done[b] and s.time_up[b] and not gone
            terminated[b, a] = gone or (s.done[b] and not truncated[b, a])
            rewards_[b, a] = rewards.reward(s, b, u, reward_kind)


@kernel(_nrt=False, error_model="numpy")
def _step_batch(ref, autoreset, mode, only, defer):
    """STEP: every battle's observation after its impulse (``_play_batch``, which the caller
    ran first) and its autoreset; RESET: every battle from the start; RESTART: battle
    ``only`` from the start (a restart's dice are ``reset_dice``'s; its events are cleared).
    ``ref``: the batch's arrays (``handle.PartsRef``). With ``defer`` (tier-2 parts:
    ``BattleBatch._call``), an ended battle is not restarted in STEP but in FINISH, after the
    caller completed its last observation.
    ``_observe_battle`` (``observe``, the largest body) is inlined at one site only: the
    compile time of this kernel is mostly that. Returns how many battles ended in STEP (the
    caller then needs no ``ended.any()``, a microsecond of numpy per step)."""
    (s, _, _, ot, _, reset_dice, obs, masks, terminal_obs, _, _, _, alive, ended, outcomes,
     seeds, next_seeds, seed_dice, _, start) = handle.deref(ref)
    s = borrowed_state(s)
    ot = borrowed_observe(ot)
    n_agents = ot.n_agents
    n_b = s.turn.shape[0]
    n_ended = 0
    for i_b in range(n_b):
        b = opaque(i_b)
        again = False  # STEP: the battle ended, its last observation first
        restart = fresh = False  # from the start before observing: RESET and RESTART, or
        if mode == STEP:  # the next battle of an autoreset (``fresh``: kept, reseeded)
            if outcomes[b] == _STAYS:
                outcomes[b] = -1
                continue
            again = s.done[b] and autoreset
        elif mode == FINISH:  # (deferred autoreset) the ended battle's next one
            if not ended[b]:
                continue
            restart = fresh = True
        else:
            if mode == RESTART and b != only:
                continue
            restart = True
        while True:  # (one site each: the restart, then the observation)
            copied = False
            if restart:
                restart = False
                if fresh:  # the ended battle's last observation kept in ``terminal_obs``
                    for a in range(n_agents):  # (a loop: an array assignment needs the NRT)
                        for i in range(obs.shape[2]):
                            terminal_obs[b, a, i] = obs[b, a, i]
                _restart(ref, b)
                if fresh:  # the seed and dice after it drawn in battle order (``_prepare``)
                    seeds[b] = next_seeds[b]
                    next_seeds[b] = _draw_seed(seed_dice)
                    dice_mod.seed_into(reset_dice, b, next_seeds[b])
                else:
                    s.ev_count[b] = 0
                copied = fresh and start.known[0]
            if copied:  # an autoreset's new battle: the start observation (``reset`` kept it)
                _copy_start(start, b, obs, masks, alive)
            else:
                _observe_battle(s, ot, b, obs, masks, alive)
            if not again:
                break
            again = False
            ended[b] = True
            n_ended += 1
            outcomes[b] = s.outcome_code[b]
            if defer:  # (FINISH restarts it)
                break
            restart = fresh = True
    return n_ended


__all__ = ["BattleBatch", "NotCompiledError", "build_reference", "sample_masked"]
