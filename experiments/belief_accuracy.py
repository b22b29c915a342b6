"""How near the truth each opponent model's worlds are: the share of the opponent's hidden cards that a drawn world
gives it, averaged over worlds and views, for the uniform draw, ``OpponentModel()`` (the search's heuristic) and a
belief network, by the opponent's name. Prints a markdown table (docs/belief.md).

    python experiments/belief_accuracy.py [--network belief-v1] [--games 40] [--worlds 32] [--seed 31337]

The views: duplicate eaai games of the agent ``--viewer`` against each of ``--opponents``, the viewer's view at one
decision in ``EVERY`` while the opponent hides at least one card. ``--seed`` should be one the network never trained
on (``gin-env train-belief`` plays seeds ``(seed, game)`` with its own ``--seed``, 0 for belief-v1).
"""

from __future__ import annotations

import argparse

import numpy as np

from gin_env import __version__, agents, belief
from gin_env.evaluation import duel
from gin_env.evaluation.stats import normal_interval
from gin_env.game import engine
from gin_env.game.observation import view
from gin_env.game.rules import Rules

#: One view in this many decisions of the viewer: views of one hand are alike, so a spread of hands counts more.
EVERY = 3


class Watcher:
    """The viewer's views with the opponent's hidden cards, one decision in :data:`EVERY`."""

    def __init__(self, viewer_seat: int) -> None:
        self.seat, self.seen, self.cases = viewer_seat, 0, []

    def watch(self, state: engine.HandState, action: int) -> None:
        if state.current != self.seat:
            return
        v = view(state, self.seat)
        hidden = state.hands[1 - self.seat] & v.unseen
        self.seen += 1
        if hidden and self.seen % EVERY == 0:
            self.cases.append((v, hidden))


def shares(model, cases, worlds: int, seed: int) -> np.ndarray:
    """Per view: the mean share of its hidden cards that ``worlds`` worlds drawn by ``model`` get right."""
    out = []
    for k, (v, hidden) in enumerate(cases):
        drawn = belief.draw_worlds(v, worlds, np.random.default_rng([seed, k]), model=model).opponent_hands
        right = [int(hand & np.uint64(hidden)).bit_count() for hand in drawn]
        out.append(np.mean(right) / hidden.bit_count())
    return np.asarray(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--network", default="belief-v1", help="a shipped belief network or a path (.npz)")
    parser.add_argument("--viewer", default="exit")
    parser.add_argument("--opponents", default="ppo,expert,simple,gin-hunter")
    parser.add_argument("--games", type=int, default=40, help="duplicate games per opponent")
    parser.add_argument("--worlds", type=int, default=32, help="worlds drawn per view")
    parser.add_argument("--seed", type=int, default=31337)
    args = parser.parse_args()
    rules = Rules.preset("eaai")
    models = (("uniform", None), ("OpponentModel()", belief.OpponentModel()),
              (f"NetworkModel({args.network!r})", belief.NetworkModel(args.network)))
    viewer = agents.load(args.viewer)
    print(f"gin-env {__version__}, eaai, viewer {args.viewer}, {args.games} duplicate games per opponent, "
          f"{args.worlds} worlds per view, seed {args.seed}; 95% intervals over views (views of one hand are "
          "alike, so they are narrower than the truth)\n")
    print("| opponent | views | " + " | ".join(name for name, _ in models) + " |")
    print("|---|---:|" + "---:|" * len(models))
    for name in args.opponents.split(","):
        opponent = agents.load(name)
        cases = []
        for game in range(args.games):
            watchers = Watcher(0), Watcher(1)
            duel.play_duplicate(rules, viewer, opponent, args.seed, game,
                                observers=(watchers[0].watch, watchers[1].watch))
            cases += watchers[0].cases + watchers[1].cases
        cells = []
        for _, model in models:
            per_view = shares(model, cases, args.worlds, args.seed)
            mean = per_view.mean()
            low, high = normal_interval(mean, per_view.var(ddof=1) / len(per_view))
            cells.append(f"{mean:.1%} [{low:.1%}, {high:.1%}]")
        print(f"| {name} | {len(cases):,} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
