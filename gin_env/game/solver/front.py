"""The solver for one holding at a time, from Python (docs/rules.md R4-R8, R21-R23, R26-R29, R62-R82): the public
functions and results over the compiled solver (``kernels`` for the numbers, ``melds`` for which melds and
layoffs, ``wild_melds`` for them when a joker is held). This module checks what it is given and turns the compiled
arrays into ids, dicts and dataclasses; every rule and every tie-break is the compiled code's.

Every function takes the game's ``rules`` (None: the standard game): how many jokers a holding may hold, a joker's
value and the naturals a meld needs (R65, R67). A hand holding a joker its rules lack is refused naming both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gin_env.game import cards
from gin_env.game.rules import Rules
from gin_env.game.solver import melds as compiled
from gin_env.game.solver import wild_melds
from gin_env.game.solver.declarations import declared_melds, identities_of, meld_of, parse_meld, resolve
from gin_env.game.solver.kernels import deadwood_of_mask, discard_deadwoods_of_mask, discard_phase_of_mask, scratch

#: The rules of a call without any: the standard game.
_STANDARD = Rules()


def holding(hand, rules: Rules | None = None, *, what: str = "the hand") -> int:
    """``hand`` (ids, strings or a mask) as a card mask, refused where it holds more jokers than ``rules`` have."""
    mask = cards.to_mask(hand)
    jokers = (mask >> cards.N_CARDS).bit_count()
    allowed = (rules or _STANDARD).jokers
    if jokers > allowed:
        raise ValueError(f"{what} holds {jokers} joker{'s' * (jokers > 1)} ({cards.JOKER}) and the rules have "
                         f"jokers={allowed} (R62)")
    return mask


def showdown_holdings(knocker, defender, rules: Rules | None = None) -> tuple[int, int]:
    """The knocker's and the defender's holdings as card masks, checked (``holding``) and sharing no card. Written as
    strings, their jokers are numbered across both, the knocker's first (R62: ``JK`` then ``JK`` are 52 and 53)."""
    if isinstance(knocker, str) and isinstance(defender, str):
        knocker = cards.parse(knocker)
        after = sum(c >= cards.N_CARDS for c in knocker)
        defender = [c + after if c >= cards.N_CARDS else c for c in cards.parse(defender)]
        if sum(c >= cards.N_CARDS for c in defender) + after > cards.MAX_JOKERS:
            raise ValueError(f"the knocker and the defender hold more than {cards.MAX_JOKERS} jokers between them "
                             "(R62)")
    knocker_mask = holding(knocker, rules, what="the knocker")
    defender_mask = holding(defender, rules, what="the defender")
    if knocker_mask & defender_mask:
        raise ValueError(f"knocker and defender share cards: {cards.to_str(knocker_mask & defender_mask)}")
    return knocker_mask, defender_mask


def deadwood(hand, rules: Rules | None = None) -> int:
    """Exact minimum deadwood of a holding over all arrangements (R7, R68); usually 10 cards."""
    return int(deadwood_of_mask(holding(hand, rules), *(rules or _STANDARD).joker_settings))


def discard_deadwoods(hand, rules: Rules | None = None) -> dict[int, int]:
    """For each card of an 11-card holding, in card order, the exact deadwood of the other 10 (R8; each joker's
    entry the same, R71)."""
    held, after = discard_deadwoods_of_mask(holding(hand, rules), *(rules or _STANDARD).joker_settings)
    return dict(zip(held.tolist(), after.tolist()))


def best_discard_deadwood(hand, rules: Rules | None = None) -> int:
    """Minimum over the discards of ``deadwood(hand - card)`` (R8, R69), exact."""
    mask = holding(hand, rules)
    if mask == 0:
        raise ValueError("best_discard_deadwood needs at least one card")
    best, _, _, _ = discard_phase_of_mask(mask, cards.NO_CARD, -1, *(rules or _STANDARD).joker_settings)
    return int(best)


