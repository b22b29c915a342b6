"""The exact solver compiled with numba, one hand at a time (docs/rules.md R4-R8, R16, R20, R24).

This module owns the per-hand numbers of a holding (deadwood, the discard phase) that both engines call, the
odometer over set choices that ``melds`` walks for arrangements and the showdown, and loops of them over arrays of
card masks (bit ``c`` for card ``c``, as uint64) for the batched solver functions of ``solver``. It reads the tables
of ``lookups``: the run-only deadwood of a suit pattern is one lookup, sets are the only coupling between suits, and
only ranks held 3 or 4 times can form one, so the exact minimum is the least, over every combination of set choices
at those ranks, of four lookups. A holding with a joker (R62-R69) takes the second branch of each function, in
``wild``; every other holding runs the code above it. Compiled code is cached on disk (``cache=True``): only the
first import on a machine pays the compile.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_env.game.cards import MAX_JOKERS, N_CARDS
from gin_env.game.solver.counting import LOW_RANK, choice_rest, next_choice, set_slots
from gin_env.game.solver.lookups import (
    DROP_DEADWOOD,
    MAX_OPTIONS,
    NOT_HELD,
    OPTION_TABLES,
    RUN_DEADWOOD,
    SUIT_BITS,
    SUIT_MASK,
)
from gin_env.game.solver.wild import (
    IMPOSSIBLE,
    MAX_CANDIDATES,
    SCRATCH_ROWS,
    set_joker_rules,
    wild_deadwood_of,
    wild_drop_naturals,
)

#: Set choices per (present suits, run-capable suits) key, pruned for holdings that discard nothing, and not.
_PRUNED_OPTIONS, _PRUNED_COUNTS = (table.reshape(16 * 16, -1) for table in OPTION_TABLES[True])
_ALL_OPTIONS, _ALL_COUNTS = (table.reshape(16 * 16, -1) for table in OPTION_TABLES[False])
_PRUNED_COUNTS = _PRUNED_COUNTS.reshape(-1)
_ALL_COUNTS = _ALL_COUNTS.reshape(-1)
_RUN_DEADWOOD = RUN_DEADWOOD.astype(np.int64)
_DROP_DEADWOOD = DROP_DEADWOOD.astype(np.int64)
#: Every card id of any deck: the natural cards, then the jokers (R62).
MAX_IDS = N_CARDS + MAX_JOKERS
_JOKER_SHIFT = np.uint64(N_CARDS)


@njit(cache=True, inline="always")
def _suit(mask, s):
    """The 13-bit pattern of suit ``s`` of a card mask."""
    return np.int64((mask >> np.uint64(SUIT_BITS * s)) & np.uint64(SUIT_MASK))


@njit(cache=True, inline="always")
def run_deadwood(p0, p1, p2, p3):
    """The run-only deadwood of four suit patterns."""
    return _RUN_DEADWOOD[p0] + _RUN_DEADWOOD[p1] + _RUN_DEADWOOD[p2] + _RUN_DEADWOOD[p3]


@njit(cache=True, inline="always")
def first_set_choice(p0, p1, p2, p3, slots):
    """Start the odometer over the set choices worth trying (pruned) for the suit patterns ``p0..p3`` of a holding
    that discards nothing: fill ``slots`` (from ``scratch``) and return its number of set ranks."""
    return set_slots(p0, p1, p2, p3, True, slots)


@njit(cache=True, inline="always")
def set_choice_rest(p0, p1, p2, p3, slots, n):
    """The suit patterns left for runs after the odometer's current set choice."""
    return choice_rest(p0, p1, p2, p3, slots, n, _PRUNED_OPTIONS)


@njit(cache=True, inline="always")
def next_set_choice(slots, n):
    """Advance the odometer of ``first_set_choice``; False once every choice has been visited."""
    return next_choice(slots, n, _PRUNED_COUNTS)


@njit(cache=True, inline="always")
def scratch(joker_value, min_naturals):
    """Working space for the functions below: an int64 array whose first three rows hold the set choices and the
    rest ``wild``'s working rows, with the rules' joker settings recorded (``wild.set_joker_rules``; read only for
    a holding with a joker), then a deadwood per card id (jokers included)."""
    slots = np.empty((SCRATCH_ROWS, MAX_CANDIDATES), dtype=np.int64)
    set_joker_rules(slots, joker_value, min_naturals)
    return slots, np.empty(MAX_IDS, dtype=np.int64)


