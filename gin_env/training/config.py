"""The options of a training run: :class:`Args`, one command-line flag per field."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field

from gin_env import training
from gin_env.arguments import ArgumentParser
from gin_env.game import rule_options
from gin_env.game.rules import PRESETS, Rules


@dataclass
class Args:
    """Everything a run depends on; each field is a command-line option (``--total-timesteps`` etc.). The defaults
    are the first leg of the chain that produced the shipped model (``agents/models/ppo_gin.zip``, docs/training.md),
    but for ``--rules``: every command defaults to the ``standard`` preset, and that chain ran under ``eaai``.
    :func:`gin_env.training.checks.check_args` says which values are allowed."""

    total_timesteps: int = field(default=3_000_000, metadata={
        "help": "learner decisions to train for, in all (0: the cloning alone, no PPO)"})
    seed: int = field(default=1, metadata={"help": "seeds the games, the network, PPO and the opponent draws"})
    rules: str = field(default="standard", metadata={"help": f"rules preset: {', '.join(sorted(PRESETS))}"})
    rule: list[str] = field(default_factory=list, metadata={"help": rule_options.RULE_HELP,
                                                            "metavar": rule_options.RULE_METAVAR})
    reward_scale: float = field(default=50.0, metadata={"help": "reward = learner's hand points / this"})
    num_envs: int = field(default=512, metadata={"help": "games stepped together on the batched engine"})
    slots: int = field(default=8, metadata={"help": "groups of games that share an opponent (divides num_envs)"})
    opponents: str = field(default="0:simple=5,expert=1,self=2",
                           metadata={"help": "opponent schedule: START:name=weight,... phases separated by ';'"})
    snapshot_every: int = field(default=200_000, metadata={"help": "steps between policy snapshots for self-play"})
    snapshots: int = field(default=5, metadata={"help": "most recent snapshots kept in the self-play pool"})
    n_steps: int = field(default=32, metadata={"help": "steps per game per rollout"})
    batch_size: int = field(default=2048, metadata={"help": "PPO minibatch size"})
    n_epochs: int = field(default=4, metadata={"help": "PPO epochs per rollout"})
    learning_rate: float = field(default=1e-4, metadata={"help": "Adam learning rate"})
    gamma: float = field(default=0.99, metadata={"help": "discount factor"})
    gae_lambda: float = field(default=0.95, metadata={"help": "GAE lambda"})
    clip_range: float = field(default=0.2, metadata={"help": "PPO clipping range"})
    ent_coef: float = field(default=0.001, metadata={"help": "entropy bonus coefficient"})
    imitate_steps: int = field(default=1_000_000, metadata={
        "help": "teacher decisions collected for behaviour cloning before PPO starts (0: no cloning)"})
    teacher: str = field(default="expert", metadata={"help": "the agent cloned before PPO starts"})
    from_dataset: str = field(default="", metadata={
        "help": "clone the recorded agent of these Minari datasets (ids or folders, separated by commas; gin-env "
                "dataset writes them) instead of collecting --teacher's decisions, also into a --resume model; "
                "--imitate-steps caps the decisions read"})
    imitate_opponent: str = field(default="simple", metadata={
        "help": "the teacher's opponent while collecting (several, separated by commas, share the decisions)"})
    clone_resumed: bool = field(default=False, metadata={
        "help": "clone --teacher into the --resume model too, before PPO (a --from-dataset always is)"})
    imitate_epochs: int = field(default=6, metadata={"help": "passes over the collected decisions"})
    knock_weight: float = field(default=10.0, metadata={
        "help": "cloning loss weight of decisions where a knock is legal, relative to the others"})
    imitate_batch_size: int = field(default=256, metadata={"help": "cloning minibatch size"})
    imitate_lr: float = field(default=1e-3, metadata={"help": "Adam learning rate of the cloning"})
    match_record: bool = field(default=False, metadata={
        "help": "play games to the target, the match record in the learner's observation (a --resume model "
                "without it is widened, its new inputs weighted 0)"})
    privileged_critic: bool = field(default=False, metadata={
        "help": "the critic also reads what no player sees, the opponent's hand and the stock's order: the actor, and "
                "so every network exported or played, reads the player's view alone (a --resume model without it gets "
                "a critic extractor of its own, the new inputs weighted 0)"})
    shaping: float = field(default=1.0, metadata={"help": "weight of the potential-based deadwood shaping (0: off)"})
    channels: int = field(default=32, metadata={"help": "channels of each convolution over the card grid"})
    features: int = field(default=128, metadata={"help": "width of the global feature layer"})
    hidden: int = field(default=128, metadata={"help": "width of the value head's hidden layer"})
    eval_every: int = field(default=250_000, metadata={"help": "steps between evaluations against simple"})
    eval_deals: int = field(default=500, metadata={"help": "duplicate deals per evaluation (0: no evaluations)"})
    eval_opponent: str = field(default="simple", metadata={
        "help": "the agent the periodic evaluations play (it also picks best.zip)"})
    checkpoint_every: int = field(default=250_000, metadata={"help": "steps between saves of last.zip"})
    run_dir: str = field(default="runs/ppo", metadata={"help": "where logs, checkpoints and plots go"})
    resume: str = field(default="", metadata={"help": "a model .zip to continue training (its PPO settings win)"})
    overwrite: bool = field(default=False, metadata={
        "help": "replace the run already in --run-dir (without it, such a folder is refused unless --resume)"})
    device: str = field(default="auto", metadata={"help": "auto, cpu or cuda"})
    threads: int = field(default=1, metadata={"help": "torch CPU threads"})
    progress: bool = field(default=True, metadata={"help": "show a progress bar (--no-progress hides it)"})

    def game_rules(self) -> Rules:
        """The rules the run plays: ``--rules``' preset with each ``--rule`` change (``ValueError`` naming a bad one,
        which :func:`gin_env.training.checks.check_args` reports before the run)."""
        return rule_options.rules_from(self.rules, self.rule)

    def clones(self) -> bool:
        """Whether the run clones before PPO: a dataset is cloned into a resumed model too (a fine-tune, as expert
        iteration does); a teacher warms a new model, and a resumed one only when asked (``--clone-resumed``)."""
        return bool(self.from_dataset or (self.imitate_steps and (not self.resume or self.clone_resumed)))


def recorded_rules(options: dict, where: str) -> Rules:
    """The rules of a run's recorded options (an ``"args"`` entry of its ``history.json`` or ``league.json``): a run
    from before ``--rule`` recorded no changes. ``ValueError`` naming ``where`` when they do not read."""
    changes = options.get("rule", [])
    try:
        if not isinstance(changes, list) or not all(isinstance(text, str) for text in changes):
            raise ValueError(f"'rule' is {changes!r}, not a list of KEY=VALUE texts")
        return rule_options.rules_from(options.get("rules", rule_options.DEFAULT_PRESET), changes)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: the run's recorded rules do not read ({err}); use a new --run-dir or "
                         "--overwrite") from None


def check_same_rules(options: dict, rules: Rules, run_dir: str, where: str) -> None:
    """``ValueError`` when the run in ``run_dir``, whose last recorded ``options`` are read from ``where``, played
    other rules than ``rules``: a resumed run goes on under its own rules. Options that name no rules say nothing
    to compare."""
    if "rules" not in options:
        return
    recorded = recorded_rules(options, where)
    if not rule_options.same_game(recorded, rules):
        raise ValueError(f"--rules, --rule: the run in {run_dir} trains under the {recorded.describe()}, not the "
                         f"{rules.describe()}; give its rules, or a new --run-dir")


def build_parser(prog: str | None = None, options: type = Args, description: str | None = None):
    """The ``argparse`` parser of an ``options`` dataclass (:class:`Args` by default): one option per field, named
    after it with dashes, its default in its help; ``description`` heads the help (by default the first paragraph
    of :mod:`gin_env.training`)."""
    if description is None:
        description = training.__doc__.split("\n\n")[0]
    parser = ArgumentParser(prog=prog, description=description)
    for f in dataclasses.fields(options):
        flag = "--" + f.name.replace("_", "-")
        if f.type == "list[str]":
            # Given once per item (``--rule KEY=VALUE``, as every command takes it).
            parser.add_argument(flag, action="append", default=[], metavar=f.metadata["metavar"],
                                help=f.metadata["help"])
        elif f.type == "bool":
            shown = "on" if f.default else "off"
            parser.add_argument(flag, default=f.default, action=argparse.BooleanOptionalAction,
                                help=f"{f.metadata['help']} (default: {shown})")
        else:
            shown = f.default if f.default != "" else "none"
            parser.add_argument(flag, type=type(f.default), default=f.default,
                                help=f"{f.metadata['help']} (default: {shown})")
    return parser


def parse_args(argv: list[str] | None = None, prog: str | None = None, options: type = Args,
               description: str | None = None):
    """An ``options`` dataclass (:class:`Args` by default) from the command line (:func:`build_parser`); the values
    are not checked yet (:func:`gin_env.training.checks.check_args`)."""
    return options(**vars(build_parser(prog, options, description).parse_args(argv)))
