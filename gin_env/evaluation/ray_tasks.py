"""The tournament's chunks as Ray tasks (``evaluate --ray [ADDRESS]``), the optional ``ray`` extra.

This module owns only the executor: the chunks, their seeds and the reassembly by game number are the runner's
(:func:`.runner.play_lineups`), and a task plays its games as a worker process does (:func:`.lineups.play_chunk`),
so a run on Ray gives the report of a local run, number for number, in every format. Ray schedules
the tasks over the cluster's CPUs, moves the data and retries: every model file is put in the object store once and
every task reads it from there (a worker writes it to its own disk once); results come back in completion order; a
task whose worker or node dies is run again by Ray (``MAX_RETRIES``), and since a task returns its games instead of
writing them anywhere, a retried chunk is counted once. A task that raises is not run again: its games are a
function of the task alone, so it would raise again; :class:`TaskError` carries its error to the caller. Before
connecting to a cluster's ``HOST:PORT``, something must answer there within :data:`CONNECT_TIMEOUT` seconds, as
``ray.init`` would otherwise wait for it for many minutes.

Test hook: when the environment variable named by :data:`FAULT_VARIABLE` holds ``raise:PATH`` or ``exit:PATH``,
the first task to create the file PATH (on its node) fails: it raises, or its worker process exits. Every other
task, and the retried one, finds the file there and plays. Unset, the hook does nothing.
"""

from __future__ import annotations

import hashlib
import os
import socket
import tempfile
from collections.abc import Iterator

import numpy as np

from gin_env import agents
from gin_env.evaluation.lineups import Task, cached_agent, play_chunk
from gin_env.optional import require

#: How many times Ray runs a task again whose worker or node was lost, before giving up.
MAX_RETRIES = 3
#: Seconds to wait for a cluster's address to answer before giving up on it.
CONNECT_TIMEOUT = 5.0
#: The fault-injection hook for tests (see the module docstring).
FAULT_VARIABLE = "GIN_ENV_TEST_RAY_FAULT"
#: Exit status of a worker that the hook ends.
FAULT_EXIT_STATUS = 3
#: Where a worker keeps the model files it received, named by their content.
MODEL_CACHE = os.path.join(tempfile.gettempdir(), "gin-env-models")


class InjectedFault(RuntimeError):
    """The failure that the test hook raises in one task."""


class TaskError(RuntimeError):
    """A task's games raised: the message names the games and the error, which is the ``__cause__``."""


#: The address that starts a new Ray on this machine rather than joining a cluster.
LOCAL = "local"


def connect(address: str, cpus: int):
    """The ``ray`` module, connected: to a new local Ray of ``cpus`` CPUs for :data:`LOCAL`, else to the cluster at
    ``address`` (``"auto"``: the one started on this machine by ``ray start``). A process already connected stays
    as it is (and on its Ray)."""
    ray = require("ray", "evaluate --ray")
    if not ray.is_initialized():
        check_address(address)
        own = {"num_cpus": cpus} if address == LOCAL else {}
        ray.init(address=address, include_dashboard=False, log_to_driver=False, **own)
    return ray


