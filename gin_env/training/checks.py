"""Every option of a training run checked before anything happens (:func:`check_args`): no folder is made, no model
built, no step trained until all of them pass, and each problem is one line that names its option.

The checks that need no optional dependency come first, so a bad option reads the same with or without torch; then
the agents are loaded (a model file among them needs torch), training's dependencies are imported, and last the
``--resume`` model is read and a CUDA device looked for.
"""

from __future__ import annotations

import math
import os

from gin_env import agents
from gin_env.agents import ppo
from gin_env.agents.model_archive import MAX_LAYER_WIDTH
from gin_env.agents.numpy_policy import MAX_WEIGHTS, actor_weights
from gin_env.arguments import did_you_mean
from gin_env.evaluation.runner import MAX_GAMES, MAX_WORKERS_PER_CORE, usable_cores
from gin_env.files import check_distinct, check_input_file
from gin_env.game.observation import obs_size
from gin_env.game.rule_options import DEFAULT_PRESET, same_game
from gin_env.optional import require
from gin_env.table.batched import MAX_NUM_ENVS
from gin_env.table.checks import resolve_rules
from gin_env.training.config import Args, check_same_rules
from gin_env.training.opponents import SELF, batched_agent, listed, parse_schedule
from gin_env.training.run_files import (
    check_resumes_here,
    check_run_dir,
    new_history,
    read_history,
    removed_paths,
    run_paths,
)
from gin_env.training.widen import model_layout

#: The largest ``--seed``: SB3 seeds numpy's legacy generator (below 2**32) with it plus a resumed run's step count.
MAX_SEED = 2**31 - 1
#: ``--device`` values.
DEVICES = ("auto", "cpu", "cuda")

#: The most decisions one rollout (``--num-envs`` x ``--n-steps``) may hold: PPO keeps each with its observation,
#: about 1.5 kB, so a rollout stays under 2 GB (the shipped run's held 16,384).
MAX_ROLLOUT = 2**20
#: The most self-play snapshots kept (``--snapshots``): each is a copy of the network held in memory.
MAX_SNAPSHOTS = 1_000

#: Numeric options of :class:`.config.Args` -> (lowest, whether the lowest itself is refused, highest).
RANGES = {
    **dict.fromkeys(("slots", "snapshot_every", "n_steps", "n_epochs", "imitate_epochs", "eval_every",
                     "checkpoint_every"), (1, False, math.inf)),
    # As wide as a model file may describe (model_archive), so that every run's checkpoints load.
    **dict.fromkeys(("channels", "features", "hidden"), (1, False, MAX_LAYER_WIDTH)),
    "num_envs": (1, False, MAX_NUM_ENVS),
    "snapshots": (1, False, MAX_SNAPSHOTS),
    "imitate_batch_size": (1, False, MAX_ROLLOUT),
    "threads": (1, False, MAX_WORKERS_PER_CORE * usable_cores()),
    **dict.fromkeys(("total_timesteps", "imitate_steps"), (0, False, math.inf)),
    "eval_deals": (0, False, MAX_GAMES),
    **dict.fromkeys(("reward_scale", "learning_rate", "clip_range", "imitate_lr", "knock_weight"),
                    (0, True, math.inf)),
    **dict.fromkeys(("ent_coef", "shaping"), (0, False, math.inf)),
    **dict.fromkeys(("gamma", "gae_lambda"), (0, True, 1)),
    # PPO normalizes advantages over each minibatch, which takes two decisions at least.
    "batch_size": (2, False, math.inf),
    "seed": (0, False, MAX_SEED),
}


def flag(name: str) -> str:
    """The option of a field: ``num_envs`` -> ``--num-envs``."""
    return "--" + name.replace("_", "-")


def check_ranges(args, ranges: dict[str, tuple[float, bool, float]]) -> None:
    """``ValueError`` naming the first option of ``ranges`` whose value of ``args`` is out of its range (or, for a
    float, not a finite number)."""
    for name, (low, above, high) in ranges.items():
        value = getattr(args, name)
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{flag(name)} must be a finite number, got {value}")
        if value < low or (above and value == low) or value > high:
            lowest = f"above {low}" if above else f"at least {low}"
            highest = f" and at most {high}" if high != math.inf else ""
            raise ValueError(f"{flag(name)} must be {lowest}{highest}, got {value}")


def check_minibatches(num_envs: int, n_steps: int, batch_size: int, source: str = "") -> None:
    """``ValueError`` when a rollout of ``num_envs * n_steps`` decisions would end in a minibatch of one, over which
    PPO's advantage normalization divides by zero; ``source`` says where ``n_steps`` and ``batch_size`` come from."""
    rollout = num_envs * n_steps
    if rollout < 2 or rollout % batch_size == 1:
        raise ValueError(f"--num-envs {num_envs} x --n-steps {n_steps} = {rollout} decisions per rollout leave a "
                         f"minibatch of one decision with --batch-size {batch_size}{source}; PPO needs two")


