"""Where a GinRummy-v0 learner step goes under random play: CPU microseconds per learner step, piece by piece.

    python benchmarks/env_step_pieces.py [--steps 20000] [--seed 11]

The loop is ``bench_hands.py``'s ``GinRummy-v0`` row (a random legal learner action, the random opponent inside
``step``). One run of it is traced: every state the engine steps from and every view the learner is given. Each
piece is then replayed alone over the traced states, best of five passes. The whole loop runs on the next seed
(other hands), best of three; "rest" is the whole loop less the pieces: the env's bookkeeping, the
opponent's pick, a new deal every hand and the loop's own work.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gin_env.envs.gin_rummy import GinRummyEnv  # noqa: E402
from gin_env.game import engine, match, observation
from gin_env.game.match_record import EMPTY_RECORD
from gin_env.table import two_players as table

PASSES = 5
WHOLE_RUNS = 3


def play(env: GinRummyEnv, steps: int, seed: int) -> float:
    """CPU seconds for ``steps`` random learner steps, resetting at each episode's end."""
    pick = random.Random(seed)
    env.reset(seed=seed)
    start = time.process_time()
    for _ in range(steps):
        legal = env.action_masks().nonzero()[0]
        _, _, terminated, truncated, _ = env.step(int(legal[pick.randrange(legal.size)]))
        if terminated or truncated:
            env.reset()
    return time.process_time() - start


def trace(steps: int, seed: int) -> tuple[list[tuple], list[tuple]]:
    """The (state, action) of every engine step and the (state, seat, scores, record) of every learner view of one
    run."""
    steps_seen, views_seen = [], []
    step, view = match.engine.step, table.view

    def traced_step(state, action):
        steps_seen.append((state, action))
        return step(state, action)

    def traced_view(state, seat, scores=(0, 0), record=EMPTY_RECORD):
        views_seen.append((state, seat, scores, record))
        return view(state, seat, scores, record)

    match.engine.step, table.view = traced_step, traced_view
    try:
        play(GinRummyEnv(opponent="random"), steps, seed)
    finally:
        match.engine.step, table.view = step, view
    return steps_seen, views_seen


def per_step(fn: Callable, calls: list[tuple], steps: int) -> float:
    """Best of PASSES, microseconds per learner step, for calling ``fn`` on each of ``calls``."""
    best = float("inf")
    for _ in range(PASSES):
        start = time.process_time()
        for args in calls:
            fn(*args)
        best = min(best, time.process_time() - start)
    return best / steps * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20_000, help="learner steps traced and timed (default 20000)")
    parser.add_argument("--seed", type=int, default=11, help="seed of the traced run; the whole loop runs on seed+1")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    n = args.steps
    print(f"tracing {n:,} learner steps ...", flush=True)
    steps, views = trace(n, args.seed)
    learner_states = {id(state) for state, *_ in views}
    opponent_states = [(state,) for state, _ in steps if id(state) not in learner_states]
    encoded = [(observation.view(*v),) for v in views]
    print("timing each piece ...", flush=True)
    rows = {
        f"engine.step, both players ({len(steps) / n:.1f} per learner step)": per_step(engine.step, steps, n),
        "engine.legal_mask, the opponent's": per_step(engine.legal_mask, opponent_states, n),
        "observation.view, the learner's": per_step(observation.view, views, n),
        "- of which engine.legal_mask": per_step(engine.legal_mask, [(s,) for s, *_ in views], n),
        "- of which own_deadwood": per_step(observation.own_deadwood, [(s, p) for s, p, *_ in views], n),
        "observation.encode": per_step(observation.encode, encoded, n),
    }
    pieces = sum(cost for name, cost in rows.items() if not name.startswith("-"))
    print("timing the whole loop ...", flush=True)
    env = GinRummyEnv(opponent="random")
    play(env, min(n, 1000), args.seed + 2)  # loads the compiled kernels before the timing
    whole = min(play(env, n, args.seed + 1) for _ in range(WHOLE_RUNS)) / n * 1e6
    rows["whole loop"] = whole
    rows["rest: the env's bookkeeping, the opponent's pick, deals, the loop"] = whole - pieces
    print("\n| piece | CPU us per learner step |\n|---|---:|")
    for name, cost in rows.items():
        print(f"| {name} | {cost:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
