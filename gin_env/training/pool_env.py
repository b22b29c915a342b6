"""The training env: the SB3 adapter (``sb3.SB3VecEnv``) over several groups of batched games, one opponent per
group, with potential-based deadwood shaping added to the rewards by an SB3 ``VecEnvWrapper``."""

from __future__ import annotations

import numpy as np

from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game.observation import DEADWOOD_SCALE, OBS_LAYOUT
from gin_env.interop.sb3 import SB3VecEnv
from gin_env.optional import require
from gin_env.training.config import Args

VecEnvWrapper = require("stable_baselines3.common.vec_env", "training").VecEnvWrapper

#: Where the learner's own deadwood sits in an observation.
DEADWOOD_ENTRY = OBS_LAYOUT["deadwood"].start


def potential(obs: np.ndarray, args: Args) -> np.ndarray:
    """The shaping potential of each observation: minus its own deadwood in reward units, times ``args.shaping``.

    Potential-based shaping (Ng, Harada and Russell, 1999) leaves the best policy unchanged, since its rewards
    telescope over an episode, but pays every drop in deadwood at once, instead of only through the hand's outcome
    many decisions later: the dense signal a sparse per-hand reward lacks."""
    return -args.shaping * obs[:, DEADWOOD_ENTRY] * DEADWOOD_SCALE / args.reward_scale


def episodes(args: Args) -> dict:
    """The vector env's episode arguments for ``args``: single hands, or with ``--match-record`` games to the target
    with the match record in the learner's observation."""
    return {"episode": "match", "match_record": True} if args.match_record else {}


class PoolVecEnv(VecEnvWrapper):
    """The env that trains against several opponents at once: ``sb3.SB3VecEnv`` over ``args.slots`` vector envs of
    ``num_envs / slots`` games each (single hands, or games to the target with ``--match-record``), with the
    deadwood shaping of :func:`potential` added to the rewards. ``set_opponent(slot, agent)`` swaps a group's
    opponent (games in progress go on with the new one, which reads the same views)."""

    def __init__(self, args: Args) -> None:
        if args.num_envs % args.slots:
            raise ValueError(f"--slots ({args.slots}) must divide --num-envs ({args.num_envs})")
        self.args = args
        self.slot_size = args.num_envs // args.slots
        # The placeholder opponent is replaced before the first rollout.
        super().__init__(SB3VecEnv([GinRummyVectorEnv(self.slot_size, rules=args.rules, opponent="random",
                                                      reward_scale=args.reward_scale, **episodes(args))
                                    for _ in range(args.slots)]))
        self.potential = np.zeros(args.num_envs)

    def set_opponent(self, slot: int, agent) -> None:
        self.venv.parts[slot].opponent = agent

    def reset(self) -> np.ndarray:
        obs = self.venv.reset()
        self.potential = potential(obs, self.args)
        return obs

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        # Shaping F = gamma * phi(s') - phi(s), with phi = 0 at the end of an episode (the observation of an ended
        # game is already the next episode's first one). Within a game to the target, phi runs on across its hands:
        # zeroing it at each hand's end would pay every new deal's deadwood, a reward for playing more hands.
        now = potential(obs, self.args)
        rewards = rewards + (self.args.gamma * np.where(dones, 0.0, now) - self.potential).astype(np.float32)
        self.potential = now
        return obs, rewards, dones, infos
