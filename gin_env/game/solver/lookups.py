"""The solver's shared tables, built once at import: run-only deadwood of every 13-bit suit pattern, the best
single removal per pattern, the cards that could ever be in a run, and the set choices per rank (docs/rules.md R4,
R5, R7, R8). The compiled solver reads them.
"""

from __future__ import annotations

import numpy as np

from gin_env.game.cards import N_RANKS, PACK_STRIDE, RANK_VALUES

#: A suit's cards as bits of a pattern, one per rank.
SUIT_BITS = N_RANKS
SUIT_PATTERNS = 1 << SUIT_BITS
SUIT_MASK = SUIT_PATTERNS - 1
#: Marks "no card to drop" (an empty suit pattern) in DROP_GAIN; more negative than any real gain.
NO_DROP = -1000
#: Upper bound used as "not held" in per-card deadwood arrays.
NOT_HELD = 999

_RANK_VALUES = list(RANK_VALUES)


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
    gain[0] = NO_DROP
    best_ranks = ((after == least[:, None]) & held) @ bits
    return after, gain, best_ranks.astype(np.uint16)


DROP_DEADWOOD, DROP_GAIN, DROP_BEST_RANKS = _build_drop_tables()

#: Ranks of a pattern that lie in some fully held 3-card window: the only cards that could ever be in a run.
_windows = np.arange(SUIT_PATTERNS)
_windows = _windows & (_windows >> 1) & (_windows >> 2)
RUN_CAPABLE = ((_windows | (_windows << 1) | (_windows << 2)) & SUIT_MASK).astype(np.int32)
del _windows

MAX_OPTIONS = 6


def set_options(present: int, capable: int, prune: bool) -> list[int]:
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
                choices = set_options(present, capable, prune)
                opts[present, capable, :len(choices)] = choices
                count[present, capable] = len(choices)
        tables[prune] = (opts, count)
    return tables


OPTION_TABLES = _build_option_tables()

__all__ = ["DROP_BEST_RANKS", "DROP_DEADWOOD", "DROP_GAIN", "MAX_OPTIONS", "NOT_HELD", "NO_DROP", "PACK_STRIDE",
           "OPTION_TABLES", "RUN_CAPABLE", "RUN_DEADWOOD", "RUN_MOVE", "SUIT_BITS", "SUIT_MASK",
           "SUIT_PATTERNS", "set_options"]
