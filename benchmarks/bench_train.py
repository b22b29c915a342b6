"""Training throughput: MaskablePPO on the batched engine against the same run on one Python env per game.

Both runs use ``train.py``'s default network and PPO settings, the simple opponent and the eaai rules; the only
difference is the env: ``SB3VecEnv(GinRummyVectorEnv)`` (as ``train.py`` uses it, with one opponent) or
``DummyVecEnv`` over ``GinRummy-v0``. Two numbers per env, in learner decisions (env steps) per second:

* training: ``model.learn``, rollouts and PPO updates together, after one warm-up rollout;
* collection: rollouts alone (masks, policy forward pass, env step), the part the env decides.

``python benchmarks/bench_train.py [--steps N] [--threads N]``.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.vec_env import DummyVecEnv

import gin_env  # noqa: F401 - registers GinRummy-v0
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.interop.sb3 import SB3VecEnv
from gin_env.training.config import Args
from gin_env.training.loop import new_model


def make_env(kind: str, args: Args):
    if kind == "batched":
        return SB3VecEnv(GinRummyVectorEnv(args.num_envs, rules=args.rules, opponent="simple",
                                           reward_scale=args.reward_scale))
    return DummyVecEnv([lambda: gym.make("GinRummy-v0", rules=args.rules, opponent="simple",
                                         reward_scale=args.reward_scale)] * args.num_envs)


def training_rate(model: MaskablePPO, steps: int) -> float:
    """Env steps per second of ``learn`` for about ``steps`` steps, after one warm-up rollout."""
    model.learn(model.n_steps * model.n_envs)
    done, start = model.num_timesteps, time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return (model.num_timesteps - done) / (time.perf_counter() - start)


def collection_rate(model: MaskablePPO, steps: int) -> float:
    """Env steps per second of acting alone: masks, a forward pass, a step."""
    env = model.get_env()
    obs = env.reset()
    start = time.perf_counter()
    for _ in range(steps // env.num_envs):
        actions, _ = model.predict(obs, action_masks=get_action_masks(env))
        obs, _, _, _ = env.step(actions)
    return steps // env.num_envs * env.num_envs / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=65_536, help="steps timed per env kind and measure")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    options = parser.parse_args()
    torch.set_num_threads(options.threads)
    args = Args(rules="eaai")
    rates = {}
    for kind in ("batched", "dummy"):
        model = new_model(make_env(kind, args), args)
        rates[kind] = training_rate(model, options.steps), collection_rate(model, options.steps)
        print(f"{kind:8} training {rates[kind][0]:8,.0f} steps/s, collection {rates[kind][1]:8,.0f} steps/s",
              flush=True)
    print(f"ratio batched / DummyVecEnv: training {rates['batched'][0] / rates['dummy'][0]:.2f}x, "
          f"collection {rates['batched'][1] / rates['dummy'][1]:.2f}x")


if __name__ == "__main__":
    main()
