"""The expert agent: the strongest heuristic of the package, reading only its player's view.

How it plays:

* **Discards** look one draw ahead: for each card it may discard, it computes, over every unseen card, the least
  deadwood it would hold after drawing that card and discarding again, and keeps the hand whose average is lowest.
  Cards whose melds are dead (the completing cards lie in the discard pile) therefore look worthless, and a hand
  with many live outs beats one with the same deadwood and few. To this it adds the risk of feeding the opponent:
  the chance that the discard completes a meld with cards the opponent holds, where cards it took from the pile
  are certain, unseen cards are likely in proportion, and neighbours of what it discarded or declined less so.
  The same chance measures how likely the card is to be laid off on the opponent's melds when it knocks (R27),
  so this charge also keeps layoff options in hand.
* **Drawing**: it takes the face-up card only when, after its best discard, the deadwood is clearly lower than what
  a stock draw is expected to leave, or when it can then knock.
* **Racing for gin**: once it has stopped knocking short of gin (after a few draws), each discard is also credited
  for the chance that the next draw makes gin, so that of two hands with about the same expected deadwood it keeps
  the one with more gin outs. Against an opponent who also waits for gin, the hand is a race to gin, and this won
  59% of the matches against the expert without it (docs/expert.md).
* **Knocking**: gin always. Otherwise it knocks only in the first few draws, while the opponent's hand is still
  unformed; after that it keeps its deadwood low and waits for gin or for the opponent to knock into an undercut.
  Against knock-eager opponents this waiting beat every earlier knock schedule that was measured
  (docs/expert.md).

With jokers (docs/rules.md section 17) it plays the same way on the jokers solver: the lookahead's deadwoods are
R68's, so a joker is worth what it does there, its ``joker_value`` (R67) when it cannot be melded against the
deadwood it saves in every meld it may join, over every draw; the feed charge counts the opponent's jokers as
partners of any card and charges a joker discarded for every pair of naturals it would meld with; and the two jokers
are one card to discard or knock with (R71, R72). It never discards a joker it melds unless the lookahead says so.

Version history:

* v2 also plays jokers (the rules of section 17); under rules without jokers its play is exactly v2's before them.
* v2: races for gin once it waits for it (``gin_weight``); it wins 59% of duplicate matches against v1 under
  ``eaai``. ``ExpertAgent(ExpertParams(gin_weight=0))`` plays as v1, for numbers measured against it.
* v1: one-draw lookahead discards with the feed charge, the falling knock threshold, tuned against simple.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from gin_env.batch.observation import BatchView
from gin_env.game import actions, cards, engine, meld_partners, solver
from gin_env.game.actions import BIG_GIN, DISCARD_JOKER, DRAW_STOCK, PASS, TAKE_DISCARD
from gin_env.game.hand_rules.taken_card import blocks, kept_card
from gin_env.game.observation import PlayerView
from gin_env.game.rules import Rules

from .params import check_number


@dataclass(frozen=True)
class ExpertParams:
    """The expert's tunable numbers. The defaults won the most matches against ``simple`` under the ``eaai`` rules
    (docs/expert.md tells how they were measured)."""

    #: Take the face-up card when it leaves at least this much less deadwood than a stock draw is expected to.
    take_margin: float = 1.0
    #: Deadwood points a discard is charged per unit of probability that it completes an opponent meld.
    danger_weight: float = 4.0
    #: Factor on the chance that the opponent holds a neighbour of a card it discarded or declined.
    evidence_shrink: float = 0.5
    #: Knock with deadwood up to this before any card is drawn from the stock ...
    early_knock: float = 10.0
    #: ... falling linearly to ``late_knock`` over this many stock draws (both players' draws count).
    fade_draws: float = 3.0
    #: Deadwood the expert knocks with once the threshold has fallen; 0 means gin only.
    late_knock: float = 0.0
    #: Once the threshold has fallen (``fade_draws`` stock draws), a discard is also credited this many deadwood
    #: points per unit of chance that the next draw makes gin: a player that waits for gin should race for it.
    gin_weight: float = 30.0

    def __post_init__(self) -> None:
        check_number("expert", "take_margin", self.take_margin)
        check_number("expert", "danger_weight", self.danger_weight, low=0)
        check_number("expert", "evidence_shrink", self.evidence_shrink, low=0, high=1)
        for key in ("early_knock", "late_knock", "gin_weight"):
            check_number("expert", key, getattr(self, key), low=0)
        check_number("expert", "fade_draws", self.fade_draws, low=0, low_open=True)


class ExpertAgent:
    """Heuristic play from the view alone: one-draw lookahead discards, safe discards, a falling knock threshold.

    Deterministic: the generator is not used; ties go to the higher-valued, then the higher-id, card."""

    def __init__(self, params: ExpertParams | None = None) -> None:
        if params is not None and not isinstance(params, ExpertParams):
            raise TypeError(f"ExpertAgent params must be an ExpertParams, got {params!r}")
        self.params = params or ExpertParams()

    def __repr__(self) -> str:
        return f"ExpertAgent({self.params})"

    def act(self, view: PlayerView, rng: np.random.Generator) -> int:
        mask = view.legal_mask
        phase = view.phase
        if phase in (engine.OFFER, engine.DRAW):
            take = mask[TAKE_DISCARD] and self._wants_top_discard(view)
            return TAKE_DISCARD if take else (PASS if phase == engine.OFFER else DRAW_STOCK)
        if phase == engine.WALL:
            return TAKE_DISCARD if mask[TAKE_DISCARD] and self._wall_take_pays(view) else PASS
        if phase != engine.DISCARD:
            raise ValueError("no legal action: the hand is over")
        if mask[BIG_GIN]:
            return BIG_GIN
        knock = self._knock(view)
        return knock if knock is not None else actions.discard(self._discard(view))

    def act_batch(self, view: BatchView, rng: np.random.Generator) -> np.ndarray:
        """:meth:`act` for each game of a batched view (every game in it must have a legal action), one game at a
        time: the lookahead already batches its solves within a decision, so a loop over games costs little more."""
        return np.array([self.act(view.player_view(row), rng) for row in range(view.player.size)], dtype=np.int64)

    # -- knocking -------------------------------------------------------------------------------------------------

    def knock_threshold(self, view: PlayerView) -> float:
        """The most deadwood the expert knocks with now, never above the hand's knock limit (R20, R46).

        Right after the deal the opponent's hand is unformed, so an undercut is unlikely and a knock collects its
        raw deadwood. Later, a knock-eager opponent hands out undercuts (25 points under ``eaai``) to a player who
        keeps its deadwood low and waits, and gin scores the same bonus, so the threshold falls fast to
        ``late_knock``."""
        p = self.params
        draws = view.rules.deck.stock_after_deal - view.stock_size
        left = max(0.0, 1.0 - draws / p.fade_draws)
        return min(view.knock_limit, p.late_knock + (p.early_knock - p.late_knock) * left)

    def _knock(self, view: PlayerView) -> int | None:
        """The knock to make now (gin always, and any knock when no discard is legal: after a take at the wall,
        R38), or None. Among equal deadwoods it knocks with the highest card."""
        values = view.rules.deck.values
        options = [(dw, -values[c], -c) for c, dw in solver.discard_deadwoods(view.hand, view.rules).items()
                   if _moved(c, view.hand) and view.legal_mask[actions.knock(c)]]
        if not options:
            return None
        dw, _, negative_card = min(options)
        forced = not actions.discard_legal(view.legal_mask)
        if forced or dw == 0 or dw <= self.knock_threshold(view):
            return actions.knock(-negative_card)
        return None

    def _wall_take_pays(self, view: PlayerView) -> bool:
        """R38: at the wall the discard may be taken only to knock at once; do it when the knock threshold
        accepts the deadwood that taking leaves."""
        hand11 = view.hand | 1 << view.top_discard
        return any(dw <= self.knock_threshold(view) for c, dw in solver.discard_deadwoods(hand11, view.rules).items()
                   if not blocks(view.top_discard, c))

    # -- drawing --------------------------------------------------------------------------------------------------

    def _wants_top_discard(self, view: PlayerView) -> bool:
        """Take the face-up card if that lets the expert knock now, or leaves clearly less deadwood than a stock
        draw is expected to. It may not be discarded this turn (R16), so its value is the best other discard."""
        top = view.top_discard
        kept = kept_card(view.rules.discard_taken_card, top)
        take_dw = min(dw for c, dw in solver.discard_deadwoods(view.hand | 1 << top, view.rules).items()
                      if not blocks(kept, c))
        if take_dw <= self.knock_threshold(view):
            return True
        holds = _opponent_holds(view, self.params.evidence_shrink)
        expected_draw, _ = _after_draw(np.array([view.hand], dtype=np.uint64), view, holds)
        return take_dw <= expected_draw[0] - self.params.take_margin

    # -- discarding -----------------------------------------------------------------------------------------------

    def _discard(self, view: PlayerView) -> int:
        """The best discard by :meth:`discard_ranking`."""
        return self.discard_ranking(view)[0]

    def discard_ranking(self, view: PlayerView) -> list[int]:
        """Every card the view may discard, best first by the expert's score: the expected deadwood after the next
        draw, less ``gin_weight`` times the chance that the draw makes gin once the expert waits for gin, plus the
        charge for feeding the opponent; ties go to the higher-valued, then the higher-id, card."""
        p = self.params
        candidates = [c for c in cards.to_ids(view.hand)
                      if _moved(c, view.hand) and view.legal_mask[actions.discard(c)]]
        rests = np.array([view.hand & ~(1 << c) for c in candidates], dtype=np.uint64)
        holds = _opponent_holds(view, p.evidence_shrink)
        expected, gin = _after_draw(rests, view, holds)
        if view.rules.deck.stock_after_deal - view.stock_size >= p.fade_draws:
            expected = expected - p.gin_weight * gin
        values = view.rules.deck.values
        scores = [(expected[i] + p.danger_weight * _feeds(c, holds, view.rules), -values[c], -c)
                  for i, c in enumerate(candidates)]
        return [candidates[i] for i in sorted(range(len(candidates)), key=scores.__getitem__)]


def _after_draw(hands: np.ndarray, view: PlayerView, holds: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """For each 10-card hand (uint64 masks), after drawing a stock card and discarding the best card (R8): the
    expected least deadwood, and the chance that it is 0 (gin). Each unseen card weighs the chance that it is in the
    stock rather than the opponent's hand; with nothing left to draw, the hand's own deadwood and no chance."""
    unseen = np.array(cards.to_ids(view.unseen), dtype=np.int64)
    weights = 1.0 - np.array(holds)[unseen]
    if weights.sum() <= 0:
        return solver.deadwood_of_masks(hands, view.rules).astype(np.float64), np.zeros(hands.size)
    grown = (hands[:, None] | cards.card_bits(unseen)[None, :]).ravel()
    best, _ = solver.best_discards_of_masks(grown, view.rules)
    best = best.reshape(hands.size, unseen.size)
    weights = weights / weights.sum()
    return best @ weights, (best == 0) @ weights


def _opponent_holds(view: PlayerView, shrink: float) -> list[float]:
    """For each card, the probability that the opponent holds it: 1 for cards it took from the pile and still holds,
    0 for cards the viewer sees elsewhere, and for unseen cards its hidden share of them, times ``shrink`` for
    neighbours of cards it discarded or declined (it would have kept a card that melds with those)."""
    unseen = view.unseen
    hidden = engine.HAND_SIZE - view.opponent_known.bit_count()
    base = hidden / max(unseen.bit_count(), 1)
    shunned = 0
    # A joker it let go tells nothing of its naturals: a joker melds with any of them.
    for c in cards.to_ids((view.opponent_discards | view.opponent_declined) & cards.FULL_DECK):
        shunned |= meld_partners.NEIGHBOURS[c]
    holds = [0.0] * view.rules.deck.n_cards
    for c in cards.to_ids(unseen):
        holds[c] = base * shrink if shunned >> c & 1 else base
    for c in cards.to_ids(view.opponent_known):
        holds[c] = 1.0
    return holds


def _moved(c: int, hand: int) -> bool:
    """Whether ``c`` is the card its discard or knock moves: any natural, and of the jokers held only the lowest, since
    one action moves either (R71, R72)."""
    return c < cards.N_CARDS or c == actions.action_card(DISCARD_JOKER, hand)


#: Every pair of natural cards a joker makes a 3-card meld with (R65): two of a rank, or two of a suit within a run
#: window.
_JOKER_PAIRS = tuple((x, y) for x in range(cards.N_CARDS) for y in cards.to_ids(meld_partners.NEIGHBOURS[x]) if x < y)


def _feed_pairs(c: int, rules: Rules) -> tuple[tuple[int, int], ...]:
    """The pairs of cards that make a 3-card meld with ``c`` (R4, R5, R65): without jokers in the deck
    ``meld_partners.PAIRS``, with them :func:`_pairs_with_jokers`."""
    if not rules.jokers:
        return meld_partners.PAIRS[c]
    return _pairs_with_jokers(c, rules.jokers, rules.joker_min_naturals == 1)


@functools.cache
def _pairs_with_jokers(c: int, n_jokers: int, one_natural: bool) -> tuple[tuple[int, int], ...]:
    """:func:`_feed_pairs` in a deck of ``n_jokers`` jokers, worked out once per card: a natural also melds with any
    joker and one of its neighbours (and with both jokers when a meld may hold one natural, ``one_natural``), and a
    joker with any pair of :data:`_JOKER_PAIRS` (or with the other joker and any natural)."""
    jokers = cards.LARGEST_DECK.joker_ids[:n_jokers]
    if c >= cards.N_CARDS:
        others = [j for j in jokers if j != c] if one_natural else []
        return _JOKER_PAIRS + tuple((x, j) for j in others for x in range(cards.N_CARDS))
    pairs = meld_partners.PAIRS[c] + tuple((x, j) for j in jokers for x in cards.to_ids(meld_partners.NEIGHBOURS[c]))
    return pairs + ((tuple(jokers),) if one_natural and len(jokers) > 1 else ())


def _feeds(c: int, holds: list[float], rules: Rules) -> float:
    """Probability that ``c`` completes a 3-card meld with two cards the opponent holds (pairs taken as
    independent; :func:`_feed_pairs`)."""
    miss = 1.0
    for x, y in _feed_pairs(c, rules):
        miss *= 1.0 - holds[x] * holds[y]
    return 1.0 - miss
