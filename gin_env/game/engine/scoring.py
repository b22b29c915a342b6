"""The hand score of a knock, gin or big gin between two holdings (docs/rules.md R21-R35, R46, R47): the
showdown's deadwoods from ``solver``, then the kind, the winner and the points under the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from gin_env.game import cards, solver
from gin_env.game.cards import NO_CARD
from gin_env.game.hand_rules import knock
from gin_env.game.rules import HAND_SIZE, Rules


@dataclass(frozen=True, slots=True)
class KnockResult:
    """The score of one knock, gin or big gin between two given holdings (R21-R35, R47)."""

    kind: str
    knocker_deadwood: int
    defender_deadwood: int
    layoffs: tuple[int, ...]
    points: int
    winner: str | None
    knocker_melds: tuple[tuple[int, ...], ...]
    #: The cards laid off on each of ``knocker_melds`` (R27), in the same order.
    layoff_melds: tuple[tuple[int, ...], ...]
    #: Each run joker on the table and the natural card it stands for (R73, R76).
    identities: tuple[tuple[int, int], ...] = ()


#: ``score_knock`` plays the knocker as player 0 of ``knock.knock_outcome``; the winner's names by its result.
_KNOCKER = 0
_WINNER_NAMES = {_KNOCKER: "knocker", 1 - _KNOCKER: "defender", knock.NO_PLAYER: None}


def score_knock(knocker_hand10, defender_hand10, rules: Rules, *, upcard: int | None = None,
                arrangement=None) -> KnockResult:
    """Score a knock (R21-R23, R26-R35), or a big gin when the knocker holds 11 cards (R24, R33).

    ``upcard`` is the hand's initial upcard, for the Oklahoma limit and spade doubling (R46, R47). ``arrangement``
    is the knocker's explicit melds (R22); without it the solver's auto-arrangement is used. Raises ``ValueError``
    for holdings of the wrong size, shared cards, a big gin that is not allowed, or a knock over the limit."""
    knocker, defender = solver.showdown_holdings(knocker_hand10, defender_hand10, rules)
    if defender.bit_count() != HAND_SIZE:
        raise ValueError(f"the defender must hold {HAND_SIZE} cards, got {defender.bit_count()}")
    upcard_id = NO_CARD if upcard is None else upcard
    if knocker.bit_count() == HAND_SIZE + 1:
        return _score_big_gin(knocker, defender, rules, upcard_id, arrangement)
    if knocker.bit_count() != HAND_SIZE:
        raise ValueError(f"the knocker must hold {HAND_SIZE} cards (or 11 for big gin), got {knocker.bit_count()}")
    show = solver.showdown(knocker, defender, layoffs=rules.layoffs, arrangement=arrangement, rules=rules)
    limit = rules.hand_knock_limit(upcard)
    k, f = show.knocker_deadwood, show.defender_deadwood
    if k > limit:
        raise ValueError(f"knocker deadwood {k} exceeds the knock limit {limit} of this hand (R20, R46)")
    kind, winner, points = knock.knock_outcome(rules.knock_values, k, f, _KNOCKER, upcard_id)
    return KnockResult(kind=knock.KIND_NAMES[kind], knocker_deadwood=k, defender_deadwood=f, layoffs=show.layoffs,
                       points=points, winner=_WINNER_NAMES[winner], knocker_melds=show.knocker_melds,
                       layoff_melds=show.layoff_melds, identities=show.identities)


def _score_big_gin(knocker: int, defender: int, rules: Rules, upcard: int, arrangement) -> KnockResult:
    """R24, R29, R33: all 11 cards melded; no layoffs, F is the defender's plain deadwood."""
    if not knock.big_gin_legal(rules.knock_values, True):
        raise ValueError("big gin is not allowed: big_gin_bonus is null (R24)")
    if arrangement is not None:
        raise ValueError("big gin takes no arrangement: all 11 cards are melded")
    melds, deadwood_cards = solver.arrangement(knocker, rules)
    if deadwood_cards:
        raise ValueError(f"not big gin: {cards.to_str(deadwood_cards)} left unmelded (R24)")
    f = solver.deadwood(defender, rules)
    return KnockResult(kind="big_gin", knocker_deadwood=0, defender_deadwood=f, layoffs=(),
                       points=knock.big_gin_points(rules.knock_values, f, upcard), winner="knocker",
                       knocker_melds=tuple(tuple(m) for m in melds), layoff_melds=((),) * len(melds),
                       identities=tuple(sorted(pair for m in melds for pair in getattr(m, "identities", {}).items())))
