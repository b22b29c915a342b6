"""A policy saved as plain torch layers, and its agent: what ``train_rllib.py`` exports to ``RUN_DIR/policy.pt``.

The file holds the layers from an encoded observation to the 108 action logits (linear layers and activations, in
order), their weights, and a ``meta`` dict saying what produced them. Loading it needs torch only, not Ray, so
``agents.load("RUN_DIR/policy.pt")`` plays in ``evaluate.py``, the terminal game and as ``GinRummy-v0``'s
``opponent=``. Importing this module imports torch.
"""

from __future__ import annotations

import os

import numpy as np

from gin_env.actions import N_ACTIONS
from gin_env.agents.ppo import PolicyAgent
from gin_env.observation import OBS_SIZE
from gin_env.optional import require

torch = require("torch", "a torch policy")
nn = torch.nn

#: What the file says it is, checked on loading.
FORMAT = "gin-env torch policy 1"
#: The activations a policy file may hold, by the lower-cased name of their torch class.
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU, "silu": nn.SiLU, "sigmoid": nn.Sigmoid}


def save_policy(layers: list, path: str, meta: dict) -> None:
    """Write ``layers`` (``nn.Linear`` and :data:`ACTIVATIONS` modules, applied in order) to ``path``, with
    ``meta`` (plain values: what produced the policy)."""
    spec = []
    for layer in layers:
        if isinstance(layer, nn.Linear):
            spec.append(["linear", layer.in_features, layer.out_features])
        elif type(layer).__name__.lower() in ACTIVATIONS:
            spec.append([type(layer).__name__.lower()])
        else:
            raise ValueError(f"a policy file holds only linear layers and {', '.join(ACTIVATIONS)}; got {layer!r}")
    state = {key: value.detach().cpu().clone() for key, value in nn.Sequential(*layers).state_dict().items()}
    torch.save({"format": FORMAT, "layers": spec, "state_dict": state, "meta": meta}, path)


def _network(spec: list) -> nn.Sequential:
    layers = []
    for entry in spec:
        if entry[0] == "linear":
            layers.append(nn.Linear(entry[1], entry[2]))
        elif entry[0] in ACTIVATIONS:
            layers.append(ACTIVATIONS[entry[0]]())
        else:
            raise ValueError(f"unknown layer {entry!r}")
    return nn.Sequential(*layers)


class TorchPolicyAgent(PolicyAgent):
    """The policy of a :func:`save_policy` file restricted to legal actions: greedy when ``deterministic`` (the
    default), else sampled with the caller's generator. ``act`` serves one view, ``act_batch`` a ``BatchView``."""

    def __init__(self, network: nn.Sequential, path: str | None = None, meta: dict | None = None,
                 deterministic: bool = True) -> None:
        self.network = network.eval()
        self.path = path
        self.meta = meta or {}
        self.deterministic = deterministic

    def logits(self, obs: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
        """The network's action logits for encoded observations ``(N, OBS_SIZE)``, before any mask (``masks`` is
        not used: :meth:`choose` applies it)."""
        with torch.no_grad():
            return self.network(torch.as_tensor(obs, dtype=torch.float32)).numpy()

    def __repr__(self) -> str:
        return f"TorchPolicyAgent({self.path!r}, deterministic={self.deterministic})"


def load_policy(path: str, deterministic: bool = True) -> TorchPolicyAgent:
    """The agent of the policy file at ``path``. ``FileNotFoundError`` for a missing file, ``ValueError`` for a
    file that is not a policy of this env."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no policy file at {path!r}")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many types on a file it cannot read; the caller needs one message
        raise ValueError(f"{path!r} could not be read as a torch policy file: {err}") from err
    if not isinstance(saved, dict) or saved.get("format") != FORMAT:
        raise ValueError(f"{path!r} is not a gin-env policy file (saved by train_rllib.py)")
    network = _network(saved["layers"])
    network.load_state_dict(saved["state_dict"])
    sizes = [entry for entry in saved["layers"] if entry[0] == "linear"]
    if not sizes or sizes[0][1] != OBS_SIZE or sizes[-1][2] != N_ACTIONS:
        raise ValueError(f"{path!r} is a policy for another env: GinRummy-v0 has {OBS_SIZE} observation entries "
                         f"and {N_ACTIONS} actions")
    return TorchPolicyAgent(network, path, saved["meta"], deterministic)
