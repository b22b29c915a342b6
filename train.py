"""Train a MaskablePPO Gin Rummy agent on the batched engine, against a scheduled pool of opponents.

One file in the spirit of CleanRL: every knob is a field of :class:`Args` (``python train.py --help``), every random
choice is seeded from ``--seed``, and a run writes everything to ``--run-dir``:

* ``tb/``: TensorBoard logs (per opponent: hand win rate and points per hand; evaluations against simple; steps/s);
* ``last.zip`` every ``--checkpoint-every`` steps and at the end, ``best.zip`` (best points per hand against simple
  in the periodic duplicate-deal evaluation), ``history.json`` and ``learning_curve.png``;
* ``policy.zip``: ``best.zip`` without its optimizer state, a third of the size, the file to ship
  (``agents/models/ppo_gin.zip`` is one).

The opponents: the learner's games are cut into ``--slots`` groups of equal size, each with one opponent at a time.
At the start of every rollout each group is given an opponent drawn from the ``--opponents`` schedule, a list of
phases ``START:name=weight,...`` separated by ``;`` where START is a fraction of ``--total-timesteps``. Names are
agents with a batched form (``random``, ``simple``, ``expert``, a model .zip) or ``self``: a snapshot of the policy
itself, taken every ``--snapshot-every`` steps (the last ``--snapshots`` are kept), playing by sampling from its
distribution. A curriculum from scratch, for instance: ``--imitate-steps 0 --opponents "0:random;
0.02:random=1,simple=3; 0.2:simple=3,self=1"``.

The learner: MaskablePPO with :class:`agents.networks.CardPolicy`, warm-started by behaviour cloning of a teacher
(``--teacher``, the expert by default; ``--imitate-steps`` of its decisions, policy and critic), on rewards with
potential-based deadwood shaping (``--shaping``).

Example: ``python train.py --run-dir runs/ppo`` (the shipped model's run); resume with
``python train.py --total-timesteps 6000000 --run-dir runs/ppo --resume runs/ppo/last.zip``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv
from tqdm import tqdm

import evaluate
from gin_env import agents
from gin_env.actions import BIG_GIN, KNOCK_BASE, N_ACTIONS
from gin_env.agents.networks import CardPolicy
from gin_env.agents.ppo import PPOAgent, custom_objects_for, export_model
from gin_env.batch_observation import batch_view
from gin_env.observation import DEADWOOD_SCALE, OBS_LAYOUT, OBS_SIZE
from gin_env.rules import PRESETS, Rules
from gin_env.vector import GinRummyVectorEnv, SB3VecEnv

#: The schedule name that stands for snapshots of the policy being trained.
SELF = "self"
#: Where the learner's own deadwood sits in an observation.
DEADWOOD_ENTRY = OBS_LAYOUT["deadwood"].start


@dataclass
class Args:
    """Everything a run depends on; each field is a command-line option (``--total-timesteps`` etc.). The defaults
    are the run that produced the shipped model (``agents/models/ppo_gin.zip``)."""

    total_timesteps: int = field(default=3_000_000, metadata={"help": "learner decisions to train for, in all"})
    seed: int = field(default=1, metadata={"help": "seeds the games, the network, PPO and the opponent draws"})
    rules: str = field(default="eaai", metadata={"help": f"rules preset: {', '.join(sorted(PRESETS))}"})
    reward_scale: float = field(default=50.0, metadata={"help": "reward = learner's hand points / this"})
    num_envs: int = field(default=512, metadata={"help": "games stepped together on the batched engine"})
    slots: int = field(default=8, metadata={"help": "groups of games that share an opponent (divides num_envs)"})
    opponents: str = field(default="0:simple=5,expert=1,self=2",
                           metadata={"help": "opponent schedule: START:name=weight,... phases separated by ';'"})
    snapshot_every: int = field(default=200_000, metadata={"help": "steps between policy snapshots for self-play"})
    snapshots: int = field(default=5, metadata={"help": "most recent snapshots kept in the self-play pool"})
    n_steps: int = field(default=32, metadata={"help": "steps per game per rollout"})
    batch_size: int = field(default=2048, metadata={"help": "PPO minibatch size"})
    n_epochs: int = field(default=4, metadata={"help": "PPO epochs per rollout"})
    learning_rate: float = field(default=1e-4, metadata={"help": "Adam learning rate"})
    gamma: float = field(default=0.99, metadata={"help": "discount factor"})
    gae_lambda: float = field(default=0.95, metadata={"help": "GAE lambda"})
    clip_range: float = field(default=0.2, metadata={"help": "PPO clipping range"})
    ent_coef: float = field(default=0.001, metadata={"help": "entropy bonus coefficient"})
    imitate_steps: int = field(default=1_000_000, metadata={
        "help": "teacher decisions collected for behaviour cloning before PPO starts (0: no cloning)"})
    teacher: str = field(default="expert", metadata={"help": "the agent cloned before PPO starts"})
    imitate_opponent: str = field(default="simple", metadata={"help": "the teacher's opponent while collecting"})
    imitate_epochs: int = field(default=6, metadata={"help": "passes over the collected decisions"})
    knock_weight: float = field(default=10.0, metadata={
        "help": "cloning loss weight of decisions where a knock is legal, relative to the others"})
    imitate_batch_size: int = field(default=256, metadata={"help": "cloning minibatch size"})
    imitate_lr: float = field(default=1e-3, metadata={"help": "Adam learning rate of the cloning"})
    shaping: float = field(default=1.0, metadata={"help": "weight of the potential-based deadwood shaping (0: off)"})
    channels: int = field(default=32, metadata={"help": "channels of each convolution over the card grid"})
    features: int = field(default=128, metadata={"help": "width of the global feature layer"})
    hidden: int = field(default=128, metadata={"help": "width of the value head's hidden layer"})
    eval_every: int = field(default=250_000, metadata={"help": "steps between evaluations against simple"})
    eval_deals: int = field(default=500, metadata={"help": "duplicate deals per evaluation (0: no evaluations)"})
    checkpoint_every: int = field(default=250_000, metadata={"help": "steps between saves of last.zip"})
    run_dir: str = field(default="runs/ppo", metadata={"help": "where logs, checkpoints and plots go"})
    resume: str = field(default="", metadata={"help": "a model .zip to continue training (its PPO settings win)"})
    device: str = field(default="auto", metadata={"help": "auto, cpu or cuda"})
    threads: int = field(default=1, metadata={"help": "torch CPU threads"})
    progress: bool = field(default=True, metadata={"help": "show a progress bar (--no-progress hides it)"})


def parse_args(argv: list[str] | None = None) -> Args:
    """:class:`Args` from the command line: one option per field, named after it with dashes."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type == "bool":
            parser.add_argument(flag, default=f.default, action=argparse.BooleanOptionalAction, help=f.metadata["help"])
        else:
            parser.add_argument(flag, type=type(f.default), default=f.default, help=f.metadata["help"])
    return Args(**vars(parser.parse_args(argv)))


