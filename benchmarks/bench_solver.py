"""Hands per second of the batched deadwood solver, side by side with OpenSpiel's C++ solver in the same run.

    python benchmarks/bench_solver.py [--hands 20000] [--seconds 3] [--json out.json]

Four workloads: uniform random and meld-rich (a few adjacent ranks in a few suits) hands, 10 cards (deadwood)
and 11 cards (best deadwood after a discard). OpenSpiel's 11-card figure is the minimum over the 11 discards of its
10-card ``min_deadwood``, since its own 11-card value is sometimes wrong. Both sides compute the same numbers, and the
script checks that they agree before timing.
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np

from gin_env.game import cards, solver

#: OpenSpiel orders suits s, c, d, h; ours are S, H, D, C.
OPENSPIEL_SUIT = {0: 0, 1: 3, 2: 2, 3: 1}


def random_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    keys = rng.random((n, cards.N_CARDS))
    chosen = np.argsort(keys, axis=1)[:, :size]
    hands = np.zeros((n, cards.N_CARDS), dtype=bool)
    np.put_along_axis(hands, chosen, True, axis=1)
    return hands


def meld_rich_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """Hands drawn from 3-5 adjacent ranks in 3-4 suits (topped up at random if the pool is small)."""
    hands = np.zeros((n, cards.N_CARDS), dtype=bool)
    for row in hands:
        n_ranks = rng.integers(3, 6)
        low = rng.integers(0, 14 - n_ranks)
        suits = rng.choice(4, rng.integers(3, 5), replace=False)
        pool = [s * 13 + r for s in suits for r in range(low, low + n_ranks)]
        take = rng.choice(pool, min(size, len(pool)), replace=False)
        row[take] = True
        if row.sum() < size:
            rest = np.flatnonzero(~row)
            row[rng.choice(rest, size - row.sum(), replace=False)] = True
    return hands


def rate(fn, n_items: int, seconds: float) -> float:
    """Items per second of ``fn()`` (which processes ``n_items``), best of repeated timings."""
    fn()
    best = float("inf")
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return n_items / best


def openspiel_solver():
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)


def to_openspiel(hands: np.ndarray) -> list[list[int]]:
    out = []
    for row in hands:
        ids = np.flatnonzero(row)
        out.append([OPENSPIEL_SUIT[c // 13] * 13 + c % 13 for c in ids])
    return out


def openspiel_values(utils, hands: list[list[int]]) -> list[int]:
    if len(hands[0]) == 10:
        return [utils.min_deadwood(h) for h in hands]
    return [min(utils.min_deadwood(h[:i] + h[i + 1:]) for i in range(len(h))) for h in hands]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=20000, help="hands per workload for our batched solver")
    parser.add_argument("--openspiel-hands", type=int, default=2000, help="hands per workload for OpenSpiel")
    parser.add_argument("--seconds", type=float, default=3.0, help="timing budget per measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    utils = openspiel_solver()
    workloads = [("random", 10, random_hands), ("meld-rich", 10, meld_rich_hands),
                 ("random", 11, random_hands), ("meld-rich", 11, meld_rich_hands)]
    results = []
    for kind, size, make in workloads:
        hands = make(rng, args.hands, size)
        batch_fn = solver.deadwood_batch if size == 10 else solver.best_discard_deadwood_batch
        ours = rate(lambda h=hands, f=batch_fn: f(h), len(hands), args.seconds)
        row = {"hands": kind, "cards": size, "ours_batched": ours, "openspiel": None, "ratio": None}
        if utils is not None:
            sample = hands[:args.openspiel_hands]
            os_hands = to_openspiel(sample)
            if openspiel_values(utils, os_hands) != batch_fn(sample).tolist():
                raise SystemExit(f"OpenSpiel and gin_env disagree on {kind} {size}-card hands")
            theirs = rate(lambda h=os_hands: openspiel_values(utils, h), len(os_hands), args.seconds)
            row.update(openspiel=theirs, ratio=ours / theirs)
        results.append(row)

    print(f"# solver hands/s ({platform.processor() or platform.machine()}, numpy {np.__version__})")
    print("| hands | cards | gin_env batched | OpenSpiel C++ | ratio |")
    print("|---|---|---|---|---|")
    for r in results:
        theirs = f"{r['openspiel']:,.0f}" if r["openspiel"] else "not installed"
        ratio = f"{r['ratio']:.1f}x" if r["ratio"] else "-"
        task = "deadwood" if r["cards"] == 10 else "best discard"
        print(f"| {r['hands']} | {r['cards']} ({task}) | {r['ours_batched']:,.0f} | {theirs} | {ratio} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
