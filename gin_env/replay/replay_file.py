"""Replays of single hands: the JSON file format, its validation, and recording (the viewer, ``python -m
gin_env.replay.replay_file FILE [--step]``, is :mod:`gin_env.ui.viewer`).

This module owns what a saved hand is and when a file is a valid one. A replay holds what it takes to play the hand
again exactly (the rules, the deal, the dealer, both players' actions) and the outcome that play gave; loading a
file plays the actions through the engine again and raises :class:`ReplayError`, naming the problem, when the file
is not JSON, has an unknown version, unknown or missing keys, a field of the wrong type or out of its bounds (each
field's check is :mod:`.fields`'), an action that is illegal where it stands, or an outcome that the actions do not
produce. Replays come from three places: ``gin_env.replay.recorder.Recorder``, an
observer for the play loop of ``gin_env.evaluation.duel`` (and so ``evaluate.py``, whose replay files and folders
:mod:`.recorder` names and checks); the terminal game ``gin_env.ui.play``; and ``GinRummyEnv``'s ``replay()``.

The file is one JSON object, of version 1 for a game without jokers and version 2 for one with them (docs/rules.md
section 17), the lowest that holds the hand, so that a standard hand's file reads in every gin-env:

===============  =================================================================================================
key              value
===============  =================================================================================================
``format``       ``"gin-env-replay"``
``version``      ``1``, or ``2`` when the rules deal jokers
``rules``        every key of ``gin_env.game.rules.Rules`` (its ``name`` included) and its value, the joker keys
                 only when jokers play (``Rules.as_dict``)
``players``      the names of P1 and P2 (who sat where), e.g. ``["you", "simple"]``
``dealer``       0 (P1) or 1 (P2)
``deck``         the deal order, a string for every card of the rules' deck, top first (R10): the 52 natural
                 cards and, in version 2, ``JK`` for each joker (R62)
``actions``      every action of the hand, both players, in order, as ``actions.name`` writes them
``outcome``      ``kind``, ``winner``, ``points``, ``knocker`` (players as 0/1 or null), ``knock_card``,
                 ``knocker_deadwood``, ``defender_deadwood``, ``layoffs`` and ``knocker_melds`` (card strings),
                 ``capped`` (true for a dead hand ended by the turn cap, R19)
``hand_number``  the hand's number in its game, 1 for the first, or null
``scores``       both players' running scores before the hand, P1 first (their teams' with four players)
``seats``        the table seats of P1 and P2 (R49): ``[0, 1]`` for two players; optional when reading
``members``      only in a hand played in a room of people (``gin_env.web.rooms``): who made each action, one
                 name per action (a member of the seat to act, or the bot that played a turn for one)
===============  =================================================================================================

With three or four players (docs/rules.md section 15) the ``rules`` say so (``players``), ``seats`` say who of the
table played the hand, and ``hand_number`` is the hand's number in the game (the deal's with four players, whose
two tables' hands share it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
from dataclasses import dataclass

from gin_env import files
from gin_env.game import actions, cards, engine
from gin_env.game.engine import HandOutcome, HandState
from gin_env.game.rules import Rules
from gin_env.replay import fields
from gin_env.replay.fields import ReplayError
from gin_env.text import quoted

FORMAT = "gin-env-replay"
#: The versions this gin-env reads: a file is written in the lowest that holds its hand (``version_of``).
VERSIONS = (1, 2)
#: The first version whose deck may hold jokers.
JOKERS_VERSION = 2
KEYS = ("format", "version", "rules", "players", "dealer", "deck", "actions", "outcome", "hand_number", "scores",
        "seats")
#: Keys of a room's hand only, after :data:`KEYS`: every other hand's file is what it was before rooms.
ROOM_KEYS = ("members",)
#: Keys a file may leave out: files written before a key existed stay readable.
OPTIONAL_KEYS = ("seats", *ROOM_KEYS)
#: The seats of a two-player hand.
TWO_SEATS = (0, 1)
#: The outcome's keys in a file. Which meld each layoff went on is not saved: replaying the hand gives it.
OUTCOME_KEYS = tuple(f.name for f in dataclasses.fields(HandOutcome) if f.name != "layoff_melds")
#: The rules' keys in a file: every key of ``Rules``.
RULES_KEYS = fields.RULES_KEYS
DEFAULT_PLAYERS = ("P1", "P2")
#: The largest file :func:`load` reads, in bytes. A hand stopped by the default turn cap (R19, 200 turns) saves as
#: about 8 kB; this limit holds some 25,000 turns, and keeps ``/dev/zero`` or a wrong file from filling memory.
MAX_BYTES = 1_000_000


@dataclass(frozen=True)
class Replay:
    """One hand: enough to play it again exactly (rules, deck, dealer, actions) and what it gave (outcome).

    ``players`` names P1 and P2; ``hand_number``, ``scores`` and ``seats`` (the table seats of P1 and P2) place the
    hand in its game (for reading only: the hand itself does not depend on them). ``members``, for a room's hand
    only, names who made each action (None elsewhere)."""

    rules: Rules
    deck: tuple[int, ...]
    dealer: int
    actions: tuple[int, ...]
    outcome: HandOutcome
    players: tuple[str, str] = DEFAULT_PLAYERS
    hand_number: int | None = None
    scores: tuple[int, int] = (0, 0)
    seats: tuple[int, int] = TWO_SEATS
    members: tuple[str, ...] | None = None

    def states(self) -> list[HandState]:
        """The state after the deal and after each action: ``len(actions) + 1`` states, the last one over.

        Raises :class:`ReplayError` when an action is illegal where it stands, the hand ends before the last
        action, or it is not over after it."""
        state = engine.new_hand(self.rules, dealer=self.dealer, deck=self.deck)
        out = [state]
        n = len(self.actions)
        for k, action in enumerate(self.actions, start=1):
            if state.phase == engine.OVER:
                raise ReplayError(f"the hand ended ({state.outcome.kind}) after action {k - 1}, but the replay has "
                                  f"{n} actions")
            try:
                state = engine.step(state, action)
            except engine.IllegalActionError as err:
                raise ReplayError(f"cannot play action {k} of {n}: {err}") from None
            out.append(state)
        if state.phase != engine.OVER:
            raise ReplayError(f"the hand is not over after all {n} actions (phase "
                              f"{engine.PHASE_NAMES[state.phase]!r}): the replay is cut short")
        return out

    def to_dict(self) -> dict:
        """The replay as the JSON object of the file format (see the module docstring); ``members`` only when set."""
        out = {
            "format": FORMAT,
            "version": version_of(self.rules),
            "rules": self.rules.as_dict(),
            "players": list(self.players),
            "dealer": self.dealer,
            "deck": [cards.card_str(c) for c in self.deck],
            "actions": [actions.name(a) for a in self.actions],
            "outcome": outcome_dict(self.outcome),
            "hand_number": self.hand_number,
            "scores": list(self.scores),
            "seats": list(self.seats),
        }
        if self.members is not None:
            out["members"] = list(self.members)
        return out

    def to_json(self) -> str:
        """The file's text: one key per line, each value on that line, so a replay reads (and diffs) well."""
        body = ",\n".join(f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in self.to_dict().items())
        return "{\n" + body + "\n}\n"

    def save(self, path: str | os.PathLike) -> None:
        """Write the replay to ``path`` (see the module docstring for the format), atomically, never over a file.

        The text goes to a temporary file beside ``path`` that is then linked to its name: a reader never sees half
        a replay, and when ``path`` exists already (another run with the same names) ``FileExistsError`` is raised
        and both files stay as they were."""
        path = os.fspath(path)
        temporary = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}{_TEMPORARY}")
        # Ctrl-C, or the SIGTERM that stops an evaluation's worker processes, waits until the temporary file is
        # gone when it reaches this thread; one that reaches another thread kills the process here, and the
        # evaluation removes what is left (remove_temporaries). A stopped run leaves whole replays only.
        with _signals_held():
            try:
                with open(temporary, "w", encoding="utf-8") as f:
                    f.write(self.to_json())
                # os.link, unlike os.replace, fails instead of replacing an existing file, in one atomic step.
                os.link(temporary, path)
            except FileExistsError:
                raise FileExistsError(f"replay {path} exists already: not overwritten (use another folder, seed or "
                                      "agent name)") from None
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temporary)


