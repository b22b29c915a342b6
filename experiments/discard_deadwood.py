"""How often an agent's discards leave more deadwood than the least-deadwood discard, with a joker held and without.

    python experiments/discard_deadwood.py ppo-jokers [--rules jokers] [--hands 150] [--seed 9]

The agent plays both seats of each hand. Keeping a draw over the least deadwood is often right, so the share is
no error rate: what it shows is whether holding a joker changes how the agent discards.
"""

from __future__ import annotations

import argparse
import collections

from gin_env import agents
from gin_env.evaluation import duel
from gin_env.game import actions, engine, observation, solver
from gin_env.game.rules import PRESETS, Rules


def discard_counts(agent, rules: Rules, hands: int, seed: int) -> dict[str, list]:
    """``{"joker held" | "no joker": [discards, those leaving more deadwood than the least, their extra deadwood]}``
    over ``hands`` hands of ``agent`` against itself."""
    counts = collections.defaultdict(lambda: [0, 0, 0])
    jokers = rules.deck.joker_mask
    for hand_number in range(hands):
        state = engine.new_hand(rules, duel.deal_rng(seed, hand_number, 0), dealer=hand_number % 2)
        rng = duel.agent_rng(seed, hand_number, 0, 0)
        while state.phase != engine.OVER:
            view = observation.view(state, state.current)
            action = agent.act(view, rng)
            if state.phase == engine.DISCARD and actions.is_discard(action):
                left = solver.discard_deadwoods(view.hand, rules)
                extra = left[actions.action_card(action, view.hand)] - min(left.values())
                row = counts["joker held" if view.hand & jokers else "no joker"]
                row[0], row[1], row[2] = row[0] + 1, row[1] + (extra > 0), row[2] + extra
            state = engine.step(state, action)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", help="agent name or model path")
    parser.add_argument("--rules", default="jokers", choices=sorted(PRESETS))
    parser.add_argument("--hands", type=int, default=150)
    parser.add_argument("--seed", type=int, default=9)
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    counts = discard_counts(agents.load(args.agent), rules, args.hands, args.seed)
    print(f"{args.agent} against itself, {args.hands} hands, {args.rules} rules, seed {args.seed}\n")
    print("| holding | discards | leaving more deadwood than the least | extra deadwood a discard |")
    print("|---|---|---|---|")
    for key in ("no joker", "joker held"):
        n, worse, extra = counts[key]
        print(f"| {key} | {n} | {worse / max(n, 1):.1%} | {extra / max(n, 1):.2f} |")


if __name__ == "__main__":
    main()
