"""The lockstep parity harness: the compiled core against the reference engine, step by step.

``lockstep(scenario, num_battles, steps, seed, policy)`` plays a ``BattleBatch`` of B battles
(autoreset on) beside B reference envs (``SFBParallelEnv``), feeding both the same actions,
and after every step compares, battle by battle: every state array and scalar and the dice
(``layout.differences``), every agent's observation and flat mask, rewards, terminations and
truncations, the decoded events against the reference's new events, and at a battle's end its
verdict and last observations; a reference env whose battle ended is reset with the seed the
batch drew for that slot. The first difference raises ``ParityError`` naming the step, the
battle, the seed and the array. ``policy``: ``"random"`` (uniform masked actions from the
reference masks) or a captain name of ``agents`` (e.g. ``"random-fighter"``, doctrine
captains), bound to each reference env; names separated by commas give each agent its own, in
``possible_agents`` order (e.g. ``"rescuer,rescue-opponent"`` in cth-09).

Used by ``tests/test_compiled_parity.py`` (short runs in CI, the full runs marked slow) and by
``benchmarks/parity.py``; ``Mirror`` follows one reference env that a caller plays (the CI fuzz
runs of ``tests/test_fuzz.py``); ``python -m sfb_env.compiled.parity SCENARIO ...`` runs it alone.
``scenario`` is a name, a YAML path or a scenario mapping; ``with_rules(name, {...})`` (CLI:
``--rules energy=cadet``) is a scenario file with some rules changed, e.g. the cadet Energy
Allocation Form on an 8-impulse duel (``CADET_ENERGY``).
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sfb_env.compiled import ending, event_codes, layout
from sfb_env.compiled.batch import BattleBatch
from sfb_env.data import load_data_file
from sfb_env.engine.scenario import SCENARIO_DIR
from sfb_env.env.parallel import SFBParallelEnv

#: The cadet Energy Allocation Form (B3.0) in place of the Chief Engineer (rules.energy derives
#: chief_engineer: False and the speed choice at Energy Allocation).
CADET_ENERGY: dict[str, Any] = {"energy": "cadet"}


class ParityError(AssertionError):
    """The compiled core and the reference engine disagree (the first difference)."""


@dataclass
class ParityReport:
    """What a lockstep run covered."""

    scenario: str
    battles: int
    steps: int = 0
    episodes: int = 0
    turns_reached: int = 0
    events: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.events.items()))
        return (f"{self.scenario}: B={self.battles}, {self.steps} steps, {self.episodes} "
                f"battles ended, turn {self.turns_reached} reached, no difference; events: "
                f"{kinds}")


def with_rules(scenario: str | Mapping[str, Any], rules: Mapping[str, Any]) -> dict[str, Any]:
    """Scenario ``scenario`` (a name, or a dict from ``variant``) with ``rules`` set over its
    own; an ``energy`` given drops the file's ``chief_engineer`` and ``speed_choice`` unless
    ``rules`` sets them (``rules.load_rules`` derives the one, the form opens the other, B3.0)."""
    doc = variant(scenario, rules) if isinstance(scenario, str) else copy.deepcopy(dict(scenario))
    if not isinstance(scenario, str):
        doc["rules"] = {**doc.get("rules", {}), **rules}
        doc["name"] += "".join(f",{k}={v}" for k, v in rules.items())
    if "energy" in rules:
        for key in ("chief_engineer", "speed_choice"):
            if key not in rules:
                doc["rules"].pop(key, None)
    return doc


def _suicide(env: SFBParallelEnv, unit: str) -> bool:
    """Whether ``unit`` flies as a suicide shuttle (J2.22) in ``env``'s battle."""
    battle = env.battle
    st = battle.state
    u = battle.unit_index.get(unit)
    return bool(u is not None and st.suicide_launched is not None and st.suicide_launched[u])


def _policies(policy: str, envs: list[SFBParallelEnv], seed: int):
    if policy == "random":
        return None
    import agents

    names = policy.split(",")  # one for every agent, or one per agent in order
    out = []
    for e, env in enumerate(envs):
        pilots = {}
        for k, a in enumerate(env.possible_agents):
            p = agents.load_policy(names[k] if len(names) > 1 else policy)
            agents.bind_policy(p, env, a)
            p.reset(seed * 1000 + e * 10 + k)
            pilots[a] = p
        out.append(pilots)
    return out


