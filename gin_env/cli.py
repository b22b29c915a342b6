"""The ``gin-env`` command: one entry point for the main jobs, each a subcommand with its own options.

    gin-env evaluate AGENT AGENT ... [options]   duplicate-deal tournament (gin_env.evaluation)
    gin-env train [options]                      MaskablePPO training (gin_env.training)
    gin-env export SOURCE... --out FILE          a model file to ship, one checkpoint or several averaged
    gin-env play [options]                       a game against an agent in the terminal (gin_env.play)
    gin-env replay FILE [--step]                 step through a saved hand (gin_env.replay_viewer)

``gin-env JOB --help`` lists a job's options; ``gin-env --version`` prints the package's version. A job whose
optional dependencies are missing stops with one line that names the extra to install.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable

from gin_env import __version__
from gin_env.optional import MissingExtra

#: Subcommand -> the module whose ``main(argv, prog)`` runs it, imported only when asked for.
JOBS = {
    "evaluate": "gin_env.evaluation.cli",
    "train": "gin_env.training.loop",
    "export": "gin_env.training.export",
    "play": "gin_env.play",
    "replay": "gin_env.replay_viewer",
}
USAGE = __doc__.split("\n\n")[1]


class ArgumentParser(argparse.ArgumentParser):
    """The jobs' option parser: argparse's, but an error is the one line ``PROG: error: MESSAGE`` (exit code 2),
    without the usage block argparse prints before it (``PROG --help`` shows that)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def at_least(minimum: int, why: str = "") -> Callable[[str], int]:
    """An argparse ``type``: an integer of at least ``minimum`` (``why`` says why, for the message)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}{why}, got {value}")
        return value
    return parse


def main(argv: list[str] | None = None) -> int:
    """Run ``gin-env JOB ...``; the job's exit code (2 for an unknown job or a missing extra)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: gin-env JOB [options] | gin-env --version\n\n{USAGE}\n\nSee gin-env JOB --help.")
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        print(f"gin-env {__version__}")
        return 0
    job, rest = argv[0], argv[1:]
    prog = f"gin-env {job}"
    if job not in JOBS:
        print(f"gin-env: error: unknown job {job!r}; choose from {', '.join(JOBS)}", file=sys.stderr)
        return 2
    try:
        return importlib.import_module(JOBS[job]).main(rest, prog)
    except MissingExtra as missing:
        print(f"{prog}: error: {missing}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
