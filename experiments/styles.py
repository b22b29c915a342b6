"""How each style agent of the gauntlet plays against the expert: the table of docs/agents.md.

    python experiments/styles.py [--against expert] [--rules standard] [--deals 150] [--seed 1]

Each deal is played twice with the seats swapped (as ``gin-env evaluate`` does). From each style's side: the share of
hands it knocks (gin included), its knocks short of gin and the share of those undercut, the mean deadwood it knocks
with, its gins, the opponent's knocks short of gin and the share of those the style undercut, and its points per
hand. ``--against knocker`` shows the undercuts that the waiting styles hand out to a knock-eager player.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from gin_env import agents
from gin_env.game.rules import PRESETS, Rules

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hand_endings import duplicate_hands  # noqa: E402  (a sibling script)

STYLES = ("knocker", "early-knocker", "gin-hunter", "undercutter")
GINS = ("gin", "big_gin")


def style_numbers(style, opponent, rules: Rules, deals: int, seed: int) -> dict:
    """The style's numbers over ``deals`` duplicate single hands (``2 * deals`` hands) against ``opponent``."""
    knock_deadwoods, gins, was_undercut, opponent_knocks, undercut, points = [], 0, 0, 0, 0, []
    for seating, outcome in duplicate_hands(style, opponent, rules, deals, seed):
        points.append(outcome.player_points(seating))
        if outcome.knocker == seating:
            knock_deadwoods.append(outcome.knocker_deadwood)
            gins += outcome.kind in GINS
            was_undercut += outcome.kind == "undercut"
        elif outcome.knocker is not None and outcome.kind not in GINS:
            opponent_knocks += 1
            undercut += outcome.kind == "undercut"
    hands, short = 2 * deals, len(knock_deadwoods) - gins
    return {"hands": hands, "knock_share": len(knock_deadwoods) / hands,
            "knock_deadwood": float(np.mean(knock_deadwoods)) if knock_deadwoods else float("nan"),
            "gins": gins, "short_knocks": short, "own_undercut_share": was_undercut / short if short else float("nan"),
            "opponent_knocks": opponent_knocks,
            "undercut_share": undercut / opponent_knocks if opponent_knocks else float("nan"),
            "points_per_hand": float(np.mean(points))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default="expert", help="the opponent of every style")
    parser.add_argument("--rules", default="standard", choices=sorted(PRESETS))
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = Rules.preset(args.rules, target=None)
    opponent = agents.load(args.against)
    print(f"{args.deals} duplicate deals ({2 * args.deals} hands) against {opponent.name}, {args.rules} rules, "
          f"seed {args.seed}\n")
    print("| style | knocks | knocks short of gin | of those undercut | mean knock deadwood | gins | "
          "opponent's knocks short of gin | of those undercut | points/hand |")
    print("|---" * 9 + "|")
    for name in STYLES:
        start = time.perf_counter()
        style = agents.load(name)
        n = style_numbers(style, opponent, rules, args.deals, args.seed)
        print(f"| {style.name} | {100 * n['knock_share']:.0f}% | {n['short_knocks']} | "
              f"{_share(n['own_undercut_share'])} | {n['knock_deadwood']:.1f} | {n['gins']} | "
              f"{n['opponent_knocks']} | {_share(n['undercut_share'])} | {n['points_per_hand']:+.2f} |",
              f"<!-- {time.perf_counter() - start:.0f} s -->", flush=True)


def _share(value: float) -> str:
    """A share as a percentage, or a dash when there was nothing to count."""
    return "-" if np.isnan(value) else f"{100 * value:.0f}%"


if __name__ == "__main__":
    main()
