"""The exact deadwood and showdown solver, batched over hands given as ``(N, 52)`` bool arrays or ``(N,)`` uint64
card masks (docs/rules.md R5-R8, R22, R27-R29).

Each hand is expanded into its (hand, set choice) pairs with ``np.repeat`` and reduced with
``np.minimum.reduceat``: no Python loop over hands. Hands are packed (``cards.pack_masks``) so each suit's 13-bit
pattern sits in its own 16-bit lane, read off the shared tables in ``tables``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gin_env import cards
from gin_env.cards import PACK_SHIFTS as _LANE_SHIFTS
from gin_env.cards import PACK_STRIDE, card_bits, hands_to_masks, pack_masks
from gin_env.cards import SUIT_SHIFTS as _SUIT_SHIFTS
from gin_env.solver.tables import (
    DROP_BEST_RANKS,
    DROP_DEADWOOD,
    DROP_GAIN,
    MAX_OPTIONS,
    NOT_HELD,
    OPTION_TABLES,
    RUN_DEADWOOD,
    SPREAD,
    SUIT_MASK,
    SUIT_PATTERNS,
    set_rank_bits,
)

_LANE_LOW_BITS = np.uint64(sum(1 << (PACK_STRIDE * s) for s in range(4)))
#: Multiplying lane-low bits by this gathers them into bits 48..51 (suit s -> bit 48 + s); every other partial
#: product lands below bit 48 or overflows past bit 63, so ``>> 48`` leaves exactly the 4-bit suit mask.
_GATHER_LANES = np.uint64((1 << 48) | (1 << 33) | (1 << 18) | (1 << 3))
_LANE = np.uint64(SUIT_MASK)
#: Rank of the lowest set bit; 15 (an always-empty padding bit of every lane) for "no bit".
_LOW_BIT_RANK = np.array([((p & -p).bit_length() - 1) if p else 15 for p in range(SUIT_PATTERNS)], dtype=np.uint64)
#: For each (present, runnable) key: the set choices as packed removal masks of rank 0 (shifted to the rank later).
_OPTION_REMOVALS = {prune: SPREAD[opts.reshape(256, MAX_OPTIONS)] for prune, (opts, _) in OPTION_TABLES.items()}
_OPTION_COUNTS = {prune: count.reshape(256) for prune, (_, count) in OPTION_TABLES.items()}
_U = [np.uint64(k) for k in range(64)]
#: Process hands in chunks that keep the working arrays in cache.
_CHUNK = 8192
def _lanes(packed: np.ndarray) -> np.ndarray:
    """``(4, n)``: each suit's 13-bit pattern of each packed holding."""
    return (packed >> _LANE_SHIFTS) & _LANE


def _run_cover(packed: np.ndarray) -> np.ndarray:
    """Cards of a packed holding that lie in a fully held 3-card window of their suit. For runs alone this is
    the unique optimal cover: every such card is melded, no other card can be."""
    windows = packed & (packed >> _U[1]) & (packed >> _U[2])
    return windows | (windows << _U[1]) | (windows << _U[2])


def _low_bit(x: np.ndarray) -> np.ndarray:
    return x & (~x + _U[1])


