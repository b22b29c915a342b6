"""``SB3VecEnv``: a stable-baselines3 ``VecEnv`` over ``GinRummyVectorEnv`` (the optional ``train`` extra), so
MaskablePPO trains on the batched games without a Python env per game.

The class is built on first use, since its base class comes from stable-baselines3, which ``import gin_env`` never
imports.
"""

from __future__ import annotations

import functools

import numpy as np

from gin_env.optional import require
from gin_env.vector import GinRummyVectorEnv


def _sb3_base():
    """stable-baselines3's VecEnv base class, imported only when an adapter is made (SB3 is an optional extra)."""
    return require("stable_baselines3.common.vec_env", "SB3VecEnv").VecEnv


def SB3VecEnv(venv: GinRummyVectorEnv):  # noqa: N802 - a factory that reads as the class it builds
    """A stable-baselines3 ``VecEnv`` over a ``GinRummyVectorEnv``: same games, SB3's step/reset conventions, and
    ``env_method("action_masks")`` answered from the batch, which is how sb3-contrib's MaskablePPO reads masks."""
    return _adapter_class()(venv)


@functools.cache
def _adapter_class():
    base = _sb3_base()

    class GinRummySB3VecEnv(base):
        """See :func:`SB3VecEnv`. ``infos[i]`` carries ``terminal_observation`` and ``TimeLimit.truncated`` when
        game i's episode ended, and ``outcome_kind``/``outcome_capped``/``outcome_points`` when a hand ended in it."""

        def __init__(self, venv: GinRummyVectorEnv):
            self.venv = venv  # set first: the base class reads attributes through get_attr
            super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
            self._actions: np.ndarray | None = None

        def reset(self) -> np.ndarray:
            seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
            obs, _ = self.venv.reset(seed=seed)
            self._reset_seeds()
            return obs

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = actions

        def step_wait(self):
            obs, rewards, terminated, truncated, info = self.venv.step(self._actions)
            infos: list[dict] = [{} for _ in range(self.num_envs)]
            for i in (terminated | truncated).nonzero()[0]:
                infos[i]["terminal_observation"] = info["final_obs"][i]
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if "_outcome_kind" in info:
                for i in info["_outcome_kind"].nonzero()[0]:
                    infos[i]["outcome_kind"] = info["outcome_kind"][i]
                    infos[i]["outcome_capped"] = bool(info["outcome_capped"][i])
                    infos[i]["outcome_points"] = int(info["outcome_points"][i])
            return obs, rewards.astype(np.float32), terminated | truncated, infos

        def close(self) -> None:
            self.venv.close()

        def get_attr(self, attr_name: str, indices=None) -> list:
            return [getattr(self.venv, attr_name)] * len(self._get_indices(indices))

        def set_attr(self, attr_name: str, value, indices=None) -> None:
            setattr(self.venv, attr_name, value)

        def has_attr(self, attr_name: str) -> bool:
            return hasattr(self.venv, attr_name)

        def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
            rows = list(self._get_indices(indices))
            if method_name == "action_masks":
                return list(self.venv.action_masks()[rows])
            result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
            return [result] * len(rows)

        def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
            return [False] * len(self._get_indices(indices))

    return GinRummySB3VecEnv
