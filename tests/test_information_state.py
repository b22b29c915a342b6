"""The information state (``gin_env.game.information_state``; docs/belief.md, "The information state"): the token
layout, ``token`` and its inverse, the bound ``history_length`` (R19, R60), the scalar env's history against the
public events of the learner's hand (``public_history``) in every preset and format, the vector env's against the
scalar env's, perfect recall of the dealt hand, no peeking at hidden cards (R21 for the knock card), jokers told by
event and never by id (R72), the errors, the spaces and gymnasium's checker, and the default that changes nothing."""

from __future__ import annotations

import functools
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import gin_env  # noqa: F401 - registers GinRummy-v0
from gin_env.batch.hand_batch import HandBatch
from gin_env.batch.history import BatchHistory
from gin_env.envs.gin_rummy import GinRummyEnv
from gin_env.envs.hand_history import LearnerHistory
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game import actions, cards, engine, observation
from gin_env.game.information_state import (
    HISTORY_DTYPE,
    HISTORY_LAYOUT,
    JOKER_LAYOUT,
    JOKER_TOKENS,
    MAX_HISTORY,
    N_TOKENS,
    OTHER_DRAW,
    OTHER_KNOCK,
    OWN_DISCARD,
    describe_token,
    encode_history,
    event_of,
    history_layout,
    history_length,
    n_tokens,
    token,
)
from gin_env.game.observation import obs_layout
from gin_env.game.public_history import (
    BigGin,
    Discard,
    Draw,
    Knock,
    Pass,
    Take,
    Upcard,
    deal_events,
    player_view,
    public_event,
)
from gin_env.game.rules import PRESETS, Rules
from gin_env.table.formats import ThreeTable
from tests import test_vector_vs_env as twins
from tests.test_observation import rehide

FORMATS = {"two players": {}, "three players": {"players": 3}, "four players": {"players": 4},
           "room (2, 3)": {"room": (2, 3), "learner_seat": 0}}


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def mostly_greedy(mask: np.ndarray, rng: np.random.Generator) -> int:
    """The vector-vs-env test's learner: greedy two times in three, so that hands end soon."""
    return int(twins.learner_actions(mask[None], rng)[0])


# ---------------------------------------------------------------------------------------------------------------
# The tokens
# ---------------------------------------------------------------------------------------------------------------

def test_the_layout_has_no_gap_or_overlap_and_every_token_fits_int16():
    starts = [r.start for r in HISTORY_LAYOUT.values()]
    stops = [r.stop for r in HISTORY_LAYOUT.values()]
    assert starts[0] == 0 and starts[1:] == stops[:-1] and stops[-1] == N_TOKENS
    assert N_TOKENS == 1 + 7 * cards.N_CARDS + 6  # pad; seven kinds with a card; six without
    assert [len(r) for r in HISTORY_LAYOUT.values()].count(cards.N_CARDS) == 7
    assert N_TOKENS - 1 <= np.iinfo(HISTORY_DTYPE).max


def test_jokers_add_one_token_per_card_kind_after_the_standard_vocabulary_R72():
    """The standard layout is a prefix of the jokers' (every standard token keeps its id), and each of the seven
    kinds that name a card has one joker token after it, whichever joker and however many the deck holds."""
    assert list(JOKER_LAYOUT.items())[:len(HISTORY_LAYOUT)] == list(HISTORY_LAYOUT.items())
    added = {name: r for name, r in JOKER_LAYOUT.items() if name not in HISTORY_LAYOUT}
    card_kinds = [name for name, r in HISTORY_LAYOUT.items() if len(r) == cards.N_CARDS]
    assert list(added) == [f"{name}_joker" for name in card_kinds] and {len(r) for r in added.values()} == {1}
    assert [r.start for r in added.values()] == list(range(N_TOKENS, N_TOKENS + JOKER_TOKENS)) == list(range(371, 378))
    assert history_layout(Rules()) is HISTORY_LAYOUT and n_tokens(Rules()) == N_TOKENS
    for jokers in (1, 2):
        rules = Rules(jokers=jokers)
        assert history_layout(rules) is JOKER_LAYOUT and n_tokens(rules) == N_TOKENS + JOKER_TOKENS


