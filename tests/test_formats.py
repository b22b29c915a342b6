"""The formats of docs/rules.md section 15 at the game level: three players (R49-R53) and four players in two
teams (R54-R57), with scripted decks and scripted hand outcomes, and seeded games checked after every step."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env.game import actions, cards, engine, four_players, match, three_players
from gin_env.game.engine import HandOutcome
from gin_env.game.rules import Rules
from tests.scripted import PRESETS, choose, make_deck

DEAD = engine.DEAD_OUTCOME
#: A hand the engine's player 0 wins at once: it takes the upcard 2D and knocks with 2 (AS 2S 3S, 4H 5H 6H,
#: 7C 8C 9C, 2D) discarding KD; the other holds no meld.
QUICK_KNOCK = make_deck("AS 2S 3S 4H 5H 6H 7C 8C 9C KD", "TD JH QC KS 9D 8S 7H 5C 3D 4C", "2D")


def won(winner: int, points: int) -> HandOutcome:
    """A scripted scored hand won by the engine's player ``winner``."""
    return HandOutcome(kind="knock", winner=winner, points=points, knocker=winner, knock_card=0, knocker_deadwood=0,
                       defender_deadwood=0, layoffs=(), knocker_melds=())


TIE = HandOutcome(kind="tie", winner=None, points=0, knocker=0, knock_card=0, knocker_deadwood=5,
                  defender_deadwood=5, layoffs=(), knocker_melds=())


class ScriptedCut:
    """Stands in for a Generator in cuts: each ``choice`` call returns the next cut cards."""

    def __init__(self, *draws: str):
        self.draws = [cards.parse(d) for d in draws]

    def choice(self, n, size, replace):
        assert (n, replace) == (52, False)
        draw = self.draws.pop(0)
        assert size == len(draw)
        return np.array(draw)


# ---------------------------------------------------------------------------------------------------------------
# Three players (R50-R53)
# ---------------------------------------------------------------------------------------------------------------

R3 = Rules(players=3)


@pytest.mark.parametrize(("mode", "draws", "dealer"), [
    ("cut_low", ["9S 3H KD"], 1),
    ("cut_high", ["9S 3H KD"], 2),
    ("cut_low", ["4S 4H KD", "QC 2C"], 1),      # seats 0 and 1 tie for lowest and cut again; seat 2 is out
    ("cut_low", ["4S KH 4D", "7C 7H", "8C 5H"], 2),
    ("cut_high", ["4S 4H KD"], 2),              # a tie below the highest card needs no second cut
])
def test_r50_three_way_cut_ties_cut_again_among_the_tied(mode, draws, dealer):
    assert match.cut(R3.replace(first_dealer=mode), ScriptedCut(*draws), 3) == dealer


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_r50_r51_dealer_sits_out_and_its_left_takes_the_non_dealer_role(dealer):
    game = three_players.new_game(R3, np.random.default_rng(0), dealer=dealer, deck=QUICK_KNOCK)
    assert game.sitting_out == dealer and dealer not in game.seats
    assert game.seats == ((dealer + 1) % 3, (dealer + 2) % 3)
    # Engine player 0 is the non-dealer (dealt first, offered the upcard first, R10/R13), player 1 deals.
    assert game.hand.dealer == 1 and game.hand.current == 0
    assert game.hand.hands[0] == engine.new_hand(R3, deck=QUICK_KNOCK, dealer=1).hands[0]


def test_r52_loser_deals_and_the_winner_meets_the_seat_that_sat_out():
    rng = np.random.default_rng(5)
    game = three_players.new_game(R3, rng, dealer=2, deck=QUICK_KNOCK)
    for label in ("TAKE_DISCARD", "KNOCK(KD)"):
        game = three_players.step(game, actions.parse(label), rng)
    (first,) = game.history
    assert first.seats == (0, 1) and first.outcome.winner == 0 and first.points(0) > 0
    assert first.points(1) == -first.points(0) and first.points(2) == 0
    assert game.scores == (first.points(0), 0, 0) and game.hands_won == (1, 0, 0)
    # Seat 1 lost, so it deals and sits out; seat 0 (the winner) meets seat 2 (who sat out).
    assert game.dealer == 1 and game.seats == (2, 0)
    game = three_players.record_hand(game, won(0, 7), rng)       # seat 2 beats seat 0
    assert game.dealer == 0 and game.seats == (1, 2) and game.scores == (first.points(0), 0, 7)


