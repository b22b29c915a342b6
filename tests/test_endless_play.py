"""Players who never end a hand still end every hand, game and episode (R19 turn cap, R19a abandoned games), and
every env and the duel loop report it: scalar env, vector env, PettingZoo, ``duel``."""

from __future__ import annotations

import numpy as np
import pytest

from gin_env import agents
from gin_env.batch.observation import batch_view
from gin_env.envs.gin_rummy import GinRummyEnv
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.evaluation import duel
from gin_env.game import observation
from gin_env.game.rules import Rules
from tests.scripted import LoopingAgent, looping_action

#: The presets, openspiel without its cap of 50 takes from the pile (R60), which ends a looping hand before the turn
#: cap does (test_engine pins that).
RULES = (Rules.preset("standard"), Rules.preset("eaai"), Rules.preset("openspiel", max_upcard_draws=None))
RULE_IDS = ("standard", "eaai", "openspiel")
#: R19, R19a defaults.
MAX_TURNS, MAX_DEAD_HANDS = 200, 10


def hands_per_game(rules: Rules) -> int:
    """Capped hands until the game ends: one with no target (openspiel: a game is one hand), else R19a's limit."""
    return 1 if rules.target is None else MAX_DEAD_HANDS


def learner_steps_bound(rules: Rules, episode: str) -> int:
    """More learner steps than the capped episode can take (one take and one discard per learner turn)."""
    return (hands_per_game(rules) if episode == "match" else 1) * (MAX_TURNS + 2)


@pytest.mark.parametrize("episode", ["hand", "match"])
@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
def test_scalar_env_episode_ends(rules, episode):
    env = GinRummyEnv(rules=rules, opponent=LoopingAgent(), episode=episode)
    env.reset(seed=4)
    learner = LoopingAgent()
    capped_hands = 0
    for _ in range(learner_steps_bound(rules, episode)):
        v = env.unwrapped._view
        _, reward, terminated, truncated, info = env.step(learner.act(v, None))
        if "outcome" in info:
            assert info["outcome"]["capped"] and info["outcome"]["kind"] == "dead" and reward == 0
            capped_hands += 1
        if terminated:
            break
    assert terminated and not truncated
    if episode == "hand":
        assert capped_hands == 1
    else:
        abandoned = rules.target is not None
        assert info["match"]["abandoned"] == abandoned and info["match"]["winner"] is None
        assert info["match"]["hands"] == hands_per_game(rules) and info["match"]["final_totals"] == (0, 0)


def looping_learner_actions(envs: GinRummyVectorEnv) -> np.ndarray:
    """The looping play for every learner of a vector env, read from its batch."""
    v = batch_view(envs.batch, np.arange(envs.num_envs), envs.learner)
    return LoopingAgent().act_batch(v, None)


@pytest.mark.parametrize("episode", ["hand", "match"])
@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
def test_vector_env_episodes_end(rules, episode):
    envs = GinRummyVectorEnv(num_envs=3, rules=rules, opponent=LoopingAgent(), episode=episode)
    envs.reset(seed=5)
    finished = np.zeros(envs.num_envs, dtype=bool)
    capped = np.zeros(envs.num_envs, dtype=np.int64)
    for _ in range(learner_steps_bound(rules, episode)):
        _, rewards, terminated, truncated, info = envs.step(looping_learner_actions(envs))
        assert not truncated.any() and (rewards == 0).all()
        if "_outcome_kind" in info:
            ended = info["_outcome_kind"]
            assert (info["outcome_kind"][ended] == "dead").all() and info["outcome_capped"][ended].all()
            capped += ended & ~finished
        if episode == "match" and terminated.any():
            assert (info["match_abandoned"][terminated] == (rules.target is not None)).all()
            assert (info["match_totals"][terminated] == 0).all()
        finished |= terminated
        if finished.all():
            break
    assert finished.all()
    assert (capped == (hands_per_game(rules) if episode == "match" else 1)).all()


@pytest.mark.parametrize("episode", ["hand", "match"])
@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
def test_pettingzoo_episode_ends(rules, episode):
    from gin_env.envs.pettingzoo import env as aec_env

    aec = aec_env(rules=rules, episode=episode)
    aec.reset(seed=6)
    outcomes = []
    for agent in aec.agent_iter(max_iter=2 * learner_steps_bound(rules, episode) + 2):
        _, _, terminated, truncated, info = aec.last()
        if "outcome" in info and agent == "player_0":
            outcomes.append(info)
        if terminated or truncated:
            aec.step(None)
            continue
        v = observation.view(aec.unwrapped.state, int(agent[-1]))
        aec.step(looping_action(v.legal_actions, v.phase, v.taken))
    assert not aec.agents, "the episode did not end"
    assert all(o["outcome"]["capped"] for o in outcomes)
    if episode == "match":
        assert outcomes[-1]["match"]["abandoned"] == (rules.target is not None)
        assert outcomes[-1]["match"]["winner"] is None


@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
def test_duel_game_ends_and_reports_it(rules):
    result = duel.play_game(rules, (LoopingAgent(), LoopingAgent()), seed=3, game=0)
    assert result.hands == result.capped == hands_per_game(rules)
    assert result.abandoned == (rules.target is not None)
    assert (result.winner, result.totals, result.points) == (None, (0, 0), (0, 0))
    assert duel.a_side(result, 0)[4] == 0.5


def test_turn_cap_can_be_lifted_for_normal_play():
    """Without the caps (null), normal play is unchanged: hands end by knock or wall, never capped."""
    rules = Rules.preset("standard", max_turns=None, max_dead_hands=None)
    simple = agents.load("simple")
    result = duel.play_game(rules, (simple, simple), seed=1, game=0)
    assert result.capped == 0 and not result.abandoned and result.winner is not None
