"""``gin-env train`` and ``train_rllib.py`` check every option before anything happens: each bad invocation is one
line ``PROG: error: ...`` naming its option, exit code 2, and no folder or file written. A folder that holds a run
is refused unless resumed or overwritten; a resumed history is checked first; checkpoints are written whole; the
help and the argument errors need no torch, stable-baselines3 or Ray; and a run trains whole rollouts, saying so
when that is more than asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gin_env import cli
from gin_env.training import config, loop, opponents, rllib_loop, run_files
from tests.refusals import assert_refused, snapshot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Imports that fail in a subprocess, as if training's extras were not installed.
NO_EXTRAS = ("import sys\n"
             "for name in ('torch', 'sb3_contrib', 'stable_baselines3', 'ray', 'tensorboard'):\n"
             "    sys.modules[name] = None\n")
#: A small, fast run (docs/training.md's smoke run is this size too).
TINY = ["--num-envs", "64", "--slots", "4", "--n-steps", "16", "--batch-size", "256", "--n-epochs", "1",
        "--channels", "4", "--features", "32", "--hidden", "16", "--eval-every", "1000", "--eval-deals", "4",
        "--checkpoint-every", "1000", "--imitate-steps", "256", "--no-progress"]


def _refused(capsys, tmp_path, argv: list[str], option: str, prog: str = "gin-env train") -> str:
    """Run ``argv``; assert exit code 2, one line ``PROG: error: ...`` naming ``option``, and nothing written under
    ``tmp_path``. The line."""
    before = snapshot(tmp_path)
    code = cli.main(["train", *argv]) if prog == "gin-env train" else rllib_loop.main(argv, prog)
    line = assert_refused(code, capsys.readouterr().err, prog, option)
    assert snapshot(tmp_path) == before
    return line


@pytest.mark.parametrize("argv, option", [
    (["--rules", "eaia"], "--rules"),
    (["--opponents", "0:simple=5; 0.5:exprt"], "exprt"),  # a later phase, found before any cloning
    (["--opponents", "0:simple=x"], "--opponents"),
    (["--opponents", "0:simple=nan"], "--opponents"),
    (["--opponents", "0.1:simple"], "--opponents"),
    (["--opponents", "0:simple; 1.5:expert"], "--opponents"),
    (["--opponents", "0:simple,simple=2"], "--opponents"),
    (["--opponents", "0:search"], "act_batch"),
    (["--teacher", "exprt", "--imitate-steps", "0"], "--teacher"),
    (["--teacher", "search"], "act_batch"),
    (["--imitate-opponent", "nobody", "--imitate-steps", "0"], "--imitate-opponent"),
    (["--eval-opponent", "exprt", "--eval-deals", "0"], "--eval-opponent"),
    (["--slots", "0"], "--slots"),
    (["--slots", "3"], "--slots"),
    (["--seed", "-1"], "--seed"),
    (["--seed", str(2**40)], "--seed"),
    (["--total-timesteps", "-1"], "--total-timesteps"),
    (["--num-envs", "0"], "--num-envs"),
    (["--n-steps", "0"], "--n-steps"),
    (["--batch-size", "1"], "--batch-size"),
    (["--num-envs", "64", "--slots", "4", "--n-steps", "16", "--batch-size", "1023"], "--batch-size"),
    (["--n-epochs", "0"], "--n-epochs"),
    (["--snapshots", "0"], "--snapshots"),
    (["--snapshot-every", "0"], "--snapshot-every"),
    (["--eval-every", "0"], "--eval-every"),
    (["--checkpoint-every", "0"], "--checkpoint-every"),
    (["--eval-deals", "-1"], "--eval-deals"),
    (["--imitate-steps", "-1"], "--imitate-steps"),
    (["--imitate-epochs", "0"], "--imitate-epochs"),
    (["--imitate-batch-size", "0"], "--imitate-batch-size"),
    (["--learning-rate", "0"], "--learning-rate"),
    (["--learning-rate", "nan"], "--learning-rate"),
    (["--imitate-lr", "-0.001"], "--imitate-lr"),
    (["--reward-scale", "0"], "--reward-scale"),
    (["--reward-scale", "inf"], "--reward-scale"),
    (["--clip-range", "0"], "--clip-range"),
    (["--knock-weight", "-1"], "--knock-weight"),
    (["--gamma", "0"], "--gamma"),
    (["--gamma", "1.01"], "--gamma"),
    (["--gae-lambda", "1.5"], "--gae-lambda"),
    (["--ent-coef", "-0.1"], "--ent-coef"),
    (["--shaping", "-1"], "--shaping"),
    (["--channels", "0"], "--channels"),
    (["--features", "0"], "--features"),
    (["--hidden", "0"], "--hidden"),
    (["--threads", "0"], "--threads"),
    (["--device", "gpu"], "--device"),
])
def test_a_bad_option_is_one_line_naming_it_and_nothing_is_written(argv, option, tmp_path, capsys):
    _refused(capsys, tmp_path, ["--run-dir", str(tmp_path / "run"), *argv], option)


def test_what_argparse_refuses_is_one_line_too(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["train", "--slots", "four"])
    assert done.value.code == 2
    assert capsys.readouterr().err == "gin-env train: error: argument --slots: invalid int value: 'four'\n"


def test_bad_paths_are_refused_before_anything_is_written(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")  # a corrupt --resume is read by sb3-contrib's loader
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "corrupt.zip").write_bytes(b"not a zip")
    run = str(tmp_path / "run")
    _refused(capsys, tmp_path, ["--run-dir", str(tmp_path / "missing" / "run")], "--run-dir")
    _refused(capsys, tmp_path, ["--run-dir", str(tmp_path / "a_file")], "--run-dir")
    _refused(capsys, tmp_path, ["--run-dir", run, "--resume", str(tmp_path / "missing.zip")], "--resume")
    err = _refused(capsys, tmp_path, ["--run-dir", run, "--resume", str(tmp_path / "corrupt.zip")], "--resume")
    assert "corrupt.zip" in err


def test_the_default_run_dir_needs_its_parent_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert "runs" in _refused(capsys, tmp_path, [], "--run-dir")


def test_a_model_of_another_env_is_refused_as_resume(tmp_path, capsys):
    sb3 = pytest.importorskip("stable_baselines3")
    pytest.importorskip("sb3_contrib")
    import gymnasium as gym

    sb3.PPO("MlpPolicy", gym.make("CartPole-v1"), n_steps=64, batch_size=64).save(tmp_path / "cartpole.zip")
    err = _refused(capsys, tmp_path, ["--run-dir", str(tmp_path / "run"), "--resume", str(tmp_path / "cartpole.zip")],
                   "--resume")
    assert "cartpole.zip" in err


def test_cuda_is_refused_clearly_when_torch_has_none(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    if torch.cuda.is_available():
        pytest.skip("this torch has CUDA")
    assert "no CUDA device" in _refused(capsys, tmp_path, ["--run-dir", str(tmp_path / "run"), "--device", "cuda"],
                                        "--device cuda")


def _fake_run(folder, history: dict | str | None = None) -> None:
    """A run folder as a run leaves it (placeholder checkpoint files, and ``history``)."""
    folder.mkdir()
    (folder / "last.zip").write_bytes(b"a checkpoint")
    if history is not None:
        (folder / "history.json").write_text(history if isinstance(history, str) else json.dumps(history))


GOOD_HISTORY = run_files.new_history(500, "simple")


def test_a_folder_holding_a_run_is_refused_without_resume_or_overwrite(tmp_path, capsys, monkeypatch):
    _fake_run(tmp_path / "run", GOOD_HISTORY)
    err = _refused(capsys, tmp_path, ["--run-dir", str(tmp_path / "run")], "--run-dir")
    assert "holds a run" in err and "--resume" in err and "--overwrite" in err
    # The documented command, run twice, does not wipe the first run.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    _fake_run(tmp_path / "runs" / "ppo")
    assert "holds a run" in _refused(capsys, tmp_path, [], "--run-dir runs/ppo")
    # --overwrite would delete the very file to resume from.
    _refused(capsys, tmp_path, ["--run-dir", str(tmp_path / "run"), "--overwrite", "--resume",
                                str(tmp_path / "run" / "last.zip")], "--overwrite")


@pytest.mark.parametrize("history, problem", [
    ("{not json", "not a readable history.json"),
    ("[]", "not a JSON object"),
    (json.dumps({"train": [], "eval": []}), "'eval_deals'"),
    (json.dumps({**GOOD_HISTORY, "eval": [{"step": 0}]}), "an evaluation lacks"),
    (json.dumps({**GOOD_HISTORY, "train": [{"step": 0, "opponents": {"simple": {}}}]}), "a training row lacks"),
    (json.dumps({**GOOD_HISTORY, "eval_opponent": "random"}), "evaluated against 'random'"),
])
def test_a_resumed_history_is_checked_before_training(history, problem, tmp_path, capsys):
    _fake_run(tmp_path / "run", history)
    err = _refused(capsys, tmp_path, ["--run-dir", str(tmp_path / "run"), "--resume",
                                      str(tmp_path / "run" / "last.zip")], problem)
    assert "history.json" in err or "--eval-opponent" in err


def test_a_library_call_raises_the_same_message(tmp_path):
    with pytest.raises(ValueError, match="--slots 3 must divide --num-envs 512"):
        loop.train(config.parse_args(["--run-dir", str(tmp_path / "run"), "--slots", "3"]))
    assert not (tmp_path / "run").exists()


def test_the_schedule_refuses_what_it_cannot_play():
    for bad, message in (("0:=1", "a name is empty"), ("0:simple,simple", "names simple twice"),
                         ("0:simple=inf", "is not a number"), ("0:simple; 1:expert", "below 1"),
                         ("0:simple=0", "all 0"), ("0.2:simple", "must start at 0")):
        with pytest.raises(ValueError, match=message):
            opponents.parse_schedule(bad)


def test_the_default_rules_are_standard_and_the_help_shows_no_empty_default(capsys):
    assert config.Args().rules == "standard" and rllib_loop.RLlibArgs().rules == "standard"
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    out = capsys.readouterr().out
    assert "(default: standard)" in out and "(default: none)" in out and "(default: )" not in out


class _FailingModel:
    """A model whose save writes part of a file, then fails (a full disk, an interrupt)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def save(self, path) -> None:
        with open(path, "wb") as f:
            f.write(b"half a checkpoint")
        raise self.error