@njit(cache=True, inline="always")
def scratch_of(settings):
    """``scratch`` for the joker settings ``settings``: (``joker_value``, ``joker_min_naturals``), in the order of
    ``Rules.joker_settings`` (a row of ``hand_rules.rule_values``)."""
    joker_value, min_naturals = settings[0], settings[1]
    return scratch(joker_value, min_naturals)


@njit(cache=True, inline="always")
def has_joker(mask):
    """True when the card mask ``mask`` (uint64) holds a joker."""
    return (np.uint64(mask) >> _JOKER_SHIFT) != 0


@njit(cache=True, inline="always")
def deadwood_of(mask, slots):
    """Exact least deadwood of a holding (R7, R68 with jokers), any number of cards. ``slots``: from
    ``scratch``."""
    if has_joker(mask):
        return wild_deadwood_of(mask, slots)
    p0, p1, p2, p3 = _suit(mask, 0), _suit(mask, 1), _suit(mask, 2), _suit(mask, 3)
    n = first_set_choice(p0, p1, p2, p3, slots)
    best = run_deadwood(p0, p1, p2, p3)
    if n == 0:
        return best
    while True:
        r0, r1, r2, r3 = set_choice_rest(p0, p1, p2, p3, slots, n)
        best = min(best, run_deadwood(r0, r1, r2, r3))
        if not next_set_choice(slots, n):
            return best


@njit(cache=True, inline="always")
def _drop_each(q, s, other, per_card):
    """Lower ``per_card`` for each card of suit ``s`` pattern ``q`` to ``other`` plus the suit's run deadwood
    without it."""
    rest = q
    while rest:
        r = LOW_RANK[rest]
        rest &= rest - 1
        c = s * SUIT_BITS + r
        per_card[c] = min(per_card[c], other + _DROP_DEADWOOD[q, r])


@njit(cache=True, inline="always")
def discard_deadwoods_of(mask, slots, per_card):
    """Fill ``per_card`` (an entry per card id) with the exact deadwood of the holding less each held card (R8;
    both jokers' entries alike, R71), NOT_HELD for cards not held; return the least deadwood of the whole holding
    with every joker melded (0: every card melded). ``slots``, ``per_card``: from ``scratch``."""
    per_card[:] = NOT_HELD
    if has_joker(mask):
        return _wild_discard_deadwoods(mask, slots, per_card)
    p0, p1, p2, p3 = _suit(mask, 0), _suit(mask, 1), _suit(mask, 2), _suit(mask, 3)
    n = set_slots(p0, p1, p2, p3, False, slots)
    least_total = NOT_HELD
    while True:
        # Discarding a card of a set is covered by the choices that leave it out of the set (no set at a rank
        # held 3 times, the other three at a rank held 4 times), so only the cards left for runs drop here.
        r0, r1, r2, r3 = choice_rest(p0, p1, p2, p3, slots, n, _ALL_OPTIONS)
        d0, d1, d2, d3 = _RUN_DEADWOOD[r0], _RUN_DEADWOOD[r1], _RUN_DEADWOOD[r2], _RUN_DEADWOOD[r3]
        total = d0 + d1 + d2 + d3
        least_total = min(least_total, total)
        _drop_each(r0, 0, total - d0, per_card)
        _drop_each(r1, 1, total - d1, per_card)
        _drop_each(r2, 2, total - d2, per_card)
        _drop_each(r3, 3, total - d3, per_card)
        if not next_choice(slots, n, _ALL_COUNTS):
            return least_total


@njit(cache=True)
def _wild_discard_deadwoods(mask, slots, per_card):
    """``discard_deadwoods_of`` for a holding with a joker (``per_card`` all NOT_HELD on entry)."""
    mask = np.uint64(mask)
    for c in range(N_CARDS):
        if (mask >> np.uint64(c)) & np.uint64(1):
            per_card[c] = IMPOSSIBLE
    all_melded = wild_drop_naturals(mask, slots, per_card)
    jokers = mask >> _JOKER_SHIFT
    lowest = np.uint64(1) if jokers & np.uint64(1) else np.uint64(2)
    without_one = deadwood_of(mask & ~(lowest << _JOKER_SHIFT), slots)
    for i in range(MAX_JOKERS):
        if (jokers >> np.uint64(i)) & np.uint64(1):
            per_card[N_CARDS + i] = without_one
    return all_melded


