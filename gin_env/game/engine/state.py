"""The types of one hand (docs/rules.md R10-R39): :class:`HandState`, every fact of a hand in frozen fields, and
:class:`HandOutcome`, how it ended; and the fast constructor the engine's steps build states with (``_new_state``
and ``_pair``, private to the engine package). The phase ids, and the rules that move a state from phase to phase,
are ``hand_rules.phases``'; ``hand`` applies them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from gin_env.game.cards import NO_CARD
from gin_env.game.hand_rules.phases import DISCARD, DRAW, OFFER, OVER, PHASE_NAMES, WALL  # noqa: F401 - re-exported
from gin_env.game.rules import Rules


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """How a hand ended and who scores what (R30-R35, R37, R47). ``capped`` marks a dead hand ended by the turn cap
    (R19) rather than by the wall (R37, R38)."""

    kind: str
    winner: int | None
    points: int
    knocker: int | None
    knock_card: int
    knocker_deadwood: int | None
    defender_deadwood: int | None
    layoffs: tuple[int, ...]
    knocker_melds: tuple[tuple[int, ...], ...]
    capped: bool = False
    #: The cards laid off on each of ``knocker_melds`` (R27), in the same order; () when nobody knocked.
    layoff_melds: tuple[tuple[int, ...], ...] = ()

    def player_points(self, player: int) -> int:
        """Signed, zero-sum hand points of ``player``: +points for the winner, -points for the other."""
        if self.winner is None:
            return 0
        return self.points if player == self.winner else -self.points


DEAD_OUTCOME = HandOutcome(kind="dead", winner=None, points=0, knocker=None, knock_card=NO_CARD,
                           knocker_deadwood=None, defender_deadwood=None, layoffs=(), knocker_melds=())
#: A dead hand ended by the turn cap (R19).
CAPPED_OUTCOME = dataclasses.replace(DEAD_OUTCOME, capped=True)



@dataclass(frozen=True, slots=True)
class HandState:
    """Everything about one hand. ``known``, ``discarded`` and ``declined`` are public per-player bitmasks:
    cards taken from the pile and still held, cards discarded face up, and face-up cards left on the pile
    (upcards passed in the offer, top discards left when drawing from the stock). ``upcard_draws`` counts the
    draw-phase takes from the pile (R60); ``returns`` the discards in a row that put back the card just taken from
    the pile (R61)."""

    rules: Rules
    deck: tuple[int, ...]
    hands: tuple[int, int]
    stock_top: int
    pile: tuple[int, ...]
    dealer: int
    current: int
    phase: int
    taken: int
    both_passed: bool
    must_knock: bool
    initial_upcard: int
    knock_limit: int
    turns: int
    known: tuple[int, int]
    discarded: tuple[int, int]
    declined: tuple[int, int]
    outcome: HandOutcome | None
    upcard_draws: int = 0
    returns: int = 0


def _draft_class() -> type:
    """A mutable twin of :class:`HandState`: the same fields in the same slots, set by a plain ``__init__``."""
    fields = dataclasses.fields(HandState)
    namespace = {"__annotations__": {f.name: f.type for f in fields},
                 **{f.name: f.default for f in fields if f.default is not dataclasses.MISSING}}
    draft = dataclass(slots=True)(type("_HandStateDraft", (), namespace))
    assert draft.__slots__ == HandState.__slots__
    return draft


_DRAFT = _draft_class()


def _new_state(*fields) -> HandState:
    """``HandState(*fields)`` at about a quarter of the cost, for the steps that run on every action. The frozen
    ``__init__`` sets each of the 20 fields through ``object.__setattr__``; here they are stored plainly into the
    twin, which then takes HandState's class (the slots are the same, so Python allows the switch). The result is
    an ordinary, frozen HandState."""
    state = _DRAFT(*fields)
    state.__class__ = HandState
    return state


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this state (R18). The message names the action, the phase and
    the legal actions."""


def _pair(pair: tuple[int, int], player: int, value: int) -> tuple[int, int]:
    """``pair`` with the entry of ``player`` replaced."""
    return (value, pair[1]) if player == 0 else (pair[0], value)


def stock_size(state: HandState) -> int:
    """Cards left in the stock."""
    return len(state.deck) - state.stock_top


def upcard_or_none(state: HandState) -> int | None:
    """The hand's initial upcard, None when it was dealt without one (R12)."""
    return state.initial_upcard if state.initial_upcard != NO_CARD else None
