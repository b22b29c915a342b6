"""A brute-force solver for gin rummy with jokers (docs/rules.md R4, R5, R7, R8, R20-R29, R62-R82).

This is the independent oracle the compiled jokers solver is tested against. It is written from the rules text
alone and reads nothing of gin_env's solver: it takes only card ids, ranks and values from ``gin_env.game.cards``.
It is slow but plainly right:

* a meld is any subset of the holding that some declaration makes legal (R65), found by trying every subset of
  each rank's and each suit's naturals with the jokers;
* deadwood is the least total over every partition of the holding into melds and single deadwood cards (R7, R68),
  by a recursion that takes the lowest remaining card either as deadwood or in each meld of the remaining cards that
  holds it, memoised on the remaining-cards mask;
* layoffs extend one declared knocker meld card by card (R27, R74, R76), and the defender's final deadwood tries
  every combination of disjoint layoffs on the knocker's melds with the rest scored by the same deadwood (R28).

Cards are ids: natural cards ``suit * 13 + rank``, jokers ``52`` and ``53`` (R62). A meld's *declaration* (R73) is
``(SET, rank)`` for a set or ``(RUN, suit, lowest rank)`` for a run; a run's declaration fixes every joker's rank.
Every function takes ``joker_value`` (0..50, R67) and ``min_naturals`` (1 or 2, R65) as keywords, defaulting to the
``jokers`` preset (R81).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from gin_env.game import cards

#: The first joker's id: jokers come after the natural cards (R62).
FIRST_JOKER = cards.N_CARDS
JOKER_IDS = (FIRST_JOKER, FIRST_JOKER + 1)
#: The ``jokers`` preset's values (R81).
PRESET_JOKER_VALUE = 20
PRESET_MIN_NATURALS = 2
MIN_NATURALS_CHOICES = (1, 2)
#: A meld holds at least 3 cards (R4, R5); a set at most one card per suit (R4, R65).
MIN_MELD = 3
MAX_SET = cards.N_SUITS
SET = "set"
RUN = "run"


class Arrangement(NamedTuple):
    """A knocker's layout: each meld as (its cards, its declaration), and the cards left as deadwood."""

    melds: tuple[tuple[tuple[int, ...], tuple], ...]
    deadwood: tuple[int, ...]


class Showdown(NamedTuple):
    """K, whether it is gin, and the defender's final deadwood F at its least and most over the knocker's
    minimum-deadwood arrangements (R22: the auto-arrangement gives ``f_high``)."""

    k: int
    gin: bool
    f_low: int
    f_high: int


def is_joker(card: int) -> bool:
    return card in JOKER_IDS


def card_value(card: int, joker_value: int) -> int:
    """Deadwood value of one unmelded card (R3, R67)."""
    return joker_value if is_joker(card) else cards.RANK_VALUES[cards.rank(card)]


def _check_hand(hand: Iterable[int], joker_value: int, min_naturals: int) -> tuple[int, ...]:
    """The hand as a tuple of distinct card ids, after checking it and the two joker keys."""
    hand = tuple(hand)
    if len(set(hand)) != len(hand) or not all(0 <= c < FIRST_JOKER or is_joker(c) for c in hand):
        raise ValueError(f"a hand is distinct card ids 0..{JOKER_IDS[-1]}, got {hand}")
    if not 0 <= joker_value <= cards.MAX_JOKER_VALUE:
        raise ValueError(f"joker_value must be 0..{cards.MAX_JOKER_VALUE}, got {joker_value}")
    if min_naturals not in MIN_NATURALS_CHOICES:
        raise ValueError(f"min_naturals must be 1 or 2, got {min_naturals}")
    return hand


def declarations(meld: Iterable[int], min_naturals: int = PRESET_MIN_NATURALS) -> list[tuple]:
    """Every declaration that makes these cards one legal meld (R65, R82); empty if none does.

    A set is 3 or 4 cards whose naturals share one rank (distinct cards of one rank have distinct suits). A run is
    3 or more cards whose naturals share one suit with distinct ranks, all inside ``low .. low + size - 1`` within
    A..K; its jokers are the missing ranks. Either way at least ``min_naturals`` cards are natural."""
    meld = tuple(meld)
    naturals = [c for c in meld if not is_joker(c)]
    size = len(meld)
    if size < MIN_MELD or len(naturals) < min_naturals:
        return []
    ranks = {cards.rank(c) for c in naturals}
    suits = {cards.suit(c) for c in naturals}
    found = []
    if len(ranks) == 1 and size <= MAX_SET:
        found.append((SET, *ranks))
    if len(suits) == 1 and len(ranks) == len(naturals):
        (suit,) = suits
        found.extend((RUN, suit, low) for low in range(cards.N_RANKS - size + 1)
                     if all(low <= r < low + size for r in ranks))
    return found


def is_meld(meld: Iterable[int], min_naturals: int = PRESET_MIN_NATURALS) -> bool:
    """Whether the cards form one legal meld under some declaration (R65)."""
    return bool(declarations(meld, min_naturals))


