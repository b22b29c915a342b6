"""The report of an evaluation: the plain-text table, the JSON file and the PNG plot (each written atomically, by
:mod:`gin_env.files`), and the short names that label agents in the table and the plot."""

from __future__ import annotations

import os

import numpy as np

from gin_env import agents, files
from gin_env.optional import require


def write_json(report: dict, path: str) -> None:
    """Write ``report`` to ``path`` as JSON, atomically: a temporary file beside it, then renamed."""
    files.write_json(path, report, indent=2)


def short_names(names: list[str]) -> dict[str, str]:
    """Agent name -> its label in tables and plots: a model file by its name, with as many of its folders in front
    as set it apart from the other labels (``a/best.zip``, ``b/best.zip``); any other name as it is. The JSON report
    keeps the names in full."""
    parts = {name: _path_parts(name) for name in names}
    depth = dict.fromkeys(names, 1)
    while True:
        labels = {name: "/".join(parts[name][-depth[name]:]) if parts[name] else name for name in names}
        clashing = [name for name in names if parts[name] and depth[name] < len(parts[name])
                    and list(labels.values()).count(labels[name]) > 1]
        if not clashing:
            break
        for name in clashing:
            depth[name] += 1
    # Two spellings of one file (best.zip, ./best.zip) still clash at full depth: they keep their full names.
    return {name: label if list(labels.values()).count(label) == 1 else name for name, label in labels.items()}


def _path_parts(name: str) -> list[str]:
    """The folders and file name of a model path, or nothing for an agent name or ``module:attr``."""
    if not agents.is_path(name):
        return []
    normal = os.path.normpath(name)
    if os.altsep is not None:
        normal = normal.replace(os.altsep, os.sep)
    return [part for part in normal.split(os.sep) if part]


def legend(short: dict[str, str]) -> list[str]:
    """A line for each agent whose label is not its full name, saying which one it is."""
    return [f"{label} = {name}" for name, label in short.items() if label != name]


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
    short = short_names(report["agents"])
    lines = [f"{report['rules']} rules, {first[mode]} duplicate {mode} per pair ({first['games']} games), "
             f"seed {report['seed']}", ""]
    width = max(len(label) for label in short.values())
    columns = _rate_columns(mode)
    header = f"{'A':<{width}}  {'B':<{width}}  {'hands':>6}  {'A points/hand':>16}" + "".join(
        f"  {'A ' + title + ' win rate':>22}" for _, title in columns)
    lines += [header, "-" * len(header)]
    for p in report["pairs"]:
        lo, hi = p["a_points_per_hand_ci95"]
        points = f"{p['a_points_per_hand']:+6.2f} ± {(hi - lo) / 2:5.2f}"
        lines.append(f"{short[p['a']]:<{width}}  {short[p['b']]:<{width}}  {p['hands']:>6}  {points:>16}" + "".join(
            f"  {_rate(p[key], p[key + '_ci95']):>22}" for key, _ in columns))
    lines += ["", "Elo: " + ", ".join(f"{short[name]} {rating:.0f}" for name, rating in
                                      sorted(report["elo"].items(), key=lambda item: -item[1]))]
    capped = sum(p["capped_hands"] for p in report["pairs"])
    abandoned = sum(p["abandoned_games"] for p in report["pairs"])
    lines.append(f"Capped hands (R19 turn cap): {capped}; abandoned games (R19a dead hands in a row): {abandoned}")
    return "\n".join(lines + legend(short))


def plot(report: dict, path: str) -> None:
    """A PNG of each pair's win rates and points per hand, with their 95% intervals."""
    require("matplotlib", "--plot").use("Agg")
    plt = require("matplotlib.pyplot", "--plot")

    pairs = report["pairs"]
    short = short_names(report["agents"])
    labels = [f"{short[p['a']]} vs {short[p['b']]}" for p in pairs]
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
    try:
        with files.atomic_path(path) as temporary:
            fig.savefig(temporary, dpi=120, format="png")
    finally:
        plt.close(fig)
