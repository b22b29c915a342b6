"""The duel play loop: duplicate seatings see the same deals with the seats swapped, games are reproducible from
(seed, game) alone, matches run to the target (R40), and illegal agent actions stop the game."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env import agents
from gin_env.evaluation import duel
from gin_env.game import engine, match
from gin_env.game.actions import N_ACTIONS
from gin_env.game.rules import Rules


class Watcher:
    """An observer that keeps the first state of every hand and counts actions."""

    def __init__(self) -> None:
        self.deals: list[engine.HandState] = []
        self.actions = 0

    def __call__(self, state: engine.HandState, action: int) -> None:
        if not self.deals or self.deals[-1].deck != state.deck:
            self.deals.append(state)
        self.actions += 1


def test_hand_rng_deals_are_a_pure_function_of_seed_game_and_hand():
    first = engine.new_hand(Rules(), duel.deal_rng(3, 7, 2))
    again = engine.new_hand(Rules(), duel.deal_rng(3, 7, 2))
    assert first.deck == again.deck
    others = {engine.new_hand(Rules(), duel.deal_rng(*key)).deck for key in ((4, 7, 2), (3, 8, 2), (3, 7, 3))}
    assert first.deck not in others and len(others) == 3


def test_a_single_hand_game_follows_the_rules_and_reports_by_seat():
    rules = Rules.preset("standard", target=None)
    watcher = Watcher()
    result = duel.play_game(rules, (agents.load("simple"), agents.load("random")), 11, 0, observer=watcher)
    assert result.hands == 1 and len(result.outcomes) == 1 and len(watcher.deals) == 1
    outcome = result.outcomes[0]
    assert result.points == (outcome.player_points(0), outcome.player_points(1))
    assert sum(result.points) == 0 and result.winner == outcome.winner
    assert watcher.actions > 0


def test_duplicate_seatings_swap_the_cards_and_keep_the_dealer_seat():
    rules = Rules.preset("eaai", target=None)
    a, b = agents.load("simple"), agents.load("random")
    watchers = [Watcher(), Watcher()]
    for seating, seats in enumerate(((a, b), (b, a))):
        duel.play_game(rules, seats, 5, 9, seating=seating, observer=watchers[seating])
    first, second = watchers[0].deals[0], watchers[1].deals[0]
    assert first.deck == second.deck and first.dealer == second.dealer
    # Agent A sits in seat 0 first, seat 1 second: the same seat holds the same cards, so A gets B's cards.
    assert first.hands == second.hands


def test_duplicate_matches_deal_the_same_deck_for_each_hand_number():
    rules = Rules.preset("eaai")
    a, b = agents.load("simple"), agents.load("random")
    watchers = [Watcher(), Watcher()]
    for seating, seats in enumerate(((a, b), (b, a))):
        duel.play_game(rules, seats, 2, 4, seating=seating, observer=watchers[seating])
    decks = [[s.deck for s in w.deals] for w in watchers]
    common = min(len(decks[0]), len(decks[1]))
    assert common >= 2 and decks[0][:common] == decks[1][:common]


def test_a_match_is_played_to_the_target_with_consistent_totals():
    rules = Rules.preset("standard")
    result = duel.play_game(rules, (agents.load("simple"), agents.load("random")), 1, 0)
    assert result.winner in (0, 1) and result.hands == len(result.outcomes)
    winner_points = sum(o.points for o in result.outcomes if o.winner == result.winner)
    assert winner_points >= rules.target  # R40
    assert result.hands_won == tuple(sum(o.winner == p for o in result.outcomes) for p in (0, 1))
    assert sum(result.points) == 0
    assert result.totals[result.winner] > result.totals[1 - result.winner]


def test_play_duplicate_is_reproducible_and_a_side_reads_agent_a():
    rules = Rules.preset("eaai")
    a, b = agents.load("simple"), agents.load("random")
    first = duel.play_duplicate(rules, a, b, 3, 1)
    assert first == duel.play_duplicate(rules, a, b, 3, 1)
    for seating, result in enumerate(first):
        points, hands, a_won, b_won, score = duel.a_side(result, seating)
        seat_a = seating  # A is P1 in seating 0 and P2 in seating 1
        assert points == result.points[seat_a] and hands == result.hands
        assert (a_won, b_won) == (result.hands_won[seat_a], result.hands_won[1 - seat_a])
        assert score == (1.0 if result.winner == seat_a else 0.0)


def test_a_side_scores_a_game_without_winner_as_half():
    outcome = engine.DEAD_OUTCOME
    result = duel.GameResult(points=(0, 0), totals=(0, 0), hands=1, hands_won=(0, 0), winner=None,
                             outcomes=(outcome,))
    assert duel.a_side(result, 1) == (0, 1, 0, 0, 0.5)


def test_scores_reach_the_views_of_a_match():
    seen = []
    simple = agents.load("simple")

    class Recording:
        def act(self, view, rng):
            seen.append(view.scores)
            return simple.act(view, rng)

    rules = Rules.preset("eaai")
    result = duel.play_game(rules, (Recording(), agents.load("simple")), 6, 0)
    assert result.hands > 1
    assert seen[0] == (0, 0) and any(s != (0, 0) for s in seen)


def test_an_illegal_action_stops_the_game_with_the_engine_error():
    class Cheater:
        def act(self, view, rng):
            return int(np.flatnonzero(~view.legal_mask)[0]) if not view.legal_mask.all() else N_ACTIONS

    with pytest.raises(engine.IllegalActionError, match="illegal action"):
        duel.play_game(Rules(), (Cheater(), agents.load("random")), 0, 0)


def test_first_dealer_follows_the_rules():
    rules = Rules.preset("standard", first_dealer="P2", target=None)
    watcher = Watcher()
    duel.play_game(rules, (agents.load("random"), agents.load("random")), 0, 0, observer=watcher)
    assert watcher.deals[0].dealer == match.FIXED_FIRST_DEALER["P2"]
