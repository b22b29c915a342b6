"""What perfect inference of the hidden cards is worth to the search: a search whose samples give the opponent its
real hidden cards (the stock order still drawn at random), against an opponent, on duplicate eaai matches. Prints the
match win rate with its 95% interval and the points per hand (docs/reports/2026-12-07-search.md).

    python experiments/search_sighted.py [--search "search[guide=exit,opponent=ppo]"] [--opponent ppo]
                                        [--matches 1000] [--seed 11] [--workers 2] [--fair | --disagreements]

The search (``study_search.py``) is told the truth through its opponent model: :class:`Sighted` weighs the
opponent's real hidden cards 1e12 and every other unseen card 1e-12, with no replay, so the weighted draw takes
exactly those cards. The real hand comes from the play loop: ``duel.view`` is wrapped in this process to note the
opponent's hand before each view is made. ``--fair`` plays the same search with its own model, for the comparison
on the same deals.
``--disagreements`` plays ``--matches`` matches in this process with the search's own model and, at every decision
it searches, asks the sighted search too from the same generator state: it prints how often each overrules the
guide, and the decisions where they differ by the kind of action each plays.
"""

from __future__ import annotations

import argparse
import collections
import time

import numpy as np
from duplicate_matches import play_matches, result_line
from study_search import load

from gin_env import agents
from gin_env.belief import OpponentModel
from gin_env.evaluation import duel
from gin_env.game import actions, cards
from gin_env.game.rules import Rules

#: The opponent's hand at the view being made; set by the wrapped ``duel.view``.
TRUTH = {"hand": 0}
_view = duel.view


def noting_view(state, player, scores, record):
    TRUTH["hand"] = state.hands[1 - player]
    return _view(state, player, scores, record)


class Sighted(OpponentModel):
    """Draws the opponent's real hidden cards: they weigh 1e12, every other unseen card 1e-12."""

    def __init__(self) -> None:
        super().__init__(shunned_weight=1.0, partner_weight=1.0, replay=0.0)

    def card_weights(self, view):
        real = cards.to_array(TRUTH["hand"] & view.unseen)
        unseen = cards.to_array(view.unseen)
        return np.where(real, 1e12, np.where(unseen, 1e-12, 0.0))


def play(job: tuple[str, str, int, bool], start: int, stop: int, on_game) -> np.ndarray:
    spec, opponent, seed, fair = job
    duel.view = noting_view
    agent = load(spec)
    if not fair:
        agent.model = Sighted()
    return duel.play_games(Rules.preset("eaai"), agent, agents.load(opponent), seed, range(start, stop),
                           on_game=on_game)


class Disagreements:
    """An agent that plays ``spec`` with its own worlds and, where it searches, notes what the sighted search would
    play from the same generator state."""

    def __init__(self, spec: str) -> None:
        self.fair, self.sighted = load(spec), load(spec)
        self.sighted.model = Sighted()
        self.count: collections.Counter = collections.Counter()

    def act(self, view, rng: np.random.Generator) -> int:
        if not self.fair.searches(view):
            return self.fair.act(view, rng)
        seed = int(rng.integers(2 ** 62))
        fair = self.fair.act(view, np.random.default_rng(seed))
        sighted = self.sighted.act(view, np.random.default_rng(seed))
        guide = self.fair.candidates(view)[0]
        self.count["searched"] += 1
        self.count["its own worlds overrule the guide"] += fair != guide
        self.count["the real cards overrule the guide"] += sighted != guide
        if fair != sighted:
            self.count[f"they differ: own worlds {kind(fair)}, real cards {kind(sighted)}"] += 1
        return fair


def kind(action: int) -> str:
    return "knock" if actions.is_knock(action) else "discard" if actions.is_discard(action) else "draw"


def disagreements(args) -> None:
    duel.view = noting_view
    agent = Disagreements(args.search)
    duel.play_games(Rules.preset("eaai"), agent, agents.load(args.opponent), args.seed, range(args.matches))
    print(f"{args.search} against {args.opponent}, {args.matches} duplicate eaai matches, seed {args.seed}\n")
    print("| searched decisions | count |\n|---|---:|")
    for name, count in agent.count.items():
        print(f"| {name} | {count:,} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--search", default="search[guide=exit,opponent=ppo]")
    parser.add_argument("--opponent", default="ppo")
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--workers", type=int, default=2)
    told = parser.add_mutually_exclusive_group()
    told.add_argument("--fair", action="store_true", help="the search's own model, not the real hand")
    told.add_argument("--disagreements", action="store_true",
                      help="where the search with its own worlds and the sighted one choose differently")
    args = parser.parse_args()
    try:
        load(args.search)
    except ValueError as err:
        parser.error(f"--search: {err}")
    if args.disagreements:
        disagreements(args)
        return
    start = time.time()
    out = play_matches(play, (args.search, args.opponent, args.seed, args.fair), args.matches, args.workers)
    told = "its own model" if args.fair else "the real hidden cards"
    print(f"{args.search} with {told} against {args.opponent}, {args.matches} duplicate eaai matches, seed "
          f"{args.seed}: {result_line(out)}, {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
