"""Train a MaskablePPO Gin Rummy agent on the batched engine, against a scheduled pool of opponents.

    python train.py [--total-timesteps N] [--run-dir DIR] [--resume FILE] ... (python train.py --help)

The same command as ``gin-env train``, kept for a checkout; the code, and what every option does, is in the
package, :mod:`gin_env.training`.
"""

import sys

from gin_env.optional import MissingExtra

if __name__ == "__main__":
    try:
        from gin_env.training.loop import main

        sys.exit(main())
    except MissingExtra as missing:
        sys.exit(f"train.py: error: {missing}")
