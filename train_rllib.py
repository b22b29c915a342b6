"""Train a Gin Rummy agent by self-play PPO with RLlib, on one machine or a Ray cluster.

    python train_rllib.py [--iterations N] [--run-dir DIR] [--num-env-runners K] [--address auto] [--resume] ...
    (python train_rllib.py --help)

A thin script over the package: the code, and what every option does, is in :mod:`gin_env.training.rllib_loop`.
The run ends by writing ``RUN_DIR/policy.pt``, which ``agents.load`` plays without Ray.
"""

import sys

if __name__ == "__main__":
    from gin_env.training.rllib_loop import main

    sys.exit(main(prog="train_rllib.py"))
