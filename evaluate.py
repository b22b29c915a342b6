"""Play agents against each other on duplicate deals and report who beats whom, with 95% intervals and Elo.

    python evaluate.py AGENT AGENT [AGENT ...] [--rules PRESET] [--deals N | --matches N] [--seed S]
                       [--json FILE] [--plot FILE] [--replays DIR] [--workers W] [--no-progress]

Every pair of agents (round robin) plays N duplicate games: each game twice on the same deals, with the seats
swapped (``gin_env.duel``). ``--deals N`` plays single hands, ``--matches N`` games to the target of the rules. The
numbers depend only on the agents, the rules, N and the seed, never on the number of worker processes.

Definitions (agent A is the first of a pair, B the second):

* points per hand: A's signed hand points (zero-sum, no end-of-game bonuses) over all hands played;
* hand win rate: hands A won over all hands, a hand with no winner (dead, or a tie that scores nothing) counting
  half for each, as a draw in chess;
* match win rate: games A won over all games, a game with no winner (a dead single hand, an abandoned game) counting
  half;
* capped hands and abandoned games: hands ended by the turn cap (R19) and games ended by ``max_dead_hands`` dead
  hands in a row (R19a), counted over both seatings; players that never knock would otherwise never finish;
* 95% intervals take the duplicate pair (the two seatings of one game) as the unit, because its two games share the
  cards and are not independent. Points per hand get a normal interval from the ratio estimator's variance over
  pairs; win rates get a Wilson score interval at the effective sample size ``p(1-p) / var``, where ``var`` is that
  same over-pairs variance, so the interval stays inside [0, 1] and reflects the pairing (when every pair ends
  with the same score, the games are counted as independent);
* duplicate win rate: the share of duplicate games in which A scored more hand points than B over both seatings
  together (equal counts half): the cards cancel out, so this compares the play alone, including how big the wins
  are;
* Elo: a Bradley-Terry fit, by maximum likelihood, of every pair's results: match scores with ``--matches``, and
  with ``--deals`` the duplicate games (a single hand's win or loss ignores its size, and an agent that wins fewer
  but bigger hands would rank too low). Each pair also gets one virtual drawn game, so that a perfect record gives a
  finite rating. The mean rating is fixed at 1500; 400 points mean 10:1 odds.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import os
import sys
import time
from multiprocessing import get_context
from typing import NamedTuple

import numpy as np
from tqdm import tqdm

from gin_env import agents, duel, replay
from gin_env.rules import PRESETS, Rules

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054
ELO_MEAN = 1500.0
ELO_SCALE = 400.0 / math.log(10.0)
#: Games per task sent to a worker: small enough for an even split and a live progress bar, large enough that
#: inter-process traffic stays negligible.
CHUNK = {"deals": 100, "matches": 10}
#: What one duplicate game is called, for the progress bar.
UNIT = {"deals": "deal", "matches": "match"}
#: Columns of the per-game numbers: A's side as ``duel.a_side`` returns them, then the game's capped hands (R19) and
#: whether it was abandoned (R19a).
POINTS, HANDS, A_WON, B_WON, SCORE, CAPPED, ABANDONED = range(7)
N_COLUMNS = 7


# ---------------------------------------------------------------------------------------------------------------
# Playing
# ---------------------------------------------------------------------------------------------------------------

@functools.cache
def _agent(name: str):
    """One instance of each agent per process: agents act on the view alone and keep no state between games."""
    return agents.load(name)


class Task(NamedTuple):
    """Games ``start..stop`` of the pair (``a``, ``b``): the unit of work a worker process plays."""

    a: str
    b: str
    rules: Rules
    seed: int
    start: int
    stop: int
    replays: str | None


def play_games(rules: Rules, a, b, seed: int, games: range, replays: str | None = None,
               names: tuple[str, str] = ("a", "b")) -> np.ndarray:
    """Play duplicate ``games`` between agents ``a`` and ``b`` in both seatings (saving replays under ``names`` in
    ``replays`` when asked); ``(len(games), 2 seatings, N_COLUMNS)`` numbers (see ``POINTS`` .. ``ABANDONED``)."""
    out = np.zeros((len(games), 2, N_COLUMNS))
    for i, game in enumerate(games):
        if replays is None:
            results = duel.play_duplicate(rules, a, b, seed, game)
        else:
            results = replay.play_duplicate(rules, a, b, seed, game, replays, names)
        for seating, result in enumerate(results):
            out[i, seating] = (*duel.a_side(result, seating), result.capped, result.abandoned)
    return out


def _play_chunk(task: Task) -> np.ndarray:
    """Play the task's games (a worker's unit of work)."""
    return play_games(task.rules, _agent(task.a), _agent(task.b), task.seed, range(task.start, task.stop),
                      task.replays, (task.a, task.b))


def _one_thread_per_worker() -> None:
    """Pool initializer: torch (loaded with a PPO agent) would start a thread per core in every worker, and with a
    worker per core those threads spin against each other: a batch-of-one forward pass took 87 ms of CPU instead of
    0.6 ms. Set before torch is imported, so its thread pools start with one thread."""
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = "1"


def play_pairs(names: list[str], rules: Rules, mode: str, n: int, seed: int, workers: int,
               progress: bool = True, replays: str | None = None) -> dict[tuple[str, str], np.ndarray]:
    """Every pair's ``(n, 2, N_COLUMNS)`` array of numbers per duplicate game and seating (see ``play_games``).

    Games are cut into chunks that any worker may play, and reassembled by game index, so the numbers do not
    depend on ``workers``."""
    pairs = list(itertools.combinations(names, 2))
    chunk = CHUNK[mode]
    tasks = [Task(a, b, rules, seed, start, min(start + chunk, n), replays)
             for a, b in pairs for start in range(0, n, chunk)]
    results = {pair: np.zeros((n, 2, N_COLUMNS)) for pair in pairs}
    bar = tqdm(total=n * len(pairs), unit=UNIT[mode], desc="evaluating", disable=not progress, smoothing=0.1)
    with bar:
        if workers > 1:
            # Not fork: a forked worker deadlocks in torch once the parent has used it (evaluate() loads every
            # agent first, to check it, and a PPO model runs torch on loading); spawn works on every platform.
            with get_context("spawn").Pool(workers, initializer=_one_thread_per_worker) as pool:
                for task, block in zip(tasks, pool.imap(_play_chunk, tasks)):
                    _store(results, task, block, bar)
        else:
            for task in tasks:
                _store(results, task, _play_chunk(task), bar)
    return results


def _store(results, task: Task, block: np.ndarray, bar) -> None:
    results[task.a, task.b][task.start:task.stop] = block
    bar.update(task.stop - task.start)


# ---------------------------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------------------------

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


def evaluate(names: list[str], rules: Rules, mode: str, n: int, seed: int = 0, workers: int = 1,
             progress: bool = False, replays: str | None = None) -> dict:
    """Round robin of ``names`` on ``n`` duplicate deals or matches; the report that ``--json`` writes. With
    ``replays`` (a directory), every hand of every seating is also saved there as a replay file."""
    if mode not in CHUNK:
        raise ValueError(f"mode must be 'deals' or 'matches', got {mode!r}")
    if n < 2:
        raise ValueError(f"the number of {mode} must be at least 2 (an interval needs two duplicate pairs), got {n}")
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError(f"give at least two distinct agents, got {names}")
    for name in names:
        agents.load(name)  # fail here, with the loader's message, before any process starts
    game_rules = rules.replace(target=None) if mode == "deals" else rules
    if replays is not None:
        os.makedirs(replays, exist_ok=True)
    played = play_pairs(names, game_rules, mode, n, seed, workers, progress, replays)
    pairs = []
    for (a, b), games in played.items():
        pairs.append({"a": a, "b": b, mode: n, **pair_stats(games)})
    if mode == "matches":
        results = [(p["a"], p["b"], p["a_match_win_rate"] * p["games"], p["games"]) for p in pairs]
    else:
        results = [(p["a"], p["b"], p["a_duplicate_win_rate"] * n, n) for p in pairs]
    elo = fit_elo(names, results)
    return {"rules": rules.name, "mode": mode, "seed": seed, "agents": names, "pairs": pairs, "elo": elo}


# ---------------------------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------------------------

def _rate_columns(mode: str) -> list[tuple[str, str]]:
    """(key, title) of the win rates worth showing: with ``--deals`` a game is one hand, so its match win rate is the
    hand win rate again and is left out."""
    columns = [("a_hand_win_rate", "hand"), ("a_duplicate_win_rate", "duplicate")]
    return ([("a_match_win_rate", "match")] if mode == "matches" else []) + columns


def _rate(p: float, ci: list[float]) -> str:
    return f"{100 * p:5.1f}% [{100 * ci[0]:4.1f}, {100 * ci[1]:4.1f}]"


def table(report: dict) -> str:
    """The report as a plain-text table for the terminal (and the README)."""
    mode = report["mode"]
    first = report["pairs"][0]
    lines = [f"{report['rules']} rules, {first[mode]} duplicate {mode} per pair ({first['games']} games), "
             f"seed {report['seed']}", ""]
    width = max(len(name) for name in report["agents"])
    columns = _rate_columns(mode)
    header = f"{'A':<{width}}  {'B':<{width}}  {'hands':>6}  {'A points/hand':>16}" + "".join(
        f"  {'A ' + title + ' win rate':>22}" for _, title in columns)
    lines += [header, "-" * len(header)]
    for p in report["pairs"]:
        lo, hi = p["a_points_per_hand_ci95"]
        points = f"{p['a_points_per_hand']:+6.2f} ± {(hi - lo) / 2:5.2f}"
        lines.append(f"{p['a']:<{width}}  {p['b']:<{width}}  {p['hands']:>6}  {points:>16}" + "".join(
            f"  {_rate(p[key], p[key + '_ci95']):>22}" for key, _ in columns))
    lines += ["", "Elo: " + ", ".join(f"{name} {rating:.0f}" for name, rating in
                                      sorted(report["elo"].items(), key=lambda item: -item[1]))]
    capped = sum(p["capped_hands"] for p in report["pairs"])
    abandoned = sum(p["abandoned_games"] for p in report["pairs"])
    lines.append(f"Capped hands (R19 turn cap): {capped}; abandoned games (R19a dead hands in a row): {abandoned}")
    return "\n".join(lines)


def plot(report: dict, path: str) -> None:
    """A PNG of each pair's win rates and points per hand, with their 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pairs = report["pairs"]
    labels = [f"{p['a']} vs {p['b']}" for p in pairs]
    y = np.arange(len(pairs))
    columns = _rate_columns(report["mode"])
    height = 0.8 / len(columns)
    fig, (rates, points) = plt.subplots(1, 2, figsize=(11, 1.4 + 0.7 * len(pairs)), sharey=True)
    for i, (key, title) in enumerate(columns):
        values = np.array([p[key] for p in pairs])
        ci = np.array([p[key + "_ci95"] for p in pairs])
        rates.barh(y + (i - (len(columns) - 1) / 2) * height, values, height=height * 0.95,
                   xerr=[values - ci[:, 0], ci[:, 1] - values], capsize=3, label=f"{title} win rate")
    rates.axvline(0.5, color="grey", linewidth=1)
    rates.set_xlim(0, 1)
    rates.set_xlabel("A's win rate (95% interval)")
    rates.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=len(columns), fontsize="small", frameon=False)
    values = np.array([p["a_points_per_hand"] for p in pairs])
    ci = np.array([p["a_points_per_hand_ci95"] for p in pairs])
    points.barh(y, values, height=0.5, xerr=[values - ci[:, 0], ci[:, 1] - values], capsize=3, color="tab:purple")
    points.axvline(0, color="grey", linewidth=1)
    points.set_xlabel("A's points per hand (95% interval)")
    rates.set_yticks(y, labels)
    rates.invert_yaxis()
    mode = report["mode"]
    fig.suptitle(f"{report['rules']} rules, {pairs[0][mode]} duplicate {mode} per pair, seed {report['seed']}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("agents", nargs="+", metavar="AGENT",
                        help=f"agent names ({', '.join(agents.names())}) or paths to MaskablePPO .zip models")
    parser.add_argument("--rules", default="standard", choices=sorted(PRESETS), help="rules preset (default standard)")
    games = parser.add_mutually_exclusive_group()
    games.add_argument("--deals", type=int, metavar="N", help="play N duplicate single hands per pair (default 1000)")
    games.add_argument("--matches", type=int, metavar="N", help="play N duplicate games to the target per pair")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents' choices (default 0)")
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON")
    parser.add_argument("--plot", metavar="FILE", help="write a PNG of the win rates and points per hand")
    parser.add_argument("--replays", metavar="DIR", help="save every hand of every seating as a replay file in DIR")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="worker processes (default: one per core); the numbers do not depend on it")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    if len(args.agents) < 2:
        parser.error("give at least two agents")
    mode, n = ("matches", args.matches) if args.matches is not None else \
        ("deals", 1000 if args.deals is None else args.deals)
    rules = Rules.preset(args.rules)
    if mode == "matches" and rules.target is None:
        parser.error(f"rules {args.rules!r} have no target score: use --deals")
    start = time.perf_counter()
    try:
        report = evaluate(args.agents, rules, mode, n, args.seed, max(1, args.workers), not args.no_progress,
                          args.replays)
    except (ValueError, NotImplementedError, FileNotFoundError) as err:
        print(f"evaluate.py: error: {err}", file=sys.stderr)
        return 2
    print(table(report))
    print(f"\n{time.perf_counter() - start:.1f} s with {max(1, args.workers)} worker(s)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    if args.plot:
        plot(report, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
