"""Card ids, strings, values and the conversions between hand representations.

A card is an int ``suit * 13 + rank`` with suits ordered S, H, D, C and ranks A=0 .. K=12 (docs/rules.md R1-R3).
A hand is held in one of three forms, and this module owns the conversions between them:

* a list of card ids (``[0, 1, 2]``),
* a Python int bitmask with bit ``card`` set for each card held,
* in batch code, an ``(N, 52)`` bool array.
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

#: Deadwood value of each card id (R3): A=1, 2-10 pip value, J/Q/K=10.
VALUES: tuple[int, ...] = tuple(min(c % N_RANKS + 1, 10) for c in range(N_CARDS))
VALUES_ARRAY = np.array(VALUES, dtype=np.int16)


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
