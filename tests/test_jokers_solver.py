"""The compiled solver with jokers (docs/rules.md section 17: R62-R82) held to the rules text's tables (T1-T18,
S1-S9 of 17.9) and to the brute-force oracle of ``tests/oracles/jokers_oracle.py`` on random and meld-rich hands,
under each ``joker_value`` and ``joker_min_naturals``."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env.game import cards, engine, solver
from gin_env.game.rules import Rules
from gin_env.game.solver.declarations import declared_melds, is_set
from tests.jokers_cases import DEADWOOD_CASES, SHOWDOWN_CASES, parse_hand, parse_showdown, rules_of
from tests.oracles import jokers_oracle as oracle

#: Joker values the differential tests try: free, below a card's value, at it, the default, the largest (R67, D15).
VALUES = (0, 7, 10, 20, 50)


def rules_with(**keys) -> Rules:
    return Rules(**{"jokers": 2, **keys})


@pytest.mark.parametrize("case", DEADWOOD_CASES, ids=[c.id for c in DEADWOOD_CASES])
def test_deadwood_table_T1_to_T18(case):
    """17.9's deadwood table: DW (R65-R68, R82), and T14's 11 cards: best discard 0, gin by the AS or the 5S only,
    the 8C taken from the pile kept (R16, R24)."""
    rules = Rules(**rules_of(case))
    hand = parse_hand(case.hand)
    if case.taken is None:
        assert solver.deadwood(hand, rules) == case.dw
        return
    assert solver.best_discard_deadwood(hand, rules) == case.dw
    after = solver.discard_deadwoods(hand, rules)
    assert {cards.card_str(c) for c, dw in after.items() if dw == 0} == set(case.gin_discards)
    best, best_cards, _, all_melded = solver.discard_phase_of_masks(
        np.array([cards.to_mask(hand)], dtype=np.uint64), np.array([cards.card(case.taken)]), np.array([10]),
        rules=rules)
    assert (best[0], int(best_cards[0]), all_melded[0]) == (0, cards.to_mask(["AS", "5S"]), True)


@pytest.mark.parametrize("case", DEADWOOD_CASES, ids=[c.id for c in DEADWOOD_CASES])
def test_arrangement_is_legal_and_reaches_the_deadwood(case):
    """``solver.arrangement`` with jokers: legal melds, each run joker's identity declared (R65, R73), and the
    unmelded cards worth DW (R67)."""
    rules = Rules(**rules_of(case))
    hand = parse_hand(case.hand)
    if case.taken is not None:
        hand.remove(cards.card("AS"))
    melds, dead = solver.arrangement(hand, rules)
    assert sorted(c for m in melds for c in m) + dead == sorted(hand) or sorted(
        [*dead, *(c for m in melds for c in m)]) == sorted(hand)
    for meld in melds:
        assert meld.ident in declared_melds(cards.to_mask(meld), rules.joker_min_naturals)
        jokers = [c for c in meld if c >= cards.N_CARDS]
        assert set(meld.identities) == (set() if is_set(meld.ident) else set(jokers))
    assert cards.hand_value(dead, rules.deck) == solver.deadwood(hand, rules)


def test_a_run_joker_is_written_with_its_identity():
    """R62's notation: ``JK=6S`` for a run joker, a bare ``JK`` in a set (T1, T16)."""
    rules = rules_with()
    melds, _ = solver.arrangement(parse_hand("5S 7S JK 9H 9D 9C 2C 3C 4C KD"), rules)
    assert sorted(map(str, melds)) == ["2C 3C 4C", "5S JK=6S 7S", "9H 9D 9C"]
    melds, dead = solver.arrangement(parse_hand("7S 7H 7D 7C JK JK KS KH KD KC"), rules)
    assert dead == [] and sum(str(m).split().count("JK") for m in melds if is_set(m.ident)) == 2


def _showdown_variants():
    for case in SHOWDOWN_CASES:
        for variant in case.variants:
            yield pytest.param(case, variant, id=f"{case.id}-{variant.preset}-{variant.overrides}")


@pytest.mark.parametrize("case, variant", list(_showdown_variants()))
def test_showdown_table_S1_to_S9(case, variant):
    """17.9's showdown table scored by the engine: K, F under R22's auto-arrangement (the top of F's range), gin,
    and who scores how much (R28-R33, R47, R73-R79)."""
    rules = Rules.preset(variant.preset, **{"jokers": 2, **variant.overrides})
    knocker, defender = parse_showdown(case.knocker, case.defender)
    upcard = None if case.upcard is None else max(cards.LARGEST_DECK.joker_ids)
    if case.taken is not None:
        knocker.append(cards.card(case.taken))
        if not variant.big_gin:
            knocker.remove(cards.card("AS"))
    result = engine.score_knock(knocker, defender, rules, upcard=upcard)
    assert (result.knocker_deadwood, result.defender_deadwood) == (variant.k, variant.f_high)
    assert result.kind in (("big_gin",) if variant.big_gin else ("gin",) if variant.gin else ("knock", "undercut"))
    assert (result.winner, result.points) == (variant.scorer, variant.points)


