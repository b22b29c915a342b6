"""Speed of the batched env (``GinRummyVectorEnv``) against OpenSpiel with observations, in one process and run.

    python benchmarks/bench_vector.py [--seconds 4] [--sizes 1 64 1024 8192 16384] [--json out.json] [--plot out.png]

For each batch size N and each batched opponent (random, simple): env steps per second (one learner decision per
game per step, the opponent's moves inside, the learner's observation built) and player actions per second
(learner and opponent decisions together), per CPU second of this process. Only ``env.step`` is timed; the
learner's random legal actions are drawn outside the timer. OpenSpiel is timed as in ``bench_env.py``: every
decision builds ``observation_tensor``, chance nodes are not counted. Ratios are against OpenSpiel's decisions per
second.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import openspiel  # noqa: E402  (a sibling script, on the path set just above)

from gin_env.envs.vector import GinRummyVectorEnv  # noqa: E402


def bench_vector(num_envs: int, opponent: str, seconds: float, seed: int) -> dict:
    env = GinRummyVectorEnv(num_envs=num_envs, opponent=opponent)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = 0
    elapsed = 0.0
    opponent_actions = env.opponent_actions
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        masks = env.action_masks()
        keys = rng.random(masks.shape, dtype=np.float32)
        keys[~masks] = -1.0
        actions = keys.argmax(axis=1)
        start = time.process_time()
        env.step(actions)
        elapsed += time.process_time() - start
        steps += num_envs
    actions_total = steps + env.opponent_actions - opponent_actions
    return {"num_envs": num_envs, "opponent": opponent, "env_steps_per_s": steps / elapsed,
            "player_actions_per_s": actions_total / elapsed}


def plot(rows: list[dict], openspiel: float | None, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for opponent in sorted({r["opponent"] for r in rows}):
        mine = [r for r in rows if r["opponent"] == opponent]
        ax.plot([r["num_envs"] for r in mine], [r["env_steps_per_s"] for r in mine], "o-",
                label=f"gin-env vector, {opponent} opponent (env steps)")
    if openspiel:
        ax.axhline(openspiel, color="gray", linestyle="--", label="OpenSpiel, decisions with observation")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("games per batch (N)")
    ax.set_ylabel("steps per second (one process)")
    ax.set_title("GinRummyVectorEnv throughput")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=4.0, help="timing budget per measurement")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 8192, 16384], help="batch sizes N")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--plot", help="write a PNG of steps/s against N here")
    args = parser.parse_args()

    run_openspiel = openspiel(args.seed)
    openspiel_rate = None
    if run_openspiel is not None:
        start = time.process_time()
        openspiel_rate = run_openspiel(args.seconds) / (time.process_time() - start)
    rows = [bench_vector(n, opponent, args.seconds, args.seed)
            for opponent in ("random", "simple") for n in args.sizes]

    print("| N | opponent | env steps/s | player actions/s | env steps vs OpenSpiel | actions vs OpenSpiel |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        ratios = ("-", "-")
        if openspiel_rate:
            ratios = (f"{r['env_steps_per_s'] / openspiel_rate:.1f}x",
                      f"{r['player_actions_per_s'] / openspiel_rate:.1f}x")
        print(f"| {r['num_envs']} | {r['opponent']} | {r['env_steps_per_s']:,.0f} | "
              f"{r['player_actions_per_s']:,.0f} | {ratios[0]} | {ratios[1]} |")
    if openspiel_rate:
        print(f"\nOpenSpiel 2.0.2 gin_rummy, random play with observation_tensor: {openspiel_rate:,.0f} decisions/s")
    else:
        print("\nOpenSpiel is not installed: no ratios.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"openspiel_decisions_per_s": openspiel_rate, "rows": rows}, f, indent=2)
    if args.plot:
        plot(rows, openspiel_rate, args.plot)


if __name__ == "__main__":
    main()
