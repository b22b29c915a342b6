"""Hidden worlds (gin_env.belief): every world reproduces the view it was drawn from, in every phase and preset;
uniform draws match an exact enumeration of the worlds; the batch path gives the same worlds as the states path;
the same generator gives the same worlds; bad arguments are clear errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from gin_env import belief
from gin_env.batch.hand_batch import HandBatch
from gin_env.belief import Draws, OpponentModel, batch_of_draws, draw_worlds, sample_batch, sample_worlds
from gin_env.game import actions, cards, engine
from gin_env.game.observation import view
from gin_env.game.rules import PRESETS, Rules

#: Reject uniformity only below this p-value: the test runs on fixed seeds, and must never be flaky.
P_VALUE_FLOOR = 1e-4
#: Uniform draws per enumerated world in the chi-square test.
DRAWS_PER_WORLD = 40
#: The most worlds a position may have to be enumerated in the chi-square test.
MAX_WORLDS = 500
#: Chance that the random player takes a face-up card when it may, so that hands have pickups and declines alike.
TAKE_CHANCE = 0.5


def random_action(state: engine.HandState, rng: np.random.Generator) -> int:
    """A random legal action: in the offer and the draw, take the face-up card half the time; in the discard phase
    end the hand rarely, so that most hands reach the wall."""
    legal = np.flatnonzero(engine.legal_mask(state))
    if state.phase == engine.DISCARD:
        discards = np.array([a for a in legal.tolist() if actions.is_discard(a)], dtype=legal.dtype)
        if discards.size and rng.random() < 0.95:
            legal = discards
    elif engine.TAKE_DISCARD in legal and len(legal) > 1:
        others = legal[legal != engine.TAKE_DISCARD]
        return engine.TAKE_DISCARD if rng.random() < TAKE_CHANCE else int(rng.choice(others))
    return int(rng.choice(legal))


def played_views(rules: Rules, seed: int, hands: int) -> list:
    """The view of the player to act at every decision of ``hands`` randomly played hands, and the finished
    states' views."""
    rng = np.random.default_rng(seed)
    views, ends = [], []
    for h in range(hands):
        state = engine.new_hand(rules, np.random.default_rng([seed, h]), dealer=h % 2)
        while state.phase != engine.OVER:
            views.append(view(state, state.current))
            state = engine.step(state, random_action(state, rng))
        ends.append(view(state, 0))
    return views, ends


def check_world(world: engine.HandState, v) -> None:
    engine.validate(world)
    assert view(world, v.player) == v
    theirs = world.hands[1 - v.player]
    assert theirs & v.opponent_known == v.opponent_known
    assert theirs & ~v.opponent_known & ~v.unseen == 0
    assert cards.to_mask(world.deck[world.stock_top:]) == v.unseen & ~theirs


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_world_reproduces_the_view(preset):
    """In every phase a player acts in (the wall phase where the rules offer it, R38), after pickups (the opponent
    holds known cards), declines and at the wall, each world of either model gives the viewer exactly its view, and
    is a valid hand."""
    rules = Rules.preset(preset)
    views, _ = played_views(rules, 1, 6)
    wanted = ("offer", "draw", "discard", "pickup", "decline", "must knock") + ("wall",) * rules.wall_upcard_knock
    seen = dict.fromkeys(wanted, False)
    for i, v in enumerate(views):
        for model in (None, OpponentModel()):
            for world in sample_worlds(v, 3, np.random.default_rng(i), model=model):
                check_world(world, v)
        seen[engine.PHASE_NAMES[v.phase]] = True
        seen["pickup"] |= v.opponent_known != 0
        seen["decline"] |= v.opponent_declined != 0
        seen["must knock"] |= v.phase == engine.DISCARD and v.stock_size == v.rules.wall
    assert all(seen.values()), f"{preset}: no view of {[k for k, s in seen.items() if not s]}"


