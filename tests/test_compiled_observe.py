"""The compiled env side (``sfb_env.compiled.observe``, ``compiled.actions``) against the
reference env, decision point by decision point, on every tier-1 scenario.

The reference env is played with random masked actions and with ``random-fighter`` captains
(which stay on the map and fight); at each decision point its battle state is packed and the
compiled kernels must give, bit for bit, every agent's ``obs["observation"]`` and
``obs["action_mask"]``, ``env.state()``, the orders ``ActionLayout.to_orders`` makes of the
chosen actions (``layout.pack_orders``), and the damage balance of the shaped reward from the
step's ``Damaged`` events (as compiled event rows).
"""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

import agents
import sfb_env
from sfb_env.compiled import event_codes, layout
from sfb_env.compiled import observe as cob
from sfb_env.compiled.actions import decision_point, noop_action
from sfb_env.engine.events import Damaged
from sfb_env.env import reward as reward_mod

# Phase by phase against the reference: the whole-step lockstep parity (test_compiled_parity)
# covers CI; these compile their own kernel variants (minutes cold), so they run with -m slow.
pytestmark = pytest.mark.slow

TIER1 = ["cth-01", "cth-02", "cth-03", "duel-klingon-vs-federation", "duel-klingon-vs-kzinti",
         "duel-klingon-vs-orion", "duel-federation-vs-kzinti", "duel-federation-vs-orion",
         "duel-kzinti-vs-orion"]
STEPS = 150  # decision points per game (a game may end sooner: a duel lasts 49)
GAMES = 6


def _damaged_rows(events, battle) -> np.ndarray:
    """The ``Damaged`` events as compiled event rows (the fields the reward reads)."""
    rows = []
    for e in events:
        if isinstance(e, Damaged):
            row = np.zeros(event_codes.WIDTH, np.int64)
            row[:7] = (event_codes.CODE["Damaged"], e.turn, e.impulse,
                       battle.unit_index[e.unit], e.shield, e.to_shield, e.internal)
            rows.append(row)
    return np.array(rows, np.int64).reshape(-1, event_codes.WIDTH)


class Player:
    """Actions for the live agents: random masked, or random-fighter captains."""

    def __init__(self, env, seed: int, captains: bool) -> None:
        self.env, self.rng, self.captains = env, np.random.default_rng(seed), captains
        self.pilots = {}
        if captains:
            for k, a in enumerate(env.possible_agents):
                self.pilots[a] = agents.make_policy("random-fighter")
                agents.bind_policy(self.pilots[a], env, a)
                self.pilots[a].reset(seed * 10 + k)

    def act(self, obs) -> dict:
        out = {}
        for a in self.env.agents:
            space = self.env.action_space(a)
            if self.captains:
                out[a] = np.asarray(self.pilots[a].act(obs[a], space), np.int64)
            else:
                space.seed(int(self.rng.integers(1 << 31)))
                out[a] = np.asarray(space.sample(mask=obs[a]["action_mask"]), np.int64)
        return out


def play_and_compare(scenario: str, seed: int, captains: bool, steps: int = STEPS,
                     full_state: bool = False, **options) -> dict:
    """Play ``steps`` decision points, comparing at each; returns counts of what was seen.
    ``full_state``: the kernels get the whole ``BatchState`` rather than ``state_view``;
    ``options``: the env's (``uniform_spaces``, ``target_slots``, ...)."""
    env = sfb_env.parallel_env(scenario, **options)
    setup = env.battle.setup
    ot = cob.observe_tables(setup, {"max_turns": env.max_turns, **options})
    names = cob.agent_names(setup)
    assert names == env.possible_agents
    n_units, n_weapons = len(setup.unit_ids), len(setup.weapon_ids)
    width = int(max(len(env.action_space(a).nvec) for a in names))
    player = Player(env, seed, captains)
    obs, _ = env.reset(seed=seed)
    events = []
    seen = {"steps": 0, "fire": 0, "launch": 0, "internal": 0}
    for _ in range(steps + 1):
        battle = env.battle
        s = layout.pack([battle.state])
        s = s if full_state else cob.state_view(s)
        rows = _damaged_rows(events, battle)
        s.ev[0, :len(rows)] = rows
        s.ev_count[0] = len(rows)
        actions = player.act(obs) if env.agents else {}
        act = np.zeros((len(names), width), np.int64)
        for a, name in enumerate(names):
            if name in actions:
                act[a, :len(actions[name])] = actions[name]
        live = np.array([n in env.agents for n in names])
        out_obs = np.full((len(names), int(ot.obs_size.max())), np.nan, np.float32)
        out_mask = np.full((len(names), int(ot.mask_size.max())), 7, np.int8)
        state = np.zeros(n_units * cob.STATE_ROW + 2, np.float32)
        orders = layout.empty_orders(1, n_units, n_weapons)
        balance = np.zeros(len(names))
        decision_point(s, ot, 0, live, act, out_obs, out_mask, state, orders, balance)
        where = f"{scenario} seed {seed} turn {battle.state.turn} impulse {battle.state.impulse}"
        for a, name in enumerate(names):
            if name not in obs:
                continue
            ref_obs, ref_mask = obs[name]["observation"], obs[name]["action_mask"]
            mine = out_obs[a, :ot.obs_size[a]]
            assert mine.dtype == ref_obs.dtype and np.array_equal(mine, ref_obs), (
                f"{where} {name} observation differs at {np.flatnonzero(mine != ref_obs)}")
            assert np.array_equal(out_mask[a, :ot.mask_size[a]], ref_mask), (
                f"{where} {name} mask differs at "
                f"{np.flatnonzero(out_mask[a, :ot.mask_size[a]] != ref_mask)}")
            if events:  # the reward of the step that led here
                assert balance[a] == reward_mod.damage_balance(env, name, events), where
        assert np.array_equal(state, env.state()), f"{where} state()"
        if not env.agents:
            break
        for a, name in enumerate(names):
            if name in env.agents:
                noop = np.zeros(len(env.action_space(name).nvec), np.int64)
                noop_action(s, ot, 0, a, noop)
                assert np.array_equal(noop, env._layouts[name].noop(battle)), f"{where} noop"
        ref = {}
        for name, action in actions.items():
            lay_ = env._layouts[name]
            ref[lay_.unit] = lay_.to_orders(battle, action, env._slots[name])
            seen["fire"] += len(ref[lay_.unit].fire)
            seen["launch"] += len(ref[lay_.unit].launch)
        ref_orders = layout.pack_orders([ref], n_units, n_weapons)
        for field in layout.ORDER_FIELDS:
            assert np.array_equal(getattr(orders, field), getattr(ref_orders, field)), (
                f"{where} orders.{field}: compiled {getattr(orders, field)} "
                f"reference {getattr(ref_orders, field)}")
        n_before = len(battle.events)
        obs, *_ = env.step(actions)
        events = battle.events[n_before:]
        seen["internal"] += sum(e.internal for e in events if isinstance(e, Damaged))
        seen["steps"] += 1
    return seen


