"""A folder given where an agent's model file goes (``gin-env evaluate runs/smoke``): the error names the model
files the folder holds, a training run's first, so that the user can pick one (``runs/smoke/policy.zip``)."""

from __future__ import annotations

import os

#: The model files named first, in this order: ``gin-env train``'s final, best and last models, ``train_rllib.py``'s
#: policy and the network of an expert-iteration generation (``gen-G/network.npz``, ``experiments/iterate.py``);
#: other model files follow by name.
RUN_MODELS = ("policy.zip", "best.zip", "last.zip", "policy.pt", "network.npz")
#: The most model files one error names; it counts the others.
MAX_NAMED = 6


def folder_error(path: str, suffixes: tuple[str, ...]) -> str:
    """The error for the folder ``path`` given as an agent: the model files in it (names ending in ``suffixes``),
    or that it holds none."""
    found = model_files(path, suffixes)
    if not found:
        return f"agent {path!r} is a folder, and it holds no model file ({', '.join(suffixes)})"
    named = ", ".join(repr(os.path.join(path, name)) for name in found[:MAX_NAMED])
    more = f" and {len(found) - MAX_NAMED} more" if len(found) > MAX_NAMED else ""
    return f"agent {path!r} is a folder, not a model file: give one of the model files in it, {named}{more}"


def model_files(folder: str, suffixes: tuple[str, ...]) -> list[str]:
    """The names of the files directly in ``folder`` that end in ``suffixes``, :data:`RUN_MODELS` first; none when
    the folder cannot be read."""
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries if entry.name.endswith(suffixes) and entry.is_file()]
    except OSError:
        return []
    return sorted(names, key=lambda name: (RUN_MODELS.index(name) if name in RUN_MODELS else len(RUN_MODELS), name))
