"""Distilling the sighted search's values, not its choices, into the network alone.

A clone of the search learns its choices, and the search keeps its guide's choice at 98 to 99% of decisions: the
clone learns about an eighth of the rest and moves about as many others (``sighted_cloning.py``, docs/iteration.md).
Here the target is the search's value of each candidate instead: at every discard-phase decision with more than one
candidate, the search on ``exit-v1``, told the opponent's real hidden cards (``search_sighted.py``), rolls each
candidate out and records its mean value. Over many decisions with the same view, those values average to the value
of each candidate under the hidden cards the opponent really holds there: a target a network might learn where it
cannot learn one sighted choice.

    python experiments/value_distillation.py collect --run-dir runs/values --hands 6000 [--workers 2]
    python experiments/value_distillation.py learn --run-dir runs/values [--temperature 4]
    gin-env evaluate runs/values/network-softmax-e3-lr0.0001-t4-k1.npz expert --rules eaai --matches 1000 --seed 11

``collect`` plays ``--hands`` eaai hands, a third against each of ``ppo-v5``, the expert and simple, ``exit-v1``
playing its own choice throughout (the states the network meets), and writes ``RUN_DIR/values-OPPONENT.npz``: the
encoded view, the candidates (``-1`` padded) and their mean values over ``--samples`` rollouts, a shard already
written kept. ``learn`` trains ``exit-v1``'s actor (torch) so that its probabilities over each decision's candidates
follow ``softmax(values / --temperature)``, with a KL term to ``exit-v1`` over all legal actions that keeps the
rest of its play; it prints, on the 5% of decisions held out, how much value the network's choice gains over
``exit-v1``'s by the recorded values, and writes ``RUN_DIR/network-LOSS-eEPOCHS-lrRATE-tTEMPERATURE-kKEEP.npz``.
"""

from __future__ import annotations

import argparse
import os
import time

import gymnasium as gym
import numpy as np
from sighted_cloning import RULES, TEACHERS, Told, dataset_logits, greedy, start_model

from gin_env import files
from gin_env.agents import numpy_policy, ppo
from gin_env.datasets import collect as collecting
from gin_env.datasets.episodes import Collection, episode_seed, play_episode
from gin_env.evaluation import runner
from gin_env.game.engine import DISCARD
from gin_env.game.observation import encode

#: What each recorded decision keeps: the encoded view, the legal actions, the candidates and their mean values.
FIELDS = ("obs", "legal", "candidates", "values")
#: Decisions per step of the distillation.
BATCH = 256
#: The most candidates the search weighs at a decision: two discards and the least-deadwood knock.
MOST_CANDIDATES = 3


class Recorder(Told):
    """``exit-v1``'s choice, and at each discard-phase decision with several candidates, the sighted search's mean
    value of each."""

    def __init__(self, spec: str, env: gym.Env) -> None:
        super().__init__(spec, env, fair=False)
        self.rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def act(self, view, rng: np.random.Generator) -> int:
        candidates = self.search.candidates(view)
        if view.phase != DISCARD or len(candidates) == 1:
            return self.search.guide(view).act(view, rng)
        self.tell()
        values = self.search.values(view, candidates, rng)
        padded = np.full(MOST_CANDIDATES, -1, dtype=np.int64)
        padded[:len(candidates)] = candidates
        self.rows.append((encode(view, False), view.legal_mask, padded,
                          np.pad(values, (0, MOST_CANDIDATES - len(values)))))
        return candidates[0]


def play(job: tuple[Collection, str], start: int, stop: int, on_game) -> list:
    collection, spec = job
    env = gym.make("GinRummy-v0", **collection.env_kwargs())
    recorder = Recorder(spec, env)
    for index in range(start, stop):
        play_episode(env, recorder, episode_seed(collection.seed, index))
        on_game()
    return recorder.rows


