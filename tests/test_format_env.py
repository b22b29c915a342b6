"""GinRummy-v0 for one learner in three players, four players and rooms (docs/rules.md section 15): the learner
acts only on its own decisions, the others inside step; rewards; episodes; the env checker; bad arguments."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gin_env  # noqa: F401 - registers GinRummy-v0
from gin_env.envs.gin_rummy import GinRummyEnv
from gin_env.game import four_players, three_players
from gin_env.game.rules import Rules
from gin_env.table.formats import FourTable, RoomTable, ThreeTable
from gin_env.table.protocol import NotOffered
from gin_env.table.two_players import Table

FORMATS = {
    "players=3": {"players": 3, "opponents": ["simple", "random"]},
    "players=4": {"players": 4, "partner": "simple", "opponents": ["random", "simple"]},
    "room=(2, 3)": {"room": (2, 3), "teammates": ["simple"], "opponents": ["random", "simple", "simple"],
                    "learner_seat": 0},
}


def run(env, seed: int, rng: np.random.Generator, check=None) -> tuple[float, dict, int]:
    """One episode of random masked play by the learner: its summed reward, the last info, its steps."""
    obs, info = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        if check is not None:
            check(env.unwrapped)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        total, steps, done = total + reward, steps + 1, terminated or truncated
    return total, info, steps


@pytest.mark.parametrize(("kwargs", "table"), [
    ({"players": 2, "opponent": "random"}, Table), ({}, Table), ({"players": 3}, ThreeTable),
    ({"rules": Rules(players=4)}, FourTable), ({"room": (1, 2), "learner_seat": 1}, RoomTable),
], ids=["players=2", "default", "players=3", "rules.players=4", "room"])
def test_one_env_class_plays_every_format_on_its_table(kwargs, table):
    env = gym.make("GinRummy-v0", **kwargs).unwrapped
    assert type(env) is GinRummyEnv and type(env.table) is table
    assert type(GinRummyEnv(**kwargs).table) is table


@pytest.mark.parametrize(("fmt", "name"), [("players=3", "three players"), ("players=4", "four players in two teams"),
                                         ("room=(2, 3)", "a room of 2 and 3 members")])
def test_replays_and_pictures_are_two_player_capabilities_refused_naming_the_format(fmt, name):
    offered = f"is offered with two players only; this game is {name}"
    with pytest.raises(NotOffered, match=f"render_mode='rgb_array' {offered}"):
        gym.make("GinRummy-v0", render_mode="rgb_array", **FORMATS[fmt])
    env = gym.make("GinRummy-v0", **FORMATS[fmt]).unwrapped
    env.reset(seed=0)
    with pytest.raises(NotOffered, match=rf"replay\(\) {offered}"):
        env.replay()
    assert env.opponent is None and "opponents" in env.roles
    with pytest.raises(AttributeError, match="no single opponent"):
        env.opponent = "random"


@pytest.mark.parametrize("episode", ["hand", "match"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_env_checker_passes(fmt, episode):
    check_env(gym.make("GinRummy-v0", episode=episode, **FORMATS[fmt]).unwrapped)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_learner_acts_only_on_its_own_decisions(fmt):
    env = gym.make("GinRummy-v0", episode="match", **FORMATS[fmt])

    def check(e: GinRummyEnv):
        assert e.table.actor == e.learner
        if e.rules.players == 3:
            assert e.learner in e.table.game.seats        # never while it sits the hand out (R50)

    for seed in range(2):
        total, info, steps = run(env, seed, np.random.default_rng(seed), check)
        assert steps > 0 and "match" in info


def test_three_player_match_rewards_sum_to_the_learners_standing():
    """R53: hand points, then the learner's bonus less the mean of the others' bonuses."""
    env = gym.make("GinRummy-v0", episode="match", learner_seat=1, **FORMATS["players=3"])
    total, info, _ = run(env, 3, np.random.default_rng(3))
    game = env.unwrapped.table.game
    totals = three_players.final_totals(game)
    bonuses = [t - s for t, s in zip(totals, game.scores)]
    expected = sum(h.points(1) for h in game.history) + bonuses[1] - (bonuses[0] + bonuses[2]) / 2
    assert total == pytest.approx(expected / 100) and info["match"]["final_totals"] == totals


def test_four_player_match_rewards_sum_to_the_team_margin():
    """R56, R57: the netted deals and the team bonuses: the learner's team's final total less the other's."""
    env = gym.make("GinRummy-v0", episode="match", learner_seat=3, **FORMATS["players=4"])
    total, info, _ = run(env, 4, np.random.default_rng(4))
    totals = four_players.final_totals(env.unwrapped.table.game)
    assert total == pytest.approx((totals[1] - totals[0]) / 100)
    assert info["match"]["final_totals"] == (totals[1], totals[0])


def test_hand_episodes_are_one_hand_or_one_deal():
    env = gym.make("GinRummy-v0", episode="hand", **FORMATS["players=4"])
    _, info, _ = run(env, 5, np.random.default_rng(5))
    assert info["deal"]["number"] == 1 and env.unwrapped.table.game.over
    env = gym.make("GinRummy-v0", episode="hand", **FORMATS["players=3"])
    _, info, _ = run(env, 6, np.random.default_rng(6))
    assert len(env.unwrapped.table.game.history) == 1 and env.unwrapped.learner in info["outcome"]["seats"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_same_seed_same_episode(fmt):
    runs = [run(gym.make("GinRummy-v0", episode="match", **FORMATS[fmt]), 7, np.random.default_rng(7))
            for _ in range(2)]
    assert runs[0][0] == runs[1][0] and runs[0][2] == runs[1][2]


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"players": 3, "opponents": ["simple"]}, "opponents must be a list of 2 agents"),
    ({"players": 3, "partner": "simple"}, r"three players \(R50-R53\) takes no partner=: its agents are "
                                          r"opponents=\[...\]"),
    ({"players": 4, "teammates": ["simple"]}, r"takes no teammates=: its agents are opponents=\[...\], partner=..."),
    ({"players": 3, "opponent": "simple"}, r"takes no opponent=: its agents are opponents=\[...\]"),
    ({"opponents": ["simple"]}, r"two players takes no opponents=: its agents are opponent=..."),
    ({"room": (1, 2)}, "fix learner_seat"),
    ({"room": (2, 2), "teammates": ["simple", "simple"]}, "teammates must be a list of 1 agent in"),
    ({"room": (2, 2), "partner": "simple"}, r"a room of 2 and 2 members \(R58-R59\) takes no partner="),
    ({"players": 3, "learner_seat": 3}, "learner_seat must be a seat 0..2"),
    ({"players": 3, "render_mode": "rgb_array"}, "render_mode='rgb_array' is offered with two players only"),
])
def test_bad_arguments_are_named(kwargs, error):
    with pytest.raises(ValueError, match=error):
        gym.make("GinRummy-v0", **kwargs)


def test_an_illegal_action_is_penalized_or_raised():
    env = gym.make("GinRummy-v0", **FORMATS["players=4"])
    obs, info = env.reset(seed=8)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert reward == -1.0 and terminated and info["illegal_action"] and not info["action_mask"].any()
    env = gym.make("GinRummy-v0", illegal_action="raise", **FORMATS["players=3"])
    env.reset(seed=8)
    with pytest.raises(ValueError, match=r"illegal action KNOCK\(KC\): phase '\w+', legal actions: "):
        env.step(107)
