"""The search agent's rollouts and what their outcomes are worth: every sampled game played to the end of its hand
by a policy per seat (:func:`play_out`), and the value of the hand's points to the viewer (:func:`hand_value`), in a
game to the target the chance of winning the game (:func:`game_win_table`)."""

from __future__ import annotations

import functools

import numpy as np

from gin_env.batch.hand_batch import HandBatch
from gin_env.batch.observation import batch_view
from gin_env.game.engine import OVER
from gin_env.game.match_record import RECORD_KINDS, seen_by
from gin_env.game.observation import PlayerView
from gin_env.game.rules import Rules

from .simple import SimpleAgent

#: The simple agent, whose compiled batch policy plays rollouts (and the hands behind :func:`game_win_table`).
SIMPLE = SimpleAgent()


def by_player(record: tuple[int, ...], player: int) -> np.ndarray:
    """A view's match record (own counts first) as ``(2, len(RECORD_KINDS))`` counts indexed by player."""
    # Swapping the halves is its own inverse: seen_by turns own-first back into player order.
    return np.asarray(seen_by(record, player), dtype=np.int64).reshape(2, len(RECORD_KINDS))


def play_out(batch: HandBatch, rng: np.random.Generator, seats=(SIMPLE, SIMPLE),
             record: np.ndarray | None = None) -> None:
    """Play every game of ``batch`` to the end of its hand, player 0 following ``seats[0]`` and player 1
    ``seats[1]`` (anything with ``act_batch``: the simple agent's compiled policy, or a guide network), seeing
    ``record`` (:func:`by_player`, the same in every game: a hand's rollouts happen before it is recorded) as their
    match record."""
    while True:
        live = np.flatnonzero(batch.phase != OVER)
        if live.size == 0:
            return
        movers = batch.current[live]
        groups = [(seats[0], live)] if seats[0] is seats[1] else \
            [(policy, live[movers == player]) for player, policy in enumerate(seats)]
        for policy, games in groups:
            if games.size == 0:
                continue
            records = None if record is None else np.broadcast_to(record, (games.size, *record.shape))
            v = batch_view(batch, games, batch.current[games], record=records)
            batch.step(games, policy.act_batch(v, rng), legal_bits=v.legal_bits)


def hand_value(view: PlayerView, points: np.ndarray, points_weight: float) -> np.ndarray:
    """The value of a hand that ends with the viewer's signed ``points`` (see the module docstring)."""
    target = view.target
    if target is None:
        return points.astype(np.float64)
    own, other = view.scores
    table = game_win_table(view.rules)
    mine = np.clip(own + np.maximum(points, 0), 0, target)
    theirs = np.clip(other + np.maximum(-points, 0), 0, target)
    win = table[mine, theirs]
    return (1.0 - points_weight) * target * win + points_weight * points


#: Hands of simple against simple whose scores make the hand-points distribution of :func:`game_win_table`.
_MODEL_HANDS = 4096
_MODEL_SEED = 0


@functools.lru_cache(maxsize=16)
def game_win_table(rules: Rules) -> np.ndarray:
    """((target+1) x (target+1)) probability that the player with score ``a`` wins a game to ``rules.target`` against
    one with score ``b``, before a hand: 1 at ``a == target``, 0 at ``b == target`` (scores are capped there). Each
    later hand that scores is won by either player with probability 1/2, for points drawn from those of
    ``_MODEL_HANDS`` single hands of simple against simple under ``rules`` (seed ``_MODEL_SEED``); dead hands and
    ties that score nothing change no score and are left out."""
    target = rules.target
    points = _simple_hand_points(rules.replace(target=None))
    values, counts = np.unique(points[points > 0], return_counts=True)
    probs = counts / counts.sum()
    return _win_table(target, values.astype(np.int64), probs)


def _simple_hand_points(rules: Rules) -> np.ndarray:
    """Points of the winner of each of ``_MODEL_HANDS`` hands of simple against simple (0 where nobody won)."""
    rng = np.random.default_rng(_MODEL_SEED)
    n = _MODEL_HANDS
    batch = HandBatch(rules, n)
    decks = rng.permuted(np.tile(np.arange(rules.deck.n_cards), (n, 1)), axis=1)
    batch.deal(np.arange(n), decks, rng.integers(2, size=n))
    play_out(batch, rng)
    return np.where(batch.winner == -1, 0, batch.points)


def _win_table(target: int, values: np.ndarray, probs: np.ndarray) -> np.ndarray:
    win = np.zeros((target + 1, target + 1))
    win[target, :] = 1.0
    win[target, target] = 0.5  # unreachable: one hand cannot bring both players to the target
    for a in range(target - 1, -1, -1):
        mine = np.minimum(a + values, target)
        for b in range(target - 1, -1, -1):
            theirs = np.minimum(b + values, target)
            win[a, b] = 0.5 * (probs @ win[mine, b]) + 0.5 * (probs @ win[a, theirs])
    return win
