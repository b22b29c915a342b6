"""The hand rules of ``gin_env.game.hand_rules``: each function answers the same compiled (as the batched kernels
inline it) as in Python (as the scalar engine calls it), over every preset and a grid of inputs, and agrees with
the rules' text (docs/rules.md R13-R16, R19, R19a, R24, R29-R33, R36-R38, R41-R44, R46, R47, R60, R61)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit

from gin_env.game import actions, cards
from gin_env.game.actions import BIG_GIN, DRAW_STOCK, N_ACTIONS, PASS, TAKE_DISCARD
from gin_env.game.cards import NO_CARD
from gin_env.game.hand_rules import KNOCK_ROW, TURN_ROW, between_hands, knock, phases, rule_values, turn
from gin_env.game.rules import PRESETS, SHUTOUT_MODES, Rules

RULES = [*PRESETS.values(), Rules(undercut_on_tie=False, big_gin_bonus=31, max_upcard_draws=3,
                                  repeat_discard_ends=True, wall_upcard_knock=True),
         Rules(oklahoma=True, oklahoma_ace="one", oklahoma_spade_double=True, knock_limit=7, max_turns=None)]
UPCARDS = (NO_CARD, 0, 3, 9, 12, 13, 26, 39, 51)


@njit
def _knock_compiled(values, k, f, knocker, upcard, all_melded):
    return (knock.hand_knock_limit(values, upcard), knock.multiplier(values, upcard),
            knock.knock_outcome(values, k, f, knocker, upcard), knock.big_gin_legal(values, all_melded),
            knock.big_gin_points(values, f, upcard))


@njit
def _turn_compiled(values, turns, returns, stock_left, draws):
    return (turn.can_draw_stock(values, stock_left), turn.upcard_take_ends(values, draws),
            turn.returns_end(values, returns), turn.turn_cap_reached(values, turns))


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_knock_rules_answer_the_same_compiled_and_in_python(rules):
    row = rule_values(rules)[KNOCK_ROW]
    for k, f, knocker, upcard, melded in itertools.product((0, 3, 7), (0, 3, 9), (0, 1), UPCARDS, (False, True)):
        python = (knock.hand_knock_limit(rules.knock_values, upcard), knock.multiplier(rules.knock_values, upcard),
                  knock.knock_outcome(rules.knock_values, k, f, knocker, upcard),
                  knock.big_gin_legal(rules.knock_values, melded), knock.big_gin_points(rules.knock_values, f, upcard))
        compiled = _knock_compiled(row, k, f, knocker, upcard, melded)
        assert python[:3] == compiled[:3] and bool(python[3]) == bool(compiled[3]) and python[4] == compiled[4]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_turn_rules_answer_the_same_compiled_and_in_python(rules):
    row = rule_values(rules)[TURN_ROW]
    for turns, returns, stock, draws in itertools.product((1, 199, 200, 201), (0, 1, 2), (0, 2, 3, 30), (1, 3, 50)):
        python = (turn.can_draw_stock(rules.turn_values, stock), turn.upcard_take_ends(rules.turn_values, draws),
                  turn.returns_end(rules.turn_values, returns), turn.turn_cap_reached(rules.turn_values, turns))
        assert tuple(map(bool, python)) == tuple(map(bool, _turn_compiled(row, turns, returns, stock, draws)))


def test_knock_outcome_follows_r29_to_r32_and_r47():
    values = Rules.preset("oklahoma", undercut_on_tie=False).knock_values
    spade, heart = 3, 16  # 4S, 4H
    assert knock.knock_outcome(values, 0, 9, 1, heart) == (knock.GIN, 1, 9 + 20)
    assert knock.knock_outcome(values, 3, 9, 0, heart) == (knock.KNOCK, 0, 6)
    assert knock.knock_outcome(values, 3, 9, 0, spade) == (knock.KNOCK, 0, 12)
    assert knock.knock_outcome(values, 4, 2, 0, heart) == (knock.UNDERCUT, 1, 2 + 10)
    assert knock.knock_outcome(values, 4, 4, 0, spade) == (knock.TIE, knock.NO_PLAYER, 0)
    assert knock.knock_outcome(Rules().knock_values, 4, 4, 0, NO_CARD) == (knock.UNDERCUT, 1, 10)
    assert knock.hand_knock_limit(values, spade) == 4 and knock.hand_knock_limit(values, NO_CARD) == 10


def test_after_discard_puts_the_caps_before_the_wall():
    """R19 and R61 end the hand before R38's wall could offer the discard; R37 otherwise. The turn passes either
    way."""
    values = Rules.preset("openspiel", max_turns=10).turn_values
    assert phases.after_discard(values, 0, 10, 2, 2) == (phases.OVER, 1, True)
    assert phases.after_discard(values, 0, 9, 2, 2) == (phases.OVER, 1, False)
    assert phases.after_discard(values, 1, 9, 1, 2) == (phases.WALL, 0, False)
    assert phases.after_discard(values, 1, 9, 1, 3) == (phases.DRAW, 0, False)
    assert phases.after_discard(Rules().turn_values, 0, 9, 1, 2) == (phases.OVER, 1, False)


def test_between_hands_rules_serve_ints_and_arrays_alike():
    rules = Rules(max_dead_hands=3, dealer_rotation="loser", dead_hand_dealer="rotate")
    assert between_hands.dead_in_row_after(2, True) == 3 and between_hands.dead_in_row_after(2, False) == 0
    assert between_hands.abandons(rules, 3) and not between_hands.abandons(rules, 2)
    assert not between_hands.abandons(rules.replace(max_dead_hands=None), 10**6)
    dealers, winners = np.array([0, 0, 1]), np.array([knock.NO_PLAYER, 0, 0])
    expected = [between_hands.next_dealer(rules, int(d), int(w)) for d, w in zip(dealers, winners)]
    assert expected == [1, 1, 1]
    assert between_hands.next_dealer(rules, dealers, winners).tolist() == expected
    np.testing.assert_array_equal(between_hands.abandons(rules, np.array([2, 3, 4])), [False, True, True])


@njit
def _phases_compiled(values, phase, flags, player, dealer, from_pile, draws, turns, returns, stock):
    stock_ok, pile_ok, wall_take, big_gin, must_knock = flags
    return (phases.legal_actions(phase, stock_ok, pile_ok, wall_take, big_gin, must_knock),
            phases.after_pass(phase, player, dealer), phases.after_take(values, phase, from_pile, draws),
            phases.after_discard(values, player, turns, returns, stock))


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_phase_rules_answer_the_same_compiled_and_in_python(rules):
    values = rules.turn_values
    row = rule_values(rules)[TURN_ROW]
    grid = itertools.product(range(len(phases.PHASE_NAMES)), itertools.product((False, True), repeat=5), (0, 1),
                             (0, 1), (False, True), (0, 2, 3), (1, 200), (0, 2), (2, 3))
    for phase, flags, player, dealer, from_pile, draws, turns, returns, stock in grid:
        python = (phases.legal_actions(phase, *flags), phases.after_pass(phase, player, dealer),
                  phases.after_take(values, phase, from_pile, draws),
                  phases.after_discard(values, player, turns, returns, stock))
        compiled = _phases_compiled(row, phase, flags, player, dealer, from_pile, draws, turns, returns, stock)
        assert [tuple(map(int, answer)) for answer in python] == [tuple(map(int, answer)) for answer in compiled]


def test_legal_actions_follow_r13_to_r16_r24_and_r36_to_r38():
    """Each phase allows what the rules say, given the facts that bear on it and whatever the others."""
    bits = lambda *ids: sum(1 << a for a in ids)  # noqa: E731
    for flags in itertools.product((False, True), repeat=5):
        stock_ok, pile_ok, wall_take, big_gin, must_knock = flags
        legal = {phase: phases.legal_actions(phase, *flags) for phase in range(len(phases.PHASE_NAMES))}
        assert legal[phases.OFFER] == (bits(TAKE_DISCARD, PASS), False, False)
        assert legal[phases.DRAW] == (bits(*[DRAW_STOCK] * stock_ok, *[TAKE_DISCARD] * pile_ok), False, False)
        assert legal[phases.WALL] == (bits(PASS, *[TAKE_DISCARD] * wall_take), False, False)
        assert legal[phases.DISCARD] == (bits(*[BIG_GIN] * big_gin), not must_knock, True)
        assert legal[phases.OVER] == (0, False, False)


@njit
def _legal_words(phase, flags, hand, kept, knock_cards):
    stock_ok, pile_ok, wall_take, big_gin, must_knock = flags
    return phases.legal_words(phase, stock_ok, pile_ok, wall_take, big_gin, must_knock, np.uint64(hand), kept,
                              np.uint64(knock_cards))


def test_legal_words_place_discards_and_knocks_at_their_action_ids():
    """R16: every held card but the kept one may be discarded, unless the player must knock (R38); the knock cards
    may be knocked with; both across the two words."""
    hand, kept = cards.to_mask("AS 2S 3S KS 4H 5H 6H QD JC TC 9C"), cards.card("QD")
    knock_cards = cards.to_mask("KS 9C")
    for must_knock in (False, True):
        low, high = _legal_words(phases.DISCARD, (False, False, False, True, must_knock), hand, kept, knock_cards)
        legal = {a for a in range(N_ACTIONS) if (int(high) << 64 | int(low)) >> a & 1}
        discards = set() if must_knock else {actions.discard(c) for c in cards.to_ids(hand) if c != kept}
        assert legal == {BIG_GIN} | discards | {actions.knock(c) for c in cards.to_ids(knock_cards)}
    low, high = _legal_words(phases.DRAW, (True, False, True, True, False), hand, kept, knock_cards)
    assert (int(low), int(high)) == (1 << DRAW_STOCK, 0)


def test_after_take_counts_only_draw_phase_takes_toward_r60():
    values = Rules(max_upcard_draws=3).turn_values
    assert phases.after_take(values, phases.DRAW, True, 1) == (phases.DISCARD, False, 2)
    assert phases.after_take(values, phases.DRAW, True, 2) == (phases.OVER, False, 3)
    assert phases.after_take(values, phases.DRAW, False, 2) == (phases.DISCARD, False, 2)
    assert phases.after_take(values, phases.OFFER, True, 2) == (phases.DISCARD, False, 2)
    assert phases.after_take(values, phases.WALL, True, 2) == (phases.DISCARD, True, 2)


def test_after_pass_gives_the_upcard_on_then_the_draw_and_ends_the_hand_at_the_wall():
    """R13, R14: the non-dealer's pass offers the upcard to the dealer, the dealer's makes the non-dealer draw;
    R38: a pass at the wall ends the hand."""
    assert phases.after_pass(phases.OFFER, 1, 0) == (phases.OFFER, 0, False)
    assert phases.after_pass(phases.OFFER, 0, 0) == (phases.DRAW, 1, True)
    assert phases.after_pass(phases.WALL, 1, 0) == (phases.OVER, 1, False)


def reference_totals(rules, scores, boxes, winner):
    """R41-R43 read one step at a time, for one game: the check of ``between_hands.final_totals``."""
    if winner == knock.NO_PLAYER:
        return tuple(scores)
    totals = [s + rules.box_bonus * n for s, n in zip(scores, boxes)]
    shutout = all(n == 0 for side, n in enumerate(boxes) if side != winner)
    game_bonus = rules.game_bonus
    if shutout and rules.shutout == "double_hand_points":
        totals[winner] += scores[winner]
    if shutout and rules.shutout == "double_game_bonus":
        game_bonus *= 2
    totals[winner] += game_bonus
    if shutout and rules.shutout == "double_total":
        totals[winner] *= 2
    return tuple(totals)


@pytest.mark.parametrize("shutout", SHUTOUT_MODES)
@pytest.mark.parametrize("sides", [2, 3])
def test_final_total_is_one_function_for_a_game_and_a_batch(shutout, sides):
    """R41-R43 (R53 for three players): ``final_total`` of ints, side by side, gives each game's totals as the rules'
    text reads; of arrays, a batch's totals are its games'."""
    rules = Rules(shutout=shutout, game_bonus=100, box_bonus=20)
    rng = np.random.default_rng(sides)
    scores = rng.integers(0, 150, size=(200, sides))
    boxes = rng.integers(0, 3, size=(200, sides))
    winner = rng.integers(-1, sides, size=200)
    won = np.arange(sides) == winner[:, None]
    batch = between_hands.final_total(rules, scores, boxes, boxes.sum(axis=1, keepdims=True) - boxes, won,
                                      (winner != knock.NO_PLAYER)[:, None])
    for game in range(200):
        points, n, w = scores[game].tolist(), boxes[game].tolist(), int(winner[game])
        one = tuple(between_hands.final_total(rules, points[side], n[side], sum(n) - n[side], side == w,
                                              w != knock.NO_PLAYER) for side in range(sides))
        assert tuple(batch[game].tolist()) == one == reference_totals(rules, points, n, w)
    others_boxed = ((boxes > 0) & (np.arange(sides) != winner[:, None])).any(axis=1)
    assert ((winner != knock.NO_PLAYER) & ~others_boxed).sum() > 10, "the grid holds shutouts"
