"""Which cards make a 3-card meld with a given card (docs/rules.md R4, R5), built once at import for every card id:
the agents ask this of every card they consider taking, discarding or fearing.

A card ``c`` melds in three cards with two others of its rank (a set, R4), or with the two other cards of a run
window of its suit that holds it: ranks ``r-2..r``, ``r-1..r+1`` or ``r..r+2`` (R5; no wrap-around, so a window off
the A-K line does not exist).
"""

from __future__ import annotations

import itertools

import numpy as np

from gin_env.game import cards

#: A bit no hand holds (past the 52 cards): a run window that does not exist is this, so it is never complete.
_NEVER = 1 << 63
#: The run windows that hold a card, as offsets of their lowest rank from its rank.
_WINDOW_OFFSETS = (-2, -1, 0)


def _same_rank(c: int) -> int:
    r, s = cards.rank(c), cards.suit(c)
    return sum(1 << (t * cards.N_RANKS + r) for t in range(cards.N_SUITS) if t != s)


def _run_windows(c: int) -> tuple[int | None, ...]:
    """The mask of the two other cards of each run window that holds ``c``, None for a window off the A-K line."""
    r, base = cards.rank(c), c - cards.rank(c)
    windows = []
    for offset in _WINDOW_OFFSETS:
        low = r + offset
        fits = 0 <= low <= cards.N_RANKS - 3
        windows.append(sum(1 << (base + low + i) for i in range(3)) & ~(1 << c) if fits else None)
    return tuple(windows)


#: SAME_RANK[c]: mask of the other three cards of c's rank.
SAME_RANK: tuple[int, ...] = tuple(_same_rank(c) for c in range(cards.N_CARDS))
#: RUN_WINDOWS[c]: masks of the two other cards of each run window holding c (None where the window does not exist).
RUN_WINDOWS: tuple[tuple[int | None, ...], ...] = tuple(_run_windows(c) for c in range(cards.N_CARDS))
#: PAIRS[c]: every pair of cards (x, y) that makes a 3-card meld with c: the set pairs, then the run pairs by window.
PAIRS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(itertools.combinations(cards.to_ids(SAME_RANK[c]), 2))
    + tuple(tuple(cards.to_ids(w)) for w in RUN_WINDOWS[c] if w is not None)
    for c in range(cards.N_CARDS))
#: NEIGHBOURS[c]: mask of every card in some pair of PAIRS[c] (its rank, and up to two ranks away in its suit).
NEIGHBOURS: tuple[int, ...] = tuple(sum({1 << x for pair in PAIRS[c] for x in pair}) for c in range(cards.N_CARDS))

#: The batched forms, indexed by card id with one more entry last for ``NO_CARD`` (-1), which melds with nothing:
#: SAME_RANK as uint64 (N_CARDS + 1,), and RUN_WINDOWS as uint64 (3, N_CARDS + 1) with never-complete windows.
SAME_RANK_ARRAY = np.array(SAME_RANK + (0,), dtype=np.uint64)
RUN_WINDOWS_ARRAY = np.array([[_NEVER if w is None else w for w in row] for row in RUN_WINDOWS] + [[_NEVER] * 3],
                             dtype=np.uint64).T.copy()


def forms_meld(hand: int, card_id: int) -> bool:
    """True if ``card_id`` lies in some 3-card meld (R4, R5) made of it and two cards of the int-mask ``hand``."""
    if (hand & SAME_RANK[card_id]).bit_count() >= 2:
        return True
    return any(w is not None and hand & w == w for w in RUN_WINDOWS[card_id])

