"""The hand state machine: deal (R10), turn order (R13-R17), illegal actions (R18), caps and walls (R19, R36-R38),
knock limits (R20, R46), scoring errors, and invariants after every step of thousands of seeded hands."""

from __future__ import annotations

import collections
import dataclasses
import re

import numpy as np
import pytest

from gin_env.game import actions, cards, engine
from gin_env.game.rules import Rules
from tests.scripted import PRESETS, act, choose, hand, legal_names, looping_action, make_deck

P = cards.parse

LOW_HAND = "AS 2S 3S 5H 6H 7H 8D 8C 8S TD"      # DW 10
LOW_HAND_DEALER = "KH KD QC QD JC JH 9H 9C 2D 3D"


def standard_hand(non_dealer: str = LOW_HAND, dealer: str = LOW_HAND_DEALER, upcard: str = "KS", stock: str = "",
                  preset: str = "standard", **overrides) -> engine.HandState:
    """A scripted hand with P2 (1) dealing, so P1 (0) is the non-dealer and acts first."""
    rules = Rules.preset(preset, **overrides)
    return engine.new_hand(rules, dealer=1, deck=make_deck(non_dealer, dealer, upcard=upcard, stock=stock))


# ---------------------------------------------------------------------------------------------------------------
# Deal (R10, R12) and the eleven-card deal
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dealer", [0, 1])
def test_r10_deal_positions(dealer):
    deck = np.random.default_rng(20).permutation(cards.N_CARDS).tolist()
    state = engine.new_hand(Rules.preset("standard"), dealer=dealer, deck=deck)
    non_dealer = 1 - dealer
    assert state.hands[non_dealer] == cards.to_mask(deck[0:20:2])
    assert state.hands[dealer] == cards.to_mask(deck[1:20:2])
    assert state.pile == (deck[20],)
    assert state.initial_upcard == deck[20]
    assert state.stock_top == 21 and engine.stock_size(state) == 31
    assert (state.current, state.phase, state.dealer) == (non_dealer, engine.OFFER, dealer)
    engine.validate(state)


def test_new_hand_with_rng_is_a_seeded_shuffle():
    rules = Rules.preset("standard")
    first = engine.new_hand(rules, np.random.default_rng(5))
    again = engine.new_hand(rules, np.random.default_rng(5))
    other = engine.new_hand(rules, np.random.default_rng(6))
    assert first == again
    assert first.deck != other.deck
    assert sorted(first.deck) == list(range(52))


@pytest.mark.parametrize("deck", [list(range(51)), [0] + list(range(1, 51)) + [0], list(range(1, 53))])
def test_new_hand_rejects_a_deck_that_is_no_permutation(deck):
    with pytest.raises(ValueError, match="permutation"):
        engine.new_hand(Rules.preset("standard"), deck=deck)


def test_new_hand_needs_a_generator_or_a_deck():
    with pytest.raises(ValueError, match="rng"):
        engine.new_hand(Rules.preset("standard"))
    with pytest.raises(ValueError, match="dealer"):
        engine.new_hand(Rules.preset("standard"), np.random.default_rng(0), dealer=2)


def test_eleven_card_deal_non_dealer_opens_by_discarding():
    """deal_mode "eleven" (RLCard): deck[20] goes to the non-dealer, no upcard, empty pile, stock from deck[21]."""
    rules = Rules.preset("standard", deal_mode="eleven")
    deck = make_deck(LOW_HAND + " 4D", LOW_HAND_DEALER)
    state = engine.new_hand(rules, dealer=1, deck=deck)
    assert state.hands[0] == hand(LOW_HAND + " 4D")
    assert (state.pile, state.initial_upcard, state.phase, state.current) == ((), -1, engine.DISCARD, 0)
    assert (engine.stock_size(state), state.knock_limit, state.taken) == (31, 10, -1)
    assert {"KNOCK(4D)", "DISCARD(4D)", "DISCARD(AS)"} <= legal_names(state)
    state = act(state, "DISCARD(4D)")
    assert (state.current, state.phase) == (1, engine.DRAW)
    assert legal_names(state) == {"DRAW_STOCK", "TAKE_DISCARD"}


