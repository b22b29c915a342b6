"""Episodes of ``GinRummy-v0`` played by a line-up, as the arrays an offline dataset stores: the recorded agent sits
in the learner's seat and every other seat holds the agents of the env's roles.

Each episode has its own seed (:func:`episode_seed`, from the collection's seed and the episode's number), so the
episodes do not depend on how many worker processes play them, and any one of them can be played again alone. Every
step's infos have one fixed shape (:func:`fixed_info`), which offline datasets need: the action mask, and the outcome
of a hand that ended in that step (``ended`` False and zeros otherwise)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import gymnasium as gym
import numpy as np

from gin_env import agents
from gin_env.envs.roles import LISTED
from gin_env.game import rule_options
from gin_env.game.rules import Rules
from gin_env.table.checks import resolve_rules
from gin_env.table.formats import make_table, resolve_format

#: The GinRummy-v0 roles of the other agents, in the order a line-up lists them, for a format's table.
ROLE_ORDER = ("partner", "teammates", "opponent", "opponents")
#: ``won`` and ``knocked`` of an outcome: the learner (its seat, or team), the other side, neither.
OWN, OTHER, NEITHER = 1, -1, 0
#: The ``reward_scale`` of every episode: GinRummy-v0's default, so a reward is the learner's points / 100.
REWARD_SCALE = 100.0
#: ``knocker_deadwood`` and ``defender_deadwood`` when no hand ended, or a hand ended with no knock.
NO_DEADWOOD = -1


@dataclass(frozen=True)
class Collection:
    """What a dataset is played from: the recorded ``player`` (an agent name or a model path), the ``others`` (one
    agent for every other seat, or a full list in the order of :func:`role_sizes`), the ``rules`` (a preset's name or
    a ``Rules``: :meth:`game_rules`), the format (``players``, ``room``), the kind of ``episode`` (``"hand"`` or
    ``"match"``), the learner's seat (None: drawn each episode), the ``seed``, and whether each observation carries
    the ``information_state`` (the history of the learner's hand, ``gin_env.game.information_state``) and the
    ``match_record`` (how each side ended the game's earlier hands, ``gin_env.game.match_record``)."""

    player: str
    others: tuple[str, ...]
    rules: str | Rules = "standard"
    players: int = 2
    room: tuple[int, int] | None = None
    episode: str = "hand"
    learner_seat: int | None = None
    seed: int = 0
    information_state: bool = False
    match_record: bool = False

    def game_rules(self) -> Rules:
        """The rules the episodes are played under, the format aside."""
        return resolve_rules(self.rules)

    def env_kwargs(self) -> dict:
        """The ``gym.make("GinRummy-v0", **kwargs)`` arguments of the episodes (JSON-able: the dataset's env spec),
        its other agents by role. ``ValueError`` for a line-up that does not fill the format's seats."""
        sizes = role_sizes(self)
        others = list(self.others)
        wanted = sum(sizes.values())
        if len(others) == 1 and wanted > 1:
            # One name: it fills every seat against the player; the player's own side is the player again.
            own_side = ("partner", "teammates")
            lists = {role: [self.player if role in own_side else others[0]] * n for role, n in sizes.items()}
        elif len(others) == wanted:
            lists = {}
            for role, n in sizes.items():
                lists[role], others = others[:n], others[n:]
        else:
            raise ValueError(f"{_format_words(self)} seats {wanted} other agents ({_role_words(sizes)}) around the "
                             f"recorded one: name one agent for all of them, or {wanted} in that order; got "
                             f"{len(self.others)}")
        kwargs = {"rules": rule_options.as_data(self.game_rules()), "episode": self.episode, "players": self.players,
                  "learner_seat": self.learner_seat, "reward_scale": REWARD_SCALE}
        if self.information_state:
            kwargs["information_state"] = True
        if self.match_record:
            kwargs["match_record"] = True
        if self.room is not None:
            kwargs["room"] = list(self.room)
        for role, names in lists.items():
            kwargs[role] = names if role in LISTED else names[0]
        return kwargs


class Episode(NamedTuple):
    """One episode as a dataset stores it: ``n`` learner steps, ``n + 1`` observations and infos (the first from
    ``reset``), and the seed ``reset`` was given."""

    seed: int
    observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    terminations: np.ndarray
    truncations: np.ndarray
    infos: dict


def role_sizes(collection: Collection) -> dict[str, int]:
    """How many agents each GinRummy-v0 role of the collection's format holds, in :data:`ROLE_ORDER`."""
    rules, room = resolve_format(collection.game_rules(), collection.players, collection.room)
    table = make_table(rules, collection.episode, room)
    seat = 0 if collection.learner_seat is None else collection.learner_seat
    placed = table.seating(seat)[1]
    return {role: len(placed[role]) for role in ROLE_ORDER if role in placed}


def _role_words(sizes: dict[str, int]) -> str:
    return ", ".join(f"{n} {role}" if role.endswith("s") else role for role, n in sizes.items())


def _format_words(collection: Collection) -> str:
    return f"a room {collection.room}" if collection.room is not None else f"{collection.players} players"


def episode_seed(seed: int, index: int) -> int:
    """The ``reset`` seed of episode ``index`` of a collection seeded ``seed``: independent streams per episode."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, np.uint64)[0] >> np.uint64(1))


def agent_record(name: str) -> dict:
    """How a dataset's metadata names an agent: a built-in one by its versioned name, a model file by its path and
    the SHA-256 of its bytes (a file's name says nothing of which weights it held), anything else as given."""
    if agents.is_path(name):
        with open(name, "rb") as file:
            return {"agent": name, "sha256": hashlib.sha256(file.read()).hexdigest()}
    try:
        return {"agent": agents.versioned(name)}
    except ValueError:
        return {"agent": name}


def fixed_info(info: dict, env: gym.Env) -> dict:
    """``info`` of a ``GinRummy-v0`` step (or reset) in one shape for every step and format, flat (Minari's arrow
    storage reads back no nested infos): ``action_mask``; ``hand_ended``, whether a hand (deal) of the learner's
    ended in the step, and its outcome: ``kind`` ("" when none), ``capped``, ``won`` and ``knocked``
    (:data:`OWN`, :data:`OTHER` or :data:`NEITHER`), the learner's signed ``points``, the ``knocker_deadwood`` and
    ``defender_deadwood`` (:data:`NO_DEADWOOD` when none); ``hands_ended`` and ``hand_points``, the env's count of
    every hand (deal) that ended in the step and the learner's points summed over them; and ``match_ended``."""
    outcome = _learner_outcome(info, env.unwrapped.seat)
    ended = outcome is not None
    outcome = outcome or {}
    knocker_deadwood = outcome.get("knocker_deadwood")
    defender_deadwood = outcome.get("defender_deadwood")
    return {
        "action_mask": np.asarray(info["action_mask"], dtype=bool),
        "hand_ended": np.bool_(ended),
        "kind": str(outcome.get("kind", "")),
        "capped": np.bool_(outcome.get("capped", False)),
        "won": np.int8(outcome.get("won", NEITHER)),
        "knocked": np.int8(outcome.get("knocked", NEITHER)),
        "points": np.int32(outcome.get("points", 0)),
        "knocker_deadwood": np.int16(NO_DEADWOOD if knocker_deadwood is None else knocker_deadwood),
        "defender_deadwood": np.int16(NO_DEADWOOD if defender_deadwood is None else defender_deadwood),
        "hands_ended": np.int8(info.get("hands_ended", 0)),
        "hand_points": np.int32(info.get("hand_points", 0)),
        "match_ended": np.bool_("match" in info),
    }


def _learner_outcome(info: dict, seat: int) -> dict | None:
    """The outcome of the learner's own hand in ``info``, with ``won`` and ``knocked`` from the learner's side;
    None when no hand of the learner's ended. Two players and rooms say sides ("learner"/"opponent"); three
    players, seat numbers; four players, a deal of two pairings, one of them the learner's."""
    if "deal" in info:
        tables = [t for t in info["deal"]["tables"] if seat in t["seats"]]
        return _by_seat(tables[0], seat) if tables else None
    if "outcome" not in info:
        return None
    outcome = info["outcome"]
    if "seats" in outcome:
        return _by_seat(outcome, seat)
    side = {"learner": OWN, "opponent": OTHER, None: NEITHER}
    return {**outcome, "won": side[outcome["winner"]], "knocked": side[outcome["knocker"]]}


def _by_seat(outcome: dict, seat: int) -> dict:
    def side(who: int | None) -> int:
        if who is None or seat not in outcome["seats"]:
            return NEITHER
        return OWN if who == seat else OTHER

    return {**outcome, "won": side(outcome["winner"]), "knocked": side(outcome["knocker"])}


def play_episode(env: gym.Env, player: agents.Agent, seed: int) -> Episode:
    """One episode of ``env`` (a ``GinRummy-v0``) reset with ``seed``, the learner played by ``player`` with its own
    generator drawn from the same seed."""
    rng = np.random.default_rng([seed, 1])
    obs, info = env.reset(seed=seed)
    base = env.unwrapped
    observations, infos = [obs], [fixed_info(info, env)]
    actions, rewards, terminations, truncations = [], [], [], []
    done = False
    while not done:
        action = int(player.act(base.table.agent_view(base.learner), rng))
        obs, reward, terminated, truncated, info = env.step(action)
        observations.append(obs)
        infos.append(fixed_info(info, env))
        actions.append(action)
        rewards.append(reward)
        terminations.append(terminated)
        truncations.append(truncated)
        done = terminated or truncated
    return Episode(seed, _stack(observations), np.array(actions, dtype=np.int64),
                   np.array(rewards, dtype=np.float64), np.array(terminations), np.array(truncations),
                   _stack(infos))


def _stack(items: list):
    """Equal-shaped dicts or arrays, one per step, as Minari's buffers take them: a dict of the same, arrays
    stacked, single numbers and strings as a list (Minari's arrow storage reads a stacked 1-d info back wrong)."""
    if isinstance(items[0], dict):
        return {key: _stack([item[key] for item in items]) for key in items[0]}
    if isinstance(items[0], np.ndarray):
        return np.stack(items)
    return list(items)


def play_episodes(collection: Collection, start: int, stop: int,
                  on_episode: Callable[[], None] | None = None) -> list[Episode]:
    """Episodes ``start`` to ``stop - 1`` of ``collection``; ``on_episode()`` after each."""
    env = gym.make("GinRummy-v0", **collection.env_kwargs())
    player = agents.load(collection.player)
    episodes = []
    for index in range(start, stop):
        episodes.append(play_episode(env, player, episode_seed(collection.seed, index)))
        if on_episode is not None:
            on_episode()
    env.close()
    return episodes