@pytest.mark.parametrize("scenario", TIER1)
def test_observation_mask_state_orders_and_damage_balance_match_the_env(scenario):
    totals = {"steps": 0, "fire": 0, "launch": 0, "internal": 0}
    for seed in range(GAMES):  # random-fighter captains, every third game random masked
        captains = seed % 3 != 2
        seen = play_and_compare(scenario, seed, captains)
        totals = {k: totals[k] + seen[k] for k in totals}
    assert totals["steps"] >= (60 if scenario in ("cth-01", "cth-02") else 200)
    assert totals["fire"] > 0  # the comparison covered fire orders


def test_uniform_spaces_and_other_slot_counts_match_the_env():
    """Padded layouts (``uniform_spaces``: the Federation's missing racks and sixth weapon are
    -1 rows) and fewer target and threat slots than the defaults."""
    for seed in range(2):
        play_and_compare("duel-federation-vs-kzinti", seed, True, uniform_spaces=True)
        play_and_compare("duel-kzinti-vs-orion", seed, True, target_slots=3, threat_slots=2)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["cth-02", "duel-klingon-vs-kzinti"])
def test_the_kernels_take_the_whole_batch_state(scenario):
    """As the step kernel will call them: with the whole ``BatchState`` (a long compile)."""
    play_and_compare(scenario, 0, True, full_state=True)


def test_some_games_launch_drones_and_score_internal_damage():
    """The comparison above covers launches and the damage balance, not only empty steps."""
    seen = play_and_compare("duel-klingon-vs-kzinti", 3, True, steps=300)
    assert seen["launch"] > 0 and seen["internal"] > 0


def test_numba_sin_cos_equal_numpy_on_every_bearing_of_the_map():
    """The bearings take numpy's arctan2 from the tables and numba's sin and cos: on this
    machine these equal numpy's for every pair of hexes and facing the printed map allows."""
    env = sfb_env.parallel_env("cth-03")
    ot = cob.observe_tables(env.battle.setup)
    theta = (ot.atan2[:, :, None] - np.arange(6) * (np.pi / 3)).ravel()
    mine_sin, mine_cos = _sin_cos(theta)
    assert np.array_equal(mine_sin, np.sin(theta)) and np.array_equal(mine_cos, np.cos(theta))


def test_bearing_table_holds_numpys_arctan2_of_every_pair_of_hex_centres():
    """``atan2[dx + DX, atan2_b[k_o, k_u]]`` is, bit for bit, what the reference's
    ``np.arctan2(ox - ux, -(oy - uy))`` gives for every pair of printed-map hex centres
    (``k = 2 z + x``; ``oy = sqrt(3) k / 2``)."""
    env = sfb_env.parallel_env("duel-klingon-vs-federation")
    ot = cob.observe_tables(env.battle.setup)
    ks = np.arange(ot.atan2_b.shape[0]) + ot.atan2_k0
    dx = np.arange(-ot.atan2_dx, ot.atan2_dx + 1)
    oy = np.sqrt(3.0) * (ks / 2.0)
    want = np.arctan2((1.5 * dx)[:, None, None], -(oy[None, :, None] - oy[None, None, :]))
    got = ot.atan2[:, ot.atan2_b.astype(np.int64)]
    assert got.shape == want.shape and np.array_equal(got.view(np.int64), want.view(np.int64))
    assert ot.atan2.nbytes < 256 * 1024  # (the point of the index: it fits the L2 cache)


@nb.njit
def _sin_cos(theta):
    s = np.empty_like(theta)
    c = np.empty_like(theta)
    for i in range(theta.size):
        s[i] = np.sin(theta[i])
        c[i] = np.cos(theta[i])
    return s, c


def test_tables_refuse_a_scenario_outside_tier_one():
    env = sfb_env.parallel_env("cth-10")
    with pytest.raises(NotImplementedError, match="compiled observe"):
        cob.observe_tables(env.battle.setup)
