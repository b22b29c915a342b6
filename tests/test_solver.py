"""The exact solver (R5-R8, R22, R27-R29) against the oracle test data, a brute-force reference, the readable Python
solver (``tests/oracles/python_solver.py``), and itself."""

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gin_env.game import cards, solver
from gin_env.game.rules import Rules
from gin_env.game.solver import kernels
from tests.oracles import python_solver as oracle
from tests.reference import brute_best_discard, brute_deadwood

STANDARD = Rules()

TESTDATA = Path(__file__).resolve().parent / "data"


def _load(name):
    path = TESTDATA / name
    if not path.exists():
        pytest.fail(f"oracle test data missing: {path} (tests/data/ of the repository)")
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


DEADWOOD_CASES = _load("deadwood_cases.jsonl.gz")
KNOCK_CASES = _load("knock_cases.jsonl.gz")
TEN = [r for r in DEADWOOD_CASES if len(r["cards"]) == 10]
ELEVEN = [r for r in DEADWOOD_CASES if len(r["cards"]) == 11]


def test_testdata_has_every_kind():
    kinds = {r["id"].rsplit("-", 1)[0] for r in DEADWOOD_CASES}
    assert kinds == {"random10", "meldrich10", "random11", "meldrich11"}
    assert len(DEADWOOD_CASES) == 8000 and len(KNOCK_CASES) == 1000


def test_ten_card_deadwood_matches_oracle_scalar():
    wrong = [r["id"] for r in TEN if solver.deadwood(r["cards"]) != r["deadwood"]]
    assert wrong == []


def test_ten_card_deadwood_matches_oracle_batch():
    hands = np.array([cards.to_array(r["cards"]) for r in TEN])
    expected = np.array([r["deadwood"] for r in TEN])
    np.testing.assert_array_equal(solver.deadwood_batch(hands), expected)


def test_eleven_card_values_match_oracle_scalar():
    for r in ELEVEN:
        ids = cards.parse(r["cards"])
        after = solver.discard_deadwoods(ids)
        assert [after[c] for c in ids] == r["deadwood_after_discard"], r["id"]
        assert solver.best_discard_deadwood(ids) == r["best_discard_deadwood"], r["id"]
        assert sorted(c for c in ids if after[c] == 0) == sorted(cards.parse(r["gin_discards"])), r["id"]
        assert sorted(c for c in ids if after[c] <= 10) == sorted(cards.parse(r["knock_discards"])), r["id"]


def test_one_hand_kernels_match_oracle():
    """The compiled one-hand entries the engine and the observation call, on int card masks as the engine holds
    them: deadwood of 10 cards (R7), and of 11 cards the least deadwood after a discard, the cards reaching it and
    the knocks within the usual limit of 10 (R8, R20), with and without a card kept in hand (R16)."""
    settings = STANDARD.joker_settings
    wrong = [r["id"] for r in TEN if kernels.deadwood_of_mask(cards.to_mask(r["cards"]), *settings) != r["deadwood"]]
    assert wrong == []
    for r in ELEVEN:
        ids = cards.parse(r["cards"])
        after = dict(zip(ids, r["deadwood_after_discard"]))
        for kept in (-1, ids[0]):
            allowed = {c: dw for c, dw in after.items() if c != kept}
            best, best_cards, knock_cards, all_melded = kernels.discard_phase_of_mask(cards.to_mask(ids), kept, 10,
                                                                                      *settings)
            assert best == min(allowed.values()), r["id"]
            assert best_cards == cards.to_mask([c for c, dw in allowed.items() if dw == best]), r["id"]
            assert knock_cards == cards.to_mask([c for c, dw in allowed.items() if dw <= 10]), r["id"]
            assert all_melded == (solver.deadwood(ids) == 0), r["id"]


def test_eleven_card_values_match_oracle_batch():
    hands = np.array([cards.to_array(r["cards"]) for r in ELEVEN])
    np.testing.assert_array_equal(solver.best_discard_deadwood_batch(hands),
                                  [r["best_discard_deadwood"] for r in ELEVEN])
    per_card = solver.discard_deadwoods_batch(hands)
    for row, r in zip(per_card, ELEVEN):
        ids = cards.parse(r["cards"])
        assert row[ids].tolist() == r["deadwood_after_discard"], r["id"]
        assert (np.delete(row, ids) == solver.NOT_HELD).all()


