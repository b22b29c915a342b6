"""Random play of the PettingZoo env in every format of docs/rules.md section 15, under every preset, with every
step checked: the full run of what tests/test_pettingzoo_formats.py samples (it imports the play and the checks from
here).

    python benchmarks/formats_random_play.py [--games 500] [--seed 0] [--formats players=3 players=4 "room=(2, 3)"]

Per format and preset, ``--games`` games (``episode="match"``) of random masked play (any legal knock taken), with
after every step ``engine.validate`` of the hands in play, the agent to act never a seat sitting out, rewards
zero-sum, partners' equal, teams' opposite and a room's members' equal to their seat's (:func:`play_game`);
then every game ends at or over its target (or abandoned, R19a). Prints a table of games, steps, seconds, games at
the target and abandoned games.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gin_env.envs.pettingzoo import env  # noqa: E402  (after the path setup above: a checkout runs as is)
from gin_env.game import actions, cards, engine, solver  # noqa: E402
from gin_env.game.observation import OBS_LAYOUT  # noqa: E402
from gin_env.game.rules import PRESETS, Rules  # noqa: E402

#: Chance that a discard is one leaving the least deadwood, so that hands get close to knocking.
GREEDY_DISCARD_PROB = 0.85

#: The formats: keyword arguments of ``gin_env.envs.pettingzoo.env``.
FORMATS = {"players=3": {"players": 3}, "players=4": {"players": 4}, "room=(2, 3)": {"room": (2, 3)}}


def live_hands(aec) -> list[engine.HandState]:
    """The hands in play: both tables' in four players."""
    game = aec.table.game
    return list(game.hands) if aec.rules.players == 4 else [game.hand]


def play_game(aec, seed: int, rng: np.random.Generator, check_masks: bool = True) -> dict:
    """One episode of seeded masked play (:func:`choose`), checking after every
    step: every hand holds its invariants (``engine.validate``); only the agent selected has legal actions, and it
    is never a seat sitting the hand out; rewards are zero-sum, partners' equal and teams' opposite, a room's
    members' equal to their seat's. ``check_masks=False`` skips observing the other agents each step (the long
    benchmark's saving; the tests keep it). Returns the episode's summary: rewards summed per agent, the game, the steps
    and each agent's last info."""
    aec.reset(seed=seed)
    players, room = aec.rules.players, aec.room
    totals = defaultdict(float)
    steps = 0
    final_infos = {}
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, info = aec.last()
        totals[agent] += reward
        if terminated or truncated:
            final_infos[agent] = info
            aec.step(None)
            continue
        for other in aec.agents if check_masks else ():
            if other != agent:
                assert not aec.observe(other)["action_mask"].any(), f"{other} has legal actions out of turn"
        if players == 3:
            assert aec.names.index(agent) != aec.table.game.dealer, "the seat sitting out acts"
        aec.step(choose(obs, rng))
        steps += 1
        for hand in live_hands(aec):
            engine.validate(hand)
        check_rewards(aec, players, room)
    return {"totals": dict(totals), "game": aec.table.game, "steps": steps, "infos": final_infos}


def choose(obs: dict, rng: np.random.Generator) -> int:
    """A seeded legal action from an observation: any legal knock (so games reach their targets), else mostly the
    discard that leaves the least deadwood (:data:`GREEDY_DISCARD_PROB`), else a random legal action."""
    legal = np.flatnonzero(obs["action_mask"])
    knocks = legal[legal >= actions.KNOCK_BASE]
    if knocks.size:
        return int(knocks[rng.integers(knocks.size)])
    discards = legal[(legal >= actions.DISCARD_BASE) & (legal < actions.KNOCK_BASE)]
    if discards.size and rng.random() < GREEDY_DISCARD_PROB:
        hand = cards.to_mask(np.flatnonzero(obs["observation"][OBS_LAYOUT["hand"]]).tolist())
        deadwood = solver.discard_deadwoods(hand)
        return int(min(discards, key=lambda a: deadwood[a - actions.DISCARD_BASE]))
    return int(legal[rng.integers(legal.size)])


def check_rewards(aec, players: int, room) -> None:
    r = [aec.rewards[a] for a in aec.names]
    if room is None:
        assert abs(sum(r)) < 1e-9, f"rewards not zero-sum: {r}"
    if players == 4:
        assert r[0] == r[2] and r[1] == r[3] and r[0] == -r[1], f"team rewards {r}"
    if room is not None:
        seat0, seat1 = r[:room[0]], r[room[0]:]
        assert len(set(seat0)) == 1 and len(set(seat1)) == 1 and seat0[0] == -seat1[0], f"room rewards {r}"


def reached_target(rules: Rules, game) -> bool:
    """The game ended at or over its target (the team target in four players), or is a single hand (target None)
    or was abandoned after ``max_dead_hands`` dead hands (deals) in a row (R19a)."""
    if rules.target is None or game.abandoned:
        return True
    target = rules.team_target if rules.players == 4 else rules.target
    return max(game.scores) >= target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--formats", nargs="+", default=list(FORMATS), choices=list(FORMATS))
    args = parser.parse_args()
    rows = []
    for fmt in args.formats:
        for preset in PRESETS:
            aec = env(rules=preset, episode="match", **FORMATS[fmt])
            rng = np.random.default_rng(args.seed)
            steps = at_target = abandoned = 0
            start = time.perf_counter()
            for seed in tqdm(range(args.games), desc=f"{fmt} {preset}", unit="game", leave=False):
                result = play_game(aec, args.seed * args.games + seed, rng, check_masks=False)
                game = result["game"]
                if not (game.over and reached_target(aec.rules, game)):
                    raise AssertionError(f"{fmt} {preset} game {seed} ended below its target: {game.scores}")
                steps += result["steps"]
                abandoned += game.abandoned
                at_target += not game.abandoned
            rows.append((fmt, preset, args.games, steps, time.perf_counter() - start, at_target, abandoned))
    print(f"\n{args.games} random games per format and preset, seed {args.seed}, every step checked\n")
    print("| format | preset | games | steps | seconds | at target | abandoned (R19a) |")
    print("|---|---|---|---|---|---|---|")
    for fmt, preset, games, steps, seconds, at_target, abandoned in rows:
        print(f"| {fmt} | {preset} | {games} | {steps} | {seconds:.0f} | {at_target} | {abandoned} |")


if __name__ == "__main__":
    main()
