"""Rules: one frozen dataclass holding every configuration key of docs/rules.md section 10, and its presets.

Every value is validated when a ``Rules`` is built, so an impossible configuration fails at construction with the
key's name instead of producing a strange game later.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from gin_env.arguments import did_you_mean
from gin_env.game import actions
from gin_env.game.cards import (
    HAND_SIZE,
    JOKER_MIN_NATURALS,
    MAX_JOKER_VALUE,
    MAX_JOKERS,
    NO_CARD,
    STANDARD_DECK,
    STOCK_AFTER_DEAL,
    Deck,
)
from gin_env.game.hand_rules import knock, turn

SHUTOUT_MODES = ("double_game_bonus", "double_hand_points", "double_total", "none")
DEALER_ROTATIONS = ("winner", "loser", "alternate")
DEAD_HAND_DEALERS = ("same", "rotate")
FIRST_DEALERS = ("cut_low", "cut_high", "random", "P1", "P2")
DEAL_MODES = ("upcard", "eleven")
OKLAHOMA_ACES = ("gin_only", "one")
#: Table sizes of R49: two players, three (the dealer sits out), four in two teams.
PLAYER_COUNTS = (2, 3, 4)

__all__ = ["HAND_SIZE", "STOCK_AFTER_DEAL"]  # the standard deck's, from ``cards``, where older code imports them
#: The largest knock limit a ``Rules`` accepts.
MAX_KNOCK_LIMIT = 99
#: The largest bonus or target a ``Rules`` accepts. A hand pays at most 2 x (100 + a bonus), so scores, final totals
#: (bonuses doubled, a box bonus per hand won) and the batched engine's int64 sums stay far from overflow.
MAX_POINTS = 10**6
#: The largest cap (``max_turns``, ``max_dead_hands``, ``max_upcard_draws``) a ``Rules`` accepts.
MAX_CAP = 10**6
#: Keys counted in points, with their least value; each is at most ``MAX_POINTS`` (None allowed where the key may be
#: off).
POINT_KEYS = {"gin_bonus": 0, "undercut_bonus": 0, "big_gin_bonus": 0, "game_bonus": 0, "box_bonus": 0,
              "target": 1, "team_target": 1}
#: Caps that end hands or games, each 1..``MAX_CAP`` or None (off).
CAP_KEYS = ("max_turns", "max_dead_hands", "max_upcard_draws")
#: Keys that may be None.
OPTIONAL_KEYS = ("big_gin_bonus", "target", *CAP_KEYS)
#: The jokers' keys (section 17). The last two change nothing while ``jokers`` is 0, so a file of a game without
#: jokers leaves all three out (``Rules.as_dict``) and reads them back as the defaults.
JOKER_KEYS = ("jokers", "joker_value", "joker_min_naturals")


@dataclass(frozen=True)
class Rules:
    """Every rule that varies between schools of Gin Rummy (docs/rules.md section 10). Defaults are ``standard``.

    ``players`` (R49) and ``team_target`` (R57) choose the format of section 15 around the two-player hands: every
    preset is a two-player game, ``Rules.preset(name, players=3)`` plays its hands three-handed.

    ``jokers``, ``joker_value`` and ``joker_min_naturals`` (docs/rules.md section 17) add 0, 1 or 2 wild jokers to the
    deck, worth 0..50 unmelded, with 1 or 2 natural cards in every meld; they combine with every preset
    (``Rules.preset("oklahoma", jokers=2)``), and the last two change nothing while ``jokers`` is 0.

    Every number is bounded: bonuses and targets (``gin_bonus``, ``undercut_bonus``, ``big_gin_bonus``,
    ``game_bonus``, ``box_bonus``, ``target``, ``team_target``) at most ``MAX_POINTS`` (1,000,000), the caps
    ``max_turns``, ``max_dead_hands`` and ``max_upcard_draws`` at most ``MAX_CAP`` (1,000,000), ``knock_limit``
    at most 99 and ``wall`` at most 30, so that no score or total overflows the engines' 64-bit integers. A value out
    of bounds is a ``ValueError`` naming the key and its bounds."""

    knock_limit: int = 10
    gin_bonus: int = 20
    undercut_bonus: int = 10
    undercut_on_tie: bool = True
    big_gin_bonus: int | None = None
    layoffs: bool = True
    discard_taken_card: bool = False
    deal_mode: str = "upcard"
    wall: int = 2
    wall_upcard_knock: bool = False
    target: int | None = 100
    game_bonus: int = 100
    box_bonus: int = 20
    shutout: str = "double_game_bonus"
    dealer_rotation: str = "winner"
    dead_hand_dealer: str = "same"
    first_dealer: str = "cut_low"
    oklahoma: bool = False
    oklahoma_ace: str = "gin_only"
    oklahoma_spade_double: bool = False
    max_turns: int | None = 200
    max_dead_hands: int | None = 10
    max_upcard_draws: int | None = None
    repeat_discard_ends: bool = False
    jokers: int = 0
    joker_value: int = STANDARD_DECK.joker_value
    joker_min_naturals: int = JOKER_MIN_NATURALS[-1]
    players: int = 2
    team_target: int = 125
    name: str = "custom"

    def __post_init__(self) -> None:
        _check_int(self, "jokers", 0, MAX_JOKERS)
        _check_int(self, "joker_value", 0, MAX_JOKER_VALUE)
        if type(self.joker_min_naturals) is not int or self.joker_min_naturals not in JOKER_MIN_NATURALS:
            raise ValueError(f"rules key 'joker_min_naturals' must be 1 or 2 (R65), got {self.joker_min_naturals!r}")
        _check_int(self, "knock_limit", 0, MAX_KNOCK_LIMIT)
        _check_int(self, "wall", 0, self.deck.stock_after_deal - 1)
        for key, low in POINT_KEYS.items():
            if key not in OPTIONAL_KEYS or getattr(self, key) is not None:
                _check_int(self, key, low, MAX_POINTS)
        for key in CAP_KEYS:
            if getattr(self, key) is not None:
                _check_int(self, key, 1, MAX_CAP)
        if type(self.players) is not int or self.players not in PLAYER_COUNTS:
            raise ValueError(f"rules key 'players' must be one of {', '.join(map(str, PLAYER_COUNTS))} (R49), "
                             f"got {self.players!r}")
        for key in ("undercut_on_tie", "layoffs", "discard_taken_card", "wall_upcard_knock", "oklahoma",
                    "oklahoma_spade_double", "repeat_discard_ends"):
            if not isinstance(getattr(self, key), bool):
                raise ValueError(f"rules key {key!r} must be true or false, got {getattr(self, key)!r}")
        _check_choice(self, "shutout", SHUTOUT_MODES)
        _check_choice(self, "dealer_rotation", DEALER_ROTATIONS)
        _check_choice(self, "dead_hand_dealer", DEAD_HAND_DEALERS)
        _check_choice(self, "first_dealer", FIRST_DEALERS)
        _check_choice(self, "deal_mode", DEAL_MODES)
        _check_choice(self, "oklahoma_ace", OKLAHOMA_ACES)
        if self.oklahoma and self.deal_mode != "upcard":
            raise ValueError("rules key 'oklahoma' needs deal_mode='upcard': the knock limit comes from the upcard")
        if not isinstance(self.name, str):
            raise ValueError(f"rules key 'name' must be a string, got {self.name!r}")

    @classmethod
    def preset(cls, name: str, **overrides) -> Rules:
        """The named preset of docs/rules.md section 10, with optional overrides; unknown names raise ``ValueError``."""
        if name not in PRESETS:
            raise ValueError(unknown_preset(name))
        if "name" not in overrides:
            overrides["name"] = name if not overrides else f"{name}+custom"
        return dataclasses.replace(PRESETS[name], **overrides)

    def replace(self, **changes) -> Rules:
        """A copy with some keys changed (validated like any construction)."""
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict:
        """Every key and its value, as files record the rules in full; the joker keys only when jokers play, so the
        files of a game without jokers stay as they were (``JOKER_KEYS``)."""
        data = dataclasses.asdict(self)
        if not self.jokers:
            for key in JOKER_KEYS:
                del data[key]
        return data

    def describe(self) -> str:
        """The rules in words for an error message: the name and the keys that differ from ``standard``'s, e.g.
        ``rules 'custom' (deal_mode='eleven', max_turns=1)``."""
        changed = [f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self)
                   if f.name != "name" and getattr(self, f.name) != getattr(_STANDARD, f.name)]
        return f"rules {self.name!r}" + (f" ({', '.join(changed)})" if changed else "")

    @functools.cached_property
    def deck(self) -> Deck:
        """The cards these rules play with (R62: the 52 natural cards and ``jokers`` jokers of ``joker_value``),
        from which every card count and layout derives."""
        if self.jokers == 0:
            return STANDARD_DECK
        return Deck(n_jokers=self.jokers, joker_value=self.joker_value)

    @functools.cached_property
    def n_actions(self) -> int:
        """The size of the action space under these rules: 108, or 110 with jokers (``actions.n_actions``)."""
        return actions.n_actions(self)

    @functools.cached_property
    def joker_settings(self) -> tuple[int, int]:
        """(``joker_value``, ``joker_min_naturals``): what the solver reads of the rules for a holding with a
        joker (R65, R67)."""
        return self.joker_value, self.joker_min_naturals

    @functools.cached_property
    def knock_values(self) -> tuple:
        """The options ``hand_rules.knock`` reads, as its functions take them (computed once per ``Rules``)."""
        return knock.knock_values(self)

    @functools.cached_property
    def turn_values(self) -> tuple:
        """The options ``hand_rules.turn`` reads, as its functions take them (computed once per ``Rules``)."""
        return turn.turn_values(self)

    def hand_knock_limit(self, initial_upcard: int | None) -> int:
        """The knock limit L of one hand (R20, R46): ``hand_rules.knock.hand_knock_limit`` for an initial upcard
        (None for none), which must be a card id."""
        if initial_upcard is not None and not 0 <= initial_upcard < self.deck.n_cards:
            raise ValueError(f"initial upcard {initial_upcard!r} is not a card id 0..{self.deck.n_cards - 1} (None "
                             f"for no upcard)")
        return knock.hand_knock_limit(self.knock_values, NO_CARD if initial_upcard is None else initial_upcard)

    def hand_multiplier(self, initial_upcard: int | None) -> int:
        """2 when Oklahoma spade doubling applies to this hand (R47), else 1."""
        return knock.multiplier(self.knock_values, NO_CARD if initial_upcard is None else initial_upcard)

#: The formats of docs/rules.md section 15 by ``players``, as errors and reports name them.
FORMAT_NAMES = {2: "two players", 3: "three players (R50-R53)", 4: "four players in two teams (R54-R57)"}


def format_name(players: int, room: tuple[int, int] | None = None) -> str:
    """The format of a game as words: ``players`` at the table, or a room of ``room`` members per seat (R58)."""
    if room is not None:
        return f"a room of {room[0]} and {room[1]} members (R58-R59)"
    return FORMAT_NAMES.get(players, f"players={players!r}")


def _check_int(rules: Rules, key: str, low: int, high: int) -> None:
    v = getattr(rules, key)
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
        none = " or None" if key in OPTIONAL_KEYS else ""
        raise ValueError(f"rules key {key!r} must be an integer {low:,}..{high:,}{none}, got {v!r}")


def unknown_preset(name: str) -> str:
    """The error for ``name``, which is no preset: the closest preset, if one is close, and the presets."""
    return f"unknown rules preset {name!r}{did_you_mean(name, PRESETS)}; known presets: {', '.join(PRESETS)}"


def _check_choice(rules: Rules, key: str, choices: tuple[str, ...]) -> None:
    v = getattr(rules, key)
    if v not in choices:
        raise ValueError(f"rules key {key!r} must be one of {', '.join(choices)}; got {v!r}")


_STANDARD = Rules(name="standard")

PRESETS: dict[str, Rules] = {
    "standard": _STANDARD,
    "eaai": _STANDARD.replace(name="eaai", gin_bonus=25, undercut_bonus=25, game_bonus=0, box_bonus=0,
                              shutout="none", dealer_rotation="alternate", dead_hand_dealer="same",
                              first_dealer="random"),
    "oklahoma": _STANDARD.replace(name="oklahoma", oklahoma=True, oklahoma_spade_double=True, target=150),
    "foony": _STANDARD.replace(name="foony", gin_bonus=25, undercut_bonus=25, big_gin_bonus=31, game_bonus=0,
                               box_bonus=0, shutout="none", dealer_rotation="alternate",
                               dead_hand_dealer="rotate"),
    "seed-000": _STANDARD.replace(name="seed-000", gin_bonus=30, big_gin_bonus=50, game_bonus=0, box_bonus=0,
                                  shutout="none", first_dealer="cut_high"),
    "openspiel": _STANDARD.replace(name="openspiel", gin_bonus=25, undercut_bonus=25, undercut_on_tie=False,
                                   discard_taken_card=True, wall_upcard_knock=True, target=None, game_bonus=0,
                                   box_bonus=0, shutout="none", dealer_rotation="alternate",
                                   first_dealer="P2", max_upcard_draws=50, repeat_discard_ends=True),
    # R81: standard with the deck's two jokers at their default value and meld minimum.
    "jokers": _STANDARD.replace(name="jokers", jokers=2, joker_value=STANDARD_DECK.joker_value,
                                joker_min_naturals=JOKER_MIN_NATURALS[-1]),
}
