"""Bad input is a clear error in every env, never a deep crash or a silent coercion; good input of any integer type
works. Classes: calls before reset (or after the end), seats, actions, decks, reward scales."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from gin_env.envs.gin_rummy import GinRummyEnv
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game import cards, engine
from gin_env.game.actions import N_ACTIONS, PASS
from gin_env.game.rules import Rules


class _PettingZoo:
    """``gin_env.envs.pettingzoo``, imported at first use: the other envs' tests run on a core install too (tests of
    PettingZoo skip there, tests/conftest.py)."""

    def __getattr__(self, name: str):
        return getattr(importlib.import_module("gin_env.envs.pettingzoo"), name)


pettingzoo = _PettingZoo()

NUM_ENVS = 4


# ---------------------------------------------------------------------------------------------------------------
# Before reset, after the end
# ---------------------------------------------------------------------------------------------------------------

def test_scalar_env_step_before_reset_says_to_reset():
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        GinRummyEnv(opponent="random").step(0)


def test_vector_env_step_before_reset_says_to_reset():
    envs = GinRummyVectorEnv(num_envs=NUM_ENVS, opponent="random")
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        envs.step(np.zeros(NUM_ENVS, dtype=np.int64))


@pytest.mark.parametrize("call", [lambda aec: aec.step(PASS), lambda aec: aec.last(),
                                  lambda aec: aec.observe("player_0")])
def test_pettingzoo_before_reset_says_to_reset(call):
    with pytest.raises(RuntimeError, match=r"call reset\(\) before"):
        call(pettingzoo.env())


def finished_aec(seed: int):
    """A PettingZoo env played to the end at random, every agent stepped out with None."""
    aec = pettingzoo.env()
    aec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in aec.agent_iter():
        obs, _, terminated, truncated, _ = aec.last()
        aec.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return aec


@pytest.mark.parametrize("call", [lambda aec: aec.step(PASS), lambda aec: aec.step(None), lambda aec: aec.last()])
def test_pettingzoo_after_every_agent_is_done_says_to_reset(call):
    aec = finished_aec(3)
    assert aec.agents == []
    with pytest.raises(RuntimeError, match=r"every agent is done: call reset\(\)"):
        call(aec)
    aec.reset(seed=4)
    assert aec.agents == ["player_0", "player_1"]


# ---------------------------------------------------------------------------------------------------------------
# Seats: any integer type, nothing else
# ---------------------------------------------------------------------------------------------------------------

INTEGER_SEATS = [1, np.int64(1), np.int8(1), np.uint16(1)]
BAD_SEATS = [(1.0, TypeError), (np.float64(1), TypeError), ("1", TypeError), (True, TypeError), (2, ValueError),
             (-1, ValueError)]


@pytest.mark.parametrize("seat", INTEGER_SEATS)
def test_integer_seats_are_accepted_in_the_scalar_env(seat):
    env = GinRummyEnv(opponent="random", learner_seat=seat, episode="match")
    env.reset(seed=2, options={"dealer": seat})
    assert (env.learner, env.state.dealer) == (1, 1) and type(env.learner) is int
    env = GinRummyEnv(opponent="random")
    env.reset(seed=2, options={"dealer": seat, "learner_seat": seat})
    assert (env.learner, env.state.dealer) == (1, 1)
    env.step(int(np.flatnonzero(env.action_masks())[0]))


@pytest.mark.parametrize("seat", INTEGER_SEATS)
def test_integer_seats_are_accepted_in_the_vector_env(seat):
    envs = GinRummyVectorEnv(num_envs=NUM_ENVS, opponent="random", learner_seat=seat)
    envs.reset(seed=2)
    assert (envs.learner == 1).all()
    envs.step(envs.action_masks().argmax(axis=1))


@pytest.mark.parametrize(("seat", "error"), BAD_SEATS)
def test_other_seats_are_rejected_naming_the_argument(seat, error):
    with pytest.raises(error, match="learner_seat"):
        GinRummyEnv(learner_seat=seat)
    with pytest.raises(error, match="learner_seat"):
        GinRummyVectorEnv(learner_seat=seat)
    env = GinRummyEnv(opponent="random")
    for option in ("dealer", "learner_seat"):
        with pytest.raises(error, match=option):
            env.reset(seed=0, options={option: seat})
    with pytest.raises(error, match="dealer"):
        engine.new_hand(Rules(), np.random.default_rng(0), dealer=seat)


# ---------------------------------------------------------------------------------------------------------------
# Actions: integers only, one per game (GinRummy-v0's own cases are in test_env)
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("make", "error", "message"), [
    (lambda legal: legal.astype(float), TypeError, "dtype float64"),
    (lambda legal: legal + 0.7, TypeError, "dtype float64"),
    (lambda legal: np.full(NUM_ENVS, np.nan), TypeError, "dtype float64"),
    (lambda legal: legal.astype(str), TypeError, "dtype <U"),
    (lambda legal: [float(a) for a in legal], TypeError, "dtype float64"),
    (lambda legal: legal.astype(bool), TypeError, "dtype bool"),
    (lambda legal: legal.reshape(NUM_ENVS, 1), ValueError, r"shape \(4,\)"),
    (lambda legal: legal.reshape(2, 2), ValueError, r"shape \(4,\)"),
    (lambda legal: legal[:3], ValueError, r"shape \(4,\)"),
    (lambda legal: int(legal[0]), ValueError, r"shape \(4,\)"),
])
@pytest.mark.parametrize("illegal_action", ["penalize", "raise"])
def test_vector_env_rejects_actions_that_are_not_one_integer_per_game(make, error, message, illegal_action):
    envs = GinRummyVectorEnv(num_envs=NUM_ENVS, opponent="random", illegal_action=illegal_action)
    envs.reset(seed=1)
    legal = envs.action_masks().argmax(axis=1)
    with pytest.raises(error, match=message):
        envs.step(make(legal))
    _, _, terminated, _, info = envs.step(legal.tolist())  # a list of ints is fine, and nothing had changed
    assert "illegal_action" not in info


@pytest.mark.parametrize("bad", [N_ACTIONS, -1, np.iinfo(np.int64).min])
def test_vector_env_integer_out_of_range_is_an_illegal_action(bad):
    envs = GinRummyVectorEnv(num_envs=NUM_ENVS, opponent="random")
    envs.reset(seed=1)
    chosen = envs.action_masks().argmax(axis=1)
    chosen[1] = bad
    _, reward, terminated, _, info = envs.step(chosen)
    assert terminated[1] and reward[1] == -1.0 and info["illegal_action"].tolist() == [False, True, False, False]
    unsigned = envs.action_masks().argmax(axis=1).astype(np.uint64)
    unsigned[2] = np.uint64(2**64 - 1)  # would wrap to -1 as int64, and 2**64 - 1 + 1 to 0
    assert envs.step(unsigned)[4]["illegal_action"].tolist() == [False, False, True, False]


@pytest.mark.parametrize(("bad", "error"), [(1.0, TypeError), (float("nan"), TypeError), ("1", TypeError),
                                            (True, TypeError), (np.array([1]), ValueError)])
def test_pettingzoo_rejects_actions_that_are_not_one_integer(bad, error):
    aec = pettingzoo.env()
    aec.reset(seed=0)
    agent = aec.agent_selection
    with pytest.raises(error, match="integer|shape"):
        aec.step(bad)
    assert aec.agent_selection == agent
    aec.step(np.int64(PASS))  # numpy integers are actions; the upcard offer allows PASS
    assert aec.agent_selection != agent


class FloatOpponent:
    """A broken batched opponent: its actions are floats."""

    def act(self, view, rng):
        return float(view.legal_actions[0])

    def act_batch(self, view, rng):
        return view.legal_mask.argmax(axis=1).astype(float)


def test_opponents_that_return_non_integers_are_refused_in_both_envs():
    """The action rule holds for the opponent too: a float is a TypeError, never truncated to an action."""
    envs = GinRummyVectorEnv(num_envs=NUM_ENVS, opponent=FloatOpponent())
    with pytest.raises(TypeError, match="returned actions of dtype float64"):
        envs.reset(seed=0)
        envs.step(envs.action_masks().argmax(axis=1))
    env = GinRummyEnv(opponent=FloatOpponent())
    with pytest.raises(TypeError, match="opponent .*: an action must be an integer action id, got [12].0"):
        env.reset(seed=0)
        env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_pettingzoo_observe_names_unknown_agents():
    aec = pettingzoo.env()
    aec.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent 'player_2'"):
        aec.observe("player_2")


# ---------------------------------------------------------------------------------------------------------------
# Decks
# ---------------------------------------------------------------------------------------------------------------

DECK_IDS = list(range(51, -1, -1))


@pytest.mark.parametrize("deck", [DECK_IDS, [cards.card_str(c) for c in DECK_IDS],
                                  " ".join(cards.card_str(c) for c in DECK_IDS), np.array(DECK_IDS, dtype=np.int8)])
def test_a_deck_of_ids_or_names_deals_the_same_hand(deck):
    assert engine.new_hand(Rules(), dealer=0, deck=deck) == engine.new_hand(Rules(), dealer=0, deck=DECK_IDS)
    env = GinRummyEnv(opponent="random", learner_seat=0)
    env.reset(seed=0, options={"deck": deck, "dealer": 1})
    assert env.state.deck == tuple(DECK_IDS)


@pytest.mark.parametrize(("deck", "error", "message"), [
    (5, TypeError, "deck must be 52 card ids or card names"),
    (DECK_IDS[:-1], ValueError, "permutation of the 52 cards"),
    (DECK_IDS[:-1] + [51], ValueError, "permutation of the 52 cards"),
    (DECK_IDS[:-1] + [1.5], TypeError, "deck holds 1.5"),
    (DECK_IDS[:-1] + [True], TypeError, "deck holds True"),
    (DECK_IDS[:-1] + ["ZZ"], ValueError, "malformed card 'ZZ'"),
    (np.array([DECK_IDS]), ValueError, "shape"),
])
def test_bad_decks_name_the_problem(deck, error, message):
    with pytest.raises(error, match=message):
        engine.new_hand(Rules(), dealer=0, deck=deck)
    with pytest.raises(error, match=message):
        GinRummyEnv(opponent="random").reset(seed=0, options={"deck": deck})


# ---------------------------------------------------------------------------------------------------------------
# Reward scale
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("scale", "error"), [(float("inf"), ValueError), (float("nan"), ValueError), (0, ValueError),
                                              (-1.0, ValueError), ("x", TypeError), (None, TypeError),
                                              (True, TypeError), (10**400, ValueError)])
def test_reward_scale_must_be_finite_and_positive_in_every_env(scale, error):
    for make in (GinRummyEnv, lambda **kw: GinRummyVectorEnv(num_envs=2, **kw), pettingzoo.env):
        with pytest.raises(error, match="reward_scale"):
            make(reward_scale=scale)


@pytest.mark.parametrize("scale", [1, 0.5, np.float32(2.0), np.int64(100)])
def test_real_reward_scales_are_accepted(scale):
    for make in (GinRummyEnv, lambda **kw: GinRummyVectorEnv(num_envs=2, **kw), pettingzoo.env):
        assert make(reward_scale=scale).reward_scale == float(scale)
