"""Ray (issue 14) on one local Ray for the whole module (``ray.init(num_cpus=2)``): ``evaluate --ray`` gives the
local report key for key and number for number, in every format, model files included; a task whose worker dies is
run again by Ray and the report is unchanged, and one that raises stops the run with its error in one line (issue 29);
``train_rllib.py --iterations 2`` trains without an illegal action, resumes from its checkpoint, and writes a
``policy.pt`` that plays a full evaluation without Ray."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from gin_env import agents

ray = pytest.importorskip("ray")

from gin_env.evaluation import cli, ray_tasks, runner, tournament  # noqa: E402
from gin_env.evaluation.lineups import Task  # noqa: E402
from gin_env.game.rules import Rules  # noqa: E402
from gin_env.training import rllib_loop  # noqa: E402

# RLlib registers its env wrapper with gymnasium on every build, and gymnasium warns from the second build on.
pytestmark = [pytest.mark.slow,
              pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0")]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Small PPO iterations: the test checks that training runs, checkpoints, resumes and exports, not what it learns.
SMALL_RUN = ["--batch-size", "600", "--minibatch-size", "200", "--num-epochs", "1", "--snapshots", "2",
             "--snapshot-every", "1", "--no-progress"]


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 3 games, so a handful of games makes several tasks, finishing in any order."""
    monkeypatch.setitem(runner.CHUNK, "deals", 3)
    monkeypatch.setitem(runner.CHUNK, "matches", 3)


@pytest.fixture(scope="module")
def run_dir(local_ray, tmp_path_factory):
    """``train_rllib.py --iterations 2`` (small iterations), then ``--resume`` to a third. The env raises on an
    illegal action (``IllegalActionError``), so a run that ends has sampled none."""
    folder = str(tmp_path_factory.mktemp("rllib_run"))
    assert rllib_loop.main(["--iterations", "2", "--run-dir", folder, "--seed", "3", *SMALL_RUN]) == 0
    with open(os.path.join(folder, rllib_loop.LEAGUE_FILE)) as f:
        first = json.load(f)
    assert rllib_loop.main(["--iterations", "3", "--run-dir", folder, "--seed", "3", "--resume", *SMALL_RUN]) == 0
    return folder, first


def test_evaluate_on_ray_is_the_local_report(local_ray, small_chunks):
    names = ["simple", "random", "expert"]
    local = tournament.evaluate(names, Rules.preset("eaai"), "deals", 10, seed=5, workers=1)
    assert tournament.evaluate(names, Rules.preset("eaai"), "deals", 10, seed=5, ray_address="local") == local
    matches = tournament.evaluate(["simple", "random"], Rules.preset("eaai"), "matches", 4, seed=2, workers=1)
    assert tournament.evaluate(["simple", "random"], Rules.preset("eaai"), "matches", 4, seed=2,
                               ray_address="local") == matches
    for players in (3, 4):
        rules = Rules.preset("eaai").replace(players=players)
        local = tournament.evaluate(names, rules, "matches", 4, seed=1, workers=1)
        assert tournament.evaluate(names, rules, "matches", 4, seed=1, ray_address="local") == local


def test_a_task_whose_worker_dies_is_retried_and_the_report_is_unchanged(local_ray, small_chunks, tmp_path,
                                                                        monkeypatch):
    names = ["simple", "random"]
    local = tournament.evaluate(names, Rules(), "deals", 12, seed=4, workers=1)
    marker = tmp_path / "failed-once"
    monkeypatch.setenv(ray_tasks.FAULT_VARIABLE, f"exit:{marker}")
    assert tournament.evaluate(names, Rules(), "deals", 12, seed=4, ray_address="local") == local
    assert marker.exists()  # one task did fail


