"""The brute-force jokers oracle (tests/oracles/jokers_oracle.py) held to the rules text: the test tables of
docs/rules.md section 17.9 (T1-T18, S1-S9), worked example X11, the meld rules R65, R73 and R74, and the three
consequences of R68 on random and meld-rich hands."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from gin_env.game import cards
from gin_env.game.rules import Rules
from tests import jokers_cases
from tests.jokers_cases import DEADWOOD_CASES, PRESET, SHOWDOWN_CASES, X11_ROWS, parse_arrangement, parse_hand
from tests.oracles import jokers_oracle as oracle
from tests.oracles.jokers_oracle import JOKER_IDS, RUN, SET

HAND_SIZE = cards.HAND_SIZE
#: Meld-rich hands draw their natural cards from this many adjacent ranks of this many suits.
RICH_RANKS = 5
RICH_SUITS = 3
#: Sparse hands keep same-suit naturals at least this many ranks apart, so no two fit one run even with two jokers.
MIN_SUIT_GAP = 4
#: Joker values on both sides of R68b's threshold, and the three it names.
VALUES_AT_LEAST_TEN = (10, 15, 20, 25, cards.MAX_JOKER_VALUE)
SAME_ARRANGEMENT_VALUES = (15, 20, 25)


def _keys(overrides: dict) -> dict:
    """The oracle's keywords for the ``jokers`` preset with these overrides."""
    merged = {**PRESET, **overrides}
    return {"joker_value": merged["joker_value"], "min_naturals": merged["joker_min_naturals"]}


def _ids(text: str) -> set[int]:
    return set(parse_hand(text))


# --- 17.9 deadwood table -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", DEADWOOD_CASES, ids=[c.id for c in DEADWOOD_CASES])
def test_deadwood_table_T1_to_T18(case):
    """Each T row's DW (R7, R65-R68); for the 11-card T14, the deadwood of its best discard (R8, R69)."""
    hand = parse_hand(case.hand)
    if len(hand) == HAND_SIZE:
        assert oracle.deadwood(hand, **_keys(case.overrides)) == case.dw
    else:
        assert min(oracle.discard_deadwoods(hand, **_keys(case.overrides)).values()) == case.dw


@pytest.mark.parametrize("case", DEADWOOD_CASES, ids=[c.id for c in DEADWOOD_CASES])
def test_the_table_arrangement_is_legal_and_optimal(case):
    """Each T row's arrangement uses exactly the hand's cards, declares legal melds whose written joker identities
    follow from the declaration (R65, R73), and leaves the row's DW as deadwood (17.9: "one of the optimal ones")."""
    keys = _keys(case.overrides)
    melds, left = parse_arrangement(case.arrangement)
    laid = [c for meld, _, _ in melds for c in meld] + left
    assert Counter(laid) == Counter(parse_hand(case.hand))
    for meld, declaration, identities in melds:
        assert declaration in oracle.declarations(meld, keys["min_naturals"])
        named = {j: i for j, i in oracle.joker_identities(meld, declaration).items() if i is not None}
        assert named == identities
    assert sum(oracle.card_value(c, keys["joker_value"]) for c in left) == case.dw


def test_T14_gin_discards_are_the_AS_and_the_5S():
    """T14 / X18b: the 11 cards are all melded (big gin, R24), and exactly the AS and the 5S leave DW 0; the 8C,
    taken from the pile, could not be discarded (R16) and would not leave gin anyway."""
    (case,) = [c for c in DEADWOOD_CASES if c.id == "T14"]
    hand = parse_hand(case.hand)
    assert oracle.deadwood(hand) == 0
    after = oracle.discard_deadwoods(hand)
    gin_discards = {c for c, dw in after.items() if dw == 0}
    assert gin_discards == {cards.card(c) for c in case.gin_discards}
    assert cards.card(case.taken) not in gin_discards


# --- 17.9 showdown table -------------------------------------------------------------------------------------------

SHOWDOWN_VARIANTS = [(case, v) for case in SHOWDOWN_CASES for v in case.variants]


def _scoring_rules(variant) -> Rules:
    """The variant's keys other than the jokers' (bonuses, Oklahoma), whose joker keys the oracle takes from the
    case itself."""
    return Rules.preset(variant.preset, **{k: v for k, v in variant.overrides.items() if k not in PRESET})


