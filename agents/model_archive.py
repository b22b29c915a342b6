"""A MaskablePPO model file (``.zip``) loaded without running anything it holds.

SB3's ``model.save`` writes an archive whose ``data`` entry is JSON. What JSON cannot hold (classes, schedules,
spaces, buffers, arrays) it writes as a base64 cloudpickle (``{":serialized:": ...}``) beside a plain description
of it, and SB3's ``load`` unpickles that: a model file could run any code there. This module owns loading one
without that, and every reader of a model file (``agents.load``, ``train --resume``, ``export``) comes
through it; no other module calls ``MaskablePPO.load``.

* The file is read once, within bounds (:func:`gin_env.files.bounded_archive`, :data:`DATA_BYTES`), and SB3 loads
  the bytes checked, not the path: nothing can change the file between the check and the load.
* Each pickled entry of ``data`` is rebuilt from its plain description (:data:`REBUILDERS`) and given to SB3 as
  ``custom_objects``, which SB3 takes instead of unpickling the entry. An entry that cannot be rebuilt (a class
  gin-env does not know, a schedule that is not constant, ``policy_kwargs`` that JSON cannot hold) refuses the
  file, in one line naming it; docs/files.md tells how to get a file that loads.
* A plain entry that SB3 would take for a live object (:data:`NEVER_SAVED`: a name in ``env`` would be made with
  ``gym.make``, importing a module the file names) refuses the file.
* The ``.pth`` entries hold the network's tensors, which SB3 reads with ``torch.load(weights_only=True)``: tensors
  and plain containers, no code. Each is a zip archive itself, bounded as one.
"""

from __future__ import annotations

import importlib
import io
import json
import math
import os
import re
from collections import deque
from typing import NamedTuple

import numpy as np

from gin_env import files
from gin_env.game.actions import N_ACTIONS
from gin_env.game.observation import OBS_SIZE, PRIVILEGED_SIZE, RECORD_OBS_SIZE, obs_bounds, obs_size, observation_parts
from gin_env.game.rules import PRESETS, Rules
from gin_env.optional import require

#: The entry SB3 writes a model's settings in, as JSON, and the most bytes it may take. A checkpoint's holds the
#: last rollout's observations: 1.3 MB for 512 games of the largest observation; this leaves room for 25,000.
DATA_ENTRY, DATA_BYTES = "data", 2**26
#: The ending of the entries SB3 reads with ``torch.load``.
TORCH_SUFFIX = ".pth"
#: What marks an entry of ``data`` as a pickle, and the entry of its description that names its type.
SERIALIZED, TYPE = ":serialized:", ":type:"
#: Attributes SB3 never saves (``_excluded_save_params``): live objects, which a file must not provide.
NEVER_SAVED = ("policy", "device", "env", "replay_buffer", "rollout_buffer", "_vec_normalize_env", "_logger",
               "_custom_logger")
#: The classes a model may name, by ``data`` entry, then by (module, name) as the file describes them, with where
#: gin-env imports each from: its own policy (also under the module it had before the agents moved into gin_env)
#: and the stock ones of SB3 and sb3-contrib. Nothing the file names is imported, only these.
KNOWN_CLASSES = {
    "policy_class": {
        ("gin_env.agents.networks", "CardPolicy"): "gin_env.agents.networks:CardPolicy",
        ("agents.networks", "CardPolicy"): "gin_env.agents.networks:CardPolicy",
        ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"):
            "sb3_contrib.common.maskable.policies:MaskableActorCriticPolicy",
        ("stable_baselines3.common.policies", "ActorCriticPolicy"):
            "stable_baselines3.common.policies:ActorCriticPolicy",
    },
    "rollout_buffer_class": {
        ("sb3_contrib.common.maskable.buffers", "MaskableRolloutBuffer"):
            "sb3_contrib.common.maskable.buffers:MaskableRolloutBuffer",
        ("stable_baselines3.common.buffers", "RolloutBuffer"): "stable_baselines3.common.buffers:RolloutBuffer",
    },
}
#: The widest layer a model's network may have (its convolutions' channels, its summary's numbers, each critic
#: layer: the shipped network's are 32, 128 and 128), and the most layers a list of them may name. SB3 builds the
#: network ``policy_kwargs`` describes before it reads a weight, so both are checked first: the widest network they
#: allow takes some 200 MB. ``gin-env train`` refuses wider layers.
MAX_LAYER_WIDTH, MAX_LAYERS = 1_024, 8
#: How SB3 describes a class's ``__init__``, which names the class; a constant schedule; a one-dimensional shape.
_INIT = re.compile(r"<function (\w+)\.__init__ at ")
_CONSTANT = re.compile(r"ConstantSchedule\(val=([-+.\deE]+)\)")
_SHAPE = re.compile(r"[\[(]\s*(\d+)\s*,?\s*[\])]")
#: The types of the spaces a model of GinRummy-v0 has, as SB3 describes them (gym's in older files).
_BOX = ("<class 'gymnasium.spaces.box.Box'>", "<class 'gym.spaces.box.Box'>")
#: The rules whose observation layout every network of a game with jokers reads.
JOKERS = PRESETS["jokers"]
_DISCRETE = ("<class 'gymnasium.spaces.discrete.Discrete'>", "<class 'gym.spaces.discrete.Discrete'>")


