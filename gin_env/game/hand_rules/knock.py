"""How a knock ends a hand (docs/rules.md R20, R24, R29-R33, R35, R46, R47): the hand's knock limit, the kind,
winner and points of a knock, gin, undercut or tie, a big gin's points, and Oklahoma's spade doubling.

Each rule is one function of plain ints and the ``knock_values`` of the rules (indexed by the constants below):
the scalar engine calls it as written, with the values as a tuple; the batched engine's kernels inline the same
function compiled (``register_jitable``), with the values as their row of ``hand_rules.rule_values``. Conditions
join with ``&`` and ``|``, not ``and`` and ``or``: numba's inliner mishandles a short circuit in an inlined function.
"""

from __future__ import annotations

from numba.extending import register_jitable

from gin_env.game.cards import N_CARDS, N_RANKS

#: Outcome kinds, in the order of their codes (``HandBatch.kind``); -1 while a hand is live.
KIND_NAMES = ("knock", "undercut", "gin", "big_gin", "tie", "dead")
KNOCK, UNDERCUT, GIN, BIG_GIN_KIND, TIE, DEAD = range(len(KIND_NAMES))
#: The winner of a hand nobody won (a tie, a dead hand).
NO_PLAYER = -1

#: Entries of ``knock_values``.
(KNOCK_LIMIT, OKLAHOMA, ACE_LIMIT, SPADE_DOUBLE, GIN_BONUS, UNDERCUT_BONUS, UNDERCUT_ON_TIE, BIG_GIN_ON,
 BIG_GIN_BONUS, LAYOFFS, JOKER_VALUE) = range(11)
#: The Oklahoma knock limit of a 10, J, Q or K upcard, the highest card value (R46).
HIGHEST_LIMIT = 10
#: A spade doubles the hand score under ``oklahoma_spade_double`` (R47); spades are suit 0.
SPADES = 0


def knock_values(rules) -> tuple:
    """The ``Rules`` options this module reads, in the order of the entries above."""
    return (rules.knock_limit, rules.oklahoma, int(rules.oklahoma_ace != "gin_only"),
            rules.oklahoma and rules.oklahoma_spade_double, rules.gin_bonus, rules.undercut_bonus,
            rules.undercut_on_tie, rules.big_gin_bonus is not None, rules.big_gin_bonus or 0, rules.layoffs,
            rules.joker_value)


@register_jitable(inline="always")
def hand_knock_limit(values, upcard):
    """R20, R46, R79: the knock limit L of a hand whose initial upcard is ``upcard`` (-1 for none):
    ``knock_limit``, under Oklahoma capped by the upcard's value (an ace gives ``oklahoma_ace``'s 0 or 1, a joker
    ``joker_value``)."""
    if (values[OKLAHOMA] == 0) | (upcard < 0):
        return values[KNOCK_LIMIT]
    if upcard >= N_CARDS:
        return min(values[KNOCK_LIMIT], values[JOKER_VALUE])
    rank = upcard % N_RANKS
    return min(values[KNOCK_LIMIT], values[ACE_LIMIT] if rank == 0 else min(rank + 1, HIGHEST_LIMIT))


@register_jitable(inline="always")
def multiplier(values, upcard):
    """R35, R47: 2 where Oklahoma spade doubling applies to the hand (its initial upcard ``upcard`` a spade), else
    1."""
    return 2 if (values[SPADE_DOUBLE] != 0) & (upcard >= 0) & (upcard < N_CARDS) & (upcard // N_RANKS == SPADES) else 1


@register_jitable(inline="always")
def knock_outcome(values, k, f, knocker, upcard):
    """R29-R32, R35: (kind, winner, points) of a knock by player ``knocker`` with knocker deadwood ``k`` and
    defender deadwood ``f`` after layoffs: gin at ``k`` = 0 (F + G), a knock when F > K (F - K), else an undercut
    ((K - F) + U), or at F = K with ``undercut_on_tie`` off a tie that scores nothing."""
    if k == 0:
        kind, winner, points = GIN, knocker, f + values[GIN_BONUS]
    elif f > k:
        kind, winner, points = KNOCK, knocker, f - k
    elif (f == k) & (values[UNDERCUT_ON_TIE] == 0):
        kind, winner, points = TIE, NO_PLAYER, 0
    else:
        kind, winner, points = UNDERCUT, 1 - knocker, k - f + values[UNDERCUT_BONUS]
    return kind, winner, points * multiplier(values, upcard)


@register_jitable(inline="always")
def big_gin_legal(values, all_melded):
    """R24: big gin may be declared with all 11 cards melded (``all_melded``) where ``big_gin_bonus`` is set."""
    return (values[BIG_GIN_ON] != 0) & (all_melded != 0)


@register_jitable(inline="always")
def big_gin_points(values, f, upcard):
    """R33, R35: a big gin's points against a defender of plain deadwood ``f`` (R29)."""
    return (f + values[BIG_GIN_BONUS]) * multiplier(values, upcard)

