"""How long the answers that come before any work take: ``import gin_env``, ``gin-env --version`` and each job's
``--help``, each in a fresh Python process, and ``reset`` refusing rules under which no deal reaches the learner
(``MAX_REDEALS`` deals, then a ``ValueError``), in the env and the vector env.

    python benchmarks/bench_startup.py [--rounds 5] [--jobs evaluate play ...] [--json out.json]

The tests hold what keeps these quick: ``--help`` imports none of the optional packages
(tests/test_cli_errors.py), and a reset deals at most ``MAX_REDEALS`` times (tests/test_env_misuse.py). The seconds
depend on the machine and on what else runs on it, so they are measured here, the median and the slowest of
``--rounds`` runs each, and never asserted by a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from gin_env import cli
from gin_env.envs.gin_rummy import GinRummyEnv
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game.rules import Rules
from gin_env.table.checks import MAX_REDEALS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Player 0 deals every hand, the non-dealer discards first from 11 cards, and that discard ends the hand (R19): a
#: learner in seat 0 never has a decision, so every reset deals ``MAX_REDEALS`` times and refuses.
NO_DECISION = Rules(deal_mode="eleven", max_turns=1, first_dealer="P1")
#: The envs whose refusal is timed, by the row's name.
REFUSING = {
    "GinRummyEnv reset, refused": lambda: GinRummyEnv(rules=NO_DECISION, opponent="random", learner_seat=0),
    "GinRummyVectorEnv reset (4 games), refused": lambda: GinRummyVectorEnv(num_envs=4, rules=NO_DECISION,
                                                                            opponent="random", learner_seat=0),
}


def process_seconds(argv: list[str]) -> float:
    """Wall-clock seconds of ``python ARGV`` from start to exit, in the repository; exits on a failed run."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"python {' '.join(argv)} failed (exit code {result.returncode}): {result.stderr.strip()}")
    return seconds


def refusal_seconds(make: Callable) -> float:
    """Wall-clock seconds of one ``reset`` of a new env from ``make``, which must refuse the rules."""
    env = make()
    start = time.perf_counter()
    try:
        env.reset(seed=0)
    except ValueError:
        return time.perf_counter() - start
    raise SystemExit(f"{type(env).__name__}.reset did not refuse rules under which no deal reaches the learner")


def measure(rounds: int, jobs: list[str]) -> dict[str, list[float]]:
    """Every row's seconds, ``rounds`` runs each (the runs of a round one after another, so load spreads evenly)."""
    commands = {"import gin_env": ["-c", "import gin_env"],
                "gin-env --version": ["-m", "gin_env.cli", "--version"],
                **{f"gin-env {job} --help": ["-m", "gin_env.cli", job, "--help"] for job in jobs}}
    times: dict[str, list[float]] = {name: [] for name in [*commands, *REFUSING]}
    for _ in range(rounds):
        for name, argv in commands.items():
            times[name].append(process_seconds(argv))
        for name, make in REFUSING.items():
            times[name].append(refusal_seconds(make))
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="runs of each measurement (default 5)")
    parser.add_argument("--jobs", nargs="+", choices=list(cli.JOBS), default=list(cli.JOBS),
                        help="the jobs whose --help is timed (default: every job)")
    parser.add_argument("--json", help="write the seconds of every run here")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    times = measure(args.rounds, args.jobs)
    print(f"# seconds before any work ({platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; {args.rounds} round(s); a reset refuses after {MAX_REDEALS:,} deals)")
    print("| what | median s | slowest s |")
    print("|---|---|---|")
    for name, seconds in times.items():
        print(f"| {name} | {statistics.median(seconds):.3f} | {max(seconds):.3f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(times, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
