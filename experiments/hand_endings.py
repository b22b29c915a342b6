"""How hands end between agents: gins, knocks and undercuts by seat, over duplicate single-hand deals.

    python experiments/hand_endings.py ppo expert --against simple [--rules eaai] [--deals 300] [--seed 1]

Each deal is played twice with the seats swapped (as ``evaluate.py`` does), and every hand's outcome is counted
from the first agent's side: its gins, its knocks (and how many of those were undercut), the opponent's gins, the
opponent's knocks (and how many of those the agent undercut), ties and dead hands.
"""

from __future__ import annotations

import argparse
import collections
from collections.abc import Iterator

from gin_env import agents
from gin_env.evaluation import duel
from gin_env.game import engine
from gin_env.game.rules import PRESETS, Rules

COLUMNS = ("gin", "knock", "undercut", "opponent gin", "opponent knock", "opponent undercut", "tie", "dead")


def duplicate_hands(agent, opponent, rules: Rules, deals: int, seed: int) -> Iterator[tuple[int, engine.HandOutcome]]:
    """``(seating, outcome)`` of ``deals`` duplicate single hands (``2 * deals`` hands): each deal played with
    ``agent`` as P1 (seating 0), then as P2 (seating 1), so ``seating`` is the agent's seat."""
    for deal in range(deals):
        for seating in (0, 1):
            rngs = [duel.agent_rng(seed, deal, seating, seat) for seat in (0, 1)]
            state = engine.new_hand(rules, duel.deal_rng(seed, deal, 0), dealer=deal % 2)
            yield seating, duel.play_hand(state, duel.seats(agent, opponent, seating), rngs).outcome


def hand_endings(agent, opponent, rules: Rules, deals: int, seed: int) -> collections.Counter:
    """Outcome counts from ``agent``'s side over ``deals`` duplicate single hands (``2 * deals`` hands)."""
    counts = collections.Counter()
    for seating, outcome in duplicate_hands(agent, opponent, rules, deals, seed):
        if outcome.knocker is None or outcome.kind == "tie":
            counts[outcome.kind] += 1
        else:
            # "undercut" from the agent's side: its knock was undercut; "opponent undercut": it undercut.
            prefix = "" if outcome.knocker == seating else "opponent "
            counts[prefix + ("gin" if outcome.kind in ("gin", "big_gin") else outcome.kind)] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agents", nargs="+", help="agent names or model paths")
    parser.add_argument("--against", default="simple", help="the opponent of every agent")
    parser.add_argument("--rules", default="eaai", choices=sorted(PRESETS))
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = Rules.preset(args.rules, target=None)
    opponent = agents.load(args.against)
    print(f"{args.deals} duplicate deals ({2 * args.deals} hands) against {args.against}, {args.rules} rules, "
          f"seed {args.seed}\n")
    print("| agent | " + " | ".join(COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for name in args.agents:
        counts = hand_endings(agents.load(name), opponent, rules, args.deals, args.seed)
        print(f"| {name} | " + " | ".join(str(counts[c]) for c in COLUMNS) + " |")


if __name__ == "__main__":
    main()
