"""Training (train.py, gin_env.training) end to end on a tiny network: a short run saves, reloads as an agent, plays
legal moves, and resumes; the opponent schedule, imitation, the PPO agent's loading rules, exporting and averaging
models (gin-env export), the numpy copy of a policy, and the shipped model."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402 - sb3-contrib brings it

from gin_env import agents
from gin_env.agents import numpy_policy, ppo  # noqa: E402
from gin_env.batch.observation import batch_view  # noqa: E402
from gin_env.envs.gin_rummy import GinRummyEnv  # noqa: E402
from gin_env.envs.vector import GinRummyVectorEnv  # noqa: E402
from gin_env.evaluation import (
    duel,
    evaluate,  # noqa: E402
)
from gin_env.game.observation import OBS_SIZE, encode, view  # noqa: E402
from gin_env.game.rules import Rules  # noqa: E402
from gin_env.training import config, export, imitation, loop, monitor, opponents, pool_env  # noqa: E402

TINY = ["--num-envs", "64", "--slots", "4", "--n-steps", "16", "--batch-size", "256", "--n-epochs", "1",
        "--channels", "4", "--features", "32", "--hidden", "16", "--snapshot-every", "500", "--eval-every", "1000",
        "--eval-deals", "4", "--checkpoint-every", "1000", "--imitate-steps", "256", "--no-progress",
        "--opponents", "0:random; 0.25:random=1,simple=1,self=1"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A 2,000-step run after a little imitation of simple (a few seconds on one core)."""
    run_dir = str(tmp_path_factory.mktemp("run"))
    model = loop.train(config.parse_args(["--total-timesteps", "2000", "--seed", "3", "--run-dir", run_dir, *TINY]))
    return run_dir, model


def test_short_run_writes_checkpoints_logs_and_curve(run):
    run_dir, model = run
    assert model.num_timesteps >= 2000
    for name in ("last.zip", "best.zip", "policy.zip", "history.json", "learning_curve.png"):
        assert os.path.getsize(os.path.join(run_dir, name)) > 0, name
    assert os.listdir(os.path.join(run_dir, "tb"))
    with open(os.path.join(run_dir, "history.json")) as f:
        history = json.load(f)
    # The curve starts with the warm start's evaluation and ends with the final policy's.
    assert history["eval"][0]["step"] == 0 and history["eval"][-1]["step"] == model.num_timesteps
    # Each opponent of the schedule was seated, self-play snapshots included; tallies come only from those seated.
    seated = {label for row in history["train"] for label in row["slots"]}
    assert seated == {"random", "simple", "self"}
    assert {label for row in history["train"] for label in row["opponents"]} <= seated


def test_saved_model_reloads_and_plays_only_legal_actions(run):
    run_dir, _ = run
    agent = agents.load(os.path.join(run_dir, "last.zip"))
    assert isinstance(agent, ppo.PPOAgent)
    env = GinRummyEnv(rules="eaai", opponent="simple", illegal_action="raise")
    rng = np.random.default_rng(7)
    for episode in range(5):
        env.reset(seed=episode)
        done = False
        while not done:
            action = agent.act(view(env.state, env.learner), rng)
            assert env.action_masks()[action]
            _, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated


def test_agent_plays_legal_actions_as_a_batched_opponent(run):
    run_dir, _ = run
    for deterministic in (True, False):
        agent = ppo.load_model(os.path.join(run_dir, "last.zip"), deterministic=deterministic)
        venv = GinRummyVectorEnv(16, rules="eaai", opponent=agent, illegal_action="raise")
        venv.reset(seed=5)
        rng = np.random.default_rng(5)
        for _ in range(60):  # the opponent's moves go through the engine, which raises on an illegal one
            keys = rng.random((16, 108))
            keys[~venv.action_masks()] = -1
            venv.step(keys.argmax(axis=1))


def test_exported_policy_is_smaller_and_plays_as_the_best_checkpoint(run):
    run_dir, _ = run
    best, exported = (os.path.join(run_dir, name) for name in ("best.zip", "policy.zip"))
    assert os.path.getsize(exported) < os.path.getsize(best)
    venv = GinRummyVectorEnv(32, rules="eaai", opponent="simple")
    venv.reset(seed=6)
    rng = np.random.default_rng(6)
    a, b = ppo.load_model(best), ppo.load_model(exported)
    for _ in range(30):
        v = batch_view(venv.batch, np.arange(32), venv.learner, venv.scores)
        chosen = a.act_batch(v, rng)
        np.testing.assert_array_equal(b.act_batch(v, rng), chosen)
        venv.step(chosen)


