"""A game of four players in two teams (docs/rules.md R54-R57): the two pairings of each deal, who meets whom, the
netting of their hands' results and the team scores.

Team 0 is seats 0 and 2, team 1 seats 1 and 3 (R54). Each deal is two two-player engine hands, one per pairing (R54
plays them at two tables), each with its own deck; pairing 0 is the one where seat 0 plays, pairing 1 the one where
seat 2 plays. In every pairing the team-0 seat is the engine's player 0 and the team-1 seat its player 1, so a
hand's points for player 0 are team 0's. Opponents switch every deal, and the team-0 players deal in odd deals, the
team-1 players in even ones (R55). A deal ends when both its hands have; its result for team 0 is the sum of the two
hands' signed points (R56), and the team scores run to ``rules.team_target`` (R57).
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

SEATS = (0, 1, 2, 3)
PAIRINGS = (0, 1)
#: The team of each seat: partners sit opposite (R54).
TEAM_OF_SEAT = (0, 1, 0, 1)


def team(seat: int) -> int:
    """The team of ``seat`` (R54)."""
    return TEAM_OF_SEAT[seat]


def pairing_seats(deal: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The seats of engine players 0 and 1 (the team-0 seat, then the team-1 seat) in pairings 0 and 1 of deal
    number ``deal`` (1, 2, ...): 0-1 and 2-3 in odd deals, 0-3 and 2-1 in even ones (R55)."""
    return ((0, 1), (2, 3)) if deal % 2 == 1 else ((0, 3), (2, 1))


def engine_dealer(deal: int) -> int:
    """The engine player who deals in both pairings of deal ``deal``: the team-0 seat in odd deals, the team-1 seat in
    even ones (R55, ours)."""
    return 0 if deal % 2 == 1 else 1


class Deal(NamedTuple):
    """A finished deal: its number, each pairing's seats (team-0 seat first) and hand outcome, and ``net``, the deal's
    result for team 0 (R56: positive scored by team 0, negative by team 1, 0 by nobody)."""

    number: int
    seats: tuple[tuple[int, int], tuple[int, int]]
    outcomes: tuple[HandOutcome, HandOutcome]
    net: int

    @property
    def scorer(self) -> int | None:
        """The team that scored this deal, None when nobody did."""
        return None if self.net == 0 else (0 if self.net > 0 else 1)

    def team_points(self, team_index: int) -> int:
        """The deal's netted result for ``team_index``: ``net`` for team 0, its negative for team 1."""
        return self.net if team_index == 0 else -self.net

    @property
    def dead(self) -> bool:
        """Both pairings' hands were dead (R19a counts such deals)."""
        return all(o.kind == "dead" for o in self.outcomes)


