"""The exact solver compiled with numba, one hand at a time (docs/rules.md R4-R8, R16, R20, R22, R24, R27-R29).

This module owns the per-hand solver (deadwood, the discard phase, the showdown with layoffs) that the batched
engine's kernels call, and loops of it over arrays of card masks (bit ``c`` for card ``c``, as uint64) for the
batched solver functions of ``solver``. It reads the same tables as the scalar solver (``lookups``): the run-
only deadwood of a suit pattern is one lookup, sets are the only coupling between suits, and only ranks held 3 or 4
times can form one, so the exact minimum is the least, over every combination of set choices at those ranks, of four
lookups. Compiled code is cached on disk (``cache=True``): only the first import on a machine pays the compile.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_env.game.solver.lookups import (
    DROP_DEADWOOD,
    MAX_OPTIONS,
    NOT_HELD,
    OPTION_TABLES,
    RUN_CAPABLE,
    RUN_DEADWOOD,
    SUIT_BITS,
    SUIT_MASK,
)

N_SUITS = 4
N_CARDS = N_SUITS * SUIT_BITS
#: Set choices per (present suits, run-capable suits) key, pruned for holdings that discard nothing, and not.
_PRUNED_OPTIONS, _PRUNED_COUNTS = (table.reshape(16 * 16, -1) for table in OPTION_TABLES[True])
_ALL_OPTIONS, _ALL_COUNTS = (table.reshape(16 * 16, -1) for table in OPTION_TABLES[False])
_PRUNED_COUNTS = _PRUNED_COUNTS.reshape(-1)
_ALL_COUNTS = _ALL_COUNTS.reshape(-1)
_RUN_DEADWOOD = RUN_DEADWOOD.astype(np.int64)
_DROP_DEADWOOD = DROP_DEADWOOD.astype(np.int64)
_RUN_CAPABLE = RUN_CAPABLE.astype(np.int64)
#: As many set ranks as a 52-card holding has: the size of the per-hand slot arrays.
_MAX_SLOTS = SUIT_BITS
#: The lowest rank held in each suit pattern (0 for the empty pattern, never read).
_LOW_RANK = np.array([(p & -p).bit_length() - 1 if p else 0 for p in range(1 << SUIT_BITS)], dtype=np.int64)


@njit(cache=True, inline="always")
def _suit(mask, s):
    """The 13-bit pattern of suit ``s`` of a card mask."""
    return np.int64((mask >> np.uint64(SUIT_BITS * s)) & np.uint64(SUIT_MASK))


@njit(cache=True, inline="always")
def _set_slots(p0, p1, p2, p3, c0, c1, c2, c3, prune, slots):
    """One slot per rank held in 3+ suits of ``p0..p3``, lowest first: its rank in ``slots[0, i]``, its
    option-table key in ``slots[1, i]`` (pruned: the suits whose card could be in a run of the patterns
    ``c0..c3``), and ``slots[2, i]`` (the choice made there) zeroed; return how many."""
    set_ranks = (p0 & p1 & (p2 | p3)) | ((p0 | p1) & p2 & p3)
    n = 0
    while set_ranks:
        r = _LOW_RANK[set_ranks]
        set_ranks &= set_ranks - 1
        present = ((p0 >> r) & 1) | ((p1 >> r) & 1) << 1 | ((p2 >> r) & 1) << 2 | ((p3 >> r) & 1) << 3
        capable = 0
        if prune:
            capable = (((_RUN_CAPABLE[c0] >> r) & 1) | ((_RUN_CAPABLE[c1] >> r) & 1) << 1
                       | ((_RUN_CAPABLE[c2] >> r) & 1) << 2 | ((_RUN_CAPABLE[c3] >> r) & 1) << 3)
        slots[0, n] = r
        slots[1, n] = present * 16 + capable
        slots[2, n] = 0
        n += 1
    return n


@njit(cache=True, inline="always")
def _choice_rest(p0, p1, p2, p3, slots, n, options):
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


@njit(cache=True, inline="always")
def _next_choice(slots, n, counts):
    """Advance the odometer of set choices; False once every combination has been visited."""
    for i in range(n):
        slots[2, i] += 1
        if slots[2, i] < counts[slots[1, i]]:
            return True
        slots[2, i] = 0
    return False


@njit(cache=True, inline="always")
def _run_deadwood(p0, p1, p2, p3):
    return _RUN_DEADWOOD[p0] + _RUN_DEADWOOD[p1] + _RUN_DEADWOOD[p2] + _RUN_DEADWOOD[p3]


@njit(cache=True, inline="always")
def scratch():
    """Working space for the functions below: ``(3, slots)`` int64 for the set choices, then 52 per-card
    deadwoods."""
    return np.empty((3, _MAX_SLOTS), dtype=np.int64), np.empty(N_CARDS, dtype=np.int64)


@njit(cache=True, inline="always")
def deadwood_of(mask, slots):
    """Exact least deadwood of a holding (R7), any number of cards. ``slots``: from ``scratch``."""
    p0, p1, p2, p3 = _suit(mask, 0), _suit(mask, 1), _suit(mask, 2), _suit(mask, 3)
    return _least_deadwood(p0, p1, p2, p3, 0, 0, 0, 0, slots)


@njit(cache=True, inline="always")
def _least_deadwood(p0, p1, p2, p3, f0, f1, f2, f3, slots):
    """Least deadwood of the suit patterns ``p0..p3`` together with the free cards ``f0..f3``, which may join
    runs but never sets and add their value when left out of runs (for holdings without free cards, all 0: plain
    R7)."""
    n = _set_slots(p0, p1, p2, p3, p0 | f0, p1 | f1, p2 | f2, p3 | f3, True, slots)
    q0, q1, q2, q3 = p0 | f0, p1 | f1, p2 | f2, p3 | f3
    best = _run_deadwood(q0, q1, q2, q3)
    if n == 0:
        return best
    while True:
        r0, r1, r2, r3 = _choice_rest(q0, q1, q2, q3, slots, n, _PRUNED_OPTIONS)
        best = min(best, _run_deadwood(r0, r1, r2, r3))
        if not _next_choice(slots, n, _PRUNED_COUNTS):
            return best


@njit(cache=True)
def showdown_of(knocker, defender, layoffs, slots, inner):
    """(K, F) of a knock with the 10-card holdings ``knocker`` and ``defender`` (R27, R28): K the knocker's least
    deadwood, F the defender's after optimal joint melds and layoffs against the R22 auto-arrangement; with K = 0
    (gin, R29) or no ``layoffs``, the defender's plain deadwood. ``slots``, ``inner``: two ``scratch`` slot
    arrays.

    Each optimal set choice of the knocker is one arrangement (its runs are the unique run cover), and the
    auto-arrangement is the one that leaves the defender most. Laying off on a run is the same as letting the
    defender's runs use the knocker's run cards for free; a 3-set's fourth card is either laid off or kept, both
    tried."""
    k0, k1, k2, k3 = _suit(knocker, 0), _suit(knocker, 1), _suit(knocker, 2), _suit(knocker, 3)
    n = _set_slots(k0, k1, k2, k3, k0, k1, k2, k3, True, slots)
    k = NOT_HELD
    while True:
        r0, r1, r2, r3 = _choice_rest(k0, k1, k2, k3, slots, n, _PRUNED_OPTIONS)
        k = min(k, _run_deadwood(r0, r1, r2, r3))
        if not _next_choice(slots, n, _PRUNED_COUNTS):
            break
    if k == 0 or not layoffs:
        return k, deadwood_of(defender, inner)
    d0, d1, d2, d3 = _suit(defender, 0), _suit(defender, 1), _suit(defender, 2), _suit(defender, 3)
    f = -1
    while True:  # the odometer is back at the first choice
        r0, r1, r2, r3 = _choice_rest(k0, k1, k2, k3, slots, n, _PRUNED_OPTIONS)
        if _run_deadwood(r0, r1, r2, r3) == k:
            f = max(f, _defender_after_layoffs(k0, k1, k2, k3, r0, r1, r2, r3, d0, d1, d2, d3, inner))
        if not _next_choice(slots, n, _PRUNED_COUNTS):
            return k, f


@njit(cache=True, inline="always")
def _defender_after_layoffs(k0, k1, k2, k3, r0, r1, r2, r3, d0, d1, d2, d3, slots):
    """F for one arrangement of the knocker (suit patterns ``k``, remainder after its sets ``r``) against the
    defender's suit patterns ``d``: the least over which fourth cards of the knocker's 3-sets are laid off."""
    s0, s1, s2, s3 = k0 & ~r0, k1 & ~r1, k2 & ~r2, k3 & ~r3  # the knocker's set cards
    three = ((s0 & s1 & (s2 | s3)) | ((s0 | s1) & s2 & s3)) & ~(s0 & s1 & s2 & s3)
    e0, e1, e2, e3 = three & ~s0 & d0, three & ~s1 & d1, three & ~s2 & d2, three & ~s3 & d3
    fourth = e0 | e1 << SUIT_BITS | e2 << 2 * SUIT_BITS | e3 << 3 * SUIT_BITS
    best = NOT_HELD
    subset = fourth
    while True:  # every subset of the fourth cards, as laid off
        laid0, laid1 = subset & SUIT_MASK, (subset >> SUIT_BITS) & SUIT_MASK
        laid2, laid3 = (subset >> 2 * SUIT_BITS) & SUIT_MASK, (subset >> 3 * SUIT_BITS) & SUIT_MASK
        best = min(best, _least_deadwood(d0 & ~laid0, d1 & ~laid1, d2 & ~laid2, d3 & ~laid3, _RUN_CAPABLE[r0],
                                         _RUN_CAPABLE[r1], _RUN_CAPABLE[r2], _RUN_CAPABLE[r3], slots))
        if subset == 0:
            return best
        subset = (subset - 1) & fourth


@njit(cache=True, inline="always")
def _drop_each(q, s, other, per_card):
    """Lower ``per_card`` for each card of suit ``s`` pattern ``q`` to ``other`` plus the suit's run deadwood
    without it."""
    rest = q
    while rest:
        r = _LOW_RANK[rest]
        rest &= rest - 1
        c = s * SUIT_BITS + r
        per_card[c] = min(per_card[c], other + _DROP_DEADWOOD[q, r])


@njit(cache=True, inline="always")
def discard_deadwoods_of(mask, slots, per_card):
    """Fill ``per_card`` (52 entries) with the exact deadwood of the holding less each held card (R8), NOT_HELD
    for cards not held; return the least run deadwood of the whole holding over its set choices (0: every card
    melded). ``slots``, ``per_card``: from ``scratch``."""
    per_card[:] = NOT_HELD
    p0, p1, p2, p3 = _suit(mask, 0), _suit(mask, 1), _suit(mask, 2), _suit(mask, 3)
    n = _set_slots(p0, p1, p2, p3, p0, p1, p2, p3, False, slots)
    least_total = NOT_HELD
    while True:
        # Discarding a card of a set is covered by the choices that leave it out of the set (no set at a rank
        # held 3 times, the other three at a rank held 4 times), so only the cards left for runs drop here.
        r0, r1, r2, r3 = _choice_rest(p0, p1, p2, p3, slots, n, _ALL_OPTIONS)
        d0, d1, d2, d3 = _RUN_DEADWOOD[r0], _RUN_DEADWOOD[r1], _RUN_DEADWOOD[r2], _RUN_DEADWOOD[r3]
        total = d0 + d1 + d2 + d3
        least_total = min(least_total, total)
        _drop_each(r0, 0, total - d0, per_card)
        _drop_each(r1, 1, total - d1, per_card)
        _drop_each(r2, 2, total - d2, per_card)
        _drop_each(r3, 3, total - d3, per_card)
        if not _next_choice(slots, n, _ALL_COUNTS):
            return least_total


@njit(cache=True, inline="always")
def discard_phase_of(mask, kept, limit, slots, per_card):
    """What a player holding the 11 cards of ``mask`` may do: (least deadwood after a discard of a card that may
    leave the hand, the card mask of those discards, the card mask of the knocks (R20: deadwood within ``limit``),
    whether all 11 cards are melded (R24)). ``kept``: the card R16 keeps in hand, -1 for none. ``slots``,
    ``per_card``: from ``scratch``."""
    least_total = discard_deadwoods_of(mask, slots, per_card)
    if kept >= 0:
        per_card[kept] = NOT_HELD
    best = NOT_HELD
    for c in range(N_CARDS):
        best = min(best, per_card[c])
    best_cards = np.uint64(0)
    knock_cards = np.uint64(0)
    for c in range(N_CARDS):
        bit = np.uint64(per_card[c] == best) << np.uint64(c)
        best_cards |= bit
        knock_cards |= np.uint64(per_card[c] <= limit) << np.uint64(c)
    return best, best_cards, knock_cards, least_total == 0


# ---------------------------------------------------------------------------------------------------------------
# One holding from Python (the scalar engine's hot path: a call costs about a tenth of the pure-Python solve)
# ---------------------------------------------------------------------------------------------------------------

@njit(cache=True)
def deadwood_of_mask(mask):
    """Exact least deadwood (R7) of the holding ``mask``, an int card mask."""
    slots, _ = scratch()
    return deadwood_of(np.uint64(mask), slots)


@njit(cache=True)
def discard_phase_of_mask(mask, kept, limit):
    """``discard_phase_of`` for one int card mask of 11 cards: (least deadwood after an allowed discard, the cards
    reaching it, the knock cards within ``limit``, all 11 melded). ``kept``: R16's card, -1 for none."""
    slots, per_card = scratch()
    return discard_phase_of(np.uint64(mask), kept, limit, slots, per_card)