@pytest.mark.parametrize("error", [OSError("no space left on device"), KeyboardInterrupt()])
def test_a_failed_save_leaves_the_previous_checkpoint_whole(error, tmp_path):
    (tmp_path / "last.zip").write_bytes(b"the previous checkpoint")
    (tmp_path / "history.json").write_text('{"the": "previous history"}')
    with pytest.raises(type(error)):
        run_files.save_run(_FailingModel(error), {"new": "history"}, str(tmp_path))
    assert (tmp_path / "last.zip").read_bytes() == b"the previous checkpoint"
    assert (tmp_path / "history.json").read_text() == '{"the": "previous history"}'
    assert sorted(os.listdir(tmp_path)) == ["history.json", "last.zip"]  # no temporary file left


class _FakeAlgo:
    """An RLlib algorithm as far as saving goes: ``save_to_path`` writes a state file, or fails half-way."""

    def __init__(self, state: bytes, fail: bool = False) -> None:
        self.state, self.fail = state, fail

    def save_to_path(self, path) -> None:
        os.makedirs(path)
        with open(os.path.join(path, "state.pkl"), "wb") as f:
            f.write(self.state[:3] if self.fail else self.state)
        if self.fail:
            raise KeyboardInterrupt


def test_an_rllib_checkpoint_is_swapped_in_whole_with_its_league(tmp_path):
    rllib_loop.save(_FakeAlgo(b"first state"), {"iteration": 1}, str(tmp_path))
    with pytest.raises(KeyboardInterrupt):
        rllib_loop.save(_FakeAlgo(b"second state", fail=True), {"iteration": 2}, str(tmp_path))
    checkpoint = tmp_path / rllib_loop.CHECKPOINT_DIR
    assert (checkpoint / "state.pkl").read_bytes() == b"first state"
    assert json.loads((checkpoint / rllib_loop.LEAGUE_FILE).read_text()) == {"iteration": 1}
    assert json.loads((tmp_path / rllib_loop.LEAGUE_FILE).read_text()) == {"iteration": 1}
    rllib_loop.save(_FakeAlgo(b"third state"), {"iteration": 3}, str(tmp_path))
    assert (checkpoint / "state.pkl").read_bytes() == b"third state"
    assert sorted(os.listdir(tmp_path)) == [rllib_loop.CHECKPOINT_DIR, rllib_loop.LEAGUE_FILE]