@dataclass(frozen=True)
class FourState:
    """A four-player game in progress or finished. ``deal`` is the number of the deal in play (or the last one);
    ``hands`` its two pairings' hands, ``results`` the outcome of each pairing whose hand is over (None while it is
    played). ``scores`` and ``deals_scored`` are by team. ``dead_in_row`` counts deals in a row where both pairings
    were dead (R19a); ``single_deal``: the game is this one deal, as when ``rules.target`` is None."""

    rules: Rules
    scores: tuple[int, int]
    deals_scored: tuple[int, int]
    deal: int
    hands: tuple[HandState, HandState]
    results: tuple[HandOutcome | None, HandOutcome | None]
    history: tuple[Deal, ...]
    winner: int | None
    over: bool
    dead_in_row: int = 0
    abandoned: bool = False
    single_deal: bool = False

    @property
    def to_target(self) -> bool:
        """True when the game goes on to ``team_target``, False when it is one deal (``target`` None, ours)."""
        return self.rules.target is not None and not self.single_deal

    @property
    def seats(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """Each pairing's seats in the deal in play."""
        return pairing_seats(self.deal)

    def pairing_of(self, seat: int) -> int:
        """The pairing ``seat`` plays in: seats 0 and 2 always head pairings 0 and 1."""
        return 0 if seat in self.seats[0] else 1


def _deal_hands(rules: Rules, rng: np.random.Generator, deal: int, decks=None) -> tuple[HandState, HandState]:
    dealer = engine_dealer(deal)
    if decks is None:
        return tuple(engine.new_hand(rules, rng, dealer=dealer) for _ in PAIRINGS)
    return tuple(engine.new_hand(rules, dealer=dealer, deck=deck) for deck in decks)


def new_game(rules: Rules, rng: np.random.Generator, *, decks=None, single_deal: bool = False) -> FourState:
    """Start a game and deal its first deal, pairing 0 then pairing 1, each from its own shuffle of ``rng``; ``decks``
    (two decks, as ``engine.new_hand`` takes them) fixes the first deal, the shuffles they replace still drawn from
    ``rng`` in a game to the target. No cut: R55 fixes who deals where."""
    if decks is not None and len(decks) != len(PAIRINGS):
        raise ValueError(f"decks must be one deck per pairing (2), got {len(decks)}")
    if decks is None or not single_deal:
        hands = _deal_hands(rules, rng, 1)
    if decks is not None:
        hands = _deal_hands(rules, rng, 1, decks)
    return FourState(rules=rules, scores=(0, 0), deals_scored=(0, 0), deal=1, hands=hands, results=(None, None),
                     history=(), winner=None, over=False, single_deal=single_deal)


def step(game: FourState, pairing: int, action, rng: np.random.Generator) -> FourState:
    """Play ``action`` in ``pairing`` (whose hand must be in play); when both pairings' hands are over, net the deal
    (R56), score it, end the game at ``team_target`` (R57) or after ``max_dead_hands`` dead deals in a row (R19a),
    or deal the next deal (R55)."""
    if game.over:
        raise IllegalActionError(f"illegal action {action!r}: the game is over, no action is legal")
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing must be 0 or 1, got {pairing!r}")
    if game.results[pairing] is not None:
        raise IllegalActionError(f"illegal action {action!r}: the hand of pairing {pairing} is over for this deal")
    hand = engine.step(game.hands[pairing], action)
    hands = tuple(hand if p == pairing else h for p, h in enumerate(game.hands))
    results = tuple(hand.outcome if p == pairing else r for p, r in enumerate(game.results))
    game = dataclasses.replace(game, hands=hands, results=results)
    if any(r is None for r in results):
        return game
    return record_deal(game, results, rng)


def record_deal(game: FourState, outcomes: tuple[HandOutcome, HandOutcome],
                rng: np.random.Generator | None = None) -> FourState:
    """Score the deal in play with these two pairings' outcomes (R56, R57) and deal the next one if the game goes on.
    A deal that scores nobody is not played again; the next deal follows R55."""
    if game.over:
        raise ValueError("the game is over; no more deals can be recorded")
    rules = game.rules
    done = Deal(game.deal, game.seats, tuple(outcomes), sum(o.player_points(0) for o in outcomes))
    scorer = done.scorer
    scores, deals_scored = game.scores, game.deals_scored
    if scorer is not None:
        scores = tuple(s + abs(done.net) if t == scorer else s for t, s in enumerate(scores))
        deals_scored = tuple(n + 1 if t == scorer else n for t, n in enumerate(deals_scored))
    history = game.history + (done,)
    dead_in_row = between_hands.dead_in_row_after(game.dead_in_row, done.dead)
    ended = dataclasses.replace(game, scores=scores, deals_scored=deals_scored, results=tuple(outcomes),
                                history=history, dead_in_row=dead_in_row)
    if not game.to_target or (scorer is not None and scores[scorer] >= rules.team_target):
        return dataclasses.replace(ended, winner=scorer, over=True)
    if between_hands.abandons(rules, dead_in_row):
        return dataclasses.replace(ended, winner=None, over=True, abandoned=True)
    if rng is None:
        raise ValueError("record_deal needs a numpy Generator (rng) to deal the next deal")
    deal = game.deal + 1
    return dataclasses.replace(ended, deal=deal, hands=_deal_hands(rules, rng, deal), results=(None, None))


def final_totals(game: FourState) -> tuple[int, int]:
    """Both teams' final totals (R57): team points, plus ``game_bonus`` to the winning team, ``box_bonus`` per deal
    a team scored in, and the shutout rule when the losing team scored in no deal; the points alone for a single
    deal or an abandoned game (R19a)."""
    if not game.over:
        raise ValueError("final totals exist only once the game is over")
    if not game.to_target or game.winner is None:
        return game.scores
    return match.totals_with_bonuses(game.rules, game.scores, game.deals_scored, game.winner)