@pytest.mark.parametrize("preset", ["eaai", "jokers"])
@pytest.mark.parametrize("model", [None, OpponentModel()], ids=["uniform", "model"])
def test_the_batch_holds_the_same_worlds(model, preset):
    """``sample_batch`` fills the arrays ``HandBatch.from_states`` would from the same worlds, and the games play on;
    with jokers too, whose decks and action masks are the larger deck's (R62, R72)."""
    views, _ = played_views(Rules.preset(preset), 2, 3)
    for i, v in enumerate(views[::4]):
        batch = sample_batch(v, 6, np.random.default_rng(i), model=model)
        expected = HandBatch.from_states(sample_worlds(v, 6, np.random.default_rng(i), model=model))
        for name in ("numbers", "switches", "card_masks", "player_masks", "deck", "pile"):
            assert np.array_equal(getattr(batch, name), getattr(expected, name)), name
        games = np.arange(6)
        assert np.array_equal(batch.legal_masks(games), np.broadcast_to(v.legal_mask, (6, v.legal_mask.size)))


def test_a_selection_of_drawn_worlds_fills_a_batch_of_those_worlds():
    """``batch_of_draws`` takes any rows of a draw (a reweighted search resamples them, some twice) and gives the
    games of exactly those worlds, in that order, ready to play."""
    views, _ = played_views(Rules.preset("eaai"), 4, 2)
    for i, v in enumerate(views[::5]):
        draws = draw_worlds(v, 8, np.random.default_rng(i), model=OpponentModel())
        rows = np.array([5, 0, 5, 7])
        batch = batch_of_draws(v, Draws(draws.decks[rows], draws.opponent_hands[rows], draws.public))
        worlds = sample_worlds(v, 8, np.random.default_rng(i), model=OpponentModel())
        assert batch.to_states() == [worlds[r] for r in rows]
        assert np.array_equal(batch.legal_masks(np.arange(4)), np.broadcast_to(v.legal_mask, (4, v.legal_mask.size)))


