"""A model that reads the observation, widened to read the match record too (``--match-record`` on a ``--resume``
model trained without it).

The record's entries come after the observation's (``RECORD_OBS_LAYOUT``), and the only layer that reads the
scalar entries is each features extractor's summary layer (``agents.networks.CardFeatures``): it gains one input
column per record entry, with weight 0, so the widened model picks every action it picked before, and PPO (or
cloning) then learns what the record is worth. Adam's moments start afresh: the old ones belong to the old shapes.
"""

from __future__ import annotations

import os

import numpy as np

from gin_env.game.observation import OBS_SIZE, RECORD_OBS_SIZE
from gin_env.optional import require


def reads(model) -> int:
    """The entries of the observation ``model`` reads: ``OBS_SIZE``, or ``RECORD_OBS_SIZE`` with the record."""
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


def widened_copy(source: str, observation_space, folder: str) -> str:
    """The model at ``source`` widened (:func:`widen_to_record`) and saved in ``folder``; its path."""
    from gin_env.agents.ppo import custom_objects_for

    maskable_ppo = require("sb3_contrib", "training").MaskablePPO
    model = maskable_ppo.load(source, device="cpu", custom_objects=custom_objects_for(source))
    widen_to_record(model, observation_space)
    target = os.path.join(folder, "widened.zip")
    model.save(target)
    return target
