"""Fixed spaces: one observation and action shape for every ship and scenario.

A policy network has one input and one output size, but ships differ in weapon positions
(drone racks + direct-fire weapons), phaser-G shots, ESGs, PPDs and energy components, and
scenarios in maximum speed and optional observation blocks. ``FixedSpaces`` pads an agent's
observation, mask and action to fixed sizes, so one model can follow a curriculum across
scenarios (cth-01 -> cth-03 -> duels) or fly any ship of a set of duels. Padding is a pure
function of the agent's ``AgentShape`` (``env.agent_shape``: its action component names and
sizes and its observation counts; the env's action space carries it), so a checkpoint can pad
for any ship; given an ``nvec`` alone it reads weapon positions, maneuver and speed
(``AgentShape.from_nvec``), as the first four fields always did.

* observation: every block part of the declared layout (``env.observation_layout``) sits at its
  offset in the fixed layout (``place`` of the fixed counts): the own ship's weapon rows, ESG
  rows, the plasma threat block, the energy block and its ``arm[h]`` rows, PPD rows and the
  rule-features blocks named in ``rule_features``; zeros where the ship has fewer rows or none;
* action components, in ``ActionLayout`` order: ``positions`` weapon positions (``launch[r]``,
  ``fire[w]``), ``gatling`` phaser-Gs' shot components (three each, E2.151), ``esg_slots``
  ``esg[g]`` (G23), ``ppd_slots`` ``ppd[p]`` (E11.362), with ``energy`` (rules.energy, B3.0)
  ``arms`` ``arm[h]`` of ``arm_values`` values, ``capacitor`` and ``recharge`` of
  ``capacitor_values`` / ``recharge_values`` values and ``cloak`` (G13) if set; then
  ``maneuver`` and ``speed`` (0..``max_speed``);
* mask: a padded component allows only 0 (hold, no action); a component smaller than its padded
  size has its extra values masked (speeds above the ship's top, a 3-value ``arm[h]`` in a
  6-value slot, ...);
* action: padded components are dropped (``unpad_action``);
* identity (``races``, optional): after the padded layout, the own ship's race one-hot and the
  other side's ship races (a multi-hot) over the listed races, so one policy over many duels
  knows which ship it flies and against whom (``AgentShape.race`` / ``foes``).

``check`` refuses an agent that does not fit, naming the field. Target and threat slot counts
must match the env's ``target_slots`` / ``threat_slots``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from gymnasium import spaces

from sfb_env.data.ships import RACES
from sfb_env.engine.phaser_g import SHOTS_PER_TURN
from sfb_env.engine.types import ESG_ORDERS, PPD_ORDERS
from sfb_env.env import observation_layout as lay
from sfb_env.env.actions import N_MANEUVERS
from sfb_env.env.agent_shape import AgentShape, kind_of
from sfb_env.env.spaces import MaskedMultiDiscrete

GATLING_SHOTS = SHOTS_PER_TURN - 1  # (E2.151) a phaser-G's shot components 2..4
PPD_VALUES = PPD_ORDERS + 1  # the largest ``ppd[p]``: TOP_UP with rules.reserve_power (E11.25)
CLOAK_VALUES = 2  # the ``cloak`` component (G13)
BASE_FIELDS = ("positions", "max_speed", "target_slots", "threat_slots")  # always in to_dict
WEAPON_KINDS = ("launch", "fire", "position")  # weapon positions (``position``: from_nvec)
PADDED_KINDS = (*WEAPON_KINDS, "gatling", "esg", "ppd", "arm", "capacitor", "recharge", "cloak",
                "maneuver", "speed")


class FixedSpacesError(ValueError):
    """A ``FixedSpaces`` field that is invalid or too small; ``field`` names it (None: no
    field pads what the agent has)."""

    def __init__(self, field: str | None, problem: str) -> None:
        self.field = field
        super().__init__(problem)


@dataclass(frozen=True)
class FixedSpaces:
    """Pad every agent to the sizes below (see the module docstring). The first four fields
    are the cadet duels' (weapon positions, speed, slots); the others default to none."""

    positions: int = 12
    max_speed: int = 31
    target_slots: int = 8
    threat_slots: int = 4
    gatling: int = 0  # phaser-G mounts: three shot components each (E2.151)
    esg_slots: int = 0  # ``esg[g]`` components and ESG observation rows (G23)
    ppd_slots: int = 0  # ``ppd[p]`` components and PPD observation rows (E11.362)
    plasma_threats: bool = False  # the plasma threat block (battles with a plasma launcher)
    energy: bool = False  # the energy block and components (rules.energy, B3.0)
    arms: int = 0  # ``arm[h]`` components and energy-block arm rows (B3.0)
    arm_values: int = 0  # values of each ``arm[h]`` (3: ArmOrder; 6: a PPD's, E11.25)
    capacitor_values: int = 0  # values of ``capacitor`` (0..C, H6.1)
    recharge_values: int = 0  # values of ``recharge`` (0..B, B3.0)
    cloak: bool = False  # the ``cloak`` component (G13; the Romulan cadet's)
    rule_features: tuple[str, ...] = ()  # rule-features observation blocks (env.rule_features)
    races: tuple[str, ...] = ()  # the identity block's races (own one-hot, foes multi-hot)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "races":
                object.__setattr__(self, f.name, _races(value))
            elif f.name == "rule_features":
                blocks = _known_names(f.name, value, lay.RULE_FEATURE_NAMES, "block")
                # in the declared order, once each (one fixed layout per set of blocks)
                object.__setattr__(self, f.name, tuple(
                    n for n in lay.RULE_FEATURE_NAMES if n in blocks))
            elif f.type == "bool":
                if not isinstance(value, bool):
                    raise FixedSpacesError(f.name, f"FixedSpaces.{f.name} must be true or "
                                                   f"false, got {value!r}")
            elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise FixedSpacesError(f.name, f"FixedSpaces.{f.name} must be an integer >= 0, "
                                               f"got {value!r}")
        if not self.energy:
            for name in ("arms", "arm_values", "capacitor_values", "recharge_values", "cloak"):
                if getattr(self, name):
                    raise FixedSpacesError(name, f"FixedSpaces.{name} pads energy components: "
                                                 "it needs FixedSpaces.energy")
        else:
            for name in ("capacitor_values", "recharge_values"):
                if getattr(self, name) < 1:
                    raise FixedSpacesError(name, f"FixedSpaces.{name} must be >= 1 with "
                                                 "energy (every allocating ship has it)")
            if self.arms and self.arm_values < 1:
                raise FixedSpacesError("arm_values", "FixedSpaces.arm_values must be >= 1 "
                                                     "with arms")

    # ------------------------------------------------------------------ spaces

    @property
    def nvec(self) -> np.ndarray:
        return np.array([size for _, size in self._components()], np.int64)

    @property
    def observation_size(self) -> int:
        """The padded layout, then the identity block (two values per race in ``races``)."""
        return self.placement.size + 2 * len(self.races)

    @property
    def counts(self) -> lay.Counts:
        """The fixed observation counts (``env.observation_layout.Counts``)."""
        return lay.Counts(self.positions, self.target_slots, self.threat_slots,
                          esgs=self.esg_slots, plasma=self.plasma_threats, energy=self.energy,
                          arms=self.arms if self.energy else 0, ppds=self.ppd_slots,
                          rule_features=self.rule_features)

    @property
    def placement(self) -> lay.Placement:
        """Where every block part sits in the padded vector."""
        return lay.place(self.counts)

    def observation_space(self) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, shape=(self.observation_size,), dtype=np.float32)

    def action_space(self) -> MaskedMultiDiscrete:
        return MaskedMultiDiscrete(self.nvec)

    def to_dict(self) -> dict[str, object]:
        """The fields for a checkpoint's sidecar: the first four always, the others where not
        at their defaults (so a cadet checkpoint's sidecar is as it always was)."""
        default = FixedSpaces()
        out: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in BASE_FIELDS or value != getattr(default, f.name):
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def _components(self) -> list[tuple[tuple[str, int], int]]:
        """The padded components in action order: ((kind, index), size)."""
        k = self.target_slots + 1
        out = [(("weapon", i), k) for i in range(self.positions)]
        out += [(("gatling", i), k) for i in range(self.gatling * GATLING_SHOTS)]
        out += [(("esg", i), ESG_ORDERS) for i in range(self.esg_slots)]
        out += [(("ppd", i), PPD_VALUES) for i in range(self.ppd_slots)]
        if self.energy:
            out += [(("arm", i), self.arm_values) for i in range(self.arms)]
            out += [(("capacitor", 0), self.capacitor_values),
                    (("recharge", 0), self.recharge_values)]
            if self.cloak:
                out.append((("cloak", 0), CLOAK_VALUES))
        return [*out, (("maneuver", 0), N_MANEUVERS), (("speed", 0), self.max_speed + 1)]

    # ------------------------------------------------------------------ padding

    def shape(self, agent) -> AgentShape:
        """``agent`` as an ``AgentShape``: one already, an env's action space carrying one, or
        an ``nvec`` (``AgentShape.from_nvec``: weapon positions, maneuver and speed)."""
        if isinstance(agent, AgentShape):
            return agent
        carried = getattr(agent, "agent_shape", None)
        if carried is not None:
            return carried
        nvec = agent.nvec if isinstance(agent, spaces.MultiDiscrete) else agent
        return AgentShape.from_nvec(nvec, self.target_slots, self.threat_slots)

    def columns_of(self, narrower: FixedSpaces) -> np.ndarray:
        """Index in this padded vector of each value of ``narrower``'s: spaces equal to these
        but for fewer view blocks (``lay.VIEW_OPTIONS``) and no identity block or the same
        one (what a checkpoint of ``narrower`` is widened by; ``ValueError`` otherwise)."""
        same = dataclasses.replace(self, rule_features=narrower.rule_features,
                                   races=narrower.races)
        new = set(self.rule_features) - set(narrower.rule_features)
        if (same != narrower or not set(narrower.rule_features) <= set(self.rule_features)
                or not new <= set(lay.VIEW_OPTIONS) or narrower.races not in ((), self.races)):
            raise ValueError(f"spaces {narrower.to_dict()} do not widen into {self.to_dict()}: "
                             "only view blocks (enemy_fire) and the identity block may be added")
        out = np.empty(narrower.observation_size, np.int64)
        mine = self.placement
        for part in narrower.placement.parts:
            to = mine.part(part.block, part.part)
            out[part.offset:part.offset + part.size] = np.arange(to.offset, to.offset + part.size)
        n = 2 * len(narrower.races)
        out[len(out) - n:] = mine.size + np.arange(n)
        return out

    def env_options(self) -> dict[str, Any]:
        """The env options these spaces need: their slot counts, and ``enemy_fire`` where
        they read that block."""
        return {"target_slots": self.target_slots, "threat_slots": self.threat_slots,
                "enemy_fire": "enemy_fire" in self.rule_features}

    def check(self, agent) -> None:
        """Raise ``FixedSpacesError`` (a ``ValueError``) naming the field if ``agent`` (an
        ``AgentShape``, an env's action space or an ``nvec``) does not fit."""
        self._maps(self.shape(agent))

    def pad_observation(self, vector: np.ndarray, agent) -> np.ndarray:
        """The agent's observation vector with every block part at its fixed offset."""
        maps = self._maps(self.shape(agent))
        vector = np.asarray(vector)
        if len(vector) != len(maps.obs):
            raise ValueError(f"observation of size {len(vector)} does not match the agent's "
                             f"layout ({len(maps.obs)}; target_slots={self.target_slots}, "
                             f"threat_slots={self.threat_slots})")
        out = np.zeros(self.observation_size + 1, dtype=np.float32)  # + 1: what it drops
        out[maps.obs] = vector
        out[maps.identity] = 1.0
        return out[:-1]

    def pad_mask(self, mask: np.ndarray, agent) -> np.ndarray:
        """The flat mask over ``self.nvec``: padded components hold (value 0 only), values
        beyond a component's own size masked."""
        maps = self._maps(self.shape(agent))
        out = np.zeros(int(self.nvec.sum()), dtype=np.int8)
        out[maps.hold] = 1
        out[maps.mask] = mask
        return out

    def unpad_action(self, action: np.ndarray, agent) -> np.ndarray:
        """The agent's own action: its components, in its order (padded ones dropped)."""
        action = np.asarray(action, dtype=np.int64).reshape(-1)
        return action[self._maps(self.shape(agent)).action]

    @functools.lru_cache(maxsize=256)  # noqa: B019 - frozen and small: a few ships per run
    def _maps(self, shape: AgentShape) -> _Maps:
        """Where each of the agent's values goes in the padded vectors (checked on the way)."""
        fixed = self._components()
        index = {key: j for j, (key, _) in enumerate(fixed)}
        starts = np.concatenate([[0], np.cumsum([size for _, size in fixed])[:-1]])
        seen: dict[str, int] = {}
        action, mask = [], []
        for name, size in zip(shape.names, shape.nvec, strict=True):
            key = self._fit(name, size, shape, seen)
            j = index[key]
            action.append(j)
            mask.extend(range(int(starts[j]), int(starts[j]) + size))
        self._fit_counts(shape)
        own = set(action)
        hold = [int(starts[j]) for j in range(len(fixed)) if j not in own]
        return _Maps(np.array(action, np.int64), np.array(mask, np.int64),
                     np.array(hold, np.int64), self._observation_map(shape.counts),
                     self._identity(shape))

    def _fit(self, name: str, size: int, shape: AgentShape, seen: dict[str, int]
             ) -> tuple[str, int]:
        """The padded component (kind, index) of the agent's component ``name``, or refuse."""
        kind = kind_of(name)
        if kind not in PADDED_KINDS:
            raise FixedSpacesError(None, f"the agent has action component {name!r}; "
                                         "FixedSpaces pads weapon positions, phaser-G shots, "
                                         "ESGs, PPDs, the energy components arm[h], capacitor, "
                                         "recharge and cloak, maneuver and speed only")
        group = "weapon" if kind in WEAPON_KINDS else kind
        i = seen.get(group, 0)
        seen[group] = i + 1
        count = sum(kind_of(n) in WEAPON_KINDS if group == "weapon" else kind_of(n) == kind
                    for n in shape.names)
        k = self.target_slots + 1
        if group == "weapon":
            if count > self.positions:
                raise FixedSpacesError("positions", f"the ship has {count} weapon positions; "
                                                    f"FixedSpaces.positions is {self.positions}")
            if size != k:
                if kind == "launch" and size > k:
                    raise FixedSpacesError("target_slots", f"{name} has {size} values "
                                           "(rules.launch_facing); FixedSpaces pads "
                                           f"target_slots + 1 = {k} (hold or a target slot)")
                if kind == "position" and shape.nvec[0] == k:
                    raise FixedSpacesError(None, "the agent has action components other than "
                                           "weapon positions (an ESG, G23, a PPD's ppd[p], "
                                           "E11.362, or the energy components of rules.energy, "
                                           "B3.0); pad it by its AgentShape (the env's action "
                                           "space carries it), not its nvec alone")
                raise FixedSpacesError("target_slots", f"the env has {size - 1} target slots; "
                                       f"FixedSpaces.target_slots is {self.target_slots}")
        elif group == "gatling":
            if count > self.gatling * GATLING_SHOTS:
                raise FixedSpacesError("gatling", f"the ship has {count // GATLING_SHOTS} "
                                       f"phaser-Gs ({count} shot components, E2.151); "
                                       f"FixedSpaces.gatling is {self.gatling}")
            if size != k:
                raise FixedSpacesError("target_slots", f"the env has {size - 1} target slots; "
                                       f"FixedSpaces.target_slots is {self.target_slots}")
        elif kind == "maneuver":
            if size != N_MANEUVERS:
                raise FixedSpacesError("maneuver", f"the agent has {size} maneuver values; "
                                       f"FixedSpaces pads the {N_MANEUVERS} basic ones only "
                                       "(scenario rules sideslip and tactical_maneuvers are "
                                       "not supported with fixed spaces)")
        elif kind == "speed":
            if size - 1 > self.max_speed:
                raise FixedSpacesError("max_speed", f"the scenario allows speed {size - 1}; "
                                                    f"FixedSpaces.max_speed is {self.max_speed}")
        else:
            self._fit_optional(name, kind, size, count)
        return group, i

    def _fit_optional(self, name: str, kind: str, size: int, count: int) -> None:
        """ESG, PPD and energy components: their count and size against the fields."""
        slots = {"esg": ("esg_slots", self.esg_slots, "ESGs (G23)"),
                 "ppd": ("ppd_slots", self.ppd_slots, "PPDs (E11)"),
                 "arm": ("arms", self.arms, "arm[h] components (heavy weapons, B3.0)")}
        sizes = {"esg": ("esg_slots", ESG_ORDERS), "ppd": ("ppd_slots", PPD_VALUES),
                 "arm": ("arm_values", self.arm_values),
                 "capacitor": ("capacitor_values", self.capacitor_values),
                 "recharge": ("recharge_values", self.recharge_values),
                 "cloak": ("cloak", CLOAK_VALUES)}
        if kind in ("arm", "capacitor", "recharge", "cloak") and not self.energy:
            raise FixedSpacesError("energy", f"the ship allocates energy ({name}, rules.energy, "
                                             "B3.0); FixedSpaces.energy is false")
        if kind == "cloak" and not self.cloak:
            raise FixedSpacesError("cloak", "the ship has a cloak component (G13); "
                                            "FixedSpaces.cloak is false")
        if kind in slots:
            field, have, what = slots[kind]
            if count > have:
                raise FixedSpacesError(field, f"the ship has {count} {what}; "
                                              f"FixedSpaces.{field} is {have}")
        field, most = sizes[kind]
        if size > most:
            raise FixedSpacesError(field, f"{name} has {size} values; FixedSpaces pads it to "
                                          f"{most} ({field})")

    def _fit_counts(self, shape: AgentShape) -> None:
        """The observation's counts against the fixed ones."""
        have, fixed = shape.counts, self.counts
        if have.slots != fixed.slots:
            raise FixedSpacesError("target_slots", f"the env has {have.slots} target slots; "
                                   f"FixedSpaces.target_slots is {self.target_slots}")
        if have.threats != fixed.threats:
            raise FixedSpacesError("threat_slots", f"the env has {have.threats} threat slots; "
                                   f"FixedSpaces.threat_slots is {self.threat_slots}")
        if have.weapons > fixed.weapons:
            raise FixedSpacesError("positions", f"the ship has {have.weapons} weapon positions; "
                                   f"FixedSpaces.positions is {self.positions}")
        if have.esgs > fixed.esgs:
            raise FixedSpacesError("esg_slots", f"the ship has {have.esgs} ESGs; "
                                   f"FixedSpaces.esg_slots is {self.esg_slots}")
        if have.ppds > fixed.ppds:
            raise FixedSpacesError("ppd_slots", f"the ship has {have.ppds} PPDs; "
                                   f"FixedSpaces.ppd_slots is {self.ppd_slots}")
        if have.plasma and not fixed.plasma:
            raise FixedSpacesError("plasma_threats", "the battle has a plasma launcher (the "
                                   "plasma threat block); FixedSpaces.plasma_threats is false")
        if have.energy and not fixed.energy:
            raise FixedSpacesError("energy", "the ship allocates energy (rules.energy, B3.0: "
                                   "the energy block); FixedSpaces.energy is false")
        if have.energy and have.arms > fixed.arms:
            raise FixedSpacesError("arms", f"the ship has {have.arms} heavy weapons (arm rows, "
                                   f"B3.0); FixedSpaces.arms is {self.arms}")
        extra = [n for n in have.rule_features
                 if n not in fixed.rule_features and n not in lay.VIEW_OPTIONS]
        if extra:
            raise FixedSpacesError("rule_features", f"the agent's observation has the "
                                   f"rule-features block {extra[0]!r}; FixedSpaces."
                                   f"rule_features is {list(self.rule_features)}")

    def _identity(self, shape: AgentShape) -> np.ndarray:
        """The identity block's set entries: the ship's race, then each foe's race."""
        if not self.races:
            return np.zeros(0, np.int64)
        base, n = self.placement.size, len(self.races)
        for what, race in [("the ship's", shape.race)] + [("a foe's", f) for f in shape.foes]:
            if race not in self.races:
                known = race or "unknown (a shape read from an nvec alone)"
                raise FixedSpacesError("races", f"{what} race is {known}; FixedSpaces.races "
                                                f"is {list(self.races)}")
        own = [base + self.races.index(shape.race)]
        return np.array(own + sorted(base + n + self.races.index(f) for f in set(shape.foes)),
                        np.int64)

    def _observation_map(self, counts: lay.Counts) -> np.ndarray:
        """Index in the padded vector of each value of the agent's vector: each block part's
        rows at the part's fixed offset; a view these spaces do not read (``lay.VIEW_OPTIONS``,
        e.g. the env's ``enemy_fire``) goes to the index after the vector (dropped)."""
        own, fixed = lay.place(counts), self.placement
        out = np.empty(own.size, np.int64)
        for part in own.parts:
            if not part.count:
                continue
            if part.block in lay.VIEW_OPTIONS and part.block not in self.rule_features:
                out[part.offset:part.offset + part.size] = self.observation_size
                continue
            to = fixed.part(part.block, part.part)
            out[part.offset:part.offset + part.size] = np.arange(to.offset, to.offset + part.size)
        return out


