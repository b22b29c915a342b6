"""The episodes of a dataset, played in this process or by worker processes, and what its metadata says of them."""

from __future__ import annotations

from gin_env import __version__
from gin_env.datasets.episodes import REWARD_SCALE, Collection, Episode, agent_record, play_episodes
from gin_env.evaluation import runner
from gin_env.game.observation import obs_size

#: Episodes per piece of work sent to a worker: an even split, a live bar, little traffic between processes.
CHUNK = 20
#: The most episodes one dataset holds (``--hands``, ``--matches``): every episode is kept in memory until the
#: dataset is written whole, about 45 kB a hand, and takes as much on disk. A larger study joins several datasets.
MAX_EPISODES = 100_000


def collect(collection: Collection, episodes: int, workers: int = 1, progress: bool = True) -> list[Episode]:
    """``episodes`` episodes of ``collection``, in order; the same whatever ``workers`` (each episode has its own
    seed)."""
    parts = runner.play_in_pieces(play_episodes, collection, range(episodes), CHUNK, workers, progress, "episode")
    return [episode for part in parts for episode in part]


def metadata(collection: Collection, episodes: list[Episode]) -> dict:
    """What the dataset's metadata (key ``gin_env``) says of how it was played: gin-env's version, the agents with
    their versions, the rules in full, the format, the kind of episode, the seeds, and how to read the arrays."""
    kwargs = collection.env_kwargs()
    others = {role: ([agent_record(name) for name in kwargs[role]] if isinstance(kwargs[role], list)
                     else agent_record(kwargs[role]))
              for role in ("opponent", "opponents", "partner", "teammates") if role in kwargs}
    return {
        "version": __version__,
        "player": agent_record(collection.player),
        "others": others,
        "rules": collection.game_rules().as_dict(),
        "players": collection.players,
        "room": None if collection.room is None else list(collection.room),
        "episode": collection.episode,
        "learner_seat": collection.learner_seat,
        "information_state": collection.information_state,
        "match_record": collection.match_record,
        "seed": collection.seed,
        "episode_seeds": "numpy.random.SeedSequence([seed, index]).generate_state(1, uint64)[0] >> 1",
        "episodes": len(episodes),
        "steps": int(sum(e.actions.size for e in episodes)),
        "reward_scale": REWARD_SCALE,
        "observation_size": obs_size(collection.match_record, rules=collection.game_rules()),
        "actions": collection.game_rules().n_actions,
    }
