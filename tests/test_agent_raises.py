"""An agent that plays inside an env and fails (its ``act`` raises, or it answers an illegal action) ends the episode:
the error is raised with a note saying so, no move of the broken state is offered, and ``step`` refuses until
``reset``, after which the env plays on. In every format with agents inside the env (``GinRummy-v0``: two, three and
four players and rooms; the vector env); PettingZoo has none, and a step it refuses changes nothing."""

from __future__ import annotations

import sys

import gymnasium as gym
import numpy as np
import pytest

import gin_env  # noqa: F401 -- registers GinRummy-v0
from gin_env import agents
from gin_env.envs import roles
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game import engine
from gin_env.game.actions import N_ACTIONS

#: The episodes a test plays, at most, for the failing agent to get its turn.
MAX_EPISODES = 50


class Failing:
    """Plays as the simple agent until armed; then fails on its next turn: raises, or answers an illegal action."""

    def __init__(self, how: str) -> None:
        self.how, self.armed = how, False
        self.simple = agents.load("simple")

    def act(self, view, rng):
        if self.armed:
            return self._fail()
        return self.simple.act(view, rng)

    def act_batch(self, view, rng):
        if self.armed:
            return np.full(len(self.simple.act_batch(view, rng)), self._fail())
        return self.simple.act_batch(view, rng)

    def _fail(self) -> int:
        if self.how == "raises":
            raise ZeroDivisionError("the agent's own bug")
        return N_ACTIONS + 7  # an action id out of range: never legal


#: The error each way of failing raises out of the env.
ERRORS = {"raises": ZeroDivisionError, "illegal": engine.IllegalActionError}

#: Every format of GinRummy-v0 with agents inside the env, as its arguments given every other agent.
FORMATS = {
    "two players": lambda agent: {"opponent": agent},
    "three players": lambda agent: {"players": 3, "opponents": [agent, agent]},
    "four players": lambda agent: {"players": 4, "partner": agent, "opponents": [agent, agent]},
    "room": lambda agent: {"room": (2, 2), "teammates": [agent], "opponents": [agent, agent]},
}


def _assert_ended(env, error: BaseException, action) -> None:
    """The episode is over after ``error``: it says so, nothing is offered, and stepping ``action`` asks for
    ``reset``."""
    if sys.version_info >= (3, 11):  # Python 3.10 has no notes
        assert roles.ENDED_BY_ERROR in getattr(error, "__notes__", [])
    assert not env.unwrapped.action_masks().any()
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(action)


def _failure_in_step(env, agent: Failing, error_type: type) -> BaseException:
    """Arm ``agent`` after each reset and play the learner's first legal actions until the agent fails inside
    ``step``; the error."""
    for seed in range(MAX_EPISODES):
        agent.armed = False
        env.reset(seed=seed)
        agent.armed = True
        done = False
        try:
            while not done:
                _, _, terminated, truncated, _ = env.step(int(np.argmax(env.unwrapped.action_masks())))
                done = terminated or truncated
        except error_type as error:
            return error
    raise AssertionError(f"the agent never acted inside step in {MAX_EPISODES} episodes")


def _failure_in_reset(env, agent: Failing, error_type: type) -> BaseException:
    """Reset with ``agent`` armed until it fails inside ``reset`` (it acts before the learner's first decision);
    each try follows a whole reset, so that a stale episode would show."""
    for seed in range(MAX_EPISODES):
        agent.armed = False
        env.reset(seed=seed)
        agent.armed = True
        try:
            env.reset(seed=MAX_EPISODES + seed)
        except error_type as error:
            return error
    raise AssertionError(f"the agent never acted inside reset in {MAX_EPISODES} resets")


@pytest.mark.parametrize("how", sorted(ERRORS))
@pytest.mark.parametrize("form", sorted(FORMATS))
def test_an_agent_failing_inside_step_or_reset_ends_the_episode(form, how):
    agent = Failing(how)
    env = gym.make("GinRummy-v0", learner_seat=0, **FORMATS[form](agent))
    _assert_ended(env, _failure_in_step(env, agent, ERRORS[how]), 0)
    _assert_ended(env, _failure_in_reset(env, agent, ERRORS[how]), 0)
    agent.armed = False
    env.reset(seed=0)
    env.step(int(np.argmax(env.unwrapped.action_masks())))


@pytest.mark.parametrize("how", sorted(ERRORS))
def test_the_vector_env_ends_every_game_when_its_opponent_fails(how):
    agent = Failing(how)
    env = GinRummyVectorEnv(num_envs=8, opponent=agent)
    env.reset(seed=0)
    agent.armed = True
    with pytest.raises(ERRORS[how]) as error:
        for _ in range(MAX_EPISODES):  # the opponent of some game acts within a step or two
            env.step(np.argmax(env.action_masks(), axis=1))
    _assert_ended(env, error.value, np.zeros(8, dtype=np.int64))
    agent.armed = False
    env.reset(seed=1)
    assert env.action_masks().any(axis=1).all()
    env.step(np.argmax(env.action_masks(), axis=1))


@pytest.mark.parametrize("form", ["two players", "three players", "four players", "room"])
def test_pettingzoo_refuses_a_step_with_nothing_changed(form):
    pytest.importorskip("pettingzoo")
    from gin_env.envs.pettingzoo import GinRummyAEC

    kwargs = {"two players": {}, "three players": {"players": 3}, "four players": {"players": 4},
              "room": {"room": (2, 3)}}[form]
    env = GinRummyAEC(**kwargs)
    env.reset(seed=0)
    for _ in range(7):  # into the hand, past the first decisions
        env.step(int(np.argmax(env.observe(env.agent_selection)["action_mask"])))

    def snapshot():
        return (env.agent_selection, dict(env.rewards), dict(env._cumulative_rewards),
                {a: {k: v.tolist() for k, v in env.observe(a).items()} for a in env.agents})

    before = snapshot()
    illegal = int(np.argmin(env.observe(env.agent_selection)["action_mask"]))
    with pytest.raises(engine.IllegalActionError):
        env.step(illegal)
    assert snapshot() == before
    env.step(int(np.argmax(env.observe(env.agent_selection)["action_mask"])))