@pytest.mark.parametrize("no_winner", [DEAD, TIE])
def test_r52_a_dead_hand_keeps_the_dealer_and_the_same_two_players(no_winner):
    rng = np.random.default_rng(2)
    game = three_players.new_game(R3.replace(undercut_on_tie=False), rng, dealer=0)
    game = three_players.record_hand(game, no_winner, rng)
    assert game.dealer == 0 and game.seats == (1, 2) and game.scores == (0, 0, 0) and not game.over


def test_r53_game_ends_when_one_seat_reaches_the_target_with_bonuses_and_ranking():
    rng = np.random.default_rng(3)
    game = three_players.new_game(R3, rng, dealer=0)            # seats 1 v 2
    game = three_players.record_hand(game, won(0, 30), rng)     # seat 1 wins 30; seat 2 deals: 0 v 1
    game = three_players.record_hand(game, won(0, 20), rng)     # seat 0 wins 20; seat 1 deals: 2 v 0
    game = three_players.record_hand(game, won(1, 60), rng)     # seat 0 wins 60; seat 2 deals: 0 v 1
    assert not game.over and game.scores == (80, 30, 0)
    game = three_players.record_hand(game, won(0, 25), rng)     # seat 0 reaches 105
    assert game.over and game.winner == 0 and game.scores == (105, 30, 0) and game.hands_won == (3, 1, 0)
    # Seat 1 won a hand: no shutout. Game bonus 100 to the winner, box 20 per hand won to every seat.
    assert three_players.final_totals(game) == (105 + 100 + 60, 30 + 20, 0)
    assert three_players.ranking(game) == (0, 1, 2)


@pytest.mark.parametrize(("shutout", "winner_total"), [
    ("double_game_bonus", 110 + 200 + 40), ("double_hand_points", 220 + 100 + 40),
    ("double_total", (110 + 100 + 40) * 2), ("none", 110 + 100 + 40),
])
def test_r53_shutout_when_neither_other_seat_won_a_hand(shutout, winner_total):
    rng = np.random.default_rng(4)
    game = three_players.new_game(R3.replace(shutout=shutout), rng, dealer=2)   # seats 0 v 1
    game = three_players.record_hand(game, won(0, 50), rng)    # seat 0 wins; seat 1 deals: 2 v 0
    game = three_players.record_hand(game, won(1, 60), rng)    # seat 0 again, to 110
    assert game.over and game.winner == 0 and game.hands_won == (2, 0, 0)
    assert three_players.final_totals(game) == (winner_total, 0, 0)


def test_r53_single_hand_and_abandoned_games_have_no_bonuses():
    rng = np.random.default_rng(6)
    single = three_players.record_hand(three_players.new_game(R3.replace(target=None), rng, dealer=1),
                                       won(1, 12), rng)
    assert single.over and single.winner == 0 and three_players.final_totals(single) == (12, 0, 0)
    game = three_players.new_game(R3.replace(max_dead_hands=2), rng, dealer=1)
    game = three_players.record_hand(three_players.record_hand(game, DEAD, rng), DEAD, rng)
    assert game.over and game.abandoned and game.winner is None and three_players.final_totals(game) == (0, 0, 0)


# ---------------------------------------------------------------------------------------------------------------
# Four players in two teams (R54-R57)
# ---------------------------------------------------------------------------------------------------------------

R4 = Rules(players=4)


