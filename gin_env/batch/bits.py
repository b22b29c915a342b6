"""Compiled helpers over card bitmasks and bit strings (numba): a card's bit, counting set bits, and finding the
n-th set bit of a row of uint64 words, for the batched engine, its observation encoder and the batched agents."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def card_bit(card):
    """The card's mask bit; 0 for NO_CARD."""
    return np.uint64(0) if card < 0 else np.uint64(1) << np.uint64(card)


@njit(cache=True, inline="always")
def popcount(x):
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n


@njit(cache=True, inline="always")
def _nth_in_row(row, n):
    """Index of set bit number ``n`` (0: the lowest) of a row of words, least significant word first; -1 if the row
    has ``n`` or fewer."""
    for w in range(row.size):
        count = popcount(row[w])
        if n < count:
            return 64 * w + nth_bit(row[w], n)
        n -= count
    return -1


@njit(cache=True, inline="always")
def nth_bit(word, n):
    """Index of set bit number ``n`` (0: the lowest) of a uint64 word that has more than ``n``."""
    for _ in range(n):
        word &= word - np.uint64(1)
    return popcount((word & (~word + np.uint64(1))) - np.uint64(1))


@njit(cache=True)
def nth_set_bits(rows, n, out):
    """``out[i]``: the index of set bit number ``n[i]`` of ``rows[i]`` ((k, w) uint64)."""
    for i in range(rows.shape[0]):
        out[i] = _nth_in_row(rows[i], n[i])


@njit(cache=True)
def random_set_bits(rows, u, out):
    """``out[i]``: set bit number floor(``u[i]`` * count) of ``rows[i]`` (uniform over its set bits for ``u``
    uniform in [0, 1)), 0 for a row with none."""
    for i in range(rows.shape[0]):
        count = 0
        for w in range(rows.shape[1]):
            count += popcount(rows[i, w])
        out[i] = _nth_in_row(rows[i], int(u[i] * count)) if count else 0