def test_knock_showdowns_match_oracle():
    for r in KNOCK_CASES:
        result = solver.showdown(r["knocker"], r["defender"])
        assert result.gin == r["gin"], r["id"]
        assert result.knocker_deadwood == r["knocker_deadwood"], r["id"]
        assert result.defender_deadwood == r["defender_deadwood_auto"], r["id"]


def test_the_showdown_says_which_meld_each_layoff_went_on():
    """R27: every laid-off card sits on one knocker meld and keeps it a legal meld there (a set's fourth card, a run
    extended one rank at a time, chains included); together they are the layoffs. Over every oracle knock."""
    with_layoffs = 0
    for r in KNOCK_CASES:
        result = solver.showdown(r["knocker"], r["defender"])
        assert len(result.layoff_melds) == len(result.knocker_melds), r["id"]
        assert sorted(c for part in result.layoff_melds for c in part) == list(result.layoffs), r["id"]
        for meld, part in zip(result.knocker_melds, result.layoff_melds):
            assert solver.is_meld(list(meld) + list(part)), (r["id"], meld, part)
        with_layoffs += bool(result.layoffs)
    assert with_layoffs >= 300


def test_a_card_that_fits_two_melds_goes_on_the_first():
    """7H extends the run 4H-6H and completes the set of sevens: it is laid off once, on the first meld in
    ``knocker_melds`` order that takes it (R27)."""
    result = solver.showdown(cards.parse("AS 2S 3S 4H 5H 6H 7S 7D 7C 2C"), cards.parse("4S 7H KD KC QH JD 9C 8D 3D TH"))
    on = dict(zip(result.knocker_melds, result.layoff_melds))
    assert sum(len(part) for part in on.values()) == 2
    taker = next(meld for meld in result.knocker_melds if cards.card("7H") in on[meld])
    assert result.knocker_melds.index(taker) == min(result.knocker_melds.index(m) for m in result.knocker_melds
                                                    if solver.is_meld(list(m) + [cards.card("7H")]))
    assert on[next(m for m in result.knocker_melds if cards.card("AS") in m)] == (cards.card("4S"),)


def test_batched_showdown_matches_oracle():
    knockers = np.array([cards.to_mask(r["knocker"]) for r in KNOCK_CASES], dtype=np.uint64)
    defenders = np.array([cards.to_mask(r["defender"]) for r in KNOCK_CASES], dtype=np.uint64)
    k, f = solver.showdown_of_masks(knockers, defenders)
    np.testing.assert_array_equal(k, [r["knocker_deadwood"] for r in KNOCK_CASES])
    np.testing.assert_array_equal(f, [r["defender_deadwood_auto"] for r in KNOCK_CASES])
    _, plain = solver.showdown_of_masks(knockers, defenders, layoffs=False)
    np.testing.assert_array_equal(plain, solver.deadwood_of_masks(defenders))


def test_knock_showdown_range_over_every_optimal_arrangement():
    """The defender's deadwood over every minimum-deadwood knocker layout spans exactly the oracle's range (R22)."""
    for r in KNOCK_CASES:
        if r["gin"]:
            continue
        fs = [solver.showdown(r["knocker"], r["defender"], arrangement=a).defender_deadwood
              for a in oracle.optimal_arrangements(r["knocker"])]
        assert [min(fs), max(fs)] == r["defender_deadwood_range"], r["id"]


# ----- property tests against the brute-force reference ---------------------------------------------------------

@st.composite
def meld_rich_hands(draw, size):
    """Hands drawn from a few adjacent ranks in a few suits: full of overlapping sets and runs."""
    n_ranks = draw(st.integers(3, 5))
    low = draw(st.integers(0, 13 - n_ranks))
    suits = draw(st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True))
    pool = [s * 13 + r for s in suits for r in range(low, low + n_ranks)]
    extra = [c for c in range(52) if c not in pool]
    k = min(size, len(pool))
    chosen = draw(st.lists(st.sampled_from(pool), min_size=k, max_size=k, unique=True))
    rest = draw(st.lists(st.sampled_from(extra), min_size=size - k, max_size=size - k, unique=True))
    return sorted(chosen + rest)


def any_hands(size):
    return st.lists(st.integers(0, 51), min_size=size, max_size=size, unique=True)


def hands_of(size):
    return st.one_of(meld_rich_hands(size), any_hands(size))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(hands_of(10), min_size=1, max_size=8))
