"""The sampler of :mod:`gin_env.belief`: full hand states one player's view cannot tell apart from the real one, as
``HandState``s (:func:`sample_worlds`) or straight into a ``HandBatch`` (:func:`sample_batch`). The package
docstring says what a world is and what "consistent" means."""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from gin_env.batch import kernels
from gin_env.batch.hand_batch import LIVE, HandBatch
from gin_env.belief.model import UNIFORM, OpponentModel, draw_hidden
from gin_env.belief.network import NetworkModel, check_rules
from gin_env.game import cards, engine
from gin_env.game.actions import TAKE_DISCARD
from gin_env.game.engine import DEALT, DISCARD, DRAW, OVER
from gin_env.game.observation import PlayerView, jokers_by_count


class Draws(NamedTuple):
    """``n`` worlds of one view as arrays: ``decks`` (n, ``rules.deck.n_cards``) int64, each world's deck (the stock
    from index ``n_cards - view.stock_size``), ``opponent_hands`` (n,) uint64 card masks, and the fields every world
    shares (``public``: the keyword arguments of ``engine.HandState`` other than ``deck`` and ``hands``).

    Jokers carry the ids the view names them by (``observation.jokers_by_count``): the unseen mask holds the unseen
    ones, so a world deals each of them to the opponent's hidden hand or to the stock like any unseen card, and its
    view names them as the view did (R72)."""

    decks: np.ndarray
    opponent_hands: np.ndarray
    public: dict


def sample_worlds(view: PlayerView, n: int, rng: np.random.Generator, *,
                  model: OpponentModel | NetworkModel | None = None) -> list[engine.HandState]:
    """``n`` worlds consistent with ``view``, as ``engine.HandState``s: uniformly over the consistent worlds when
    ``model`` is None, else the opponent's hidden cards drawn as ``model`` says (the stock order is uniform either
    way). The same ``rng`` state gives the same worlds."""
    draws = draw_worlds(view, n, rng, model=model)
    me, public = view.player, draws.public
    out = []
    for deck, theirs in zip(draws.decks.tolist(), draws.opponent_hands.tolist()):
        hands = (view.hand, theirs) if me == 0 else (theirs, view.hand)
        out.append(engine.HandState(deck=tuple(deck), hands=hands, **public))
    return out


def sample_batch(view: PlayerView, n: int, rng: np.random.Generator, *,
                 model: OpponentModel | NetworkModel | None = None) -> HandBatch:
    """The worlds of :func:`sample_worlds` (the same ones for the same ``rng`` state) as a ``HandBatch`` of ``n``
    games, ready to step: filled from the arrays directly, without building a ``HandState`` per world, and equal
    to ``HandBatch.from_states(sample_worlds(view, n, rng, model=model))``."""
    return batch_of_draws(view, draw_worlds(view, n, rng, model=model))


def batch_of_draws(view: PlayerView, draws: Draws) -> HandBatch:
    """The worlds ``draws`` of ``view`` (from :func:`draw_worlds`, or a selection of its rows) as a ``HandBatch``,
    one game per row, ready to step."""
    public = draws.public
    batch = HandBatch(view.rules, len(draws.opponent_hands))
    batch.deck[:] = draws.decks
    me = view.player
    batch.hands[:, me] = view.hand
    batch.hands[:, 1 - me] = draws.opponent_hands
    for name in ("known", "discarded", "declined"):
        getattr(batch, name)[:] = public[name]
    for name in ("stock_top", "dealer", "current", "phase", "taken", "both_passed", "must_knock", "initial_upcard",
                 "knock_limit", "turns"):
        getattr(batch, name)[:] = public[name]
    pile = public["pile"]
    batch.pile[:, :len(pile)] = pile
    batch.pile_len[:] = len(pile)
    if pile:
        batch.pile_top[:] = pile[-1]
        batch.pile_mask[:] = cards.to_mask(pile)
    batch.kind[:] = LIVE
    kernels.solve_entered(batch.rule_values, batch.numbers, batch.switches, batch.card_masks, batch.player_masks)
    return batch


def draw_worlds(view: PlayerView, n: int, rng: np.random.Generator, *,
                model: OpponentModel | NetworkModel | None = None) -> Draws:
    """The ``n`` worlds of :func:`sample_worlds` as arrays (:class:`Draws`), checking the arguments first."""
    model = _check(view, n, rng, model)
    unseen = np.asarray(cards.to_ids(view.unseen), dtype=np.int64)
    hidden = view.rules.deck.hand_size - view.opponent_known.bit_count()
    held = draw_hidden(view, unseen, hidden, n, rng, model)
    # The unseen cards the opponent does not hold, in a uniformly random order, are the stock.
    order = np.argsort(np.where(held, np.inf, rng.random(held.shape)), axis=1, kind="stable")
    stock = unseen[order[:, :view.stock_size]]
    theirs = unseen[np.nonzero(held)[1]].reshape(n, hidden)
    # The cards dealt or drawn so far fill the deck above the stock: the cards out of the stock in ascending order,
    # then the opponent's hidden ones, with the upcard at its place (R10).
    upcard = view.initial_upcard
    played = [c for c in range(view.rules.deck.n_cards) if not view.unseen >> c & 1 and c != upcard]
    front = np.concatenate([np.broadcast_to(np.asarray(played, dtype=np.int64), (n, len(played))), theirs], axis=1)
    if upcard != engine.NO_CARD:
        front = np.insert(front, DEALT, upcard, axis=1)
    opponent_hands = np.bitwise_or.reduce(cards.card_bits(theirs), axis=1) | np.uint64(view.opponent_known)
    return Draws(np.concatenate([front, stock], axis=1), opponent_hands, public_fields(view))


