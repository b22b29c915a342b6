"""Which melds, compiled with numba (docs/rules.md R4, R5, R7, R22, R27, R28): the melds of one minimum-deadwood
arrangement of a holding, the knocker's auto-arrangement of a knock, and the cards the defender lays off on each
knocker meld.

Each optimal set choice of the odometer in ``kernels`` is one arrangement: its sets, then each suit's runs (the
unique run cover of what the sets leave). Results are fixed-shape int64 arrays of card masks (bit ``c`` for card
``c``) with a count; ``front`` turns them into the public results. Ties are broken in one documented order:

* a holding's arrangement is the first optimal set choice with the last set rank varying fastest, its runs as
  ``RUN_MOVE`` splits them;
* the knocker's arrangement has its melds in card-mask order, touching runs of a suit merged into one meld (a split
  never changes a layoff); among those leaving the defender most, the first in the order of their sorted card ids;
* the defender's layoff is the least deadwood, then the layoff whose sorted card ids come first; each meld in turn
  takes the most it can of it, else the split is the first exact one with the last meld's options varying fastest.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_env.game.cards import N_CARDS, N_RANKS, N_SUITS
from gin_env.game.solver.counting import count, ids_before, low_index, next_index
from gin_env.game.solver.kernels import (
    deadwood_of,
    first_set_choice,
    has_joker,
    next_set_choice,
    run_deadwood,
    scratch,
    scratch_of,
    set_choice_rest,
)
from gin_env.game.solver.lookups import NOT_HELD, RUN_CAPABLE, RUN_MOVE, SUIT_BITS, SUIT_MASK
from gin_env.game.solver.wild import DEFAULT_SETTINGS
from gin_env.game.solver.wild_melds import SHOWDOWN, wild_walk

#: The fewest cards of a meld (R4, R5).
MIN_MELD = 3
#: The most melds a holding can hold: the size of the per-arrangement meld arrays.
MAX_MELDS = N_CARDS // MIN_MELD
#: The most ranks a run's layoffs can chain over, both ends together.
_RUN_ENDS = N_RANKS - MIN_MELD
#: The most layoff choices of one meld: a run's chains below times its chains above (a set has two).
MAX_LAYOFF_OPTIONS = (_RUN_ENDS // 2 + 1) * ((_RUN_ENDS + 1) // 2 + 1)
_RUN_MOVE = RUN_MOVE.astype(np.int64)
_RUN_CAPABLE = RUN_CAPABLE.astype(np.int64)
#: The cards of rank ``r`` in every suit, by rank.
_RANK_CARDS = np.array([sum(1 << (s * SUIT_BITS + r) for s in range(N_SUITS)) for r in range(SUIT_BITS)],
                       dtype=np.int64)


@njit(cache=True, inline="always")
def _patterns(mask):
    """The four suit patterns of an int64 card mask."""
    return (mask & SUIT_MASK, (mask >> SUIT_BITS) & SUIT_MASK, (mask >> 2 * SUIT_BITS) & SUIT_MASK,
            (mask >> 3 * SUIT_BITS) & SUIT_MASK)


@njit(cache=True, inline="always")
def _melds_before(a, na, b, nb):
    """True when the arrangement ``a[:na]`` comes before ``b[:nb]``, each meld compared by its sorted card ids."""
    for i in range(min(na, nb)):
        if a[i] != b[i]:
            return ids_before(a[i], b[i])
    return na < nb


@njit(cache=True, inline="always")
def _run_melds(pattern, suit, merged, melds, n):
    """Append the runs of a suit pattern's run cover to ``melds`` from index ``n``: each maximal stretch of 3+
    cards when ``merged``, else the runs ``RUN_MOVE`` splits it into. Return the new count."""
    shift = suit * SUIT_BITS
    if merged:
        rest = _RUN_CAPABLE[pattern]
        while rest:
            low = rest & -rest
            stretch = rest & ~(rest + low)  # the low bit's stretch of consecutive ranks
            melds[n] = stretch << shift
            n += 1
            rest &= ~stretch
        return n
    while pattern:
        low = low_index(pattern)
        length = _RUN_MOVE[pattern]
        if length:
            run = ((1 << length) - 1) << low
            melds[n] = run << shift
            n += 1
            pattern &= ~run
        else:
            pattern &= pattern - 1
    return n


@njit(cache=True, inline="always")
def _choice_melds(k0, k1, k2, k3, r0, r1, r2, r3, merged, melds):
    """The melds of one set choice of the holding ``k`` (``r``: what its sets leave for runs) into ``melds``: the
    sets by rank, then each suit's runs; sorted by card mask when ``merged``. Return how many."""
    set_ranks = (k0 & ~r0) | (k1 & ~r1) | (k2 & ~r2) | (k3 & ~r3)
    set_cards = (k0 & ~r0) | (k1 & ~r1) << SUIT_BITS | (k2 & ~r2) << 2 * SUIT_BITS | (k3 & ~r3) << 3 * SUIT_BITS
    n = 0
    while set_ranks:
        rank = low_index(set_ranks)
        set_ranks &= set_ranks - 1
        melds[n] = set_cards & _RANK_CARDS[rank]
        n += 1
    n = _run_melds(r0, 0, merged, melds, n)
    n = _run_melds(r1, 1, merged, melds, n)
    n = _run_melds(r2, 2, merged, melds, n)
    n = _run_melds(r3, 3, merged, melds, n)
    if merged:
        for i in range(1, n):  # insertion sort: a handful of melds
            meld, j = melds[i], i - 1
            while j >= 0 and melds[j] > meld:
                melds[j + 1] = melds[j]
                j -= 1
            melds[j + 1] = meld
    return n


