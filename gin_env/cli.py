"""The ``gin-env`` command: one entry point for the main jobs, each a subcommand with its own options.

    gin-env evaluate AGENT AGENT ... [options]   duplicate-deal tournament (gin_env.evaluation)
    gin-env train [options]                      MaskablePPO training (gin_env.training)
    gin-env dataset PLAYER OTHER... [options]    a Minari dataset of a line-up's episodes (gin_env.datasets)
    gin-env export SOURCE... --out FILE          a model file to ship, one checkpoint or several averaged
    gin-env train-belief --out FILE [options]    a belief network fitted to played games' hidden cards
    gin-env play [options]                       a game against an agent in the terminal (gin_env.ui.play)
    gin-env replay FILE [--step]                 step through a saved hand (gin_env.ui.viewer)
    gin-env serve [options]                      the web app: play, watch agents, replays (gin_env.web.serve)

``gin-env JOB --help`` lists a job's options; ``gin-env --version`` prints the package's version. A job whose
optional dependencies are missing stops with one line that names the extra to install, and a job that left the
command (:data:`RETIRED`) with one line that names what replaces it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from gin_env import __version__
from gin_env.arguments import did_you_mean
from gin_env.optional import MissingExtra


def _evaluate(argv: list[str], prog: str) -> int:
    from gin_env.evaluation.cli import main
    return main(argv, prog)


def _train(argv: list[str], prog: str) -> int:
    from gin_env.training.loop import main
    return main(argv, prog)


def _dataset(argv: list[str], prog: str) -> int:
    from gin_env.datasets.cli import main
    return main(argv, prog)


def _export(argv: list[str], prog: str) -> int:
    from gin_env.training.export import main
    return main(argv, prog)


def _train_belief(argv: list[str], prog: str) -> int:
    from gin_env.training.belief import main
    return main(argv, prog)


def _play(argv: list[str], prog: str) -> int:
    from gin_env.ui.play import main
    return main(argv, prog)


def _replay(argv: list[str], prog: str) -> int:
    from gin_env.ui.viewer import main
    return main(argv, prog)


def _serve(argv: list[str], prog: str) -> int:
    from gin_env.web.serve import main
    return main(argv, prog)


USAGE = __doc__.split("\n\n")[1]

#: Subcommand -> the function that runs it; each imports its job only when asked for, so ``--help`` and
#: ``--version`` stay light.
JOBS: dict[str, Callable[[list[str], str], int]] = {
    "evaluate": _evaluate, "train": _train, "dataset": _dataset, "export": _export,
    "train-belief": _train_belief, "play": _play, "replay": _replay, "serve": _serve,
}

#: Jobs the command no longer runs -> what replaces each: a study's pipeline, kept in the repository's
#: ``experiments/`` rather than in the package.
RETIRED = {
    "iterate": "expert iteration left the package in gin-env 0.13.0: run python experiments/iterate.py from a clone "
               "of the repository (docs/iteration.md); the exit-v1 network it made still loads by its name",
}


def main(argv: list[str] | None = None) -> int:
    """Run ``gin-env JOB ...``; the job's exit code (2 for an unknown or retired job or a missing extra)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: gin-env JOB [options] | gin-env --version\n\n{USAGE}\n\nSee gin-env JOB --help.")
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        print(f"gin-env {__version__}")
        return 0
    job, rest = argv[0], argv[1:]
    prog = f"gin-env {job}"
    if job in RETIRED:
        print(f"{prog}: error: {RETIRED[job]}", file=sys.stderr)
        return 2
    if job not in JOBS:
        print(f"gin-env: error: unknown job {job!r}{did_you_mean(job, JOBS)}; choose from {', '.join(JOBS)}",
              file=sys.stderr)
        return 2
    try:
        return JOBS[job](rest, prog)
    except MissingExtra as missing:
        print(f"{prog}: error: {missing}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
