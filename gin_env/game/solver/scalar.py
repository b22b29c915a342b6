"""The exact deadwood solver on int bitmasks (docs/rules.md R5-R8): one holding at a time, cached by hand.

Runs live inside one suit, so the run-only deadwood of a suit pattern is a table lookup (``lookups``); sets are the
only coupling between suits, so the exact minimum is the least sum of four lookups over the set choices worth trying.
For 11 cards, the deadwood after each discard comes from the same choices with one more lookup per suit.
"""

from __future__ import annotations

import functools
import itertools

from gin_env.game import cards
from gin_env.game.solver.lookups import (
    NOT_HELD,
    RUN_CAPABLE,
    RUN_DEADWOOD,
    RUN_MOVE,
    SUIT_BITS,
    SUIT_MASK,
    SUIT_PATTERNS,
    set_options,
    set_rank_bits,
)

_RUN_DW = RUN_DEADWOOD.tolist()
_RUN_CAPABLE = RUN_CAPABLE.tolist()


def _suits(mask: int) -> list[int]:
    return [(mask >> (SUIT_BITS * s)) & SUIT_MASK for s in range(4)]



def _set_choices(ps: list[int], prune: bool):
    """Every (per-suit removal masks) combination of set choices worth trying for these suit patterns."""
    set_ranks = set_rank_bits(ps)
    slots = []
    while set_ranks:
        low = set_ranks & -set_ranks
        set_ranks ^= low
        present = sum(1 << s for s in range(4) if ps[s] & low)
        capable = sum(1 << s for s in range(4) if _RUN_CAPABLE[ps[s]] & low)
        slots.append([(low, m) for m in set_options(present, capable, prune)])
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
    if not set_rank_bits(ps):
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
    if not set_rank_bits(ps):
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


