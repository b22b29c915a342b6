"""The strength of expert iteration's generations: each generation's match win rate against every measured agent
and the generation before, as ``curve.json``, a table and ``curve.png``."""

from __future__ import annotations

import json
import os

import numpy as np

from gin_env import files
from gin_env.text import printable
from iteration.options import IterateArgs, names

#: The column of the generation before.
PREVIOUS = "previous"
#: The largest ``measure.json`` read, in bytes: an evaluation report of a few pairs is some kilobytes.
REPORT_LIMIT = 16 * 2**20


def curve_rows(args: IterateArgs) -> list[dict]:
    """One row per measured generation, from 0: its network and, by opponent (``previous`` for the generation
    before), the match win rate (or the duplicate win rate of single deals) with its 95% interval and the points
    per hand."""
    rows, g = [], 0
    while os.path.exists(path := os.path.join(args.run_dir, f"gen-{g}", "measure.json")):
        report = json.loads(files.read_text(path, REPORT_LIMIT, "measure.json"))
        rate = "a_match_win_rate" if report["mode"] == "matches" else "a_duplicate_win_rate"
        against = {}
        for pair, label in zip(report["pairs"], [*names(args.measure_against), PREVIOUS]):
            against[label] = {"win_rate": pair[rate], "ci95": pair[f"{rate}_ci95"],
                              "points_per_hand": pair["a_points_per_hand"], "games": pair["games"]}
        rows.append({"generation": g, "network": report["agents"][0], "against": against})
        g += 1
    return rows


def table(rows: list[dict], labels: list[str]) -> str:
    """The curve as a text table: a row per generation, a column per opponent."""
    head = ["generation", *labels]
    lines = [head]
    for row in rows:
        cells = [str(row["generation"])]
        for label in labels:
            entry = row["against"].get(label)
            cells.append("" if entry is None else
                         f"{entry['win_rate']:.1%} [{entry['ci95'][0]:.1%}, {entry['ci95'][1]:.1%}]")
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines)


def plot(rows: list[dict], labels: list[str], path: str) -> None:
    """Win rate by generation, one line per opponent, with 95% intervals."""
    from gin_env.evaluation.plot import LITERAL_TEXT
    from gin_env.optional import require

    plt = require("matplotlib.pyplot", "the generation curve")
    with plt.rc_context(LITERAL_TEXT):  # the opponents' names are drawn as text, never as mathtext
        _draw(plt, rows, labels, path)


def _draw(plt, rows: list[dict], labels: list[str], path: str) -> None:
    """The curve drawn and written to ``path``."""
    from gin_env.evaluation.plot import save_figure

    fig, axis = plt.subplots(figsize=(7, 4.5))
    for label in labels:
        points = [(row["generation"], row["against"][label]) for row in rows if label in row["against"]]
        if not points:
            continue
        x = np.array([g for g, _ in points])
        y = np.array([entry["win_rate"] for _, entry in points])
        low = y - np.array([entry["ci95"][0] for _, entry in points])
        high = np.array([entry["ci95"][1] for _, entry in points]) - y
        axis.errorbar(x, y, yerr=[low, high], marker="o", capsize=3, label=printable(f"against {label}"))
    axis.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    axis.set_xlabel("generation")
    axis.set_ylabel("win rate")
    axis.set_xticks([row["generation"] for row in rows])
    axis.set_title("Expert iteration: each generation's network")
    axis.legend()
    fig.tight_layout()
    save_figure(fig, path)


def write_curve(args: IterateArgs) -> None:
    """``curve.json`` and ``curve.png`` in the run folder, and the table printed."""
    rows = curve_rows(args)
    labels = [*names(args.measure_against), PREVIOUS]
    files.write_json(os.path.join(args.run_dir, "curve.json"), rows)
    plot(rows, labels, os.path.join(args.run_dir, "curve.png"))
    print(table(rows, labels))
    print(f"wrote {os.path.join(args.run_dir, 'curve.json')}, {os.path.join(args.run_dir, 'curve.png')}")