def check_address(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Raise ``ConnectionError`` when nothing accepts a connection at a cluster's ``HOST:PORT`` (or
    ``ray://HOST:PORT``) within ``timeout`` seconds; :data:`LOCAL`, ``"auto"`` and other forms are left to Ray."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as err:
        reason = "no answer" if isinstance(err, TimeoutError) else err.strerror or str(err)
        raise ConnectionError(f"--ray {address}: no Ray cluster answers there ({reason} within {timeout:g} s); "
                              "start one with ray start --head, or check the address") from None


def play_chunks(tasks: list[Task], address: str, cpus: int) -> Iterator[tuple[Task, np.ndarray]]:
    """Play ``tasks`` as Ray tasks on the Ray at ``address`` (see :func:`connect`); yields ``(task, games)`` as each
    finishes. Pending tasks are cancelled if the caller stops early (Ctrl-C)."""
    ray = connect(address, cpus)
    models = ray.put(_model_files(tasks))
    fault = os.environ.get(FAULT_VARIABLE)
    remote = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(run_task)
    pending = {remote.remote(task, models, fault): task for task in tasks}
    try:
        while pending:
            refs = list(pending)
            ray.wait(refs, num_returns=1)  # until one is done
            # Then every task done by now, in one call: a call per task would cost the driver time in the number
            # of tasks for every task, on a big cluster with thousands of them.
            done, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
            for ref in done:
                task = pending.pop(ref)
                yield task, _result(ray, ref, task)
    finally:
        for ref in pending:
            ray.cancel(ref)


def _result(ray, ref, task: Task) -> np.ndarray:
    """The games of a finished task; :class:`TaskError` with the task's own error in one line when it raised (Ray's
    message for it is the remote traceback, tens of lines)."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as err:
        cause = getattr(err, "cause", None) or err
        first_line = next(iter(str(cause).splitlines()), "")
        raise TaskError(f"games {task.start}..{task.stop - 1} of {' against '.join(task.names)} failed on Ray: "
                        f"{type(cause).__name__}: {first_line}") from cause


def _model_files(tasks: list[Task]) -> dict[str, tuple[str, bytes]]:
    """Path -> (file name, content) of every model file the agents name, as the agent itself or as a parameter's
    value (``search[guide=PATH]``): what the workers need to load them on a machine where the driver's paths do not
    exist."""
    paths = {path for task in tasks for name in task.names for path in _paths_in(name)}
    files = {}
    for path in sorted(paths):
        with open(path, "rb") as f:
            files[path] = (os.path.basename(path), f.read())
    return files


def _paths_in(name: str) -> list[str]:
    """The model files agent ``name`` reads: itself, or its parameters' values that are paths."""
    if agents.is_path(name):
        return [name]
    _, parameters = agents.split_parameters(name)
    return [value for value in parameters.values() if isinstance(value, str) and agents.is_path(value)]


def run_task(task: Task, models: dict[str, tuple[str, bytes]], fault: str | None) -> np.ndarray:
    """A Ray task: the games of ``task`` (as ``lineups.play_chunk``), with every model file an agent names read
    from its copy in ``models``."""
    if fault is not None:
        _inject(fault)
    return play_chunk(task, load=lambda name: cached_agent(_on_this_machine(name, models)))


def _on_this_machine(name: str, models: dict[str, tuple[str, bytes]]) -> str:
    """``name`` with each model file it names replaced by this machine's copy of it."""
    if name in models:
        return _local_copy(*models[name])
    base, parameters = agents.split_parameters(name)
    copies = {key: _local_copy(*models[value]) for key, value in parameters.items()
              if isinstance(value, str) and value in models}
    return agents.join_parameters(base, {**parameters, **copies}) if copies else name


def _local_copy(file_name: str, content: bytes) -> str:
    """The path of ``content`` on this machine, written once per content (atomically, as workers share the
    folder); it keeps ``file_name``'s extension, which decides how ``agents.load`` reads it."""
    digest = hashlib.sha256(content).hexdigest()[:16]
    path = os.path.join(MODEL_CACHE, digest, file_name)
    if not os.path.isfile(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        partial = f"{path}.{os.getpid()}.partial"
        with open(partial, "wb") as f:
            f.write(content)
        os.replace(partial, path)
    return path


def _inject(fault: str) -> None:
    """The test hook: fail if this task is the first to create the marker file (``raise:PATH`` or ``exit:PATH``)."""
    kind, _, path = fault.partition(":")
    if kind not in ("raise", "exit") or not path:
        raise ValueError(f"{FAULT_VARIABLE} must be raise:PATH or exit:PATH, got {fault!r}")
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    if kind == "exit":
        os._exit(FAULT_EXIT_STATUS)
    raise InjectedFault(f"injected by {FAULT_VARIABLE}: this task fails once")
