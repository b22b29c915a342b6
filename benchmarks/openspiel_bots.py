"""Our agents against OpenSpiel's gin rummy bots, inside OpenSpiel 2.0.2 (``gin_env.interop.openspiel.GinEnvBot``).

    python benchmarks/openspiel_bots.py [--agents random simple expert ppo] [--simple-deals 500]
                                        [--ismcts-deals 100] [--ismcts-deals-for random=25] [--seed 0]
                                        [--json FILE] [--plot FILE]

Opponents: OpenSpiel's simple bot (``pyspiel.make_simple_gin_rummy_bot``) and its ISMCTS bot (``pyspiel.ISMCTSBot``:
200 simulations, one random rollout per leaf, UCT constant 2, the most visited move). The game is OpenSpiel's
``gin_rummy`` with default parameters; hands are played by OpenSpiel's ``evaluate_bots`` loop
(``gin_env.interop.openspiel.play_hand``).

Each deal is played twice with the seats swapped: both hands draw their chance outcomes from one generator seeded
by (seed, deal), so they get the same deal and the same stock order. The numbers are our agent's, with
``gin-env evaluate``'s definitions: points per hand (signed, zero-sum) with a 95% normal interval, and the hand win rate
(a hand with no winner counts half) with a 95% Wilson interval, both taking the duplicate pair as the unit.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from importlib import metadata

import numpy as np
from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# One decision at a time: torch's thread pools (loaded with a PPO agent) only spin against OpenSpiel's bots and
# other work on the machine (gin-env evaluate does the same in its workers). Set before torch is imported.
for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

from gin_env import agents  # noqa: E402
from gin_env.evaluation.stats import normal_interval, ratio_estimate, wilson_interval  # noqa: E402
from gin_env.interop.openspiel import GinEnvBot, play_hand, pyspiel  # noqa: E402  (names the extra if OpenSpiel is missing)

ISMCTS_SIMULATIONS = 200
ISMCTS_UCT_C = 2.0
ROLLOUTS_PER_LEAF = 1
OPPONENTS = ("OpenSpiel simple", "OpenSpiel ISMCTS")


def opponent_bot(name: str, game, player: int, seed: int):
    if name == "OpenSpiel simple":
        return pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), player)
    evaluator = pyspiel.RandomRolloutEvaluator(ROLLOUTS_PER_LEAF, seed)
    return pyspiel.ISMCTSBot(seed, evaluator, ISMCTS_UCT_C, ISMCTS_SIMULATIONS, -1,
                             pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)


def duplicate_deals(agent, opponent: str, game, deals: int, seed: int, bar) -> np.ndarray:
    """``(deals, 2)``: our agent's points as player 0 and as player 1 on each deal."""
    points = np.zeros((deals, 2))
    for deal in range(deals):
        for ours in (0, 1):
            bots = [None, None]
            bots[ours] = GinEnvBot(agent, game, ours, seed=seed * 1_000_003 + 2 * deal + ours)
            bots[1 - ours] = opponent_bot(opponent, game, 1 - ours, seed * 1_000_003 + 2 * deal + ours)
            returns = play_hand(game.new_initial_state(), bots, np.random.default_rng([seed, deal]))
            points[deal, ours] = returns[ours]
            bar.update(1)
    return points


def summary(agent: str, opponent: str, points: np.ndarray, seconds: float) -> dict:
    pairs = np.full(points.shape[0], 2.0)
    per_hand, variance = ratio_estimate(points.sum(axis=1), pairs)
    wins = (np.sign(points) + 1) / 2  # a win 1, no winner 0.5, a loss 0
    win_rate, win_variance = ratio_estimate(wins.sum(axis=1), pairs)
    return {"agent": agent, "opponent": opponent, "hands": int(points.size), "points_per_hand": per_hand,
            "points_per_hand_ci95": normal_interval(per_hand, variance), "hand_win_rate": win_rate,
            "hand_win_rate_ci95": wilson_interval(win_rate, win_variance, points.size),
            "seconds_per_hand": seconds / points.size}


