"""The batched engine against the scalar one: same deals and actions give the same states, masks, observations,
rewards and outcomes (docs/vector.md), and every game stays valid after every step."""

import collections
import dataclasses

import numpy as np
import pytest

from gin_env.batch import hand_batch as batch
from gin_env.batch.observation import batch_view, encode_batch
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game import cards, engine, match, observation, solver
from gin_env.game.rules import PRESETS, Rules
from tests.scripted import LoopingAgent, looping_action


def knock_happy_action(state: engine.HandState, legal: np.ndarray, rng: np.random.Generator) -> int:
    """A scripted player that ends many hands: knocks (or big gins) when it can, usually discards its best card,
    otherwise plays at random. It reaches knocks with layoffs, undercuts, gins and dead hands."""
    enders = legal[(legal >= engine.KNOCK_BASE) | (legal == engine.BIG_GIN)]
    if enders.size and rng.random() < 0.9:
        return int(rng.choice(enders))
    discards = legal[(legal >= engine.DISCARD_BASE) & (legal < engine.KNOCK_BASE)]
    if discards.size and rng.random() < 0.8:
        after = solver.discard_deadwoods(state.hands[state.current], state.rules)
        return int(min(discards, key=lambda a: (after[a - engine.DISCARD_BASE], rng.random())))
    return int(rng.choice(legal))


def play_side_by_side(rules: Rules, n: int, seed: int, every_step: bool = True,
                      mid_hand: bool = False) -> collections.Counter:
    """Deal n hands to both engines and play them out with the same actions. After every step the legal masks
    must agree; with ``every_step`` so must the whole states and both players' observations, else the final states.
    With ``mid_hand`` the scalar hands are first played some steps in (see ``mid_hand_states``) and the batch is
    built from those states by ``HandBatch.from_states``. Returns the outcome kinds seen (plus "layoffs" for knocks
    where the defender laid off)."""
    rng = np.random.default_rng(seed)
    decks = np.array([rng.permutation(rules.deck.n_cards) for _ in range(n)])
    dealers = rng.integers(0, 2, n)
    scores = rng.integers(0, 120, (n, 2))
    if mid_hand:
        states = mid_hand_states(rules, decks, dealers, rng)
        assert any(state.phase == engine.WALL for state in states) or not rules.wall_upcard_knock
        b = batch.HandBatch.from_states(states)
        assert b.to_states() == states
    else:
        states = [engine.new_hand(rules, deck=decks[i], dealer=int(dealers[i])) for i in range(n)]
        b = batch.HandBatch(rules, n)
        b.deal(np.arange(n), decks, dealers)
    games = np.arange(n)
    while True:
        if every_step:
            for player in (0, 1):
                encoded = encode_batch(batch_view(b, games, np.full(n, player), scores))
                for i in range(n):
                    expected = observation.encode(observation.view(states[i], player, tuple(scores[i])))
                    assert np.array_equal(encoded[i], expected), f"observation of game {i}, player {player}"
        live = np.array([i for i in range(n) if states[i].phase != engine.OVER], dtype=np.int64)
        if live.size == 0:
            break
        masks = b.legal_masks(live)
        chosen = []
        for row, i in enumerate(live):
            mask = engine.legal_mask(states[i])
            assert np.array_equal(masks[row], mask), f"mask of game {i}"
            action = knock_happy_action(states[i], np.flatnonzero(mask), rng)
            chosen.append(action)
            states[i] = engine.step(states[i], action)
        b.step(live, np.array(chosen))
        for i in live if every_step else [i for i in live if states[i].phase == engine.OVER]:
            assert b.hand_state(int(i)) == states[i], f"game {i} diverged"
    kinds = collections.Counter(s.outcome.kind for s in states)
    kinds["layoffs"] = sum(1 for s in states if s.outcome.layoffs)
    kinds["capped"] = sum(1 for s in states if s.outcome.capped)
    np.testing.assert_array_equal(b.capped, [s.outcome.capped for s in states])
    if rules.max_upcard_draws is not None:
        kinds["upcard_cap"] = sum(1 for s in states if s.upcard_draws >= rules.max_upcard_draws)
    if rules.repeat_discard_ends:
        kinds["returns"] = sum(1 for s in states if s.returns >= 2)
    for player in (0, 1):
        expected_points = [s.outcome.player_points(player) for s in states]
        np.testing.assert_array_equal(b.player_points(games, np.full(n, player)), expected_points)
    return kinds


