"""What a player may know of a game with jokers (docs/rules.md R72): its view names jokers by count, never by id, in
the scalar and the batched views alike, and the observation appends R72's seven joker counts after the standard
layout, which stays a prefix."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env.batch import hand_batch as batch
from gin_env.batch.observation import batch_view, encode_batch
from gin_env.game import actions, cards, engine, observation
from gin_env.game.rules import Rules

JOKERS = Rules(jokers=2)
ONE_JOKER = Rules.preset("oklahoma", jokers=1, joker_value=0)
#: The fields of ``BatchView`` that hold cards, which must not tell the jokers apart either.
CARD_FIELDS = ("hand", "top_discard", "pile_rest", "opponent_known", "opponent_discards", "opponent_declined",
               "unseen", "taken")


def swapped(deck: np.ndarray) -> np.ndarray:
    """The same deal with the two jokers trading places."""
    out = deck.copy()
    first, second = (out == cards.N_CARDS).nonzero()[0][0], (out == cards.N_CARDS + 1).nonzero()[0][0]
    out[first], out[second] = out[second], out[first]
    return out


def random_hands(rules: Rules, n: int, seed: int):
    """``n`` hands of uniformly random legal play: each deal, then each step, as (deck, dealer, actions)."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        deck, dealer = rng.permutation(rules.deck.n_cards), int(rng.integers(2))
        state = engine.new_hand(rules, deck=deck, dealer=dealer)
        played = []
        while state.phase != engine.OVER:
            played.append(int(rng.choice(engine.legal_actions(state))))
            state = engine.step(state, played[-1])
        yield deck, dealer, played


def test_which_joker_is_which_never_reaches_a_view_R72():
    """Two deals that differ only in which joker lies where, played with the same actions: at every step both
    players' views, their encodings and the batched views are equal, so nothing a player sees names a joker. The
    hands play R72's case of a player who takes one joker and discards the other."""
    played_both = 0
    for deck, dealer, played in random_hands(JOKERS, 60, seed=5):
        worlds = [engine.new_hand(JOKERS, deck=d, dealer=dealer) for d in (deck, swapped(deck))]
        b = batch.HandBatch(JOKERS, 2)
        b.deal(np.arange(2), np.array([deck, swapped(deck)]), np.array([dealer, dealer]))
        took = [False, False]
        for action in played:
            for player in (0, 1):
                first, second = (observation.view(world, player) for world in worlds)
                assert first == second
                assert np.array_equal(observation.encode(first, True), observation.encode(second, True))
                both = batch_view(b, np.arange(2), np.full(2, player))
                for field in CARD_FIELDS:
                    row = getattr(both, field)
                    assert row[0] == row[1] == getattr(first, field), field
                encoded = encode_batch(both)
                assert np.array_equal(encoded[0], encoded[1])
            mover = worlds[0].current
            if action == actions.TAKE_DISCARD and worlds[0].pile[-1] >= cards.N_CARDS:
                took[mover] = True
            if action == actions.DISCARD_JOKER and took[mover] and worlds[0].hands[mover] >> cards.N_CARDS:
                played_both += worlds[0].hands[mover].bit_count() > 0
            worlds = [engine.step(world, action) for world in worlds]
            b.step(np.arange(2), np.array([action, action]))
    assert played_both, "no hand took a joker and threw the other: R72's case went untested"


