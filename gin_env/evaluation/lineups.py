"""Line-ups, the unit of a tournament in every format, and the games of one: what the worker processes and the Ray
tasks play.

A line-up is the agents that meet in one game: two players, a pair A, B (each game twice on the same deals, the
seats swapped: :mod:`.duel`); three players, three agents at one table (each game in all three rotations of the
seats: :mod:`.formats`); four players, a pair A, B as teams A+A against B+B (each game twice, the teams' seats
swapped). A tournament plays every line-up of its agents (each pair, or each three) on the same N games, numbered
``0..N-1``: a game's deals and the agents' random choices depend only on the seed and the game's number, so any
process may play any chunk of games (a :class:`Task`) and the numbers do not depend on which one did.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from gin_env import agents
from gin_env.evaluation import duel, formats
from gin_env.game.rules import Rules
from gin_env.replay import recorder

#: Agents in a line-up, by the number of players.
LINEUP_SIZE = {2: 2, 3: 3, 4: 2}


@functools.cache
def cached_agent(name: str):
    """One instance of each agent per process: agents act on the view alone and keep no state between games."""
    return agents.load(name)


class Task(NamedTuple):
    """Games ``start..stop`` of the line-up ``names`` under ``rules`` (``rules.players`` says the format), saving
    replays in ``replays`` when given: the unit of work a worker process or a Ray task plays."""

    names: tuple[str, ...]
    rules: Rules
    seed: int
    start: int
    stop: int
    replays: str | None


def lineups(names: list[str], players: int, gauntlet: bool = False) -> list[tuple[str, ...]]:
    """Every line-up of ``names`` in the format of ``players``, in a fixed order (the report's); with ``gauntlet``
    (two players only), the first name against each of the others in turn."""
    if gauntlet:
        return [(names[0], other) for other in names[1:]]
    return list(itertools.combinations(names, LINEUP_SIZE[players]))


def check_names(names: list[str], players: int) -> None:
    """Raise ``ValueError`` unless ``names`` are distinct and enough for one line-up of ``players``."""
    need = LINEUP_SIZE[players]
    if len(names) < need or len(set(names)) != len(names):
        what = "two distinct agents" if players == 2 else f"{need} distinct agents for players={players}"
        raise ValueError(f"give at least {what}, got {names}")


def play_chunk(task: Task, on_game: Callable[[], None] | None = None,
               load: Callable[[str], object] = cached_agent) -> np.ndarray:
    """The numbers of the task's games (``duel.play_games``' or ``formats.play_games``'), the agents loaded by
    ``load``; ``on_game()`` is called after each game."""
    seated = [load(name) for name in task.names]
    games = range(task.start, task.stop)
    if task.rules.players == 2:
        a, b = seated
        return duel.play_games(task.rules, a, b, task.seed, games, task.replays, task.names, on_game)
    return formats.play_games(task.rules, seated, task.seed, games, task.replays, task.names, on_game)


def replay_prefixes(names: list[str], rules: Rules, seed: int, gauntlet: bool = False) -> tuple[str, ...]:
    """The beginnings of this run's replay names, one per line-up (:func:`lineups`): a folder holding one holds a
    run with the same preset, format, seed and agents (``recorder.check_folder``)."""
    return tuple(recorder.run_prefix(rules, seed, lineup) + "-game"
                 for lineup in lineups(names, rules.players, gauntlet))
