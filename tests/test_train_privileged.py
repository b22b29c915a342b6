"""Training with a privileged critic (``gin-env train --privileged-critic``; docs/training.md, "A privileged
critic"): the critic also reads what no player sees, the opponent's hand and the stock's order; the actor never
does. The training env appends them after each observation; a ``--resume`` model without such a critic gets one
that values every position and picks every action as before; the trained model's actor, exported to numpy, plays
the plain view; and the misuses are refused before anything is written."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from gin_env import agents  # noqa: E402
from gin_env.agents import numpy_policy, ppo  # noqa: E402
from gin_env.game import cards  # noqa: E402
from gin_env.game.actions import N_ACTIONS  # noqa: E402
from gin_env.game.observation import (  # noqa: E402
    OBS_LAYOUT,
    OBS_SIZE,
    PRIVILEGED_PLANES,
    PRIVILEGED_SIZE,
    RECORD_OBS_SIZE,
    STOCK_DEPTH_DECAY,
    encode,
)
from gin_env.training import checks, config, export, loop, pool_env, widen  # noqa: E402
from tests.test_train import decision_views  # noqa: E402
from tests.test_train_record import TINY  # noqa: E402

NO_CLONING = [*TINY, "--imitate-steps", "0"]


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """A tiny model of the plain observation whose actor and critic share their features extractor."""
    run_dir = str(tmp_path_factory.mktemp("plain"))
    loop.train(config.parse_args(["--total-timesteps", "1024", "--seed", "3", "--run-dir", run_dir, *TINY]))
    return os.path.join(run_dir, "last.zip")


def _values(model, obs: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return model.policy.predict_values(torch.as_tensor(obs)).numpy().ravel()


def test_the_training_env_appends_the_opponents_hand_and_the_stock_in_order():
    env = pool_env.PoolVecEnv(config.parse_args(["--privileged-critic", *NO_CLONING]))
    for slot in range(2):
        env.set_opponent(slot, agents.load("simple"))
    obs = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        assert obs.shape == (64, OBS_SIZE + PRIVILEGED_SIZE) == (64, *env.observation_space.shape)
        games = 0
        for part in env.venv.parts:
            for game in range(part.num_envs):
                hand, stock = np.split(obs[games, OBS_SIZE:], len(PRIVILEGED_PLANES))
                hidden = int(part.batch.hands[game, 1 - part.learner[game]])
                assert np.flatnonzero(hand).tolist() == cards.to_ids(hidden)
                # The view agrees: none of those cards is the learner's, each is unseen or known taken; the stock's
                # cards are unseen.
                plane = {name: obs[games, OBS_LAYOUT[name]] for name in ("hand", "unseen", "opponent_known")}
                assert not (plane["hand"] * hand).any()
                assert (plane["unseen"] + plane["opponent_known"] >= hand).all()
                assert not (hand * stock).any() and (plane["unseen"] >= (stock > 0)).all()
                # The stock in the order it will be drawn: the next card 1, each after it 0.8 times the one before.
                order = part.batch.deck[game, part.batch.stock_top[game]:]
                np.testing.assert_allclose(stock[order], STOCK_DEPTH_DECAY ** np.arange(order.size), rtol=1e-6)
                assert np.count_nonzero(stock) == order.size == part.batch.stock_size(np.array([game]))[0]
                games += 1
        masks = np.stack(env.env_method("action_masks"))
        obs, _, dones, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for info in infos:
            if "terminal_observation" in info:
                assert info["terminal_observation"].shape == (OBS_SIZE + PRIVILEGED_SIZE,)


def test_a_widened_model_values_and_picks_as_before_and_its_critic_reads_the_hand(plain):
    model = ppo.read_model(plain, "the test")
    before = ppo.PPOAgent(model.policy)
    views = decision_views(before, 2)
    obs = np.stack([encode(v) for v in views])
    masks = np.stack([v.legal_mask for v in views])
    logits, values = before.logits(obs, masks), _values(model, obs)
    space = pool_env.PoolVecEnv(config.parse_args(["--privileged-critic", *NO_CLONING])).observation_space
    widen.widen_to_privileged(model, space)
    assert widen.is_privileged(model) and not model.policy.share_features_extractor
    hands = np.random.default_rng(1).integers(0, 2, (len(obs), PRIVILEGED_SIZE)).astype(np.float32)
    wide = np.concatenate([obs, hands], axis=1)
    after = ppo.PPOAgent(model.policy)
    np.testing.assert_allclose(after.logits(obs, masks), logits, atol=1e-5)
    np.testing.assert_allclose(_values(model, wide), values, atol=1e-5)
    # Once its new weights move, the critic tells hands apart; the actor never reads them.
    with torch.no_grad():
        model.policy.vf_features_extractor.runs.weight[:, -1] += 0.5
    assert not np.allclose(_values(model, wide), _values(model, np.concatenate([obs, 1 - hands], axis=1)))
    def torch_logits(x):
        return model.policy.get_distribution(torch.as_tensor(x)).distribution.logits.detach().numpy()

    np.testing.assert_allclose(torch_logits(wide), torch_logits(np.concatenate([obs, 1 - hands], axis=1)), atol=1e-6)


def test_training_with_a_privileged_critic_exports_an_actor_of_the_plain_view(plain, tmp_path, capsys):
    run_dir = str(tmp_path / "privileged")
    start = ppo.read_model(plain, "the test").num_timesteps
    model = loop.train(config.parse_args(["--total-timesteps", str(start + 1024), "--run-dir", run_dir, "--resume",
                                          plain, "--privileged-critic", *NO_CLONING]))
    assert f"widening {plain} to read what no player sees (" in capsys.readouterr().out
    assert model.num_timesteps >= start + 1024 and widen.is_privileged(model)
    last = os.path.join(run_dir, "last.zip")
    assert ppo.declared_spaces(last) == (OBS_SIZE + PRIVILEGED_SIZE, N_ACTIONS)
    target, weights = str(tmp_path / "policy.zip"), str(tmp_path / "policy.npz")
    assert export.main([last, "--out", target, "--numpy", weights]) == 0
    torch_agent, numpy_agent = ppo.load_model(target), numpy_policy.load_policy(weights)
    assert torch_agent.privileged == PRIVILEGED_SIZE and not numpy_agent.match_record
    views = decision_views(numpy_agent, 2)
    rng = np.random.default_rng(0)
    assert [numpy_agent.act(v, rng) for v in views] == [torch_agent.act(v, rng) for v in views]
    # A fresh run with a privileged critic resumes without widening again.
    more = loop.train(config.parse_args(["--total-timesteps", str(model.num_timesteps + 1024), "--run-dir", run_dir,
                                         "--resume", last, "--privileged-critic", *NO_CLONING]))
    assert "widening" not in capsys.readouterr().out and more.num_timesteps > model.num_timesteps


def test_a_record_model_gains_a_privileged_critic_and_is_told_only_that(plain, tmp_path, capsys):
    """Widening names what the resumed model lacks, not every option of the run."""
    start = ppo.read_model(plain, "the test").num_timesteps
    loop.train(config.parse_args(["--total-timesteps", str(start + 1024), "--run-dir", str(tmp_path / "record"),
                                  "--resume", plain, "--match-record", *NO_CLONING]))
    record = str(tmp_path / "record" / "last.zip")
    assert f"widening {plain} to read the match record (" in capsys.readouterr().out
    model = loop.train(config.parse_args(["--total-timesteps", str(start + 2048), "--run-dir", str(tmp_path / "both"),
                                          "--resume", record, "--match-record", "--privileged-critic", *NO_CLONING]))
    assert f"widening {record} to read what no player sees (" in capsys.readouterr().out
    assert model.observation_space.shape == (RECORD_OBS_SIZE + PRIVILEGED_SIZE,) and widen.is_privileged(model)


@pytest.mark.parametrize(("extra", "message"), [
    (["--privileged-critic", "--imitate-steps", "256"], "trains by PPO alone"),
    (["--privileged-critic", "--imitate-steps", "256", "--clone-resumed", "--resume", "PLAIN"], "trains by PPO alone"),
])
def test_misuse_is_refused_before_anything_is_written(plain, tmp_path, extra, message):
    run_dir = str(tmp_path / "refused")
    argv = [*TINY, *[plain if arg == "PLAIN" else arg for arg in extra], "--run-dir", run_dir]
    with pytest.raises(ValueError, match=message):
        checks.check_args(config.parse_args(argv))
    assert not os.path.exists(run_dir)


def test_a_privileged_model_resumes_only_with_its_critic(plain, tmp_path):
    run_dir = str(tmp_path / "privileged")
    start = ppo.read_model(plain, "the test").num_timesteps
    loop.train(config.parse_args(["--total-timesteps", str(start), "--run-dir", run_dir, "--resume", plain,
                                  "--privileged-critic", *NO_CLONING]))
    with pytest.raises(ValueError, match="has a privileged critic"):
        checks.check_args(config.parse_args([*NO_CLONING, "--run-dir", str(tmp_path / "next"), "--resume",
                                             os.path.join(run_dir, "last.zip")]))


def test_the_kept_checkpoint_has_a_privileged_critic_and_plays_the_plain_view():
    """docs/iteration.md resumes the privileged run from ``experiments/checkpoints/privileged_ppo.zip``."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "experiments", "checkpoints",
                        "privileged_ppo.zip")
    model = ppo.read_model(path, "the test")
    assert widen.is_privileged(model) and model.observation_space.shape == (OBS_SIZE + PRIVILEGED_SIZE,)
    agent = ppo.load_model(path)
    views = decision_views(agent, 1)
    assert views and all(view.legal_mask[agent.act(view, np.random.default_rng(0))] for view in views)
