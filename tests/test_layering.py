"""The house stays layered (DESIGN "Inside the engine"; issue 10): a static scan of every module
of ``sfb_env``, ``agents`` and ``training`` finds no import cycle, no import of ``agents`` or
``training`` from the engine or the env, and no engine import that goes up the declared layers.

Imports under ``if TYPE_CHECKING:`` are annotations only and do not count; imports inside
functions do (they run); a package's ``__init__`` is a module like any other.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sfb_env", "agents", "training")
ENGINE = "sfb_env.engine"

#: The engine's layers (DESIGN "Inside the engine"). A module imports only modules of lower
#: layers, or of its own layer where ``SAME_LAYER`` allows it. Every engine module is listed.
LAYERS: dict[str, int] = {
    # L0 data model: the state's types, the events, the scenario file (the loader)
    "types": 0,
    "events": 0,
    "rules": 0,
    "setup": 0,
    "scenario": 0,
    # L1 pure kernels: chart resolvers that know no battle
    "dac": 1,
    "damage_control": 1,
    "geometry": 1,
    "esg": 1,
    "fighters": 1,
    "fusion": 1,
    "phaser_g": 1,
    "ppd": 1,
    "reinforcement": 1,
    "reserve_power": 1,
    # L2 rule areas: each reads and writes the state through the others' public functions
    "boarding": 2,
    "cloak": 2,
    "damage": 2,
    "direct_fire": 2,
    "disengagement": 2,
    "energy_allocation": 2,
    "energy_form": 2,
    "energy_orders": 2,
    "energy_switches": 2,
    "esg_field": 2,
    "explosions": 2,
    "fire_energy": 2,
    "fire_geometry": 2,
    "fractional": 2,
    "kill_methods": 2,
    "labs": 2,
    "movement": 2,
    "mutiny": 2,
    "planet_killer": 2,
    "planets": 2,
    "plasma": 2,
    "ppd_fire": 2,
    "probes": 2,
    "robot_ship": 2,
    "robots": 2,
    "seeking": 2,
    "sensor_ratings": 2,
    "sensors": 2,
    "shield_absorption": 2,
    "shields": 2,
    "small_craft": 2,
    "standing_orders": 2,
    "suicide_shuttles": 2,
    "tractors": 2,
    "transporters": 2,
    "unit_rules": 2,
    "weapon_records": 2,
    # L3: the Sequence of Play, victory, the declared tables, and ``energy`` (it gathers the
    # energy modules for the Battle facade, the env and tests; no rule area may use it)
    "energy": 3,
    "procedure": 3,
    "rule_tables": 3,
    "victory": 3,
    "knowledge": 3,
    "legality": 3,
    # L4: the Battle facade and the package
    "battle": 4,
    "__init__": 4,
}
#: Where a module may import one of its own layer. Rule areas (L2) build on each other's public
#: functions; the cycle test keeps those imports acyclic.
SAME_LAYER: dict[int, set[tuple[str, str]] | None] = {
    0: {("scenario", "types"), ("rules", "types"), ("scenario", "rules")},
    1: {("damage_control", "dac"), ("fusion", "fighters"), ("phaser_g", "fighters"),
        ("ppd", "fighters"), ("reserve_power", "reinforcement")},
    2: None,  # any, acyclic
    3: {("procedure", "rule_tables"), ("procedure", "victory"), ("knowledge", "energy"),
        ("legality", "energy")},
    4: {("__init__", "battle")},
}
#: Known upward imports: none (the opponents' policy loader is installed by ``agents``).
KNOWN_UPWARD: set[tuple[str, str]] = set()


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """Ids of the nodes under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                out.update(id(n) for n in ast.walk(stmt))
    return out


def _resolve(name: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = package[: len(package) - node.level + 1]
    return ".".join(package + ([node.module] if node.module else []))


@cache
def _imports(name: str) -> frozenset[str]:
    """Project modules ``name`` imports at run time (module level or inside functions)."""
    mods = _modules()
    path = mods[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                # ``import a.b.c`` runs a, a.b and a.b.c; the deepest project module counts
                for k in range(len(parts), 0, -1):
                    if ".".join(parts[:k]) in mods:
                        out.add(".".join(parts[:k]))
                        break
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(name, path, node)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in mods:
                    out.add(full)  # ``from package import module``
                elif base in mods:
                    out.add(base)
    out.discard(name)
    return frozenset(out)


def _graph() -> dict[str, frozenset[str]]:
    return {name: _imports(name) for name in _modules()}


def _cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as one
    cycle through them followed by every module of the component."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    comps: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_one_cycle(graph, set(c)) + [f"({len(c)} modules in the cycle: {sorted(c)})"]
            for c in comps]


def _one_cycle(graph: dict[str, frozenset[str]], comp: set[str]) -> list[str]:
    """A shortest cycle through the first module of a strongly connected component."""
    start = min(comp)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & comp):
                if w == start:
                    return paths[v] + [start]
                if w not in paths:
                    paths[w] = paths[v] + [w]
                    nxt.append(w)
        frontier = nxt
    return sorted(comp)


