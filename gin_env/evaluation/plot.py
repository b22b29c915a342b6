"""The report of an evaluation as a PNG (``--plot``): win rates on the left, points on the right, each with its 95%
interval, a row per pair (two players) or per side of a line-up (three and four players); written atomically. Every
text is drawn as it is: an agent named ``$x$`` is labelled ``$x$``, not set as mathematics."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gin_env import files
from gin_env.evaluation.report import gauntlet_title, rate_columns, short_names, side_labels
from gin_env.optional import require

#: What the plot's texts are drawn under: no mathtext, so that a ``$`` in an agent's name is a dollar sign.
LITERAL_TEXT = {"text.parse_math": False}
#: Inches of figure per row, by the number of win-rate bars in a row, and around the rows (titles, axes).
ROW_INCHES = {1: 0.5, 2: 0.7, 3: 0.7}
MARGIN_INCHES = 1.4


class Rows(NamedTuple):
    """What the plot shows, a row per pair or per side: ``rates`` is (title, values, intervals) per kind of win
    rate; ``even`` the win rate of an even share."""

    labels: list[str]
    rates: list[tuple[str, np.ndarray, np.ndarray]]
    rate_axis: str
    even: float
    points: tuple[np.ndarray, np.ndarray]
    points_axis: str
    title: str


def plot(report: dict, path: str) -> None:
    """Write the PNG of ``report`` to ``path``."""
    require("matplotlib", "--plot").use("Agg")
    plt = require("matplotlib.pyplot", "--plot")
    with plt.rc_context(LITERAL_TEXT):  # the texts are made, laid out and drawn inside
        save_figure(figure(report), path)


def figure(report: dict):
    """The figure of ``report`` (drawn under :data:`LITERAL_TEXT` by :func:`plot`)."""
    plt = require("matplotlib.pyplot", "--plot")
    rows = _pair_rows(report) if "pairs" in report else _side_rows(report)
    y = np.arange(len(rows.labels))
    fig, (rates, points) = plt.subplots(1, 2, figsize=(11, MARGIN_INCHES + ROW_INCHES[len(rows.rates)] * len(y)),
                                        sharey=True)
    height = 0.8 / len(rows.rates) if len(rows.rates) > 1 else 0.5
    for i, (title, values, ci) in enumerate(rows.rates):
        _bars(rates, y + (i - (len(rows.rates) - 1) / 2) * height, values, ci, height * 0.95, label=title)
    rates.axvline(rows.even, color="grey", linewidth=1)
    rates.set_xlim(0, 1)
    rates.set_xlabel(rows.rate_axis)
    if len(rows.rates) > 1:
        rates.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=len(rows.rates), fontsize="small",
                     frameon=False)
    _bars(points, y, *rows.points, 0.5, color="tab:purple")
    points.axvline(0, color="grey", linewidth=1)
    points.set_xlabel(rows.points_axis)
    rates.set_yticks(y, rows.labels)
    rates.invert_yaxis()
    fig.suptitle(rows.title)
    fig.tight_layout()
    return fig


def _bars(axis, y: np.ndarray, values: np.ndarray, ci: np.ndarray, height: float, **style) -> None:
    """Horizontal bars of ``values`` at ``y``, with their intervals ``ci`` (a row of low, high per bar)."""
    axis.barh(y, values, height=height, xerr=[values - ci[:, 0], ci[:, 1] - values], capsize=3, **style)


def _column(entries: list[dict], key: str) -> tuple[np.ndarray, np.ndarray]:
    """The values of ``key`` and of its interval ``key_ci95`` over ``entries``."""
    return np.array([e[key] for e in entries]), np.array([e[key + "_ci95"] for e in entries])


def _pair_rows(report: dict) -> Rows:
    """Two players: a row per pair, A's win rates of every kind and A's points per hand."""
    pairs, mode = report["pairs"], report["mode"]
    short = short_names(report["agents"])
    return Rows(labels=[f"{short[p['a']]} vs {short[p['b']]}" for p in pairs],
                rates=[(f"{title} win rate", *_column(pairs, key)) for key, title in rate_columns(mode)],
                rate_axis="A's win rate (95% interval)", even=0.5,
                points=_column(pairs, "a_points_per_hand"), points_axis="A's points per hand (95% interval)",
                title=f"{gauntlet_title(report, short)}{report['rules']} rules, {pairs[0][mode]} duplicate {mode} "
                      f"per pair, seed {report['seed']}")


def _side_rows(report: dict) -> Rows:
    """Three or four players: a row per side of each line-up, its game win rate and points per deal."""
    label = side_labels(report)
    labelled = [(f"lineup {i}: {label[r['side']]}", r) for i, t in enumerate(report["lineups"], 1)
                for r in t["results"]]
    results = [r for _, r in labelled]
    return Rows(labels=[text for text, _ in labelled],
                rates=[("game win rate", *_column(results, "win_rate"))],
                rate_axis="game win rate (95% interval)", even=1 / len(report["lineups"][0]["sides"]),
                points=_column(results, "points_per_deal"), points_axis="points per deal (95% interval)",
                title=f"{report['rules']} rules, {report['players']} players, {report['lineups'][0]['games']} "
                      f"{report['mode']} per lineup, seed {report['seed']}")


def save_figure(fig, path: str) -> None:
    """Write ``fig`` to ``path`` as a PNG and close it; written beside it first and then renamed, so a failure or an
    interrupt never leaves a half-written plot under the name asked for."""
    plt = require("matplotlib.pyplot", "--plot")
    try:
        with files.atomic_path(path) as temporary:
            fig.savefig(temporary, dpi=120, format="png")
    finally:
        plt.close(fig)