def check_numbers(args: Args) -> None:
    """The numeric options, and how they go together."""
    check_ranges(args, RANGES)
    if args.num_envs % args.slots:
        raise ValueError(f"--slots {args.slots} must divide --num-envs {args.num_envs} (groups of equal size)")
    weights = actor_weights(args.channels, args.features, obs_size(args.match_record))
    if weights > MAX_WEIGHTS:
        raise ValueError(f"--channels {args.channels} and --features {args.features} make an actor of {weights:,} "
                         f"weights; a policy file holds at most {MAX_WEIGHTS:,}")
    if args.num_envs * args.n_steps > MAX_ROLLOUT:
        raise ValueError(f"--num-envs {args.num_envs} x --n-steps {args.n_steps} = "
                         f"{args.num_envs * args.n_steps:,} decisions per rollout; at most {MAX_ROLLOUT:,}")
    if not args.resume:
        check_minibatches(args.num_envs, args.n_steps, args.batch_size)


def check_names(args: Args) -> None:
    """The options named from a list, and the opponent schedule's syntax."""
    rules = args.game_rules()
    if args.device not in DEVICES:
        raise ValueError(f"--device must be one of {', '.join(DEVICES)}, got {args.device!r}"
                         f"{did_you_mean(args.device, DEVICES)}")
    try:
        parse_schedule(args.opponents)
    except ValueError as err:
        raise ValueError(f"--opponents {args.opponents!r}: {err}") from None
    if args.match_record and rules.target is None:
        raise ValueError(f"--match-record plays games to the target, and the {rules.describe()} have none")
    if args.privileged_critic and args.clones():
        raise ValueError("--privileged-critic trains by PPO alone, and this run would clone a teacher or a dataset "
                         "first: drop --from-dataset and --clone-resumed, and give --imitate-steps 0 or a --resume "
                         "model")
    if args.clone_resumed and not (args.resume and args.imitate_steps):
        raise ValueError("--clone-resumed clones the teacher into the --resume model: give --resume and a "
                         "positive --imitate-steps")


def load_agent(option: str, name: str, batched: bool):
    """The agent ``name`` given to ``option`` (by :func:`.opponents.batched_agent` when ``batched``: training plays
    its opponents and its teacher batch by batch); ``ValueError`` naming the option when it does not load."""
    try:
        return batched_agent(name) if batched else agents.load(name)
    except (ValueError, OSError) as err:
        raise ValueError(f"{option}: {err}") from None


def check_agents(args: Args) -> None:
    """Every agent the run may play, in every phase of the schedule, used or not (``--eval-deals 0``,
    ``--imitate-steps 0``)."""
    names = {name for _, mix in parse_schedule(args.opponents) for name in mix if name != SELF}
    for name in sorted(names):
        load_agent("--opponents", name, batched=True)
    load_agent("--teacher", args.teacher, batched=True)
    imitated = listed(args.imitate_opponent)
    if not imitated:
        raise ValueError(f"--imitate-opponent {args.imitate_opponent!r} names no agent")
    for name in imitated:
        load_agent("--imitate-opponent", name, batched=True)
    load_agent("--eval-opponent", args.eval_opponent, batched=False)


def check_dataset(args: Args) -> None:
    """``--from-dataset``: Minari datasets of two-player ``GinRummy-v0`` under the run's ``--rules``, whose
    decisions ``--imitate-steps`` lets the cloning read."""
    from gin_env.training.imitation import dataset_sources

    if not args.imitate_steps:
        raise ValueError("--from-dataset with --imitate-steps 0 would clone nothing; give it a number of decisions")
    sources = dataset_sources(args)
    if not sources:
        raise ValueError(f"--from-dataset {args.from_dataset!r} names no dataset")
    require("minari", "--from-dataset")
    from gin_env.datasets import decisions

    for source in sources:
        kwargs = decisions.env_kwargs(decisions.open_dataset(source))
        played = resolve_rules(kwargs.get("rules", DEFAULT_PRESET))
        if not same_game(played, args.game_rules()):
            raise ValueError(f"--from-dataset {source}: its episodes were played under the {played.describe()}, "
                             f"this run under the {args.game_rules().describe()}; train under the dataset's rules "
                             "(--rules, --rule), or record another")
        if kwargs.get("players") not in (None, 2) or kwargs.get("room") is not None:
            raise ValueError(f"--from-dataset {source}: its episodes are not of two players, and training plays two")
        recorded = decisions.carries_record(kwargs)
        if recorded != args.match_record:
            raise ValueError(f"--from-dataset {source}: its observations "
                             f"{'carry' if recorded else 'do not carry'} the match record; "
                             f"{'train with' if recorded else 'record it with'} --match-record, or clone another")


