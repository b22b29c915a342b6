"""A policy saved as plain torch layers, and its agent: what ``train_rllib.py`` exports to ``RUN_DIR/policy.pt``.

The file holds the layers from an encoded observation to the 108 action logits (linear layers and activations, in
order), their weights, and a ``meta`` dict saying what produced them. Loading it needs torch only, not Ray, so
``agents.load("RUN_DIR/policy.pt")`` plays in ``evaluate.py``, the terminal game and as ``GinRummy-v0``'s
``opponent=``. Importing this module imports torch.
"""

from __future__ import annotations

import io
import os

import numpy as np

from gin_env.agents.model_archive import JOKERS
from gin_env.agents.params import check_flag
from gin_env.agents.ppo import PolicyAgent
from gin_env.files import ARCHIVE_BYTES, atomic_write, check_archive, read_bytes
from gin_env.game.actions import N_ACTIONS
from gin_env.game.observation import OBS_SIZE, RECORD_OBS_SIZE, obs_size
from gin_env.optional import require

torch = require("torch", "a torch policy")
nn = torch.nn

#: The observation entries a policy file's network may read (without and with the match record), by its actions: the
#: standard game's, and a game with jokers' (R72).
_READS = {N_ACTIONS: (OBS_SIZE, RECORD_OBS_SIZE),
          JOKERS.n_actions: (obs_size(rules=JOKERS), obs_size(True, rules=JOKERS))}

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
    with atomic_write(path, "wb") as out:
        torch.save({"format": FORMAT, "layers": spec, "state_dict": state, "meta": meta}, out)


def _network(spec: list) -> nn.Sequential:
    """The layers of a layer list that :func:`_tensor_shapes` accepted."""
    return nn.Sequential(*(nn.Linear(entry[1], entry[2]) if entry[0] == "linear" else ACTIVATIONS[entry[0]]()
                           for entry in spec))


