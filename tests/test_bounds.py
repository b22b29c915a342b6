"""Every size a user gives has a bound, a named constant, checked before any work: a size past it is one clear error
before a game is played, an agent is made or a file is written, and a size within it is taken as given."""

from __future__ import annotations

import numpy as np
import pytest

import gin_env  # noqa: F401 -- registers GinRummy-v0
from gin_env.evaluation import runner
from gin_env.game.room import MAX_MEMBERS
from tests.refusals import refused_command


@pytest.fixture
def no_games(monkeypatch):
    """Any game played, or worker pool started, fails the test: the refusal must come first."""
    def played(*args, **kwargs):
        raise AssertionError("a game was played before the refusal")

    from gin_env.datasets import collect
    from gin_env.evaluation import tournament
    from gin_env.training import belief

    monkeypatch.setattr(runner, "start_pool", played)
    monkeypatch.setattr(runner, "play_in_pieces", played)
    monkeypatch.setattr(tournament, "play_lineups", played)
    monkeypatch.setattr(collect, "collect", played)
    monkeypatch.setattr(belief, "collect", played)


def test_workers_past_the_bound_are_refused_by_every_command(tmp_path, capsys, no_games):
    bound = runner.MAX_WORKERS_PER_CORE * runner.usable_cores()
    too_many = str(bound + 1)
    out = tmp_path / "out"
    for argv in (["evaluate", "random", "simple", "--deals", "2", "--json", str(out), "--workers", too_many],
                 ["dataset", "random", "simple", "--hands", "2", "--root", str(out), "--workers", too_many],
                 ["train-belief", "--out", f"{out}.npz", "--games", "2", "--workers", too_many]):
        line = refused_command(argv, "--workers", tmp_path, capsys)
        assert f"at most {bound}" in line
    assert not list(tmp_path.iterdir())


def test_workers_are_never_more_than_the_pieces_of_work(monkeypatch):
    """Eight workers for one piece of work play it in this process: no pool of idle workers is started."""
    monkeypatch.setattr(runner, "start_pool", lambda *args: pytest.fail("a pool started for one piece of work"))
    results = runner.play_in_pieces(_square, 3, range(4), 10, 8, False, "game")
    assert results == [[9, 9, 9, 9]]
    assert runner.pool_size(8, 3) == 3 and runner.pool_size(2, 3) == 2 and runner.pool_size(8, 0) == 1


def _square(job: int, start: int, stop: int, on_game) -> list[int]:
    return [job * job for _ in range(start, stop)]


