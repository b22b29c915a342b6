"""A game of Gin Rummy to the target score (docs/rules.md R9, R19a, R39-R44).

This module owns what lies between hands: the first dealer, running scores, hands won and the match record, when
the game ends (at the target, or abandoned after ``max_dead_hands`` dead hands in a row), who deals next, and the
final totals with game, box and shutout bonuses. One hand is ``engine``'s job.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from gin_env.game import cards, engine
from gin_env.game.engine import HandOutcome, HandState, IllegalActionError
from gin_env.game.hand_rules import between_hands
from gin_env.game.hand_rules.knock import NO_PLAYER
from gin_env.game.match_record import EMPTY_RECORD, record_after
from gin_env.game.rules import Rules

PLAYERS = (0, 1)
#: First-dealer choices that name a fixed player (R9).
FIXED_FIRST_DEALER = {"P1": 0, "P2": 1}


@dataclass(frozen=True)
class MatchState:
    """A game in progress or finished.

    ``scores`` are hand points toward the target (R40), without end-of-game bonuses; ``record`` how each player
    ended the hands so far (``match_record``). ``dealer`` deals ``hand``, the
    hand in play. Once the game is over, ``hand`` is the finished last hand when it was played through
    :func:`step`, and None when the last outcome came through :func:`record_hand`. ``dead_in_row`` counts the dead
    hands since the last hand that was not dead; ``abandoned`` is set when they reach ``rules.max_dead_hands`` and
    end the game with no winner (R19a). ``single_hand``: the game is one hand, as if ``rules.target`` were None
    (the hand is dealt under ``rules`` as they are, so every view still shows their target)."""

    rules: Rules
    scores: tuple[int, int]
    hands_won: tuple[int, int]
    dealer: int
    hand: HandState | None
    history: tuple[HandOutcome, ...]
    winner: int | None
    over: bool
    dead_in_row: int = 0
    abandoned: bool = False
    single_hand: bool = False
    record: tuple[int, ...] = EMPTY_RECORD

    @property
    def to_target(self) -> bool:
        """True when the game goes on to the target score, False when it is a single hand."""
        return self.rules.target is not None and not self.single_hand


def first_dealer(rules: Rules, rng: np.random.Generator) -> int:
    """The first dealer under ``rules.first_dealer`` (R9).

    In a cut, P1 then P2 draw one card each from a shuffled deck; with ``cut_low`` the lower rank deals, with
    ``cut_high`` the higher. Equal ranks cut again."""
    return cut(rules, rng, len(PLAYERS))


def cut(rules: Rules, rng: np.random.Generator, players: int) -> int:
    """The first dealer among ``players`` seats (R9, and R50 for three): a fixed player, a random one, or a cut in
    which each seat still in it draws one card from a shuffled deck, seat order; the lowest rank deals under
    ``cut_low``, the highest under ``cut_high``, and the seats tied for it cut again among themselves."""
    mode = rules.first_dealer
    if mode in FIXED_FIRST_DEALER:
        return FIXED_FIRST_DEALER[mode]
    if mode == "random":
        return int(rng.integers(players))
    seats = list(range(players))
    while len(seats) > 1:
        ranks = [cards.rank(c) for c in rng.choice(cards.N_CARDS, size=len(seats), replace=False).tolist()]
        best = min(ranks) if mode == "cut_low" else max(ranks)
        seats = [seat for seat, r in zip(seats, ranks) if r == best]
    return seats[0]


def new_match(rules: Rules, rng: np.random.Generator, *, dealer: int | None = None, deck=None,
              single_hand: bool = False) -> MatchState:
    """Start a game and deal its first hand; ``dealer`` (0 or 1, any integer type) overrides the cut (R9), ``deck``
    (card ids or names, top first, as ``engine.new_hand`` takes it) fixes the first hand's deal. In a game to the
    target the shuffle a scripted deck replaces is still drawn from ``rng``, so the later hands are the ones the
    seed deals. ``single_hand``: the game ends after this hand, with no bonuses (a match whose target is None)."""
    dealer = first_dealer(rules, rng) if dealer is None else engine.player_index(dealer, "dealer")
    if deck is None or not single_hand:
        hand = engine.new_hand(rules, rng, dealer=dealer)
    if deck is not None:
        hand = engine.new_hand(rules, dealer=dealer, deck=deck)
    return MatchState(rules=rules, scores=(0, 0), hands_won=(0, 0), dealer=dealer, hand=hand, history=(),
                      winner=None, over=False, single_hand=single_hand)


def next_dealer(rules: Rules, dealer: int, winner: int | None) -> int:
    """R44: the deal after a scored hand, or after a dead hand or a hand with no winner (``winner`` None)."""
    return between_hands.next_dealer(rules, dealer, NO_PLAYER if winner is None else winner)


def record_hand(match: MatchState, outcome: HandOutcome, rng: np.random.Generator | None = None) -> MatchState:
    """Add a finished hand's points, end the game at the target (R40) or abandon it after ``max_dead_hands`` dead
    hands in a row (R19a), pick the next dealer (R44) and deal the next hand with ``rng`` if the game goes on. With
    ``target`` None (or a ``single_hand`` game) the game is this one hand."""
    if match.over:
        raise ValueError("the match is over; no more hands can be recorded")
    rules = match.rules
    scores, hands_won = match.scores, match.hands_won
    w = outcome.winner
    if w is not None:
        scores = tuple(s + outcome.points if p == w else s for p, s in enumerate(scores))
        hands_won = tuple(n + 1 if p == w else n for p, n in enumerate(hands_won))
    history = match.history + (outcome,)
    match = dataclasses.replace(match, record=record_after(match.record, outcome.kind, outcome.knocker))
    dead_in_row = between_hands.dead_in_row_after(match.dead_in_row, outcome.kind == "dead")
    if not match.to_target or (w is not None and scores[w] >= rules.target):
        return dataclasses.replace(match, scores=scores, hands_won=hands_won, hand=None, history=history,
                                   winner=w, over=True, dead_in_row=dead_in_row)
    if between_hands.abandons(rules, dead_in_row):
        return dataclasses.replace(match, scores=scores, hands_won=hands_won, hand=None, history=history,
                                   winner=None, over=True, dead_in_row=dead_in_row, abandoned=True)
    if rng is None:
        raise ValueError("record_hand needs a numpy Generator (rng) to deal the next hand")
    dealer = next_dealer(rules, match.dealer, w)
    return dataclasses.replace(match, scores=scores, hands_won=hands_won, dealer=dealer,
                               hand=engine.new_hand(rules, rng, dealer=dealer), history=history,
                               dead_in_row=dead_in_row)


def step(match: MatchState, action, rng: np.random.Generator) -> MatchState:
    """Step the current hand; when it ends, record it and deal the next one (or end the game)."""
    if match.over:
        raise IllegalActionError(f"illegal action {action!r}: the match is over, no action is legal")
    hand = engine.step(match.hand, action)
    if hand.phase != engine.OVER:
        return _with_hand(match, hand)
    recorded = record_hand(_with_hand(match, hand), hand.outcome, rng)
    return _with_hand(recorded, hand) if recorded.over else recorded


def _with_hand(m: MatchState, hand: HandState | None) -> MatchState:
    """``m`` with ``hand`` in play, every other field as it was. This runs after every action of every env, so the
    copy is of the instance dict: a sixth of what ``dataclasses.replace`` costs, a third of calling the frozen
    ``__init__`` (which sets each field through ``object.__setattr__``), and it cannot drop a field added later."""
    new = object.__new__(type(m))
    new.__dict__.update(m.__dict__, hand=hand)
    return new


def final_totals(match: MatchState) -> tuple[int, int]:
    """Both players' final totals (R41-R43): hand points plus game bonus, box bonuses and the shutout rule.

    With ``target`` None or ``single_hand`` (a single hand) or an abandoned game (R19a) there are no bonuses: the
    totals are the hand points."""
    if not match.over:
        raise ValueError("final totals exist only once the match is over")
    if not match.to_target or match.winner is None:
        return match.scores
    return totals_with_bonuses(match.rules, match.scores, match.hands_won, match.winner)


def totals_with_bonuses(rules: Rules, scores: tuple[int, ...], boxes: tuple[int, ...],
                        winner: int) -> tuple[int, ...]:
    """Each side's final total of a game ``winner`` won (R41-R43; R53 for three players, R57 for teams, where
    ``boxes`` counts the deals a team scored in): ``between_hands.final_total`` of each side."""
    all_boxes = sum(boxes)
    return tuple(between_hands.final_total(rules, s, n, all_boxes - n, side == winner, True)
                 for side, (s, n) in enumerate(zip(scores, boxes)))


def margin(match: MatchState) -> int:
    """Winner's final total minus the loser's (R43), not clamped; 0 when nobody won (a dead single hand)."""
    totals = final_totals(match)
    if match.winner is None:
        return 0
    return totals[match.winner] - totals[1 - match.winner]