def test_X13_the_knocker_declares_the_joker_to_block_layoffs():
    """R22, R73: the auto-arrangement declares JK = 4S, the defender lays off nothing (S1); declared as the 7S it
    would take the 4S and the 8S (F 17)."""
    rules = rules_with()
    knocker, defender = parse_showdown("5S 6S JK 9H 9D 9C 2C 3C 4C AD", "4S 8S KH KD KC 2H 3H 4H 7D TC")
    show = solver.showdown(knocker, defender, rules=rules)
    assert show.identities == ((52, cards.card("4S")),) and show.layoffs == ()
    declared = solver.showdown(knocker, defender, rules=rules,
                               arrangement=["5S 6S JK=7S", "9H 9D 9C", "2C 3C 4C"])
    assert declared.defender_deadwood == 17 and set(declared.layoffs) == {cards.card("4S"), cards.card("8S")}


def test_R73_a_run_joker_whose_rank_is_open_is_refused():
    rules = rules_with()
    knocker, defender = parse_showdown("5S 6S JK 9H 9D 9C 2C 3C 4C AD", "4S 8S KH KD KC 2H 3H 4H 7D TC")
    with pytest.raises(ValueError, match=r"leaves a joker's identity open \(R73\).*JK=4S.*JK=7S"):
        solver.showdown(knocker, defender, rules=rules, arrangement=["5S 6S JK", "9H 9D 9C", "2C 3C 4C"])
    with pytest.raises(ValueError, match="not a legal meld"):
        solver.showdown(knocker, defender, rules=rules, arrangement=["5S 6S JK=9S", "9H 9D 9C", "2C 3C 4C"])


def test_X14_the_defender_lays_off_its_joker_and_chains_through_it():
    """R76, R28: the defender's joker goes on 5H-7H as the 8H and the 9H follows (S2); its identity is shown."""
    rules = rules_with()
    knocker, defender = parse_showdown("5H 6H 7H QC QD QS 2C 3C 4C 6D", "JK 9H 5C AC KD KH KS 3D 2S QH")
    show = solver.showdown(knocker, defender, rules=rules)
    assert show.defender_deadwood == 5
    assert {52, cards.card("9H")} <= set(show.layoffs) and (52, cards.card("8H")) in show.identities


def test_defender_laydown_matches_the_showdown_with_jokers():
    """``defender_laydown`` against the knocker's declared melds gives the F of the showdown (R28, R76)."""
    rules = rules_with()
    for case in SHOWDOWN_CASES[:6]:
        knocker, defender = parse_showdown(case.knocker, case.defender)
        show = solver.showdown(knocker, defender, rules=rules)
        if show.gin:
            continue
        declared = [solver.Meld(m, _ident(m, show.identities)) for m in show.knocker_melds]
        laid = solver.defender_laydown(declared, defender, rules=rules)
        assert laid.deadwood == show.defender_deadwood, case.id


def _ident(meld, identities) -> int:
    named = dict(identities)
    naturals = [c for c in meld if c < cards.N_CARDS]
    options = declared_melds(cards.to_mask(meld), 2)
    wanted = cards.to_mask([named[c] for c in meld if c in named])
    return next(i for i in options if i & wanted == wanted and (not wanted or not is_set(i))) if naturals else 0


def test_a_hand_holding_jokers_its_rules_lack_is_refused():
    with pytest.raises(ValueError, match=r"holds 1 joker \(JK\) and the rules have jokers=0"):
        solver.deadwood(parse_hand("5S 7S JK 9H 9D 9C 2C 3C 4C KD"))
    with pytest.raises(ValueError, match="jokers=1"):
        solver.deadwood(parse_hand("5S 7S JK JK 9D 9C 2C 3C 4C KD"), Rules(jokers=1))
    with pytest.raises(ValueError, match="more than 2 jokers between them"):
        solver.showdown("JK JK 7H QC QD QS 2C 3C 4C 6D", "JK 9H 5C AC KD KH KS 3D 2S QH", rules=rules_with())
    with pytest.raises(ValueError, match="beyond the jokers=0"):
        solver.deadwood_of_masks(np.array([cards.to_mask(parse_hand("5S JK"))], dtype=np.uint64))


# ---------------------------------------------------------------------------------------------------------------
# Against the brute-force oracle
# ---------------------------------------------------------------------------------------------------------------

def _random_hands(rng, n, size, jokers):
    """Uniform draws of ``size`` cards holding exactly ``jokers`` jokers."""
    for _ in range(n):
        naturals = rng.choice(cards.N_CARDS, size - jokers, replace=False)
        yield [*map(int, naturals), *cards.LARGEST_DECK.joker_ids[:jokers]]


