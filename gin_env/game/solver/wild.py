"""The jokers' part of the exact solver, compiled with numba (docs/rules.md R62, R65-R69, R82): the least deadwood
and the discard phase of a holding that holds a joker.

A joker is bit ``N_CARDS + i`` of a card mask (ids 52 and 53). A holding's deadwood (R68) is the least, over every
arrangement, of its unmelded natural cards plus ``joker_value`` per unmelded joker, each joker's meld and identity
being part of the arrangement. The search splits like the standard one (``kernels``), with the jokers as a budget of
0, 1 or 2 shared between the melds:

* **Sets with jokers** (R65) hold ``joker_min_naturals`` or more naturals of one rank and 1 or 2 jokers, 3 or 4
  cards in all. Every choice of at most two of them (two at one rank: ``7S 7H JK`` and ``7D 7C JK``, T16) is tried,
  with each natural subset of the rank, since the naturals they leave may go to runs or to a second set.
* **Natural sets** of what is left: the standard odometer over set choices, unpruned (a card in no natural 3-card
  window may still be in a run through a joker).
* **Runs** stay inside one suit, so a suit pattern's least run-only deadwood with exactly ``b`` jokers melded in its
  runs is one lookup (``WILD_RUNS``, built at import by a recurrence over the pattern's lowest card: deadwood, or
  the lowest natural of a run of any length (R82) with up to ``b`` jokers below it, in its gaps and above it, every
  natural of the run's ranks in it and at least ``joker_min_naturals`` of them). The four suits share the joker
  budget, so the runs of a set choice cost the least over the splits of the budget between the suits.

A natural card inside a run's ranks is always in that run: a joker standing for it instead would leave it unmelded
(worse) or in an overlapping run of the same suit, which merges with this one into one run holding the same naturals
with fewer jokers, and every joker freed extends it. So the recurrence loses no arrangement. Identities are local to
their meld (R66): a set or run may hold a joker standing for a natural melded elsewhere (T12).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_env.game.cards import JOKER_MIN_NATURALS, MAX_JOKERS, N_CARDS, N_SUITS, RANK_VALUES, STANDARD_DECK
from gin_env.game.solver.counting import choice_rest, count, next_choice, set_slots
from gin_env.game.solver.lookups import OPTION_TABLES, RUN_DEADWOOD, SUIT_BITS, SUIT_MASK, SUIT_PATTERNS

#: The fewest cards of a meld (R4, R5) and the most of a set (one per suit).
MIN_MELD = 3
MAX_SET = N_SUITS
#: A deadwood no holding reaches: an impossible case of ``WILD_RUNS`` (no arrangement melds that many jokers).
IMPOSSIBLE = 10_000
#: The natural cards' bits of a card mask, and the jokers' (ids ``N_CARDS`` on).
NATURALS = (1 << N_CARDS) - 1
JOKER_BITS = ((1 << MAX_JOKERS) - 1) << N_CARDS
#: The settings of ``joker_min_naturals`` (R65), the first index of ``WILD_RUNS``.
MIN_NATURALS = JOKER_MIN_NATURALS
#: The joker settings (``joker_value``, ``joker_min_naturals``) of the rules' defaults, for a solver call whose
#: holdings hold no joker, where they are never read.
DEFAULT_SETTINGS = (STANDARD_DECK.joker_value, JOKER_MIN_NATURALS[-1])
#: The most joker-set candidates of one rank (4 naturals, two jokers, one natural per meld: 4 + 12 + 4), and of a
#: holding.
_RANK_CANDIDATES = 20
MAX_CANDIDATES = SUIT_BITS * _RANK_CANDIDATES
#: Rows of the solver's working array (``kernels.scratch``) that this module uses, after the odometer's three: the
#: rules' joker settings, the joker-set candidates, and small per-choice arrays.
SETTINGS, CAND_CARDS, CAND_JOKERS, PATTERNS, REST, COSTS, OWN = range(3, 10)
SCRATCH_ROWS = OWN + 1
#: Columns of the SETTINGS row.
JOKER_VALUE, MIN_NATURALS_COLUMN = 0, 1

_RANK_VALUES = np.array(RANK_VALUES, dtype=np.int64)
#: The card mask of each rank in every suit: a set's declaration (``declarations``).
RANK_COLUMNS = np.array([sum(1 << (s * SUIT_BITS + r) for s in range(N_SUITS)) for r in range(SUIT_BITS)],
                        dtype=np.int64)
_ALL_OPTIONS, _ALL_COUNTS = (table.reshape(16 * 16, -1) for table in OPTION_TABLES[False])
_ALL_COUNTS = _ALL_COUNTS.reshape(-1)
_RUN_DEADWOOD = RUN_DEADWOOD.astype(np.int64)


@njit(cache=True)
def _build_wild_runs(min_naturals, max_jokers):
    """For each suit pattern and each ``b`` 0..``max_jokers``: the least deadwood of the pattern's cards with exactly
    ``b`` jokers melded in its runs (R65, R82), ``IMPOSSIBLE`` where no arrangement melds ``b``."""
    table = np.full((max_jokers + 1, SUIT_PATTERNS), IMPOSSIBLE, dtype=np.int64)
    table[0, 0] = 0
    for p in range(1, SUIT_PATTERNS):
        low = 0
        while not (p >> low) & 1:
            low += 1
        for b in range(max_jokers + 1):
            best = _RANK_VALUES[low] + table[b, p & (p - 1)]
            for start in range(max(0, low - b), low + 1):
                for end in range(low, SUIT_BITS):
                    length = end - start + 1
                    ranks = ((1 << length) - 1) << start
                    naturals = 0
                    q = p & ranks
                    while q:
                        q &= q - 1
                        naturals += 1
                    jokers = length - naturals
                    if jokers > b:
                        break
                    if length >= MIN_MELD and naturals >= min_naturals:
                        best = min(best, table[b - jokers, p & ~ranks])
            table[b, p] = min(best, IMPOSSIBLE)
    return table


#: ``WILD_RUNS[m - 1, b, pattern]``: a suit pattern's least deadwood with exactly ``b`` jokers in its runs, under
#: ``joker_min_naturals`` = m. ``b`` = 0 is ``RUN_DEADWOOD``.
WILD_RUNS = np.stack([_build_wild_runs(m, MAX_JOKERS) for m in MIN_NATURALS]).astype(np.int16)
assert (WILD_RUNS[:, 0] == RUN_DEADWOOD).all()
_WILD_RUNS = WILD_RUNS.astype(np.int64)


@njit(cache=True, inline="always")
def _suit(mask, s):
    return (mask >> (SUIT_BITS * s)) & SUIT_MASK


@njit(cache=True, inline="always")
def jokers_held(mask):
    """How many jokers the card mask ``mask`` holds."""
    return count(np.int64(mask) >> N_CARDS)


@njit(cache=True, inline="always")
def _joker_sets(naturals, jokers, min_naturals, cand_cards, cand_jokers):
    """The sets holding jokers that the holding could meld (R65): into ``cand_cards`` (their naturals) and
    ``cand_jokers`` (their jokers), every natural subset of each rank with 1 or 2 jokers; return how many."""
    n = 0
    for rank in range(SUIT_BITS):
        column = 0
        for s in range(N_SUITS):
            column |= ((naturals >> (s * SUIT_BITS + rank)) & 1) << (s * SUIT_BITS + rank)
        if count(column) < min_naturals:
            continue
        sub = column
        while sub:  # every non-empty subset of the rank's naturals
            size = count(sub)
            if size >= min_naturals:
                for k in range(1, jokers + 1):
                    if MIN_MELD <= size + k <= MAX_SET:
                        cand_cards[n], cand_jokers[n] = sub, k
                        n += 1
            sub = (sub - 1) & column
    return n


@njit(cache=True, inline="always")
def _budget_costs(runs, rest, skip, out):
    """Into ``out[t]`` (t = 0..``MAX_JOKERS``): the least run deadwood of the suit patterns ``rest`` but suit
    ``skip`` (-1: none) with exactly t jokers in their runs, the t jokers split between the suits."""
    base = 0
    best1 = IMPOSSIBLE
    best2 = IMPOSSIBLE
    pair = IMPOSSIBLE
    for s in range(N_SUITS):
        if s == skip:
            continue
        zero = runs[0, rest[s]]
        base += zero
        d1 = runs[1, rest[s]] - zero
        pair = min(pair, best1 + d1)
        best1 = min(best1, d1)
        best2 = min(best2, runs[2, rest[s]] - zero)
    out[0] = base
    out[1] = base + best1
    out[2] = base + min(best2, pair)


@njit(cache=True, inline="always")
def set_joker_rules(slots, joker_value, min_naturals):
    """Record the rules' ``joker_value`` and ``joker_min_naturals`` in the working array ``slots`` (from
    ``kernels.scratch``), which the functions below read."""
    slots[SETTINGS, JOKER_VALUE] = joker_value
    slots[SETTINGS, MIN_NATURALS_COLUMN] = min_naturals


@njit(cache=True, inline="always")
def _each_choice(mask, slots, per_card, drops):
    """Walk every set choice of the holding ``mask`` (a joker held) under the joker rules recorded in ``slots``:
    return (its least deadwood, the least deadwood of its naturals with every joker melded: 0 when every card is
    melded). With ``drops``, lower each natural card's entry of ``per_card`` to the least deadwood of the holding
    without it."""
    joker_value, min_naturals = slots[SETTINGS, JOKER_VALUE], slots[SETTINGS, MIN_NATURALS_COLUMN]
    runs = _WILD_RUNS[min_naturals - 1]
    naturals = mask & NATURALS
    jokers = jokers_held(mask)
    cand_cards, cand_jokers = slots[CAND_CARDS], slots[CAND_JOKERS]
    patterns, rest, costs, own = slots[PATTERNS], slots[REST], slots[COSTS], slots[OWN]
    n_cand = _joker_sets(naturals, jokers, min_naturals, cand_cards, cand_jokers)
    best = IMPOSSIBLE
    all_melded = IMPOSSIBLE
    for a in range(-1, n_cand):
        for b in range(a, n_cand):
            in_sets, used = 0, 0
            if a >= 0:
                in_sets, used = cand_cards[a], cand_jokers[a]
            if b > a:  # a second joker set, after the first: disjoint naturals, the jokers within the budget
                if a < 0 or cand_cards[b] & in_sets or used + cand_jokers[b] > jokers:
                    continue
                in_sets |= cand_cards[b]
                used += cand_jokers[b]
            left = jokers - used
            for s in range(N_SUITS):
                patterns[s] = _suit(naturals & ~in_sets, s)
            n = set_slots(patterns[0], patterns[1], patterns[2], patterns[3], False, slots)
            while True:
                rest[0], rest[1], rest[2], rest[3] = choice_rest(patterns[0], patterns[1], patterns[2], patterns[3],
                                                                 slots, n, _ALL_OPTIONS)
                _budget_costs(runs, rest, -1, costs)
                for t in range(left + 1):
                    best = min(best, costs[t] + (left - t) * joker_value)
                all_melded = min(all_melded, costs[left])
                if drops:
                    _lower_drops(runs, rest, left, joker_value, costs, own, per_card)
                if not next_choice(slots, n, _ALL_COUNTS):
                    break
    return best, all_melded


@njit(cache=True, inline="always")
def _lower_drops(runs, rest, left, joker_value, costs, own, per_card):
    """Lower ``per_card`` for each natural of the patterns ``rest`` (what a set choice leaves for runs, ``left``
    jokers to place) to the deadwood of that choice without the card."""
    for s in range(N_SUITS):
        _budget_costs(runs, rest, s, costs)
        q = rest[s]
        while q:
            r = 0
            while not (q >> r) & 1:
                r += 1
            q &= q - 1
            without = rest[s] & ~(1 << r)
            for u in range(MAX_JOKERS + 1):
                own[u] = runs[u, without]
            least = IMPOSSIBLE
            for t in range(left + 1):
                for u in range(t + 1):
                    least = min(least, own[u] + costs[t - u] + (left - t) * joker_value)
            c = s * SUIT_BITS + r
            per_card[c] = min(per_card[c], least)


@njit(cache=True)
def wild_deadwood_of(mask, slots):
    """Exact least deadwood (R68) of a holding ``mask`` that holds a joker, under the joker rules recorded in
    ``slots`` (``set_joker_rules``): each unmelded joker counts ``joker_value``, every meld holds
    ``joker_min_naturals`` naturals (R65)."""
    best, _ = _each_choice(np.int64(mask), slots, slots[OWN], False)
    return best


@njit(cache=True)
def wild_drop_naturals(mask, slots, per_card):
    """For a holding that holds a joker: lower each held natural card's entry of ``per_card`` to the least deadwood
    of the holding without it (R8), entries not held untouched; return the least deadwood of its naturals with every
    joker melded (0: every card melded, R24)."""
    _, all_melded = _each_choice(np.int64(mask), slots, per_card, True)
    return all_melded
