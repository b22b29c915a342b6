"""No command loses a user's work: an output is never an input (by any name: the same path, a symbolic link, a hard
link), a run folder has one writer at a time and a resume never mixes two runs, ``--overwrite`` never deletes what
the run reads, and ``gin-env dataset`` cleans up after killed runs, refuses a second writer of one id and takes a
relative root."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gin_env import cli
from gin_env.training import run_files
from tests.refusals import assert_refused, snapshot

#: The bytes of every file a test must leave as it was.
PRECIOUS = b"a user's work"


def _code(argv: list[str]) -> int:
    """The exit code of ``gin-env ARGV`` (some commands refuse through argparse, which exits)."""
    try:
        return cli.main(argv)
    except SystemExit as stop:
        return stop.code


def _run_folder(folder) -> None:
    """A run's files in ``folder``: checkpoints, a history and tensorboard logs."""
    folder.mkdir()
    for name in ("last.zip", "best.zip"):
        (folder / name).write_bytes(PRECIOUS)
    (folder / "history.json").write_text(json.dumps(run_files.new_history(500, "simple")))
    (folder / "tb").mkdir()
    (folder / "tb" / "events").write_bytes(PRECIOUS)


def _named(tmp_path, target, how: str) -> str:
    """``target`` as a command is given it: its own path, a symbolic link or a hard link in another folder."""
    if how == "same path":
        return str(target)
    links = tmp_path / "links"
    links.mkdir(exist_ok=True)
    link = links / f"link{target.suffix}"
    (os.symlink if how == "symlink" else os.link)(target, link)
    return str(link)


def _evaluate(output: str):
    return lambda target, given: ["evaluate", given, "simple", "--deals", "2", "--no-progress", output, str(target)]


def _export(output: str):
    return lambda target, given: ["export", given, *(["--out", str(target)] if output == "--out" else
                                                     ["--out", str(target.with_name("o.zip")), "--numpy",
                                                      str(target)])]


def _belief(target, given):
    return ["train-belief", "--out", str(target), "--players", f"{given},simple", "--games", "2"]


def _play(target, given):
    pytest.importorskip("rich")
    return ["play", "--opponent", given, "--save-replays", str(target)]


def _train(option: str):
    def argv(target, given):
        run = target.parent
        agent = f"0:{given}" if option == "--opponents" else given
        return ["train", "--run-dir", str(run), "--resume", str(run / "last.zip"), option, agent, "--no-progress"]
    return argv


#: (the command's argv from the file to keep and the name it is given by, the input's file name, the output option
#: the refusal names, whether the file is a run's checkpoint).
CASES = {
    "evaluate --json": (_evaluate("--json"), "m.zip", "--json", False),
    "evaluate --plot": (_evaluate("--plot"), "m.zip", "--plot", False),
    "evaluate --replays": (_evaluate("--replays"), "m.zip", "--replays", False),
    "export --out": (_export("--out"), "m.zip", "--out", False),
    "export --numpy": (_export("--numpy"), "m.zip", "--numpy", False),
    "train-belief --out": (_belief, "w.npz", "--out", False),
    "play --save-replays": (_play, "m.zip", "--save-replays", False),
    "train --opponents": (_train("--opponents"), "best.zip", "--run-dir", True),
    "train --teacher": (_train("--teacher"), "best.zip", "--run-dir", True),
    "train --eval-opponent": (_train("--eval-opponent"), "best.zip", "--run-dir", True),
}


@pytest.mark.parametrize("how", ["same path", "symlink", "hard link"])
@pytest.mark.parametrize("case", CASES)
def test_no_command_writes_a_file_it_reads(tmp_path, capsys, monkeypatch, case, how):
    make_argv, name, output, in_run = CASES[case]
    monkeypatch.chdir(tmp_path)
    if in_run:
        _run_folder(tmp_path / "run")
        target = tmp_path / "run" / name
    else:
        target = tmp_path / name
        target.write_bytes(PRECIOUS)
    argv = make_argv(target, _named(tmp_path, target, how))
    before = snapshot(tmp_path, times=True)
    line = assert_refused(_code(argv), capsys.readouterr().err, f"gin-env {argv[0]}", output)
    assert "the same file as" in line
    assert snapshot(tmp_path, times=True) == before