@njit(cache=True, inline="always")
def discard_phase_of(mask, kept, limit, slots, per_card):
    """What a player holding the 11 cards of ``mask`` may do: (least deadwood after a discard of a card that may
    leave the hand, the card mask of those discards, the card mask of the knocks (R20: deadwood within ``limit``),
    whether all 11 cards are melded (R24)). ``kept``: the card R16 keeps in hand, -1 for none. ``slots``,
    ``per_card``: from ``scratch``. A joker kept blocks both jokers (R71)."""
    least_total = discard_deadwoods_of(mask, slots, per_card)
    if kept >= N_CARDS:
        per_card[N_CARDS:] = NOT_HELD
    elif kept >= 0:
        per_card[kept] = NOT_HELD
    ids = MAX_IDS if has_joker(mask) else N_CARDS
    best = NOT_HELD
    for c in range(ids):
        best = min(best, per_card[c])
    best_cards = np.uint64(0)
    knock_cards = np.uint64(0)
    for c in range(ids):
        bit = np.uint64(per_card[c] == best) << np.uint64(c)
        best_cards |= bit
        knock_cards |= np.uint64(per_card[c] <= limit) << np.uint64(c)
    return best, best_cards, knock_cards, least_total == 0


# ---------------------------------------------------------------------------------------------------------------
# One holding from Python (the readable engine's hot path and the public functions of ``front``)
# ---------------------------------------------------------------------------------------------------------------

@njit(cache=True)
def deadwood_of_mask(mask, joker_value, min_naturals):
    """Exact least deadwood (R7, R68) of the holding ``mask``, an int card mask, under the rules' ``joker_value``
    and ``joker_min_naturals``."""
    slots, _ = scratch(joker_value, min_naturals)
    return deadwood_of(np.uint64(mask), slots)


@njit(cache=True)
def discard_deadwoods_of_mask(mask, joker_value, min_naturals):
    """The exact deadwood (R8) of the holding ``mask``, an int card mask, less each of its cards: (the held card
    ids in order, the deadwood without each)."""
    slots, per_card = scratch(joker_value, min_naturals)
    discard_deadwoods_of(np.uint64(mask), slots, per_card)
    held = np.flatnonzero(per_card != NOT_HELD)
    return held, per_card[held]


@njit(cache=True)
def discard_phase_of_mask(mask, kept, limit, joker_value, min_naturals):
    """``discard_phase_of`` for one int card mask of 11 cards: (least deadwood after an allowed discard, the cards
    reaching it, the knock cards within ``limit``, all 11 melded). ``kept``: R16's card, -1 for none."""
    slots, per_card = scratch(joker_value, min_naturals)
    return discard_phase_of(np.uint64(mask), kept, limit, slots, per_card)


# ---------------------------------------------------------------------------------------------------------------
# Loops over arrays of card masks (the batched solver functions of ``solver``)
# ---------------------------------------------------------------------------------------------------------------

@njit(cache=True)
def deadwood_of_each(masks, joker_value, min_naturals):
    out = np.empty(masks.size, dtype=np.int16)
    slots, _ = scratch(joker_value, min_naturals)
    for i in range(masks.size):
        out[i] = deadwood_of(masks[i], slots)
    return out


@njit(cache=True)
def discard_deadwoods_of_each(masks, joker_value, min_naturals, ids):
    """The deadwood less each card of ``ids`` per holding (``ids``: 52 or 54 entries)."""
    out = np.empty((masks.size, ids), dtype=np.int16)
    slots, per_card = scratch(joker_value, min_naturals)
    for i in range(masks.size):
        discard_deadwoods_of(masks[i], slots, per_card)
        out[i] = per_card[:ids]
    return out


@njit(cache=True)
def discard_phase_of_each(masks, kept, limits, want_all_melded, joker_value, min_naturals, best, best_cards,
                          knock_cards, all_melded):
    slots, per_card = scratch(joker_value, min_naturals)
    for i in range(masks.size):
        best[i], best_cards[i], knock_cards[i], melded = discard_phase_of(masks[i], kept[i], limits[i], slots,
                                                                          per_card)
        all_melded[i] = melded and want_all_melded


assert MAX_OPTIONS == _ALL_OPTIONS.shape[1] == _PRUNED_OPTIONS.shape[1]