def play_scalar(state: engine.HandState, steps: int, rng: np.random.Generator,
                to_wall: bool = False) -> engine.HandState:
    """``state`` after up to ``steps`` actions of ``knock_happy_action`` (fewer if the hand ends); ``to_wall``:
    uniformly random legal actions instead, stopping at the wall (R38), which the knock-happy player rarely reaches."""
    for _ in range(steps):
        if state.phase == engine.OVER or (to_wall and state.phase == engine.WALL):
            break
        legal = np.flatnonzero(engine.legal_mask(state))
        state = engine.step(state, int(rng.choice(legal)) if to_wall else knock_happy_action(state, legal, rng))
    return state


def mid_hand_states(rules: Rules, decks: np.ndarray, dealers: np.ndarray,
                    rng: np.random.Generator) -> list[engine.HandState]:
    """One state per deal: every fourth played at random to the wall, the others 0 to 60 knock-happy steps in."""
    return [play_scalar(engine.new_hand(rules, deck=deck, dealer=int(dealer)),
                        200 if i % 4 == 0 else int(rng.integers(0, 61)), rng, to_wall=i % 4 == 0)
            for i, (deck, dealer) in enumerate(zip(decks, dealers))]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_batches_from_mid_hand_states_match_scalar(preset):
    """States of every phase, finished hands included, enter through ``HandBatch.from_states`` and play on in both
    engines step by step, as a search plays continuations of positions."""
    play_side_by_side(Rules.preset(preset), 120, seed=31, mid_hand=True)


def openspiel_mid_hand_states(n: int, seed: int) -> list[engine.HandState]:
    """``n`` hands at random points of play (every phase, finished ones included) under OpenSpiel's rules, which
    have the R38 wall decision."""
    rng = np.random.default_rng(seed)
    return mid_hand_states(Rules.preset("openspiel"), np.array([rng.permutation(cards.N_CARDS) for _ in range(n)]),
                           rng.integers(0, 2, n), rng)


def test_from_states_enters_every_phase():
    """Hands entering through ``from_states`` in every phase, the wall (R38) and finished hands included, come
    back equal and with the scalar engine's legal masks (OpenSpiel's rules, which have the R38 wall decision)."""
    states = openspiel_mid_hand_states(400, seed=31)
    b = batch.HandBatch.from_states(states)
    assert set(b.phase.tolist()) == set(range(len(engine.PHASE_NAMES)))
    assert b.to_states() == states
    np.testing.assert_array_equal(b.legal_masks(), [engine.legal_mask(s) for s in states])


def test_take_copies_games_that_then_play_on_apart():
    """``take`` repeats games (every phase, finished ones included) as independent copies: equal states and masks,
    and stepping a copy changes neither the original nor the other copies."""
    n = 60
    states = openspiel_mid_hand_states(n, seed=32)
    b = batch.HandBatch.from_states(states)
    live = next(i for i, state in enumerate(states) if state.phase != engine.OVER)
    rows = np.array([live, live, 0, n - 1, live])
    copy = b.take(rows)
    assert copy.to_states() == [states[i] for i in rows]
    np.testing.assert_array_equal(copy.legal_masks(), b.legal_masks(rows))
    copy.step(np.array([0]), np.array([int(np.flatnonzero(copy.legal_masks([0])[0])[0])]))
    assert copy.hand_state(0) != states[live]
    assert b.to_states() == states
    assert copy.to_states()[1:] == [states[i] for i in rows[1:]]
    with pytest.raises(ValueError, match="game indices"):
        b.take([n])
    with pytest.raises(ValueError, match="non-empty"):
        b.take([])