def test_r12_initial_upcard_is_remembered_after_it_is_taken():
    state = standard_hand(preset="oklahoma", upcard="7C")
    state = act(state, "TAKE_UPCARD")
    assert (state.initial_upcard, state.knock_limit, state.pile) == (cards.card("7C"), 7, ())


# ---------------------------------------------------------------------------------------------------------------
# First turn and normal turns (R13-R17)
# ---------------------------------------------------------------------------------------------------------------

def test_r13a_non_dealer_takes_upcard_then_dealer_plays():
    state = act(standard_hand(), "TAKE_UPCARD")
    assert (state.current, state.phase, state.taken, state.pile) == (0, engine.DISCARD, cards.card("KS"), ())
    assert state.known == (cards.to_mask("KS"), 0)
    state = act(state, "DISCARD(TD)")
    assert (state.current, state.phase, state.turns, state.pile) == (1, engine.DRAW, 1, (cards.card("TD"),))
    assert state.discarded == (cards.to_mask("TD"), 0)


def test_r13b_dealer_takes_upcard_after_a_pass_then_non_dealer_plays():
    state = act(standard_hand(), "PASS")
    assert (state.current, state.phase) == (1, engine.OFFER)
    state = act(state, "TAKE_UPCARD", "DISCARD(2D)")
    assert (state.current, state.phase) == (0, engine.DRAW)
    assert legal_names(state) == {"DRAW_STOCK", "TAKE_DISCARD"}


def test_r13c_after_both_pass_the_non_dealer_must_draw_from_the_stock():
    state = act(standard_hand(stock="4C"), "PASS", "PASS")
    assert (state.current, state.phase, state.both_passed) == (0, engine.DRAW, True)
    assert legal_names(state) == {"DRAW_STOCK"}
    with pytest.raises(engine.IllegalActionError, match="TAKE_DISCARD"):
        engine.step(state, actions.TAKE_DISCARD)
    state = act(state, "DRAW_STOCK")
    assert (state.both_passed, state.taken) == (False, -1)
    assert state.declined == (cards.to_mask("KS"), cards.to_mask("KS"))
    state = act(state, "DISCARD(4C)")
    assert (state.current, state.phase) == (1, engine.DRAW)


def test_r14_a_pass_is_not_a_turn():
    state = act(standard_hand(), "PASS")
    assert (state.turns, state.hands[0].bit_count()) == (0, 10)
    assert not any(name.startswith(("KNOCK", "DISCARD")) for name in legal_names(state))
    assert state.declined == (cards.to_mask("KS"), 0)


def test_r15_draw_from_stock_takes_the_top_and_records_the_declined_discard():
    state = act(standard_hand(stock="4C 5D"), "TAKE_UPCARD", "DISCARD(TD)")
    state = act(state, "DRAW_STOCK")
    assert state.hands[1] & cards.to_mask("4C")
    assert engine.stock_size(state) == 30
    assert state.declined == (0, cards.to_mask("TD"))
    assert state.taken == -1


def test_r16_taken_card_may_be_discarded_on_a_later_turn_not_this_one():
    state = act(standard_hand(stock="4C 5D"), "TAKE_UPCARD")
    assert "DISCARD(KS)" not in legal_names(state)
    state = act(state, "DISCARD(TD)", "DRAW_STOCK", "DISCARD(4C)", "DRAW_STOCK")
    assert "DISCARD(KS)" in legal_names(state)
    state = act(state, "DISCARD(KS)")
    assert state.known == (0, 0)
    assert state.discarded[0] == cards.to_mask("TD KS")


def test_r16_card_drawn_from_stock_may_be_discarded_at_once():
    state = act(standard_hand(stock="4C"), "PASS", "PASS", "DRAW_STOCK")
    assert "DISCARD(4C)" in legal_names(state)


def test_r17_only_the_top_discard_is_taken():
    state = act(standard_hand(stock="4C 5D"), "TAKE_UPCARD", "DISCARD(TD)", "DRAW_STOCK", "DISCARD(2D)")
    state = act(state, "TAKE_DISCARD")
    assert (state.taken, state.pile) == (cards.card("2D"), (cards.card("TD"),))


