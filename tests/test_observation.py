"""The player's view and its encoding: layout, exact contents, bounds, and no peeking at hidden cards."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gin_env.game import cards, engine, solver
from gin_env.game.observation import (
    N_BIT_ENTRIES,
    OBS_HIGH,
    OBS_LAYOUT,
    OBS_LOW,
    OBS_SIZE,
    PLANES,
    PlayerView,
    encode,
    own_deadwood,
    view,
)
from gin_env.game.rules import Rules

ISSUE_FIELDS = ("hand", "top_discard", "pile_rest", "opponent_known", "opponent_discards", "opponent_declined",
                "unseen", "phase", "stock_size", "knock_limit", "deadwood", "scores")


def random_states(rules: Rules, seed: int, hands: int) -> list[engine.HandState]:
    """Every state of ``hands`` hands of uniformly random legal play, the final ones included."""
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(hands):
        state = engine.new_hand(rules, rng, dealer=int(rng.integers(2)))
        states.append(state)
        while state.phase != engine.OVER:
            legal = engine.legal_actions(state)
            state = engine.step(state, legal[rng.integers(len(legal))])
            states.append(state)
    return states


STATES = random_states(Rules.preset("standard"), seed=11, hands=40)
OPENSPIEL_STATES = random_states(Rules.preset("openspiel"), seed=12, hands=15)


def plane(obs: np.ndarray, name: str) -> int:
    """A 52-card plane of an encoding, back as a bitmask."""
    return cards.to_mask(np.flatnonzero(obs[OBS_LAYOUT[name]]).tolist())


def test_layout_is_contiguous_and_names_every_issue_field():
    slices = sorted(OBS_LAYOUT.values(), key=lambda s: s.start)
    assert slices[0].start == 0 and slices[-1].stop == OBS_SIZE
    assert all(a.stop == b.start for a, b in zip(slices, slices[1:]))
    assert set(ISSUE_FIELDS) <= set(OBS_LAYOUT)
    assert all(OBS_LAYOUT[p].stop - OBS_LAYOUT[p].start == 52 for p in PLANES)
    assert OBS_LAYOUT["phase"].stop - OBS_LAYOUT["phase"].start == len(engine.PHASE_NAMES)
    assert OBS_SIZE == 375 and OBS_LOW.shape == OBS_HIGH.shape == (OBS_SIZE,)


@pytest.mark.parametrize("states", [STATES, OPENSPIEL_STATES], ids=["standard", "openspiel"])
def test_view_matches_the_public_record_of_the_state(states):
    for state in states:
        for p in (0, 1):
            v = view(state, p, scores=(7, 30))
            opp = 1 - p
            pile = cards.to_mask(state.pile)
            top = state.pile[-1] if state.pile else -1
            assert v.hand == state.hands[p]
            assert v.top_discard == top
            assert v.pile_rest == pile & ~(1 << top if top >= 0 else 0)
            assert v.opponent_known == state.known[opp] and v.opponent_known & ~state.hands[opp] == 0
            assert v.opponent_discards == state.discarded[opp]
            assert v.opponent_declined == state.declined[opp]
            # Unseen: exactly the stock plus the opponent's cards not known from pickups (R11).
            stock = cards.to_mask(state.deck[state.stock_top:])
            assert v.unseen == stock | (state.hands[opp] & ~state.known[opp])
            assert v.stock_size == engine.stock_size(state)
            assert v.scores == ((7, 30) if p == 0 else (30, 7))
            assert v.is_dealer == (p == state.dealer)
            acting = p == state.current and state.phase != engine.OVER
            expected_mask = engine.legal_mask(state) if acting else np.zeros(108, dtype=bool)
            np.testing.assert_array_equal(v.legal_mask, expected_mask)
            assert v.to_act == acting


def test_deadwood_is_exact_for_10_cards_and_the_best_legal_discard_for_11():
    seen_blocked_case = False
    for state in STATES:
        p = state.current
        hand = state.hands[p]
        if hand.bit_count() == 10:
            assert own_deadwood(state, p) == solver.deadwood(hand)
            continue
        legal = [c for c in cards.to_ids(hand) if c != state.taken]
        assert own_deadwood(state, p) == min(solver.deadwood(hand & ~(1 << c)) for c in legal)
        # The card just taken from the pile may not be discarded (R16), so it must not count as a way out.
        if state.taken >= 0 and solver.deadwood(hand & ~(1 << state.taken)) < own_deadwood(state, p):
            seen_blocked_case = True
    assert seen_blocked_case, "no state where the taken card was the best discard: the test lost its teeth"


def test_encoding_round_trips_every_field_and_stays_in_bounds():
    for state in STATES:
        for p in (0, 1):
            v = view(state, p, scores=(40, 120))
            obs = encode(v)
            assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
            assert np.all(obs >= OBS_LOW) and np.all(obs <= OBS_HIGH)
            assert np.all(np.isin(obs[:N_BIT_ENTRIES], (0.0, 1.0)))
            assert plane(obs, "hand") == v.hand
            assert plane(obs, "top_discard") == (1 << v.top_discard if v.top_discard >= 0 else 0)
            for name in ("pile_rest", "opponent_known", "opponent_discards", "opponent_declined", "unseen"):
                assert plane(obs, name) == getattr(v, name), name
            assert np.flatnonzero(obs[OBS_LAYOUT["phase"]]).tolist() == [state.phase]
            assert obs[OBS_LAYOUT["is_dealer"]][0] == float(v.is_dealer)
            assert obs[OBS_LAYOUT["stock_size"]][0] == pytest.approx(v.stock_size / 31)
            assert obs[OBS_LAYOUT["knock_limit"]][0] == pytest.approx(v.knock_limit / 10)
            assert obs[OBS_LAYOUT["deadwood"]][0] == pytest.approx(v.deadwood / 100)
            own, opp = (40, 120) if p == 0 else (120, 40)
            np.testing.assert_allclose(obs[OBS_LAYOUT["scores"]], [min(own / 100, 1), min(opp / 100, 1)])


def test_every_card_is_in_exactly_one_plane_of_hand_pile_known_unseen():
    for state in STATES:
        v = view(state, state.current)
        top = 1 << v.top_discard if v.top_discard >= 0 else 0
        parts = [v.hand, top, v.pile_rest, v.opponent_known, v.unseen]
        assert sum(m.bit_count() for m in parts) == 52
        union = 0
        for m in parts:
            union |= m
        assert union == cards.FULL_DECK


def test_scores_outside_a_match_and_without_a_target_encode_as_zero():
    state = STATES[0]
    single_hand = dataclasses.replace(state, rules=Rules.preset("openspiel"))
    obs = encode(view(single_hand, 0, scores=(50, 50)))
    np.testing.assert_array_equal(obs[OBS_LAYOUT["scores"]], [0.0, 0.0])


def test_oklahoma_knock_limit_is_in_the_observation():
    rules = Rules.preset("oklahoma")
    # 4S as the initial upcard caps the limit at 4 (R46, X9).
    deck = cards.parse("AS 2S 3S 5S 6S 7S 8S 9S TS JS QS KS AH 2H 3H 5H 6H 7H 8H 9H 4S") + \
        [c for c in range(52) if c not in cards.parse("AS 2S 3S 5S 6S 7S 8S 9S TS JS QS KS AH 2H 3H 5H 6H 7H 8H 9H 4S")]
    state = engine.new_hand(rules, deck=deck, dealer=0)
    v = view(state, 1)
    assert v.knock_limit == 4
    assert encode(v)[OBS_LAYOUT["knock_limit"]][0] == pytest.approx(0.4)


def rehide(state: engine.HandState, viewer: int, rng: np.random.Generator) -> engine.HandState:
    """The same hand with the cards hidden from ``viewer`` dealt again: the opponent's cards not known from pickups
    and the stock, shuffled among themselves (the deck stays a permutation, so the state stays valid)."""
    opp = 1 - viewer
    hidden = state.hands[opp] & ~state.known[opp]
    stock = state.deck[state.stock_top:]
    pool = cards.to_ids(hidden) + list(stock)
    rng.shuffle(pool)
    new_hidden, new_stock = pool[:hidden.bit_count()], pool[hidden.bit_count():]
    hidden_positions = [i for i in range(state.stock_top) if hidden >> state.deck[i] & 1]
    deck = list(state.deck)
    for i, c in zip(hidden_positions, new_hidden):
        deck[i] = c
    deck[state.stock_top:] = new_stock
    hands = list(state.hands)
    hands[opp] = state.known[opp] | cards.to_mask(new_hidden)
    return dataclasses.replace(state, deck=tuple(deck), hands=tuple(hands))


def assert_same_view(a: PlayerView, b: PlayerView) -> None:
    for name in PlayerView._fields:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y, err_msg=name)
        else:
            assert x == y, name
    assert a == b and not a != b


def test_no_peeking_hidden_cards_and_stock_order_never_change_the_view():
    rng = np.random.default_rng(5)
    changed = 0
    for state in STATES:
        if state.phase == engine.OVER:
            continue  # the showdown reveals the opponent's hand
        for p in (0, 1):
            other = rehide(state, p, rng)
            engine.validate(other)
            changed += other.hands != state.hands
            assert_same_view(view(state, p), view(other, p))
            np.testing.assert_array_equal(encode(view(state, p)), encode(view(other, p)))
    assert changed > len(STATES) // 2, "the re-deal rarely changed anything: the test lost its teeth"


def test_revealed_cards_do_change_the_view():
    """The converse, so the no-peeking test cannot pass on a view that ignores the opponent entirely: cards the
    opponent took from the pile are public and must show."""
    for state in STATES:
        opp = 1 - state.current
        if state.known[opp]:
            other = dataclasses.replace(state, known=tuple(0 if p == opp else k for p, k in enumerate(state.known)))
            assert view(other, state.current).opponent_known != view(state, state.current).opponent_known
            assert view(other, state.current) != view(state, state.current)
            return
    pytest.fail("no state where the opponent held a card taken from the pile")


def test_the_layout_is_a_function_of_the_rules_and_the_flags():
    """The observation's layout comes from the rules' deck and the env's flags: the standard view first in every
    layout, then the match record, then what no player sees; a width is read back only where one layout has it."""
    from gin_env.game.observation import (
        PRIVILEGED_SIZE,
        RECORD_OBS_LAYOUT,
        obs_bounds,
        obs_layout,
        obs_size,
        observation_parts,
    )

    assert obs_layout() == OBS_LAYOUT and obs_layout(Rules(), match_record=True) == RECORD_OBS_LAYOUT
    full = obs_layout(Rules.preset("eaai"), match_record=True, privileged=True)
    assert list(full)[:len(RECORD_OBS_LAYOUT)] == list(RECORD_OBS_LAYOUT)
    assert full["stock_order"].stop == obs_size(True, True) == OBS_SIZE + 6 + PRIVILEGED_SIZE
    for record in (False, True):
        for privileged in (False, True):
            low, high = obs_bounds(record, privileged, Rules())
            assert low.shape == high.shape == (obs_size(record, privileged),)
            assert observation_parts(obs_size(record, privileged)) == (record, privileged)
    with pytest.raises(ValueError, match="no observation has 376 entries"):
        observation_parts(376)
