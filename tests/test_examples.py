"""Every worked example X1-X9 and edge case E1-E12 of docs/rules.md, under each preset it names.

Scores go through ``engine.score_knock``; play (first turn, wall, taken card) through scripted decks and
``engine.step``. X10 is a match and lives in test_match.py.
"""

from __future__ import annotations

import pytest

from gin_env.game import actions, cards, engine
from gin_env.game.rules import Rules
from tests.scripted import PRESETS, act, hand, legal_names, make_deck

P = cards.parse


def score(knocker: str, defender: str, preset: str, **kwargs) -> engine.KnockResult:
    return engine.score_knock(P(knocker), P(defender), Rules.preset(preset), **kwargs)


def melds_as_sets(melds) -> set[frozenset[int]]:
    return {frozenset(m) for m in melds}


# ---------------------------------------------------------------------------------------------------------------
# X1: the minimum-deadwood arrangement is not obvious (R6, R7)
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", PRESETS)
def test_x1a_best_arrangement_leaves_2(preset):
    result = score("4H 4C 4S 5H 6H 7H 9C 9D 9S 2D", "AS 3S 5S 7S JS KS 2H 8H TH QH", preset)
    assert result.knocker_deadwood == 2
    assert melds_as_sets(result.knocker_melds) == {frozenset(P("4C 4H 4S")), frozenset(P("5H 6H 7H")),
                                                   frozenset(P("9C 9D 9S"))}


def test_x1a_oklahoma_two_upcard_allows_the_knock_only_with_the_exact_deadwood():
    """Upcard 2S caps L at 2 (R46): DW 2 may knock, which a sets-first or longest-run solver (10) would refuse."""
    state = engine.new_hand(Rules.preset("oklahoma"), dealer=1, deck=make_deck(
        "4H 4C 4S 5H 6H 7H 9C 9D 9S 2D", "AS 3S 5S 7S JS KS 2H 8H TH QH", upcard="2S", stock="KD"))
    assert state.knock_limit == 2
    state = act(state, "PASS", "PASS", "DRAW_STOCK")
    assert "KNOCK(KD)" in legal_names(state)
    assert act(state, "KNOCK(KD)").outcome.knocker_deadwood == 2


@pytest.mark.parametrize("preset", PRESETS)
def test_x1b_knock_allowed_with_run_not_sets_first(preset):
    result = score("3H 3C 3S 4H 5H 9C 9D 9S 2C AD", "AS 5S 7S JS KS 2H 8H TH QH KD", preset)
    assert result.knocker_deadwood == 9
    assert melds_as_sets(result.knocker_melds) == {frozenset(P("3H 4H 5H")), frozenset(P("9C 9D 9S"))}


def test_x1b_engine_offers_the_knock():
    state = engine.new_hand(Rules.preset("standard"), dealer=1, deck=make_deck(
        "3H 3C 3S 4H 5H 9C 9D 9S 2C AD", "AS 5S 7S JS KS 2H 8H TH QH KD", upcard="QC", stock="KC"))
    state = act(state, "PASS", "PASS", "DRAW_STOCK")
    assert "KNOCK(KC)" in legal_names(state)


# ---------------------------------------------------------------------------------------------------------------
# X2-X7: showdowns (R21-R35)
# ---------------------------------------------------------------------------------------------------------------

X2_KNOCKER = "3S 4S 5S 8C 8D 8H JC QC KC 2D"
X2_DEFENDER = "2S 6S 7S 8S 9C 9D 9H AH 4H TC"


@pytest.mark.parametrize("preset", PRESETS)
def test_x2_layoffs_at_low_ends_knocker_scores_3(preset):
    result = score(X2_KNOCKER, X2_DEFENDER, preset)
    assert (result.kind, result.winner, result.points) == ("knock", "knocker", 3)
    assert (result.knocker_deadwood, result.defender_deadwood) == (2, 5)
    # 6S-7S-8S may go on the spade run or stay an own meld (same F); 2S and TC are laid off either way.
    assert set(P("2S TC")) <= set(result.layoffs)


