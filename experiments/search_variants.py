"""One variant of the search agent against another agent on duplicate deals or matches: the numbers its tuning
(docs/search.md) compared.

    python experiments/search_variants.py [--deals 300 | --matches N] [--seed 8] [--against expert]
                                         [--set samples=96 --set replay=0.5 ...]

``--set KEY=VALUE`` overrides one parameter of the search or of the study's (``study_search.py``: a number,
True / False, None, or text such as ``guide=expert`` or ``opponent=record``). Prints one line: the variant,
A's points per hand and match and duplicate win rates with 95% intervals, the hands played and the time.
"""

from __future__ import annotations

import argparse
import time

from study_search import load

from gin_env import agents
from gin_env.evaluation.duel import play_games
from gin_env.evaluation.stats import pair_stats
from gin_env.game.rules import PRESETS, Rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--deals", type=int, default=300)
    group.add_argument("--matches", type=int)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--rules", default="eaai", choices=sorted(PRESETS))
    parser.add_argument("--against", default="expert")
    parser.add_argument("--set", action="append", default=[], dest="settings", metavar="KEY=VALUE",
                        help="one search parameter, as in the name study_search.load reads, search[KEY=VALUE]")
    args = parser.parse_args()
    name = f"search[{','.join(args.settings)}]" if args.settings else "search"
    rules = Rules.preset(args.rules)
    n = args.matches if args.matches is not None else args.deals
    if args.matches is None:
        rules = rules.replace(target=None)
    start = time.perf_counter()
    stats = pair_stats(play_games(rules, load(name), agents.load(args.against), args.seed, range(n)))
    low, high = stats["a_points_per_hand_ci95"]
    mode = "matches" if args.matches is not None else "deals"
    print(f"{name} vs {args.against}, {n} duplicate {mode}, seed {args.seed}: "
          f"{stats['a_points_per_hand']:+.2f} [{low:+.2f}, {high:+.2f}] points/hand, "
          f"match win {stats['a_match_win_rate']:.1%}, duplicate win {stats['a_duplicate_win_rate']:.1%}, "
          f"{stats['hands']} hands, {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
