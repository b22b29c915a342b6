"""A network of the standard game widened to jokers (docs/rules.md section 17): R72's seven counts and the two joker
actions join it weighted 0, so it plays every natural card's action as before, and ``gin-env train --rules jokers
--resume`` fine-tunes it; a network is refused a game whose spaces it was not trained for, naming both sizes."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("sb3_contrib")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

from gin_env.agents import numpy_policy, ppo  # noqa: E402
from gin_env.game import actions, engine, observation  # noqa: E402
from gin_env.game.observation import OBS_SIZE, encode, obs_bounds  # noqa: E402
from gin_env.game.rules import Rules  # noqa: E402
from gin_env.training import checks, config, export, imitation, loop, run_files, widen  # noqa: E402

JOKERS = Rules.preset("jokers")
TINY = ["--num-envs", "64", "--slots", "2", "--n-steps", "16", "--batch-size", "256", "--n-epochs", "1",
        "--channels", "4", "--features", "32", "--hidden", "16", "--snapshot-every", "500", "--eval-deals", "0",
        "--checkpoint-every", "1000", "--imitate-steps", "0", "--no-progress", "--opponents", "0:random=1"]


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """A tiny model of the standard game (375 inputs, 108 actions)."""
    run_dir = str(tmp_path_factory.mktemp("plain"))
    loop.train(config.parse_args(["--total-timesteps", "1024", "--seed", "3", "--run-dir", run_dir, *TINY]))
    return os.path.join(run_dir, "last.zip")


def joker_views(n_hands: int, seed: int = 0) -> list[observation.PlayerView]:
    """Decision views of random play under the ``jokers`` preset, a joker in hand in many of them."""
    rng = np.random.default_rng(seed)
    views = []
    for _ in range(n_hands):
        state = engine.new_hand(JOKERS, rng)
        while state.phase != engine.OVER:
            views.append(observation.view(state, state.current))
            state = engine.step(state, int(rng.choice(engine.legal_actions(state))))
    return views


def raw_logits(model, obs: np.ndarray) -> np.ndarray:
    """The actor's logits of every action before any mask or normalisation."""
    policy = model.policy
    features = policy.extract_features(policy.obs_to_tensor(obs)[0], policy.pi_features_extractor)
    return policy.action_net(features).detach().numpy()


def test_a_model_widened_to_jokers_keeps_every_natural_cards_logit_R72(plain):
    model = ppo.read_model(plain, "the test")
    views = joker_views(4)
    assert any(v.hand >> 52 for v in views), "no view held a joker"
    obs = np.stack([encode(v) for v in views])
    before = raw_logits(model, obs[:, :OBS_SIZE])
    widen.widen_to_jokers(model, gym.spaces.Box(*obs_bounds(rules=JOKERS), dtype=np.float32),
                          gym.spaces.Discrete(JOKERS.n_actions))
    after = ppo.PPOAgent(model.policy)
    assert (after.reads, after.n_actions) == (382, 110) and widen.model_layout(model) == (True, False, False)
    widened = raw_logits(model, obs)
    np.testing.assert_allclose(widened[:, :actions.N_ACTIONS], before, atol=1e-5)
    np.testing.assert_allclose(widened[:, actions.DISCARD_JOKER:], 0.0, atol=1e-6)


def test_training_under_jokers_widens_the_resumed_model_and_its_actor_plays_jokers(plain, tmp_path, capsys):
    run_dir = str(tmp_path / "jokers")
    start = ppo.read_model(plain, "the test").num_timesteps
    model = loop.train(config.parse_args(["--total-timesteps", str(start + 1024), "--seed", "4", "--run-dir", run_dir,
                                          "--resume", plain, "--rules", "jokers", *TINY]))
    assert "widening" in capsys.readouterr().out
    assert model.observation_space.shape == (382,) and model.action_space.n == 110
    target, weights = str(tmp_path / "policy.zip"), str(tmp_path / "policy.npz")
    assert export.main([os.path.join(run_dir, "last.zip"), "--out", target, "--numpy", weights]) == 0
    torch_agent, numpy_agent = ppo.load_model(target), numpy_policy.load_policy(weights)
    assert numpy_agent.jokers and (numpy_agent.reads, numpy_agent.n_actions) == (382, 110)
    rng = np.random.default_rng(0)
    views = [v for v in joker_views(3, seed=1) if v.to_act]
    assert [numpy_agent.act(v, rng) for v in views] == [torch_agent.act(v, rng) for v in views]
    # The jokers network is refused the standard game, and the standard one the game with jokers.
    standard = observation.view(engine.new_hand(Rules(), rng), 0)
    with pytest.raises(ValueError, match="reads observations of 382 entries and gives 110 actions.*has 375 and 108"):
        numpy_agent.act(standard, rng)
    with pytest.raises(ValueError, match="reads observations of 375 entries and gives 108 actions.*has 382 and 110"):
        ppo.load_model(plain).act(views[0], rng)
    # A model that plays jokers resumes only under rules with jokers.
    with pytest.raises(ValueError, match="plays jokers: train it under rules with jokers"):
        checks.check_args(config.parse_args(["--run-dir", str(tmp_path / "back"), "--resume",
                                             os.path.join(run_dir, "last.zip"), *TINY]))


def test_the_expert_is_cloned_into_a_resumed_model_under_jokers_R72(plain, tmp_path, capsys):
    """``--clone-resumed --teacher expert`` under jokers: the expert's decisions are collected over the 110 actions,
    and only knocks weigh as knocks (``DISCARD(JK)`` is a discard)."""
    args = config.parse_args(["--seed", "6", "--rules", "jokers", *TINY, "--imitate-steps", "4096",
                              "--teacher", "expert", "--imitate-opponent", "simple"])
    data = imitation.collect_teacher_games(args)
    rows = np.arange(data["actions"].size)
    assert data["masks"].shape == (4096, 110) and data["masks"][rows, data["actions"]].all()
    knocks = imitation.knock_legal(data["masks"])
    only_joker_discard = data["masks"][:, actions.DISCARD_JOKER] & ~knocks
    assert only_joker_discard.any() and knocks.any()
    assert knocks[data["masks"][:, actions.KNOCK_JOKER]].all()
    start = ppo.read_model(plain, "the test").num_timesteps
    run_dir = str(tmp_path / "cloned")
    model = loop.train(config.parse_args(["--total-timesteps", str(start + 1024), "--seed", "6", "--run-dir", run_dir,
                                          "--resume", plain, "--rules", "jokers", *TINY, "--imitate-steps", "4096",
                                          "--teacher", "expert", "--imitate-opponent", "simple", "--clone-resumed"]))
    assert model.action_space.n == 110
    history = run_files.read_history(os.path.join(run_dir, "history.json"))
    assert history["imitation"]["teacher"] == "expert" and history["imitation"]["held_out_agreement"] > 0.3
