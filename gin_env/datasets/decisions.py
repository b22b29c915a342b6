"""A Minari dataset of ``GinRummy-v0`` read back as the recorded agent's decisions, for cloning: what it saw, what
it could do, what it chose, and what each hand paid. Any dataset of ``GinRummy-v0`` with each step's action mask in
its infos qualifies: one ``gin-env dataset`` wrote, or one ``minari.DataCollector`` recorded with
:class:`.minari_files.GinRummyStepData`."""

from __future__ import annotations

import os
from typing import NamedTuple

import gymnasium as gym
import numpy as np

from gin_env import files
from gin_env.datasets.minari_files import dataset_folder, default_root, minari
from gin_env.game import rule_options
from gin_env.game.observation import obs_size
from gin_env.game.room import check_room
from gin_env.game.rules import PLAYER_COUNTS, PRESETS
from gin_env.table.checks import check_reward_scale, resolve_rules
from gin_env.text import quoted

#: GinRummy-v0's default ``reward_scale``, for a dataset whose env spec does not give one.
DEFAULT_REWARD_SCALE = 100.0
#: The largest ``max_steps`` a dataset's env spec may give: past any episode's length, a bound on a file's number.
MAX_STEPS = 10**9


class Decisions(NamedTuple):
    """``n`` decisions in episode order: ``obs`` (n, 375) float32 (381 with the match record), legal ``masks``
    (n, 108) bool, the ``actions`` chosen, the learner's ``points`` paid by the step (reward times the env's
    ``reward_scale``), ``hand_over`` (a hand or the episode ended with the step), ``ended`` (the step's hand ended
    within the dataset, so its return is known), the same two for the whole episode (``episode_over``,
    ``episode_ended``), and the env's arguments (``env_kwargs``) from the dataset's spec."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    points: np.ndarray
    hand_over: np.ndarray
    ended: np.ndarray
    episode_over: np.ndarray
    episode_ended: np.ndarray
    env_kwargs: dict


def open_dataset(source: str, option: str = "--from-dataset"):
    """The ``minari.MinariDataset`` at ``source``: a dataset id (looked for where ``minari.load_dataset`` looks) or
    a dataset's folder (or its ``data`` folder). ``FileNotFoundError`` or ``ValueError`` naming ``option``, the
    latter also naming the file when one of the dataset's files is a FIFO, a device or a socket, which Minari's
    readers would wait on forever."""
    candidates = [source, os.path.join(source, "data")]
    if not os.path.isabs(source):
        candidates.append(os.path.join(dataset_folder(default_root(), source), "data"))
    for path in candidates:
        if os.path.lexists(os.path.join(path, "metadata.json")):
            _check_regular_files(path, option)
            try:
                return minari.MinariDataset(path)
            except Exception as err:  # Minari raises what its readers raise (JSON, pyarrow, its own asserts)
                raise ValueError(f"{option} {source}: not a readable Minari dataset ({err})") from None
    raise FileNotFoundError(f"{option} {source}: no Minari dataset there, nor one of that id in {default_root()}")


def _check_regular_files(path: str, option: str) -> None:
    """``ValueError`` naming ``option`` and the file when a file under the dataset folder ``path`` cannot be read as
    a regular file (a FIFO, a device, a socket, a broken link, no permission)."""
    for folder, _, names in os.walk(path):
        for name in names:
            try:
                files.check_input_file(os.path.join(folder, name), option)
            except OSError as err:
                raise ValueError(str(err)) from None


def env_kwargs(dataset, option: str = "--from-dataset") -> dict:
    """The ``GinRummy-v0`` arguments the dataset was played with; ``ValueError`` for a dataset of another env, with
    an argument of the wrong type or out of range (:func:`check_spec_kwargs`), or with other spaces (the information
    state's dict of observations is read for its 375 entries, 381 with the match record)."""
    spec = dataset.spec.env_spec
    if spec is None or spec.id != "GinRummy-v0":
        raise ValueError(f"{option}: the dataset is of {spec.id if spec else 'no env'}, not GinRummy-v0")
    check_spec_kwargs(spec.kwargs, option)
    space = dataset.observation_space
    if isinstance(space, gym.spaces.Dict) and "observation" in space.spaces:
        space = space["observation"]
    rules = resolve_rules(spec.kwargs.get("rules", "standard"))
    width = obs_size(carries_record(spec.kwargs), rules=rules)
    if getattr(space, "shape", None) != (width,) or getattr(dataset.action_space, "n", None) != rules.n_actions:
        raise ValueError(f"{option}: the dataset's observations are {space}, not GinRummy-v0's ({width},) with "
                         f"{rules.n_actions} actions under its rules")
    return dict(spec.kwargs)


def check_spec_kwargs(kwargs, option: str = "--from-dataset") -> None:
    """``ValueError`` naming the field when an argument of a dataset's env spec (read from its metadata file) is not
    what ``GinRummy-v0`` takes: ``reward_scale`` a finite positive number (never NaN, infinity, a string or a
    bool), ``players`` 2, 3 or 4, ``learner_seat`` one of the seats, ``max_steps`` a positive integer, the flags
    true or false, ``room`` a room of R58, ``rules`` a preset's name or an object of ``Rules`` keys. Before any
    decision is read: a bad spec never stops a run midway."""
    def refuse(key: str, wanted: str):
        return ValueError(f"{option}: the dataset's env spec gives {key}={quoted(kwargs[key])}; it must be {wanted}")

    if not isinstance(kwargs, dict):
        raise ValueError(f"{option}: the dataset's env spec holds no arguments object")
    if "reward_scale" in kwargs:
        try:
            check_reward_scale(kwargs["reward_scale"])
        except (TypeError, ValueError, OverflowError):  # an integer too large for a float is the last
            raise refuse("reward_scale", "a finite positive number") from None
    players = kwargs.get("players")
    if players is not None and (type(players) is not int or players not in PLAYER_COUNTS):
        raise refuse("players", f"one of {', '.join(map(str, PLAYER_COUNTS))}")
    seat, seats = kwargs.get("learner_seat"), players or 2
    if seat is not None and (type(seat) is not int or not 0 <= seat < seats):
        raise refuse("learner_seat", f"a seat 0..{seats - 1} or null")
    steps = kwargs.get("max_steps")
    if steps is not None and (type(steps) is not int or not 1 <= steps <= MAX_STEPS):
        raise refuse("max_steps", f"an integer 1..{MAX_STEPS:,} or null")
    for key in ("information_state", "match_record"):
        if key in kwargs and type(kwargs[key]) is not bool:
            raise refuse(key, "true or false")
    _check_spec_game(kwargs, refuse)


def _check_spec_game(kwargs: dict, refuse) -> None:
    """The ``room`` and ``rules`` of a dataset's env spec, each refused (``refuse(key, wanted)``) when bad."""
    if kwargs.get("room") is not None:
        try:
            check_room(kwargs["room"])
        except (TypeError, ValueError) as err:
            raise refuse("room", f"a room of R58 ({err})") from None
    try:
        rule_options.from_data(kwargs.get("rules", rule_options.DEFAULT_PRESET))
    except (TypeError, ValueError) as err:
        raise refuse("rules", f"a preset ({', '.join(PRESETS)}) or an object of rules keys ({err})") from None


def carries_record(kwargs: dict) -> bool:
    """Whether a dataset played with the ``GinRummy-v0`` arguments ``kwargs`` has the match record in its
    observations."""
    return kwargs.get("match_record", False) is True


def read_decisions(dataset, limit: int | None = None, option: str = "--from-dataset") -> Decisions:
    """The recorded agent's decisions in ``dataset``, episode by episode, at most ``limit`` of them (whole
    episodes, but for the last). ``ValueError`` for a dataset without action masks in its infos, or a recorded
    action that the mask says was illegal."""
    kwargs = env_kwargs(dataset, option)
    scale = float(kwargs.get("reward_scale", DEFAULT_REWARD_SCALE))
    parts: dict[str, list] = {key: [] for key in Decisions._fields if key != "env_kwargs"}
    taken = 0
    for episode in dataset.iterate_episodes():
        if limit is not None and taken >= limit:
            break
        infos = episode.infos or {}
        if "action_mask" not in infos:
            raise ValueError(f"{option}: episode {episode.id} has no action_mask in its infos; record with "
                             "gin-env dataset, or minari.DataCollector with gin_env.datasets.minari_files."
                             "GinRummyStepData")
        n = len(episode.actions)
        masks = np.asarray(infos["action_mask"][:n], dtype=bool)
        actions = np.asarray(episode.actions, dtype=np.int64)
        if not masks[np.arange(n), actions].all():
            raise ValueError(f"{option}: episode {episode.id} records an action its mask says was illegal")
        terminated = np.asarray(episode.terminations, dtype=bool)
        truncated = np.asarray(episode.truncations, dtype=bool)
        finished = np.asarray(infos.get("hand_ended", np.zeros(n + 1, dtype=bool))[1:], dtype=bool) | terminated
        # A truncated episode stops its last hand's return too, unfinished.
        hand_over, episode_over = finished | truncated, terminated | truncated
        observations = episode.observations
        if isinstance(observations, dict):
            observations = observations["observation"]
        for key, values in (("obs", observations[:n]), ("masks", masks), ("actions", actions),
                            ("points", np.asarray(episode.rewards, dtype=np.float64) * scale),
                            ("hand_over", hand_over), ("ended", _before_an_end(finished)),
                            ("episode_over", episode_over), ("episode_ended", _before_an_end(terminated))):
            parts[key].append(values)
        taken += n
    if not taken:
        raise ValueError(f"{option}: the dataset holds no decisions")
    arrays = {key: np.concatenate(values) for key, values in parts.items()}
    if limit is not None:
        arrays = {key: values[:limit] for key, values in arrays.items()}
    arrays["obs"] = arrays["obs"].astype(np.float32, copy=False)
    return Decisions(**arrays, env_kwargs=kwargs)


def read_sources(sources: list[str], limit: int | None = None, option: str = "--from-dataset") -> Decisions:
    """The decisions of several datasets (ids or folders), one after the other, at most ``limit`` in all; each must
    be of the same rules and format as the first, whoever the other players were (``ValueError`` naming the one
    that is not). The ``env_kwargs`` returned are the first dataset's."""
    parts: list[Decisions] = []
    for source in sources:
        left = None if limit is None else limit - sum(part.actions.size for part in parts)
        if left is not None and left <= 0:
            break
        found = read_decisions(open_dataset(source, option), left, option)
        if parts and _game(found.env_kwargs) != _game(parts[0].env_kwargs):
            raise ValueError(f"{option} {source}: played with {_game(found.env_kwargs)}, but {sources[0]} with "
                             f"{_game(parts[0].env_kwargs)}; clone datasets of one game at a time")
        parts.append(found)
    arrays = {key: np.concatenate([getattr(part, key) for part in parts]) for key in Decisions._fields
              if key != "env_kwargs"}
    return Decisions(**arrays, env_kwargs=parts[0].env_kwargs)


def _game(kwargs: dict) -> dict:
    """What makes observations of two datasets mean the same: the rules, the format and the match record."""
    return {key: kwargs.get(key) for key in ("rules", "players", "room", "match_record")}


def _before_an_end(ends: np.ndarray) -> np.ndarray:
    """Per step of an episode: whether one of ``ends`` comes at it or after it."""
    return np.flip(np.logical_or.accumulate(np.flip(ends)))


def returns(decisions: Decisions, reward_scale: float, gamma: float, whole_episodes: bool = False) -> np.ndarray:
    """Each decision's discounted return to the end of its hand (to the end of its episode with
    ``whole_episodes``), in points / ``reward_scale``: what the critic of a run with that scale and ``gamma``
    estimates (zero where that end is not in the dataset)."""
    over = decisions.episode_over if whole_episodes else decisions.hand_over
    out = np.zeros(decisions.actions.size, dtype=np.float64)
    following = 0.0
    for t in range(decisions.actions.size - 1, -1, -1):
        following = decisions.points[t] / reward_scale + gamma * (0.0 if over[t] else following)
        out[t] = following
    return out
