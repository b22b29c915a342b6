"""Action ids of the single ``Discrete(108)`` action space (``Discrete(110)`` with jokers), their names, and
encode/decode helpers.

| id      | name           |
|---------|----------------|
| 0       | DRAW_STOCK     |
| 1       | TAKE_DISCARD   |
| 2       | PASS           |
| 3       | BIG_GIN        |
| 4 + c   | DISCARD(c)     |
| 56 + c  | KNOCK(c)       |
| 108     | DISCARD(JK)    |
| 109     | KNOCK(JK)      |

``TAKE_DISCARD`` doubles as ``TAKE_UPCARD`` during the first-upcard offer (R13). The jokers are interchangeable
(R71, R72), so one action discards a joker and one knocks with one, each moving the lowest-id joker held; they exist
only under rules with jokers, and ids 0-107 mean the same in every game.
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
#: With jokers (R72): discard a joker, knock with a joker, after every natural card's actions.
DISCARD_JOKER = N_ACTIONS
KNOCK_JOKER = N_ACTIONS + 1
JOKER_ACTIONS = 2
#: The most actions any game has.
MAX_ACTIONS = N_ACTIONS + JOKER_ACTIONS

_SIMPLE_NAMES = {DRAW_STOCK: "DRAW_STOCK", TAKE_DISCARD: "TAKE_DISCARD", PASS: "PASS", BIG_GIN: "BIG_GIN"}


def n_actions(rules) -> int:
    """The actions of a game under ``rules``: the four that name no card, then a discard and a knock for each natural
    card of ``rules.deck``, whose ids are the same in every deck, then, with jokers, the two joker actions."""
    return DISCARD_BASE + 2 * rules.deck.n_naturals + (JOKER_ACTIONS if rules.deck.n_jokers else 0)


def discard(card_id: int) -> int:
    """Action id of DISCARD(card); DISCARD(JK) for a joker."""
    return DISCARD_JOKER if card_id >= cards.N_CARDS else DISCARD_BASE + card_id


def knock(card_id: int) -> int:
    """Action id of KNOCK(card); KNOCK(JK) for a joker."""
    return KNOCK_JOKER if card_id >= cards.N_CARDS else KNOCK_BASE + card_id


def is_discard(action: int) -> bool:
    return DISCARD_BASE <= action < KNOCK_BASE or action == DISCARD_JOKER


def is_knock(action: int) -> bool:
    return KNOCK_BASE <= action < N_ACTIONS or action == KNOCK_JOKER


def discard_legal(mask) -> bool:
    """Whether a legal-action ``mask`` allows some discard: a natural card's, or with jokers (a mask of more than
    ``N_ACTIONS``) a joker's. False when a knock must end the turn (R38)."""
    return bool(mask[DISCARD_BASE:KNOCK_BASE].any() or (len(mask) > DISCARD_JOKER and mask[DISCARD_JOKER]))


def action_card(action: int, hand: int = 0) -> int:
    """The card of a DISCARD or KNOCK action; for a joker action the lowest-id joker of ``hand`` (a card mask,
    R72). ``ValueError`` for other actions, or a joker action with no joker in ``hand``."""
    if action in (DISCARD_JOKER, KNOCK_JOKER):
        jokers = hand >> cards.N_CARDS
        if not jokers:
            raise ValueError(f"action {name(action)} moves a joker, and the hand holds none")
        return cards.N_CARDS + (jokers & -jokers).bit_length() - 1
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
    if action in (DISCARD_JOKER, KNOCK_JOKER):
        return f"{'DISCARD' if action == DISCARD_JOKER else 'KNOCK'}({cards.JOKER})"
    if is_discard(action):
        return f"DISCARD({cards.card_str(action - DISCARD_BASE)})"
    if is_knock(action):
        return f"KNOCK({cards.card_str(action - KNOCK_BASE)})"
    raise ValueError(f"unknown action id {action!r}; ids are 0..{N_ACTIONS - 1} ({MAX_ACTIONS - 1} with jokers)")


def parse(text: str) -> int:
    """Inverse of :func:`name`: ``"DISCARD(TD)"`` or ``"KNOCK(2C)"`` or ``"PASS"`` to an id."""
    text = text.strip().upper()
    for action, label in _SIMPLE_NAMES.items():
        if text == label:
            return action
    if text == "TAKE_UPCARD":
        return TAKE_DISCARD
    for prefix, base, joker in (("DISCARD(", DISCARD_BASE, DISCARD_JOKER), ("KNOCK(", KNOCK_BASE, KNOCK_JOKER)):
        if text.startswith(prefix) and text.endswith(")"):
            inner = text[len(prefix):-1]
            return joker if inner == cards.JOKER else base + cards.card(inner)
    raise ValueError(f"unknown action {text!r}")

