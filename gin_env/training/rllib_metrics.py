"""The RLlib callback of ``train_rllib.py`` (:mod:`.rllib_loop`), apart because defining it imports Ray."""

from __future__ import annotations

from gin_env.evaluation.stats import hand_score
from gin_env.interop import rllib
from gin_env.optional import require

RLlibCallback = require("ray.rllib.callbacks.callbacks", "train_rllib.py").RLlibCallback


class LeagueMetrics(RLlibCallback):
    """Per opponent, the learner's hands, wins (a hand with no winner counts half) and points, from each episode's
    last info (``GinRummyLeagueEnv``): summed over an iteration under ``env_runners/league/NAME/``."""

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        info = episode.agent_episodes[rllib.LEARNER].get_infos(-1)
        points = info["points"]
        for key, value in (("hands", 1.0), ("wins", hand_score(points)),
                           ("points", points)):
            metrics_logger.log_value(("league", info["opponent"], key), value, reduce="sum")
