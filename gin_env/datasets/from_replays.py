"""One person's decisions in a folder of replays, as the episodes of a dataset (``gin-env dataset --from-replays DIR
--player NAME``): the hands ``gin-env serve`` saved, or any replay files, turned into the episodes ``GinRummy-v0``
would have given that person.

A replay names the two players of its hand (P1 and P2), so an episode is one hand in which NAME held a seat: the
env is dealt the replay's deck with its dealer, NAME sits in the learner's seat and plays its recorded actions, and
the other seat plays the other player's recorded actions as the env's opponent. Observations, infos and rewards are
then exactly the env's for those actions (:func:`gin_env.datasets.episodes.play_episode`): single-hand episodes, the
scores of a game not shown (as in every ``episode="hand"`` env). A hand NAME did not play holds no decision of NAME's
and is left out.

A hand played in a room of people (``gin_env.web.rooms``) names who made each action (the replay's ``members``):
there NAME's decisions are NAME's own turns only, and the turns the seat's other members (or a bot, for a late
member) took are played by the env between them, as the opponent's are (:class:`_Teammates`).
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import gymnasium as gym
import numpy as np

from gin_env import __version__
from gin_env.datasets import collect
from gin_env.datasets.episodes import REWARD_SCALE, Episode, play_episode
from gin_env.game import rule_options
from gin_env.game.observation import PlayerView, obs_size
from gin_env.game.rules import Rules
from gin_env.replay.replay_file import Replay
from gin_env.text import quoted
from gin_env.web.replays import MAX_FILE_BYTES, ReplayFolder

#: The most replay files read from the folder, the newest: one episode each at most, as ``--hands`` allows.
MAX_REPLAYS = collect.MAX_EPISODES
#: The most names an error lists.
NAMES_SHOWN = 20


class Hand(NamedTuple):
    """A hand of the person's: its replay file's ``name``, the ``replay``, the ``seat`` the person held (P1 0) and
    ``own``, for each action of the replay, whether the person made it."""

    name: str
    replay: Replay
    seat: int
    own: tuple[bool, ...]


def person_hands(name: str, replay: Replay, person: str) -> list[Hand]:
    """The hands of ``replay`` (file ``name``) that ``person`` played: the seat a replay's ``players`` names them
    in (every action of that seat theirs), or in a room's hand the seat of the actions its ``members`` give them."""
    states = replay.states()
    if replay.members is None:
        return [Hand(name, replay, seat, tuple(s.current == seat for s in states[:-1]))
                for seat in (0, 1) if replay.players[seat] == person]
    own = tuple(member == person for member in replay.members)
    seats = {s.current for s, mine in zip(states, own) if mine}
    if len(seats) > 1:
        raise ValueError(f"{name}: {quoted(person)} made actions of both seats of a room's hand")
    return [Hand(name, replay, seat, own) for seat in seats]


class Recorded:
    """An agent that plays a seat's recorded actions, in order (:meth:`play` gives it a hand's); it refuses to act
    past them, which a replay checked by ``replay_file.load`` never asks."""

    def __init__(self) -> None:
        self._moves: list[int] = []

    def play(self, moves) -> None:
        """The actions to play next, in order."""
        self._moves = list(moves)

    def act(self, view: PlayerView, rng: np.random.Generator) -> int:
        if not self._moves:
            raise RuntimeError("the recorded hand has no more actions for this seat")
        return self._moves.pop(0)

    @property
    def done(self) -> bool:
        """True once every recorded action was played."""
        return not self._moves


def format_aside(rules: Rules, like: Rules) -> Rules:
    """``rules`` with the format keys (``players``, ``team_target``) of ``like``: a replay's hand is a two-player
    hand whatever the format of its game (docs/rules.md section 15)."""
    return rules.replace(players=like.players, team_target=like.team_target)


def find_hands(folder: str, person: str, rules: Rules) -> tuple[list[Hand], int]:
    """The hands ``person`` played under ``rules`` (their format aside) in the replays of ``folder``, the newest
    :data:`MAX_REPLAYS` files, oldest first; and how many files were skipped as no valid replay. ``ValueError``
    naming the problem when there are none: a folder with no replay, a name no replay holds (the names found
    listed), or hands under other rules only (those rules listed)."""
    found = ReplayFolder(folder, max_files=MAX_REPLAYS, max_bytes=MAX_FILE_BYTES)
    replays = [(entry["name"], found.open(entry["name"])) for entry in reversed(found.listing())]
    if not replays:
        reasons = "".join(f"; {name}: {reason}" for name, reason in list(found.skipped.items())[:1])
        raise ValueError(f"--from-replays {folder}: no replay file in the folder ({len(found.skipped)} skipped"
                         f"{reasons})")
    own = [hand for name, replay in replays for hand in person_hands(name, replay, person)]
    if not own:
        names = sorted({p for _, replay in replays for p in replay.players})
        shown = ", ".join(quoted(n) for n in names[:NAMES_SHOWN]) + (", ..." if len(names) > NAMES_SHOWN else "")
        raise ValueError(f"--player {quoted(person)} played no hand in the replays of {folder}; the players found: "
                         f"{shown}")
    chosen = [hand for hand in own if rule_options.same_game(format_aside(hand.replay.rules, rules), rules)]
    if not chosen:
        other = Counter(rule_options.label(hand.replay.rules) for hand in own)
        listed = ", ".join(f"{label} ({n})" for label, n in other.most_common())
        raise ValueError(f"--player {quoted(person)} played no hand under the {rule_options.label(rules)} rules in "
                         f"{folder}; their hands are under: {listed} (choose with --rules and --rule)")
    return chosen, len(found.skipped)


