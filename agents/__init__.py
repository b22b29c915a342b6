"""Gin Rummy agents behind one protocol, and :func:`load`, which turns a name or a model path into an agent.

This folder installs as ``gin_env.agents`` (``from gin_env import agents``); the distribution claims no other
top-level import name.

An agent maps what one player may know (a :class:`gin_env.game.observation.PlayerView`) to a legal action id. Agents
never see the engine state, so an agent cannot cheat by construction. An agent that decides from the legal actions
alone may also have ``act_on_mask(legal_mask, rng) -> action``, the same choice as ``act`` from ``view.legal_mask``:
``GinRummy-v0`` then calls it and builds no view for that agent (``random`` has it).

Built-in agents have versioned names; the plain name loads the newest version, and a version goes up whenever an
agent's play changes (docs/agents.md gives each version's strength):

* ``random-v1``: a uniformly random legal action;
* ``simple-v1``: the EAAI SimpleGinRummyPlayer (``agents.simple``);
* ``expert-v2``: the strongest heuristic (``agents.expert``), racing for gin once it waits for it; ``expert-v1``
  is the same without the race (``ExpertParams(gin_weight=0)``);
* ``search-v2``: determinized Monte Carlo search over the batched engine, on the ``ppo-expert`` network run in
  numpy (``agents.search``); ``search-v1`` is the search the expert guides;
* ``ppo-v5``: the MaskablePPO policy shipped with the package (trained by ``train.py``, the fifth network shipped
  under this name), its actor run in numpy (``agents.numpy_policy``), so a core install without torch plays it;
* ``ppo-expert-v1``: the same network fine-tuned mostly against the expert, in numpy: the search's default guide;
* ``ppo-jokers-v1``: ``ppo-v5`` fine-tuned under the ``jokers`` preset, in numpy: the search's guide there;
* ``exit-v1``: generation 1 of expert iteration (``experiments/iterate.py``) from ``ppo-expert-v1``, in numpy;
* ``switch-v1``: ``ppo-v5`` against an opponent the match record shows knocking early, ``exit-v1`` otherwise
  (``agents.switch``);
* ``knocker-v1``, ``early-knocker-v1``, ``gin-hunter-v1``, ``undercutter-v1``: the expert's play in one knocking
  style each (``agents.styles``), the opponents of the evaluation's gauntlet.

An agent loaded by a built-in name carries its versioned name in ``agent.name`` (``load("expert").name ==
"expert-v2"``).

A path to a ``.zip`` saved by sb3-contrib's ``MaskablePPO`` loads as a :class:`agents.ppo.PPOAgent` (sb3-contrib and
torch are imported only then), a path to a ``.pt`` policy file exported by ``train_rllib.py`` as a
:class:`agents.torch_policy.TorchPolicyAgent` (torch only, no Ray), a path to actor weights (``.npz``,
``gin-env export --numpy``) as a :class:`agents.numpy_policy.NumpyPolicyAgent` (numpy only), and
``NAME[key=value,...]`` makes a built-in agent with parameters (``search[samples=8,guide=W.npz]``, for agents whose
maker takes them: :func:`with_parameters`), and ``package.module:attr`` plugs in any strategy without editing this
package: ``attr`` is an agent class (made with
no arguments), an agent instance, or a function ``(view, rng) -> action``. Whatever goes wrong with a plug-in (its
module does not import or raises while importing, its class's constructor raises, the attribute is no agent) is a
``ValueError`` naming the spec.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from typing import Protocol, runtime_checkable

import numpy as np

from gin_env.agents import plugins, run_folders
from gin_env.arguments import did_you_mean
from gin_env.game.observation import PlayerView


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(view, rng) -> action id``; the action must be legal in ``view.legal_mask``."""

    def act(self, view: PlayerView, rng: np.random.Generator) -> int: ...


#: Built-in agents: versioned name -> "module:factory" (a class or function called with no arguments), imported on
#: demand so loading one never imports the others.
VERSIONS = {
    "random-v1": "gin_env.agents.random_agent:RandomAgent",
    "simple-v1": "gin_env.agents.simple:SimpleAgent",
    "expert-v1": "gin_env.agents:expert_without_race",
    "expert-v2": "gin_env.agents.expert:ExpertAgent",
    "search-v1": "gin_env.agents:search_guided_by_expert",
    "search-v2": "gin_env.agents.search:SearchAgent",
    "ppo-v5": "gin_env.agents.numpy_policy:shipped",
    "ppo-expert-v1": "gin_env.agents.numpy_policy:shipped_expert_tuned",
    "exit-v1": "gin_env.agents.numpy_policy:shipped_exit",
    "ppo-jokers-v1": "gin_env.agents.numpy_policy:shipped_jokers",
    "switch-v1": "gin_env.agents.switch:SwitchAgent",
    "knocker-v1": "gin_env.agents.styles:knocker",
    "early-knocker-v1": "gin_env.agents.styles:early_knocker",
    "gin-hunter-v1": "gin_env.agents.styles:gin_hunter",
    "undercutter-v1": "gin_env.agents.styles:undercutter",
}

