"""The exact deadwood and showdown solver (docs/rules.md R5-R8, R22, R27-R29), scalar and batched.

How it is exact and fast:

* Runs live inside one suit, so the run-only deadwood of any 13-bit suit pattern is a table lookup
  (``RUN_DEADWOOD``, 8,192 entries, built at import). Runs of 6+ cards never need to be one meld (R5), so the
  table's recurrence only tries runs of 3, 4 and 5 starting at the lowest card.
* Sets are the only coupling between suits, and only ranks held 3 or 4 times can form one: at most 3 such ranks in
  10 or 11 cards. For each such rank the choices are: no set, the whole rank, or (when all 4 are held) the rank minus
  one card. The exact minimum is the minimum, over the product of these choices, of the sum of four table lookups.
* Dominated choices are pruned before enumeration (10-card hands): a card that sits in no 3-card window of its suit
  can never be in a run, so keeping it out of a set only adds its value. That leaves few choices even on
  meld-rich hands.
* For 11 cards, "discard one card, then meld" is "choose sets, then drop the card whose removal lowers its suit's
  run deadwood most" (``DROP_GAIN``): one more lookup per suit instead of 11 solves.

The batched functions expand each hand into its (hand, set choice) pairs with ``np.repeat`` and reduce with
``np.minimum.reduceat``: no Python loop over hands. The scalar functions use the same tables on int bitmasks and
cache by hand.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from gin_env import cards

SUIT_BITS = 13
SUIT_PATTERNS = 1 << SUIT_BITS
SUIT_MASK = SUIT_PATTERNS - 1
#: Spacing of suits in the packed uint64 form used by the batch code (a gap keeps shifts from crossing suits).
PACK_STRIDE = 16
#: Marks "no card to discard here" in DROP_GAIN; more negative than any real gain.
NO_CARD = -1000
#: Upper bound used as "not held" in per-card deadwood arrays.
NOT_HELD = 999

_RANK_VALUES = [min(r + 1, 10) for r in range(SUIT_BITS)]


def _build_run_tables() -> tuple[np.ndarray, np.ndarray]:
    """Run-only deadwood of every suit pattern, and the move that achieves it (0: lowest card is deadwood,
    3/4/5: lowest card starts a run of that length)."""
    best = [0] * SUIT_PATTERNS
    move = [0] * SUIT_PATTERNS
    for p in range(1, SUIT_PATTERNS):
        low = (p & -p).bit_length() - 1
        value = best[p & (p - 1)] + _RANK_VALUES[low]
        choice = 0
        for length in (3, 4, 5):
            run = ((1 << length) - 1) << low
            if low + length > SUIT_BITS or p & run != run:
                break
            if best[p & ~run] < value:
                value, choice = best[p & ~run], length
        best[p], move[p] = value, choice
    return np.array(best, dtype=np.int16), np.array(move, dtype=np.int8)


RUN_DEADWOOD, RUN_MOVE = _build_run_tables()
_RUN_DW = RUN_DEADWOOD.tolist()


def _build_drop_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each pattern: run deadwood after removing each held rank (NOT_HELD elsewhere), the best gain of one
    removal, and the ranks whose removal achieves it."""
    patterns = np.arange(SUIT_PATTERNS)
    bits = 1 << np.arange(SUIT_BITS)
    held = (patterns[:, None] & bits) != 0
    after = RUN_DEADWOOD[patterns[:, None] & ~bits].astype(np.int16)
    after[~held] = NOT_HELD
    least = after.min(axis=1)
    gain = (RUN_DEADWOOD - least).astype(np.int16)
    gain[0] = NO_CARD
    best_ranks = ((after == least[:, None]) & held) @ bits
    return after, gain, best_ranks.astype(np.uint16)


DROP_DEADWOOD, DROP_GAIN, DROP_BEST_RANKS = _build_drop_tables()
_DROP_GAIN = DROP_GAIN.tolist()

