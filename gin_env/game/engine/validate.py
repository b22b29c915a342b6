"""The invariants of a hand state (docs/development.md): each card in exactly one place, hand
sizes per phase, the legal mask against the phase, and the public per-player records against where the cards are.
"""

from __future__ import annotations

from gin_env.game import actions, cards
from gin_env.game.actions import BIG_GIN, DRAW_STOCK, PASS, TAKE_DISCARD
from gin_env.game.cards import DEALT, HAND_SIZE, NO_CARD
from gin_env.game.engine.legal import legal_actions
from gin_env.game.engine.state import (
    DISCARD,
    DRAW,
    OFFER,
    OVER,
    PHASE_NAMES,
    WALL,
    HandState,
    stock_size,
    upcard_or_none,
)
from gin_env.game.hand_rules import turn
from gin_env.game.hand_rules.knock import big_gin_legal
from gin_env.game.hand_rules.taken_card import blocks, kept_card


def _mask_of(ids) -> int:
    """Bitmask of card ids, without ``cards.to_mask``'s per-card checks: duplicates are found by the caller."""
    mask = 0
    for c in ids:
        mask |= 1 << c
    return mask


def validate(state: HandState) -> None:
    """Check every invariant of a state; raise ``AssertionError`` naming the first one broken.

    Owns: each card in exactly one place (R11), hand sizes per phase, the mask against the phase, and the
    public per-player records against where the cards are. Checks are plain ``if``s, not ``assert``, so they also
    run under ``python -O``, and messages are only formatted on failure because this runs after every test step."""
    n_cards = state.rules.deck.n_cards
    if sorted(state.deck) != list(range(n_cards)):
        raise AssertionError(f"deck is not a permutation of 0..{n_cards - 1}")
    if state.phase not in range(len(PHASE_NAMES)):
        raise AssertionError(f"unknown phase {state.phase!r}")
    if state.dealer not in (0, 1) or state.current not in (0, 1):
        raise AssertionError(f"dealer {state.dealer!r} and current {state.current!r} must be 0 or 1")
    if not DEALT + 1 <= state.stock_top <= n_cards - state.rules.wall:
        raise AssertionError(f"stock_top {state.stock_top} out of range: the stock holds {stock_size(state)} cards, "
                             f"wall {state.rules.wall}")
    stock = _mask_of(state.deck[state.stock_top:])
    _check_cards(state, stock)
    _check_hand_sizes(state)
    _check_flags(state)
    _check_public(state, stock)
    _check_mask(state)


def _check_cards(state: HandState, stock: int) -> None:
    """R11: hands, stock and pile partition the deck."""
    pile = _mask_of(state.pile)
    if pile.bit_count() != len(state.pile):
        raise AssertionError(f"discard pile holds a card twice: {[cards.card_str(c) for c in state.pile]}")
    seen = 0
    for place, mask in (("P1's hand", state.hands[0]), ("P2's hand", state.hands[1]), ("stock", stock),
                        ("pile", pile)):
        if seen & mask:
            raise AssertionError(f"{cards.to_str(seen & mask)} also in {place} (R11)")
        seen |= mask
    full = state.rules.deck.full_mask
    if seen != full:
        raise AssertionError(f"cards in no place (R11): {cards.to_str(full & ~seen)}")


def _check_hand_sizes(state: HandState) -> None:
    """10 cards each, 11 for the player to act in the discard phase and for a big gin's winner (R16, R24)."""
    sizes = (state.hands[0].bit_count(), state.hands[1].bit_count())
    expected = [HAND_SIZE, HAND_SIZE]
    if state.phase == DISCARD or (state.outcome is not None and state.outcome.kind == "big_gin"):
        expected[state.current] += 1
    if sizes != tuple(expected):
        raise AssertionError(f"hand sizes {sizes} in phase {PHASE_NAMES[state.phase]!r}, expected {tuple(expected)}")


def _check_flags(state: HandState) -> None:
    """Phase-dependent fields: taken card, R13c, R38, knock limit, upcard, outcome, turn cap."""
    rules = state.rules
    phase = state.phase
    if state.taken != NO_CARD and (phase != DISCARD or not state.hands[state.current] >> state.taken & 1):
        raise AssertionError("taken card set outside the discard phase or not in the current hand (R16)")
    if state.both_passed and (phase != DRAW or state.current == state.dealer or state.stock_top != DEALT + 1):
        raise AssertionError("both_passed (R13c) set after the non-dealer's first draw")
    if state.must_knock and (phase != DISCARD or state.taken == NO_CARD or stock_size(state) != rules.wall):
        raise AssertionError("must_knock (R38) set other than right after taking the discard at the wall")
    if phase == WALL and stock_size(state) != rules.wall:
        raise AssertionError(f"wall phase with {stock_size(state)} stock cards, wall {rules.wall} (R38)")
    if phase == DRAW and not turn.can_draw_stock(rules.turn_values, stock_size(state)):
        raise AssertionError(f"a turn starts with {stock_size(state)} stock cards, wall {rules.wall} (R37)")
    expected_upcard = NO_CARD if rules.deal_mode == "eleven" else state.deck[DEALT]
    if state.initial_upcard != expected_upcard:
        raise AssertionError(f"initial upcard {state.initial_upcard}, expected {expected_upcard} (R10, R12)")
    if state.knock_limit != rules.hand_knock_limit(upcard_or_none(state)):
        raise AssertionError(f"knock limit {state.knock_limit} does not follow the rules and the upcard (R46)")
    if (state.outcome is None) != (phase != OVER):
        raise AssertionError("outcome must be set exactly when the hand is over")
    if turn.turn_cap_reached(rules.turn_values, state.turns - 1):
        raise AssertionError(f"turns {state.turns} past max_turns {rules.max_turns} (R19)")
    at_cap = turn.turn_cap_reached(rules.turn_values, state.turns)
    if state.outcome is not None and state.outcome.capped != (at_cap and state.outcome.kind == "dead"):
        raise AssertionError(f"outcome capped={state.outcome.capped} but {state.turns} discards of max_turns "
                             f"{rules.max_turns} (R19)")
    if turn.upcard_take_ends(rules.turn_values, state.upcard_draws) and phase != OVER:
        raise AssertionError(f"{state.upcard_draws} upcard draws reach max_upcard_draws {rules.max_upcard_draws} "
                             "in a live hand (R60)")
    if turn.returns_end(rules.turn_values, state.returns) and phase != OVER:
        raise AssertionError("two returns in a row in a live hand (R61)")
    if state.returns > state.turns:
        raise AssertionError(f"{state.returns} returns in a row but only {state.turns} discards (R61)")
    knock_card = NO_CARD if state.outcome is None else state.outcome.knock_card
    if knock_card != NO_CARD and state.pile[-1:] != (knock_card,):
        raise AssertionError("the knock card is not on top of the pile (R21)")


