"""A run folder (``--run-dir``) and what lives in it, for ``gin-env train`` and ``train_rllib.py`` alike.

* **A run is never replaced by accident.** A folder that holds a run's files is refused unless the run is resumed
  or ``--overwrite`` is given (:func:`check_run_dir`); only then are the old files removed (:func:`clear_run`).
* **One run at a time.** A run holds the folder's lock file while it writes there (:func:`hold_run_dir`): a second
  run into the folder is refused in one line; the lock goes when its process ends, however it ends.
* **A resume continues its own run.** Resuming into a folder that holds another run (not the one ``--resume``
  comes from) replaces it only with ``--overwrite`` (:func:`check_resumes_here`).
* **Files are whole.** Every file is written under a temporary name and renamed (:mod:`gin_env.files`), so an
  interrupt or an error leaves the previous checkpoint, never half of one (:func:`save_run`).
* **A history is checked before it is continued.** :func:`read_history` refuses, in one line, a ``history.json``
  that is not JSON or lacks what the run reads from it, before any training.

Light: nothing here imports torch.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from typing import TypeVar

from gin_env import locks
from gin_env.files import atomic_path, check_output_folder, read_text, same_file, write_json

T = TypeVar("T")

#: What ``gin-env train`` writes in its run folder that a run replaces: its checkpoints, history and curve.
RESULT_FILES = ("last.zip", "best.zip", "policy.zip", "history.json", "learning_curve.png")
#: What ``gin-env train`` writes in its run folder: the results and the tensorboard logs (which a run adds to).
RUN_FILES = (*RESULT_FILES, "tb")
#: The lock file a run holds in its folder while it writes there (gone when it ends; a killed run leaves it, for
#: the next run to take over); never among the files ``--overwrite`` removes.
RUN_LOCK = ".gin-env-run.lock"
#: The largest history.json read back: a row per rollout is about half a kilobyte, a long run a few megabytes.
HISTORY_LIMIT = 256 * 2**20


def run_files_in(folder: str, names: tuple[str, ...] = RUN_FILES) -> list[str]:
    """Which of a run's ``names`` are in ``folder``."""
    return [name for name in names if os.path.lexists(os.path.join(folder, name))]


def check_run_dir(folder: str, resume: bool, overwrite: bool, names: tuple[str, ...] = RUN_FILES) -> None:
    """``ValueError`` when ``folder`` cannot be the run folder: a path that cannot be a folder or whose parent is
    missing (:func:`gin_env.files.check_output_folder`), or a folder that holds a run neither resumed nor to be
    overwritten."""
    try:
        check_output_folder(folder, "--run-dir")
    except OSError as err:
        raise ValueError(str(err)) from None
    found = run_files_in(folder, names)
    if found and not resume and not overwrite:
        raise ValueError(f"--run-dir {folder} holds a run ({', '.join(found)}); --resume it or pass --overwrite")


def check_resumes_here(folder: str, resume: str) -> None:
    """``ValueError`` when ``folder`` holds the results of a run other than the one ``resume`` comes from: the
    model resumed is neither in ``folder`` (by its real path) nor one of its files under another name (a hard
    link), so continuing would mix two runs' checkpoints and histories."""
    found = run_files_in(folder, RESULT_FILES)
    if not found:
        return
    if os.path.realpath(os.path.dirname(os.path.realpath(resume))) == os.path.realpath(folder):
        return
    if any(same_file(resume, os.path.join(folder, name)) for name in found):
        return
    raise ValueError(f"--run-dir {folder} holds another run ({', '.join(found)}), not the one of --resume {resume}; "
                     "pass --overwrite to replace it, or choose a new --run-dir")


def run_paths(folder: str, names: tuple[str, ...] = RUN_FILES) -> list[str]:
    """The paths of a run's ``names`` in ``folder``, there or not."""
    return [os.path.join(folder, name) for name in names]


def removed_paths(folder: str, names: tuple[str, ...] = RUN_FILES) -> list[str]:
    """Every file and folder :func:`clear_run` would remove from ``folder``, those inside its folders too."""
    out = []
    for path in run_paths(folder, names):
        if not os.path.lexists(path):
            continue
        out.append(path)
        if os.path.isdir(path) and not os.path.islink(path):
            for inside, folders, names_inside in os.walk(path):
                out.extend(os.path.join(inside, name) for name in folders + names_inside)
    return out


