"""The counting the compiled solver's modules share, inlined where it is called: the bits of an int64 card mask (how
many, the lowest, their order) and the odometers that walk a product of choices, the set choices of a holding
(``set_slots``, ``choice_rest``, ``next_choice``) among them, which the standard solver and the jokers' branch
share."""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_env.game.solver.lookups import RUN_CAPABLE, SUIT_BITS

#: The lowest rank held in each suit pattern (0 for the empty pattern, never read).
LOW_RANK = np.array([(p & -p).bit_length() - 1 if p else 0 for p in range(1 << SUIT_BITS)], dtype=np.int64)
_RUN_CAPABLE = RUN_CAPABLE.astype(np.int64)


@njit(cache=True, inline="always")
def count(mask):
    """How many bits of ``mask`` are set."""
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def low_index(mask):
    """The index of the lowest set bit of a non-zero mask."""
    i = 0
    while not (mask >> i) & 1:
        i += 1
    return i


@njit(cache=True, inline="always")
def lowest_bits(mask, k):
    """The ``k`` lowest set bits of ``mask`` (for jokers: the lowest ids first)."""
    out = 0
    for _ in range(k):
        low = mask & -mask
        out |= low
        mask &= ~low
    return out


@njit(cache=True, inline="always")
def ids_before(a, b):
    """True when the sorted card ids of mask ``a`` come before those of ``b`` (list order: a prefix first)."""
    differ = a ^ b
    if differ == 0:
        return False
    low = differ & -differ
    above = ~((low << 1) - 1)
    if a & low:
        return (b & above) != 0
    return (a & above) == 0


@njit(cache=True, inline="always")
def next_choice(slots, n, counts):
    """Advance the odometer of set choices in ``slots`` (row 2 the choice at each of ``n`` slots, row 1 the key of
    its ``counts``), the first slot fastest; False once every combination has been visited."""
    for i in range(n):
        slots[2, i] += 1
        if slots[2, i] < counts[slots[1, i]]:
            return True
        slots[2, i] = 0
    return False


@njit(cache=True, inline="always")
def next_index(index, counts, n):
    """Advance ``index`` over the product of ``range(counts[i])``, the last varying fastest; False at the end."""
    for i in range(n - 1, -1, -1):
        index[i] += 1
        if index[i] < counts[i]:
            return True
        index[i] = 0
    return False


@njit(cache=True, inline="always")
def set_slots(p0, p1, p2, p3, prune, slots):
    """One slot per rank held in 3+ suits of ``p0..p3``, lowest first: its rank in ``slots[0, i]``, its
    option-table key in ``slots[1, i]`` (pruned: the suits whose card could be in a run of their pattern), and
    ``slots[2, i]`` (the choice made there) zeroed; return how many."""
    set_ranks = (p0 & p1 & (p2 | p3)) | ((p0 | p1) & p2 & p3)
    n = 0
    while set_ranks:
        r = LOW_RANK[set_ranks]
        set_ranks &= set_ranks - 1
        present = ((p0 >> r) & 1) | ((p1 >> r) & 1) << 1 | ((p2 >> r) & 1) << 2 | ((p3 >> r) & 1) << 3
        capable = 0
        if prune:
            capable = (((_RUN_CAPABLE[p0] >> r) & 1) | ((_RUN_CAPABLE[p1] >> r) & 1) << 1
                       | ((_RUN_CAPABLE[p2] >> r) & 1) << 2 | ((_RUN_CAPABLE[p3] >> r) & 1) << 3)
        slots[0, n] = r
        slots[1, n] = present * 16 + capable
        slots[2, n] = 0
        n += 1
    return n


@njit(cache=True, inline="always")
def choice_rest(p0, p1, p2, p3, slots, n, options):
    """The four suit patterns left after the set choices in ``slots`` (the option index of each slot)."""
    for i in range(n):
        suits = options[slots[1, i], slots[2, i]]
        bit = 1 << slots[0, i]
        if suits & 1:
            p0 &= ~bit
        if suits & 2:
            p1 &= ~bit
        if suits & 4:
            p2 &= ~bit
        if suits & 8:
            p3 &= ~bit
    return p0, p1, p2, p3
