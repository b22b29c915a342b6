"""How often OpenSpiel's own 11-card deadwood (the value it offers ``Knock`` by) differs from the exact one.

    python benchmarks/openspiel_deadwood.py [--hands 100000] [--seed 0]

Random and meld-rich 11-card hands (``bench_solver``'s generators): OpenSpiel's ``min_deadwood`` of the 11 cards
against ``solver.best_discard_deadwood``, counted as too high, too low or equal, with the hands where the error
hides a legal knock (exact at most 10, OpenSpiel above) listed. docs/openspiel.md, difference 4.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

import numpy as np
from tqdm import tqdm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_solver import meld_rich_hands, random_hands  # noqa: E402

from gin_env.game import cards, solver
from gin_env.interop.openspiel_history import action_ids, pyspiel  # noqa: E402

KNOCK_LIMIT = 10
EXAMPLES = 5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100_000, help="hands of each kind")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    ids = action_ids(pyspiel.load_game("gin_rummy"))
    utils = pyspiel.gin_rummy.GinRummyUtils(cards.N_RANKS, 4, 10)
    rng = np.random.default_rng(args.seed)
    print("| hands | count | OpenSpiel too high | too low | hides a legal knock |\n|---|---:|---:|---:|---:|")
    for kind, make in (("random", random_hands), ("meld-rich", meld_rich_hands)):
        counts, hidden = collections.Counter(), []
        for row in tqdm(make(rng, args.hands, 11), desc=kind, unit="hand", leave=False):
            hand = np.flatnonzero(row).tolist()
            exact = solver.best_discard_deadwood(hand)
            theirs = utils.min_deadwood([ids.to_openspiel[c] for c in hand])
            counts["high" if theirs > exact else "low" if theirs < exact else "equal"] += 1
            if exact <= KNOCK_LIMIT < theirs:
                hidden.append(f"{cards.to_str(cards.to_mask(hand))} (exact {exact}, OpenSpiel {theirs})")
        print(f"| {kind} | {args.hands} | {counts['high']} | {counts['low']} | {len(hidden)} |")
        for example in hidden[:EXAMPLES]:
            print(f"  hides a knock: {example}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