# ---------------------------------------------------------------------------------------------------------------
# Illegal actions (R18)
# ---------------------------------------------------------------------------------------------------------------

ILLEGAL_CASES = [
    (("TAKE_UPCARD",), actions.DRAW_STOCK, "DRAW_STOCK", "discard"),
    ((), actions.discard(cards.card("AS")), r"DISCARD\(AS\)", "offer"),
    (("TAKE_UPCARD",), actions.discard(cards.card("4C")), r"DISCARD\(4C\)", "discard"),
    (("TAKE_UPCARD",), actions.knock(cards.card("AS")), r"KNOCK\(AS\)", "discard"),
    (("TAKE_UPCARD",), actions.PASS, "PASS", "discard"),
    (("PASS", "PASS"), actions.BIG_GIN, "BIG_GIN", "draw"),
    ((), 500, "500 \\(not an action id\\)", "offer"),
    ((), -1, "-1 \\(not an action id\\)", "offer"),
]


@pytest.mark.parametrize(("before", "action", "name", "phase"), ILLEGAL_CASES)
def test_r18_illegal_action_names_itself_and_leaves_the_state_unchanged(before, action, name, phase):
    state = act(standard_hand(), *before)
    snapshot = dataclass_fields(state)
    with pytest.raises(engine.IllegalActionError, match=name) as error:
        engine.step(state, action)
    message = str(error.value)
    assert f"phase '{phase}'" in message
    assert all(actions.name(a) in message for a in engine.legal_actions(state))
    assert dataclass_fields(state) == snapshot
    assert isinstance(error.value, ValueError)


@pytest.mark.parametrize("action", ["PASS", 1.0, float("nan"), None, np.array([1]), np.float32(2)])
def test_non_integer_actions_are_a_type_error_not_a_move(action):
    """An action id is an integer (python or numpy); anything else is the caller's mistake, never a rules question."""
    state = standard_hand()
    with pytest.raises(TypeError, match="an action must be an integer action id"):
        engine.step(state, action)


def test_numpy_integer_actions_are_moves():
    state = standard_hand()
    assert engine.step(state, np.int64(actions.PASS)) == engine.step(state, actions.PASS)
    assert engine.step(state, np.array(actions.PASS)) == engine.step(state, actions.PASS)


def test_r18_no_action_after_the_hand_is_over():
    state = act(standard_hand(), "TAKE_UPCARD", "KNOCK(TD)")
    assert state.phase == engine.OVER
    assert engine.legal_actions(state) == []
    assert not engine.legal_mask(state).any()
    with pytest.raises(engine.IllegalActionError, match="over"):
        engine.step(state, actions.DRAW_STOCK)


def test_every_state_a_step_returns_is_a_frozen_hand_state_equal_to_the_constructors():
    """The steps build their states through a cheaper path than ``HandState(...)``; what comes out must be the same
    thing: exactly a HandState, frozen, equal and hashing alike to one built by the constructor."""
    rng = np.random.default_rng(41)
    state = engine.new_hand(Rules.preset("standard"), rng)
    while state.phase != engine.OVER:
        state = engine.step(state, int(rng.choice(engine.legal_actions(state))))
        assert type(state) is engine.HandState
        rebuilt = engine.HandState(*dataclass_fields(state))
        assert state == rebuilt and hash(state) == hash(rebuilt)
        with pytest.raises(dataclasses.FrozenInstanceError):
            state.turns = 0


def dataclass_fields(state: engine.HandState) -> tuple:
    return tuple(getattr(state, name) for name in state.__slots__)


# ---------------------------------------------------------------------------------------------------------------
# Knock, gin, ends of a hand (R19-R25, R36-R38)
# ---------------------------------------------------------------------------------------------------------------

def test_r21_knock_card_goes_face_down_and_counts_for_nobody():
    state = act(standard_hand(), "TAKE_UPCARD", "KNOCK(TD)")
    outcome = state.outcome
    assert state.pile == (cards.card("TD"),)
    assert state.discarded == (0, 0)
    assert state.hands[0] == hand("AS 2S 3S 5H 6H 7H 8D 8C 8S KS")
    assert state.known == (cards.to_mask("KS"), 0)
    assert (outcome.kind, outcome.knocker, outcome.knock_card, outcome.knocker_deadwood) == (
        "knock", 0, cards.card("TD"), 10)
    assert (outcome.defender_deadwood, outcome.winner, outcome.points) == (83, 0, 73)


