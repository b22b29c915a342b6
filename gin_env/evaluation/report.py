"""The report of an evaluation: the plain-text table, the JSON file and the PNG plot, and the check, made before any
game, that each output path can be written."""

from __future__ import annotations

import json
import os

import numpy as np

from gin_env.optional import require


def check_output_file(path: str, option: str) -> None:
    """Raise ``OSError`` naming ``option`` when ``path`` cannot be written (a missing folder, a folder in its place,
    no permission), before an evaluation spends its time; the file itself is not created."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise IsADirectoryError(f"{option} {path}: is a folder, not a file")
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise PermissionError(f"{option} {path}: permission denied")


def write_json(report: dict, path: str) -> None:
    """Write ``report`` to ``path`` as JSON, atomically: a temporary file beside it, then renamed."""
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "w") as f:
            json.dump(report, f, indent=2)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _rate_columns(mode: str) -> list[tuple[str, str]]:
    """(key, title) of the win rates worth showing: with ``--deals`` a game is one hand, so its match win rate is the
    hand win rate again and is left out."""
    columns = [("a_hand_win_rate", "hand"), ("a_duplicate_win_rate", "duplicate")]
    return ([("a_match_win_rate", "match")] if mode == "matches" else []) + columns


def _rate(p: float, ci: list[float]) -> str:
    return f"{100 * p:5.1f}% [{100 * ci[0]:4.1f}, {100 * ci[1]:4.1f}]"


def table(report: dict) -> str:
    """The report as a plain-text table for the terminal (and the README)."""
    mode = report["mode"]
    first = report["pairs"][0]
    lines = [f"{report['rules']} rules, {first[mode]} duplicate {mode} per pair ({first['games']} games), "
             f"seed {report['seed']}", ""]
    width = max(len(name) for name in report["agents"])
    columns = _rate_columns(mode)
    header = f"{'A':<{width}}  {'B':<{width}}  {'hands':>6}  {'A points/hand':>16}" + "".join(
        f"  {'A ' + title + ' win rate':>22}" for _, title in columns)
    lines += [header, "-" * len(header)]
    for p in report["pairs"]:
        lo, hi = p["a_points_per_hand_ci95"]
        points = f"{p['a_points_per_hand']:+6.2f} ± {(hi - lo) / 2:5.2f}"
        lines.append(f"{p['a']:<{width}}  {p['b']:<{width}}  {p['hands']:>6}  {points:>16}" + "".join(
            f"  {_rate(p[key], p[key + '_ci95']):>22}" for key, _ in columns))
    lines += ["", "Elo: " + ", ".join(f"{name} {rating:.0f}" for name, rating in
                                      sorted(report["elo"].items(), key=lambda item: -item[1]))]
    capped = sum(p["capped_hands"] for p in report["pairs"])
    abandoned = sum(p["abandoned_games"] for p in report["pairs"])
    lines.append(f"Capped hands (R19 turn cap): {capped}; abandoned games (R19a dead hands in a row): {abandoned}")
    return "\n".join(lines)


def plot(report: dict, path: str) -> None:
    """A PNG of each pair's win rates and points per hand, with their 95% intervals."""
    require("matplotlib", "--plot").use("Agg")
    plt = require("matplotlib.pyplot", "--plot")

    pairs = report["pairs"]
    labels = [f"{p['a']} vs {p['b']}" for p in pairs]
    y = np.arange(len(pairs))
    columns = _rate_columns(report["mode"])
    height = 0.8 / len(columns)
    fig, (rates, points) = plt.subplots(1, 2, figsize=(11, 1.4 + 0.7 * len(pairs)), sharey=True)
    for i, (key, title) in enumerate(columns):
        values = np.array([p[key] for p in pairs])
        ci = np.array([p[key + "_ci95"] for p in pairs])
        rates.barh(y + (i - (len(columns) - 1) / 2) * height, values, height=height * 0.95,
                   xerr=[values - ci[:, 0], ci[:, 1] - values], capsize=3, label=f"{title} win rate")
    rates.axvline(0.5, color="grey", linewidth=1)
    rates.set_xlim(0, 1)
    rates.set_xlabel("A's win rate (95% interval)")
    rates.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=len(columns), fontsize="small", frameon=False)
    values = np.array([p["a_points_per_hand"] for p in pairs])
    ci = np.array([p["a_points_per_hand_ci95"] for p in pairs])
    points.barh(y, values, height=0.5, xerr=[values - ci[:, 0], ci[:, 1] - values], capsize=3, color="tab:purple")
    points.axvline(0, color="grey", linewidth=1)
    points.set_xlabel("A's points per hand (95% interval)")
    rates.set_yticks(y, labels)
    rates.invert_yaxis()
    mode = report["mode"]
    fig.suptitle(f"{report['rules']} rules, {pairs[0][mode]} duplicate {mode} per pair, seed {report['seed']}")
    fig.tight_layout()
    save_figure(fig, path)


def save_figure(fig, path: str) -> None:
    """Write ``fig`` to ``path`` as a PNG and close it; written beside it first and then renamed, so a failure or an
    interrupt never leaves a half-written plot under the name asked for."""
    plt = require("matplotlib.pyplot", "--plot")
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        fig.savefig(temporary, dpi=120, format="png")
        os.replace(temporary, path)
    finally:
        plt.close(fig)
        if os.path.exists(temporary):
            os.unlink(temporary)
