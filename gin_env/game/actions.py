"""Action ids of the single ``Discrete(108)`` action space, their names, and encode/decode helpers.

| id      | name           |
|---------|----------------|
| 0       | DRAW_STOCK     |
| 1       | TAKE_DISCARD   |
| 2       | PASS           |
| 3       | BIG_GIN        |
| 4 + c   | DISCARD(c)     |
| 56 + c  | KNOCK(c)       |

``TAKE_DISCARD`` doubles as ``TAKE_UPCARD`` during the first-upcard offer (R13).
"""

from __future__ import annotations

from gin_env.game import cards

DRAW_STOCK = 0
TAKE_DISCARD = 1
PASS = 2
BIG_GIN = 3
DISCARD_BASE = 4
KNOCK_BASE = DISCARD_BASE + cards.N_CARDS
#: The actions of the standard deck (``n_actions`` of its rules).
N_ACTIONS = KNOCK_BASE + cards.N_CARDS

_SIMPLE_NAMES = {DRAW_STOCK: "DRAW_STOCK", TAKE_DISCARD: "TAKE_DISCARD", PASS: "PASS", BIG_GIN: "BIG_GIN"}


def n_actions(rules) -> int:
    """The actions of a game under ``rules``: the four that name no card, then a discard and a knock for each natural
    card of ``rules.deck``, whose ids are the same in every deck."""
    return DISCARD_BASE + 2 * rules.deck.n_naturals


def discard(card_id: int) -> int:
    """Action id of DISCARD(card)."""
    return DISCARD_BASE + card_id


def knock(card_id: int) -> int:
    """Action id of KNOCK(card)."""
    return KNOCK_BASE + card_id


def is_discard(action: int) -> bool:
    return DISCARD_BASE <= action < KNOCK_BASE


def is_knock(action: int) -> bool:
    return KNOCK_BASE <= action < N_ACTIONS


def action_card(action: int) -> int:
    """The card of a DISCARD or KNOCK action; ``ValueError`` for other actions."""
    if is_discard(action):
        return action - DISCARD_BASE
    if is_knock(action):
        return action - KNOCK_BASE
    raise ValueError(f"action {action!r} ({name(action)}) carries no card")


def name(action: int) -> str:
    """Readable name, e.g. ``DISCARD(TD)``."""
    action = int(action)
    if action in _SIMPLE_NAMES:
        return _SIMPLE_NAMES[action]
    if is_discard(action):
        return f"DISCARD({cards.card_str(action - DISCARD_BASE)})"
    if is_knock(action):
        return f"KNOCK({cards.card_str(action - KNOCK_BASE)})"
    raise ValueError(f"unknown action id {action!r}; ids are 0..{N_ACTIONS - 1}")


def parse(text: str) -> int:
    """Inverse of :func:`name`: ``"DISCARD(TD)"`` or ``"KNOCK(2C)"`` or ``"PASS"`` to an id."""
    text = text.strip().upper()
    for action, label in _SIMPLE_NAMES.items():
        if text == label:
            return action
    if text == "TAKE_UPCARD":
        return TAKE_DISCARD
    for prefix, base in (("DISCARD(", DISCARD_BASE), ("KNOCK(", KNOCK_BASE)):
        if text.startswith(prefix) and text.endswith(")"):
            return base + cards.card(text[len(prefix):-1])
    raise ValueError(f"unknown action {text!r}")

