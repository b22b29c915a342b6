"""One hand of Gin Rummy as a pure state machine (docs/rules.md R10-R39, R45-R47, R60-R61).

This module owns the deal and how an action changes the state; which actions are legal is ``legal``'s, the state and
outcome types are ``state``'s, a knock's score is ``scoring``'s, and the phase each action leads to is
``hand_rules.phases``'. States are frozen: :func:`step` returns a new state and never touches the one it was given, so
an illegal action leaves the caller's state exactly as it was (R18).

Players are 0 ("P1") and 1 ("P2"). Hands are int bitmasks (``cards.to_mask``). Exact deadwood comes from
``solver``'s compiled one-hand kernels; this module only decides what those numbers allow.
"""

from __future__ import annotations

import dataclasses
import operator

import numpy as np

from gin_env.game import actions, cards
from gin_env.game.actions import BIG_GIN, DRAW_STOCK, PASS, TAKE_DISCARD
from gin_env.game.cards import DEALT, NO_CARD
from gin_env.game.engine.legal import illegal, wall_take_can_end
from gin_env.game.engine.scoring import score_knock
from gin_env.game.engine.state import (
    CAPPED_OUTCOME,
    DEAD_OUTCOME,
    DISCARD,
    DRAW,
    OFFER,
    OVER,
    WALL,
    HandOutcome,
    HandState,
    _new_state,
    _pair,
    stock_size,
    upcard_or_none,
)
from gin_env.game.hand_rules import phases, turn
from gin_env.game.hand_rules.knock import big_gin_legal
from gin_env.game.hand_rules.taken_card import blocks, kept_card, known_after_discard, recorded
from gin_env.game.rules import Rules
from gin_env.game.solver.kernels import deadwood_of_mask

# ---------------------------------------------------------------------------------------------------------------
# Deal
# ---------------------------------------------------------------------------------------------------------------

def new_hand(rules: Rules, rng: np.random.Generator | None = None, *, dealer: int = 0,
             deck=None) -> HandState:
    """Deal one hand (R10, or RLCard's 11-card deal when ``deal_mode == "eleven"``).

    ``deck`` is the deal order, index 0 on top: every card id of the deck, or card names, or one string of names
    (``"AS 2S ..."``); without it the deck is shuffled with ``rng``."""
    dealer = player_index(dealer, "dealer")
    if deck is None:
        if rng is None:
            raise ValueError("new_hand needs a numpy Generator (rng) or an explicit deck")
        deck = tuple(rng.permutation(rules.deck.n_cards).tolist())
    else:
        deck = deck_ids(deck, rules.deck)
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


def deck_ids(deck, of: cards.Deck = cards.STANDARD_DECK) -> tuple[int, ...]:
    """A deal order as card ids, one of each card of the deck ``of`` (the standard deck unless given): from ids (any
    integer type), card names (``JK`` each joker in turn, R62), or one string of names. Anything else, or a deck that
    is not a permutation of the cards, raises an error naming the problem."""
    n = of.n_cards
    if isinstance(deck, str):
        return deck_ids(of.parse(deck), of)
    if isinstance(deck, np.ndarray) and deck.ndim != 1:
        raise ValueError(f"deck must be one sequence of {n} cards, got an array of shape {deck.shape}")
    try:
        items = list(deck)
    except TypeError:
        raise TypeError(f"deck must be {n} card ids or card names (or one string of names), got "
                        f"{deck!r}") from None
    if any(isinstance(c, str) for c in items) and all(isinstance(c, str) for c in items):
        return deck_ids(of.parse(items), of)
    ids = []
    for c in items:
        if isinstance(c, str):
            ids.append(cards.card(c))
            continue
        not_a_card = TypeError(f"deck holds {c!r}: cards are ids 0..{n - 1} or names such as 'TD'")
        if isinstance(c, (bool, np.bool_)):
            raise not_a_card
        try:
            ids.append(operator.index(c))
        except TypeError:
            raise not_a_card from None
    if sorted(ids) != list(range(n)):
        raise ValueError(f"deck must be a permutation of the {n} cards (ids 0..{n - 1}), each exactly once")
    return tuple(ids)


# ---------------------------------------------------------------------------------------------------------------
# Step
# ---------------------------------------------------------------------------------------------------------------

def step(state: HandState, action) -> HandState:
    """Apply one action and return the new state (pure). Illegal actions raise :class:`IllegalActionError`.

    A non-integer action (a float, a string, an array) raises ``TypeError``: it is a caller's mistake, not a move.
    Legality is checked per action, not by building the whole mask, because this is the RL hot path; each check
    asks only the facts its action needs, and ``tests/test_engine.py`` holds them to ``legal_mask`` on every action
    of many states."""
    try:
        action = operator.index(action)
    except TypeError:
        raise TypeError(f"an action must be an integer action id, got {action!r} ({type(action).__name__})") from None
    phase = state.phase
    if phase == OFFER:
        if action == TAKE_DISCARD:
            return _take_pile(state)
        if action == PASS:
            return _pass(state)
    elif phase == DRAW:
        if action == DRAW_STOCK and turn.can_draw_stock(state.rules.turn_values, stock_size(state)):
            return _draw_stock(state)
        if action == TAKE_DISCARD and state.pile and not state.both_passed:
            return _take_pile(state)
    elif phase == DISCARD:
        return _step_discard_phase(state, action)
    elif phase == WALL:
        if action == PASS:
            return _pass(state)
        if action == TAKE_DISCARD and wall_take_can_end(state):
            return _take_pile(state)
    raise illegal(state, action)