def _expand_set_choices(packed: np.ndarray, prune: bool,
                        free: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every hand's packed remainder after each of its set choices, hand by hand; the hand of each row; and
    where each hand's rows start. A hand with no choice to make yields one row.

    ``free``: extra cards per hand that may join runs but never sets (a knocker's melded runs, for layoffs).
    Only hands holding some rank 3+ times are enumerated: the others (most hands) are copied as they are."""
    runs_pattern = packed if free is None else packed | free
    set_ranks = set_rank_bits(_lanes(packed))
    choosing = set_ranks.nonzero()[0]
    if not choosing.size:
        index = np.arange(packed.size)
        return runs_pattern, index, index
    keys, ranks, counts = _set_choice_slots(packed.take(choosing), runs_pattern.take(choosing),
                                            set_ranks.take(choosing), prune)
    choices = np.multiply.reduce(counts, axis=0)
    per_hand = np.ones(packed.size, dtype=np.int64)
    per_hand[choosing] = choices
    offsets = _exclusive_cumsum(per_hand)
    hand = np.repeat(np.arange(packed.size), per_hand)
    rest = runs_pattern.take(hand)
    # Rows of the choosing hands: the t-th choice of each.
    sub = np.repeat(np.arange(choosing.size), choices)
    t = np.arange(sub.size) - _exclusive_cumsum(choices).take(sub)
    rest[offsets.take(choosing).take(sub) + t] &= ~_choice_removals(keys, ranks, counts, sub, t, prune)
    return rest, hand, offsets


#: The rank a hand gets in a set slot it does not fill: bit 15, an always-empty padding bit of every lane.
_NO_RANK = np.uint64(15)


def _set_choice_slots(packed: np.ndarray, runs_pattern: np.ndarray, set_ranks: np.ndarray,
                      prune: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One slot per rank held 3+ times (lowest first), as ``(slots, k)`` arrays: the key of each hand's set
    choices there (``_OPTION_REMOVALS`` row), the rank, and how many choices. A hand with fewer set ranks than
    there are slots gets ``_NO_RANK``, key 0 and one empty choice in the extra ones. ``set_ranks`` is used up."""
    ranks = []
    while set_ranks.any():
        low = _low_bit(set_ranks)
        set_ranks ^= low
        ranks.append(_LOW_BIT_RANK.take(low))  # _NO_RANK once a hand is out of set ranks
    rank = np.stack(ranks)
    key = ((((packed >> rank) & _LANE_LOW_BITS) * _GATHER_LANES) >> _U[48]) * _U[16]
    if prune:
        # Without pruning the choices depend on the suits present alone: the runnable ones only prune.
        key += (((_run_cover(runs_pattern) >> rank) & _LANE_LOW_BITS) * _GATHER_LANES) >> _U[48]
    key = key.astype(np.intp)
    return key, rank, _OPTION_COUNTS[prune].take(key)


def _choice_removals(keys: np.ndarray, ranks: np.ndarray, counts: np.ndarray, sub: np.ndarray, t: np.ndarray,
                     prune: bool) -> np.ndarray:
    """Packed cards that go into sets in each row, the ``t``-th choice of choosing hand ``sub``: ``t`` read in the
    mixed radix of the hand's slot counts, lowest slot first. Every choosing hand fills the first slot; few fill
    the later ones, so only their rows work on them."""
    options = _OPTION_REMOVALS[prune].reshape(-1)
    choice = t % counts[0].take(sub)
    removal = options.take(keys[0].take(sub) * MAX_OPTIONS + choice) << ranks[0].take(sub)
    stride = counts[0].copy()
    for key, rank, count in zip(keys[1:], ranks[1:], counts[1:]):
        rows = (rank != _NO_RANK).take(sub).nonzero()[0]
        hand = sub.take(rows)
        choice = (t.take(rows) // stride.take(hand)) % count.take(hand)
        removal[rows] |= options.take(key.take(hand) * MAX_OPTIONS + choice) << rank.take(hand)
        stride *= count
    return removal


def _exclusive_cumsum(counts: np.ndarray) -> np.ndarray:
    """Start of each group in a layout of consecutive groups of these sizes."""
    starts = np.zeros(counts.size, dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    return starts


def _chunked(fn, masks: np.ndarray, width: tuple[int, ...] = (), dtype=np.int16) -> np.ndarray:
    packed = pack_masks(masks)
    out = np.empty((packed.size, *width), dtype=dtype)
    for start in range(0, packed.size, _CHUNK):
        out[start:start + _CHUNK] = fn(packed[start:start + _CHUNK])
    return out


def _row_deadwood(rest: np.ndarray) -> np.ndarray:
    return RUN_DEADWOOD.take(_lanes(rest)).sum(axis=0, dtype=np.int16)


def _deadwood_chunk(packed: np.ndarray) -> np.ndarray:
    """Least deadwood of packed holdings. Most hold no rank 3+ times: their run deadwood is the answer, and only
    the others go through the set choices."""
    lanes = _lanes(packed)
    deadwood = RUN_DEADWOOD.take(lanes).sum(axis=0, dtype=np.int16)
    choosing = set_rank_bits(lanes).nonzero()[0]
    if choosing.size:
        rest, _, offsets = _expand_set_choices(packed.take(choosing), prune=True)
        deadwood[choosing] = np.minimum.reduceat(_row_deadwood(rest), offsets)
    return deadwood


def _starts(group: np.ndarray) -> np.ndarray:
    """Start index of each run of equal values in a sorted group-id array."""
    return np.concatenate(([True], group[1:] != group[:-1])).nonzero()[0]


def _defender_after_layoffs_batch(knocker: np.ndarray, defender: np.ndarray, rest: np.ndarray,
                                  game: np.ndarray) -> np.ndarray:
    """F of R28 under the R22 auto-arrangement, for packed non-gin knocks, with no Python loop over hands: one value
    per distinct ``game``, in order. ``rest``: the knocker's remainder after the sets of each of its optimal set
    choices (rows, grouped by game); ``game``: each row's index into ``knocker`` and ``defender``.

    Each optimal set choice of the knocker is one arrangement (its runs are the unique run cover). Laying off on a
    run is the same as letting the defender's runs use the knocker's run cards for free: any defender run through
    them is a chain of layoffs, and an optimal cover always uses all of a knocker's run (it is 3+ long), so the
    plain run table gives the defender's deadwood. A 3-set's fourth card is either laid off or kept, both tried."""
    runs = _run_cover(rest)
    in_sets = _lanes(knocker.take(game) & ~rest)
    three = set_rank_bits(in_sets) & ~np.bitwise_and.reduce(in_sets, axis=0)
    fourth = np.bitwise_or.reduce((three & ~in_sets) << _LANE_SHIFTS, axis=0) & defender.take(game)
    bits = []
    for _ in range(3):
        bits.append(_low_bit(fourth))
        fourth ^= bits[-1]
    n_subsets = np.left_shift(1, sum((b != 0).astype(np.int64) for b in bits))
    arrangement = np.repeat(np.arange(game.size), n_subsets)
    subset = (np.arange(arrangement.size) - np.repeat(np.cumsum(n_subsets) - n_subsets, n_subsets)).astype(np.uint64)
    laid = np.zeros(arrangement.size, dtype=np.uint64)
    for i, bit in enumerate(bits):
        laid |= bit[arrangement] * ((subset >> _U[i]) & _U[1])
    left, row, offsets = _expand_set_choices(defender[game][arrangement] & ~laid, prune=True, free=runs[arrangement])
    per_subset = np.minimum.reduceat(_row_deadwood(left), offsets)
    per_arrangement = np.minimum.reduceat(per_subset, _starts(arrangement))
    return np.maximum.reduceat(per_arrangement, _starts(game))


def _discard_rows(packed: np.ndarray):
    """Per set-choice row: the least deadwood after one discard, its lanes and gains, plus row bookkeeping."""
    rest, hand, offsets = _expand_set_choices(packed, prune=False)
    lanes = _lanes(rest).astype(np.intp)  # indices for the three table lookups below
    gains = DROP_GAIN.take(lanes)
    best_gain = gains.max(axis=0)
    return RUN_DEADWOOD.take(lanes).sum(axis=0, dtype=np.int16) - best_gain, lanes, gains, best_gain, hand, offsets


def _best_discard_chunk(packed: np.ndarray) -> np.ndarray:
    value, *_, offsets = _discard_rows(packed)
    return np.minimum.reduceat(value, offsets)


def _best_discards_chunk(packed: np.ndarray) -> np.ndarray:
    """(N, 2) uint64: the least deadwood after a discard, and the card mask of every discard that reaches it."""
    value, lanes, gains, best_gain, hand, offsets = _discard_rows(packed)
    best = np.minimum.reduceat(value, offsets)
    chosen = _best_row_cards(lanes, gains, best_gain)
    chosen *= value == best.take(hand)
    return np.stack([best.astype(np.uint64), np.bitwise_or.reduceat(chosen, offsets)], axis=1)


def _best_row_cards(lanes: np.ndarray, gains: np.ndarray, best_gain: np.ndarray) -> np.ndarray:
    """Card mask, per row, of the discards that reach the row's best gain."""
    ranks = DROP_BEST_RANKS.take(lanes) * (gains == best_gain)
    return np.bitwise_or.reduce(ranks.astype(np.uint64) << _SUIT_SHIFTS, axis=0)


def _discard_deadwoods_chunk(packed: np.ndarray) -> np.ndarray:
    rest, _, offsets = _expand_set_choices(packed, prune=False)
    lanes = _lanes(rest).T.astype(np.int64)
    dws = RUN_DEADWOOD[lanes]
    base = dws.sum(axis=1, dtype=np.int16)
    per_card = DROP_DEADWOOD[lanes] + (base[:, None] - dws)[:, :, None]
    per_card = np.minimum(per_card, NOT_HELD).reshape(-1, cards.N_CARDS)
    return np.minimum.reduceat(per_card, offsets, axis=0)


class DiscardPhase(NamedTuple):
    """What a player holding 11 cards may do, per hand (see :func:`discard_phase_of_masks`)."""

    #: Least deadwood after discarding a card that may leave the hand, int16.
    best_deadwood: np.ndarray
    #: Card mask of every such discard that reaches it, uint64.
    best_cards: np.ndarray
    #: Card mask of the cards that may leave the hand and leave deadwood within the hand's limit (knocks), uint64.
    knock_cards: np.ndarray
    #: All 11 cards melded (big gin possible), bool; all False unless asked for.
    all_melded: np.ndarray


def discard_phase_of_masks(hands: np.ndarray, kept: np.ndarray, limits: np.ndarray,
                           all_melded: bool = True) -> DiscardPhase:
    """Everything the discard phase needs for 11-card hands given as uint64 card masks, in one pass of the
    solver: the least deadwood over allowed discards and those discards, the knock cards, and big gin.

    ``kept``: per hand, a card id that may not leave the hand (R16's card just taken), -1 for none. ``limits``:
    per hand, the most deadwood a knock may leave. ``all_melded``: also say which hands are fully melded."""
    hands = np.asarray(hands, dtype=np.uint64)
    out = DiscardPhase(np.empty(hands.size, dtype=np.int16), np.empty(hands.size, dtype=np.uint64),
                       np.empty(hands.size, dtype=np.uint64), np.zeros(hands.size, dtype=bool))
    packed = pack_masks(hands)
    kept = np.asarray(kept, dtype=np.int64)
    limits = np.asarray(limits, dtype=np.int64)
    for start in range(0, hands.size, _CHUNK):
        part = slice(start, start + _CHUNK)
        for field, value in zip(out, _discard_phase_chunk(packed[part], kept[part], limits[part], all_melded)):
            field[part] = value
    return out


def _discard_phase_chunk(packed: np.ndarray, kept: np.ndarray, limits: np.ndarray, all_melded: bool):
    """:func:`discard_phase_of_masks` for one chunk. Every row (set choice) gives its best discard from the
    tables; the per-card deadwoods (52 per row) are worked out only for the few hands that need them: those that
    can knock, and those whose only best discard is the kept card."""
    value, lanes, gains, best_gain, hand, offsets = _discard_rows(packed)
    best = np.minimum.reduceat(value, offsets)
    chosen = _best_row_cards(lanes, gains, best_gain)
    chosen *= value == best.take(hand)
    best_cards = np.bitwise_or.reduceat(chosen, offsets)
    kept_bit = card_bits(kept)
    knock_cards = np.zeros(packed.size, dtype=np.uint64)
    total = value + best_gain
    needy = ((best <= limits) | (best_cards == kept_bit)).nonzero()[0]
    if needy.size:
        # The needy hands' rows; ``group``: each row's index into ``needy``; ``starts``: where each hand's rows begin.
        position = np.zeros(packed.size, dtype=np.int64)
        position[needy] = np.arange(needy.size)
        wanted = np.zeros(packed.size, dtype=bool)
        wanted[needy] = True
        rows = wanted.take(hand).nonzero()[0]
        group = position.take(hand.take(rows))
        starts = _starts(group)
        per_card = _row_discard_deadwoods(lanes.take(rows, axis=1), total.take(rows))
        held_back = (kept.take(needy).take(group) >= 0).nonzero()[0]
        per_card[held_back, kept.take(needy).take(group.take(held_back))] = NOT_HELD
        # With the kept card out of reach, the least per-card value is the best allowed discard.
        least = np.minimum.reduceat(per_card.min(axis=1), starts)
        best[needy] = least
        best_cards[needy] = np.bitwise_or.reduceat(hands_to_masks(per_card == least.take(group)[:, None]), starts)
        knock_cards[needy] = np.bitwise_or.reduceat(
            hands_to_masks(per_card <= limits.take(needy).take(group)[:, None]), starts)
    fully_melded = np.zeros(packed.size, dtype=bool)
    if all_melded and (best == 0).any():
        # The 11-card deadwood is the least run deadwood over all set choices (every row's total).
        fully_melded = np.minimum.reduceat(total, offsets) == 0
    return best, best_cards & ~kept_bit, knock_cards & ~kept_bit, fully_melded


def _row_discard_deadwoods(lanes: np.ndarray, total: np.ndarray) -> np.ndarray:
    """``(rows, 52)``: per row of lanes ``(4, rows)`` with run deadwood ``total``, the run deadwood left by
    discarding each card (``NOT_HELD`` or more for cards not in the row)."""
    row_lanes = lanes.T
    others = total[:, None] - RUN_DEADWOOD.take(row_lanes)
    return (DROP_DEADWOOD.take(row_lanes, axis=0) + others[:, :, None]).reshape(-1, cards.N_CARDS)


def showdown_of_masks(knockers: np.ndarray, defenders: np.ndarray, layoffs: bool = True
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Batched showdown for 10-card holdings given as uint64 card masks: (K, F) per knock, ``(M,)`` int16 each.

    K is the knocker's deadwood, F the defender's after optimal joint melds and layoffs against the R22
    auto-arrangement (R27, R28); with K = 0 (gin, R29) or ``layoffs=False`` there are no layoffs."""
    knockers = pack_masks(knockers)
    defenders = pack_masks(defenders)
    k = np.empty(knockers.size, dtype=np.int16)
    f = np.empty(knockers.size, dtype=np.int16)
    for start in range(0, knockers.size, _CHUNK):
        part = slice(start, start + _CHUNK)
        k[part], f[part] = _showdown_chunk(knockers[part], defenders[part], layoffs)
    return k, f


def _showdown_chunk(knocker: np.ndarray, defender: np.ndarray, layoffs: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`showdown_of_masks` for one chunk of packed hands. The knocker's set choices give both K (their least
    deadwood) and its optimal arrangements (the choices reaching it), which the layoffs start from."""
    rest, game, offsets = _expand_set_choices(knocker, prune=True)
    row_deadwood = _row_deadwood(rest)
    k = np.minimum.reduceat(row_deadwood, offsets)
    f = np.empty_like(k)
    plain = (k == 0).nonzero()[0] if layoffs else np.arange(k.size)
    if plain.size:
        f[plain] = _deadwood_chunk(defender.take(plain))
    if layoffs and plain.size < k.size:
        arranged = ((row_deadwood == k.take(game)) & (k.take(game) > 0)).nonzero()[0]
        f[k > 0] = _defender_after_layoffs_batch(knocker, defender, rest.take(arranged), game.take(arranged))
    return k, f


def deadwood_batch(hands: np.ndarray) -> np.ndarray:
    """Exact deadwood of each row of an ``(N, 52)`` bool array (R7), as ``(N,)`` int16."""
    return _chunked(_deadwood_chunk, hands_to_masks(hands))


def best_discard_deadwood_batch(hands: np.ndarray) -> np.ndarray:
    """Exact ``min over discards of deadwood(hand - card)`` for each row of an ``(N, 52)`` bool array (R8)."""
    return _chunked(_best_discard_chunk, hands_to_masks(hands))


def discard_deadwoods_batch(hands: np.ndarray) -> np.ndarray:
    """``(N, 52)`` int16: deadwood of each hand minus each held card (``NOT_HELD`` for cards not held)."""
    return discard_deadwoods_of_masks(hands_to_masks(hands))


def deadwood_of_masks(masks: np.ndarray) -> np.ndarray:
    """:func:`deadwood_batch` for hands given as ``(N,)`` uint64 card masks."""
    return _chunked(_deadwood_chunk, masks)


def discard_deadwoods_of_masks(masks: np.ndarray) -> np.ndarray:
    """:func:`discard_deadwoods_batch` for hands given as ``(N,)`` uint64 card masks."""
    return _chunked(_discard_deadwoods_chunk, masks, (cards.N_CARDS,))


def best_discards_of_masks(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For hands given as uint64 card masks: the least deadwood after one discard ``(N,)`` int16, and the card
    mask ``(N,)`` uint64 of every discard that reaches it. Cheaper than the full per-card table."""
    both = _chunked(_best_discards_chunk, masks, (2,), dtype=np.uint64)
    return both[:, 0].astype(np.int16), both[:, 1]
