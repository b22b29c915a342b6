"""One hand of Gin Rummy as a pure state machine (docs/rules.md R10-R39, R45-R47, R60-R61).

This module owns the deal, which actions are legal in each phase and how an action changes the state; the state and
outcome types are ``state``'s, a knock's score is ``scoring``'s. States are frozen: :func:`step` returns a new state
and never touches the one it was given, so an illegal action leaves the caller's state exactly as it was (R18).

Players are 0 ("P1") and 1 ("P2"). Hands are int bitmasks (``cards.to_mask``). Exact deadwood comes from
``solver``'s compiled one-hand kernels; this module only decides what those numbers allow.
"""

from __future__ import annotations

import dataclasses
import operator

import numpy as np

from gin_env.game import actions, cards
from gin_env.game.actions import BIG_GIN, DISCARD_BASE, DRAW_STOCK, KNOCK_BASE, N_ACTIONS, PASS, TAKE_DISCARD
from gin_env.game.cards import NO_CARD
from gin_env.game.engine.scoring import score_knock
from gin_env.game.engine.state import (
    CAPPED_OUTCOME,
    DEAD_OUTCOME,
    DEALT,
    DISCARD,
    DRAW,
    OFFER,
    OVER,
    PHASE_NAMES,
    WALL,
    HandOutcome,
    HandState,
    IllegalActionError,
    _new_state,
    _pair,
    upcard_or_none,
)
from gin_env.game.hand_rules import turn
from gin_env.game.hand_rules.knock import big_gin_legal
from gin_env.game.hand_rules.taken_card import kept_card
from gin_env.game.rules import Rules
from gin_env.game.solver.kernels import deadwood_of_mask, discard_phase_of_mask

# ---------------------------------------------------------------------------------------------------------------
# Deal
# ---------------------------------------------------------------------------------------------------------------

def new_hand(rules: Rules, rng: np.random.Generator | None = None, *, dealer: int = 0,
             deck=None) -> HandState:
    """Deal one hand (R10, or RLCard's 11-card deal when ``deal_mode == "eleven"``).

    ``deck`` is the deal order, index 0 on top: 52 card ids or card names, or one string of names (``"AS 2S ..."``);
    without it the deck is shuffled with ``rng``."""
    dealer = player_index(dealer, "dealer")
    if deck is None:
        if rng is None:
            raise ValueError("new_hand needs a numpy Generator (rng) or an explicit deck")
        deck = tuple(rng.permutation(cards.N_CARDS).tolist())
    else:
        deck = deck_ids(deck)
    non_dealer = 1 - dealer
    non_dealer_hand = cards.to_mask(deck[0:DEALT:2])
    dealer_hand = cards.to_mask(deck[1:DEALT:2])
    upcard = deck[DEALT]
    if rules.turn_values[turn.ELEVEN_DEAL]:
        # RLCard: the 21st card goes to the non-dealer, who opens by discarding; no upcard, no offer.
        non_dealer_hand |= 1 << upcard
        pile: tuple[int, ...] = ()
        initial_upcard, phase, knock_limit = NO_CARD, DISCARD, rules.hand_knock_limit(None)
    else:
        pile = (upcard,)
        initial_upcard, phase, knock_limit = upcard, OFFER, rules.hand_knock_limit(upcard)
    hands = (non_dealer_hand, dealer_hand) if non_dealer == 0 else (dealer_hand, non_dealer_hand)
    return HandState(
        rules=rules, deck=deck, hands=hands, stock_top=DEALT + 1, pile=pile, dealer=dealer, current=non_dealer,
        phase=phase, taken=NO_CARD, both_passed=False, must_knock=False, initial_upcard=initial_upcard,
        knock_limit=knock_limit, turns=0, known=(0, 0), discarded=(0, 0), declined=(0, 0), outcome=None)


