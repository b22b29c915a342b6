"""How turns go and when a hand ends without a knock (docs/rules.md R10, R15, R16, R19, R24, R36-R38, R60, R61).

Each rule is one function of plain ints and the ``turn_values`` of the rules (indexed by the constants below): the
scalar engine calls it as written, with the values as a tuple; the batched engine's kernels inline the same
function compiled (``register_jitable``), with the values as their row of ``hand_rules.rule_values``. Conditions
join with ``&`` and ``|``, not ``and`` and ``or``: numba's inliner mishandles a short circuit in an inlined function.
"""

from __future__ import annotations

from numba.extending import register_jitable

from gin_env.game.hand_rules.taken_card import blocks

#: Entries of ``turn_values``.
(WALL, WALL_UPCARD_KNOCK, MAX_TURNS, MAX_UPCARD_DRAWS, REPEAT_DISCARD_ENDS, DISCARD_TAKEN, ELEVEN_DEAL,
 DECK_CARDS) = range(8)
#: ``MAX_TURNS`` or ``MAX_UPCARD_DRAWS`` when there is no such cap.
NO_CAP = -1
#: Returns in a row that end the hand under ``repeat_discard_ends`` (R61): one by each player.
RETURNS_TO_END = 2


def turn_values(rules) -> tuple:
    """The ``Rules`` options this module reads, in the order of the entries above."""
    return (rules.wall, rules.wall_upcard_knock, NO_CAP if rules.max_turns is None else rules.max_turns,
            NO_CAP if rules.max_upcard_draws is None else rules.max_upcard_draws, rules.repeat_discard_ends,
            rules.discard_taken_card, rules.deal_mode == "eleven", rules.deck.n_cards)


@register_jitable(inline="always")
def can_draw_stock(values, stock_left):
    """R15, R36: the stock may be drawn while it holds more than ``wall`` cards."""
    return stock_left > values[WALL]


@register_jitable(inline="always")
def upcard_take_ends(values, draws):
    """R60: a draw-phase take from the pile that would be the ``draws``-th of the hand ends it, dead, at the cap
    ``max_upcard_draws``."""
    return (values[MAX_UPCARD_DRAWS] != NO_CAP) & (draws >= values[MAX_UPCARD_DRAWS])


@register_jitable(inline="always")
def returns_after(returns, card, taken):
    """R61: the returns in a row after discarding ``card``: one more when it is the card ``taken`` from the pile
    this turn, or a joker after a joker taken (R71), else none."""
    return returns + 1 if blocks(taken, card) else 0


@register_jitable(inline="always")
def returns_end(values, returns):
    """R61: ``returns`` returns in a row end the hand under ``repeat_discard_ends``."""
    return (values[REPEAT_DISCARD_ENDS] != 0) & (returns >= RETURNS_TO_END)


@register_jitable(inline="always")
def turn_cap_reached(values, turns):
    """R19: ``turns`` discards reach the cap ``max_turns``."""
    return (values[MAX_TURNS] != NO_CAP) & (turns >= values[MAX_TURNS])


@register_jitable(inline="always")
def wall_take_allowed(knock_cards, big_gin):
    """R38: taking the discard at the wall is legal only if it allows a knock (some of ``knock_cards``, a card
    mask) or a big gin at once."""
    return (knock_cards != 0) | (big_gin != 0)
