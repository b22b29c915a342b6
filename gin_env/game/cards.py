"""Card ids, strings, values and the conversions between hand representations.

A card is an int ``suit * 13 + rank`` with suits ordered S, H, D, C and ranks A=0 .. K=12 (docs/rules.md R1-R3).
A hand is held in one of three forms, and this module owns the conversions between them:

* a list of card ids (``[0, 1, 2]``),
* a Python int bitmask with bit ``card`` set for each card held,
* in batch code, an ``(N, 52)`` bool array, or an ``(N,)`` uint64 array of card masks; the batched solver
  works on a packed uint64 form with each suit in its own 16-bit lane (``pack_masks``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

RANKS = "A23456789TJQK"
SUITS = "SHDC"
#: How a joker is written; a card list names the first joker ``JK`` with the lower id.
JOKER = "JK"
#: The most jokers a deck may hold, and the largest deadwood value a joker may have.
MAX_JOKERS = 2
MAX_JOKER_VALUE = 50
#: The natural cards a meld must hold when jokers play (R65): one, or two (the default, last).
JOKER_MIN_NATURALS = (1, 2)
#: Deadwood value of a natural card of each rank (R3): A=1, 2-10 pip value, J/Q/K=10.
RANK_VALUES = tuple(min(r + 1, 10) for r in range(len(RANKS)))


@dataclass(frozen=True)
class Deck:
    """The cards of one game, from which every card count, id, layout and bound in gin-env derives.

    Natural cards are ``suit * n_ranks + rank`` (R1-R3), ids ``0 .. n_naturals - 1``; the jokers follow them,
    so the natural ids, the action ids and the observation's layout of the standard deck are a prefix of any deck's.
    ``hand_size`` cards go to each player (R10), one more is the upcard, the rest is the stock. The engines are
    compiled for the 4 suits of 13 ranks of the French deck, so those two are fixed; ``n_jokers`` is 0, 1 or 2 and
    ``joker_value`` (0..50) is a joker's deadwood value when it has any."""

    n_suits: int = len(SUITS)
    n_ranks: int = len(RANKS)
    n_jokers: int = 0
    joker_value: int = 20
    hand_size: int = 10

    def __post_init__(self) -> None:
        if (self.n_suits, self.n_ranks) != (len(SUITS), len(RANKS)):
            raise ValueError(f"a deck has {len(SUITS)} suits of {len(RANKS)} ranks (the engines are compiled for "
                             f"them), got {self.n_suits} suits of {self.n_ranks} ranks")
        for key, low, high in (("n_jokers", 0, MAX_JOKERS), ("joker_value", 0, MAX_JOKER_VALUE),
                               ("hand_size", 1, (self.n_naturals - 1) // 2)):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise ValueError(f"deck key {key!r} must be an integer {low}..{high}, got {v!r}")

    @property
    def n_naturals(self) -> int:
        """The natural cards: one of each rank in each suit."""
        return self.n_suits * self.n_ranks

    @property
    def n_cards(self) -> int:
        """Every card of the deck, jokers included (52, 53 or 54)."""
        return self.n_naturals + self.n_jokers

    @property
    def joker_ids(self) -> range:
        """The jokers' card ids, after the natural cards'."""
        return range(self.n_naturals, self.n_cards)

    @property
    def full_mask(self) -> int:
        """The card mask holding every card of the deck."""
        return (1 << self.n_cards) - 1

    @functools.cached_property
    def joker_mask(self) -> int:
        """The card mask holding the deck's jokers (0 without any)."""
        return self.full_mask & ~((1 << self.n_naturals) - 1)

    @property
    def dealt(self) -> int:
        """Cards dealt to the two hands (R10); the next one is the upcard."""
        return 2 * self.hand_size

    @property
    def stock_after_deal(self) -> int:
        """Cards in the stock after the deal and the upcard (R10: 31, and one more per joker)."""
        return self.n_cards - self.dealt - 1

    @property
    def values(self) -> tuple[int, ...]:
        """The deadwood value of each card id: R3 for the natural cards, ``joker_value`` for the jokers."""
        return RANK_VALUES * self.n_suits + (self.joker_value,) * self.n_jokers

    @property
    def max_deadwood(self) -> int:
        """The most deadwood a hand of ``hand_size`` cards can hold: its highest values, none melded."""
        return sum(sorted(self.values, reverse=True)[:self.hand_size])

    def is_joker(self, card_id: int) -> bool:
        """True for a joker's id."""
        return self.n_naturals <= card_id < self.n_cards

    def card_str(self, card_id: int) -> str:
        """The string of a card id: ``"TS"`` for 9, ``"JK"`` for a joker."""
        if isinstance(card_id, bool) or not 0 <= int(card_id) < self.n_cards:
            raise ValueError(f"card id {card_id!r} out of range 0..{self.n_cards - 1}")
        if self.is_joker(card_id):
            return JOKER
        return RANKS[card_id % self.n_ranks] + SUITS[card_id // self.n_ranks]

    def parse(self, text: str | Iterable[str]) -> list[int]:
        """Cards written as ``"AS 2S JK"`` (or a list of strings) as ids: each ``JK`` the next joker id.
        A duplicate card, a joker the deck lacks or a malformed token raises ``ValueError`` naming it."""
        tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
        ids: list[int] = []
        jokers = iter(self.joker_ids)
        for token in tokens:
            if isinstance(token, str) and token.upper() == JOKER:
                c = next(jokers, None)
                if c is None:
                    raise ValueError(f"{JOKER!r} names a joker, and this deck holds {self.n_jokers or 'none'}"
                                     f"{'' if self.n_jokers else ' (jokers=0)'}: {text!r}")
            else:
                c = card(token)
                if c in ids:
                    raise ValueError(f"duplicate card {token!r} in hand")
            ids.append(c)
        return ids


#: Gin Rummy's deck: 52 cards, no jokers (R1), ten cards dealt to each player (R10).
STANDARD_DECK = Deck()
#: The deck with every card id a game may hold (R62: the jokers are 52 and 53); the module's functions read and
#: write its cards, and the rules of a game say how many jokers it may hold.
LARGEST_DECK = Deck(n_jokers=MAX_JOKERS)
N_RANKS = STANDARD_DECK.n_ranks
N_SUITS = STANDARD_DECK.n_suits
#: The natural cards: their ids, and the action ids and observation entries that name them, are the same in every
#: deck (jokers come after them).
N_CARDS = STANDARD_DECK.n_naturals
FULL_DECK = (1 << N_CARDS) - 1
#: Cards dealt to each player (R10), to both, and left in the stock after the upcard, in the standard deck.
HAND_SIZE = STANDARD_DECK.hand_size
DEALT = STANDARD_DECK.dealt
STOCK_AFTER_DEAL = STANDARD_DECK.stock_after_deal
#: A card id meaning "no card": the top of an empty pile, no card taken this turn, no knock card.
NO_CARD = -1

#: Deadwood value of each natural card id (R3).
VALUES: tuple[int, ...] = STANDARD_DECK.values
VALUES_ARRAY = np.array(VALUES, dtype=np.int16)

#: Spacing of suits in the packed uint64 form used by the batch code (a gap keeps shifts from crossing suits).
PACK_STRIDE = 16
#: Where each suit's 13 bits start in a card mask, and in the packed form (a column, to broadcast over hands).
SUIT_SHIFTS = np.array([N_RANKS * s for s in range(N_SUITS)], dtype=np.uint64)[:, None]
PACK_SHIFTS = np.array([PACK_STRIDE * s for s in range(N_SUITS)], dtype=np.uint64)[:, None]
#: The 13 rank bits of one suit.
SUIT_RANKS = np.uint64((1 << N_RANKS) - 1)
#: Bit c for card c of any deck, then 0 for NO_CARD (-1), which ``take`` reads as the last entry.
_CARD_BITS_OR_NONE = np.append(np.left_shift(np.uint64(1), np.arange(LARGEST_DECK.n_cards, dtype=np.uint64)),
                               np.uint64(0))


def rank(card_id: int) -> int:
    """Rank index of a card, A=0 .. K=12."""
    return card_id % N_RANKS


def suit(card_id: int) -> int:
    """Suit index of a card, S=0, H=1, D=2, C=3."""
    return card_id // N_RANKS


def value(card_id: int) -> int:
    """Deadwood value of a card (R3)."""
    return VALUES[card_id]


def card(text: str) -> int:
    """Parse one card string such as ``"TD"`` into its id; raise ``ValueError`` naming a malformed token."""
    if not isinstance(text, str) or len(text) != 2:
        raise ValueError(f"malformed card {text!r}: expected rank + suit such as 'TD'")
    r, s = text[0].upper(), text[1].upper()
    if r not in RANKS:
        raise ValueError(f"malformed card {text!r}: unknown rank {text[0]!r} (ranks are {RANKS})")
    if s not in SUITS:
        raise ValueError(f"malformed card {text!r}: unknown suit {text[1]!r} (suits are {SUITS})")
    return SUITS.index(s) * N_RANKS + RANKS.index(r)


def public_id(card_id: int) -> int:
    """A card as a public record names it (R72: which joker is which is never information): a natural card by its
    id, any joker as the first joker's, ``NO_CARD`` as itself."""
    return min(card_id, N_CARDS)


def card_str(card_id: int) -> str:
    """String of a card id, e.g. ``9 -> "TS"``, ``52 -> "JK"``."""
    return LARGEST_DECK.card_str(card_id)


def parse(text: str | Iterable[str]) -> list[int]:
    """Parse cards written as ``"AS 2S 3S"`` (or a list of strings) into ids, each ``JK`` the next joker (52, then
    53, R62); duplicates raise ``ValueError``."""
    return LARGEST_DECK.parse(text)


def to_str(hand: Iterable[int] | int) -> str:
    """Cards as a space-separated string, sorted by suit then rank."""
    return " ".join(card_str(c) for c in sorted(to_ids(hand)))


def to_mask(hand: Iterable[int] | int | str) -> int:
    """Any hand form (ids, card strings, mask, one string of cards) as an int bitmask; duplicates raise."""
    if isinstance(hand, (int, np.integer)):
        return int(hand)
    if isinstance(hand, str):
        hand = parse(hand)
    mask = 0
    for c in hand:
        c = card(c) if isinstance(c, str) else int(c)
        if not 0 <= c < LARGEST_DECK.n_cards:
            raise ValueError(f"card id {c!r} out of range 0..{LARGEST_DECK.n_cards - 1}")
        bit = 1 << c
        if mask & bit:
            raise ValueError(f"duplicate card {card_str(c)!r} in hand")
        mask |= bit
    return mask


def to_ids(hand: Iterable[int] | int | str) -> list[int]:
    """Any hand form as a sorted list of card ids."""
    if isinstance(hand, str):
        return sorted(parse(hand))
    if isinstance(hand, (int, np.integer)):
        mask = int(hand)
        ids = []
        while mask:
            low = mask & -mask
            ids.append(low.bit_length() - 1)
            mask ^= low
        return ids
    return sorted(to_ids(to_mask(hand)))


def to_array(hand: Iterable[int] | int | str) -> np.ndarray:
    """Any hand form as a ``(52,)`` bool array."""
    out = np.zeros(N_CARDS, dtype=bool)
    out[to_ids(hand)] = True
    return out


def array_to_mask(row: np.ndarray) -> int:
    """A ``(52,)`` bool array as an int bitmask."""
    return to_mask(np.flatnonzero(row).tolist())


def masks_to_array(masks: Iterable[int]) -> np.ndarray:
    """A sequence of int bitmasks as an ``(N, 52)`` bool array."""
    masks = [int(m) for m in masks]
    packed = np.array([m.to_bytes(7, "little") for m in masks], dtype="S7")
    raw = np.frombuffer(packed.tobytes(), dtype=np.uint8).reshape(len(masks), 7)
    return np.unpackbits(raw, axis=1, bitorder="little")[:, :N_CARDS].astype(bool)


def hand_value(hand: Iterable[int] | int, deck: Deck = LARGEST_DECK) -> int:
    """Sum of the card values of a hand (its deadwood with no melds), a joker at ``deck.joker_value`` (R67)."""
    values = deck.values
    return sum(values[c] for c in to_ids(hand))


def card_bits(card_ids) -> np.ndarray:
    """uint64 mask of each card id (any shape); 0 where the id is ``NO_CARD``."""
    return _CARD_BITS_OR_NONE.take(card_ids)


def pack_masks(masks: np.ndarray) -> np.ndarray:
    """52-bit card masks (bit c for card c, as uint64) to the packed form: suit s in bits ``16*s .. 16*s+12``."""
    suits = (np.asarray(masks, dtype=np.uint64) >> SUIT_SHIFTS) & SUIT_RANKS
    return np.bitwise_or.reduce(suits << PACK_SHIFTS, axis=0)


def hands_to_masks(hands: np.ndarray) -> np.ndarray:
    """``(N, 52)`` bool hands as ``(N,)`` uint64 card masks."""
    hands = np.asarray(hands)
    if hands.ndim != 2 or hands.shape[1] != N_CARDS:
        raise ValueError(f"hands must have shape (N, 52), got {hands.shape}")
    raw = np.zeros((hands.shape[0], 8), dtype=np.uint8)
    raw[:, :7] = np.packbits(hands, axis=1, bitorder="little")
    return raw.view("<u8")[:, 0].astype(np.uint64)