def player_index(value, name: str) -> int:
    """``value`` as a player index 0 or 1: any integer type is accepted (numpy ones too), anything else (floats,
    bools, strings) raises an error that names the argument ``name``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be the integer 0 or 1, got {value!r}")
    try:
        index = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be the integer 0 or 1, got {value!r} ({type(value).__name__})") from None
    if index not in (0, 1):
        raise ValueError(f"{name} must be 0 or 1, got {index}")
    return index


def deck_ids(deck) -> tuple[int, ...]:
    """A deal order as 52 card ids: from ids (any integer type), card names, or one string of names. Anything else,
    or a deck that is not a permutation of the 52 cards, raises an error naming the problem."""
    if isinstance(deck, str):
        return deck_ids(cards.parse(deck))
    if isinstance(deck, np.ndarray) and deck.ndim != 1:
        raise ValueError(f"deck must be one sequence of 52 cards, got an array of shape {deck.shape}")
    try:
        items = list(deck)
    except TypeError:
        raise TypeError(f"deck must be 52 card ids or card names (or one string of names), got {deck!r}") from None
    ids = []
    for c in items:
        if isinstance(c, str):
            ids.append(cards.card(c))
        elif isinstance(c, (bool, np.bool_)):
            raise TypeError(f"deck holds {c!r}: cards are ids 0..51 or names such as 'TD'")
        else:
            try:
                ids.append(operator.index(c))
            except TypeError:
                raise TypeError(f"deck holds {c!r}: cards are ids 0..51 or names such as 'TD'") from None
    if sorted(ids) != list(range(cards.N_CARDS)):
        raise ValueError("deck must be a permutation of the 52 cards (ids 0..51), each exactly once")
    return tuple(ids)


def stock_size(state: HandState) -> int:
    """Cards left in the stock."""
    return cards.N_CARDS - state.stock_top


# ---------------------------------------------------------------------------------------------------------------
# Legal actions
# ---------------------------------------------------------------------------------------------------------------

def _wall_take_can_end(state: HandState) -> bool:
    """R38: taking the top discard at the wall is legal only if it allows a knock or big gin at once."""
    top = state.pile[-1]
    _, _, knock_cards, all_melded = discard_phase_of_mask(
        state.hands[state.current] | (1 << top), kept_card(state.rules.discard_taken_card, top), state.knock_limit)
    return turn.wall_take_allowed(knock_cards, big_gin_legal(state.rules.knock_values, all_melded))


def legal_mask(state: HandState) -> np.ndarray:
    """``(N_ACTIONS,)`` bool mask of the legal actions; all False only when the hand is over."""
    phase = state.phase
    if phase == OFFER:
        return _OFFER_MASK.copy()
    if phase == DRAW:
        # A turn never starts at the wall (R37), so DRAW_STOCK is always legal here.
        return (_DRAW_ONLY_MASK if state.both_passed or not state.pile else _DRAW_OR_TAKE_MASK).copy()
    if phase == DISCARD:
        return _discard_phase_mask(state)
    mask = np.zeros(N_ACTIONS, dtype=bool)
    if phase == WALL:
        mask[PASS] = True
        mask[TAKE_DISCARD] = _wall_take_can_end(state)
    return mask


def _discard_phase_mask(state: HandState) -> np.ndarray:
    """R16, R20, R24 as the bits of one int (discards at DISCARD_BASE + c, knocks at KNOCK_BASE + c), unpacked in
    one compiled call; the discard phase's answers come from one compiled solve of the 11 cards."""
    hand = state.hands[state.current]
    blocked = kept_card(state.rules.discard_taken_card, state.taken)
    _, _, knock_cards, all_melded = discard_phase_of_mask(hand, blocked, state.knock_limit)
    movable = hand & ~(1 << blocked) if blocked != NO_CARD else hand
    # The solve already leaves the blocked card out of the knock cards.
    bits = knock_cards << KNOCK_BASE if state.must_knock else movable << DISCARD_BASE | knock_cards << KNOCK_BASE
    if big_gin_legal(state.rules.knock_values, all_melded):
        bits |= 1 << BIG_GIN
    return actions.mask_of_bits(bits)


def _constant_mask(*legal: int) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=bool)
    mask[list(legal)] = True
    return mask


_OFFER_MASK = _constant_mask(TAKE_DISCARD, PASS)
_DRAW_ONLY_MASK = _constant_mask(DRAW_STOCK)
_DRAW_OR_TAKE_MASK = _constant_mask(DRAW_STOCK, TAKE_DISCARD)


