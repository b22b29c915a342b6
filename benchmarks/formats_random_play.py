"""Random play of the PettingZoo env in every format of docs/rules.md section 15, under every preset, with every
step checked: the full run of what tests/test_pettingzoo_formats.py samples.

    python benchmarks/formats_random_play.py [--games 500] [--seed 0] [--formats players=3 players=4 "room=(2, 3)"]

Per format and preset, ``--games`` games (``episode="match"``) of random masked play (any legal knock taken), with
after every step ``engine.validate`` of the hands in play, the agent to act never a seat sitting out, rewards
zero-sum, partners' equal, teams' opposite and a room's members' equal to their seat's (tests/formats_play.py);
then every game ends at or over its target (or abandoned, R19a). Prints a table of games, steps, seconds, games at
the target and abandoned games.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gin_env.envs.pettingzoo import env  # noqa: E402  (after the path setup above: a checkout runs as is)
from gin_env.game.rules import PRESETS  # noqa: E402
from tests.formats_play import FORMATS, play_game, reached_target  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--formats", nargs="+", default=list(FORMATS), choices=list(FORMATS))
    args = parser.parse_args()
    rows = []
    for fmt in args.formats:
        for preset in PRESETS:
            aec = env(rules=preset, episode="match", **FORMATS[fmt])
            rng = np.random.default_rng(args.seed)
            steps = at_target = abandoned = 0
            start = time.perf_counter()
            for seed in tqdm(range(args.games), desc=f"{fmt} {preset}", unit="game", leave=False):
                result = play_game(aec, args.seed * args.games + seed, rng, check_masks=False)
                game = result["game"]
                if not (game.over and reached_target(aec.rules, game)):
                    raise AssertionError(f"{fmt} {preset} game {seed} ended below its target: {game.scores}")
                steps += result["steps"]
                abandoned += game.abandoned
                at_target += not game.abandoned
            rows.append((fmt, preset, args.games, steps, time.perf_counter() - start, at_target, abandoned))
    print(f"\n{args.games} random games per format and preset, seed {args.seed}, every step checked\n")
    print("| format | preset | games | steps | seconds | at target | abandoned (R19a) |")
    print("|---|---|---|---|---|---|---|")
    for fmt, preset, games, steps, seconds, at_target, abandoned in rows:
        print(f"| {fmt} | {preset} | {games} | {steps} | {seconds:.0f} | {at_target} | {abandoned} |")


if __name__ == "__main__":
    main()