def _check_public(state: HandState, stock: int) -> None:
    """known is in the own hand and was face up; discarded and declined cards were face up, so never in the stock;
    every face-up card of the pile was discarded by someone. The records count jokers rather than name them (R72),
    so for jokers these hold as counts: a player knows of no more jokers than it holds, and the pile's discarded
    jokers are no more than the jokers discarded."""
    jokers = state.rules.deck.joker_mask
    all_discarded = state.discarded[0] | state.discarded[1]
    upcard_bit = 1 << state.initial_upcard if state.initial_upcard != NO_CARD else 0
    for p in (0, 1):
        known = state.known[p]
        if (known & ~jokers & ~state.hands[p]) or (known & jokers).bit_count() > (state.hands[p] & jokers).bit_count():
            raise AssertionError(f"player {p} 'known' holds cards not in their hand: {cards.to_str(known)}")
        if known & ~jokers & ~(all_discarded | upcard_bit):
            raise AssertionError(f"player {p} 'known' holds cards that never lay face up on the pile")
        if (state.discarded[p] | state.declined[p]) & stock & ~jokers:
            raise AssertionError(f"player {p} discarded or declined cards that are in the stock")
    # The upcard lies at the bottom of the pile without anyone discarding it (it may be taken and discarded later).
    face_up = _mask_of(state.pile[1:] if state.pile[:1] == (state.initial_upcard,) else state.pile)
    if state.outcome is not None and state.outcome.knock_card != NO_CARD:
        face_up &= ~(1 << state.outcome.knock_card)
    if face_up & ~jokers & ~all_discarded:
        raise AssertionError(f"pile cards nobody discarded: {cards.to_str(face_up & ~jokers & ~all_discarded)}")
    if (face_up & jokers).bit_count() > (state.discarded[0] & jokers).bit_count() + (
            state.discarded[1] & jokers).bit_count():
        raise AssertionError("more jokers face up on the pile than jokers discarded (R72)")


def _check_mask(state: HandState) -> None:
    """The mask is empty exactly when the hand is over and holds only the actions its phase allows."""
    legal = set(legal_actions(state))
    phase = state.phase
    if phase == OVER:
        allowed = set()
    elif phase == OFFER:
        allowed = {TAKE_DISCARD, PASS}
    elif phase == DRAW:
        allowed = {DRAW_STOCK} if state.both_passed else {DRAW_STOCK, TAKE_DISCARD}
    elif phase == WALL:
        allowed = {TAKE_DISCARD, PASS}
    else:
        # R16, R71: every held card but the one just taken from the pile (any joker, if a joker) may be discarded or
        # knocked with; a joker by the joker actions (R72).
        kept = kept_card(state.rules.discard_taken_card, state.taken)
        discardable = [c for c in cards.to_ids(state.hands[state.current]) if not blocks(kept, c)]
        allowed = {actions.knock(c) for c in discardable} | {BIG_GIN}
        if not state.must_knock:
            discards = {actions.discard(c) for c in discardable}
            if not discards <= legal:
                raise AssertionError("a discard allowed by R16 is missing from the mask")
            allowed |= discards
    if not legal <= allowed:
        raise AssertionError(f"actions {[actions.name(a) for a in sorted(legal - allowed)]} are not allowed in "
                             f"phase {PHASE_NAMES[phase]!r}")
    if (phase == OVER) == bool(legal):
        raise AssertionError(f"phase {PHASE_NAMES[phase]!r} with legal actions {sorted(legal)}")
    if phase == OFFER and legal != allowed:
        raise AssertionError("the offer allows exactly TAKE_DISCARD and PASS (R13)")
    if phase == WALL and PASS not in legal:
        raise AssertionError("PASS must be legal at the wall (R38)")
    if BIG_GIN in legal and not big_gin_legal(state.rules.knock_values, True):
        raise AssertionError("BIG_GIN legal with big gin off (R24)")
