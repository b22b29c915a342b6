"""experiments/iterate.py (expert iteration): a run plays the search, clones it into the previous generation's
model, trains PPO, exports the network and measures it; an interrupted run resumes at the stage it was in without
redoing the finished ones; every bad option is refused in one line before anything is written. ``gin-env iterate``
names the script that replaces it."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

import pytest

from gin_env import agents, cli
from gin_env.training import loop
from tests.refusals import assert_refused, snapshot

#: The pipeline imports its modules as ``iteration.*``, as it does when experiments/iterate.py runs it.
EXPERIMENTS = str(Path(__file__).resolve().parents[1] / "experiments")
if EXPERIMENTS not in sys.path:
    sys.path.append(EXPERIMENTS)
from iteration import options, pipeline  # noqa: E402

PROG = options.PROG
#: The smallest run that goes through every stage: 4 hands of a 2-sample search in two shards, one PPO rollout,
#: 2 duplicate matches per measure.
TINY = ["--rules", "eaai", "--hands", "4", "--shard-hands", "2", "--search", "samples=2", "--ppo-steps", "100",
        "--play-opponents", "simple,guide", "--ppo-opponents", "0:simple=1,guide=1", "--measure-matches", "2",
        "--measure-against", "simple", "--workers", "1", "--no-progress"]


def _mtimes(folder) -> dict:
    return {path: os.stat(os.path.join(folder, path)).st_mtime_ns for path in sorted(os.listdir(folder))}


@pytest.mark.slow
def test_a_run_interrupted_while_learning_resumes_there_and_measures_its_generations(tmp_path, monkeypatch, capsys):
    run_dir = str(tmp_path / "exit")
    real_train = loop.train

    def interrupted(args, history=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(loop, "train", interrupted)
    assert pipeline.main(["--run-dir", run_dir, *TINY], PROG) == 130
    assert "--resume" in capsys.readouterr().err
    play = os.path.join(run_dir, "gen-1", "play")
    shards = _mtimes(play)
    assert sorted(shards) == ["shard-000-v0", "shard-001-v0"]
    assert not os.path.exists(os.path.join(run_dir, "gen-1", "network.npz"))

    monkeypatch.setattr(loop, "train", real_train)
    assert pipeline.main(["--run-dir", run_dir, "--resume", "--no-progress"], PROG) == 0
    assert _mtimes(play) == shards, "the finished play stage was played again"
    out = capsys.readouterr().out
    assert "generation 1, play" not in out and "generation 1, learn: cloning" in out

    state = json.load(open(os.path.join(run_dir, "iteration.json"), encoding="utf-8"))
    assert state["options"]["hands"] == 4 and state["options"]["rules"] == "eaai"
    clone = state["generations"]["1"]["clone"]
    assert clone["decisions"] > 10 and 0 <= clone["held_out_agreement"] <= 1
    cloned = pipeline.model_steps(os.path.join(run_dir, "gen-1", "clone", "last.zip"))
    assert state["generations"]["1"]["ppo"]["steps"] >= cloned + 100
    # The shards recorded the search on generation 0's network against simple, then against that network.
    for k, opponent in enumerate(("simple", os.path.join(run_dir, "gen-0", "network.npz"))):
        from gin_env.datasets import decisions

        dataset = decisions.open_dataset(os.path.join(play, pipeline.shard_id(k)))
        meta = dataset.storage.metadata["gin_env"]
        assert meta["player"]["agent"].startswith("search-v2[samples=2,guide=")
        assert decisions.env_kwargs(dataset)["opponent"] == opponent
        assert meta["episodes"] == 2

    network = agents.load(os.path.join(run_dir, "gen-1", "network.npz"))
    assert callable(network.act_batch)
    curve = json.load(open(os.path.join(run_dir, "curve.json"), encoding="utf-8"))
    assert [row["generation"] for row in curve] == [0, 1]
    assert set(curve[0]["against"]) == {"simple"} and set(curve[1]["against"]) == {"simple", "previous"}
    assert all(0 <= entry["win_rate"] <= 1 for row in curve for entry in row["against"].values())
    assert os.path.getsize(os.path.join(run_dir, "curve.png")) > 0

    assert state["generations"]["1"]["plan"] == {"ppo_steps": 100, "ppo_opponents": "0:simple=1,guide=1"}

    # A finished run resumed again redoes nothing, even with a new PPO plan, which is for generations to come.
    before = snapshot(run_dir, times=True)
    assert pipeline.main(["--run-dir", run_dir, "--resume", "--ppo-steps", "500", "--no-progress"], PROG) == 0, \
        capsys.readouterr().err
    changed = {path for path, value in snapshot(run_dir, times=True).items() if before.get(path) != value}
    assert changed <= {"iteration.json", "curve.json", "curve.png"}
    state = json.load(open(os.path.join(run_dir, "iteration.json"), encoding="utf-8"))
    assert state["options"]["ppo_steps"] == 500 and state["generations"]["1"]["plan"]["ppo_steps"] == 100


def _a_run(folder) -> None:
    """A run folder as a started run leaves it: its state with the default options."""
    os.makedirs(folder)
    state = {"version": "0", "options": dataclasses.asdict(options.IterateArgs(run_dir=str(folder))),
             "generations": {}}
    with open(os.path.join(folder, options.STATE_FILE), "w", encoding="utf-8") as file:
        json.dump(state, file)


BAD = [
    ("holds an expert-iteration run", ["--run-dir", "started"]),
    ("holds no expert-iteration run", ["--run-dir", "fresh", "--resume"]),
    ("--hands 5: the run in started was started with 4000", ["--run-dir", "started", "--resume", "--hands", "5"]),
    ("--search: the guide", ["--run-dir", "fresh", "--search", "guide=x.npz"]),
    ("SearchAgent has no parameter 'sample'", ["--run-dir", "fresh", "--search", "sample=2"]),
    ("--play-opponents exprt", ["--run-dir", "fresh", "--play-opponents", "expert,exprt"]),
    ("--measure-against", ["--run-dir", "fresh", "--measure-against", ","]),
    ("--ppo-opponents exprt", ["--run-dir", "fresh", "--ppo-opponents", "0:simple; 0.5:exprt"]),
    ("--ppo-opponents", ["--run-dir", "fresh", "--ppo-opponents", "0.5:simple"]),
    ("--start-actor nothing.npz", ["--run-dir", "fresh", "--start-actor", "nothing.npz"]),
    ("--start missing.zip", ["--run-dir", "fresh", "--start", "missing.zip"]),
    ("--run-dir a,b", ["--run-dir", "a,b"]),
    ("--run-dir nowhere/exit", ["--run-dir", "nowhere/exit"]),
    ("not empty", ["--run-dir", "full"]),
    ("--measure-matches must be at least 2", ["--run-dir", "fresh", "--measure-matches", "1"]),
    ("--rules: unknown rules preset 'eaia' (did you mean 'eaai'?)", ["--run-dir", "fresh", "--rules", "eaia"]),
    ("--seed", ["--run-dir", "fresh", "--seed", "-1"]),
]


@pytest.mark.parametrize("mention, argv", BAD, ids=[" ".join(argv) for _, argv in BAD])
def test_a_bad_option_is_one_line_and_writes_nothing(mention, argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _a_run(tmp_path / "started")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("a user's file\n")
    before = snapshot(tmp_path, times=True)
    code = pipeline.main([*argv, "--no-progress"], PROG)
    assert_refused(code, capsys.readouterr().err, PROG, mention)
    assert snapshot(tmp_path, times=True) == before


def test_a_resumed_run_keeps_its_options_but_for_generations_workers_and_the_ppo_plan(tmp_path):
    _a_run(tmp_path / "run")
    given = options.IterateArgs(run_dir=str(tmp_path / "run"), resume=True, generations=3, workers=1, hands=4000,
                                ppo_steps=5, ppo_opponents="0:simple")
    args, state = options.resumed(given, {"run_dir", "resume", "generations", "workers", "hands"})
    assert (args.generations, args.workers, args.hands, args.ppo_steps) == (3, 1, 4000, 4_000_000)
    assert args.ppo_opponents == options.IterateArgs().ppo_opponents
    assert state["generations"] == {}
    args, _ = options.resumed(given, {"run_dir", "resume", "ppo_steps", "ppo_opponents"})
    assert (args.ppo_steps, args.ppo_opponents, args.resume) == (5, "0:simple", True)


def test_every_stage_has_a_seed_of_its_own():
    args = options.IterateArgs()
    seeds = {options.stream_seed(args, *parts) for parts in [(1, 1, 0), (1, 1, 1), (2, 1, 0), (1, 2), (1, 3), (4,)]}
    assert len(seeds) == 6 and all(0 <= seed < 2**31 for seed in seeds)
    assert options.stream_seed(args, 4) == options.stream_seed(options.IterateArgs(hands=9), 4)


def test_gin_env_iterate_names_the_script_that_replaces_it(capsys):
    assert cli.main(["iterate", "--run-dir", "runs/exit"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gin-env iterate: error: ")
    assert "python experiments/iterate.py" in err and "exit-v1" in err
    assert "iterate" not in cli.JOBS