_VERSIONED = re.compile(r"^(?P<base>[a-z][a-z-]*)-v(?P<number>\d+)$")
#: A built-in agent with parameters: ``search[samples=64,guide=runs/exit/gen-1/network.npz]``.
_WITH_PARAMETERS = re.compile(r"^(?P<base>[a-z][a-z0-9-]*)\[(?P<parameters>[^\[\]]*)\]$")


def _newest() -> dict[str, str]:
    """Each plain name with its newest versioned name."""
    newest: dict[str, tuple[int, str]] = {}
    for versioned in VERSIONS:
        match = _VERSIONED.match(versioned)
        number = int(match["number"])
        if number > newest.get(match["base"], (0, ""))[0]:
            newest[match["base"]] = (number, versioned)
    return {base: versioned for base, (_, versioned) in newest.items()}


#: Built-in agents by plain name: each loads its newest version (:data:`VERSIONS`).
AGENTS = {base: VERSIONS[versioned] for base, versioned in _newest().items()}


def expert_without_race():
    """``expert-v1``: the expert without its race for gin, against which ``expert-v2`` was measured."""
    from gin_env.agents.expert import ExpertAgent, ExpertParams

    return ExpertAgent(ExpertParams(gin_weight=0.0))


def search_guided_by_expert():
    """``search-v1``: the expert proposes its best discard and makes the draws, simple plays 192 rollouts a
    decision, and the best mean wins."""
    from gin_env.agents.search import SearchAgent

    return SearchAgent(guide="expert", samples=192, discards=1, margin=0, trust=None, jokers_guide="expert")


