"""The training env: an SB3 ``VecEnv`` of several groups of batched games, one opponent per group, with
potential-based deadwood shaping added to the rewards."""

from __future__ import annotations

import numpy as np

from gin_env.observation import DEADWOOD_SCALE, OBS_LAYOUT
from gin_env.optional import require
from gin_env.sb3 import SB3VecEnv
from gin_env.training.config import Args
from gin_env.vector import GinRummyVectorEnv

VecEnv = require("stable_baselines3.common.vec_env", "training").VecEnv

#: Where the learner's own deadwood sits in an observation.
DEADWOOD_ENTRY = OBS_LAYOUT["deadwood"].start


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
