"""The critic trained alone before PPO (``gin-env train --critic-alone-until``; docs/training.md, "A privileged
critic"): the model plays rollouts with the run's opponents and bookkeeping, only the layers the actor does not read
learn, and PPO goes on from the step it reached."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from gin_env.agents import ppo  # noqa: E402
from gin_env.training import checks, config, critic_alone, loop, widen  # noqa: E402
from tests.test_train_privileged import NO_CLONING  # noqa: E402


def _actor_and_critic(model) -> tuple[dict, dict]:
    """The model's parameters by name, split into those the actor reads and the others."""
    critic = {id(p) for p in critic_alone.critic_parameters(model.policy)}
    named = {name: p.detach().clone() for name, p in model.policy.named_parameters()}
    ids = {name: id(p) for name, p in model.policy.named_parameters()}
    return ({n: v for n, v in named.items() if ids[n] not in critic},
            {n: v for n, v in named.items() if ids[n] in critic})


def test_the_critics_parameters_leave_out_every_one_the_actor_reads(plain):
    model = ppo.read_model(plain, "the test")
    shared = {name for name, p in model.policy.named_parameters()
              if id(p) in {id(q) for q in critic_alone.critic_parameters(model.policy)}}
    # A shared features extractor is the actor's: only the value head and its hidden layer are the critic's own.
    assert shared and all(name.startswith(("mlp_extractor.value_net", "value_net")) for name in shared)
    widen.widen_to_privileged(model, _privileged_space())
    own = {name for name, p in model.policy.named_parameters()
           if id(p) in {id(q) for q in critic_alone.critic_parameters(model.policy)}}
    assert own == shared | {name for name, _ in model.policy.vf_features_extractor.named_parameters(
        prefix="vf_features_extractor")}


def _privileged_space():
    from gin_env.training.pool_env import PoolVecEnv

    return PoolVecEnv(config.parse_args(["--privileged-critic", *NO_CLONING])).observation_space


def test_the_critic_learns_alone_and_the_actor_does_not_move(plain, tmp_path, monkeypatch):
    start = ppo.read_model(plain, "the test")
    widen.widen_to_privileged(start, _privileged_space())
    actor_before, critic_before = _actor_and_critic(start)
    # PPO itself is left out, so the model is the one the critic-alone rollouts leave.
    monkeypatch.setattr(MaskablePPO, "learn", lambda self, *args, **kwargs: self)
    until = start.num_timesteps + 2048
    run_dir = str(tmp_path / "alone")
    model = loop.train(config.parse_args(["--total-timesteps", str(until + 1024), "--critic-alone-until", str(until),
                                          "--run-dir", run_dir, "--resume", plain, "--privileged-critic",
                                          *NO_CLONING]))
    assert model.num_timesteps >= until
    actor, critic = _actor_and_critic(model)
    assert actor.keys() == actor_before.keys() and critic.keys() == critic_before.keys()
    assert all(torch.equal(actor[name], actor_before[name]) for name in actor)
    assert all(not torch.equal(critic[name], critic_before[name]) for name in critic)
    # The critic now reads the hidden planes, widened in at weight 0.
    assert model.policy.vf_features_extractor.runs.weight[:, -2:].abs().sum().item() > 0
    # Its books were kept as PPO's are: a tally per rollout, and the checkpoint.
    history = ppo.read_model(os.path.join(run_dir, "last.zip"), "the test").num_timesteps
    assert history == model.num_timesteps


def test_ppo_goes_on_from_where_the_critic_stopped(plain, tmp_path, capsys):
    start = ppo.read_model(plain, "the test").num_timesteps
    until, total = start + 1024, start + 2048
    model = loop.train(config.parse_args(["--total-timesteps", str(total), "--critic-alone-until", str(until),
                                          "--run-dir", str(tmp_path / "run"), "--resume", plain, *NO_CLONING]))
    assert model.num_timesteps >= total
    # Resumed past the mark, the critic does not train alone again, and says so.
    loop.train(config.parse_args(["--total-timesteps", str(model.num_timesteps + 1024), "--critic-alone-until",
                                  str(until), "--run-dir", str(tmp_path / "run"), "--resume",
                                  str(tmp_path / "run" / "last.zip"), *NO_CLONING]))
    assert "the critic does not train alone" in capsys.readouterr().out


@pytest.mark.parametrize(("extra", "message"), [
    (["--total-timesteps", "2048", "--critic-alone-until", "2048"], "must be below --total-timesteps"),
    (["--total-timesteps", "0", "--critic-alone-until", "10"], "must be below --total-timesteps"),
    (["--critic-alone-until", "-1"], "--critic-alone-until must be"),
    (["--critic-alone-lr", "0"], "--critic-alone-lr must be"),
])
def test_misuse_is_refused_before_anything_is_written(tmp_path, extra, message):
    run_dir = str(tmp_path / "refused")
    with pytest.raises(ValueError, match=message):
        checks.check_args(config.parse_args([*NO_CLONING, *extra, "--run-dir", run_dir]))
    assert not os.path.exists(run_dir)
