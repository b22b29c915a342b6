"""The run's bookkeeping during ``learn``: opponents per rollout, tallies, TensorBoard scalars, self-play
snapshots, periodic evaluations against a fixed opponent, checkpoints and the progress bar."""

from __future__ import annotations

import os
import time

import numpy as np

from gin_env.agents.ppo import PPOAgent
from gin_env.evaluation import pair_stats, play_games
from gin_env.evaluation.stats import hand_score
from gin_env.files import atomic_path
from gin_env.game.rules import Rules
from gin_env.optional import require
from gin_env.training.config import Args
from gin_env.training.opponents import SELF, allocate, batched_agent, parse_schedule, weights_at
from gin_env.training.pool_env import PoolVecEnv
from gin_env.training.run_files import save_run

BaseCallback = require("stable_baselines3.common.callbacks", "training").BaseCallback
tqdm = require("tqdm", "training's progress bar").tqdm


def quick_eval(agent, opponent, rules: Rules, deals: int, seed: int) -> dict:
    """The evaluation's statistics for ``agent`` against ``opponent`` on ``deals`` duplicate single hands."""
    games = play_games(rules.replace(target=None), agent, opponent, seed, range(deals))
    return pair_stats(games)


def frozen_copy(policy):
    """A CPU copy of ``policy`` in inference mode that training no longer moves (a snapshot, or an evaluation's
    player). Rebuilt from its constructor arguments: a policy that has acted holds tensors deepcopy refuses."""
    twin = type(policy)(**policy._get_constructor_parameters()).to("cpu")
    twin.load_state_dict(policy.state_dict())
    twin.set_training_mode(False)
    return twin


class RunCallback(BaseCallback):
    """The run's bookkeeping during ``learn``: opponents per rollout, per-opponent tallies, TensorBoard scalars,
    self-play snapshots, evaluations, checkpoints and the progress bar, whose total is ``total``: the step count
    the run ends at, whole rollouts (``--total-timesteps`` when None)."""

    def __init__(self, args: Args, env: PoolVecEnv, rules: Rules, history: dict, eval_opponent=None,
                 total: int | None = None) -> None:
        super().__init__()
        self.args, self.env, self.rules, self.history = args, env, rules, history
        self.total = args.total_timesteps if total is None else total
        self.eval_opponent = eval_opponent
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
        self.bar = tqdm(total=self.total, initial=self.num_timesteps, unit="step", unit_scale=True,
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
            last = info.get("outcome_points")
            if last is not None:
                # hands, score (win 1, no winner 1/2), points; a step can end more than one hand, and the points of
                # those before the last are known only as a sum (a single hand in all but the rarest steps).
                before = info["hands_ended"] - 1
                score = hand_score(last) + before * hand_score(info["hand_points"] - last)
                row = self.tally.setdefault(self.labels[i // self.env.slot_size], np.zeros(3))
                row += (info["hands_ended"], score, info["hand_points"])
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
        """Greedy play against the evaluation's opponent on fixed duplicate deals; keeps ``best.zip`` by points
        per hand."""
        stats = quick_eval(PPOAgent(frozen_copy(self.model.policy)), self.eval_opponent, self.rules,
                           self.args.eval_deals, self.args.seed)
        stats["step"] = self.num_timesteps
        stats["opponent"] = self.args.eval_opponent
        self.history["eval"].append(stats)
        self.logger.record(f"eval_{self.args.eval_opponent}/points_per_hand", stats["a_points_per_hand"])
        self.logger.record(f"eval_{self.args.eval_opponent}/hand_win_rate", stats["a_hand_win_rate"])
        best = self.history.get("best")
        if best is None or stats["a_points_per_hand"] > best["a_points_per_hand"]:
            with atomic_path(os.path.join(self.args.run_dir, "best.zip")) as path:
                self.model.save(path)
            self.history["best"] = stats
        self.bar.write(f"step {self.num_timesteps:,}: against {self.args.eval_opponent} "
                       f"{stats['a_points_per_hand']:+.2f} points per hand, "
                       f"hand win rate {stats['a_hand_win_rate']:.1%}")

    def checkpoint(self) -> None:
        save_run(self.model, self.history, self.args.run_dir)

    def _on_training_end(self) -> None:
        evals = self.history["eval"]
        if self.args.eval_deals and (not evals or evals[-1]["step"] != self.num_timesteps):
            self.evaluate()
            self.logger.dump(self.num_timesteps)
        self.bar.close()
