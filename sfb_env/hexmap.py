"""Hex map geometry: labels, neighbours, range (D1.4), firing arcs (D2) and shields hit (D3.4).

Hexes are flat-topped and stacked in vertical columns; a label ``XXYY`` is column XX (01-28,
from the left) and row YY (01-32, from the top). Directions run clockwise from A = up::

                 A                    even-down (printed map, default): even columns sit half a
            F  _____  B               hex lower than odd ones, so around 0314 (column 3, odd):
              /     \\                     A 0313  B 0413  C 0414  D 0315  E 0214  F 0213
             /  hex  \\               and around 2603 (column 26, even):
             \\       /                    A 2602  B 2703  C 2704  D 2604  E 2504  F 2503
            E \\_____/ C
                 D                    odd-down: the mirror parity (odd columns lower); it exists
                                      to reproduce the rules-file examples of CTH-DATA §13.1.

       col c odd (even-down)       col c even (even-down)
            A (c, r-1)                  A (c, r-1)
      F (c-1,r-1)  B (c+1,r-1)    F (c-1, r)    B (c+1, r)
      E (c-1, r)   C (c+1, r)     E (c-1,r+1)   C (c+1,r+1)
            D (c, r+1)                  D (c, r+1)

Internally a hex is an axial pair ``(x, z)`` of cube coordinates (``y = -x - z``); axial
arithmetic is parity-free, parity only enters when converting to and from labels. Every
label function takes ``parity="even-down"`` (default) or ``"odd-down"``. The ``*_np`` functions
work on integer arrays of axial coordinates for the engine's hot path.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from typing import Literal

import numpy as np

from sfb_env.data.ships import ARC_UNION, BASE_ARCS

Parity = Literal["even-down", "odd-down"]
PARITIES: tuple[str, ...] = ("even-down", "odd-down")

PRINTED_COLUMNS = 28  # columns 01-28 over sectors A-D
PRINTED_ROWS = 32  # rows 01-32 over sectors A-D


class Direction(IntEnum):
    """Map directions, clockwise from A = up (C1.2)."""

    A = 0
    B = 1
    C = 2
    D = 3
    E = 4
    F = 5


DIRECTION_LETTERS = "ABCDEF"

# Axial (x, z) unit vectors of directions A..F (CTH-DATA §1.3).
DIR_TO_AXIAL = np.array([(0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0)], dtype=np.int64)
# Its two columns as contiguous arrays: the axial x and z step of directions A..F (the
# compiled core indexes them by direction).
DIR_DX = DIR_TO_AXIAL[:, 0].copy()
DIR_DZ = DIR_TO_AXIAL[:, 1].copy()
# Cube (x, y, z) unit vectors of directions A..F.
DIR_TO_CUBE = np.array(
    [(0, 1, -1), (1, 0, -1), (1, -1, 0), (0, -1, 1), (-1, 0, 1), (-1, 1, 0)], dtype=np.int64
)

# (D2.1) The six arcs, each bounded by rows in directions facing+k and facing+k+1, and
# (D2.2) the combined arcs as unions: one vocabulary, defined with the ship data.
COMBINED_ARCS: dict[str, tuple[str, ...]] = {
    name: parts for name, parts in ARC_UNION.items() if name not in BASE_ARCS
}
ARC_NAMES: tuple[str, ...] = BASE_ARCS + tuple(COMBINED_ARCS)

# Bit k set = base arc k (index in BASE_ARCS).
ARC_BITS: dict[str, int] = {name: 1 << k for k, name in enumerate(BASE_ARCS)}
for _name, _parts in COMBINED_ARCS.items():
    ARC_BITS[_name] = sum(ARC_BITS[p] for p in _parts)
# The row straight astern is the boundary shared by RR and LR.
ASTERN_ROW_BITS = ARC_BITS["RR"] | ARC_BITS["LR"]


# --------------------------------------------------------------------------- labels


def _check_parity(parity: str) -> None:
    if parity not in PARITIES:
        raise ValueError(f"unknown parity {parity!r}; expected one of {list(PARITIES)}")


def parse_label(label: str) -> tuple[int, int]:
    """``"0517"`` -> ``(5, 17)``; anything not a hex of the printed map raises ValueError."""
    if not isinstance(label, str) or len(label) != 4 or not label.isdigit() or not label.isascii():
        raise ValueError(f"malformed hex label {label!r}: expected four digits XXYY")
    col, row = int(label[:2]), int(label[2:])
    if not (1 <= col <= PRINTED_COLUMNS and 1 <= row <= PRINTED_ROWS):
        raise ValueError(
            f"hex {label} is off the map: columns 01-{PRINTED_COLUMNS}, rows 01-{PRINTED_ROWS}"
        )
    return col, row


def format_label(col: int, row: int) -> str:
    """``(5, 17)`` -> ``"0517"``; a hex off the printed map raises ValueError."""
    if not (1 <= col <= PRINTED_COLUMNS and 1 <= row <= PRINTED_ROWS):
        raise ValueError(
            f"hex column {col}, row {row} is off the map: "
            f"columns 01-{PRINTED_COLUMNS}, rows 01-{PRINTED_ROWS}"
        )
    return f"{col:02d}{row:02d}"


def offset_to_axial_np(
    col: np.ndarray | int, row: np.ndarray | int, parity: Parity = "even-down"
) -> tuple[np.ndarray, np.ndarray]:
    """1-based (column, row) arrays -> axial (x, z) arrays (CTH-DATA §1.3 cube formulas)."""
    _check_parity(parity)
    q = np.asarray(col, dtype=np.int64) - 1
    s = np.asarray(row, dtype=np.int64) - 1
    odd = q & 1
    z = s - (q - odd) // 2 if parity == "even-down" else s - (q + odd) // 2
    return q, z


def axial_to_offset_np(
    x: np.ndarray | int, z: np.ndarray | int, parity: Parity = "even-down"
) -> tuple[np.ndarray, np.ndarray]:
    """Axial (x, z) arrays -> 1-based (column, row) arrays; no bounds check."""
    _check_parity(parity)
    q = np.asarray(x, dtype=np.int64)
    z = np.asarray(z, dtype=np.int64)
    odd = q & 1
    s = z + (q - odd) // 2 if parity == "even-down" else z + (q + odd) // 2
    return q + 1, s + 1


def label_to_axial(label: str, parity: Parity = "even-down") -> tuple[int, int]:
    """Label -> axial ``(x, z)``."""
    col, row = parse_label(label)
    x, z = offset_to_axial_np(col, row, parity)
    return int(x), int(z)


def axial_to_label(x: int, z: int, parity: Parity = "even-down") -> str:
    """Axial ``(x, z)`` -> label; a hex off the printed map raises ValueError."""
    col, row = axial_to_offset_np(x, z, parity)
    return format_label(int(col), int(row))


def label_to_cube(label: str, parity: Parity = "even-down") -> tuple[int, int, int]:
    """Label -> cube ``(x, y, z)`` with x + y + z = 0."""
    x, z = label_to_axial(label, parity)
    return x, -x - z, z


def cube_to_label(cube: tuple[int, int, int], parity: Parity = "even-down") -> str:
    """Cube ``(x, y, z)`` -> label."""
    x, y, z = (int(c) for c in cube)
    if x + y + z != 0:
        raise ValueError(f"cube coordinates {cube!r} do not sum to 0")
    return axial_to_label(x, z, parity)


def direction_index(direction: str | int) -> int:
    """``"A".."F"`` or ``0..5`` -> ``0..5``; anything else raises ValueError."""
    if isinstance(direction, str):
        if len(direction) == 1 and direction.upper() in DIRECTION_LETTERS:
            return DIRECTION_LETTERS.index(direction.upper())
    elif (
        isinstance(direction, (int, np.integer))
        and not isinstance(direction, bool)
        and 0 <= int(direction) <= 5
    ):
        return int(direction)
    raise ValueError(f"unknown direction {direction!r}: expected 'A'..'F' or 0..5 (C1.2)")


def direction_letter(direction: str | int) -> str:
    """Direction -> its letter ``"A".."F"``."""
    return DIRECTION_LETTERS[direction_index(direction)]


def turn(facing: str | int, steps: int) -> str:
    """Facing after ``steps`` 60-degree turns, + = right (clockwise), - = left."""
    return DIRECTION_LETTERS[(direction_index(facing) + steps) % 6]


# --------------------------------------------------------------------------- numpy kernels


def neighbor_np(x: np.ndarray, z: np.ndarray, direction: np.ndarray | int):
    """Axial neighbour(s) in ``direction`` (0..5)."""
    d = np.asarray(direction, dtype=np.int64) % 6
    return np.asarray(x) + DIR_TO_AXIAL[d, 0], np.asarray(z) + DIR_TO_AXIAL[d, 1]


def distance_np(x1, z1, x2, z2) -> np.ndarray:
    """(D1.4) Hex distance = max of the absolute cube differences."""
    dx = np.asarray(x2) - np.asarray(x1)
    dz = np.asarray(z2) - np.asarray(z1)
    return np.maximum(np.maximum(np.abs(dx), np.abs(dz)), np.abs(dx + dz))


def _arc_bits_formula(vx: np.ndarray, vz: np.ndarray, f: np.ndarray) -> np.ndarray:
    """(D2.1) Arc membership by the a, b >= 0 rule (see ``arc_bits_np``)."""
    bits = np.zeros(np.broadcast(vx, vz, f).shape, dtype=np.int64)
    for k in range(6):
        u1 = DIR_TO_AXIAL[(f + k) % 6]
        u2 = DIR_TO_AXIAL[(f + k + 1) % 6]
        # Determinant of adjacent unit vectors is +1, so a and b are the integer coordinates.
        a = vx * u2[..., 1] - vz * u2[..., 0]
        b = u1[..., 0] * vz - u1[..., 1] * vx
        bits |= ((a >= 0) & (b >= 0)).astype(np.int64) << k
    return bits


def _shield_mask_formula(vx: np.ndarray, vz: np.ndarray, f: np.ndarray) -> np.ndarray:
    """(D3.4) Shields struck by the rule of ``shield_scores_np``, as a 6-bit mask."""
    v = np.stack(np.broadcast_arrays(vx, -vx - vz, vz), axis=-1)
    dirs = (f[..., None] + np.arange(6)) % 6
    scores = np.einsum("...c,...kc->...k", v, DIR_TO_CUBE[dirs])
    hit = scores == scores.max(axis=-1, keepdims=True)
    return (hit.astype(np.int64) << np.arange(6)).sum(axis=-1)


# Lookup tables over every offset the printed map allows (|dx|, |dz| <= LUT_RADIUS), indexed
# [facing, dx + R, dz + R]; built once with the formulas above, so they cannot disagree.
LUT_RADIUS = 64
_GRID = np.arange(-LUT_RADIUS, LUT_RADIUS + 1)
_VX, _VZ, _F = np.meshgrid(_GRID, _GRID, np.arange(6), indexing="ij")
ARC_LUT = np.ascontiguousarray(_arc_bits_formula(_VX, _VZ, _F).transpose(2, 0, 1))
SHIELD_LUT = np.ascontiguousarray(_shield_mask_formula(_VX, _VZ, _F).transpose(2, 0, 1))
ARC_LUT.setflags(write=False)
SHIELD_LUT.setflags(write=False)
del _VX, _VZ, _F


def _lut(table: np.ndarray, vx, vz, f) -> np.ndarray:
    vx = np.asarray(vx, dtype=np.int64)
    vz = np.asarray(vz, dtype=np.int64)
    f = np.asarray(f, dtype=np.int64) % 6
    if (np.abs(vx) > LUT_RADIUS).any() or (np.abs(vz) > LUT_RADIUS).any():  # not np.any:
        # the array method skips numpy's Python-level dispatch (a third of a call here)
        formula = _arc_bits_formula if table is ARC_LUT else _shield_mask_formula
        return formula(vx, vz, f)
    return table[f, vx + LUT_RADIUS, vz + LUT_RADIUS]


def arc_bits_np(x, z, facing, tx, tz) -> np.ndarray:
    """(D2.1) Bitmask of the base arcs (``BASE_ARCS`` order) that contain each target.

    A target offset v lies in the arc bounded by directions d1 and d2 = d1 + 1 iff
    v = a*u(d1) + b*u(d2) with a, b >= 0; the bounding rows belong to both arcs. A target in
    the firer's own hex (v = 0) is in every arc; callers apply (D3.42) before asking.
    """
    vx = np.asarray(tx, dtype=np.int64) - np.asarray(x, dtype=np.int64)
    vz = np.asarray(tz, dtype=np.int64) - np.asarray(z, dtype=np.int64)
    return _lut(ARC_LUT, vx, vz, facing)


def shield_scores_np(x, z, facing, fx, fz) -> np.ndarray:
    """(D3.4) Scores of shields #1..#6 of a target at (x, z) for a line from (fx, fz).

    score_k = v . U(facing + k - 1) with v = firer - target in cube coordinates; the hit
    shield has the highest score, and two adjacent shields tie exactly when the line runs
    along a hexside junction. Shape: broadcast shape + (6,).
    """
    vx = np.asarray(fx, dtype=np.int64) - np.asarray(x, dtype=np.int64)
    vz = np.asarray(fz, dtype=np.int64) - np.asarray(z, dtype=np.int64)
    v = np.stack(np.broadcast_arrays(vx, -vx - vz, vz), axis=-1)
    f = np.asarray(facing, dtype=np.int64)
    dirs = (f[..., None] + np.arange(6)) % 6
    return np.einsum("...c,...kc->...k", v, DIR_TO_CUBE[dirs])


def shield_bits_np(x, z, facing, fx, fz) -> np.ndarray:
    """(D3.4) 6-bit mask (bit k = shield #k+1) of the shields struck from (fx, fz)."""
    vx = np.asarray(fx, dtype=np.int64) - np.asarray(x, dtype=np.int64)
    vz = np.asarray(fz, dtype=np.int64) - np.asarray(z, dtype=np.int64)
    return _lut(SHIELD_LUT, vx, vz, facing)


def shields_hit_mask_np(x, z, facing, fx, fz) -> np.ndarray:
    """(D3.4) Boolean mask (..., 6) of the shields struck: one, or two on an exact boundary."""
    bits = shield_bits_np(x, z, facing, fx, fz)
    return ((np.asarray(bits)[..., None] >> np.arange(6)) & 1).astype(bool)


# --------------------------------------------------------------------------- label API


def neighbor(label: str, direction: str | int, parity: Parity = "even-down") -> str:
    """The hex adjacent to ``label`` in map direction ``direction`` (C1.2)."""
    x, z = label_to_axial(label, parity)
    nx, nz = neighbor_np(x, z, direction_index(direction))
    return axial_to_label(int(nx), int(nz), parity)


def distance(a: str, b: str, parity: Parity = "even-down") -> int:
    """(D1.4) Range between two hexes: the target's hex counts, the firer's does not."""
    x1, z1 = label_to_axial(a, parity)
    x2, z2 = label_to_axial(b, parity)
    return int(distance_np(x1, z1, x2, z2))


def arc_bits(arc: str) -> int:
    """Bitmask of base arcs making up ``arc`` (a name of ``ARC_NAMES``)."""
    try:
        return ARC_BITS[arc]
    except KeyError:
        raise ValueError(f"unknown firing arc {arc!r}; expected one of {list(ARC_NAMES)}") from None


def in_arc(
    origin: str, facing: str | int, target: str, arc: str, parity: Parity = "even-down"
) -> bool:
    """(D2.1, D2.2) Whether ``target`` lies in ``arc`` of a unit in ``origin`` facing ``facing``.

    Boundary rows belong to both neighbouring arcs. Same hex raises: (D3.42) judges range-0
    arcs from the previous impulse's positions.
    """
    bits = arc_bits(arc)
    f = direction_index(facing)
    if origin == target:
        raise ValueError(f"target {target} is in the firer's hex: arcs at range 0 follow (D3.42)")
    x, z = label_to_axial(origin, parity)
    tx, tz = label_to_axial(target, parity)
    return bool(int(arc_bits_np(x, z, f, tx, tz)) & bits)


def shields_hit(
    target: str, facing: str | int, firer: str, parity: Parity = "even-down"
) -> tuple[int, ...]:
    """(D3.4) Shield number(s) of ``target`` (facing ``facing``) struck by fire from ``firer``.

    One shield, or two adjacent ones when the line runs exactly along a hexside (left for
    (D3.41) to resolve). Same hex raises: (D3.42) uses the previous impulse's positions.
    """
    f = direction_index(facing)
    if target == firer:
        raise ValueError(f"firer in the target's hex {target}: shields at range 0 follow (D3.42)")
    x, z = label_to_axial(target, parity)
    fx, fz = label_to_axial(firer, parity)
    mask = shields_hit_mask_np(x, z, f, fx, fz)
    return tuple(int(k) + 1 for k in np.flatnonzero(mask))


def row_hexes(
    origin: str, direction: str | int, length: int, parity: Parity = "even-down"
) -> list[str]:
    """The ``length`` hexes of the straight row from ``origin`` in ``direction`` (D2.1)."""
    x, z = label_to_axial(origin, parity)
    d = direction_index(direction)
    out = []
    for _ in range(length):
        x, z = (int(v) for v in neighbor_np(x, z, d))
        out.append(axial_to_label(x, z, parity))
    return out


# --------------------------------------------------------------------------- map areas


@dataclass(frozen=True)
class MapArea:
    """A rectangle of the printed map where play happens; leaving it disengages a unit."""

    first_column: int
    last_column: int
    first_row: int
    last_row: int

    def __post_init__(self) -> None:
        if not (1 <= self.first_column <= self.last_column <= PRINTED_COLUMNS):
            raise ValueError(
                f"map columns {self.first_column}-{self.last_column} outside 01-{PRINTED_COLUMNS}"
            )
        if not (1 <= self.first_row <= self.last_row <= PRINTED_ROWS):
            raise ValueError(f"map rows {self.first_row}-{self.last_row} outside 01-{PRINTED_ROWS}")

    @property
    def shape(self) -> tuple[int, int]:
        """(columns, rows)."""
        return (
            self.last_column - self.first_column + 1,
            self.last_row - self.first_row + 1,
        )

    def contains(self, label: str) -> bool:
        """Whether a hex (valid label) lies in the area."""
        col, row = parse_label(label)
        return bool(self.contains_offset_np(col, row))

    def contains_offset_np(self, col, row) -> np.ndarray:
        """Vectorised containment test on 1-based columns and rows."""
        col = np.asarray(col)
        row = np.asarray(row)
        return (
            (col >= self.first_column)
            & (col <= self.last_column)
            & (row >= self.first_row)
            & (row <= self.last_row)
        )

    def contains_axial_np(self, x, z, parity: Parity = "even-down") -> np.ndarray:
        """Vectorised containment test on axial coordinates."""
        col, row = axial_to_offset_np(x, z, parity)
        return self.contains_offset_np(col, row)

    def labels(self) -> list[str]:
        """Every hex of the area, column by column."""
        return [
            format_label(c, r)
            for c in range(self.first_column, self.last_column + 1)
            for r in range(self.first_row, self.last_row + 1)
        ]

    def axial_labels(self, parity: Parity = "even-down") -> dict[tuple[int, int], str]:
        """Every hex of the area as axial ``(x, z)`` -> label, column by column (a new dict
        each call; the conversion is done once per area and parity)."""
        return dict(_axial_labels(self, parity))


@lru_cache(maxsize=64)
def _axial_labels(area: MapArea, parity: Parity) -> tuple[tuple[tuple[int, int], str], ...]:
    """``MapArea.axial_labels`` as pairs, kept: the conversion was most of building a battle."""
    return tuple((label_to_axial(label, parity), label) for label in area.labels())


# The printed CTH map: four sectors of 14 columns x 16 rows.
SECTORS: dict[str, MapArea] = {
    "A": MapArea(1, 14, 1, 16),
    "B": MapArea(15, 28, 1, 16),
    "C": MapArea(1, 14, 17, 32),
    "D": MapArea(15, 28, 17, 32),
}
MAP_AREAS: dict[str, MapArea] = {
    **SECTORS,
    "A+B": MapArea(1, 28, 1, 16),
    "C+D": MapArea(1, 28, 17, 32),
    "A-D": MapArea(1, 28, 1, 32),
    # PROPOSAL [P-008] (CTH-DATA §1.1): set-ups using row 17 of the "A+B map" play on rows 01-17.
    "A+B+row17": MapArea(1, 28, 1, 17),
    "A+row17": MapArea(1, 14, 1, 17),
}


def map_area(name: str) -> MapArea:
    """A named play area of the printed map (sectors, "A+B", "A-D", ...)."""
    try:
        return MAP_AREAS[name]
    except KeyError:
        raise ValueError(f"unknown map area {name!r}; expected one of {list(MAP_AREAS)}") from None


def sector_of(label: str) -> str:
    """Letter of the printed sector holding ``label``."""
    col, row = parse_label(label)
    return ("A" if col <= 14 else "B") if row <= 16 else ("C" if col <= 14 else "D")
