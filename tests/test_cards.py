"""Card ids, strings and hand conversions (docs/env.md "Action space", docs/rules.md R1-R3)."""

import numpy as np
import pytest

from gin_env.game import cards


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
        cards.to_mask([52])
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
