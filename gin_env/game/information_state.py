"""The perfect-recall information state: every public event of a hand, in order, as one token per event, from one
player's (the viewer's) side.

The events are ``public_history``'s (the upcard, passes, takes from the pile, draws from the stock, discards,
knocks, big gins); a token is one int, ``0`` for no event (the padding after the last one), laid out by
``HISTORY_LAYOUT`` (name -> range of tokens):

=================  ====  =============  ===============================================================================
name               size  tokens         meaning
=================  ====  =============  ===============================================================================
``pad``               1  0              no event: the entries after the last event of the hand
``upcard``           52  1 + c          the upcard ``c`` turned after the deal (R12; none under ``deal_mode="eleven"``)
``own_pass``          1  53             the viewer passes the upcard (R13) or the discard at the wall (R38)
``other_pass``        1  54             the other player passes
``own_take``         52  55 + c         the viewer takes ``c``, the top of the pile (R13, R15, R38)
``other_take``       52  107 + c        the other player takes ``c`` from the pile
``own_draw``         52  159 + c        the viewer draws ``c`` from the stock (R15): it sees the card it draws
``other_draw``        1  211            the other player draws from the stock: the card is hidden from the viewer
``own_discard``      52  212 + c        the viewer discards ``c`` face up (R16)
``other_discard``    52  264 + c        the other player discards ``c``
``own_knock``        52  316 + c        the viewer knocks, ``c`` face down on the pile (R20, R21; a gin when the rest
                                        all meld, R23)
``other_knock``       1  368            the other player knocks: its knock card goes face down (R21), so the token
                                        names none
``own_big_gin``       1  369            the viewer declares big gin (R24)
``other_big_gin``     1  370            the other player declares big gin
=================  ====  =============  ===============================================================================

``N_TOKENS`` (371) tokens in all; ``c`` is a card id of ``cards.py``. A hand's history is an int16 array of
``history_length(rules)`` entries: its events in order from entry 0, then zeros.

With jokers (R62) the standard vocabulary stays as it is and each kind of event that names a card has one token
more after it, for a joker (``JOKER_LAYOUT``; ``history_layout(rules)``, ``n_tokens(rules)``): which joker is which
is never information (R72), so a joker is told by its event alone, and an event of either joker is one token.

=======================  ====  ======  ==============================================================================
name                     size  token   meaning
=======================  ====  ======  ==============================================================================
``upcard_joker``            1  371     the upcard is a joker (R70, E13)
``own_take_joker``          1  372     the viewer takes a joker from the pile
``other_take_joker``        1  373     the other player takes a joker from the pile
``own_draw_joker``          1  374     the viewer draws a joker from the stock
``own_discard_joker``       1  375     the viewer discards a joker (action ``DISCARD_JOKER``)
``other_discard_joker``     1  376     the other player discards a joker
``own_knock_joker``         1  377     the viewer knocks with a joker (``KNOCK_JOKER``); the other's knock with a joker
                                       is ``other_knock``, its card face down as any other
=======================  ====  ======  ==============================================================================

``N_TOKENS + JOKER_TOKENS`` (378) tokens under rules with jokers, one or two alike.

Why perfect recall: the viewer's dealt cards need no token. Its hand now (the ``hand`` plane of the observation, and
with jokers its joker count) less the cards it took and drew, plus the cards it discarded and knocked with, is the
hand it was dealt; every other card it has seen placed is in a token. The other player's hidden cards and the stock
order never enter a token, nor which joker lies where, so two deals that differ only there give the same history.
"""

from __future__ import annotations

import numpy as np

from gin_env.game import actions, cards, engine
from gin_env.game.observation import consecutive
from gin_env.game.public_history import BigGin, Discard, Draw, Event, Knock, Pass, Take, Upcard
from gin_env.game.rules import Rules

#: The kinds of event that name a card, in layout order: a token per natural card each and, with jokers, one more.
CARD_KINDS = ("upcard", "own_take", "other_take", "own_draw", "own_discard", "other_discard", "own_knock")
_STANDARD = [("pad", 1), ("upcard", cards.N_CARDS), ("own_pass", 1), ("other_pass", 1), ("own_take", cards.N_CARDS),
             ("other_take", cards.N_CARDS), ("own_draw", cards.N_CARDS), ("other_draw", 1),
             ("own_discard", cards.N_CARDS), ("other_discard", cards.N_CARDS), ("own_knock", cards.N_CARDS),
             ("other_knock", 1), ("own_big_gin", 1), ("other_big_gin", 1)]
