"""The counting the compiled solver's modules share, inlined where it is called: the bits of an int64 card mask (how
many, the lowest, their order) and the odometers that walk a product of choices."""

from __future__ import annotations

from numba import njit


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
