"""A training run from start to end (:func:`train`) and its command line (``gin-env train``)."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time

from gin_env import agents
from gin_env.agents.networks import CardPolicy
from gin_env.agents.ppo import custom_objects_for, export_model
from gin_env.optional import require
from gin_env.rules import Rules
from gin_env.training.config import Args, parse_args
from gin_env.training.imitation import imitate
from gin_env.training.monitor import RunCallback, save_run
from gin_env.training.plots import plot_curve
from gin_env.training.pool_env import PoolVecEnv

torch = require("torch", "training")
MaskablePPO = require("sb3_contrib", "training").MaskablePPO


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
    # Checked before hours of training, not when the files are written at the end.
    require("tensorboard", "training's logs")
    if args.eval_deals:
        require("matplotlib", "the learning curve")
    eval_opponent = agents.load(args.eval_opponent) if args.eval_deals else None
    torch.set_num_threads(args.threads)
    os.makedirs(args.run_dir, exist_ok=True)
    rules = Rules.preset(args.rules)
    env = PoolVecEnv(args)
    history_path = os.path.join(args.run_dir, "history.json")
    if args.resume and os.path.isfile(history_path):
        with open(history_path) as f:
            history = json.load(f)
        # best.zip is kept by comparing evaluations, which only means something against one opponent.
        if history.get("eval_opponent", "simple") != args.eval_opponent:
            raise ValueError(f"--eval-opponent {args.eval_opponent!r}: the run in {args.run_dir} was evaluated "
                             f"against {history.get('eval_opponent', 'simple')!r}; give that, or a new --run-dir")
    else:
        history = {"eval_deals": args.eval_deals, "eval_opponent": args.eval_opponent, "train": [], "eval": []}
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
    callback = RunCallback(args, env, rules, history, eval_opponent)
    remaining = args.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=not args.resume, tb_log_name="ppo")
    save_run(model, history, args.run_dir)
    if history["eval"]:
        plot_curve(history, os.path.join(args.run_dir, "learning_curve.png"))
        export_model(os.path.join(args.run_dir, "best.zip"), os.path.join(args.run_dir, "policy.zip"))
    return model


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; the exit code (0 done, 130 interrupted: the last checkpoint stays)."""
    args = parse_args(argv, prog)
    start = time.perf_counter()
    try:
        model = train(args)
    except KeyboardInterrupt:
        print(f"training interrupted; the last checkpoint (if any) is in {args.run_dir}", file=sys.stderr)
        return 130
    print(f"{model.num_timesteps:,} steps in {time.perf_counter() - start:.0f} s")
    written = ["last.zip", "history.json", "best.zip", "policy.zip", "learning_curve.png", "tb"]
    print("wrote " + ", ".join(os.path.join(args.run_dir, name) for name in written
                               if os.path.exists(os.path.join(args.run_dir, name))))
    return 0