def _short(module: str) -> str:
    if module == ENGINE:
        return "__init__"
    return module.removeprefix(ENGINE + ".")


def _engine_modules() -> list[str]:
    return [m for m in _modules() if m == ENGINE or m.startswith(ENGINE + ".")]


def test_the_scan_sees_every_package_and_counts_function_level_imports():
    mods = _modules()
    assert {"sfb_env", "sfb_env.engine", "sfb_env.engine.battle", "agents", "training"} <= set(mods)
    # battle.py imports the package's modules; the scan reads ``from pkg import module``
    assert "sfb_env.engine.procedure" in _imports("sfb_env.engine.battle")
    # sfb_env.commands.play imports agents inside a function: that counts
    assert "agents" in _imports("sfb_env.commands.play")


def test_no_import_cycle_anywhere():
    cycles = _cycles(_graph())
    assert not cycles, "import cycles:\n" + "\n".join(
        " -> ".join(c[:-1]) + " " + c[-1] for c in cycles)


def test_engine_and_env_do_not_import_agents_or_training_apart_from_the_known_edge():
    bad = [(m, i) for m, imports in _graph().items()
           if m.startswith(("sfb_env.engine", "sfb_env.env"))
           for i in sorted(imports)
           if i.split(".")[0] in ("agents", "training") and (m, i) not in KNOWN_UPWARD]
    assert not bad, "upward imports: " + ", ".join(f"{m} -> {i}" for m, i in bad)


def test_env_opponents_do_not_import_agents():
    assert not {i for i in _imports("sfb_env.env.opponents") if i.split(".")[0] == "agents"}


def test_engine_imports_nothing_of_the_env_render_replay_or_commands():
    outside = ("sfb_env.env", "sfb_env.render", "sfb_env.replay", "sfb_env.commands",
               "sfb_env.cli")
    bad = [(m, i) for m in _engine_modules() for i in sorted(_imports(m))
           if i == "sfb_env" or i.startswith(outside)]
    assert not bad, "engine imports from above: " + ", ".join(f"{m} -> {i}" for m, i in bad)


def test_every_engine_module_has_a_declared_layer():
    names = {_short(m) for m in _engine_modules()}
    assert names - set(LAYERS) == set(), "engine modules missing from LAYERS"
    assert set(LAYERS) - names == set(), "LAYERS names modules that do not exist"


def test_engine_imports_go_down_the_layers():
    bad = []
    for m in _engine_modules():
        src = _short(m)
        for i in sorted(_imports(m)):
            if not (i == ENGINE or i.startswith(ENGINE + ".")):
                continue
            dst = _short(i)
            a, b = LAYERS.get(src), LAYERS.get(dst)
            if a is None or b is None:
                continue  # reported by the test above
            allowed = SAME_LAYER[a]
            if b > a or (b == a and allowed is not None and (src, dst) not in allowed):
                bad.append(f"{src} (L{a}) -> {dst} (L{b})")
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_no_engine_module_reaches_into_another_modules_private_names():
    bad = []
    engine = set(_engine_modules())
    for m in sorted(engine):
        tree = ast.parse(_modules()[m].read_text(encoding="utf-8"))
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if full in engine:
                        aliases[alias.asname or alias.name] = full
                    elif node.module in engine and alias.name.startswith("_"):
                        bad.append(f"{_short(m)}: from {_short(node.module)} import {alias.name}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                bad.append(f"{_short(m)}: {node.value.id}.{node.attr}")
    assert not bad, "private names used across modules:\n" + "\n".join(sorted(set(bad)))


def test_the_energy_payments_keep_the_clamp_priority():
    from sfb_env.engine import energy_allocation, rule_tables

    names = [f.__name__ for f in rule_tables.ENERGY_PAYMENTS]
    assert names == [
        "pay_movement", "pay_systems", "pay_heavy_weapons", "_suicide_bomb", "pay_cloak",
        "pay_repair_and_reinforcement", "_tractor_beams", "_probes", "_transporters",
        "pay_esg", "pay_capacitor", "pay_recharge",
    ]
    assert rule_tables.ENERGY_PAYMENTS[0] is energy_allocation.pay_movement


def test_the_damage_handlers_are_installed_by_unit_kind():
    from sfb_env.engine import damage, make_battle, rule_tables  # noqa: F401 (installs them)
    from sfb_env.engine.types import UnitKind

    assert damage.DAMAGE_HANDLERS == rule_tables.DAMAGE_HANDLERS
    assert set(damage.DAMAGE_HANDLERS) == {int(UnitKind.PLASMA), int(UnitKind.MONSTER),
                                           int(UnitKind.FIGHTER), int(UnitKind.SHUTTLE)}
