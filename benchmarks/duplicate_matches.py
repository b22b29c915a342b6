"""The duplicate eaai matches the search benchmarks play (``search_sighted.py``, ``world_reweighting.py``): pieces of
games on a pool of workers with a bar (``gin_env.evaluation.runner``), and the line that sums them up."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gin_env.evaluation import runner
from gin_env.evaluation.stats import HANDS, POINTS, SCORE, normal_interval

#: Duplicate matches per piece of work sent to a worker.
CHUNK = 25


def play_matches(play: Callable, job, matches: int, workers: int) -> np.ndarray:
    """``play(job, start, stop, on_game)`` (a module-level function returning ``duel.play_games``'s numbers for the
    matches ``start`` to ``stop - 1``) over ``matches`` matches on ``workers`` processes: ``(matches, 2,
    N_COLUMNS)``."""
    return np.concatenate(runner.play_in_pieces(play, job, range(matches), CHUNK, workers, True, "match"))


def result_line(out: np.ndarray) -> str:
    """The match win rate of the first agent with its 95% interval (a match scores its two seatings' mean), and its
    points per hand."""
    wins = out[:, :, SCORE].mean(axis=1)
    low, high = normal_interval(wins.mean(), wins.var(ddof=1) / len(wins))
    points = out[:, :, POINTS].sum() / out[:, :, HANDS].sum()
    return f"match win {wins.mean():.1%} [{low:.1%}, {high:.1%}], {points:+.2f} points per hand"