#: Ranks of a pattern that lie in some fully held 3-card window: the only cards that could ever be in a run.
_windows = np.arange(SUIT_PATTERNS)
_windows = _windows & (_windows >> 1) & (_windows >> 2)
RUN_CAPABLE = ((_windows | (_windows << 1) | (_windows << 2)) & SUIT_MASK).astype(np.int32)
_RUN_CAPABLE = RUN_CAPABLE.tolist()
del _windows

MAX_OPTIONS = 6


def _set_options(present: int, capable: int, prune: bool) -> list[int]:
    """Suit masks that may go into a set at one rank held by the suits in ``present`` (R4).

    With ``prune``, drop choices dominated for a 10-card hand: leaving a card out of the set is only useful when
    that card could be in a run (``capable``)."""
    n = bin(present).count("1")
    if n < 3:
        return [0]
    whole = [present]
    drop_one = [present & ~(1 << s) for s in range(4) if present >> s & 1] if n == 4 else []
    if not prune:
        return [0] + whole + drop_one
    useful_drops = [m for m in drop_one if capable & present & ~m]
    n_capable = bin(capable & present).count("1")
    keep_none = n_capable >= (2 if n == 4 else 1)
    return ([0] if keep_none else []) + whole + useful_drops


def _build_option_tables() -> dict[bool, tuple[np.ndarray, np.ndarray]]:
    tables = {}
    for prune in (True, False):
        opts = np.zeros((16, 16, MAX_OPTIONS), dtype=np.int64)
        count = np.zeros((16, 16), dtype=np.int64)
        for present in range(16):
            for capable in range(16):
                choices = _set_options(present, capable, prune)
                opts[present, capable, :len(choices)] = choices
                count[present, capable] = len(choices)
        tables[prune] = (opts, count)
    return tables


_OPTION_TABLES = _build_option_tables()
#: SPREAD[m]: the 4-bit suit mask m spread to bit 0 of each suit's 16-bit lane of the packed form.
_SPREAD = np.array([sum(1 << (PACK_STRIDE * s) for s in range(4) if m >> s & 1) for m in range(16)],
                   dtype=np.uint64)


# ---------------------------------------------------------------------------------------------------------------
# Scalar solver on int bitmasks
# ---------------------------------------------------------------------------------------------------------------

def _suits(mask: int) -> list[int]:
    return [(mask >> (SUIT_BITS * s)) & SUIT_MASK for s in range(4)]


def _set_ranks(ps):
    """13-bit mask of the ranks held in at least 3 suits, from the four suit patterns: a list of ints (scalar code)
    or a ``(4, n)`` array of them (batched code, one column per holding)."""
    a, b, c, d = ps
    return (a & b & (c | d)) | ((a | b) & c & d)


def _set_choices(ps: list[int], prune: bool):
    """Every (per-suit removal masks) combination of set choices worth trying for these suit patterns."""
    set_ranks = _set_ranks(ps)
    slots = []
    while set_ranks:
        low = set_ranks & -set_ranks
        set_ranks ^= low
        present = sum(1 << s for s in range(4) if ps[s] & low)
        capable = sum(1 << s for s in range(4) if _RUN_CAPABLE[ps[s]] & low)
        slots.append([(low, m) for m in _set_options(present, capable, prune)])
    for combo in itertools.product(*slots):
        removal = [0, 0, 0, 0]
        for bit, suit_mask in combo:
            for s in range(4):
                if suit_mask >> s & 1:
                    removal[s] |= bit
        yield removal


@functools.lru_cache(maxsize=1 << 17)
def _deadwood_mask(mask: int) -> int:
    ps = _suits(mask)
    if not _set_ranks(ps):
        return _RUN_DW[ps[0]] + _RUN_DW[ps[1]] + _RUN_DW[ps[2]] + _RUN_DW[ps[3]]
    best = NOT_HELD
    for removal in _set_choices(ps, prune=True):
        total = _RUN_DW[ps[0] & ~removal[0]] + _RUN_DW[ps[1] & ~removal[1]] + \
            _RUN_DW[ps[2] & ~removal[2]] + _RUN_DW[ps[3] & ~removal[3]]
        if total < best:
            best = total
    return best