def env_kwargs(rules: Rules, information_state: bool) -> dict:
    """The ``GinRummy-v0`` arguments of the episodes, JSON-able (the dataset's env spec): one-hand episodes of two
    players under ``rules``; the opponent is the env's default, since the recorded players are no agent."""
    kwargs = {"rules": rule_options.as_data(rules), "episode": "hand", "players": 2, "learner_seat": None,
              "reward_scale": REWARD_SCALE}
    if information_state:
        kwargs["information_state"] = True
    return kwargs


class _Teammates(gym.Wrapper):
    """The env with the person's seat's recorded turns that others took (a room's hand) played inside it: after a
    reset and after each of the person's steps, it steps those actions itself until the person's next decision or
    the hand's end, adding their rewards to the step's. :meth:`play` gives it the seat's actions of a hand, each
    with whether the person made it."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self._seat: list[tuple[int, bool]] = []

    def play(self, seat_actions) -> None:
        self._seat = list(seat_actions)

    def _others(self, obs, reward, terminated, truncated, info):
        while not (terminated or truncated) and self._seat and not self._seat[0][1]:
            obs, more, terminated, truncated, info = self.env.step(self._seat.pop(0)[0])
            reward += more
        return obs, reward, terminated, truncated, info

    def reset(self, *, seed=None, options=None):
        obs, info = self.env.reset(seed=seed, options=options)
        obs, _, _, _, info = self._others(obs, 0.0, False, False, info)
        return obs, info

    def step(self, action):
        if self._seat:
            self._seat.pop(0)
        return self._others(*self.env.step(action))


class _Dealt(gym.Wrapper):
    """The env, each reset dealing the hand of ``options`` (deck, dealer, learner seat) set before it."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.options: dict = {}

    def reset(self, *, seed=None, options=None):
        return self.env.reset(seed=seed, options=self.options)


def episodes(hands: list[Hand], rules: Rules, information_state: bool = False) -> list[Episode]:
    """The episode of each hand, in order: the env dealt the replay's deck and dealer, the person in the learner's
    seat and the other player as its opponent, each playing its recorded actions. Episode ``i`` is reset with seed
    ``i`` (the deal is the replay's; nothing is drawn). In a room's hand the seat's turns the person did not take
    are the env's (:class:`_Teammates`)."""
    other = Recorded()
    own = Recorded()
    dealt = _Dealt(gym.make("GinRummy-v0", **env_kwargs(rules, information_state), opponent=other))
    env = _Teammates(dealt)
    out = []
    for index, hand in enumerate(hands):
        replay = hand.replay
        states = replay.states()
        seat = [(a, mine) for state, a, mine in zip(states, replay.actions, hand.own) if state.current == hand.seat]
        own.play(a for a, mine in seat if mine)
        env.play(seat)
        other.play(a for state, a in zip(states, replay.actions) if state.current != hand.seat)
        dealt.options = {"deck": list(replay.deck), "dealer": replay.dealer, "learner_seat": hand.seat}
        episode = play_episode(env, own, index)
        if not (own.done and other.done):
            raise RuntimeError(f"{hand.name}: the env ended the hand before its recorded actions did")
        out.append(episode)
    env.close()
    return out


def playable(hands: list[Hand]) -> list[Hand]:
    """The hands in which the person made a decision: a hand can end before one (a scripted deal the env cannot
    start an episode from)."""
    return [hand for hand in hands if any(hand.own)]


def metadata(person: str, hands: list[Hand], rules: Rules, found: list[Episode], information_state: bool) -> dict:
    """What the dataset's metadata (key ``gin_env``) says of it, in the keys of ``collect.metadata`` where they
    apply: the person (``{"person": NAME}``), the rules in full, the format, and the replay file of each episode."""
    return {
        "version": __version__,
        "player": {"person": person},
        "others": {"opponent": {"recorded": "the other player of each replay"},
                   **({"teammates": {"recorded": "the turns others took in the person's seat of a room's hand"}}
                      if any(hand.replay.members is not None for hand in hands) else {})},
        "rules": rules.as_dict(),
        "players": 2,
        "room": None,
        "episode": "hand",
        "learner_seat": None,
        "information_state": information_state,
        "match_record": False,
        "seed": None,
        "replays": [hand.name for hand in hands],
        "episodes": len(found),
        "steps": int(sum(e.actions.size for e in found)),
        "reward_scale": REWARD_SCALE,
        "observation_size": obs_size(False, rules=rules),
        "actions": rules.n_actions,
    }