def test_resume_continues_from_a_checkpoint(run, tmp_path):
    run_dir, _ = run
    resumed = loop.train(config.parse_args(["--total-timesteps", "3000", "--seed", "3", "--run-dir", run_dir,
                                            "--resume", os.path.join(run_dir, "last.zip"), *TINY]))
    assert resumed.num_timesteps >= 3000
    with open(os.path.join(run_dir, "history.json")) as f:
        history = json.load(f)
    assert len(history["args"]) == 2 and history["eval"][-1]["step"] == resumed.num_timesteps


def test_evaluations_play_the_chosen_opponent_and_a_resume_keeps_it(run, tmp_path):
    run_dir, _ = run
    with open(os.path.join(run_dir, "history.json")) as f:
        assert {e["opponent"] for e in json.load(f)["eval"]} == {"simple"}
    # best.zip is chosen by comparing evaluations, so a run cannot switch its evaluation opponent midway.
    with pytest.raises(ValueError, match="--eval-opponent 'random'.*evaluated against 'simple'"):
        loop.train(config.parse_args(["--total-timesteps", "4000", "--run-dir", run_dir, "--resume",
                                      os.path.join(run_dir, "last.zip"), *TINY, "--eval-opponent", "random"]))
    fresh = str(tmp_path / "against_random")
    model = loop.train(config.parse_args(["--total-timesteps", "5000", "--seed", "3", "--run-dir", fresh, "--resume",
                                          os.path.join(run_dir, "last.zip"), *TINY, "--eval-opponent", "random"]))
    with open(os.path.join(fresh, "history.json")) as f:
        history = json.load(f)
    assert history["eval_opponent"] == "random" and {e["opponent"] for e in history["eval"]} == {"random"}
    assert history["eval"][-1]["step"] == model.num_timesteps
    # An unknown opponent is refused before the run starts, not at its first evaluation.
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        loop.train(config.parse_args(["--run-dir", str(tmp_path / "never"), *TINY, "--eval-opponent", "nobody"]))
    assert not os.path.exists(tmp_path / "never")


def test_schedule_and_allocation():
    schedule = opponents.parse_schedule("0.5:simple=3,self=1; 0:random")
    assert schedule == [(0.0, {"random": 1.0}), (0.5, {"simple": 3.0, "self": 1.0})]
    assert opponents.weights_at(schedule, 0.49) == {"random": 1.0}
    assert sorted(opponents.allocate(opponents.weights_at(schedule, 0.5), 8)) == ["self"] * 2 + ["simple"] * 6
    assert sorted(opponents.allocate({"a": 1, "b": 1, "c": 1}, 4)) == ["a", "a", "b", "c"]
    for bad in ("0.1:random", "0:random=-1", "0:"):
        with pytest.raises(ValueError):
            opponents.parse_schedule(bad)


def test_loading_errors_are_clear(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError):
        agents.load(str(tmp_path / "missing.zip"))
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a model"):
        agents.load(str(corrupt))
    monkeypatch.setitem(numpy_policy.SHIPPED, "ppo", str(tmp_path / "gone.npz"))
    with pytest.raises(FileNotFoundError, match="shipped policy weights"):
        agents.load("ppo")


@pytest.mark.parametrize("teacher", ["simple", "expert"])
def test_imitation_moves_the_policy_towards_the_teacher(tmp_path, teacher):
    steps = {"simple": "12800", "expert": "6400"}[teacher]
    args = config.parse_args(["--seed", "4", "--run-dir", str(tmp_path), *TINY, "--imitate-steps", steps,
                             "--teacher", teacher, "--imitate-epochs", "3"])
    model = loop.new_model(pool_env.PoolVecEnv(args), args)
    coach = agents.load(teacher)

    def agreement() -> float:
        venv = GinRummyVectorEnv(64, rules="eaai", opponent="simple")
        venv.reset(seed=9)
        rng, agent, same = np.random.default_rng(9), ppo.PPOAgent(monitor.frozen_copy(model.policy)), []
        for _ in range(20):
            v = batch_view(venv.batch, np.arange(64), venv.learner, venv.scores)
            target = coach.act_batch(v, rng)
            same.append(agent.act_batch(v, rng) == target)
            venv.step(target)
        return float(np.mean(same))

    before = agreement()
    history = {}
    imitation.imitate(model, args, history)
    # About 0.4 before and above 0.6 after with these seeds; many decisions have two legal actions, hence the floor.
    assert agreement() > before + 0.1
    # The held-out agreement that the run reports: near 0.5 for this 4-channel network.
    assert history["imitation"]["teacher"] == teacher and history["imitation"]["held_out_agreement"] > 0.4


