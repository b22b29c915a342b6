"""The expert's tuning table (docs/expert.md): variants of ``ExpertParams`` against simple (or against the default
expert) in duplicate matches, one row each.

    python experiments/expert_variants.py [--matches 1000] [--seed 100] [--rules eaai] [--only NAME ...]

Every variant the current code can express is listed in ``VARIANTS``; the match win rate is the variant's, with its
95% interval, over duplicate matches to the rules' target (``gin_env.evaluation.duel.play_duplicate``).
Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
import time

from gin_env import agents
from gin_env.agents.expert import ExpertAgent, ExpertParams
from gin_env.evaluation.duel import play_games
from gin_env.evaluation.stats import pair_stats
from gin_env.game.rules import PRESETS, STOCK_AFTER_DEAL, Rules

#: Stock draws until the wall (R37): "over the whole stock".
WHOLE_STOCK = float(STOCK_AFTER_DEAL - 2)

#: The expert before it raced for gin: the rows of the knock table were measured on it.
NO_RACE = {"gin_weight": 0.0}

#: name -> (ExpertParams overrides, opponent): the rows of docs/expert.md that the current code can play.
VARIANTS = {
    "up to 10 all hand long": ({**NO_RACE, "early_knock": 10, "late_knock": 10}, "simple"),
    "10 falling to 4 over the whole stock": ({**NO_RACE, "late_knock": 4, "fade_draws": WHOLE_STOCK}, "simple"),
    "6 falling to 2 over the whole stock": (
        {**NO_RACE, "early_knock": 6, "late_knock": 2, "fade_draws": WHOLE_STOCK}, "simple"),
    "4 falling to 0 over the whole stock": ({**NO_RACE, "early_knock": 4, "fade_draws": WHOLE_STOCK}, "simple"),
    "10 falling to 0 over 16 draws": ({**NO_RACE, "fade_draws": 16}, "simple"),
    "10 falling to 0 over 10 draws": ({**NO_RACE, "fade_draws": 10}, "simple"),
    "10 falling to 0 over 5 draws": ({**NO_RACE, "fade_draws": 5}, "simple"),
    "10 falling to 1 over 5 draws": ({**NO_RACE, "fade_draws": 5, "late_knock": 1}, "simple"),
    "10 falling to 2 over 5 draws": ({**NO_RACE, "fade_draws": 5, "late_knock": 2}, "simple"),
    "gin only": ({**NO_RACE, "early_knock": 0}, "simple"),
    "10 falling to 0 over 1.5 draws": ({**NO_RACE, "fade_draws": 1.5}, "simple"),
    "default (10 falling to 0 over 3 draws)": (NO_RACE, "simple"),
    "10 falling to 0 over 8 draws": ({**NO_RACE, "fade_draws": 8}, "simple"),
    "feed charge 0": ({**NO_RACE, "danger_weight": 0.0}, "simple"),
    "feed charge 10": ({**NO_RACE, "danger_weight": 10.0}, "simple"),
    "take margin 0": ({**NO_RACE, "take_margin": 0.0}, "simple"),
    "take margin 3": ({**NO_RACE, "take_margin": 3.0}, "simple"),
    "default against up to 10 all hand long": (NO_RACE, {**NO_RACE, "early_knock": 10, "late_knock": 10}),
    "default against up to 3 all hand long": (NO_RACE, {**NO_RACE, "early_knock": 3, "late_knock": 3}),
    "default against up to 1 all hand long": (NO_RACE, {**NO_RACE, "early_knock": 1, "late_knock": 1}),
    "default against 6 falling to 2 over the whole stock": (
        NO_RACE, {**NO_RACE, "early_knock": 6, "late_knock": 2, "fade_draws": WHOLE_STOCK}),
    "gin weight 30 (the default)": ({}, "simple"),
    "gin weight 50": ({"gin_weight": 50}, "simple"),
    "default against no race": ({}, NO_RACE),
    "gin weight 50 against no race": ({"gin_weight": 50}, NO_RACE),
    "gin weight 100 against no race": ({"gin_weight": 100}, NO_RACE),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--rules", default="eaai", choices=sorted(PRESETS))
    parser.add_argument("--only", nargs="+", choices=sorted(VARIANTS), help="play these variants alone")
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    print(f"{args.matches} duplicate matches per row, {args.rules} rules, seed {args.seed}\n")
    print("| variant | opponent | match win rate [95%] |")
    print("|---|---|---|")
    for name in args.only or VARIANTS:
        overrides, opponent = VARIANTS[name]
        start = time.perf_counter()
        agent = ExpertAgent(ExpertParams(**overrides))
        other = agents.load(opponent) if isinstance(opponent, str) else ExpertAgent(ExpertParams(**opponent))
        stats = pair_stats(play_games(rules, agent, other, args.seed, range(args.matches)))
        low, high = stats["a_match_win_rate_ci95"]
        label = opponent if isinstance(opponent, str) else "expert variant"
        print(f"| {name} | {label} | {stats['a_match_win_rate']:.1%} [{low:.1%}, {high:.1%}] |", flush=True)
        print(f"{name}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