def test_r54_r55_partners_opposite_opponents_switch_and_the_deal_alternates():
    assert four_players.TEAM_OF_SEAT == (0, 1, 0, 1)
    rng = np.random.default_rng(7)
    game = four_players.new_game(R4, rng)
    seen = []
    for _ in range(4):
        seen.append((game.deal, game.seats, tuple(h.dealer for h in game.hands)))
        assert game.hands[0].deck != game.hands[1].deck          # each pairing its own shuffled deck
        game = four_players.record_deal(game, (won(0, 1), won(1, 1)), rng)   # results cancel: nobody scores
    assert seen == [
        (1, ((0, 1), (2, 3)), (0, 0)),   # odd deals: 0 v 1 and 2 v 3, the team-0 players deal
        (2, ((0, 3), (2, 1)), (1, 1)),   # even deals: 0 v 3 and 2 v 1, the team-1 players deal
        (3, ((0, 1), (2, 3)), (0, 0)),
        (4, ((0, 3), (2, 1)), (1, 1)),
    ]
    assert game.scores == (0, 0) and not game.over    # a deal that cancels is not replayed (R57)


@pytest.mark.parametrize(("outcomes", "scores", "boxes"), [
    ((won(0, 20), won(0, 15)), (35, 0), (1, 0)),     # both pairings to team 0: it scores both
    ((won(1, 20), won(1, 15)), (0, 35), (0, 1)),
    ((won(0, 20), won(1, 15)), (5, 0), (1, 0)),      # one each: the bigger win scores the difference
    ((won(0, 10), won(1, 26)), (0, 16), (0, 1)),
    ((DEAD, won(1, 12)), (0, 12), (0, 1)),           # a dead hand leaves the other pairing's result
    ((won(0, 9), DEAD), (9, 0), (1, 0)),
    ((won(0, 9), won(1, 9)), (0, 0), (0, 0)),        # results that cancel score nobody
    ((DEAD, DEAD), (0, 0), (0, 0)),
])
def test_r56_netting_of_the_two_pairings(outcomes, scores, boxes):
    rng = np.random.default_rng(8)
    game = four_players.record_deal(four_players.new_game(R4, rng), outcomes, rng)
    assert game.scores == scores and game.deals_scored == boxes
    assert game.history[0].net == scores[0] - scores[1]


def test_r56_a_played_deal_nets_the_two_pairings_scripted_hands():
    rng = np.random.default_rng(9)
    game = four_players.new_game(R4.replace(team_target=500), rng, decks=(QUICK_KNOCK, QUICK_KNOCK))
    # Odd deal: the team-0 seats deal, so the team-1 seats (engine player 1) are the non-dealers who take the upcard
    # and knock in both pairings: seat 1 beats seat 0 and seat 3 beats seat 2.
    assert [h.current for h in game.hands] == [1, 1]
    for pairing in (1, 0):
        for label in ("TAKE_DISCARD", "KNOCK(KD)"):
            game = four_players.step(game, pairing, actions.parse(label), rng)
        if pairing == 1:
            assert game.results[0] is None and game.deal == 1    # one pairing done: the deal goes on
            with pytest.raises(engine.IllegalActionError, match="the hand of pairing 1 is over for this deal"):
                four_players.step(game, 1, actions.DRAW_STOCK, rng)
    (deal,) = game.history
    points = deal.outcomes[0].points
    assert deal.outcomes[0].winner == 1 and deal.outcomes[1].winner == 1 and deal.net == -2 * points
    assert game.scores == (0, 2 * points) and game.deal == 2 and game.results == (None, None)


def test_r57_team_target_reached_mid_game_ends_it_at_once_with_bonuses():
    rng = np.random.default_rng(10)
    game = four_players.new_game(R4, rng)
    for outcomes in [(won(0, 60), DEAD), (won(1, 30), won(0, 10)), (won(0, 40), won(0, 20))]:
        game = four_players.record_deal(game, outcomes, rng)
    # Team 0: 60, then team 1 nets 20, then team 0 60 more: 120 < 125, the game goes on.
    assert not game.over and game.scores == (120, 20) and game.deals_scored == (2, 1)
    game = four_players.record_deal(game, (won(0, 8), won(1, 1)), rng)
    assert game.over and game.winner == 0 and game.scores == (127, 20) and game.deal == 4
    # No shutout (team 1 scored in deal 2): game bonus 100 to team 0, box 20 per deal scored in.
    assert four_players.final_totals(game) == (127 + 100 + 3 * 20, 20 + 20)


