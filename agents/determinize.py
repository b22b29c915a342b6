"""Determinization for the search agent (``agents/search.py``): full hand states that one player's view cannot tell
apart from the real one, the opponent's hidden cards drawn by what it showed (:func:`hidden_weights`) and improved
by replayed draws (:func:`determinize`; docs/search.md measures the weights and the replay)."""

from __future__ import annotations

import numpy as np

from gin_env.game import cards, engine, meld_partners, solver
from gin_env.game.actions import TAKE_DISCARD
from gin_env.game.engine import DEALT, DISCARD, DRAW
from gin_env.game.observation import PlayerView
from gin_env.game.rules import HAND_SIZE


def hidden_weights(view: PlayerView, shunned_weight: float, partner_weight: float) -> np.ndarray:
    """(52,) sampling weight of each card for the opponent's hidden hand: 0 off the unseen cards; else 1, times
    ``shunned_weight`` next to a card the opponent discarded or declined, times ``partner_weight`` next to a card it
    took from the pile and holds."""
    shunned = partners = 0
    for c in cards.to_ids(view.opponent_discards | view.opponent_declined):
        shunned |= meld_partners.NEIGHBOURS[c]
    for c in cards.to_ids(view.opponent_known):
        partners |= meld_partners.NEIGHBOURS[c]
    weights = np.zeros(cards.N_CARDS)
    for c in cards.to_ids(view.unseen):
        weights[c] = (shunned_weight if shunned >> c & 1 else 1.0) * (partner_weight if partners >> c & 1 else 1.0)
    return weights


def determinize(view: PlayerView, n: int, rng: np.random.Generator, shunned_weight: float = 0.5,
                partner_weight: float = 2.0, replay: float = 0.5) -> list[engine.HandState]:
    """``n`` full hand states that ``view`` cannot tell apart from the real one: the viewer's hand, the pile, the
    public records and the phase as the view shows them, the opponent holding the cards it is known to hold plus
    cards drawn from the unseen ones by :func:`hidden_weights` (without replacement, Efraimidis-Spirakis keys), the
    other unseen cards the stock in random order.

    What the view does not show is rebuilt as the least it implies: the viewer's own discards are the face-up cards
    the opponent did not discard, its own declined cards are empty, the order of the pile under its top card is
    arbitrary (no rule reaches it), ``turns`` counts the discards seen, and the counters of R60 and R61 start at 0."""
    if not view.to_act:
        raise ValueError("determinize needs the view of the player to act")
    unseen = cards.to_ids(view.unseen)
    hidden = HAND_SIZE - view.opponent_known.bit_count()
    if len(unseen) != hidden + view.stock_size:
        raise ValueError(f"view is inconsistent: {len(unseen)} unseen cards for {hidden} hidden and "
                         f"{view.stock_size} in the stock")
    weights = hidden_weights(view, shunned_weight, partner_weight)[unseen]
    held = _sample_hidden(view, np.asarray(unseen, dtype=np.int64), weights, hidden, n, rng, replay)
    # The rest of the unseen cards, in a uniformly random order, are the stock.
    order = np.argsort(np.where(held, np.inf, rng.random(held.shape)), axis=1, kind="stable")
    unseen_arr = np.asarray(unseen, dtype=np.int64)
    public = _public_fields(view)
    upcard = view.initial_upcard
    played = [c for c in range(cards.N_CARDS) if not view.unseen >> c & 1 and c != upcard]
    out = []
    for row in range(n):
        mine = unseen_arr[held[row]].tolist()
        opp_hand = view.opponent_known | cards.to_mask(mine)
        stock = unseen_arr[order[row, :view.stock_size]].tolist()
        # Cards dealt or drawn so far fill the deck above the stock, the upcard at its place (R10).
        front = played + mine
        if upcard != engine.NO_CARD:
            front = front[:DEALT] + [upcard] + front[DEALT:]
        out.append(engine.HandState(deck=tuple(front + stock), hands=_pair(view.player, view.hand, opp_hand),
                                    **public))
    return out


def _public_fields(view: PlayerView) -> dict:
    """The fields of the hand state that are the same in every determinization of ``view``: all but the deck and
    the hands (see :func:`determinize` for what is rebuilt and how)."""
    rules, me = view.rules, view.player
    top = view.top_discard
    top_bit = 1 << top if top != engine.NO_CARD else 0
    upcard = view.initial_upcard
    upcard_bit = 1 << upcard if upcard != engine.NO_CARD else 0
    own_known = view.hand & (view.opponent_discards | upcard_bit)
    visible = view.pile_rest | top_bit | view.opponent_known | own_known
    own_discards = visible & ~view.opponent_discards
    # The pile: the upcard at the bottom while it lies there untaken, the top card last.
    rest = cards.to_ids(view.pile_rest)
    if upcard_bit & view.pile_rest:
        rest = [upcard] + [c for c in rest if c != upcard]
    pile = tuple(rest) + ((top,) if top != engine.NO_CARD else ())
    phase, taken = view.phase, view.taken
    turns = own_discards.bit_count() + view.opponent_discards.bit_count()
    return dict(
        rules=rules, stock_top=cards.N_CARDS - view.stock_size, pile=pile, dealer=me if view.is_dealer else 1 - me,
        current=me, phase=phase, taken=taken,
        both_passed=phase == DRAW and bool(pile) and not view.legal_mask[TAKE_DISCARD],
        must_knock=phase == DISCARD and taken != engine.NO_CARD and view.stock_size == rules.wall,
        initial_upcard=upcard, knock_limit=view.knock_limit, turns=min(turns, rules.max_turns or turns),
        known=_pair(me, own_known, view.opponent_known), discarded=_pair(me, own_discards, view.opponent_discards),
        declined=_pair(me, 0, view.opponent_declined), outcome=None)


def _sample_hidden(view: PlayerView, unseen: np.ndarray, weights: np.ndarray, hidden: int, n: int,
                   rng: np.random.Generator, replay: float) -> np.ndarray:
    """(n, len(unseen)) bool: which unseen cards the opponent holds in each sample. A weighted draw without
    replacement (Efraimidis-Spirakis keys: the ``hidden`` smallest -log(u)/w), then ``replay`` times as many
    improvement steps as the opponent has discarded: draw one more unseen card (weighted), shed the hidden card that
    leaves its whole hand the least deadwood (ties at random). A player who has drawn and discarded for a while holds
    a hand that has kept its best cards, so the samples lean toward formed hands as the hand goes on."""
    u = unseen.size
    held = np.zeros((n, u), dtype=bool)
    if hidden == 0:
        return held
    keys = -np.log(rng.random((n, u))) / weights
    held[np.arange(n)[:, None], np.argpartition(keys, hidden - 1, axis=1)[:, :hidden]] = True
    steps = int(round(replay * view.opponent_discards.bit_count()))
    if steps == 0 or hidden == u:
        return held
    bits = cards.card_bits(unseen)
    rows = np.arange(n)
    for _ in range(steps):
        keys = np.where(held, np.inf, -np.log(rng.random((n, u))) / weights)
        held[rows, keys.argmin(axis=1)] = True
        masks = np.bitwise_or.reduce(np.where(held, bits, np.uint64(0)), axis=1) | np.uint64(view.opponent_known)
        after = solver.discard_deadwoods_of_masks(masks)[:, unseen].astype(np.float64)
        after = np.where(held, after + rng.random((n, u)) * 0.5, np.inf)
        held[rows, after.argmin(axis=1)] = False
    return held


def _pair(me: int, mine, theirs) -> tuple:
    return (mine, theirs) if me == 0 else (theirs, mine)
