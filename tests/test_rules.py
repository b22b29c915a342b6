"""Rules presets and validation (docs/rules.md section 10)."""

import dataclasses
import pickle

import pytest

from gin_env.game.rules import PRESETS, Rules


def test_every_preset_of_the_issue_exists():
    assert set(PRESETS) == {"standard", "eaai", "oklahoma", "foony", "seed-000", "openspiel"}


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