def test_x2_without_layoffs_defender_keeps_17():
    """R26: with ``layoffs`` false (RLCard) F is the plain deadwood, 17, so the knocker scores 15."""
    result = engine.score_knock(P(X2_KNOCKER), P(X2_DEFENDER), Rules.preset("standard", layoffs=False))
    assert (result.kind, result.defender_deadwood, result.points, result.layoffs) == ("knock", 17, 15, ())


@pytest.mark.parametrize(("preset", "points"), [("standard", 11), ("seed-000", 11), ("foony", 26),
                                                ("openspiel", 26)])
def test_x3_chained_layoffs_make_an_undercut(preset, points):
    result = score("5H 6H 7H QC QD QS 2C 3C 4C 6D", "8H 9H 5C AC QH KD KH KS 3D 2S", preset)
    assert (result.kind, result.winner, result.points) == ("undercut", "defender", points)
    assert (result.knocker_deadwood, result.defender_deadwood) == (6, 5)
    assert sorted(result.layoffs) == sorted(P("8H 9H QH AC 5C"))


@pytest.mark.parametrize(("preset", "kind", "winner", "points"), [
    ("standard", "undercut", "defender", 10), ("foony", "undercut", "defender", 25), ("openspiel", "tie", None, 0)])
def test_x4_tie_is_an_undercut_unless_openspiel(preset, kind, winner, points):
    result = score("9D 9H 9S 3D 4D 5D JH QH KH 5C", "9C 6D TH 2S 3S 4S 7C 7H 7S 5H", preset)
    assert (result.kind, result.winner, result.points) == (kind, winner, points)
    assert (result.knocker_deadwood, result.defender_deadwood) == (5, 5)
    assert sorted(result.layoffs) == sorted(P("9C 6D TH"))


@pytest.mark.parametrize(("preset", "points"), [("standard", 11), ("foony", 26)])
def test_x5_joint_optimisation_breaks_a_four_set(preset, points):
    result = score("5C 6C 7C KD KH KS 2H 3H 4H 4D", "8C 8D 8H 8S 9C 2S 3S 4S AD 2D", preset)
    assert (result.kind, result.winner, result.points) == ("undercut", "defender", points)
    assert (result.knocker_deadwood, result.defender_deadwood) == (4, 3)
    assert sorted(result.layoffs) == sorted(P("8C 9C"))


X6_KNOCKER = "7S 8S 9S 7H 8H 9H 7D 8D 9D 2C"
X6_DEFENDER = "6S TH 8C KD KH KS 3H 4H 5H 4C"


@pytest.mark.parametrize("preset", PRESETS)
def test_x6_e5_auto_arrangement_lays_the_sets(preset):
    result = score(X6_KNOCKER, X6_DEFENDER, preset)
    assert (result.kind, result.points, result.defender_deadwood) == ("knock", 18, 20)
    assert result.layoffs == (cards.card("8C"),)
    assert melds_as_sets(result.knocker_melds) == {frozenset(P("7S 7H 7D")), frozenset(P("8S 8H 8D")),
                                                   frozenset(P("9S 9H 9D"))}


@pytest.mark.parametrize("preset", PRESETS)
def test_x6_explicit_runs_arrangement_is_legal_and_scores_10(preset):
    runs = [P("7S 8S 9S"), P("7H 8H 9H"), P("7D 8D 9D")]
    result = score(X6_KNOCKER, X6_DEFENDER, preset, arrangement=runs)
    assert (result.kind, result.points, result.defender_deadwood) == ("knock", 10, 12)
    assert sorted(result.layoffs) == sorted(P("6S TH"))


X7_KNOCKER = "AS 2S 3S 4S 7C 7D 7H TD JD QD"
X7_DEFENDER = "5S KD 7S 8C 8H 8S 2H 3H 4H 9C"


@pytest.mark.parametrize(("preset", "points"), [("standard", 51), ("foony", 56), ("openspiel", 56),
                                                ("seed-000", 61)])
def test_x7_gin_allows_no_layoffs(preset, points):
    result = score(X7_KNOCKER, X7_DEFENDER, preset)
    assert (result.kind, result.winner, result.points) == ("gin", "knocker", points)
    assert (result.knocker_deadwood, result.defender_deadwood, result.layoffs) == (0, 31, ())


