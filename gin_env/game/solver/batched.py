"""The exact deadwood and showdown solver, batched over hands given as ``(N, 52)`` bool arrays or ``(N,)`` uint64
card masks (docs/rules.md R5-R8, R16, R20, R22, R24, R27-R29).

Each function runs a compiled loop of the per-hand solver in ``kernels`` (the numbers of a holding) or ``melds`` (the
showdown) over the hands: the code the functions for one holding run.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gin_env.game import cards
from gin_env.game.cards import hands_to_masks
from gin_env.game.rules import Rules
from gin_env.game.solver import kernels, melds

#: The rules of a call without any: the standard game.
_STANDARD = Rules()


def _masks(masks: np.ndarray, rules: Rules | None) -> np.ndarray:
    """The card masks as a flat uint64 array, refused where one holds more jokers than ``rules`` have (R62)."""
    masks = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    allowed = (rules or _STANDARD).jokers
    extra = masks >> np.uint64(cards.N_CARDS + allowed)
    if extra.any():
        i = int(np.flatnonzero(extra)[0])
        raise ValueError(f"hand {i} holds a joker ({cards.JOKER}) beyond the jokers={allowed} of its rules (R62)")
    return masks


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
                           all_melded: bool = True, rules: Rules | None = None) -> DiscardPhase:
    """Everything the discard phase needs for 11-card hands given as uint64 card masks, in one pass of the
    solver: the least deadwood over allowed discards and those discards, the knock cards, and big gin.

    ``kept``: per hand, a card id that may not leave the hand (R16's card just taken), -1 for none. ``limits``:
    per hand, the most deadwood a knock may leave. ``all_melded``: also say which hands are fully melded.
    ``rules``: the game's (None: the standard game), for its jokers (R62-R69; a joker kept blocks both, R71)."""
    hands = _masks(hands, rules)
    out = DiscardPhase(np.empty(hands.size, dtype=np.int16), np.empty(hands.size, dtype=np.uint64),
                       np.empty(hands.size, dtype=np.uint64), np.empty(hands.size, dtype=bool))
    kernels.discard_phase_of_each(hands, np.ascontiguousarray(kept, dtype=np.int64).reshape(-1),
                                  np.ascontiguousarray(limits, dtype=np.int64).reshape(-1), all_melded,
                                  *(rules or _STANDARD).joker_settings, *out)
    return out


def showdown_of_masks(knockers: np.ndarray, defenders: np.ndarray, layoffs: bool = True,
                      rules: Rules | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Batched showdown for 10-card holdings given as uint64 card masks: (K, F) per knock, ``(M,)`` int16 each.

    K is the knocker's deadwood, F the defender's after optimal joint melds and layoffs against the R22
    auto-arrangement (R27, R28, R76); with K = 0 (gin, R29) or ``layoffs=False`` there are no layoffs."""
    knockers, defenders = _masks(knockers, rules), _masks(defenders, rules)
    k = np.empty(knockers.size, dtype=np.int16)
    f = np.empty(knockers.size, dtype=np.int16)
    melds.showdown_of_each(knockers, defenders, layoffs, *(rules or _STANDARD).joker_settings, k, f)
    return k, f


def deadwood_batch(hands: np.ndarray) -> np.ndarray:
    """Exact deadwood of each row of an ``(N, 52)`` bool array (R7), as ``(N,)`` int16."""
    return deadwood_of_masks(hands_to_masks(hands))


def best_discard_deadwood_batch(hands: np.ndarray) -> np.ndarray:
    """Exact ``min over discards of deadwood(hand - card)`` for each row of an ``(N, 52)`` bool array (R8)."""
    return best_discards_of_masks(hands_to_masks(hands))[0]


def discard_deadwoods_batch(hands: np.ndarray) -> np.ndarray:
    """``(N, 52)`` int16: deadwood of each hand minus each held card (``NOT_HELD`` for cards not held)."""
    return discard_deadwoods_of_masks(hands_to_masks(hands))


def deadwood_of_masks(masks: np.ndarray, rules: Rules | None = None) -> np.ndarray:
    """:func:`deadwood_batch` for hands given as ``(N,)`` uint64 card masks, jokers (bits 52, 53) under ``rules``
    (R68)."""
    return kernels.deadwood_of_each(_masks(masks, rules), *(rules or _STANDARD).joker_settings)


def discard_deadwoods_of_masks(masks: np.ndarray, rules: Rules | None = None) -> np.ndarray:
    """:func:`discard_deadwoods_batch` for hands given as ``(N,)`` uint64 card masks: ``(N, 52)``, or ``(N, 54)``
    under rules with jokers (both joker columns alike, R71)."""
    rules = rules or _STANDARD
    ids = cards.N_CARDS + (kernels.MAX_IDS - cards.N_CARDS if rules.jokers else 0)
    return kernels.discard_deadwoods_of_each(_masks(masks, rules), *rules.joker_settings, ids)


def best_discards_of_masks(masks: np.ndarray, rules: Rules | None = None) -> tuple[np.ndarray, np.ndarray]:
    """For hands given as uint64 card masks: the least deadwood after one discard ``(N,)`` int16, and the card
    mask ``(N,)`` uint64 of every discard that reaches it."""
    masks = _masks(masks, rules)
    phase = discard_phase_of_masks(masks, np.full(masks.size, -1), np.full(masks.size, -1), all_melded=False,
                                   rules=rules)
    return phase.best_deadwood, phase.best_cards
