"""Melds, every optimal arrangement of a holding, and the showdown after a knock (docs/rules.md R4, R5, R21-R23,
R26-R29): the knocker's melds under R22's auto-arrangement, the defender's optimal joint melds and layoffs, and the
defender's best lay-down against declared melds alone (:func:`defender_laydown`, for a player who sees only those).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from gin_env.game import cards
from gin_env.game.solver.lookups import SUIT_BITS
from gin_env.game.solver.scalar import _deadwood_mask, _suits, arrangement

#: Cards a knocker holds after the knock (R21): declared melds of this many cards or more leave no deadwood, gin.
KNOCKER_CARDS = 10

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


def _defender_after_layoffs(melds, defender: int) -> tuple[int, tuple[int, ...]]:
    """(F, laid-off masks): the defender's least deadwood over joint own melds and layoffs (R28), and the cards laid
    off on each of ``melds``, in order."""
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
    return best, _split_layoffs(options, best_layoff)


def _split_layoffs(options: list[list[int]], laid: int) -> tuple[int, ...]:
    """The cards of ``laid`` on each meld: each meld in turn takes the most it can of what is left (a set its fourth
    card, a run its chains from both ends); if that leaves cards over, the first exact split of the options."""
    parts, left = [], laid
    for meld_options in options:
        part = max((o for o in meld_options if o & left == o), key=int.bit_count)
        parts.append(part)
        left &= ~part
    if not left:
        return tuple(parts)
    return next(combo for combo in itertools.product(*options)
                if sum(o.bit_count() for o in combo) == laid.bit_count() and sum(combo) == laid)


@dataclass(frozen=True)
class Showdown:
    """The result of laying down after a knock: the knocker's melds, both deadwoods, the layoffs (all of them, and
    those on each knocker meld, aligned with ``knocker_melds``)."""

    knocker_melds: tuple[tuple[int, ...], ...]
    knocker_deadwood: int
    defender_deadwood: int
    layoffs: tuple[int, ...]
    gin: bool
    layoff_melds: tuple[tuple[int, ...], ...]


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
            f, parts = _deadwood_mask(defender_mask), (0,) * len(melds)
        else:
            f, parts = _defender_after_layoffs(melds, defender_mask)
        if best is None or f > best[1]:
            best = (k, f, parts, melds)
        if gin or not layoffs:
            break
    k, f, parts, melds = best
    laid = 0
    for part in parts:
        laid |= part
    return Showdown(tuple(tuple(m) for m in melds), k, f, tuple(cards.to_ids(laid)), gin,
                    tuple(tuple(cards.to_ids(part)) for part in parts))


@dataclass(frozen=True)
class DefenderLaydown:
    """The defender's best lay-down against a knocker's declared melds (R27, R28): its least ``deadwood``, the cards
    it lays off on each knocker meld (``layoffs``, aligned with the melds as given) and its own melds of the cards
    left (``own_melds``, one minimum-deadwood arrangement). Cards are sorted ids."""

    deadwood: int
    layoffs: tuple[tuple[int, ...], ...]
    own_melds: tuple[tuple[int, ...], ...]


def defender_laydown(knocker_melds, defender_hand, *, layoffs: bool = True) -> DefenderLaydown:
    """The defender's best lay-down given the knocker's declared melds alone, as a player at the table sees them.

    ``knocker_melds``: the melds the knocker laid down (each a sequence of card ids or names, a legal set or run,
    none sharing a card with another or with the defender); ``defender_hand``: the defender's ten cards. The result
    is the least deadwood over joint own melds and layoffs (R28), layoffs being cards that extend a knocker meld
    (R27: the fourth card of a set, cards continuing a run at either end, the knocker's deadwood never taking any);
    ties go to the layoff whose sorted card ids come first. Without ``layoffs`` (the rules key, R27 off), or against
    gin (melds holding all of the knocker's ten cards or more, R23, R24), nothing is laid off. Equal to what
    :func:`showdown` gives the defender for the same melds; an impossible meld is a ``ValueError`` naming it."""
    defender = cards.to_mask(defender_hand)
    melds = _validated_arrangement(knocker_melds, cards.FULL_DECK & ~defender, owner="the defender holds")
    gin = sum(len(m) for m in melds) >= KNOCKER_CARDS
    if layoffs and not gin:
        f, parts = _defender_after_layoffs(melds, defender)
    else:
        f, parts = _deadwood_mask(defender), (0,) * len(melds)
    laid = 0
    for part in parts:
        laid |= part
    own, _ = arrangement(defender & ~laid)
    return DefenderLaydown(f, tuple(tuple(cards.to_ids(part)) for part in parts), tuple(tuple(m) for m in own))


def _validated_arrangement(melds_given, allowed: int, *, owner: str = "the knocker does not hold"
                           ) -> tuple[tuple[int, ...], ...]:
    """``melds_given`` as sorted card-id tuples, each a legal meld of cards in ``allowed``, no two overlapping;
    ``owner`` says in an error why a card is not allowed."""
    used = 0
    melds = []
    for meld in melds_given:
        mask = cards.to_mask(meld)
        if not is_meld(cards.to_ids(mask)):
            raise ValueError(f"not a legal meld: {cards.to_str(mask)}")
        if mask & ~allowed:
            raise ValueError(f"meld {cards.to_str(mask)} uses cards {owner}: {cards.to_str(mask & ~allowed)}")
        if mask & used:
            raise ValueError(f"meld {cards.to_str(mask)} overlaps another meld")
        used |= mask
        melds.append(tuple(cards.to_ids(mask)))
    return tuple(melds)


# ---------------------------------------------------------------------------------------------------------------
# Batched solver on (N, 52) bool arrays
