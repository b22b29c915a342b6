"""The scalar engine playing jokers (docs/rules.md section 17: R62-R64, R69-R73, R79, E13, E14, E21, E24): the deck
and the deal, the joker actions of ``Discrete(110)``, R71's matching of any joker with any joker, and whole hands of
seeded play checked state by state."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env.game import actions, cards, engine
from gin_env.game.rules import Rules
from tests.scripted import choose, make_deck

JOKERS = Rules(jokers=2)


def names(state) -> set[str]:
    return {actions.name(a) for a in engine.legal_actions(state)}


def test_the_joker_actions_are_ids_108_and_109():
    """R72: ``Discrete(110)`` with jokers, ids 0-107 as before; the names read back."""
    assert (JOKERS.n_actions, Rules().n_actions) == (110, 108)
    assert actions.parse("DISCARD(JK)") == actions.DISCARD_JOKER == 108
    assert actions.parse("KNOCK(JK)") == actions.KNOCK_JOKER == 109
    assert actions.name(108) == "DISCARD(JK)" and actions.discard(53) == 108 and actions.knock(52) == 109
    assert actions.action_card(108, cards.to_mask("JK JK 5S")) == 52
    with pytest.raises(ValueError, match="holds none"):
        actions.action_card(109, cards.to_mask("5S"))


def test_the_deal_uses_every_card_of_the_deck():
    """R62, R63: 54 cards, 33 in the stock after the deal; a seeded shuffle deals the jokers like any card."""
    state = engine.new_hand(JOKERS, np.random.default_rng(3))
    assert len(state.deck) == 54 and engine.stock_size(state) == 33
    assert state.rules.deck.n_cards == 54 and sorted(state.deck) == list(range(54))
    engine.validate(state)
    with pytest.raises(ValueError, match="permutation of the 54 cards"):
        engine.new_hand(JOKERS, deck=list(range(cards.N_CARDS)))


def test_a_joker_upcard_is_offered_and_caps_oklahoma_at_its_value():
    """E13, R79: a joker upcard is offered under R13 like any card; under Oklahoma L = min(10, joker_value)."""
    deck = make_deck("AS 2S 3S 4S 5S 6S 7S 8S 9S TS", "AH 2H 3H 4H 5H 6H 7H 8H 9H TH", "JK", rules=JOKERS)
    state = engine.new_hand(JOKERS, deck=deck)
    assert state.pile == (52,) and names(state) == {"TAKE_DISCARD", "PASS"}
    oklahoma = Rules.preset("oklahoma", jokers=2)
    assert engine.new_hand(oklahoma, deck=deck).knock_limit == 10
    assert engine.new_hand(oklahoma.replace(joker_value=0), deck=deck).knock_limit == 0


def test_a_joker_taken_keeps_both_jokers_this_turn():
    """R71, E14: holding one joker and taking the other from the pile, the player may discard neither and knock
    with neither; ``discard_taken_card`` lifts this as it lifts R16."""
    deck = make_deck("JK 2C 3C 4C 7H 8H 9H KS QD 5S", "AS 2S 3S 4S 5H 6H AD 2D 3D 4D", "JK", rules=JOKERS)
    state = engine.step(engine.new_hand(JOKERS, deck=deck), actions.TAKE_DISCARD)
    assert state.hands[1] >> cards.N_CARDS == 0b11
    legal = names(state)
    assert "DISCARD(JK)" not in legal and "KNOCK(JK)" not in legal and "DISCARD(KS)" in legal
    with pytest.raises(engine.IllegalActionError):
        engine.step(state, actions.DISCARD_JOKER)
    free = engine.step(engine.new_hand(JOKERS.replace(discard_taken_card=True), deck=deck), actions.TAKE_DISCARD)
    assert "DISCARD(JK)" in names(free)


def test_the_joker_actions_move_the_lowest_joker_and_knock_with_one():
    """R70, R72, E24: DISCARD(JK) puts the lowest-id joker on the pile; with 10 melded naturals and a joker,
    KNOCK(JK) is gin (the joker is the knock card, face down, R21)."""
    deck = make_deck("AS 2S 3S 4H 5H 6H 7D 8D 9D JK", "KS KH KD KC QS QH QD QC JS JH", "TC", "JK", rules=JOKERS)
    state = engine.new_hand(JOKERS, deck=deck)
    state = engine.step(engine.step(engine.step(state, actions.PASS), actions.PASS), actions.DRAW_STOCK)
    assert {"DISCARD(JK)", "KNOCK(JK)", "KNOCK(AS)"} <= names(state)
    discarded = engine.step(state, actions.DISCARD_JOKER)
    assert discarded.pile[-1] == 52 and discarded.hands[1] >> cards.N_CARDS == 0b10
    over = engine.step(state, actions.KNOCK_JOKER)
    assert over.outcome.kind == "gin" and over.outcome.knock_card == 52
    engine.validate(over)


@pytest.mark.parametrize("preset", ("standard", "oklahoma", "openspiel", "seed-000"))
def test_seeded_hands_with_jokers_keep_every_invariant(preset):
    """R11 over 54 cards, the mask against the phase, R71 and the public records, after every step of 60 seeded
    hands per preset, 30 with one joker and 30 with two, which end by knocks."""
    kinds = set()
    for jokers in (1, 2):
        rules = Rules.preset(preset, jokers=jokers)
        rng = np.random.default_rng(jokers)
        for _ in range(30):
            state = engine.new_hand(rules, rng, dealer=int(rng.integers(2)))
            while state.phase != engine.OVER:
                mask = engine.legal_mask(state)
                assert mask.size == 110 - 2 * (jokers == 0)
                state = engine.step(state, choose(state, rng))
                engine.validate(state)
            kinds.add(state.outcome.kind)
    assert kinds & {"knock", "undercut"}


def test_a_hand_of_stock_draws_dies_after_31_draws():
    """R63: with two jokers the stock starts at 33, and a hand in which nobody takes a discard is dead when a
    discard leaves the wall's 2 cards: after 31 stock draws."""
    state = engine.new_hand(JOKERS, np.random.default_rng(0))
    state = engine.step(engine.step(state, actions.PASS), actions.PASS)
    draws = 0
    while state.phase != engine.OVER:
        state = engine.step(state, actions.DRAW_STOCK)
        draws += 1
        state = engine.step(state, actions.discard(cards.to_ids(state.hands[state.current])[0]))
        engine.validate(state)
    assert (draws, state.outcome.kind, engine.stock_size(state)) == (31, "dead", 2)
