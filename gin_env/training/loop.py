"""A training run from start to end (:func:`train`) and its command line (``gin-env train``).

The options are checked first (:func:`.checks.check_args`); torch, stable-baselines3 and the modules that need them
are imported only after, inside the functions that train, so ``--help`` and a bad option answer without them.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
import time

from gin_env import agents, locks
from gin_env.files import atomic_path
from gin_env.optional import MissingExtra, require
from gin_env.training.checks import check_args, check_run_folder
from gin_env.training.config import Args, parse_args
from gin_env.training.run_files import (
    checkpoints_line,
    clear_run,
    locked_run_folder,
    run_files_in,
    save_run,
)


def new_model(env, args: Args, tensorboard_log: str | None = None):
    """A fresh MaskablePPO with :class:`agents.networks.CardPolicy` and the PPO settings of ``args``."""
    maskable_ppo = require("sb3_contrib", "training").MaskablePPO
    from gin_env.agents.networks import CardPolicy

    policy_kwargs = {"features_extractor_kwargs": {"channels": args.channels, "global_dim": args.features},
                     "net_arch": {"pi": [], "vf": [args.hidden]}}
    if args.privileged_critic:
        policy_kwargs["features_extractor_kwargs"]["privileged"] = True
    return maskable_ppo(CardPolicy, env, learning_rate=args.learning_rate, n_steps=args.n_steps,
                        batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma,
                        gae_lambda=args.gae_lambda, clip_range=args.clip_range, ent_coef=args.ent_coef,
                        policy_kwargs=policy_kwargs, tensorboard_log=tensorboard_log, seed=args.seed,
                        device=args.device)


def planned_steps(start: int, total: int, rollout: int) -> int:
    """The step count PPO ends at when asked for ``total`` from ``start``: it trains whole rollouts of ``rollout``
    steps, so it rounds up to the next whole one (nothing to train when ``total <= start``)."""
    return start + max(0, -(-(total - start) // rollout)) * rollout


def _plan_line(args: Args, model, end: int) -> str | None:
    """One line, before training, when the run does not end at ``--total-timesteps``; None when it does."""
    start, rollout = model.num_timesteps, model.n_envs * model.n_steps
    if end == args.total_timesteps:
        return None
    if end == start:
        return f"the model is at {start:,} steps already, --total-timesteps {args.total_timesteps:,}: no PPO update"
    return (f"training to {end:,} steps, not --total-timesteps {args.total_timesteps:,}: PPO trains whole rollouts "
            f"of {model.n_envs} games x {model.n_steps} steps = {rollout:,} steps")


def _start(args: Args, history: dict, env):
    """The model the run trains: the ``--resume`` model, or a new one warm-started by cloning the teacher; prints
    where PPO will stop when that is not ``--total-timesteps``, before any training."""
    from gin_env.agents import model_archive, ppo
    from gin_env.training.imitation import imitate
    from gin_env.training.widen import layout, widened_copy

    tb_dir = os.path.join(args.run_dir, "tb")
    if args.resume:
        with tempfile.TemporaryDirectory() as scratch:
            source = args.resume
            has = layout(*ppo.declared_spaces(source))
            wants = layout(env.observation_space.shape[0], env.action_space.n)
            if has != wants:
                what = " and ".join(name for name, had, wanted in zip(
                    ("jokers", "the match record", "what no player sees"), has, wants) if wanted and not had)
                print(f"widening {source} to read {what} (its new inputs and actions weighted 0)")
                source = widened_copy(source, env.observation_space, env.action_space, scratch)
            model = model_archive.load(source, "training", env=env, device=args.device, tensorboard_log=tb_dir)
        # Seeded by the step count too, so a resumed run does not replay the deals its first rollouts saw.
        model.set_random_seed(args.seed + model.num_timesteps)
    else:
        model = new_model(env, args, tb_dir)
    end = planned_steps(model.num_timesteps, args.total_timesteps, model.n_envs * model.n_steps)
    line = _plan_line(args, model, end)
    if line:
        print(line)
    if args.clones():
        imitate(model, args, history)
    return model, end


def train(args: Args, checked: bool = False):
    """Run training as ``args`` say; returns the model. Writes everything under ``args.run_dir``, holding its lock.

    ``checked``: :func:`.checks.check_args` has passed for these ``args``; else the options are checked here, and a
    bad one raises ``ValueError`` before anything is written. A run folder another run holds is
    :class:`gin_env.locks.Refused`."""
    if not checked:
        check_args(args)
    require("torch", "training")  # before the lock, which creates a new run folder
    with locked_run_folder(args.run_dir, lambda: check_run_folder(args)) as history:
        if args.overwrite:
            clear_run(args.run_dir)
        history.setdefault("args", []).append(dataclasses.asdict(args))
        return _train(args, history)


def _train(args: Args, history: dict):
    """The run in its folder, once it holds it: train, checkpoint, then plot and export the best model."""
    torch = require("torch", "training")
    from gin_env.agents.ppo import export_model
    from gin_env.training.monitor import RunCallback
    from gin_env.training.plots import plot_curve
    from gin_env.training.pool_env import PoolVecEnv

    torch.set_num_threads(args.threads)
    env = PoolVecEnv(args)
    model, end = _start(args, history, env)
    eval_opponent = agents.load(args.eval_opponent) if args.eval_deals else None
    callback = RunCallback(args, env, args.game_rules(), history, eval_opponent, total=end)
    if end > model.num_timesteps:
        model.learn(args.total_timesteps - model.num_timesteps, callback=callback,
                    reset_num_timesteps=not args.resume, tb_log_name="ppo")
    save_run(model, history, args.run_dir)
    if history["eval"]:
        with atomic_path(os.path.join(args.run_dir, "learning_curve.png")) as path:
            plot_curve(history, path)
        with atomic_path(os.path.join(args.run_dir, "policy.zip")) as path:
            export_model(os.path.join(args.run_dir, "best.zip"), path)
    return model


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; the exit code (0 done, 2 a bad option or a missing dependency, before anything is
    written; 130 interrupted: the checkpoints written so far stay, each whole)."""
    prog = prog or "gin-env train"
    args = parse_args(argv, prog)
    try:
        check_args(args)
    except (ValueError, MissingExtra) as err:
        print(f"{prog}: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        model = train(args, True)
    except locks.Refused as err:
        print(f"{prog}: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"training interrupted; {checkpoints_line(args.run_dir)}", file=sys.stderr)
        return 130
    print(f"{model.num_timesteps:,} steps in {time.perf_counter() - start:.0f} s")
    print("wrote " + ", ".join(os.path.join(args.run_dir, name) for name in run_files_in(args.run_dir)))
    return 0
