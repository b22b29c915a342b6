"""The phases of a hand (docs/rules.md R13-R16, R19, R20, R24, R36-R38, R60, R61): which actions each phase allows,
and which phase, player to act and flags follow a pass, a draw or take, and a discard.

Both engines call these functions: the scalar engine as written (``legal_actions`` and the transitions, with plain
ints and bools) and through one compiled helper (``legal_words``, in the discard phase), the batched kernels inlined
compiled (``register_jitable``). Each engine decides the facts a phase's legality needs in its own way (the scalar
engine when asked, the kernels once when a player enters the phase) and stores the result in its own way; what the
facts allow and where a hand goes next is decided here only. Conditions join with ``&`` and ``|``, not ``and`` and
``or``: numba's inliner mishandles a short circuit in an inlined function.
"""

from __future__ import annotations

import numpy as np
from numba.extending import register_jitable

from gin_env.game.actions import (
    BIG_GIN,
    DISCARD_BASE,
    DISCARD_JOKER,
    DRAW_STOCK,
    KNOCK_BASE,
    KNOCK_JOKER,
    MAX_ACTIONS,
    PASS,
    TAKE_DISCARD,
)
from gin_env.game.cards import N_CARDS
from gin_env.game.hand_rules import turn
from gin_env.game.hand_rules.taken_card import blocks

OFFER, DRAW, DISCARD, WALL, OVER = range(5)
PHASE_NAMES = ("offer", "draw", "discard", "wall", "over")

#: The legal-action bit string of ``legal_words`` is this many uint64 words, least significant first: discards start
#: in word 0, knocks straddle both, and the joker actions are in word 1.
WORD_BITS = 64
ACTION_WORDS = (MAX_ACTIONS + WORD_BITS - 1) // WORD_BITS
assert ACTION_WORDS == 2 and KNOCK_BASE < WORD_BITS < DISCARD_JOKER
#: The natural cards' bits of a uint64 card mask; the jokers' follow them (R62).
_NATURALS = np.uint64((1 << N_CARDS) - 1)
_JOKER_SHIFT = np.uint64(N_CARDS)

_DRAW_BIT, _TAKE_BIT, _PASS_BIT, _BIG_GIN_BIT = 1 << DRAW_STOCK, 1 << TAKE_DISCARD, 1 << PASS, 1 << BIG_GIN


@register_jitable(inline="always")
def legal_actions(phase, stock_ok, pile_ok, wall_take, big_gin, must_knock):
    """What ``phase`` allows, given the facts that bear on it: ``stock_ok``, the stock may be drawn (R15, R36);
    ``pile_ok``, the top discard may be taken in the draw (R15, not after R13c); ``wall_take``, the top discard may
    be taken at the wall to knock at once (R38); ``big_gin``, big gin may be declared (R24); ``must_knock``, the
    player took the discard at the wall (R38). A fact of another phase is ignored.

    Returns (the bits by action id of the legal actions that name no card, whether each card that may leave the
    hand (R16) may be discarded, whether each knock card (R20) may be knocked with)."""
    if phase == OFFER:
        return _TAKE_BIT | _PASS_BIT, False, False
    if phase == DRAW:
        return _DRAW_BIT * stock_ok | _TAKE_BIT * pile_ok, False, False
    if phase == WALL:
        return _PASS_BIT | _TAKE_BIT * wall_take, False, False
    if phase == DISCARD:
        return _BIG_GIN_BIT * big_gin, must_knock == 0, True
    return 0, False, False


@register_jitable(inline="always")
def legal_words(phase, stock_ok, pile_ok, wall_take, big_gin, must_knock, hand, kept, knock_cards):
    """``legal_actions`` as the legal-action bit string, two uint64 words (bit ``a % 64`` of word ``a // 64`` for
    action ``a``): ``hand`` (uint64 card mask) holds the cards of the player to act, ``kept`` the card R16 keeps in
    it (-1 for none; a joker kept keeps both, R71), ``knock_cards`` (uint64 card mask) the cards it may knock with
    (R20). A joker held is discarded or knocked with by the joker actions (R72). For compiled callers."""
    no_card, may_discard, may_knock = legal_actions(phase, stock_ok, pile_ok, wall_take, big_gin, must_knock)
    low = np.uint64(no_card)
    high = np.uint64(0)
    jokers_kept = blocks(kept, N_CARDS)
    if may_discard:
        movable = hand if kept < 0 else hand & ~(np.uint64(1) << np.uint64(kept))
        low |= (movable & _NATURALS) << np.uint64(DISCARD_BASE)
        high |= np.uint64(((hand >> _JOKER_SHIFT) != 0) & (not jokers_kept)) << np.uint64(DISCARD_JOKER - WORD_BITS)
    if may_knock:
        naturals = knock_cards & _NATURALS
        low |= naturals << np.uint64(KNOCK_BASE)
        high |= naturals >> np.uint64(WORD_BITS - KNOCK_BASE)
        high |= np.uint64((knock_cards >> _JOKER_SHIFT) != 0) << np.uint64(KNOCK_JOKER - WORD_BITS)
    return low, high


@register_jitable(inline="always")
def after_pass(phase, player, dealer):
    """(phase, player to act, both passed) after ``player`` passes. In the offer (R13, R14) the upcard goes to the
    other player, and once the dealer has passed too the non-dealer draws and may not take it (R13c); at the wall
    (R38) the hand ends dead (OVER)."""
    if phase == OFFER:
        return DRAW if player == dealer else OFFER, 1 - player, player == dealer
    return OVER, player, False


@register_jitable(inline="always")
def after_take(values, phase, from_pile, upcard_draws):
    """(phase, must knock, upcard draws) after the player to act takes the top discard (``from_pile``) or the top
    stock card in ``phase``, with ``upcard_draws`` draw-phase takes from the pile before it and the ``turn_values``
    ``values``. A draw-phase take from the pile counts toward R60's cap, and the one that reaches it ends the hand
    dead (OVER) with the card left on the pile; otherwise the player holds 11 cards and must discard (DISCARD), or
    knock after a take at the wall (R38)."""
    if (phase == DRAW) & from_pile:
        draws = upcard_draws + 1
        if turn.upcard_take_ends(values, draws):
            return OVER, False, draws
        return DISCARD, False, draws
    return DISCARD, phase == WALL, upcard_draws


@register_jitable(inline="always")
def after_discard(values, player, turns, returns, stock_left):
    """(phase, player to act, capped) after ``player``'s discard, the hand's ``turns``-th and its ``returns``-th return
    in a row, which leaves ``stock_left`` cards in the stock, under the ``turn_values`` ``values``. The turn cap (R19,
    ``capped``) and a second return in a row (R61) end the hand dead (OVER) before the wall could offer anything; a
    stock above the wall gives the other player a turn (DRAW); at the wall the hand is dead (R37), or under
    ``wall_upcard_knock`` the other player may first take the discard to knock (WALL, R38)."""
    if turn.turn_cap_reached(values, turns):
        return OVER, 1 - player, True
    if turn.returns_end(values, returns):
        return OVER, 1 - player, False
    if turn.can_draw_stock(values, stock_left):
        return DRAW, 1 - player, False
    return WALL if values[turn.WALL_UPCARD_KNOCK] else OVER, 1 - player, False
