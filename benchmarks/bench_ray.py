"""Throughput of the Ray jobs on this machine (docs/scaling.md): the tournament in local worker processes and as Ray
tasks, and train_rllib.py's PPO iterations with 0, 1 and 2 env runners.

    python benchmarks/bench_ray.py [--cpus 2] [--deals 1000] [--iterations 3] [--runners 0 1 2]

Both on one local Ray of ``--cpus`` CPUs. The tournament is expert against simple on ``--deals`` duplicate deals
(eaai rules, seed 0); its two reports must be equal. The local run's time includes starting its worker processes;
the Ray run's does not include ``ray.init`` (printed first), which starts Ray's workers. Training runs
train_rllib.py's default PPO settings, one warm-up iteration, then ``--iterations`` timed ones.
"""

from __future__ import annotations

import argparse
import os
import time

import ray

from gin_env.evaluation import tournament
from gin_env.game.rules import Rules
from gin_env.training import rllib_loop


def bench_tournament(deals: int, cpus: int) -> list[tuple[str, float]]:
    """Seconds of the same tournament in ``cpus`` local processes and as Ray tasks; the reports must agree."""
    names, rules = ["expert", "simple"], Rules.preset("eaai")
    start = time.perf_counter()
    local = tournament.evaluate(names, rules, "deals", deals, seed=0, workers=cpus, progress=True)
    local_s = time.perf_counter() - start
    start = time.perf_counter()
    on_ray = tournament.evaluate(names, rules, "deals", deals, seed=0, ray_address="local", progress=True)
    ray_s = time.perf_counter() - start
    if on_ray != local:
        raise SystemExit("the Ray report differs from the local one")
    return [(f"evaluate, {cpus} worker processes", deals / local_s), ("evaluate --ray, one node", deals / ray_s)]


def bench_training(runners: int, iterations: int) -> dict:
    """Seconds per timed PPO iteration, env steps and learner decisions per second, and how long sampling one
    iteration's batch takes alone (timed directly, on the same env runners); the rest of an iteration is the PPO
    update and the weight sync."""
    args = rllib_loop.RLlibArgs(num_env_runners=runners, progress=False)
    algo = rllib_loop.build(args)
    algo.train()  # warm-up: the first iteration also starts the env runners' connectors
    rows = []
    for _ in range(iterations):
        start = time.perf_counter()
        result = algo.train()
        seconds = time.perf_counter() - start
        sampled = result["env_runners"]
        rows.append((seconds, int(sampled["num_env_steps_sampled"]),
                     int(sampled["num_module_steps_sampled"]["learner"])))
    start = time.perf_counter()
    if runners == 0:
        algo.env_runner.sample(num_timesteps=args.batch_size)
    else:
        algo.env_runner_group.foreach_env_runner(lambda runner: runner.sample(num_timesteps=args.batch_size // runners),
                                                 local_env_runner=False)
    sample_s = time.perf_counter() - start
    algo.stop()
    seconds = sum(row[0] for row in rows)
    return {"runners": runners, "iteration_s": seconds / iterations,
            "env_steps_per_s": sum(row[1] for row in rows) / seconds,
            "learner_steps_per_s": sum(row[2] for row in rows) / seconds, "sample_s": sample_s,
            "rest_s": seconds / iterations - sample_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--runners", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    start = time.perf_counter()
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    print(f"ray.init: {time.perf_counter() - start:.1f} s; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    for name, rate in bench_tournament(args.deals, args.cpus):
        print(f"{name:36s} {rate:8.1f} duplicate deals/s")
    print(f"\n{'env runners':>11} {'s/iteration':>12} {'env steps/s':>12} {'learner steps/s':>16} "
          f"{'sampling s':>11} {'the rest s':>11}")
    for runners in args.runners:
        row = bench_training(runners, args.iterations)
        print(f"{row['runners']:>11} {row['iteration_s']:>12.1f} {row['env_steps_per_s']:>12.0f} "
              f"{row['learner_steps_per_s']:>16.0f} {row['sample_s']:>11.1f} {row['rest_s']:>11.1f}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
