"""The critic trained alone, the actor fixed, before PPO moves the actor (``gin-env train --critic-alone-until``).

A critic that has just been given new inputs (``--privileged-critic`` or ``--match-record`` on a ``--resume``
model, their weights 0) knows nothing of them yet, and at PPO's learning rate it learns them slowly while its noisy
advantages steer the actor. Here the model plays as PPO would, rollout by rollout, against the run's opponents and
with its bookkeeping (the same callback: tallies, checkpoints, evaluations); after each rollout only the layers the
actor does not read are fitted to the rollout's returns, by their own Adam at ``--critic-alone-lr``. The steps count
as the run's: the model reaches ``--critic-alone-until`` steps, and PPO goes on from there.
"""

from __future__ import annotations

import numpy as np

from gin_env.optional import require
from gin_env.training.config import Args

torch = require("torch", "training")
explained_variance = require("stable_baselines3.common.utils", "training").explained_variance


def critic_parameters(policy) -> list:
    """The parameters of ``policy`` (an SB3 actor-critic policy) that the actor does not read: the value head, its
    hidden layer, and the critic's features extractor when it has one of its own (a shared one is the actor's)."""
    actor = {id(parameter) for module in (policy.pi_features_extractor, policy.mlp_extractor.policy_net,
                                          policy.action_net) for parameter in module.parameters()}
    return [parameter for parameter in policy.parameters() if id(parameter) not in actor]


def fit_critic(model, optimizer) -> tuple[float, float]:
    """``model.n_epochs`` passes over the rollout in ``model.rollout_buffer`` in minibatches of
    ``model.batch_size``, each step moving the critic's parameters (``optimizer``'s) toward the rollout's returns.
    Returns the mean squared error of the passes and the explained variance of the values the rollout was played
    with, as PPO reports them."""
    policy = model.policy
    parameters = [parameter for group in optimizer.param_groups for parameter in group["params"]]
    policy.set_training_mode(True)
    losses = []
    for _ in range(model.n_epochs):
        for batch in model.rollout_buffer.get(model.batch_size):
            values = policy.predict_values(batch.observations).flatten()
            loss = torch.nn.functional.mse_loss(values, batch.returns)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(parameters, model.max_grad_norm)
            optimizer.step()
            losses.append(loss.item())
    policy.set_training_mode(False)
    buffer = model.rollout_buffer
    return float(np.mean(losses)), float(explained_variance(buffer.values.flatten(), buffer.returns.flatten()))


def train_critic_alone(model, callback, args: Args) -> None:
    """Play and fit the critic alone (:func:`fit_critic`) rollout by rollout until ``model`` is at
    ``args.critic_alone_until`` steps, with ``callback`` keeping the run's books as during ``learn``; the actor's
    weights stay as they were. Logs each rollout's value loss and explained variance where PPO logs its own."""
    end = args.critic_alone_until
    _, callback = model._setup_learn(end - model.num_timesteps, callback, reset_num_timesteps=False,
                                     tb_log_name="ppo")
    optimizer = torch.optim.Adam(critic_parameters(model.policy), lr=args.critic_alone_lr)
    callback.on_training_start(locals(), globals())
    while model.num_timesteps < end:
        if not model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps):
            break
        loss, explained = fit_critic(model, optimizer)
        model.logger.record("train/value_loss", loss)
        model.logger.record("train/explained_variance", explained)
        model.logger.record("train/critic_alone", 1)
        model.logger.dump(model.num_timesteps)
    callback.on_training_end()