def test_r19_max_turns_ends_the_hand_dead():
    state = standard_hand(stock="4C 5D 6D", max_turns=3)
    state = act(state, "PASS", "PASS", "DRAW_STOCK", "DISCARD(4C)", "DRAW_STOCK", "DISCARD(5D)", "DRAW_STOCK")
    assert state.phase == engine.DISCARD
    state = act(state, "DISCARD(6D)")
    assert (state.phase, state.turns, state.outcome) == (engine.OVER, 3, engine.CAPPED_OUTCOME)
    assert state.outcome.kind == "dead" and state.outcome.capped and not engine.DEAD_OUTCOME.capped


@pytest.mark.parametrize("preset", PRESETS)
def test_r19_two_players_who_always_take_the_discard_are_capped_at_200(preset):
    """Without the cap this hand never ends: the stock is never drawn (R19). A wall dead hand is not capped. Under
    openspiel the 50th take from the pile ends it first (R60), dead but not capped."""
    state = engine.new_hand(Rules.preset(preset), np.random.default_rng(7), dealer=0)
    while state.phase != engine.OVER:
        state = engine.step(state, looping_action(engine.legal_actions(state), state.phase, state.taken))
    if preset == "openspiel":
        assert (state.upcard_draws, state.outcome.kind, state.outcome.capped) == (50, "dead", False)
    else:
        assert (state.turns, state.outcome.kind, state.outcome.capped) == (200, "dead", True)
    engine.validate(state)


def test_r19_a_wall_dead_hand_is_not_capped():
    state = standard_hand()
    rng = np.random.default_rng(3)
    while state.phase != engine.OVER:
        legal = engine.legal_actions(state)
        discards = [a for a in legal if actions.is_discard(a)]
        state = engine.step(state, actions.DRAW_STOCK if actions.DRAW_STOCK in legal else
                            actions.PASS if actions.PASS in legal else discards[rng.integers(len(discards))])
    assert state.outcome == engine.DEAD_OUTCOME and not state.outcome.capped and state.turns < 200


#: Stock draws in a hand that nobody ends: 31 stock cards less the wall of 2 (R37).
STOCK_DRAWS = 29


def wall_state(preset: str, last_card: str, dealer_hand: str) -> engine.HandState:
    """P1 (non-dealer) draws the 29th stock card ``last_card`` and discards it: the stock is at the wall (R37)."""
    deck = make_deck(LOW_HAND, dealer_hand, upcard="KS")
    deck.remove(cards.card(last_card))
    deck.insert(engine.DEALT + STOCK_DRAWS, cards.card(last_card))  # the last stock card that may be drawn
    state = act(engine.new_hand(Rules.preset(preset), dealer=1, deck=deck), "PASS", "PASS")
    for _ in range(STOCK_DRAWS):
        drawn = state.deck[state.stock_top]
        state = engine.step(engine.step(state, actions.DRAW_STOCK), actions.discard(drawn))
        engine.validate(state)
    assert engine.stock_size(state) == 2 and state.pile[-1] == cards.card(last_card)
    return state


def test_r37_discard_at_the_wall_ends_the_hand_dead_under_standard():
    state = wall_state("standard", "KC", "AH 2H 3H 5D 6D 7D 9S 9D JC QC")
    assert (state.phase, state.outcome.kind, state.outcome.winner) == (engine.OVER, "dead", None)
    assert state.outcome.player_points(0) == state.outcome.player_points(1) == 0


