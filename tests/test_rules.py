"""Rules presets and validation (docs/rules.md section 10)."""

import dataclasses
import pickle

import pytest

from gin_env.game import cards
from gin_env.game.rules import PRESETS, Rules


def test_every_preset_of_the_issue_exists():
    assert set(PRESETS) == {"standard", "eaai", "oklahoma", "foony", "seed-000", "openspiel", "jokers"}


def test_jokers_preset_is_standard_with_the_decks_two_jokers_R81():
    jokers = Rules.preset("jokers")
    assert (jokers.jokers, jokers.joker_value, jokers.joker_min_naturals) == (2, 20, 2)
    assert jokers.replace(jokers=0, name="standard") == Rules.preset("standard")
    assert Rules.preset("oklahoma", jokers=2).deck == jokers.deck


@pytest.mark.parametrize("name, key, value", [
    ("standard", "gin_bonus", 20), ("standard", "undercut_bonus", 10), ("standard", "big_gin_bonus", None),
    ("standard", "shutout", "double_game_bonus"), ("standard", "first_dealer", "cut_low"),
    ("eaai", "gin_bonus", 25), ("eaai", "undercut_bonus", 25), ("eaai", "game_bonus", 0), ("eaai", "box_bonus", 0),
    ("eaai", "shutout", "none"), ("eaai", "target", 100), ("eaai", "dealer_rotation", "alternate"),
    ("eaai", "dead_hand_dealer", "same"), ("eaai", "first_dealer", "random"),
    ("oklahoma", "target", 150), ("oklahoma", "oklahoma", True), ("oklahoma", "oklahoma_spade_double", True),
    ("oklahoma", "oklahoma_ace", "gin_only"),
    ("foony", "big_gin_bonus", 31), ("foony", "undercut_bonus", 25), ("foony", "dealer_rotation", "alternate"),
    ("foony", "dead_hand_dealer", "rotate"),
    ("seed-000", "gin_bonus", 30), ("seed-000", "big_gin_bonus", 50), ("seed-000", "first_dealer", "cut_high"),
    ("openspiel", "undercut_on_tie", False), ("openspiel", "discard_taken_card", True),
    ("openspiel", "wall_upcard_knock", True), ("openspiel", "target", None), ("openspiel", "gin_bonus", 25),
])
def test_preset_values(name, key, value):
    assert getattr(Rules.preset(name), key) == value


def test_unknown_preset_names_the_preset():
    with pytest.raises(ValueError, match="unknown rules preset 'stnadard'"):
        Rules.preset("stnadard")


@pytest.mark.parametrize("key, value", [
    ("knock_limit", -1), ("knock_limit", 1.5), ("gin_bonus", -5), ("wall", 40), ("target", 0),
    ("shutout", "triple"), ("dealer_rotation", "random"), ("first_dealer", "P3"), ("undercut_on_tie", 1),
    ("big_gin_bonus", -1), ("deal_mode", "twelve"), ("max_turns", 0), ("max_upcard_draws", 0),
    ("max_upcard_draws", 2.5), ("repeat_discard_ends", "yes"),
])
def test_impossible_values_name_the_key(key, value):
    with pytest.raises(ValueError, match=key):
        Rules(**{key: value})


def test_oklahoma_needs_an_upcard():
    with pytest.raises(ValueError, match="oklahoma"):
        Rules(oklahoma=True, deal_mode="eleven")


def test_overrides_and_immutability():
    rules = Rules.preset("standard", knock_limit=9)
    assert rules.knock_limit == 9 and rules.name == "standard+custom"
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.knock_limit = 10
    assert pickle.loads(pickle.dumps(rules)) == rules


def test_oklahoma_knock_limit_r46_and_doubling_r47():
    ok = Rules.preset("oklahoma")
    assert ok.hand_knock_limit(ok_card := 3) == 4  # 4S
    assert ok.hand_multiplier(ok_card) == 2
    assert ok.hand_knock_limit(13 + 12) == 10  # KH
    assert ok.hand_multiplier(13 + 12) == 1
    assert ok.hand_knock_limit(26) == 0  # AD, gin only
    assert ok.replace(oklahoma_ace="one").hand_knock_limit(26) == 1
    assert Rules.preset("standard").hand_knock_limit(3) == 10
    with pytest.raises(ValueError, match="not a card id"):
        ok.hand_knock_limit(-1)


@pytest.mark.parametrize("keys, key", [({"jokers": 3}, "jokers"), ({"jokers": True}, "jokers"),
                                       ({"jokers": 2, "joker_value": -1}, "joker_value"),
                                       ({"jokers": 2, "joker_value": 51}, "joker_value"),
                                       ({"jokers": 2, "joker_min_naturals": 0}, "joker_min_naturals"),
                                       ({"joker_min_naturals": 3}, "joker_min_naturals")])
def test_joker_keys_out_of_range_are_refused_naming_the_key(keys, key):
    """Section 17.1: ``Rules(jokers=3)``, ``joker_value`` outside 0..50 and ``joker_min_naturals`` outside 1, 2
    raise an error naming the key."""
    with pytest.raises(ValueError, match=f"'{key}'"):
        Rules(**keys)


def test_joker_keys_combine_with_every_preset_and_size_the_deck():
    """R62, R63, R80: jokers combine with any preset by override, the deck holds them and the stock grows by one a
    joker; with ``jokers`` = 0 the deck is the standard one whatever the other two keys say."""
    for name in PRESETS:
        rules = Rules.preset(name, jokers=2)
        assert rules.jokers == 2 and rules.deck.n_cards == 54 and rules.deck.stock_after_deal == 33
        assert rules.knock_limit == PRESETS[name].knock_limit
    assert Rules(jokers=1, joker_value=15).deck.values[-1] == 15
    assert Rules(joker_value=0, joker_min_naturals=1).deck == cards.STANDARD_DECK
    assert Rules(jokers=2, joker_value=0).joker_settings == (0, 2)


def test_oklahoma_with_a_joker_upcard_r79():
    """R79, E13, X17: a joker upcard caps the knock limit at ``joker_value`` (10 at the default 20, gin only at 0)
    and, being no spade, doubles nothing."""
    ok = Rules.preset("oklahoma", jokers=2)
    joker = ok.deck.joker_ids[0]
    assert (ok.hand_knock_limit(joker), ok.hand_multiplier(joker)) == (10, 1)
    assert ok.replace(joker_value=0).hand_knock_limit(joker) == 0
    assert ok.replace(joker_value=7).hand_knock_limit(joker + 1) == 7
    with pytest.raises(ValueError, match="not a card id"):
        Rules.preset("oklahoma").hand_knock_limit(cards.N_CARDS)
