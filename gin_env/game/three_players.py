"""A game of three players (docs/rules.md R49-R53): who plays each hand, who deals, the scores and the totals.

Every hand is a two-player engine hand. The dealer sits it out (R50); the seat to the dealer's left takes the
engine's non-dealer role, player 0, and the other seat the dealer role, player 1 (R51). After a scored hand the
loser deals, so the winner meets the seat that sat out; a dead hand or a hand with no winner is dealt again by the
same dealer to the same two seats (R52). Each seat keeps its own score toward ``rules.target`` (R53).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from gin_env.game import engine, match
from gin_env.game.engine import HandOutcome, HandState, IllegalActionError
from gin_env.game.hand_rules import between_hands
from gin_env.game.rules import Rules

SEATS = (0, 1, 2)
#: The engine's dealer in a three-player hand: player 1, the seat across from the dealer's left (R51).
ENGINE_DEALER = 1


class SeatedHand(NamedTuple):
    """A finished hand: the seats of its engine players 0 and 1, the seat that dealt and sat out, the outcome."""

    seats: tuple[int, int]
    dealer: int
    outcome: HandOutcome

    def points(self, seat: int) -> int:
        """``seat``'s signed points in this hand: 0 for the seat that sat out."""
        return self.outcome.player_points(self.seats.index(seat)) if seat in self.seats else 0


@dataclass(frozen=True)
class ThreeState:
    """A three-player game in progress or finished. ``dealer`` deals the hand in play and sits it out; ``seats``
    are the seats of its engine players 0 and 1. ``scores`` and ``hands_won`` are by seat; the other fields mean
    what they mean in ``match.MatchState``."""

    rules: Rules
    scores: tuple[int, int, int]
    hands_won: tuple[int, int, int]
    dealer: int
    seats: tuple[int, int]
    hand: HandState | None
    history: tuple[SeatedHand, ...]
    winner: int | None
    over: bool
    dead_in_row: int = 0
    abandoned: bool = False
    single_hand: bool = False

    @property
    def to_target(self) -> bool:
        """True when the game goes on to the target score, False when it is a single hand."""
        return self.rules.target is not None and not self.single_hand

    @property
    def sitting_out(self) -> int:
        """The seat that sits the hand in play out: its dealer (R50)."""
        return self.dealer


def hand_seats(dealer: int) -> tuple[int, int]:
    """The seats of engine players 0 and 1 in a hand ``dealer`` deals: the dealer's left, then the other (R51)."""
    return (dealer + 1) % len(SEATS), (dealer + 2) % len(SEATS)


def _check_seat(value, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value not in SEATS:
        raise ValueError(f"{name} must be a seat 0, 1 or 2, got {value!r}")
    return int(value)


def new_game(rules: Rules, rng: np.random.Generator, *, dealer: int | None = None, deck=None,
             single_hand: bool = False) -> ThreeState:
    """Start a game and deal its first hand. ``dealer`` (a seat) overrides the three-way cut (R50); ``deck`` fixes
    the first hand's deal, the shuffle it replaces still drawn from ``rng`` in a game to the target (as in
    ``match.new_match``)."""
    dealer = match.cut(rules, rng, len(SEATS)) if dealer is None else _check_seat(dealer, "dealer")
    if deck is None or not single_hand:
        hand = engine.new_hand(rules, rng, dealer=ENGINE_DEALER)
    if deck is not None:
        hand = engine.new_hand(rules, dealer=ENGINE_DEALER, deck=deck)
    return ThreeState(rules=rules, scores=(0, 0, 0), hands_won=(0, 0, 0), dealer=dealer, seats=hand_seats(dealer),
                      hand=hand, history=(), winner=None, over=False, single_hand=single_hand)


def record_hand(game: ThreeState, outcome: HandOutcome, rng: np.random.Generator | None = None) -> ThreeState:
    """Add a finished hand's points to its winner's seat, end the game at the target (R53) or abandon it after
    ``max_dead_hands`` dead hands in a row (R19a), and deal the next hand: the loser deals after a scored hand, the
    same dealer to the same seats after any other (R52)."""
    if game.over:
        raise ValueError("the game is over; no more hands can be recorded")
    rules = game.rules
    seated = SeatedHand(game.seats, game.dealer, outcome)
    history = game.history + (seated,)
    dead_in_row = between_hands.dead_in_row_after(game.dead_in_row, outcome.kind == "dead")
    if outcome.winner is None:
        scores, hands_won, winner, dealer = game.scores, game.hands_won, None, game.dealer
    else:
        winner, dealer = game.seats[outcome.winner], game.seats[1 - outcome.winner]
        scores = tuple(s + outcome.points if seat == winner else s for seat, s in enumerate(game.scores))
        hands_won = tuple(n + 1 if seat == winner else n for seat, n in enumerate(game.hands_won))
    if not game.to_target or (winner is not None and scores[winner] >= rules.target):
        return dataclasses.replace(game, scores=scores, hands_won=hands_won, history=history, winner=winner,
                                   over=True, dead_in_row=dead_in_row)
    if between_hands.abandons(rules, dead_in_row):
        return dataclasses.replace(game, scores=scores, hands_won=hands_won, history=history, winner=None,
                                   over=True, dead_in_row=dead_in_row, abandoned=True)
    if rng is None:
        raise ValueError("record_hand needs a numpy Generator (rng) to deal the next hand")
    return dataclasses.replace(game, scores=scores, hands_won=hands_won, dealer=dealer, seats=hand_seats(dealer),
                               hand=engine.new_hand(rules, rng, dealer=ENGINE_DEALER), history=history,
                               dead_in_row=dead_in_row)


def step(game: ThreeState, action, rng: np.random.Generator) -> ThreeState:
    """Step the hand in play; when it ends, record it and deal the next one (or end the game). The hand is left
    in ``hand`` when the game ends with it."""
    if game.over:
        raise IllegalActionError(f"illegal action {action!r}: the game is over, no action is legal")
    hand = engine.step(game.hand, action)
    if hand.phase != engine.OVER:
        return dataclasses.replace(game, hand=hand)
    return record_hand(dataclasses.replace(game, hand=hand), hand.outcome, rng)


def final_totals(game: ThreeState) -> tuple[int, int, int]:
    """The three final totals (R53): hand points, plus ``game_bonus`` to the winner, ``box_bonus`` per hand won to
    every seat and the shutout rule when neither other seat won a hand; hand points alone for a single hand or an
    abandoned game (R19a)."""
    if not game.over:
        raise ValueError("final totals exist only once the game is over")
    if not game.to_target or game.winner is None:
        return game.scores
    return match.totals_with_bonuses(game.rules, game.scores, game.hands_won, game.winner)


def ranking(game: ThreeState) -> tuple[int, int, int]:
    """The seats from the highest final total to the lowest; the winner first whatever the totals (R53), then
    equal totals by seat number."""
    totals = final_totals(game)
    return tuple(sorted(SEATS, key=lambda seat: (seat != game.winner, -totals[seat], seat)))
