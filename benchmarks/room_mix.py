"""Rooms (docs/rules.md R58): what a seat's members are worth together, measured on duplicate games.

    python benchmarks/room_mix.py [--games 200] [--seed 0] [--rules standard]

Each lineup is a room, seat A's members against seat B's; every game is played twice on the same deals (one
generator per game, ``(seed, game)``), the two seats' member lists swapped, through ``format_table.RoomTable`` as the
envs play it. Prints seat A's game win rate and points per hand with 95% intervals (the duplicate pair is the unit,
as in ``gin_env.evaluation``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gin_env import agents  # noqa: E402  (after the path setup above: a checkout runs as is)
from gin_env.evaluation.stats import normal_interval, ratio_estimate, wilson_interval  # noqa: E402
from gin_env.game.rules import PRESETS, Rules  # noqa: E402
from gin_env.table.formats import RoomTable  # noqa: E402

LINEUPS = [
    (("expert",), ("simple",)),
    (("expert", "random"), ("simple",)),
    (("expert", "random"), ("simple", "random")),
    (("random",), ("simple",)),
]


def play(rules: Rules, seat_members, loaded: dict, seed: int, game: int, swap: int) -> tuple[int, int, int]:
    """One game of the room; seat A's (won, points, hands). ``swap`` seats A's members in seat 1."""
    members = seat_members if swap == 0 else seat_members[::-1]
    table = RoomTable(rules, "match", (len(members[0]), len(members[1])))
    rng = np.random.default_rng([seed, game])
    table.deal(rng)
    players = [loaded[name] for seat in members for name in seat]
    agent_rng = np.random.default_rng([seed, game, swap])
    while not table.over:
        i = table.actor
        table.play(players[i].act(table.agent_view(i), agent_rng), rng)
    g = table.game
    a = swap
    return int(g.winner == a), sum(o.player_points(a) for o in g.history), len(g.history)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", default="standard", choices=sorted(PRESETS))
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    loaded = {name: agents.load(name) for lineup in LINEUPS for seat in lineup for name in seat}
    print(f"{args.rules} rules, {args.games} duplicate games per lineup, seed {args.seed}\n")
    print("| seat A | seat B | hands | A game win rate | A points per hand |")
    print("|---|---|---|---|---|")
    for lineup in LINEUPS:
        numbers = np.zeros((args.games, 2, 3))
        for game in tqdm(range(args.games), desc=" v ".join("+".join(s) for s in lineup), leave=False):
            for swap in (0, 1):
                numbers[game, swap] = play(rules, lineup, loaded, args.seed, game, swap)
        wins = numbers[:, :, 0].mean(axis=1)
        rate, rate_var = float(wins.mean()), float(wins.var(ddof=1) / wins.size)
        lo, hi = wilson_interval(rate, rate_var, 2 * args.games)
        per_pair = numbers.sum(axis=1)
        ppd, ppd_var = ratio_estimate(per_pair[:, 1], per_pair[:, 2])
        plo, phi = normal_interval(ppd, ppd_var)
        print(f"| {' + '.join(lineup[0])} | {' + '.join(lineup[1])} | {int(per_pair[:, 2].sum())} | "
              f"{100 * rate:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] | {ppd:+.2f} ± {(phi - plo) / 2:.2f} |")


if __name__ == "__main__":
    main()
