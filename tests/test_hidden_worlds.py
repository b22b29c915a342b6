"""Hidden information in the belief draws (docs/env.md, "Hidden information"; docs/belief.md): a draw of worlds
depends on the player's view and the generator alone, so two hands that differ only in cards the player has not
seen give the same worlds for the same seed, with the uniform sampler, the heuristic opponent model and the shipped
belief network, one world at a time or batched; and the uniform sampler finds the true hidden cards no more often
than chance."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from gin_env import belief
from gin_env.game import cards, engine
from gin_env.game.observation import view
from gin_env.game.rules import PRESETS, Rules
from tests import scripted
from tests.test_hidden_information import assert_same

#: Hands per preset, and the moves played into each before the view is taken (so hands are at every stage).
HANDS, MOVES = 4, (0, 9, 25, 41)
#: Worlds drawn per view for the equality checks, and per view for the chance test.
WORLDS, CHANCE_WORLDS = 64, 4000
#: Standard deviations the chance test allows: with a fixed seed it cannot flake, and a sampler that leaned
#: toward the true cards by even a few percent of the cards would pass this far beyond it.
SIGMAS = 6


def hand_at(rules: Rules, seed: int, moves: int) -> engine.HandState | None:
    """A hand of seeded legal play stopped after ``moves`` moves, at a decision; None if it ended before."""
    rng = np.random.default_rng(seed)
    state = engine.new_hand(rules, rng, dealer=int(rng.integers(2)))
    for _ in range(moves):
        state = engine.step(state, scripted.choose(state, rng))
        if state.phase == engine.OVER:
            return None
    return state


def hidden_cards(state: engine.HandState) -> tuple[int, list[int]]:
    """The player to act's unseen cards in ``state``: the opponent's cards not taken from the pile (a mask), and
    the stock, top first. The opponent's known jokers are a count (R72), so as many of the jokers it holds, the
    lowest, count as known and the rest as hidden."""
    opponent = 1 - state.current
    hand, known, jokers = state.hands[opponent], state.known[opponent], state.rules.deck.joker_mask
    held_jokers = cards.to_ids(hand & jokers)[:(known & jokers).bit_count()]
    return hand & ~(known & ~jokers) & ~cards.to_mask(held_jokers), list(state.deck[state.stock_top:])


def named_hidden_cards(state: engine.HandState, seen) -> tuple[int, int]:
    """:func:`hidden_cards` (a mask, and the stock's top card) under the ids the view ``seen`` names jokers by: the
    hidden jokers take the lowest of the view's unseen joker ids, the stock's the rest (R72). A fixed naming, so
    each named card is one of the view's unseen cards, like any other."""
    hand, stock = hidden_cards(state)
    jokers = state.rules.deck.joker_mask
    unseen_jokers = iter(cards.to_ids(seen.unseen & jokers))
    named = hand & ~jokers
    for _ in range((hand & jokers).bit_count()):
        named |= 1 << next(unseen_jokers)
    top = next(unseen_jokers) if state.rules.deck.is_joker(stock[0]) else stock[0]
    return named, top


def shifted(state: engine.HandState, rng: np.random.Generator) -> engine.HandState:
    """``state`` with every card the player to act has not seen moved to the place of another such card, jokers
    included."""
    hand, stock = hidden_cards(state)
    unseen = [c for c in rng.permutation(state.rules.deck.n_cards).tolist() if hand >> c & 1 or c in stock]
    moved = dict(zip(unseen, unseen[1:] + unseen[:1]))
    opponent = 1 - state.current
    hands = list(state.hands)
    hands[opponent] = state.hands[opponent] & ~hand | sum(1 << moved[c] for c in cards.to_ids(hand))
    other = dataclasses.replace(state, deck=tuple(moved.get(c, c) for c in state.deck), hands=tuple(hands))
    engine.validate(other)
    return other


def view_pairs():
    """(rules, view of a hand, view of its twin with the unseen cards moved, the hand) over presets and stages."""
    for preset in PRESETS:
        rules = Rules.preset(preset)
        for seed in range(HANDS):
            for moves in MOVES:
                state = hand_at(rules, 100 * seed + moves, moves)
                if state is not None:
                    twin = shifted(state, np.random.default_rng(seed))
                    assert twin.hands != state.hands or twin.deck != state.deck
                    yield rules, view(state, state.current), view(twin, twin.current), state


MODELS = {"uniform": lambda: None, "opponent model": belief.OpponentModel, "belief network": belief.NetworkModel}


@pytest.mark.parametrize("model", list(MODELS))
def test_worlds_depend_only_on_the_view_and_the_generator(model):
    """Under every preset, jokers included (R72: the twins may differ in where the unseen jokers lie). The belief
    network reads views of the standard deck only, so it refuses a view with jokers, and the twin's alike."""
    made = MODELS[model]()
    pairs = refused = 0
    for rules, seen, twin, _ in view_pairs():
        assert seen == twin
        if isinstance(made, belief.NetworkModel) and rules.jokers:
            refused += assert_refused_alike(seen, twin, made)
            continue
        for draw in (belief.sample_worlds, belief.draw_worlds):
            assert_same(draw(seen, WORLDS, np.random.default_rng(5), model=made),
                        draw(twin, WORLDS, np.random.default_rng(5), model=made), f"{draw.__name__}")
        batches = [belief.sample_batch(v, WORLDS, np.random.default_rng(5), model=made) for v in (seen, twin)]
        for field in ("numbers", "switches", "card_masks", "player_masks", "deck", "pile"):
            assert_same(getattr(batches[0], field), getattr(batches[1], field), field)
        pairs += 1
    networked = isinstance(made, belief.NetworkModel)
    jokers_presets = sum(bool(Rules.preset(preset).jokers) for preset in PRESETS)
    assert pairs >= (len(PRESETS) - (jokers_presets if networked else 0)) * HANDS
    assert refused >= jokers_presets * HANDS if networked else refused == 0


def assert_refused_alike(seen, twin, network: belief.NetworkModel) -> int:
    """Every draw of ``seen`` and ``twin`` by ``network`` is refused with the same one-line error; 1."""
    messages = set()
    for v in (seen, twin):
        for draw in (belief.sample_worlds, belief.draw_worlds, belief.sample_batch):
            with pytest.raises(ValueError, match="belief network") as refusal:
                draw(v, WORLDS, np.random.default_rng(5), model=network)
            messages.add(str(refusal.value))
    assert len(messages) == 1
    return 1


def test_the_uniform_sampler_holds_the_true_hidden_cards_no_more_often_than_chance():
    """Over every view of :func:`view_pairs`, the true hidden cards found in the drawn opponent hands, and the true
    stock top found on top of the drawn stock, against their exact expectations.

    In a view with ``u`` unseen cards of which the opponent hides ``h``, a uniform world's hidden hand holds a
    hypergeometric number of the true ones (``h`` drawn from ``u`` with ``h`` marked): mean ``h * h / u``. The true
    stock top lies on top of the drawn stock with chance ``1 / u`` (it is left out of the hand with chance
    ``(u - h) / u``, then on top of ``u - h`` cards with chance ``1 / (u - h)``). Both hold for any fixed set of
    ``h`` unseen cards, so with jokers the true ones are counted under a fixed naming (:func:`named_hidden_cards`,
    R72)."""
    found = found_mean = found_var = tops = tops_mean = tops_var = 0.0
    for _, seen, _, state in view_pairs():
        hand, top = named_hidden_cards(state, seen)
        u, h = seen.unseen.bit_count(), hand.bit_count()
        draws = belief.draw_worlds(seen, CHANCE_WORLDS, np.random.default_rng(9))
        drawn = draws.opponent_hands & ~np.uint64(seen.opponent_known)
        found += sum(int(x & hand).bit_count() for x in drawn.tolist())
        found_mean += CHANCE_WORLDS * h * h / u
        found_var += CHANCE_WORLDS * h * (h / u) * (1 - h / u) * ((u - h) / max(u - 1, 1))
        tops += int((draws.decks[:, seen.rules.deck.n_cards - seen.stock_size] == top).sum())
        tops_mean += CHANCE_WORLDS / u
        tops_var += CHANCE_WORLDS * (1 / u) * (1 - 1 / u)
    assert abs(found - found_mean) <= SIGMAS * math.sqrt(found_var), (found, found_mean)
    assert abs(tops - tops_mean) <= SIGMAS * math.sqrt(tops_var), (tops, tops_mean)