def variant(scenario: str, rules: Mapping[str, Any] | None = None,
            swap: tuple[str, str, str | None] | None = None, **fields: Any) -> dict:
    """Shipped scenario ``scenario`` (a name of ``configs/scenarios``) as a dict, for parity
    runs of a rule area alone: ``fields`` replaced, ``rules`` merged into its rules (e.g. the
    cadet DAC under the Chief Engineer), and ``swap=(unit, unit_class, side)``: unit ``unit``
    flown in class ``unit_class`` instead, its id and name ``unit_class`` and, if ``side`` is
    given, on that side (renamed in ``sides`` too); e.g. ``swap=("fed-cadet", "hydran-cadet",
    "hydran")`` in ``duel-klingon-vs-federation``. Named ``scenario+change,...``."""
    doc = copy.deepcopy(dict(load_data_file(SCENARIO_DIR / f"{scenario}.yaml")))
    doc["rules"] = {**doc.get("rules", {}), **(rules or {})}
    doc.update(fields)
    changes = [f"{k}={v}" for k, v in {**fields, **(rules or {})}.items()]
    if swap is not None:
        unit, unit_class, side = swap
        spec = next(u for u in doc["units"] if u["id"] == unit)
        old_side = spec["side"]
        spec.update({"id": unit_class, "name": unit_class, "class": unit_class})
        if side is not None:
            spec["side"] = side
            doc["sides"] = [side if s == old_side else s for s in doc["sides"]]
        changes.append(f"{unit}={unit_class}")
    doc["name"] = scenario + "+" + ",".join(changes)
    return doc


def lockstep(scenario: str | Mapping[str, Any], num_battles: int = 1, steps: int = 500,
             seed: int = 0, policy: str = "random", autoreset: bool = True,
             disengage: bool = False, games: int | None = None,
             enemy_fire: bool = False) -> ParityReport:
    """Play both engines in lockstep (see the module docstring); raises ``ParityError``.
    With ``autoreset`` off the batch keeps an ended battle until the harness restarts it, so
    the last step's state is compared too. ``scenario``: a name or a scenario dict
    (``variant``). ``disengage`` False: the random policy never announces disengagement
    (SCENARIOS #5; random play would end most battles on their first impulses). ``games``:
    stop after the step on which that many battles have ended (``steps`` is then the most
    it plays). A scripted captain starts each new battle afresh (``reset``), seeded anew.
    ``enemy_fire``: both envs with that view option (its observation block compared too)."""
    batch = BattleBatch(scenario, num_battles, seed=seed, autoreset=autoreset,
                        enemy_fire=enemy_fire)
    envs = [SFBParallelEnv(scenario, max_turns=batch.setup.max_turns, enemy_fire=enemy_fire)
            for _ in range(num_battles)]
    pilots = _policies(policy, envs, seed)
    for b, env in enumerate(envs):
        for k, a in enumerate(env.possible_agents):
            env.action_space(a).seed(seed * 1000 + b * 10 + k)
    decoder = event_codes.Decoder(batch.setup.unit_ids, batch.setup.weapon_ids,
                                  list(batch.setup.scenario.sides), batch.setup.scenario.parity)
    name = scenario if isinstance(scenario, str) else str(scenario.get("name"))
    report = ParityReport(name, num_battles)
    closed = {a: _announce_index(envs[0], a) for a in envs[0].possible_agents}
    batch.reset()
    obs = []
    for b, env in enumerate(envs):
        o, _ = env.reset(seed=int(batch.seeds[b]))
        obs.append(o)
        _compare_start(batch, b, env, o, f"reset, battle {b}")
    actions = np.zeros((num_battles, len(batch.agents), batch.nvec.shape[1]), np.int64)
    for step in range(1, steps + 1):
        per_env = []
        actions[:] = 0
        for b, env in enumerate(envs):
            chosen = {}
            for a in env.agents:
                if pilots is None:
                    mask = obs[b][a]["action_mask"]
                    if closed[a] >= 0 and not disengage:
                        mask = mask.copy()
                        mask[closed[a]] = 0
                    act = env.action_space(a).sample(mask=mask)
                else:
                    act = pilots[b][a].act(obs[b][a], env.action_space(a))
                chosen[a] = np.asarray(act, dtype=np.int64)
                actions[b, batch.agents.index(a), :len(act)] = chosen[a]
            per_env.append(chosen)
        seeds_before = batch.seeds.copy()
        batch.step(actions)
        for b, env in enumerate(envs):
            where = f"step {step}, battle {b} (seed {seeds_before[b]})"
            n_before = len(env.battle.events)
            o, rew, term, trunc, _ = env.step(per_env[b])
            new = env.battle.events[n_before:]
            _compare_step(batch, b, env, o, rew, term, trunc, new, decoder, where)
            for e in new:
                report.events[e.kind] = report.events.get(e.kind, 0) + 1
                if e.kind == "Moved" and e.slipped:  # (C4.2) sideslips among the moves
                    report.events["Moved(sideslip)"] = report.events.get("Moved(sideslip)",
                                                                         0) + 1
                if e.kind in ("Launched", "SeekingHit") and _suicide(env, e.drone if
                                                                     e.kind == "Launched"
                                                                     else e.unit):
                    key = f"{e.kind}(suicide)"  # (J2.22) the bombs among launches and hits
                    report.events[key] = report.events.get(key, 0) + 1
            report.turns_reached = max(report.turns_reached, env.battle.state.turn)
            if env.battle.done:
                report.episodes += 1
                if pilots is not None:
                    for k, a in enumerate(env.possible_agents):
                        pilots[b][a].reset(seed * 1000 + b * 10 + k + 7919 * report.episodes)
                if not autoreset:
                    batch.restart(b, batch.draw_seed())
                o, _ = env.reset(seed=int(batch.seeds[b]))
                _compare_start(batch, b, env, o, f"{where}, after the autoreset")
            obs[b] = o
        report.steps = step
        if games is not None and report.episodes >= games:
            break
    return report


