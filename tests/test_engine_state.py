"""The engine's data model (issue 10): a frozen ``BattleSetup``, a ``BattleState`` that holds
everything that changes (the dice included) and copies into an independent battle, ``Rules``
as the only way to ask whether a rule is on, and a ``Battle`` no other module writes."""

from __future__ import annotations

import ast
import copy
import dataclasses
from pathlib import Path

import numpy as np
import pytest
from engine_helpers import random_orders

from sfb_env.engine import battle as battle_module
from sfb_env.engine import make_battle
from sfb_env.engine.events import event_to_dict
from sfb_env.engine.rules import RULE_DEFAULTS, Rules, load_rules

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sfb_env", "agents", "training")


def _state_arrays(b) -> dict[str, np.ndarray]:
    return {k: v for k, v in vars(b.state).items() if isinstance(v, np.ndarray)}


def _assert_same_battle(a, b, where: str) -> None:
    assert [event_to_dict(e) for e in a.events] == [event_to_dict(e) for e in b.events], where
    for name, value in _state_arrays(a).items():
        np.testing.assert_array_equal(value, getattr(b.state, name), err_msg=f"{where}: {name}")
    assert (a.state.turn, a.state.impulse, a.done, a.outcome) == (
        b.state.turn, b.state.impulse, b.done, b.outcome), where
    assert a.rng.bit_generator.state == b.rng.bit_generator.state, where


@pytest.mark.parametrize("scenario", ["cth-03", "cth-10", "cth-12", "grad-isc-vs-hydran"])
def test_a_copy_and_the_original_continue_identically_under_the_same_orders(scenario):
    original = make_battle(scenario, seed=11)
    g = np.random.default_rng(5)
    for _ in range(20):
        original.step(random_orders(original, g))
        assert not original.done
    twin = original.copy()
    assert twin.setup is original.setup and twin.state is not original.state
    steps = 0
    while not original.done and steps < 120:
        orders = random_orders(original, g)
        twin.step(copy.deepcopy(orders))
        original.step(orders)
        steps += 1
        _assert_same_battle(original, twin, f"{scenario} step {steps}")
    assert steps > 20


def test_a_copy_is_independent_of_its_original():
    original = make_battle("duel-klingon-vs-federation", seed=3)
    g = np.random.default_rng(0)
    for _ in range(10):
        original.step(random_orders(original, g))
    before = {k: v.copy() for k, v in _state_arrays(original).items()}
    events, draws = len(original.events), original.rng.bit_generator.state
    twin = original.copy()
    for _ in range(30):
        if twin.done:
            break
        twin.step(random_orders(twin, g))
    assert len(twin.events) > events
    assert len(original.events) == events and original.rng.bit_generator.state == draws
    for name, value in before.items():
        np.testing.assert_array_equal(value, getattr(original.state, name), err_msg=name)


def test_reset_reuses_the_setup_and_replays_the_same_dice():
    b = make_battle("cth-03", seed=9)
    setup = b.setup
    g = np.random.default_rng(1)
    orders = []
    while not b.done:
        orders.append(random_orders(b, g))
        b.step(copy.deepcopy(orders[-1]))
    first = [event_to_dict(e) for e in b.events]
    b.reset(9)
    assert b.setup is setup and not b.events
    for o in orders:
        b.step(o)
    assert [event_to_dict(e) for e in b.events] == first


def test_the_core_step_advances_a_state_under_its_setup():
    a = make_battle("duel-kzinti-vs-orion", seed=2)
    b = a.copy()
    g = np.random.default_rng(4)
    for _ in range(15):
        orders = random_orders(a, g)
        battle_module.step(b.setup, b.state, copy.deepcopy(orders))
        a.step(orders)
    _assert_same_battle(a, b, "core step")


def test_setup_is_frozen():
    b = make_battle("cth-01")
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.setup.max_turns = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.rules.tractors = True  # type: ignore[misc]


def test_rules_are_typed_with_the_switches_and_what_follows_from_them():
    rules = load_rules({"energy": "standard", "cloak": "standard", "labs": True}, "<t>", 32)
    assert isinstance(rules, Rules)
    assert rules.energy_form and rules.standard_energy and rules.standard_cloak
    assert not rules.chief_engineer  # (B3.0) derived from energy
    assert not rules.research  # (G4.0) labs need a monster in play
    assert dataclasses.replace(rules, monster_in_play=True).research
    assert set(rules.switches()) == set(RULE_DEFAULTS)
    b = make_battle("cth-11")
    assert b.rules.monster_in_play and b.rules.research and b.rules.probes_in_play


def _python_files():
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def _writes_battle_attribute(target: ast.AST) -> bool:
    """``battle.x = ...`` or ``battle.x[k] = ...`` (``battle.state...`` is the state's)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_writes_battle_attribute(t) for t in target.elts)
    while isinstance(target, ast.Subscript):
        target = target.value
    return (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
            and target.value.id == "battle" and target.attr != "state")


def test_no_module_but_battle_writes_an_attribute_of_battle():
    offenders = []
    for path in _python_files():
        if path == ROOT / "sfb_env" / "engine" / "battle.py":
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in targets:
                if _writes_battle_attribute(target):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "setattr" and node.args
                    and isinstance(node.args[0], ast.Name) and node.args[0].id == "battle"):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} setattr")
    assert not offenders, "modules writing Battle attributes: " + ", ".join(offenders)


def test_no_rules_lookup_by_string_key_outside_the_rules_loader():
    offenders = []
    for path in [*_python_files(), *sorted((ROOT / "tests").rglob("*.py"))]:
        if path == ROOT / "sfb_env" / "engine" / "rules.py":
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                    and isinstance(node.slice.value, str)):
                continue
            value = node.value
            name = value.attr if isinstance(value, ast.Attribute) else getattr(value, "id", "")
            if name == "rules":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "get" and isinstance(node.func.value, ast.Attribute)
                    and node.func.value.attr == "rules"):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} rules.get")
    assert not offenders, "rules looked up by key: " + ", ".join(offenders)


def test_docs_rules_lists_every_switch_with_its_default():
    text = (ROOT / "docs" / "rules.md").read_text()
    for key in RULE_DEFAULTS:
        assert f"| `{key}` |" in text, key