HISTORY_LAYOUT: dict[str, range] = consecutive(_STANDARD, range)
#: The layout under rules with jokers: the standard one, then a joker's token for each kind of ``CARD_KINDS`` (R72).
JOKER_LAYOUT: dict[str, range] = consecutive(_STANDARD + [(f"{kind}_joker", 1) for kind in CARD_KINDS], range)
N_TOKENS = HISTORY_LAYOUT["other_big_gin"].stop
#: The tokens the jokers add after ``N_TOKENS``.
JOKER_TOKENS = len(JOKER_LAYOUT) - len(HISTORY_LAYOUT)
PAD = HISTORY_LAYOUT["pad"].start
UPCARD = HISTORY_LAYOUT["upcard"].start
OWN_PASS = HISTORY_LAYOUT["own_pass"].start
OTHER_PASS = HISTORY_LAYOUT["other_pass"].start
OWN_TAKE = HISTORY_LAYOUT["own_take"].start
OTHER_TAKE = HISTORY_LAYOUT["other_take"].start
OWN_DRAW = HISTORY_LAYOUT["own_draw"].start
OTHER_DRAW = HISTORY_LAYOUT["other_draw"].start
OWN_DISCARD = HISTORY_LAYOUT["own_discard"].start
OTHER_DISCARD = HISTORY_LAYOUT["other_discard"].start
OWN_KNOCK = HISTORY_LAYOUT["own_knock"].start
OTHER_KNOCK = HISTORY_LAYOUT["other_knock"].start
OWN_BIG_GIN = HISTORY_LAYOUT["own_big_gin"].start
OTHER_BIG_GIN = HISTORY_LAYOUT["other_big_gin"].start
#: The dtype of a history; every token fits it.
HISTORY_DTYPE = np.int16
#: The longest history this module lays out: rules whose hands may have more events are refused.
MAX_HISTORY = 4096

#: ``_JOKER_TOKEN_OF[start]``: the joker's token of the card kind whose tokens start at ``start``, 0 elsewhere.
_JOKER_TOKEN_OF = np.zeros(N_TOKENS, dtype=HISTORY_DTYPE)
for _kind_name in CARD_KINDS:
    _JOKER_TOKEN_OF[JOKER_LAYOUT[_kind_name].start] = JOKER_LAYOUT[f"{_kind_name}_joker"].start
_JOKER_TOKEN_OF.flags.writeable = False

#: ``ACTION_TOKENS[side, action]``: the token of an engine action by the viewer (side 0) or the other player (side
#: 1), before the card only the state knows: a take adds the top of the pile, the viewer's draw the top of the stock
#: (``card_token``). Its columns cover the joker actions too (``actions.MAX_ACTIONS``), which only rules with jokers
#: play.
ACTION_TOKENS = np.zeros((2, actions.MAX_ACTIONS), dtype=HISTORY_DTYPE)
ACTION_TOKENS[:, actions.PASS] = OWN_PASS, OTHER_PASS
ACTION_TOKENS[:, actions.TAKE_DISCARD] = OWN_TAKE, OTHER_TAKE
ACTION_TOKENS[:, actions.DRAW_STOCK] = OWN_DRAW, OTHER_DRAW
ACTION_TOKENS[:, actions.BIG_GIN] = OWN_BIG_GIN, OTHER_BIG_GIN
ACTION_TOKENS[0, actions.DISCARD_BASE:actions.KNOCK_BASE] = np.arange(OWN_DISCARD, OWN_DISCARD + cards.N_CARDS)
ACTION_TOKENS[1, actions.DISCARD_BASE:actions.KNOCK_BASE] = np.arange(OTHER_DISCARD, OTHER_DISCARD + cards.N_CARDS)
ACTION_TOKENS[0, actions.KNOCK_BASE:actions.KNOCK_BASE + cards.N_CARDS] = np.arange(OWN_KNOCK,
                                                                                    OWN_KNOCK + cards.N_CARDS)
ACTION_TOKENS[1, actions.KNOCK_BASE:actions.KNOCK_BASE + cards.N_CARDS] = OTHER_KNOCK
ACTION_TOKENS[:, actions.DISCARD_JOKER] = _JOKER_TOKEN_OF[OWN_DISCARD], _JOKER_TOKEN_OF[OTHER_DISCARD]
ACTION_TOKENS[:, actions.KNOCK_JOKER] = _JOKER_TOKEN_OF[OWN_KNOCK], OTHER_KNOCK
ACTION_TOKENS.flags.writeable = False