def collect(args) -> None:
    os.makedirs(args.run_dir, exist_ok=True)
    for k, (opponent, spec) in enumerate(TEACHERS.items()):
        path = os.path.join(args.run_dir, f"values-{opponent}.npz")
        if os.path.exists(path):
            continue
        started = time.time()
        spec = spec.replace("]", f",samples={args.samples}]")
        collection = Collection(spec, (opponent,), RULES, seed=args.seed + k)
        parts = runner.play_in_pieces(play, (collection, spec), range(args.hands // len(TEACHERS)),
                                      collecting.CHUNK, args.workers, True, "hand")
        rows = [row for part in parts for row in part]
        arrays = {key: np.stack([row[i] for row in rows]) for i, key in enumerate(FIELDS)}
        with files.atomic_write(path, "wb") as handle:
            np.savez_compressed(handle, **arrays)
        print(f"wrote {path}: {len(rows):,} decisions, {time.time() - started:.0f} s")


def learn(args) -> None:
    import torch
    from tqdm import tqdm

    from gin_env.training.imitation import held_out_split

    tag = f"{args.loss}-e{args.epochs}-lr{args.lr:g}-t{args.temperature:g}-k{args.keep:g}"
    network, distilled = (os.path.join(args.run_dir, f"{name}-{tag}.{ending}")
                          for name, ending in (("network", "npz"), ("distilled", "zip")))
    if os.path.exists(network):
        raise SystemExit(f"value_distillation.py: {network} exists already; remove it to learn again")
    data = [np.load(os.path.join(args.run_dir, f"values-{opponent}.npz")) for opponent in TEACHERS]
    obs = np.concatenate([d["obs"] for d in data]).astype(np.float32)
    legal = np.concatenate([d["legal"] for d in data])
    candidates = np.concatenate([d["candidates"] for d in data])
    values = np.concatenate([d["values"] for d in data]).astype(np.float32)
    start = numpy_policy.shipped("exit")
    held = np.zeros(obs.shape[0], dtype=bool)
    held[held_out_split(obs.shape[0], args.seed)[0]] = True
    is_candidate = candidates >= 0
    model = ppo.read_model(start_model(args.run_dir), "distilling values")
    policy = model.policy
    start_logits = dataset_logits(start, obs)
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.lr)
    rng = np.random.default_rng([args.seed, 4])
    train_rows = np.flatnonzero(~held)
    t = lambda a: torch.as_tensor(a)  # noqa: E731
    for epoch in range(args.epochs):
        order = rng.permutation(train_rows)
        for s in tqdm(range(0, order.size, BATCH), desc=f"pass {epoch + 1} of {args.epochs}", unit="batch"):
            batch = order[s:s + BATCH]
            logits = policy.get_distribution(t(obs[batch])).distribution.logits
            own = torch.where(t(legal[batch]), logits, torch.tensor(-1e9))
            ref = torch.log_softmax(torch.where(t(legal[batch]), t(start_logits[batch]), torch.tensor(-1e9)), 1)
            keep = (ref.exp() * (ref - torch.log_softmax(own, 1))).sum(1).mean()
            chosen = torch.gather(logits, 1, t(np.maximum(candidates[batch], 0)))
            if args.loss == "pairs":
                paired = t(is_candidate[batch][:, 1:])
                # Noise in the values averages out of a difference's mean, where it flattens a softmax of them.
                gap = (chosen[:, 1:] - chosen[:, :1]) - (t(values[batch][:, 1:]) - t(values[batch][:, :1])) \
                    / args.temperature
                follow = (gap.square() * paired).sum() / paired.sum()
            else:
                chosen = torch.where(t(is_candidate[batch]), chosen, torch.tensor(-1e9))
                target = torch.softmax(torch.where(t(is_candidate[batch]), t(values[batch]) / args.temperature,
                                                   torch.tensor(-1e9)), 1)
                follow = -(target * torch.log_softmax(chosen, 1)).sum(1).mean()
            loss = follow + args.keep * keep
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch + 1}: follow {follow.item():.3f}, keep {keep.item():.4f}")
    with files.atomic_write(distilled, "wb") as handle:
        model.save(handle)
    numpy_policy.save_weights(distilled, network)
    report(numpy_policy.load_policy(network), start, obs[held], legal[held], candidates[held], values[held])
    print(f"wrote {network}")


def report(network, start, obs, legal, candidates, values) -> None:
    for name, agent in (("exit-v1", start), ("distilled", network)):
        choice = greedy(agent, obs, legal)
        at = candidates == choice[:, None]
        gained = np.where(at.any(1), (values * at).sum(1) - values[:, 0], np.nan)
        best = candidates[np.arange(len(choice)), np.where(candidates >= 0, values, -np.inf).argmax(1)]
        print(f"{name}: plays a candidate at {at.any(1).mean():.1%} of held-out decisions, the best one at "
              f"{(choice == best).mean():.1%}; value over exit-v1's choice {np.nanmean(gained):+.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("job", choices=("collect", "learn"))
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--hands", type=int, default=6000)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--temperature", type=float, default=4.0)
    parser.add_argument("--keep", type=float, default=1.0)
    parser.add_argument("--loss", choices=("softmax", "pairs"), default="softmax")
    args = parser.parse_args()
    if min(args.hands - len(TEACHERS), args.samples - 1, args.workers - 1, args.epochs - 1) < 0:
        parser.error("--hands must be at least 3, --samples, --workers and --epochs at least 1")
    if min(args.lr, args.temperature) <= 0 or args.keep < 0:
        parser.error("--lr and --temperature must be above 0, --keep at least 0")
    {"collect": collect, "learn": learn}[args.job](args)


if __name__ == "__main__":
    main()