# ---------------------------------------------------------------------------------------------------------------
# Opponents
# ---------------------------------------------------------------------------------------------------------------

def parse_schedule(text: str) -> list[tuple[float, dict[str, float]]]:
    """``"0:random; 0.1:random=1,simple=3"`` -> ``[(0.0, {"random": 1.0}), (0.1, {"random": 1.0, "simple": 3.0})]``,
    sorted by start; the first phase must start at 0."""
    phases = []
    for part in text.split(";"):
        start, _, mix = part.strip().partition(":")
        weights = {}
        for item in mix.split(","):
            name, _, weight = item.strip().partition("=")
            weights[name.strip()] = float(weight) if weight else 1.0
        if not mix.strip() or any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
            raise ValueError(f"bad schedule phase {part.strip()!r}: expected START:name=weight,... with weights >= 0")
        phases.append((float(start), weights))
    phases.sort(key=lambda phase: phase[0])
    if phases[0][0] != 0:
        raise ValueError(f"the opponent schedule must start at 0, got {text!r}")
    return phases


def weights_at(schedule: list[tuple[float, dict[str, float]]], progress: float) -> dict[str, float]:
    """The mixture of the last phase that has started at ``progress`` (a fraction of the run)."""
    return [weights for start, weights in schedule if start <= progress][-1]