def test_a_room_holds_at_most_100_members_in_every_place_a_room_is_given(tmp_path, capsys, monkeypatch):
    """R58: a room holds at most 100 members in all; a larger one is refused before any member's agent is made."""
    import gymnasium as gym

    from gin_env.envs import roles

    assert MAX_MEMBERS == 100
    gym.make("GinRummy-v0", room=(MAX_MEMBERS // 2, MAX_MEMBERS - MAX_MEMBERS // 2), learner_seat=0).close()
    monkeypatch.setattr(roles, "resolve_roles", lambda *args: pytest.fail("agents made before the room's check"))
    for room in ((1, MAX_MEMBERS), (1, 10**9), (10**9, 10**9)):
        with pytest.raises(ValueError, match=r"at most 100 in all \(R58\)"):
            gym.make("GinRummy-v0", room=room)
    refused_command(["dataset", "simple", "random", "--hands", "2", "--room", "1", "1000000000", "--root",
                     str(tmp_path), "--no-progress"], "R58", tmp_path, capsys)
    assert not list(tmp_path.iterdir())
    pytest.importorskip("pettingzoo")
    from gin_env.envs import pettingzoo

    with pytest.raises(ValueError, match=r"at most 100 in all \(R58\)"):
        pettingzoo.GinRummyAEC(room=(1, 10**9))


def test_search_samples_are_bounded_and_played_in_bounded_batches(monkeypatch):
    from gin_env import agents
    from gin_env.agents import search

    for spec in (f"search[samples={search.MAX_SAMPLES + 1}]", "search[samples=100000000]",
                 f"search[round_samples={search.BATCH_SAMPLES + 1}]"):
        with pytest.raises(ValueError, match=r"samples' must lie in \[1, "):
            agents.load(spec)
    # Whatever the number of samples, no batch of rollouts holds more than BATCH_SAMPLES of them.
    batches = []

    def rollouts(self, view, candidates, n, rng):
        batches.append(n)
        return np.zeros((n, len(candidates)))

    monkeypatch.setattr(search.SearchAgent, "_rollout_values", rollouts)
    agent = search.SearchAgent(samples=search.MAX_SAMPLES, trust=None)
    values = agent.sample_values(None, [0, 1], np.random.default_rng(0))
    assert values.shape == (search.MAX_SAMPLES, 2)
    assert sum(batches) == search.MAX_SAMPLES and max(batches) == search.BATCH_SAMPLES


def test_train_belief_refuses_before_any_game_a_width_its_loader_would_refuse(tmp_path, capsys, no_games):
    from gin_env.belief import network
    from gin_env.training.belief import HIDDEN_LAYERS

    def weights(width: int) -> int:
        units = (network.INPUTS, *(width,) * HIDDEN_LAYERS, 52)
        return sum(a * b + b for a, b in zip(units, units[1:]))

    widest = max(w for w in range(1, 4096) if weights(w) <= network.MAX_WEIGHTS)
    # The widest network train-belief would write, the loader reads; one unit wider, both refuse.
    units = (network.INPUTS, *(widest,) * HIDDEN_LAYERS, 52)
    arrays = {}
    for i, (a, b) in enumerate(zip(units, units[1:])):
        arrays[f"w{i}"], arrays[f"b{i}"] = np.zeros((a, b), np.float32), np.zeros(b, np.float32)
    np.savez(tmp_path / "widest.npz", **arrays)
    assert len(network.load_layers(str(tmp_path / "widest.npz"))) == HIDDEN_LAYERS + 1
    network.check_hidden_widths((widest,) * HIDDEN_LAYERS, "--width")
    out = tmp_path / "belief.npz"
    for width in (widest + 1, 100_000_000):
        line = refused_command(["train-belief", "--out", str(out), "--games", "2", "--width", str(width)],
                               f"--width {width}", tmp_path, capsys)
        assert f"at most {network.MAX_WEIGHTS:,}" in line
    assert not out.exists()


def test_the_vector_env_holds_at_most_max_num_envs_games(monkeypatch):
    from gin_env.envs import vector
    from gin_env.table import batched

    assert batched.check_num_envs(batched.MAX_NUM_ENVS) == batched.MAX_NUM_ENVS
    monkeypatch.setattr(vector, "BatchTable", lambda *args: pytest.fail("games made before the check"))
    for num_envs in (batched.MAX_NUM_ENVS + 1, 10**12):
        with pytest.raises(ValueError, match=f"num_envs must be at most {batched.MAX_NUM_ENVS:,}"):
            vector.GinRummyVectorEnv(num_envs=num_envs)


def test_game_counts_past_their_bound_are_refused_by_every_command(tmp_path, capsys, no_games):
    """The games of an evaluation, the episodes of a dataset and the games of a belief fit are each kept in memory
    until the end: a count past its bound is refused before the first game, nothing written."""
    from gin_env.datasets.collect import MAX_EPISODES
    from gin_env.training.belief import MAX_GAMES as BELIEF_GAMES

    out = tmp_path / "out"
    for argv, option in ((["evaluate", "random", "simple", "--json", str(out), "--deals"], runner.MAX_GAMES),
                         (["evaluate", "random", "simple", "--json", str(out), "--matches"], runner.MAX_GAMES),
                         (["dataset", "random", "simple", "--root", str(out), "--hands"], MAX_EPISODES),
                         (["train-belief", "--out", f"{out}.npz", "--games"], BELIEF_GAMES)):
        line = refused_command([*argv, str(option + 1)], argv[-1], tmp_path, capsys)
        assert f"at most {option:,}" in line
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("argv, option", [(["--hidden", "100000000"], "--hidden"),
                                          (["--channels", "5000"], "--channels"),
                                          (["--num-envs", "10000000"], "--num-envs"),
                                          (["--num-envs", "4096", "--n-steps", "4096"], "--n-steps"),
                                          (["--snapshots", "1000000"], "--snapshots"),
                                          (["--threads", "100000"], "--threads")])
def test_train_refuses_a_size_past_its_bound_before_any_step(tmp_path, capsys, argv, option):
    """A network, a rollout or a pool of snapshots too large for the memory is refused before a model is built."""
    run_dir = tmp_path / "run"
    refused_command(["train", "--run-dir", str(run_dir), "--total-timesteps", "64", *argv], option, tmp_path, capsys)
    assert not run_dir.exists()
