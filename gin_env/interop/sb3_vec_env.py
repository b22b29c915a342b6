"""The class behind :func:`gin_env.interop.sb3.SB3VecEnv`. Its base class is stable-baselines3's ``VecEnv``, so this
module imports SB3 (an optional extra) and is imported only when an adapter is made."""

from __future__ import annotations

import numpy as np

from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.optional import require

VecEnv = require("stable_baselines3.common.vec_env", "SB3VecEnv").VecEnv


class GinRummySB3VecEnv(VecEnv):
    """See :func:`SB3VecEnv`. ``infos[i]`` carries ``terminal_observation`` and ``TimeLimit.truncated`` when
    game i's episode ended, and ``outcome_kind``/``outcome_capped``/``outcome_points``/``hands_ended``/``hand_points``
    when a hand ended in it.
    ``parts``: the vector envs, in order; ``part_of(i)``: the one that holds game i."""

    def __init__(self, venvs):
        # Set first: the base class reads attributes through get_attr.
        self.pooled = not isinstance(venvs, GinRummyVectorEnv)
        self.parts: list[GinRummyVectorEnv] = list(venvs) if self.pooled else [venvs]
        if not self.parts:
            raise ValueError("SB3VecEnv needs at least one GinRummyVectorEnv")
        self._ends = np.cumsum([part.num_envs for part in self.parts])
        first = self.parts[0]
        super().__init__(int(self._ends[-1]), first.single_observation_space, first.single_action_space)
        self._actions: np.ndarray | None = None

    @property
    def venv(self) -> GinRummyVectorEnv:
        """The vector env of an adapter over one."""
        if self.pooled:
            raise AttributeError("this SB3VecEnv holds several vector envs: see parts")
        return self.parts[0]

    def part_of(self, game: int) -> int:
        """The index in ``parts`` of the vector env that holds game ``game``."""
        return int(np.searchsorted(self._ends, game, side="right"))

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        self._reset_seeds()
        obs = []
        for i, part in enumerate(self.parts):
            if seed is not None and self.pooled:
                part_seed = int(np.random.SeedSequence([seed, i]).generate_state(1)[0])
            else:
                part_seed = seed
            obs.append(part.reset(seed=part_seed)[0])
        return obs[0] if len(obs) == 1 else np.concatenate(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        starts = np.concatenate(([0], self._ends[:-1]))
        results = [part.step(self._actions[start:end]) for part, start, end in zip(self.parts, starts, self._ends)]
        obs, rewards, terminated, truncated = (results[0][k] if len(results) == 1 else
                                               np.concatenate([r[k] for r in results]) for k in range(4))
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for start, (*_, info) in zip(starts, results):
            _add_game_infos(infos, start, info, terminated, truncated)
        return obs, rewards.astype(np.float32), terminated | truncated, infos

    def close(self) -> None:
        for part in self.parts:
            part.close()

    def get_attr(self, attr_name: str, indices=None) -> list:
        return [getattr(self.parts[self.part_of(i)], attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        for i in self._get_indices(indices):
            setattr(self.parts[self.part_of(i)], attr_name, value)

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self.parts[0], attr_name)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(np.concatenate([part.action_masks() for part in self.parts])[rows])
        # Once per vector env, whatever the number of its games asked.
        results: dict[int, object] = {}
        for p in sorted({self.part_of(i) for i in rows}):
            results[p] = getattr(self.parts[p], method_name)(*method_args, **method_kwargs)
        return [results[self.part_of(i)] for i in rows]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._get_indices(indices))


def _add_game_infos(infos: list[dict], start: int, info: dict, terminated: np.ndarray, truncated: np.ndarray) -> None:
    """Copy one vector env's batched ``info`` (its games numbered from ``start`` in the adapter) into SB3's one dict
    per game: the final observation of an episode that ended, and the outcome of a hand that ended."""
    for i in (info.get("_final_obs", np.zeros(0, bool))).nonzero()[0]:
        infos[start + i]["terminal_observation"] = info["final_obs"][i]
        infos[start + i]["TimeLimit.truncated"] = bool(truncated[start + i] and not terminated[start + i])
    if "_outcome_kind" in info:
        for i in info["_outcome_kind"].nonzero()[0]:
            infos[start + i]["outcome_kind"] = info["outcome_kind"][i]
            infos[start + i]["outcome_capped"] = bool(info["outcome_capped"][i])
            infos[start + i]["outcome_points"] = int(info["outcome_points"][i])
            infos[start + i]["hands_ended"] = int(info["hands_ended"][i])
            infos[start + i]["hand_points"] = int(info["hand_points"][i])
