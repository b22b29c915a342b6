"""Behaviour cloning of a teacher, the warm start of a run: the teacher's decisions collected on the batched
engine, then the policy and the critic fitted to them."""

from __future__ import annotations

import numpy as np

from gin_env.batch.observation import batch_view
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game.actions import BIG_GIN, is_knock
from gin_env.optional import require
from gin_env.training.config import Args
from gin_env.training.opponents import batched_agent, listed
from gin_env.training.pool_env import episodes, potential

torch = require("torch", "training")
tqdm = require("tqdm", "training's progress bar").tqdm


def collect_teacher_games(args: Args) -> dict[str, np.ndarray]:
    """``args.imitate_steps`` decisions of the ``--teacher`` in the learner's seat against ``--imitate-opponent``
    (several, separated by commas, share them equally), on the batched engine: the encoded observations, legal masks
    and the teacher's actions, and the value each position had for the teacher (the shaped return that PPO's critic
    estimates; see :func:`potential`).

    Decisions whose hand (game, with ``--match-record``) is still going when collection stops have no return yet;
    they are kept for the policy but get ``has_return`` False."""
    teacher = batched_agent(args.teacher)
    names = listed(args.imitate_opponent)
    parts = [_collect(args, teacher, name, args.imitate_steps // len(names) // args.num_envs, k)
             for k, name in enumerate(names)]
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def _collect(args: Args, teacher, opponent: str, rounds: int, k: int) -> dict[str, np.ndarray]:
    """:func:`collect_teacher_games` against one opponent, the ``k``-th: ``max(1, rounds)`` decisions per game."""
    venv = GinRummyVectorEnv(args.num_envs, rules=args.game_rules(), opponent=batched_agent(opponent),
                             reward_scale=args.reward_scale, **episodes(args))
    now, _ = venv.reset(seed=args.seed + k)
    # The first opponent's streams are those a run with one opponent has always had.
    rng = np.random.default_rng([args.seed, 2] + [k] * (k > 0))
    games = np.arange(args.num_envs)
    rounds = max(1, rounds)
    obs = np.empty((rounds, *venv.observation_space.shape), dtype=np.float32)
    masks = np.empty((rounds, args.num_envs, venv.single_action_space.n), dtype=bool)
    actions = np.empty((rounds, args.num_envs), dtype=np.int64)
    rewards = np.empty((rounds, args.num_envs), dtype=np.float32)
    dones = np.empty((rounds, args.num_envs), dtype=bool)
    for t in tqdm(range(rounds), desc=f"collecting {args.teacher} against {opponent}", unit="round",
                  disable=not args.progress):
        obs[t], masks[t] = now, venv.action_masks()
        view = batch_view(venv.batch, games, venv.learner, venv.scores, venv.table.match_record)
        actions[t] = chosen = teacher.act_batch(view, rng)
        now, rewards[t], terminated, truncated, _ = venv.step(chosen)
        dones[t] = terminated | truncated
    returns = np.zeros((rounds, args.num_envs), dtype=np.float32)
    has_return = np.zeros((rounds, args.num_envs), dtype=bool)
    following, ended = np.zeros(args.num_envs, dtype=np.float32), np.zeros(args.num_envs, dtype=bool)
    for t in range(rounds - 1, -1, -1):
        following = rewards[t] + args.gamma * np.where(dones[t], 0.0, following)
        ended |= dones[t]
        returns[t], has_return[t] = following, ended
    flat = lambda a: a.reshape(rounds * args.num_envs, *a.shape[2:])  # noqa: E731
    obs = flat(obs)
    # Shaped return = raw return - potential of the start (the shaping terms telescope, potential 0 at the end).
    values = flat(returns) - potential(obs, args)
    return {"obs": obs, "masks": flat(masks), "actions": flat(actions), "values": values.astype(np.float32),
            "has_return": flat(has_return)}


def knock_legal(masks: np.ndarray) -> np.ndarray:
    """Per row of legal masks (of the standard game's actions or a game with jokers'): whether the player may knock
    or declare big gin there; ``DISCARD(JK)`` is no knock."""
    knocks = [a for a in range(masks.shape[1]) if is_knock(a) or a == BIG_GIN]
    return masks[:, knocks].any(axis=1)


def dataset_sources(args: Args) -> list[str]:
    """The datasets ``--from-dataset`` names, in order (ids or folders, separated by commas)."""
    return [source.strip() for source in args.from_dataset.split(",") if source.strip()]


def dataset_decisions(args: Args) -> dict[str, np.ndarray]:
    """The decisions of ``--from-dataset`` (at most ``--imitate-steps``) as :func:`collect_teacher_games` gives the
    teacher's: the values are each hand's shaped return (each game's with ``--match-record``), from the rewards the
    dataset recorded."""
    from gin_env.datasets import decisions as reading

    found = reading.read_sources(dataset_sources(args), args.imitate_steps)
    # With --match-record the critic learns a game's return, as in collect_teacher_games; else a hand's.
    values = reading.returns(found, args.reward_scale, args.gamma, args.match_record) - potential(found.obs, args)
    return {"obs": found.obs, "masks": found.masks, "actions": found.actions, "values": values.astype(np.float32),
            "has_return": found.episode_ended if args.match_record else found.ended}


def held_out_split(size: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``size`` decisions that a cloning seeded ``seed`` holds out (5%, drawn by the seed) and the rows it
    trains on: the split :func:`imitate` reports its agreement on."""
    order = np.random.default_rng([seed, 3]).permutation(size)
    return order[:size // 20], order[size // 20:]


def imitate(model, args: Args, history: dict) -> None:
    """Behaviour cloning of the ``--teacher`` (or the agent recorded in ``--from-dataset``): ``--imitate-epochs``
    passes over :func:`collect_teacher_games` (or :func:`dataset_decisions`),
    training the policy to pick the teacher's action (cross-entropy over legal actions) and the critic to predict
    the teacher's returns; 5% of the decisions are held out to report how often the policy agrees with the teacher.

    A warm start, not the goal: PPO then starts from a policy that already plays like the teacher, with a critic
    that knows what positions are worth, instead of spending millions of steps on learning what deadwood is."""
    data = dataset_decisions(args) if args.from_dataset else collect_teacher_games(args)
    teacher = args.from_dataset or args.teacher
    # Knocks are about 1% of decisions but decide hands: a missed gin costs a whole hand.
    data["weights"] = np.where(knock_legal(data["masks"]), args.knock_weight, 1.0).astype(np.float32)
    policy = model.policy
    device = policy.device
    held_out, train_rows = held_out_split(data["actions"].size, args.seed)
    tensor = lambda key, rows: torch.as_tensor(data[key][rows], device=device)  # noqa: E731
    for group in policy.optimizer.param_groups:
        group["lr"] = args.imitate_lr
    policy.set_training_mode(True)
    rng = np.random.default_rng([args.seed, 4])
    size = min(args.imitate_batch_size, train_rows.size)
    per_epoch = train_rows.size // size
    batches = (rows for _ in range(args.imitate_epochs)
               for rows in rng.permutation(train_rows)[:per_epoch * size].reshape(per_epoch, size))
    for rows in tqdm(batches, total=args.imitate_epochs * per_epoch, desc="imitating", unit="batch",
                     disable=not args.progress):
        obs = tensor("obs", rows)
        distribution = policy.get_distribution(obs, action_masks=data["masks"][rows]).distribution
        weights = tensor("weights", rows)
        losses = torch.nn.functional.cross_entropy(distribution.logits, tensor("actions", rows), reduction="none")
        loss = (weights * losses).sum() / weights.sum()
        known = tensor("has_return", rows)
        if known.any():
            values = policy.predict_values(obs).flatten()
            loss = loss + 0.5 * torch.nn.functional.mse_loss(values[known], tensor("values", rows)[known])
        policy.optimizer.zero_grad()
        loss.backward()
        policy.optimizer.step()
    policy.set_training_mode(False)
    agree = []
    with torch.no_grad():
        for start in range(0, held_out.size, args.batch_size):
            rows = held_out[start:start + args.batch_size]
            logits = policy.get_distribution(tensor("obs", rows), action_masks=data["masks"][rows]).distribution.logits
            agree.append(logits.argmax(dim=1).cpu().numpy() == data["actions"][rows])
    agreement = float(np.concatenate(agree).mean())
    history["imitation"] = {"teacher": teacher, "decisions": int(data["actions"].size),
                            "held_out_agreement": agreement}
    print(f"imitation of {teacher}: greedy policy agrees on {agreement:.1%} of held-out decisions")