@njit(cache=True, inline="always")
def _least_choice(k0, k1, k2, k3, slots, n):
    """The least run deadwood over the set choices of the odometer in ``slots`` (the holding's deadwood, R7),
    visiting each once: the odometer ends back at its first choice."""
    least = NOT_HELD
    while True:
        r0, r1, r2, r3 = set_choice_rest(k0, k1, k2, k3, slots, n)
        least = min(least, run_deadwood(r0, r1, r2, r3))
        if not next_set_choice(slots, n):
            return least


@njit(cache=True)
def arrangement_of(mask):
    """One minimum-deadwood arrangement (R7) of the holding ``mask``, an int card mask: (card masks of its melds,
    how many)."""
    slots = scratch_of(DEFAULT_SETTINGS)[0]
    k0, k1, k2, k3 = _patterns(np.int64(mask))
    n = first_set_choice(k0, k1, k2, k3, slots)
    for i in range(n // 2):  # the last set rank first on the odometer, so that it varies fastest
        for row in range(slots.shape[0]):
            slots[row, i], slots[row, n - 1 - i] = slots[row, n - 1 - i], slots[row, i]
    target = _least_choice(k0, k1, k2, k3, slots, n)
    melds = np.zeros(MAX_MELDS, dtype=np.int64)
    while True:
        r0, r1, r2, r3 = set_choice_rest(k0, k1, k2, k3, slots, n)
        if run_deadwood(r0, r1, r2, r3) == target:
            return melds, _choice_melds(k0, k1, k2, k3, r0, r1, r2, r3, False, melds)
        next_set_choice(slots, n)  # ``target`` is some choice's: reached before the odometer runs out


@njit(cache=True, inline="always")
def _showdown(knocker, defender, layoffs, want_melds, best, candidate, parts, slots, inner):
    """The knock of the holding ``knocker`` against ``defender`` (int64 card masks) under R22's auto-arrangement:
    return (K, how many melds in ``best``, F). With ``want_melds``, ``best`` gets the knocker's meld masks and
    ``parts`` the cards laid off on each; without, only the numbers are worked out. Without ``layoffs``, or against
    gin (R29), F is the defender's plain deadwood and the arrangement the first."""
    k0, k1, k2, k3 = _patterns(knocker)
    n = first_set_choice(k0, k1, k2, k3, slots)
    target = _least_choice(k0, k1, k2, k3, slots, n)
    fixed = target == 0 or not layoffs
    plain = deadwood_of(np.uint64(defender), inner) if fixed else NOT_HELD
    if fixed and not want_melds:
        return target, 0, plain
    n_best, best_f = -1, -1
    while True:
        r0, r1, r2, r3 = set_choice_rest(k0, k1, k2, k3, slots, n)
        if run_deadwood(r0, r1, r2, r3) == target:
            count = _choice_melds(k0, k1, k2, k3, r0, r1, r2, r3, True, candidate)
            f = plain if fixed else _laydown(defender, candidate[:count], parts, inner)
            if n_best < 0 or f > best_f or (want_melds and f == best_f
                                             and _melds_before(candidate, count, best, n_best)):
                best[:] = candidate
                n_best, best_f = count, f
        if not next_set_choice(slots, n):
            break
    parts[:] = 0
    if want_melds and not fixed:
        _laydown(defender, best[:n_best], parts, inner)  # the layoffs of the arrangement chosen
    return target, n_best, best_f


@njit(cache=True)
def auto_showdown_of(knocker, defender, layoffs):
    """The knock of the holding ``knocker`` against ``defender`` (int card masks) laid down under R22's
    auto-arrangement: (the knocker's meld masks, how many, the defender's deadwood F, the cards it lays off on
    each knocker meld)."""
    best, candidate = np.zeros(MAX_MELDS, dtype=np.int64), np.zeros(MAX_MELDS, dtype=np.int64)
    parts = np.zeros(MAX_MELDS, dtype=np.int64)
    _, n_best, f = _showdown(np.int64(knocker), np.int64(defender), layoffs, True, best, candidate, parts,
                             scratch_of(DEFAULT_SETTINGS)[0], scratch_of(DEFAULT_SETTINGS)[0])
    return best, n_best, f, parts


@njit(cache=True)
def showdown_of(knocker, defender, layoffs, slots, inner):
    """(K, F) of a knock with the 10-card holdings ``knocker`` and ``defender`` (uint64 card masks, R27, R28, R76):
    the numbers of ``auto_showdown_of``, or of ``wild_melds`` where either holds a joker, for the batched engine.
    ``slots``, ``inner``: two ``scratch`` slot arrays."""
    if has_joker(knocker) or has_joker(defender):
        target = deadwood_of(knocker, slots)
        f = wild_walk(np.int64(knocker), target, SHOWDOWN, np.int64(defender), layoffs and target != 0, slots,
                      inner)[5]
        return target, f
    candidate, parts = np.empty(MAX_MELDS, dtype=np.int64), np.empty(MAX_MELDS, dtype=np.int64)
    k, _, f = _showdown(np.int64(knocker), np.int64(defender), layoffs, False, candidate, candidate, parts, slots,
                        inner)
    return k, f


@njit(cache=True)
def showdown_of_each(knockers, defenders, layoffs, joker_value, min_naturals, k, f):
    """``showdown_of`` of each pair of uint64 card masks into ``k`` and ``f``."""
    slots, inner = scratch(joker_value, min_naturals)[0], scratch(joker_value, min_naturals)[0]
    for i in range(knockers.size):
        k[i], f[i] = showdown_of(knockers[i], defenders[i], layoffs, slots, inner)


@njit(cache=True)
def laydown_of(defender, melds):
    """The defender's best lay-down (R27, R28) against the knocker melds ``melds`` (int64 card masks, in order):
    (its least deadwood, the cards it lays off on each meld)."""
    parts = np.zeros(melds.size, dtype=np.int64)
    inner = scratch_of(DEFAULT_SETTINGS)[0]
    return _laydown(np.int64(defender), melds, parts, inner), parts


@njit(cache=True, inline="always")
def _chains(defender, suit, start, step, out):
    """Into ``out``: no cards, then the defender's cards of ``suit`` from rank ``start`` on in steps of ``step``,
    one more each, while it holds them (the cards that extend a run at one end, R27). Return how many."""
    out[0] = 0
    n, chain, rank = 1, 0, start
    while 0 <= rank < SUIT_BITS and (defender >> (suit * SUIT_BITS + rank)) & 1:
        chain |= 1 << (suit * SUIT_BITS + rank)
        out[n] = chain
        n += 1
        rank += step
    return n


@njit(cache=True, inline="always")
def _layoff_options(meld, defender, out):
    """The defender card sets that may go on one knocker meld (R27) into ``out``, none first: a 3-set's missing
    card; a run's chains below, each with every chain above. Return how many."""
    low = low_index(meld)
    rank, suit = low % SUIT_BITS, low // SUIT_BITS
    column = _RANK_CARDS[rank]
    out[0] = 0
    if meld & ~column == 0:
        fourth = column & ~meld & defender
        if count(meld) == MIN_MELD and fourth:
            out[1] = fourth
            return 2
        return 1
    below, above = np.empty(SUIT_BITS, dtype=np.int64), np.empty(SUIT_BITS, dtype=np.int64)
    n_below = _chains(defender, suit, rank - 1, -1, below)
    n_above = _chains(defender, suit, rank + count(meld), 1, above)
    for b in range(n_below):
        for a in range(n_above):
            out[b * n_above + a] = below[b] | above[a]
    return n_below * n_above


@njit(cache=True, inline="always")
def _laydown(defender, melds, parts, slots):
    """The least deadwood of ``defender`` over its layoffs on ``melds`` (R28), ties to the layoff whose sorted card
    ids come first; fill ``parts`` with the cards on each meld and return the deadwood."""
    n = melds.size
    options = np.zeros((n, MAX_LAYOFF_OPTIONS), dtype=np.int64)
    counts = np.ones(n, dtype=np.int64)
    for i in range(n):
        counts[i] = _layoff_options(melds[i], defender, options[i])
    index = np.zeros(n, dtype=np.int64)
    best = deadwood_of(np.uint64(defender), slots)
    best_laid = 0
    while next_index(index, counts, n):
        laid = 0
        for i in range(n):
            laid |= options[i, index[i]]
        f = deadwood_of(np.uint64(defender & ~laid), slots)
        if f < best or (f == best and ids_before(laid, best_laid)):
            best, best_laid = f, laid
    _split(options, counts, best_laid, parts[:n], index)
    return best


@njit(cache=True, inline="always")
def _split(options, counts, laid, parts, index):
    """The cards of ``laid`` on each meld: each in turn takes the largest of its options left (the first of equal
    size); if cards are left over, the first exact split of the options with the last meld varying fastest.
    ``index`` is all zeros."""
    n = parts.size
    left = laid
    for i in range(n):
        size = -1
        for j in range(counts[i]):
            option = options[i, j]
            if option & left == option and count(option) > size:
                parts[i], size = option, count(option)
        left &= ~parts[i]
    if left == 0:
        return
    while True:
        union, size = 0, 0
        for i in range(n):
            union |= options[i, index[i]]
            size += count(options[i, index[i]])
        if union == laid and size == count(laid):
            for i in range(n):
                parts[i] = options[i, index[i]]
            return
        next_index(index, counts, n)  # an exact split exists: ``laid`` is a union of options
