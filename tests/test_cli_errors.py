"""Bad input to ``gin-env evaluate``, ``export``, ``replay`` and ``play`` (issue 29): one line on stderr,
``gin-env JOB: error: ...``, that names the option or the file, exit code 2, before any game is played or any file
written, and no file or folder left behind or changed. Also: every job's ``--help`` imports none of the optional
packages (torch, Ray, tqdm, matplotlib, ...)."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys

import pytest

from gin_env import cli
from gin_env.evaluation import tournament
from gin_env.training import export
from tests.refusals import refused_command

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "agents", "models", "ppo_gin.zip")
#: What a failed export must leave as it was.
KEPT = b"the weights of an earlier export"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A working folder holding a file, a folder named like a model, an earlier export's weights and a file that is
    no model; the snapshot to compare with after the command."""
    (tmp_path / "a-file").write_text("a file, not a folder")
    (tmp_path / "folder.zip").mkdir()
    (tmp_path / "kept.npz").write_bytes(KEPT)
    (tmp_path / "not-a-model.zip").write_text("not a zip archive")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    return tmp_path


@pytest.fixture
def no_games(monkeypatch):
    """Any game played is a failure: the checks come before the first one."""
    def played(*args, **kwargs):
        raise AssertionError("a game was played before the input was refused")

    monkeypatch.setattr(tournament, "play_lineups", played)


@pytest.mark.parametrize("options, option", [
    (["--json", ""], "--json"),
    (["--json", "missing/report.json"], "--json"),
    (["--json", "."], "--json"),
    (["--json", "report.json", "--plot", "report.json"], "--plot"),
    (["--json", "report.json", "--plot", "elsewhere/../report.json"], "--plot"),
    (["--json", "out", "--replays", "out"], "--replays"),
    (["--replays", "a-file"], "--replays"),
    (["--replays", "missing/replays"], "--replays"),
    (["--seed", "-1"], "--seed"),
    (["--workers", "0"], "--workers"),
    (["--workers", "-2"], "--workers"),
    (["--deals", "0"], "--deals"),
    (["--deals", "-5"], "--deals"),
    (["--deals", "many"], "--deals"),
    (["--matches", "0"], "--matches"),
    (["--matches", "1"], "--matches"),
    (["--players", "3", "--deals", "1"], "--deals"),
    (["--players", "3", "--replays", "a-file"], "--replays"),
])
def test_evaluate_refuses_bad_options_before_the_first_game(options, option, workdir, no_games, capsys):
    refused_command(["evaluate", "simple", "random", "expert", "--workers", "1", "--no-progress", *options], option,
                    workdir, capsys)


def test_evaluate_refuses_a_ray_address_where_nothing_answers_within_seconds(workdir, capsys):
    pytest.importorskip("ray")
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = ["evaluate", "simple", "random", "--deals", "2", "--no-progress", "--ray", f"127.0.0.1:{port}"]
    line = refused_command(argv, f"--ray 127.0.0.1:{port}", workdir, capsys)
    assert "no Ray cluster answers there" in line


@pytest.mark.parametrize("argv, named", [
    ([MODEL, "--out", "policy"], "--out policy: a model file's name ends in .zip"),
    ([MODEL, "--out", "missing/policy.zip"], "--out missing/policy.zip: the folder"),
    ([MODEL, "--out", "folder.zip"], "--out folder.zip: is a folder"),
    ([MODEL, "--out", "policy.zip", "--numpy", "policy.zip"], "--numpy policy.zip: the same file as --out"),
    ([MODEL, "--out", "policy.zip", "--numpy", "./policy.zip"], "--numpy ./policy.zip: the same file as --out"),
    ([MODEL, "--out", "policy.zip", "--numpy", "missing/kept.npz"], "--numpy missing/kept.npz"),
    (["missing.zip", "--out", "policy.zip", "--numpy", "kept.npz"], "no model file at 'missing.zip'"),
    ([MODEL, "not-a-model.zip", "--out", "policy.zip", "--numpy", "kept.npz"], "source not-a-model.zip: not a model"),
    ([MODEL, "missing.npz", "--out", "policy.zip"], "no policy weights file at 'missing.npz'"),
    (["kept.npz", MODEL, "--out", "policy.zip"], "the first source must be a model (.zip), not actor weights"),
])
def test_export_checks_every_source_and_output_before_loading_a_model(argv, named, workdir, capsys):
    refused_command(["export", *argv], named, workdir, capsys)


def test_a_failed_export_leaves_the_files_it_was_to_replace(workdir, monkeypatch, capsys):
    """The model and the weights go to temporary names first: a failure midway truncates nothing."""
    def failing(models, target, actors):
        with open(target, "wb") as f:
            f.write(b"half a model")
        raise ValueError("the networks differ in shape")

    monkeypatch.setattr(export, "export_model", failing)
    (workdir / "policy.zip").write_bytes(b"an earlier model")
    refused_command(["export", MODEL, "--out", "policy.zip", "--numpy", "kept.npz"], "differ in shape", workdir, capsys)


@pytest.mark.parametrize("argv, named", [
    (["/dev/zero"], "/dev/zero: is a character device, not a regular file"),
    (["missing.json"], "missing.json: no such file"),
    (["folder.zip"], "folder.zip: is a folder"),
    (["not-a-model.zip"], "not-a-model.zip: not a replay"),
])
def test_replay_refuses_what_is_no_replay_file_in_one_line(argv, named, workdir, capsys):
    pytest.importorskip("rich")
    if argv == ["/dev/zero"] and not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    refused_command(["replay", *argv], named, workdir, capsys)


@pytest.mark.parametrize("options, option", [
    (["--seed", "-1"], "--seed"),
    (["--save-replays", "a-file"], "--save-replays a-file: is a file"),
    (["--save-replays", "missing/replays"], "--save-replays missing/replays: the folder"),
    (["--save-replays", ""], "--save-replays: the path is empty"),
    (["--players", "3", "--partner", "expert"], "--partner"),
    (["--players", "5"], "--players"),
    (["--opponent", "grandmaster"], "unknown agent 'grandmaster'"),
])
def test_play_refuses_bad_options_before_the_game(options, option, workdir, capsys):
    pytest.importorskip("rich")
    refused_command(["play", *options], option, workdir, capsys)


#: Packages no job's --help may import: the optional ones but rich, which is light and draws the terminal game (so
#: ``play``'s module imports it).
HEAVY = ("torch", "ray", "tqdm", "matplotlib", "stable_baselines3", "sb3_contrib", "tensorboard", "minari",
         "pettingzoo", "pyspiel", "moviepy")


@pytest.mark.parametrize("job", sorted(cli.JOBS))
def test_every_help_imports_none_of_the_optional_packages(job):
    """What keeps ``--help`` quick on any machine: it loads no optional package (benchmarks/bench_startup.py times
    it, as the seconds depend on the machine's load)."""
    if job in ("play", "replay"):
        pytest.importorskip("rich")
    heavy = HEAVY if job == "play" else (*HEAVY, "rich")
    code = ("import sys\nfrom gin_env.cli import main\n"
            f"try:\n    code = main([{job!r}, '--help'])\nexcept SystemExit as stop:\n    code = stop.code\n"
            f"assert code in (0, None), code\nprint('imported:', sorted(set({heavy!r}) & set(sys.modules)))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert f"usage: gin-env {job}" in result.stdout and "``" not in result.stdout  # plain text, not reST
    assert result.stdout.splitlines()[-1] == "imported: []"