#: The words of each kind of token, by layout name, for ``describe_token``.
_WORDS = {"pad": "no event", "upcard": "upcard", "own_pass": "own passes", "other_pass": "other passes",
          "own_take": "own takes", "other_take": "other takes", "own_draw": "own draws", "other_draw": "other draws",
          "own_discard": "own discards", "other_discard": "other discards", "own_knock": "own knocks with",
          "other_knock": "other knocks", "own_big_gin": "own goes big gin", "other_big_gin": "other goes big gin"}


def history_layout(rules: Rules) -> dict[str, range]:
    """The token layout of hands under ``rules``: ``HISTORY_LAYOUT``, or ``JOKER_LAYOUT`` when the deck holds
    jokers (R62)."""
    return JOKER_LAYOUT if rules.deck.n_jokers else HISTORY_LAYOUT


def n_tokens(rules: Rules) -> int:
    """How many tokens a history under ``rules`` may hold (the padding included): ``N_TOKENS``, and
    ``JOKER_TOKENS`` more with jokers."""
    return N_TOKENS + (JOKER_TOKENS if rules.deck.n_jokers else 0)


def card_token(start, card):
    """The token of a card event: the kind whose natural cards' tokens start at token ``start`` (one of
    ``CARD_KINDS``), and ``card``, an id; any joker (ids from ``cards.N_CARDS`` on) is the kind's one joker token
    (R72). Ints, or numpy arrays of them for many events at once (the vector env's ``BatchHistory``)."""
    card = np.asarray(card)
    out = np.where(card >= cards.N_CARDS, _JOKER_TOKEN_OF[start], np.asarray(start) + card)
    return int(out) if out.ndim == 0 else out


def token(event: Event, viewer: int) -> int:
    """The token of a public event (``public_history``) as ``viewer`` (0 or 1) sees it. Cards are ids or names, a
    joker any joker's id or ``"JK"``. The viewer's own draw must name its card; the other player's draw must not
    (the viewer cannot see it, as ``public_history.player_view`` holds); the other player's knock card is face down
    (R21) and not read."""
    viewer = engine.player_index(viewer, "viewer")
    if isinstance(event, Upcard):
        return card_token(UPCARD, _card(event.card))
    if not isinstance(event, (Pass, Take, Draw, Discard, Knock, BigGin)):
        raise TypeError(f"not a public event: {event!r}")
    own = engine.player_index(event.player, "player") == viewer
    if isinstance(event, Pass):
        return OWN_PASS if own else OTHER_PASS
    if isinstance(event, BigGin):
        return OWN_BIG_GIN if own else OTHER_BIG_GIN
    if isinstance(event, Draw):
        if own == (event.card is None):
            raise ValueError(f"{event!r} seen by player {viewer}: a draw names its card for its drawer only")
        return card_token(OWN_DRAW, _card(event.card)) if own else OTHER_DRAW
    if isinstance(event, Knock):
        return card_token(OWN_KNOCK, _card(event.card)) if own else OTHER_KNOCK
    own_base, other_base = (OWN_TAKE, OTHER_TAKE) if isinstance(event, Take) else (OWN_DISCARD, OTHER_DISCARD)
    return card_token(own_base if own else other_base, _card(event.card))


def event_of(token_id: int, viewer: int) -> Event:
    """The public event a token stands for, from ``viewer``'s side (the inverse of :func:`token`): the other
    player's drawn card and knock card, which the viewer does not see, are None; a joker is ``cards.N_CARDS``, the
    first joker's id, as every public record names a joker (R72). ``ValueError`` for the padding token or one out of
    range."""
    viewer = engine.player_index(viewer, "viewer")
    name, card = _kind(token_id)
    if name == "pad":
        raise ValueError("token 0 is the padding after the last event, not an event")
    player = viewer if name.startswith("own") else 1 - viewer
    kind = name.split("_", 1)[-1]
    if kind == "upcard":
        return Upcard(card)
    make = {"pass": Pass, "big_gin": BigGin}
    if kind in make:
        return make[kind](player)
    return {"take": Take, "draw": Draw, "discard": Discard, "knock": Knock}[kind](player, card)


def describe_token(token_id: int) -> str:
    """A token in words from the viewer's side: ``"other discards 7H"``, ``"own takes JK"``, ``"no event"``."""
    name, card = _kind(token_id)
    words = _WORDS[name]
    return words if card is None else f"{words} {cards.card_str(card)}"


