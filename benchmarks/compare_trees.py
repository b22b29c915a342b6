"""This tree's hands per CPU second against another checkout's, by ``bench_hands.py``'s protocol, in one run.

    python benchmarks/compare_trees.py BASELINE [--rounds 5] [--seconds 3] [--sizes 64 1024] [--json out.json]

``BASELINE`` is another checkout of gin-env (for example ``git worktree add /tmp/baseline v0.12.0``). Each round
runs ``bench_hands.py --rounds 1`` once in each tree, in its own process and with its own compiled-code cache, the
two trees taking turns at going first; every row's figure is the median of its rounds. Each run also measures
OpenSpiel (and RLCard, when installed), so the table gives this tree's ratio to OpenSpiel from the same run, and
the ratio of this tree to the baseline with the floor the docs promise (``REGRESSION_FLOOR``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tqdm import tqdm

HERE = Path(__file__).resolve().parents[1]
#: The least ratio of a row's median to the baseline's that counts as no regression.
REGRESSION_FLOOR = 0.93
OPENSPIEL = "OpenSpiel"


def one_run(tree: Path, seconds: float, sizes: list[int], out: Path) -> dict[str, float]:
    """Hands per CPU second of every row of ``bench_hands.py`` in ``tree``, one round."""
    command = [sys.executable, str(tree / "benchmarks" / "bench_hands.py"), "--rounds", "1", "--seconds",
               str(seconds), "--sizes", *map(str, sizes), "--json", str(out)]
    subprocess.run(command, check=True, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return json.loads(out.read_text())["hands_per_cpu_second"]


def table(medians: dict[str, dict[str, float]]) -> str:
    """Rows of both trees' medians, this tree's ratio to OpenSpiel and to the baseline."""
    lines = ["| what | baseline | this tree | this / baseline | x OpenSpiel (this tree) |",
             "|---|---:|---:|---:|---:|"]
    ours, base = medians["this tree"], medians["baseline"]
    for name, rate in ours.items():
        ratio = rate / base[name] if base.get(name) else float("nan")
        verdict = "" if name.startswith(("OpenSpiel", "RLCard")) else (
            " (met)" if ratio >= REGRESSION_FLOOR else f" (under {REGRESSION_FLOOR})")
        vs_openspiel = f"{rate / ours[OPENSPIEL]:.1f}x" if ours.get(OPENSPIEL) else "-"
        lines.append(f"| {name} | {base.get(name, float('nan')):,.0f} | {rate:,.0f} | {ratio:.2f}{verdict} | "
                     f"{vs_openspiel} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("baseline", type=Path, help="another checkout of gin-env")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, each tree once a round (default 5)")
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per row and round (default 3)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 1024], help="vector env sizes (default 64 1024)")
    parser.add_argument("--json", metavar="FILE", help="also write every round and the medians as JSON")
    args = parser.parse_args(argv)
    script = args.baseline / "benchmarks" / "bench_hands.py"
    if not script.is_file():
        parser.error(f"{args.baseline} is not a checkout of gin-env: it has no benchmarks/bench_hands.py")
    if args.rounds < 1 or args.seconds <= 0 or min(args.sizes) < 1:
        parser.error("--rounds and every size must be at least 1, --seconds positive")
    trees = {"baseline": args.baseline.resolve(), "this tree": HERE}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as scratch, tqdm(total=2 * args.rounds, unit="run", desc="comparing") as bar:
        for r in range(args.rounds):
            order = list(trees) if r % 2 == 0 else list(reversed(trees))
            for name in order:
                bar.set_postfix_str(name)
                runs[name].append(one_run(trees[name], args.seconds, args.sizes, Path(scratch) / "run.json"))
                bar.update()
    medians = {name: {row: statistics.median(run[row] for run in rounds) for row in rounds[0]}
               for name, rounds in runs.items()}
    print(f"\nmedian of {args.rounds} rounds of {args.seconds:g} CPU s per row; baseline {trees['baseline']}\n")
    print(table(medians))
    if args.json:
        Path(args.json).write_text(json.dumps({"rounds": runs, "medians": medians}, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
