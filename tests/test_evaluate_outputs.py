"""evaluate.py's files (issue 17): every output path checked before the first game, the scoreboard printed even when
a write fails late, Ctrl-C ends with one line and no file, and replay folders shared by runs lose nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from gin_env.evaluation import cli, plot, tournament
from gin_env.replay import replay_file as replay

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAST = ["simple", "random", "--deals", "3", "--workers", "1", "--no-progress"]


def _games_played(monkeypatch) -> list:
    played = []
    real = tournament.play_lineups

    def spy(*args, **kwargs):
        played.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(tournament, "play_lineups", spy)
    return played


@pytest.mark.parametrize("option, where", [("--json", "missing/report.json"), ("--plot", "missing/report.png"),
                                           ("--json", "."), ("--replays", "file.txt")])
def test_an_unwritable_output_is_refused_before_the_first_game(option, where, tmp_path, monkeypatch, capsys):
    (tmp_path / "file.txt").write_text("a file, not a folder")
    monkeypatch.chdir(tmp_path)
    played = _games_played(monkeypatch)
    assert cli.main([*FAST, option, where]) == 2
    err = capsys.readouterr().err.strip()
    assert played == [] and len(err.splitlines()) == 1 and "error" in err


def test_a_late_write_failure_still_prints_the_scoreboard_and_the_other_file(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    def broken_plot(result, path):
        raise OSError("disk full")

    monkeypatch.setattr(plot, "plot", broken_plot)
    out = tmp_path / "report.json"
    assert cli.main([*FAST, "--json", str(out), "--plot", str(tmp_path / "r.png")]) == 1
    captured = capsys.readouterr()
    assert "Elo:" in captured.out and f"wrote {out}" in captured.out
    assert "could not write" in captured.err and "disk full" in captured.err
    assert json.loads(out.read_text())["seed"] == 0 and not (tmp_path / "r.png").exists()


def test_ctrl_c_during_the_games_is_one_line_and_no_file(tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament, "play_lineups", interrupted)
    assert cli.main([*FAST, "--json", str(tmp_path / "r.json")]) == cli.INTERRUPTED
    captured = capsys.readouterr()
    assert captured.err.strip().endswith(": interrupted; no report written")
    assert len(captured.err.strip().splitlines()) == 1 and list(tmp_path.iterdir()) == []


def _evaluate(folder, seed: int, *, wait: bool = True):
    command = [sys.executable, os.path.join(ROOT, "evaluate.py"), "simple", "random", "--deals", "30", "--workers",
               "1", "--no-progress", "--seed", str(seed), "--replays", str(folder)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return process.communicate(timeout=120) + (process.returncode,) if wait else process


def _saved(folder) -> int:
    """The replays saved in ``folder`` so far: a replay being written is a hidden temporary, not counted."""
    return len([name for name in os.listdir(folder) if not name.startswith(".")]) if folder.is_dir() else 0


def _check_all_valid(folder) -> list[str]:
    files = sorted(os.listdir(folder))
    for name in files:
        replay.load(os.path.join(folder, name))  # raises on a broken file
    return files


def test_runs_sharing_a_replay_folder_lose_nothing(tmp_path):
    folder = tmp_path / "replays"
    at_once = [_evaluate(folder, seed, wait=False) for seed in (1, 2)]
    assert [p.wait(timeout=120) for p in at_once] == [0, 0]
    after_two = _check_all_valid(folder)
    # 30 deals x 2 seatings, one hand each, per run.
    assert len(after_two) == 120 and {name.split("-")[1] for name in after_two} == {"seed1", "seed2"}
    assert _evaluate(folder, 3)[2] == 0
    assert len(_check_all_valid(folder)) == 180
    out, err, code = _evaluate(folder, 3)  # the same run again: refused before a game, nothing replaced
    assert code == 2 and len(err.strip().splitlines()) == 1 and "not overwritten" in err
    assert _check_all_valid(folder)[:120] == after_two and len(os.listdir(folder)) == 180


def test_ctrl_c_to_a_run_with_worker_processes_stops_it_cleanly(tmp_path):
    """A terminal's Ctrl-C reaches the whole process group, workers included: one line, exit code 130, no traceback,
    every replay written so far valid and no temporary file left."""
    folder = tmp_path / "replays"
    command = [sys.executable, os.path.join(ROOT, "evaluate.py"), "simple", "random", "--deals", "100000",
               "--workers", "2", "--replays", str(folder), "--json", str(tmp_path / "out.json"), "--no-progress"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while _saved(folder) <= 20 and time.monotonic() < deadline:
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == cli.INTERRUPTED and "Traceback" not in err
    assert err.replace("\r", "\n").strip().splitlines()[-1].endswith("interrupted; no report written")
    assert not (tmp_path / "out.json").exists() and len(_check_all_valid(folder)) > 20


def _session_processes(session: int) -> list[int]:
    """The processes of a session (Linux): a run's worker processes stay in their parent's session."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:  # ended meanwhile
                continue
            if int(fields[3]) == session and fields[0] != "Z":
                pids.append(int(entry))
    return pids


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the process table from /proc")
def test_sigterm_to_the_parent_stops_its_workers_with_one_line(tmp_path):
    """SIGTERM to the evaluating process alone (a job scheduler's stop, ``kill PID``): its worker processes stop
    with it instead of playing on, one line, exit code 143 (128 + SIGTERM), no traceback, no report."""
    folder = tmp_path / "replays"
    command = [sys.executable, os.path.join(ROOT, "evaluate.py"), "simple", "random", "--deals", "100000",
               "--workers", "2", "--replays", str(folder), "--json", str(tmp_path / "out.json"), "--no-progress"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    deadline = time.monotonic() + 60
    while _saved(folder) <= 20 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(_session_processes(process.pid)) >= 3  # the parent and its two workers
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == cli.TERMINATED and "Traceback" not in err
    assert err.replace("\r", "\n").strip().splitlines()[-1].endswith("terminated (SIGTERM); no report written")
    deadline = time.monotonic() + 10
    while _session_processes(process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _session_processes(process.pid) == []
    assert not (tmp_path / "out.json").exists() and len(_check_all_valid(folder)) > 20
