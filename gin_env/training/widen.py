"""A ``--resume`` model widened to what the run's env gives: the match record (``--match-record``), a game with
jokers (``--rules jokers``, docs/rules.md section 17), and what no player sees for a privileged critic
(``--privileged-critic``).

The record's entries come after the observation's (``RECORD_OBS_LAYOUT``), and the only layer that reads the
scalar entries is each features extractor's summary layer (``agents.networks.CardFeatures``): it gains one input
column per record entry, with weight 0. What no player sees comes last (``PRIVILEGED_PLANES``); the critic gets
its own copy of the features extractor, whose two card convolutions gain an input plane for each, with weight 0,
and the actor's extractor skips them. Either way the widened model picks every action it picked before and values
every position as before; PPO (or cloning) then learns what the new inputs are worth. Adam's moments start afresh:
the old ones belong to the old shapes. Jokers add R72's seven counts after the view's scalars (and the record), so
the summary layers gain seven columns of weight 0, and the two joker actions (``DISCARD(JK)``, ``KNOCK(JK)``) a layer
of their own in the action head (``CardActionHead.joker_out``), weight and bias 0: their logits start at 0, and
every other action keeps its logit.
"""

from __future__ import annotations

import os

import numpy as np

from gin_env.agents.model_archive import layout_rules
from gin_env.game.observation import (
    OBS_SIZE,
    PRIVILEGED_PLANES,
    PRIVILEGED_SIZE,
    RECORD_OBS_SIZE,
    obs_size,
    observation_parts,
)
from gin_env.optional import require

#: The action head's layer of the joker actions, by its torch name in a policy.
JOKER_OUT = "action_net.joker_out"


def reads(model) -> int:
    """The entries of the observation ``model`` reads: ``OBS_SIZE``, or ``RECORD_OBS_SIZE`` with the record, and
    ``PRIVILEGED_SIZE`` more with a privileged critic."""
    return int(np.prod(model.observation_space.shape))


def layout(obs_entries: int, n_actions: int) -> tuple[bool, bool, bool]:
    """What a model of these spaces reads: ``(jokers, match_record, privileged)``; ``ValueError`` for spaces of no
    GinRummy-v0 layout."""
    rules = layout_rules(n_actions)
    return (rules is not None, *observation_parts(obs_entries, rules))


def model_layout(model) -> tuple[bool, bool, bool]:
    """:func:`layout` of a loaded model."""
    return layout(reads(model), int(model.action_space.n))


def widen_to_jokers(model, observation_space, action_space) -> None:
    """Widen ``model`` (a MaskablePPO model of :class:`agents.networks.CardPolicy` of the standard game, with or
    without the match record, without a privileged critic) in place to a game with jokers: ``observation_space`` is
    its observation and R72's counts, ``action_space`` the 110 actions; the new inputs and actions weighted 0."""
    torch = require("torch", "training")
    grown = observation_space.shape[0] - reads(model)
    if model_layout(model)[0] or model_layout(model)[2] or not layout(observation_space.shape[0], action_space.n)[0]:
        raise ValueError(f"only a model of the standard game without a privileged critic widens to jokers; this one "
                         f"reads {reads(model)} and the env gives {observation_space.shape} and {action_space}")
    old = model.policy.state_dict()
    policy = model.policy_class(observation_space, action_space, model.lr_schedule, **model.policy_kwargs)
    state = policy.state_dict()
    for key in state:
        if key.startswith(JOKER_OUT):
            state[key] = torch.zeros_like(state[key])
        elif key.endswith("summary.0.weight"):
            state[key] = torch.cat([old[key], torch.zeros_like(old[key][:, :grown])], dim=1)
        else:
            state[key] = old[key]
    policy.load_state_dict(state)
    model.policy = policy.to(model.device)
    model.observation_space, model.action_space = observation_space, action_space


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
    return model_layout(model)[2]


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


def widened_copy(source: str, observation_space, action_space, folder: str) -> str:
    """The model at ``source`` widened to the env's ``observation_space`` and ``action_space`` (:func:`widen_to_record`,
    :func:`widen_to_jokers`, then :func:`widen_to_privileged`, as the spaces need) and saved in ``folder``; its
    path."""
    from gymnasium.spaces import Box

    from gin_env.agents.model_archive import load

    model = load(source, "training", device="cpu")
    jokers, record, privileged = layout(observation_space.shape[0], action_space.n)
    rules = layout_rules(action_space.n)
    if record and not model_layout(model)[1]:
        view = obs_size(match_record=True)
        widen_to_record(model, Box(observation_space.low[:view], observation_space.high[:view]))
    if jokers and not model_layout(model)[0]:
        view = obs_size(record, rules=rules)
        widen_to_jokers(model, Box(observation_space.low[:view], observation_space.high[:view]), action_space)
    if privileged and not is_privileged(model):
        widen_to_privileged(model, observation_space)
    target = os.path.join(folder, "widened.zip")
    model.save(target)
    return target
