"""Decision time of the search agent: median and 95th percentile over every decision it makes in seeded hands.

    python benchmarks/bench_search.py [--hands 40 | --games N] [--seed 0] [--rules eaai] [--opponent expert]
                                      [--set guide=expert --set samples=192 ...]

The search plays P1 against ``--opponent`` on single hands, or with ``--games`` whole games to the rules' target,
where its views carry the scores and the match record; every decision of the search is timed (forced moves
too, since a game is made of them), and those it searched (``SearchAgent.searches``: rollouts were played) are also
reported apart. ``--set KEY=VALUE`` overrides one ``SearchParams`` field, read as in the agent name
``search[KEY=VALUE]`` (the studies' knobs are ``experiments/study_search.py``'s). Run it on an idle core: the numbers
are wall-clock times.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gin_env import agents
from gin_env.agents.search import SearchAgent
from gin_env.evaluation import duel
from gin_env.game import engine
from gin_env.game.observation import view
from gin_env.game.rules import PRESETS, Rules


def timed(search: SearchAgent, every: list, searched: list):
    """``search.act``, each decision's milliseconds appended to ``every``, and to ``searched`` when it played
    rollouts."""
    def act(v, rng) -> int:
        start = time.perf_counter()
        action = search.act(v, rng)
        ms = (time.perf_counter() - start) * 1000.0
        every.append(ms)
        if search.searches(v):
            searched.append(ms)
        return action

    return act


def decision_times(search: SearchAgent, opponent, rules: Rules, hands: int, seed: int) -> tuple[list, list]:
    """Milliseconds of each search decision over ``hands`` seeded hands, and of those that searched."""
    rng = np.random.default_rng(seed)
    every, searched = [], []
    act = timed(search, every, searched)
    for h in range(hands):
        state = engine.new_hand(rules, np.random.default_rng([seed, h]), dealer=h % 2)
        while state.phase != engine.OVER:
            v = view(state, state.current)
            state = engine.step(state, act(v, rng) if state.current == 0 else opponent.act(v, rng))
    return every, searched


def game_decision_times(search: SearchAgent, opponent, rules: Rules, games: int, seed: int) -> tuple[list, list]:
    """As :func:`decision_times`, over ``games`` games to ``rules.target`` (the search in seat 0)."""
    every, searched = [], []
    player = agents.CallableAgent(timed(search, every, searched))
    for game in range(games):
        duel.play_game(rules, (player, opponent), seed, game)
    return every, searched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--games", type=int, help="whole games to the rules' target instead of --hands hands")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", default="eaai", choices=sorted(PRESETS))
    parser.add_argument("--opponent", default="expert")
    parser.add_argument("--set", action="append", default=[], dest="settings", metavar="KEY=VALUE",
                        help="one SearchParams field, as in the agent name search[KEY=VALUE] (default: the search's "
                             "defaults)")
    args = parser.parse_args()
    if args.games is not None and Rules.preset(args.rules).target is None:
        parser.error(f"--games: the {args.rules} rules have no target; use --hands")
    rules = Rules.preset(args.rules, target=None)
    try:
        search = agents.load(f"search[{','.join(args.settings)}]" if args.settings else "search")
    except ValueError as err:
        parser.error(f"--set: {err}")
    opponent = agents.load(args.opponent)
    # The first decision compiles the batched engine's kernels and builds the game-win table: not timed.
    decision_times(search, opponent, rules, 1, args.seed + 1)
    if args.games is None:
        every, searched = decision_times(search, opponent, rules, args.hands, args.seed)
        played = f"{args.hands} hands"
    else:
        game_decision_times(search, opponent, Rules.preset(args.rules), 1, args.seed + 1)
        every, searched = game_decision_times(search, opponent, Rules.preset(args.rules), args.games, args.seed)
        played = f"{args.games} games to {Rules.preset(args.rules).target}"
    print(f"{search} against {args.opponent}, {args.rules} rules, {played}")
    print("| decisions | count | median ms | 95th percentile ms |")
    print("|---|---|---|---|")
    for name, times in (("all", every), ("searched", searched)):
        print(f"| {name} | {len(times)} | {np.median(times):.1f} | {np.percentile(times, 95):.1f} |")


if __name__ == "__main__":
    main()
