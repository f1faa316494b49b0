"""Chart look-ups: weapon, turn-mode, damage-allocation and other charts of CTH-DATA.md.

The numbers live in ``sfb_env/data/*.yaml`` (see :mod:`sfb_env.data.charts`). A miss or no effect
is 0. An argument off a chart (unknown kind, negative range, range beyond a weapon's maximum, die 0
or 7) raises ``ValueError`` naming the argument, its value and the chart.

Dice: phaser-type charts (phasers, fusion) and the other 1d6 charts take a natural die 1..6. The
hit/miss weapons take a *modified* roll, because a drone target adds +2 (FD1.52): disruptor and
photon accept die 1..8, the PPD 2d6 roll 2..14; a roll above the hit number misses.

The ``*_chart`` functions return the compiled read-only numpy arrays for vectorised engine code.
"""

from __future__ import annotations

import sys

import numpy as np

from sfb_env.data.charts import (
    DICE,
    ESG_MAX_ENERGY,
    ESG_RADII,
    LAB_MAX_RANGE,
    TWO_DICE,
    Drone,
    HitChart,
    PPDChart,
    load_damage_allocation,
    load_misc_charts,
    load_turn_modes,
    load_weapons,
)

HIT_MISS_DIE = range(1, 9)  # natural 1d6 + 2 against drones (FD1.52)
PPD_ROLL = range(2, 15)  # natural 2d6 + 2 against drones (FD1.52)
NON_NEGATIVE = range(0, sys.maxsize)


def _arg(name: str, value: object, allowed: range, chart: str) -> int:
    """``value`` as an int inside ``allowed``, else ValueError naming argument, value and chart."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value in allowed:
        return int(value)
    low, high = allowed.start, allowed.stop - 1
    span = f">= {low}" if allowed.stop == sys.maxsize else f"{low}..{high}"
    raise ValueError(f"{name}={value!r} is off the {chart} chart (allowed {span})")


def _kind(name: str, value: object, known: dict, chart: str) -> str:
    if not isinstance(value, str) or value not in known:
        raise ValueError(f"{name}={value!r} is not a {chart} chart (known: {sorted(known)})")
    return str(value)


# ---------------------------------------------------------------- phasers and fusion (E2.4, E7.0)


def phaser_chart(kind: str) -> np.ndarray:
    """Damage by ``[die - 1, range]`` of ``ph-1``, ``ph-2``, ``ph-3`` or ``ph-g`` (E2.4, E2.152)."""
    phasers = load_weapons().phasers
    return phasers[_kind("kind", kind, phasers, "phaser")]


def phaser_max_range(kind: str) -> int:
    """Longest range on the phaser's chart (Ph-1 75, Ph-2 50, Ph-3/G 15)."""
    return phaser_chart(kind).shape[1] - 1


def phaser_damage(kind: str, rng: int, die: int) -> int:
    """Phaser damage at ``rng`` for a natural ``die`` 1..6; cannot fire beyond the chart (E2.4)."""
    chart = phaser_chart(kind)
    rng = _arg("rng", rng, range(chart.shape[1]), kind)
    return int(chart[_arg("die", die, DICE, kind) - 1, rng])


def fusion_chart() -> np.ndarray:
    """Fusion beam damage by ``[die - 1, range]``, ranges 0..24 (E7.0)."""
    return load_weapons().fusion


def fusion_damage(rng: int, die: int) -> int:
    """Fusion beam damage at ``rng`` for a natural ``die`` 1..6 (E7.0)."""
    chart = fusion_chart()
    rng = _arg("rng", rng, range(chart.shape[1]), "fusion")
    return int(chart[_arg("die", die, DICE, "fusion") - 1, rng])


# ---------------------------------------------------------------- disruptor and photon (E3.0, E4.0)


def disruptor_chart() -> HitChart:
    """The disruptor chart, ranges 0..40; 31-40 is not CTH (reached only with ``max_range`` 40)."""
    return load_weapons().disruptor


def disruptor_max_range(hull_class: str | None = None) -> int:
    """Disruptor maximum range: CTH 30 (E3.32), or by hull class (FF 10 ... DN/base 40)."""
    weapons = load_weapons()
    if hull_class is None:
        return weapons.disruptor_max_range
    by_hull = weapons.disruptor_max_range_by_hull
    return by_hull[_kind("hull_class", hull_class, by_hull, "disruptor hull-class range")]


def _disruptor_ranges(max_range: int | None) -> range:
    """Ranges a disruptor of ``max_range`` (default CTH 30) may fire at: 1..max_range."""
    chart = disruptor_chart()
    limit = disruptor_max_range() if max_range is None else max_range
    limit = _arg("max_range", limit, range(chart.min_range, chart.max_range + 1), "disruptor")
    return range(chart.min_range, limit + 1)


def disruptor_hit_number(rng: int, max_range: int | None = None) -> int:
    """Disruptor hit number (hit if die <= it) at effective range ``rng`` (E3.31)."""
    rng = _arg("rng", rng, _disruptor_ranges(max_range), "disruptor")
    return int(disruptor_chart().hit_number[rng])


