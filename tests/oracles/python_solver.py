"""The readable Python solver (docs/rules.md R4-R8, R22, R27, R28): the oracle the compiled solver is held to.

It reads the run tables of ``gin_env.game.solver.lookups`` but none of the compiled code. Deadwood is the least sum
of four per-suit run lookups over the set choices worth trying; the knocker's arrangements come from a search over
every meld of the holding (not the compiled odometer), and the layoffs from every combination of the cards each
knocker meld may take. Ties are broken as the package promises: the knocker's layout is the first, in sorted order
of :func:`optimal_arrangements`, with the largest defender deadwood; the layoff is the one whose sorted card ids
come first, split over the melds by :func:`_split_layoffs`.
"""

from __future__ import annotations

import functools
import itertools

from gin_env.game import cards
from gin_env.game.solver import DefenderLaydown, Showdown
from gin_env.game.solver.lookups import NOT_HELD, RUN_CAPABLE, RUN_DEADWOOD, RUN_MOVE, SUIT_BITS, set_options

_RUN_DW = RUN_DEADWOOD.tolist()
_RUN_CAPABLE = RUN_CAPABLE.tolist()
_SUITS = range(cards.N_SUITS)


def _suits(mask: int) -> list[int]:
    return [(mask >> (SUIT_BITS * s)) & ((1 << SUIT_BITS) - 1) for s in _SUITS]


def _set_rank_bits(ps: list[int]) -> int:
    """The ranks held in at least 3 suits, from the suit patterns."""
    return sum(1 << r for r in range(SUIT_BITS) if sum(p >> r & 1 for p in ps) >= 3)


def _set_choices(ps: list[int], prune: bool):
    """Every (per-suit removal masks) combination of set choices worth trying for these suit patterns."""
    set_ranks = _set_rank_bits(ps)
    slots = []
    while set_ranks:
        low = set_ranks & -set_ranks
        set_ranks ^= low
        present = sum(1 << s for s in _SUITS if ps[s] & low)
        capable = sum(1 << s for s in _SUITS if _RUN_CAPABLE[ps[s]] & low)
        slots.append([(low, m) for m in set_options(present, capable, prune)])
    for combo in itertools.product(*slots):
        removal = [0] * len(_SUITS)
        for bit, suit_mask in combo:
            for s in _SUITS:
                if suit_mask >> s & 1:
                    removal[s] |= bit
        yield removal


@functools.lru_cache(maxsize=1 << 17)
def deadwood_mask(mask: int) -> int:
    """Exact least deadwood of a holding given as an int card mask (R7)."""
    ps = _suits(mask)
    return min(sum(_RUN_DW[p & ~r] for p, r in zip(ps, removal)) for removal in _set_choices(ps, prune=True))


def deadwood(hand) -> int:
    return deadwood_mask(cards.to_mask(hand))


def discard_deadwoods(hand) -> dict[int, int]:
    """For each card of a holding, the exact deadwood of the others (R8), in card order."""
    ps = _suits(cards.to_mask(hand))
    best: dict[int, int] = {}
    for removal in _set_choices(ps, prune=False):
        rest = [p & ~r for p, r in zip(ps, removal)]
        base = sum(_RUN_DW[q] for q in rest)
        for s, q in enumerate(rest):
            for r in range(SUIT_BITS):
                if q >> r & 1:
                    c = s * SUIT_BITS + r
                    best[c] = min(best.get(c, NOT_HELD), base - _RUN_DW[q] + _RUN_DW[q & ~(1 << r)])
    return dict(sorted(best.items()))


def _runs_of_pattern(pattern: int, suit: int) -> tuple[list[list[int]], list[int]]:
    """The run decomposition ``RUN_MOVE`` gives a suit pattern: (runs as card-id lists, deadwood card ids)."""
    runs, dead = [], []
    base = suit * SUIT_BITS
    while pattern:
        low = (pattern & -pattern).bit_length() - 1
        length = int(RUN_MOVE[pattern])
        if length:
            runs.append([base + low + i for i in range(length)])
            pattern &= ~(((1 << length) - 1) << low)
        else:
            dead.append(base + low)
            pattern &= pattern - 1
    return runs, dead


def arrangement(hand) -> tuple[list[list[int]], list[int]]:
    """The first set choice, in product order, that reaches the least deadwood, with ``RUN_MOVE``'s runs:
    (melds, deadwood cards), each a sorted list of card ids."""
    mask = cards.to_mask(hand)
    ps = _suits(mask)
    target = deadwood_mask(mask)
    for removal in _set_choices(ps, prune=True):
        rest = [p & ~r for p, r in zip(ps, removal)]
        if sum(_RUN_DW[q] for q in rest) != target:
            continue
        set_bits = functools.reduce(int.__or__, removal, 0)
        melds = [[s * SUIT_BITS + r for s in _SUITS if removal[s] >> r & 1]
                 for r in range(SUIT_BITS) if set_bits >> r & 1]
        dead: list[int] = []
        for s, q in enumerate(rest):
            runs, d = _runs_of_pattern(q, s)
            melds.extend(runs)
            dead.extend(d)
        return sorted(melds), sorted(dead)
    raise AssertionError("no arrangement reaches the minimum deadwood")


def _all_melds(mask: int) -> list[int]:
    """Every set and every run (any length) inside a holding, as bitmasks."""
    melds = []
    ps = _suits(mask)
    for r in range(SUIT_BITS):
        suits_here = [s for s in _SUITS if ps[s] >> r & 1]
        for size in (3, 4):
            for combo in itertools.combinations(suits_here, size):
                melds.append(sum(1 << (s * SUIT_BITS + r) for s in combo))
    for s in _SUITS:
        for lo in range(SUIT_BITS):
            for hi in range(lo + 2, SUIT_BITS):
                run = ((1 << (hi - lo + 1)) - 1) << lo
                if ps[s] & run != run:
                    break
                melds.append(run << (s * SUIT_BITS))
    return melds


