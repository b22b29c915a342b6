"""Training with the match record (``gin-env train --match-record``; docs/training.md, "The match record"): games to
the target with the record in the learner's observation; a ``--resume`` model that reads the plain observation is
widened first and picks every action as before until it learns; the trained model and its numpy actor read the
record in duels; and the misuses are refused before anything is written."""

from __future__ import annotations

import json
import os

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from gin_env import agents  # noqa: E402
from gin_env.agents import numpy_policy, ppo  # noqa: E402
from gin_env.game.actions import N_ACTIONS  # noqa: E402
from gin_env.game.observation import OBS_SIZE, RECORD_OBS_SIZE, encode  # noqa: E402
from gin_env.training import checks, config, export, loop, pool_env, widen  # noqa: E402
from tests.test_train import decision_views  # noqa: E402

TINY = ["--num-envs", "64", "--slots", "2", "--n-steps", "16", "--batch-size", "256", "--n-epochs", "1",
        "--channels", "4", "--features", "32", "--hidden", "16", "--snapshot-every", "500", "--eval-deals", "0",
        "--checkpoint-every", "1000", "--imitate-steps", "256", "--no-progress", "--rules", "eaai",
        "--opponents", "0:simple=1,self=1"]


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """A tiny model of the plain observation (375 inputs), trained on single hands."""
    run_dir = str(tmp_path_factory.mktemp("plain"))
    loop.train(config.parse_args(["--total-timesteps", "1024", "--seed", "3", "--run-dir", run_dir, *TINY]))
    return os.path.join(run_dir, "last.zip")


def test_a_widened_model_picks_every_action_as_before(plain):
    model = ppo.read_model(plain, "the test")
    before = ppo.PPOAgent(model.policy)
    views = [v for v in decision_views(before, 3) if any(v.record)]
    assert views, "no view came after a finished hand"
    masks = np.stack([v.legal_mask for v in views])
    logits = before.logits(np.stack([encode(v) for v in views]), masks)
    widen.widen_to_record(model, gym.spaces.Box(0.0, 1.0, (RECORD_OBS_SIZE,), np.float32))
    after = ppo.PPOAgent(model.policy)
    assert after.match_record and widen.reads(model) == RECORD_OBS_SIZE
    widened = after.logits(np.stack([encode(v, match_record=True) for v in views]), masks)
    np.testing.assert_allclose(widened, logits, atol=1e-5)


def test_training_with_the_record_widens_the_resumed_model_and_reads_the_record(plain, tmp_path, capsys):
    run_dir = str(tmp_path / "record")
    start = ppo.read_model(plain, "the test").num_timesteps
    model = loop.train(config.parse_args(["--total-timesteps", str(start + 1024), "--seed", "4", "--run-dir", run_dir,
                                          "--resume", plain, "--match-record", *TINY]))
    assert "widening" in capsys.readouterr().out
    assert model.observation_space.shape == (RECORD_OBS_SIZE,) and model.num_timesteps >= start + 1024
    assert ppo.declared_spaces(os.path.join(run_dir, "last.zip")) == (RECORD_OBS_SIZE, N_ACTIONS)
    # Its numpy actor reads the record too, and acts as the torch policy on every view of a few games.
    target, weights = str(tmp_path / "policy.zip"), str(tmp_path / "policy.npz")
    assert export.main([os.path.join(run_dir, "last.zip"), "--out", target, "--numpy", weights]) == 0
    torch_agent, numpy_agent = ppo.load_model(target), numpy_policy.load_policy(weights)
    assert torch_agent.match_record and numpy_agent.match_record
    views = decision_views(numpy_agent, 2)
    assert any(any(v.record) for v in views)
    rng = np.random.default_rng(0)
    assert [numpy_agent.act(v, rng) for v in views] == [torch_agent.act(v, rng) for v in views]
    # Resuming it again needs the flag: the model reads the record.
    with pytest.raises(ValueError, match="reads the match record"):
        checks.check_args(config.parse_args(["--run-dir", run_dir, "--resume", os.path.join(run_dir, "last.zip"),
                                             "--total-timesteps", str(start + 4096), *TINY]))


def test_a_teacher_is_cloned_into_a_resumed_model_against_several_opponents(plain, tmp_path):
    """``--clone-resumed``: the switch, which reads the record, cloned into the widened model before PPO, its
    decisions collected in equal shares against each ``--imitate-opponent``."""
    run_dir = str(tmp_path / "clone")
    start = ppo.read_model(plain, "the test").num_timesteps
    model = loop.train(config.parse_args([*TINY, "--total-timesteps", str(start), "--run-dir", run_dir, "--resume",
                                          plain, "--match-record", "--clone-resumed", "--teacher", "switch",
                                          "--imitate-opponent", "simple, expert"]))
    assert model.num_timesteps == start and model.observation_space.shape == (RECORD_OBS_SIZE,)
    with open(os.path.join(run_dir, "history.json")) as file:
        imitation = json.load(file)["imitation"]
    # 256 decisions: 128 against each, two rounds of 64 games.
    assert imitation["teacher"] == "switch" and imitation["decisions"] == 256


@pytest.mark.parametrize(("extra", "message"), [
    (["--rules", "openspiel"], "have none"),
    (["--clone-resumed"], "give --resume"),
    (["--imitate-opponent", " , "], "names no agent"),
])
def test_misuse_is_refused_before_anything_is_written(tmp_path, extra, message):
    run_dir = tmp_path / "never"
    with pytest.raises(ValueError, match=message):
        checks.check_args(config.parse_args(["--run-dir", str(run_dir), *TINY, "--match-record", *extra]))
    assert not run_dir.exists()


def test_a_plain_model_still_reads_the_plain_observation(plain):
    agent = ppo.load_model(plain)
    assert not agent.match_record
    assert encode(decision_views(agent, 1)[0]).shape == (OBS_SIZE,)


def test_the_shaping_telescopes_over_a_whole_game():
    """Potential-based shaping leaves the best policy alone only if it telescopes over the episode: with gamma 1, a
    game's shaping rewards sum to minus the potential of its first observation, however many hands it had (a
    potential zeroed at each hand's end would pay each new deal's deadwood instead)."""
    args = config.parse_args([*TINY, "--match-record", "--gamma", "1", "--num-envs", "8", "--slots", "1"])
    env = pool_env.PoolVecEnv(args)
    env.set_opponent(0, agents.load("simple"))
    env.seed(38)  # a seed whose games have a step that ends two hands (counted below)
    obs = env.reset()
    rng = np.random.default_rng(2)
    start = pool_env.potential(obs, args)
    shaping, games, doubles = np.zeros(8), [], 0
    while len(games) < 8:
        masks = np.stack(env.env_method("action_masks"))
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, rewards, dones, infos = env.step_wait()
        raw = np.array([info.get("hand_points", 0) for info in infos]) / args.reward_scale
        doubles += sum(info.get("hands_ended", 0) > 1 for info in infos)
        shaping += rewards - raw
        for i in np.flatnonzero(dones):
            games.append((shaping[i], start[i]))
            shaping[i], start[i] = 0.0, pool_env.potential(obs[i:i + 1], args)[0]
    assert doubles >= 1
    for total, first in games:
        assert total == pytest.approx(-first, abs=1e-4)