def _knock_limit(rules: Rules, joker_value: int, upcard: str | None) -> int:
    """L of the hand (R20, R46, R79): under Oklahoma the upcard's value caps it, a joker's being ``joker_value``."""
    if not rules.oklahoma:
        return rules.knock_limit
    if upcard == cards.JOKER:
        return min(rules.knock_limit, joker_value)
    capped = min(rules.knock_limit, cards.value(cards.card(upcard)))
    ace_gin_only = cards.rank(cards.card(upcard)) == 0 and rules.oklahoma_ace == "gin_only"
    return 0 if ace_gin_only else capped


def _score(rules: Rules, k: int, f: int, gin: bool, big_gin: bool, upcard: str | None) -> tuple[str | None, int]:
    """Who scores and how much (R30-R35, R47, R78, R79: a joker upcard is no spade)."""
    if big_gin:
        scorer, points = "knocker", f + rules.big_gin_bonus
    elif gin:
        scorer, points = "knocker", f + rules.gin_bonus
    elif f > k:
        scorer, points = "knocker", f - k
    elif f == k and not rules.undercut_on_tie:
        scorer, points = None, 0
    else:
        scorer, points = "defender", k - f + rules.undercut_bonus
    spade_upcard = upcard not in (None, cards.JOKER) and cards.suit(cards.card(upcard)) == 0
    if rules.oklahoma and rules.oklahoma_spade_double and spade_upcard:
        points *= 2
    return scorer, points


def _knocker_tens(case, keys: dict) -> list[list[int]]:
    """The knocker's 10-card layouts of a row: its hand, or for S9 each legal discard from hand + taken card that
    leaves gin (R16: never the taken card)."""
    knocker, _ = jokers_cases.parse_showdown(case.knocker, case.defender)
    if case.taken is None:
        return [knocker]
    taken = cards.card(case.taken)
    eleven = [*knocker, taken]
    return [[c for c in eleven if c != discard] for discard, dw in oracle.discard_deadwoods(eleven, **keys).items()
            if dw == 0 and discard != taken]


@pytest.mark.parametrize(("case", "variant"), SHOWDOWN_VARIANTS,
                         ids=[f"{c.id}-{v.preset}-{'-'.join(map(str, v.overrides.values()))}"
                              for c, v in SHOWDOWN_VARIANTS])
def test_showdown_table_S1_to_S9(case, variant):
    """Each S row's K, gin flag, F range and result (R22-R33, R73-R79); the score uses the auto-arrangement's F,
    the top of the range (R22). S9's big gin lays all 11 cards (R24); its gin discards the AS or the 5S."""
    keys = _keys(variant.overrides)
    rules = _scoring_rules(variant)
    _, defender = jokers_cases.parse_showdown(case.knocker, case.defender)
    if variant.big_gin:
        knocker, _ = jokers_cases.parse_showdown(case.knocker, case.defender)
        assert rules.big_gin_bonus is not None
        assert oracle.deadwood([*knocker, cards.card(case.taken)], **keys) == 0
        results = [oracle.Showdown(0, True, *[oracle.deadwood(defender, **keys)] * 2)]
    else:
        results = [oracle.showdown(ten, defender, **keys) for ten in _knocker_tens(case, keys)]
    assert results
    for result in results:
        assert (result.k, result.gin, result.f_low, result.f_high) == (
            variant.k, variant.gin, variant.f_low, variant.f_high)
        assert result.k <= _knock_limit(rules, keys["joker_value"], case.upcard)
        assert _score(rules, result.k, result.f_high, result.gin, variant.big_gin, case.upcard) == (
            variant.scorer, variant.points)


# --- X11 -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("example", X11_ROWS, ids=[row[0] for row in X11_ROWS])
def test_X11_where_the_joker_goes_decides_the_deadwood(example):
    """X11 (R65, R68): each listed arrangement is legal, its deadwood is the sum of its unmelded cards as the table
    gives it, the first row is the best and equals DW, and the greedy rows are worse."""
    _, hand_text, rows = example
    hand = parse_hand(hand_text)
    totals = []
    for text, expected in rows:
        melds, left = parse_arrangement(text)
        assert Counter([c for meld, _, _ in melds for c in meld] + left) == Counter(hand)
        assert all(d in oracle.declarations(meld) for meld, d, _ in melds)
        totals.append(sum(oracle.card_value(c, oracle.PRESET_JOKER_VALUE) for c in left))
        assert totals[-1] == expected
    assert totals[0] == oracle.deadwood(hand) < min(totals[1:])


