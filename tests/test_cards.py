"""Card ids, strings and hand conversions, and the deck every card count derives from (docs/env.md "Action space",
"Observation space", docs/rules.md R1-R3, R10)."""

import numpy as np
import pytest

from gin_env.game import actions, cards, observation
from gin_env.game.rules import Rules


def test_ids_follow_suit_then_rank():
    assert cards.card("AS") == 0
    assert cards.card("TS") == 9
    assert cards.card("KH") == 25
    assert cards.card("TD") == 35
    assert cards.card("KC") == 51
    assert cards.card_str(9) == "TS"
    assert [cards.card_str(c) for c in range(52)] == [r + s for s in "SHDC" for r in "A23456789TJQK"]


def test_values_r3():
    assert [cards.value(cards.card(t)) for t in ("AS", "2H", "9D", "TC", "JS", "QH", "KD")] == [1, 2, 9, 10, 10, 10, 10]
    assert sum(cards.VALUES) == 4 * 85


@pytest.mark.parametrize("bad, token", [("1S", "1S"), ("AX", "AX"), ("A", "A"), ("10S", "10S")])
def test_malformed_strings_name_the_token(bad, token):
    with pytest.raises(ValueError, match=token):
        cards.parse(f"2C {bad} 3C")


def test_duplicates_raise():
    with pytest.raises(ValueError, match="duplicate card 'AS'"):
        cards.parse("AS 2S AS")
    with pytest.raises(ValueError, match="duplicate"):
        cards.to_mask([0, 0])


def test_out_of_range_ids_raise():
    with pytest.raises(ValueError, match="out of range"):
        cards.to_mask([54])
    with pytest.raises(ValueError, match="out of range"):
        cards.card_str(-1)


def test_conversions_round_trip():
    ids = cards.parse("AS TD KC 5H")
    mask = cards.to_mask(ids)
    assert cards.to_ids(mask) == sorted(ids)
    assert cards.to_mask("AS TD KC 5H") == mask
    assert cards.to_mask(["AS", "TD", "KC", "5H"]) == mask
    row = cards.to_array(mask)
    assert row.dtype == bool and row.sum() == 4
    assert cards.array_to_mask(row) == mask
    batch = cards.masks_to_array([mask, 0, cards.FULL_DECK])
    assert batch.shape == (3, 52)
    np.testing.assert_array_equal(batch[0], row)
    assert not batch[1].any() and batch[2].all()
    assert cards.to_str(mask) == "AS 5H TD KC"
    assert cards.hand_value(mask) == 1 + 5 + 10 + 10


def test_the_standard_deck_gives_every_count_of_the_game():
    """R1-R3, R10: 52 cards in 4 suits of 13 ranks, ten dealt to each player, one upcard, 31 in the stock; the most
    deadwood a hand holds is ten tens. The module's constants are this deck's, and ``Rules`` plays it."""
    deck = cards.STANDARD_DECK
    assert (deck.n_suits, deck.n_ranks, deck.n_jokers, deck.hand_size) == (4, 13, 0, 10)
    assert (deck.n_naturals, deck.n_cards, deck.dealt, deck.stock_after_deal) == (52, 52, 20, 31)
    assert deck.values == cards.VALUES and deck.max_deadwood == 100 and deck.full_mask == cards.FULL_DECK
    assert (cards.N_CARDS, cards.HAND_SIZE, cards.STOCK_AFTER_DEAL) == (52, 10, 31)
    assert Rules().deck == deck and Rules.preset("oklahoma", players=3).deck == deck
    assert actions.n_actions(Rules()) == actions.N_ACTIONS == 108
    assert observation.obs_size(rules=Rules()) == observation.OBS_SIZE == 375
    assert (observation.STOCK_SCALE, observation.DEADWOOD_SCALE) == (31, 100)


def test_jokers_follow_the_natural_cards_and_every_count_derives_from_the_deck():
    """Jokers are separate counts: the 52 natural ids stay, the jokers take the next ids, the stock grows by one a
    joker, and the most deadwood of a hand counts the jokers' value (two jokers and eight tens)."""
    deck = cards.Deck(n_jokers=2, joker_value=20)
    assert (deck.n_naturals, deck.n_cards, deck.stock_after_deal) == (52, 54, 33)
    assert list(deck.joker_ids) == [52, 53] and deck.is_joker(52) and not deck.is_joker(51)
    assert deck.values[:52] == cards.VALUES and deck.values[52:] == (20, 20)
    assert deck.max_deadwood == 2 * 20 + 8 * 10
    assert deck.parse("5S JK 7S JK") == [4, 52, 6, 53] and deck.card_str(53) == "JK" and deck.card_str(9) == "TS"
    assert cards.Deck(n_jokers=1).stock_after_deal == 32


@pytest.mark.parametrize("text, message", [("JK 2C", "holds none"), ("AS AS", "duplicate card 'AS'")])
def test_the_standard_deck_refuses_a_joker_and_a_duplicate(text, message):
    with pytest.raises(ValueError, match=message):
        cards.STANDARD_DECK.parse(text)
    with pytest.raises(ValueError, match="holds 1"):
        cards.Deck(n_jokers=1).parse("JK JK")


def test_the_module_reads_every_card_a_game_may_hold():
    """R62: ``cards.parse`` numbers the jokers 52 then 53 (a game's rules say how many it may hold), and the
    module's conversions and values take them; a third joker is refused."""
    assert cards.parse("5S JK 7S JK") == [4, 52, 6, 53]
    assert cards.to_str([53, 4, 52]) == "5S JK JK" and cards.to_mask("JK") == 1 << 52
    assert cards.hand_value("JK 5S") == 25 and cards.hand_value("JK 5S", cards.Deck(n_jokers=1, joker_value=0)) == 5
    with pytest.raises(ValueError, match="holds 2"):
        cards.parse("JK JK JK")


@pytest.mark.parametrize("kwargs, key", [({"n_jokers": 3}, "n_jokers"), ({"n_jokers": True}, "n_jokers"),
                                         ({"joker_value": 51}, "joker_value"), ({"hand_size": 26}, "hand_size"),
                                         ({"n_suits": 5}, "suits"), ({"n_ranks": 12}, "ranks")])
def test_a_deck_out_of_bounds_is_refused_naming_the_key(kwargs, key):
    with pytest.raises(ValueError, match=key):
        cards.Deck(**kwargs)