#: The ending of the temporary file a process writes a replay to: ``.NAME.PID.tmp`` beside ``NAME``.
_TEMPORARY = ".tmp"


def remove_temporaries(folder: str | os.PathLike, pids) -> None:
    """Delete the temporary files that processes ``pids`` left in ``folder``: a process killed by a signal that
    reached another of its threads (numpy's, torch's) dies inside ``Replay.save`` without cleaning up. Files of
    other processes, such as another run writing to the same folder, are left alone."""
    endings = tuple(f".{pid}{_TEMPORARY}" for pid in pids)
    for name in os.listdir(folder):
        if name.startswith(".") and name.endswith(endings):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(folder, name))


@contextlib.contextmanager
def _signals_held():
    """Hold SIGINT and SIGTERM back inside the block (where the platform can); they arrive when it ends."""
    held = {signal.SIGINT, signal.SIGTERM}
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def version_of(rules: Rules) -> int:
    """The version a hand under ``rules`` is written in: the lowest that holds it."""
    return JOKERS_VERSION if rules.jokers else VERSIONS[0]


def outcome_dict(outcome: HandOutcome) -> dict:
    """A hand outcome in the file's terms: cards as strings, no card as null."""
    return {
        "kind": outcome.kind,
        "winner": outcome.winner,
        "points": outcome.points,
        "knocker": outcome.knocker,
        "knock_card": None if outcome.knock_card == engine.NO_CARD else cards.card_str(outcome.knock_card),
        "knocker_deadwood": outcome.knocker_deadwood,
        "defender_deadwood": outcome.defender_deadwood,
        "layoffs": [cards.card_str(c) for c in outcome.layoffs],
        "knocker_melds": [[cards.card_str(c) for c in m] for m in outcome.knocker_melds],
        "capped": outcome.capped,
    }


