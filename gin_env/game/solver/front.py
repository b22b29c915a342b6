"""The solver for one holding at a time, from Python (docs/rules.md R4-R8, R21-R23, R26-R29): the public
functions and results over the compiled solver (``kernels`` for the numbers, ``melds`` for which melds and
layoffs). This module checks what it is given and turns the compiled arrays into ids, dicts and dataclasses; every
rule and every tie-break is the compiled code's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gin_env.game import cards
from gin_env.game.solver import melds as compiled
from gin_env.game.solver.kernels import deadwood_of_mask, discard_deadwoods_of_mask, discard_phase_of_mask
from gin_env.game.solver.lookups import SUIT_BITS

#: The most cards of one set (R4): one per suit.
_MAX_SET = cards.N_SUITS


def deadwood(hand) -> int:
    """Exact minimum deadwood of a holding over all arrangements (R7); usually 10 cards."""
    return int(deadwood_of_mask(cards.to_mask(hand)))


def discard_deadwoods(hand) -> dict[int, int]:
    """For each card of an 11-card holding, in card order, the exact deadwood of the other 10 (R8)."""
    held, after = discard_deadwoods_of_mask(cards.to_mask(hand))
    return dict(zip(held.tolist(), after.tolist()))


def best_discard_deadwood(hand) -> int:
    """Minimum over the discards of ``deadwood(hand - card)`` (R8), exact."""
    mask = cards.to_mask(hand)
    if mask == 0:
        raise ValueError("best_discard_deadwood needs at least one card")
    best, _, _, _ = discard_phase_of_mask(mask, cards.NO_CARD, -1)
    return int(best)


def arrangement(hand) -> tuple[list[list[int]], list[int]]:
    """One minimum-deadwood arrangement: (melds, deadwood cards), each a sorted list of card ids."""
    mask = cards.to_mask(hand)
    meld_masks, n = compiled.arrangement_of(mask)
    melds = [cards.to_ids(m) for m in meld_masks[:n].tolist()]
    return sorted(melds), cards.to_ids(mask & ~_union(meld_masks[:n].tolist()))


def is_meld(meld) -> bool:
    """True for a legal set (R4) or run (R5)."""
    ids = cards.to_ids(cards.to_mask(meld))
    if len(ids) < compiled.MIN_MELD or len(ids) != len(list(meld)):
        return False
    if len({c % SUIT_BITS for c in ids}) == 1:
        return len(ids) <= _MAX_SET
    return len({c // SUIT_BITS for c in ids}) == 1 and ids[-1] - ids[0] == len(ids) - 1


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

    ``arrangement``: the knocker's explicit melds (validated; a gin hand lays down its own), else the
    auto-arrangement of R22: minimum deadwood, then the one leaving the defender the most deadwood after optimal
    joint melds and layoffs; among those, the first by the sorted card ids of its melds, which come in card-mask
    order with touching runs of a suit as one meld. The defender's layoff is its least deadwood, then the layoff
    whose sorted card ids come first, each knocker meld in turn taking the most it can of it."""
    knocker_mask, defender_mask = cards.to_mask(knocker), cards.to_mask(defender)
    if knocker_mask & defender_mask:
        raise ValueError(f"knocker and defender share cards: {cards.to_str(knocker_mask & defender_mask)}")
    gin = deadwood_of_mask(knocker_mask) == 0
    if arrangement is not None and not gin:
        melds = _validated_arrangement(arrangement, knocker_mask)
        meld_masks = [cards.to_mask(m) for m in melds]
        f, parts = _laid_down(defender_mask, meld_masks, layoffs)
    else:
        found, n, f, found_parts = compiled.auto_showdown_of(knocker_mask, defender_mask, layoffs)
        meld_masks, parts = found[:n].tolist(), found_parts[:n].tolist()
        melds = tuple(tuple(cards.to_ids(m)) for m in meld_masks)
    k = cards.hand_value(knocker_mask & ~_union(meld_masks))
    return Showdown(melds, k, int(f), tuple(cards.to_ids(_union(parts))), bool(gin),
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
    gin = sum(len(m) for m in melds) >= cards.HAND_SIZE
    f, parts = _laid_down(defender, [cards.to_mask(m) for m in melds], layoffs and not gin)
    own, _ = arrangement(defender & ~_union(parts))
    return DefenderLaydown(f, tuple(tuple(cards.to_ids(part)) for part in parts), tuple(tuple(m) for m in own))


def _laid_down(defender: int, meld_masks: list[int], layoffs: bool) -> tuple[int, list[int]]:
    """(the defender's deadwood, the cards it lays off on each of ``meld_masks``), with layoffs or without."""
    if not layoffs:
        return deadwood(defender), [0] * len(meld_masks)
    f, parts = compiled.laydown_of(defender, np.array(meld_masks, dtype=np.int64))
    return int(f), parts.tolist()


def _union(masks: list[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


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
