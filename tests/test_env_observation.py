"""The observation vector's documented layout, checked on hand-placed units."""

from __future__ import annotations

import numpy as np
import pytest

import sfb_env
from sfb_env.env import observation as layout
from sfb_env.env import observation_layout as obs_layout


def duel(fed_hex="0505", fed_facing="A", kli_hex="0502", kli_facing="D"):
    return {
        "name": "placed", "impulses_per_turn": 8, "map": "A+B", "sides": ["fed", "kli"],
        "rules": {"speed_choice": True},
        "units": [
            {"id": "fed", "class": "fed-cadet", "side": "fed", "hex": fed_hex,
             "facing": fed_facing, "speed": 8, "controller": "agent"},
            {"id": "kli", "class": "klingon-cadet", "side": "kli", "hex": kli_hex,
             "facing": kli_facing, "speed": 5, "controller": "idle"},
        ],
        "victory": {"kind": "last_side_standing"},
    }


def where(env, agent):
    """The declared placement of ``agent``'s vector (``env.observation_layout``)."""
    return layout.placement(env._layouts[agent], env.threat_slots)


def slot(env, obs, agent="fed", k=0):
    """Target slot ``k + 1`` of ``agent``'s observation, by field name."""
    return where(env, agent).read(obs[agent]["observation"], "targets", row=k)


def test_target_dead_ahead_range_bearing_and_facing_shield():
    env = sfb_env.parallel_env(duel())
    obs, _ = env.reset(seed=0)
    s = slot(env, obs)
    assert s["present"].tolist() == [1.0]
    assert s["kind"].tolist() == [1.0, 0.0, 0.0]  # a ship
    assert s["range"][0] == pytest.approx(3 / 30)  # (D1.4) range 3
    assert s["bearing"] == pytest.approx([0.0, 1.0], abs=1e-6)  # dead ahead
    assert s["relative_facing"] == pytest.approx([0.0, -1.0], abs=1e-6)  # facing us
    assert s["shield_facing_us"].tolist() == [1, 0, 0, 0, 0, 0]  # its #1 faces us (D3.4)
    assert s["shields"].tolist() == [1.0] * 6
    assert s["arcs"].tolist() == [1, 0, 0, 0, 0, 1]  # on our centre line: RF and LF (D2.1)


def test_target_on_the_right_beam():
    # 0804 lies inside our R arc (between the B and C rows), range 3
    env = sfb_env.parallel_env(duel(kli_hex="0804", kli_facing="A"))
    obs, _ = env.reset(seed=0)
    s = slot(env, obs)
    bearing = np.degrees(np.arctan2(*s["bearing"]))
    assert 60 < bearing < 120  # to starboard
    assert s["range"][0] == pytest.approx(3 / 30)
    assert s["arcs"].tolist() == [0, 1, 0, 0, 0, 0]  # only in our R arc
    assert s["shield_facing_us"].tolist() == [0, 0, 0, 0, 1, 0]  # it faces A: off its #5


def test_own_block_facing_speed_and_shields():
    env = sfb_env.parallel_env(duel(fed_facing="C"))
    obs, _ = env.reset(seed=0)
    v = where(env, "fed").read(obs["fed"]["observation"], "own")
    assert v["column"][0] == pytest.approx(5 / 28) and v["row"][0] == pytest.approx(5 / 32)
    assert v["facing"].tolist() == [0, 0, 1, 0, 0, 0]  # facing C
    assert v["speed"][0] == pytest.approx(8 / 8)
    assert v["shields"].tolist() == [1.0] * 6


def test_observation_is_inside_its_space():
    env = sfb_env.parallel_env("cth-03")
    obs, _ = env.reset(seed=0)
    for _ in range(30):
        if not env.agents:
            break
        a = env.agents[0]
        assert env.observation_space(a).contains(obs[a])
        obs, *_ = env.step({a: env.action_space(a).sample(mask=obs[a]["action_mask"])})


# ----------------------------------------------------------------------------- rule features


def _vector(env, agent):
    """``agent``'s observation vector now (encoded afresh after state edits)."""
    layout_ = env._layouts[agent]
    return layout.encode(env.battle, layout_, layout_.target_slots(env.battle),
                         env.threat_slots, env.max_turns)