def test_r38_wall_take_only_to_knock_then_only_knocks():
    """OpenSpiel: KC completes JC-QC-KC; the dealer may take it, and must then knock (not gin: 9S or 9D is left)."""
    state = wall_state("openspiel", "KC", "AH 2H 3H 5D 6D 7D 9S 9D JC QC")
    assert (state.phase, state.current) == (engine.WALL, 1)
    assert legal_names(state) == {"TAKE_DISCARD", "PASS"}
    with pytest.raises(engine.IllegalActionError):
        engine.step(state, actions.DRAW_STOCK)
    state = act(state, "TAKE_DISCARD")
    assert (state.phase, state.must_knock) == (engine.DISCARD, True)
    assert legal_names(state) == {"KNOCK(9S)", "KNOCK(9D)"}
    with pytest.raises(engine.IllegalActionError):
        engine.step(state, actions.discard(cards.card("9S")))
    outcome = act(state, "KNOCK(9S)").outcome
    assert (outcome.kind, outcome.knocker, outcome.knocker_deadwood) == ("knock", 1, 9)


def test_r38_wall_without_a_knock_only_pass_which_ends_the_hand_dead():
    state = wall_state("openspiel", "KC", "AH 2H 3H 5D 6D 7D 9S 9D JC 4C")
    assert legal_names(state) == {"PASS"}
    with pytest.raises(engine.IllegalActionError, match="TAKE_DISCARD"):
        engine.step(state, actions.TAKE_DISCARD)
    state = act(state, "PASS")
    assert (state.phase, state.outcome.kind) == (engine.OVER, "dead")


def test_r60_the_take_that_reaches_max_upcard_draws_ends_the_hand_dead():
    """R60 with a cap of 3: the first-upcard take is not counted; the third draw-phase take ends the hand, and the
    card stays on the pile."""
    state = act(standard_hand(preset="openspiel", max_upcard_draws=3), "TAKE_UPCARD", "DISCARD(TD)",
                "TAKE_DISCARD", "DISCARD(9C)", "TAKE_DISCARD", "DISCARD(AS)")
    assert (state.upcard_draws, state.phase, state.current) == (2, engine.DRAW, 1)
    assert engine.legal_actions(state) == [actions.DRAW_STOCK, actions.TAKE_DISCARD]
    end = engine.step(state, actions.TAKE_DISCARD)
    engine.validate(end)
    assert (end.phase, end.outcome, end.upcard_draws) == (engine.OVER, engine.DEAD_OUTCOME, 3)
    assert (end.hands, end.pile) == (state.hands, state.pile)


def test_r60_r61_are_off_by_default_and_on_in_the_openspiel_preset():
    assert (Rules().max_upcard_draws, Rules().repeat_discard_ends) == (None, False)
    openspiel = Rules.preset("openspiel")
    assert (openspiel.max_upcard_draws, openspiel.repeat_discard_ends) == (50, True)
    # Without R61, two returns in a row leave the hand live.
    state = act(standard_hand(discard_taken_card=True), "TAKE_UPCARD", "DISCARD(KS)", "TAKE_DISCARD", "DISCARD(KS)")
    assert (state.phase, state.returns) == (engine.DRAW, 2)


def test_r61_two_returns_in_a_row_end_the_hand_dead():
    """The first upcard counts as the card just taken (R61)."""
    state = act(standard_hand(preset="openspiel"), "TAKE_UPCARD", "DISCARD(KS)")
    assert (state.phase, state.returns) == (engine.DRAW, 1)
    state = act(state, "TAKE_DISCARD", "DISCARD(KS)")
    assert (state.phase, state.outcome, state.returns) == (engine.OVER, engine.DEAD_OUTCOME, 2)
    assert state.pile[-1] == cards.card("KS")


def test_r61_a_discard_that_is_no_return_clears_the_count():
    state = act(standard_hand(preset="openspiel", stock="4C 5C"), "TAKE_UPCARD", "DISCARD(KS)", "DRAW_STOCK",
                "DISCARD(4C)")
    assert (state.phase, state.returns) == (engine.DRAW, 0)
    state = act(state, "TAKE_DISCARD", "DISCARD(4C)")
    assert (state.phase, state.returns) == (engine.DRAW, 1)
    state = act(state, "TAKE_DISCARD", "DISCARD(4C)")
    assert (state.phase, state.outcome) == (engine.OVER, engine.DEAD_OUTCOME)


