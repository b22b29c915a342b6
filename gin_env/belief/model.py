"""The opponent model of :mod:`gin_env.belief`: how the opponent's hidden cards are drawn from the unseen ones.

:class:`OpponentModel` names the three numbers of the draw, :data:`UNIFORM` is the model that draws every
consistent set of hidden cards equally often, and :func:`draw_hidden` makes the draw for ``n`` worlds at once."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from gin_env.belief.network import NetworkModel
from gin_env.game import cards, meld_partners, solver
from gin_env.game.observation import PlayerView


@dataclass(frozen=True)
class OpponentModel:
    """A model of what the opponent kept, read from what it showed; the defaults are the search agent's
    (``agents/search.py``, measured in docs/search.md).

    The draw is direct, not a proposal with importance weights: the opponent's hidden cards are drawn from the
    unseen cards without replacement, each with a weight (:meth:`card_weights`), by Efraimidis-Spirakis keys (the
    cards with the ``hidden`` smallest ``-log(u) / weight``); then, ``replay`` times per card the opponent has
    discarded (rounded), the sampled hand draws one more unseen card (weighted) and sheds the hidden card that leaves
    it the least deadwood (ties at random). The worlds follow this procedure's distribution, a heuristic that leans
    toward formed hands; it is not a posterior of any opponent's play."""

    #: Weight of an unseen card next to one the opponent discarded or declined: it would have kept it had it held a
    #: meld partner.
    shunned_weight: float = 0.5
    #: Weight of an unseen card next to one the opponent took from the pile and holds: it took that card to meld it.
    #: A card next to both weighs the product; any other unseen card weighs 1.
    partner_weight: float = 2.0
    #: Draw-and-shed steps per card the opponent has discarded (0: the weighted draw alone).
    replay: float = 0.5

    def __post_init__(self) -> None:
        for name in ("shunned_weight", "partner_weight"):
            value = getattr(self, name)
            if not isinstance(value, numbers.Real) or not value > 0:
                raise ValueError(f"OpponentModel.{name} must be a positive number, got {value!r}")
        if not isinstance(self.replay, numbers.Real) or not self.replay >= 0:
            raise ValueError(f"OpponentModel.replay must be a number >= 0, got {self.replay!r}")

    def card_weights(self, view: PlayerView) -> np.ndarray:
        """(``rules.deck.n_cards``,) weight of each card for the opponent's hidden hand: 0 off ``view.unseen``;
        else 1, times ``shunned_weight`` next to a card the opponent discarded or declined, times ``partner_weight``
        next to a card it took from the pile and holds ("next to": a meld partner, ``meld_partners.NEIGHBOURS``).
        A joker melds with any card, so it is next to none: jokers shown lean no card, and an unseen joker weighs 1
        (R65)."""
        shunned = partners = 0
        for c in cards.to_ids((view.opponent_discards | view.opponent_declined) & cards.FULL_DECK):
            shunned |= meld_partners.NEIGHBOURS[c]
        for c in cards.to_ids(view.opponent_known & cards.FULL_DECK):
            partners |= meld_partners.NEIGHBOURS[c]
        weights = np.zeros(view.rules.deck.n_cards)
        for c in cards.to_ids(view.unseen):
            weights[c] = ((self.shunned_weight if shunned >> c & 1 else 1.0)
                          * (self.partner_weight if partners >> c & 1 else 1.0))
        return weights


#: Every card weighs 1 and nothing is replayed: each set of hidden cards the view allows is drawn equally often.
UNIFORM = OpponentModel(shunned_weight=1.0, partner_weight=1.0, replay=0.0)


def draw_hidden(view: PlayerView, unseen: np.ndarray, hidden: int, n: int, rng: np.random.Generator,
                model: OpponentModel | NetworkModel) -> np.ndarray:
    """(n, len(unseen)) bool: which of the ``unseen`` card ids (ascending) the opponent holds in each of ``n``
    worlds, ``hidden`` in each row, drawn as ``model`` says. Draws nothing from ``rng`` when ``hidden`` is 0."""
    u = unseen.size
    held = np.zeros((n, u), dtype=bool)
    if hidden == 0:
        return held
    weights = model.card_weights(view)[unseen]
    keys = -np.log(rng.random((n, u))) / weights
    held[np.arange(n)[:, None], np.argpartition(keys, hidden - 1, axis=1)[:, :hidden]] = True
    steps = int(round(model.replay * view.opponent_discards.bit_count()))
    if steps == 0 or hidden == u:
        return held
    bits = cards.card_bits(unseen)
    rows = np.arange(n)
    for _ in range(steps):
        keys = np.where(held, np.inf, -np.log(rng.random((n, u))) / weights)
        held[rows, keys.argmin(axis=1)] = True
        masks = np.bitwise_or.reduce(np.where(held, bits, np.uint64(0)), axis=1) | np.uint64(view.opponent_known)
        after = solver.discard_deadwoods_of_masks(masks, view.rules)[:, unseen].astype(np.float64)
        # A random half-point breaks ties between sheds that leave the same deadwood.
        after = np.where(held, after + rng.random((n, u)) * 0.5, np.inf)
        held[rows, after.argmin(axis=1)] = False
    return held
