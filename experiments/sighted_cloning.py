"""Cloning a sighted teacher: a network that learns the choices of a search told the opponent's real hidden cards.

The network cannot see those cards, so what it learns at each position is the sighted search's choice over the
hands the opponent really holds there, the true distribution of the hidden cards given what the player saw, where
the fair search averages over worlds drawn from its own model. Expert iteration cloned the fair search and stayed
level with its guide (docs/iteration.md); this asks whether the sighted teacher's labels carry more.

    python experiments/sighted_cloning.py collect --run-dir runs/sighted --hands 12000 [--workers 2] [--fair]
    python experiments/sighted_cloning.py learn --run-dir runs/sighted [--epochs 2 --lr 1e-4]
    python experiments/sighted_cloning.py agreement --run-dir runs/sighted \\
        --network runs/sighted/network-e2-lr0.0001.npz
    gin-env evaluate runs/sighted/network-e2-lr0.0001.npz expert --rules eaai --matches 1000 --seed 11

``collect`` plays ``--hands`` eaai hands, a third against each of ``ppo-v5``, the expert and simple, with the
search on ``exit-v1`` (its rollouts modelling the opponent as that opponent's network or simple where it has one)
sighted as ``search_sighted.py`` makes it; one Minari dataset per opponent in ``RUN_DIR/play``, a shard already
written kept. ``--fair`` records the same search with its own worlds instead. ``learn`` clones them into
``exit-v1`` (its actor on the shipped model's critic) as expert iteration's learn stage does (by default two passes
at rate 1e-4) and writes ``RUN_DIR/network-eEPOCHS-lrRATE.npz`` for numpy. ``agreement`` tells how far a clone
learnt the choices where its teacher overruled ``exit-v1``.
"""

from __future__ import annotations

import argparse
import os
import time

import gymnasium as gym
import numpy as np
import search_sighted
from study_search import load

from gin_env.agents import numpy_policy, ppo
from gin_env.datasets import collect, minari_files
from gin_env.datasets.decisions import read_sources
from gin_env.datasets.episodes import Collection, episode_seed, play_episode
from gin_env.evaluation import runner

#: The opponents of the collection, each with the opponent model of the teacher's rollouts.
TEACHERS = {"ppo": "search[guide=exit,opponent=ppo]", "expert": "search[guide=exit]",
            "simple": "search[guide=exit,opponent=simple]"}
RULES = "eaai"


class Told:
    """The teacher, told before each decision the opponent's real hand from the env it plays in."""

    def __init__(self, spec: str, env: gym.Env, fair: bool) -> None:
        self.search, self.env = load(spec), env.unwrapped
        if not fair:
            self.search.model = search_sighted.Sighted()

    def tell(self) -> None:
        """Note the opponent's hand, where the sighted search's opponent model reads it."""
        search_sighted.TRUTH["hand"] = self.env.table.state.hands[1 - self.env.learner]

    def act(self, view, rng: np.random.Generator) -> int:
        self.tell()
        return self.search.act(view, rng)


def play(job: tuple[Collection, str, bool], start: int, stop: int, on_game) -> list:
    collection, spec, fair = job
    env = gym.make("GinRummy-v0", **collection.env_kwargs())
    teacher = Told(spec, env, fair)
    episodes = []
    for index in range(start, stop):
        episodes.append(play_episode(env, teacher, episode_seed(collection.seed, index)))
        on_game()
    return episodes


