"""The hand rules of ``gin_env.game.hand_rules``: each function answers the same compiled (as the batched kernels
inline it) as in Python (as the scalar engine calls it), over every preset and a grid of inputs, and agrees with
the rules' text (docs/rules.md R19, R19a, R29-R33, R37, R38, R44, R46, R47, R60, R61)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit

from gin_env.game.cards import NO_CARD
from gin_env.game.hand_rules import KNOCK_ROW, TURN_ROW, between_hands, knock, rule_values, turn
from gin_env.game.rules import PRESETS, Rules

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
            turn.returns_end(values, returns), turn.turn_cap_reached(values, turns),
            turn.after_discard(values, turns, returns, stock_left))


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
                  turn.returns_end(rules.turn_values, returns), turn.turn_cap_reached(rules.turn_values, turns),
                  turn.after_discard(rules.turn_values, turns, returns, stock))
        assert tuple(map(bool, python[:4])) == tuple(map(bool, _turn_compiled(row, turns, returns, stock, draws)[:4]))
        assert python[4] == _turn_compiled(row, turns, returns, stock, draws)[4]


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
    """R19 and R61 end the hand before R38's wall could offer the discard; R37 otherwise."""
    values = Rules.preset("openspiel", max_turns=10).turn_values
    assert turn.after_discard(values, 10, 2, 2) == turn.CAPPED
    assert turn.after_discard(values, 9, 2, 2) == turn.DEAD_HAND
    assert turn.after_discard(values, 9, 1, 2) == turn.WALL_OFFER
    assert turn.after_discard(values, 9, 1, 3) == turn.NEXT_TURN
    assert turn.after_discard(Rules().turn_values, 9, 2, 2) == turn.DEAD_HAND


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