def test_x7_gin_stays_gin_whatever_arrangement_is_offered():
    """R23: laying out less than gin (here the 4-run left out) cannot open the hand to layoffs."""
    partial = [P("7C 7D 7H"), P("TD JD QD")]
    result = score(X7_KNOCKER, X7_DEFENDER, "standard", arrangement=partial)
    assert (result.kind, result.points, result.layoffs) == ("gin", 51, ())


# ---------------------------------------------------------------------------------------------------------------
# X8 / E3: big gin with the card taken from the pile (R24)
# ---------------------------------------------------------------------------------------------------------------

X8_PLAYER = "2C 3C 4C 6C 9D 9H 9S JS QS KS"
X8_DEFENDER = "AH 2H 3H KC KD KH 7D 7S 4S 3D"


def x8_after_taking_5c(preset: str) -> engine.HandState:
    """The player (non-dealer) takes 5C, the upcard, from the discard pile."""
    state = engine.new_hand(Rules.preset(preset), dealer=1, deck=make_deck(X8_PLAYER, X8_DEFENDER, upcard="5C"))
    return act(state, "TAKE_UPCARD")


@pytest.mark.parametrize(("preset", "points"), [("seed-000", 71), ("foony", 52)])
def test_x8_e3_big_gin_with_the_taken_card(preset, points):
    result = score(X8_PLAYER + " 5C", X8_DEFENDER, preset)
    assert (result.kind, result.winner, result.points) == ("big_gin", "knocker", points)
    assert (result.knocker_deadwood, result.defender_deadwood, result.layoffs) == (0, 21, ())
    state = x8_after_taking_5c(preset)
    assert "BIG_GIN" in legal_names(state)
    state = act(state, "BIG_GIN")
    outcome = state.outcome
    assert (outcome.kind, outcome.winner, outcome.points, outcome.knocker, outcome.knock_card) == (
        "big_gin", 0, points, 0, -1)
    assert melds_as_sets(outcome.knocker_melds) == {frozenset(P("2C 3C 4C 5C 6C")), frozenset(P("9D 9H 9S")),
                                                    frozenset(P("JS QS KS"))}
    assert state.hands[0] == hand(X8_PLAYER + " 5C")


@pytest.mark.parametrize(("preset", "points"), [("standard", 41), ("openspiel", 46)])
def test_x8_without_big_gin_the_player_reaches_gin_by_another_discard(preset, points):
    state = x8_after_taking_5c(preset)
    legal = legal_names(state)
    assert "BIG_GIN" not in legal
    assert {"KNOCK(2C)", "KNOCK(6C)"} <= legal
    for card in ("2C", "6C"):
        outcome = act(state, f"KNOCK({card})").outcome
        assert (outcome.kind, outcome.winner, outcome.points, outcome.defender_deadwood) == ("gin", 0, points, 21)


def test_x8_taken_card_is_no_knock_card_under_standard():
    state = x8_after_taking_5c("standard")
    assert "KNOCK(5C)" not in legal_names(state)
    with pytest.raises(engine.IllegalActionError):
        engine.step(state, actions.knock(cards.card("5C")))


def test_x8_big_gin_is_not_an_action_when_off():
    with pytest.raises(engine.IllegalActionError, match="BIG_GIN"):
        engine.step(x8_after_taking_5c("standard"), actions.BIG_GIN)
    with pytest.raises(ValueError, match="big_gin_bonus"):
        score(X8_PLAYER + " 5C", X8_DEFENDER, "standard")


# ---------------------------------------------------------------------------------------------------------------
# X9 / E1: knock at exactly the limit (R20, R46, R47)
# ---------------------------------------------------------------------------------------------------------------

X9_DEFENDER = "3C 5C 5D 5H 7D 8C 9C TC KC KH"


def test_x9_oklahoma_knock_at_exactly_4_doubled_by_the_spade():
    result = score("AD 2D 3D 6C 6H 6S TS JS QS 4H", X9_DEFENDER, "oklahoma", upcard=cards.card("4S"))
    assert (result.kind, result.winner, result.points) == ("knock", "knocker", 52)
    assert (result.knocker_deadwood, result.defender_deadwood, result.layoffs) == (4, 30, ())


