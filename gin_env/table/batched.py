"""The batched twin of ``table``: the framing of N games at once, in fixed-shape arrays over a ``HandBatch``.

This module owns, per game, what ``table.Table`` and ``match`` own for one: the first dealer (R9), dealing, the
episode kind (``episode="hand"``: every hand ends its game; ``"match"``: a game to the target), running scores,
hands won (R40) and the match record (``match_record``), dead hands in a row and abandoned games (R19a), the
final totals with game, box and shutout bonuses (R41-R43), who deals next (R44), and each seat's points for a
finished hand including the end-of-game bonuses. ``vector.GinRummyVectorEnv`` adapts it to Gymnasium's vector API;
``tests/test_vector_vs_env.py`` holds it to the scalar table.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gin_env.batch.hand_batch import DEAD, NO_PLAYER, HandBatch
from gin_env.game.hand_rules import between_hands
from gin_env.game.match import FIXED_FIRST_DEALER
from gin_env.game.match_record import ADDS_BY_KIND, RECORD_KINDS
from gin_env.game.rules import Rules
from gin_env.table.checks import check_episode, positive_int

#: The most games one batch holds (the vector env's ``num_envs``). Every game's arrays are made up front, about 7.5 kB
#: a game with its observations, so the bound keeps a batch under about 500 MB.
MAX_NUM_ENVS = 65_536


def check_num_envs(num_envs) -> int:
    """``num_envs`` as an int from 1 to :data:`MAX_NUM_ENVS`; ``ValueError`` naming it otherwise, before any array is
    made."""
    n = positive_int(num_envs, "num_envs")
    if n > MAX_NUM_ENVS:
        raise ValueError(f"num_envs must be at most {MAX_NUM_ENVS:,} (each game's arrays are made up front), got {n:,}")
    return n


class Recorded(NamedTuple):
    """What :meth:`BatchTable.record` found, one row per game recorded."""

    #: The seat's signed hand points.
    hand_points: np.ndarray
    #: The seat's signed points for the step: the hand's, plus the end-of-game bonuses where the game ended.
    points: np.ndarray
    #: The game ended (target reached, abandoned, or a single hand).
    ends: np.ndarray
    #: For games that ended, told to the seat (own first): scores, hands won, final totals, abandoned (0/1); (k, 7).
    ended: np.ndarray


class BatchTable:
    """``n`` games of ``rules``, each a single hand (``episode="hand"``) or a game to the target (``"match"``)."""

    def __init__(self, rules: Rules, episode: str, n: int) -> None:
        check_episode(episode)
        self.rules = rules
        self.episode = episode
        self.batch = HandBatch(rules, n)
        self.scores = np.zeros((n, 2), dtype=np.int64)
        self.hands_won = np.zeros((n, 2), dtype=np.int64)
        #: Per game and player, ``match_record``'s counts (``RECORD_KINDS``) over the game's finished hands.
        self.match_record = np.zeros((n, 2, len(RECORD_KINDS)), dtype=np.int64)
        #: Per game, dead hands in a row in the game in play (R19a).
        self.dead_in_row = np.zeros(n, dtype=np.int64)

    def first_dealers(self, k: int, rng: np.random.Generator) -> np.ndarray:
        """R9 for k games. A cut deals to each player with probability 1/2, so it is drawn as a fair coin."""
        mode = self.rules.first_dealer
        if mode in FIXED_FIRST_DEALER:
            return np.full(k, FIXED_FIRST_DEALER[mode], dtype=np.int64)
        return rng.integers(2, size=k)

    def new_games(self, games: np.ndarray, rng: np.random.Generator) -> None:
        """Start a game in each of ``games``: scores cleared, the first hand dealt by the first dealer (R9)."""
        self.scores[games] = 0
        self.hands_won[games] = 0
        self.match_record[games] = 0
        self.dead_in_row[games] = 0
        self.deal(games, self.first_dealers(games.size, rng), rng)

    def deal(self, games: np.ndarray, dealers: np.ndarray, rng: np.random.Generator) -> None:
        """Deal a hand, shuffled with ``rng``, in each of ``games``."""
        decks = rng.permuted(np.tile(np.arange(self.rules.deck.n_cards, dtype=np.int8), (games.size, 1)), axis=1)
        self.batch.deal(games, decks, dealers)

    def record(self, games: np.ndarray, seats: np.ndarray, rng: np.random.Generator) -> Recorded:
        """Record the finished hands of ``games``, told to ``seats`` (one per game): in a match, add hand points
        (R40), end games at the target or abandon them after ``max_dead_hands`` dead hands in a row (R19a), add the
        final bonuses to the points (R41-R43), and deal the next hand (R44) where the game goes on."""
        b = self.batch
        hand_points = b.player_points(games, seats)
        points = hand_points.copy()
        if self.episode == "hand":
            return Recorded(hand_points, points, np.ones(games.size, dtype=bool), np.zeros((0, 7), dtype=np.int64))
        rules = self.rules
        winner = b.winner[games]
        won = winner != NO_PLAYER
        self.scores[games[won], winner[won]] += b.points[games[won]]
        self.hands_won[games[won], winner[won]] += 1
        knocker = b.knocker[games]
        knocked = knocker != NO_PLAYER
        self.match_record[games[knocked], knocker[knocked]] += ADDS_BY_KIND[b.kind[games[knocked]]]
        dead_in_row = between_hands.dead_in_row_after(self.dead_in_row[games], b.kind[games] == DEAD)
        self.dead_in_row[games] = dead_in_row
        if rules.target is None:
            ends = np.ones(games.size, dtype=bool)
            abandoned = np.zeros(games.size, dtype=bool)
        else:
            ends = won & (self.scores[games, np.maximum(winner, 0)] >= rules.target)
            abandoned = ~ends & between_hands.abandons(rules, dead_in_row)
            ends |= abandoned
        done = games[ends]
        totals = self.final_totals(done, winner[ends])
        rows = np.arange(done.size)
        me, them = seats[ends], 1 - seats[ends]
        scores = self.scores[done]
        # The bonuses: final totals' difference minus the hand points already paid hand by hand.
        points[ends] += (totals[rows, me] - totals[rows, them]) - (scores[rows, me] - scores[rows, them])
        ended = np.stack([scores[rows, me], scores[rows, them], self.hands_won[done, me], self.hands_won[done, them],
                          totals[rows, me], totals[rows, them], abandoned[ends]], axis=1)
        going = games[~ends]
        if going.size:
            self.deal(going, next_dealers(rules, b.dealer[going], winner[~ends]), rng)
        return Recorded(hand_points, points, ends, ended)

    def final_totals(self, games: np.ndarray, winner: np.ndarray) -> np.ndarray:
        """``match.final_totals`` for many finished games: (k, 2) totals indexed by player (R41-R43); the scores
        alone where each game is a single hand (``target`` None)."""
        scores, boxes = self.scores[games], self.hands_won[games]
        if self.rules.target is None:
            return scores
        won = np.arange(scores.shape[1]) == winner[:, None]
        return between_hands.final_total(self.rules, scores, boxes, boxes.sum(axis=1, keepdims=True) - boxes, won,
                                         (winner != NO_PLAYER)[:, None])


def next_dealers(rules: Rules, dealer: np.ndarray, winner: np.ndarray) -> np.ndarray:
    """R44, as ``match.next_dealer`` for many games (``winner`` is ``NO_PLAYER`` where nobody won)."""
    return between_hands.next_dealer(rules, dealer, winner)