class Mirror:
    """One compiled battle kept in lockstep with a reference env that its caller plays
    (the fuzz games of ``tests/fuzz_helpers``): after the env's ``reset(seed=...)`` call
    ``start(seed, obs)``, after each ``step(actions)`` call ``follow(actions, ...)`` with the
    env's five results less the infos and the battle's event count before the step. Each
    plays the compiled battle alike and compares it as ``lockstep`` does; the first
    difference raises ``ParityError``. The env keeps its own options (``illegal_action``,
    ``validate_in_engine``); its spaces must be the batch's defaults."""

    def __init__(self, env: SFBParallelEnv) -> None:
        if env.backend != "reference":
            raise ValueError(f"Mirror follows a reference env, not a {env.backend!r} one")
        self.env = env
        self.batch = batch = BattleBatch(env.scenario, 1, seed=0, max_turns=env.max_turns,
                                         autoreset=False)
        for i, a in enumerate(batch.agents):
            nvec = env.action_space(a).nvec
            if not np.array_equal(batch.nvec[i, :len(nvec)], nvec):
                raise ValueError(f"Mirror: {a}'s action space {list(nvec)} is not the "
                                 f"compiled core's {list(batch.nvec[i])} (env options)")
        self.decoder = event_codes.Decoder(batch.setup.unit_ids, batch.setup.weapon_ids,
                                           list(batch.setup.scenario.sides),
                                           batch.setup.scenario.parity)
        self.actions = np.zeros((1, len(batch.agents), batch.nvec.shape[1]), np.int64)
        self.seed = 0
        self.step = 0
        batch.reset()

    def start(self, seed: int, obs: Mapping[str, Any]) -> None:
        """The env was reset with ``seed``: restart the battle with it and compare."""
        self.seed, self.step = int(seed), 0
        self.batch.restart(0, self.seed)
        _compare_start(self.batch, 0, self.env, dict(obs), f"reset (seed {self.seed})")

    def follow(self, actions: Mapping[str, Any], obs: Mapping[str, Any], rewards: Mapping,
               terminations: Mapping, truncations: Mapping, events_before: int) -> None:
        """The env stepped ``actions`` (its battle had ``events_before`` events): step the
        battle with them and compare."""
        self.step += 1
        self.actions[:] = 0
        for a, act in actions.items():
            act = np.asarray(act, dtype=np.int64)
            self.actions[0, self.batch.agents.index(a), :len(act)] = act
        self.batch.step(self.actions)
        new = self.env.battle.events[events_before:]
        _compare_step(self.batch, 0, self.env, dict(obs), rewards, terminations, truncations,
                      new, self.decoder, f"step {self.step} (seed {self.seed})")


def _announce_index(env: SFBParallelEnv, agent: str) -> int:
    """The flat mask index of ``agent``'s "announce" value of ``disengage``, -1 if none."""
    layout_ = env._layouts[agent]
    names = layout_.component_names()
    return int(layout_.offsets[names.index("disengage")]) + 1 if "disengage" in names else -1


def _fail(where: str, what: str) -> None:
    raise ParityError(f"first difference at {where}: {what}")


