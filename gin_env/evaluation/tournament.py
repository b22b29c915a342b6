"""The duplicate-game tournament: every pair of agents plays the same deals in both seatings, the games cut into
chunks that worker processes play in any order and put back in place, so the numbers depend only on the agents, the
rules, the number of games and the seed; :func:`evaluate` is the whole round robin and its report."""

from __future__ import annotations

import functools
import itertools
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from multiprocessing import get_context
from typing import NamedTuple

import numpy as np

from gin_env import agents
from gin_env.evaluation import duel
from gin_env.evaluation.progress import Progress
from gin_env.evaluation.stats import N_COLUMNS, fit_elo, pair_stats
from gin_env.game.rules import Rules
from gin_env.replay import recorder as recording
from gin_env.replay import replay_file as replay

#: Games per task sent to a worker: small enough for an even split and a live progress bar, large enough that
#: inter-process traffic stays negligible.
CHUNK = {"deals": 100, "matches": 10}
#: What one duplicate game is called, for the progress bar.
UNIT = {"deals": "deal", "matches": "match"}
#: Seconds between looks at the worker processes' count of games played, for the progress bar.
POLL_SECONDS = 0.25
#: In a worker process: the count of duplicate games played, shared by all the workers (set by ``_init_worker``).
_games_played = None


@functools.cache
def cached_agent(name: str):
    """One instance of each agent per process: agents act on the view alone and keep no state between games."""
    return agents.load(name)


class Task(NamedTuple):
    """Games ``start..stop`` of the pair (``a``, ``b``): the unit of work a worker process plays."""

    a: str
    b: str
    rules: Rules
    seed: int
    start: int
    stop: int
    replays: str | None


def play_games(rules: Rules, a, b, seed: int, games: range, replays: str | None = None,
               names: tuple[str, str] = ("a", "b"), on_game: Callable[[], None] | None = None) -> np.ndarray:
    """Play duplicate ``games`` between agents ``a`` and ``b`` in both seatings (saving replays under ``names`` in
    ``replays`` when asked, calling ``on_game()`` after each duplicate game); ``(len(games), 2 seatings,
    N_COLUMNS)`` numbers (see ``stats.POINTS`` .. ``ABANDONED``)."""
    out = np.zeros((len(games), 2, N_COLUMNS))
    for i, game in enumerate(games):
        results = duel.play_duplicate(rules, a, b, seed, game, replays=replays, names=names)
        for seating, result in enumerate(results):
            out[i, seating] = (*duel.a_side(result, seating), result.capped, result.abandoned)
        if on_game is not None:
            on_game()
    return out


def _play_chunk(task: Task, on_game: Callable[[], None] | None = None) -> np.ndarray:
    """Play the task's games (a worker's unit of work); in a worker, each game is counted for the progress bar."""
    if on_game is None and _games_played is not None:
        on_game = _count_game
    return play_games(task.rules, cached_agent(task.a), cached_agent(task.b), task.seed, range(task.start, task.stop),
                      task.replays, (task.a, task.b), on_game)


def _count_game() -> None:
    with _games_played.get_lock():
        _games_played.value += 1


def _init_worker(games_played=None) -> None:
    """Pool initializer: keep the shared count of games played (``games_played``, for the progress bar); and one
    torch thread per worker: torch (loaded with a PPO agent) would start a thread per core in every worker, and with
    a worker per core those threads spin against each other (a batch-of-one forward pass took 87 ms of CPU instead
    of 0.6 ms), so one thread each, set before torch is imported."""
    global _games_played
    _games_played = games_played
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = "1"


def _start_pool(workers: int, games_played):
    """``workers`` spawned processes that ignore Ctrl-C from their first instruction: a terminal sends it to every
    process in the group, and only the parent must act on it (it stops the pool). Ignored signals stay ignored
    across the spawn's exec, so SIGINT is ignored while the workers start, then handed back to the parent."""
    # Not fork: a forked worker deadlocks in torch once the parent has used it (evaluate() loads every agent first,
    # to check it, and a PPO model runs torch on loading); spawn works on every platform.
    context = get_context("spawn")
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        return context.Pool(workers, initializer=_init_worker, initargs=(games_played,))
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return context.Pool(workers, initializer=_init_worker, initargs=(games_played,))
    finally:
        signal.signal(signal.SIGINT, previous)


