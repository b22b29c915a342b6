"""Remake the hostile model files beside this script (``python tests/data/hostile/models/make_models.py``).

Each is a real MaskablePPO model of GinRummy-v0 (a tiny network, seed 0), saved by SB3 and then edited in its
``data`` entry, the JSON where SB3 keeps its settings and writes what JSON cannot hold as a base64 pickle
(``{":serialized:": ...}``). The payload pickle, once unpickled, appends a line to the file that the environment
variable :data:`MARKER_VARIABLE` names (unset, it raises instead), so a test sees whether it ran on any machine.
README.md beside this script lists the files. The archives are written with fixed times and without the saving
machine's description, so the same SB3 and torch remake the same bytes.
"""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import re
import zipfile
from collections import deque

import numpy as np

#: The environment variable naming the file the payload writes to.
MARKER_VARIABLE = "GIN_ENV_HOSTILE_MARKER"
#: What the payload runs: Python code, as an attacker's ``os.system`` would run a command.
PAYLOAD_CODE = f"import os; open(os.environ[{MARKER_VARIABLE!r}], 'a').write('the pickle ran\\n')"
FOLDER = os.path.dirname(os.path.abspath(__file__))
#: What the files say in place of the saving machine's description (``system_info.txt``).
SYSTEM_INFO = "- made by tests/data/hostile/models/make_models.py\n"
#: Entries SB3 pickles in a training checkpoint that gin-env rebuilds from their plain description: each file
#: ``pickle-in-KEY.zip`` holds the payload there, and loads as the base model.
REBUILT = ("policy_class", "observation_space", "action_space", "lr_schedule", "clip_range", "ep_info_buffer",
           "ep_success_buffer", "rollout_buffer_class", "_last_obs", "_last_episode_starts")


class Payload:
    """Pickles as a call of ``exec`` on :data:`PAYLOAD_CODE`."""

    def __reduce__(self):
        return exec, (PAYLOAD_CODE,)


def payload() -> str:
    """The payload as SB3 writes a pickle in ``data``: base64 text."""
    return base64.b64encode(pickle.dumps(Payload(), protocol=4)).decode()


def base_model() -> dict[str, bytes]:
    """The entries of a tiny MaskablePPO model of GinRummy-v0 as SB3 saves a training checkpoint: with episode
    statistics and a last rollout (one game), as ``learn`` leaves them."""
    from sb3_contrib import MaskablePPO

    from gin_env.agents.networks import CardPolicy
    from gin_env.envs.gin_rummy import GinRummyEnv
    from gin_env.game.observation import OBS_SIZE

    model = MaskablePPO(CardPolicy, GinRummyEnv(), seed=0, device="cpu", n_steps=16, batch_size=16,
                        policy_kwargs={"features_extractor_kwargs": {"channels": 2, "global_dim": 4},
                                       "net_arch": {"pi": [], "vf": [4]}})
    model.ep_info_buffer, model.ep_success_buffer = deque(maxlen=100), deque(maxlen=100)
    model._last_obs = np.zeros((1, OBS_SIZE), dtype=np.float32)
    model._last_episode_starts = np.ones(1, dtype=bool)
    saved = io.BytesIO()
    model.save(saved)
    with zipfile.ZipFile(saved) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    # Where Python put the class's functions differs from run to run: not part of the model.
    entries["data"] = re.sub(rb" at 0x[0-9a-f]+>", b" at 0x0>", entries["data"])
    entries["system_info.txt"] = SYSTEM_INFO.encode()
    return entries


def with_data(entries: dict[str, bytes], edit) -> dict[str, bytes]:
    """``entries`` with ``edit`` applied to their ``data`` (a dict, edited in place)."""
    data = json.loads(entries["data"])
    edit(data)
    return {**entries, "data": json.dumps(data, indent=4).encode()}


def pickled(key: str, description: dict | None = None):
    """An edit putting the payload in ``key``, with ``description`` (the entry's own where None)."""
    def edit(data: dict) -> None:
        kept = description if description is not None else {k: v for k, v in data.get(key, {}).items()
                                                              if k != ":serialized:"}
        data[key] = {**kept, ":serialized:": payload()}
    return edit


def write(name: str, entries: dict[str, bytes]) -> None:
    """``entries`` as the zip archive ``name`` beside this script, with fixed times."""
    with zipfile.ZipFile(os.path.join(FOLDER, name), "w") as archive:
        for entry, content in entries.items():
            archive.writestr(zipfile.ZipInfo(entry, date_time=(1980, 1, 1, 0, 0, 0)), content,
                             compress_type=zipfile.ZIP_DEFLATED)


#: The files gin-env refuses, by name: the edit of the base model that makes each.
REFUSED = {
    "pickle-in-policy_kwargs.zip": pickled("policy_kwargs", {":type:": "<class 'dict'>"}),
    "pickle-in-learning_rate.zip": pickled("learning_rate", {":type:": "<class 'function'>"}),
    "pickle-in-an-entry-sb3-never-writes.zip": pickled("callback", {":type:": "<class 'function'>"}),
    "foreign-policy-class.zip": pickled("policy_class", {":type:": "<class 'abc.ABCMeta'>",
                                                         "__module__": "evil.policies",
                                                         "__init__": "<function EvilPolicy.__init__ at 0x0>"}),
    "linear-schedule.zip": pickled("clip_range", {
        ":type:": "<class 'stable_baselines3.common.utils.FloatSchedule'>",
        "value_schedule": "LinearSchedule(start=0.2, end=0.0, end_fraction=1.0)"}),
    "env-entry.zip": lambda data: data.update(env="evil.envs:Evil-v0"),
}


def main() -> None:
    entries = base_model()
    write("base.zip", entries)
    for key in REBUILT:
        write(f"pickle-in-{key}.zip", with_data(entries, pickled(key)))
    for name, edit in REFUSED.items():
        write(name, with_data(entries, edit))


if __name__ == "__main__":
    main()