def encode_history(events, viewer: int, length: int) -> np.ndarray:
    """The history of ``events`` (the public events of one hand, in order) as ``viewer`` sees them: an int16 array of
    ``length`` tokens, the events' from entry 0 and zeros after. What the envs return with ``information_state=True``
    (``length``: ``history_length(rules)``), for a harness that has only the public events. ``ValueError`` when there
    are more events than ``length``."""
    tokens = [token(event, viewer) for event in events]
    if len(tokens) > length:
        raise ValueError(f"{len(tokens)} events do not fit a history of length {length}")
    out = np.zeros(length, dtype=HISTORY_DTYPE)
    out[:len(tokens)] = tokens
    return out


def history_length(rules: Rules) -> int:
    """The most public events a hand under ``rules`` can have: the least of the bounds its caps give (the turn cap
    R19, the cap on takes from the pile R60). ``ValueError`` naming the rule and what to set when no cap bounds a
    hand, or when the bound passes ``MAX_HISTORY``."""
    bounds = []
    if rules.max_turns is not None:
        bounds.append((_turn_cap_bound(rules, rules.max_turns), "max_turns", "R19"))
    if rules.max_upcard_draws is not None:
        bounds.append((_draw_cap_bound(rules, rules.max_upcard_draws), "max_upcard_draws", "R60"))
    if not bounds:
        raise ValueError(f"hands under {rules.describe()} have no bound on their events (max_turns is None, R19, "
                         "and max_upcard_draws is None, R60): set max_turns for an information state")
    length, key, rule = min(bounds)
    if length > MAX_HISTORY:
        bound = _turn_cap_bound if key == "max_turns" else _draw_cap_bound
        largest = max(cap for cap in range(1, MAX_HISTORY) if bound(rules, cap) <= MAX_HISTORY)
        raise ValueError(f"{key}={getattr(rules, key)} ({rule}) lets a hand under {rules.describe()} run to {length} "
                         f"public events, past the information state's MAX_HISTORY ({MAX_HISTORY}): set {key} to "
                         f"at most {largest}")
    return length


def _turn_cap_bound(rules: Rules, max_turns: int) -> int:
    """R19: a hand ends at its ``max_turns``-th discard at the latest, and each discard follows one take or draw.
    Under the upcard deal: the upcard, two passes (R13) and ``max_turns`` turns of two events (a hand that ends
    sooner ends with at most a turn's two events: a take or draw and a knock, or a take at the wall and a knock,
    R38). Under the eleven-card deal the non-dealer's first discard follows no draw, and there is no upcard."""
    if rules.deal_mode == "eleven":
        return 2 * max_turns - 1
    return 3 + 2 * max_turns


def _draw_cap_bound(rules: Rules, max_upcard_draws: int) -> int:
    """R60: at most ``max_upcard_draws - 1`` takes from the pile in the draw phase, and at most one take of the
    upcard (R13) and one at the wall (R38); at most ``rules.deck.stock_after_deal - wall`` draws from the stock
    (R36). Each is followed by one discard, knock or big gin, and the hand may end with one event more (the take
    refused by R60, a pass at the wall); add the upcard and two passes (R13), or the non-dealer's opening discard
    under the eleven-card deal."""
    turns = (rules.deck.stock_after_deal - rules.wall) + (max_upcard_draws - 1) + 2
    return 3 + 2 * turns + 1


def _kind(token_id) -> tuple[str, int | None]:
    """The kind of a token (its layout name, a joker's token named as its card kind's) and its card, or None for a
    kind that names none."""
    if isinstance(token_id, bool) or not isinstance(token_id, (int, np.integer)):
        raise TypeError(f"a token is an integer, got {token_id!r}")
    for name, tokens in JOKER_LAYOUT.items():
        if token_id in tokens:
            if name.endswith("_joker"):
                return name.removesuffix("_joker"), cards.N_CARDS
            return name, int(token_id) - tokens.start if len(tokens) == cards.N_CARDS else None
    raise ValueError(f"token {token_id} out of range 0..{N_TOKENS + JOKER_TOKENS - 1}")


def _card(value) -> int:
    """A card of an event as its id: an id 0..51, a joker's id, or a name such as ``"TD"`` or ``"JK"``."""
    if isinstance(value, str):
        return cards.N_CARDS if value.upper() == cards.JOKER else cards.card(value)
    largest = cards.LARGEST_DECK.n_cards
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < largest:
        raise ValueError(f"a card is an id 0..{largest - 1} or a name such as 'TD' or '{cards.JOKER}', got {value!r}")
    return int(value)