def legal_actions(state: HandState) -> list[int]:
    """The legal action ids, ascending."""
    return np.flatnonzero(legal_mask(state)).tolist()


def _action_label(action) -> str:
    try:
        return actions.name(action)
    except (ValueError, TypeError):
        return f"{action!r} (not an action id)"


def _illegal(state: HandState, action) -> IllegalActionError:
    legal = ", ".join(actions.name(a) for a in legal_actions(state)) or "none, the hand is over"
    return IllegalActionError(
        f"illegal action {_action_label(action)} in phase {PHASE_NAMES[state.phase]!r} "
        f"(player {state.current} to act); legal actions: {legal}")


# ---------------------------------------------------------------------------------------------------------------
# Step
# ---------------------------------------------------------------------------------------------------------------

def step(state: HandState, action) -> HandState:
    """Apply one action and return the new state (pure). Illegal actions raise :class:`IllegalActionError`.

    A non-integer action (a float, a string, an array) raises ``TypeError``: it is a caller's mistake, not a move.
    Legality is checked per action, not by building the whole mask, because this is the RL hot path."""
    try:
        action = operator.index(action)
    except TypeError:
        raise TypeError(f"an action must be an integer action id, got {action!r} ({type(action).__name__})") from None
    phase = state.phase
    if phase == OFFER:
        return _step_offer(state, action)
    if phase == DRAW:
        return _step_draw(state, action)
    if phase == DISCARD:
        return _step_discard_phase(state, action)
    if phase == WALL:
        return _step_wall(state, action)
    raise _illegal(state, action)


def _take_pile(state: HandState, *, must_knock: bool, upcard_draws: int) -> HandState:
    """Take the top of the discard pile (R13, R15, R38); R16 then forbids discarding it this turn."""
    s = state
    p = s.current
    top = s.pile[-1]
    return _new_state(s.rules, s.deck, _pair(s.hands, p, s.hands[p] | (1 << top)), s.stock_top, s.pile[:-1], s.dealer,
                      p, DISCARD, top, s.both_passed, must_knock, s.initial_upcard, s.knock_limit, s.turns,
                      _pair(s.known, p, s.known[p] | (1 << top)), s.discarded, s.declined, s.outcome, upcard_draws,
                      s.returns)


def _step_offer(state: HandState, action: int) -> HandState:
    """R13/R14: the non-dealer, then the dealer, may take the upcard; after two passes the non-dealer draws."""
    if action == TAKE_DISCARD:
        return _take_pile(state, must_knock=False, upcard_draws=state.upcard_draws)
    if action != PASS:
        raise _illegal(state, action)
    s = state
    p = s.current
    declined = _pair(s.declined, p, s.declined[p] | (1 << s.pile[-1]))
    both_passed = p == s.dealer
    return _new_state(s.rules, s.deck, s.hands, s.stock_top, s.pile, s.dealer, 1 - p, DRAW if both_passed else OFFER,
                      s.taken, both_passed, s.must_knock, s.initial_upcard, s.knock_limit, s.turns, s.known,
                      s.discarded, declined, s.outcome, s.upcard_draws, s.returns)


def _step_draw(state: HandState, action: int) -> HandState:
    """R15: draw the top stock card (not from the wall, R36) or take the top discard (not after R13c)."""
    if action == DRAW_STOCK and turn.can_draw_stock(state.rules.turn_values, stock_size(state)):
        p = state.current
        drawn = state.deck[state.stock_top]
        declined = state.declined
        if state.pile:
            declined = _pair(declined, p, declined[p] | (1 << state.pile[-1]))
        s = state
        return _new_state(s.rules, s.deck, _pair(s.hands, p, s.hands[p] | (1 << drawn)), s.stock_top + 1, s.pile,
                          s.dealer, p, DISCARD, NO_CARD, False, s.must_knock, s.initial_upcard, s.knock_limit,
                          s.turns, s.known, s.discarded, declined, s.outcome, s.upcard_draws, s.returns)
    if action == TAKE_DISCARD and state.pile and not state.both_passed:
        draws = state.upcard_draws + 1
        if turn.upcard_take_ends(state.rules.turn_values, draws):
            # R60: the take that would reach the cap ends the hand instead; the card stays on the pile.
            return dataclasses.replace(state, phase=OVER, upcard_draws=draws, outcome=DEAD_OUTCOME)
        return _take_pile(state, must_knock=False, upcard_draws=draws)
    raise _illegal(state, action)