def arrangement(hand, rules: Rules | None = None) -> tuple[list[list[int]], list[int]]:
    """One minimum-deadwood arrangement: (melds, deadwood cards), each a sorted list of card ids. With a joker
    held, each meld is a :class:`Meld`: its ids, and each run joker's declared identity (R65, written ``JK=7S``)."""
    mask = holding(hand, rules)
    if mask >> cards.N_CARDS:
        settings = (rules or _STANDARD).joker_settings
        slots, inner = scratch(*settings)[0], scratch(*settings)[0]
        found, idents, _, _, n, _ = wild_melds.wild_walk(mask, deadwood_of_mask(mask, *settings), wild_melds.FIRST,
                                                         0, False, slots, inner)
        melds = [meld_of(c, i) for c, i in zip(found[:n].tolist(), idents[:n].tolist())]
        return sorted(melds), cards.to_ids(mask & ~_union(found[:n].tolist()))
    meld_masks, n = compiled.arrangement_of(mask)
    melds = [cards.to_ids(m) for m in meld_masks[:n].tolist()]
    return sorted(melds), cards.to_ids(mask & ~_union(meld_masks[:n].tolist()))


def is_meld(meld, rules: Rules | None = None) -> bool:
    """True for a legal set (R4) or run (R5), its jokers standing for the cards they need (R65)."""
    ids = list(meld) if not isinstance(meld, str) else cards.parse(meld)
    mask = holding(ids, rules, what="the meld")
    return len(ids) == mask.bit_count() and bool(declared_melds(mask, (rules or _STANDARD).joker_min_naturals))


@dataclass(frozen=True)
class Showdown:
    """The result of laying down after a knock: the knocker's melds, both deadwoods, the layoffs (all of them, and
    those on each knocker meld, aligned with ``knocker_melds``), and each run joker on the table with the natural
    card it stands for (``identities``: the knocker's declared, the defender's laid off; R73, R76)."""

    knocker_melds: tuple[tuple[int, ...], ...]
    knocker_deadwood: int
    defender_deadwood: int
    layoffs: tuple[int, ...]
    gin: bool
    layoff_melds: tuple[tuple[int, ...], ...]
    identities: tuple[tuple[int, int], ...] = ()


def showdown(knocker, defender, *, layoffs: bool = True, arrangement=None, rules: Rules | None = None) -> Showdown:
    """Lay down a knock exactly (R21-R23, R26-R29, R73-R77).

    ``arrangement``: the knocker's explicit melds (validated, each run joker's identity declared where its meld
    leaves it open, ``JK=7S``; a gin hand lays down its own), else the auto-arrangement of R22: minimum deadwood,
    then the one leaving the defender the most deadwood after optimal joint melds and layoffs, each joker's meld and
    identity chosen with the rest. Among those, without jokers, the first by the sorted card ids of its melds, which
    come in card-mask order with touching runs of a suit as one meld; with a joker held on either side, the first
    in the order of ``wild_melds``. The defender's layoff is its least deadwood, then the layoff whose sorted card
    ids come first, each knocker meld in turn taking the most it can of it (with jokers: the order of
    ``wild_melds``). Written as strings, the two hands' jokers are numbered across both, the knocker's first (R62)."""
    knocker_mask, defender_mask = showdown_holdings(knocker, defender, rules)
    rules = rules or _STANDARD
    settings = rules.joker_settings
    target = deadwood_of_mask(knocker_mask, *settings)
    gin = target == 0
    wild = (knocker_mask | defender_mask) >> cards.N_CARDS
    if arrangement is not None and not gin:
        meld_masks, idents = _validated_arrangement(arrangement, knocker_mask, rules)
        f, parts, spans = _laid_down(defender_mask, meld_masks, idents, layoffs, rules)
    elif wild:
        slots, inner = scratch(*settings)[0], scratch(*settings)[0]
        found, found_idents, found_parts, found_spans, n, f = wild_melds.wild_walk(
            knocker_mask, target, wild_melds.SHOWDOWN, defender_mask, layoffs and not gin, slots, inner)
        meld_masks, idents = found[:n].tolist(), found_idents[:n].tolist()
        parts, spans = found_parts[:n].tolist(), found_spans[:n].tolist()
    else:
        found, n, f, found_parts = compiled.auto_showdown_of(knocker_mask, defender_mask, layoffs)
        meld_masks, parts = found[:n].tolist(), found_parts[:n].tolist()
        idents, spans = meld_masks, [0] * n
    k = cards.hand_value(knocker_mask & ~_union(meld_masks), rules.deck)
    identities = tuple(sorted(identities_of(meld_masks, idents, parts, spans).items()))
    return Showdown(tuple(tuple(cards.to_ids(m)) for m in meld_masks), k, int(f),
                    tuple(cards.to_ids(_union(parts))), bool(gin), tuple(tuple(cards.to_ids(part)) for part in parts),
                    identities)