def test_r61_a_knock_with_the_card_just_put_back_is_scored():
    """P2 puts the upcard back; P1 takes it and knocks with it (deadwood 10, R20): a knock's discard is no return."""
    state = act(standard_hand(preset="openspiel"), "PASS", "TAKE_UPCARD", "DISCARD(KS)", "TAKE_DISCARD", "KNOCK(KS)")
    assert (state.outcome.kind, state.outcome.knocker, state.outcome.knocker_deadwood) == ("knock", 0, 10)


@pytest.mark.parametrize(("preset", "upcard", "limit"), [
    ("oklahoma", "AH", 0), ("oklahoma", "2H", 2), ("oklahoma", "7C", 7), ("oklahoma", "TH", 10),
    ("oklahoma", "KC", 10), ("standard", "AH", 10), ("standard", "2H", 10), ("foony", "AH", 10)])
def test_r46_knock_limit_of_the_hand(preset, upcard, limit):
    state = engine.new_hand(Rules.preset(preset), dealer=1, deck=make_deck(LOW_HAND, LOW_HAND_DEALER,
                                                                          upcard=upcard))
    assert state.knock_limit == limit


def test_r46_oklahoma_ace_one_gives_limit_1():
    rules = Rules.preset("oklahoma", oklahoma_ace="one")
    assert engine.new_hand(rules, dealer=1, deck=make_deck(LOW_HAND, LOW_HAND_DEALER, upcard="AH")).knock_limit == 1


@pytest.mark.parametrize(("drawn", "knocks"), [("KC", set()), ("9C", {"KNOCK(AC)"})])
def test_r46_ace_upcard_allows_only_gin(drawn, knocks):
    """Under Oklahoma an ace upcard gives L = 0: DW 1 may not knock, gin may (R46)."""
    state = engine.new_hand(Rules.preset("oklahoma"), dealer=1, deck=make_deck(
        "2S 3S 4S 5H 6H 7H 9S 9D 9H AC", "KH KD QC QD JC JH 8H 8C 2D 3D", upcard="AD", stock=drawn))
    state = act(state, "PASS", "PASS", "DRAW_STOCK")
    assert {name for name in legal_names(state) if name.startswith("KNOCK")} == knocks
    if knocks:
        outcome = act(state, "KNOCK(AC)").outcome
        assert (outcome.kind, outcome.points, outcome.defender_deadwood) == ("gin", 101, 81)


# ---------------------------------------------------------------------------------------------------------------
# score_knock and HandOutcome
# ---------------------------------------------------------------------------------------------------------------

KNOCKER = "AD 2D 3D 6C 6H 6S TS JS QS 4H"   # X9: K = 4
DEFENDER = "3C 5C 5D 5H 7D 8C 9C TC KC KH"  # F = 30


@pytest.mark.parametrize(("upcard", "points"), [("4S", 52), ("4H", 26), ("TS", 52), (None, 26)])
def test_r47_spade_doubling_only_for_a_spade_upcard(upcard, points):
    result = engine.score_knock(P(KNOCKER), P(DEFENDER), Rules.preset("oklahoma"),
                                upcard=cards.card(upcard) if upcard else None)
    assert result.points == points


def test_r47_no_doubling_without_the_option():
    result = engine.score_knock(P(KNOCKER), P(DEFENDER), Rules.preset("oklahoma", oklahoma_spade_double=False),
                                upcard=cards.card("4S"))
    assert result.points == 26


def test_score_knock_accepts_every_hand_form():
    rules = Rules.preset("standard")
    as_ids = engine.score_knock(P(KNOCKER), P(DEFENDER), rules)
    assert engine.score_knock(KNOCKER, DEFENDER, rules) == as_ids
    assert engine.score_knock(cards.to_mask(KNOCKER), cards.to_mask(DEFENDER), rules) == as_ids


@pytest.mark.parametrize(("knocker", "defender", "message"), [
    ("AD 2D 3D 6C 6H 6S TS JS QS", DEFENDER, "knocker must hold 10"),
    (KNOCKER, "3C 5C 5D 5H 7D 8C 9C TC KC", "defender must hold 10"),
    (KNOCKER, "4H 5C 5D 5H 7D 8C 9C TC KC KH", "share cards: 4H"),
    ("AD 2D 3D 6C 6H 6S TS JS 9H KD", DEFENDER, "exceeds the knock limit 10"),
])
def test_score_knock_rejects_impossible_knocks(knocker, defender, message):
    with pytest.raises(ValueError, match=message):
        engine.score_knock(P(knocker), P(defender), Rules.preset("standard"))


