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

With jokers (docs/rules.md section 17) the policy is the same: a card "would be part of some meld" when some set or
run of it, the cards held and the jokers held meets R65 (the taken card may be a joker), the deadwoods are the jokers
solver's (R68), and the two jokers count as one card to discard or knock with (R71, R72: ``DISCARD(JK)``,
``KNOCK(JK)``). Under rules without jokers it plays exactly as it did before jokers existed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_env.batch.bits import nth_bit, popcount
from gin_env.batch.observation import BatchView
from gin_env.game import actions, engine, solver
from gin_env.game.actions import (
    BIG_GIN,
    DISCARD_BASE,
    DISCARD_JOKER,
    DRAW_STOCK,
    KNOCK_BASE,
    KNOCK_JOKER,
    PASS,
    TAKE_DISCARD,
)
from gin_env.game.cards import FULL_DECK, N_CARDS, N_RANKS, N_SUITS
from gin_env.game.meld_partners import RUN_WINDOWS_ARRAY, SAME_RANK_ARRAY, forms_meld
from gin_env.game.observation import PlayerView

#: The fewest cards of a meld, and the most of a set (R4, R5, R65: jokers count in both).
MIN_MELD, MAX_SET = 3, N_SUITS
_NATURALS = np.uint64(FULL_DECK)
_JOKER_SHIFT = np.uint64(N_CARDS)
_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def _forms_meld_compiled(hand, card):
    """:func:`forms_meld` for a uint64 hand mask, False for NO_CARD (-1, the tables' last entry)."""
    meld = popcount(hand & SAME_RANK_ARRAY[card]) >= 2
    for w in range(RUN_WINDOWS_ARRAY.shape[0]):
        window = RUN_WINDOWS_ARRAY[w, card]
        meld = meld or hand & window == window
    return meld


@njit(cache=True)
def _natural_melds(naturals, jokers, card, min_naturals):
    """Whether the natural ``card`` lies in a set or run (R4, R5) of itself, natural cards of the mask ``naturals``
    and at most ``jokers`` jokers, holding at least ``min_naturals`` naturals (R65)."""
    rank = card % N_RANKS
    same = 1
    for suit in range(N_SUITS):
        other = suit * N_RANKS + rank
        if other != card and naturals >> np.uint64(other) & _ONE:
            same += 1
    if same >= min_naturals and same + min(jokers, MAX_SET - same) >= MIN_MELD:
        return True
    # Runs: every span of ranks holding the card, its gaps filled by jokers (R65: a joker at either end or inside).
    base = card - rank
    for low in range(rank + 1):
        held = 0
        for high in range(low, N_RANKS):
            held += int(base + high == card or naturals >> np.uint64(base + high) & _ONE != 0)
            length = high - low + 1
            if high >= rank and length >= MIN_MELD and held >= min_naturals and length - held <= jokers:
                return True
    return False


@njit(cache=True)
def _melds_with_jokers(hand, card, min_naturals):
    """Whether ``card`` (a natural, a joker, or NO_CARD: never) lies in some meld of the mask ``hand`` plus ``card``
    (R65). A joker does whenever some natural held lies in a meld with the jokers: that meld either holds a joker
    already or takes one more (a run grows at an end, a 3-set becomes a 4-set, a joker replaces a 4-set's natural)."""
    if card < 0:
        return False
    naturals = hand & _NATURALS
    jokers = popcount(hand >> _JOKER_SHIFT) + int(card >= N_CARDS)
    if card < N_CARDS:
        return _natural_melds(naturals, jokers, card, min_naturals)
    for k in range(popcount(naturals)):
        if _natural_melds(naturals, jokers, nth_bit(naturals, k), min_naturals):
            return True
    return False


@njit(cache=True, inline="always")
def _melds(hand, card, wild, min_naturals):
    """Whether taking ``card`` would meld it: the standard test, or with jokers in the deck the jokers' (R65)."""
    if wild:
        return _melds_with_jokers(hand, card, min_naturals)
    return _forms_meld_compiled(hand, card)


