"""The envs under the preset ``jokers`` (docs/rules.md R72, R80, R81), in every format and episode kind: Gymnasium's
and SB3's env checkers and PettingZoo's API test pass, the spaces are the jokers' (382 entries, ``Discrete(110)``),
and random play fills the joker entries."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gin_env  # noqa: F401 - registers GinRummy-v0
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game.observation import obs_layout
from gin_env.game.rules import Rules
from tests.test_format_env import FORMATS as OTHER_FORMATS

pettingzoo_test = pytest.importorskip("pettingzoo.test")
from benchmarks.formats_random_play import FORMATS as OTHER_AEC_FORMATS  # noqa: E402
from gin_env.envs.pettingzoo import env as aec_env  # noqa: E402
from tests.test_pettingzoo import DICT_OBSERVATION_WARNINGS  # noqa: E402

JOKERS = Rules.preset("jokers")
FORMATS = {"two players": {}, **OTHER_FORMATS}
AEC_FORMATS = {"two players": {}, **OTHER_AEC_FORMATS}
EPISODES = ("hand", "match")
SITTING_OUT = "Observation numpy array is all zeros."


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_gymnasium_check_env_passes_under_jokers_in_every_format(fmt, episode):
    env = gym.make("GinRummy-v0", rules="jokers", episode=episode, **FORMATS[fmt]).unwrapped
    assert env.observation_space.shape == (382,) and env.action_space == gym.spaces.Discrete(110)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env)


def test_sb3_check_env_passes_under_jokers():
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(gym.make("GinRummy-v0", rules="jokers", match_record=True, episode="match"), warn=True)


@pytest.mark.parametrize("episode", EPISODES)
@pytest.mark.parametrize("fmt", AEC_FORMATS)
def test_pettingzoo_api_test_passes_under_jokers_in_every_format(fmt, episode):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pettingzoo_test.api_test(aec_env(rules="jokers", episode=episode, **AEC_FORMATS[fmt]), num_cycles=200)
    # With three players the dealer sits the hand out and observes zeros (R50), which api_test notes when it looks.
    allowed = DICT_OBSERVATION_WARNINGS | ({SITTING_OUT} if AEC_FORMATS[fmt].get("players") == 3 else set())
    assert {str(w.message) for w in caught} <= allowed


def test_the_vector_env_plays_jokers_within_its_spaces_and_counts_them_r72():
    """Random play of 32 games: every observation lies in the space, and the joker counts cover each place of R72
    (held, on top, below the top, known in the opponent's hand, its discards, its declined cards, unseen)."""
    env = GinRummyVectorEnv(32, rules="jokers", opponent="random")
    space = env.single_observation_space
    at = obs_layout(JOKERS)["jokers"]
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    seen = np.zeros(7, dtype=bool)
    for _ in range(400):
        assert all(space.contains(row) for row in obs)
        seen |= (obs[:, at] > 0).any(axis=0)
        masks = env.action_masks()
        obs, *_ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    assert seen.all(), seen
