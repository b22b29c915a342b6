"""The duplicate eaai matches the search experiments play (``search_sighted.py``, ``world_reweighting.py``): pieces of
games on a pool of workers with a bar (``gin_env.evaluation.runner``), and the line that sums them up."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gin_env.evaluation import runner
from gin_env.evaluation.stats import pair_stats

#: Duplicate matches per piece of work sent to a worker.
CHUNK = 25


def play_matches(play: Callable, job, matches: int, workers: int) -> np.ndarray:
    """``play(job, start, stop, on_game)`` (a module-level function returning ``duel.play_games``'s numbers for the
    matches ``start`` to ``stop - 1``) over ``matches`` matches on ``workers`` processes: ``(matches, 2,
    N_COLUMNS)``."""
    return np.concatenate(runner.play_in_pieces(play, job, range(matches), CHUNK, workers, True, "match"))


def result_line(out: np.ndarray) -> str:
    """The first agent's match win rate with its 95% interval and its points per hand, as ``gin-env evaluate``
    reports them (``stats.pair_stats``)."""
    pair = pair_stats(out)
    low, high = pair["a_match_win_rate_ci95"]
    return (f"match win {pair['a_match_win_rate']:.1%} [{low:.1%}, {high:.1%}], "
            f"{pair['a_points_per_hand']:+.2f} points per hand")
