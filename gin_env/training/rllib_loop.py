"""Self-play PPO on RLlib's new API stack (``train_rllib.py``): the options, the run, and its command line.

The learner (``gin_env.interop.rllib.MaskedPPOModule``, module ``"learner"``) plays ``rllib.GinRummyLeagueEnv``:
each episode against an opponent drawn from ``--opponents`` (``name=weight,...``): fixed agents such as ``simple``
and ``expert``, played inside the env, or ``self``, one of ``--snapshots`` frozen copies of the learner (modules
``snapshot_0`` ...), which start as the untrained learner and are refreshed in turn, the oldest first, every
``--snapshot-every`` iterations, all under ``--rules`` with each ``--rule KEY=VALUE`` change (a resumed run keeps
its own rules). Only the learner trains; with ``--match-record`` it plays games to the target with
the match record in every observation. RLlib samples on ``--num-env-runners`` Ray actors (0: in
this process) of the Ray at ``--address`` (empty: a new local Ray), and the run writes to ``--run-dir``:

* ``tb/``: TensorBoard scalars per iteration: per opponent the learner's hand win rate and points per hand,
  episodes, env steps per second, and PPO's losses;
* ``checkpoint/`` (RLlib's, every ``--checkpoint-every`` iterations and at the end, with the league it goes with)
  and ``league.json`` (the iteration, the next snapshot slot, the history): ``--resume`` continues from them up to
  ``--iterations``. A folder that holds a run is refused unless ``--resume`` or ``--overwrite``; every file is
  written whole, and a checkpoint is written beside the old one and swapped in, so an interrupt leaves one whole;
* ``policy.pt``: the learner's policy as plain torch layers (``gin_env.agents.torch_policy``), which
  ``agents.load`` plays without Ray: ``python evaluate.py RUN_DIR/policy.pt simple``.

Ray, torch and RLlib are imported inside the functions that train, after the options are checked, so ``--help``
and a bad option answer without them.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import sys
import time
from dataclasses import dataclass, field

from gin_env import locks
from gin_env.files import read_text, temporary_name, write_json
from gin_env.game import rule_options
from gin_env.game.rules import PRESETS, Rules
from gin_env.optional import MissingExtra, require
from gin_env.training.checks import MAX_SEED, check_ranges, load_agent
from gin_env.training.config import check_same_rules, parse_args
from gin_env.training.opponents import parse_schedule
from gin_env.training.run_files import check_run_dir, checkpoints_line, clear_run, locked_run_folder


@dataclass
class RLlibArgs:
    """Everything a run depends on; each field is a command-line option of ``train_rllib.py``."""

    iterations: int = field(default=200, metadata={"help": "PPO iterations to train for, in all"})
    run_dir: str = field(default="runs/rllib", metadata={"help": "where logs, checkpoints and the policy go"})
    resume: bool = field(default=False, metadata={"help": "continue the run in --run-dir from its checkpoint"})
    overwrite: bool = field(default=False, metadata={
        "help": "replace the run already in --run-dir (without it, such a folder is refused unless --resume)"})
    seed: int = field(default=1, metadata={"help": "seeds the games, the opponent draws and the networks"})
    rules: str = field(default="standard", metadata={"help": f"rules preset: {', '.join(sorted(PRESETS))}"})
    rule: list[str] = field(default_factory=list, metadata={"help": rule_options.RULE_HELP,
                                                            "metavar": rule_options.RULE_METAVAR})
    reward_scale: float = field(default=50.0, metadata={"help": "reward = hand points / this"})
    match_record: bool = field(default=False, metadata={
        "help": "episodes of a game to the target, with the match record in every observation"})
    opponents: str = field(default="simple=5,expert=1,self=2",
                           metadata={"help": "the league: name=weight,... (agent names, model files or self)"})
    snapshots: int = field(default=4, metadata={"help": "frozen copies of the learner in the league"})
    snapshot_every: int = field(default=10, metadata={"help": "iterations between refreshes of a snapshot"})
    num_env_runners: int = field(default=0, metadata={"help": "Ray actors that sample (0: this process)"})
    envs_per_runner: int = field(default=1, metadata={"help": "games each env runner steps together"})
    num_learners: int = field(default=0, metadata={
        "help": "Ray actors that run the PPO update, data-parallel (0: this process)"})
    address: str = field(default="", metadata={"help": "Ray cluster to join ('auto' or HOST:PORT); empty: local"})
    batch_size: int = field(default=4000, metadata={"help": "env steps per PPO iteration (all agents)"})
    minibatch_size: int = field(default=500, metadata={"help": "PPO minibatch size"})
    num_epochs: int = field(default=4, metadata={"help": "PPO epochs per iteration"})
    learning_rate: float = field(default=3e-4, metadata={"help": "Adam learning rate"})
    gamma: float = field(default=0.99, metadata={"help": "discount factor"})
    gae_lambda: float = field(default=0.95, metadata={"help": "GAE lambda"})
    clip_range: float = field(default=0.2, metadata={"help": "PPO clipping range"})
    ent_coef: float = field(default=0.01, metadata={"help": "entropy bonus coefficient"})
    hidden: str = field(default="256,256", metadata={"help": "widths of the MLP encoder's layers"})
    checkpoint_every: int = field(default=10, metadata={"help": "iterations between checkpoints"})
    progress: bool = field(default=True, metadata={"help": "show a progress bar (--no-progress hides it)"})

    def game_rules(self) -> Rules:
        """The rules the run plays: ``--rules``' preset with each ``--rule`` change (``ValueError`` naming a bad
        one, which :func:`check` reports before the run)."""
        return rule_options.rules_from(self.rules, self.rule)


#: What a run's league file is called in its run directory; and its checkpoint folder.
LEAGUE_FILE, CHECKPOINT_DIR = "league.json", "checkpoint"
#: What a run writes in its run folder.
RUN_FILES = (LEAGUE_FILE, CHECKPOINT_DIR, "tb", "policy.pt")
#: The largest league.json read back (a row per iteration, a few hundred bytes each).
LEAGUE_LIMIT = 256 * 2**20
#: Numeric options -> (lowest, whether the lowest itself is refused, highest); see ``checks.check_ranges``.
RANGES = {
    **dict.fromkeys(("iterations", "snapshots", "snapshot_every", "envs_per_runner", "batch_size", "minibatch_size",
                     "num_epochs", "checkpoint_every"), (1, False, math.inf)),
    **dict.fromkeys(("num_env_runners", "num_learners"), (0, False, math.inf)),
    **dict.fromkeys(("reward_scale", "learning_rate", "clip_range"), (0, True, math.inf)),
    **dict.fromkeys(("gamma", "gae_lambda"), (0, True, 1)),
    "ent_coef": (0, False, math.inf),
    "seed": (0, False, MAX_SEED),
}


def league_weights(text: str) -> dict[str, float]:
    """``"simple=5,self=2"`` -> ``{"simple": 5.0, "self": 2.0}`` (the phase syntax of train.py's schedule)."""
    try:
        return parse_schedule(f"0:{text}")[0][1]
    except ValueError:
        raise ValueError(f"--opponents must be name=weight,... with weights >= 0, not all 0; got {text!r}") from None


def hidden_sizes(text: str) -> list[int]:
    """``"256,256"`` -> ``[256, 256]``; ``ValueError`` naming the option for anything but positive integers."""
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise ValueError(f"--hidden must be positive integers separated by commas, got {text!r}")
    return sizes


def check(args: RLlibArgs) -> dict:
    """Refuse bad options before Ray starts or anything is written, each in one line that names it, then a missing
    dependency (``MissingExtra``); the league the run continues (the run folder's when ``--resume``, else a new
    one)."""
    check_ranges(args, RANGES)
    if args.minibatch_size > args.batch_size:
        raise ValueError(f"--minibatch-size {args.minibatch_size} must be at most --batch-size {args.batch_size}")
    rules = args.game_rules()
    if args.match_record and rules.target is None:
        raise ValueError(f"--match-record plays games to the target, and the {rules.describe()} have none")
    hidden_sizes(args.hidden)
    for name in league_weights(args.opponents):
        if name != "self":
            load_agent("--opponents", name, batched=False)
    if args.resume and args.overwrite:
        raise ValueError("--resume continues the run in --run-dir and --overwrite replaces it: give one of them")
    check_run_dir(args.run_dir, args.resume, args.overwrite, RUN_FILES)
    league = read_league(args) if args.resume else {"iteration": 0, "next_slot": 0, "history": []}
    for module, purpose in (("ray.rllib", "train_rllib.py"), ("torch", "train_rllib.py"),
                            ("tensorboard", "train_rllib.py's logs"), ("tqdm", "train_rllib.py's progress bar")):
        require(module, purpose)
    return league


def checkpoint_folder(run_dir: str) -> str:
    """The run's checkpoint: ``checkpoint/``, or the one it replaces while a save swaps them (:func:`save`)."""
    folder = os.path.abspath(os.path.join(run_dir, CHECKPOINT_DIR))
    return folder if os.path.isdir(folder) or not os.path.isdir(folder + ".old") else folder + ".old"


def read_league(args: RLlibArgs) -> dict:
    """The league of the run in ``--run-dir`` (the copy inside its checkpoint, which goes with its state), checked
    for what a resumed run reads and for options that must not change."""
    folder = checkpoint_folder(args.run_dir)
    path = os.path.join(folder, LEAGUE_FILE)
    if not os.path.isfile(path):  # runs from before the checkpoint held its league
        path = os.path.join(args.run_dir, LEAGUE_FILE)
    if not os.path.isdir(folder) or not os.path.isfile(path):
        raise ValueError(f"--resume: no checkpoint of a run in {args.run_dir!r} ({LEAGUE_FILE} and {CHECKPOINT_DIR}/)")
    try:
        league = json.loads(read_text(path, LEAGUE_LIMIT, LEAGUE_FILE))
    except (OSError, ValueError) as err:
        raise ValueError(f"--resume: {path} is not a readable {LEAGUE_FILE} ({err})") from None
    kinds = {"iteration": int, "next_slot": int, "history": list, "args": list}
    if not isinstance(league, dict) or any(type(league.get(key, [])) is not kind for key, kind in kinds.items()) \
            or not {"iteration", "next_slot", "history"} <= league.keys():
        raise ValueError(f"--resume: {path} is not a {LEAGUE_FILE} of train_rllib.py (iteration, next_slot, history)")
    before = league.get("args", [{}])[-1] if league.get("args") else {}
    for name in ("snapshots", "hidden"):  # the checkpoint holds these modules, of these shapes
        if name in before and before[name] != getattr(args, name):
            raise ValueError(f"--{name} {getattr(args, name)}: the run in {args.run_dir} has --{name} "
                             f"{before[name]}; give that, or a new --run-dir")
    # ... and its modules take the observation with the record or without (runs from before the option: without).
    if before and before.get("match_record", False) != args.match_record:
        raise ValueError(f"--resume: the run in {args.run_dir} trained {'with' if not args.match_record else 'without'}"
                         f" --match-record; resume it {'with' if not args.match_record else 'without'} it too, or "
                         "give a new --run-dir")
    if before:
        check_same_rules(before, args.game_rules(), args.run_dir, path)
    if not 0 <= league["next_slot"] < args.snapshots:
        raise ValueError(f"--resume: {path} names snapshot slot {league['next_slot']} of {args.snapshots}")
    return league


def build(args: RLlibArgs):
    """The PPO ``Algorithm`` of this run (Ray must be connected)."""
    from gin_env.interop import rllib
    from gin_env.training.rllib_metrics import LeagueMetrics

    rllib_ppo = require("ray.rllib.algorithms.ppo", "train_rllib.py")
    specs = require("ray.rllib.core.rl_module", "train_rllib.py")
    model_config = require("ray.rllib.core.rl_module.default_model_config", "train_rllib.py").DefaultModelConfig(
        fcnet_hiddens=hidden_sizes(args.hidden), vf_share_layers=True)
    # Plain data, as RLlib's env config travels to every env runner.
    env_config = {"rules": rule_options.as_data(args.game_rules()), "reward_scale": args.reward_scale,
                  "opponents": league_weights(args.opponents), "snapshots": args.snapshots}
    if args.match_record:
        env_config.update(episode="match", match_record=True)
    modules = [rllib.LEARNER, *(rllib.snapshot_id(k) for k in range(args.snapshots))]
    config = (
        rllib_ppo.PPOConfig()
        # RLlib's env check steps random, unmasked actions, which the env refuses (an illegal action raises).
        .environment(rllib.GinRummyLeagueEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.envs_per_runner)
        .learners(num_learners=args.num_learners)
        .multi_agent(policies=set(modules), policy_mapping_fn=rllib.module_for, policies_to_train=[rllib.LEARNER])
        .rl_module(rl_module_spec=specs.MultiRLModuleSpec(rl_module_specs={
            module: specs.RLModuleSpec(module_class=rllib.MaskedPPOModule, model_config=model_config)
            for module in modules}))
        .training(train_batch_size_per_learner=args.batch_size, minibatch_size=args.minibatch_size,
                  num_epochs=args.num_epochs, lr=args.learning_rate, gamma=args.gamma, lambda_=args.gae_lambda,
                  clip_param=args.clip_range, entropy_coeff=args.ent_coef)
        .callbacks(LeagueMetrics)
        .debugging(seed=args.seed, log_level="ERROR")
    )
    return config.build_algo()


def league_row(result: dict) -> dict[str, dict[str, float]]:
    """Per opponent, the learner's hands, hand win rate and points per hand in one iteration's ``result``; none for
    an opponent that ended no hand in it (RLlib then reports its sums as NaN, not 0)."""
    rows = {}
    for name, sums in sorted(result.get("env_runners", {}).get("league", {}).items()):
        hands = float(sums["hands"])
        if hands > 0:
            rows[name] = {"hands": int(hands), "hand_win_rate": float(sums["wins"]) / hands,
                          "points_per_hand": float(sums["points"]) / hands}
    return rows


def learner_weights(algo, inference_only: bool) -> dict:
    """The learner module's state as the learners hold it (``inference_only``: what acting needs)."""
    from gin_env.interop import rllib

    state = algo.learner_group.get_state(components=f"learner/rl_module/{rllib.LEARNER}",
                                         inference_only=inference_only)
    return state["learner"]["rl_module"][rllib.LEARNER]


def refresh_snapshot(algo, slot: int) -> None:
    """Copy the learner's current weights into snapshot ``slot``, on the learners (so checkpoints hold it) and on
    every env runner (where it plays)."""
    from gin_env.interop import rllib

    ray = require("ray", "train_rllib.py")
    snapshot = rllib.snapshot_id(slot)
    algo.learner_group.set_state({"learner": {"rl_module": {snapshot: learner_weights(algo, False)}}})
    # Set on each env runner's module directly: RLlib's weight sync skips an env runner whose weights are as new as
    # the learners' (it counts updates, not modules), which after the first iteration is every one of them.
    weights = ray.put(learner_weights(algo, True))
    algo.env_runner_group.foreach_env_runner(lambda runner: runner.module[snapshot].set_state(ray.get(weights)),
                                             local_env_runner=True)


def train(args: RLlibArgs, checked: bool = False) -> dict:
    """Run training as ``args`` say (Ray connected by the caller or here); returns the league record. Writes
    everything under ``args.run_dir``, holding its lock. ``checked``: :func:`check` has passed for these ``args``;
    else the options are checked here (``ValueError`` before anything is written, the run folder too). The options
    are checked again under the lock, and the league read there; a run folder another run holds is
    :class:`gin_env.locks.Refused`."""
    if not checked:
        check(args)
    with locked_run_folder(args.run_dir, lambda: check(args)) as league:
        return _train(args, league)


def _train(args: RLlibArgs, league: dict) -> dict:
    """The run of :func:`train`, its folder locked and ``league`` read under the lock."""
    from gin_env.interop import rllib

    ray = require("ray", "train_rllib.py")
    tensorboard = require("torch.utils.tensorboard", "train_rllib.py's logs")
    tqdm = require("tqdm", "train_rllib.py's progress bar").tqdm
    checkpoint = checkpoint_folder(args.run_dir)
    if args.overwrite:
        clear_run(args.run_dir, RUN_FILES)
    os.makedirs(args.run_dir, exist_ok=True)
    league.setdefault("args", []).append(dataclasses.asdict(args))
    if not ray.is_initialized():
        ray.init(address=args.address or "local", include_dashboard=False, log_to_driver=False)
    algo = build(args)
    if args.resume:
        algo.restore_from_path(checkpoint)
    else:
        for slot in range(args.snapshots):  # every snapshot starts as the untrained learner
            refresh_snapshot(algo, slot)
    writer = tensorboard.SummaryWriter(os.path.join(args.run_dir, "tb"))
    bar = tqdm(total=args.iterations, initial=league["iteration"], unit="iteration", desc="training",
               disable=not args.progress)
    try:
        while league["iteration"] < args.iterations:
            start = time.perf_counter()
            result = algo.train()
            league["iteration"] += 1
            row = _record(league, result, time.perf_counter() - start, writer)
            bar.update(1)
            bar.set_postfix_str(", ".join(f"{name} {stats['points_per_hand']:+.1f}"
                                          for name, stats in row["opponents"].items()))
            if league["iteration"] % args.snapshot_every == 0:
                refresh_snapshot(algo, league["next_slot"])
                league["next_slot"] = (league["next_slot"] + 1) % args.snapshots
            if league["iteration"] % args.checkpoint_every == 0:
                save(algo, league, args.run_dir)
    finally:
        bar.close()
        writer.close()
    save(algo, league, args.run_dir)
    meta = {"trainer": "train_rllib.py", "iterations": league["iteration"], "rules": args.game_rules().as_dict(),
            "opponents": args.opponents, "seed": args.seed, "match_record": args.match_record}
    module = algo.get_module(rllib.LEARNER)
    module.set_state(learner_weights(algo, True))  # the learners' latest, whatever the env runners last received
    rllib.export_policy(module, os.path.join(args.run_dir, "policy.pt"), meta)
    algo.stop()
    return league


def _record(league: dict, result: dict, seconds: float, writer) -> dict:
    """One iteration's row of the history, also written to TensorBoard."""
    from gin_env.interop import rllib

    learner = result.get("learners", {}).get(rllib.LEARNER, {})
    runners = result.get("env_runners", {})
    steps = int(runners.get("num_env_steps_sampled", 0))
    row = {"iteration": league["iteration"], "env_steps": steps,
           "learner_steps": int(runners.get("num_module_steps_sampled", {}).get(rllib.LEARNER, 0)),
           "seconds": seconds, "env_steps_per_s": steps / seconds, "opponents": league_row(result),
           "loss": {key: float(learner[key]) for key in ("policy_loss", "vf_loss", "entropy") if key in learner}}
    league["history"].append(row)
    step = league["iteration"]
    writer.add_scalar("throughput/env_steps_per_s", row["env_steps_per_s"], step)
    writer.add_scalar("throughput/learner_steps", row["learner_steps"], step)
    for name, stats in row["opponents"].items():
        for key, value in stats.items():
            writer.add_scalar(f"opponents/{name}/{key}", value, step)
    for key, value in row["loss"].items():
        writer.add_scalar(f"ppo/{key}", value, step)
    return row


def save(algo, league: dict, run_dir: str) -> None:
    """The checkpoint, whole: RLlib's state and the league that goes with it are written to a temporary folder,
    which replaces ``checkpoint/`` by two renames (the old one is ``checkpoint.old/`` in between, where
    :func:`checkpoint_folder` finds it); then ``league.json`` beside it."""
    final = os.path.abspath(os.path.join(run_dir, CHECKPOINT_DIR))
    staging, retired = temporary_name(final), final + ".old"
    shutil.rmtree(staging, ignore_errors=True)
    algo.save_to_path(staging)
    write_json(os.path.join(staging, LEAGUE_FILE), league)
    if os.path.isdir(final):
        shutil.rmtree(retired, ignore_errors=True)
        os.replace(final, retired)
    os.replace(staging, final)
    shutil.rmtree(retired, ignore_errors=True)
    write_json(os.path.join(run_dir, LEAGUE_FILE), league)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; the exit code (0 done, 2 bad options or a missing dependency, before anything is
    written; 130 interrupted: the last whole checkpoint stays)."""
    prog = prog or "train_rllib.py"
    args = parse_args(argv, prog, RLlibArgs, __doc__.split("\n\n")[0])
    try:
        check(args)
    except (ValueError, MissingExtra) as err:
        print(f"{prog}: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        league = train(args, True)
    except locks.Refused as err:
        print(f"{prog}: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"training interrupted; {checkpoints_line(args.run_dir, (CHECKPOINT_DIR,))}", file=sys.stderr)
        return 130
    print(f"{league['iteration']} iterations in {time.perf_counter() - start:.0f} s")
    print("wrote " + ", ".join(os.path.join(args.run_dir, name) for name in RUN_FILES))
    return 0
