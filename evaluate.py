"""Play agents against each other on duplicate deals and report who beats whom, with 95% intervals and Elo.

    python evaluate.py AGENT AGENT [AGENT ...] [--rules PRESET] [--rule KEY=VALUE ...] [--deals N | --matches N]
                       [--seed S] [--json FILE] [--plot FILE] [--replays DIR] [--workers W] [--no-progress]

The same command as ``gin-env evaluate``, kept for a checkout; the code and the definitions of every number are in
the package, :mod:`gin_env.evaluation`.
"""

import sys

from gin_env.evaluation.cli import main

if __name__ == "__main__":
    sys.exit(main())
