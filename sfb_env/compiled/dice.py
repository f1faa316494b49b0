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

from sfb_env.compiled.dispatch import kernel

STATE_HI, STATE_LO, INC_HI, INC_LO, HAS_UINT32, UINTEGER = range(6)
DICE_WORDS = 6
_MASK64 = (1 << 64) - 1
_MULT_HI = np.uint64(0x2360ED051FC65DA4)  # PCG64's 128-bit multiplier (PCG_DEFAULT_MULTIPLIER_128)
_MULT_LO = np.uint64(0x4385DF649FCCF645)
_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_S64 = np.uint64(64 - 1)
_S63 = np.uint64(63)


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


# numpy's SeedSequence (bit_generator.pyx): hash constants of its entropy pool of four words
_POOL = 4
_INIT_A, _MULT_A = np.uint32(0x43B0D7E5), np.uint32(0x931E8875)
_INIT_B, _MULT_B = np.uint32(0x8B51F9DD), np.uint32(0x58F38DED)
_MIX_L, _MIX_R = np.uint32(0xCA01F9DD), np.uint32(0x4973F715)
_XSHIFT = np.uint32(16)


@kernel(_nrt=False, error_model="numpy")
def seed_into(dice: np.ndarray, b: int, seed: int) -> None:
    """Row ``b`` of ``dice`` := ``seeded_row(seed)`` (``default_rng(seed)``, seed >= 0) without
    leaving compiled code: numpy's SeedSequence hash of the seed's 32-bit words, its
    ``generate_state(4, uint64)``, then PCG64's ``pcg_setseq_128_srandom_r``. The autoreset of
    the step kernel seeds each battle's next dice with it (10 us a battle in Python)."""
    n_words = 1
    v = np.uint64(seed)
    while (v >> np.uint64(32)) != np.uint64(0):
        n_words += 1
        v = v >> np.uint64(32)
    # mix_entropy: hashmix each entropy word into the pool, then mix the pool words together
    hash_const = _INIT_A
    pool = (np.uint32(0), np.uint32(0), np.uint32(0), np.uint32(0))
    for i in range(_POOL):
        value = _word(seed, i) if i < n_words else np.uint32(0)
        value, hash_const = _hashmix(value, hash_const)
        pool = _put(pool, i, value)
    for i_src in range(_POOL):
        for i_dst in range(_POOL):
            if i_src != i_dst:
                h, hash_const = _hashmix(_at(pool, i_src), hash_const)
                pool = _put(pool, i_dst, _mix(_at(pool, i_dst), h))
    for i_src in range(_POOL, n_words):
        for i_dst in range(_POOL):
            h, hash_const = _hashmix(_word(seed, i_src), hash_const)
            pool = _put(pool, i_dst, _mix(_at(pool, i_dst), h))
    # generate_state(4, uint64): eight 32-bit words cycling over the pool, paired little-endian
    hash_const = _INIT_B
    out = (np.uint64(0), np.uint64(0), np.uint64(0), np.uint64(0))
    for k in range(4):
        lo = np.uint64(0)
        for half in range(2):
            data = _at(pool, (2 * k + half) % _POOL) ^ hash_const
            hash_const = np.uint32(hash_const * _MULT_B)
            data = np.uint32(data * hash_const)
            data = data ^ (data >> _XSHIFT)
            if half == 0:
                lo = np.uint64(data)
            else:
                out = _put(out, k, lo | (np.uint64(data) << _S32))
    # pcg64_set_seed(state, words 0-1, words 2-3): (high, low) pairs; pcg_setseq_128_srandom_r
    inc_hi = (out[2] << np.uint64(1)) | (out[3] >> _S63)
    inc_lo = (out[3] << np.uint64(1)) | np.uint64(1)
    dice[b, STATE_HI], dice[b, STATE_LO] = np.uint64(0), np.uint64(0)
    dice[b, INC_HI], dice[b, INC_LO] = inc_hi, inc_lo
    dice[b, HAS_UINT32], dice[b, UINTEGER] = np.uint64(0), np.uint64(0)
    _lcg_step(dice, b)
    lo2 = dice[b, STATE_LO] + out[1]
    carry = np.uint64(1) if lo2 < dice[b, STATE_LO] else np.uint64(0)
    dice[b, STATE_HI] = dice[b, STATE_HI] + out[0] + carry
    dice[b, STATE_LO] = lo2
    _lcg_step(dice, b)