def table(rows: list[dict]) -> str:
    lines = ["| our agent | opponent | hands | points per hand [95%] | hand win rate [95%] | s per hand |",
             "|---|---|---:|---|---|---:|"]
    for r in rows:
        lo, hi = r["points_per_hand_ci95"]
        wlo, whi = r["hand_win_rate_ci95"]
        lines.append(f"| {r['agent']} | {r['opponent']} | {r['hands']} | {r['points_per_hand']:+.2f} "
                     f"[{lo:+.2f}, {hi:+.2f}] | {100 * r['hand_win_rate']:.1f}% [{100 * wlo:.1f}, {100 * whi:.1f}] "
                     f"| {r['seconds_per_hand']:.3f} |")
    return "\n".join(lines)


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    names = sorted({r["agent"] for r in rows}, key=[r["agent"] for r in rows].index)
    width = 0.38
    for k, opponent in enumerate(OPPONENTS):
        mine = {r["agent"]: r for r in rows if r["opponent"] == opponent}
        xs = [i + (k - 0.5) * width for i, n in enumerate(names) if n in mine]
        ys = [mine[n]["points_per_hand"] for n in names if n in mine]
        err = np.array([[mine[n]["points_per_hand"] - mine[n]["points_per_hand_ci95"][0],
                         mine[n]["points_per_hand_ci95"][1] - mine[n]["points_per_hand"]] for n in names if n in mine])
        if xs:
            ax.bar(xs, ys, width, yerr=err.T, capsize=3, label=f"against {opponent}")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("points per hand (95% interval)")
    ax.set_title("gin-env agents inside OpenSpiel's gin_rummy")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", default=["random", "simple", "expert", "ppo"],
                        help="agent names or model paths")
    parser.add_argument("--simple-deals", type=int, default=500, help="duplicate deals against the simple bot")
    parser.add_argument("--ismcts-deals", type=int, default=100, help="duplicate deals against the ISMCTS bot")
    parser.add_argument("--ismcts-deals-for", nargs="*", default=[], metavar="AGENT=N",
                        help="fewer (or more) deals against ISMCTS for some agents: random's hands run to the wall "
                             "and cost ISMCTS several times more")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--plot", help="write a bar chart of points per hand here (PNG)")
    args = parser.parse_args(argv)
    for path in (args.json, args.plot):
        if path and not os.access(os.path.dirname(os.path.abspath(path)), os.W_OK):
            parser.error(f"cannot write {path}")
    ismcts_deals = {name: args.ismcts_deals for name in args.agents}
    for item in args.ismcts_deals_for:
        name, _, count = item.partition("=")
        if name not in ismcts_deals or not count.isdigit():
            parser.error(f"--ismcts-deals-for takes AGENT=N for an agent of --agents, got {item!r}")
        ismcts_deals[name] = int(count)
    game = pyspiel.load_game("gin_rummy")
    loaded = {name: agents.load(name) for name in args.agents}
    plan = [(name, OPPONENTS[0], args.simple_deals) for name in args.agents]
    plan += [(name, OPPONENTS[1], ismcts_deals[name]) for name in args.agents]
    plan = [p for p in plan if p[2] > 0]
    rows = []
    with tqdm(total=2 * sum(p[2] for p in plan), unit="hand", smoothing=0.05) as bar:
        for name, opponent, deals in plan:
            bar.set_description(f"{name} vs {opponent}")
            start = time.perf_counter()
            points = duplicate_deals(loaded[name], opponent, game, deals, args.seed, bar)
            rows.append(summary(name, opponent, points, time.perf_counter() - start))
            bar.write(table(rows[-1:]).splitlines()[-1])
    print(f"\nOpenSpiel {metadata.version('open_spiel')} gin_rummy, default parameters, seed {args.seed}; each deal "
          "played twice, seats swapped\n")
    print(table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seed": args.seed, "rows": rows}, f, indent=2)
        print(f"wrote {args.json}")
    if args.plot:
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