def record(start: HandState, hand_actions, *, players: tuple[str, str] = DEFAULT_PLAYERS,
           hand_number: int | None = None, scores: tuple[int, int] = (0, 0),
           seats: tuple[int, int] = TWO_SEATS, members=None) -> Replay:
    """The replay of the hand dealt as ``start`` and played with ``hand_actions`` (action ids), its outcome found
    by playing them; ``members`` (a room's hand) names who made each action. Raises :class:`ReplayError` if
    ``start`` is not a fresh deal, the actions do not play the hand to its end or ``members`` do not name each
    action."""
    hand_actions = tuple(int(a) for a in hand_actions)
    if not is_deal(start):
        raise ReplayError("a replay starts from the deal: this state is a hand already in play")
    replay = Replay(rules=start.rules, deck=jokers_in_order(start.deck), dealer=start.dealer,
                    actions=hand_actions, outcome=engine.DEAD_OUTCOME, players=players,
                    hand_number=hand_number, scores=scores, seats=fields.read_seats(list(seats), start.rules),
                    members=None if members is None else fields.read_members(list(members), len(hand_actions)))
    return dataclasses.replace(replay, outcome=replay.states()[-1].outcome)


def jokers_in_order(deck: tuple[int, ...]) -> tuple[int, ...]:
    """``deck`` with its jokers numbered in the order they lie, as a file's ``JK`` are read (R62): the same hand,
    since jokers are interchangeable (R71), whichever id each had."""
    jokers = iter(range(cards.N_CARDS, len(deck)))
    return tuple(next(jokers) if c >= cards.N_CARDS else c for c in deck)


def is_deal(state: HandState) -> bool:
    """True when ``state`` is a hand just dealt, before any action: the only place a replay can start."""
    return state == engine.new_hand(state.rules, dealer=state.dealer, deck=state.deck)


