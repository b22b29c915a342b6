"""Where a tournament's games are played: every line-up's games cut into chunks (:class:`.lineups.Task`) that are
played in this process, by worker processes in any order, or as Ray tasks (:mod:`.ray_tasks`), and put back in
place by game number, so the numbers depend only on the agents, the rules, the number of games and the seed."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from multiprocessing import get_context

import numpy as np

from gin_env.arguments import at_least
from gin_env.evaluation import ray_tasks
from gin_env.evaluation.lineups import Task, lineups, play_chunk
from gin_env.evaluation.progress import Progress
from gin_env.game.rules import Rules
from gin_env.replay import replay_file as replay

#: Games per task sent to a worker: small enough for an even split and a live progress bar, large enough that
#: inter-process traffic stays negligible.
CHUNK = {"deals": 100, "matches": 10}
#: What one game of a line-up (in all its seatings) is called, for the progress bar.
UNIT = {"deals": "deal", "matches": "match"}
#: Seconds between looks at the worker processes' count of games played, for the progress bar.
POLL_SECONDS = 0.25
#: In a worker process: the count of games played, shared by all the workers (set by ``_init_worker``).
_games_played = None
#: The most worker processes per core this process may run on (``--workers``). A worker past the cores only waits
#: for one, and each holds its own copy of the agents: a hundred thousand of them exhaust the memory and the
#: scheduler long before the first game.
MAX_WORKERS_PER_CORE = 4
#: The most games (``--deals`` or ``--matches``) per line-up: each game's numbers are kept until the report, and the
#: tasks are listed before the first game. A million is days of play for the search and minutes for the heuristics.
MAX_GAMES = 1_000_000


def usable_cores() -> int:
    """The cores this process may run on: its affinity mask where the platform has one, else every core."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def worker_count(text: str) -> int:
    """The argparse ``type`` of ``--workers``: an integer from 1 to :data:`MAX_WORKERS_PER_CORE` times the usable
    cores (:func:`usable_cores`), refused in one line otherwise."""
    cores = usable_cores()
    return at_least(1, most=MAX_WORKERS_PER_CORE * cores,
                    why_most=f" ({MAX_WORKERS_PER_CORE} per core, {cores} cores usable)")(text)


def pool_size(workers: int, pieces: int) -> int:
    """The worker processes to start for ``pieces`` pieces of work: never more than there are pieces to play."""
    return max(1, min(workers, pieces))


def play_lineups(names: list[str], rules: Rules, mode: str, n: int, seed: int, workers: int,
                 progress: bool = True, replays: str | None = None,
                 ray_address: str | None = None, gauntlet: bool = False) -> dict[tuple[str, ...], np.ndarray]:
    """Every line-up's numbers per game (``lineups.play_chunk``'s, ``n`` games in all), by line-up in the order of
    ``lineups.lineups`` (with ``gauntlet``, the first name against each other one).

    Games are cut into chunks that any worker may play, and reassembled by game number, so the numbers do not
    depend on ``workers``, nor on whether the chunks run as Ray tasks (``ray_address``, see ``ray_tasks.connect``)."""
    chunk = CHUNK[mode]
    every = lineups(names, rules.players, gauntlet)
    tasks = [Task(lineup, rules, seed, start, min(start + chunk, n), replays)
             for lineup in every for start in range(0, n, chunk)]
    results: dict[tuple[str, ...], np.ndarray] = {}
    processes = pool_size(workers, len(tasks))
    with Progress(n * len(every), UNIT[mode], progress) as bar:
        if ray_address is not None:
            for task, block in ray_tasks.play_chunks(tasks, ray_address, workers):
                _store(results, task, block, n)
                bar.add(task.stop - task.start)
        elif processes > 1:
            _play_on_pool(tasks, results, n, processes, bar, replays)
        else:
            for task in tasks:
                _store(results, task, play_chunk(task, bar.add), n)
    return {lineup: results[lineup] for lineup in every}


def _store(results: dict, task: Task, block: np.ndarray, n: int) -> None:
    """Put a task's numbers in place among its line-up's ``n`` games."""
    if task.names not in results:
        results[task.names] = np.zeros((n, *block.shape[1:]))
    results[task.names][task.start:task.stop] = block


def _play_task(task: Task) -> np.ndarray:
    """A worker's unit of work: the task's games, each counted for the progress bar."""
    return play_chunk(task, count_game)


def count_game() -> None:
    """In a worker of :func:`start_pool`: one more game played, for the bar in the parent process."""
    with _games_played.get_lock():
        _games_played.value += 1


