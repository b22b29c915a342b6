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

from gin_env import engine, solver
from gin_env.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from gin_env.batch import has_action, nth_set_bit
from gin_env.batch_observation import BatchView
from gin_env.meld_partners import forms_meld, forms_meld_batch
from gin_env.observation import PlayerView


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
        bits = view.legal_bits
        phase = view.phase
        take = has_action(bits, TAKE_DISCARD) & ((phase == engine.WALL) | forms_meld_batch(view.hand, view.top_discard))
        chosen = np.where(take, TAKE_DISCARD, np.where(phase == engine.DRAW, DRAW_STOCK, PASS))
        discarding = phase == engine.DISCARD
        chosen[discarding] = BIG_GIN
        rows = np.flatnonzero(discarding & ~has_action(bits, BIG_GIN))
        if rows.size:
            # Uniform among the least-deadwood cards that may leave the hand (the view's best_cards, R16 applied).
            card = self._least_deadwood_cards(view.best_cards.take(rows), rng)
            knock = has_action(bits.take(rows, axis=0), KNOCK_BASE + card)
            chosen[rows] = np.where(knock, KNOCK_BASE, DISCARD_BASE) + card
        return chosen

    @staticmethod
    def _least_deadwood_cards(best_cards: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One card of each mask of least-deadwood cards that may leave the hand (the view's ``best_cards``, R16
        applied), uniformly at random among ties: the r-th card of the mask, r = floor(u * count). Ties are rare,
        so the lowest card is taken everywhere first and only the ties draw a random number."""
        one = np.uint64(1)
        card = np.bitwise_count((best_cards & (~best_cards + one)) - one).astype(np.int64)  # bits below the lowest
        count = np.bitwise_count(best_cards).astype(np.int64)
        ties = np.flatnonzero(count > 1)
        if ties.size:
            nth = (rng.random(ties.size) * count.take(ties)).astype(np.int64)
            card[ties] = nth_set_bit(best_cards.take(ties), nth)
        return card

    def __repr__(self) -> str:
        return "SimpleAgent()"
