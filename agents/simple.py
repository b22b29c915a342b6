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
from numba import njit

from gin_env.batch.bits import nth_bit, popcount
from gin_env.batch.observation import BatchView
from gin_env.game import engine, solver
from gin_env.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, PASS, TAKE_DISCARD
from gin_env.game.meld_partners import RUN_WINDOWS_ARRAY, SAME_RANK_ARRAY, forms_meld
from gin_env.game.observation import PlayerView


@njit(cache=True, inline="always")
def _forms_meld_compiled(hand, card):
    """:func:`forms_meld` for a uint64 hand mask, False for NO_CARD (-1, the tables' last entry)."""
    meld = popcount(hand & SAME_RANK_ARRAY[card]) >= 2
    for w in range(RUN_WINDOWS_ARRAY.shape[0]):
        window = RUN_WINDOWS_ARRAY[w, card]
        meld = meld or hand & window == window
    return meld


@njit(cache=True, inline="always")
def _has(bits, i, action):
    return (bits[i, action // 64] >> np.uint64(action % 64)) & np.uint64(1) != 0


@njit(cache=True, inline="always")
def _knock_or_discard(bits, i, card):
    """Knock with ``card`` when that is legal, else discard it."""
    return KNOCK_BASE + card if _has(bits, i, KNOCK_BASE + card) else DISCARD_BASE + card


@njit(cache=True)
def _choose(bits, phase, hand, top, best_cards, chosen, ties):
    """``SimpleAgent.act_batch`` for every row but those whose least-deadwood cards tie: those are listed in
    ``ties`` (their count returned) for ``_break_ties``."""
    n_ties = 0
    for i in range(bits.shape[0]):
        p = phase[i]
        if p == engine.DISCARD:
            chosen[i] = BIG_GIN
            if not _has(bits, i, BIG_GIN):
                # The least-deadwood cards that may leave the hand (the view's best_cards, R16 applied).
                cards_ = best_cards[i]
                if popcount(cards_) > 1:
                    ties[n_ties] = i
                    n_ties += 1
                else:
                    chosen[i] = _knock_or_discard(bits, i, nth_bit(cards_, 0))
        elif _has(bits, i, TAKE_DISCARD) and (p == engine.WALL or _forms_meld_compiled(hand[i], top[i])):
            chosen[i] = TAKE_DISCARD
        else:
            chosen[i] = DRAW_STOCK if p == engine.DRAW else PASS
    return n_ties


@njit(cache=True)
def _break_ties(bits, best_cards, ties, u, chosen):
    """Uniform among tied least-deadwood cards: the card number floor(u * count) of each."""
    for t in range(ties.size):
        i = ties[t]
        cards_ = best_cards[i]
        chosen[i] = _knock_or_discard(bits, i, nth_bit(cards_, int(u[t] * popcount(cards_))))


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
        """The same policy for every game of a batched view at once (the vector env's opponent), in one compiled
        pass; ties among the least-deadwood cards draw ``rng.random(ties)`` once, in row order."""
        bits = view.legal_bits
        chosen = np.empty(bits.shape[0], dtype=np.int64)
        ties = np.empty(bits.shape[0], dtype=np.int64)
        best_cards = view.best_cards
        n_ties = _choose(bits, view.phase, view.hand, view.top_discard, best_cards, chosen, ties)
        if n_ties:
            _break_ties(bits, best_cards, ties[:n_ties], rng.random(n_ties), chosen)
        return chosen

    def __repr__(self) -> str:
        return "SimpleAgent()"