@dataclass(frozen=True)
class DefenderLaydown:
    """The defender's best lay-down against a knocker's declared melds (R27, R28, R76): its least ``deadwood``, the
    cards it lays off on each knocker meld (``layoffs``, aligned with the melds as given) and its own melds of the
    cards left (``own_melds``, one minimum-deadwood arrangement). Cards are sorted ids."""

    deadwood: int
    layoffs: tuple[tuple[int, ...], ...]
    own_melds: tuple[tuple[int, ...], ...]


def defender_laydown(knocker_melds, defender_hand, *, layoffs: bool = True, rules: Rules | None = None
                     ) -> DefenderLaydown:
    """The defender's best lay-down given the knocker's declared melds alone, as a player at the table sees them.

    ``knocker_melds``: the melds the knocker laid down (each a sequence of card ids or names, a legal set or run
    with each run joker's identity declared where its meld leaves it open, none sharing a card with another or with
    the defender); ``defender_hand``: the defender's ten cards. The result is the least deadwood over joint own
    melds and layoffs (R28), layoffs being cards that extend a knocker meld (R27, R74, R76: the fourth card of a
    set, cards or jokers continuing a run at either declared end, the knocker's deadwood never taking any); ties go
    to the layoff whose sorted card ids come first. Without ``layoffs`` (the rules key, R27 off), or against gin
    (melds holding all of the knocker's ten cards or more, R23, R24), nothing is laid off. Equal to what
    :func:`showdown` gives the defender for the same melds; an impossible meld is a ``ValueError`` naming it."""
    rules = rules or _STANDARD
    defender = holding(defender_hand, rules, what="the defender")
    table = rules.deck.full_mask & ~defender
    meld_masks, idents = _validated_arrangement(knocker_melds, table, rules, owner="the defender holds")
    gin = sum(m.bit_count() for m in meld_masks) >= cards.HAND_SIZE
    f, parts, _ = _laid_down(defender, meld_masks, idents, layoffs and not gin, rules)
    own, _ = arrangement(defender & ~_union(parts), rules)
    return DefenderLaydown(f, tuple(tuple(cards.to_ids(part)) for part in parts), tuple(tuple(m) for m in own))


def _laid_down(defender: int, meld_masks: list[int], idents: list[int], layoffs: bool, rules: Rules
               ) -> tuple[int, list[int], list[int]]:
    """(the defender's deadwood, the cards it lays off on each of ``meld_masks``, the run places each covers), with
    layoffs or without."""
    n = len(meld_masks)
    if not layoffs:
        return deadwood(defender, rules), [0] * n, [0] * n
    if (defender | _union(meld_masks)) >> cards.N_CARDS:
        parts, spans = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        f = wild_melds.wild_laydown(defender, np.array(meld_masks, dtype=np.int64),
                                    np.array(idents, dtype=np.int64), parts, spans,
                                    scratch(*rules.joker_settings)[0])
        return int(f), parts.tolist(), spans.tolist()
    f, parts = compiled.laydown_of(defender, np.array(meld_masks, dtype=np.int64))
    return int(f), parts.tolist(), [0] * n


def _union(masks: list[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


def _validated_arrangement(melds_given, allowed: int, rules: Rules, *, owner: str = "the knocker does not hold"
                           ) -> tuple[list[int], list[int]]:
    """``melds_given`` as (card masks, declarations), each a legal meld of cards in ``allowed`` under ``rules``
    (R65, R73: a run joker's open identity must be declared), no two overlapping; each ``JK`` written takes the
    next joker of ``allowed``; ``owner`` says in an error why a card is not allowed."""
    used = 0
    masks, idents = [], []
    jokers = cards.to_ids(allowed >> cards.N_CARDS << cards.N_CARDS)
    for meld in melds_given:
        mask, declared = parse_meld(meld, jokers)
        holding(mask, rules, what=f"meld {cards.to_str(mask)}")
        ident = resolve(mask, declared, rules.joker_min_naturals)
        if mask & ~allowed:
            raise ValueError(f"meld {cards.to_str(mask)} uses cards {owner}: {cards.to_str(mask & ~allowed)}")
        if mask & used:
            raise ValueError(f"meld {cards.to_str(mask)} overlaps another meld")
        used |= mask
        masks.append(mask)
        idents.append(ident)
    return masks, idents