def allocate(weights: dict[str, float], slots: int) -> list[str]:
    """One opponent name per slot, in proportion to ``weights`` (largest remainders), so a mixture is met exactly
    as far as whole slots allow, rollout after rollout, rather than only on average."""
    names = sorted(weights)
    total = sum(weights.values())
    quotas = np.array([weights[n] * slots / total for n in names])
    counts = np.floor(quotas).astype(int)
    for i in np.argsort(-(quotas - counts), kind="stable")[:slots - counts.sum()]:
        counts[i] += 1
    return [name for name, count in zip(names, counts) for _ in range(count)]


def batched_agent(name: str):
    """An agent by name, for batched play (a pool opponent, the teacher and its opponent); it needs ``act_batch``."""
    agent = agents.load(name)
    if not callable(getattr(agent, "act_batch", None)):
        raise ValueError(f"agent {name!r} has no batched form act_batch(view, rng), which training needs")
    return agent


def potential(obs: np.ndarray, args: Args) -> np.ndarray:
    """The shaping potential of each observation: minus its own deadwood in reward units, times ``args.shaping``.

    Potential-based shaping (Ng, Harada and Russell, 1999) leaves the best policy unchanged, since its rewards
    telescope over an episode, but pays every drop in deadwood at once, instead of only through the hand's outcome
    many decisions later: the dense signal a sparse per-hand reward lacks."""
    return -args.shaping * obs[:, DEADWOOD_ENTRY] * DEADWOOD_SCALE / args.reward_scale