def test_teacher_games_hold_legal_actions_and_the_returns_of_finished_hands():
    args = config.parse_args(["--seed", "5", *TINY, "--imitate-steps", "2048", "--teacher", "simple"])
    data = imitation.collect_teacher_games(args)
    rows = np.arange(data["actions"].size)
    assert data["obs"].shape == (2048, OBS_SIZE) and data["masks"][rows, data["actions"]].all()
    # Hands of 64 games over 32 decisions each: most finish, the last ones of each game are cut off.
    assert 0.3 < data["has_return"].mean() < 1.0
    # A value is a discounted hand result (in reward units, a few at most) minus a potential that is never
    # positive, and positions differ in worth.
    finished = data["values"][data["has_return"]]
    assert np.abs(finished).max() < 5.0 and finished.std() > 0.1


def test_export_averages_models_weight_by_weight(run, tmp_path, capsys):
    run_dir, _ = run
    source = os.path.join(run_dir, "last.zip")
    shifted = ppo.read_model(source, "the test")
    with torch.no_grad():
        for tensor in shifted.policy.parameters():
            tensor.add_(1.0)
    shifted.save(tmp_path / "shifted.zip")
    target = str(tmp_path / "soup.zip")
    assert export.main([source, str(tmp_path / "shifted.zip"), "--out", target]) == 0
    assert capsys.readouterr().out == f"wrote {target}\n"
    original = ppo.read_model(source, "the test").policy.state_dict()
    soup = ppo.read_model(target, "the test").policy.state_dict()
    assert all(torch.allclose(soup[key], original[key] + 0.5) for key, _ in shifted.policy.named_parameters())
    # The average is a model like any other: it loads as an agent and plays.
    duel.play_duplicate(Rules.preset("eaai"), agents.load(target), agents.load("simple"), seed=2, game=0)


def _critic_kept(state: dict, original: dict) -> bool:
    """Whether the critic's own layers of ``state`` are ``original``'s."""
    critic = [key for key in original if key.startswith(("mlp_extractor.value_net.", "value_net."))]
    return bool(critic) and all(torch.equal(state[key], original[key]) for key in critic)


def _shifted_actor(run, tmp_path) -> tuple[str, dict, dict]:
    """The run's last checkpoint, its policy's weights, and its actor's weights plus 1, also saved as
    ``shifted.npz``."""
    run_dir, _ = run
    source = os.path.join(run_dir, "last.zip")
    original = ppo.read_model(source, "the test").policy.state_dict()
    shifted = {key: original[key].numpy() + 1.0 for key in numpy_policy.PARAMETERS}
    np.savez(tmp_path / "shifted.npz", **shifted)
    return source, original, shifted


def test_export_averages_a_model_with_actor_weights(run, tmp_path, capsys):
    """An actor's ``.npz`` (what ``--numpy`` writes) joins the average of the actor's parameters, the feature
    extractor that the critic shares among them; the critic's own layers, which it lacks, stay the model's."""
    source, original, _ = _shifted_actor(run, tmp_path)
    target = str(tmp_path / "soup.zip")
    assert export.main([source, str(tmp_path / "shifted.npz"), "--out", target]) == 0
    assert capsys.readouterr().out == f"wrote {target}\n"
    soup = ppo.read_model(target, "the test").policy.state_dict()
    assert _critic_kept(soup, original)
    assert all(torch.allclose(soup[key], original[key] + 0.5) for key in numpy_policy.PARAMETERS)


def test_an_actor_put_into_a_model_replaces_its_policy_and_keeps_its_critic(run, tmp_path):
    """``ppo.model_with_actor``: how expert iteration turns a shipped actor (``ppo-expert``) back into a model that
    trains: the model's actor weights become the file's, every name of the shared feature extractor with them, and
    the critic's own layers stay."""
    source, original, shifted = _shifted_actor(run, tmp_path)
    target = str(tmp_path / "with_actor.zip")
    ppo.model_with_actor(source, numpy_policy.read_weights(str(tmp_path / "shifted.npz")), target)
    state = ppo.read_model(target, "the test").policy.state_dict()
    assert all(torch.allclose(state[key], original[key] + 1.0) for key in numpy_policy.PARAMETERS)
    assert torch.allclose(state["features_extractor.runs.weight"], original["features_extractor.runs.weight"] + 1)
    assert _critic_kept(state, original)
    narrow = {key: value[..., :1] for key, value in shifted.items()}
    with pytest.raises(ValueError, match="narrow.npz.*has shape"):
        ppo.model_with_actor(source, narrow, str(tmp_path / "never.zip"), "narrow.npz")
    assert not os.path.exists(tmp_path / "never.zip")


