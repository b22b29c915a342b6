"""The replay folder ``gin-env serve --replays DIR`` serves: which of its files the browser may see, the one way a
name from the browser becomes a replay, and a replay laid out point by point for the page.

The browser never names a path. :class:`ReplayFolder` lists the folder itself (regular ``.json`` files directly in
it, the newest :data:`MAX_FILES`, each at most :data:`MAX_FILE_BYTES`) and :meth:`ReplayFolder.open` looks a name
up in that listing: a name that is not there is refused, and no path is ever joined from the text received. Files
are read by ``replay_file.load`` only (JSON, checked by playing the hand again; nothing in a file is executed), and
a file that fails to load is left out of the listing with its reason kept in ``skipped``.

A replay is a finished hand, so nothing in it is hidden: :func:`steps` shows both hands at every point. Cards are
text (``7S``), a joker always ``JK`` (R72), a run joker on the table ``JK=7S`` (R65, R73).
"""

from __future__ import annotations

import os
import stat

import numpy as np

from gin_env.game import engine, observation, rule_options
from gin_env.game.engine import HandState
from gin_env.replay import replay_file
from gin_env.replay.replay_file import Replay, ReplayError
from gin_env.text import printable, quoted
from gin_env.web import wire

#: The most files a listing holds: the newest ones, by modification time. Every listed file is loaded and played
#: again once (a few milliseconds each) and kept in memory (a few kB each).
MAX_FILES = 1_000
#: The largest replay file served, in bytes: the most ``replay_file.load`` reads (1 MB, some 25,000 turns).
MAX_FILE_BYTES = replay_file.MAX_BYTES
#: How a replay file's name ends.
SUFFIX = ".json"
#: The longest name a listing holds: the longest file name of common file systems.
MAX_NAME = 255
#: The seed of the generator an agent acts with in :func:`advice`: the same advice every time it is asked.
ADVICE_SEED = 0


class UnknownReplay(ValueError):
    """A replay name the served folder's listing does not hold, or one no listing could hold."""


def name_problem(name) -> str | None:
    """Why ``name`` can never be a listed replay's name (None when it could): the names the folder lists are plain,
    visible file names ending in :data:`SUFFIX`, so text that is a path, holds an escape or starts hidden is none."""
    if not isinstance(name, str):
        return "a replay name is text"
    if not name.endswith(SUFFIX) or len(name) > MAX_NAME:
        return f"a replay name is a file name ending in {SUFFIX}, at most {MAX_NAME} characters"
    if "/" in name or "\\" in name or ":" in name:
        return "a replay name is a plain file name, not a path"
    if "\x00" in name or printable(name) != name:
        return "a replay name holds no control characters"
    if name.startswith("."):
        return "a replay name does not start with a dot"
    if "%" in name:
        return "a replay name holds no escapes (%)"
    return None


class ReplayFolder:
    """The replays of one folder, as the page may see them: :meth:`listing` and :meth:`open`.

    ``max_files`` bounds the listing (the newest files first) and ``max_bytes`` each file; both at least 1, and
    ``max_bytes`` at most :data:`MAX_FILE_BYTES`. ``FileNotFoundError`` or ``NotADirectoryError`` when ``path`` is not
    a folder, ``ValueError`` for a bound out of range. A file is loaded once, and again only when it changes."""

    def __init__(self, path: str | os.PathLike, max_files: int = MAX_FILES, max_bytes: int = MAX_FILE_BYTES) -> None:
        for what, value, most in (("max_files", max_files, None), ("max_bytes", max_bytes, MAX_FILE_BYTES)):
            if type(value) is not int or value < 1 or (most is not None and value > most):
                bound = f"1..{most:,}" if most is not None else "at least 1"
                raise ValueError(f"{what} must be an integer {bound}, got {quoted(value)}")
        self.path = os.path.abspath(os.fspath(path))
        if not os.path.exists(self.path):
            raise FileNotFoundError(f"replay folder {self.path} does not exist")
        if not os.path.isdir(self.path):
            raise NotADirectoryError(f"replay folder {self.path} is not a folder")
        self.max_files = max_files
        self.max_bytes = max_bytes
        #: Each listed file's name and why it was left out of the listing: text, never markup.
        self.skipped: dict[str, str] = {}
        #: How many replay files the bound left out of the last listing (the oldest).
        self.left_out = 0
        self._loaded: dict[str, tuple[tuple[int, int], Replay | str]] = {}

    def _candidates(self) -> list[tuple[str, os.stat_result]]:
        """The replay files of the folder, newest first (then by name), all of them: name and ``lstat``. Links are
        not followed, so nothing outside the folder is reached through one."""
        found = []
        with os.scandir(self.path) as entries:
            for entry in entries:
                if name_problem(entry.name) is not None:
                    continue
                info = entry.stat(follow_symlinks=False)
                found.append((entry.name, info))
        found.sort(key=lambda item: (-item[1].st_mtime_ns, item[0]))
        return found

    def refresh(self) -> None:
        """Read the folder again: the newest ``max_files`` replay files, each loaded when new or changed."""
        candidates = self._candidates()
        self.left_out = max(0, len(candidates) - self.max_files)
        loaded = {}
        for name, info in candidates[:self.max_files]:
            key = (info.st_mtime_ns, info.st_size)
            known = self._loaded.get(name)
            loaded[name] = known if known is not None and known[0] == key else (key, self._load(name, info))
        self._loaded = loaded
        self.skipped = {name: found for name, (_, found) in loaded.items() if isinstance(found, str)}

    def _load(self, name: str, info: os.stat_result) -> Replay | str:
        """The replay of file ``name`` (a name the folder listed), or why it is none."""
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file (links are not followed)"
        if info.st_size > self.max_bytes:
            return f"{info.st_size:,} bytes, over the bound of {self.max_bytes:,}"
        try:
            return replay_file.load(os.path.join(self.path, name))
        except ReplayError as err:
            return printable(str(err))

    def listing(self) -> list[dict]:
        """The valid replays, newest first, each as ``name``, ``players`` (P1 and P2), ``seats``, ``rules`` (its
        label), ``format``, ``hand_number`` and ``outcome`` (``kind``, ``winner``: a name or None, ``points``)."""
        self.refresh()
        return [summary(name, found) for name, (_, found) in self._loaded.items() if isinstance(found, Replay)]

    def open(self, name) -> Replay:
        """The replay the listing names ``name``. ``UnknownReplay`` naming the problem for any other text: a path,
        ``..``, a NUL or an escape, a hidden name, or a name the folder does not list (a skipped file's reason)."""
        problem = name_problem(name)
        if problem is not None:
            raise UnknownReplay(f"replay {quoted(name)} refused: {problem}")
        if name not in self._loaded:
            self.refresh()
        found = self._loaded.get(name, (None, None))[1]
        if found is None:
            raise UnknownReplay(f"no replay {quoted(name)} in the served folder's listing")
        if isinstance(found, str):
            raise UnknownReplay(f"replay {quoted(name)} is not served: {found}")
        return found


