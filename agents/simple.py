"""The simple agent: Todd Neller's SimpleGinRummyPlayer from the EAAI Gin Rummy challenge, on our rules.

Its policy, as in the EAAI code:

* take the face-up card (the first upcard, or the top discard) only if it would be part of some meld among the
  cards held plus that card (EAAI ``cardsToAllMelds(hand + card)`` contains a meld with the card); otherwise pass
  the upcard or draw from the stock;
* discard a card that leaves the least deadwood, uniformly at random among ties, never the card just taken from
  the pile;
* knock as soon as that least deadwood is within the knock limit, with such a card (so with no deadwood it goes
  gin).

Two choices our rules need and the EAAI framework lacks: it declares big gin whenever that is legal (R24), and at
the wall (R38) it takes the discard whenever that allows an immediate knock. The EAAI player's ban on repeating a
draw/discard pair is left out: it only guards against endless pick-up loops in a framework that allows discarding
the card just taken, which R16 forbids.
"""

from __future__ import annotations

import numpy as np

from gin_env import cards, engine, solver
from gin_env.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from gin_env.batch import masks_to_bools
from gin_env.batch_observation import BatchView
from gin_env.observation import PlayerView

#: RANK_CARDS[r]: bitmask of the four cards of rank r.
RANK_CARDS = tuple(sum(1 << (s * cards.N_RANKS + r) for s in range(cards.N_SUITS)) for r in range(cards.N_RANKS))
_SUIT_PATTERN = (1 << cards.N_RANKS) - 1


def forms_meld(hand: int, card_id: int) -> bool:
    """True if ``card_id`` lies in some meld (R4, R5) made of it and cards of ``hand``: a set with two cards of its
    rank, or a run of three with neighbours of its suit."""
    r = cards.rank(card_id)
    if (hand & RANK_CARDS[r]).bit_count() >= 2:
        return True
    pattern = (hand >> (cards.suit(card_id) * cards.N_RANKS)) & _SUIT_PATTERN | 1 << r
    # The three 3-card windows that contain rank r, those that fit between A and K (R2: no wrap-around).
    for low in range(max(r - 2, 0), min(r, cards.N_RANKS - 3) + 1):
        window = 0b111 << low
        if pattern & window == window:
            return True
    return False


_RANK_CARDS_U64 = np.array(RANK_CARDS, dtype=np.uint64)


def forms_meld_batch(hands: np.ndarray, card_ids: np.ndarray) -> np.ndarray:
    """:func:`forms_meld` for many (hand mask, card) pairs; False where the card is NO_CARD."""
    valid = card_ids >= 0
    c = np.maximum(card_ids, 0)
    r, s = c % cards.N_RANKS, c // cards.N_RANKS
    same_rank = np.bitwise_count(hands & _RANK_CARDS_U64[r]) >= 2
    pattern = ((hands >> (s * cards.N_RANKS).astype(np.uint64)) & np.uint64(_SUIT_PATTERN)).astype(np.int64) | 1 << r
    run = np.zeros(hands.shape, dtype=bool)
    for below in range(3):
        low = r - below
        fits = (low >= 0) & (low <= cards.N_RANKS - 3)
        run |= fits & ((pattern >> np.maximum(low, 0)) & 0b111 == 0b111)
    return valid & (same_rank | run)


class SimpleAgent:
    """EAAI SimpleGinRummyPlayer: greedy on deadwood, knocks at the first chance. Reads only the view."""

    def act(self, view: PlayerView, rng: np.random.Generator) -> int:
        mask = view.legal_mask
        phase = view.phase
        if phase == engine.OFFER:
            return TAKE_DISCARD if forms_meld(view.hand, view.top_discard) else PASS
        if phase == engine.DRAW:
            take = mask[TAKE_DISCARD] and forms_meld(view.hand, view.top_discard)
            return TAKE_DISCARD if take else DRAW_STOCK
        if phase == engine.WALL:
            return TAKE_DISCARD if mask[TAKE_DISCARD] else PASS
        if phase != engine.DISCARD:
            raise ValueError("no legal action: the hand is over")
        if mask[BIG_GIN]:
            return BIG_GIN
        return self._discard_or_knock(view, mask, rng)

    @staticmethod
    def _discard_or_knock(view: PlayerView, mask: np.ndarray, rng: np.random.Generator) -> int:
        """The least-deadwood card among those that may leave the hand (the mask already excludes the card just
        taken, R16), as a knock when that is legal, else as a discard."""
        best, ties = solver.NOT_HELD, []
        for c, dw in solver.discard_deadwoods(view.hand).items():
            if not (mask[DISCARD_BASE + c] or mask[KNOCK_BASE + c]):
                continue
            if dw < best:
                best, ties = dw, [c]
            elif dw == best:
                ties.append(c)
        c = ties[int(rng.integers(len(ties)))] if len(ties) > 1 else ties[0]
        return KNOCK_BASE + c if mask[KNOCK_BASE + c] else DISCARD_BASE + c

    def act_batch(self, view: BatchView, rng: np.random.Generator) -> np.ndarray:
        """The same policy for every game of a batched view at once (the vector env's opponent)."""
        mask = view.legal_mask
        phase = view.phase
        take = mask[:, TAKE_DISCARD] & forms_meld_batch(view.hand, view.top_discard)
        chosen = np.select([phase == engine.OFFER, phase == engine.DRAW, phase == engine.WALL],
                           [np.where(take, TAKE_DISCARD, PASS), np.where(take, TAKE_DISCARD, DRAW_STOCK),
                            np.where(mask[:, TAKE_DISCARD], TAKE_DISCARD, PASS)], BIG_GIN)
        discard = np.flatnonzero((phase == engine.DISCARD) & ~mask[:, BIG_GIN])
        if discard.size:
            # Uniform among the least-deadwood cards that may leave the hand (the view's best_cards, R16 applied).
            best = masks_to_bools(view.best_cards[discard])
            keys = rng.random(best.shape, dtype=np.float32) + best
            c = keys.argmax(axis=1)
            chosen[discard] = np.where(mask[discard, KNOCK_BASE + c], KNOCK_BASE + c, DISCARD_BASE + c)
        return chosen

    def __repr__(self) -> str:
        return "SimpleAgent()"
