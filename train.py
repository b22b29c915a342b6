"""Train a MaskablePPO Gin Rummy agent on the batched engine, against a scheduled pool of opponents.

    python train.py [--total-timesteps N] [--run-dir DIR] [--resume FILE] ... (python train.py --help)

The same command as ``gin-env train``, kept for a checkout; the code, and what every option does, is in the
package, :mod:`gin_env.training`.
"""

import sys

if __name__ == "__main__":
    from gin_env.training.loop import main

    sys.exit(main(prog="train.py"))