def test_score_knock_rejects_an_explicit_arrangement_over_the_limit():
    """An explicit arrangement that melds less than it could (here no sixes) must still meet L (R21)."""
    with pytest.raises(ValueError, match="knocker deadwood 22"):
        engine.score_knock(P(KNOCKER), P(DEFENDER), Rules.preset("standard"),
                           arrangement=[P("AD 2D 3D"), P("TS JS QS")])


def test_score_knock_rejects_eleven_cards_that_are_not_all_melded():
    with pytest.raises(ValueError, match="not big gin"):
        engine.score_knock(P(KNOCKER + " 7S"), P(DEFENDER), Rules.preset("foony"))


def test_hand_outcome_player_points_are_zero_sum():
    outcome = act(standard_hand(), "TAKE_UPCARD", "KNOCK(TD)").outcome
    assert (outcome.player_points(0), outcome.player_points(1)) == (73, -73)
    assert engine.DEAD_OUTCOME.player_points(0) == engine.DEAD_OUTCOME.player_points(1) == 0


# ---------------------------------------------------------------------------------------------------------------
# Seeded play: invariants after every step, mask and step agree
# ---------------------------------------------------------------------------------------------------------------

HANDS_PER_PRESET = 2000
SEEDS = {"standard": 11, "eaai": 12, "oklahoma": 13, "foony": 14, "seed-000": 15, "openspiel": 16}
#: Outcome kinds each preset must produce in its seeded hands, so the run covers every way a hand ends.
EXPECTED_KINDS = {"knock", "undercut", "gin", "dead"}


def play_hands(rules: Rules, seed: int, n_hands: int) -> tuple[collections.Counter, int]:
    """Play seeded hands, validating after every step; count outcome kinds and visits to the wall phase."""
    rng = np.random.default_rng(seed)
    kinds: collections.Counter = collections.Counter()
    wall_visits = 0
    for i in range(n_hands):
        state = engine.new_hand(rules, rng, dealer=i % 2)
        engine.validate(state)
        while state.phase != engine.OVER:
            state = engine.step(state, choose(state, rng))
            engine.validate(state)
            wall_visits += state.phase == engine.WALL
        kinds[state.outcome.kind] += 1
    return kinds, wall_visits


@pytest.mark.parametrize("preset", PRESETS)
def test_invariants_hold_after_every_step_of_seeded_hands(preset):
    rules = Rules.preset(preset)
    kinds, wall_visits = play_hands(rules, SEEDS[preset], HANDS_PER_PRESET)
    assert sum(kinds.values()) == HANDS_PER_PRESET
    expected = set(EXPECTED_KINDS)
    if not rules.undercut_on_tie:
        expected.add("tie")
    assert expected <= set(kinds), kinds
    assert ("big_gin" in kinds) <= (rules.big_gin_bonus is not None)
    assert (wall_visits > 0) is rules.wall_upcard_knock


@pytest.mark.parametrize(("overrides", "seed"), [
    ({"deal_mode": "eleven", "layoffs": False}, 21),
    ({"max_turns": 12}, 22),
    ({"big_gin_bonus": 31, "wall_upcard_knock": True, "discard_taken_card": True}, 23),
])
def test_invariants_hold_under_other_rule_combinations(overrides, seed):
    kinds, _ = play_hands(Rules.preset("standard", **overrides), seed, 500)
    assert {"knock", "dead"} <= set(kinds)


#: Rules beyond the presets whose phases the presets reach rarely or never: the wall's take to knock (R38) with big
#: gin (R24) and the taken card discardable (R16), the cap on upcard draws (R60), the eleven-card deal, a short cap.
AGREEMENT_RULES = {
    **{preset: Rules.preset(preset) for preset in PRESETS},
    "wall-big-gin": Rules.preset("standard", big_gin_bonus=31, wall_upcard_knock=True, discard_taken_card=True),
    "upcard-cap": Rules.preset("openspiel", max_upcard_draws=2),
    "eleven-capped": Rules.preset("standard", deal_mode="eleven", max_turns=12),
}
#: The rules under which the seeded hands below reach the wall's offer (R38).
REACH_THE_WALL = {"openspiel", "wall-big-gin"}