def locked_run_folder(folder: str, recheck: Callable[[], T]):
    """Hold the run folder's lock (:func:`hold_run_dir`) for a ``with`` block, which gets what ``recheck()`` returns,
    called under the lock (the folder checked again and the record the run continues read), since another run may
    have written there after the options were checked: :func:`gin_env.locks.holding`, whose
    :class:`gin_env.locks.Refused` stops the run for either problem."""
    return locks.holding(hold_run_dir(folder), recheck)


def hold_run_dir(folder: str):
    """The run folder's lock (:func:`gin_env.locks.held_lock` on :data:`RUN_LOCK`), held by a ``with`` block while
    a run writes there; the folder is created first when new (its parent exists: :func:`check_run_dir`)."""
    os.makedirs(folder, exist_ok=True)
    return locks.held_lock(os.path.join(folder, RUN_LOCK),
                     lambda holder: f"--run-dir {folder}: another run ({holder}) is writing to it; wait for it to "
                                    "end, or choose another --run-dir")


def clear_run(folder: str, names: tuple[str, ...] = RUN_FILES) -> None:
    """Remove a run's ``names`` from ``folder`` (``--overwrite``), the folders among them with what they hold."""
    for name in run_files_in(folder, names):
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)


def save_run(model, history: dict, run_dir: str) -> None:
    """The checkpoint: ``last.zip`` and ``history.json``, all that ``--resume`` needs. Both are written under
    temporary names first and renamed one right after the other, so an interrupt or an error while writing leaves
    the previous pair, each file whole."""
    with atomic_path(os.path.join(run_dir, "last.zip")) as model_path:
        model.save(model_path)
        write_json(os.path.join(run_dir, "history.json"), history)


def new_history(eval_deals: int, eval_opponent: str) -> dict:
    """The history of a run that starts afresh."""
    return {"eval_deals": eval_deals, "eval_opponent": eval_opponent, "train": [], "eval": []}


def read_history(path: str) -> dict:
    """The history of the run at ``path``, checked for what a resumed run reads from it; ``ValueError`` naming the
    file and the problem otherwise."""
    try:
        history = json.loads(read_text(path, HISTORY_LIMIT, "history.json"))
    except (OSError, ValueError) as err:  # json's errors are ValueErrors too
        raise ValueError(f"{path}: not a readable history.json ({err}); use a new --run-dir or --overwrite") from None
    problem = _history_problem(history)
    if problem:
        raise ValueError(f"{path}: {problem}; not a history.json of gin-env train (use a new --run-dir or "
                         "--overwrite)")
    return history


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _numbers(row, keys: tuple[str, ...]) -> bool:
    """Whether ``row`` is a JSON object with a number under each of ``keys``."""
    return isinstance(row, dict) and all(_is_number(row.get(key)) for key in keys)


def _history_problem(history) -> str | None:
    """What makes ``history`` unusable for a resumed run (what the callback, the plot and best.zip read), or None."""
    if not isinstance(history, dict):
        return "not a JSON object"
    # Runs from before the evaluation opponent was an option were evaluated against simple.
    history.setdefault("eval_opponent", "simple")
    kinds = {"eval_deals": int, "eval_opponent": str, "train": list, "eval": list, "args": list, "best": dict}
    for key, kind in kinds.items():
        optional = key in ("args", "best")
        if not (optional and key not in history) and (type(history.get(key)) is not kind):
            return f"{key!r} is missing or not a {kind.__name__}"
    for row in history["eval"] + [history[key] for key in ("best",) if key in history]:
        interval = row.get("a_points_per_hand_ci95") if isinstance(row, dict) else None
        if not _numbers(row, ("step", "a_points_per_hand", "a_hand_win_rate")) or not (
                isinstance(interval, list) and len(interval) == 2 and all(map(_is_number, interval))):
            return "an evaluation lacks its step, points per hand, 95% interval or hand win rate"
    for row in history["train"]:
        opponents = row.get("opponents") if isinstance(row, dict) else None
        if not _numbers(row, ("step",)) or not isinstance(opponents, dict) or not all(
                _numbers(stats, ("hand_win_rate",)) for stats in opponents.values()):
            return "a training row lacks its step or its opponents' hand win rates"
    return None


def checkpoints_line(run_dir: str, names: tuple[str, ...] = ("last.zip", "best.zip")) -> str:
    """What an interrupted run leaves, in one line: which checkpoint files are in ``run_dir``, or that there are
    none (all were written whole, so each is usable)."""
    found = [os.path.join(run_dir, name) for name in run_files_in(run_dir, names)]
    return f"checkpoints kept: {', '.join(found)}" if found else f"no checkpoint was written in {run_dir}"
