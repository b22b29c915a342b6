"""The PettingZoo AEC env: the official API test, masks, zero-sum per-hand rewards, matches, seeding."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402
from pettingzoo.utils.wrappers import OrderEnforcingWrapper  # noqa: E402

from gin_env.envs.pettingzoo import AGENTS, GinRummyAEC, env, raw_env  # noqa: E402
from gin_env.game import actions, engine, match
from gin_env.game.match_record import encode_record, seen_by  # noqa: E402
from gin_env.game.observation import OBS_SIZE, RECORD_OBS_LAYOUT, RECORD_OBS_SIZE, encode, view  # noqa: E402
from gin_env.game.rules import Rules  # noqa: E402

#: api_test warns about any dict observation unless the env is one of PettingZoo's own classic games, which it lists
#: by name; every masked env outside PettingZoo gets exactly these two.
DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


@pytest.mark.parametrize("kwargs", [{}, {"episode": "match", "rules": "eaai"}, {"rules": "openspiel"},
                                    {"episode": "match", "rules": "eaai", "match_record": True}])
def test_api_test_passes(kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(**kwargs), num_cycles=200)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


def test_env_wraps_the_raw_env_as_pettingzoos_classic_envs_keeping_its_errors():
    """``env()`` is ``raw_env`` (``GinRummyAEC``) in PettingZoo's order checks; where both check the same misuse the
    env's own error stands (tests/test_bad_input.py), and the raw env passes the API test too."""
    aec = env(players=3, render_mode="ansi")
    assert isinstance(aec, OrderEnforcingWrapper) and type(aec.unwrapped) is raw_env is GinRummyAEC
    assert aec.unwrapped.rules.players == 3
    with pytest.raises(AttributeError, match="agents cannot be accessed before reset"):
        aec.agents  # noqa: B018
    assert aec.render() == "(no hand dealt: call reset())"
    with pytest.raises(NotImplementedError, match=r"env\.unwrapped\.state"):
        aec.state()
    aec.reset(seed=0)
    loop = iter(aec.agent_iter())
    next(loop)
    with pytest.raises(AssertionError, match="need to call step"):  # a loop that neither steps nor resets
        next(loop)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(raw_env(), num_cycles=200)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


def play(aec: OrderEnforcingWrapper, seed: int, rng: np.random.Generator, knock_first: bool = False) -> list:
    """Random masked play until every agent is done; the trace of (agent, obs, reward, terminated, info).
    With ``knock_first``, any legal knock is taken, so that hands end in knocks, gins and undercuts too."""
    aec.reset(seed=seed)
    trace = []
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, info = aec.last()
        trace.append((agent, obs, reward, terminated, info))
        if terminated or truncated:
            aec.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        knocks = legal[legal >= actions.KNOCK_BASE]
        if knock_first and knocks.size:
            legal = knocks
        aec.step(int(legal[rng.integers(legal.size)]))
    return trace