def test_ten_card_solver_equals_brute_force(hands):
    batch = solver.deadwood_batch(np.array([cards.to_array(h) for h in hands]))
    for h, b in zip(hands, batch):
        expected = brute_deadwood(frozenset(h))
        assert solver.deadwood(h) == expected == b, cards.to_str(h)
        melds, dead = solver.arrangement(h)
        assert all(solver.is_meld(m) for m in melds)
        assert sorted(sum(melds, []) + dead) == sorted(h)
        assert cards.hand_value(dead) == expected


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(hands_of(11), min_size=1, max_size=6))
def test_eleven_card_solver_equals_brute_force(hands):
    arr = np.array([cards.to_array(h) for h in hands])
    best = solver.best_discard_deadwood_batch(arr)
    per_card = solver.discard_deadwoods_batch(arr)
    for i, h in enumerate(hands):
        expected = {c: brute_deadwood(frozenset(h) - {c}) for c in h}
        assert solver.discard_deadwoods(h) == expected, cards.to_str(h)
        assert {c: int(per_card[i, c]) for c in h} == expected
        assert solver.best_discard_deadwood(h) == best[i] == brute_best_discard(frozenset(h))
        assert solver.deadwood(h) == brute_deadwood(frozenset(h))


def test_batch_matches_scalar_on_many_seeded_hands():
    rng = np.random.default_rng(7)
    for size in (10, 11):
        hands = np.zeros((3000, 52), dtype=bool)
        for row in hands:
            row[rng.choice(52, size, replace=False)] = True
        scalar = [solver.deadwood(np.flatnonzero(row).tolist()) for row in hands]
        np.testing.assert_array_equal(solver.deadwood_batch(hands), scalar)
        if size == 11:
            scalar11 = [solver.best_discard_deadwood(np.flatnonzero(row).tolist()) for row in hands]
            np.testing.assert_array_equal(solver.best_discard_deadwood_batch(hands), scalar11)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(meld_rich_hands(20), min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_batched_showdown_equals_scalar_showdown(pools, random):
    """On meld-rich deals (20 cards from a few ranks, split at random) the batched and scalar showdowns agree."""
    knockers, defenders = [], []
    for pool in pools:
        random.shuffle(pool)
        knockers.append(cards.to_mask(pool[:10]))
        defenders.append(cards.to_mask(pool[10:]))
    k, f = solver.showdown_of_masks(np.array(knockers, dtype=np.uint64), np.array(defenders, dtype=np.uint64))
    for i, (kn, de) in enumerate(zip(knockers, defenders)):
        result = solver.showdown(kn, de)
        assert (result.knocker_deadwood, result.defender_deadwood) == (k[i], f[i]), cards.to_str(kn)


# ----- named hands ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("hand, expected", [
    ("4H 4C 4S 5H 6H 7H 9C 9D 9S 2D", 2),      # X1(a): sets + run beat the long run
    ("3H 3C 3S 4H 5H 9C 9D 9S 2C AD", 9),      # X1(b): sets-first would give 12
    ("QS KS AS", 21),                          # E8: no wraparound
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H TH", 0),      # E4: a 10-card run is one meld
    ("7S 8S 9S 7H 8H 9H 7D 8D 9D 2C", 2),      # E5: runs or sets, same deadwood
    ("KS KH KD KC", 0),
    ("", 0),
])
def test_named_deadwood(hand, expected):
    assert solver.deadwood(hand) == expected


def test_eleven_card_run_is_big_gin_shape():
    assert solver.deadwood("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH") == 0  # E4


def test_the_oracles_arrangements_of_an_overlap_hand_are_runs_and_sets():
    layouts = oracle.optimal_arrangements("7S 8S 9S 7H 8H 9H 7D 8D 9D 2C")
    as_text = sorted(sorted(cards.to_str(m) for m in arr) for arr in layouts)
    assert as_text == [["7D 8D 9D", "7H 8H 9H", "7S 8S 9S"], ["7S 7H 7D", "8S 8H 8D", "9S 9H 9D"]]


def test_is_meld():
    assert solver.is_meld(cards.parse("5S 6S 7S 8S"))
    assert solver.is_meld(cards.parse("5S 5H 5D"))
    assert not solver.is_meld(cards.parse("5S 6S 8S"))
    assert not solver.is_meld(cards.parse("QS KS AS"))
    assert not solver.is_meld(cards.parse("5S 6H 7D"))
    assert not solver.is_meld(cards.parse("5S 6S"))