def joker_identities(meld: Iterable[int], declaration: tuple) -> dict[int, int | None]:
    """Each joker's identity under a declaration: the natural card id a run joker stands for, None for a set
    joker, whose suit is never declared (R65, R73). Jokers take the run's missing ranks in ascending order."""
    meld = tuple(meld)
    jokers = [c for c in meld if is_joker(c)]
    if declaration[0] == SET:
        return dict.fromkeys(jokers)
    _, suit, low = declaration
    held = {cards.rank(c) for c in meld if not is_joker(c)}
    missing = [r for r in range(low, low + len(meld)) if r not in held]
    return {j: suit * cards.N_RANKS + r for j, r in zip(jokers, missing)}


class _Holding:
    """One hand: its card values, every meld among its cards, and the least deadwood of each subset, memoised on
    the mask of card positions still to place."""

    def __init__(self, hand: tuple[int, ...], joker_value: int, min_naturals: int) -> None:
        self.cards = hand
        self.min_naturals = min_naturals
        self.values = [card_value(c, joker_value) for c in hand]
        self.full = (1 << len(hand)) - 1
        # Melds by their lowest position: the search places the lowest remaining card first.
        self.melds_from = [[] for _ in hand]
        for mask in sorted(self._meld_masks()):
            self.melds_from[_lowest(mask)].append(mask)
        self._least = {0: 0}
        self._partitions = {0: [()]}

    def _meld_masks(self) -> set[int]:
        """Every subset of the holding that is a meld. A meld's naturals share one rank or one suit (R65), so it
        lies within one rank's or one suit's naturals plus the jokers: every subset of those is tried."""
        jokers = sum(1 << i for i, c in enumerate(self.cards) if is_joker(c))
        groups = {}
        for i, c in enumerate(self.cards):
            if not is_joker(c):
                for key in ((SET, cards.rank(c)), (RUN, cards.suit(c))):
                    groups[key] = groups.get(key, jokers) | 1 << i
        found = set()
        for group in groups.values():
            mask = group
            while mask:
                if mask.bit_count() >= MIN_MELD and is_meld(self.subset(mask), self.min_naturals):
                    found.add(mask)
                mask = (mask - 1) & group
        return found

    def subset(self, mask: int) -> tuple[int, ...]:
        return tuple(c for i, c in enumerate(self.cards) if mask >> i & 1)

    def least(self, mask: int) -> int:
        """The least deadwood of the cards in ``mask`` over every partition into melds and deadwood (R7)."""
        if mask not in self._least:
            low = _lowest(mask)
            best = self.values[low] + self.least(mask & ~(1 << low))
            for meld in self.melds_from[low]:
                if meld & mask == meld:
                    best = min(best, self.least(mask & ~meld))
            self._least[mask] = best
        return self._least[mask]

    def optimal_partitions(self, mask: int) -> list[tuple[int, ...]]:
        """Every partition of ``mask`` reaching its least deadwood, each as the tuple of its meld masks."""
        if mask not in self._partitions:
            target = self.least(mask)
            low = _lowest(mask)
            rest = mask & ~(1 << low)
            found = list(self.optimal_partitions(rest)) if self.values[low] + self.least(rest) == target else []
            for meld in self.melds_from[low]:
                if meld & mask == meld and self.least(mask & ~meld) == target:
                    found.extend((meld, *p) for p in self.optimal_partitions(mask & ~meld))
            self._partitions[mask] = found
        return self._partitions[mask]


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def melds(hand: Iterable[int], *, min_naturals: int = PRESET_MIN_NATURALS) -> list[tuple[int, ...]]:
    """Every legal meld among the hand's cards, each as a tuple of card ids in the hand's order (R65)."""
    holding = _Holding(_check_hand(hand, 0, min_naturals), 0, min_naturals)
    return [holding.subset(m) for group in holding.melds_from for m in group]


def deadwood(hand: Iterable[int], *, joker_value: int = PRESET_JOKER_VALUE,
             min_naturals: int = PRESET_MIN_NATURALS) -> int:
    """DW(h): the least deadwood of the holding over every arrangement, jokers' melds and identities included
    (R7, R67, R68)."""
    holding = _Holding(_check_hand(hand, joker_value, min_naturals), joker_value, min_naturals)
    return holding.least(holding.full)


def discard_deadwoods(hand11: Iterable[int], *, joker_value: int = PRESET_JOKER_VALUE,
                      min_naturals: int = PRESET_MIN_NATURALS) -> dict[int, int]:
    """The deadwood left after each discard of an 11-card holding, a joker discard included (R8, R69)."""
    holding = _Holding(_check_hand(hand11, joker_value, min_naturals), joker_value, min_naturals)
    return {c: holding.least(holding.full & ~(1 << i)) for i, c in enumerate(holding.cards)}


