"""The observation vector's layout, declared once: blocks of rows of named fields.

Every value of ``obs["observation"]`` is a field of a row of a block. A ``Field`` has a name, a
size (a one-hot or a per-shield group is one field), a scale (the divisor: a number, the name
of a per-scenario quantity such as ``"max speed"``, or None for 0/1 flags, one-hots and
sin/cos pairs) and its meaning. A ``Row`` is the fields in order; a ``Block`` is rows repeated
a number of times that depends on the agent (``"weapons"``, ``"slots"``, ``"1 + slots"``, ...).
``BLOCKS`` lists every block in vector order; ``place(counts)`` gives one agent's
``Placement`` (the offset of every block, row and field), read by the encoder
(``env.observation``, ``env.rule_features``), by the captains' decoder
(``agents.observation_view``), by the docs test (docs/observation.md) and by the tests.
Blocks with a zero count are absent (so every scenario keeps its size).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import NamedTuple

from sfb_env.engine import cloak, planet_killer, ppd, probes, transporters

Scale = float | str | None


@dataclass(frozen=True)
class Field:
    """One named value (or group of values) of a row."""

    name: str
    size: int = 1
    scale: Scale = None  # value = quantity / scale (None: a flag, one-hot or sin/cos)
    meaning: str = ""


@dataclass(frozen=True)
class Row:
    """Fields in order; ``at(name)`` is a field's offset within the row."""

    fields: tuple[Field, ...]
    offsets: dict[str, int] = field(init=False, compare=False, repr=False)
    size: int = field(init=False, compare=False, repr=False)  # values in one row
    by_name: dict[str, Field] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        at, offsets = 0, {}
        for f in self.fields:
            offsets[f.name] = at
            at += f.size
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "size", at)
        object.__setattr__(self, "by_name", {f.name: f for f in self.fields})

    def at(self, name: str) -> int:
        """Offset of field ``name`` within the row."""
        return self.offsets[name]

    def slice(self, name: str) -> slice:
        """The field's values within the row."""
        start = self.offsets[name]
        return slice(start, start + self.field(name).size)

    def field(self, name: str) -> Field:
        return self.by_name[name]

    def values(self, **fields: float) -> list[float]:
        """One row's values in declared order from one-value fields given by name (every field
        of the row, no other: a row written against its declaration)."""
        if set(fields) != set(self.offsets) or any(f.size != 1 for f in self.fields):
            raise ValueError(f"row fields {list(self.offsets)}, given {list(fields)}")
        return [fields[f.name] for f in self.fields]

    def read(self, values) -> dict[str, object]:
        """One row's ``values`` by field name (each field's values, a slice of the row)."""
        return {f.name: values[self.slice(f.name)] for f in self.fields}


@dataclass(frozen=True)
class Part:
    """``row`` repeated ``count`` times (a count name: see ``Counts.rows``)."""

    name: str
    row: Row
    count: str = "1"


@dataclass(frozen=True)
class Block:
    """A named stretch of the vector: its parts in order, and when it is present."""

    name: str
    parts: tuple[Part, ...]
    when: str = "always"


def _f(name: str, size: int = 1, scale: Scale = None, meaning: str = "") -> Field:
    return Field(name, size, scale, meaning)


# ---------------------------------------------------------------------- the rows