def _compare_start(batch: BattleBatch, b: int, env: SFBParallelEnv, obs: dict,
                   where: str) -> None:
    diff = layout.differences(batch.state, b, env.battle.state, batch.cold)
    if diff:
        _fail(where, "state " + "; ".join(diff[:3]))
    _compare_obs(batch.obs, batch.masks, batch, b, env, obs, where)


def _compare_obs(obs_buf: np.ndarray, mask_buf: np.ndarray, batch: BattleBatch, b: int,
                 env: SFBParallelEnv, obs: dict, where: str) -> None:
    ot = batch.observe_tables
    for a, o in obs.items():
        i = batch.agents.index(a)
        mine = obs_buf[b, i, :ot.obs_size[i]]
        if not np.array_equal(mine, o["observation"]):
            at = int(np.flatnonzero(mine != o["observation"])[0])
            _fail(where, f"observation of {a} at index {at}: compiled {mine[at]} reference "
                         f"{o['observation'][at]}")
        mask = mask_buf[b, i, :ot.mask_size[i]]
        if not np.array_equal(mask, o["action_mask"]):
            at = int(np.flatnonzero(mask != o["action_mask"])[0])
            _fail(where, f"action mask of {a} at index {at}: compiled {mask[at]} reference "
                         f"{o['action_mask'][at]}")


def _compare_step(batch, b, env, obs, rew, term, trunc, new_events, decoder, where) -> None:
    st = batch.state
    ended = bool(batch.ended[b])
    ref = env.battle
    if ended:
        # the batch already restarted the battle: compare the ending through what it kept
        code = int(batch.outcomes[b])
        results = ending.outcome_results(code, len(ref.scenario.sides))
        want = [ref.outcome[s]["result"] for s in ref.scenario.sides] if ref.done else None
        if want != results:
            _fail(where, f"verdict: compiled {results} reference {want}")
        _compare_obs(batch.terminal_obs, np.zeros_like(batch.masks), batch, b, env, obs, where)
    else:
        if ref.done and not st.done[b]:
            _fail(where, "the reference battle ended, the compiled one goes on")
        diff = layout.differences(st, b, ref.state, batch.cold)
        if diff:
            _fail(where, "state " + "; ".join(diff[:3]))
        if ref.done:
            results = ending.outcome_results(int(st.outcome_code[b]), len(ref.scenario.sides))
            want = [ref.outcome[s]["result"] for s in ref.scenario.sides]
            if want != results:
                _fail(where, f"verdict: compiled {results} reference {want}")
        _compare_obs(batch.obs, batch.masks, batch, b, env, obs, where)
        rows = st.ev[b, :st.ev_count[b]]
        mine = decoder.decode(rows, ref.outcome, ref.end_reason)
        if mine != list(new_events):
            k = next((k for k, (x, y) in enumerate(zip(mine, new_events, strict=False))
                      if x != y), min(len(mine), len(new_events)))
            _fail(where, f"event {k}: compiled {mine[k] if k < len(mine) else None} "
                         f"reference {new_events[k] if k < len(new_events) else None}")
    for a in rew:
        i = batch.agents.index(a)
        got = (float(batch.rewards[b, i]), bool(batch.terminated[b, i]),
               bool(batch.truncated[b, i]))
        if got != (rew[a], term[a], trunc[a]):
            _fail(where, f"{a} reward/terminated/truncated: compiled {got} reference "
                         f"{(rew[a], term[a], trunc[a])}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("scenarios", nargs="+")
    p.add_argument("--battles", type=int, default=1)
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--policy", default="random")
    p.add_argument("--games", type=int, default=None,
                   help="stop once this many battles have ended (--steps is then the cap)")
    p.add_argument("--swap", metavar="UNIT=CLASS[:SIDE]", default=None,
                   help="fly UNIT in CLASS (on side SIDE) instead: a variant of each scenario "
                        "(e.g. fed-cadet=hydran-cadet:hydran)")
    p.add_argument("--rules", nargs="*", default=[], metavar="KEY=VALUE",
                   help="rules set over the scenario file's, e.g. energy=cadet (with_rules)")
    args = p.parse_args(argv)
    import yaml

    rules = {k: yaml.safe_load(v) for k, v in (item.split("=", 1) for item in args.rules)}
    for sc in args.scenarios:
        scenario: str | dict = with_rules(sc, rules) if rules else sc
        if args.swap:
            unit, _, rest = args.swap.partition("=")
            unit_class, _, side = rest.partition(":")
            scenario = variant(sc, swap=(unit, unit_class, side or None))
            if rules:
                scenario = with_rules(scenario, rules)
        print(lockstep(scenario, args.battles, args.steps, args.seed, args.policy,
                       games=args.games).line(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