@pytest.mark.parametrize("name", AGREEMENT_RULES)
def test_mask_and_step_agree_on_every_action(name):
    """``step`` checks the one action it is given, ``legal_mask`` builds every phase's legal actions through
    ``hand_rules.phases``: on every action of many states (every phase, each way a hand ends), every action the mask
    allows steps and every other raises and names itself."""
    rules = AGREEMENT_RULES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    checked = collections.Counter()
    for i in range(20):
        state = engine.new_hand(rules, rng, dealer=i % 2)
        while state.phase != engine.OVER:
            mask = engine.legal_mask(state)
            if state.phase != engine.DRAW or rng.random() < 0.2:
                for action in range(actions.N_ACTIONS):
                    if mask[action]:
                        engine.validate(engine.step(state, action))
                    else:
                        with pytest.raises(engine.IllegalActionError, match=re.escape(actions.name(action))):
                            engine.step(state, action)
                checked[engine.PHASE_NAMES[state.phase]] += 1
            state = engine.step(state, choose(state, rng))
    assert checked["discard"] > 100 and checked["draw"] > 20, checked
    assert (checked["offer"] > 0) is (rules.deal_mode != "eleven"), checked
    assert (checked["wall"] > 0) is (name in REACH_THE_WALL), checked


def corrupted_states():
    """A live draw-phase state (P2 to draw, TD on the pile) and ways to break each invariant validate owns."""
    state = act(standard_hand(stock="4C"), "TAKE_UPCARD", "DISCARD(TD)")
    stock_card = cards.to_mask("4C")
    return state, {
        "also in stock": {"hands": (state.hands[0] | stock_card, state.hands[1])},
        "in no place": {"hands": (state.hands[0] & ~cards.to_mask("AS"), state.hands[1])},
        "hand sizes": {"phase": engine.DISCARD},
        "taken card": {"taken": cards.card("AS")},
        "both_passed": {"both_passed": True},
        "must_knock": {"must_knock": True},
        "knock limit": {"knock_limit": 5},
        "never lay face up": {"known": (cards.to_mask("AS KS"), 0)},
        "in the stock": {"declined": (0, stock_card)},
        "nobody discarded": {"discarded": (0, 0)},
        "outcome must be set": {"outcome": engine.DEAD_OUTCOME},
        "stock_top": {"stock_top": cards.N_CARDS - 1},
        "initial upcard": {"initial_upcard": cards.card("TD")},
    }


@pytest.mark.parametrize("broken", list(corrupted_states()[1]))
def test_validate_names_the_broken_invariant(broken):
    state, corruptions = corrupted_states()
    engine.validate(state)
    with pytest.raises(AssertionError, match=broken):
        engine.validate(dataclasses.replace(state, **corruptions[broken]))


def test_r16_kept_card_is_one_function_for_python_arrays_and_kernels():
    """R16: the card just taken stays in hand unless ``discard_taken_card``; the one function answers for a scalar
    state and for a batch alike, and the kernels' compiled binding of it agrees."""
    from numba import njit

    from gin_env.game.hand_rules.taken_card import kept_card

    kept_card_compiled = njit(lambda discard_taken_card, taken: kept_card(discard_taken_card, taken))
    for discard_taken_card in (False, True):
        for taken in (engine.NO_CARD, 0, 17, 51):
            expected = engine.NO_CARD if discard_taken_card else taken
            assert kept_card(discard_taken_card, taken) == kept_card_compiled(discard_taken_card, taken) == expected
    taken = np.array([17, engine.NO_CARD, 0, 51])
    np.testing.assert_array_equal(kept_card(False, taken), taken)
    np.testing.assert_array_equal(kept_card(True, taken), np.full(4, engine.NO_CARD))
    allowed = np.array([True, False, False, True])
    np.testing.assert_array_equal(kept_card(allowed, taken), [engine.NO_CARD, engine.NO_CARD, 0, engine.NO_CARD])
