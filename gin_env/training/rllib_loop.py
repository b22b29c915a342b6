"""Self-play PPO on RLlib's new API stack (``train_rllib.py``): the options, the run, and its command line.

The learner (``gin_env.rllib.MaskedPPOModule``, module ``"learner"``) plays ``gin_env.rllib.GinRummyLeagueEnv``:
each episode against an opponent drawn from ``--opponents`` (``name=weight,...``): fixed agents such as ``simple``
and ``expert``, played inside the env, or ``self``, one of ``--snapshots`` frozen copies of the learner (modules
``snapshot_0`` ...), which start as the untrained learner and are refreshed in turn, the oldest first, every
``--snapshot-every`` iterations. Only the learner trains. RLlib samples on ``--num-env-runners`` Ray actors (0: in
this process) of the Ray at ``--address`` (empty: a new local Ray), and the run writes to ``--run-dir``:

* ``tb/``: TensorBoard scalars per iteration: per opponent the learner's hand win rate and points per hand,
  episodes, env steps per second, and PPO's losses;
* ``checkpoint/`` (RLlib's, every ``--checkpoint-every`` iterations and at the end) and ``league.json`` (the
  iteration, the next snapshot slot, the history): ``--resume`` continues from them up to ``--iterations``;
* ``policy.pt``: the learner's policy as plain torch layers (``gin_env.agents.torch_policy``), which
  ``agents.load`` plays without Ray: ``python evaluate.py RUN_DIR/policy.pt simple``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from dataclasses import dataclass, field

from gin_env import agents, rllib
from gin_env.optional import require
from gin_env.rules import PRESETS
from gin_env.training.config import parse_args
from gin_env.training.opponents import parse_schedule

ray = require("ray", "train_rllib.py")
RLlibCallback = require("ray.rllib.callbacks.callbacks", "train_rllib.py").RLlibCallback


@dataclass
class RLlibArgs:
    """Everything a run depends on; each field is a command-line option of ``train_rllib.py``."""

    iterations: int = field(default=200, metadata={"help": "PPO iterations to train for, in all"})
    run_dir: str = field(default="runs/rllib", metadata={"help": "where logs, checkpoints and the policy go"})
    resume: bool = field(default=False, metadata={"help": "continue the run in --run-dir from its checkpoint"})
    seed: int = field(default=1, metadata={"help": "seeds the games, the opponent draws and the networks"})
    rules: str = field(default="eaai", metadata={"help": f"rules preset: {', '.join(sorted(PRESETS))}"})
    reward_scale: float = field(default=50.0, metadata={"help": "reward = hand points / this"})
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


#: What a run's league file is called in its run directory; and its checkpoint folder.
LEAGUE_FILE, CHECKPOINT_DIR = "league.json", "checkpoint"


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


def check(args: RLlibArgs) -> None:
    """Refuse bad options before Ray starts, each with a message that names it."""
    for name in ("iterations", "snapshots", "snapshot_every", "envs_per_runner", "batch_size", "minibatch_size",
                 "num_epochs", "checkpoint_every"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    for name in ("num_env_runners", "num_learners"):
        if getattr(args, name) < 0:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 0, got {getattr(args, name)}")
    if args.rules not in PRESETS:
        raise ValueError(f"--rules must be one of {', '.join(sorted(PRESETS))}, got {args.rules!r}")
    hidden_sizes(args.hidden)
    for name in league_weights(args.opponents):
        if name != "self":
            agents.load(name)  # the loader's own message for an unknown agent or a bad model file


def build(args: RLlibArgs):
    """The PPO ``Algorithm`` of this run (Ray must be connected)."""
    rllib_ppo = require("ray.rllib.algorithms.ppo", "train_rllib.py")
    specs = require("ray.rllib.core.rl_module", "train_rllib.py")
    model_config = require("ray.rllib.core.rl_module.default_model_config", "train_rllib.py").DefaultModelConfig(
        fcnet_hiddens=hidden_sizes(args.hidden), vf_share_layers=True)
    env_config = {"rules": args.rules, "reward_scale": args.reward_scale,
                  "opponents": league_weights(args.opponents), "snapshots": args.snapshots}
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


class LeagueMetrics(RLlibCallback):
    """Per opponent, the learner's hands, wins (a hand with no winner counts half) and points, from each episode's
    last info (``GinRummyLeagueEnv``): summed over an iteration under ``env_runners/league/NAME/``."""

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        info = episode.agent_episodes[rllib.LEARNER].get_infos(-1)
        points = info["points"]
        for key, value in (("hands", 1.0), ("wins", 1.0 if points > 0 else 0.5 if points == 0 else 0.0),
                           ("points", points)):
            metrics_logger.log_value(("league", info["opponent"], key), value, reduce="sum")


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
    state = algo.learner_group.get_state(components=f"learner/rl_module/{rllib.LEARNER}",
                                         inference_only=inference_only)
    return state["learner"]["rl_module"][rllib.LEARNER]


def refresh_snapshot(algo, slot: int) -> None:
    """Copy the learner's current weights into snapshot ``slot``, on the learners (so checkpoints hold it) and on
    every env runner (where it plays)."""
    snapshot = rllib.snapshot_id(slot)
    algo.learner_group.set_state({"learner": {"rl_module": {snapshot: learner_weights(algo, False)}}})
    # Set on each env runner's module directly: RLlib's weight sync skips an env runner whose weights are as new as
    # the learners' (it counts updates, not modules), which after the first iteration is every one of them.
    weights = ray.put(learner_weights(algo, True))
    algo.env_runner_group.foreach_env_runner(lambda runner: runner.module[snapshot].set_state(ray.get(weights)),
                                             local_env_runner=True)


def train(args: RLlibArgs) -> dict:
    """Run training as ``args`` say (Ray connected by the caller or here); returns the league record. Writes
    everything under ``args.run_dir``."""
    check(args)
    tensorboard = require("torch.utils.tensorboard", "train_rllib.py's logs")
    tqdm = require("tqdm", "train_rllib.py's progress bar").tqdm
    league_path = os.path.join(args.run_dir, LEAGUE_FILE)
    checkpoint = os.path.abspath(os.path.join(args.run_dir, CHECKPOINT_DIR))
    if args.resume:
        if not os.path.isfile(league_path) or not os.path.isdir(checkpoint):
            raise FileNotFoundError(f"--resume: no checkpoint of a run in {args.run_dir!r} "
                                    f"({LEAGUE_FILE} and {CHECKPOINT_DIR}/)")
        with open(league_path) as f:
            league = json.load(f)
    else:
        league = {"iteration": 0, "next_slot": 0, "history": []}
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
                _save(algo, league, checkpoint, league_path)
    finally:
        bar.close()
        writer.close()
    _save(algo, league, checkpoint, league_path)
    meta = {"trainer": "train_rllib.py", "iterations": league["iteration"], "rules": args.rules,
            "opponents": args.opponents, "seed": args.seed}
    module = algo.get_module(rllib.LEARNER)
    module.set_state(learner_weights(algo, True))  # the learners' latest, whatever the env runners last received
    rllib.export_policy(module, os.path.join(args.run_dir, "policy.pt"), meta)
    algo.stop()
    return league


def _record(league: dict, result: dict, seconds: float, writer) -> dict:
    """One iteration's row of the history, also written to TensorBoard."""
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


def _save(algo, league: dict, checkpoint: str, league_path: str) -> None:
    algo.save_to_path(checkpoint)
    with open(league_path, "w") as f:
        json.dump(league, f, indent=1)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; the exit code (0 done, 2 bad options, 130 interrupted: the last checkpoint stays)."""
    args = parse_args(argv, prog, RLlibArgs, __doc__.split("\n\n")[0])
    start = time.perf_counter()
    try:
        league = train(args)
    except (ValueError, FileNotFoundError) as err:
        print(f"{prog or 'train_rllib.py'}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"training interrupted; the last checkpoint (if any) is in {args.run_dir}", file=sys.stderr)
        return 130
    print(f"{league['iteration']} iterations in {time.perf_counter() - start:.0f} s")
    written = [LEAGUE_FILE, CHECKPOINT_DIR, "tb", "policy.pt"]
    print("wrote " + ", ".join(os.path.join(args.run_dir, name) for name in written))
    return 0
