"""Two agents playing each other: one hand, one game to the target, the duplicate pair of either, and a run of
duplicate games as the evaluation's numbers.

This module owns the play loop that ``evaluate.py``, the tests and replays share, and the seeding that makes a
duplicate deal reproducible:

* the deck of hand ``h`` of game ``g`` depends only on ``(seed, g, h)``, so both seatings of a duplicate game see the
  same cards hand for hand, as long as the games last, and every pair of agents plays the same deals;
* the first dealer of game ``g`` is cut with its own generator ``(seed, g)``; it is the same seat in both seatings,
  so in the second one each agent holds exactly the cards and the dealer role the other agent held in the first;
* each agent draws its random choices from a generator seeded by ``(seed, g, seating, seat)``, so results never
  depend on which process played a game or in which order.

An agent is anything with ``act(view, rng) -> action`` (``agents.Agent``); this module only needs that method, so it
imports no agent.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from gin_env.evaluation.stats import N_COLUMNS
from gin_env.game import engine, match
from gin_env.game.match_record import EMPTY_RECORD
from gin_env.game.observation import view
from gin_env.game.rules import Rules
from gin_env.replay import recorder
from gin_env.table.checks import agent_action

#: Domain tags that keep the deck, dealer and agent generators of one seed apart.
_DECK_STREAM, _DEALER_STREAM, _AGENT_STREAM = 0, 1, 2

#: Called for every action, just before it is applied, with the state it is taken in and the action: the hook for
#: recording replays.
Observer = Callable[[engine.HandState, int], None]


@dataclass(frozen=True)
class GameResult:
    """One game (a single hand or a game to the target) seen by seat: index 0 is P1, 1 is P2.

    ``points`` are each seat's signed hand points summed over the hands (zero-sum, no end-of-game bonuses);
    ``totals`` the final totals with bonuses (R41-R43); ``winner`` None when no one won (a dead single hand, a tie
    that scores nothing, an abandoned game). ``abandoned``: the game ended after ``rules.max_dead_hands`` dead hands
    in a row (R19a); ``capped``: how many of its hands the turn cap ended (R19)."""

    points: tuple[int, int]
    totals: tuple[int, int]
    hands: int
    hands_won: tuple[int, int]
    winner: int | None
    outcomes: tuple[engine.HandOutcome, ...]
    abandoned: bool = False

    @property
    def capped(self) -> int:
        return sum(outcome.capped for outcome in self.outcomes)


def deal_rng(seed: int, game: int, hand: int) -> np.random.Generator:
    """A fresh generator for dealing hand ``hand`` of game ``game``; the engine shuffles the deck with it, so the
    deck is a pure function of the three numbers."""
    return np.random.default_rng([seed, _DECK_STREAM, game, hand])


def agent_rng(seed: int, game: int, seating: int, seat: int) -> np.random.Generator:
    """The generator of the agent in ``seat`` during seating ``seating`` (0 or 1) of game ``game``."""
    return np.random.default_rng([seed, _AGENT_STREAM, game, seating, seat])


def play_hand(state: engine.HandState, agents: Sequence, rngs: Sequence[np.random.Generator],
              scores: tuple[int, int] = (0, 0), observer: Observer | None = None,
              record: tuple[int, ...] = EMPTY_RECORD) -> engine.HandState:
    """Play ``state`` to its end: the agent of the player to act gets that player's view and its own generator.

    ``scores`` are the match scores by seat and ``record`` the match record (``match_record``), shown in the views.
    An answer that is not an integer action id raises ``table.AgentActionError``, an illegal action the engine's
    ``IllegalActionError``; both name the agent and its seat: an evaluation must never go on with an agent that
    broke the rules."""
    while state.phase != engine.OVER:
        player = state.current
        agent = agents[player]
        action = agent_action(agent, agent.act(view(state, player, scores, record), rngs[player]), f"P{player + 1}")
        try:
            after = engine.step(state, action)
        except engine.IllegalActionError as error:
            raise engine.IllegalActionError(f"P{player + 1} {agent!r}: {error}") from None
        if observer is not None:
            observer(state, action)
        state = after
    return state


def play_game(rules: Rules, agents: Sequence, seed: int, game: int, seating: int = 0,
              observer: Observer | None = None) -> GameResult:
    """Play game ``game`` between ``agents[0]`` (P1) and ``agents[1]`` (P2) under ``rules``: one hand when
    ``rules.target`` is None, else hands until a score reaches the target (R40), with the dealer rules of R44.

    ``seating`` only selects the agents' generators (see the module docstring); the cards and the first dealer
    depend on ``seed`` and ``game`` alone."""
    dealer = match.first_dealer(rules, np.random.default_rng([seed, _DEALER_STREAM, game]))
    state = match.new_match(rules, deal_rng(seed, game, 0), dealer=dealer)
    rngs = [agent_rng(seed, game, seating, seat) for seat in (0, 1)]
    while not state.over:
        finished = play_hand(state.hand, agents, rngs, state.scores, observer, state.record)
        state = match.record_hand(state, finished.outcome, deal_rng(seed, game, len(state.history) + 1))
    points = [0, 0]
    for outcome in state.history:
        for seat in (0, 1):
            points[seat] += outcome.player_points(seat)
    return GameResult(points=(points[0], points[1]), totals=match.final_totals(state), hands=len(state.history),
                      hands_won=state.hands_won, winner=state.winner, outcomes=state.history,
                      abandoned=state.abandoned)


def seats(a, b, seating: int) -> tuple:
    """Who sits where in one seating of a duplicate game, P1 first: A is P1 in seating 0, P2 in seating 1."""
    return (a, b) if seating == 0 else (b, a)


def play_duplicate(rules: Rules, agent_a, agent_b, seed: int, game: int,
                   observers: tuple[Observer | None, Observer | None] = (None, None), *,
                   replays: str | os.PathLike | None = None,
                   names: tuple[str, str] = ("a", "b")) -> tuple[GameResult, GameResult]:
    """Game ``game`` played twice on the same deals: first with ``agent_a`` as P1, then with the seats swapped;
    ``observers[s]`` watches seating ``s``.

    With ``replays``, a folder, every hand of both seatings is saved there as
    ``{run_prefix}-game{game:05d}-seating{0|1}-hand{n:03d}.json`` (``recorder.run_prefix`` of the rules, the seed
    and the agents' ``names``): runs with another seed, preset or agent never share a name, and a file that exists
    already is refused (``FileExistsError``). The results are the same with or without.

    Both results are indexed by seat, as played; ``a_side`` turns them into agent A's numbers."""
    if replays is not None:
        stem = f"{recorder.run_prefix(rules, seed, names)}-game{game:05d}"
        observers = tuple(recorder.Recorder(replays, f"{stem}-seating{seating}", seats(*names, seating))
                          for seating in (0, 1))
    first, second = (play_game(rules, seats(agent_a, agent_b, seating), seed, game, seating=seating,
                               observer=observers[seating]) for seating in (0, 1))
    return first, second


class ASide(NamedTuple):
    """Agent A's numbers in one seating of a duplicate game."""

    #: A's signed hand points, summed over the game's hands.
    points: int
    #: Hands played.
    hands: int
    #: Hands A won, and hands B won.
    a_won: int
    b_won: int
    #: The game's score for A: 1 for a win, 0.5 when nobody won, 0 for a loss.
    score: float


def a_side(result: GameResult, seating: int) -> ASide:
    """Agent A's numbers in one seating of a duplicate game (A is P1 in seating 0, P2 in seating 1)."""
    a, b = seats(0, 1, seating)
    score = 0.5 if result.winner is None else float(result.winner == a)
    return ASide(result.points[a], result.hands, result.hands_won[a], result.hands_won[b], score)


def play_games(rules: Rules, a, b, seed: int, games: range, replays: str | None = None,
               names: tuple[str, str] = ("a", "b"), on_game: Callable[[], None] | None = None) -> np.ndarray:
    """Play duplicate ``games`` between agents ``a`` and ``b`` in both seatings (saving replays under ``names`` in
    ``replays`` when asked, calling ``on_game()`` after each duplicate game); ``(len(games), 2 seatings,
    N_COLUMNS)`` numbers (see ``stats.POINTS`` .. ``ABANDONED``)."""
    out = np.zeros((len(games), 2, N_COLUMNS))
    for i, game in enumerate(games):
        results = play_duplicate(rules, a, b, seed, game, replays=replays, names=names)
        for seating, result in enumerate(results):
            out[i, seating] = (*a_side(result, seating), result.capped, result.abandoned)
        if on_game is not None:
            on_game()
    return out
