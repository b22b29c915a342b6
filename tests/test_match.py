"""A game to the target: first dealer (R9), running scores and the end (R40), bonuses and shutouts (R41-R43),
next dealer (R44), X10, and seeded full games with the hand invariants checked after every step."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env.game import actions, cards, engine, match
from gin_env.game.engine import HandOutcome
from gin_env.game.rules import Rules
from tests.scripted import choose


def won(winner: int, points: int, kind: str = "knock") -> HandOutcome:
    """A scripted scored hand (knocker = winner, or the other player for an undercut)."""
    knocker = 1 - winner if kind == "undercut" else winner
    return HandOutcome(kind=kind, winner=winner, points=points, knocker=knocker, knock_card=0, knocker_deadwood=0,
                       defender_deadwood=0, layoffs=(), knocker_melds=())


DEAD = engine.DEAD_OUTCOME
TIE = HandOutcome(kind="tie", winner=None, points=0, knocker=0, knock_card=0, knocker_deadwood=5,
                  defender_deadwood=5, layoffs=(), knocker_melds=())


class ScriptedCut:
    """Stands in for a Generator in R9 cuts: each ``choice`` call returns the next pair of cut cards."""

    def __init__(self, *pairs: str):
        self.pairs = [cards.parse(pair) for pair in pairs]

    def choice(self, n, size, replace):
        assert (n, size, replace) == (cards.N_CARDS, 2, False)
        return np.array(self.pairs.pop(0))


# ---------------------------------------------------------------------------------------------------------------
# First dealer (R9)
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("mode", "dealer"), [("P1", 0), ("P2", 1)])
def test_r9_fixed_first_dealer(mode, dealer):
    assert match.first_dealer(Rules.preset("standard", first_dealer=mode), np.random.default_rng(0)) == dealer


@pytest.mark.parametrize(("cut", "cut_low_dealer", "cut_high_dealer"), [
    ("3S 9H", 0, 1),   # P1 cuts the 3, P2 the 9
    ("KD AC", 1, 0),   # the ace is low (R2)
    ("TC JC", 0, 1),   # ranks, not values: T < J although both are worth 10
])
def test_r9_lower_cut_card_deals_under_cut_low(cut, cut_low_dealer, cut_high_dealer):
    """Our choice for cut_low (docs/rules.md R9, D7): the player who cuts the LOWER card deals."""
    assert match.first_dealer(Rules.preset("standard"), ScriptedCut(cut)) == cut_low_dealer
    assert match.first_dealer(Rules.preset("seed-000"), ScriptedCut(cut)) == cut_high_dealer


def test_r9_equal_ranks_cut_again():
    assert match.first_dealer(Rules.preset("standard"), ScriptedCut("7S 7D", "QH QC", "5C 2H")) == 1


def test_r9_real_cut_uses_the_generator():
    rules = Rules.preset("standard")
    dealers = [match.first_dealer(rules, np.random.default_rng(seed)) for seed in range(40)]
    assert dealers == [match.first_dealer(rules, np.random.default_rng(seed)) for seed in range(40)]
    assert set(dealers) == {0, 1}


def test_r9_random_first_dealer_uses_the_generator():
    rules = Rules.preset("standard", first_dealer="random")
    dealers = [match.first_dealer(rules, np.random.default_rng(seed)) for seed in range(40)]
    assert set(dealers) == {0, 1}


def test_new_match_deals_the_first_hand():
    state = match.new_match(Rules.preset("standard"), np.random.default_rng(3), dealer=1)
    assert (state.scores, state.hands_won, state.dealer, state.history, state.winner, state.over) == (
        (0, 0), (0, 0), 1, (), None, False)
    assert (state.hand.dealer, state.hand.phase) == (1, engine.OFFER)
    openspiel = match.new_match(Rules.preset("openspiel"), np.random.default_rng(3))
    assert openspiel.dealer == 1  # first_dealer P2


# ---------------------------------------------------------------------------------------------------------------
# X10 and the bonuses (R40-R43)
# ---------------------------------------------------------------------------------------------------------------

def play_script(rules: Rules, outcomes, *, dealer: int = 1) -> tuple[match.MatchState, list[int], list[tuple]]:
    """Record scripted outcomes; return the final state, the dealer of each hand and the running scores."""
    rng = np.random.default_rng(10)
    state = match.new_match(rules, rng, dealer=dealer)
    dealers, running = [], []
    for outcome in outcomes:
        assert not state.over
        dealers.append(state.dealer)
        state = match.record_hand(state, outcome, rng)
        running.append(state.scores)
    return state, dealers, running


X10 = [won(0, 30), won(1, 12, "undercut"), DEAD, won(0, 25), won(0, 50)]


def test_x10_game_to_100_under_standard():
    state, dealers, running = play_script(Rules.preset("standard"), X10)
    assert dealers == [1, 0, 1, 1, 0]
    assert running == [(30, 0), (30, 12), (30, 12), (55, 12), (105, 12)]
    assert (state.over, state.winner, state.hands_won, state.hand) == (True, 0, (3, 1), None)
    assert state.history == tuple(X10)
    assert match.final_totals(state) == (265, 32)
    assert match.margin(state) == 233


def test_eaai_protocol_starting_player_alternates_after_scored_hands_and_stays_after_dead_ones():
    """docs/rules.md section 10, preset eaai (the EAAI GinRummyGame): the starting player (the non-dealer) alternates
    after every scored hand, whoever won it, and a hand that reaches the wall is replayed with the same one."""
    script = [won(0, 10), won(0, 10), DEAD, won(1, 12, "undercut"), DEAD, DEAD, won(1, 25, "gin"), won(0, 10)]
    _, dealers, _ = play_script(Rules.preset("eaai"), script, dealer=1)
    assert dealers == [1, 0, 1, 1, 0, 0, 0, 1]


def test_eaai_protocol_first_starting_player_is_drawn_at_random():
    """docs/rules.md section 10, preset eaai: the first dealer (so the first starting player) is drawn with the
    generator, each seat about half the time, with no cut."""
    rules = Rules.preset("eaai")
    dealers = [match.first_dealer(rules, np.random.default_rng(seed)) for seed in range(400)]
    assert dealers == [int(np.random.default_rng(seed).integers(2)) for seed in range(400)]
    assert 160 < sum(dealers) < 240
    assert [match.new_match(rules, np.random.default_rng(seed)).dealer for seed in range(40)] == dealers[:40]


X10_SHUTOUT = [won(0, 30), DEAD, DEAD, won(0, 25), won(0, 50)]


@pytest.mark.parametrize(("shutout", "p1_total"), [("double_game_bonus", 365), ("double_hand_points", 370),
                                                   ("double_total", 530), ("none", 265)])
def test_x10_shutout_modes(shutout, p1_total):
    state, _, running = play_script(Rules.preset("standard", shutout=shutout), X10_SHUTOUT)
    assert running[-1] == (105, 0)
    assert match.final_totals(state) == (p1_total, 0)
    assert match.margin(state) == p1_total


def test_r40_game_ends_at_once_when_the_target_is_reached_exactly():
    state, _, _ = play_script(Rules.preset("standard"), [won(1, 60), won(1, 40)])
    assert (state.over, state.winner, state.scores) == (True, 1, (0, 100))
    assert match.final_totals(state) == (0, 100 + 200 + 2 * 20)
    assert match.margin(state) == 340
    with pytest.raises(ValueError, match="over"):
        match.record_hand(state, won(0, 10), np.random.default_rng(0))


def test_r42_shutout_counts_hands_won_not_points():
    """With undercut_bonus 0, an undercut on a tie wins a hand worth 0 points: the loser has a box, no shutout."""
    rules = Rules.preset("standard", undercut_bonus=0)
    state, _, running = play_script(rules, [won(1, 0, "undercut"), won(0, 100)])
    assert (running[-1], state.hands_won) == ((100, 0), (1, 1))
    assert match.final_totals(state) == (100 + 100 + 20, 20)


def test_r41_bonuses_never_count_toward_the_target():
    state, _, _ = play_script(Rules.preset("standard"), [won(0, 95)] + [DEAD] * 3)
    assert (state.over, state.scores, len(state.history)) == (False, (95, 0), 4)


def test_r41_box_bonus_is_paid_to_the_loser_too():
    state, _, _ = play_script(Rules.preset("standard"), [won(1, 10), won(1, 5), won(0, 100)])
    assert match.final_totals(state) == (100 + 100 + 20, 15 + 40)


def test_r43_margin_can_be_negative():
    """The loser won nine small hands: 9 x (10 + box 20) = 270 beats 100 + 100 + 20 = 220."""
    state, _, _ = play_script(Rules.preset("standard"), [won(1, 10)] * 9 + [won(0, 100)])
    assert (state.winner, match.final_totals(state), match.margin(state)) == (0, (220, 270), -50)


@pytest.mark.parametrize("preset", ["eaai", "foony", "seed-000"])
def test_presets_without_game_or_box_bonus(preset):
    state, _, _ = play_script(Rules.preset(preset), [won(1, 10), won(0, 100)])
    assert match.final_totals(state) == (100, 10)


def test_r47_oklahoma_doubled_score_counts_toward_150_as_one_box():
    state, _, running = play_script(Rules.preset("oklahoma"), [won(0, 104), won(0, 52)])
    assert running == [(104, 0), (156, 0)]
    assert state.hands_won == (2, 0)
    assert match.final_totals(state) == (156 + 200 + 40, 0)


def test_final_totals_only_once_over():
    state = match.new_match(Rules.preset("standard"), np.random.default_rng(0), dealer=0)
    with pytest.raises(ValueError, match="over"):
        match.final_totals(state)


def test_record_hand_needs_a_generator_to_deal_the_next_hand():
    state = match.new_match(Rules.preset("standard"), np.random.default_rng(0), dealer=0)
    with pytest.raises(ValueError, match="rng"):
        match.record_hand(state, won(0, 10))


@pytest.mark.parametrize(("outcome", "totals", "winner", "margin"), [(won(1, 26, "undercut"), (0, 26), 1, 26),
                                                                      (DEAD, (0, 0), None, 0),
                                                                      (TIE, (0, 0), None, 0)])
def test_target_none_is_a_single_hand_without_bonuses(outcome, totals, winner, margin):
    state = match.new_match(Rules.preset("openspiel"), np.random.default_rng(0))
    state = match.record_hand(state, outcome)
    assert (state.over, state.winner, match.final_totals(state), match.margin(state)) == (True, winner, totals,
                                                                                          margin)


def test_single_hand_game_ends_after_its_hand_without_bonuses_under_a_target():
    """A single-hand episode is a match of one hand (``single_hand``): over after it, totals = hand points, even
    though the rules have a target (the hand still shows it)."""
    state = match.new_match(Rules.preset("standard"), np.random.default_rng(0), single_hand=True)
    assert state.hand.rules.target == 100
    state = match.record_hand(state, won(0, 25, "gin"))
    assert (state.over, state.winner, match.final_totals(state), match.margin(state)) == (True, 0, (25, 0), 25)


def test_a_scripted_first_deck_leaves_the_later_deals_to_the_seed():
    """``new_match(deck=...)`` fixes the first hand; in a game to the target the shuffle it replaces is still drawn,
    so the second hand is dealt as without the script. A single-hand game draws no shuffle for it."""
    rules = Rules.preset("standard")
    deck = list(range(cards.N_CARDS))
    rng_scripted, rng_plain = np.random.default_rng(4), np.random.default_rng(4)
    scripted = match.new_match(rules, rng_scripted, dealer=0, deck=deck)
    plain = match.new_match(rules, rng_plain, dealer=0)
    assert scripted.hand.deck == tuple(deck) != plain.hand.deck
    assert (match.record_hand(scripted, won(0, 10), rng_scripted).hand.deck
            == match.record_hand(plain, won(0, 10), rng_plain).hand.deck)
    rng = np.random.default_rng(4)
    match.new_match(rules, rng, dealer=0, deck=deck, single_hand=True)
    assert rng.bit_generator.state == np.random.default_rng(4).bit_generator.state


# ---------------------------------------------------------------------------------------------------------------
# Next dealer (R44)
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("rotation", "dead_dealer", "expected"), [
    ("winner", "same", [1, 0, 1, 1, 1, 0]),
    ("loser", "same", [1, 1, 0, 0, 0, 1]),
    ("alternate", "rotate", [1, 0, 1, 0, 1, 0]),
    ("winner", "rotate", [1, 0, 1, 0, 1, 0]),
])
def test_r44_next_dealer(rotation, dead_dealer, expected):
    rules = Rules.preset("standard", dealer_rotation=rotation, dead_hand_dealer=dead_dealer)
    _, dealers, _ = play_script(rules, [won(0, 1), won(1, 1), DEAD, TIE, won(0, 1), won(0, 1)])
    assert dealers == expected


# ---------------------------------------------------------------------------------------------------------------
# Stepping a match
# ---------------------------------------------------------------------------------------------------------------

def expected_next_dealer(rules: Rules, dealer: int, winner: int | None) -> int:
    """R44 written out as a table for the seeded tests."""
    if winner is None:
        return {"same": dealer, "rotate": 1 - dealer}[rules.dead_hand_dealer]
    return {"winner": winner, "loser": 1 - winner, "alternate": 1 - dealer}[rules.dealer_rotation]


def test_step_records_the_hand_and_deals_the_next():
    rng = np.random.default_rng(4)
    state = match.new_match(Rules.preset("standard"), rng, dealer=0)
    hand = state.hand
    while True:
        state = match.step(state, choose(state.hand, rng), rng)
        if state.history:
            break
        hand = state.hand
    assert state.hand is not None and state.hand.phase in (engine.OFFER, engine.DISCARD)
    assert state.hand.deck != hand.deck
    outcome = state.history[0]
    assert state.dealer == state.hand.dealer == expected_next_dealer(state.rules, 0, outcome.winner)
    assert state.scores == tuple(max(outcome.player_points(p), 0) for p in (0, 1))


def test_step_after_the_end_is_illegal():
    state = match.new_match(Rules.preset("openspiel"), np.random.default_rng(0))
    rng = np.random.default_rng(1)
    while not state.over:
        state = match.step(state, choose(state.hand, rng), rng)
    assert state.hand is not None and state.hand.phase == engine.OVER
    with pytest.raises(engine.IllegalActionError, match="over"):
        match.step(state, actions.PASS, rng)


MATCH_SEEDS = {"standard": 31, "oklahoma": 32, "foony": 33, "seed-000": 34, "eaai": 35}
MATCHES_PER_PRESET = 12


@pytest.mark.parametrize("preset", list(MATCH_SEEDS))
def test_seeded_matches_to_the_target(preset):
    rules = Rules.preset(preset)
    rng = np.random.default_rng(MATCH_SEEDS[preset])
    for _ in range(MATCHES_PER_PRESET):
        state = match.new_match(rules, rng)
        dealers = [state.dealer]
        while not state.over:
            played = len(state.history)
            state = match.step(state, choose(state.hand, rng), rng)
            engine.validate(state.hand)
            if len(state.history) > played and not state.over:
                dealers.append(state.dealer)
        check_match_bookkeeping(rules, state, dealers)


def check_match_bookkeeping(rules: Rules, state: match.MatchState, dealers: list[int]) -> None:
    """Scores, hands won, the end and every dealer follow from the history alone (R40, R44)."""
    history = state.history
    scores = tuple(sum(o.points for o in history if o.winner == p) for p in (0, 1))
    hands_won = tuple(sum(o.winner == p for o in history) for p in (0, 1))
    assert (state.scores, state.hands_won) == (scores, hands_won)
    assert state.scores[state.winner] >= rules.target > state.scores[1 - state.winner]
    assert history[-1].winner == state.winner
    for i, outcome in enumerate(history[:-1]):
        winner_so_far = tuple(sum(o.points for o in history[:i + 1] if o.winner == p) for p in (0, 1))
        assert max(winner_so_far) < rules.target
        assert dealers[i + 1] == expected_next_dealer(rules, dealers[i], outcome.winner)
    assert len(dealers) == len(history)
    totals = match.final_totals(state)
    assert totals[state.winner] - totals[1 - state.winner] == match.margin(state)


# ---------------------------------------------------------------------------------------------------------------
# Abandoned games (R19a)
# ---------------------------------------------------------------------------------------------------------------

CAPPED = engine.CAPPED_OUTCOME


def test_r19a_ten_dead_hands_in_a_row_abandon_the_game_without_bonuses():
    """Dead hands of either kind (wall, R37, or turn cap, R19) count; the game ends with no winner and no bonuses."""
    state, _, _ = play_script(Rules.preset("standard"), [won(0, 30)] + [DEAD, CAPPED] * 5)
    assert (state.over, state.abandoned, state.winner, state.dead_in_row) == (True, True, None, 10)
    assert (state.scores, state.hands_won, len(state.history)) == ((30, 0), (1, 0), 11)
    assert match.final_totals(state) == (30, 0) and match.margin(state) == 0


def test_r19a_a_hand_that_is_not_dead_restarts_the_count():
    """A tie (R32 without undercut on ties) scores nothing but is not a dead hand."""
    state, _, _ = play_script(Rules.preset("standard"), [DEAD] * 9 + [TIE] + [DEAD] * 9 + [won(1, 5)] + [DEAD] * 9)
    assert (state.over, state.abandoned, state.dead_in_row, state.scores) == (False, False, 9, (0, 5))
    state = match.record_hand(state, DEAD, np.random.default_rng(4))
    assert (state.over, state.abandoned, state.winner) == (True, True, None)


@pytest.mark.parametrize(("limit", "hands"), [(1, 1), (3, 3), (None, 40)])
def test_r19a_max_dead_hands_is_configurable(limit, hands):
    state, _, _ = play_script(Rules.preset("eaai", max_dead_hands=limit), [DEAD] * hands)
    assert state.abandoned == (limit is not None) and state.over == (limit is not None)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10", True])
def test_r19a_max_dead_hands_is_validated(bad):
    with pytest.raises(ValueError, match="max_dead_hands"):
        Rules(max_dead_hands=bad)


def test_r19_r19a_defaults_in_every_preset():
    for name in ("standard", "eaai", "oklahoma", "foony", "seed-000", "openspiel"):
        rules = Rules.preset(name)
        assert (rules.max_turns, rules.max_dead_hands) == (200, 10), name


@pytest.mark.parametrize("dealer", [np.int64(1), np.uint8(1), 1])
def test_numpy_integer_dealers_are_accepted(dealer):
    state = match.new_match(Rules.preset("standard"), np.random.default_rng(2), dealer=dealer)
    assert state.dealer == 1 and type(state.dealer) is int and state.hand.dealer == 1


@pytest.mark.parametrize(("dealer", "error"), [(1.0, TypeError), ("1", TypeError), (True, TypeError), (2, ValueError)])
def test_other_dealers_are_rejected_by_name(dealer, error):
    with pytest.raises(error, match="dealer"):
        match.new_match(Rules.preset("standard"), np.random.default_rng(2), dealer=dealer)


def test_a_step_within_a_hand_keeps_every_other_field_of_the_game():
    """match.step copies the game state by hand (for speed), so every field but the hand must come through,
    fields that have defaults included."""
    import dataclasses

    rng = np.random.default_rng(3)
    game = match.new_match(Rules.preset("standard"), rng)
    game = dataclasses.replace(game, scores=(31, 7), hands_won=(2, 1), history=(engine.DEAD_OUTCOME,),
                               dead_in_row=1, abandoned=True, single_hand=True)
    after = match.step(game, engine.legal_actions(game.hand)[0], rng)
    assert after.hand is not game.hand and after.hand.phase != engine.OVER
    for field in dataclasses.fields(match.MatchState):
        if field.name != "hand":
            assert getattr(after, field.name) == getattr(game, field.name), field.name