def test_observations_masks_and_turns_follow_the_engine():
    aec = env()
    aec.reset(seed=3)
    raw = aec.unwrapped  # the raw env: its engine state (the wrapper's state() is PettingZoo's global state)
    rng = np.random.default_rng(3)
    for _ in range(200):
        agent = aec.agent_selection
        if aec.terminations[agent]:
            break
        p = AGENTS.index(agent)
        assert raw.state.current == p
        obs = aec.observe(agent)
        other = aec.observe(AGENTS[1 - p])
        assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (OBS_SIZE,)
        assert obs["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(obs["action_mask"], engine.legal_mask(raw.state).astype(np.int8))
        np.testing.assert_array_equal(obs["observation"], encode(view(raw.state, p)))
        assert not other["action_mask"].any()
        legal = np.flatnonzero(obs["action_mask"])
        aec.step(int(legal[rng.integers(legal.size)]))


def test_hand_rewards_are_zero_sum_points_and_both_agents_terminate():
    rng = np.random.default_rng(4)
    kinds = set()
    for seed in range(25):
        aec = env(rules="eaai")
        trace = play(aec, seed, rng, knock_first=True)
        final = [t for t in trace if t[3]]
        assert {t[0] for t in final} == set(AGENTS)
        rewards = {t[0]: t[2] for t in final}
        outcome = aec.unwrapped.state.outcome
        kinds.add(outcome.kind)
        assert rewards["player_0"] == pytest.approx(outcome.player_points(0) / 100)
        assert rewards["player_0"] + rewards["player_1"] == 0
        assert not aec.agents
    assert {"dead", "knock"} <= kinds, f"random play saw only {kinds}: the test lost its teeth"


def test_match_rewards_sum_to_the_final_totals():
    aec = env(episode="match", rules=Rules.preset("standard", target=40))
    trace = play(aec, 6, np.random.default_rng(6), knock_first=True)
    totals = match.final_totals(aec.match)
    assert aec.match.over and len(aec.match.history) >= 2
    for p, agent in enumerate(AGENTS):
        earned = sum(r for a, _, r, _, _ in trace if a == agent)
        assert earned * 100 == pytest.approx(totals[p] - totals[1 - p])


def test_same_seed_same_play():
    def run(seed: int) -> list:
        trace = play(env(), seed, np.random.default_rng(0))
        return [(a, o["observation"].tobytes(), o["action_mask"].tobytes(), r, t) for a, o, r, t, _ in trace]

    assert run(9) == run(9)
    assert run(9) != run(10)


def test_illegal_action_raises_with_the_phase():
    aec = env()
    aec.reset(seed=0)
    with pytest.raises(ValueError, match="'offer'"):
        aec.step(0)  # DRAW_STOCK during the upcard offer


def test_render_shows_both_hands():
    aec = env(render_mode="ansi")
    aec.reset(seed=1)
    text = aec.render()
    assert "player_0" in text and "player_1" in text and "stock: 31 cards" in text


@pytest.mark.parametrize("room", [None, (2, 1)])
def test_with_the_match_record_each_agent_sees_its_seats_record_own_first(room):
    """``match_record=True``: every agent's observation is its seat's view encoded with the game's match record
    (``game.match_record``), its seat's counts first, as ``GinRummy-v0(match_record=True)`` gives it."""
    aec = env(rules="eaai", episode="match", match_record=True, room=room)
    assert aec.observation_space(aec.possible_agents[0])["observation"].shape == (RECORD_OBS_SIZE,)
    aec.reset(seed=1)
    rng = np.random.default_rng(1)
    counted = set()
    for _ in aec.agent_iter():
        for other in aec.agents:
            seat = aec.table.seat_of(aec.names.index(other)) if room else aec.names.index(other)
            record = seen_by(aec.table.game.record, seat)
            observation = aec.observe(other)["observation"]
            np.testing.assert_allclose(observation[RECORD_OBS_LAYOUT["record"]], encode_record(record), atol=1e-7)
            np.testing.assert_array_equal(observation[:OBS_SIZE], encode(aec.table.agent_view(aec.names.index(other))))
            counted.update(i for i, n in enumerate(record) if n)
        obs, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        knocks = legal[legal >= actions.KNOCK_BASE]
        choices = knocks if knocks.size else legal  # knocking at once ends hands in knocks, undercuts and gins
        aec.step(int(choices[rng.integers(choices.size)]))
    assert len(aec.table.game.history) >= 2 and counted, "no hand ended with a knock or gin: the test tells nothing"


def test_the_match_record_is_refused_where_it_is_not_kept():
    with pytest.raises(ValueError, match="needs episode='match'"):
        env(rules="eaai", match_record=True)
    with pytest.raises(ValueError, match="two seats"):
        env(rules="eaai", episode="match", players=3, match_record=True)
    with pytest.raises(TypeError, match="match_record must be True or False"):
        env(rules="eaai", episode="match", match_record="yes")