def test_a_task_that_raises_is_not_retried_and_its_error_is_one_line(local_ray, small_chunks, tmp_path, monkeypatch,
                                                                     capsys):
    """A task's games depend on the task alone, so an error in them would come back on every retry: the run stops
    at the first, and the command line says what it was in one line, not in Ray's remote traceback."""
    marker = tmp_path / "failed-once"
    monkeypatch.setenv(ray_tasks.FAULT_VARIABLE, f"raise:{marker}")
    with pytest.raises(ray_tasks.TaskError, match="failed on Ray: InjectedFault: injected by") as failure:
        tournament.evaluate(["simple", "random"], Rules(), "deals", 12, seed=4, ray_address="local")
    assert isinstance(failure.value.__cause__, ray_tasks.InjectedFault)
    # A marker of its own: a task of the first run still in flight when it stopped may create the first one late.
    monkeypatch.setenv(ray_tasks.FAULT_VARIABLE, f"raise:{tmp_path / 'failed-once-cli'}")
    assert cli.main(["simple", "random", "--deals", "12", "--seed", "4", "--no-progress", "--ray"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "InjectedFault: injected by" in err


def test_the_fault_hook_fails_the_first_task_only(tmp_path):
    task = Task(("simple", "random"), Rules(), 0, 0, 2, None)
    fault = f"raise:{tmp_path / 'marker'}"
    with pytest.raises(ray_tasks.InjectedFault):
        ray_tasks.run_task(task, {}, fault)
    np.testing.assert_array_equal(ray_tasks.run_task(task, {}, fault), ray_tasks.run_task(task, {}, None))
    with pytest.raises(ValueError, match="raise:PATH or exit:PATH"):
        ray_tasks.run_task(task, {}, "crash")


def test_a_model_file_named_in_an_agents_parameters_reaches_the_workers(tmp_path):
    from gin_env.agents import numpy_policy
    from gin_env.evaluation.lineups import play_chunk

    guide = tmp_path / "guide.npz"
    guide.write_bytes(open(numpy_policy.SHIPPED["exit"], "rb").read())
    task = Task((f"search[samples=2,guide={guide}]", "simple"), Rules.preset("eaai"), 4, 0, 2, None)
    here = play_chunk(task, load=agents.load)
    models = ray_tasks._model_files([task])
    assert list(models) == [str(guide)]
    guide.unlink()  # as on a worker's machine, where the driver's path does not exist
    np.testing.assert_array_equal(ray_tasks.run_task(task, models, None), here)


def test_the_command_line_with_ray_writes_the_local_json_and_the_trained_policy_plays(run_dir, tmp_path,
                                                                                      monkeypatch):
    folder, _ = run_dir
    policy = os.path.join(folder, "policy.pt")
    monkeypatch.chdir(tmp_path)
    common = [policy, "random", "--deals", "6", "--seed", "1", "--no-progress"]
    assert cli.main([*common, "--workers", "1", "--json", "local.json"]) == 0
    assert cli.main([*common, "--ray", "--json", "ray.json"]) == 0
    assert (tmp_path / "ray.json").read_text() == (tmp_path / "local.json").read_text()
    # The model went through the object store: the workers' copy is the file, under its own name.
    with open(policy, "rb") as f:
        content = f.read()
    copies = [os.path.join(root, name) for root, _, files in os.walk(ray_tasks.MODEL_CACHE) for name in files
              if name == "policy.pt"]
    assert any(open(copy, "rb").read() == content for copy in copies)


def test_replays_are_not_asked_of_ray_tasks(capsys, tmp_path):
    for players in ("2", "3"):
        assert cli.main(["simple", "random", "expert", "--players", players, "--deals", "2", "--ray", "--replays",
                         str(tmp_path)]) == 2
        assert "replays cannot be saved from Ray tasks" in capsys.readouterr().err


def test_train_rllib_checkpoints_resumes_and_logs(run_dir):
    folder, first = run_dir
    with open(os.path.join(folder, rllib_loop.LEAGUE_FILE)) as f:
        league = json.load(f)
    assert first["iteration"] == 2 and league["iteration"] == 3
    assert [row["iteration"] for row in league["history"]] == [1, 2, 3]
    assert league["history"][:2] == first["history"]
    assert league["next_slot"] == 1  # refreshed after iterations 1, 2 and 3 of 2 slots
    assert all(row["env_steps"] >= 600 for row in league["history"])
    assert set().union(*(row["opponents"] for row in league["history"])) <= {"simple", "expert", "self"}
    assert os.listdir(os.path.join(folder, "tb"))
    assert os.path.isdir(os.path.join(folder, rllib_loop.CHECKPOINT_DIR))


def _policy_weights(state: dict) -> dict:
    return {key: value for key, value in state.items() if key.startswith(("encoder.", "pi.")) and
            key.endswith(("weight", "bias"))}


def test_a_snapshot_refresh_reaches_the_learners_and_a_remote_env_runner(local_ray):
    """With one env runner actor: after a PPO update, refreshing snapshot 1 gives it the learner's new weights
    where it plays and where it is checkpointed; snapshot 0 keeps the weights it had."""
    args = rllib_loop.RLlibArgs(num_env_runners=1, batch_size=300, minibatch_size=100, num_epochs=1, snapshots=2,
                                progress=False)
    algo = rllib_loop.build(args)
    try:
        for slot in range(2):
            rllib_loop.refresh_snapshot(algo, slot)
        algo.train()
        rllib_loop.refresh_snapshot(algo, 1)
        learners = algo.learner_group.get_state(components="learner/rl_module")["learner"]["rl_module"]
        runner = algo.env_runner_group.foreach_env_runner(lambda r: r.module.get_state(), local_env_runner=False)[0]
        learner = _policy_weights(learners["learner"])
        for where in (learners, runner):
            snapshot_1, snapshot_0 = _policy_weights(where["snapshot_1"]), _policy_weights(where["snapshot_0"])
            assert all(np.array_equal(snapshot_1[key], learner[key]) for key in learner)
            assert not all(np.array_equal(snapshot_0[key], learner[key]) for key in learner)
    finally:
        algo.stop()


def test_the_policy_plays_a_full_evaluation_against_random_without_ray(run_dir, tmp_path):
    folder, _ = run_dir
    code = ("import sys\nsys.modules['ray'] = None\n"
            "from gin_env.evaluation.cli import main\n"
            f"sys.exit(main([{os.path.join(folder, 'policy.pt')!r}, 'random', '--deals', '20', '--workers', '1', "
            "'--no-progress', '--json', 'out.json']))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": ROOT})
    assert result.returncode == 0, result.stderr
    pair = json.loads((tmp_path / "out.json").read_text())["pairs"][0]
    assert pair["deals"] == 20 and pair["games"] == 40 and pair["hands"] == 40
