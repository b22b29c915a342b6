"""Gin Rummy agents behind one protocol, and :func:`load`, which turns a name or a model path into an agent.

This folder installs as ``gin_env.agents`` (``from gin_env import agents``); the distribution claims no other
top-level import name.

An agent maps what one player may know (a :class:`gin_env.observation.PlayerView`) to a legal action id. Agents
never see the engine state, so an agent cannot cheat by construction. An agent that decides from the legal actions
alone may also have ``act_on_mask(legal_mask, rng) -> action``, the same choice as ``act`` from ``view.legal_mask``:
``GinRummy-v0`` then calls it and builds no view for that agent (``random`` has it). Built-in names:

* ``random``: a uniformly random legal action;
* ``simple``: the EAAI SimpleGinRummyPlayer (``agents.simple``);
* ``expert``: the strongest heuristic (``agents.expert``);
* ``search``: determinized Monte Carlo search over the batched engine, on a policy network run in numpy
  (``agents.search``);
* ``ppo``: the MaskablePPO policy shipped with the package (``agents.ppo``, trained by ``train.py``).

A path to a ``.zip`` saved by sb3-contrib's ``MaskablePPO`` loads as a :class:`agents.ppo.PPOAgent` (sb3-contrib is
imported only then), a path to a ``.pt`` policy file exported by ``train_rllib.py`` as a
:class:`agents.torch_policy.TorchPolicyAgent` (torch only, no Ray), and ``package.module:attr`` plugs in any
strategy without editing this package: ``attr`` is an agent class (made with no arguments), an agent instance, or
a function ``(view, rng) -> action``.
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
    "search": "gin_env.agents.search:SearchAgent",
    "ppo": "gin_env.agents.ppo:shipped",
}


class CallableAgent:
    """Adapts a plain function ``fn(view, rng) -> action`` to the :class:`Agent` protocol."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def act(self, view: PlayerView, rng: np.random.Generator) -> int:
        return self.fn(view, rng)

    def __repr__(self) -> str:
        return f"CallableAgent({self.fn!r})"


def as_agent(obj, what: str = "agent") -> Agent:
    """``obj`` as an :class:`Agent`: an agent class is made with no arguments, an object with ``act`` is kept, a
    function ``(view, rng) -> action`` is wrapped; ``TypeError`` (naming ``what``) for anything else."""
    if isinstance(obj, type):
        if not callable(getattr(obj, "act", None)):
            raise TypeError(f"{what}: class {obj.__qualname__} has no act(view, rng) method")
        try:
            return obj()
        except TypeError as err:
            raise TypeError(f"{what}: class {obj.__qualname__} must be made with no arguments: {err}") from None
    if callable(getattr(obj, "act", None)):
        return obj
    if callable(obj):
        return CallableAgent(obj)
    raise TypeError(f"{what} must be an agent name, an Agent or a callable(view, rng), got {obj!r}")


def resolve(obj, what: str = "agent") -> Agent:
    """An agent from a name, model path or ``module:attr`` (:func:`load`), an Agent class or object, or a callable
    ``(view, rng) -> action`` (:func:`as_agent`); ``what`` names the argument in errors."""
    return load(obj) if isinstance(obj, str) else as_agent(obj, what)


def from_import_path(spec: str) -> Agent:
    """The agent named by ``package.module:attr`` (see :func:`as_agent` for what ``attr`` may be); ``ValueError``
    naming the spec when the module cannot be imported, lacks the attribute, or the attribute is no agent."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"agent {spec!r}: write module:attr, e.g. mypackage.players:MyAgent")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"agent {spec!r}: cannot import {module_name!r}: {err}") from None
    target = module
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ValueError(f"agent {spec!r}: module {module_name!r} has no attribute {attr!r}") from None
    try:
        return as_agent(target, f"agent {spec!r}")
    except TypeError as err:
        raise ValueError(str(err)) from None


#: File name endings that make :func:`load` read a name as a model file.
MODEL_SUFFIXES = (".zip", ".pt")


def names() -> list[str]:
    """Names :func:`load` accepts now."""
    return sorted(AGENTS)


def is_path(name: str) -> bool:
    """Whether :func:`load` reads ``name`` as a model file rather than an agent name or ``module:attr``."""
    return name.endswith(MODEL_SUFFIXES) or os.sep in name or (os.altsep is not None and os.altsep in name)


def load(name_or_path: str | os.PathLike) -> Agent:
    """The agent called ``name_or_path`` (see :data:`AGENTS`), the policy saved at that path (a MaskablePPO
    ``.zip``, or a ``.pt`` policy file of ``train_rllib.py``), or the agent named by ``module:attr``
    (:func:`from_import_path`).

    Raises ``ValueError`` for an unknown name, a file that is not a model of this env or a ``module:attr`` that does
    not import or is no agent, and ``FileNotFoundError`` for a missing model file."""
    if isinstance(name_or_path, os.PathLike) or is_path(str(name_or_path)):
        path = os.fspath(name_or_path)
        if path.endswith(".pt"):
            from gin_env.agents.torch_policy import load_policy

            return load_policy(path)
        from gin_env.agents.ppo import load_model

        return load_model(path)
    name = str(name_or_path)
    if name in AGENTS:
        module, cls = AGENTS[name].split(":")
        return getattr(importlib.import_module(module), cls)()
    if ":" in name:
        return from_import_path(name)
    raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(names())}, a path to a MaskablePPO .zip "
                     "or a train_rllib.py .pt, or module:attr")