class ModelFile(NamedTuple):
    """A model file as read and checked: its ``path``, the archive's ``raw`` bytes, and its ``data`` (JSON)."""

    path: str
    raw: bytes
    data: dict


class NotRebuilt(ValueError):
    """A pickled entry of ``data`` that cannot be rebuilt from its plain description; the message says why."""


def read(path: str) -> ModelFile:
    """The model file at ``path``, read once and bounded, with its ``data`` entry parsed. ``FileNotFoundError`` for
    a missing file, ``ValueError`` naming the file for one that is no model archive or passes a bound."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no model file at {path!r}")
    raw = files.read_bytes(path, files.ARCHIVE_BYTES, "model")
    name = f"{path!r} is not a model"
    with files.bounded_archive(raw, name) as archive:
        if DATA_ENTRY not in archive.namelist():
            raise ValueError(f"{path!r} could not be loaded as a MaskablePPO model: the archive has no "
                             f"{DATA_ENTRY!r} entry")
        text = files.read_entry(archive, DATA_ENTRY, name, DATA_BYTES)
        for entry in archive.namelist():
            if entry.endswith(TORCH_SUFFIX):  # torch reads each as an archive: bounded as one
                files.check_archive(files.read_entry(archive, entry, name), f"{name}: its entry {entry!r}")
    try:
        data = json.loads(text.decode("utf-8"))
    except (ValueError, RecursionError) as err:  # not UTF-8 or not JSON, or nested past Python's stack
        raise ValueError(f"{path!r} could not be loaded as a MaskablePPO model: its {DATA_ENTRY!r} entry is not "
                         f"JSON: {err}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path!r} could not be loaded as a MaskablePPO model: its {DATA_ENTRY!r} entry is not a "
                         f"JSON object")
    return ModelFile(path, raw, data)


def load(path: str, purpose: str, **options):
    """The MaskablePPO model saved at ``path``, loaded by SB3 from the bytes :func:`read` checked, its spaces
    GinRummy-v0's (:func:`check_spaces`), its network of a size it may have (:func:`check_network_size`) and every
    pickled entry rebuilt (:func:`custom_objects`); ``options`` go to
    ``MaskablePPO.load`` (``device``, ``env``, ``tensorboard_log``). Raises what :func:`read` raises, ``ValueError``
    naming the file for a model it cannot load, and ``MissingExtra`` (an ``ImportError``) without sb3-contrib,
    ``purpose`` completing its message."""
    model_file = read(path)
    check_spaces(path, declared_spaces(model_file))
    check_network_size(model_file)
    maskable_ppo = require("sb3_contrib", purpose).MaskablePPO
    objects = custom_objects(model_file)
    try:
        return maskable_ppo.load(io.BytesIO(model_file.raw), custom_objects=objects, **options)
    except Exception as err:  # SB3 raises many types on a bad archive; the caller needs one clear message
        raise ValueError(f"{path!r} could not be loaded as a MaskablePPO model: {err}") from err


def declared_spaces(model_file: ModelFile) -> tuple[tuple, int]:
    """(observation shape, number of actions) as the file's ``data`` describes its spaces in plain JSON (SB3 writes
    that beside the pickled spaces); ``ValueError`` naming the file where it does not."""
    try:
        observation, action = model_file.data["observation_space"], model_file.data["action_space"]
        return (_shape(observation),), int(action["n"])
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{model_file.path!r} could not be loaded as a MaskablePPO model: its {DATA_ENTRY!r} entry "
                         f"describes no observation space of one dimension and action space") from None


def layout_rules(n_actions: int) -> Rules | None:
    """The rules whose observation layout a network of ``n_actions`` actions reads: the ``jokers`` preset's for a
    game with jokers (R72's counts are the same entries for one joker or two), None (the standard deck's) else."""
    return JOKERS if n_actions == JOKERS.n_actions else None


def check_spaces(path: str, spaces: tuple[tuple, int]) -> None:
    """``ValueError`` unless ``spaces`` (observation shape, number of actions) are GinRummy-v0's, with the match
    record or without, and with what no player sees after them or without (a privileged critic's training env), of
    the standard game or of one with jokers."""
    obs_shape, n_actions = spaces
    if len(obs_shape) == 1 and n_actions in (N_ACTIONS, JOKERS.n_actions):
        try:
            observation_parts(obs_shape[0], layout_rules(n_actions))
            return
        except ValueError:
            pass
    raise ValueError(f"{path!r} is a MaskablePPO model for another env: it takes observations of shape "
                     f"{obs_shape} and {n_actions} actions; GinRummy-v0 has ({OBS_SIZE},) (({RECORD_OBS_SIZE},) "
                     f"with match_record=True; {PRIVILEGED_SIZE} more where a privileged critic trained) and "
                     f"{N_ACTIONS}, or with jokers ({obs_size(rules=JOKERS)},) and {JOKERS.n_actions}")


def custom_objects(model_file: ModelFile) -> dict:
    """What SB3 takes instead of unpickling each pickled entry of ``data``: each rebuilt from its plain description
    (:data:`REBUILDERS`). ``ValueError`` in one line naming the file and the entry for one that cannot be rebuilt,
    and for an entry SB3 never saves (:data:`NEVER_SAVED`)."""
    objects = {}
    for key, value in model_file.data.items():
        if key in NEVER_SAVED:
            raise ValueError(f"{model_file.path!r} is refused: its {DATA_ENTRY!r} holds {key!r}, which model.save "
                             f"never writes and SB3 would take for a live object")
        if not (isinstance(value, dict) and SERIALIZED in value):
            continue
        try:
            if key not in REBUILDERS:
                raise NotRebuilt("gin-env does not know how to rebuild it from plain data")
            objects[key] = REBUILDERS[key](key, value, model_file.data)
        except (KeyError, TypeError, ValueError) as err:  # NotRebuilt, or a description of another form
            raise ValueError(f"{model_file.path!r} is refused: its {DATA_ENTRY!r} holds {key!r} as a pickle, and "
                             f"{err}. gin-env unpickles nothing from a file (a pickle can run any code); "
                             f"docs/files.md tells how to get weights that load from a model you trust") from None
    return objects


def check_network_size(model_file: ModelFile) -> None:
    """``ValueError`` naming the file and the setting when the network its plain ``policy_kwargs`` describe has a
    layer wider than :data:`MAX_LAYER_WIDTH` or a list of more than :data:`MAX_LAYERS` layers: every whole number in
    them is a width, and every list a list of layers."""
    def check(value, where: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                check(item, f"{where}.{key}")
        elif isinstance(value, list):
            if len(value) > MAX_LAYERS:
                raise ValueError(f"{model_file.path!r} is refused: its {where} names {len(value)} layers; a model "
                                 f"has at most {MAX_LAYERS}")
            for index, item in enumerate(value):
                check(item, f"{where}[{index}]")
        elif type(value) is int and value > MAX_LAYER_WIDTH:
            raise ValueError(f"{model_file.path!r} is refused: its {where} is {value:,}; a layer of a model is at "
                             f"most {MAX_LAYER_WIDTH:,} wide")

    check(model_file.data.get("policy_kwargs", {}), "policy_kwargs")


def _described_type(value: dict) -> str:
    """The type a pickled entry's description names (``"<class 'collections.deque'>"``)."""
    return str(value.get(TYPE))


def _known_class(key: str, value: dict, data: dict):
    """The class of :data:`KNOWN_CLASSES` that ``value`` describes for the entry ``key``."""
    match = _INIT.match(str(value.get("__init__")))
    described = (str(value.get("__module__")), match.group(1) if match else "?")
    where = KNOWN_CLASSES[key].get(described)
    if where is None:
        raise NotRebuilt(f"it names the class {'.'.join(described)}, which is not one gin-env loads "
                         f"({', '.join(sorted({name for _, name in KNOWN_CLASSES[key]}))})")
    module, name = where.split(":")
    return getattr(importlib.import_module(module), name)


def _observation_space(key: str, value: dict, data: dict):
    """GinRummy-v0's observation space of the size described (its bounds are the env's own)."""
    from gymnasium import spaces

    if _described_type(value) not in _BOX or value.get("dtype") != "float32":
        raise NotRebuilt(f"it describes {_described_type(value)} of {value.get('dtype')}, not a Box of float32")
    rules = layout_rules(int(data["action_space"]["n"]))
    match_record, privileged = observation_parts(_shape(value), rules)
    return spaces.Box(*obs_bounds(match_record, privileged, rules), dtype=np.float32)


def _action_space(key: str, value: dict, data: dict):
    """GinRummy-v0's action space, which the file describes."""
    from gymnasium import spaces

    if _described_type(value) not in _DISCRETE or str(value.get("start", 0)) != "0":
        raise NotRebuilt(f"it describes {_described_type(value)} from {value.get('start')}, not a Discrete from 0")
    return spaces.Discrete(int(value["n"]))


def _constant(key: str, value: dict, data: dict) -> float:
    """The value of a constant schedule; SB3 makes the schedule from the number."""
    match = _CONSTANT.fullmatch(str(value.get("value_schedule")))
    try:
        number = float(match.group(1)) if match else math.nan
    except ValueError:  # digits and signs that make no number
        number = math.nan
    if not math.isfinite(number):
        raise NotRebuilt(f"it is not a constant schedule ({_described_type(value)}, "
                         f"{value.get('value_schedule')}); only constant schedules load")
    return number


def _episode_buffer(key: str, value: dict, data: dict) -> deque:
    """An empty buffer of episode statistics: the file's are in the pickle, and only SB3's logs read them."""
    window = data.get("_stats_window_size")
    if _described_type(value) != "<class 'collections.deque'>" or type(window) is not int or window < 1:
        raise NotRebuilt(f"it is {_described_type(value)} with a window of {window!r}, not a deque of statistics")
    return deque(maxlen=window)


def _rollout_leftover(key: str, value: dict, data: dict) -> None:
    """Nothing for the last rollout's arrays: acting never reads them, and SB3 resets the env before training."""
    return None


def _shape(value: dict) -> int:
    """The one size of the shape a space's plain description gives (a list, or its text); ``ValueError`` else."""
    shape = value["_shape"]
    if isinstance(shape, list) and len(shape) == 1 and type(shape[0]) is int:
        return shape[0]
    match = _SHAPE.fullmatch(shape) if isinstance(shape, str) else None
    if match is None:
        raise ValueError(f"not a shape of one dimension: {shape!r}")
    return int(match.group(1))


#: How each pickled entry of ``data`` that a model may hold is rebuilt from its plain description (``key``, its
#: description, all of ``data``); any other pickled entry refuses the file. ``lr_schedule`` is rebuilt from the
#: constant it describes; SB3 makes it again from the plain ``learning_rate`` when it loads, as it does
#: ``clip_range`` from the number.
REBUILDERS = {
    "policy_class": _known_class, "rollout_buffer_class": _known_class,
    "observation_space": _observation_space, "action_space": _action_space,
    "lr_schedule": _constant, "clip_range": _constant, "clip_range_vf": _constant,
    "ep_info_buffer": _episode_buffer, "ep_success_buffer": _episode_buffer,
    "_last_obs": _rollout_leftover, "_last_episode_starts": _rollout_leftover, "_last_original_obs": _rollout_leftover,
}
