"""The fields of a replay file, each read and checked alone: its type (an integer is never ``true`` nor ``2.0``), its
range (every number and name bounded by a constant here), and NaN or infinity refused wherever they stand. This
module owns :class:`ReplayError` and what each field may hold; :mod:`.replay_file` owns the format as a whole and the
hand played again against its outcome.
"""

from __future__ import annotations

import dataclasses

from gin_env.game import actions, cards
from gin_env.game.rules import JOKER_KEYS, MAX_POINTS, Rules
from gin_env.text import clipped, quoted

RULES_KEYS = tuple(f.name for f in dataclasses.fields(Rules))
#: The longest name a replay may give a player or its rules: a label, not a text; longer is a wrong or hostile file.
MAX_NAME_LENGTH = 200
#: The largest hand number: far more hands than any game plays, and a bound that keeps a number of thousands of
#: digits out of the viewer.
MAX_HAND_NUMBER = 1_000_000
#: The largest running score before a hand: below the game's target, which is at most ``rules.MAX_POINTS``.
MAX_SCORE = MAX_POINTS
class ReplayError(ValueError):
    """A replay file or record that is unreadable or does not hold together; the message names the problem."""


def no_constant(name: str):
    """Refuse JSON's non-numbers (``NaN``, ``Infinity``, ``-Infinity``), wherever they stand: a replay holds none
    (``json.loads``'s ``parse_constant``)."""
    raise ReplayError(f"not a replay: {name} is not a number a replay holds (its numbers are integers)")


def check_keys(data: dict, expected: tuple[str, ...], what: str, optional: tuple[str, ...] = ()) -> None:
    """Refuse keys of ``data`` not among ``expected``, and ``expected`` keys missing but for the ``optional``."""
    unknown = sorted(set(data) - set(expected))
    missing = [key for key in expected if key not in data and key not in optional]
    if unknown:
        raise ReplayError(f"unknown {what} keys: {', '.join(unknown)}")
    if missing:
        raise ReplayError(f"missing {what} keys: {', '.join(missing)}")


def is_int(value) -> bool:
    """An integer of JSON: ``true`` and ``false`` are not (Python's bools are ints), nor ``2.0``."""
    return isinstance(value, int) and not isinstance(value, bool)


def read_rules(data) -> Rules:
    """Every key of ``Rules`` must be there, but for the joker keys of a game without jokers (``Rules.as_dict``): a
    hand plays again exactly only under exactly the same rules."""
    if not isinstance(data, dict):
        raise ReplayError("'rules' must be an object of rules keys and values")
    check_keys(data, RULES_KEYS, "rules", optional=JOKER_KEYS)
    try:
        rules = Rules(**data)
    except ValueError as err:  # its message quotes the bad value, which may be a number of thousands of digits
        raise ReplayError(f"bad rules: {clipped(str(err))}") from None
    if len(rules.name) > MAX_NAME_LENGTH:
        raise ReplayError(f"rules key 'name' must be at most {MAX_NAME_LENGTH} characters, got {len(rules.name):,}")
    return rules


def read_deck(data, rules: Rules) -> tuple[int, ...]:
    """The deal order: every card of ``rules.deck`` once, top first, each ``JK`` the next joker (R62)."""
    deck = rules.deck
    if not isinstance(data, list) or len(data) != deck.n_cards:
        jokers = f" and {deck.n_jokers} {cards.JOKER}" if deck.n_jokers else ""
        raise ReplayError(f"'deck' must be a list of the {deck.n_naturals} cards{jokers}, top first")
    ids = []
    jokers = iter(deck.joker_ids)
    for i, text in enumerate(data):
        if not isinstance(text, str) or len(text) != 2:  # cards.card would quote all of a long text
            raise ReplayError(f"deck card {i}: malformed card {quoted(text)}: expected rank + suit such as 'TD'")
        if text == cards.JOKER:
            ids.append(next(jokers, None))
            if ids[-1] is None:
                raise ReplayError(f"deck card {i}: one {cards.JOKER} more than the {deck.n_jokers} of "
                                  f"{rules.describe()}")
            continue
        try:
            ids.append(cards.card(text))
        except ValueError as err:
            raise ReplayError(f"deck card {i}: {err}") from None
    if len(set(ids)) != deck.n_cards:
        twice = sorted({c for c in ids if ids.count(c) > 1})
        raise ReplayError(f"the deck holds {' '.join(cards.card_str(c) for c in twice)} more than once")
    return tuple(ids)