# ---------------------------------------------------------------------------------------------------------------
# Loops over arrays of card masks (the batched solver functions of ``solver``)
# ---------------------------------------------------------------------------------------------------------------

@njit(cache=True)
def deadwood_of_each(masks):
    out = np.empty(masks.size, dtype=np.int16)
    slots, _ = scratch()
    for i in range(masks.size):
        out[i] = deadwood_of(masks[i], slots)
    return out


@njit(cache=True)
def discard_deadwoods_of_each(masks):
    out = np.empty((masks.size, N_CARDS), dtype=np.int16)
    slots, per_card = scratch()
    for i in range(masks.size):
        discard_deadwoods_of(masks[i], slots, per_card)
        out[i] = per_card
    return out


@njit(cache=True)
def showdown_of_each(knockers, defenders, layoffs, k, f):
    slots, _ = scratch()
    inner, _ = scratch()
    for i in range(knockers.size):
        k[i], f[i] = showdown_of(knockers[i], defenders[i], layoffs, slots, inner)


@njit(cache=True)
def discard_phase_of_each(masks, kept, limits, want_all_melded, best, best_cards, knock_cards, all_melded):
    slots, per_card = scratch()
    for i in range(masks.size):
        best[i], best_cards[i], knock_cards[i], melded = discard_phase_of(masks[i], kept[i], limits[i], slots,
                                                                          per_card)
        all_melded[i] = melded and want_all_melded


assert MAX_OPTIONS == _ALL_OPTIONS.shape[1] == _PRUNED_OPTIONS.shape[1]