@pytest.mark.parametrize(("shutout", "winner_total"), [
    ("double_game_bonus", 130 + 200 + 40), ("double_hand_points", 260 + 100 + 40),
    ("double_total", (130 + 100 + 40) * 2), ("none", 130 + 100 + 40),
])
def test_r57_shutout_when_the_losing_team_scored_in_no_deal(shutout, winner_total):
    rng = np.random.default_rng(11)
    game = four_players.new_game(R4.replace(shutout=shutout), rng)
    game = four_players.record_deal(game, (won(1, 70), won(0, 5)), rng)   # team 1 nets 65
    game = four_players.record_deal(game, (won(1, 65), DEAD), rng)        # 130
    assert game.over and game.winner == 1 and game.deals_scored == (0, 2)
    assert four_players.final_totals(game) == (0, winner_total)


def test_r57_team_target_is_its_own_key_and_a_null_target_is_one_deal():
    rng = np.random.default_rng(12)
    game = four_players.new_game(R4.replace(team_target=30, target=500), rng)
    game = four_players.record_deal(game, (won(0, 30), DEAD), rng)
    assert game.over and game.winner == 0
    single = four_players.record_deal(four_players.new_game(R4.replace(target=None), rng), (won(1, 4), DEAD), rng)
    assert single.over and single.winner == 1 and four_players.final_totals(single) == (0, 4)


def test_r19a_dead_deals_in_a_row_abandon_a_four_player_game():
    rng = np.random.default_rng(13)
    game = four_players.new_game(R4.replace(max_dead_hands=2), rng)
    game = four_players.record_deal(game, (DEAD, DEAD), rng)
    game = four_players.record_deal(game, (won(0, 5), won(1, 5)), rng)   # cancels, but was played: the count resets
    assert game.dead_in_row == 0
    game = four_players.record_deal(four_players.record_deal(game, (DEAD, DEAD), rng), (DEAD, DEAD), rng)
    assert game.over and game.abandoned and game.winner is None and four_players.final_totals(game) == (0, 0)


# ---------------------------------------------------------------------------------------------------------------
# Seeded games under every preset, checked after every step
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", PRESETS)
def test_seeded_three_player_games_hold_every_invariant(preset):
    rules = Rules.preset(preset, players=3)
    rng = np.random.default_rng(21)
    for _ in range(3):
        game = three_players.new_game(rules, rng)
        while not game.over:
            game = three_players.step(game, choose(game.hand, rng), rng)
            engine.validate(game.hand)
            assert game.dealer not in game.seats
        target = rules.target
        assert game.abandoned or target is None or max(game.scores) >= target
        assert sum(h.outcome.points for h in game.history if h.outcome.winner is not None) == sum(game.scores)
        for before, after in zip(game.history, game.history[1:]):
            if before.outcome.winner is None:
                assert (after.dealer, after.seats) == (before.dealer, before.seats)
            else:
                assert after.dealer == before.seats[1 - before.outcome.winner]


@pytest.mark.parametrize("preset", PRESETS)
def test_seeded_four_player_games_hold_every_invariant(preset):
    rules = Rules.preset(preset, players=4)
    rng = np.random.default_rng(22)
    for _ in range(2):
        game = four_players.new_game(rules, rng)
        while not game.over:
            pairing = 0 if game.results[0] is None else 1
            game = four_players.step(game, pairing, choose(game.hands[pairing], rng), rng)
            engine.validate(game.hands[pairing])
        assert game.abandoned or rules.target is None or max(game.scores) >= rules.team_target
        assert sum(d.net for d in game.history) == game.scores[0] - game.scores[1]
