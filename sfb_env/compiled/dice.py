"""The battle's dice in compiled code: numpy's PCG64 and ``Generator.integers``, bit for bit.

Each battle of a batch has its own generator, seeded as ``make_battle(scenario, seed)`` seeds
the reference engine (``numpy.random.default_rng(seed)``). A generator is one row of a
``(B, 6)`` uint64 array: state high and low words, increment high and low words, the
``has_uint32`` flag and the buffered ``uinteger`` (numpy's ``bit_generator.state``). ``roll``
draws what ``Generator.integers(low, high)`` draws for a range below 2**32 (numpy's buffered
Lemire method on 32-bit outputs), so both engines roll the same dice in the same order.
"""

from __future__ import annotations

import numba as nb
import numpy as np

STATE_HI, STATE_LO, INC_HI, INC_LO, HAS_UINT32, UINTEGER = range(6)
DICE_WORDS = 6
_MASK64 = (1 << 64) - 1
_MULT_HI = np.uint64(0x2360ED051FC65DA4)  # PCG64's 128-bit multiplier (PCG_DEFAULT_MULTIPLIER_128)
_MULT_LO = np.uint64(0x4385DF649FCCF645)
_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_S64 = np.uint64(64 - 1)


def dice_row(generator: np.random.Generator) -> np.ndarray:
    """A numpy PCG64 generator's state as one uint64 row (see the module docstring)."""
    st = generator.bit_generator.state
    if st["bit_generator"] != "PCG64":
        raise ValueError(f"compiled dice need a PCG64 generator, not {st['bit_generator']}")
    s, inc = st["state"]["state"], st["state"]["inc"]
    return np.array([s >> 64, s & _MASK64, inc >> 64, inc & _MASK64, st["has_uint32"],
                     st["uinteger"]], dtype=np.uint64)


def generator_of(row: np.ndarray) -> np.random.Generator:
    """A numpy generator in the state of ``row`` (the inverse of ``dice_row``)."""
    bits = np.random.PCG64()
    r = [int(v) for v in row]
    bits.state = {"bit_generator": "PCG64",
                  "state": {"state": (r[STATE_HI] << 64) | r[STATE_LO],
                            "inc": (r[INC_HI] << 64) | r[INC_LO]},
                  "has_uint32": r[HAS_UINT32], "uinteger": r[UINTEGER]}
    return np.random.Generator(bits)


def seeded_row(seed: int | None) -> np.ndarray:
    """The dice row of ``numpy.random.default_rng(seed)``."""
    return dice_row(np.random.default_rng(seed))


@nb.njit(cache=True, inline="always")
def _mul64(a: np.uint64, b: np.uint64) -> tuple[np.uint64, np.uint64]:
    """Full 64 x 64 -> 128-bit product as (high, low)."""
    a_lo, a_hi = a & _M32, a >> _S32
    b_lo, b_hi = b & _M32, b >> _S32
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    p3 = a_hi * b_hi
    mid = (p0 >> _S32) + (p1 & _M32) + (p2 & _M32)
    hi = p3 + (p1 >> _S32) + (p2 >> _S32) + (mid >> _S32)
    lo = (mid << _S32) | (p0 & _M32)
    return hi, lo


@nb.njit(cache=True, _nrt=False)
def next_uint64(dice: np.ndarray, b: int) -> np.uint64:
    """(PCG64 XSL-RR) step the 128-bit LCG of battle ``b``, then output 64 bits."""
    s_hi, s_lo = dice[b, STATE_HI], dice[b, STATE_LO]
    hi, lo = _mul64(s_lo, _MULT_LO)
    hi = hi + s_lo * _MULT_HI + s_hi * _MULT_LO
    lo2 = lo + dice[b, INC_LO]
    carry = np.uint64(1) if lo2 < lo else np.uint64(0)
    hi = hi + dice[b, INC_HI] + carry
    dice[b, STATE_HI], dice[b, STATE_LO] = hi, lo2
    x = hi ^ lo2
    rot = hi >> np.uint64(58)
    return (x >> rot) | (x << ((np.uint64(64) - rot) & _S64))


@nb.njit(cache=True, _nrt=False)
def next_uint32(dice: np.ndarray, b: int) -> np.uint64:
    """numpy's PCG64 32-bit output: the low half of a 64-bit draw, the high half kept."""
    if dice[b, HAS_UINT32] != 0:
        dice[b, HAS_UINT32] = 0
        return dice[b, UINTEGER]
    x = next_uint64(dice, b)
    dice[b, HAS_UINT32] = 1
    dice[b, UINTEGER] = x >> _S32
    return x & _M32


@nb.njit(cache=True, _nrt=False)
def roll(dice: np.ndarray, b: int, low: int, high: int) -> int:
    """``Generator.integers(low, high)`` of battle ``b`` (high exclusive, high - low < 2**32):
    numpy's Lemire bounded draw on 32-bit outputs."""
    rng = np.uint64(high - low - 1)
    if rng == np.uint64(0):
        return low
    if rng == _M32:
        return low + np.int64(next_uint32(dice, b))
    rng_excl = rng + np.uint64(1)
    m = next_uint32(dice, b) * rng_excl
    leftover = m & _M32
    if leftover < rng_excl:
        threshold = (_M32 - rng) % rng_excl
        while leftover < threshold:
            m = next_uint32(dice, b) * rng_excl
            leftover = m & _M32
    return low + np.int64(m >> _S32)


@nb.njit(cache=True, _nrt=False)
def die(dice: np.ndarray, b: int) -> int:
    """One six-sided die: ``integers(1, 7)``."""
    return roll(dice, b, 1, 7)
