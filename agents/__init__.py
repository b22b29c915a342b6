"""Gin Rummy agents behind one protocol, and :func:`load`, which turns a name or a model path into an agent.

An agent maps what one player may know (a :class:`gin_env.observation.PlayerView`) to a legal action id. Agents
never see the engine state, so an agent cannot cheat by construction. Built-in names:

* ``random``: a uniformly random legal action;
* ``simple``: the EAAI SimpleGinRummyPlayer (``agents.simple``);
* ``expert``: the strongest heuristic (``agents.expert``);
* ``ppo``: reserved for the shipped MaskablePPO policy; it raises a clear error until it is shipped.

A path to a ``.zip`` saved by sb3-contrib's ``MaskablePPO`` loads as a policy agent (sb3-contrib is imported only
then).
"""

from __future__ import annotations

import importlib
import os
import zipfile
from typing import Protocol, runtime_checkable

import numpy as np

from gin_env.actions import N_ACTIONS
from gin_env.observation import OBS_SIZE, PlayerView, encode


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(view, rng) -> action id``; the action must be legal in ``view.legal_mask``."""

    def act(self, view: PlayerView, rng: np.random.Generator) -> int: ...


#: Built-in agents: name -> "module:class", imported on demand so loading one never imports the others.
AGENTS = {
    "random": "agents.random_agent:RandomAgent",
    "simple": "agents.simple:SimpleAgent",
    "expert": "agents.expert:ExpertAgent",
}
#: Names reserved for agents that are not part of the package yet. Adding one means moving it into AGENTS.
PLANNED = {
    "ppo": "the shipped MaskablePPO policy arrives with the training issue; pass a path to a model .zip instead",
}


def names() -> list[str]:
    """Names :func:`load` accepts now."""
    return sorted(AGENTS)


def _looks_like_path(name: str) -> bool:
    return name.endswith(".zip") or os.sep in name or (os.altsep is not None and os.altsep in name)


def load(name_or_path: str | os.PathLike) -> Agent:
    """The agent called ``name_or_path`` (see :data:`AGENTS`), or the MaskablePPO policy saved at that path.

    Raises ``ValueError`` for an unknown name or a file that is not a MaskablePPO model, ``NotImplementedError`` for a
    reserved name whose agent is not available yet, and ``FileNotFoundError`` for a missing model file."""
    if isinstance(name_or_path, os.PathLike) or _looks_like_path(str(name_or_path)):
        return _load_model(os.fspath(name_or_path))
    name = str(name_or_path)
    if name in AGENTS:
        module, cls = AGENTS[name].split(":")
        return getattr(importlib.import_module(module), cls)()
    if name in PLANNED:
        raise NotImplementedError(f"agent {name!r} is not available yet: {PLANNED[name]}")
    raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(names())}, or a path to a MaskablePPO .zip")


class PolicyAgent:
    """A trained MaskablePPO policy acting greedily on the encoded view, restricted to legal actions."""

    def __init__(self, model, path: str) -> None:
        self.model = model
        self.path = path

    def act(self, view: PlayerView, rng: np.random.Generator) -> int:
        action, _ = self.model.predict(encode(view), action_masks=view.legal_mask, deterministic=True)
        return int(action)

    def __repr__(self) -> str:
        return f"PolicyAgent({self.path!r})"


def _load_model(path: str) -> PolicyAgent:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no model file at {path!r}")
    # Checked before importing sb3-contrib (and torch): a clear error for a corrupt file, and a fast one.
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path!r} is not a model: MaskablePPO models are .zip archives saved by model.save()")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as err:
        raise ImportError("loading a model needs sb3-contrib: pip install 'gin-env[train]'") from err
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as err:  # SB3 raises many types on a bad archive; the caller needs one clear message
        raise ValueError(f"{path!r} could not be loaded as a MaskablePPO model: {err}") from err
    obs_shape, n_actions = model.observation_space.shape, getattr(model.action_space, "n", None)
    if obs_shape != (OBS_SIZE,) or n_actions != N_ACTIONS:
        raise ValueError(f"{path!r} is a MaskablePPO model for another env: it takes observations of shape "
                         f"{obs_shape} and {n_actions} actions; GinRummy-v0 has ({OBS_SIZE},) and {N_ACTIONS}")
    return PolicyAgent(model, path)