@pytest.mark.parametrize("viewer", [0, 1])
def test_token_and_event_of_round_trip_every_token_and_every_event_kind(viewer):
    other = 1 - viewer
    for t in range(1, N_TOKENS + JOKER_TOKENS):
        assert token(event_of(t, viewer), viewer) == t
    kinds = set()
    for c in range(cards.N_CARDS):
        visible = [Upcard(c), Take(viewer, c), Take(other, c), Draw(viewer, c), Discard(viewer, c),
                   Discard(other, c), Knock(viewer, c)]
        for event in visible:
            assert event_of(token(event, viewer), viewer) == event
            kinds.add(type(event))
    for event in (Pass(viewer), Pass(other), BigGin(viewer), BigGin(other), Draw(other)):
        assert event_of(token(event, viewer), viewer) == event
    assert event_of(token(Knock(other, 5), viewer), viewer) == Knock(other, None)
    assert kinds | {Pass, BigGin} == {Upcard, Pass, Take, Draw, Discard, Knock, BigGin}
    assert token(Discard(viewer, "7H"), viewer) == OWN_DISCARD + cards.card("7H")
    joker = cards.N_CARDS  # R72: a record names any joker as the first joker's id
    for event in (Upcard(joker), Take(viewer, joker), Take(other, joker), Draw(viewer, joker), Discard(viewer, joker),
                  Discard(other, joker), Knock(viewer, joker)):
        assert event_of(token(event, viewer), viewer) == event


def test_either_joker_and_its_name_are_one_token_R72():
    """R72: the events of joker 52, joker 53 and ``"JK"`` are one token each, the joker token of their kind."""
    for make, name in ((Upcard, "upcard"), (functools.partial(Take, 0), "own_take"),
                       (functools.partial(Take, 1), "other_take"), (functools.partial(Draw, 0), "own_draw"),
                       (functools.partial(Discard, 0), "own_discard"), (functools.partial(Discard, 1), "other_discard"),
                       (functools.partial(Knock, 0), "own_knock")):
        assert {token(make(joker), 0) for joker in (52, 53, "JK", "jk")} == {JOKER_LAYOUT[f"{name}_joker"].start}
    assert token(Knock(1, 53), 0) == OTHER_KNOCK
    assert describe_token(token(Take(1, 53), 0)) == "other takes JK"


def test_the_other_players_knock_card_is_face_down_R21():
    """R21: the knock card goes face down on the pile (docs/rules-choices.md: it is not public), so the other
    player's knock is one token whatever its card; the viewer's own knock names the card it put down."""
    assert {token(Knock(1, c), 0) for c in range(cards.N_CARDS)} == {OTHER_KNOCK}
    assert [token(Knock(0, c), 0) for c in range(cards.N_CARDS)] == list(HISTORY_LAYOUT["own_knock"])
    assert {token(Draw(1), 0)} == {OTHER_DRAW}  # R15: the other's stock card is hidden too


def test_describe_token_words():
    assert describe_token(0) == "no event"
    assert describe_token(token(Discard(1, "7H"), 0)) == "other discards 7H"
    assert describe_token(token(Draw(0, "5C"), 0)) == "own draws 5C"
    assert describe_token(OTHER_KNOCK) == "other knocks"
    assert describe_token(token(Upcard("TD"), 1)) == "upcard TD"


def test_bad_tokens_events_and_histories_are_refused_clearly():
    with pytest.raises(ValueError, match="padding"):
        event_of(0, 0)
    with pytest.raises(ValueError, match="out of range"):
        event_of(N_TOKENS + JOKER_TOKENS, 0)
    with pytest.raises(TypeError, match="integer"):
        describe_token(True)
    with pytest.raises(TypeError, match="not a public event"):
        token("KS", 0)
    with pytest.raises(ValueError, match="names its card for its drawer only"):
        token(Draw(0), 0)
    with pytest.raises(ValueError, match="names its card for its drawer only"):
        token(Draw(1, "KS"), 0)
    with pytest.raises(ValueError, match="card"):
        token(Discard(0, cards.LARGEST_DECK.n_cards), 0)
    with pytest.raises(ValueError, match="viewer"):
        token(Pass(0), 2)
    with pytest.raises(ValueError, match="3 events do not fit a history of length 2"):
        encode_history([Upcard(0), Pass(1), Pass(0)], 0, 2)
    np.testing.assert_array_equal(encode_history([Upcard(0), Pass(1)], 0, 4), [1, token(Pass(1), 0), 0, 0])