def test_x9_oklahoma_knock_over_the_limit_raises():
    with pytest.raises(ValueError, match="limit 4"):
        score("AD 2D 3D 6C 6H 6S TS JS QS 5S", X9_DEFENDER, "oklahoma", upcard=cards.card("4S"))


@pytest.mark.parametrize(("odd_card", "legal"), [("4H", True), ("5S", False)])
def test_x9_engine_knock_limit_from_the_upcard(odd_card, legal):
    """E1 through play: the knocker passes the 4S upcard, draws KD and knocks with it (DW 4 = L) or may not (5)."""
    state = engine.new_hand(Rules.preset("oklahoma"), dealer=1, deck=make_deck(
        f"AD 2D 3D 6C 6H 6S TS JS QS {odd_card}", X9_DEFENDER, upcard="4S", stock="KD"))
    assert state.knock_limit == 4
    state = act(state, "PASS", "PASS", "DRAW_STOCK")
    assert ("KNOCK(KD)" in legal_names(state)) is legal
    if legal:
        outcome = act(state, "KNOCK(KD)").outcome
        assert (outcome.kind, outcome.winner, outcome.points, outcome.knocker_deadwood) == ("knock", 0, 52, 4)
    else:
        assert not any(name.startswith("KNOCK") for name in legal_names(state))


@pytest.mark.parametrize(("deadwood_cards", "deadwood"), [("AD 4C 5D", 10), ("AD 4C 6D", 11)])
def test_e1_standard_limit_is_inclusive(deadwood_cards, deadwood):
    """E1 under standard: DW = L = 10 may knock, 11 may not. The player knocks with KD, drawn from the stock."""
    state = engine.new_hand(Rules.preset("standard"), dealer=1, deck=make_deck(
        f"AS 2S 3S 5H 6H 7H 8H {deadwood_cards}", "KH QC QD 4H 9D JC JH 9H 9C TD", upcard="KS", stock="KD"))
    state = act(state, "PASS", "PASS", "DRAW_STOCK")
    if deadwood == 10:
        assert act(state, "KNOCK(KD)").outcome.knocker_deadwood == 10
    else:
        assert "KNOCK(KD)" not in legal_names(state)
        with pytest.raises(engine.IllegalActionError, match="KNOCK"):
            engine.step(state, actions.knock(cards.card("KD")))


# ---------------------------------------------------------------------------------------------------------------
# Edge cases E2-E12
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("knocker", "defender", "knock_points", "undercut_points"), [
    ("5H 6H 7H QC QD QS 2C 3C 4C 6D", "8H 9H 5C AC QH KD KH KS 3D 2S", 32, 11),   # X3
    ("5C 6C 7C KD KH KS 2H 3H 4H 4D", "8C 8D 8H 8S 9C 2S 3S 4S AD 2D", 8, 11),    # X5
])
def test_e2_layoffs_turn_a_winning_knock_into_an_undercut(knocker, defender, knock_points, undercut_points):
    without = engine.score_knock(P(knocker), P(defender), Rules.preset("standard", layoffs=False))
    assert (without.kind, without.winner, without.points) == ("knock", "knocker", knock_points)
    with_layoffs = score(knocker, defender, "standard")
    assert (with_layoffs.kind, with_layoffs.winner, with_layoffs.points) == ("undercut", "defender", undercut_points)


E4_DEFENDER = "AS 2S 3S 4S KC KD KH 7D 7S 3D"  # F = 17


@pytest.mark.parametrize("preset", PRESETS)
def test_e4_ten_card_run_is_gin(preset):
    result = score("AH 2H 3H 4H 5H 6H 7H 8H 9H TH", E4_DEFENDER, preset)
    assert (result.kind, result.knocker_deadwood, result.defender_deadwood, result.layoffs) == ("gin", 0, 17, ())
    assert result.knocker_melds == (tuple(P("AH 2H 3H 4H 5H 6H 7H 8H 9H TH")),)