def summary(name: str, replay: Replay) -> dict:
    """One line of a listing: what the page shows of a replay before it is opened."""
    outcome = replay.outcome
    return {
        "name": name,
        "players": list(replay.players),
        "seats": list(replay.seats),
        "rules": rule_options.label(replay.rules),
        "format": replay.rules.players,
        "hand_number": replay.hand_number,
        "outcome": {"kind": outcome.kind, "points": outcome.points,
                    "winner": None if outcome.winner is None else replay.players[outcome.winner]},
    }


# ---------------------------------------------------------------------------------------------------------------
# A replay point by point
# ---------------------------------------------------------------------------------------------------------------

def point(replay: Replay, index: int, state: HandState, played: int | None) -> dict:
    """Point ``index`` of a replay (0: after the deal; k: after action k), its state ``state`` and the action
    played from it (None at the end): ``index``; ``table``, every card (``wire.open_frame``: both hands arranged,
    the top discard, the pile, the stock's size, the phase, whose turn); ``deadwood``, each player's (of 10 cards;
    of 11, the least after a discard, R8); ``actor`` (0 or 1, None at the end), its legal ``moves`` (``wire.moves``
    of its view) and the move ``played`` (``{"action", "label"}`` or None)."""
    over = state.phase == engine.OVER
    view = None if over else observation.view(state, state.current, replay.scores)
    return {
        "index": index,
        "table": wire.open_frame(state, replay.players),
        "deadwood": [observation.own_deadwood(state, p) for p in (0, 1)],
        "actor": None if over else state.current,
        "moves": [] if over else wire.moves(view),
        "played": None if played is None else {"action": played, "label": wire.move_label(view, played)},
    }


def steps(replay: Replay) -> list[dict]:
    """Every point of the hand, after the deal and after each action (:func:`point`), the last one with the
    ``showdown`` (``wire.showdown``: both arrangements, each layoff with its meld, the points and why)."""
    states = replay.states()
    played = [*replay.actions, None]
    out = [point(replay, k, state, action) for k, (state, action) in enumerate(zip(states, played))]
    out[-1]["showdown"] = wire.showdown(states[-1], replay.players)
    return out


def advice(replay: Replay, index: int, agents: dict) -> list[dict]:
    """What each of ``agents`` (name -> agent) would play at point ``index`` of ``replay``, from the view of the
    player to act there (``observation.view``: its own cards and the public ones, the scores before the hand):
    ``{"agent": name, "action": id, "label": words}`` each, in the order given. ``ValueError`` for a point that is
    not one of the replay's, or the end of the hand, where no one acts."""
    last = len(replay.actions)
    if type(index) is not int or not 0 <= index <= last:
        raise ValueError(f"point {quoted(index)} is not one of this replay's: 0..{last}")
    state = replay.states()[index]
    if state.phase == engine.OVER:
        raise ValueError(f"point {index} is the end of the hand: no one acts there")
    view = observation.view(state, state.current, replay.scores)
    out = []
    for name, agent in agents.items():
        action = int(agent.act(view, np.random.default_rng(ADVICE_SEED)))
        out.append({"agent": name, "action": action, "label": wire.move_label(view, action)})
    return out
