"""Minari datasets of gin-env episodes: where they live, how one is written whole or not at all, and the
``StepDataCallback`` that lets ``minari.DataCollector`` record ``GinRummy-v0`` with its infos.

Storage: Minari's ``arrow`` format. It keeps the nested, fixed-shape infos of every step (the action mask, the
outcome) as columns, reads with pyarrow alone, and pyarrow is already what Ray installs; HDF5 would add h5py for no
gain here.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import urllib.parse
import warnings
from collections.abc import Iterator

from gin_env import locks
from gin_env.datasets.episodes import Episode, fixed_info
from gin_env.optional import require

minari = require("minari", "datasets")
minari_dataset = require("minari.dataset.minari_dataset", "datasets")
data_collector = require("minari.data_collector", "datasets")
minari_storage = require("minari.dataset.minari_storage", "datasets")

#: Minari's storage format for every dataset gin-env writes.
DATA_FORMAT = "arrow"
#: The environment variable Minari reads its datasets' root folder from.
ROOT_VARIABLE = "MINARI_DATASETS_PATH"
#: How the hidden names gin-env gives its files in a root begin (Minari lists no hidden folder as a dataset): a
#: dataset being written, ``PREFIX + key + SCRATCH_MARK + random``, and the lock of an id, ``PREFIX + key + .lock``,
#: where the key is the id quoted for a file name (:func:`id_key`).
PREFIX = ".gin-env-dataset-"
#: What ends the key in a scratch folder's name; :func:`id_key` quotes it in an id, so a key never holds it.
SCRATCH_MARK = "+"
#: What ends the name of an id's lock file.
LOCK_ENDING = ".lock"


def default_root() -> str:
    """Where Minari looks for datasets by id: ``$MINARI_DATASETS_PATH``, or ``~/.minari/datasets``."""
    return os.environ.get(ROOT_VARIABLE) or os.path.join(os.path.expanduser("~"), ".minari", "datasets")


def check_dataset_id(dataset_id: str) -> None:
    """``ValueError`` naming ``dataset_id`` unless Minari accepts it: ``(namespace/)name-vN``."""
    try:
        minari_dataset.parse_dataset_id(dataset_id)
    except ValueError:
        raise ValueError(f"--id {dataset_id!r}: a Minari dataset id is (namespace/)name-vN, e.g. "
                         "gin-rummy/expert-vs-simple-v0") from None


def dataset_folder(root: str, dataset_id: str) -> str:
    """The folder of dataset ``dataset_id`` under ``root`` (its files are in ``data/`` inside)."""
    return os.path.join(root, *dataset_id.split("/"))


def check_free(root: str, dataset_id: str) -> str:
    """The folder of ``dataset_id`` under ``root``; ``FileExistsError`` when a dataset (or anything) is there."""
    target = dataset_folder(root, dataset_id)
    if os.path.lexists(target):
        raise FileExistsError(f"--id {dataset_id}: {target} already holds a dataset; choose another id (or "
                              "version) or remove it")
    return target


def id_key(dataset_id: str) -> str:
    """``dataset_id`` as one file name: every character but letters, digits and ``_.-~`` quoted."""
    return urllib.parse.quote(dataset_id, safe="")


def id_lock(root: str, dataset_id: str):
    """The lock of ``dataset_id`` under ``root`` (:func:`gin_env.locks.held_lock`), held by a ``with`` block while a
    run plays and writes that dataset: a second run of the same id is refused in one line before its games. It is
    also what marks the run's scratch folder as alive (:func:`remove_leftovers`)."""
    return locks.held_lock(os.path.join(root, PREFIX + id_key(dataset_id) + LOCK_ENDING),
                           lambda holder: f"--id {dataset_id}: another gin-env dataset ({holder}) is writing it to "
                                          f"{root}; wait for it to end, or choose another id")


def remove_leftovers(root: str) -> list[str]:
    """Remove the scratch folders that killed runs left in ``root`` (a run's own are removed when it ends, however
    it fails): those of ids whose lock no run holds. Returns the folders removed."""
    removed = []
    for name in sorted(os.listdir(root)):
        key, mark, _ = name[len(PREFIX):].rpartition(SCRATCH_MARK)
        path = os.path.join(root, name)
        if not (name.startswith(PREFIX) and mark and key and os.path.isdir(path)):
            continue
        try:
            with locks.held_lock(os.path.join(root, PREFIX + key + LOCK_ENDING), str):
                shutil.rmtree(path)
        except ValueError:  # a live run writes that id: the folder is its own
            continue
        removed.append(path)
    return removed


