"""Which melds when jokers play, compiled with numba (docs/rules.md R22, R27, R28, R65, R66, R73-R77, R82): the
arrangements of a holding with each joker's meld and identity declared, the knocker's auto-arrangement, and the
defender's layoffs, its jokers included. The walk keeps its own stack (numba caches no recursive function).

A meld is two int64 masks: its ``cards`` (natural card bits and joker bits) and its ``ident``, the natural cards it
stands for: a run's ranks in its suit from its declared lowest to its highest (every joker's identity fixed, R73), a
set's whole rank column (a set joker's suit is never declared, R65). The arrangements come from a depth-first walk
over the lowest natural card left: deadwood, or in a set of its rank (any of the rank's naturals left, 0-2 jokers),
or the lowest natural of a run of any length (R82) with jokers below it, in its gaps, and standing for naturals left
for other melds (R66). Each arrangement is visited once, its jokers numbered lowest id first in the order the walk
makes their melds; only arrangements of the holding's least deadwood (from ``kernels``) are walked to the end.

Ties are broken in one documented order: the knocker's arrangements are compared by their melds sorted by cards then
ident, each meld by its sorted card ids and then its identity mask; the defender's layoff is its least deadwood,
then the layoff whose sorted card ids come first (its jokers numbered lowest first), then the first split in the
order of the melds' options (a natural, then a joker at each place of a chain, shorter chains first).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gin_env.game.cards import MAX_JOKERS, N_CARDS, RANK_VALUES
from gin_env.game.solver.counting import count, ids_before, low_index, lowest_bits
from gin_env.game.solver.kernels import deadwood_of
from gin_env.game.solver.lookups import SUIT_BITS
from gin_env.game.solver.wild import (
    JOKER_BITS,
    JOKER_VALUE,
    MAX_SET,
    MIN_MELD,
    MIN_NATURALS_COLUMN,
    NATURALS,
    RANK_COLUMNS,
    SETTINGS,
)
from gin_env.game.solver.wild_layoffs import wild_laydown

#: The most melds of a holding of 10 or 11 cards, with room for a holding of every natural card.
MAX_MELDS = (N_CARDS + MAX_JOKERS) // MIN_MELD
_RANK_VALUES = np.array(RANK_VALUES, dtype=np.int64)
#: What a walk does with each arrangement it reaches: stop at the first, or lay each down against a defender.
FIRST, SHOWDOWN = 0, 1


#: Rows of the walk's int64 ``melds`` array: the current arrangement's cards and idents, the best's, a sorted copy
#: of the current one, and the layoffs per meld (their cards, and the ranks each covers) of the current one and the
#: best.
CARDS, IDENT, BEST_CARDS, BEST_IDENT, SORTED_CARDS, SORTED_IDENT, PARTS, BEST_PARTS, SPANS, BEST_SPANS = range(10)
#: Entries of the walk's int64 ``numbers`` array.
TARGET, N_BEST, BEST_F, FOUND, DEFENDER, MODE, LAYOFFS = range(7)




def _most_moves() -> int:
    """The most moves at one step of the walk, for its lowest natural: deadwood; a set with any of the rank's other
    naturals and 0..MAX_JOKERS jokers; a run with ``below`` jokers under it, any end, and any of the up to 12
    naturals above it standing for up to the jokers left over (R66)."""
    runs = sum(math.comb(held, k) for below in range(MAX_JOKERS + 1) for held in range(SUIT_BITS)
               for k in range(MAX_JOKERS - below + 1))
    return 1 + (1 << (MAX_SET - 1)) * (MAX_JOKERS + 1) + runs


MAX_MOVES = _most_moves()
#: Rows of the walk's per-step ``moves`` array: each move's naturals, its jokers, its declaration (0: deadwood),
#: and the deadwood it adds.
MOVE_NATURALS, MOVE_JOKERS, MOVE_IDENT, MOVE_DEADWOOD = range(4)
#: Rows of the walk's per-step ``steps`` array: the naturals, jokers, deadwood and melds so far at the step, its
#: number of moves and the next move to try.
STEP_NATURALS, STEP_JOKERS, STEP_DEADWOOD, STEP_MELDS, STEP_MOVES, STEP_NEXT = range(6)


@njit(cache=True, inline="always")
def _add_move(moves, n, naturals, jokers, ident, deadwood):
    moves[MOVE_NATURALS, n], moves[MOVE_JOKERS, n] = naturals, jokers
    moves[MOVE_IDENT, n], moves[MOVE_DEADWOOD, n] = ident, deadwood
    return n + 1


@njit(cache=True)
def _moves(naturals, jokers, min_naturals, moves):
    """Every move for the lowest natural of ``naturals`` with ``jokers`` jokers left, into ``moves``: deadwood,
    each set holding it (R4, R65), each run whose lowest natural it is (R5, R65, R66, R82); return how many."""
    low = low_index(naturals)
    rank, suit = low % SUIT_BITS, low // SUIT_BITS
    n = _add_move(moves, 0, 1 << low, 0, 0, _RANK_VALUES[rank])
    others = naturals & RANK_COLUMNS[rank] & ~(1 << low)
    sub = others
    while True:
        chosen = sub | (1 << low)
        size = count(chosen)
        for k in range(min(jokers, MAX_SET - size) + 1):
            if size >= min_naturals and size + k >= MIN_MELD:
                n = _add_move(moves, n, chosen, k, RANK_COLUMNS[rank], 0)
        if sub == 0:
            break
        sub = (sub - 1) & others
    return _run_moves(naturals, jokers, min_naturals, low, rank, suit, moves, n)


@njit(cache=True, inline="always")
def _run_moves(naturals, jokers, min_naturals, low, rank, suit, moves, n):
    """``_moves``'s runs: ``below`` jokers under ``low``, then every rank up to ``end``, each a natural left in the
    suit or a joker, a joker also standing for up to the jokers left over of the naturals (``skip``, R66)."""
    shift = suit * SUIT_BITS
    pattern = (naturals >> shift) & ((1 << SUIT_BITS) - 1)
    for below in range(min(jokers, rank) + 1):
        start = rank - below
        for end in range(rank, SUIT_BITS):
            held = pattern & (((1 << (end - rank)) - 1) << (rank + 1))
            gaps = (end - rank) - count(held)
            if below + gaps > jokers:
                break
            if end - start + 1 < MIN_MELD:
                continue
            ident = (((1 << (end - start + 1)) - 1) << start) << shift
            spare = jokers - below - gaps
            first = held if spare else 0
            n = _add_run(moves, n, held, 0, low, shift, below + gaps, ident, min_naturals)
            while first:
                one = first & -first
                first &= ~one
                n = _add_run(moves, n, held, one, low, shift, below + gaps + 1, ident, min_naturals)
                second = first if spare > 1 else 0
                while second:
                    two = second & -second
                    second &= ~two
                    n = _add_run(moves, n, held, one | two, low, shift, below + gaps + 2, ident, min_naturals)
    return n


@njit(cache=True, inline="always")
def _add_run(moves, n, held, skip, low, shift, n_jokers, ident, min_naturals):
    """Add the run of ``ident`` holding ``low`` and the naturals ``held`` but ``skip``, with ``n_jokers`` jokers,
    if it holds enough naturals."""
    used = ((held & ~skip) << shift) | (1 << low)
    if count(used) < min_naturals:
        return n
    return _add_move(moves, n, used, n_jokers, ident, 0)


@njit(cache=True)
def _walk(naturals, jokers, melds, numbers, slots, inner):
    """Visit every arrangement of the holding (``naturals``, ``jokers``) whose deadwood is ``numbers[TARGET]``,
    depth first over the moves of its lowest natural left, until ``_visit`` says stop."""
    joker_value, min_naturals = slots[SETTINGS, JOKER_VALUE], slots[SETTINGS, MIN_NATURALS_COLUMN]
    depth_max = count(naturals) + 1
    moves = np.empty((depth_max, MOVE_DEADWOOD + 1, MAX_MOVES), dtype=np.int64)
    steps = np.zeros((depth_max, STEP_NEXT + 1), dtype=np.int64)
    steps[0, STEP_NATURALS], steps[0, STEP_JOKERS] = naturals, jokers
    steps[0, STEP_MOVES] = _moves(naturals, count(jokers), min_naturals, moves[0])
    d = 0
    while d >= 0:
        step = steps[d]
        if step[STEP_NEXT] == step[STEP_MOVES]:
            d -= 1
            continue
        i = step[STEP_NEXT]
        step[STEP_NEXT] += 1
        move = moves[d, :, i]
        acc = step[STEP_DEADWOOD] + move[MOVE_DEADWOOD]
        if acc > numbers[TARGET]:
            continue
        used = lowest_bits(step[STEP_JOKERS], move[MOVE_JOKERS])
        n_melds = step[STEP_MELDS]
        if move[MOVE_IDENT]:
            melds[CARDS, n_melds], melds[IDENT, n_melds] = move[MOVE_NATURALS] | used, move[MOVE_IDENT]
            n_melds += 1
        left, jokers_left = step[STEP_NATURALS] & ~move[MOVE_NATURALS], step[STEP_JOKERS] & ~used
        if left == 0:
            if acc + count(jokers_left) * joker_value == numbers[TARGET] and _visit(n_melds, melds, numbers, slots,
                                                                                     inner):
                return
            continue
        d += 1
        steps[d, STEP_NATURALS], steps[d, STEP_JOKERS], steps[d, STEP_DEADWOOD] = left, jokers_left, acc
        steps[d, STEP_MELDS], steps[d, STEP_NEXT] = n_melds, 0
        steps[d, STEP_MOVES] = _moves(left, count(jokers_left), min_naturals, moves[d])


@njit(cache=True)
def _visit(depth, melds, numbers, slots, inner):
    """One arrangement of the least deadwood, in the first ``depth`` columns of ``melds``: keep it if it is the
    first (mode FIRST, then stop) or leaves the defender the most (mode SHOWDOWN, R22)."""
    n = depth
    for i in range(n):  # insertion sort by (cards, ident)
        c, d = melds[CARDS, i], melds[IDENT, i]
        j = i - 1
        while j >= 0 and (melds[SORTED_CARDS, j] > c or (melds[SORTED_CARDS, j] == c and melds[SORTED_IDENT, j] > d)):
            melds[SORTED_CARDS, j + 1], melds[SORTED_IDENT, j + 1] = melds[SORTED_CARDS, j], melds[SORTED_IDENT, j]
            j -= 1
        melds[SORTED_CARDS, j + 1], melds[SORTED_IDENT, j + 1] = c, d
    if numbers[MODE] == FIRST:
        _keep(n, melds, numbers, 0)
        return True
    if numbers[LAYOFFS]:
        f = wild_laydown(numbers[DEFENDER], melds[SORTED_CARDS, :n], melds[SORTED_IDENT, :n], melds[PARTS, :n],
                         melds[SPANS, :n], inner)
    else:
        f = deadwood_of(np.uint64(numbers[DEFENDER]), inner)
        melds[PARTS, :n] = 0
        melds[SPANS, :n] = 0
    if numbers[FOUND] == 0 or f > numbers[BEST_F] or (f == numbers[BEST_F] and _before(melds, n, numbers)):
        _keep(n, melds, numbers, f)
    return False


@njit(cache=True, inline="always")
def _before(melds, n, numbers):
    """True when the sorted current arrangement comes before the best so far (by cards, then idents)."""
    for i in range(min(n, numbers[N_BEST])):
        if melds[SORTED_CARDS, i] != melds[BEST_CARDS, i]:
            return ids_before(melds[SORTED_CARDS, i], melds[BEST_CARDS, i])
    for i in range(min(n, numbers[N_BEST])):
        if melds[SORTED_IDENT, i] != melds[BEST_IDENT, i]:
            return ids_before(melds[SORTED_IDENT, i], melds[BEST_IDENT, i])
    return n < numbers[N_BEST]


@njit(cache=True, inline="always")
def _keep(n, melds, numbers, f):
    melds[BEST_CARDS, :n] = melds[SORTED_CARDS, :n]
    melds[BEST_IDENT, :n] = melds[SORTED_IDENT, :n]
    melds[BEST_PARTS, :n] = melds[PARTS, :n]
    melds[BEST_SPANS, :n] = melds[SPANS, :n]
    numbers[N_BEST], numbers[BEST_F], numbers[FOUND] = n, f, 1


@njit(cache=True)
def wild_walk(holding, target, mode, defender, layoffs, slots, inner):
    """Walk the arrangements of ``holding`` (an int64 card mask) of deadwood ``target``: the first (mode FIRST), or
    the one leaving ``defender`` the most deadwood after its joint melds and layoffs (mode SHOWDOWN, R22; without
    ``layoffs`` its plain deadwood). Return (the arrangement's meld cards, idents, layoffs per meld and the run
    places each covers, how many melds, the defender's deadwood)."""
    melds = np.zeros((BEST_SPANS + 1, MAX_MELDS), dtype=np.int64)
    numbers = np.zeros(LAYOFFS + 1, dtype=np.int64)
    numbers[TARGET], numbers[MODE], numbers[DEFENDER], numbers[LAYOFFS] = target, mode, defender, layoffs
    if holding & NATURALS:
        _walk(holding & NATURALS, holding & JOKER_BITS, melds, numbers, slots, inner)
    elif count(holding) * slots[SETTINGS, JOKER_VALUE] == target:  # jokers alone never meld (R65)
        _visit(0, melds, numbers, slots, inner)
    n = numbers[N_BEST]
    return (melds[BEST_CARDS, :n].copy(), melds[BEST_IDENT, :n].copy(), melds[BEST_PARTS, :n].copy(),
            melds[BEST_SPANS, :n].copy(), n, numbers[BEST_F])