#: For each suit pattern: (rank, run-only deadwood of the pattern without that rank) for each rank it holds.
_DROPS = [tuple((r, _RUN_DW[p & ~(1 << r)]) for r in range(SUIT_BITS) if p >> r & 1) for p in range(SUIT_PATTERNS)]


@functools.lru_cache(maxsize=1 << 16)
def _discard_deadwoods_mask(mask: int) -> dict[int, int]:
    """Card -> deadwood of the holding without it. Cached and shared: callers must not modify the dict."""
    ps = _suits(mask)
    if not _set_ranks(ps):
        # No rank held 3+ times, so no set: each suit's runs are independent, one lookup per card.
        dws = [_RUN_DW[q] for q in ps]
        base = dws[0] + dws[1] + dws[2] + dws[3]
        out = {}
        for s in range(4):
            other, offset = base - dws[s], s * SUIT_BITS
            for r, after in _DROPS[ps[s]]:
                out[offset + r] = other + after
        return out
    best: dict[int, int] = {}
    for removal in _set_choices(ps, prune=False):
        rest = [ps[s] & ~removal[s] for s in range(4)]
        dws = [_RUN_DW[q] for q in rest]
        base = sum(dws)
        for s, q in enumerate(rest):
            other, offset = base - dws[s], s * SUIT_BITS
            for r, after in _DROPS[q]:
                value = other + after
                if value < best.get(offset + r, NOT_HELD):
                    best[offset + r] = value
    return best


def deadwood(hand) -> int:
    """Exact minimum deadwood of a holding over all arrangements (R7); usually 10 cards."""
    return _deadwood_mask(cards.to_mask(hand))


def discard_deadwoods(hand) -> dict[int, int]:
    """For each card of an 11-card holding, the exact deadwood of the other 10 (R8)."""
    return dict(_discard_deadwoods_mask(cards.to_mask(hand)))


@functools.lru_cache(maxsize=1 << 16)
def best_allowed_discard_deadwood(mask: int, excluded: int = -1) -> int:
    """Least deadwood after discarding any card of the int-mask holding but ``excluded`` (the card R16 keeps in
    hand this turn; -1 for none). Cached: the observation of every 11-card decision asks for it."""
    return min(dw for c, dw in _discard_deadwoods_mask(mask).items() if c != excluded)


def best_discard_deadwood(hand) -> int:
    """Minimum over the discards of ``deadwood(hand - card)`` (R8), exact."""
    mask = cards.to_mask(hand)
    if mask == 0:
        raise ValueError("best_discard_deadwood needs at least one card")
    return min(_discard_deadwoods_mask(mask).values())


def _runs_of_pattern(pattern: int, suit: int) -> tuple[list[tuple[int, ...]], list[int]]:
    """One optimal run decomposition of a suit pattern: (runs as card-id tuples, deadwood card ids)."""
    runs, dead = [], []
    base = suit * SUIT_BITS
    while pattern:
        low = (pattern & -pattern).bit_length() - 1
        length = int(RUN_MOVE[pattern])
        if length:
            runs.append(tuple(base + low + i for i in range(length)))
            pattern &= ~(((1 << length) - 1) << low)
        else:
            dead.append(base + low)
            pattern &= pattern - 1
    return runs, dead