def test_explicit_arrangement_is_validated():
    knocker, defender = "7S 8S 9S 7H 8H 9H 7D 8D 9D 2C", "6S TH 8C KD KH KS 3H 4H 5H 4C"
    with pytest.raises(ValueError, match="not a legal meld"):
        solver.showdown(knocker, defender, arrangement=[cards.parse("7S 8S 9H")])
    with pytest.raises(ValueError, match="does not hold"):
        solver.showdown(knocker, defender, arrangement=[cards.parse("TS JS QS")])
    with pytest.raises(ValueError, match="overlaps"):
        solver.showdown(knocker, defender, arrangement=[cards.parse("7S 8S 9S"), cards.parse("7S 7H 7D")])
    with pytest.raises(ValueError, match="share cards"):
        solver.showdown(knocker, "7S " + defender[3:], arrangement=None)


def test_best_discards_of_masks_lists_every_best_discard():
    rng = np.random.default_rng(11)
    hands = np.zeros((4000, 52), dtype=bool)
    for i, row in enumerate(hands):
        pool = rng.choice(52, 11, replace=False) if i % 2 else rng.choice(20, 11, replace=False) + 13 * (i % 3)
        row[pool] = True
    masks = cards.hands_to_masks(hands)
    best, chosen = solver.best_discards_of_masks(masks)
    per_card = solver.discard_deadwoods_batch(hands)
    np.testing.assert_array_equal(best, per_card.min(axis=1))
    expected = cards.masks_to_array([0] * len(hands))
    expected[per_card == per_card.min(axis=1, keepdims=True)] = True
    np.testing.assert_array_equal(cards.masks_to_array(chosen.tolist()), expected)
    np.testing.assert_array_equal(solver.deadwood_of_masks(masks), solver.deadwood_batch(hands))


def test_batch_rejects_bad_shapes_and_handles_empty_batches():
    with pytest.raises(ValueError, match=r"shape \(N, 52\)"):
        solver.deadwood_batch(np.zeros((3, 51), dtype=bool))
    assert solver.deadwood_batch(np.zeros((0, 52), dtype=bool)).shape == (0,)
    assert solver.discard_deadwoods_batch(np.zeros((0, 52), dtype=bool)).shape == (0, 52)


def test_discard_phase_of_masks_matches_scalar_with_kept_cards_and_limits():
    """The compiled discard-phase pass: least deadwood over the cards that may leave the hand (R8, R16: the kept
    card stays), those cards, the knock cards within each limit (R20) and all 11 melded (R24), on random and
    meld-rich hands."""
    rng = np.random.default_rng(23)
    hands, kept, limits = [], [], []
    for i in range(3000):
        pool = rng.choice(52, 11, replace=False) if i % 2 else rng.choice(20, 11, replace=False) + 13 * (i % 3)
        hand = sorted(int(c) for c in pool)
        hands.append(cards.to_mask(hand))
        kept.append(int(rng.choice(hand)) if i % 3 else -1)
        limits.append(int(rng.integers(0, 12)))
    phase = solver.discard_phase_of_masks(np.array(hands, dtype=np.uint64), np.array(kept), np.array(limits))
    for i, (mask, keep, limit) in enumerate(zip(hands, kept, limits)):
        after = {c: dw for c, dw in solver.discard_deadwoods(cards.to_ids(mask)).items() if c != keep}
        best = min(after.values())
        assert phase.best_deadwood[i] == best
        assert int(phase.best_cards[i]) == cards.to_mask([c for c, dw in after.items() if dw == best])
        assert int(phase.knock_cards[i]) == cards.to_mask([c for c, dw in after.items() if dw <= limit])
        assert phase.all_melded[i] == (solver.deadwood(cards.to_ids(mask)) == 0)


def _check_laydown(lay, knocker_melds, defender):
    """A defender's lay-down holds together: one layoff part per knocker meld, each keeping that meld legal (R27);
    its own melds legal, of the cards it did not lay off; its deadwood the rest."""
    assert len(lay.layoffs) == len(knocker_melds)
    for meld, part in zip(knocker_melds, lay.layoffs):
        assert not part or solver.is_meld(list(meld) + list(part))
    laid = cards.to_mask([c for part in lay.layoffs for c in part])
    melded = cards.to_mask([c for meld in lay.own_melds for c in meld])
    assert all(solver.is_meld(meld) for meld in lay.own_melds)
    assert laid & melded == 0 and (laid | melded) & ~cards.to_mask(defender) == 0
    assert lay.deadwood == cards.hand_value(cards.to_mask(defender) & ~laid & ~melded)


