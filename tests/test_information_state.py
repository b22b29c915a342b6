"""The information state (``gin_env.game.information_state``; docs/belief.md, "The information state"): the token
layout, ``token`` and its inverse, the bound ``history_length`` (R19, R60), the scalar env's history against the
public events of the learner's hand (``public_history``) in every preset and format, the vector env's against the
scalar env's, perfect recall of the dealt hand, no peeking at hidden cards (R21 for the knock card), the errors, the
spaces and gymnasium's checker, and the default that changes nothing."""

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
from gin_env.game import actions, cards, engine
from gin_env.game.information_state import (
    HISTORY_DTYPE,
    HISTORY_LAYOUT,
    MAX_HISTORY,
    N_TOKENS,
    OTHER_DRAW,
    OTHER_KNOCK,
    OWN_DISCARD,
    describe_token,
    encode_history,
    event_of,
    history_length,
    token,
)
from gin_env.game.observation import OBS_LAYOUT
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


@pytest.mark.parametrize("viewer", [0, 1])
def test_token_and_event_of_round_trip_every_token_and_every_event_kind(viewer):
    other = 1 - viewer
    for t in range(1, N_TOKENS):
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
        event_of(N_TOKENS, 0)
    with pytest.raises(TypeError, match="integer"):
        describe_token(True)
    with pytest.raises(TypeError, match="not a public event"):
        token("KS", 0)
    with pytest.raises(ValueError, match="names its card for its drawer only"):
        token(Draw(0), 0)
    with pytest.raises(ValueError, match="names its card for its drawer only"):
        token(Draw(1, "KS"), 0)
    with pytest.raises(ValueError, match="card"):
        token(Discard(0, 52), 0)
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


def recovered_deal(obs: dict) -> int:
    """The learner's dealt cards from its observation alone: the cards it holds, less those it took and drew,
    plus those it discarded and knocked with (the module docstring of ``information_state``)."""
    count = obs["observation"][OBS_LAYOUT["hand"]].astype(int)
    for t in obs["history"]:
        for name, sign in (("own_take", -1), ("own_draw", -1), ("own_discard", 1), ("own_knock", 1)):
            if t in HISTORY_LAYOUT[name]:
                count[t - HISTORY_LAYOUT[name].start] += sign
    assert set(count.tolist()) <= {0, 1}
    return cards.to_mask(np.flatnonzero(count).tolist())


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
    assert recovered_deal(obs) == state.hands[player]
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
