"""A dataset written by ``gin-env dataset`` and read back by Minari alone: the time to play and write it, its size,
and a fresh interpreter that loads it with ``minari.load_dataset`` without importing gin_env and checks the masks
and outcomes in its infos. Prints a markdown table (docs/datasets.md).

    python benchmarks/bench_dataset.py [--hands 1000] [--workers 2] [PLAYER OTHER]

The dataset goes to a temporary folder, removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

#: Run in a fresh interpreter with MINARI_DATASETS_PATH set: what a user of the dataset sees, gin-env not imported.
READER = """
import json, sys, time
import numpy as np
import minari
start = time.perf_counter()
data = minari.load_dataset(sys.argv[1])
steps = legal = hands = 0
kinds = {}
for episode in data.iterate_episodes():
    n = len(episode.actions)
    steps += n
    legal += int(episode.infos["action_mask"][np.arange(n), episode.actions].sum())
    hands += int(episode.infos["hand_ended"].sum())
    kind = str(episode.infos["kind"][-1])
    kinds[kind] = kinds.get(kind, 0) + 1
print(json.dumps({"episodes": data.total_episodes, "steps": steps, "legal": legal, "hands": hands, "kinds": kinds,
                  "seconds": time.perf_counter() - start, "gin_env_imported": "gin_env" in sys.modules}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agents", nargs="*", default=["expert", "simple"], metavar="AGENT")
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        dataset_id = "gin-rummy/bench-v0"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "gin_env.cli", "dataset", *args.agents, "--hands", str(args.hands),
                        "--workers", str(args.workers), "--root", root, "--id", dataset_id, "--no-progress"],
                       check=True, stdout=subprocess.DEVNULL)
        written = time.perf_counter() - start
        size = sum(os.path.getsize(os.path.join(folder, name)) for folder, _, names in os.walk(root) for name in names)
        read = subprocess.run([sys.executable, "-c", READER, dataset_id], capture_output=True, text=True, check=True,
                              env={**os.environ, "MINARI_DATASETS_PATH": root})
        found = json.loads(read.stdout)
    print(f"{' against '.join(args.agents)}, {args.hands:,} hands, {args.workers} workers, "
          f"{platform.processor() or platform.machine()}, Python {platform.python_version()}\n")
    print("| measure | value |\n|---|---|")
    print(f"| `gin-env dataset` (play and write, start-up included) | {written:.1f} s |")
    print(f"| episodes, decisions | {found['episodes']:,}, {found['steps']:,} |")
    print(f"| size on disk | {size / 2**20:.1f} MiB |")
    print(f"| read back by `minari.load_dataset` and iterated, fresh interpreter | {found['seconds']:.1f} s |")
    print(f"| gin_env imported by the reader | {found['gin_env_imported']} |")
    print(f"| recorded actions legal under the recorded mask | {found['legal']:,} of {found['steps']:,} |")
    print(f"| episodes whose last step ends the hand | {found['hands']:,} |")
    print(f"| outcomes | {', '.join(f'{k} {v}' for k, v in sorted(found['kinds'].items()))} |")


if __name__ == "__main__":
    main()