def test_from_states_rejects_bad_input():
    rules = Rules.preset("standard")
    rng = np.random.default_rng(2)
    state = engine.new_hand(rules, rng)
    with pytest.raises(ValueError, match="at least one state"):
        batch.HandBatch.from_states([])
    with pytest.raises(ValueError, match=r"state 1 plays under rules 'oklahoma'"):
        batch.HandBatch.from_states([state, engine.new_hand(Rules.preset("oklahoma"), rng)])
    with pytest.raises(ValueError, match=r"state 0 is not a valid hand: cards in no place \(R11\)"):
        batch.HandBatch.from_states([dataclasses.replace(state, hands=(state.hands[0], 0))])
    with pytest.raises(TypeError, match="state 0 is a tuple"):
        batch.HandBatch.from_states([()])


@pytest.mark.parametrize("preset", ["standard", "oklahoma", "openspiel", "foony"])
def test_batched_engine_matches_scalar_step_by_step(preset):
    kinds = play_side_by_side(Rules.preset(preset), 300, seed=11)
    assert kinds["knock"] and kinds["undercut"] and kinds["dead"] and kinds["layoffs"], kinds
    if preset == "openspiel":
        assert kinds["tie"], kinds


@pytest.mark.parametrize("rules", [Rules(jokers=2), Rules.preset("oklahoma", jokers=1, joker_value=0)],
                         ids=["two-jokers", "oklahoma-one-joker-of-0"])
def test_batched_engine_matches_scalar_under_jokers(rules):
    """Section 17 in both engines alike, step by step: the deal of N cards, the joker actions, R71's blocks, R72's
    records and counts in every observation, and showdowns with jokers; from mid-hand states too."""
    kinds = play_side_by_side(rules, 200, seed=13)
    assert kinds["knock"] and kinds["layoffs"] and kinds["dead"], kinds
    play_side_by_side(rules, 80, seed=14, mid_hand=True)


def test_batched_engine_matches_scalar_on_openspiel_dead_hands():
    """R60 (with a cap of 8 takes, so that it is reached often) and R61, step by step."""
    kinds = play_side_by_side(Rules.preset("openspiel", max_upcard_draws=8), 200, seed=12)
    assert kinds["upcard_cap"] > 20 and kinds["returns"] > 20 and kinds["knock"], kinds


@pytest.mark.parametrize("preset", ["standard", "eaai", "oklahoma", "foony", "seed-000", "openspiel"])
def test_batched_engine_matches_scalar_over_many_hands(preset):
    """10,000+ hands in all: states, masks and points compared after every step (observations in the test above)."""
    kinds = play_side_by_side(Rules.preset(preset), 1700, seed=23, every_step=False)
    assert kinds["knock"] > 100 and kinds["undercut"] and kinds["gin"] and kinds["dead"], kinds
    assert kinds["layoffs"] > 10, kinds


@pytest.mark.parametrize("preset", ["standard", "openspiel"])
def test_turn_cap_matches_scalar(preset):
    """R19: with a low cap, hands end capped (dead, flagged) in both engines alike; wall dead hands are not flagged.
    R61 is off: this scripted player often puts back the card it just took, and R61 would end its hands first."""
    kinds = play_side_by_side(Rules.preset(preset, max_turns=60, repeat_discard_ends=False), 300, seed=19)
    assert kinds["capped"] > 10 and kinds["dead"] > kinds["capped"] and kinds["knock"], kinds
    kinds = play_side_by_side(Rules.preset(preset, max_turns=None, repeat_discard_ends=False), 300, seed=19,
                              every_step=False)
    assert kinds["capped"] == 0 and kinds["dead"], kinds