def test_train_rllib_refuses_a_run_folder_and_a_bad_league_in_one_line(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / rllib_loop.LEAGUE_FILE).write_text("{}")
    (run / rllib_loop.CHECKPOINT_DIR).mkdir()
    argv = ["--run-dir", str(run), "--no-progress"]
    assert "holds a run" in _refused(capsys, tmp_path, argv, "--run-dir", "train_rllib.py")
    _refused(capsys, tmp_path, [*argv, "--resume", "--overwrite"], "--overwrite", "train_rllib.py")
    _refused(capsys, tmp_path, [*argv, "--resume"], "--resume", "train_rllib.py")
    (run / rllib_loop.LEAGUE_FILE).write_text(json.dumps({"iteration": 3, "next_slot": 0, "history": [],
                                                          "args": [{"snapshots": 2, "hidden": "256,256"}]}))
    _refused(capsys, tmp_path, [*argv, "--resume", "--snapshots", "4"], "--snapshots 4", "train_rllib.py")
    # A run from before --match-record trained without it; its modules take 375 inputs.
    assert "trained without --match-record" in _refused(
        capsys, tmp_path, [*argv, "--resume", "--snapshots", "2", "--rules", "eaai", "--match-record"], "--resume",
        "train_rllib.py")
    _refused(capsys, tmp_path, ["--run-dir", str(tmp_path / "new"), "--match-record", "--rules", "openspiel"],
             "--match-record plays games to the target", "train_rllib.py")
    for bad in (["--seed", "-1"], ["--gamma", "2"], ["--minibatch-size", "5000"], ["--learning-rate", "0"]):
        _refused(capsys, tmp_path, ["--run-dir", str(tmp_path / "new"), *bad], bad[0], "train_rllib.py")