#: The variables that size the thread pools of the BLAS under numpy (OpenBLAS, MKL) and of torch. Each library reads
#: them once, when it loads, so a worker must have them from its start: set in the worker after numpy is imported,
#: they change nothing, and two workers of two BLAS threads each on two cores ran the search 4.8 times slower.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _init_worker(games_played=None) -> None:
    """Pool initializer: keep the shared count of games played (``games_played``, for the progress bar)."""
    global _games_played
    _games_played = games_played


@contextlib.contextmanager
def one_thread_children():
    """Within the block, processes started inherit one thread for numpy's BLAS and for torch
    (:data:`THREAD_VARIABLES`): workers fill the cores already, and a library's own threads in each spin against each
    other's (torch took 87 ms of CPU for a batch-of-one forward pass instead of 0.6 ms). This process's environment
    is given back as it was."""
    saved = {variable: os.environ.get(variable) for variable in THREAD_VARIABLES}
    os.environ.update({variable: "1" for variable in THREAD_VARIABLES})
    try:
        yield
    finally:
        for variable, value in saved.items():
            if value is None:
                del os.environ[variable]
            else:
                os.environ[variable] = value


def start_pool(workers: int, games_played):
    """``workers`` spawned processes of one BLAS and torch thread each (:func:`one_thread_children`) that ignore
    Ctrl-C from their first instruction: a terminal sends it to every process in the group, and only the parent must
    act on it (it stops the pool). Ignored signals stay ignored across the spawn's exec, so SIGINT is ignored while
    the workers start, then handed back to the parent."""
    # Not fork: a forked worker deadlocks in torch once the parent has used it (evaluate() loads every agent first,
    # to check it, and a PPO model runs torch on loading); spawn works on every platform.
    context = get_context("spawn")
    with one_thread_children():
        if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
            return context.Pool(workers, initializer=_init_worker, initargs=(games_played,))
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            return context.Pool(workers, initializer=_init_worker, initargs=(games_played,))
        finally:
            signal.signal(signal.SIGINT, previous)


def _play_on_pool(tasks: list[Task], results: dict, n: int, workers: int, bar: Progress,
                  replays: str | None) -> None:
    """Play ``tasks`` on ``workers`` worker processes into ``results``; the bar follows the workers' shared count of
    games played, looked at every ``POLL_SECONDS`` while waiting for the next chunk."""
    games_played = get_context("spawn").Value("q", 0)
    pool = start_pool(workers, games_played)
    worker_pids = [process.pid for process in multiprocessing.active_children()]
    try:
        with pool:
            blocks = pool.imap(_play_task, tasks)
            for task in tasks:
                _store(results, task, next_result(blocks, lambda: bar.to(games_played.value)), n)
                bar.to(games_played.value)
    finally:
        # The pool is stopped (its workers joined) by now; an interrupted worker may have left a temporary.
        if replays is not None:
            replay.remove_temporaries(replays, worker_pids)


def play_in_pieces(play: Callable, job, games: range, chunk: int, workers: int, progress: bool, unit: str) -> list:
    """``play(job, start, stop, on_game)`` for each piece of ``chunk`` games of ``games``, the results in order: in
    this process (one worker, or one piece), else on ``workers`` processes of :func:`start_pool`. ``on_game()`` after
    each game moves a bar of ``unit``\\ s. ``play`` and ``job`` travel to the workers, so ``play`` must be a
    module-level function and ``job`` picklable."""
    pieces = [(play, job, start, min(start + chunk, games.stop)) for start in range(games.start, games.stop, chunk)]
    processes = pool_size(workers, len(pieces))
    with Progress(len(games), unit, progress, "playing") as bar:
        if processes == 1:
            return [play(job, start, stop, bar.add) for _, _, start, stop in pieces]
        games_played = get_context("spawn").Value("q", 0)
        with start_pool(processes, games_played) as pool:
            blocks = pool.imap(_play_piece, pieces)
            results = []
            for _ in pieces:
                results.append(next_result(blocks, lambda: bar.to(games_played.value)))
                bar.to(games_played.value)
    return results


def _play_piece(piece: tuple) -> object:
    """In a worker of :func:`play_in_pieces`: one piece, each game counted for the parent's bar."""
    play, job, start, stop = piece
    return play(job, start, stop, count_game)


def next_result(blocks, on_wait: Callable[[], None]):
    """The next result of ``blocks`` (a pool's ``imap``), calling ``on_wait()`` every ``POLL_SECONDS`` until then."""
    while True:
        try:
            return blocks.next(timeout=POLL_SECONDS)
        except multiprocessing.TimeoutError:
            on_wait()
