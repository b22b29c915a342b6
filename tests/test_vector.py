"""GinRummyVectorEnv and its SB3 adapter: Gymnasium's vector API, same rewards as the scalar env, masks, autoreset,
match bookkeeping, and MaskablePPO training through the adapter."""

import gymnasium as gym
import numpy as np
import pytest

import gin_env  # noqa: F401  (registers GinRummy-v0)
from gin_env.envs.vector import GinRummyVectorEnv
from gin_env.game import engine, match
from gin_env.game.observation import OBS_SIZE
from gin_env.game.rules import Rules
from gin_env.interop.sb3 import SB3VecEnv


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    keys = rng.random(masks.shape)
    keys[~masks] = -1.0
    return keys.argmax(axis=1)


def test_make_vec_builds_the_batched_env():
    envs = gym.make_vec("GinRummy-v0", num_envs=16, vectorization_mode="vector_entry_point", opponent="random")
    obs, info = envs.reset(seed=3)
    assert isinstance(envs.unwrapped, GinRummyVectorEnv)
    assert obs.shape == (16, OBS_SIZE) and obs.dtype == np.float32
    assert envs.action_masks().shape == (16, 108) and envs.action_masks().dtype == bool
    assert envs.observation_space.contains(obs)
    np.testing.assert_array_equal(info["action_mask"], envs.action_masks())
    assert envs.action_masks().any(axis=1).all()


@pytest.mark.parametrize("opponent", ["random", "simple"])
def test_same_seed_same_trajectory(opponent):
    runs = []
    for _ in range(2):
        env = GinRummyVectorEnv(num_envs=8, opponent=opponent, rules="oklahoma")
        rng = np.random.default_rng(1)
        obs, _ = env.reset(seed=42)
        trace = [obs]
        for _ in range(60):
            obs, reward, terminated, truncated, info = env.step(random_legal(env.action_masks(), rng))
            trace += [obs, reward, terminated, info["action_mask"]]
        runs.append(trace)
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("preset", ["standard", "oklahoma", "openspiel"])
def test_every_game_stays_valid_and_autoresets(preset):
    env = GinRummyVectorEnv(num_envs=24, opponent="simple", rules=preset)
    rng = np.random.default_rng(7)
    env.reset(seed=7)
    episodes = 0
    for _ in range(150):
        masks = env.action_masks()
        obs, reward, terminated, truncated, info = env.step(random_legal(masks, rng))
        for i in range(env.num_envs):
            engine.validate(env.batch.hand_state(i))
            assert env.batch.current[i] == env.learner[i], "the env returned while the opponent was to act"
        done = terminated | truncated
        episodes += done.sum()
        if done.any():
            assert info["_final_obs"].tolist() == done.tolist()
            assert info["final_obs"][done].shape == (done.sum(), OBS_SIZE)
            # Same-step autoreset: the returned observation is the new episode's, at its first learner decision.
            assert env.action_masks()[done].any(axis=1).all()
        assert np.abs(reward).max() <= 2.5
    assert episodes > 24


def test_hand_rewards_are_the_learners_points():
    env = GinRummyVectorEnv(num_envs=32, opponent="simple", rules="eaai", reward_scale=1.0)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    seen = 0
    for _ in range(200):
        _, reward, terminated, _, info = env.step(random_legal(env.action_masks(), rng))
        if "_outcome_points" in info:
            ended = info["_outcome_points"]
            np.testing.assert_array_equal(reward[ended], info["outcome_points"][ended])
            np.testing.assert_array_equal(terminated, ended)
            seen += ended.sum()
    assert seen > 50


def test_match_rewards_sum_to_final_totals_difference():
    """episode="match": per-hand points as they come, and at the end the bonuses, so each episode's rewards add up to
    the difference of the final totals, which equal match.final_totals of the same scores and hands won (R40-R43)."""
    for shutout in ("double_game_bonus", "double_hand_points", "double_total"):
        rules = Rules.preset("standard", target=60, shutout=shutout)
        env = GinRummyVectorEnv(num_envs=16, opponent="simple", rules=rules, episode="match", reward_scale=1.0)
        rng = np.random.default_rng(5)
        env.reset(seed=5)
        totals = np.zeros(16)
        finished = 0
        for _ in range(300):
            _, reward, terminated, _, info = env.step(random_legal(env.action_masks(), rng))
            totals += reward
            for i in np.flatnonzero(terminated):
                learner_score, opponent_score = info["match_scores"][i]
                learner_won, opponent_won = info["match_hands_won"][i]
                winner = 0 if learner_score >= 60 else 1
                assert max(learner_score, opponent_score) >= 60 > min(learner_score, opponent_score)
                state = match.MatchState(rules=rules, scores=(int(learner_score), int(opponent_score)),
                                         hands_won=(int(learner_won), int(opponent_won)), dealer=0, hand=None,
                                         history=(), winner=winner, over=True)
                assert tuple(info["match_totals"][i]) == match.final_totals(state)
                assert totals[i] == info["match_totals"][i][0] - info["match_totals"][i][1]
                totals[i] = 0.0
                finished += 1
        assert finished >= 10