def _arrangements_of(holding: _Holding) -> list[Arrangement]:
    """Every minimum-deadwood arrangement of the whole holding, once per combination of its melds' declarations."""
    found = []
    for partition in holding.optimal_partitions(holding.full):
        melded = 0
        layouts = [()]
        for meld in partition:
            melded |= meld
            cards_of = holding.subset(meld)
            layouts = [(*lay, (cards_of, d)) for lay in layouts for d in declarations(cards_of, holding.min_naturals)]
        left = holding.subset(holding.full & ~melded)
        found.extend(Arrangement(lay, left) for lay in layouts)
    return found


def arrangements(hand: Iterable[int], *, joker_value: int = PRESET_JOKER_VALUE,
                 min_naturals: int = PRESET_MIN_NATURALS) -> list[Arrangement]:
    """Every minimum-deadwood arrangement the knocker could lay, with each meld's declaration (R22, R73)."""
    holding = _Holding(_check_hand(hand, joker_value, min_naturals), joker_value, min_naturals)
    return _arrangements_of(holding)


def layoff_options(meld: Iterable[int], declaration: tuple, defender: Iterable[int]) -> set[frozenset[int]]:
    """Every subset of the defender's cards that can be laid off on one declared knocker meld, the empty one
    included (R27, R74, R76).

    A 3-card set takes one natural of its rank in a suit its naturals lack, or a joker, and is then full; a 4-card
    set takes nothing. A run grows only at its declared ends, one rank at a time within A..K, each new end a
    natural of its suit or a joker, so cards chain outward; a natural equal to an inner joker's identity has no
    place on it, and no joker is ever swapped out (R75)."""
    meld, defender = tuple(meld), tuple(defender)
    if declaration[0] == SET:
        if len(meld) != MIN_MELD:
            return {frozenset()}
        _, rank = declaration
        meld_suits = {cards.suit(c) for c in meld if not is_joker(c)}
        fits = [c for c in defender
                if is_joker(c) or (cards.rank(c) == rank and cards.suit(c) not in meld_suits)]
        return {frozenset(), *(frozenset([c]) for c in fits)}
    _, suit, low = declaration
    return _run_layoffs(suit, low, low + len(meld) - 1, defender)


def _run_layoffs(suit: int, low: int, high: int, defender: tuple[int, ...]) -> set[frozenset[int]]:
    """Every set of defender cards that extends the run ``low..high`` of ``suit`` end by end (R27, R76)."""
    by_rank = {cards.rank(c): c for c in defender if not is_joker(c) and cards.suit(c) == suit}
    jokers = [c for c in defender if is_joker(c)]
    found = set()
    seen = set()
    pending = [(low, high, frozenset())]
    while pending:
        state = pending.pop()
        if state in seen:
            continue
        seen.add(state)
        lo, hi, used = state
        found.add(used)
        for rank, new_lo, new_hi in ((lo - 1, lo - 1, hi), (hi + 1, lo, hi + 1)):
            if not 0 <= rank < cards.N_RANKS:
                continue
            candidates = [by_rank[rank]] if rank in by_rank else []
            for card in candidates + jokers:
                if card not in used:
                    pending.append((new_lo, new_hi, used | {card}))
    return found


def _defender_final(arrangement: Arrangement, defender: _Holding, cache: dict) -> int:
    """F against one declared arrangement: the least deadwood over every combination of disjoint layoffs on its
    melds, the defender's other cards scored by their own least deadwood (R28)."""
    position = {c: i for i, c in enumerate(defender.cards)}
    laid = {0}
    for meld in arrangement.melds:
        if meld not in cache:
            cache[meld] = {sum(1 << position[c] for c in option)
                           for option in layoff_options(*meld, defender.cards)}
        laid = {done | more for done in laid for more in cache[meld] if not done & more}
    return min(defender.least(defender.full & ~mask) for mask in laid)


def showdown(knocker: Iterable[int], defender: Iterable[int], *, joker_value: int = PRESET_JOKER_VALUE,
             min_naturals: int = PRESET_MIN_NATURALS, layoffs: bool = True) -> Showdown:
    """The showdown of a knock: K, the gin flag (K == 0, R23) and F's range over every minimum-deadwood
    arrangement and declaration the knocker could lay (R22, R26-R29, R73-R77). Against gin, or without layoffs,
    F is the defender's own least deadwood (R29)."""
    knocker = _check_hand(knocker, joker_value, min_naturals)
    defender = _check_hand(defender, joker_value, min_naturals)
    if set(knocker) & set(defender):
        raise ValueError(f"the hands share cards: {sorted(set(knocker) & set(defender))}")
    k_holding = _Holding(knocker, joker_value, min_naturals)
    d_holding = _Holding(defender, joker_value, min_naturals)
    k = k_holding.least(k_holding.full)
    if k == 0 or not layoffs:
        own = d_holding.least(d_holding.full)
        return Showdown(k, k == 0, own, own)
    cache = {}
    finals = [_defender_final(a, d_holding, cache) for a in _arrangements_of(k_holding)]
    return Showdown(k, False, min(finals), max(finals))