class PoolVecEnv(VecEnv):
    """The SB3 ``VecEnv`` that trains against several opponents at once: ``args.slots`` vector envs of
    ``num_envs / slots`` games each, concatenated, with the deadwood shaping of :func:`potential` added to the
    rewards. ``set_opponent(slot, agent)`` swaps a group's opponent (games in progress go on with the new one,
    which reads the same views)."""

    def __init__(self, args: Args) -> None:
        if args.num_envs % args.slots:
            raise ValueError(f"--slots ({args.slots}) must divide --num-envs ({args.num_envs})")
        self.args = args
        self.slot_size = args.num_envs // args.slots
        # The placeholder opponent is replaced before the first rollout.
        self.parts = [SB3VecEnv(GinRummyVectorEnv(self.slot_size, rules=args.rules, opponent="random",
                                                  reward_scale=args.reward_scale)) for _ in range(args.slots)]
        self.potential = np.zeros(args.num_envs)
        super().__init__(args.num_envs, self.parts[0].observation_space, self.parts[0].action_space)

    def set_opponent(self, slot: int, agent) -> None:
        self.parts[slot].venv.opponent = agent

    def reset(self) -> np.ndarray:
        base = self._seeds[0] if self._seeds else None
        for i, part in enumerate(self.parts):
            # Distinct, reproducible streams per slot from the one seed SB3 hands out.
            part.seed(None if base is None else int(np.random.SeedSequence([base, i]).generate_state(1)[0]))
        self._reset_seeds()
        obs = np.concatenate([part.reset() for part in self.parts])
        self.potential = potential(obs, self.args)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        for i, part in enumerate(self.parts):
            part.step_async(actions[i * self.slot_size:(i + 1) * self.slot_size])

    def step_wait(self):
        results = [part.step_wait() for part in self.parts]
        obs, rewards, dones = (np.concatenate([r[k] for r in results]) for k in range(3))
        # Shaping F = gamma * phi(s') - phi(s), with phi = 0 at the end of an episode (the observation of an ended
        # game is already the next episode's first one).
        now = potential(obs, self.args)
        rewards = rewards + (self.args.gamma * np.where(dones, 0.0, now) - self.potential).astype(np.float32)
        self.potential = now
        return obs, rewards, dones, [info for r in results for info in r[3]]

    def close(self) -> None:
        for part in self.parts:
            part.close()

    def get_attr(self, attr_name: str, indices=None) -> list:
        return [getattr(self.parts[i // self.slot_size].venv, attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        for i in self._get_indices(indices):
            setattr(self.parts[i // self.slot_size].venv, attr_name, value)

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self.parts[0].venv, attr_name)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name != "action_masks":
            raise NotImplementedError(f"the pool env answers action_masks only, not {method_name!r}")
        masks = np.concatenate([part.venv.action_masks() for part in self.parts])
        return list(masks[list(self._get_indices(indices))])

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._get_indices(indices))


# ---------------------------------------------------------------------------------------------------------------
# Evaluation and plots
# ---------------------------------------------------------------------------------------------------------------

def quick_eval(agent, rules: Rules, deals: int, seed: int) -> dict:
    """``evaluate.py``'s statistics for ``agent`` against simple on ``deals`` duplicate single hands."""
    games = evaluate.play_games(rules.replace(target=None), agent, agents.load("simple"), seed, range(deals))
    return evaluate.pair_stats(games)


def plot_curve(history: dict, path: str) -> None:
    """A PNG of the run: training hand win rate per opponent, and evaluation against simple, over steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (train_ax, eval_ax) = plt.subplots(1, 2, figsize=(11, 4))
    labels = sorted({label for row in history["train"] for label in row["opponents"]})
    for label in labels:
        rows = [row for row in history["train"] if label in row["opponents"]]
        train_ax.plot([r["step"] for r in rows], [r["opponents"][label]["hand_win_rate"] for r in rows], label=label)
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
                title=f"against simple, {history['eval_deals']} duplicate deals")
    eval_ax.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------------------------

def frozen_copy(policy):
    """A CPU copy of ``policy`` in inference mode that training no longer moves (a snapshot, or an evaluation's
    player). Rebuilt from its constructor arguments: a policy that has acted holds tensors deepcopy refuses."""
    twin = type(policy)(**policy._get_constructor_parameters()).to("cpu")
    twin.load_state_dict(policy.state_dict())
    twin.set_training_mode(False)
    return twin


def save_run(model, history: dict, run_dir: str) -> None:
    """The checkpoint: ``last.zip`` and ``history.json``, all that ``--resume`` needs."""
    model.save(os.path.join(run_dir, "last.zip"))
    with open(os.path.join(run_dir, "history.json"), "w") as f:
        json.dump(history, f, indent=1)


class Monitor(BaseCallback):
    """The run's bookkeeping during ``learn``: opponents per rollout, per-opponent tallies, TensorBoard scalars,
    self-play snapshots, evaluations, checkpoints and the progress bar."""

    def __init__(self, args: Args, env: PoolVecEnv, rules: Rules, history: dict) -> None:
        super().__init__()
        self.args, self.env, self.rules, self.history = args, env, rules, history
        self.schedule = parse_schedule(args.opponents)
        self.fixed = {name: batched_agent(name) for _, mix in self.schedule for name in mix if name != SELF}
        # Seeded by the run's progress too, so a resumed run does not repeat its first draws.
        self.rng = np.random.default_rng([args.seed, len(history["eval"]), len(history["train"])])
        self.snapshots: list[PPOAgent] = []
        self.labels = [""] * args.slots
        self.tally: dict[str, np.ndarray] = {}
        self.bar = None

    def _on_training_start(self) -> None:
        self.rollout_time, self.rollout_steps = time.perf_counter(), self.num_timesteps
        self.next_snapshot = self.num_timesteps
        self.next_eval = self.num_timesteps + self.args.eval_every
        self.next_checkpoint = self.num_timesteps + self.args.checkpoint_every
        self.bar = tqdm(total=self.args.total_timesteps, initial=self.num_timesteps, unit="step", unit_scale=True,
                        disable=not self.args.progress, smoothing=0.05, desc="training")
        if self.args.eval_deals and not self.history["eval"]:
            # The starting point of the curve: the warm start's strength before any PPO update.
            self.evaluate()

    def _snapshot(self) -> None:
        agent = PPOAgent(frozen_copy(self.model.policy), deterministic=False)
        self.snapshots = (self.snapshots + [agent])[-self.args.snapshots:]

    def _on_rollout_start(self) -> None:
        if self.num_timesteps >= self.next_snapshot:
            self._snapshot()
            self.next_snapshot = self.num_timesteps + self.args.snapshot_every
        mix = weights_at(self.schedule, self.num_timesteps / self.args.total_timesteps)
        for slot, name in enumerate(allocate(mix, self.args.slots)):
            if name == SELF:
                agent = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
            else:
                agent = self.fixed[name]
            self.env.set_opponent(slot, agent)
            self.labels[slot] = name

    def _on_step(self) -> bool:
        for i, info in enumerate(self.locals["infos"]):
            points = info.get("outcome_points")
            if points is not None:
                # hands, score (win 1, no winner 1/2), points
                row = self.tally.setdefault(self.labels[i // self.env.slot_size], np.zeros(3))
                row += (1.0, 1.0 if points > 0 else 0.5 if points == 0 else 0.0, points)
        self.bar.update(self.env.num_envs)
        return True

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        steps_per_s = (self.num_timesteps - self.rollout_steps) / (now - self.rollout_time)
        self.rollout_time, self.rollout_steps = now, self.num_timesteps
        self.logger.record("throughput/steps_per_s", steps_per_s)
        row = {"step": self.num_timesteps, "steps_per_s": steps_per_s, "slots": list(self.labels), "opponents": {}}
        for label, (hands, score, points) in sorted(self.tally.items()):
            stats = {"hands": int(hands), "hand_win_rate": score / hands, "points_per_hand": points / hands}
            row["opponents"][label] = stats
            self.logger.record(f"opponents/{label}/hand_win_rate", stats["hand_win_rate"])
            self.logger.record(f"opponents/{label}/points_per_hand", stats["points_per_hand"])
        self.history["train"].append(row)
        self.tally = {}
        if self.args.eval_deals and self.num_timesteps >= self.next_eval:
            self.evaluate()
            self.next_eval = self.num_timesteps + self.args.eval_every
        if self.num_timesteps >= self.next_checkpoint:
            self.checkpoint()
            self.next_checkpoint = self.num_timesteps + self.args.checkpoint_every

    def evaluate(self) -> None:
        """Greedy play against simple on fixed duplicate deals; keeps ``best.zip`` by points per hand."""
        stats = quick_eval(PPOAgent(frozen_copy(self.model.policy)), self.rules, self.args.eval_deals, self.args.seed)
        stats["step"] = self.num_timesteps
        self.history["eval"].append(stats)
        self.logger.record("eval_simple/points_per_hand", stats["a_points_per_hand"])
        self.logger.record("eval_simple/hand_win_rate", stats["a_hand_win_rate"])
        best = self.history.get("best")
        if best is None or stats["a_points_per_hand"] > best["a_points_per_hand"]:
            self.history["best"] = stats
            self.model.save(os.path.join(self.args.run_dir, "best.zip"))
        self.bar.write(f"step {self.num_timesteps:,}: against simple {stats['a_points_per_hand']:+.2f} points "
                       f"per hand, hand win rate {stats['a_hand_win_rate']:.1%}")

    def checkpoint(self) -> None:
        save_run(self.model, self.history, self.args.run_dir)

    def _on_training_end(self) -> None:
        evals = self.history["eval"]
        if self.args.eval_deals and (not evals or evals[-1]["step"] != self.num_timesteps):
            self.evaluate()
            self.logger.dump(self.num_timesteps)
        self.bar.close()


def collect_teacher_games(args: Args) -> dict[str, np.ndarray]:
    """``args.imitate_steps`` decisions of the ``--teacher`` in the learner's seat against ``--imitate-opponent``,
    on the batched engine: the encoded observations, legal masks and the teacher's actions, and the value each
    position had for the teacher (the shaped return that PPO's critic estimates; see :func:`potential`).

    Decisions whose hand is still going when collection stops have no return yet; they are kept for the policy
    but get ``has_return`` False."""
    teacher = batched_agent(args.teacher)
    venv = GinRummyVectorEnv(args.num_envs, rules=args.rules, opponent=batched_agent(args.imitate_opponent),
                             reward_scale=args.reward_scale)
    now, _ = venv.reset(seed=args.seed)
    rng = np.random.default_rng([args.seed, 2])
    games = np.arange(args.num_envs)
    rounds = max(1, args.imitate_steps // args.num_envs)
    obs = np.empty((rounds, args.num_envs, OBS_SIZE), dtype=np.float32)
    masks = np.empty((rounds, args.num_envs, N_ACTIONS), dtype=bool)
    actions = np.empty((rounds, args.num_envs), dtype=np.int64)
    rewards = np.empty((rounds, args.num_envs), dtype=np.float32)
    dones = np.empty((rounds, args.num_envs), dtype=bool)
    for t in tqdm(range(rounds), desc=f"collecting {args.teacher}", unit="round", disable=not args.progress):
        obs[t], masks[t] = now, venv.action_masks()
        actions[t] = chosen = teacher.act_batch(batch_view(venv.batch, games, venv.learner, venv.scores), rng)
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


def imitate(model, args: Args, history: dict) -> None:
    """Behaviour cloning of the ``--teacher``: ``--imitate-epochs`` passes over :func:`collect_teacher_games`,
    training the policy to pick the teacher's action (cross-entropy over legal actions) and the critic to predict
    the teacher's returns; 5% of the decisions are held out to report how often the policy agrees with the teacher.

    A warm start, not the goal: PPO then starts from a policy that already plays like the teacher, with a critic
    that knows what positions are worth, instead of spending millions of steps on learning what deadwood is."""
    data = collect_teacher_games(args)
    # Knocks are about 1% of decisions but decide hands: a missed gin costs a whole hand.
    knock_legal = data["masks"][:, KNOCK_BASE:].any(axis=1) | data["masks"][:, BIG_GIN]
    data["weights"] = np.where(knock_legal, args.knock_weight, 1.0).astype(np.float32)
    policy = model.policy
    device = policy.device
    order = np.random.default_rng([args.seed, 3]).permutation(data["actions"].size)
    held_out, train_rows = order[:order.size // 20], order[order.size // 20:]
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
    history["imitation"] = {"teacher": args.teacher, "decisions": int(data["actions"].size),
                            "held_out_agreement": agreement}
    print(f"imitation of {args.teacher}: greedy policy agrees on {agreement:.1%} of held-out decisions")


def new_model(env, args: Args, tensorboard_log: str | None = None) -> MaskablePPO:
    """A fresh MaskablePPO with :class:`agents.networks.CardPolicy` and the PPO settings of ``args``."""
    policy_kwargs = {"features_extractor_kwargs": {"channels": args.channels, "global_dim": args.features},
                     "net_arch": {"pi": [], "vf": [args.hidden]}}
    return MaskablePPO(CardPolicy, env, learning_rate=args.learning_rate, n_steps=args.n_steps,
                       batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma,
                       gae_lambda=args.gae_lambda, clip_range=args.clip_range, ent_coef=args.ent_coef,
                       policy_kwargs=policy_kwargs, tensorboard_log=tensorboard_log, seed=args.seed,
                       device=args.device)


def train(args: Args):
    """Run training as ``args`` say; returns the model. Writes everything under ``args.run_dir``."""
    torch.set_num_threads(args.threads)
    os.makedirs(args.run_dir, exist_ok=True)
    rules = Rules.preset(args.rules)
    env = PoolVecEnv(args)
    history_path = os.path.join(args.run_dir, "history.json")
    if args.resume and os.path.isfile(history_path):
        with open(history_path) as f:
            history = json.load(f)
    else:
        history = {"eval_deals": args.eval_deals, "train": [], "eval": []}
    history.setdefault("args", []).append(dataclasses.asdict(args))
    tb_dir = os.path.join(args.run_dir, "tb")
    if args.resume:
        model = MaskablePPO.load(args.resume, env=env, device=args.device, tensorboard_log=tb_dir,
                                 custom_objects=custom_objects_for(args.resume))
        # Seeded by the step count too, so a resumed run does not replay the deals its first rollouts saw.
        model.set_random_seed(args.seed + model.num_timesteps)
    else:
        model = new_model(env, args, tb_dir)
        if args.imitate_steps:
            imitate(model, args, history)
    callback = Monitor(args, env, rules, history)
    remaining = args.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=not args.resume, tb_log_name="ppo")
    save_run(model, history, args.run_dir)
    if history["eval"]:
        plot_curve(history, os.path.join(args.run_dir, "learning_curve.png"))
        export_model(os.path.join(args.run_dir, "best.zip"), os.path.join(args.run_dir, "policy.zip"))
    return model


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    start = time.perf_counter()
    model = train(args)
    print(f"{model.num_timesteps:,} steps in {time.perf_counter() - start:.0f} s; models in {args.run_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