@njit(cache=True, inline="always")
def _has(bits, i, action):
    return (bits[i, action // 64] >> np.uint64(action % 64)) & np.uint64(1) != 0


@njit(cache=True, inline="always")
def _knock_or_discard(bits, i, card):
    """Knock with ``card`` when that is legal, else discard it (a joker by the joker actions, R72)."""
    knock, discard = (KNOCK_JOKER, DISCARD_JOKER) if card >= N_CARDS else (KNOCK_BASE + card, DISCARD_BASE + card)
    return knock if _has(bits, i, knock) else discard


@njit(cache=True, inline="always")
def _one_joker(cards_):
    """``cards_`` with its jokers as one (the lowest id): both are the same discard (R71, R72)."""
    return cards_ & _NATURALS | (_ONE << _JOKER_SHIFT if cards_ >> _JOKER_SHIFT else np.uint64(0))


@njit(cache=True)
def _choose(bits, phase, hand, top, best_cards, wild, min_naturals, chosen, ties):
    """``SimpleAgent.act_batch`` for every row but those whose least-deadwood cards tie: those are listed in
    ``ties`` (their count returned) for ``_break_ties``. ``wild``: the deck holds jokers, whose melds need
    ``min_naturals`` natural cards (R65)."""
    n_ties = 0
    for i in range(bits.shape[0]):
        p = phase[i]
        if p == engine.DISCARD:
            chosen[i] = BIG_GIN
            if not _has(bits, i, BIG_GIN):
                # The least-deadwood cards that may leave the hand (the view's best_cards, R16 applied).
                cards_ = _one_joker(best_cards[i])
                if popcount(cards_) > 1:
                    ties[n_ties] = i
                    n_ties += 1
                else:
                    chosen[i] = _knock_or_discard(bits, i, nth_bit(cards_, 0))
        elif _has(bits, i, TAKE_DISCARD) and (p == engine.WALL or _melds(hand[i], top[i], wild, min_naturals)):
            chosen[i] = TAKE_DISCARD
        else:
            chosen[i] = DRAW_STOCK if p == engine.DRAW else PASS
    return n_ties


@njit(cache=True)
def _break_ties(bits, best_cards, ties, u, chosen):
    """Uniform among tied least-deadwood cards: the card number floor(u * count) of each."""
    for t in range(ties.size):
        i = ties[t]
        cards_ = _one_joker(best_cards[i])
        chosen[i] = _knock_or_discard(bits, i, nth_bit(cards_, int(u[t] * popcount(cards_))))


class SimpleAgent:
    """EAAI SimpleGinRummyPlayer: greedy on deadwood, knocks at the first chance. Reads only the view."""

    def act(self, view: PlayerView, rng: np.random.Generator) -> int:
        mask = view.legal_mask
        phase = view.phase
        if phase == engine.OFFER:
            return TAKE_DISCARD if self._melds(view) else PASS
        if phase == engine.DRAW:
            take = mask[TAKE_DISCARD] and self._melds(view)
            return TAKE_DISCARD if take else DRAW_STOCK
        if phase == engine.WALL:
            return TAKE_DISCARD if mask[TAKE_DISCARD] else PASS
        if phase != engine.DISCARD:
            raise ValueError("no legal action: the hand is over")
        if mask[BIG_GIN]:
            return BIG_GIN
        return self._discard_or_knock(view, mask, rng)

    @staticmethod
    def _melds(view: PlayerView) -> bool:
        """Whether the face-up card would be part of some meld of the hand plus it (R4, R5; R65 with jokers)."""
        if not view.rules.jokers:
            return forms_meld(view.hand, view.top_discard)
        return _melds_with_jokers(np.uint64(view.hand), view.top_discard, view.rules.joker_min_naturals)

    @staticmethod
    def _discard_or_knock(view: PlayerView, mask: np.ndarray, rng: np.random.Generator) -> int:
        """The least-deadwood card among those that may leave the hand (the mask already excludes the card just
        taken, R16, R71), as a knock when that is legal, else as a discard; the jokers held are one card, the one
        the joker actions move (R72)."""
        best, ties = solver.NOT_HELD, []
        for c, dw in solver.discard_deadwoods(view.hand, view.rules).items():
            if c != actions.action_card(actions.discard(c), view.hand):
                continue
            if not (mask[actions.discard(c)] or mask[actions.knock(c)]):
                continue
            if dw < best:
                best, ties = dw, [c]
            elif dw == best:
                ties.append(c)
        c = ties[int(rng.integers(len(ties)))] if len(ties) > 1 else ties[0]
        return actions.knock(c) if mask[actions.knock(c)] else actions.discard(c)

    def act_batch(self, view: BatchView, rng: np.random.Generator) -> np.ndarray:
        """The same policy for every game of a batched view at once (the vector env's opponent), in one compiled
        pass; ties among the least-deadwood cards draw ``rng.random(ties)`` once, in row order."""
        bits = view.legal_bits
        chosen = np.empty(bits.shape[0], dtype=np.int64)
        ties = np.empty(bits.shape[0], dtype=np.int64)
        best_cards = view.best_cards
        rules = view.rules
        n_ties = _choose(bits, view.phase, view.hand, view.top_discard, best_cards, rules.jokers > 0,
                         rules.joker_min_naturals, chosen, ties)
        if n_ties:
            _break_ties(bits, best_cards, ties[:n_ties], rng.random(n_ties), chosen)
        return chosen

    def __repr__(self) -> str:
        return "SimpleAgent()"