def test_deal_modes_and_big_gin_match_scalar():
    """RLCard's eleven-card deal, and big gin (R24) reached from a scripted deck: X8's hand after taking 5C."""
    play_side_by_side(Rules(deal_mode="eleven", big_gin_bonus=31), 200, seed=5)
    player = cards.parse("2C 3C 4C 6C 9D 9H 9S JS QS KS")
    other = cards.parse("AH 2H 3H KC KD KH 7D 7S 4S 3D")
    upcard = cards.card("5C")
    rest = [c for c in range(52) if c not in player + other + [upcard]]
    deck = [c for pair in zip(player, other) for c in pair] + [upcard] + rest
    rules = Rules.preset("foony")
    b = batch.HandBatch(rules, 1)
    b.deal(np.array([0]), np.array([deck]), np.array([1]))
    state = engine.new_hand(rules, deck=deck, dealer=1)
    for action in (engine.TAKE_DISCARD, engine.BIG_GIN):
        state = engine.step(state, action)
        b.step(np.array([0]), np.array([action]))
        assert b.hand_state(0) == state
    assert state.outcome.kind == "big_gin" and state.outcome.points == 21 + 31


def test_validate_holds_for_every_game_after_every_step():
    rules = Rules.preset("standard")
    n = 256
    rng = np.random.default_rng(3)
    b = batch.HandBatch(rules, n)
    for _ in range(3):
        b.deal(np.arange(n), np.array([rng.permutation(52) for _ in range(n)]), rng.integers(0, 2, n))
        while (b.phase != engine.OVER).any():
            live = np.flatnonzero(b.phase != engine.OVER)
            masks = b.legal_masks(live)
            chosen = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            b.step(live, chosen)
            for i in range(n):
                engine.validate(b.hand_state(i))


def test_illegal_action_names_the_game_and_changes_nothing():
    rules = Rules.preset("standard")
    b = batch.HandBatch(rules, 2)
    rng = np.random.default_rng(0)
    b.deal(np.arange(2), np.array([rng.permutation(52) for _ in range(2)]), np.array([0, 1]))
    before = [b.hand_state(i) for i in range(2)]
    with pytest.raises(engine.IllegalActionError, match=r"game 1: illegal action DRAW_STOCK in phase 'offer'"):
        b.step(np.array([0, 1]), np.array([engine.PASS, engine.DRAW_STOCK]))
    assert [b.hand_state(i) for i in range(2)] == before