# --- melds: R65, R73, R82 ------------------------------------------------------------------------------------------


def test_R73_a_bare_run_joker_has_two_declarations_a_named_one_has_one():
    """17.9: ``{5S 6S JK}`` could be 4S-6S or 5S-7S, so a layout must name the joker; ``{5S 6S JK=7S}`` is one."""
    meld = parse_hand("5S 6S JK")
    both = oracle.declarations(meld)
    assert sorted(both) == [(RUN, 0, cards.rank(cards.card("4S"))), (RUN, 0, cards.rank(cards.card("5S")))]
    ((named, declaration, identities),), _ = parse_arrangement("{5S 6S JK=7S}")
    assert named == meld
    assert [d for d in both if oracle.joker_identities(meld, d) == identities] == [declaration]


@pytest.mark.parametrize(("text", "min_naturals", "expected"), [
    ("KS AS JK", 2, []),                                         # E16: no wrap
    ("AS 2S JK", 2, [(RUN, 0, 0)]),                              # E16: JK is the 3S
    ("QS KS JK", 2, [(RUN, 0, 10)]),                             # E16: JK is the JS
    ("5S 6S JK JK", 2, [(RUN, 0, 2), (RUN, 0, 3), (RUN, 0, 4)]),  # E17: 3-6, 4-7, 5-8
    ("5S JK JK 8S", 2, [(RUN, 0, 4)]),                           # E17: 5-8
    ("7S 7H JK JK", 2, [(SET, 6)]),                              # R65: two jokers in a 4-card meld
    ("KS JK JK", 2, []),                                         # E17 / T7a: one natural is too few
    ("KS JK JK", 1, [(SET, 12), (RUN, 0, 10)]),                  # T7b: a set of kings or JK=JS JK=QS KS
    ("7S 7H 7D 7C JK", 2, []),                                   # E15: no 5-card set
    ("7S 7H 7D 7C JK", 1, []),
    ("5S 6H JK", 2, []),                                         # R65: a run's naturals share a suit
    ("5S 7S JK", 2, [(RUN, 0, 4)]),                              # T1: the joker fills the gap
    ("7S 7H JK", 2, [(SET, 6)]),
    ("AH 2H 3H JK 5H 6H 7H 8H 9H TH", 2, [(RUN, 1, 0)]),         # E4 / T13: a 10-card run
])
def test_R65_declarations(text, min_naturals, expected):
    """R65's meld rules: sizes, the natural-card minimum, no wrap, jokers standing for the missing cards."""
    assert sorted(oracle.declarations(parse_hand(text), min_naturals)) == sorted(expected)


def test_R82_a_long_run_that_cannot_be_split():
    """R82: ``3S JK JK 6S 7S 8S`` is one 6-card meld under ``joker_min_naturals`` 2 and every gin layout of it is
    that one meld; its ``3S JK JK`` part alone is no meld."""
    six = parse_hand("3S JK JK 6S 7S 8S")
    assert not oracle.is_meld(six[:3])
    layouts = oracle.arrangements(six)
    assert layouts and all(a.deadwood == () and [m for m, _ in a.melds] == [tuple(six)] for a in layouts)


@pytest.mark.parametrize("min_naturals", oracle.MIN_NATURALS_CHOICES)
def test_R65_melds_are_every_subset_that_is_a_meld(min_naturals):
    """``melds`` finds exactly the subsets of the holding that ``is_meld`` accepts (R65), on meld-rich hands."""
    for hand in _hands(seed=5, count=20, n_jokers=2, kind="rich"):
        brute = {frozenset(s) for size in range(3, HAND_SIZE + 1) for s in itertools.combinations(hand, size)
                 if oracle.is_meld(s, min_naturals)}
        assert {frozenset(m) for m in oracle.melds(hand, min_naturals=min_naturals)} == brute


# --- layoffs: R27, R74, R76 ----------------------------------------------------------------------------------------


def _singles(options: set[frozenset[int]]) -> set[int]:
    return {c for option in options if len(option) == 1 for c in option}