def check_history(args: Args) -> dict:
    """The history the run continues: the run folder's ``history.json`` when resuming into it (checked, and
    evaluated against the same opponent), else a new one."""
    path = os.path.join(args.run_dir, "history.json")
    if not (args.resume and not args.overwrite and os.path.lexists(path)):
        return new_history(args.eval_deals, args.eval_opponent)
    history = read_history(path)
    # best.zip is kept by comparing evaluations, which only means something against one opponent.
    if history["eval_opponent"] != args.eval_opponent:
        raise ValueError(f"--eval-opponent {args.eval_opponent!r}: the run in {args.run_dir} was evaluated "
                         f"against {history['eval_opponent']!r}; give that, or a new --run-dir")
    recorded = history.get("args")
    if recorded and isinstance(recorded[-1], dict):  # runs from before the options were recorded: none to compare
        check_same_rules(recorded[-1], args.game_rules(), args.run_dir, path)
    return history


def check_resume_file(args: Args) -> None:
    """``--resume``: a readable file."""
    try:
        check_input_file(args.resume, "--resume")
    except OSError as err:
        raise ValueError(str(err)) from None


def run_inputs(args: Args) -> dict[str, list[str]]:
    """The files the run reads, by option: the ``--resume`` model, the agents' model files (and plug-in modules),
    the ``--from-dataset`` folders or ids."""
    def read(*names: str) -> list[str]:
        return [path for name in names for path in agents.files_read(name)]

    scheduled = sorted({name for _, mix in parse_schedule(args.opponents) for name in mix if name != SELF})
    return {"--resume": [args.resume] if args.resume else [], "--opponents": read(*scheduled),
            "--teacher": read(args.teacher), "--imitate-opponent": read(*listed(args.imitate_opponent)),
            "--eval-opponent": read(args.eval_opponent), "--from-dataset": listed(args.from_dataset)}


def check_run_folder(args: Args) -> dict:
    """The run folder, checked before the run and again under its lock: it can be the run folder
    (:func:`.run_files.check_run_dir`), it holds no other run that a ``--resume`` would mix with its own
    (:func:`.run_files.check_resumes_here`), the run writes no file it reads, and ``--overwrite`` deletes none
    (refused: the ``--resume`` model in its own run folder needs a copy elsewhere). The history the run continues."""
    check_run_dir(args.run_dir, resume=bool(args.resume), overwrite=args.overwrite)
    inputs = run_inputs(args)
    # Resuming from the folder's own last.zip is what --resume is for: the model is read before it is replaced.
    check_distinct({option: paths for option, paths in inputs.items() if option != "--resume"},
                   {"--run-dir": run_paths(args.run_dir)}, "copy it out of the run folder, or choose another --run-dir")
    if args.overwrite:
        check_distinct(inputs, {"--overwrite deletes": removed_paths(args.run_dir)},
                       "give a copy kept elsewhere, or drop --overwrite")
    elif args.resume:
        check_resumes_here(args.run_dir, args.resume)
    return check_history(args)


def check_resume_model(args: Args) -> None:
    """``--resume``: a MaskablePPO model of this env, whose PPO settings (which win over the options) make whole
    minibatches."""
    try:
        model = ppo.read_model(args.resume, "--resume")
    except (ValueError, OSError) as err:
        raise ValueError(f"--resume: {err}") from None
    check_minibatches(args.num_envs, model.n_steps, model.batch_size, f" (the settings of {args.resume})")
    jokers, record, privileged = model_layout(model)
    if jokers and not args.game_rules().jokers:
        raise ValueError(f"--resume {args.resume} plays jokers: train it under rules with jokers (--rules jokers)")
    if privileged and args.game_rules().jokers and not jokers:
        raise ValueError(f"--resume {args.resume} has a privileged critic: a privileged critic's model is not widened "
                         "to jokers")
    if record and not args.match_record:
        raise ValueError(f"--resume {args.resume} reads the match record: train it with --match-record")
    if privileged and not args.privileged_critic:
        raise ValueError(f"--resume {args.resume} has a privileged critic: train it with --privileged-critic")
    if privileged and args.match_record and not record:
        raise ValueError(f"--resume {args.resume} has a privileged critic and does not read the match record: a "
                         "privileged critic's model is not widened to the record")


def check_device(device: str) -> None:
    """``--device cuda`` on a torch that sees a CUDA device."""
    torch = require("torch", "training")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"--device cuda: this torch ({torch.__version__}) sees no CUDA device; use --device cpu "
                         "or auto")


def require_training(args: Args) -> None:
    """Import what training needs (``MissingExtra``, one line naming the extra, for the first one missing)."""
    for module, purpose in (("torch", "training"), ("sb3_contrib", "training"), ("tensorboard", "training's logs"),
                            ("tqdm", "training's progress bar")):
        require(module, purpose)
    if args.eval_deals:
        require("matplotlib", "the learning curve")


def check_args(args: Args) -> dict:
    """Check every option of ``args`` before anything is written or built; ``ValueError`` with one line that names
    the option for the first problem, ``MissingExtra`` for a missing dependency. Returns the history the run
    continues (:func:`check_history`)."""
    check_numbers(args)
    check_names(args)
    if args.resume:
        check_resume_file(args)
    history = check_run_folder(args)
    check_agents(args)
    if args.from_dataset:
        check_dataset(args)
    require_training(args)
    if args.resume:
        check_resume_model(args)
    check_device(args.device)
    return history