@pytest.mark.parametrize(("preset", "big_gin_points"), [("standard", None), ("foony", 48), ("seed-000", 67),
                                                        ("openspiel", None)])
def test_e4_eleven_card_run_is_big_gin(preset, big_gin_points):
    state = engine.new_hand(Rules.preset(preset), dealer=1, deck=make_deck(
        "AH 2H 3H 4H 5H 6H 7H 8H 9H TH", E4_DEFENDER, upcard="JH"))
    state = act(state, "TAKE_UPCARD")
    assert ("BIG_GIN" in legal_names(state)) is (big_gin_points is not None)
    # The far end of the run can always be shed for gin.
    assert act(state, "KNOCK(AH)").outcome.kind == "gin"
    if big_gin_points is not None:
        outcome = act(state, "BIG_GIN").outcome
        assert (outcome.kind, outcome.points) == ("big_gin", big_gin_points)


def test_e4_layoffs_extend_only_the_ends_of_a_long_run():
    """The 7-card run 3H-9H takes AH-2H below (chained) and TH above, nothing else."""
    result = score("3H 4H 5H 6H 7H 8H 9H AS 2C 3D", "AH 2H TH KS KD KC 5S 7D 9C QC", "standard")
    assert sorted(result.layoffs) == sorted(P("AH 2H TH"))
    assert (result.kind, result.knocker_deadwood, result.defender_deadwood, result.points) == ("knock", 6, 31, 25)


E6_PARTITIONS = {
    "3+3+5": ("AS 2S 3S 4H 4D 4C 5C 6C 7C 8C 9C", "AS"),
    "3+4+4": ("AS 2S 3S 7H 7D 7C 7S 9H TH JH QH", "2S"),
    "3+8": ("KS KH KD AC 2C 3C 4C 5C 6C 7C 8C", "KS"),
    "4+7": ("QS QH QD QC 2D 3D 4D 5D 6D 7D 8D", "5D"),
    "5+6": ("AH 2H 3H 4H 5H 6S 7S 8S 9S TS JS", "3H"),
    "11": ("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD", "7D"),
}


def e6_after_taking_upcard(partition: str, preset: str) -> engine.HandState:
    eleven, upcard = E6_PARTITIONS[partition]
    dealt = " ".join(c for c in eleven.split() if c != upcard)
    used = set(P(eleven))
    dealer = cards.to_str([c for c in range(cards.N_CARDS) if c not in used][:engine.HAND_SIZE])
    state = engine.new_hand(Rules.preset(preset), dealer=1, deck=make_deck(dealt, dealer, upcard=upcard))
    return act(state, "TAKE_UPCARD")


@pytest.mark.parametrize("partition", list(E6_PARTITIONS))
def test_e6_gin_with_eleven_cards_reachable_by_a_legal_discard(partition):
    state = e6_after_taking_upcard(partition, "standard")
    knocks = [a for a in engine.legal_actions(state) if actions.is_knock(a)]
    gins = [a for a in knocks if engine.step(state, a).outcome.kind == "gin"]
    assert gins
    assert actions.knock(state.taken) not in knocks
    assert actions.BIG_GIN not in engine.legal_actions(state)


@pytest.mark.parametrize("partition", list(E6_PARTITIONS))
@pytest.mark.parametrize("preset", ["foony", "seed-000"])
def test_e6_big_gin_applies_when_enabled(partition, preset):
    state = e6_after_taking_upcard(partition, preset)
    assert actions.BIG_GIN in engine.legal_actions(state)
    assert act(state, "BIG_GIN").outcome.kind == "big_gin"


E7_KNOCKER = "AS 2S 3S 5H 6H 7H 8D 8C 8S"
E7_OTHER = "KH QC QD 4H 9D JC JH 9H 9C TD"


@pytest.mark.parametrize("preset", ["standard", "openspiel"])
def test_e7_upcard_taker_may_knock_on_the_first_turn(preset):
    state = engine.new_hand(Rules.preset(preset), dealer=1, deck=make_deck(f"{E7_KNOCKER} KS", E7_OTHER,
                                                                          upcard="2D"))
    assert not any(name.startswith("KNOCK") for name in legal_names(state))  # 10 dealt cards never knock
    outcome = act(state, "TAKE_UPCARD", "KNOCK(KS)").outcome
    assert (outcome.kind, outcome.knocker, outcome.knocker_deadwood) == ("knock", 0, 2)


