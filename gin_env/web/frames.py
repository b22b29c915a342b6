"""What a client frame of the web app may say, checked before anything acts on it, and how fast frames may come.

This module owns the client half of the protocol that :mod:`gin_env.web.app`'s docstring lays out: each frame type's
keys and the check of each value (:data:`SCHEMAS`, :func:`check_frame`), the limits on a frame's size and on a
connection's rate (:class:`TokenBucket`), and the error frame (:func:`error`). It imports no web package, so that
it is tested without the ``web`` extra.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection

from gin_env.game.rules import Rules
from gin_env.text import printable, quoted

#: The largest client frame, in bytes of UTF-8: every frame of the protocol fits in a few hundred.
MAX_FRAME_BYTES = 4096
#: Client frames a connection may send a second, on average, and in one burst.
RATE, BURST = 20.0, 40
#: Frames refused for the rate after which a connection is closed as a flood.
MAX_REFUSED = 100
#: The longest name a person may give.
MAX_NAME = 32
#: The formats a game may have, by players.
FORMATS = (2, 3, 4)
EPISODES = ("hand", "match")
#: How a person joins a room: taking turns in a seat, or watching.
ROLES = ("player", "spectator")
#: The longest room id, invite or seat token a frame may carry (``secrets.token_urlsafe`` text is shorter).
MAX_SECRET = 64
#: The characters of ``secrets.token_urlsafe`` text.
SECRET_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

#: The names a server offers, by what they name (:func:`offer`).
Offer = dict[str, tuple]


class FrameError(ValueError):
    """A client frame the protocol refuses; the message is the error frame's."""


def error(message: str) -> dict:
    """The error frame: its message is text the page shows as text."""
    return {"type": "error", "message": printable(message)}


class TokenBucket:
    """The rate limit of one connection: ``rate`` frames a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens, self.last = float(burst), clock()

    def take(self) -> bool:
        """Spend a token for one frame; False when none is left."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def offer(agents: Collection[str], presets: Collection[str]) -> Offer:
    """What a server offers, as the checks read it: the agents' and presets' names, the formats and episodes."""
    return {"agents": tuple(agents), "presets": tuple(presets), "episodes": EPISODES, "roles": ROLES}


def _text_in(options: str, what: str):
    """The check of a name that must be one of ``offer[options]``."""
    def check(value, offer: Offer):
        offered = offer[options]
        if not isinstance(value, str) or value not in offered:
            raise FrameError(f"{what} {quoted(value)} is not offered here; offered: {', '.join(map(str, offered))}")
    return check


def _integer(low: int, high: int | None = None):
    def check(value, offer: Offer):
        if type(value) is not int or value < low or (high is not None and value > high):
            raise FrameError(f"expected an integer {low}..{'' if high is None else high}, got {quoted(value)}")
    return check


def _flag(value, offer: Offer) -> None:
    if type(value) is not bool:
        raise FrameError(f"expected true or false, got {quoted(value)}")


def _text(value, offer: Offer) -> None:
    if not isinstance(value, str):
        raise FrameError(f"expected text, got {quoted(value)}")


def _person(value, offer: Offer) -> None:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME or printable(value) != value:
        raise FrameError(f"a name is 1..{MAX_NAME} characters of visible text, got {quoted(value)}")


def _secret(value, offer: Offer) -> None:
    """A room id, invite or token: URL-safe text, never echoed back (it may be someone's secret mistyped)."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_SECRET or not SECRET_CHARS.issuperset(value):
        raise FrameError(f"expected URL-safe text of 1..{MAX_SECRET} characters, as the server gave it")


_agent = _text_in("agents", "agent")


def _lineup(value, offer: Offer) -> None:
    if not isinstance(value, list) or not min(FORMATS) <= len(value) <= max(FORMATS):
        raise FrameError(f"agents is a list of {min(FORMATS)}..{max(FORMATS)} offered agents, one per seat, got "
                         f"{quoted(value)}")
    for name in value:
        _agent(name, offer)


_GAME = {"rules": _text_in("presets", "rules preset"),
         "players": _integer(min(FORMATS), max(FORMATS)),
         "episode": _text_in("episodes", "episode")}
#: Each client frame type -> (its required keys' checks, its optional keys' checks), ``type`` aside.
SCHEMAS: dict[str, tuple[dict, dict]] = {
    "catalog": ({}, {}),
    "play": ({"agent": _agent, **_GAME}, {"name": _person}),
    "act": ({"action": _integer(0)}, {}),
    "next": ({}, {}),
    "hint": ({"search": _flag}, {}),
    "watch": ({"agents": _lineup, **_GAME}, {}),
    "advance": ({}, {}),
    "replays": ({}, {}),
    "replay": ({"name": _text}, {}),
    "advice": ({"step": _integer(0)}, {}),
    "create_room": ({"bot": _agent, **_GAME, "name": _person}, {}),
    "join_room": ({"room": _secret, "invite": _secret, "name": _person, "role": _text_in("roles", "role")},
                  {"seat": _integer(0, max(FORMATS) - 1)}),
    "rejoin": ({"room": _secret, "token": _secret}, {}),
    "start": ({}, {}),
    "leave": ({}, {}),
}


def rules_of(frame: dict) -> Rules:
    """A checked frame's rules preset for its players; :class:`FrameError` when the preset has no such format."""
    rules = Rules.preset(frame["rules"])
    try:
        return rules.replace(players=frame["players"]) if frame["players"] != rules.players else rules
    except ValueError as err:
        raise FrameError(f"{frame['rules']} with {frame['players']} players: {err}") from None


def check_frame(data: str | bytes | None, offer: Offer) -> dict:
    """The client frame ``data`` (a websocket message's text; bytes are refused) as a checked dict: JSON text of at
    most :data:`MAX_FRAME_BYTES`, an object whose ``type`` is one of :data:`SCHEMAS` with exactly its keys, each
    value of the right type and, for names, one of ``offer``'s (:func:`offer`). :class:`FrameError` naming the
    problem."""
    if not isinstance(data, str):
        raise FrameError("frames are JSON text, not binary")
    if len(data.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES:
        raise FrameError(f"frame over {MAX_FRAME_BYTES} bytes")
    try:
        frame = json.loads(data)
    except (ValueError, RecursionError):
        raise FrameError("a frame is a JSON object; this is not JSON") from None
    if not isinstance(frame, dict):
        raise FrameError(f"a frame is a JSON object with a type, got a {type(frame).__name__}")
    kind = frame.get("type")
    if not isinstance(kind, str) or kind not in SCHEMAS:
        raise FrameError(f"unknown frame type {quoted(kind)}; known: {', '.join(SCHEMAS)}")
    required, optional = SCHEMAS[kind]
    missing = [k for k in required if k not in frame]
    extra = [k for k in frame if k != "type" and k not in required and k not in optional]
    if missing or extra:
        raise FrameError(f"a {kind} frame holds {', '.join(['type', *required]) or 'type'}"
                         f"{' and optionally ' + ', '.join(optional) if optional else ''}: "
                         f"{'missing ' + ', '.join(missing) if missing else 'extra ' + ', '.join(map(quoted, extra))}")
    for key, value in frame.items():
        if key != "type":
            try:
                {**required, **optional}[key](value, offer)
            except FrameError as err:
                raise FrameError(f"{kind} {key}: {err}") from None
    return frame