def _pass(state: HandState) -> HandState:
    """PASS: decline the upcard in the offer (R13, R14), or let the hand die at the wall (R38)."""
    s = state
    p = s.current
    phase, current, both_passed = phases.after_pass(s.phase, p, s.dealer)
    if phase == OVER:
        return dataclasses.replace(state, phase=phase, current=current, both_passed=both_passed, outcome=DEAD_OUTCOME)
    declined = _pair(s.declined, p, recorded(s.declined[p], 1 << s.pile[-1], s.rules.deck.joker_mask))
    return _new_state(s.rules, s.deck, s.hands, s.stock_top, s.pile, s.dealer, current, phase, s.taken, both_passed,
                      s.must_knock, s.initial_upcard, s.knock_limit, s.turns, s.known, s.discarded, declined,
                      s.outcome, s.upcard_draws, s.returns)


def _take_pile(state: HandState) -> HandState:
    """Take the top of the discard pile (R13, R15, R38); R16 then forbids discarding it this turn. A draw-phase take
    that reaches R60's cap ends the hand instead, the card left on the pile."""
    s = state
    p = s.current
    phase, must_knock, upcard_draws = phases.after_take(s.rules.turn_values, s.phase, True, s.upcard_draws)
    if phase == OVER:
        return dataclasses.replace(state, phase=phase, upcard_draws=upcard_draws, outcome=DEAD_OUTCOME)
    top = s.pile[-1]
    return _new_state(s.rules, s.deck, _pair(s.hands, p, s.hands[p] | (1 << top)), s.stock_top, s.pile[:-1], s.dealer,
                      p, phase, top, s.both_passed, must_knock, s.initial_upcard, s.knock_limit, s.turns,
                      _pair(s.known, p, s.known[p] | (1 << top)), s.discarded, s.declined, s.outcome, upcard_draws,
                      s.returns)


def _draw_stock(state: HandState) -> HandState:
    """R15: draw the top stock card; the top discard left on the pile counts as declined."""
    s = state
    p = s.current
    phase, must_knock, upcard_draws = phases.after_take(s.rules.turn_values, s.phase, False, s.upcard_draws)
    declined = s.declined
    if s.pile:
        declined = _pair(declined, p, recorded(declined[p], 1 << s.pile[-1], s.rules.deck.joker_mask))
    return _new_state(s.rules, s.deck, _pair(s.hands, p, s.hands[p] | (1 << s.deck[s.stock_top])), s.stock_top + 1,
                      s.pile, s.dealer, p, phase, NO_CARD, False, must_knock, s.initial_upcard, s.knock_limit, s.turns,
                      s.known, s.discarded, declined, s.outcome, upcard_draws, s.returns)


def _step_discard_phase(state: HandState, action: int) -> HandState:
    """R16: with 11 cards, discard, knock (R20) or declare big gin (R24)."""
    hand = state.hands[state.current]
    if action == BIG_GIN:
        if big_gin_legal(state.rules.knock_values, deadwood_of_mask(hand, *state.rules.joker_settings) == 0):
            return _end_by_knock(state, hand, NO_CARD)
        raise illegal(state, action)
    if (actions.is_discard(action) or actions.is_knock(action)) and action < state.rules.n_actions and (
            action < actions.N_ACTIONS or hand >> cards.N_CARDS):
        c = actions.action_card(action, hand)
        bit = 1 << c
        if hand & bit and not blocks(kept_card(state.rules.discard_taken_card, state.taken), c):
            if actions.is_discard(action):
                if not state.must_knock:
                    return _discard(state, c)
            elif deadwood_of_mask(hand ^ bit, *state.rules.joker_settings) <= state.knock_limit:
                return _end_by_knock(state, hand ^ bit, c)
    raise illegal(state, action)


def _discard(state: HandState, c: int) -> HandState:
    """Put ``c`` face up on the pile and pass the turn; the hand may die here (R19, R37, R61) or reach the wall
    (R38)."""
    s = state
    p = s.current
    bit = 1 << c
    jokers = s.rules.deck.joker_mask
    turns = s.turns + 1
    returns = turn.returns_after(s.returns, c, s.taken)
    phase, current, capped = phases.after_discard(s.rules.turn_values, p, turns, returns, stock_size(s))
    outcome = (CAPPED_OUTCOME if capped else DEAD_OUTCOME) if phase == OVER else None
    return _new_state(s.rules, s.deck, _pair(s.hands, p, s.hands[p] ^ bit), s.stock_top, s.pile + (c,), s.dealer,
                      current, phase, NO_CARD, s.both_passed, s.must_knock, s.initial_upcard, s.knock_limit, turns,
                      _pair(s.known, p, known_after_discard(s.known[p], bit, jokers)),
                      _pair(s.discarded, p, recorded(s.discarded[p], bit, jokers)), s.declined, outcome,
                      s.upcard_draws, returns)


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
        known = _pair(known, p, known_after_discard(known[p], 1 << knock_card, state.rules.deck.joker_mask))
    return dataclasses.replace(
        state, hands=_pair(state.hands, p, knocker_hand), pile=pile, phase=OVER, taken=NO_CARD, must_knock=False,
        known=known, outcome=outcome)
