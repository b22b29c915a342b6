"""A ``--resume`` model widened to what the run's env gives: the match record (``--match-record``), and what no
player sees for a privileged critic (``--privileged-critic``).

The record's entries come after the observation's (``RECORD_OBS_LAYOUT``), and the only layer that reads the
scalar entries is each features extractor's summary layer (``agents.networks.CardFeatures``): it gains one input
column per record entry, with weight 0. What no player sees comes last (``PRIVILEGED_PLANES``); the critic gets
its own copy of the features extractor, whose two card convolutions gain an input plane for each, with weight 0,
and the actor's extractor skips them. Either way the widened model picks every action it picked before and values
every position as before; PPO (or cloning) then learns what the new inputs are worth. Adam's moments start afresh:
the old ones belong to the old shapes.
"""

from __future__ import annotations

import os

import numpy as np

from gin_env.game.observation import (
    OBS_SIZE,
    PRIVILEGED_PLANES,
    PRIVILEGED_SIZE,
    RECORD_OBS_SIZE,
    obs_size,
    observation_parts,
)
from gin_env.optional import require


def reads(model) -> int:
    """The entries of the observation ``model`` reads: ``OBS_SIZE``, or ``RECORD_OBS_SIZE`` with the record, and
    ``PRIVILEGED_SIZE`` more with a privileged critic."""
    return int(np.prod(model.observation_space.shape))


def widen_to_record(model, observation_space) -> None:
    """Widen ``model`` (a MaskablePPO model of :class:`agents.networks.CardPolicy` reading ``OBS_SIZE`` entries) in
    place to read ``observation_space`` (``RECORD_OBS_SIZE`` entries), the new inputs weighted 0."""
    torch = require("torch", "training")
    if reads(model) != OBS_SIZE or observation_space.shape != (RECORD_OBS_SIZE,):
        raise ValueError(f"only a model of {OBS_SIZE} inputs widens, to {RECORD_OBS_SIZE}; this one reads "
                         f"{reads(model)} and the env gives {observation_space.shape}")
    policy = model.policy
    # Actor and critic may share one extractor: each distinct one is widened once.
    extractors = {id(e): e for e in (policy.features_extractor, policy.pi_features_extractor,
                                     policy.vf_features_extractor)}
    for extractor in extractors.values():
        old = extractor.summary[0]
        new = torch.nn.Linear(old.in_features + RECORD_OBS_SIZE - OBS_SIZE, old.out_features)
        with torch.no_grad():
            new.weight.zero_()
            new.weight[:, :old.in_features] = old.weight
            new.bias.copy_(old.bias)
        extractor.summary[0] = new.to(old.weight.device)
    model.observation_space = policy.observation_space = observation_space
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.lr_schedule(1),
                                              **policy.optimizer_kwargs)


def is_privileged(model) -> bool:
    """Whether ``model``'s critic reads what no player sees (``--privileged-critic``)."""
    return observation_parts(reads(model))[1]


def widen_to_privileged(model, observation_space) -> None:
    """Give ``model`` (a MaskablePPO model of :class:`agents.networks.CardPolicy` without a privileged critic) in
    place a critic that reads ``observation_space``'s last ``PRIVILEGED_SIZE`` entries (``PRIVILEGED_PLANES``): the
    critic's own features extractor, copied from the one it had, its new input planes weighted 0."""
    torch = require("torch", "training")
    if is_privileged(model) or observation_space.shape != (reads(model) + PRIVILEGED_SIZE,):
        raise ValueError(f"only a model without a privileged critic widens, by {PRIVILEGED_SIZE} entries; this one "
                         f"reads {reads(model)} and the env gives {observation_space.shape}")
    old = model.policy.state_dict()
    kwargs = dict(model.policy_kwargs)
    kwargs["features_extractor_kwargs"] = {**kwargs.get("features_extractor_kwargs", {}), "privileged": True}
    policy = model.policy_class(observation_space, model.action_space, model.lr_schedule, **kwargs)
    state = policy.state_dict()
    for key in state:
        weight = old[key]
        if key in ("vf_features_extractor.runs.weight", "vf_features_extractor.sets.weight"):
            # (out, planes, h, w): the new planes come last, as CardFeatures stacks them.
            weight = torch.cat([weight, torch.zeros_like(weight[:, :len(PRIVILEGED_PLANES)])], dim=1)
        state[key] = weight
    policy.load_state_dict(state)
    model.policy, model.policy_kwargs = policy.to(model.device), kwargs
    model.observation_space = observation_space


def widened_copy(source: str, observation_space, folder: str) -> str:
    """The model at ``source`` widened to ``observation_space`` (:func:`widen_to_record`, then
    :func:`widen_to_privileged`, as the space needs) and saved in ``folder``; its path."""
    from gymnasium.spaces import Box

    from gin_env.agents.model_archive import load

    model = load(source, "training", device="cpu")
    record, privileged = observation_parts(observation_space.shape[0])
    if record and not observation_parts(reads(model))[0]:
        view = obs_size(match_record=True)
        widen_to_record(model, Box(observation_space.low[:view], observation_space.high[:view]))
    if privileged and not is_privileged(model):
        widen_to_privileged(model, observation_space)
    target = os.path.join(folder, "widened.zip")
    model.save(target)
    return target