# ---------------------------------------------------------------------------------------------------------------
# The bound (R19, R60)
# ---------------------------------------------------------------------------------------------------------------

def play_longest(rules: Rules, rng: np.random.Generator) -> tuple[engine.HandState, int]:
    """A hand whose players pass the upcard (R13), then never knock and take the discard whenever they may short of
    the cap of R60 (so the stock lasts), discarding another card than the one taken (no return, R61); at the wall
    they take to knock if they can (R38). Returns the last state and the number of public events."""
    cap = rules.max_upcard_draws
    state = engine.new_hand(rules, rng, dealer=int(rng.integers(2)))
    events = len(deal_events(state))
    while state.phase != engine.OVER:
        legal = engine.legal_actions(state)
        if state.phase == engine.DISCARD:
            knocks = [a for a in legal if actions.is_knock(a)]
            discards = [a for a in legal if actions.is_discard(a) and actions.action_card(a) != state.taken]
            action = knocks[0] if state.must_knock else discards[0]
        elif state.phase == engine.OFFER:
            action = actions.PASS
        else:
            below_cap = cap is None or state.phase == engine.WALL or state.upcard_draws + 1 < cap
            action = actions.TAKE_DISCARD if actions.TAKE_DISCARD in legal and below_cap else legal[0]
        state = engine.step(state, action)
        events += 1
    return state, events


@pytest.mark.parametrize("rules", [Rules(), Rules(max_turns=7), Rules(max_turns=1), Rules.preset("eaai"),
                                   Rules(deal_mode="eleven", max_turns=9), Rules(deal_mode="eleven", max_turns=1)],
                         ids=["standard", "cap 7", "cap 1", "eaai", "eleven, cap 9", "eleven, cap 1"])
def test_a_hand_played_to_the_turn_cap_fills_the_history_exactly_R19(rules):
    state, events = play_longest(rules, np.random.default_rng(0))
    assert state.outcome.capped and state.turns == rules.max_turns
    assert events == history_length(rules)


def test_hands_under_the_take_cap_fit_with_room_R60():
    """``openspiel`` caps takes from the pile (R60) and ends hands on two returns (R61): with or without the turn
    cap, its hands fit the bound R60 gives, the longest ones close to it."""
    for rules in (Rules.preset("openspiel"), Rules.preset("openspiel", max_turns=None)):
        length = history_length(rules)
        assert length == 2 * (31 - rules.wall + rules.max_upcard_draws) + 6
        rng = np.random.default_rng(1)
        longest = max(play_longest(rules, rng)[1] for _ in range(50))
        assert length - 4 <= longest <= length


