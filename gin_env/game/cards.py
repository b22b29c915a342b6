"""Card ids, strings, values and the conversions between hand representations.

A card is an int ``suit * 13 + rank`` with suits ordered S, H, D, C and ranks A=0 .. K=12 (docs/rules.md R1-R3).
A hand is held in one of three forms, and this module owns the conversions between them:

* a list of card ids (``[0, 1, 2]``),
* a Python int bitmask with bit ``card`` set for each card held,
* in batch code, an ``(N, 52)`` bool array, or an ``(N,)`` uint64 array of card masks; the batched solver
  works on a packed uint64 form with each suit in its own 16-bit lane (``pack_masks``).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

RANKS = "A23456789TJQK"
SUITS = "SHDC"
N_RANKS = 13
N_SUITS = 4
N_CARDS = N_RANKS * N_SUITS
FULL_DECK = (1 << N_CARDS) - 1
#: A card id meaning "no card": the top of an empty pile, no card taken this turn, no knock card.
NO_CARD = -1

#: Deadwood value of each card id (R3): A=1, 2-10 pip value, J/Q/K=10.
VALUES: tuple[int, ...] = tuple(min(c % N_RANKS + 1, 10) for c in range(N_CARDS))
VALUES_ARRAY = np.array(VALUES, dtype=np.int16)

#: Spacing of suits in the packed uint64 form used by the batch code (a gap keeps shifts from crossing suits).
PACK_STRIDE = 16
#: Where each suit's 13 bits start in a card mask, and in the packed form (a column, to broadcast over hands).
SUIT_SHIFTS = np.array([N_RANKS * s for s in range(N_SUITS)], dtype=np.uint64)[:, None]
PACK_SHIFTS = np.array([PACK_STRIDE * s for s in range(N_SUITS)], dtype=np.uint64)[:, None]
#: The 13 rank bits of one suit.
SUIT_RANKS = np.uint64((1 << N_RANKS) - 1)
#: Bit c for card c, then 0 for NO_CARD (-1), which ``take`` reads as the last entry.
_CARD_BITS_OR_NONE = np.append(np.left_shift(np.uint64(1), np.arange(N_CARDS, dtype=np.uint64)), np.uint64(0))


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


def card_str(card_id: int) -> str:
    """String of a card id, e.g. ``9 -> "TS"``."""
    if not 0 <= int(card_id) < N_CARDS:
        raise ValueError(f"card id {card_id!r} out of range 0..{N_CARDS - 1}")
    return RANKS[card_id % N_RANKS] + SUITS[card_id // N_RANKS]


def parse(text: str | Iterable[str]) -> list[int]:
    """Parse cards written as ``"AS 2S 3S"`` (or a list of strings) into ids; duplicates raise ``ValueError``."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    ids: list[int] = []
    seen: set[int] = set()
    for token in tokens:
        c = card(token)
        if c in seen:
            raise ValueError(f"duplicate card {token!r} in hand")
        seen.add(c)
        ids.append(c)
    return ids


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
        if not 0 <= c < N_CARDS:
            raise ValueError(f"card id {c!r} out of range 0..{N_CARDS - 1}")
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


def hand_value(hand: Iterable[int] | int) -> int:
    """Sum of the card values of a hand (its deadwood with no melds)."""
    return sum(VALUES[c] for c in to_ids(hand))


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