def public_fields(view: PlayerView) -> dict:
    """The fields of a world that are the same in every world of ``view``: all but the deck and the hands. What the
    view does not show is rebuilt as the least it implies (the package docstring lists how)."""
    rules, me = view.rules, view.player
    top = view.top_discard
    top_bit = 1 << top if top != engine.NO_CARD else 0
    upcard = view.initial_upcard
    upcard_bit = 1 << upcard if upcard != engine.NO_CARD else 0
    own_known = view.hand & (view.opponent_discards | upcard_bit) & cards.FULL_DECK | _taken_joker(view)
    visible = view.pile_rest | top_bit | view.opponent_known | own_known
    own_discards = visible & ~view.opponent_discards & cards.FULL_DECK | _own_joker_discards(view, visible)
    # The pile: the upcard at the bottom while it lies there untaken, the top card last.
    rest = cards.to_ids(view.pile_rest)
    if upcard_bit & view.pile_rest:
        rest = [upcard] + [c for c in rest if c != upcard]
    pile = tuple(rest) + ((top,) if top != engine.NO_CARD else ())
    phase, taken = view.phase, view.taken
    turns = own_discards.bit_count() + view.opponent_discards.bit_count()
    return dict(
        rules=rules, stock_top=rules.deck.n_cards - view.stock_size, pile=pile,
        dealer=me if view.is_dealer else 1 - me, current=me, phase=phase, taken=taken,
        both_passed=phase == DRAW and bool(pile) and not view.legal_mask[TAKE_DISCARD],
        must_knock=phase == DISCARD and taken != engine.NO_CARD and view.stock_size == rules.wall,
        initial_upcard=upcard, knock_limit=view.knock_limit, turns=min(turns, rules.max_turns or turns),
        known=_pair(me, own_known, view.opponent_known), discarded=_pair(me, own_discards, view.opponent_discards),
        declined=_pair(me, 0, view.opponent_declined), outcome=None)


def _taken_joker(view: PlayerView) -> int:
    """The viewer's record of jokers taken from the pile, the least the view implies: the joker it took this turn,
    if it took one (the view names it by count, R72), else none."""
    return 1 << view.taken if view.rules.deck.is_joker(view.taken) else 0


def _own_joker_discards(view: PlayerView, visible: int) -> int:
    """The viewer's record of its joker discards (R72: a count, as the lowest joker ids), the least the view
    implies: every joker that lay face up (``visible``: in the pile or taken from it) beyond those the opponent
    discarded."""
    count = max(0, (visible & view.rules.deck.joker_mask).bit_count()
                - (view.opponent_discards & view.rules.deck.joker_mask).bit_count())
    return jokers_by_count((count,))[0]


def _check(view: PlayerView, n: int, rng: np.random.Generator,
           model: OpponentModel | NetworkModel | None) -> OpponentModel | NetworkModel:
    """Refuse what the sampler cannot serve, naming it; the model to draw by (:data:`UNIFORM` for None)."""
    if not isinstance(view, PlayerView):
        raise TypeError(f"view must be a gin_env.game.observation.PlayerView, got {type(view).__name__}")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n must be a whole number of worlds >= 1, got {n!r}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if model is not None and not isinstance(model, (OpponentModel, NetworkModel)):
        raise TypeError(f"model must be a gin_env.belief.OpponentModel, a gin_env.belief.NetworkModel or None, got "
                        f"{type(model).__name__}")
    if isinstance(model, NetworkModel):
        check_rules(view.rules)
    if view.phase == OVER:
        raise ValueError("the hand of this view is over: every card is known, there is no hidden world to draw")
    if not view.to_act:
        raise ValueError(f"worlds are drawn from the view of the player to act; player {view.player} is waiting "
                         "for the opponent (its view does not show what the opponent took this turn)")
    hidden = view.rules.deck.hand_size - view.opponent_known.bit_count()
    if view.unseen.bit_count() != hidden + view.stock_size:
        raise ValueError(f"view is inconsistent: {view.unseen.bit_count()} unseen cards for {hidden} hidden and "
                         f"{view.stock_size} in the stock")
    return UNIFORM if model is None else model


def _pair(me: int, mine, theirs) -> tuple:
    return (mine, theirs) if me == 0 else (theirs, mine)