def _rule_block(env, agent):
    """The rule-features block (last) of ``agent``'s observation, split by sub-block."""
    vector, at = _vector(env, agent), where(env, agent)
    return {name: vector[at.span(name)] for name in env.rule_features(agent)}


def _rule_row(env, agent, block, part, row=0):
    """Row ``row`` of a rule-features sub-block's part, by field name."""
    return where(env, agent).read(_vector(env, agent), block, part, row)


@pytest.mark.parametrize("name", ["cth-03", "duel-klingon-vs-federation", "cth-05", "cth-06",
                                  "grad-hydran-vs-kzinti"])
def test_rule_features_absent_where_the_rules_are_not_used(name):
    """Scenarios without reinforcement, damage control, lock-on or the standard cloak (the
    published checkpoints' cth-03 and duel-klingon-vs-federation among them) keep their size."""
    env = sfb_env.parallel_env(name)
    for a in env.possible_agents:
        lay = env._layouts[a]
        assert lay.rule_features == () and env.rule_features(a) == {}
        at = where(env, a)
        assert layout.observation_size(lay, env.threat_slots) == at.span("ppd").stop
        assert all(at.span(name).start == at.span(name).stop
                   for name in obs_layout.RULE_FEATURE_NAMES)


def test_rule_features_sub_blocks_follow_the_scenario_rules():
    k = 8  # the default target slots
    env = sfb_env.parallel_env("cth-10")
    assert env.rule_features(env.possible_agents[0]) == {
        "reinforcement": 7, "damage_control": 7, "lock_on": 1 + 2 * k}
    env = sfb_env.parallel_env("cth-07")
    assert env.rule_features(env.possible_agents[0]) == {"lock_on": 1 + 2 * k}
    env = sfb_env.parallel_env("duel-full-orion-vs-klingon")
    assert env.rule_features("orion-ship") == {"lock_on": 1 + 2 * k, "cloak": 4 * (1 + k)}
    obs, _ = env.reset(seed=0)
    for a in env.agents:
        assert obs[a]["observation"].shape == env.observation_space(a)["observation"].shape


def test_d3_34_reinforcement_left_in_the_observation():
    """(D3.341, D3.342) general points left / 10, then specific energy left on #1..#6 / 10."""
    env = sfb_env.parallel_env("cth-10")
    env.reset(seed=0)
    a = env.agents[0]
    lay = env._layouts[a]
    names = lay.component_names()
    action = lay.noop(env.battle)
    for i, name in enumerate(names):  # nothing else bought: the power pays it all
        if name.startswith("arm[") or name in ("capacitor", "recharge"):
            action[i] = 0
    action[names.index("reinforce_general")] = 3
    action[names.index("reinforce[0]")] = 4
    env.step({**{b: env._layouts[b].noop(env.battle) for b in env.agents}, a: action})
    st = env.battle.state
    assert st.reinf_general[lay.unit] == 3 and st.reinf_specific[lay.unit, 0] == 4
    block = _rule_block(env, a)["reinforcement"]
    assert block.tolist() == pytest.approx([0.3, 0.4, 0, 0, 0, 0, 0])


def test_d9_2_damage_control_rating_and_pending_repairs_in_the_observation():
    env = sfb_env.parallel_env("cth-10")
    env.reset(seed=0)
    a = env.agents[0]
    u = env._layouts[a].unit
    env.battle.state.dc_repairs[u] = [0, 2, 0, 0, 1, 0]
    block = _rule_row(env, a, "damage_control", None)
    from sfb_env.engine import energy

    assert block["rating"][0] == pytest.approx(min(1.0, energy.dc_rating(env.battle, u) / 4))
    assert block["repairs"].tolist() == pytest.approx([0, 1.0, 0, 0, 0.5, 0])