def chi_square_p_value(counts: np.ndarray, expected: float) -> float:
    """Upper tail of the chi-square statistic of ``counts`` against ``expected`` in each cell (Wilson-Hilferty's
    normal approximation, close for the hundreds of cells tested here)."""
    statistic = float(((counts - expected) ** 2).sum() / expected)
    dof = counts.size - 1
    z = ((statistic / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return 0.5 * math.erfc(z / math.sqrt(2))


def world_count(v) -> int:
    """How many worlds ``v`` allows: C(unseen, hidden) sets of hidden cards times stock_size! orders of the stock."""
    hidden = engine.HAND_SIZE - v.opponent_known.bit_count()
    return math.comb(v.unseen.bit_count(), hidden) * math.factorial(v.stock_size)


def enumerate_worlds(v) -> list[tuple[int, tuple[int, ...]]]:
    """Every (opponent hand, stock order) that ``v`` allows: each set of hidden cards from the unseen ones, with
    each order of the cards left as the stock."""
    unseen = cards.to_ids(v.unseen)
    hidden = engine.HAND_SIZE - v.opponent_known.bit_count()
    out = []
    for held in itertools.combinations(unseen, hidden):
        stock = [c for c in unseen if c not in held]
        theirs = v.opponent_known | cards.to_mask(held)
        out.extend((theirs, order) for order in itertools.permutations(stock))
    return out


@pytest.mark.parametrize("preset", ["standard", "jokers"])
def test_uniform_draws_match_exact_enumeration(preset):
    """On late-hand positions with few enough worlds to list, the uniform draws fall only on listed worlds, each
    consistent, and on each about equally often (chi-square, rejected only below ``P_VALUE_FLOOR``). With jokers,
    only positions where a joker is unseen: the draws deal it to the opponent and to each place of the stock as
    often as any card, under the id the view names it by (R72)."""
    rules = Rules.preset(preset)
    views, _ = played_views(rules, 3, 12)
    small = [v for v in views if world_count(v) <= MAX_WORLDS and (v.unseen & rules.deck.joker_mask or
                                                                     not rules.jokers)]
    assert len(small) >= 3
    for i, v in enumerate(small[:6]):
        worlds = enumerate_worlds(v)
        index = {world: k for k, world in enumerate(worlds)}
        draws = belief.draw_worlds(v, DRAWS_PER_WORLD * len(worlds), np.random.default_rng(i))
        stock_top = rules.deck.n_cards - v.stock_size
        keys = [(int(theirs), tuple(deck[stock_top:]))
                for theirs, deck in zip(draws.opponent_hands.tolist(), draws.decks.tolist())]
        assert set(keys) == set(worlds)
        counts = np.bincount([index[key] for key in keys], minlength=len(worlds))
        assert chi_square_p_value(counts, DRAWS_PER_WORLD) > P_VALUE_FLOOR
        for world in sample_worlds(v, 20, np.random.default_rng(i)):
            check_world(world, v)


def joker_counts(v) -> dict[str, int]:
    """How many jokers ``v`` shows in each place it names them (R72: by count): held, on the pile, known in the
    opponent's hand, unseen."""
    jokers = v.rules.deck.joker_mask
    top = 1 << v.top_discard if v.top_discard != engine.NO_CARD else 0
    return {"held": (v.hand & jokers).bit_count(), "pile": ((v.pile_rest | top) & jokers).bit_count(),
            "known": (v.opponent_known & jokers).bit_count(), "unseen": (v.unseen & jokers).bit_count()}


@pytest.mark.parametrize("model", [None, OpponentModel()], ids=["uniform", "model"])
def test_the_worlds_of_a_jokers_view_hold_every_joker_once(model):
    """R62, R72: a world of a view of a game with jokers deals the whole larger deck (``rules.deck.n_cards`` cards),
    and holds exactly ``rules.jokers`` jokers in all of its hands, stock and pile: the viewer's and the pile's as
    the view counts them, the opponent's known ones, and each unseen one either in the opponent's hidden hand or
    in the stock, both of which the draws use."""
    rules = Rules.preset("jokers")
    jokers = rules.deck.joker_mask
    views, _ = played_views(rules, 6, 4)
    dealt_to = {"opponent": 0, "stock": 0}
    for i, v in enumerate(views[::3]):
        counts = joker_counts(v)
        for world in sample_worlds(v, 8, np.random.default_rng(i), model=model):
            assert len(world.deck) == rules.deck.n_cards
            stock = cards.to_mask(world.deck[world.stock_top:])
            mine, theirs = world.hands[v.player], world.hands[1 - v.player]
            places = (mine, theirs, stock, cards.to_mask(world.pile))
            assert sum((place & jokers).bit_count() for place in places) == rules.jokers
            assert (mine & jokers).bit_count() == counts["held"]
            assert (cards.to_mask(world.pile) & jokers).bit_count() == counts["pile"]
            hidden_jokers = (theirs & jokers).bit_count() - counts["known"]
            assert hidden_jokers >= 0
            assert hidden_jokers + (stock & jokers).bit_count() == counts["unseen"]
            dealt_to["opponent"] += hidden_jokers
            dealt_to["stock"] += (stock & jokers).bit_count()
    assert all(dealt_to.values()), dealt_to


def test_the_same_generator_gives_the_same_worlds():
    views, _ = played_views(Rules.preset("oklahoma"), 4, 2)
    for v in views[::5]:
        for model in (None, OpponentModel()):
            one = sample_worlds(v, 8, np.random.default_rng(7), model=model)
            assert one == sample_worlds(v, 8, np.random.default_rng(7), model=model)
            assert one != sample_worlds(v, 8, np.random.default_rng(8), model=model)


def test_bad_arguments_are_clear_errors():
    views, ends = played_views(Rules.preset("standard"), 5, 1)
    v, rng = views[3], np.random.default_rng(0)
    with pytest.raises(ValueError, match="n must be"):
        sample_worlds(v, 0, rng)
    with pytest.raises(ValueError, match="n must be"):
        sample_batch(v, 2.5, rng)
    with pytest.raises(TypeError, match="PlayerView"):
        sample_worlds(tuple(v), 3, rng)
    with pytest.raises(TypeError, match="Generator"):
        sample_worlds(v, 3, 0)
    with pytest.raises(TypeError, match="OpponentModel"):
        sample_worlds(v, 3, rng, model={"replay": 0})
    with pytest.raises(ValueError, match="is over"):
        sample_worlds(ends[0], 3, rng)
    state = engine.new_hand(Rules.preset("standard"), np.random.default_rng(0), dealer=0)
    with pytest.raises(ValueError, match="player to act"):
        sample_worlds(view(state, 1 - state.current), 3, rng)
    for bad in ({"shunned_weight": 0}, {"partner_weight": -1.0}, {"replay": -0.5}, {"replay": "half"}):
        with pytest.raises(ValueError, match="OpponentModel"):
            OpponentModel(**bad)