def test_evaluate_refuses_to_write_a_plug_in_agents_module(tmp_path, capsys, monkeypatch):
    """A ``module:attr`` agent's source file is an input too, found without importing it."""
    module = tmp_path / "strangers.py"
    module.write_text("raise SystemExit('imported')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    before = snapshot(tmp_path, times=True)
    code = cli.main(["evaluate", "strangers:Agent", "simple", "--no-progress", "--json", "strangers.py"])
    assert_refused(code, capsys.readouterr().err, "gin-env evaluate", "AGENT")
    assert snapshot(tmp_path, times=True) == before and "strangers" not in sys.modules


def test_resuming_into_a_folder_of_another_run_needs_overwrite(tmp_path, capsys):
    _run_folder(tmp_path / "a")
    _run_folder(tmp_path / "b")
    before = snapshot(tmp_path, times=True)
    code = cli.main(["train", "--run-dir", str(tmp_path / "b"), "--resume", str(tmp_path / "a" / "last.zip"),
                     "--no-progress"])
    line = assert_refused(code, capsys.readouterr().err, "gin-env train", "holds another run")
    assert "--overwrite" in line
    assert snapshot(tmp_path, times=True) == before


@pytest.mark.parametrize("how", ["same path", "symlink", "hard link", "linked folder"])
def test_overwrite_never_deletes_the_model_it_resumes(tmp_path, capsys, how):
    _run_folder(tmp_path / "run")
    if how == "linked folder":
        os.symlink(tmp_path / "run", tmp_path / "elsewhere")
        resume = str(tmp_path / "elsewhere" / "last.zip")
    else:
        resume = _named(tmp_path, tmp_path / "run" / "last.zip", how)
    before = snapshot(tmp_path, times=True)
    code = cli.main(["train", "--run-dir", str(tmp_path / "run"), "--overwrite", "--resume", resume, "--no-progress"])
    line = assert_refused(code, capsys.readouterr().err, "gin-env train", "--overwrite deletes")
    assert f"--resume {resume}" in line
    assert snapshot(tmp_path, times=True) == before


#: A process that holds a lock until its input ends: ``sys.argv[1]`` names what (``run``: a run folder, else a
#: dataset id), ``sys.argv[2]`` where; it prints ``held`` once it holds it.
HOLDER = """
import contextlib, sys
from gin_env.training import run_files
kind, where = sys.argv[1], sys.argv[2]
if kind == "run":
    held = run_files.hold_run_dir(where)
else:
    from gin_env.datasets import minari_files
    held = minari_files.id_lock(where, kind)
with held:
    print("held", flush=True)
    sys.stdin.read()
"""


def _holder(*argv: str) -> subprocess.Popen:
    """A live process holding a lock (:data:`HOLDER`), once it says so."""
    process = subprocess.Popen([sys.executable, "-c", HOLDER, *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    assert process.stdout.readline() == "held\n"
    return process


def _kill(process: subprocess.Popen) -> None:
    process.kill()
    process.wait()


@pytest.mark.parametrize("trainer", ["gin-env train", "train_rllib.py"])
def test_a_run_folder_has_one_writer_and_a_killed_one_leaves_it_free(trainer, tmp_path, capsys):
    """Refused before a model is built or Ray started, naming the process that holds the folder."""
    pytest.importorskip("sb3_contrib" if trainer == "gin-env train" else "ray")
    from gin_env.training import rllib_loop
    from tests.test_train import TINY

    run = tmp_path / "run"
    holder = _holder("run", str(run))
    try:
        before = snapshot(tmp_path, times=True)
        if trainer == "gin-env train":
            code = cli.main(["train", "--run-dir", str(run), *TINY])
        else:
            code = rllib_loop.main(["--run-dir", str(run), "--iterations", "1"], trainer)
        line = assert_refused(code, capsys.readouterr().err, trainer, f"--run-dir {run}")
        assert f"process {holder.pid}" in line
        assert snapshot(tmp_path, times=True) == before
    finally:
        _kill(holder)
    with run_files.hold_run_dir(str(run)):  # the kill released it
        assert os.listdir(run) == [run_files.RUN_LOCK]
    assert os.listdir(run) == []


def test_dataset_removes_what_killed_runs_left_and_refuses_a_second_writer_of_an_id(tmp_path, capsys):
    pytest.importorskip("minari")
    from gin_env.datasets import minari_files

    root = tmp_path / "root"
    root.mkdir()
    live_id, dead_id = "gin-rummy/live-v0", "gin-rummy/dead-v0"
    scratch = {}
    for dataset_id in (live_id, dead_id):
        scratch[dataset_id] = root / (minari_files.PREFIX + minari_files.id_key(dataset_id) +
                                      minari_files.SCRATCH_MARK + "x1")
        scratch[dataset_id].mkdir()
        (scratch[dataset_id] / "episodes").write_bytes(PRECIOUS)
    holder = _holder(live_id, str(root))
    try:
        argv = ["dataset", "simple", "random", "--hands", "2", "--workers", "1", "--no-progress", "--root", str(root)]
        assert_refused(cli.main([*argv, "--id", live_id]), capsys.readouterr().err, "gin-env dataset", live_id)
        assert not scratch[dead_id].exists() and scratch[live_id].exists()
        assert not os.path.exists(minari_files.dataset_folder(str(root), live_id))
        assert cli.main([*argv, "--id", "gin-rummy/other-v0"]) == 0
        assert "removed" not in capsys.readouterr().out and scratch[live_id].exists()
    finally:
        _kill(holder)
    assert cli.main([*argv, "--id", live_id]) == 0
    out = capsys.readouterr().out
    assert "removed 1 temporary folder" in out and not scratch[live_id].exists()
    assert os.listdir(root) == ["gin-rummy"]  # no scratch folder, no lock file


@pytest.mark.parametrize("where", ["--root", "MINARI_DATASETS_PATH"])
def test_dataset_takes_a_relative_root(tmp_path, capsys, monkeypatch, where):
    minari = pytest.importorskip("minari")
    from gin_env.datasets import minari_files

    monkeypatch.chdir(tmp_path)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    argv = ["dataset", "simple", "random", "--hands", "2", "--workers", "1", "--no-progress", "--id", "tiny/rel-v0"]
    if where == "--root":
        argv += ["--root", "DS"]
    else:
        monkeypatch.setenv(minari_files.ROOT_VARIABLE, "DS")
    assert cli.main(argv) == 0, capsys.readouterr().err
    folder = tmp_path / "work" / "DS" / "tiny" / "rel-v0"
    assert minari.MinariDataset(str(folder / "data")).total_episodes == 2
