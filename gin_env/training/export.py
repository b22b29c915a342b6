"""``gin-env export``: the model file to ship, from one checkpoint or from the average of several.

    gin-env export SOURCE.zip [SOURCE.zip|ACTOR.npz ...] --out TARGET.zip [--numpy WEIGHTS.npz]

One source: the checkpoint without its optimizer state and last rollout (what a run writes as ``policy.zip``).
Several: their policies averaged weight by weight, for checkpoints fine-tuned from one ancestor
(:func:`gin_env.agents.ppo.export_model`; docs/training.md tells when it paid). A source after the first may be an
actor's weights (``.npz``, as ``--numpy`` writes them): it joins the average of the actor, and the critic's own
layers are the models' alone (docs/training.md averages the shipped model with ``ppo_expert_policy.npz`` so).
``--numpy`` also writes the exported policy's actor weights for numpy
(:func:`gin_env.agents.numpy_policy.save_weights`): ``agents/models/ppo_gin_policy.npz`` for the shipped model.
"""

from __future__ import annotations

import argparse

from gin_env.agents.numpy_policy import read_weights, save_weights
from gin_env.agents.ppo import export_model

#: The file ending of a source that holds an actor's weights rather than a whole model.
ACTOR_SUFFIX = ".npz"


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; 0 when the file is written (a bad source stops it with a message and code 2)."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="+", metavar="SOURCE",
                        help="MaskablePPO model .zip files (train.py's); after the first, also actor weights (.npz)")
    parser.add_argument("--out", required=True, metavar="TARGET", help="the .zip file to write")
    parser.add_argument("--numpy", metavar="WEIGHTS", help="also write the policy's weights for numpy (.npz)")
    args = parser.parse_args(argv)
    if args.sources[0].endswith(ACTOR_SUFFIX):
        parser.error(f"the first source must be a model (.zip), not actor weights: {args.sources[0]}")
    models = [path for path in args.sources if not path.endswith(ACTOR_SUFFIX)]
    try:
        actors = {path: read_weights(path) for path in args.sources if path.endswith(ACTOR_SUFFIX)}
        export_model(models, args.out, actors)
    except (FileNotFoundError, ValueError) as err:  # read_model's messages name the file and what is wrong
        parser.error(str(err))
    print(f"wrote {args.out}")
    if args.numpy:
        save_weights(args.out, args.numpy)
        print(f"wrote {args.numpy}")
    return 0