def _step_discard_phase(state: HandState, action: int) -> HandState:
    """R16: with 11 cards, discard, knock (R20) or declare big gin (R24)."""
    hand = state.hands[state.current]
    if action == BIG_GIN:
        if big_gin_legal(state.rules.knock_values, deadwood_of_mask(hand) == 0):
            return _end_by_knock(state, hand, NO_CARD)
        raise _illegal(state, action)
    if actions.is_discard(action) or actions.is_knock(action):
        c = actions.action_card(action)
        bit = 1 << c
        if hand & bit and c != kept_card(state.rules.discard_taken_card, state.taken):
            if actions.is_discard(action):
                if not state.must_knock:
                    return _discard(state, c)
            elif deadwood_of_mask(hand ^ bit) <= state.knock_limit:
                return _end_by_knock(state, hand ^ bit, c)
    raise _illegal(state, action)


def _discard(state: HandState, c: int) -> HandState:
    """Put ``c`` face up on the pile and pass the turn; the hand may die here (R19, R37, R61) or reach the wall
    (R38)."""
    p = state.current
    bit = 1 << c
    turns = state.turns + 1
    returns = turn.returns_after(state.returns, c, state.taken)
    after = turn.after_discard(state.rules.turn_values, turns, returns, stock_size(state))
    phase = _PHASE_AFTER_DISCARD[after]
    s = state
    return _new_state(s.rules, s.deck, _pair(s.hands, p, s.hands[p] ^ bit), s.stock_top, s.pile + (c,), s.dealer,
                      1 - p, phase, NO_CARD, s.both_passed, s.must_knock, s.initial_upcard, s.knock_limit, turns,
                      _pair(s.known, p, s.known[p] & ~bit), _pair(s.discarded, p, s.discarded[p] | bit), s.declined,
                      _OUTCOME_AFTER_DISCARD[after], s.upcard_draws, returns)


_PHASE_AFTER_DISCARD = {turn.NEXT_TURN: DRAW, turn.WALL_OFFER: WALL, turn.DEAD_HAND: OVER, turn.CAPPED: OVER}
_OUTCOME_AFTER_DISCARD = {turn.NEXT_TURN: None, turn.WALL_OFFER: None, turn.DEAD_HAND: DEAD_OUTCOME,
                          turn.CAPPED: CAPPED_OUTCOME}


def _step_wall(state: HandState, action: int) -> HandState:
    """R38: take the top discard only to knock at once, or pass and let the hand die."""
    if action == PASS:
        return dataclasses.replace(state, phase=OVER, outcome=DEAD_OUTCOME)
    if action == TAKE_DISCARD and _wall_take_can_end(state):
        return _take_pile(state, must_knock=True, upcard_draws=state.upcard_draws)
    raise _illegal(state, action)


def _end_by_knock(state: HandState, knocker_hand: int, knock_card: int) -> HandState:
    """Score a knock with ``knock_card`` (face down on the pile, R21) or, with NO_CARD, a big gin (R24)."""
    p = state.current
    result = score_knock(knocker_hand, state.hands[1 - p], state.rules, upcard=upcard_or_none(state))
    winner = {"knocker": p, "defender": 1 - p, None: None}[result.winner]
    outcome = HandOutcome(
        kind=result.kind, winner=winner, points=result.points, knocker=p, knock_card=knock_card,
        knocker_deadwood=result.knocker_deadwood, defender_deadwood=result.defender_deadwood,
        layoffs=result.layoffs, knocker_melds=result.knocker_melds, layoff_melds=result.layoff_melds)
    pile, known = state.pile, state.known
    if knock_card != NO_CARD:
        pile = pile + (knock_card,)
        known = _pair(known, p, known[p] & ~(1 << knock_card))
    return dataclasses.replace(
        state, hands=_pair(state.hands, p, knocker_hand), pile=pile, phase=OVER, taken=NO_CARD, must_knock=False,
        known=known, outcome=outcome)
