"""The ``gin-env`` command: its jobs, its help, and an unknown job refused in one line."""

from __future__ import annotations

import json

from gin_env import cli


def test_help_lists_every_job(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(f"gin-env {job}" in out for job in cli.JOBS)
    assert cli.main([]) == 2


def test_an_unknown_job_is_one_line(capsys):
    assert cli.main(["evaluat"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("gin-env: error: unknown job 'evaluat' (did you mean 'evaluate'?); choose from evaluate, train, "
                   "dataset, export, train-belief, play, replay, serve")


def test_evaluate_through_the_command_gives_the_report_and_names_itself(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert cli.main(["evaluate", "simple", "random", "--deals", "2", "--seed", "4", "--workers", "1",
                     "--no-progress", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["seed"] == 4 and f"wrote {out}" in capsys.readouterr().out
    assert cli.main(["evaluate", "simple", "nobody", "--deals", "2", "--no-progress"]) == 2
    assert capsys.readouterr().err.startswith("gin-env evaluate: error: unknown agent 'nobody'")