# ---------------------------------------------------------------------------------------------------------------
# Loading and validation
# ---------------------------------------------------------------------------------------------------------------

def load(path: str | os.PathLike) -> Replay:
    """Read and check a replay file: the hand is played again and must give the outcome saved with it.

    Raises :class:`ReplayError` naming the file and the problem (unreadable, over :data:`MAX_BYTES`, not UTF-8, not
    JSON, unknown version, unknown or missing keys, bad values, an illegal action at step k, an outcome mismatch)."""
    try:
        text = files.read_text(path, MAX_BYTES, "replay")
    except OSError as err:
        raise ReplayError(f"cannot read replay {os.fspath(path)!r}: {err}") from None
    except ValueError as err:  # too large, or not UTF-8: read_text's message names the file
        raise ReplayError(str(err)) from None
    try:
        return loads(text)
    except ReplayError as err:
        raise ReplayError(f"{os.fspath(path)}: {err}") from None


def loads(text: str) -> Replay:
    """A replay from the text of a file, checked like :func:`load`."""
    try:
        data = json.loads(text, parse_constant=fields.no_constant)
    except ReplayError:
        raise
    except json.JSONDecodeError as err:
        raise ReplayError(f"not a replay: the file is not valid JSON ({err})") from None
    except ValueError:  # valid JSON that Python refuses to read: an integer of more than 4,300 digits
        raise ReplayError("not a replay: a number in the file has too many digits to read") from None
    except RecursionError:
        raise ReplayError("not a replay: the JSON is nested too deeply to read") from None
    return from_dict(data)


def from_dict(data) -> Replay:
    """A replay from the file's JSON object, checked: keys, values, then the hand played again against its
    outcome."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayError(f"not a replay: a replay is a JSON object with \"format\": \"{FORMAT}\"")
    if not fields.is_int(data.get("version")) or data["version"] not in VERSIONS:
        raise ReplayError(f"replay format version {quoted(data.get('version'))} is not supported: this "
                          f"gin-env reads versions {', '.join(map(str, VERSIONS))}")
    fields.check_keys(data, KEYS + ROOM_KEYS, "replay", OPTIONAL_KEYS)
    rules = fields.read_rules(data["rules"])
    if data["version"] < version_of(rules):
        raise ReplayError(f"replay format version {data['version']} holds no jokers, and its rules deal "
                          f"{rules.jokers}: a hand with jokers is a version {JOKERS_VERSION} file")
    replay = Replay(rules=rules, deck=fields.read_deck(data["deck"], rules), dealer=fields.read_dealer(data["dealer"]),
                    actions=fields.read_actions(data["actions"]), outcome=engine.DEAD_OUTCOME,
                    players=fields.read_players(data["players"]),
                    hand_number=fields.read_hand_number(data["hand_number"]),
                    scores=fields.read_scores(data["scores"]),
                    seats=fields.read_seats(data.get("seats", list(TWO_SEATS)), rules))
    if "members" in data:
        replay = dataclasses.replace(replay, members=fields.read_members(data["members"], len(replay.actions)))
    saved = data["outcome"]
    if not isinstance(saved, dict):
        raise ReplayError(f"'outcome' must be an object with keys {', '.join(OUTCOME_KEYS)}")
    fields.check_keys(saved, OUTCOME_KEYS, "outcome")
    outcome = replay.states()[-1].outcome
    replayed = outcome_dict(outcome)
    # Compared as JSON text, so that true is not 1 and 25.0 is not 25: the file must hold what the hand gives.
    differences = [f"{key} is {quoted(saved[key])} in the file but {replayed[key]!r} when the actions are "
                   "played"
                   for key in OUTCOME_KEYS if json.dumps(saved[key]) != json.dumps(replayed[key])]
    if differences:
        raise ReplayError("outcome mismatch: " + "; ".join(differences))
    return dataclasses.replace(replay, outcome=outcome)
