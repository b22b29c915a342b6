"""benchmarks/bench_hands.py, the issue-18 speed table: it runs end to end on tiny budgets, and its learner plays
only legal actions, each legal action about equally often."""

import collections
import importlib.util
import json
from pathlib import Path

import numpy as np


def load_bench():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_hands.py"
    spec = importlib.util.spec_from_file_location("bench_hands", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_bench_hands_prints_the_table_and_writes_json_and_plot(tmp_path, capsys):
    bench = load_bench()
    out, png = tmp_path / "hands.json", tmp_path / "hands.png"
    assert bench.main(["--seconds", "0.05", "--rounds", "1", "--sizes", "2", "4", "--json", str(out),
                       "--plot", str(png)]) == 0
    result = json.loads(out.read_text())
    rates = result["hands_per_cpu_second"]
    assert rates[bench.GYM] > 0 and rates[bench.vector_name(4)] > 0
    assert result["memory_per_game_bytes"][bench.vector_name(2)] > 0
    printed = capsys.readouterr().out
    assert "| vector env, 4 games |" in printed and f"wrote {png}" in printed
    assert png.stat().st_size > 0


def test_bench_hands_learner_picks_legal_actions_uniformly():
    bench = load_bench()
    masks = np.zeros((3, 108), dtype=bool)
    masks[0, [5, 70, 107]] = True  # legal actions in both 64-bit words
    masks[1, 0] = True
    masks[2, [63, 64]] = True  # either side of the word boundary
    rng = np.random.default_rng(7)
    counts = [collections.Counter() for _ in range(3)]
    for _ in range(3000):
        for row, action in enumerate(bench.random_actions(masks, rng)):
            counts[row][int(action)] += 1
    assert [set(c) for c in counts] == [{5, 70, 107}, {0}, {63, 64}]
    assert all(900 < counts[0][a] < 1100 for a in (5, 70, 107))
    assert all(1350 < counts[2][a] < 1650 for a in (63, 64))