def read_dealer(data) -> int:
    """0 (P1) or 1 (P2)."""
    if not is_int(data) or data not in (0, 1):
        raise ReplayError(f"'dealer' must be 0 (P1) or 1 (P2), got {quoted(data)}")
    return data


def read_actions(data) -> tuple[int, ...]:
    """Every action of the hand, in order, by name."""
    if not isinstance(data, list):
        raise ReplayError("'actions' must be a list of action names such as \"DRAW_STOCK\" or \"DISCARD(TD)\"")
    ids = []
    for k, text in enumerate(data, start=1):
        try:
            ids.append(actions.parse(text))
        except (ValueError, AttributeError):
            raise ReplayError(f"action {k}: {quoted(text)} is not an action name (e.g. \"PASS\", "
                              "\"DISCARD(TD)\")") from None
    return tuple(ids)


def read_players(data) -> tuple[str, str]:
    """The names of P1 and P2, each at most :data:`MAX_NAME_LENGTH` characters (shown as text, never run)."""
    if not isinstance(data, list) or len(data) != 2 or not all(isinstance(name, str) for name in data):
        raise ReplayError(f"'players' must be the two players' names, P1 first, got {quoted(data)}")
    if max(len(name) for name in data) > MAX_NAME_LENGTH:
        raise ReplayError(f"'players' names must be at most {MAX_NAME_LENGTH} characters each")
    return data[0], data[1]


def read_seats(data, rules: Rules) -> tuple[int, int]:
    """Two different table seats of ``rules.players`` (R49)."""
    if (not isinstance(data, list) or len(data) != 2 or not all(is_int(s) and 0 <= s < rules.players for s in data)
            or data[0] == data[1]):
        raise ReplayError(f"'seats' must be two different seats 0..{rules.players - 1}, got {quoted(data)}")
    return data[0], data[1]


def read_hand_number(data) -> int | None:
    """The hand's number in its game, 1..:data:`MAX_HAND_NUMBER`, or None."""
    if data is not None and not (is_int(data) and 1 <= data <= MAX_HAND_NUMBER):
        raise ReplayError(f"'hand_number' must be an integer 1..{MAX_HAND_NUMBER:,} or null, got {quoted(data)}")
    return data


def read_scores(data) -> tuple[int, int]:
    """Both running scores before the hand, P1 first, each 0..:data:`MAX_SCORE`."""
    if not isinstance(data, list) or len(data) != 2 or not all(is_int(s) and 0 <= s <= MAX_SCORE for s in data):
        raise ReplayError(f"'scores' must be the two running scores 0..{MAX_SCORE:,}, P1 first, got {quoted(data)}")
    return data[0], data[1]


def read_members(data, n_actions: int) -> tuple[str, ...]:
    """Who made each of the hand's ``n_actions`` actions (a room's hand): one name per action, each 1..
    :data:`MAX_NAME_LENGTH` characters (shown as text, never run)."""
    if not isinstance(data, list) or len(data) != n_actions:
        got = f"a list of {len(data)}" if isinstance(data, list) else quoted(data)
        raise ReplayError(f"'members' must name who made each of the {n_actions} actions, got {got}")
    if not all(isinstance(name, str) and 0 < len(name) <= MAX_NAME_LENGTH for name in data):
        raise ReplayError(f"'members' must be names of 1..{MAX_NAME_LENGTH} characters each")
    return tuple(data)