@nb.njit(cache=True, inline="always")
def _word(seed: int, i: int) -> np.uint32:
    """The ``i``-th little-endian 32-bit word of ``seed``."""
    return np.uint32((np.uint64(seed) >> np.uint64(32 * i)) & _M32)


@nb.njit(cache=True, inline="always")
def _hashmix(value: np.uint32, hash_const: np.uint32) -> tuple[np.uint32, np.uint32]:
    value = np.uint32(value ^ hash_const)
    hash_const = np.uint32(hash_const * _MULT_A)
    value = np.uint32(value * hash_const)
    return np.uint32(value ^ (value >> _XSHIFT)), hash_const


@nb.njit(cache=True, inline="always")
def _mix(x: np.uint32, y: np.uint32) -> np.uint32:
    result = np.uint32(np.uint32(_MIX_L * x) - np.uint32(_MIX_R * y))
    return np.uint32(result ^ (result >> _XSHIFT))


@nb.njit(cache=True, inline="always")
def _at(pool, i: int) -> np.uint32:
    return pool[0] if i == 0 else pool[1] if i == 1 else pool[2] if i == 2 else pool[3]


@nb.njit(cache=True, inline="always")
def _put(t, i: int, v):
    """The 4-tuple ``t`` with item ``i`` replaced by ``v``."""
    return (v if i == 0 else t[0], v if i == 1 else t[1], v if i == 2 else t[2],
            v if i == 3 else t[3])


@nb.njit(cache=True, inline="always")
def _lcg_step(dice: np.ndarray, b: int) -> None:
    """state = state * multiplier + increment (128-bit)."""
    s_hi, s_lo = dice[b, STATE_HI], dice[b, STATE_LO]
    hi, lo = _mul64(s_lo, _MULT_LO)
    hi = hi + s_lo * _MULT_HI + s_hi * _MULT_LO
    lo2 = lo + dice[b, INC_LO]
    carry = np.uint64(1) if lo2 < lo else np.uint64(0)
    dice[b, STATE_HI], dice[b, STATE_LO] = hi + dice[b, INC_HI] + carry, lo2


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


@kernel(_nrt=False, error_model="numpy")
def next_uint64(dice: np.ndarray, b: int) -> np.uint64:
    """(PCG64 XSL-RR) step the 128-bit LCG of battle ``b``, then output 64 bits."""
    _lcg_step(dice, b)
    hi, lo2 = dice[b, STATE_HI], dice[b, STATE_LO]
    x = hi ^ lo2
    rot = hi >> np.uint64(58)
    return (x >> rot) | (x << ((np.uint64(64) - rot) & _S64))


@kernel(_nrt=False, error_model="numpy")
def next_uint32(dice: np.ndarray, b: int) -> np.uint64:
    """numpy's PCG64 32-bit output: the low half of a 64-bit draw, the high half kept."""
    if dice[b, HAS_UINT32] != 0:
        dice[b, HAS_UINT32] = 0
        return dice[b, UINTEGER]
    x = next_uint64(dice, b)
    dice[b, HAS_UINT32] = 1
    dice[b, UINTEGER] = x >> _S32
    return x & _M32


@kernel(_nrt=False, error_model="numpy")
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


@kernel(_nrt=False, error_model="numpy")
def die(dice: np.ndarray, b: int) -> int:
    """One six-sided die: ``integers(1, 7)``."""
    return roll(dice, b, 1, 7)