def _meld_rich_hands(rng, n, size, jokers):
    """Cards from 5 adjacent ranks of 3 suits, and ``jokers`` jokers: overlapping sets and runs."""
    for _ in range(n):
        low = int(rng.integers(0, cards.N_RANKS - 4))
        suits = rng.choice(cards.N_SUITS, 3, replace=False)
        pool = [s * cards.N_RANKS + r for s in suits for r in range(low, low + 5)]
        naturals = rng.choice(pool, size - jokers, replace=False)
        yield [*map(int, naturals), *cards.LARGEST_DECK.joker_ids[:jokers]]


def _hands(seed, n, size):
    rng = np.random.default_rng(seed)
    for jokers in (1, 2):
        yield from _random_hands(rng, n, size, jokers)
        yield from _meld_rich_hands(rng, n, size, jokers)


@pytest.mark.parametrize("min_naturals", (1, 2))
@pytest.mark.parametrize("value", VALUES)
def test_deadwood_matches_the_oracle(value, min_naturals):
    """R65-R68, R82 on 80 hands of 10 cards per setting (random and meld-rich, one and two jokers), and their
    batched deadwood."""
    rules = rules_with(joker_value=value, joker_min_naturals=min_naturals)
    hands = list(_hands(value * 10 + min_naturals, 20, cards.HAND_SIZE))
    wrong = [cards.to_str(h) for h in hands
             if solver.deadwood(h, rules) != oracle.deadwood(h, joker_value=value, min_naturals=min_naturals)]
    assert wrong == []
    masks = np.array([cards.to_mask(h) for h in hands], dtype=np.uint64)
    assert solver.deadwood_of_masks(masks, rules).tolist() == [solver.deadwood(h, rules) for h in hands]


@pytest.mark.parametrize("min_naturals", (1, 2))
@pytest.mark.parametrize("value", (0, 20))
def test_discard_deadwoods_match_the_oracle(value, min_naturals):
    """R8, R69: the deadwood after each discard of 11 cards, a joker's included, on 40 hands per setting."""
    rules = rules_with(joker_value=value, joker_min_naturals=min_naturals)
    for hand in _hands(value + min_naturals, 10, cards.HAND_SIZE + 1):
        expected = oracle.discard_deadwoods(hand, joker_value=value, min_naturals=min_naturals)
        assert solver.discard_deadwoods(hand, rules) == dict(sorted(expected.items())), cards.to_str(hand)


@pytest.mark.parametrize("min_naturals", (1, 2))
@pytest.mark.parametrize("value", (0, 10, 20))
def test_showdown_matches_the_oracle(value, min_naturals):
    """R22, R28, R73-R77: K, gin and F (the top of the oracle's range, R22's choice) on 24 deals per setting whose
    hands hold 0-2 jokers between them, drawn from the 54 cards."""
    rules = rules_with(joker_value=value, joker_min_naturals=min_naturals)
    rng = np.random.default_rng(value * 3 + min_naturals)
    checked = 0
    while checked < 24:
        deck = rng.permutation(cards.LARGEST_DECK.n_cards).tolist()
        knocker, defender = deck[:cards.HAND_SIZE], deck[cards.HAND_SIZE:2 * cards.HAND_SIZE]
        if not set(knocker + defender) & set(cards.LARGEST_DECK.joker_ids) and checked % 2:
            continue
        expected = oracle.showdown(knocker, defender, joker_value=value, min_naturals=min_naturals)
        show = solver.showdown(knocker, defender, rules=rules)
        assert (show.knocker_deadwood, show.gin, show.defender_deadwood) == (
            expected.k, expected.gin, expected.f_high), (cards.to_str(knocker), cards.to_str(defender))
        k, f = solver.showdown_of_masks(np.array([cards.to_mask(knocker)], dtype=np.uint64),
                                        np.array([cards.to_mask(defender)], dtype=np.uint64), rules=rules)
        assert (int(k[0]), int(f[0])) == (expected.k, expected.f_high)
        checked += 1


@pytest.mark.slow
@pytest.mark.parametrize("min_naturals", (1, 2))
def test_many_hands_match_the_oracle(min_naturals):
    """The differential tests at scale: 2,000 hands of 10 cards and 400 showdowns of meld-rich knockers."""
    rules = rules_with(joker_min_naturals=min_naturals)
    for hand in _hands(100 + min_naturals, 500, cards.HAND_SIZE):
        assert solver.deadwood(hand, rules) == oracle.deadwood(hand, min_naturals=min_naturals), cards.to_str(hand)
    rng = np.random.default_rng(min_naturals)
    for knocker in _meld_rich_hands(rng, 400, cards.HAND_SIZE, 1):
        rest = [c for c in range(cards.LARGEST_DECK.n_cards) if c not in knocker]
        defender = [int(c) for c in rng.choice(rest, cards.HAND_SIZE, replace=False)]
        expected = oracle.showdown(knocker, defender, min_naturals=min_naturals)
        show = solver.showdown(knocker, defender, rules=rules)
        assert (show.knocker_deadwood, show.defender_deadwood) == (expected.k, expected.f_high)
