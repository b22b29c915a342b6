"""The statistics of an evaluation: per-pair rates and points with 95% intervals and Elo ratings (two players), per
side rates and points with 95% intervals (three and four players); the definitions are in :mod:`gin_env.evaluation`
and :mod:`gin_env.evaluation.formats`."""

from __future__ import annotations

import math

import numpy as np

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054
ELO_MEAN = 1500.0
ELO_SCALE = 400.0 / math.log(10.0)
#: Columns of the per-game numbers: A's side as ``duel.a_side`` returns them, then the game's capped hands (R19) and
#: whether it was abandoned (R19a).
POINTS, HANDS, A_WON, B_WON, SCORE, CAPPED, ABANDONED = range(7)
N_COLUMNS = 7
#: Columns of a side's numbers in one seating of a game of three or four players: won (0 or 1), its points, and the
#: hands or deals the game lasted.
SIDE_WON, SIDE_POINTS, SIDE_DEALS = range(3)
N_SIDE_COLUMNS = 3


def hand_score(points: float) -> float:
    """A hand's score for the player whose signed points these are: 1 won, 1/2 no winner, 0 lost."""
    return 1.0 if points > 0 else 0.5 if points == 0 else 0.0


def ratio_estimate(numerators: np.ndarray, denominators: np.ndarray) -> tuple[float, float]:
    """``sum(num) / sum(den)`` over independent units (at least two), and the variance of that ratio (delta
    method)."""
    n = numerators.size
    ratio = numerators.sum() / denominators.sum()
    residual = numerators - ratio * denominators
    variance = residual.var(ddof=1) / (n * denominators.mean() ** 2)
    return float(ratio), float(variance)


def normal_interval(mean: float, variance: float) -> list[float]:
    half = Z95 * math.sqrt(variance)
    return [mean - half, mean + half]


def wilson_interval(p: float, variance: float, count: int) -> list[float]:
    """Wilson score interval for a rate ``p`` whose estimate has ``variance``, at the effective sample size
    ``p(1-p) / variance``; with no spread between units (or ``p`` at 0 or 1), at ``count`` independent outcomes."""
    spread = p * (1.0 - p)
    n_eff = spread / variance if variance > 0 and spread > 0 else count
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n_eff)) / (1 + z2 / n_eff)
    half = Z95 * math.sqrt(spread / n_eff + z2 / (4 * n_eff * n_eff)) / (1 + z2 / n_eff)
    # The interval contains p exactly; min/max only absorb rounding at p = 0 or 1.
    return [max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))]


def pair_stats(games: np.ndarray) -> dict:
    """The statistics of one pair from its ``(n, 2, N_COLUMNS)`` numbers; the duplicate pair (axis 1 summed) is the
    unit."""
    per_pair = games.sum(axis=1)
    hands = per_pair[:, HANDS]
    no_winner = hands - per_pair[:, A_WON] - per_pair[:, B_WON]
    ppg, ppg_var = ratio_estimate(per_pair[:, POINTS], hands)
    hwr, hwr_var = ratio_estimate(per_pair[:, A_WON] + 0.5 * no_winner, hands)
    scores = games[:, :, SCORE].mean(axis=1)
    mwr = float(scores.mean())
    mwr_var = float(scores.var(ddof=1) / scores.size)
    duplicate = (np.sign(per_pair[:, POINTS]) + 1) / 2
    dwr = float(duplicate.mean())
    dwr_var = float(duplicate.var(ddof=1) / duplicate.size)
    n_games = 2 * len(games)
    return {
        "games": n_games,
        "hands": int(hands.sum()),
        "a_points_per_hand": ppg,
        "a_points_per_hand_ci95": normal_interval(ppg, ppg_var),
        "a_hand_win_rate": hwr,
        "a_hand_win_rate_ci95": wilson_interval(hwr, hwr_var, int(hands.sum())),
        "a_hands_won": int(per_pair[:, A_WON].sum()),
        "b_hands_won": int(per_pair[:, B_WON].sum()),
        "no_winner_hands": int(no_winner.sum()),
        "a_match_win_rate": mwr,
        "a_match_win_rate_ci95": wilson_interval(mwr, mwr_var, n_games),
        "a_duplicate_win_rate": dwr,
        "a_duplicate_win_rate_ci95": wilson_interval(dwr, dwr_var, len(games)),
        "capped_hands": int(per_pair[:, CAPPED].sum()),
        "abandoned_games": int(per_pair[:, ABANDONED].sum()),
    }


def fit_elo(names: list[str], results: list[tuple[str, str, float, float]]) -> dict[str, float]:
    """Bradley-Terry ratings from ``(a, b, a's total score, games)`` per pair, by Newton's method on the
    log-likelihood; each pair also gets one virtual drawn game (the prior that keeps perfect records finite)."""
    index = {name: i for i, name in enumerate(names)}
    k = len(names)
    theta = np.zeros(k)
    for _ in range(100):
        gradient = np.zeros(k)
        hessian = np.zeros((k, k))
        for a, b, score, games in results:
            i, j = index[a], index[b]
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            g = (score + 0.5) - (games + 1) * p
            w = (games + 1) * p * (1 - p)
            gradient[i] += g
            gradient[j] -= g
            hessian[i, i] -= w
            hessian[j, j] -= w
            hessian[i, j] += w
            hessian[j, i] += w
        # The likelihood only sees rating differences: the least-squares step has no component along all-ones.
        move = np.linalg.lstsq(hessian, -gradient, rcond=None)[0]
        theta += move - move.mean()
        if np.abs(move).max() < 1e-10:
            break
    theta -= theta.mean()
    return {name: float(ELO_MEAN + ELO_SCALE * theta[index[name]]) for name in names}


def side_stats(numbers: np.ndarray, side: int) -> dict:
    """Game win rate and points per deal of one side of a line-up of three or four players, from the line-up's
    ``(games, seatings, sides, N_SIDE_COLUMNS)`` numbers, with 95% intervals; the game (all its seatings) is the
    unit."""
    per_game = numbers[:, :, side, :].sum(axis=1)
    seatings = numbers.shape[1]
    wins = per_game[:, SIDE_WON] / seatings
    rate, rate_var = float(wins.mean()), float(wins.var(ddof=1) / wins.size)
    ppd, ppd_var = ratio_estimate(per_game[:, SIDE_POINTS], per_game[:, SIDE_DEALS])
    return {"win_rate": rate, "win_rate_ci95": wilson_interval(rate, rate_var, numbers.shape[0] * seatings),
            "points_per_deal": ppd, "points_per_deal_ci95": normal_interval(ppd, ppd_var),
            "deals": int(per_game[:, SIDE_DEALS].sum())}
