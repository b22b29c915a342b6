"""A slow, obviously-correct reference solver for tests: exhaustive search over every set of disjoint melds.

It shares nothing with ``gin_env.game.solver`` beyond the card encoding, so agreement between them is evidence."""

from __future__ import annotations

import functools

VALUES = [min(c % 13 + 1, 10) for c in range(52)]


def melds_of(cards: frozenset[int]) -> list[frozenset[int]]:
    """Every set (R4) and run of any length (R5) inside ``cards``."""
    found = []
    for rank in range(13):
        same = [s * 13 + rank for s in range(4) if s * 13 + rank in cards]
        for skip in [None, *same]:
            group = frozenset(c for c in same if c != skip)
            if len(group) >= 3:
                found.append(group)
    for suit in range(4):
        for lo in range(13):
            for hi in range(lo + 2, 13):
                run = frozenset(suit * 13 + r for r in range(lo, hi + 1))
                if not run <= cards:
                    break
                found.append(run)
    return list(set(found))


@functools.cache
def brute_deadwood(cards: frozenset[int]) -> int:
    """Minimum deadwood by trying, for the lowest card, 'deadwood' or every meld that contains it."""
    if not cards:
        return 0
    low = min(cards)
    best = VALUES[low] + brute_deadwood(cards - {low})
    for meld in melds_of(cards):
        if low in meld:
            best = min(best, brute_deadwood(cards - meld))
    return best


def brute_best_discard(cards: frozenset[int]) -> int:
    return min(brute_deadwood(cards - {c}) for c in cards)