def test_defender_laydown_matches_the_showdown_over_every_knocker_layout():
    """R27, R28: from the declared melds alone, the defender's lay-down is the showdown's, for every
    minimum-deadwood layout the knocker may declare (R22) of every oracle knock; the Python oracle's search agrees."""
    laid_off = 0
    for r in KNOCK_CASES:
        defender = cards.to_mask(r["defender"])
        for melds in oracle.optimal_arrangements(r["knocker"]):
            show = solver.showdown(r["knocker"], r["defender"], arrangement=melds)
            lay = solver.defender_laydown(show.knocker_melds, r["defender"])
            assert lay.deadwood == show.defender_deadwood, r["id"]
            assert lay.layoffs == show.layoff_melds, r["id"]
            _check_laydown(lay, show.knocker_melds, r["defender"])
            if not r["gin"]:
                f, parts = oracle.defender_after_layoffs(show.knocker_melds, defender)
                assert (f, tuple(tuple(cards.to_ids(p)) for p in parts)) == (lay.deadwood, lay.layoffs), r["id"]
            laid_off += any(lay.layoffs)
    assert laid_off >= 300


def test_defender_laydown_on_random_deals_with_and_without_layoffs():
    """Random and meld-rich deals: with layoffs (R27) the deadwood is the showdown's, without them (or against gin,
    melds of ten cards) it is the defender's plain deadwood and nothing is laid off."""
    rng = np.random.default_rng(31)
    for i in range(400):
        pool = rng.choice(52, 20, replace=False) if i % 2 else rng.choice(26, 20, replace=False) + 13 * (i % 3)
        knocker, defender = sorted(int(c) for c in pool[:10]), sorted(int(c) for c in pool[10:])
        show = solver.showdown(knocker, defender)
        lay = solver.defender_laydown(show.knocker_melds, defender)
        assert (lay.deadwood, lay.layoffs) == (show.defender_deadwood, show.layoff_melds)
        _check_laydown(lay, show.knocker_melds, defender)
        plain = solver.defender_laydown(show.knocker_melds, defender, layoffs=False)
        assert plain.deadwood == solver.deadwood(defender) and not any(plain.layoffs)
        assert plain.deadwood == solver.showdown(knocker, defender, layoffs=False).defender_deadwood
        _check_laydown(plain, show.knocker_melds, defender)


def test_defender_laydown_lays_nothing_off_against_gin():
    gin = [cards.parse("AS 2S 3S 4S"), cards.parse("7H 7D 7C"), cards.parse("9D TD JD")]
    lay = solver.defender_laydown(gin, cards.parse("5S 7S 8D QD 2H 3H 4H KC KH KS"))
    assert lay.layoffs == ((), (), ()) and lay.deadwood == 5 + 7 + 8 + 10
    assert sorted(lay.own_melds) == sorted([tuple(cards.parse("2H 3H 4H")), tuple(cards.parse("KS KH KC"))])


def test_defender_laydown_names_an_impossible_meld():
    defender = cards.parse("5S 7S 8D QD 2H 3H 4H KC KH KS")
    with pytest.raises(ValueError, match="not a legal meld: "):
        solver.defender_laydown([cards.parse("AS 2S 4S")], defender)
    with pytest.raises(ValueError, match="uses cards the defender holds: 5S"):
        solver.defender_laydown([cards.parse("3S 4S 5S")], defender)
    with pytest.raises(ValueError, match="overlaps another meld"):
        solver.defender_laydown([cards.parse("AS 2S 3S"), cards.parse("3S 3D 3C")], defender)


# ----- the compiled solver against the readable Python oracle ----------------------------------------------------

