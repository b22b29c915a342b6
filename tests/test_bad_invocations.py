"""Twenty-odd mistakes a user makes at the command line, each run as its own process in a folder of its own: each
gets one line that names the problem, exit code 2, and leaves the folder as it was (no run folder, no report, no
half-written file). The per-command test files check each class in depth; this is the user's-eye sweep."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gin_env import cli
from gin_env.agents.ppo import SHIPPED_MODEL
from tests.refusals import assert_refused, snapshot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GIN_ENV = [sys.executable, "-m", "gin_env.cli"]
TRAIN_RLLIB = [sys.executable, os.path.join(ROOT, "train_rllib.py")]

#: (what the line must mention, the command). The folder holds ``existing.txt`` and ``runs/old/`` (a run's
#: ``history.json`` and ``last.zip``) before each.
BAD = [
    ("eaia", [*GIN_ENV, "train", "--rules", "eaia"]),
    ("simpel", [*GIN_ENV, "train", "--opponents", "0:simpel=1"]),
    ("exprt", [*GIN_ENV, "train", "--opponents", "0:simple; 0.5:exprt"]),
    ("exprt", [*GIN_ENV, "train", "--teacher", "exprt"]),
    ("exprt", [*GIN_ENV, "train", "--eval-opponent", "exprt", "--eval-deals", "0"]),
    ("missing.zip", [*GIN_ENV, "train", "--resume", "missing.zip"]),
    ("--slots", [*GIN_ENV, "train", "--slots", "0"]),
    ("--device", [*GIN_ENV, "train", "--device", "tpu"]),
    ("--seed", [*GIN_ENV, "train", "--seed", "-1"]),
    ("--overwrite", [*GIN_ENV, "train", "--run-dir", "runs/old"]),
    ("--iterations", [*TRAIN_RLLIB, "--iterations", "0"]),
    ("exprt", [*GIN_ENV, "evaluate", "ppo", "exprt", "--deals", "2", "--no-progress"]),
    ("--json", [*GIN_ENV, "evaluate", "simple", "random", "--deals", "2", "--json", ""]),
    ("report.json", [*GIN_ENV, "evaluate", "simple", "random", "--deals", "2", "--json", "report.json", "--plot",
                     "report.json"]),
    ("no-such-folder", [*GIN_ENV, "evaluate", "simple", "random", "--deals", "2", "--json",
                        "no-such-folder/report.json"]),
    ("existing.txt", [*GIN_ENV, "evaluate", "simple", "random", "--deals", "2", "--replays", "existing.txt"]),
    ("--seed", [*GIN_ENV, "evaluate", "simple", "random", "--seed", "-1"]),
    ("missing.zip", [*GIN_ENV, "export", "missing.zip", "--out", "policy.zip"]),
    ("no-such-folder", [*GIN_ENV, "export", SHIPPED_MODEL, "--out", "no-such-folder/policy.zip"]),
    ("simpel", [*GIN_ENV, "train-belief", "--out", "belief.npz", "--players", "ppo,simpel"]),
    ("--keep", [*GIN_ENV, "train-belief", "--out", "belief.npz", "--keep", "0"]),
    ("--held-out", [*GIN_ENV, "train-belief", "--out", "belief.npz", "--held-out", "1"]),
    (".npz", [*GIN_ENV, "train-belief", "--out", "existing.txt"]),
    ("no-such-folder", [*GIN_ENV, "train-belief", "--out", "no-such-folder/belief.npz"]),
    ("/dev/zero", [*GIN_ENV, "replay", "/dev/zero"]),  # the viewer needs rich (the play extra) to start
    ("--seed", [*GIN_ENV, "play", "--seed", "-1"]),
    ("dance", [*GIN_ENV, "dance"]),
]


def _prog(argv: list[str]) -> str:
    """The name a command's error line starts with."""
    if argv[:2] == TRAIN_RLLIB:
        return "train_rllib.py"
    return f"gin-env {argv[3]}" if argv[3] in cli.JOBS else "gin-env"


@pytest.mark.parametrize("mention, argv", BAD, ids=[" ".join(argv[2:])[:60] for _, argv in BAD])
def test_a_bad_invocation_is_one_line_exit_2_and_writes_nothing(mention, argv, tmp_path):
    if argv[3:4] in (["replay"], ["play"]):
        pytest.importorskip("rich")
    (tmp_path / "existing.txt").write_text("a user's file\n")
    run = tmp_path / "runs" / "old"
    run.mkdir(parents=True)
    (run / "history.json").write_text('{"train": [], "eval": []}\n')
    (run / "last.zip").write_bytes(b"a checkpoint")
    before = snapshot(tmp_path, times=True)
    env = {**os.environ, "PYTHONPATH": ROOT}
    result = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert_refused(result.returncode, result.stderr, _prog(argv), mention)
    assert snapshot(tmp_path, times=True) == before
