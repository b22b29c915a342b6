"""The defender's layoffs when jokers play, compiled with numba (docs/rules.md R27, R28, R74-R77): every way to
extend each declared knocker meld with the defender's cards and jokers, and the best joint lay-down.

A knocker meld is its ``cards`` and its ``ident`` (``wild_melds``): a 3-card set takes a natural of its rank that
its naturals lack, or a joker, and is then full; a 4-card set takes nothing; a run grows only at its declared ends
(R74), one rank at a time within A..K, each place a natural of its suit or a joker, so cards chain outward through
a laid-off joker (R76). No joker is swapped out (R75). The defender's jokers are numbered lowest first, meld by
meld.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gin_env.game.cards import MAX_JOKERS
from gin_env.game.solver.counting import count, ids_before, low_index, lowest_bits, next_index
from gin_env.game.solver.kernels import deadwood_of
from gin_env.game.solver.lookups import SUIT_BITS
from gin_env.game.solver.wild import JOKER_BITS, MIN_MELD, NATURALS, RANK_COLUMNS

#: The places a run's layoffs can cover, both ends together: the ranks a run of 3 leaves.
_PLACES = SUIT_BITS - MIN_MELD
#: The most ways to place at most MAX_JOKERS jokers among the places of one chain or pair of chains.
_JOKER_PLACINGS = sum(math.comb(_PLACES, k) for k in range(MAX_JOKERS + 1))
#: The most chains at one end of a run (each length 0.._PLACES), and the most layoff options of one meld (each pair
#: of chain lengths covering at most _PLACES; a set has at most 3).
MAX_CHAINS = (_PLACES + 1) * _JOKER_PLACINGS
MAX_OPTIONS = (_PLACES + 1) * (_PLACES + 2) // 2 * _JOKER_PLACINGS

@njit(cache=True, inline="always")
def _chains(defender, jokers, suit, start, step, out_naturals, out_jokers, out_spans):
    """Every chain of defender cards extending a run from rank ``start`` on in steps of ``step`` (R27, R76): each
    place a natural of the suit held or one of the ``jokers`` held (a joker also where the natural is held, which
    may then go elsewhere). Into the outputs (its naturals, its jokers, the places it covers), the empty chain
    first; return how many."""
    out_naturals[0], out_jokers[0], out_spans[0] = 0, 0, 0
    n, begin = 1, 0
    rank = start
    while 0 <= rank < SUIT_BITS:
        bit = 1 << (suit * SUIT_BITS + rank)
        end = n
        for i in range(begin, end):  # extend each chain reaching the previous place by this one
            if defender & bit:
                out_naturals[n], out_jokers[n], out_spans[n] = out_naturals[i] | bit, out_jokers[i], out_spans[i] | bit
                n += 1
            if out_jokers[i] < jokers:
                out_naturals[n], out_jokers[n], out_spans[n] = out_naturals[i], out_jokers[i] + 1, out_spans[i] | bit
                n += 1
        if n == end:
            break
        begin = end
        rank += step
    return n


@njit(cache=True, inline="always")
def _layoff_options(cards, ident, defender, jokers, opt_naturals, opt_jokers, opt_spans):
    """The defender's layoffs on one knocker meld (R27, R74, R76), none first: a set of 3 takes a natural of its rank
    its naturals lack, or a joker; a run its chains at both declared ends (with the places they cover). Return how
    many."""
    opt_naturals[0], opt_jokers[0], opt_spans[0] = 0, 0, 0
    low = low_index(ident)
    rank, suit = low % SUIT_BITS, low // SUIT_BITS
    if ident == RANK_COLUMNS[rank]:
        if count(cards) != MIN_MELD:
            return 1
        n = 1
        missing = RANK_COLUMNS[rank] & ~cards & defender
        while missing:
            bit = missing & -missing
            missing &= ~bit
            opt_naturals[n], opt_jokers[n], opt_spans[n] = bit, 0, 0
            n += 1
        if jokers:
            opt_naturals[n], opt_jokers[n], opt_spans[n] = 0, 1, 0
            n += 1
        return n
    below = np.empty((3, MAX_CHAINS), dtype=np.int64)
    above = np.empty((3, MAX_CHAINS), dtype=np.int64)
    n_below = _chains(defender, jokers, suit, rank - 1, -1, below[0], below[1], below[2])
    n_above = _chains(defender, jokers, suit, rank + count(ident), 1, above[0], above[1], above[2])
    n = 0
    for b in range(n_below):
        for a in range(n_above):
            if below[1, b] + above[1, a] <= jokers:
                opt_naturals[n], opt_jokers[n] = below[0, b] | above[0, a], below[1, b] + above[1, a]
                opt_spans[n] = below[2, b] | above[2, a]
                n += 1
    return n


@njit(cache=True)
def wild_laydown(defender, melds_cards, melds_ident, parts, spans, slots):
    """The least deadwood of the holding ``defender`` over its joint own melds and layoffs (R28, R76) on the knocker
    melds ``melds_cards``/``melds_ident``; fill ``parts`` with the cards laid on each (its jokers numbered lowest
    first, meld by meld) and ``spans`` with the run places each layoff covers, and return the deadwood."""
    n = melds_cards.size
    jokers_mask = defender & JOKER_BITS
    jokers = count(jokers_mask)
    opt_naturals = np.empty((n, MAX_OPTIONS), dtype=np.int64)
    opt_jokers = np.empty((n, MAX_OPTIONS), dtype=np.int64)
    opt_spans = np.empty((n, MAX_OPTIONS), dtype=np.int64)
    counts = np.ones(n, dtype=np.int64)
    for i in range(n):
        counts[i] = _layoff_options(melds_cards[i], melds_ident[i], defender & NATURALS, jokers, opt_naturals[i],
                                    opt_jokers[i], opt_spans[i])
    index = np.zeros(n, dtype=np.int64)
    best_index = np.zeros(n, dtype=np.int64)
    best = deadwood_of(np.uint64(defender), slots)
    best_laid = 0
    while next_index(index, counts, n):
        laid_naturals, laid_jokers, clash = 0, 0, False
        for i in range(n):
            option = opt_naturals[i, index[i]]
            clash |= (laid_naturals & option) != 0
            laid_naturals |= option
            laid_jokers += opt_jokers[i, index[i]]
        if clash or laid_jokers > jokers:
            continue
        laid = laid_naturals | lowest_bits(jokers_mask, laid_jokers)
        f = deadwood_of(np.uint64(defender & ~laid), slots)
        if f < best or (f == best and ids_before(laid, best_laid)):
            best, best_laid = f, laid
            best_index[:] = index
    left = jokers_mask
    for i in range(n):
        own = lowest_bits(left, opt_jokers[i, best_index[i]]) if best_laid else 0
        left &= ~own
        parts[i] = (opt_naturals[i, best_index[i]] | own) if best_laid else 0
        spans[i] = opt_spans[i, best_index[i]] if best_laid else 0
    return best
