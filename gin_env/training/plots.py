"""The learning curve of a run as a PNG."""

from __future__ import annotations

import numpy as np

from gin_env.evaluation.plot import LITERAL_TEXT
from gin_env.optional import require
from gin_env.text import printable


def plot_curve(history: dict, path: str) -> None:
    """A PNG of the run: training hand win rate per opponent, and the periodic evaluation, over steps. The opponents'
    names (from the options and the run's history.json) are drawn as text, never as mathtext."""
    require("matplotlib", "the learning curve").use("Agg")
    plt = require("matplotlib.pyplot", "the learning curve")
    with plt.rc_context(LITERAL_TEXT):
        _draw(plt, history, path)


def _draw(plt, history: dict, path: str) -> None:
    """The curve of ``history`` drawn and written to ``path``."""
    fig, (train_ax, eval_ax) = plt.subplots(1, 2, figsize=(11, 4))
    labels = sorted({label for row in history["train"] for label in row["opponents"]})
    for label in labels:
        rows = [row for row in history["train"] if label in row["opponents"]]
        train_ax.plot([r["step"] for r in rows], [r["opponents"][label]["hand_win_rate"] for r in rows],
                      label=printable(label))
    train_ax.axhline(0.5, color="grey", linewidth=1)
    train_ax.set(xlabel="steps", ylabel="hand win rate in training", ylim=(0, 1), title="training, per opponent")
    train_ax.legend(fontsize="small")
    evals = history["eval"]
    if evals:
        steps = [e["step"] for e in evals]
        points = np.array([e["a_points_per_hand"] for e in evals])
        ci = np.array([e["a_points_per_hand_ci95"] for e in evals])
        eval_ax.errorbar(steps, points, yerr=[points - ci[:, 0], ci[:, 1] - points], marker="o", capsize=3,
                         label="points per hand")
        eval_ax.axhline(0, color="grey", linewidth=1)
        rate_ax = eval_ax.twinx()
        rate_ax.plot(steps, [e["a_hand_win_rate"] for e in evals], color="tab:orange", marker="s",
                     label="hand win rate")
        rate_ax.set(ylim=(0, 1), ylabel="hand win rate")
        rate_ax.legend(loc="lower right", fontsize="small")
    eval_ax.set(xlabel="steps", ylabel="points per hand (95% interval)",
                title=printable(f"against {history.get('eval_opponent', 'simple')}, {history['eval_deals']} duplicate "
                                "deals"))
    eval_ax.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