@pytest.mark.parametrize("rules", [Rules.preset("openspiel"), Rules.preset("standard", target=1)])
def test_match_totals_are_the_finished_matchs_even_when_the_next_one_ends_at_once(rules):
    """The autoreset deals a new match in the same step; when the opponent ends it before the learner's first move
    (it takes the upcard and knocks), info must still hold the match that ended: its totals' difference is the
    episode's return times the scale."""
    env = GinRummyVectorEnv(num_envs=64, opponent="simple", rules=rules, episode="match", reward_scale=40.0)
    rng = np.random.default_rng(8)
    env.reset(seed=8)
    returns = np.zeros(64)
    finished = 0
    # With these seeds, openspiel's new match ends before the learner's move at steps 153 and 225.
    for _ in range(250):
        _, reward, terminated, _, info = env.step(random_legal(env.action_masks(), rng))
        returns += reward
        for i in np.flatnonzero(terminated):
            learner_total, opponent_total = info["match_totals"][i]
            assert learner_total - opponent_total == pytest.approx(returns[i] * 40.0), i
            returns[i] = 0.0
            finished += 1
    assert finished >= 800


def test_a_step_that_ends_two_hands_reports_both():
    """As in GinRummyEnv: when the opponent ends the next hand before the learner's first decision of it (R13), in
    the step that ended the last one, ``outcome_*`` describe the second hand, ``hands_ended`` counts both and
    ``hand_points`` sums the learner's points; over each match these add up to the score difference (R34). With
    seed 2, game 47 has such a step at step 19."""
    env = GinRummyVectorEnv(num_envs=64, opponent="simple", rules="eaai", episode="match", reward_scale=1.0)
    rng = np.random.default_rng(2)
    env.reset(seed=2)
    hand_points, returns, doubles, finished = np.zeros(64), np.zeros(64), 0, 0
    for _ in range(120):
        _, reward, terminated, _, info = env.step(random_legal(env.action_masks(), rng))
        returns += reward
        if "_hands_ended" in info:
            ended = info["_hands_ended"]
            assert (ended == info["_outcome_points"]).all() and (info["hands_ended"][ended] >= 1).all()
            hand_points[ended] += info["hand_points"][ended]
            single = ended & (info["hands_ended"] == 1)
            np.testing.assert_array_equal(info["hand_points"][single], info["outcome_points"][single])
            doubles += int((info["hands_ended"][ended] == 2).sum())
        np.testing.assert_array_equal(returns, hand_points)  # eaai: no end-of-game bonuses
        for i in np.flatnonzero(terminated):
            learner_score, opponent_score = info["match_scores"][i]
            assert hand_points[i] == learner_score - opponent_score
            hand_points[i] = returns[i] = 0.0
            finished += 1
    assert doubles >= 1, "no step ended two hands: the seed no longer shows the case"
    assert finished >= 50


def test_r19a_dead_hands_in_a_row_abandon_matches_in_the_batched_bookkeeping():
    """A low turn cap (R19) makes many hands dead (random learner, simple opponent); three in a row abandon the
    game (R19a): no winner, no bonuses, and the episode's return is the hand points alone. Games that reach the
    target are not abandoned."""
    rules = Rules.preset("standard", target=30, max_turns=10, max_dead_hands=3)
    env = GinRummyVectorEnv(num_envs=32, opponent="simple", rules=rules, episode="match", reward_scale=1.0)
    rng = np.random.default_rng(12)
    env.reset(seed=12)
    returns = np.zeros(32)
    dead_in_row = np.zeros(32, dtype=np.int64)
    seen = {True: 0, False: 0}
    for _ in range(300):
        _, reward, terminated, _, info = env.step(random_legal(env.action_masks(), rng))
        returns += reward
        if "_outcome_kind" in info:
            ended = info["_outcome_kind"]
            assert (info["outcome_capped"][ended] <= (info["outcome_kind"][ended] == "dead")).all()
            dead = ended & (info["outcome_kind"] == "dead")
            dead_in_row = np.where(dead, dead_in_row + 1, np.where(ended, 0, dead_in_row))
        for i in np.flatnonzero(terminated):
            abandoned = bool(info["match_abandoned"][i])
            scores, totals = info["match_scores"][i], info["match_totals"][i]
            if abandoned:
                assert dead_in_row[i] >= 3 and max(scores) < 30 and tuple(totals) == tuple(scores)
            else:
                assert max(scores) >= 30
            assert returns[i] == totals[0] - totals[1]
            seen[abandoned] += 1
            returns[i], dead_in_row[i] = 0.0, 0
    assert seen[True] >= 20 and seen[False] >= 20, seen  # both endings, many times