class CallableAgent:
    """Adapts a plain function ``fn(view, rng) -> action`` to the :class:`Agent` protocol."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def act(self, view: PlayerView, rng: np.random.Generator) -> int:
        return self.fn(view, rng)

    def __repr__(self) -> str:
        return f"CallableAgent({self.fn!r})"


class NotAnAgent(TypeError):
    """What :func:`as_agent` raises for an object that is no agent (not what an agent's constructor raises)."""


def as_agent(obj, what: str = "agent") -> Agent:
    """``obj`` as an :class:`Agent`: an agent class is made with no arguments, an object with ``act`` is kept, a
    function ``(view, rng) -> action`` is wrapped; :class:`NotAnAgent` (a ``TypeError`` naming ``what``) for anything
    else, and for a class or function whose signature does not fit. What an agent class's constructor raises goes
    through unchanged."""
    if isinstance(obj, type):
        if not callable(getattr(obj, "act", None)):
            raise NotAnAgent(f"{what}: class {obj.__qualname__} has no act(view, rng) method")
        _check_signature(obj, 0, f"{what}: class {obj.__qualname__} must be made with no arguments")
        return obj()
    if callable(getattr(obj, "act", None)):
        return obj
    if callable(obj):
        _check_signature(obj, 2, f"{what}: function {getattr(obj, '__qualname__', obj)!r} must take (view, rng)")
        return CallableAgent(obj)
    raise NotAnAgent(f"{what} must be an agent name, an Agent or a callable(view, rng), got {obj!r}")


def _check_signature(fn, n_args: int, message: str) -> None:
    """``NotAnAgent(message)`` unless ``fn`` can be called with ``n_args`` positional arguments; a callable whose
    signature Python cannot read (some built-ins) passes, and its first call tells."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*[None] * n_args)
    except TypeError as err:
        raise NotAnAgent(f"{message}: {err}") from None


def resolve(obj, what: str = "agent") -> Agent:
    """An agent from a name, model path or ``module:attr`` (:func:`load`), an Agent class or object, or a callable
    ``(view, rng) -> action`` (:func:`as_agent`); ``what`` names the argument in errors."""
    return load(obj) if isinstance(obj, str) else as_agent(obj, what)


def from_import_path(spec: str) -> Agent:
    """The agent named by ``package.module:attr`` (see :func:`as_agent` for what ``attr`` may be); ``ValueError``
    naming the spec for any failure of the plug-in: its module does not import (missing, a syntax error, an
    exception while it runs), it lacks the attribute, the attribute is no agent, or its class's constructor raises.
    ``KeyboardInterrupt`` and ``SystemExit`` go through."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"agent {spec!r}: write module:attr, e.g. mypackage.players:MyAgent")
    try:
        module = plugins.import_module(module_name)  # the current folder too, as ``python -m`` imports
    except Exception as err:  # a plug-in may raise anything while importing; the caller needs one type
        raise ValueError(f"agent {spec!r}: cannot import {module_name!r}: {_described(err)}") from err
    target = module
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ValueError(f"agent {spec!r}: module {module_name!r} has no attribute {attr!r}") from None
        except Exception as err:  # a module __getattr__ or a property may raise anything
            raise ValueError(f"agent {spec!r}: reading {attr!r} raised {_described(err)}") from err
    try:
        return as_agent(target, f"agent {spec!r}")
    except NotAnAgent as err:
        raise ValueError(str(err)) from None
    except Exception as err:  # the plug-in's constructor may raise anything
        raise ValueError(f"agent {spec!r}: making {attr}() raised {_described(err)}") from err


def _described(err: BaseException) -> str:
    """An exception as one line: its type and message (a ``SyntaxError`` names its file and line)."""
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


#: File name endings that make :func:`load` read a name as a model file.
MODEL_SUFFIXES = (".zip", ".pt", ".npz")


def names() -> list[str]:
    """The plain names :func:`load` accepts (each loads its newest version)."""
    return sorted(AGENTS)


def versioned_names() -> list[str]:
    """Every versioned name :func:`load` accepts, e.g. ``expert-v1``."""
    return sorted(VERSIONS)


def versioned(name: str) -> str:
    """The versioned name that ``name`` (plain or versioned, with or without parameters) loads; ``ValueError`` for
    no built-in agent."""
    spec = _WITH_PARAMETERS.match(name)
    if spec:
        return f"{versioned(spec['base'])}[{spec['parameters']}]"
    if name in VERSIONS:
        return name
    if name in AGENTS:
        return _newest()[name]
    raise ValueError(_unknown(name))


def _unknown(name: str) -> str:
    """The error for a name that is no built-in agent, listing the names that are (a known agent's unknown version
    lists that agent's versions first, another name the closest known one, if one is close)."""
    match = _VERSIONED.match(name)
    versions = [v for v in versioned_names() if match and _VERSIONED.match(v)["base"] == match["base"]]
    known = names() + versioned_names()
    hint = f"; {match['base']} has versions {', '.join(versions)}" if versions else did_you_mean(name, known)
    return (f"unknown agent {name!r}{hint}; known agents: {', '.join(names())} (the newest of each) or a version, "
            f"{', '.join(versioned_names())}, a path to a MaskablePPO .zip, a train_rllib.py .pt or actor weights "
            ".npz, or module:attr")


def is_path(name: str) -> bool:
    """Whether :func:`load` reads ``name`` as a model file rather than an agent name or ``module:attr``."""
    if _WITH_PARAMETERS.match(name):
        return False
    return name.endswith(MODEL_SUFFIXES) or os.sep in name or (os.altsep is not None and os.altsep in name)


def files_read(name: str) -> list[str]:
    """The files that loading the agent ``name`` reads, found without loading it: its model file, the model files
    among its parameters (``search[guide=W.npz]``), or the source file of a ``module:attr`` plug-in's module (found
    where import would find it, without running it). A command checks that it writes none of them."""
    if is_path(name):
        return [name]
    try:
        base, parameters = split_parameters(name)
    except ValueError:  # load() refuses the name in its own words
        return []
    if base != name:
        return [value for value in parameters.values() if isinstance(value, str) and is_path(value)]
    if ":" in name and name not in AGENTS and name not in VERSIONS:
        with plugins.current_folder_first():  # where from_import_path looks
            found = _module_file(name.partition(":")[0])
        return [found] if found else []
    return []


def _module_file(module_name: str) -> str | None:
    """The source file of module ``module_name``, looked up on ``sys.path`` without importing it (its packages
    neither), or None when there is no such file."""
    if module_name in sys.modules:
        return getattr(sys.modules[module_name], "__file__", None)
    parts, locations, spec = module_name.split("."), None, None
    for depth in range(1, len(parts) + 1):
        spec = _find_spec(".".join(parts[:depth]), locations)
        if spec is None or (depth < len(parts) and spec.submodule_search_locations is None):
            return None
        locations = spec.submodule_search_locations
    return spec.origin if spec.has_location else None


def _find_spec(full_name: str, locations):
    """The spec import would find for ``full_name`` inside ``locations`` (its package's path; None: ``sys.path``),
    asking the same finders in the same order, or None."""
    for finder in sys.meta_path:
        try:
            spec = finder.find_spec(full_name, locations)
        except (ImportError, ValueError, AttributeError):  # a malformed name, or a finder without find_spec
            return None
        if spec is not None:
            return spec
    return None


def load(name_or_path: str | os.PathLike) -> Agent:
    """The agent called ``name_or_path`` (a plain name of :data:`AGENTS` or a versioned one of :data:`VERSIONS`,
    which it keeps in ``agent.name``), the policy saved at that path (a MaskablePPO
    ``.zip``, a ``.pt`` policy file of ``train_rllib.py``, or actor weights for numpy, ``.npz``, as
    ``gin-env export --numpy`` writes them), or the agent named by ``module:attr`` (:func:`from_import_path`).

    Raises ``ValueError`` for an unknown name (with the closest known one), a folder (with the model files in it),
    a file that is not a model of this env (named, with what is wrong) or a ``module:attr`` plug-in that fails in
    any way, and ``FileNotFoundError`` for a missing model file."""
    if isinstance(name_or_path, os.PathLike) or is_path(str(name_or_path)):
        path = os.fspath(name_or_path)
        if os.path.isdir(path):
            raise ValueError(run_folders.folder_error(path, MODEL_SUFFIXES))
        if path.endswith(".pt"):
            from gin_env.agents.torch_policy import load_policy

            return load_policy(path)
        if path.endswith(".npz"):
            from gin_env.agents.numpy_policy import load_policy as load_weights

            return load_weights(path)
        from gin_env.agents.ppo import load_model

        return load_model(path)
    name = str(name_or_path)
    base, parameters = split_parameters(name)
    if base != name:  # it had parameters in brackets, maybe none
        return with_parameters(base, parameters)
    if name in AGENTS or name in VERSIONS:
        full = versioned(name)
        module, factory = VERSIONS[full].split(":")
        agent = getattr(importlib.import_module(module), factory)()
        agent.name = full
        return agent
    if ":" in name:
        return from_import_path(name)
    raise ValueError(run_folders.folder_error(name, MODEL_SUFFIXES) if os.path.isdir(name) else _unknown(name))


def split_parameters(name: str) -> tuple[str, dict]:
    """``"search[samples=8,guide=g.npz]"`` -> ``("search", {"samples": 8, "guide": "g.npz"})``; a name without
    brackets comes back with no parameters."""
    spec = _WITH_PARAMETERS.match(name)
    if not spec:
        return name, {}
    return spec["base"], parse_parameters(spec["parameters"], name)


def join_parameters(base: str, parameters: dict) -> str:
    """The name :func:`split_parameters` reads back as ``(base, parameters)``."""
    if not parameters:
        return base
    return f"{base}[{','.join(f'{key}={value}' for key, value in parameters.items())}]"


def parse_parameters(text: str, spec: str) -> dict:
    """``"samples=64,guide=g.npz"`` -> ``{"samples": 64, "guide": "g.npz"}``: a whole number is an int, another
    number a float, ``none``/``true``/``false`` are None/True/False, anything else a string. ``ValueError`` naming
    ``spec`` for an item without ``=`` or a key given twice."""
    out: dict = {}
    for item in filter(None, (piece.strip() for piece in text.split(","))):
        key, equals, value = (piece.strip() for piece in item.partition("="))
        if not equals or not key.isidentifier():
            raise ValueError(f"agent {spec!r}: parameters are key=value separated by commas, got {item!r}")
        if key in out:
            raise ValueError(f"agent {spec!r}: parameter {key!r} is given twice")
        out[key] = _parameter_value(value)
    return out


def _parameter_value(text: str):
    words = {"none": None, "true": True, "false": False}
    if text.lower() in words:
        return words[text.lower()]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def with_parameters(name: str, parameters: dict) -> Agent:
    """The built-in agent ``name`` made with keyword ``parameters`` (``agents.load("search[samples=64]")``); its
    ``agent.name`` is the versioned name with them. ``ValueError`` for an agent that takes none, or a parameter it
    refuses (in its own words)."""
    full = versioned(name)
    module, factory = VERSIONS[full].split(":")
    make = getattr(importlib.import_module(module), factory)
    takes = inspect.signature(make).parameters.values()
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in takes):
        raise ValueError(f"agent {full} takes no parameters")
    try:
        agent = make(**parameters)
    except (TypeError, ValueError) as err:
        raise ValueError(f"agent {full}: {err}") from None
    agent.name = join_parameters(full, parameters)
    return agent