def _without_extras(code: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", NO_EXTRAS + code], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": ROOT})


def test_help_and_argument_errors_need_no_torch_sb3_or_ray(tmp_path):
    helps = _without_extras("from gin_env.cli import main\nfrom gin_env.training import rllib_loop\n"
                            "for run in (lambda: main(['train', '--help']), lambda: rllib_loop.main(['--help'])):\n"
                            "    try:\n        run()\n    except SystemExit as done:\n"
                            "        assert done.code == 0\n", tmp_path)
    assert helps.returncode == 0, helps.stderr
    assert helps.stdout.count("usage: ") == 2 and "--overwrite" in helps.stdout
    assert "(default: )" not in helps.stdout
    code = "from gin_env.cli import main\nsys.exit(main(['train', *sys.argv[1:]]))"
    for argv, message in ((["--slots", "0"], "--slots must be at least 1"),
                          (["--eval-opponent", "exprt"], "--eval-opponent: unknown agent 'exprt'"),
                          ([], "needs torch, which is not installed")):
        result = subprocess.run([sys.executable, "-c", NO_EXTRAS + code, *argv, "--run-dir", "run"],
                                capture_output=True, text=True, timeout=120, cwd=tmp_path,
                                env={**os.environ, "PYTHONPATH": ROOT})
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1 and lines[0].startswith("gin-env train: error: ")
        assert message in lines[0]
    assert os.listdir(tmp_path) == []


def test_steps_are_whole_rollouts():
    assert loop.planned_steps(0, 4096, 16_384) == 16_384
    assert loop.planned_steps(0, 16_384, 16_384) == 16_384
    assert loop.planned_steps(1000, 3000, 1024) == 3048
    assert loop.planned_steps(20_000, 10_000, 1024) == 20_000


def test_an_interrupt_says_which_checkpoint_exists(tmp_path, capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("tensorboard")
    run = tmp_path / "run"

    def interrupted(args, history):
        os.makedirs(args.run_dir)
        if wrote:
            (run / "last.zip").write_bytes(b"a checkpoint")
        raise KeyboardInterrupt

    monkeypatch.setattr(loop, "train", interrupted)
    for wrote, said in ((False, f"no checkpoint was written in {run}"), (True, f"checkpoints kept: {run}/last.zip")):
        assert cli.main(["train", "--run-dir", str(run), "--overwrite", *TINY]) == 130
        assert said in capsys.readouterr().err
        if not wrote:
            os.rmdir(run)


@pytest.mark.slow
def test_a_tiny_run_trains_whole_rollouts_and_is_not_run_over(tmp_path, capsys):
    """3,000 steps asked of rollouts of 64 x 16 = 1,024: it says so, trains 3,072, and the bar's total is that;
    the same command again is refused, with --overwrite it replaces the run."""
    pytest.importorskip("sb3_contrib")
    run = str(tmp_path / "run")
    argv = ["train", "--total-timesteps", "3000", "--run-dir", run, *TINY, "--progress"]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert "training to 3,072 steps, not --total-timesteps 3,000" in out and "3,072 steps in" in out
    assert "3.07k/3.07k" in err  # the progress bar's total is the real one
    with open(os.path.join(run, "history.json")) as f:
        assert json.load(f)["train"][-1]["step"] == 3072
    assert sorted(os.listdir(run)) == sorted(run_files.RUN_FILES)
    assert cli.main(argv) == 2 and "holds a run" in capsys.readouterr().err
    tb_before = os.listdir(os.path.join(run, "tb"))
    assert cli.main([*argv, "--overwrite", "--total-timesteps", "1000", "--eval-deals", "0"]) == 0
    assert os.listdir(os.path.join(run, "tb")) == tb_before  # the old logs went with the old run
    assert sorted(os.listdir(run)) == ["history.json", "last.zip", "tb"]