def disruptor_damage(
    rng: int, die: int, true_range: int | None = None, max_range: int | None = None
) -> int:
    """Disruptor damage: hit by effective ``rng``, damage by ``true_range`` (default rng) (E3.31).

    Ranges below 1 or beyond ``max_range`` (default CTH 30, see :func:`disruptor_max_range`) cannot
    fire and raise ValueError; ``die`` is the modified roll 1..8.
    """
    hit = disruptor_hit_number(rng, max_range)
    true = rng if true_range is None else true_range
    true = _arg("true_range", true, _disruptor_ranges(max_range), "disruptor")
    die = _arg("die", die, HIT_MISS_DIE, "disruptor")
    return int(disruptor_chart().damage[true]) if die <= hit else 0


def photon_chart() -> HitChart:
    """The photon torpedo chart, ranges 0..30; 0-1 cannot fire (E4.0)."""
    return load_weapons().photon


def photon_hit_number(rng: int) -> int:
    """Photon hit number (hit if die <= it) at range ``rng`` 2..30 (E4.0)."""
    chart = photon_chart()
    rng = _arg("rng", rng, range(chart.min_range, chart.max_range + 1), "photon")
    return int(chart.hit_number[rng])


def photon_damage(rng: int, die: int) -> int:
    """Photon damage at range ``rng`` 2..30 for a modified ``die`` 1..8 (E4.0)."""
    chart = photon_chart()
    hit = photon_hit_number(rng)
    return int(chart.damage[rng]) if _arg("die", die, HIT_MISS_DIE, "photon") <= hit else 0


# ---------------------------------------------------------------- PPD (E11.0)


def ppd_chart() -> PPDChart:
    """The PPD chart, ranges 0..40; hit number 0 = cannot lock (0-3)."""
    return load_weapons().ppd


def _ppd_range(name: str, rng: int) -> int:
    return _arg(name, rng, range(ppd_chart().max_range + 1), "ppd")


def ppd_hit_number(rng: int) -> int:
    """Wave-lock number (lock if 2d6 <= it) at effective range ``rng`` (E11.312); 0 at 0-3."""
    return int(ppd_chart().hit_number[_ppd_range("rng", rng)])


def ppd_damage(true_range: int) -> int:
    """Damage of one pulse at ``true_range`` once locked (E11.34); 0 in the myopic zone 0-3."""
    return int(ppd_chart().damage[_ppd_range("true_range", true_range)])


def ppd_pulse(rng: int, roll_2d6: int, true_range: int | None = None) -> int:
    """Damage of an unlocked pulse: lock on effective ``rng``, damage by ``true_range`` (E11.31)."""
    hit = ppd_hit_number(rng)
    damage = ppd_damage(rng if true_range is None else true_range)
    return damage if _arg("roll_2d6", roll_2d6, PPD_ROLL, "ppd") <= hit else 0


def ppd_splash(true_range: int) -> tuple[int, int, int]:
    """Pulse damage on (left-adjacent, facing, right-adjacent) shields (E11.352)."""
    left, centre, right = ppd_chart().splash[_ppd_range("true_range", true_range)].tolist()
    return left, centre, right


def ppd_alt(true_range: int) -> tuple[int, int]:
    """Pulse damage split over the two shields of an exact boundary (E11.351)."""
    a, b = ppd_chart().alt[_ppd_range("true_range", true_range)].tolist()
    return a, b


# ---------------------------------------------------------------- ESG, plasma, drones (G23, FP, FD)


def esg_chart() -> np.ndarray:
    """ESG field strength by ``[radius, energy - 1]`` (G23.42)."""
    return load_weapons().esg


def esg_strength(radius: int, energy: int) -> int:
    """ESG field strength for ``radius`` 0..3 and ``energy`` 1..5 (G23.42)."""
    radius = _arg("radius", radius, ESG_RADII, "esg")
    return int(esg_chart()[radius, _arg("energy", energy, range(1, ESG_MAX_ENERGY + 1), "esg") - 1])


def plasma_chart(kind: str) -> np.ndarray:
    """Warhead of plasma ``kind`` (R, S, F; G not CTH) by hexes; the last cell is open-ended."""
    plasma = load_weapons().plasma
    return plasma[_kind("kind", kind, plasma, "plasma")]


def plasma_warhead(kind: str, hexes: int) -> int:
    """Warhead of plasma ``kind`` after ``hexes`` >= 0 hexes travelled (FP1.0)."""
    chart = plasma_chart(kind)
    hexes = _arg("hexes", hexes, NON_NEGATIVE, f"plasma-{kind}")
    return int(chart[min(hexes, len(chart) - 1)])


def plasma_endurance(kind: str) -> int:
    """Endurance in hexes: S 25 (FP1.4); F 15 and R 30 are LOW inferences; G has none."""
    endurance = load_weapons().plasma_endurance
    return endurance[_kind("kind", kind, endurance, "plasma endurance")]