@pytest.mark.parametrize(("layout", "ends"), [
    ("{JK=4S 5S 6S}", "3S 7S"),
    ("{5S 6S JK=7S}", "4S 8S"),
    ("{AS 2S JK=3S}", "4S"),       # E16: nothing below A
    ("{JK=JS QS KS}", "TS"),       # E16: nothing above K
])
def test_R74_a_declared_run_takes_cards_at_its_declared_ends(layout, ends):
    """R74, E16: a run with a joker takes the natural just outside its declared ends, within A..K."""
    ((meld, declaration, _),), _ = parse_arrangement(layout)
    defender = parse_hand("2S 3S 4S 7S 8S 9S TS")
    assert _singles(oracle.layoff_options(meld, declaration, [c for c in defender if c not in meld])) == _ids(ends)


def test_R74_X15_no_card_is_laid_off_on_a_run_joker():
    """X15, R74, R75: the 6S cannot go on ``{5S JK=6S 7S}``; only the 4S and 8S extend it."""
    ((meld, declaration, _),), _ = parse_arrangement("{5S JK=6S 7S}")
    options = oracle.layoff_options(meld, declaration, parse_hand("6S 4S 8S"))
    assert all(cards.card("6S") not in option for option in options)
    assert options == {frozenset(), frozenset(_ids("4S")), frozenset(_ids("8S")), frozenset(_ids("4S 8S"))}


def test_E23_a_three_card_set_with_a_joker_takes_one_card():
    """E23, R74, R76: ``{7S 7H JK}`` takes the 7D, the 7C or a joker, one of them; a 4-card set takes nothing."""
    three, four = parse_hand("7S 7H JK"), parse_hand("7S 7H 7D JK")
    defender = [cards.card("7D"), cards.card("7C"), JOKER_IDS[1]]
    assert oracle.layoff_options(three, (SET, 6), defender) == {frozenset(), *(frozenset([c]) for c in defender)}
    assert oracle.layoff_options(four, (SET, 6), defender[1:]) == {frozenset()}


def test_R76_a_laid_off_joker_is_chained_through():
    """R76, X14, R27: a joker laid off as the 8H on 5H-7H lets the 9H follow; the 9H alone cannot go."""
    meld, defender = parse_hand("5H 6H 7H"), parse_hand("JK 9H")
    options = oracle.layoff_options(meld, (RUN, 1, 4), defender)
    assert frozenset(defender) in options
    assert frozenset([cards.card("9H")]) not in options


# --- R68 on random hands -------------------------------------------------------------------------------------------