def collect_shards(args) -> None:
    play_dir = os.path.join(args.run_dir, "play")
    os.makedirs(play_dir, exist_ok=True)
    for k, (opponent, spec) in enumerate(TEACHERS.items()):
        shard = f"{opponent}-v0"
        if os.path.exists(minari_files.dataset_folder(play_dir, shard)):
            continue
        started = time.time()
        collection = Collection(spec, (opponent,), RULES, seed=args.seed + k)
        parts = runner.play_in_pieces(play, (collection, spec, args.fair), range(args.hands // len(TEACHERS)),
                                      collect.CHUNK, args.workers, True, "hand")
        episodes = [episode for part in parts for episode in part]
        told = "with its own worlds" if args.fair else "told the opponent's hidden cards"
        folder = minari_files.write_dataset(
            play_dir, shard, episodes, gym.make("GinRummy-v0", **collection.env_kwargs()),
            algorithm_name=f"{spec} {told}", description=f"gin-env hands of {spec} {told} against {opponent}",
            metadata=collect.metadata(collection, episodes))
        steps = sum(e.actions.size for e in episodes)
        print(f"wrote {folder}: {len(episodes):,} hands, {steps:,} decisions, {time.time() - started:.0f} s")


def start_model(run_dir: str) -> str:
    """``RUN_DIR/start.zip``, made once: ``exit-v1``'s actor on the shipped model's critic, a model that trains."""
    start = os.path.join(run_dir, "start.zip")
    if not os.path.exists(start):
        actor = numpy_policy.SHIPPED["exit"]
        ppo.model_with_actor(ppo.SHIPPED_MODEL, numpy_policy.read_weights(actor), start, actor)
    return start


#: Encoded views per forward pass of a network over a whole dataset (a pass holds per-card features of every view).
VIEWS_PER_PASS = 4096


def dataset_logits(agent, obs: np.ndarray) -> np.ndarray:
    """A numpy network ``agent``'s action logits at each encoded view, ``VIEWS_PER_PASS`` views at a time."""
    return np.concatenate([agent.logits(obs[s:s + VIEWS_PER_PASS]) for s in range(0, len(obs), VIEWS_PER_PASS)])


def greedy(agent, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The action a greedy network ``agent`` plays at each encoded view, as its ``choose`` picks it."""
    return ppo.pick_actions(dataset_logits(agent, obs), masks, np.random.default_rng(0), deterministic=True)


def learn(args) -> None:
    from gin_env.training.config import Args
    from gin_env.training.loop import train

    tag = f"e{args.epochs}-lr{args.lr:g}"
    network, clone_dir = os.path.join(args.run_dir, f"network-{tag}.npz"), os.path.join(args.run_dir, f"clone-{tag}")
    if os.path.exists(network) or os.path.exists(clone_dir):
        raise SystemExit(f"sighted_cloning.py: {clone_dir} or {network} exists already; remove it to clone again")
    start = start_model(args.run_dir)
    play_dir = os.path.join(args.run_dir, "play")
    shards = [minari_files.dataset_folder(play_dir, f"{opponent}-v0") for opponent in TEACHERS]
    train(Args(resume=start, from_dataset=",".join(shards), imitate_steps=10**12, imitate_epochs=args.epochs,
               imitate_lr=args.lr, total_timesteps=0, opponents="0:simple", run_dir=clone_dir, seed=args.seed,
               rules=RULES, eval_deals=0, threads=1))
    numpy_policy.save_weights(os.path.join(clone_dir, "last.zip"), network)
    print(f"wrote {network}")


def agreement(args) -> None:
    """How far a clone learnt its teacher: the share of the recorded decisions that overrule ``exit-v1`` (the
    greedy choice of the network the clone started from), and how often the clone plays the recorded choice on those
    and on the rest, on the decisions it trained on and on the 5% the cloning held out."""
    from gin_env.training.imitation import held_out_split  # torch: not wanted by the jobs that play

    play_dir = os.path.join(args.run_dir, "play")
    found = read_sources([minari_files.dataset_folder(play_dir, f"{opponent}-v0") for opponent in TEACHERS])
    start, clone = numpy_policy.shipped("exit"), numpy_policy.load_policy(args.network)
    before, after, label = (greedy(start, found.obs, found.masks), greedy(clone, found.obs, found.masks),
                            found.actions)
    held = np.zeros(label.size, dtype=bool)
    held[held_out_split(label.size, args.seed)[0]] = True
    print(f"{args.network} on {label.size:,} decisions of {args.run_dir}\n")
    print("| decisions | count | recorded choice is not exit-v1's | clone plays it there | clone plays it elsewhere "
          "| clone differs from exit-v1 |\n|---|---:|---:|---:|---:|---:|")
    for name, rows in (("trained on", ~held), ("held out", held)):
        overrule = before[rows] != label[rows]
        same = after[rows] == label[rows]
        print(f"| {name} | {rows.sum():,} | {overrule.mean():.2%} | {same[overrule].mean():.1%} | "
              f"{same[~overrule].mean():.2%} | {(after[rows] != before[rows]).mean():.2%} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("job", choices=("collect", "learn", "agreement"))
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--hands", type=int, default=6000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--network", help="agreement: the clone's weights (.npz)")
    parser.add_argument("--fair", action="store_true", help="the search's own worlds, not the real hidden cards")
    args = parser.parse_args()
    if args.hands < len(TEACHERS) or args.workers < 1 or args.epochs < 1:
        parser.error("--hands must be at least 3, --workers and --epochs at least 1")
    if args.job == "agreement" and not args.network:
        parser.error("agreement needs --network")
    {"collect": collect_shards, "learn": learn, "agreement": agreement}[args.job](args)


if __name__ == "__main__":
    main()