@dataclass(frozen=True, eq=False)
class _Maps:
    """One agent's padding: padded component of each own component (``action``), padded mask
    entry of each own entry (``mask``), the value-0 entry of each padded-only component
    (``hold``), padded vector index of each own observation value (``obs``)."""

    action: np.ndarray
    mask: np.ndarray
    hold: np.ndarray
    obs: np.ndarray
    identity: np.ndarray  # the identity block's entries set to 1 (``races``)


def _races(value: object) -> tuple[str, ...]:
    """``FixedSpaces.races`` checked: distinct races of the ship data (CTH-DATA), in the order
    given (the identity block's order)."""
    races = _known_names("races", value, RACES, "race")
    if len(set(races)) != len(races):
        raise FixedSpacesError("races", f"FixedSpaces.races lists a race twice: {list(races)}")
    return races


def _known_names(name: str, value: object, known: Sequence[str], what: str) -> tuple[str, ...]:
    """The list-of-names field ``name`` checked: a list (not one string) of ``what`` names,
    each one of ``known``; an error naming the field otherwise."""
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise FixedSpacesError(name, f"FixedSpaces.{name} must be a list of {what} names, "
                                     f"got {value!r}")
    unknown = [v for v in value if v not in known]
    if unknown:
        raise FixedSpacesError(name, f"FixedSpaces.{name}: unknown {what} {unknown[0]!r}; "
                                     f"expected some of {list(known)}")
    return tuple(value)