def play_pairs(names: list[str], rules: Rules, mode: str, n: int, seed: int, workers: int,
               progress: bool = True, replays: str | None = None,
               ray_address: str | None = None) -> dict[tuple[str, str], np.ndarray]:
    """Every pair's ``(n, 2, N_COLUMNS)`` array of numbers per duplicate game and seating (see ``play_games``).

    Games are cut into chunks that any worker may play, and reassembled by game index, so the numbers do not
    depend on ``workers``, nor on whether the chunks run as Ray tasks (``ray_address``, see ``ray_tasks.connect``)."""
    pairs = list(itertools.combinations(names, 2))
    chunk = CHUNK[mode]
    tasks = [Task(a, b, rules, seed, start, min(start + chunk, n), replays)
             for a, b in pairs for start in range(0, n, chunk)]
    results = {pair: np.zeros((n, 2, N_COLUMNS)) for pair in pairs}
    with Progress(n * len(pairs), UNIT[mode], progress) as bar:
        if ray_address is not None:
            from gin_env.evaluation import ray_tasks

            for task, block in ray_tasks.play_chunks(tasks, ray_address, workers):
                _store(results, task, block)
                bar.add(task.stop - task.start)
        elif workers > 1:
            _play_on_pool(tasks, results, workers, bar, replays)
        else:
            for task in tasks:
                _store(results, task, _play_chunk(task, bar.add))
    return results


def _play_on_pool(tasks: list[Task], results: dict, workers: int, bar: Progress, replays: str | None) -> None:
    """Play ``tasks`` on ``workers`` worker processes into ``results``; the bar follows the workers' shared count of
    games played, looked at every ``POLL_SECONDS`` while waiting for the next chunk."""
    games_played = get_context("spawn").Value("q", 0)
    pool = _start_pool(workers, games_played)
    worker_pids = [process.pid for process in multiprocessing.active_children()]
    try:
        with pool:
            blocks = pool.imap(_play_chunk, tasks)
            for task in tasks:
                _store(results, task, _next_block(blocks, lambda: bar.to(games_played.value)))
                bar.to(games_played.value)
    finally:
        # The pool is stopped (its workers joined) by now; an interrupted worker may have left a temporary.
        if replays is not None:
            replay.remove_temporaries(replays, worker_pids)


def _next_block(blocks, on_wait: Callable[[], None]) -> np.ndarray:
    """The next result of ``blocks`` (a pool's ``imap``), calling ``on_wait()`` every ``POLL_SECONDS`` until then."""
    while True:
        try:
            return blocks.next(timeout=POLL_SECONDS)
        except multiprocessing.TimeoutError:
            on_wait()


def _store(results, task: Task, block: np.ndarray) -> None:
    results[task.a, task.b][task.start:task.stop] = block


def evaluate(names: list[str], rules: Rules, mode: str, n: int, seed: int = 0, workers: int = 1,
             progress: bool = False, replays: str | None = None, ray_address: str | None = None) -> dict:
    """Round robin of ``names`` on ``n`` duplicate deals or matches; the report that ``--json`` writes. With
    ``replays`` (a directory), every hand of every seating is also saved there as a replay file. With
    ``ray_address`` (``"local"``, ``"auto"`` or a cluster's address) the games run as Ray tasks, for the same
    report."""
    if mode not in CHUNK:
        raise ValueError(f"mode must be 'deals' or 'matches', got {mode!r}")
    if n < 2:
        raise ValueError(f"the number of {mode} must be at least 2 (an interval needs two duplicate pairs), got {n}")
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError(f"give at least two distinct agents, got {names}")
    if replays is not None and ray_address is not None:
        raise ValueError("replays cannot be saved from Ray tasks (each would write to its own machine's disk): "
                         "run without --ray to save them")
    for name in names:
        agents.load(name)  # fail here, with the loader's message, before any process starts
    game_rules = rules.replace(target=None) if mode == "deals" else rules
    if replays is not None:
        recording.make_folder(replays, replay_prefixes(names, game_rules, seed))
    played = play_pairs(names, game_rules, mode, n, seed, workers, progress, replays, ray_address)
    pairs = []
    for (a, b), games in played.items():
        pairs.append({"a": a, "b": b, mode: n, **pair_stats(games)})
    if mode == "matches":
        results = [(p["a"], p["b"], p["a_match_win_rate"] * p["games"], p["games"]) for p in pairs]
    else:
        results = [(p["a"], p["b"], p["a_duplicate_win_rate"] * n, n) for p in pairs]
    elo = fit_elo(names, results)
    return {"rules": rules.name, "mode": mode, "seed": seed, "agents": names, "pairs": pairs, "elo": elo}


def replay_prefixes(names: list[str], rules: Rules, seed: int) -> tuple[str, ...]:
    """The beginnings of this run's replay names, one per pair: a folder holding one holds a run with the same
    preset, seed and agents (``recording.check_folder``)."""
    return tuple(recording.run_prefix(rules, seed, pair) + "-game" for pair in itertools.combinations(names, 2))