def _deals(seed, n):
    """Random deals, deals from two suits (runs, chains to lay off) and deals from six ranks of every suit (sets,
    fourth cards, several optimal layouts): (knocker's 10 cards, defender's 10 cards, an 11-card holding)."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        low = int(rng.integers(0, 8))
        few_ranks = [s * 13 + r for s in range(4) for r in range(low, low + 6)]
        pool = [rng.choice(52, 20, replace=False), rng.choice(26, 20, replace=False) + 13 * (i % 3),
                rng.choice(few_ranks, 20, replace=False)][i % 3]
        yield sorted(int(c) for c in pool[:10]), sorted(int(c) for c in pool[10:]), sorted(int(c) for c in pool[:11])


def test_arrangement_and_discards_match_the_oracle():
    """One arrangement of a holding is the oracle's to the card: the first optimal set choice with the last set rank
    varying fastest, runs as ``RUN_MOVE`` splits them (R7); the discard dict has the oracle's values in card order
    (R8). Over the testdata and random, two-suit and six-rank holdings of 10 and 11 cards."""
    holdings = [cards.parse(r["cards"]) for r in DEADWOOD_CASES]
    for knocker, defender, eleven in _deals(41, 1500):
        holdings += [knocker, defender, eleven]
    for hand in holdings:
        assert solver.arrangement(hand) == oracle.arrangement(hand), cards.to_str(hand)
    for hand in (h for h in holdings if len(h) == 11):
        assert list(solver.discard_deadwoods(hand).items()) == list(oracle.discard_deadwoods(hand).items())


def test_showdowns_and_laydowns_match_the_oracle_on_every_knock_case():
    """Every oracle knock, laid down by the compiled solver and by the Python oracle's search: the same Showdown to
    the card (R22: the knocker's layout, first in sorted order among those leaving the defender most; R27, R28:
    the layoffs and the meld each goes on) with and without layoffs, for the auto-arrangement and for each optimal
    layout declared explicitly, and the same defender lay-down against it."""
    differing_layouts = 0
    for r in KNOCK_CASES:
        knocker, defender = r["knocker"], r["defender"]
        for layoffs in (True, False):
            assert solver.showdown(knocker, defender, layoffs=layoffs) == \
                oracle.showdown(knocker, defender, layoffs=layoffs), r["id"]
        fs = set()
        for layout in oracle.optimal_arrangements(knocker):
            show = solver.showdown(knocker, defender, arrangement=layout)
            assert show == oracle.showdown(knocker, defender, arrangement=layout), r["id"]
            assert solver.defender_laydown(layout, defender) == oracle.defender_laydown(layout, defender), r["id"]
            fs.add(show.defender_deadwood)
        differing_layouts += len(fs) > 1
    assert differing_layouts >= 10


def test_showdowns_match_the_oracle_on_random_deals():
    """Random, two-suit and six-rank deals: the compiled showdown (auto-arrangement, with and without layoffs) and
    the defender's lay-down against the knocker's melds are the oracle's, card for card."""
    laid_off = 0
    for knocker, defender, _ in _deals(43, 900):
        for layoffs in (True, False):
            show = solver.showdown(knocker, defender, layoffs=layoffs)
            assert show == oracle.showdown(knocker, defender, layoffs=layoffs), cards.to_str(knocker)
        lay = solver.defender_laydown(show.knocker_melds[:-1], defender)
        assert lay == oracle.defender_laydown(show.knocker_melds[:-1], defender), cards.to_str(knocker)
        laid_off += bool(solver.showdown(knocker, defender).layoffs)
    assert laid_off >= 100


def test_the_knocker_lays_down_the_layout_that_leaves_the_defender_most():
    """7S-9S, 7H-9H and 7D-9D meld as three runs or three sets (R22). The runs come first in sorted order and are
    laid down when both leave the same; a defender holding TS could lay it off on the spade run, so the sets are;
    one holding 7C could lay it off on the sevens, so the runs are."""
    knocker = cards.parse("7S 8S 9S 7H 8H 9H 7D 8D 9D 2C")
    runs = tuple(tuple(cards.parse(m)) for m in ("7S 8S 9S", "7H 8H 9H", "7D 8D 9D"))
    sets = tuple(tuple(sorted(cards.parse(m))) for m in ("7S 7H 7D", "8S 8H 8D", "9S 9H 9D"))
    for defender, melds in (("KS KH QD QC JS JH 5D 4C 3C 2D", runs), ("TS KH QD QC JH 5D 4C 3C 2D AH", sets),
                            ("7C KH QD QC JS JH 5D 4C 3C 2D", runs)):
        show = solver.showdown(knocker, defender)
        assert show.knocker_melds == melds, defender
        assert show == oracle.showdown(knocker, defender)