def test_d6_own_and_target_slot_lock_on_in_the_observation():
    env = sfb_env.parallel_env("duel-full-orion-vs-klingon")
    env.reset(seed=0)
    b = env.battle
    st = b.state
    o, k = b.unit_index["orion-ship"], b.unit_index["klingon-ship"]
    st.locked_on[o], st.locked_on[k] = True, False
    def lock_on(agent, part, row=0):
        values = _rule_row(env, agent, "lock_on", part, row)
        return [float(values[f][0]) for f in values]

    assert lock_on("orion-ship", "own") == [1.0]
    assert lock_on("orion-ship", "slots") == [0.0, 1.0]  # slot 1 (the D7): no lock-on; ours: yes
    slots = _rule_block(env, "orion-ship")["lock_on"][obs_layout.LOCK_ON_OWN.size:]
    assert not slots[obs_layout.LOCK_ON_SLOT.size:].any()  # empty slots
    st.cloaked[k] = True  # (G13) a fully cloaked target: no lock-on to it
    st.cloak_announced_at[k] = st.absolute_impulse - 10
    assert lock_on("orion-ship", "slots") == [0.0, 0.0]
    assert lock_on("klingon-ship", "own") == [0.0]
    assert lock_on("klingon-ship", "slots") == [1.0, 0.0]


def test_g13_cloak_fade_state_in_the_observation():
    """(G13 standard rule) engaged, fading out, fading in, the fade's impulse / 4; own ship
    first, then each target slot."""
    env = sfb_env.parallel_env("duel-full-orion-vs-klingon")
    env.reset(seed=0)
    b = env.battle
    st = b.state
    o = b.unit_index["orion-ship"]
    st.cloaked[o] = True
    st.cloak_announced_at[o] = st.absolute_impulse - 1  # the 2nd impulse of the fade-out
    def cloak(agent, row):
        values = _rule_row(env, agent, "cloak", "ships", row)
        return [float(values[f][0]) for f in values]

    assert cloak("orion-ship", 0) == [1.0, 1.0, 0.0, 0.5]  # own ship first
    assert cloak("klingon-ship", 1) == [1.0, 1.0, 0.0, 0.5]  # its target slot 1
    st.cloaked[o] = False
    st.cloak_announced_at[o] = st.absolute_impulse - 3  # the 4th impulse of the fade-in
    assert cloak("orion-ship", 0) == [0.0, 0.0, 1.0, 1.0]
    st.cloak_announced_at[o] = st.absolute_impulse - 4  # the fade is over
    assert not _rule_block(env, "orion-ship")["cloak"].any()


@pytest.mark.parametrize("name", ["cth-10", "duel-full-orion-vs-klingon"])
def test_rule_features_block_is_skipped_by_the_captains_decoder(name):
    """The doctrine captains read the vector from both ends: the block's length comes from
    ``env.rule_features`` (bound through ``DoctrineCaptain.bind``)."""
    from agents.doctrine import DoctrineCaptain
    from agents.observation_view import threat_slots_in

    env = sfb_env.parallel_env(name)
    obs, _ = env.reset(seed=0)
    for a in env.agents:
        captain = DoctrineCaptain()
        captain.bind(env, a)
        lay = captain.layout
        assert lay.rule_features == sum(env.rule_features(a).values()) > 0
        assert threat_slots_in(len(obs[a]["observation"]), lay.n_weapons, lay.slots,
                               len(lay.esgs), lay.energy_size, len(lay.ppds),
                               lay.rule_features) == env.threat_slots
        captain.act(obs[a], env.action_space(a))  # decodes without error


def _documented_blocks(text: str, names: list[str], quote: str) -> list[tuple[str, int]]:
    """(name, size at K = 3) of each rule-features sub-block documented in ``text`` as
    ``<quote>name<quote> (size...``, in the order written."""
    import re

    out = []
    for name, size in re.findall(rf"{quote}(\w+){quote}\s+\(([0-9K+()\s]+)", text):
        if name not in names:
            continue
        size = " ".join(size.split())
        while size.count(")") > size.count("("):
            size = size[:-1].strip()
        expr = re.sub(r"(?<=[\d)])\s*(?=[(K])", "*", size).replace("K", "3")
        out.append((name, eval(expr)))  # a size formula from our own docs
    return out


def test_rule_features_sub_blocks_documented_in_code_order_with_sizes():
    """docs/observation.md ("Rule-features block") and the ``env.rule_features`` docstring name
    every rule-features sub-block in the order ``rule_features.names`` appends them, each with
    its size (checked at K = 3 target slots against ``rule_features.block_size``)."""
    import inspect
    import re
    from pathlib import Path

    from sfb_env.env import rule_features

    order = re.findall(r'out\.append\("(\w+)"\)', inspect.getsource(rule_features.names))
    assert set(order) == set(rule_features._ENCODERS)
    want = [(name, rule_features.block_size(name, 3)) for name in order]
    md = (Path(__file__).resolve().parents[1] / "docs" / "observation.md").read_text()
    table = md[md.index("### Rule-features block"):]
    assert _documented_blocks(rule_features.__doc__, order, "``") == want
    assert _documented_blocks(table, order, "`")[:len(want)] == want