class TorchPolicyAgent(PolicyAgent):
    """The policy of a :func:`save_policy` file restricted to legal actions: greedy when ``deterministic`` (the
    default), else sampled with the caller's generator. ``act`` serves one view, ``act_batch`` a ``BatchView``;
    ``match_record`` when the network takes the observation with the match record (``RECORD_OBS_SIZE`` inputs)."""

    def __init__(self, network: nn.Sequential, path: str | None = None, meta: dict | None = None,
                 deterministic: bool = True) -> None:
        check_flag("torch policy agent", "deterministic", deterministic)
        self.network = network.eval()
        self.path = path
        self.meta = meta or {}
        self.deterministic = deterministic
        linear = [m for m in network if isinstance(m, nn.Linear)]
        self.reads, self.n_actions = linear[0].in_features, linear[-1].out_features
        self.match_record = self.reads == _READS[self.n_actions][1]

    def logits(self, obs: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
        """The network's action logits for encoded observations ``(N, OBS_SIZE)`` (``RECORD_OBS_SIZE`` with the
        match record), before any mask (``masks`` is not used: :meth:`choose` applies it)."""
        with torch.no_grad():
            return self.network(torch.as_tensor(obs, dtype=torch.float32)).numpy()

    def __repr__(self) -> str:
        return f"TorchPolicyAgent({self.path!r}, deterministic={self.deterministic})"


def load_policy(path: str, deterministic: bool = True) -> TorchPolicyAgent:
    """The agent of the policy file at ``path``. ``FileNotFoundError`` for a missing file, ``ValueError`` naming the
    file and what is wrong for a file that is not a policy of this env (checked whole before any layer is built)."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no policy file at {path!r}")
    # Read once and bounded as every archive is (a torch file is a zip archive), each entry expanded no further than
    # it declares, before torch reads the bytes checked: tensors and plain containers only (weights_only).
    raw = read_bytes(path, ARCHIVE_BYTES, "policy file")
    check_archive(raw, f"{path!r} is not a torch policy file")
    try:
        saved = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many types on a file it cannot read; the caller needs one message
        raise ValueError(f"{path!r} could not be read as a torch policy file: {err}") from err
    if not isinstance(saved, dict) or saved.get("format") != FORMAT:
        raise ValueError(f"{path!r} is not a gin-env policy file (saved by train_rllib.py)")
    missing = [key for key in ("layers", "state_dict", "meta") if key not in saved]
    if missing:
        raise ValueError(f"{path!r} is a damaged policy file: it lacks {', '.join(missing)}")
    if not isinstance(saved["meta"], dict):
        raise ValueError(f"{path!r} is a damaged policy file: its meta is a {type(saved['meta']).__name__}, not a "
                         "dict")
    _check_tensors(path, saved["state_dict"], _tensor_shapes(path, saved["layers"]))
    network = _network(saved["layers"])
    network.load_state_dict(saved["state_dict"])
    return TorchPolicyAgent(network, path, saved["meta"], deterministic)


def _tensor_shapes(path: str, layers) -> dict[str, tuple]:
    """The shape of every tensor the layer list ``layers`` needs, by its ``nn.Sequential`` name; ``ValueError`` for
    a list that is not linear layers and activations from ``OBS_SIZE`` inputs (``RECORD_OBS_SIZE`` with the match
    record) to ``N_ACTIONS`` outputs, or from the observation of a game with jokers to its actions."""
    if not isinstance(layers, list) or not layers:
        raise ValueError(f"{path!r} is a damaged policy file: its layers are {layers!r}, not a list of layers")
    shapes, width, reads = {}, None, None
    for i, entry in enumerate(layers):
        kind = entry[0] if isinstance(entry, (list, tuple)) and entry and isinstance(entry[0], str) else None
        if kind == "linear" and len(entry) == 3 and all(_is_size(n) for n in entry[1:]):
            if width is None and not any(entry[1] in sizes for sizes in _READS.values()):
                raise ValueError(f"{path!r}: layer {i} takes {entry[1]} inputs where the observation has {OBS_SIZE} "
                                 f"({RECORD_OBS_SIZE} with the match record; with jokers "
                                 f"{' or '.join(map(str, _READS[JOKERS.n_actions]))})")
            if width is not None and entry[1] != width:
                raise ValueError(f"{path!r}: layer {i} takes {entry[1]} inputs where the layers before give {width}")
            shapes[f"{i}.weight"], shapes[f"{i}.bias"] = (entry[2], entry[1]), (entry[2],)
            reads = entry[1] if reads is None else reads
            width = entry[2]
        elif kind not in ACTIVATIONS or len(entry) != 1:
            raise ValueError(f"{path!r}: layer {i} is {entry!r}; a layer is ['linear', inputs, outputs] (positive "
                             f"integers) or one of {', '.join(repr([name]) for name in ACTIVATIONS)}")
    actions = next((n for n, sizes in _READS.items() if reads in sizes), N_ACTIONS)
    if not shapes or width != actions:
        raise ValueError(f"{path!r} is a policy for another env: it gives {width} outputs; GinRummy-v0 has "
                         f"{actions} actions for an observation of {reads} entries")
    return shapes


def _is_size(n) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n >= 1


def _check_tensors(path: str, state, shapes: dict[str, tuple]) -> None:
    """``ValueError`` unless ``state`` holds exactly the tensors of ``shapes``, of those shapes, finite floats."""
    if not isinstance(state, dict):
        raise ValueError(f"{path!r} is a damaged policy file: its state_dict is a {type(state).__name__}")
    missing = [key for key in shapes if key not in state]
    extra = [str(key) for key in state if key not in shapes]
    if missing or extra:
        raise ValueError(f"{path!r}: its weights do not match its layers: "
                         + "; ".join(f"{what} {', '.join(keys)}" for what, keys in (("missing", missing),
                                                                                 ("unexpected", extra)) if keys))
    for key, shape in shapes.items():
        tensor = state[key]
        if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point():
            raise ValueError(f"{path!r}: weight {key} is not a tensor of floating-point numbers")
        if tuple(tensor.shape) != shape:
            raise ValueError(f"{path!r}: weight {key} has shape {tuple(tensor.shape)}; its layer needs {shape}")
        if not torch.isfinite(tensor).all():
            raise ValueError(f"{path!r}: weight {key} holds numbers that are not finite")
