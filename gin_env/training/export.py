"""``gin-env export``: the model file to ship, from one checkpoint or from the average of several.

    gin-env export SOURCE.zip [SOURCE.zip|ACTOR.npz ...] --out TARGET.zip [--numpy WEIGHTS.npz]

One source: the checkpoint without its optimizer state and last rollout (what a run writes as ``policy.zip``).
Several: their policies averaged weight by weight, for checkpoints fine-tuned from one ancestor
(:func:`gin_env.agents.ppo.export_model`; docs/training.md tells when it paid). A source after the first may be an
actor's weights (``.npz``, as ``--numpy`` writes them): it joins the average of the actor, and the critic's own
layers are the models' alone (docs/training.md averages the shipped model with ``ppo_expert_policy.npz`` so).
``--numpy`` also writes the exported policy's actor weights for numpy
(:func:`gin_env.agents.numpy_policy.save_weights`): ``agents/models/ppo_gin_policy.npz`` for the shipped model.

Every source and output is checked before torch is loaded; both files are written under temporary names and
renamed together at the end, so a failed export leaves the files it was to replace as they were.
"""

from __future__ import annotations

import argparse
import os
import sys

from gin_env import files
from gin_env.agents.numpy_policy import read_weights, save_weights
from gin_env.agents.ppo import export_model
from gin_env.arguments import ArgumentParser

#: The file ending of a source that holds an actor's weights rather than a whole model.
ACTOR_SUFFIX = ".npz"
#: The ending of the model file written: SB3 appends it to a name without one, so it is asked for.
MODEL_SUFFIX = ".zip"
#: What every model archive written by SB3's ``model.save`` holds.
MODEL_MEMBERS = ("data", "policy.pth")
DESCRIPTION = "Write the model file to ship, from one MaskablePPO checkpoint or the average of several."


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; 0 when the files are written, 2 for bad input (one line, nothing written), 1 when a
    write fails."""
    parser = ArgumentParser(prog=prog, description=DESCRIPTION)
    parser.add_argument("sources", nargs="+", metavar="SOURCE",
                        help="MaskablePPO model .zip files (train.py's); after the first, also actor weights (.npz)")
    parser.add_argument("--out", required=True, metavar="TARGET", help="the .zip file to write")
    parser.add_argument("--numpy", metavar="WEIGHTS", help="also write the policy's weights for numpy (.npz)")
    args = parser.parse_args(argv)
    try:
        _check(args)
        actors = {path: read_weights(path) for path in args.sources if path.endswith(ACTOR_SUFFIX)}
    except (OSError, ValueError) as err:
        parser.error(str(err))
    models = [path for path in args.sources if not path.endswith(ACTOR_SUFFIX)]
    try:
        with files.atomic_path(args.out) as model_file:
            export_model(models, model_file, actors)
            if args.numpy:
                with files.atomic_path(args.numpy) as weights_file:
                    save_weights(model_file, weights_file)
    except ValueError as err:  # read_model's messages name the file and what is wrong
        parser.error(str(err))
    except OSError as err:
        print(f"{parser.prog}: error: could not write {args.out}: {err}", file=sys.stderr)
        return 1
    print(f"wrote {args.out}")
    if args.numpy:
        print(f"wrote {args.numpy}")
    return 0


def _check(args: argparse.Namespace) -> None:
    """Before any work: the outputs can be written and are two files, neither a source, and every source is there
    and of its kind. Raises ``OSError`` or ``ValueError`` naming the option or the source."""
    if not args.out.endswith(MODEL_SUFFIX):
        raise ValueError(f"--out {args.out}: a model file's name ends in {MODEL_SUFFIX} (SB3 would write "
                         f"{args.out}{MODEL_SUFFIX})")
    files.check_output_file(args.out, "--out")
    if args.numpy is not None:
        files.check_output_file(args.numpy, "--numpy")
    files.check_distinct({"SOURCE": args.sources}, {"--out": args.out, "--numpy": args.numpy})
    if args.sources[0].endswith(ACTOR_SUFFIX):
        raise ValueError(f"the first source must be a model ({MODEL_SUFFIX}), not actor weights: {args.sources[0]}")
    for source in args.sources:
        actor = source.endswith(ACTOR_SUFFIX)
        if not os.path.exists(source):  # in the words of the loaders (agents.ppo, agents.numpy_policy)
            raise FileNotFoundError(f"no {'policy weights' if actor else 'model'} file at {source!r}")
        files.check_input_file(source, "source")
        if not actor:
            _check_model_archive(source)


def _check_model_archive(path: str) -> None:
    """Raise ``ValueError`` unless ``path`` is a zip archive within the bounds of every archive read
    (:func:`gin_env.files.bounded_archive`) holding what SB3's ``model.save`` writes. What its entries hold is
    checked when it is loaded (:func:`gin_env.agents.model_archive.load`), before anything is written."""
    with files.bounded_archive(path, f"source {path}: not a model") as archive:
        names = set(archive.namelist())
    missing = [member for member in MODEL_MEMBERS if member not in names]
    if missing:
        raise ValueError(f"source {path}: not a MaskablePPO model: the archive lacks {', '.join(missing)}")