def test_export_refuses_actor_weights_it_cannot_use(run, tmp_path, capsys):
    run_dir, _ = run
    source = os.path.join(run_dir, "last.zip")
    state = ppo.read_model(source, "the test").policy.state_dict()
    weights = {key: state[key].numpy() for key in numpy_policy.PARAMETERS}
    np.savez(tmp_path / "actor.npz", **weights)
    with pytest.raises(SystemExit):  # settings and the critic come from a model, so one must lead
        export.main([str(tmp_path / "actor.npz"), source, "--out", str(tmp_path / "x.zip")])
    assert "the first source must be a model" in capsys.readouterr().err
    key = numpy_policy.PARAMETERS[-1]
    np.savez(tmp_path / "wide.npz", **{**weights, key: np.zeros((7, *weights[key].shape[1:]), np.float32)})
    with pytest.raises(SystemExit):
        export.main([source, str(tmp_path / "wide.npz"), "--out", str(tmp_path / "x.zip")])
    assert f"its '{key}' has shape (7," in capsys.readouterr().err
    np.savez(tmp_path / "partial.npz", **{k: v for k, v in weights.items() if k != key})
    with pytest.raises(SystemExit):
        export.main([source, str(tmp_path / "partial.npz"), "--out", str(tmp_path / "x.zip")])
    assert f"lacks the policy weights {key}" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "x.zip")


def test_export_refuses_models_it_cannot_average(run, tmp_path, capsys):
    run_dir, _ = run
    wider = config.parse_args(["--run-dir", str(tmp_path), *TINY, "--channels", "8"])
    loop.new_model(pool_env.PoolVecEnv(wider), wider).save(tmp_path / "wider.zip")
    with pytest.raises(ValueError, match="differ in shape"):
        ppo.export_model([os.path.join(run_dir, "last.zip"), str(tmp_path / "wider.zip")], str(tmp_path / "x.zip"))
    with pytest.raises(ValueError, match="at least one model"):
        ppo.export_model([], str(tmp_path / "x.zip"))
    with pytest.raises(SystemExit):
        export.main([str(tmp_path / "missing.zip"), "--out", str(tmp_path / "x.zip")])
    assert "no model file at" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "x.zip")


def decision_views(agent, games: int) -> list:
    """Every view P1 decides from in ``games`` seeded eaai games of ``agent`` against simple (their match records
    included)."""
    out = []

    def record(v, rng):
        out.append(v)
        return agent.act(v, rng)

    for game in range(games):
        duel.play_game(Rules.preset("eaai"), (agents.CallableAgent(record), agents.load("simple")), 5, game)
    return out


def test_the_numpy_policy_acts_as_the_model_it_was_exported_from(run, tmp_path, capsys):
    """``gin-env export --numpy`` writes the actor's weights; numpy gives the torch policy's action distribution
    on every view of a few games (a network of another width than the shipped one), so it picks the same action."""
    run_dir, _ = run
    target, weights = str(tmp_path / "policy.zip"), str(tmp_path / "policy.npz")
    assert export.main([os.path.join(run_dir, "last.zip"), "--out", target, "--numpy", weights]) == 0
    assert capsys.readouterr().out == f"wrote {target}\nwrote {weights}\n"
    model, copy = ppo.load_model(target), numpy_policy.load_policy(weights)
    views = decision_views(model, 2)
    obs = np.stack([encode(v) for v in views])
    masks = np.stack([v.legal_mask for v in views])
    torch_logp = model.logits(obs, masks)
    own = np.where(masks, copy.logits(obs), -np.inf)
    own_logp = own - own.max(axis=1, keepdims=True)
    own_logp -= np.log(np.exp(own_logp).sum(axis=1, keepdims=True))
    assert np.allclose(np.where(masks, own_logp, 0.0), np.where(masks, torch_logp, 0.0), atol=1e-4)
    rng = np.random.default_rng(0)
    assert [copy.act(v, rng) for v in views] == [model.act(v, rng) for v in views]


def test_the_shipped_numpy_weights_are_the_shipped_models():
    """The search's guide (``ppo_gin_policy.npz``) holds the shipped model's actor, weight for weight: exporting
    the shipped model again must give the same arrays."""
    state = ppo.load_model(ppo.SHIPPED_MODEL).policy.state_dict()
    with np.load(numpy_policy.SHIPPED_WEIGHTS) as shipped:
        assert sorted(shipped.files) == sorted(numpy_policy.PARAMETERS)
        for key in numpy_policy.PARAMETERS:
            assert np.array_equal(shipped[key], state[key].numpy()), key


def test_shipped_model_loads_and_plays_legal_actions():
    agent = agents.load(ppo.SHIPPED_MODEL)
    assert isinstance(agent, ppo.PPOAgent) and agent.path == ppo.SHIPPED_MODEL
    rules = Rules.preset("eaai")
    for game in range(3):  # the engine raises on an illegal action
        duel.play_duplicate(rules, agent, agents.load("simple"), seed=11, game=game)


def test_evaluate_runs_a_model_in_worker_processes(run):
    # A forked worker used to deadlock in torch after the parent had loaded the model to check it.
    run_dir, _ = run
    report = evaluate([os.path.join(run_dir, "last.zip"), "simple"], Rules.preset("eaai"), "deals", 4,
                               seed=2, workers=2)
    assert report["pairs"][0]["games"] == 8