OWN = Row((
    _f("column", 1, 28.0, "column / 28"), _f("row", 1, 32.0, "row / 32"),
    _f("edges", 4, 28.0, "distance to the play-area edges west, east, north, south / 28"),
    _f("facing", 6, None, "facing one-hot (A..F)"),
    _f("speed", 1, "max speed", "speed / maximum speed"),
    _f("moves_next", 1, None, "1 if the ship moves on the next impulse"),
    _f("can_turn", 1, None, "1 if the ship moves next and its turn mode is satisfied"),
    _f("straight", 1, 8.0, "straight hexes since the last turn / 8 (clipped)"),
    _f("shields", 6, "initial", "shields #1..#6 remaining fraction"),
    _f("internal", 1, "internal boxes",
       "internal points taken / internal boxes at the start (capped at 1: excess damage)"),
))
WEAPON = Row((
    _f("usable", 1, None, "usable now"), _f("destroyed", 1, None, "destroyed"),
    _f("drones_left", 1, 4.0, "drones left / 4 (a plasma launcher: 1 if armed, FP1.22)"),
))
CLOCK = Row((
    _f("turn", 1, "max turns", "turn / max turns (capped at 1: the end of the last turn)"),
    _f("impulse", 1, "impulses per turn", "impulse / impulses per turn"),
    _f("impulses_per_turn", 1, 32.0, "impulses per turn / 32"),
))
RANGE_SCALE = 30.0
SLOT = Row((
    _f("present"), _f("kind", 3, None, "kind one-hot: ship, freighter, drone (or plasma)"),
    _f("range", 1, RANGE_SCALE, "range / 30"),
    _f("bearing", 2, None, "bearing sin, cos (clockwise from our facing)"),
    _f("relative_facing", 2, None, "relative facing sin, cos (its facing minus ours)"),
    _f("shield_facing_us", 6, None, "which of its shields faces us, one-hot"),
    _f("shields", 6, "initial", "its shields #1..#6 remaining fraction"),
    _f("damage", 1, "strength", "damage taken / points that destroy it (capped at 1: a "
       "planet killer's damage toward method 3 is in the research block)"),
    _f("seeking_us", 1, None, "1 if it is a seeking weapon aimed at us"),
    _f("arcs", 6, None, "which of our base arcs hold it: RF, R, RR, LR, L, LF"),
))
THREAT = Row((
    _f("present"), _f("range", 1, RANGE_SCALE, "range / 30"),
    _f("bearing", 2, None, "bearing sin, cos"),
    _f("shield", 6, None, "our shield it would strike, one-hot"),
))
ESG_STRENGTH_SCALE = 20.0  # the strongest field on the chart (G23.42: radius 0, 5 energy)
ESG = Row((
    _f("stored", 1, "capacity", "energy stored / capacity (G23.21)"),
    _f("announced", 1, None, "1 if a release is announced (G23.31)"),
    _f("operating", 1, None, "1 if the field operates (G23.32)"),
    _f("radius", 1, 3.0, "announced or operating radius / 3"),
    _f("strength", 1, ESG_STRENGTH_SCALE, "operating field strength / 20"),
    _f("release_in", 1, "impulses per turn", "impulses until the announced release / I"),
    _f("expires_in", 1, "impulses per turn", "impulses until the operating field expires / I"),
    _f("can_announce", 1, None, "1 if an announcement is open now"),
))
PLASMA_WARHEAD_SCALE = 50.0  # the largest warhead on the chart (plasma-R, FP2.0)
PLASMA_THREAT = Row((
    _f("plasma", 1, None, "1 if the threat is a plasma torpedo"),
    _f("warhead", 1, PLASMA_WARHEAD_SCALE, "its current warhead / 50"),
))
ENERGY = Row((
    _f("power", 1, "total power", "power: warp + impulse + APR / the sheet's total power"),
    _f("batteries", 1, "battery boxes", "charged batteries / battery boxes"),
    _f("capacitor", 1, "capacity", "phaser capacitor energy / capacity"),
    _f("shortfall", 1, 10.0, "the last allocation's shortfall / 10 (clipped)"),
    _f("cloaked", 1, None, "1 if cloaked this turn"),
    _f("allocation_open", 1, None, "1 if Energy Allocation is open now"),
))
ENERGY_WEAPON = Row((
    _f("charged", 1, None, "holds a charge it may fire or launch"),
    _f("arming", 1, "cycle turns", "arming turns paid / turns of its cycle"),
))
PPD = Row((
    _f("armed_pulses", 1, float(ppd.MAX_PULSES), "pulses of the charge it may fire now / 4"),
    _f("pulsing", 1, None, "1 if a pulse train is running"),
    _f("locked", 1, None, "1 if the wave-lock is held (E11.331)"),
    _f("pulses_left", 1, float(ppd.MAX_PULSES), "pulses left in the train / 4"),
))

