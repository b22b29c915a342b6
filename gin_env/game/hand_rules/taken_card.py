"""R16 in one place: the card just taken from the discard pile stays in hand this turn (not discarded, not knocked
with) unless the rules allow discarding it. One function for every caller: the scalar engine, the observation and
the agents call it as written, the batched engine's kernels inline it compiled (``register_jitable``)."""

from __future__ import annotations

from numba.extending import register_jitable

from gin_env.game.cards import NO_CARD


@register_jitable(inline="always")
def kept_card(discard_taken_card, taken):
    """The card that may not leave the hand this turn: ``taken`` (the card just taken from the pile, or NO_CARD
    after a stock draw), or NO_CARD when ``discard_taken_card`` lifts R16. Plain arithmetic on a bool and an int,
    or on numpy arrays of them, so that it serves scalar and batched callers alike and compiles as it is."""
    return taken + (NO_CARD - taken) * discard_taken_card