def test_discard_phase_answers_across_split_steps_match_scalar():
    """The discard-phase answers (knocks, big gin, best discards) belong to the game that entered the phase: here
    each round steps the live games in two calls before anything is read, as the vector env steps the learner's
    games and then the opponent's, and the masks and observations still match the scalar engine."""
    rules = Rules.preset("openspiel")
    n = 120
    rng = np.random.default_rng(41)
    decks = np.array([rng.permutation(cards.N_CARDS) for _ in range(n)])
    dealers = rng.integers(0, 2, n)
    b = batch.HandBatch(rules, n)
    b.deal(np.arange(n), decks, dealers)
    states = [engine.new_hand(rules, deck=decks[i], dealer=int(dealers[i])) for i in range(n)]
    masks = b.legal_masks()
    while True:
        live = np.array([i for i in range(n) if states[i].phase != engine.OVER], dtype=np.int64)
        if live.size == 0:
            break
        chosen = np.array([knock_happy_action(states[i], np.flatnonzero(masks[i]), rng) for i in live])
        for part in (slice(0, live.size // 2), slice(live.size // 2, None)):
            b.step(live[part], chosen[part])
        for i, action in zip(live, chosen):
            states[i] = engine.step(states[i], int(action))
        current = np.array([s.current for s in states])
        encoded = encode_batch(batch_view(b, np.arange(n), current))
        masks = b.legal_masks()
        for i in range(n):
            assert np.array_equal(masks[i], engine.legal_mask(states[i])), f"mask of game {i}"
            expected = observation.encode(observation.view(states[i], int(current[i])))
            assert np.array_equal(encoded[i], expected), f"observation of game {i}"
    assert b.to_states() == states


def test_from_states_keeps_capped_and_wall_dead_hands_apart():
    """R19: a capped hand and a wall dead hand (R37) go into a batch and come back as they were."""
    rules = Rules.preset("standard", max_turns=40)
    capped = engine.new_hand(rules, np.random.default_rng(2), dealer=0)
    while capped.phase != engine.OVER:
        capped = engine.step(capped, looping_action(engine.legal_actions(capped), capped.phase, capped.taken))
    wall = engine.new_hand(rules, np.random.default_rng(2), dealer=0)
    while wall.phase != engine.OVER:  # pass the upcard, always draw, discard the lowest card, never knock
        legal = engine.legal_actions(wall)
        wall = engine.step(wall, next(a for a in legal if a in (engine.PASS, engine.DRAW_STOCK)
                                      or engine.DISCARD_BASE <= a < engine.KNOCK_BASE))
    assert capped.outcome.capped and wall.outcome == engine.DEAD_OUTCOME
    b = batch.HandBatch.from_states([capped, wall])
    assert b.capped.tolist() == [True, False] and b.to_states() == [capped, wall]


def test_batched_match_bookkeeping_matches_scalar_match_with_abandoned_games():
    """R19 and R19a in the vector env's match arrays against ``match.record_hand``: every hand's reported outcome,
    replayed through the scalar match, gives the same end (target reached or abandoned), scores, hands won and
    totals. The looping opponent never knocks, so every hand ends on a learner step and is reported."""
    rules = Rules.preset("standard", target=10, max_turns=30, max_dead_hands=3)
    n = 16
    envs = GinRummyVectorEnv(num_envs=n, opponent=LoopingAgent(), rules=rules, episode="match")
    rng = np.random.default_rng(21)
    envs.reset(seed=21)
    matches = [match.new_match(rules, rng, dealer=0) for _ in range(n)]
    ends = collections.Counter()
    for _ in range(400):
        masks = envs.action_masks()
        # Knock whenever possible, else play at random: games reach the target as well as being abandoned.
        chosen = np.array([rng.choice(np.flatnonzero(m[engine.KNOCK_BASE:]) + engine.KNOCK_BASE
                                      if m[engine.KNOCK_BASE:].any() else np.flatnonzero(m)) for m in masks])
        _, _, terminated, _, info = envs.step(chosen)
        for i in np.flatnonzero(info.get("_outcome_kind", np.zeros(n, dtype=bool))):
            points = int(info["outcome_points"][i])
            winner = None if points == 0 else (0 if points > 0 else 1)
            outcome = dataclasses.replace(engine.DEAD_OUTCOME, kind=str(info["outcome_kind"][i]), winner=winner,
                                          points=abs(points), capped=bool(info["outcome_capped"][i]))
            matches[i] = match.record_hand(matches[i], outcome, rng)
            assert matches[i].over == terminated[i], i
        for i in np.flatnonzero(terminated):
            m = matches[i]
            assert (m.abandoned, m.scores, m.hands_won, match.final_totals(m)) == (
                bool(info["match_abandoned"][i]), tuple(info["match_scores"][i]), tuple(info["match_hands_won"][i]),
                tuple(info["match_totals"][i])), i
            ends["abandoned" if m.abandoned else "target"] += 1
            matches[i] = match.new_match(rules, rng, dealer=0)
    assert ends["abandoned"] >= 10 and ends["target"] >= 10, ends


def test_nth_and_random_set_bits_pick_among_set_bits():
    """``nth_set_bit`` finds set bit number n of a row of words (-1 past the last), and ``random_set_bit`` picks
    set bit number floor(u * count) with u from the generator's next ``random(k)`` draw (0 for an empty row): the
    draw the random agent makes, so that seeds give the same games."""
    rng = np.random.default_rng(5)
    words = rng.integers(0, 2**63, (500, 2), dtype=np.uint64) & rng.integers(0, 2**63, (500, 2), dtype=np.uint64)
    words[:7] = 0
    bits = [[64 * w + b for w in range(2) for b in range(64) if int(row[w]) >> b & 1] for row in words]
    n = rng.integers(0, 40, 500)
    expected = [row[k] if k < len(row) else -1 for row, k in zip(bits, n)]
    np.testing.assert_array_equal(batch.nth_set_bit(words, n), expected)
    u = np.random.default_rng(9).random(500)
    picked = batch.random_set_bit(words, np.random.default_rng(9))
    np.testing.assert_array_equal(picked, [row[int(x * len(row))] if row else 0 for row, x in zip(bits, u)])
