"""Gin Rummy agents behind one protocol, and :func:`load`, which turns a name or a model path into an agent.

This folder installs as ``gin_env.agents`` (``from gin_env import agents``); the distribution claims no other
top-level import name.

An agent maps what one player may know (a :class:`gin_env.observation.PlayerView`) to a legal action id. Agents
never see the engine state, so an agent cannot cheat by construction. Built-in names:

* ``random``: a uniformly random legal action;
* ``simple``: the EAAI SimpleGinRummyPlayer (``agents.simple``);
* ``expert``: the strongest heuristic (``agents.expert``);
* ``ppo``: the MaskablePPO policy shipped with the package (``agents.ppo``, trained by ``train.py``).

A path to a ``.zip`` saved by sb3-contrib's ``MaskablePPO`` loads as a :class:`agents.ppo.PPOAgent` (sb3-contrib is
imported only then).
"""

from __future__ import annotations

import importlib
import os
from typing import Protocol, runtime_checkable

import numpy as np

from gin_env.observation import PlayerView


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(view, rng) -> action id``; the action must be legal in ``view.legal_mask``."""

    def act(self, view: PlayerView, rng: np.random.Generator) -> int: ...


#: Built-in agents: name -> "module:factory" (a class or function called with no arguments), imported on demand so
#: loading one never imports the others.
AGENTS = {
    "random": "gin_env.agents.random_agent:RandomAgent",
    "simple": "gin_env.agents.simple:SimpleAgent",
    "expert": "gin_env.agents.expert:ExpertAgent",
    "ppo": "gin_env.agents.ppo:shipped",
}
#: Names reserved for agents that are not part of the package yet. Adding one means moving it into AGENTS.
PLANNED: dict[str, str] = {}


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
        from gin_env.agents.ppo import load_model

        return load_model(os.fspath(name_or_path))
    name = str(name_or_path)
    if name in AGENTS:
        module, cls = AGENTS[name].split(":")
        return getattr(importlib.import_module(module), cls)()
    if name in PLANNED:
        raise NotImplementedError(f"agent {name!r} is not available yet: {PLANNED[name]}")
    raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(names())}, or a path to a MaskablePPO .zip")
