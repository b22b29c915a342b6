"""R16 and R71 in one place: the card just taken from the discard pile stays in hand this turn (not discarded, not
knocked with) unless the rules allow discarding it, and a joker taken keeps every joker, since any joker matches any
joker. The functions serve every caller: the scalar engine, the observation and the agents call them as written, the
batched engine's kernels inline them compiled (``register_jitable``)."""

from __future__ import annotations

from numba.extending import register_jitable

from gin_env.game.cards import N_CARDS, NO_CARD


@register_jitable(inline="always")
def kept_card(discard_taken_card, taken):
    """The card that may not leave the hand this turn: ``taken`` (the card just taken from the pile, or NO_CARD
    after a stock draw), or NO_CARD when ``discard_taken_card`` lifts R16. Plain arithmetic on a bool and an int,
    or on numpy arrays of them, so that it serves scalar and batched callers alike and compiles as it is."""
    return taken + (NO_CARD - taken) * discard_taken_card


@register_jitable(inline="always")
def blocks(kept, card):
    """True when the ``kept`` card (``kept_card``'s) keeps ``card`` in hand: the same card, or both jokers (R71;
    card ids from ``N_CARDS`` on are jokers). Also R61's test of a return: discarding what was taken."""
    return (card == kept) | ((card >= N_CARDS) & (kept >= N_CARDS))


@register_jitable(inline="always")
def known_after_discard(known, bit, jokers):
    """R72: the cards a player is known to hold from the pile (``known``, a card mask) after it discards or knocks
    with the card of mask bit ``bit``: without it, or for a joker one known joker fewer (the lowest), never below
    none. Which joker is which is never information, so a joker discarded counts against any joker taken.
    ``jokers`` is the deck's joker mask (``Deck.joker_mask``), of the masks' own type: masks stay uint64 compiled."""
    if bit & jokers:
        held = known & jokers
        return known ^ _lowest(held, bit // bit)
    return known & ~bit


@register_jitable(inline="always")
def recorded(record, bit, jokers):
    """R72: a player's record of cards seen leave or pass it (``record``: its discards, or the cards it declined)
    after one more, of mask bit ``bit``: with that bit, or for a joker one more of the deck's ``jokers`` (the lowest
    not yet set, and none past the deck's), so that the record counts jokers and never tells which one it was."""
    if bit & jokers:
        return record | _lowest(jokers & ~record, bit // bit)
    return record | bit


@register_jitable(inline="always")
def _lowest(mask, one):
    """The lowest set bit of ``mask`` (0 for none); ``one`` is 1 of the mask's type, since a literal 1 would make a
    uint64 mask a float when compiled."""
    return mask ^ (mask & (mask - one))
