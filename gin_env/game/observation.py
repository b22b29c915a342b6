"""What one player may know about a hand, and its flat float32 encoding.

This module owns the information boundary of the game: :func:`view` reads only the public fields of an engine
state (the pile, the public per-player records, the stock size) plus the viewer's own hand, never the opponent's
hidden cards or the stock order. Heuristic agents read the structured :class:`PlayerView`; learners read
:func:`encode` of the same view, so the two can never disagree about what a player knows.

The encoding is one flat ``float32`` vector described by ``OBS_LAYOUT`` (name -> slice):

=====================  ====  ============================================================================
name                   size  meaning
=====================  ====  ============================================================================
``hand``                 52  own cards
``top_discard``          52  the top card of the discard pile (all zero when the pile is empty)
``pile_rest``            52  the other cards of the discard pile
``opponent_known``       52  cards the opponent took from the pile and still holds
``opponent_discards``    52  cards the opponent discarded this hand
``opponent_declined``    52  upcards the opponent passed and top discards it left when drawing the stock
``unseen``               52  cards in no place this player can see: the stock or the opponent's hidden cards
``phase``                 5  one-hot: offer, draw, discard, wall, over
``is_dealer``             1  1 when this player dealt the hand
``stock_size``            1  cards left in the stock / 31
``knock_limit``           1  knock limit of this hand / 10 (R20, R46)
``deadwood``              1  own deadwood / 100: of the 10 cards held, or the least over legal discards of 11
``scores``                2  own and opponent's running match score / target, capped at 1 (0 outside a match)
=====================  ====  ============================================================================

A card plane uses the card ids of ``cards.py`` (``suit * 13 + rank``), so ``plane.reshape(4, 13)`` is the suit x
rank grid. ``encode(view, match_record=True)`` appends the view's match record (``match_record``), 6 more entries
laid out by ``RECORD_OBS_LAYOUT``: what the envs give with ``match_record=True``.

With jokers (R62, R72) the planes hold the natural cards and ``jokers`` follows everything above: the counts of
``JOKER_COUNTS`` over the deck's jokers, so the standard layout is a prefix of every layout. Which joker is which is
never information: a view names the jokers of each place by count, the lowest ids first (``jokers_by_count``), and
its records of the opponent's discards and declined cards hold the lowest ids, one per joker seen. The scales stay
the standard deck's, so an entry means the same in every game: the stock entry can reach 33 / 31 and the deadwood
entry 120 / 100 (``obs_bounds``).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
from numba import njit

from gin_env.game import cards, engine
from gin_env.game.actions import MAX_ACTIONS, N_ACTIONS
from gin_env.game.cards import NO_CARD
from gin_env.game.hand_rules.taken_card import kept_card
from gin_env.game.match_record import EMPTY_RECORD, RECORD_SIZE, encode_record, seen_by
from gin_env.game.rules import MAX_KNOCK_LIMIT, Rules
from gin_env.game.solver.kernels import deadwood_of_mask, discard_phase_of_mask

N_PHASES = len(engine.PHASE_NAMES)
#: The 52-card planes, in layout order.
PLANES = ("hand", "top_discard", "pile_rest", "opponent_known", "opponent_discards", "opponent_declined", "unseen")
#: Scale of the knock-limit entry: the usual limit of 10 encodes as 1.
KNOCK_LIMIT_SCALE = 10
#: Scale of the deadwood entry: the most deadwood a hand of the standard deck holds (ten tens, 100).
DEADWOOD_SCALE = cards.STANDARD_DECK.max_deadwood
#: Scale of the stock entry: the stock after the deal (31 in the standard deck).
STOCK_SCALE = cards.STOCK_AFTER_DEAL
#: The joker counts of R72, in layout order (``jokers``): held, the top discard, below it in the pile, known in the
#: opponent's hand (taken from the pile, less jokers it discarded since), the opponent's discards this hand, the
#: upcards and discards it declined, and the unseen ones; each over the deck's jokers.
JOKER_COUNTS = ("hand", "top_discard", "pile_rest", "opponent_known", "opponent_discards", "opponent_declined",
                "unseen")
#: The places that hold each joker, in the order ``jokers_by_count`` gives them ids.
JOKER_PLACES = ("hand", "top_discard", "pile_rest", "opponent_known", "unseen")


def consecutive(sizes: list[tuple[str, int]], span=slice) -> dict:
    """Each name of ``sizes`` (name, size) with its span, laid end to end from 0 in order: ``span(start, stop)``
    (a ``slice`` by default; ``range`` for a layout of ids)."""
    layout, start = {}, 0
    for name, size in sizes:
        layout[name] = span(start, start + size)
        start += size
    return layout


#: What a training critic may read beyond any view, card planes after the observation (``gin-env train
#: --privileged-critic``): the opponent's hidden hand, and the stock in the order it will be drawn (the next card 1,
#: each one after it ``STOCK_DEPTH_DECAY`` times the one before). No view holds them, and no actor reads them
#: (``agents.networks.CardFeatures``).
PRIVILEGED_PLANES = ("opponent_hand", "stock_order")
STOCK_DEPTH_DECAY = 0.8


def obs_layout(rules: Rules | None = None, *, match_record: bool = False, privileged: bool = False
               ) -> dict[str, slice]:
    """Where each part of the observation lies (name -> slice) under ``rules`` (None: the standard deck's) and the
    env's flags: a card plane per natural card of ``rules.deck`` for each of ``PLANES``, the phase and the scalars;
    with ``match_record`` the match record (``record``) after them; with ``privileged`` what no player sees (a
    privileged critic's training env) last. Every layout starts with the standard one, ``OBS_LAYOUT``."""
    return dict(_layout(rules.deck if rules is not None else cards.STANDARD_DECK, match_record, privileged))


@functools.lru_cache(maxsize=64)
def _layout(deck: cards.Deck, match_record: bool, privileged: bool) -> tuple[tuple[str, slice], ...]:
    sizes = [(name, deck.n_naturals) for name in PLANES]
    sizes += [("phase", N_PHASES), ("is_dealer", 1), ("stock_size", 1), ("knock_limit", 1), ("deadwood", 1),
              ("scores", 2)]
    if match_record:
        sizes.append(("record", RECORD_SIZE))
    if deck.n_jokers:
        sizes.append(("jokers", len(JOKER_COUNTS)))
    if privileged:
        sizes += [(name, deck.n_naturals) for name in PRIVILEGED_PLANES]
    return tuple(consecutive(sizes).items())


@functools.lru_cache(maxsize=64)
def encoding_spans(deck: cards.Deck, match_record: bool) -> tuple[int, int]:
    """The entries of a view's encoding under ``deck`` and where its joker counts start (0 without jokers)."""
    layout = dict(_layout(deck, match_record, False))
    return max(span.stop for span in layout.values()), layout["jokers"].start if "jokers" in layout else 0


OBS_LAYOUT: dict[str, slice] = obs_layout()
OBS_SIZE = OBS_LAYOUT["scores"].stop
#: Entries up to here are 0/1 flags (the planes, the phase one-hot and the dealer flag); the scalars follow.
N_BIT_ENTRIES = OBS_LAYOUT["is_dealer"].stop
_PHASE_AT = OBS_LAYOUT["phase"].start
_DEALER_AT = OBS_LAYOUT["is_dealer"].start
_STOCK_AT = OBS_LAYOUT["stock_size"].start
_KNOCK_LIMIT_AT = OBS_LAYOUT["knock_limit"].start
_DEADWOOD_AT = OBS_LAYOUT["deadwood"].start
_SCORES_AT = OBS_LAYOUT["scores"].start
#: ``write_encoding`` relies on this order: the planes end to end from entry 0, then the phase, the dealer flag and
#: the scalars, each right after the other.
assert [OBS_LAYOUT[name].start for name in PLANES] == list(range(0, len(PLANES) * cards.N_CARDS, cards.N_CARDS))
assert _PHASE_AT == len(PLANES) * cards.N_CARDS and _DEALER_AT - _PHASE_AT >= 4
assert _STOCK_AT == _DEALER_AT + 1 and _KNOCK_LIMIT_AT == _STOCK_AT + 1 and _DEADWOOD_AT == _KNOCK_LIMIT_AT + 1
assert _SCORES_AT == _DEADWOOD_AT + 1
#: _BYTE_ENTRIES[b]: the 8 bits of byte b, least significant first, as float32 entries.
_BYTE_ENTRIES = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float32)
_BYTE = np.uint64(0xFF)
_JOKER_SHIFT = np.uint64(cards.N_CARDS)
_ONE = np.uint64(1)
assert cards.MAX_JOKERS == 2, "_jokers_in counts two joker bits"

#: The observation with the match record appended (``match_record=True`` in the envs, ``match_record``): each of
#: ``RECORD_KINDS`` counted for the viewer, then for its opponent, over ``RECORD_SCALE`` and capped at 1.
RECORD_OBS_LAYOUT: dict[str, slice] = obs_layout(match_record=True)
RECORD_OBS_SIZE = RECORD_OBS_LAYOUT["record"].stop
PRIVILEGED_SIZE = len(PRIVILEGED_PLANES) * cards.N_CARDS


def obs_size(match_record: bool = False, privileged: bool = False, rules: Rules | None = None) -> int:
    """The entries of the observation ``obs_layout`` lays out for these flags and rules: ``OBS_SIZE``, or
    ``RECORD_OBS_SIZE`` with the match record, and ``PRIVILEGED_SIZE`` more with what no player sees."""
    deck = rules.deck if rules is not None else cards.STANDARD_DECK
    return _layout(deck, bool(match_record), bool(privileged))[-1][1].stop


def observation_parts(size: int, rules: Rules | None = None) -> tuple[bool, bool]:
    """``(match_record, privileged)``: the flags whose layout under ``rules`` has ``size`` entries, for a file that
    records only its observation's width (a saved network); ``ValueError`` for a width no layout has, or that two
    layouts share (then the width cannot tell them apart and the file must say which)."""
    found = [(record, privileged) for record in (False, True) for privileged in (False, True)
             if obs_size(record, privileged, rules) == size]
    if len(found) == 1:
        return found[0]
    if found:
        raise ValueError(f"an observation of {size} entries could be any of {found} (match_record, privileged)")
    raise ValueError(f"no observation has {size} entries: the view has {obs_size(rules=rules)} "
                     f"({obs_size(True, rules=rules)} with the match record), {PRIVILEGED_SIZE} more with what no "
                     f"player sees")


def obs_bounds(match_record: bool = False, privileged: bool = False, rules: Rules | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """The low and high bounds of every entry of the observation ``obs_layout`` lays out for these flags and rules:
    0 and 1, but for the knock limit's (``MAX_KNOCK_LIMIT`` over its scale) and, with jokers, the stock's and the
    deadwood's (the deck's largest over the standard scales)."""
    deck = rules.deck if rules is not None else cards.STANDARD_DECK
    size = obs_size(match_record, privileged, rules)
    high = np.ones(size, dtype=np.float32)
    high[OBS_LAYOUT["knock_limit"]] = MAX_KNOCK_LIMIT / KNOCK_LIMIT_SCALE
    high[OBS_LAYOUT["stock_size"]] = deck.stock_after_deal / STOCK_SCALE
    high[OBS_LAYOUT["deadwood"]] = deck.max_deadwood / DEADWOOD_SCALE
    return np.zeros(size, dtype=np.float32), high


#: The bounds of the standard observation (``OBS_SIZE`` entries), for its observation space.
OBS_LOW, OBS_HIGH = obs_bounds()

#: The legal mask of a view with no decision, by the number of actions (108, 110 with jokers): read-only, shared.
_NO_ACTIONS = {n: np.zeros(n, dtype=bool) for n in (N_ACTIONS, MAX_ACTIONS)}
for _mask in _NO_ACTIONS.values():
    _mask.flags.writeable = False


class PlayerView(NamedTuple):
    """Everything ``player`` may know at one moment of a hand, as an immutable record. Card sets are int bitmasks
    (``cards.to_ids``); cards are ids or -1 (``top_discard``, ``taken``, ``initial_upcard`` when there is none).

    ``legal_mask`` is the player's own legal actions: all False when it is not this player's turn or the hand is
    over. ``scores`` is (own, opponent) running match score; ``target`` the match target (None: single hands);
    ``record`` how each player ended the match's earlier hands, own counts first (``match_record``; all 0 outside a
    match).
    ``taken`` is the card this player took from the pile this turn (R16), ``initial_upcard`` the hand's first
    upcard (R12, R46).

    A NamedTuple rather than a frozen dataclass because a view is built for every decision of every player: it is
    built six times faster, which is a tenth of the engine's throughput with observations."""

    rules: Rules
    player: int
    phase: int
    hand: int
    top_discard: int
    pile_rest: int
    opponent_known: int
    opponent_discards: int
    opponent_declined: int
    unseen: int
    stock_size: int
    knock_limit: int
    deadwood: int
    taken: int
    is_dealer: bool
    initial_upcard: int
    scores: tuple[int, int]
    target: int | None
    legal_mask: np.ndarray
    record: tuple[int, ...] = EMPTY_RECORD

    def __eq__(self, other: object) -> bool:
        """Field by field, the legal mask by value (tuple equality cannot compare arrays)."""
        if not isinstance(other, PlayerView):
            return NotImplemented
        return all(np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b for a, b in zip(self, other))

    def __ne__(self, other: object) -> bool:
        # tuple defines its own __ne__, which would compare the masks element-wise; keep it the negation of __eq__.
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # the mask is a mutable array

    @property
    def to_act(self) -> bool:
        """True when this player has a decision to make now."""
        return bool(self.legal_mask.any())

    @property
    def legal_actions(self) -> list[int]:
        """The legal action ids, ascending."""
        return np.flatnonzero(self.legal_mask).tolist()


def own_deadwood(state: engine.HandState, player: int) -> int:
    """The player's deadwood now: exact DW of 10 cards (R7), or of 11 cards the least DW over the cards this
    player may discard (R8, R16), since an 11-card holding must shed one card before it is ever scored."""
    hand = state.hands[player]
    if hand.bit_count() <= state.rules.deck.hand_size:
        return deadwood_of_mask(hand, *state.rules.joker_settings)
    taken = state.taken if player == state.current else NO_CARD
    return discard_phase_of_mask(hand, kept_card(state.rules.discard_taken_card, taken), state.knock_limit,
                                 *state.rules.joker_settings)[0]


def view(state: engine.HandState, player: int, scores: tuple[int, int] = (0, 0),
         record: tuple[int, ...] = EMPTY_RECORD) -> PlayerView:
    """The view of ``player`` (0 or 1) of ``state``. ``scores`` are the match scores indexed by player, ``record``
    the match record with player 0's counts first (``match_record``).

    Reads the viewer's own hand and the public fields only; the opponent's hand and the stock order are never
    touched, so two states that differ only there give equal views."""
    opponent = 1 - player
    pile = state.pile
    top = pile[-1] if pile else engine.NO_CARD
    top_bit = 1 << top if pile else 0
    known = state.known
    # The pile without walking it: every card that lay face up (the upcard, and discards) and is in no hand's
    # "taken from the pile" record is still in the pile; a knock card (never "discarded") can only be the top.
    upcard = state.initial_upcard
    face_up = state.discarded[0] | state.discarded[1] | (1 << upcard if upcard != engine.NO_CARD else 0)
    pile_rest = face_up & ~(known[0] | known[1]) & ~top_bit
    hand = state.hands[player]
    opponent_known = known[opponent]
    to_act = player == state.current and state.phase != engine.OVER
    v = PlayerView(
        state.rules, player, state.phase, hand, top, pile_rest, opponent_known, state.discarded[opponent],
        state.declined[opponent], cards.FULL_DECK & ~(hand | pile_rest | opponent_known | top_bit),
        engine.stock_size(state), state.knock_limit, own_deadwood(state, player),
        state.taken if player == state.current else engine.NO_CARD, player == state.dealer, upcard,
        (scores[player], scores[opponent]), state.rules.target,
        engine.legal_mask(state) if to_act else _NO_ACTIONS[state.rules.n_actions], seen_by(record, player))
    return _jokers_named_by_count(v, state) if state.rules.jokers else v


def jokers_by_count(counts):
    """The joker bits of ``JOKER_PLACES``, given how many jokers each holds (ints, or numpy arrays of uint64 for many
    views at once): the lowest ids to the first place, the next to the second, and so on (R72)."""
    bits, first = [], 0
    for n in counts:
        bits.append(((1 << n) - 1) << (cards.N_CARDS + first))
        first = first + n
    return bits


def _jokers_named_by_count(v: PlayerView, state: engine.HandState) -> PlayerView:
    """``v`` with its jokers renamed as ``jokers_by_count`` names them, so that no field tells which joker is
    which (R72). ``v``'s records of the opponent's discards and declined cards count jokers already (the engine
    keeps them so); its pile and unseen planes arrive without jokers, which the public pile gives."""
    jokers = state.rules.deck.joker_mask
    held = (v.hand & jokers).bit_count()
    on_top = int(v.top_discard >= cards.N_CARDS)
    below = sum(card >= cards.N_CARDS for card in state.pile[:-1])
    known = (v.opponent_known & jokers).bit_count()
    naturals = cards.FULL_DECK
    hand, top, pile_rest, opponent_known, unseen = jokers_by_count(
        (held, on_top, below, known, state.rules.jokers - held - on_top - below - known))
    return v._replace(
        hand=v.hand & naturals | hand, top_discard=top.bit_length() - 1 if on_top else v.top_discard,
        pile_rest=v.pile_rest & naturals | pile_rest, opponent_known=v.opponent_known & naturals | opponent_known,
        unseen=v.unseen | unseen, taken=cards.public_id(v.taken), initial_upcard=cards.public_id(v.initial_upcard))


def encode(v: PlayerView, match_record: bool = False) -> np.ndarray:
    """The flat float32 encoding of a view as ``obs_layout`` lays it out for its rules (``OBS_LAYOUT`` for the
    standard deck), the match record after the scalars with ``match_record``, and the joker counts last."""
    deck = v.rules.deck
    size, jokers_at = encoding_spans(deck, bool(match_record))
    out = np.empty(size, dtype=np.float32)
    top = 1 << v.top_discard if v.top_discard != engine.NO_CARD else 0
    target = v.target
    own, opp = (min(v.scores[0] / target, 1.0), min(v.scores[1] / target, 1.0)) if target else (0.0, 0.0)
    _encode_view(out, v.hand, top, v.pile_rest, v.opponent_known, v.opponent_discards, v.opponent_declined,
                 v.unseen, v.phase, v.is_dealer, v.stock_size, v.knock_limit, v.deadwood, own, opp, jokers_at,
                 deck.n_jokers)
    if match_record:
        out[OBS_SIZE:RECORD_OBS_SIZE] = encode_record(v.record)
    return out


@njit(cache=True)
def _encode_view(out, hand, top, pile_rest, opponent_known, opponent_discards, opponent_declined, unseen, phase,
                 is_dealer, stock_size, knock_limit, deadwood, own_score, opponent_score, jokers_at, n_jokers):
    """``write_encoding`` from Python: card masks come as ints, each below 2**54."""
    write_encoding(out, np.uint64(hand), np.uint64(top), np.uint64(pile_rest), np.uint64(opponent_known),
                   np.uint64(opponent_discards), np.uint64(opponent_declined), np.uint64(unseen), phase, is_dealer,
                   stock_size, knock_limit, deadwood, own_score, opponent_score, jokers_at, n_jokers)


@njit(cache=True, inline="always")
def write_encoding(out, hand, top, pile_rest, opponent_known, opponent_discards, opponent_declined, unseen, phase,
                   is_dealer, stock_size, knock_limit, deadwood, own_score, opponent_score, jokers_at, n_jokers):
    """Write one observation into the float32 row ``out``, entry for entry as ``obs_layout`` lays it out: the planes
    from uint64 card masks (``top``: the top discard's bit, 0 for none), then the phase one-hot, the dealer flag and
    the scalars (``own_score``, ``opponent_score``: already over the target, capped at 1); with ``n_jokers`` the
    counts of the masks' jokers over ``n_jokers`` from entry ``jokers_at`` (``JOKER_COUNTS``; the unseen mask holds
    the unseen jokers). The one encoder of both the scalar and the batched observation."""
    _plane(out, 0 * cards.N_CARDS, hand)
    _plane(out, 1 * cards.N_CARDS, top)
    _plane(out, 2 * cards.N_CARDS, pile_rest)
    _plane(out, 3 * cards.N_CARDS, opponent_known)
    _plane(out, 4 * cards.N_CARDS, opponent_discards)
    _plane(out, 5 * cards.N_CARDS, opponent_declined)
    _plane(out, 6 * cards.N_CARDS, unseen)
    for j in range(_PHASE_AT, _DEALER_AT):
        out[j] = 0.0
    out[_PHASE_AT + phase] = 1.0
    out[_DEALER_AT] = 1.0 if is_dealer else 0.0
    out[_STOCK_AT] = stock_size / STOCK_SCALE
    out[_KNOCK_LIMIT_AT] = knock_limit / KNOCK_LIMIT_SCALE
    out[_DEADWOOD_AT] = deadwood / DEADWOOD_SCALE
    out[_SCORES_AT] = own_score
    out[_SCORES_AT + 1] = opponent_score
    if n_jokers:
        out[jokers_at] = _jokers_in(hand) / n_jokers
        out[jokers_at + 1] = _jokers_in(top) / n_jokers
        out[jokers_at + 2] = _jokers_in(pile_rest) / n_jokers
        out[jokers_at + 3] = _jokers_in(opponent_known) / n_jokers
        out[jokers_at + 4] = _jokers_in(opponent_discards) / n_jokers
        out[jokers_at + 5] = _jokers_in(opponent_declined) / n_jokers
        out[jokers_at + 6] = _jokers_in(unseen) / n_jokers


@njit(cache=True, inline="always")
def _jokers_in(mask):
    """The jokers of a uint64 card mask (their bits follow the natural cards', R62; a deck has at most two)."""
    jokers = mask >> _JOKER_SHIFT
    return (jokers & _ONE) + ((jokers >> _ONE) & _ONE)


@njit(cache=True, inline="always")
def _plane(out, start, mask):
    """Write the 52 bits of ``mask`` from ``out[start]``, a byte (8 entries) at a time. The last byte writes 4
    entries past the plane, which the caller overwrites next: planes go in layout order, then the phase entries."""
    for byte in range(0, cards.N_CARDS, 8):
        entries = _BYTE_ENTRIES[(mask >> np.uint64(byte)) & _BYTE]
        for j in range(8):
            out[start + byte + j] = entries[j]