# rule-features rows (env.rule_features)
REINFORCEMENT = Row((_f("general", 1, 10.0), _f("specific", 6, 10.0)))
DAMAGE_CONTROL = Row((_f("rating", 1, 4.0), _f("repairs", 6, 2.0)))
LOCK_ON_OWN = Row((_f("own"),))
LOCK_ON_SLOT = Row((_f("holds"), _f("ours")))
CLOAK = Row((_f("engaged"), _f("fading_out"), _f("fading_in"),
            _f("fade_impulse", 1, float(cloak.FADE_IMPULSES))))
ESG_FIELD = Row((_f("operating"), _f("radius", 1, 3.0), _f("strength", 1, ESG_STRENGTH_SCALE)))
BOARDING_OWN = Row((_f("uses_left", 1, float(transporters.USES_PER_ENERGY)),
                    _f("shields_dropped", 6)))
BOARDING_ROW = Row((_f("our_parties", 1, 20.0), _f("other_parties", 1, 20.0),
                    _f("control_stations", 1, 8.0), _f("crew_units", 1, 4.0), _f("captured")))
RESEARCH = Row((_f("information", 1, 300.0), _f("kill_methods", 6), _f("probes_left", 1, 5.0),
                _f("arming_information"), _f("arming_antimatter"),
                _f("arming_turns", 1, float(probes.ARMING_TURNS)), _f("armed"),
                _f("method_3_damage", 1, float(planet_killer.KILL_DAMAGE))))
TRACTORS_OWN = Row((_f("holding", 1, 3.0), _f("free", 1, 3.0), _f("towed", 1, 4.0)))
TRACTOR_SLOT = Row((_f("held_by_us"), _f("held_by_other")))
# (E1.5, E4, FD2, FP1) what the other ships fired: weapons fire in the open, so a captain
# knows which of a ship's weapons fired this turn and when (env.rule_features._enemy_fire)
FIRE_GROUPS = ("phasers", "heavy", "launchers")  # PH1..PHG; disruptor..PPD; plasma, drones
ENEMY_FIRE = Row((
    _f("fired", 3, None, "per group (phasers, heavy weapons, launchers): the fraction of its "
       "weapons of the group that fired or launched this turn"),
    _f("since", 3, "impulses per turn", "per group: impulses since one last fired / I "
       "(capped at 1; 1 if none has)"),
))

# ---------------------------------------------------------------------- the blocks, in order

RULE_FEATURES = (
    Block("reinforcement", (Part("reinforcement", REINFORCEMENT),), "rules.reinforcement"),
    Block("damage_control", (Part("damage_control", DAMAGE_CONTROL),), "rules.damage_control"),
    Block("lock_on", (Part("own", LOCK_ON_OWN), Part("slots", LOCK_ON_SLOT, "slots")),
          "rules.lock_on"),
    Block("cloak", (Part("ships", CLOAK, "1 + slots"),), "rules.cloak: standard"),
    Block("esg_fields", (Part("ships", ESG_FIELD, "2 (1 + slots)"),), "an ESG in use"),
    Block("boarding", (Part("own", BOARDING_OWN), Part("ships", BOARDING_ROW, "1 + slots")),
          "rules.transporters or rules.boarding"),
    Block("research", (Part("research", RESEARCH),), "rules.labs or rules.probes"),
    Block("tractors", (Part("own", TRACTORS_OWN), Part("slots", TRACTOR_SLOT, "slots")),
          "rules.tractors"),
    Block("enemy_fire", (Part("slots", ENEMY_FIRE, "slots"),),
          "the env's enemy_fire option (an observation, not a rule)"),
)
BLOCKS = (
    Block("own", (Part("own", OWN), Part("weapons", WEAPON, "weapons"))),
    Block("clock", (Part("clock", CLOCK),)),
    Block("targets", (Part("targets", SLOT, "slots"),)),
    Block("threats", (Part("threats", THREAT, "threats"),)),
    Block("esg", (Part("esg", ESG, "esgs"),), "ships with an ESG"),
    Block("plasma_threats", (Part("plasma_threats", PLASMA_THREAT, "plasma threats"),),
          "battles with a plasma launcher"),
    Block("energy", (Part("energy", ENERGY, "energy"), Part("arms", ENERGY_WEAPON, "arms")),
          "rules.energy"),
    Block("ppd", (Part("ppd", PPD, "ppds"),), "ships with a PPD"),
    *RULE_FEATURES,
)
RULE_FEATURE_NAMES = tuple(b.name for b in RULE_FEATURES)
# the rule-features blocks an env option adds rather than a rule: views a policy may leave
# unread (``FixedSpaces`` drops one its ``rule_features`` does not list)
VIEW_OPTIONS = ("enemy_fire",)