@pytest.mark.parametrize("preset", ["standard", "openspiel"])
def test_e7_dealer_taking_the_upcard_after_a_pass_may_knock(preset):
    state = engine.new_hand(Rules.preset(preset), dealer=1, deck=make_deck(E7_OTHER, f"{E7_KNOCKER} KS",
                                                                          upcard="2D"))
    state = act(state, "PASS")
    assert state.current == 1 and legal_names(state) == {"TAKE_DISCARD", "PASS"}  # the passer gave up the chance
    outcome = act(state, "TAKE_UPCARD", "KNOCK(KS)").outcome
    assert (outcome.kind, outcome.knocker, outcome.knocker_deadwood) == ("knock", 1, 2)


@pytest.mark.parametrize("preset", ["standard", "openspiel"])
def test_e7_non_dealer_may_knock_after_both_passed(preset):
    state = engine.new_hand(Rules.preset(preset), dealer=1, deck=make_deck(f"{E7_KNOCKER} KS", E7_OTHER,
                                                                          upcard="QH", stock="2D"))
    outcome = act(state, "PASS", "PASS", "DRAW_STOCK", "KNOCK(KS)").outcome
    assert (outcome.kind, outcome.knocker, outcome.knocker_deadwood) == ("knock", 0, 2)


@pytest.mark.parametrize("preset", ["standard", "openspiel"])
def test_e7_dealer_first_turn_may_be_a_knock(preset):
    state = engine.new_hand(Rules.preset(preset), dealer=1, deck=make_deck(E7_OTHER, f"{E7_KNOCKER} KS",
                                                                          upcard="QH", stock="2D"))
    outcome = act(state, "TAKE_UPCARD", "DISCARD(KH)", "DRAW_STOCK", "KNOCK(KS)").outcome
    assert (outcome.kind, outcome.knocker, outcome.knocker_deadwood) == ("knock", 1, 2)


def test_e8_queen_king_ace_is_no_run():
    """DW(QS KS AS ...) counts all three (21): no knock after any discard of these 11 cards."""
    state = engine.new_hand(Rules.preset("standard"), dealer=1, deck=make_deck(
        "QS KS AS 2H 3H 4H 5D 6D 7D 8D", "KH QC QD 9H JC JH 9C TD TC 5C", upcard="JD", stock="9D"))
    state = act(state, "PASS", "PASS", "DRAW_STOCK")
    assert not any(name.startswith("KNOCK") for name in legal_names(state))


def test_e8_nothing_is_laid_off_across_king_ace():
    """KS does not go below AS-2S-3S and AH does not go above JH-QH-KH."""
    result = score("AS 2S 3S JH QH KH 5D 6D 7D 2C", "KS AH 9C 9D 9S 4C 5C 6C TD 8H", "standard")
    assert (result.kind, result.knocker_deadwood, result.defender_deadwood, result.layoffs, result.points) == (
        "knock", 2, 29, (), 27)


@pytest.mark.parametrize(("preset", "points"), [("standard", 20), ("foony", 25), ("openspiel", 25),
                                                ("seed-000", 30)])
def test_e9_gin_against_zero_deadwood_scores_the_bonus(preset, points):
    result = score("AS 2S 3S 4H 5H 6H 7D 8D 9D TD", "7C 8C 9C TC JH JS JD KS KH KC", preset)
    assert (result.kind, result.winner, result.defender_deadwood, result.points) == ("gin", "knocker", 0, points)


E10_KNOCKER = "AS 2S 3S 5H 6H 7H 8D 8C 8S TD"   # DW 10: may knock with whatever it draws
E10_DEFENDER = "KH KD QC QD JC JH 9H 9C 2D 3D"  # F = 83, nothing to lay off
#: Stock draws before the last legal one: 31 - wall(2) = 29 draws in all (R37).
DRAWS_BEFORE_LAST = 28