def test_rules_without_a_bound_or_past_max_history_are_refused_naming_the_rule():
    assert history_length(Rules(max_turns=(MAX_HISTORY - 3) // 2)) <= MAX_HISTORY
    with pytest.raises(ValueError, match=r"max_turns is None, R19.*set max_turns"):
        history_length(Rules(max_turns=None))
    with pytest.raises(ValueError, match=r"max_turns=1000000 \(R19\).*MAX_HISTORY \(4096\): set max_turns to at "
                                         r"most 2046"):
        history_length(Rules(max_turns=10**6))
    with pytest.raises(ValueError, match=r"max_upcard_draws=100000 \(R60\).*at most 2016"):
        history_length(Rules(max_turns=None, max_upcard_draws=10**5))
    assert history_length(Rules(max_turns=None, max_upcard_draws=50)) == 164


# ---------------------------------------------------------------------------------------------------------------
# The scalar env
# ---------------------------------------------------------------------------------------------------------------

class Recorder:
    """From outside the env, around its table's ``deal_for`` and ``play``: the learner's hand as dealt (``hand_of``
    after each deal) and, for two players, the public events of that hand as the learner sees them."""

    def __init__(self, env: GinRummyEnv, monkeypatch) -> None:
        self.env, self.start, self.events = env, None, []
        table = env.table
        deal_for, play = table.deal_for, table.play

        def recorded_deal(seat, rng, **fixed):
            deal_for(seat, rng, **fixed)
            self.dealt()

        def recorded_play(action, rng):
            state = table.state
            finished = play(action, rng)
            self.events.append(public_event(state, action, env.learner))
            if finished is not None and not table.over:
                self.dealt()
            return finished

        monkeypatch.setattr(table, "deal_for", recorded_deal)
        monkeypatch.setattr(table, "play", recorded_play)

    def dealt(self) -> None:
        # The env seats the learner before it deals, so env.learner is this hand's already.
        self.start = self.env.table.hand_of(self.env.learner)
        self.events = [] if self.start is None else list(deal_events(self.start[0]))


def recovered_deal(obs: dict, rules: Rules) -> tuple[int, int]:
    """The learner's dealt cards from its observation alone, its natural cards as a mask and its jokers as a count
    (R72): the cards it holds, less those it took and drew, plus those it discarded and knocked with (the module
    docstring of ``information_state``)."""
    layout = obs_layout(rules)
    count = obs["observation"][layout["hand"]].astype(int)
    jokers = round(float(obs["observation"][layout["jokers"]][0]) * rules.jokers) if rules.jokers else 0
    for t in obs["history"]:
        for name, sign in (("own_take", -1), ("own_draw", -1), ("own_discard", 1), ("own_knock", 1)):
            if t in HISTORY_LAYOUT[name]:
                count[t - HISTORY_LAYOUT[name].start] += sign
            jokers += sign * (t in history_layout(rules).get(f"{name}_joker", ()))
    assert set(count.tolist()) <= {0, 1} and 0 <= jokers <= rules.jokers
    return cards.to_mask(np.flatnonzero(count).tolist()), jokers


def check_learner_history(env: GinRummyEnv, obs: dict, recorder: Recorder, two_players: bool) -> None:
    """The history is what the env's space allows and, for two players, ``encode_history`` of the recorded events;
    it gives back the dealt hand (perfect recall) and, while the hand is live, ``player_view`` of its events is the
    learner's view."""
    assert env.observation_space.contains(obs)
    history = obs["history"]
    if recorder.start is None:  # three players, sitting out: a zero history, as the observation is zeros
        assert not history.any() and not obs["observation"].any()
        return
    if two_players:
        np.testing.assert_array_equal(history, encode_history(recorder.events, env.learner, len(history)))
    state, player = recorder.start
    dealt = state.hands[player]
    assert recovered_deal(obs, env.rules) == (dealt & cards.FULL_DECK, (dealt & env.rules.deck.joker_mask).bit_count())
    view = env.table.agent_view(env.learner)
    if view.phase != engine.OVER:
        events = [event_of(t, player) for t in history[history != 0]]
        rebuilt = player_view(env.rules, player, state.hands[player], state.dealer, events)
        assert rebuilt._replace(scores=view.scores, target=view.target, record=view.record) == view


def play_checked(env: GinRummyEnv, monkeypatch, seed: int, steps: int, policy=mostly_greedy) -> None:
    recorder = Recorder(env, monkeypatch)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    two_players = env.table.n_agents == 2
    check_learner_history(env, obs, recorder, two_players)
    for _ in range(steps):
        obs, _, terminated, truncated, info = env.step(policy(info["action_mask"], rng))
        check_learner_history(env, obs, recorder, two_players)
        if terminated or truncated:
            obs, info = env.reset()
            check_learner_history(env, obs, recorder, two_players)


@pytest.mark.parametrize("episode", ["hand", "match"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_scalar_history_is_the_public_events_of_the_learners_hand(preset, episode, monkeypatch):
    env = GinRummyEnv(rules=preset, opponent="simple", episode=episode, information_state=True)
    play_checked(env, monkeypatch, seed=3, steps=250)


@pytest.mark.parametrize("kwargs", FORMATS.values(), ids=FORMATS.keys())
@pytest.mark.parametrize("episode", ["hand", "match"])
def test_every_format_keeps_the_learners_own_hand(kwargs, episode, monkeypatch):
    """Three players: the learner's hand, a zero history while it sits out; four players: its pairing's hand; a
    room: its seat's hand, a teammate's draw an own draw with its card (R59)."""
    env = GinRummyEnv(episode=episode, information_state=True, **kwargs)
    play_checked(env, monkeypatch, seed=5, steps=250, policy=random_legal)


def test_a_learner_sitting_out_has_a_zero_history():
    table = ThreeTable(Rules(players=3), "hand")
    history = LearnerHistory(table)
    rng = np.random.default_rng(0)
    table.deal(rng, dealer=2)
    history.dealt(2)
    while not table.over:
        history.play(random_legal(table.legal_mask(), rng), rng)
    assert history.count == 0 and not history.tokens.any()


def test_the_env_fills_its_history_exactly_at_the_turn_cap():
    """Both players take the discard and never knock (``play_longest``): the hand runs to R19's cap and its history
    to the last entry."""

    def longest(view, rng):
        legal = view.legal_actions
        if view.phase == engine.DISCARD:
            return next(a for a in legal if actions.is_discard(a) and actions.action_card(a) != view.taken)
        if view.phase == engine.OFFER:
            return actions.PASS
        return actions.TAKE_DISCARD if actions.TAKE_DISCARD in legal else legal[0]

    env = GinRummyEnv(rules=Rules(max_turns=9), opponent=longest, information_state=True)
    obs, info = env.reset(seed=0)
    terminated = False
    while not terminated:
        obs, _, terminated, _, info = env.step(longest(env.table.agent_view(env.learner), None))
    assert info["outcome"]["capped"] and np.count_nonzero(obs["history"]) == len(obs["history"]) == 21


def test_the_default_adds_nothing_and_the_history_changes_nothing_else():
    plain, informed = GinRummyEnv(episode="match"), GinRummyEnv(episode="match", information_state=True)
    assert plain.observation_space == informed.observation_space["observation"]
    rng = np.random.default_rng(2)
    obs, info = plain.reset(seed=2)
    obs2, info2 = informed.reset(seed=2)
    for _ in range(300):
        assert isinstance(obs, np.ndarray) and obs.tobytes() == obs2["observation"].tobytes()
        assert str(info) == str(info2)
        action = random_legal(info["action_mask"], rng)
        *rest, info = step = plain.step(action)
        *rest2, info2 = step2 = informed.step(action)
        obs, obs2 = step[0], step2[0]
        assert step[1:4] == step2[1:4]
        if step[2] or step[3]:
            obs, info = plain.reset()
            obs2, info2 = informed.reset()


# ---------------------------------------------------------------------------------------------------------------
# No peeking
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", list(PRESETS))
def test_hidden_cards_and_stock_order_never_change_a_token(preset):
    """Each move's token, scalar and batched, is the same in the state and in that state with the cards hidden from
    the viewer dealt again (the opponent's hidden cards and the stock order), wherever the move is legal in both;
    the viewer's own draw is left out, as it reveals the card drawn."""
    rules, rng = Rules.preset(preset), np.random.default_rng(11)
    compared = 0
    for _ in range(10):
        state = engine.new_hand(rules, rng, dealer=int(rng.integers(2)))
        while state.phase != engine.OVER:
            action = random_legal(engine.legal_mask(state), rng)
            for viewer in (0, 1):
                other = rehide(state, viewer, rng)
                assert deal_events(other) == deal_events(state)
                if not engine.legal_mask(other)[action] or (action == actions.DRAW_STOCK
                                                            and state.current == viewer):
                    continue
                expected = token(public_event(state, action, viewer), viewer)
                assert token(public_event(other, action, viewer), viewer) == expected
                batch = HandBatch.from_states([state, other])
                moves = BatchHistory(rules, 2).moves(batch, np.arange(2), np.full(2, action), np.full(2, viewer))
                assert moves.tolist() == [expected, expected]
                compared += 1
            state = engine.step(state, action)
    assert compared > 200


# ---------------------------------------------------------------------------------------------------------------
# Jokers: by event, never by id (R72)
# ---------------------------------------------------------------------------------------------------------------

def tokens_of_move(states: list[engine.HandState], action: int, viewer: int) -> list[int]:
    """The token of ``action`` in each of ``states`` as ``viewer`` sees it, scalar, checked equal to the batched
    one (``BatchHistory.moves``, the vector env's)."""
    scalar = [token(public_event(state, action, viewer), viewer) for state in states]
    games = np.arange(len(states))
    batched = BatchHistory(states[0].rules, len(states)).moves(
        HandBatch.from_states(states), games, np.full(len(states), action), np.full(len(states), viewer))
    assert batched.tolist() == scalar
    return scalar


def dealt_tokens(states: list[engine.HandState]) -> list[list[int]]:
    """Each state's deal tokens, scalar, checked equal to the batched ones (``BatchHistory.dealt``)."""
    scalar = [[token(event, 0) for event in deal_events(state)] for state in states]
    history = BatchHistory(states[0].rules, len(states))
    history.dealt(HandBatch.from_states(states), np.arange(len(states)))
    assert [row[:count].tolist() for row, count in zip(history.tokens, history.count)] == scalar
    return scalar


def test_which_joker_lies_where_never_changes_a_token_R72():
    """R72: two deals that differ only in which joker lies where (ids 52 and 53 swapped in the deck) have the same
    legal actions throughout and give identical token streams for the same actions, for both viewers, scalar and
    batched; every kind of joker token but the rare knock comes up (the scripted hand below has it)."""
    rules, rng = Rules.preset("jokers"), np.random.default_rng(23)
    first, second = rules.deck.joker_ids
    seen = set()
    for hand in range(40):
        deck = rng.permutation(rules.deck.n_cards).tolist()
        if hand % 4 == 0:  # a joker upcard (R70, E13) in every fourth deal
            at = deck.index(first)
            deck[at], deck[engine.DEALT] = deck[engine.DEALT], deck[at]
        swapped = [second if c == first else first if c == second else c for c in deck]
        states = [engine.new_hand(rules, dealer=hand % 2, deck=d) for d in (deck, swapped)]
        streams = dealt_tokens(states)
        assert streams[0] == streams[1]
        seen.update(streams[0])
        while states[0].phase != engine.OVER:
            mask = engine.legal_mask(states[0])
            np.testing.assert_array_equal(engine.legal_mask(states[1]), mask)
            action = random_legal(mask, rng)
            for viewer in (0, 1):
                moved = tokens_of_move(states, action, viewer)
                assert moved[0] == moved[1]
                seen.add(moved[0])
            states = [engine.step(state, action) for state in states]
    joker_kinds = {describe_token(t) for t in seen if t >= N_TOKENS}
    assert joker_kinds >= {"upcard JK", "own takes JK", "other takes JK", "own draws JK", "own discards JK",
                           "other discards JK"}


def test_the_joker_tokens_of_a_scripted_hand_R72():
    """A short hand under the preset ``jokers``, pinned token by token for both players: a joker upcard taken (R13,
    R70), a discard that may not be a joker (R71), a joker drawn and discarded by the joker action, the other joker
    taken from the pile and later knocked with (``KNOCK_JOKER``, face down to the other player, R21). The batched
    tokens are the same, and the tokens replayed through ``public_history`` give each player's view at every
    point."""
    rules = Rules.preset("jokers")
    first, second = rules.deck.joker_ids
    dealer_cards = cards.parse("AS 2S 3S 4H 5H 6H 7C 8C 9C KD")
    other_cards = cards.parse("2C 4C 6C 8D TD QH 3H 5D 7S 9S")
    top = [c for pair in zip(other_cards, dealer_cards) for c in pair]  # the non-dealer's cards at the even slots
    top += [second, cards.card("KH"), first, cards.card("QC"), cards.card("2D")]
    deck = top + [c for c in range(cards.N_CARDS) if c not in top]
    state = engine.new_hand(rules, dealer=0, deck=deck)
    script = [actions.TAKE_DISCARD, actions.discard(cards.card("QH")), actions.DRAW_STOCK,
              actions.discard(cards.card("KH")), actions.DRAW_STOCK, actions.DISCARD_JOKER, actions.TAKE_DISCARD,
              actions.discard(cards.card("KD")), actions.DRAW_STOCK, actions.discard(cards.card("QC")),
              actions.DRAW_STOCK, actions.KNOCK_JOKER]
    dealt = state.hands
    histories = {viewer: dealt_tokens([state])[0] for viewer in (0, 1)}
    for action in script:
        for viewer in (0, 1):
            histories[viewer] += tokens_of_move([state], action, viewer)
        state = engine.step(state, action)
        for viewer in (0, 1):
            if state.phase != engine.OVER:
                events = [event_of(t, viewer) for t in histories[viewer]]
                assert player_view(rules, viewer, dealt[viewer], 0, events) == observation.view(state, viewer)
    assert state.outcome.knocker == 0 and state.outcome.knock_card in rules.deck.joker_ids
    assert [describe_token(t) for t in histories[0]] == [
        "upcard JK", "other takes JK", "other discards QH", "own draws KH", "own discards KH", "other draws",
        "other discards JK", "own takes JK", "own discards KD", "other draws", "other discards QC", "own draws 2D",
        "own knocks with JK"]
    assert [describe_token(t) for t in histories[1]] == [
        "upcard JK", "own takes JK", "own discards QH", "other draws", "other discards KH", "own draws JK",
        "own discards JK", "other takes JK", "other discards KD", "own draws QC", "own discards QC", "other draws",
        "other knocks"]
    assert [t for t in histories[0] if t >= N_TOKENS] == [371, 373, 376, 372, 377]
    assert [t for t in histories[1] if t >= N_TOKENS] == [371, 372, 374, 375, 373]


# ---------------------------------------------------------------------------------------------------------------
# The vector env
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("episode", ["hand", "match"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_vector_history_is_the_scalar_envs(preset, episode, monkeypatch):
    """tests/test_vector_vs_env.py's twin envs with the information state: the same games give the same histories,
    step by step, in ``final_obs`` and after each autoreset, in single hands and matches."""
    for name, env_class in (("GinRummyEnv", GinRummyEnv), ("GinRummyVectorEnv", GinRummyVectorEnv)):
        monkeypatch.setattr(twins, name, functools.partial(env_class, information_state=True))
    venv, envs = twins.twin_envs(Rules.preset(preset), episode, monkeypatch)
    rng = np.random.default_rng(17)
    v_obs, _ = venv.reset(seed=17)
    for i, env in enumerate(envs):
        obs, _ = env.reset()
        np.testing.assert_array_equal(obs["history"], v_obs["history"][i])
    hands = 0
    while hands < 150:
        chosen = twins.learner_actions(venv.action_masks(), rng)
        v_obs, _, _, _, v_info = venv.step(chosen)
        assert venv.observation_space.contains(v_obs)
        for i, env in enumerate(envs):
            obs, _, terminated, truncated, info = env.step(chosen[i])
            hands += "outcome" in info
            if terminated or truncated:
                assert v_info["_final_obs"][i]
                np.testing.assert_array_equal(obs["history"], v_info["final_obs"]["history"][i])
                obs, _ = env.reset()
            np.testing.assert_array_equal(obs["history"], v_obs["history"][i])
            np.testing.assert_array_equal(obs["observation"], v_obs["observation"][i])
        if "final_obs" in v_info:  # zero rows for the games whose episode goes on
            assert not v_info["final_obs"]["history"][~v_info["_final_obs"]].any()


def test_the_vector_env_refuses_what_the_scalar_env_refuses():
    with pytest.raises(TypeError, match="information_state must be True or False, got 1"):
        GinRummyVectorEnv(num_envs=2, information_state=1)
    with pytest.raises(ValueError, match="max_turns"):
        GinRummyVectorEnv(num_envs=2, rules=Rules(max_turns=None), information_state=True)
    GinRummyVectorEnv(num_envs=2, rules=Rules(max_turns=None))  # without the information state, no bound needed


# ---------------------------------------------------------------------------------------------------------------
# Arguments, spaces, gymnasium's checker
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", ["yes", 1, None, 0.0])
def test_information_state_is_a_bool(bad):
    with pytest.raises(TypeError, match=f"information_state must be True or False, got {bad!r}"):
        GinRummyEnv(information_state=bad)


def test_rules_whose_hands_have_no_bound_are_refused_by_the_env():
    with pytest.raises(ValueError, match=r"no bound on their events.*set max_turns"):
        GinRummyEnv(rules=Rules(max_turns=None), information_state=True)
    with pytest.raises(ValueError, match="set max_turns to at most 2046"):
        GinRummyEnv(rules=Rules(max_turns=5000), information_state=True)
    GinRummyEnv(rules=Rules(max_turns=None))


@pytest.mark.parametrize("kwargs", FORMATS.values(), ids=FORMATS.keys())
def test_gymnasium_check_env_passes_with_the_information_state(kwargs):
    env = gym.make("GinRummy-v0", information_state=True, **kwargs).unwrapped
    assert env.observation_space["history"].shape == (history_length(env.rules),)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(list(PRESETS)))
def test_perfect_recall_the_dealt_hand_comes_back_from_the_observation(seed, preset):
    """Property: at every decision, the dealt hand is the observation's hand plane and the own tokens."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        env = GinRummyEnv(rules=preset, opponent="random", information_state=True)
        play_checked(env, monkeypatch, seed=seed, steps=40, policy=random_legal)
