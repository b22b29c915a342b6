"""A meld's declaration (docs/rules.md R4, R5, R65, R73): the natural cards a meld stands for, which fixes each
run joker's identity, and the ``Meld`` the public solver returns with it.

A declaration is an ``ident`` mask of natural card ids: a run's ranks in its suit from its declared lowest to its
highest, or a set's whole rank column (a set joker's suit is never declared). With no joker held a meld has exactly
one declaration; ``{5S 6S JK}`` has two (4S-6S and 5S-7S), which an explicit arrangement must choose between
(``JK=4S``).
"""

from __future__ import annotations

from gin_env.game import cards
from gin_env.game.cards import JOKER, N_CARDS, N_RANKS, N_SUITS

#: The fewest cards of a meld (R4, R5) and the most of a set (R4: one per suit).
MIN_MELD = 3
MAX_SET = N_SUITS
#: How a run joker's declared identity is written after the joker: ``JK=7S``.
DECLARES = "="


def rank_column(rank: int) -> int:
    """The card mask of ``rank`` in every suit: a set's declaration."""
    return sum(1 << (s * N_RANKS + rank) for s in range(N_SUITS))


def declared_melds(mask: int, min_naturals: int) -> list[int]:
    """Every declaration under which the cards of ``mask`` are one legal meld (R4, R5, R65: at least
    ``min_naturals`` naturals, jokers standing for the cards it lacks, runs A..K with no wrap); [] for none."""
    naturals = cards.to_ids(mask & ((1 << N_CARDS) - 1))
    size = mask.bit_count()
    if size < MIN_MELD or len(naturals) < max(min_naturals, 1):
        return []
    ranks = sorted({c % N_RANKS for c in naturals})
    suits = {c // N_RANKS for c in naturals}
    out = []
    if len(ranks) == 1 and size <= MAX_SET:
        out.append(rank_column(ranks[0]))
    if len(suits) == 1 and len(ranks) == len(naturals) and ranks[-1] - ranks[0] < size <= N_RANKS:
        suit = suits.pop()
        for start in range(max(0, ranks[-1] - size + 1), min(ranks[0], N_RANKS - size) + 1):
            out.append(((1 << size) - 1) << (suit * N_RANKS + start))
    return out


def is_set(ident: int) -> bool:
    """True when a declaration is a set's (a rank column), not a run's."""
    low = (ident & -ident).bit_length() - 1
    return ident == rank_column(low % N_RANKS)


class Meld(list):
    """A meld's sorted card ids, with its declaration ``ident`` (R65, R73): ``identities`` maps each run joker to
    the natural card it stands for, lowest joker to lowest card; ``str`` writes it ``5S JK=6S 7S``."""

    def __init__(self, ids, ident: int):
        super().__init__(ids)
        self.ident = ident

    @property
    def identities(self) -> dict[int, int]:
        """Each run joker's card id and the natural card it stands for; {} for a set."""
        if is_set(self.ident):
            return {}
        jokers = [c for c in self if c >= N_CARDS]
        return dict(zip(jokers, cards.to_ids(self.ident & ~cards.to_mask(self))))

    def __str__(self) -> str:
        if is_set(self.ident):
            return cards.to_str(cards.to_mask(self))
        named = {card: joker for joker, card in self.identities.items()}
        return " ".join(f"{JOKER}{DECLARES}{cards.card_str(c)}" if c in named else cards.card_str(c)
                        for c in cards.to_ids(self.ident))


def meld_of(mask: int, ident: int) -> Meld:
    """The ``Meld`` of a card mask and its declaration."""
    return Meld(cards.to_ids(mask), ident)


def parse_meld(meld, jokers: list[int]) -> tuple[int, dict[int, int]]:
    """An explicit meld as (its card mask, the identities it declares): a ``Meld`` keeps its own; card ids and
    names may write a run joker ``JK=7S``. Each ``JK`` written takes the next id of ``jokers``, the holder's jokers
    in order (R62)."""
    if isinstance(meld, Meld):
        return cards.to_mask(meld), meld.identities
    tokens = meld.replace(",", " ").split() if isinstance(meld, str) else list(meld)
    mask, declared = 0, {}
    for token in tokens:
        if isinstance(token, str) and token.upper().startswith(JOKER):
            if not jokers:
                raise ValueError(f"meld {' '.join(map(str, tokens))!r} names more jokers than its holder holds")
            c = jokers.pop(0)
            _, _, named = token.partition(DECLARES)
            if named:
                declared[c] = cards.card(named)
        else:
            c = cards.card(token) if isinstance(token, str) else int(token)
            if c in jokers:
                jokers.remove(c)
        if mask >> c & 1:
            raise ValueError(f"duplicate card {cards.card_str(c)!r} in meld")
        mask |= 1 << c
    return mask, declared


def resolve(mask: int, declared: dict[int, int], min_naturals: int) -> int:
    """The one declaration of the meld ``mask`` that agrees with its ``declared`` identities (R73); a meld that is
    no meld, or whose run joker's rank is left open, is a ``ValueError`` naming it."""
    options = declared_melds(mask, min_naturals)
    wanted = cards.to_mask(declared.values()) if declared else 0
    options = [ident for ident in options if ident & wanted == wanted and not (is_set(ident) and wanted)
               and not (wanted & mask)]
    if not options:
        raise ValueError(f"not a legal meld: {cards.to_str(mask)}"
                         + (f" with {_declared_str(declared)}" if declared else ""))
    if len(options) > 1:
        choices = " or ".join(str(meld_of(mask, ident)) for ident in options)
        raise ValueError(f"meld {cards.to_str(mask)} leaves a joker's identity open (R73): declare it, e.g. "
                         f"{choices}")
    return options[0]


def _declared_str(declared: dict[int, int]) -> str:
    return ", ".join(f"{JOKER}{DECLARES}{cards.card_str(c)}" for c in declared.values())


def identities_of(meld_masks: list[int], idents: list[int], parts: list[int], spans: list[int]) -> dict[int, int]:
    """Every run joker on the table after a showdown and the natural card it stands for: the knocker's, declared by
    its melds' ``idents``, and the defender's laid off (``parts``), at the places of each layoff's ``spans``."""
    out: dict[int, int] = {}
    for mask, ident, part, span in zip(meld_masks, idents, parts, spans):
        if is_set(ident):
            continue
        out.update(zip(cards.to_ids(mask >> N_CARDS << N_CARDS), cards.to_ids(ident & ~mask)))
        out.update(zip(cards.to_ids(part >> N_CARDS << N_CARDS), cards.to_ids(span & ~part)))
    return out