def _sparse_naturals(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` naturals of distinct ranks, none within three ranks of another of its suit: no two can share a meld
    (R65), so under ``joker_min_naturals`` 2 no joker can be melded (T15, X16)."""
    while True:
        ranks = rng.choice(cards.N_RANKS, size=count, replace=False)
        suits = rng.integers(0, cards.N_SUITS, size=count)
        if all(np.all(np.diff(np.sort(ranks[suits == s])) >= MIN_SUIT_GAP) for s in range(cards.N_SUITS)):
            return suits * cards.N_RANKS + ranks


def _hands(seed: int, count: int, n_jokers: int, kind: str) -> list[list[int]]:
    """Seeded 10-card hands with ``n_jokers`` jokers. ``random`` naturals come from the whole deck, ``rich`` ones
    from RICH_RANKS adjacent ranks of RICH_SUITS suits, ``sparse`` ones from ``_sparse_naturals``."""
    rng = np.random.default_rng(seed)
    hands = []
    for _ in range(count):
        size = HAND_SIZE - n_jokers
        if kind == "sparse":
            naturals = _sparse_naturals(rng, size)
        else:
            pool = np.arange(cards.N_CARDS)
            if kind == "rich":
                suits = rng.choice(cards.N_SUITS, size=RICH_SUITS, replace=False)
                low = rng.integers(0, cards.N_RANKS - RICH_RANKS + 1)
                pool = (suits[:, None] * cards.N_RANKS + np.arange(low, low + RICH_RANKS)).ravel()
            naturals = rng.choice(pool, size=size, replace=False)
        hands.append([int(c) for c in naturals] + list(JOKER_IDS[:n_jokers]))
    return hands


#: (seed, count, jokers, kind) of each sample of R68's tests.
SAMPLES = [(11, 80, 1, "random"), (12, 80, 2, "random"), (13, 50, 1, "rich"), (14, 100, 2, "rich"),
           (15, 20, 1, "sparse"), (16, 20, 2, "sparse")]
SAMPLE_IDS = [f"{kind}-{n}jokers" for _, _, n, kind in SAMPLES]


def _least_melding(hand: list[int], min_naturals: int, must_meld: set[int]) -> int | None:
    """The least natural-card deadwood over arrangements that meld every card of ``must_meld``; None if no
    arrangement does."""
    all_melds = [frozenset(m) for m in oracle.melds(hand, min_naturals=min_naturals)]
    memo = {frozenset(): 0}

    def least(left: frozenset) -> int | None:
        if left not in memo:
            card = min(left)
            found = []
            if card not in must_meld and (rest := least(left - {card})) is not None:
                found.append(cards.value(card) + rest)
            found.extend(r for m in all_melds if card in m and m <= left and (r := least(left - m)) is not None)
            memo[left] = min(found, default=None)
        return memo[left]

    return least(frozenset(hand))


@pytest.mark.parametrize("min_naturals", oracle.MIN_NATURALS_CHOICES)
@pytest.mark.parametrize("sample", SAMPLES, ids=SAMPLE_IDS)
def test_R68a_jokers_are_melded_all_or_none(sample, min_naturals):
    """R68a: if some meld of the hand holds a joker, some arrangement melds every joker held; and with
    ``joker_value`` 20 (> 10) every minimum-deadwood arrangement leaves either every joker or none unmelded."""
    for hand in _hands(*sample):
        jokers = {c for c in hand if oracle.is_joker(c)}
        one_meldable = any(jokers & set(m) for m in oracle.melds(hand, min_naturals=min_naturals))
        assert one_meldable == (_least_melding(hand, min_naturals, jokers) is not None), hand
        for layout in oracle.arrangements(hand, min_naturals=min_naturals):
            assert len(jokers & set(layout.deadwood)) in (0, len(jokers)), (hand, layout)


@pytest.mark.parametrize("min_naturals", oracle.MIN_NATURALS_CHOICES)
@pytest.mark.parametrize("sample", SAMPLES, ids=SAMPLE_IDS)
def test_R68b_the_value_does_not_move_the_melds(sample, min_naturals):
    """R68b: for ``joker_value`` >= 10, DW = B + k * value, with B the least deadwood melding every joker (or, if
    none can be melded, that of the naturals alone) and k the jokers left unmelded (0 or all); and the values 15, 20
    and 25 give the same set of optimal arrangements."""
    for hand in _hands(*sample):
        jokers = {c for c in hand if oracle.is_joker(c)}
        base = _least_melding(hand, min_naturals, jokers)
        k = 0 if base is not None else len(jokers)
        if base is None:
            base = oracle.deadwood([c for c in hand if c not in jokers], min_naturals=min_naturals)
        for value in VALUES_AT_LEAST_TEN:
            assert oracle.deadwood(hand, joker_value=value, min_naturals=min_naturals) == base + k * value, hand
        layouts = [set(oracle.arrangements(hand, joker_value=v, min_naturals=min_naturals))
                   for v in SAME_ARRANGEMENT_VALUES]
        assert all(other == layouts[0] for other in layouts[1:]), hand


@pytest.mark.parametrize("min_naturals", oracle.MIN_NATURALS_CHOICES)
@pytest.mark.parametrize("sample", SAMPLES, ids=SAMPLE_IDS)
def test_R68c_gin_means_every_card_melded(sample, min_naturals):
    """R68c: with ``joker_value`` 0, DW = 0 exactly when every card, jokers included, can be melded."""
    for hand in _hands(*sample):
        all_melded = _least_melding(hand, min_naturals, set(hand)) is not None
        assert (oracle.deadwood(hand, joker_value=0, min_naturals=min_naturals) == 0) == all_melded, hand


def test_R68_samples_reach_every_branch():
    """The R68 tests cannot pass vacuously: the sparse samples hold hands whose jokers cannot be melded (k > 0 in
    R68b, "none" in R68a), the meld-rich ones hands that meld every card (R68c)."""
    for seed, count, n_jokers, kind in SAMPLES:
        hands = _hands(seed, count, n_jokers, kind)
        jokers = set(JOKER_IDS)
        unmeldable = sum(_least_melding(h, oracle.PRESET_MIN_NATURALS, jokers & set(h)) is None for h in hands)
        all_melded = sum(_least_melding(h, oracle.PRESET_MIN_NATURALS, set(h)) is not None for h in hands)
        if kind == "sparse":
            assert unmeldable == count
        if kind == "rich":
            assert all_melded > 0
