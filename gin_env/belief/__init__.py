"""Hidden worlds: full hand states that one player's view cannot tell apart from the real one (docs/belief.md).

A player sees its own hand, the pile and the public records, never the opponent's hidden cards or the order of
the stock. A **world** of a :class:`~gin_env.game.observation.PlayerView` is a full ``engine.HandState`` that
fills those in, ready to be played on (a search rolls them out, an evaluator averages over them).

API
---

``sample_worlds(view, n, rng, *, model=None) -> list[HandState]``
    ``n`` worlds of ``view``. ``model=None`` draws uniformly over the consistent worlds; an
    :class:`OpponentModel` draws the opponent's hidden cards by what it showed (the stock order stays uniform).
``sample_batch(view, n, rng, *, model=None) -> HandBatch``
    The same worlds (for the same ``rng`` state) as a ``HandBatch`` of ``n`` games, filled from arrays without a
    ``HandState`` per world: the fast path to roll out.
``draw_worlds(view, n, rng, *, model=None) -> Draws``
    The same worlds as arrays: ``decks`` (n, ``rules.deck.n_cards``), ``opponent_hands`` (n,) masks, ``public``
    (the shared fields).
``batch_of_draws(view, draws) -> HandBatch``
    Such arrays, or a selection of their rows (a reweighted draw), as a ``HandBatch`` to roll out.
``OpponentModel(shunned_weight=0.5, partner_weight=2.0, replay=0.5)``
    The opponent model, the search agent's by default; :data:`UNIFORM` is the model that ``model=None`` means
    (every weight 1, no replay).
``NetworkModel(network="belief-v1", replay=0.5)``
    The learned opponent model: a network reads the view and weighs each unseen card by its odds of lying in the
    opponent's hand; the rest of the draw is :class:`OpponentModel`'s (``gin_env.belief.network``). It reads views
    of the standard deck only: under rules with jokers it is refused (``network.check_rules``) before any draw.

``view`` must be the view of the player to act (``view.to_act``) in a hand that is not over: a waiting player's
view does not show which card the opponent took this turn, so its worlds would not be determined. ``n`` is a whole
number >= 1 and ``rng`` a ``numpy.random.Generator``; the same generator state gives the same worlds. Anything else
is a ``TypeError`` or ``ValueError`` that names it.

Consistent
----------

A world ``w`` of ``view`` is consistent when ``observation.view(w, view.player) == view``: every field of the view,
the legal mask included, is reproduced exactly, and ``engine.validate(w)`` passes. In it

* the viewer holds ``view.hand``; the opponent holds ``view.opponent_known`` (the cards it took from the pile and
  still holds) plus ``10 - |opponent_known|`` hidden cards from ``view.unseen``;
* the stock is the rest of the unseen cards, ``view.stock_size`` of them, in uniformly random order;
* the pile, the phase, the dealer, the knock limit, the taken card and the opponent's public records are the
  view's;
* with jokers (R62), each card above is a joker by the id the view names it by (``observation.jokers_by_count``):
  the unseen jokers are unseen cards like any other, so a world holds every joker of the deck, and its view names
  them again as the view did, since which joker is which is never information (R72).

What the view does not show and no rule reads from a later move is rebuilt as the least it implies, the same in
every world: the viewer's own discards are the face-up cards the opponent did not discard, its own declined cards
are none, the pile under its top card lies in card order (the upcard at the bottom while it lies there), ``turns``
counts the discards seen, and the counters of R60 and R61 start at 0. So the worlds differ only in the opponent's
hidden cards and the stock order, and **uniform** means: each (hidden cards, stock order) pair the view allows is
equally likely, that is each of the C(u, h) hidden hands times each of the s! orders of the stock, where ``u`` is
the number of unseen cards, ``h`` the hidden ones and ``s = u - h`` the stock size.

The model
---------

:class:`OpponentModel` is a direct weighted draw, not a proposal with importance weights: each world it returns
counts once. Its distribution is the procedure its docstring describes (weighted draw without replacement, then
draw-and-shed steps); a heuristic that leans the opponent's hand toward what its play suggests, measured as a
search agent's strength in docs/search.md, not a posterior. :class:`NetworkModel` is the same draw with each card's
weight the odds a network gives it; the network learned those odds from the hidden hands of played games, so its
worlds lean toward the hands that the players it watched held in such views (docs/belief.md).

Example::

    import numpy as np
    from gin_env import belief
    from gin_env.game import engine
    from gin_env.game.observation import view
    from gin_env.game.rules import Rules

    state = engine.new_hand(Rules.preset("standard"), np.random.default_rng(0), dealer=0)
    v = view(state, state.current)
    worlds = belief.sample_worlds(v, 1000, np.random.default_rng(1))
    assert all(view(w, v.player) == v for w in worlds)
    batch = belief.sample_batch(v, 1000, np.random.default_rng(1), model=belief.OpponentModel())
"""

from gin_env.belief.model import UNIFORM, OpponentModel
from gin_env.belief.network import NetworkModel
from gin_env.belief.worlds import Draws, batch_of_draws, draw_worlds, sample_batch, sample_worlds

__all__ = ["UNIFORM", "Draws", "NetworkModel", "OpponentModel", "batch_of_draws", "draw_worlds", "sample_batch",
           "sample_worlds"]
