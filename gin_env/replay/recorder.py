"""Recording replays while games are played: :class:`Recorder` (an observer of the play loop, called before every
action, that makes a :class:`~gin_env.replay.replay_file.Replay` of every hand it watches and saves it), the names of
replay files, and the checks of a replay folder before anything is played. The file format itself is
:mod:`gin_env.replay.replay_file`'s; ``evaluation.duel.play_duplicate(..., replays=FOLDER)`` records a duplicate
game with it."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re

from gin_env import files
from gin_env.game import engine
from gin_env.game.engine import HandState
from gin_env.game.rules import Rules
from gin_env.replay.replay_file import DEFAULT_PLAYERS, Replay, is_deal, record


class Recorder:
    """A ``duel.Observer`` that turns every hand it watches into a :class:`Replay`, in ``replays``, and writes each
    to ``directory`` (when given) as ``{prefix}-hand{n:03d}.json`` as soon as the hand ends.

    Use one recorder per game: it numbers hands and keeps the running scores from the hands it has seen."""

    def __init__(self, directory: str | os.PathLike | None = None, prefix: str = "game",
                 players: tuple[str, str] = DEFAULT_PLAYERS) -> None:
        self.directory = directory
        self.prefix = prefix
        self.players = players
        self.replays: list[Replay] = []
        #: The files written, in order.
        self.paths: list[str] = []
        self._start: HandState | None = None
        self._state: HandState | None = None
        self._actions: list[int] = []
        self._scores = (0, 0)

    def __call__(self, state: HandState, action: int) -> None:
        """Note ``action``, about to be played in ``state``; the hand's replay is made when this action ends it."""
        if self._start is None:
            if not is_deal(state):
                raise ValueError("the recorder must watch a hand from its deal: this state is a hand already in play")
            self._start = state
        elif state != self._state:
            raise ValueError("the recorder saw a state that does not follow the last action: one recorder watches "
                             "one game at a time")
        action = int(action)
        self._state = engine.step(state, action)
        self._actions.append(action)
        if self._state.phase == engine.OVER:
            self._finish()

    def _finish(self) -> None:
        outcome = self._state.outcome
        # Played again from the deal: a file numbers the jokers by their place in the deck (``jokers_in_order``).
        replay = record(self._start, self._actions, players=self.players, hand_number=len(self.replays) + 1,
                        scores=self._scores)
        self.replays.append(replay)
        if self.directory is not None:
            path = os.path.join(self.directory, f"{self.prefix}-hand{replay.hand_number:03d}.json")
            replay.save(path)
            self.paths.append(path)
        if outcome.winner is not None:
            w = outcome.winner
            self._scores = tuple(s + outcome.points if p == w else s for p, s in enumerate(self._scores))
        self._start, self._state, self._actions = None, None, []


def hand_label(game, pairing: int = 0) -> tuple[str, int, tuple[int, int], tuple[int, int]]:
    """How a hand of ``game`` (a ``match.MatchState``, ``three_players.ThreeState`` or ``four_players.FourState``, as
    it stands before the hand's last action) is saved as a replay: the end of its file name (``hand{n:03d}``, or
    ``deal{n:03d}-table{p}`` for pairing ``p`` of a four-player deal, played at R54's table ``p``), its number, the
    seats of its two players and their scores before it (the teams', with four players)."""
    players = game.rules.players
    if players == 4:
        return f"deal{game.deal:03d}-table{pairing}", game.deal, game.seats[pairing], game.scores
    seats = game.seats if players == 3 else (0, 1)
    number = len(game.history) + 1
    return f"hand{number:03d}", number, seats, (game.scores[seats[0]], game.scores[seats[1]])


def file_stem(name: str) -> str:
    """An agent name or model path as a safe part of a file name: ``models/best.zip`` -> ``best``."""
    base = os.path.splitext(os.path.basename(name.rstrip("/\\")))[0]
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", base) or "agent"


def labels(names: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Distinct file-name labels of agents: :func:`file_stem` of each name, and where two names share a stem
    (``a/best.zip`` and ``b/best.zip``) a short digest of the full name after it, so their files never collide."""
    stems = [file_stem(name) for name in names]
    return tuple(stem if stems.count(stem) == 1 else
                 f"{stem}-{hashlib.sha1(name.encode()).hexdigest()[:8]}" for stem, name in zip(stems, names))


def run_prefix(rules: Rules, seed: int, names: tuple[str, ...]) -> str:
    """The part of a game's replay names that its run decides: ``{rules}-seed{seed}-{a}-vs-{b}`` for two players,
    ``{rules}-players{n}-seed{seed}-{a}-vs-{b}...`` for a line-up of three or four (the agents by :func:`labels`)."""
    players = "" if rules.players == 2 else f"-players{rules.players}"
    return f"{file_stem(rules.name)}{players}-seed{seed}-" + "-vs-".join(labels(names))


def check_folder(directory: str | os.PathLike, prefixes: tuple[str, ...], option: str | None = None) -> None:
    """Make sure replays named ``{prefix}...`` can be saved in ``directory`` before anything is played, creating
    nothing: it is a writable folder, or a new one whose parent folder exists (``files.check_output_folder``), and
    holds no file with one of those prefixes (a run with the same names, whose files would otherwise be refused
    midway). Raises ``OSError``, ``FileExistsError`` or ``ValueError`` naming ``option`` and the problem."""
    files.check_output_folder(directory, option)
    if not os.path.isdir(directory):
        return
    clash = next((name for name in sorted(os.listdir(directory)) if name.startswith(prefixes)), None)
    if clash is not None:
        raise FileExistsError(f"{os.path.join(directory, clash)} is a replay of a game with the same rules, seed and "
                              "players: not overwritten (use another folder or seed)")


def make_folder(directory: str | os.PathLike, prefixes: tuple[str, ...], option: str | None = None) -> None:
    """:func:`check_folder`, then create ``directory`` if it is new (one folder: its parent exists)."""
    check_folder(directory, prefixes, option)
    with contextlib.suppress(FileExistsError):  # another run sharing the folder made it meanwhile
        os.mkdir(directory)