@contextlib.contextmanager
def _size_measured_once() -> Iterator[None]:
    """Minari 0.5's arrow storage measures the whole dataset again after every episode it writes, a walk over all
    its files, so writing ``n`` episodes takes time in ``n**2`` (at 4,000 hands, 230 ms an episode and rising).
    Inside the block that measure is skipped (its value is overwritten by the next anyway); measure once after."""
    measure = minari_storage.MinariStorage.get_size
    minari_storage.MinariStorage.get_size = lambda self: 0.0
    try:
        yield
    finally:
        minari_storage.MinariStorage.get_size = measure


@contextlib.contextmanager
def _minari_root(root: str) -> Iterator[None]:
    """Minari takes the folder it writes to from :data:`ROOT_VARIABLE` only; set it for the ``with`` block."""
    before = os.environ.get(ROOT_VARIABLE)
    os.environ[ROOT_VARIABLE] = root
    try:
        yield
    finally:
        if before is None:
            del os.environ[ROOT_VARIABLE]
        else:
            os.environ[ROOT_VARIABLE] = before


def buffers(episodes: list[Episode]) -> list:
    """The episodes as Minari ``EpisodeBuffer``\\ s, numbered in order."""
    return [data_collector.EpisodeBuffer(id=i, seed=e.seed, observations=e.observations, actions=e.actions,
                           rewards=list(e.rewards), terminations=list(e.terminations),
                           truncations=list(e.truncations), infos=e.infos)
            for i, e in enumerate(episodes)]


def write_dataset(root: str, dataset_id: str, episodes: list[Episode], env, *, algorithm_name: str,
                  description: str, metadata: dict) -> str:
    """Write ``episodes`` (of ``env``, whose spec the dataset keeps) as Minari dataset ``dataset_id`` under
    ``root``, with ``metadata`` under the key ``gin_env``; returns its folder.

    Whole or not at all: it is built in a temporary folder beside its place and renamed into it, so an error or an
    interrupt leaves no dataset under that id (a kill leaves the temporary folder, which the next run removes:
    :func:`remove_leftovers`). The caller holds the id's lock (:func:`id_lock`). ``FileExistsError`` for an id
    ``root`` already holds."""
    target = check_free(root, dataset_id)
    scratch = tempfile.mkdtemp(prefix=PREFIX + id_key(dataset_id) + SCRATCH_MARK, dir=root)
    try:
        with _minari_root(scratch), _size_measured_once(), warnings.catch_warnings():
            # Minari advises an author's e-mail and an evaluation env; gin-env has no e-mail to give, and the
            # env the episodes were played in is the one to evaluate in.
            for advice in ("`author_email` is set to None", "`eval_env` is set to None"):
                warnings.filterwarnings("ignore", message=re.escape(advice), category=UserWarning)
            dataset = minari.create_dataset_from_buffers(
                dataset_id, buffers(episodes), env=env, algorithm_name=algorithm_name, description=description,
                author="gin-env", code_permalink="https://pypi.org/project/gin-env/", data_format=DATA_FORMAT,
                requirements=[f"gin-env=={metadata['version']}"])
            dataset.storage.update_metadata({"gin_env": metadata})
        dataset.storage.update_metadata({"dataset_size": dataset.storage.get_size()})
        _place_namespaces(scratch, root, dataset_id)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.rename(dataset_folder(scratch, dataset_id), target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def _place_namespaces(scratch: str, root: str, dataset_id: str) -> None:
    """Give ``root`` the namespace files Minari wrote in ``scratch`` for ``dataset_id``'s namespaces, where ``root``
    has none yet (an existing namespace keeps its own)."""
    parts = dataset_id.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        folder = os.path.join(*parts[:depth])
        for name in os.listdir(os.path.join(scratch, folder)):
            source = os.path.join(scratch, folder, name)
            if os.path.isfile(source) and not os.path.lexists(os.path.join(root, folder, name)):
                os.makedirs(os.path.join(root, folder), exist_ok=True)
                os.replace(source, os.path.join(root, folder, name))


class GinRummyStepData(minari.StepDataCallback):
    """The step data of ``minari.DataCollector(env, step_data_callback=GinRummyStepData, record_infos=True)``
    around ``GinRummy-v0``: each step's infos in the one shape of :func:`gin_env.datasets.episodes.fixed_info`
    (the env's own infos gain an ``outcome`` only in a step that ends a hand, and Minari stores one shape)."""

    def __call__(self, env, **kwargs):
        step = super().__call__(env, **kwargs)
        step["info"] = fixed_info(step["info"], env)
        return step