def draw_and_discard(state: engine.HandState, draws: int) -> engine.HandState:
    """Each player in turn draws from the stock and discards the card drawn (legal at once, R16)."""
    for _ in range(draws):
        drawn = state.deck[state.stock_top]
        state = engine.step(state, actions.DRAW_STOCK)
        state = engine.step(state, actions.discard(drawn))
        engine.validate(state)
    return state


def e10_at_last_draw(preset: str) -> engine.HandState:
    """The non-dealer has just taken the third-last stock card (the 29th draw)."""
    state = engine.new_hand(Rules.preset(preset), dealer=1, deck=make_deck(E10_KNOCKER, E10_DEFENDER, upcard="KS"))
    state = draw_and_discard(act(state, "PASS", "PASS"), DRAWS_BEFORE_LAST)
    assert (state.current, engine.stock_size(state)) == (0, 3)
    state = act(state, "DRAW_STOCK")
    assert engine.stock_size(state) == 2
    return state


@pytest.mark.parametrize("preset", ["standard", "openspiel"])
def test_e10_knock_on_the_third_last_card_is_scored(preset):
    state = e10_at_last_draw(preset)
    drawn = cards.card_str(state.deck[state.stock_top - 1])
    outcome = act(state, f"KNOCK({drawn})").outcome
    assert (outcome.kind, outcome.winner, outcome.points) == ("knock", 0, 73)


def test_e10_discarding_instead_leaves_a_dead_hand():
    state = e10_at_last_draw("standard")
    drawn = cards.card_str(state.deck[state.stock_top - 1])
    state = act(state, f"DISCARD({drawn})")
    assert state.phase == engine.OVER
    assert (state.outcome.kind, state.outcome.winner, state.outcome.points) == ("dead", None, 0)


E11_HAND = "AS 2S 3S 4H 5H 6H 7D 8D 9D KC"   # DW 10


@pytest.mark.parametrize(("preset", "taken_card_allowed"), [("standard", False), ("openspiel", True)])
def test_e11_knock_card_must_not_be_the_card_taken(preset, taken_card_allowed):
    state = engine.new_hand(Rules.preset(preset), dealer=1, deck=make_deck(E11_HAND, E10_DEFENDER, upcard="QS"))
    state = act(state, "TAKE_UPCARD")
    legal = legal_names(state)
    assert "KNOCK(KC)" in legal
    assert ("KNOCK(QS)" in legal) is taken_card_allowed
    assert ("DISCARD(QS)" in legal) is taken_card_allowed
    if not taken_card_allowed:
        with pytest.raises(engine.IllegalActionError, match=r"KNOCK\(QS\)"):
            engine.step(state, actions.knock(cards.card("QS")))
    else:
        assert act(state, "KNOCK(QS)").outcome.knocker_deadwood == 10


def test_e12_card_fitting_a_set_and_a_run_is_laid_off_once():
    """5S fits 5H-5D-5C and 6S-7S-8S; on the run it lets 4S follow, so both are laid off, 5S once."""
    result = score("5H 5D 5C 6S 7S 8S 2H 3H 4H AC", "5S 4S KD QD JD 9C 9H 2D 3C TC", "standard")
    assert result.layoffs == tuple(sorted(P("4S 5S")))
    assert (result.kind, result.knocker_deadwood, result.defender_deadwood, result.points) == ("knock", 1, 33, 32)


def test_e12_four_card_set_takes_no_layoff():
    """Laying 7S in the 4-set of sevens (not on the spade run) leaves 6S nowhere to go: R22 picks it."""
    knocker, defender = "7S 7H 7D 7C 8S 9S TS AH 2C 3D", "6S JS KD QD 9C 9H 2D 3C TC AD"
    result = score(knocker, defender, "standard")
    assert frozenset(P("7S 7H 7D 7C")) in melds_as_sets(result.knocker_melds)
    assert (result.layoffs, result.defender_deadwood, result.points) == ((cards.card("JS"),), 60, 54)
    run_version = score(knocker, defender, "standard", arrangement=[P("7H 7D 7C"), P("7S 8S 9S TS")])
    assert (sorted(run_version.layoffs), run_version.points) == (sorted(P("6S JS")), 48)