DOCUMENTED_ROWS = {  # docs/observation.md heading -> the declared rows its table lists
    "### Own ship": [("OWN", 0, ""), ("WEAPON", "OWN", "3w")],
    "### Clock": [("CLOCK", 0, "")],
    "### Target slots": [("SLOT", 0, "")],
    "### Threat slots": [("THREAT", 0, "")],
    "### ESG blocks": [("ESG", 0, "")],
    "### Plasma threat block": [("PLASMA_THREAT", 0, "")],
    "### Energy block": [("ENERGY", 0, ""), ("ENERGY_WEAPON", "ENERGY", "2h")],
    "### PPD blocks": [("PPD", 0, "")],
}


def _table_after(md: str, heading: str) -> list[list[str]]:
    """The cells of the first markdown table after ``heading`` (header rows dropped)."""
    lines = md[md.index(heading):].split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def _declared_rows(rows) -> list[tuple[str, str, object]]:
    """(index text, field name, scale) of every field of ``rows`` as the docs write them."""
    from sfb_env.env import observation_layout as decl

    out = []
    for name, base, stride in rows:
        row = getattr(decl, name)
        first = getattr(decl, base).size if isinstance(base, str) else base
        for f in row.fields:
            at = first + row.at(f.name)
            if stride:
                text = f"{at} + {stride}"
            elif f.size == 1:
                text = str(at)
            elif f.size == 2:
                text = f"{at}, {at + 1}"
            else:
                text = f"{at}..{at + f.size - 1}"
            out.append((text, f.name, f.scale))
    return out


@pytest.mark.parametrize("heading", list(DOCUMENTED_ROWS))
def test_observation_tables_in_the_docs_match_the_declared_layout(heading):
    """Each table of docs/observation.md lists the declared fields (``env.observation_layout``)
    in order, with their indices, and writes every numeric scale as "/ N"."""
    from pathlib import Path

    md = (Path(__file__).resolve().parents[1] / "docs" / "observation.md").read_text()
    documented = _table_after(md, heading)
    declared = _declared_rows(DOCUMENTED_ROWS[heading])
    assert [(r[0], r[1].strip("`")) for r in documented] == [(i, n) for i, n, _ in declared]
    for (_, name, scale), row in zip(declared, documented, strict=True):
        if isinstance(scale, float):
            assert f"/ {scale:g}" in row[2], (name, scale, row[2])


def test_rule_features_declared_in_the_order_the_env_appends_them():
    import inspect
    import re

    from sfb_env.env import observation_layout as decl
    from sfb_env.env import rule_features

    order = re.findall(r'out\.append\("(\w+)"\)', inspect.getsource(rule_features.names))
    assert list(decl.RULE_FEATURE_NAMES) == order
    for name in order:
        assert decl.block_size(name, 5) == rule_features.block_size(name, 5)


@pytest.mark.parametrize("name", ["cth-03", "cth-10", "grad-lyran-vs-klingon", "cth-08",
                                  "grad-isc-vs-romulan", "cth-11", "duel-full-orion-vs-klingon"])
def test_encoder_fills_exactly_the_declared_placement(name):
    """The vector's length is the declared placement's size; the captains' decoder places the
    same blocks at the same offsets."""
    from agents.observation_view import placement

    env = sfb_env.parallel_env(name)
    obs, _ = env.reset(seed=0)
    for a in env.agents:
        lay = env._layouts[a]
        where = layout.placement(lay, env.threat_slots)
        assert len(obs[a]["observation"]) == where.size
        n_rules = sum(env.rule_features(a).values())
        decoded = placement(where.size, len(lay.racks) + len(lay.weapons), lay.slots,
                            len(lay.esgs), layout.energy_size(lay), len(lay.ppds), n_rules)
        for block in ("own", "clock", "targets", "threats", "esg", "plasma_threats", "ppd"):
            assert decoded.span(block) == where.span(block), block