def test_illegal_actions_penalize_or_raise():
    env = GinRummyVectorEnv(num_envs=4, opponent="random")
    env.reset(seed=1)
    masks = env.action_masks()
    actions = masks.argmax(axis=1)
    actions[2] = int(np.flatnonzero(~masks[2])[0])
    _, reward, terminated, _, info = env.step(actions)
    assert terminated[2] and reward[2] == -1.0 and info["illegal_action"][2]
    strict = GinRummyVectorEnv(num_envs=4, opponent="random", illegal_action="raise")
    strict.reset(seed=1)
    bad = strict.action_masks().argmax(axis=1)
    bad[1] = 107 if not strict.action_masks()[1, 107] else 106
    with pytest.raises(engine.IllegalActionError, match="game 1: illegal action KNOCK"):
        strict.step(bad)


def test_bad_arguments_name_the_problem():
    with pytest.raises(ValueError, match="episode"):
        GinRummyVectorEnv(episode="game")
    with pytest.raises(ValueError, match="unknown rules preset"):
        GinRummyVectorEnv(rules="gin")
    with pytest.raises(TypeError, match="act_batch"):
        GinRummyVectorEnv(opponent=lambda view, rng: 0)


def test_maskable_ppo_trains_through_the_sb3_adapter():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks

    venv = SB3VecEnv(GinRummyVectorEnv(num_envs=32, opponent="simple"))
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=256, n_epochs=1, seed=0)
    model.learn(2048)
    obs = venv.reset()
    for _ in range(40):
        masks = get_action_masks(venv)
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(32), actions].all()
        obs, rewards, dones, infos = venv.step(actions)
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (OBS_SIZE,)


def test_observations_the_caller_keeps_never_change():
    """The env reuses observation memory only once nothing made from it is held: arrays kept across steps, views
    of them and final observations must keep their values."""
    env = GinRummyVectorEnv(num_envs=32, opponent="simple", rules="eaai")
    rng = np.random.default_rng(4)
    obs, _ = env.reset(seed=4)
    kept = [(obs, obs.copy()), (obs[3:9], obs[3:9].copy())]
    finals = []
    for step in range(80):
        obs, _, terminated, truncated, info = env.step(random_legal(env.action_masks(), rng))
        if step % 7 == 0:
            kept.append((obs, obs.copy()))
        if step % 5 == 0:
            kept.append((obs[::2, :52], obs[::2, :52].copy()))
        if "final_obs" in info:
            finals.append((info["final_obs"], info["final_obs"].copy()))
    assert finals
    for array, copy in kept + finals:
        np.testing.assert_array_equal(array, copy)


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_copied_vector_env_continues_identically(how):
    """A copy of the env mid-play (its batch's named fields are views of the arrays the compiled kernels write)
    plays on exactly as the original, and stepping one leaves the other alone."""
    import copy
    import pickle

    env = GinRummyVectorEnv(num_envs=16, opponent="simple", episode="match", reward_scale=1.0)
    rng = np.random.default_rng(12)
    env.reset(seed=12)
    for _ in range(5):
        env.step(random_legal(env.action_masks(), rng))
    clone = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    for _ in range(60):
        actions = random_legal(env.action_masks(), rng)
        obs, reward, terminated, truncated, _ = env.step(actions)
        obs_c, reward_c, terminated_c, truncated_c, _ = clone.step(actions)
        for a, b in ((obs, obs_c), (reward, reward_c), (terminated, terminated_c), (truncated, truncated_c)):
            np.testing.assert_array_equal(a, b)
        for i in range(env.num_envs):
            assert env.batch.hand_state(i) == clone.batch.hand_state(i)