def counted_by_events(rules: Rules, deck, dealer: int, played: list[int]):
    """R72's seven counts for both players at each step, worked out from the hand's public events alone, in
    ``JOKER_COUNTS`` order: jokers held, on top, below the top, known in the opponent's hand (taken from the pile,
    less jokers it discarded or knocked with since, never below 0), the opponent's joker discards and declined
    jokers (each up to the deck's), and the rest unseen."""
    state = engine.new_hand(rules, deck=deck, dealer=dealer)
    known, discards, declined = [0, 0], [0, 0], [0, 0]
    n = rules.jokers
    for action in [*played, None]:
        for player in (0, 1):
            other = 1 - player
            held = (state.hands[player] >> cards.N_CARDS).bit_count()
            on_top = int(bool(state.pile) and state.pile[-1] >= cards.N_CARDS)
            below = sum(c >= cards.N_CARDS for c in state.pile[:-1])
            yield state, player, (held, on_top, below, known[other], discards[other], declined[other],
                                  n - held - on_top - below - known[other])
        if action is None:
            return
        p = state.current
        top_is_joker = bool(state.pile) and state.pile[-1] >= cards.N_CARDS
        if action == actions.TAKE_DISCARD and top_is_joker:
            known[p] += 1
        elif action in (actions.DISCARD_JOKER, actions.KNOCK_JOKER):
            known[p] = max(known[p] - 1, 0)
            discards[p] = min(discards[p] + (action == actions.DISCARD_JOKER), n)
        elif action in (actions.PASS, actions.DRAW_STOCK) and top_is_joker and state.phase != engine.WALL:
            declined[p] = min(declined[p] + 1, n)
        state = engine.step(state, action)


@pytest.mark.parametrize("rules", [JOKERS, ONE_JOKER], ids=["jokers", "one-joker-oklahoma"])
def test_the_joker_counts_follow_the_public_events_R72(rules):
    """The observation's joker entries are R72's counts over the deck's jokers, as the public events give them."""
    at = observation.obs_layout(rules)["jokers"]
    seen = np.zeros(7)
    for deck, dealer, played in random_hands(rules, 80, seed=9):
        for state, player, counts in counted_by_events(rules, deck, dealer, played):
            entries = observation.encode(observation.view(state, player))[at] * rules.jokers
            np.testing.assert_allclose(entries, counts, atol=1e-6)
            seen += np.array(counts) > 0
    assert seen.all(), f"a count never reached 1 in these hands: {seen}"


def test_the_observation_appends_the_joker_counts_after_the_standard_layout_R72():
    """382 entries (388 with the match record, 104 more with what no player sees): the standard layout is a prefix
    and ``jokers`` follows it; the stock and deadwood entries keep the standard scales, so their bounds grow."""
    standard = observation.obs_layout()
    for record, privileged, size in ((False, False, 382), (True, False, 388), (False, True, 486), (True, True, 492)):
        layout = observation.obs_layout(JOKERS, match_record=record, privileged=privileged)
        assert observation.obs_size(record, privileged, JOKERS) == size
        assert {name: layout[name] for name in standard} == standard
        assert layout["jokers"] == slice(observation.obs_size(record, rules=Rules()),
                                         observation.obs_size(record, rules=Rules()) + 7)
    low, high = observation.obs_bounds(rules=JOKERS)
    assert high[standard["stock_size"]] == pytest.approx(33 / 31) and high[standard["deadwood"]] == pytest.approx(1.2)
    at = observation.obs_layout(JOKERS)["jokers"]
    for deck, dealer, played in random_hands(JOKERS, 20, seed=2):
        state = engine.new_hand(JOKERS, deck=deck, dealer=dealer)
        for action in played:
            for player in (0, 1):
                obs = observation.encode(observation.view(state, player))
                assert obs.shape == (382,) and (low <= obs).all() and (obs <= high).all()
                # The places of R72 hold every joker once: own hand, top, below the top, known, unseen.
                assert obs[at][[0, 1, 2, 3, 6]].sum() == pytest.approx(1)
            state = engine.step(state, action)


def test_a_view_names_its_jokers_lowest_first_by_place_R72():
    """The own hand's jokers are the lowest ids, the top discard's next, so a player holding one joker sees JK 52
    however the deal numbered it, and the top joker as 53; the joker actions move the lowest joker held."""
    deck = [*range(cards.N_CARDS + 2)]
    deck[0], deck[53] = 53, 0  # the non-dealer's first card is the second joker; the first lies deep in the stock
    deck[20], deck[52] = 52, 20  # ... until the upcard takes it
    state = engine.new_hand(JOKERS, deck=deck, dealer=1)
    v = observation.view(state, 0)
    assert v.hand >> cards.N_CARDS == 0b01 and v.top_discard == 53 and v.initial_upcard == 52
    assert v.unseen >> cards.N_CARDS == 0 and observation.view(state, 1).hand >> cards.N_CARDS == 0
    assert observation.view(state, 1).top_discard == 52
