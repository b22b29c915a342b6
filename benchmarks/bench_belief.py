"""Worlds per second of gin_env.belief on one core, for a mid-hand view: uniform, under the search agent's
opponent model and under the shipped belief network, as arrays (``draw_worlds``), as a ``HandBatch``
(``sample_batch``) and as ``HandState``s (``sample_worlds``). Prints a markdown table (docs/belief.md).

    python benchmarks/bench_belief.py [--worlds 10000] [--seconds 2] [--seed 0]

The view: the simple agent plays both sides of a standard hand from ``--seed`` until the stock holds
``MID_HAND_STOCK`` cards and player 0 is to draw. The process is pinned to one CPU where the system allows it.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

from gin_env import agents, belief
from gin_env.game import engine
from gin_env.game.observation import view
from gin_env.game.rules import Rules

#: Stock size of the benchmarked view: ten draws into the hand (31 cards after the deal).
MID_HAND_STOCK = 21
PATHS = (("arrays (draw_worlds)", belief.draw_worlds), ("HandBatch (sample_batch)", belief.sample_batch),
         ("HandStates (sample_worlds)", belief.sample_worlds))
MODELS = (("uniform", None), ("OpponentModel()", belief.OpponentModel()), ("NetworkModel()", belief.NetworkModel()))


def mid_hand_view(seed: int):
    """The first view of player 0 about to draw with ``MID_HAND_STOCK`` or fewer cards in the stock, over seeded
    hands of simple against simple."""
    rules, simple = Rules.preset("standard"), agents.load("simple")
    rng = np.random.default_rng(seed)
    for hand in range(100):
        state = engine.new_hand(rules, np.random.default_rng([seed, hand]), dealer=0)
        while state.phase != engine.OVER:
            v = view(state, state.current)
            if v.player == 0 and v.phase == engine.DRAW and v.stock_size <= MID_HAND_STOCK:
                return v
            state = engine.step(state, simple.act(v, rng))
    raise RuntimeError("no hand reached the middle")


def rate(fn, v, n: int, model, seconds: float) -> float:
    """Worlds per second of ``fn(v, n, rng, model=model)``, best of repeated timings after a warm-up call."""
    rng = np.random.default_rng(0)
    fn(v, n, rng, model=model)
    best = float("inf")
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        fn(v, n, rng, model=model)
        best = min(best, time.perf_counter() - start)
    return n / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--worlds", type=int, default=10_000, help="worlds per call")
    parser.add_argument("--seconds", type=float, default=2.0, help="timing per row")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    v = mid_hand_view(args.seed)
    print(f"view: stock {v.stock_size}, {v.unseen.bit_count()} unseen, opponent discarded "
          f"{v.opponent_discards.bit_count()}, holds {v.opponent_known.bit_count()} known", file=sys.stderr)
    rows = []
    for model_name, model in MODELS:
        for path_name, fn in PATHS:
            worlds = rate(fn, v, args.worlds, model, args.seconds)
            print(f"  {model_name:16} {path_name:28} {worlds:12,.0f} worlds/s", file=sys.stderr)
            rows.append((model_name, path_name, worlds))
    print(f"\n{platform.processor() or platform.machine()}, one core, {args.worlds:,} worlds a call\n")
    print("| model | path | worlds per second |")
    print("|---|---|---:|")
    for model_name, path_name, worlds in rows:
        print(f"| {model_name} | {path_name} | {worlds:,.0f} |")


if __name__ == "__main__":
    main()