def _canonical(meld_masks: list[int]) -> tuple[int, ...]:
    """Merge touching runs of one suit (splits never change layoffs, R5) and sort by mask, so equivalent
    arrangements compare equal."""
    runs = [m for m in meld_masks if len({c // SUIT_BITS for c in cards.to_ids(m)}) == 1]
    others = [m for m in meld_masks if m not in runs]
    merged = True
    while merged:
        merged = False
        for a, b in itertools.combinations(range(len(runs)), 2):
            same_suit = cards.to_ids(runs[a])[0] // SUIT_BITS == cards.to_ids(runs[b])[0] // SUIT_BITS
            if same_suit and ((runs[a] << 1) & runs[b] or (runs[b] << 1) & runs[a]):
                runs[a] |= runs[b]
                del runs[b]
                merged = True
                break
    return tuple(sorted(runs + others))


def optimal_arrangements(hand) -> list[tuple[tuple[int, ...], ...]]:
    """Every minimum-deadwood arrangement, up to run splits (R5): a sorted list of meld tuples (sorted card ids)."""
    mask = cards.to_mask(hand)
    target = deadwood_mask(mask)
    melds = _all_melds(mask)
    found: set[tuple[int, ...]] = set()

    def search(remaining: int, chosen: list[int], dead_value: int) -> None:
        if dead_value + deadwood_mask(remaining) > target:
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
        missing = [s * SUIT_BITS + ranks[0] for s in _SUITS if s * SUIT_BITS + ranks[0] not in meld]
        return [0] + [1 << c for c in missing if len(meld) == 3 and defender >> c & 1]
    suit = meld[0] // SUIT_BITS

    def chain(ranks_out):
        out, laid = [0], 0
        for r in ranks_out:
            bit = 1 << (suit * SUIT_BITS + r)
            if not defender & bit:
                break
            laid |= bit
            out.append(laid)
        return out

    below, above = chain(range(ranks[0] - 1, -1, -1)), chain(range(ranks[-1] + 1, SUIT_BITS))
    return [b | a for b in below for a in above]


def defender_after_layoffs(melds, defender: int) -> tuple[int, tuple[int, ...]]:
    """(F, laid-off masks): the defender's least deadwood over joint own melds and layoffs (R28), the layoff whose
    sorted card ids come first among the equal ones, and the cards laid off on each of ``melds``, in order."""
    options = [_layoff_options(tuple(m), defender) for m in melds]
    best, best_layoff = deadwood_mask(defender), 0
    for combo in itertools.product(*options):
        laid = functools.reduce(int.__or__, combo, 0)
        f = deadwood_mask(defender & ~laid)
        if f < best or (f == best and cards.to_ids(laid) < cards.to_ids(best_layoff)):
            best, best_layoff = f, laid
    return best, _split_layoffs(options, best_layoff)


def _split_layoffs(options: list[list[int]], laid: int) -> tuple[int, ...]:
    """The cards of ``laid`` on each meld: each meld in turn takes the most it can of what is left; if that leaves
    cards over, the first exact split of the options in product order."""
    parts, left = [], laid
    for meld_options in options:
        part = max((o for o in meld_options if o & left == o), key=int.bit_count)
        parts.append(part)
        left &= ~part
    if not left:
        return tuple(parts)
    return next(combo for combo in itertools.product(*options)
                if sum(o.bit_count() for o in combo) == laid.bit_count() and sum(combo) == laid)


def showdown(knocker, defender, *, layoffs: bool = True, arrangement=None) -> Showdown:
    """The knock laid down as the package promises (R21-R23, R26-R29); ``arrangement`` is trusted, not checked."""
    knocker_mask, defender_mask = cards.to_mask(knocker), cards.to_mask(defender)
    gin = deadwood_mask(knocker_mask) == 0
    if arrangement is not None and not gin:
        candidates = [tuple(tuple(cards.to_ids(cards.to_mask(m))) for m in arrangement)]
    else:
        candidates = optimal_arrangements(knocker_mask)
    best = None
    for melds in candidates:
        k = cards.hand_value(knocker_mask & ~cards.to_mask([c for m in melds for c in m]))
        if gin or not layoffs:
            f, parts = deadwood_mask(defender_mask), (0,) * len(melds)
        else:
            f, parts = defender_after_layoffs(melds, defender_mask)
        if best is None or f > best[1]:
            best = (k, f, parts, melds)
        if gin or not layoffs:
            break
    k, f, parts, melds = best
    laid = functools.reduce(int.__or__, parts, 0)
    return Showdown(tuple(melds), k, f, tuple(cards.to_ids(laid)), gin,
                    tuple(tuple(cards.to_ids(part)) for part in parts))


def defender_laydown(knocker_melds, defender_hand, *, layoffs: bool = True) -> DefenderLaydown:
    """The defender's best lay-down against declared melds (trusted, not checked), as the package promises."""
    defender = cards.to_mask(defender_hand)
    melds = [tuple(cards.to_ids(cards.to_mask(m))) for m in knocker_melds]
    if layoffs and sum(len(m) for m in melds) < cards.HAND_SIZE:
        f, parts = defender_after_layoffs(melds, defender)
    else:
        f, parts = deadwood_mask(defender), (0,) * len(melds)
    own, _ = arrangement(defender & ~functools.reduce(int.__or__, parts, 0))
    return DefenderLaydown(f, tuple(tuple(cards.to_ids(part)) for part in parts), tuple(tuple(m) for m in own))