def arrangement(hand) -> tuple[list[list[int]], list[int]]:
    """One minimum-deadwood arrangement: (melds, deadwood cards), each a sorted list of card ids."""
    mask = cards.to_mask(hand)
    ps = _suits(mask)
    target = _deadwood_mask(mask)
    for removal in _set_choices(ps, prune=True):
        rest = [ps[s] & ~removal[s] for s in range(4)]
        if sum(_RUN_DW[q] for q in rest) != target:
            continue
        melds: list[list[int]] = []
        dead: list[int] = []
        set_bits = removal[0] | removal[1] | removal[2] | removal[3]
        for r in range(SUIT_BITS):
            if set_bits >> r & 1:
                melds.append([s * SUIT_BITS + r for s in range(4) if removal[s] >> r & 1])
        for s, q in enumerate(rest):
            runs, d = _runs_of_pattern(q, s)
            melds.extend(list(run) for run in runs)
            dead.extend(d)
        return sorted(melds), sorted(dead)
    raise AssertionError("no arrangement reaches the minimum deadwood")  # unreachable: the minimum is attained


# ---------------------------------------------------------------------------------------------------------------
# Melds, all optimal arrangements, and the showdown (R22, R27-R29)
# ---------------------------------------------------------------------------------------------------------------

def is_meld(meld) -> bool:
    """True for a legal set (R4) or run (R5)."""
    ids = sorted(cards.to_ids(cards.to_mask(meld)))
    if len(ids) < 3 or len(ids) != len(list(meld)):
        return False
    ranks = {c % SUIT_BITS for c in ids}
    suits = {c // SUIT_BITS for c in ids}
    if len(ranks) == 1:
        return len(ids) <= 4
    return len(suits) == 1 and ids[-1] - ids[0] == len(ids) - 1


def _all_melds(mask: int) -> list[int]:
    """Every set and every run (any length) inside a holding, as bitmasks."""
    melds = []
    ps = _suits(mask)
    for r in range(SUIT_BITS):
        suits_here = [s for s in range(4) if ps[s] >> r & 1]
        for size in (3, 4):
            for combo in itertools.combinations(suits_here, size):
                melds.append(sum(1 << (s * SUIT_BITS + r) for s in combo))
    for s in range(4):
        for lo in range(SUIT_BITS):
            for hi in range(lo + 2, SUIT_BITS):
                run = ((1 << (hi - lo + 1)) - 1) << lo
                if ps[s] & run != run:
                    break
                melds.append(run << (s * SUIT_BITS))
    return melds


def _canonical(meld_masks: list[int]) -> tuple[int, ...]:
    """Merge touching runs of one suit (splits never change layoffs, R5) and sort, so equivalent
    arrangements compare equal."""
    runs, others = [], []
    for m in meld_masks:
        ids = cards.to_ids(m)
        (runs if len({c // SUIT_BITS for c in ids}) == 1 else others).append(m)
    merged = True
    while merged:
        merged = False
        for a, b in itertools.combinations(range(len(runs)), 2):
            if (runs[a] << 1) & runs[b] or (runs[b] << 1) & runs[a]:
                lo_a, lo_b = cards.to_ids(runs[a]), cards.to_ids(runs[b])
                if lo_a[0] // SUIT_BITS == lo_b[0] // SUIT_BITS:
                    runs[a] |= runs[b]
                    del runs[b]
                    merged = True
                    break
    return tuple(sorted(runs + others))


def optimal_arrangements(hand) -> list[tuple[tuple[int, ...], ...]]:
    """Every minimum-deadwood arrangement, up to run splits (R5): a list of meld tuples (sorted card ids)."""
    mask = cards.to_mask(hand)
    target = _deadwood_mask(mask)
    melds = _all_melds(mask)
    found: set[tuple[int, ...]] = set()

    def search(remaining: int, chosen: list[int], dead_value: int) -> None:
        if dead_value + _deadwood_mask(remaining) > target:
            return
        if remaining == 0 or dead_value + cards.hand_value(remaining) == target:
            found.add(_canonical(chosen))
            if remaining == 0:
                return
        low = remaining & -remaining
        for m in melds:
            if m & low and m & remaining == m:
                search(remaining & ~m, chosen + [m], dead_value)
        search(remaining & ~low, chosen, dead_value + cards.VALUES[low.bit_length() - 1])

    search(mask, [], 0)
    return sorted(tuple(tuple(cards.to_ids(m)) for m in arr) for arr in found)


def _layoff_options(meld: tuple[int, ...], defender: int) -> list[int]:
    """The defender card sets that may be laid off on one knocker meld (R27), as bitmasks."""
    ranks = sorted(c % SUIT_BITS for c in meld)
    if ranks[0] == ranks[-1]:
        if len(meld) == 4:
            return [0]
        fourth = next(s * SUIT_BITS + ranks[0] for s in range(4) if s * SUIT_BITS + ranks[0] not in meld)
        return [0, 1 << fourth] if defender >> fourth & 1 else [0]
    suit = meld[0] // SUIT_BITS
    below, chain = [0], 0
    for r in range(ranks[0] - 1, -1, -1):
        bit = 1 << (suit * SUIT_BITS + r)
        if not defender & bit:
            break
        chain |= bit
        below.append(chain)
    above, chain = [0], 0
    for r in range(ranks[-1] + 1, SUIT_BITS):
        bit = 1 << (suit * SUIT_BITS + r)
        if not defender & bit:
            break
        chain |= bit
        above.append(chain)
    return [b | a for b in below for a in above]


def _defender_after_layoffs(melds, defender: int) -> tuple[int, int]:
    """(F, laid-off mask): the defender's least deadwood over joint own melds and layoffs (R28)."""
    options = [_layoff_options(tuple(m), defender) for m in melds]
    best, best_layoff = _deadwood_mask(defender), 0
    seen = {0}
    for combo in itertools.product(*options):
        laid = 0
        for part in combo:
            laid |= part
        if laid in seen:
            continue
        seen.add(laid)
        f = _deadwood_mask(defender & ~laid)
        if f < best or (f == best and cards.to_ids(laid) < cards.to_ids(best_layoff)):
            best, best_layoff = f, laid
    return best, best_layoff


@dataclass(frozen=True)
class Showdown:
    """The result of laying down after a knock: the knocker's melds, both deadwoods, the layoffs."""

    knocker_melds: tuple[tuple[int, ...], ...]
    knocker_deadwood: int
    defender_deadwood: int
    layoffs: tuple[int, ...]
    gin: bool


def showdown(knocker, defender, *, layoffs: bool = True, arrangement=None) -> Showdown:
    """Lay down a knock exactly (R21-R23, R26-R29).

    ``arrangement``: the knocker's explicit melds (validated), else the auto-arrangement of R22: minimum deadwood,
    then the one leaving the defender the most deadwood after optimal joint melds and layoffs."""
    knocker_mask, defender_mask = cards.to_mask(knocker), cards.to_mask(defender)
    if knocker_mask & defender_mask:
        raise ValueError(f"knocker and defender share cards: {cards.to_str(knocker_mask & defender_mask)}")
    gin = _deadwood_mask(knocker_mask) == 0
    if arrangement is not None and not gin:
        candidates = [_validated_arrangement(arrangement, knocker_mask)]
    else:
        candidates = optimal_arrangements(knocker_mask)
    best = None
    for melds in candidates:
        melded = 0
        for m in melds:
            melded |= cards.to_mask(m)
        k = cards.hand_value(knocker_mask & ~melded)
        if gin or not layoffs:
            f, laid = _deadwood_mask(defender_mask), 0
        else:
            f, laid = _defender_after_layoffs(melds, defender_mask)
        if best is None or f > best[1]:
            best = (k, f, laid, melds)
        if gin or not layoffs:
            break
    k, f, laid, melds = best
    return Showdown(tuple(tuple(m) for m in melds), k, f, tuple(cards.to_ids(laid)), gin)


def _validated_arrangement(arrangement, knocker_mask: int) -> tuple[tuple[int, ...], ...]:
    used = 0
    melds = []
    for meld in arrangement:
        mask = cards.to_mask(meld)
        if not is_meld(cards.to_ids(mask)):
            raise ValueError(f"not a legal meld: {cards.to_str(mask)}")
        if mask & ~knocker_mask:
            raise ValueError(f"meld {cards.to_str(mask)} uses cards the knocker does not hold")
        if mask & used:
            raise ValueError(f"meld {cards.to_str(mask)} overlaps another meld")
        used |= mask
        melds.append(tuple(cards.to_ids(mask)))
    return tuple(melds)


# ---------------------------------------------------------------------------------------------------------------
# Batched solver on (N, 52) bool arrays
# ---------------------------------------------------------------------------------------------------------------

#: One bit at the bottom of each suit's lane of the packed form.
_LANE_LOW_BITS = np.uint64(sum(1 << (PACK_STRIDE * s) for s in range(4)))
#: Multiplying lane-low bits by this gathers them into bits 48..51 (suit s -> bit 48 + s); every other partial
#: product lands below bit 48 or overflows past bit 63, so ``>> 48`` leaves exactly the 4-bit suit mask.
_GATHER_LANES = np.uint64((1 << 48) | (1 << 33) | (1 << 18) | (1 << 3))
_LANE = np.uint64(SUIT_MASK)
#: Rank of the lowest set bit; 15 (an always-empty padding bit of every lane) for "no bit".
_LOW_BIT_RANK = np.array([((p & -p).bit_length() - 1) if p else 15 for p in range(SUIT_PATTERNS)], dtype=np.uint64)
#: For each (present, runnable) key: the set choices as packed removal masks of rank 0 (shifted to the rank later).
_OPTION_REMOVALS = {prune: _SPREAD[opts.reshape(256, MAX_OPTIONS)] for prune, (opts, _) in _OPTION_TABLES.items()}
_OPTION_COUNTS = {prune: count.reshape(256) for prune, (_, count) in _OPTION_TABLES.items()}
_U = [np.uint64(k) for k in range(64)]
#: Bit c for card c, then 0 for -1 (no card), which ``take`` reads as the last entry.
_CARD_BITS_OR_NONE = np.append(np.left_shift(_U[1], np.arange(cards.N_CARDS, dtype=np.uint64)), _U[0])

#: Where each suit's 13 bits start in a card mask, and in the packed form (a column, to broadcast over hands).
_SUIT_SHIFTS = np.array([SUIT_BITS * s for s in range(4)], dtype=np.uint64)[:, None]
_LANE_SHIFTS = np.array([PACK_STRIDE * s for s in range(4)], dtype=np.uint64)[:, None]
#: Process hands in chunks that keep the working arrays in cache.
_CHUNK = 8192


def card_bits(card_ids) -> np.ndarray:
    """uint64 mask of each card id (any shape); 0 where the id is -1 (no card)."""
    return _CARD_BITS_OR_NONE.take(card_ids)


def pack_masks(masks: np.ndarray) -> np.ndarray:
    """52-bit card masks (bit c for card c, as uint64) to the packed form: suit s in bits ``16*s .. 16*s+12``."""
    suits = (np.asarray(masks, dtype=np.uint64) >> _SUIT_SHIFTS) & _LANE
    return np.bitwise_or.reduce(suits << _LANE_SHIFTS, axis=0)


def hands_to_masks(hands: np.ndarray) -> np.ndarray:
    """``(N, 52)`` bool hands as ``(N,)`` uint64 card masks."""
    hands = np.asarray(hands)
    if hands.ndim != 2 or hands.shape[1] != cards.N_CARDS:
        raise ValueError(f"hands must have shape (N, 52), got {hands.shape}")
    raw = np.zeros((hands.shape[0], 8), dtype=np.uint8)
    raw[:, :7] = np.packbits(hands, axis=1, bitorder="little")
    return raw.view("<u8")[:, 0].astype(np.uint64)


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
    set_ranks = _set_ranks(_lanes(packed))
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
    choosing = _set_ranks(lanes).nonzero()[0]
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
    three = _set_ranks(in_sets) & ~np.bitwise_and.reduce(in_sets, axis=0)
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
