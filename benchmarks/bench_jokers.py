"""The solver's time per holding with no, one and two jokers (docs/rules.md section 17), and the vector env's hands
per CPU second under the ``jokers`` preset against the standard one, in one run.

    python benchmarks/bench_jokers.py [--hands 4000] [--seconds 2] [--games 1024] [--rounds 5] [--json out.json]

Each row is a workload of hands holding exactly 0, 1 or 2 jokers under the ``jokers`` keys (two jokers of 20,
two naturals per meld), uniform random or meld-rich (5 adjacent ranks of 3 suits), timed through the batched
functions (one compiled loop per call): the deadwood of 10 cards, the discard phase of 11 cards (every discard's
deadwood, the knocks, big gin) and the showdown of a knock (R22 over every declaration, the defender's layoffs). The
time is the best of repeated calls within the budget, per holding, and the last column is each row's time over the
same workload's with no joker.

The vector env rows play random legal actions against the random opponent in ``--games`` games, the two presets
taking turns for ``--rounds`` rounds (``bench_hands.py``'s protocol); each preset's figure is its best round, and the
jokers' row gives its ratio to the standard preset's with the floor the issue set, ``VECTOR_FLOOR``.
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hands import measure as measure_rates  # noqa: E402  (sibling scripts, on the path set just above)
from bench_hands import vector_env  # noqa: E402
from bench_solver import rate  # noqa: E402

from gin_env.files import check_output_file, write_json  # noqa: E402
from gin_env.game import cards, solver  # noqa: E402
from gin_env.game.rules import Rules  # noqa: E402

#: The ``jokers`` keys the workloads are played under (R81).
RULES = Rules(jokers=2)
JOKER_COUNTS = (0, 1, 2)
#: The least ratio of the vector env's hands per CPU second under ``jokers`` to the standard preset's.
VECTOR_FLOOR = 0.5
PRESETS = ("standard", "jokers")


def _hand(rng: np.random.Generator, size: int, jokers: int, rich: bool) -> int:
    """One card mask of ``size`` cards, ``jokers`` of them jokers."""
    if rich:
        low = int(rng.integers(0, cards.N_RANKS - 4))
        pool = [s * cards.N_RANKS + r for s in rng.choice(cards.N_SUITS, 3, replace=False) for r in range(low, low + 5)]
    else:
        pool = list(range(cards.N_CARDS))
    naturals = rng.choice(pool, size - jokers, replace=False).tolist()
    return cards.to_mask([*naturals, *cards.LARGEST_DECK.joker_ids[:jokers]])


def _masks(rng, n, size, jokers, rich) -> np.ndarray:
    return np.array([_hand(rng, size, jokers, rich) for _ in range(n)], dtype=np.uint64)


def _defenders(rng, knockers: np.ndarray) -> np.ndarray:
    """A defender of 10 cards for each knocker, from the cards it does not hold (jokers included)."""
    out = []
    for k in knockers.tolist():
        rest = [c for c in range(cards.LARGEST_DECK.n_cards) if not k >> c & 1]
        out.append(cards.to_mask(rng.choice(rest, cards.HAND_SIZE, replace=False).tolist()))
    return np.array(out, dtype=np.uint64)


def measure(n: int, seconds: float, seed: int) -> list[dict]:
    """One row per (task, hands, jokers): microseconds per holding."""
    rng = np.random.default_rng(seed)
    none, limits = np.full(n, cards.NO_CARD), np.full(n, RULES.knock_limit)
    rows = []
    for rich in (False, True):
        for jokers in JOKER_COUNTS:
            tens = _masks(rng, n, cards.HAND_SIZE, jokers, rich)
            elevens = _masks(rng, n, cards.HAND_SIZE + 1, jokers, rich)
            defenders = _defenders(rng, tens)
            tasks = {"deadwood (10 cards)": lambda m=tens: solver.deadwood_of_masks(m, RULES),
                     "discard phase (11 cards)": lambda m=elevens: solver.discard_phase_of_masks(m, none, limits,
                                                                                               rules=RULES),
                     "showdown (10 + 10)": lambda m=tens, d=defenders: solver.showdown_of_masks(m, d, rules=RULES)}
            for task, fn in tasks.items():
                rows.append({"task": task, "hands": "meld-rich" if rich else "random", "jokers": jokers,
                             "us_per_holding": 1e6 / rate(fn, n, seconds)})
    return rows


def table(rows: list[dict]) -> str:
    """The rows as a markdown table, each with its time over the no-joker row of its task and hands."""
    base = {(r["task"], r["hands"]): r["us_per_holding"] for r in rows if r["jokers"] == 0}
    lines = ["| task | hands | jokers held | µs per holding | vs no joker |", "|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["task"], r["hands"], r["jokers"])):
        ratio = r["us_per_holding"] / base[r["task"], r["hands"]]
        lines.append(f"| {r['task']} | {r['hands']} | {r['jokers']} | {r['us_per_holding']:.2f} | {ratio:.1f}x |")
    return "\n".join(lines)


def vector_rates(games: int, seconds: float, rounds: int, seed: int) -> dict[str, float]:
    """Hands per CPU second of the vector env of ``games`` games under each of ``PRESETS``."""
    return measure_rates({name: vector_env(seed, games, name) for name in PRESETS}, seconds, rounds)


def vector_table(rates: dict[str, float], games: int) -> str:
    lines = [f"| vector env, {games:,} games | hands per CPU second | vs standard | floor |", "|---|---|---|---|"]
    for name in PRESETS:
        ratio = rates[name] / rates[PRESETS[0]]
        lines.append(f"| {name} | {rates[name]:,.0f} | {ratio:.2f}x | {VECTOR_FLOOR if name != PRESETS[0] else '-'} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=4000, help="holdings per workload")
    parser.add_argument("--seconds", type=float, default=2.0, help="timing budget per measurement")
    parser.add_argument("--games", type=int, default=1024, help="games of the vector env")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds of the vector env rows")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args()
    if min(args.hands, args.games, args.rounds) < 1 or args.seconds <= 0:
        parser.error("--hands, --games and --rounds must be at least 1 and --seconds above 0")
    if args.json:
        check_output_file(args.json, "--json")
    rows = measure(args.hands, args.seconds, args.seed)
    rates = vector_rates(args.games, args.seconds, args.rounds, args.seed)
    print(f"# solver time per holding under jokers ({platform.processor() or platform.machine()})")
    print(table(rows))
    print(vector_table(rates, args.games))
    if args.json:
        write_json(args.json, {"solver": rows, "vector_env": {"games": args.games, "hands_per_cpu_second": rates}})
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
