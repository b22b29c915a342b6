"""What every test of a refused command asserts, in one place: exit code 2, one line ``PROG: error: ...`` that names
the problem, no traceback, and the working folder exactly as it was."""

from __future__ import annotations

import os


def snapshot(folder, times: bool = False) -> dict:
    """Every path under ``folder`` with its content ("folder" for a folder), and with ``times`` its modification time
    too, so a file rewritten with the same bytes shows."""
    found = {}
    for root, dirs, names in os.walk(folder):
        for name in dirs + names:
            path = os.path.join(root, name)
            content = "folder" if os.path.isdir(path) else _read(path)
            found[os.path.relpath(path, folder)] = (content, os.stat(path).st_mtime_ns) if times else content
    return found


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def assert_refused(code, err: str, prog: str, mention: str) -> str:
    """Assert a refusal: exit ``code`` 2 and ``err`` one line ``PROG: error: ...`` mentioning ``mention``, with no
    traceback; returns the line."""
    line = err.strip()
    assert code == 2, err
    assert len(line.splitlines()) == 1 and "Traceback" not in err, err
    assert line.startswith(f"{prog}: error: ") and mention in line, line
    return line


def refused_command(argv: list[str], mention: str, folder, capsys) -> str:
    """Run ``gin-env ARGV`` in this process: :func:`assert_refused` of its exit code and stderr (``PROG`` is
    ``gin-env JOB``, or ``gin-env`` for no known job), and ``folder`` (None: no folder) exactly as it was; the
    line."""
    from gin_env import cli

    before = snapshot(folder) if folder is not None else None
    try:
        code = cli.main(argv)
    except SystemExit as stop:  # argparse's own errors
        code = stop.code
    prog = f"gin-env {argv[0]}" if argv and argv[0] in cli.JOBS else "gin-env"
    line = assert_refused(code, capsys.readouterr().err, prog, mention)
    if folder is not None:
        assert snapshot(folder) == before
    return line