class Counts(NamedTuple):
    """What sizes one agent's vector: weapon positions, target and threat slots, ESGs, whether
    the plasma threat block and the energy block are present (and ``arm[h]`` count), PPDs and
    the rule-features sub-blocks in use."""

    weapons: int
    slots: int
    threats: int
    esgs: int = 0
    plasma: bool = False
    energy: bool = False
    arms: int = 0
    ppds: int = 0
    rule_features: tuple[str, ...] = ()

    def rows(self, block: str, count: str) -> int:
        """How many times a part of ``block`` with count name ``count`` repeats."""
        if block in RULE_FEATURE_NAMES and block not in self.rule_features:
            return 0
        k = self.slots
        return {"1": 1, "weapons": self.weapons, "slots": k, "1 + slots": 1 + k,
                "2 (1 + slots)": 2 * (1 + k), "threats": self.threats, "esgs": self.esgs,
                "plasma threats": self.threats if self.plasma else 0,
                "energy": int(self.energy), "arms": self.arms if self.energy else 0,
                "ppds": self.ppds}[count]


@dataclass(frozen=True)
class Placed:
    """One part of a block in one agent's vector."""

    block: str
    part: str
    row: Row
    count: int
    offset: int

    @property
    def size(self) -> int:
        return self.row.size * self.count

    def index(self, name: str, row: int = 0) -> int:
        """Index in the vector of field ``name`` of row ``row``."""
        return self.offset + row * self.row.size + self.row.at(name)

    def slice(self, name: str, row: int = 0) -> slice:
        start = self.index(name, row)
        return slice(start, start + self.row.field(name).size)


@dataclass(frozen=True)
class Placement:
    """Every block part of one agent's vector with its offset (``place``)."""

    parts: tuple[Placed, ...]
    size: int
    _index: dict = field(init=False, compare=False, repr=False)

    _spans: dict = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        index: dict = {}
        spans: dict = {}
        for p in self.parts:
            index.setdefault((p.block, None), p)
            index.setdefault((p.block, p.part), p)
            start, size = spans.get(p.block, (p.offset, 0))
            spans[p.block] = (start, size + p.size)
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_spans", {b: slice(start, start + size)
                                            for b, (start, size) in spans.items()})

    def part(self, block: str, part: str | None = None) -> Placed:
        """A block's part (its first part if ``part`` is None)."""
        try:
            return self._index[(block, part)]
        except KeyError:
            raise KeyError(f"no part {part!r} of block {block!r}") from None

    def span(self, block: str) -> slice:
        """The whole block (an empty slice at its place where absent)."""
        return self._spans[block]  # (its parts are adjacent: ``place``)

    def read(self, vector, block: str, part: str | None = None, row: int = 0
             ) -> dict[str, object]:
        """Row ``row`` of a block's part of ``vector``, by field name (``Row.read``)."""
        placed = self.part(block, part)
        if not 0 <= row < placed.count:
            raise IndexError(f"{block}: row {row} of {placed.count}")
        start = placed.offset + row * placed.row.size
        return placed.row.read(vector[start:start + placed.row.size])


@functools.lru_cache(maxsize=256)
def place(counts: Counts) -> Placement:
    """The offsets of every block part for an agent with ``counts`` (cached: a placement is
    frozen and agents of one scenario share a few)."""
    parts, at = [], 0
    for block in BLOCKS:
        for part in block.parts:
            placed = Placed(block.name, part.name, part.row, counts.rows(block.name, part.count),
                            at)
            parts.append(placed)
            at += placed.size
    return Placement(tuple(parts), at)


def block_size(name: str, slots: int) -> int:
    """Length of rule-features sub-block ``name`` with ``slots`` target slots."""
    counts = Counts(0, slots, 0, rule_features=(name,))
    block = next(b for b in RULE_FEATURES if b.name == name)
    return sum(p.row.size * counts.rows(name, p.count) for p in block.parts)