def drone(kind: str = "C-1") -> Drone:
    """Drone type data; ``C-1`` is the CTH drone (FD1.0), C4 and C6 are project proposals."""
    drones = load_weapons().drones
    return drones[_kind("kind", kind, drones, "drone")]


def drone_rack_capacity() -> int:
    """Drones one rack holds (FD1.0)."""
    return load_weapons().drone_rack_capacity


# ---------------------------------------------------------------- turn modes (C3.0)


def turn_mode_charts() -> tuple[str, ...]:
    """Names of every turn-mode chart: cadet ships, classes AA..F, seeking, shuttles, ..."""
    return tuple(load_turn_modes().charts)


def turn_mode_chart(chart: str) -> np.ndarray:
    """Turn mode by speed 0..32 for ``chart``; -1 where the chart has no entry."""
    charts = load_turn_modes().charts
    return charts[_kind("chart", chart, charts, "turn-mode")]


def turn_mode(chart: str, speed: int) -> int:
    """Turn mode of ``chart`` (e.g. ``fed-cadet``, ``D``, ``seeking``) at ``speed`` (C3.2)."""
    modes = turn_mode_chart(chart)
    mode = modes[_arg("speed", speed, range(len(modes)), f"{chart} turn-mode")]
    if mode < 0:
        raise ValueError(f"speed={speed!r} is off the {chart} turn-mode chart")
    return int(mode)


# ---------------------------------------------------------------- damage allocation (D4.21)


def cadet_dac_chart() -> tuple[np.ndarray, tuple[str, ...]]:
    """Cadet DAC as category indices ``[die - 1, column A..E]`` and the category names."""
    dac = load_damage_allocation()
    return dac.cadet, dac.cadet_categories


def cadet_dac(die: int) -> tuple[str, ...]:
    """Categories of columns A..E for a cadet DAC ``die`` (D4.21)."""
    indices, names = cadet_dac_chart()
    return tuple(names[i] for i in indices[_arg("die", die, DICE, "cadet DAC") - 1])


def cadet_dac_boxes() -> dict[str, tuple[str, ...]]:
    """SSD box labels each cadet DAC category covers (D4.21)."""
    return dict(load_damage_allocation().cadet_boxes)


def standard_dac_chart() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Standard DAC: system indices and bold flags by ``[roll - 2, column A..M]``; system names."""
    dac = load_damage_allocation()
    return dac.standard, dac.standard_bold, dac.standard_systems


def standard_dac(roll: int) -> tuple[tuple[str, bool], ...]:
    """(system, bold) of columns A..M for a 2d6 ``roll`` of the standard DAC (D4.21, D4.31)."""
    systems, bold, names = standard_dac_chart()
    row = _arg("roll", roll, TWO_DICE, "standard DAC") - 2
    return tuple((names[s], bool(b)) for s, b in zip(systems[row], bold[row], strict=True))


# ---------------------------------------------------------------- other charts


def quarter_turn(impulses_per_turn: int) -> int:
    """Impulses in a quarter turn on the 8-, 16- or 32-impulse chart (E1.5)."""
    quarter = load_misc_charts().quarter_turn
    ok = isinstance(impulses_per_turn, (int, np.integer)) and not isinstance(
        impulses_per_turn, bool
    )
    if not ok or impulses_per_turn not in quarter:
        raise ValueError(
            f"impulses_per_turn={impulses_per_turn!r} is off the quarter-turn chart "
            f"(allowed {sorted(quarter)})"
        )
    return quarter[int(impulses_per_turn)]


def boarding_party_chart() -> np.ndarray:
    """Boarding-party combat results by ``[die - 1, group size - 1]`` (D7.0)."""
    return load_misc_charts().boarding_party


def boarding_party_losses(group_size: int, die: int) -> int:
    """Enemy boarding parties a group of 1..10 eliminates with ``die`` (D7.0)."""
    chart = boarding_party_chart()
    size = _arg("group_size", group_size, range(1, chart.shape[1] + 1), "boarding-party")
    return int(chart[_arg("die", die, DICE, "boarding-party") - 1, size - 1])


def lab_chart() -> np.ndarray:
    """Lab information per box by ``[die - 1, range]``, ranges 0..10 (G4.0)."""
    return load_misc_charts().lab


def lab_information(rng: int, die: int) -> int:
    """Information per lab box at range ``rng`` >= 0 with ``die``; 0 beyond range 10 (G4.0)."""
    rng = _arg("rng", rng, NON_NEGATIVE, "lab")
    die = _arg("die", die, DICE, "lab")
    return int(lab_chart()[die - 1, rng]) if rng <= LAB_MAX_RANGE else 0


def planet_killer_max_range() -> int:
    """Longest range of the Planet Killer weapon (scenario 11)."""
    return load_misc_charts().planet_killer_max_range


def planet_killer_damage(die: int) -> int:
    """Planet Killer weapon damage for ``die`` at any range up to 6 (scenario 11)."""
    return int(load_misc_charts().planet_killer[_arg("die", die, DICE, "planet-killer") - 1])
