"""Expert iteration (``python experiments/iterate.py``): the search plays, a network learns its choices, the new
network guides the next search, generation after generation; a run folder that resumes where it stopped.

    python experiments/iterate.py --rules eaai --run-dir runs/exit --generations 2
    python experiments/iterate.py --run-dir runs/exit --resume --generations 4      # later: on to generation 4

Generation 0 is the start: the ``--start`` model with the ``--start-actor`` network as its policy (by default the
shipped ``ppo-v5`` model with the ``ppo-expert-v1`` actor, the search's guide). Generation g >= 1 runs four
stages, each written whole before the next begins:

1. **play**: the search guided by generation g-1's network (``search[guide=...]``, with ``--search`` parameters)
   plays ``--hands`` hands against the ``--play-opponents`` in turn (``guide``: the guide network itself), recorded
   as Minari datasets of ``--shard-hands`` hands each;
2. **learn**: generation g-1's model clones the search's decisions (the policy its actions, the critic each hand's
   return; ``--imitate-epochs`` passes at ``--imitate-lr``), then PPO goes on for ``--ppo-steps`` against the
   ``--ppo-opponents`` schedule (``guide`` again generation g-1's network, ``self`` snapshots of the learner);
3. **export**: the policy's actor for numpy, ``gen-G/network.npz`` (no torch needed to play it);
4. **measure**: the network against each of ``--measure-against`` and generation g-1's network, in
   ``--measure-matches`` duplicate matches on the same deals every generation.

After each generation the run writes ``curve.json``, ``curve.png`` and prints the curve as a table.
``iteration.json`` keeps the options and what the play and learn stages did (each measure is
``gen-G/measure.json``). Every stage's output is written under a temporary name and renamed, so an interrupted run
(Ctrl-C, the end of a session) loses at most the stage or the shard it was in, and ``--resume`` carries on from
there with the options the run was started with (only ``--generations``, ``--workers``, the progress bar and, for
generations yet to learn, ``--ppo-steps`` and ``--ppo-opponents`` may change): :mod:`iteration.options`. A stage
whose output is in the run folder is not run again, and a generation whose network is written is done but for its
measure.
"""

from __future__ import annotations

import os
import sys
import time

import gymnasium as gym

from gin_env import files, locks
from gin_env.agents import model_archive
from gin_env.game.rules import Rules
from gin_env.optional import MissingExtra
from gin_env.training.opponents import parse_schedule
from gin_env.training.run_files import locked_run_folder, read_history
from iteration import options
from iteration.curve import write_curve
from iteration.options import GUIDE, PROG, STATE_FILE, IterateArgs, names, stream_seed

#: The seed streams of the stages (:func:`iteration.options.stream_seed`); the measure's is the same every
#: generation, so generations are measured on the same deals.
PLAY, CLONE, PPO, MEASURE = 1, 2, 3, 4


class Generation:
    """The files of generation ``g`` under ``run_dir``."""

    def __init__(self, run_dir: str, g: int) -> None:
        self.g = g
        self.folder = os.path.join(run_dir, f"gen-{g}")
        self.play = os.path.join(self.folder, "play")
        self.clone = os.path.join(self.folder, "clone")
        self.ppo = os.path.join(self.folder, "ppo")
        self.network = os.path.join(self.folder, "network.npz")
        self.measure = os.path.join(self.folder, "measure.json")

    def model(self) -> str:
        """The generation's MaskablePPO model: the start's, or PPO's last checkpoint, or the clone's where the
        generation trained no PPO."""
        if self.g == 0:
            return os.path.join(self.folder, "model.zip")
        trained = os.path.join(self.ppo, "last.zip")
        return trained if os.path.exists(trained) else os.path.join(self.clone, "last.zip")


def run(args: IterateArgs, state: dict) -> None:
    """Generation 0, then generations 1 to ``args.generations``, each stage skipped when its output is there; the
    state and the curve are written after each stage."""
    os.makedirs(args.run_dir, exist_ok=True)
    save_state(args, state)
    start = Generation(args.run_dir, 0)
    if not os.path.exists(start.network):
        make_start(args, start)
    measure(args, start, None)
    for g in range(1, args.generations + 1):
        now, before = Generation(args.run_dir, g), Generation(args.run_dir, g - 1)
        if not os.path.exists(now.network):
            from gin_env.agents.numpy_policy import save_weights

            play(args, state, now, before)
            learn(args, state, now, before)
            save_weights(now.model(), now.network)
            announce(now.network)
        measure(args, now, before)


def announce(path: str) -> None:
    print(f"wrote {path}")


def save_state(args: IterateArgs, state: dict) -> None:
    files.write_json(os.path.join(args.run_dir, STATE_FILE), state)


def record(args: IterateArgs, state: dict, g: int, stage: str, values: dict) -> None:
    """Keep what a stage measured in the state file."""
    state["generations"].setdefault(str(g), {})[stage] = values
    save_state(args, state)


def make_start(args: IterateArgs, start: Generation) -> None:
    """Generation 0: ``--start`` (or the shipped model) with ``--start-actor``'s weights as its policy, and that
    policy's actor for numpy."""
    from gin_env.agents import numpy_policy, ppo

    os.makedirs(start.folder, exist_ok=True)
    source, actor = args.start or ppo.SHIPPED_MODEL, options.start_actor_path(args)
    model = start.model()
    if not os.path.exists(model):
        if actor is None:
            ppo.export_model(source, model)
        else:
            ppo.model_with_actor(source, numpy_policy.read_weights(actor), model, actor)
    numpy_policy.save_weights(model, start.network)
    announce(start.network)


def _agent(name: str, guide: str) -> str:
    return os.path.abspath(guide) if name == GUIDE else name


def play(args: IterateArgs, state: dict, now: Generation, before: Generation) -> None:
    """The search on ``before``'s network plays ``--hands`` hands, one dataset of ``--shard-hands`` per shard, the
    ``--play-opponents`` in turn; a shard already written is kept."""
    from gin_env.datasets import collect, minari_files
    from gin_env.datasets.episodes import Collection

    parameters = ",".join(filter(None, (args.search, f"guide={os.path.abspath(before.network)}")))
    player = f"search[{parameters}]"
    opponents = names(args.play_opponents)
    shards = shard_folders(args, now)
    os.makedirs(now.play, exist_ok=True)
    started, played = time.perf_counter(), 0
    for k, shard in enumerate(shards):
        if os.path.exists(shard):
            continue
        n = min(args.shard_hands, args.hands - k * args.shard_hands)
        opponent = _agent(opponents[k % len(opponents)], before.network)
        print(f"generation {now.g}, play: shard {k + 1} of {len(shards)}, {n} hands of the search against "
              f"{opponents[k % len(opponents)]}")
        collection = Collection(player, (opponent,), args.rules, seed=stream_seed(args, now.g, PLAY, k))
        episodes = collect.collect(collection, n, args.workers, args.progress)
        env = gym.make("GinRummy-v0", **collection.env_kwargs())
        folder = minari_files.write_dataset(
            now.play, shard_id(k), episodes, env, algorithm_name=f"expert iteration, generation {now.g}",
            description=f"gin-env hands of {player} against {opponent} under the {args.rules} rules",
            metadata=collect.metadata(collection, episodes))
        announce(folder)
        played += n
    if played:
        record(args, state, now.g, "play", {"hands": args.hands, "shards": len(shards), "player": player,
                                            "seconds_this_session": round(time.perf_counter() - started, 1)})


def shard_id(k: int) -> str:
    return f"shard-{k:03d}-v0"


def shard_folders(args: IterateArgs, now: Generation) -> list[str]:
    """The dataset folders of ``now``'s play stage, one per ``--shard-hands`` of ``--hands``."""
    from gin_env.datasets import minari_files

    shards = -(-args.hands // args.shard_hands)
    return [minari_files.dataset_folder(now.play, shard_id(k)) for k in range(shards)]


def model_steps(path: str) -> int:
    """The step count a MaskablePPO model file was saved at, from the archive's plain data (read bounded, without
    torch: :func:`gin_env.agents.model_archive.read`); ``ValueError`` naming the file when it holds none."""
    steps = model_archive.read(path).data.get("num_timesteps")
    if type(steps) is not int or steps < 0:
        raise ValueError(f"{path!r} holds no step count: its num_timesteps is {steps!r}")
    return steps


def learn(args: IterateArgs, state: dict, now: Generation, before: Generation) -> None:
    """``before``'s model clones the search's decisions, then PPO trains ``--ppo-steps`` more against
    ``--ppo-opponents``, as the generation's plan (fixed when its learn stage first starts) says; each part's
    ``last.zip`` is kept, and PPO resumes from its own."""
    from gin_env.training.config import Args
    from gin_env.training.loop import train

    if "plan" not in state["generations"].get(str(now.g), {}):
        record(args, state, now.g, "plan", {name: getattr(args, name) for name in options.PLAN_OPTIONS})
    plan = state["generations"][str(now.g)]["plan"]
    ppo_steps, ppo_opponents = plan["ppo_steps"], plan["ppo_opponents"]

    common = {"rules": args.rules, "eval_deals": 0, "progress": args.progress, "threads": 1}
    cloned = os.path.join(now.clone, "last.zip")
    if not os.path.exists(cloned):
        print(f"generation {now.g}, learn: cloning the search's decisions into {before.model()}")
        clone = Args(resume=before.model(), from_dataset=",".join(shard_folders(args, now)),
                     imitate_steps=10**12, imitate_epochs=args.imitate_epochs, imitate_lr=args.imitate_lr,
                     knock_weight=args.knock_weight, total_timesteps=0, opponents="0:simple",
                     run_dir=now.clone, seed=stream_seed(args, now.g, CLONE), **common)
        train(clone)
        # Read as any run's history.json: a regular file, bounded, checked (the run folder is the user's).
        record(args, state, now.g, "clone", read_history(os.path.join(now.clone, "history.json"))["imitation"])
    if not ppo_steps:
        return
    last = os.path.join(now.ppo, "last.zip")
    target = model_steps(cloned) + ppo_steps
    if os.path.exists(last) and model_steps(last) >= target:
        return
    print(f"generation {now.g}, learn: PPO to {target:,} steps against {ppo_opponents}")
    schedule = "; ".join(f"{start}:" + ",".join(f"{_agent(name, before.network)}={weight}"
                                                for name, weight in weights.items())
                         for start, weights in parse_schedule(ppo_opponents))
    started = time.perf_counter()
    model = train(Args(resume=last if os.path.exists(last) else cloned, total_timesteps=target, opponents=schedule,
                       checkpoint_every=250_000, run_dir=now.ppo, seed=stream_seed(args, now.g, PPO), **common))
    record(args, state, now.g, "ppo", {"steps": int(model.num_timesteps), "opponents": ppo_opponents,
                                       "seconds_this_session": round(time.perf_counter() - started, 1)})


def measure(args: IterateArgs, now: Generation, before: Generation | None) -> None:
    """``now``'s network against ``--measure-against`` (and ``before``'s network), duplicate matches on the same
    deals every generation (single deals under rules without a target), kept in ``measure.json``; then the curve."""
    from gin_env.evaluation.tournament import evaluate

    if not os.path.exists(now.measure):
        rules = Rules.preset(args.rules)
        against = names(args.measure_against)
        print(f"generation {now.g}, measure: {args.measure_matches} duplicate matches against "
              f"{', '.join(against + (['the generation before'] if before else []))}")
        if before is not None:
            against.append(before.network)
        report = evaluate([now.network, *against], rules, "matches" if rules.target else "deals",
                          args.measure_matches, seed=stream_seed(args, MEASURE), workers=args.workers,
                          progress=args.progress, gauntlet=True)
        files.write_json(now.measure, report)
        announce(now.measure)
    write_curve(args)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; 0 when the last generation is measured, 2 for a bad option (nothing written) or a run
    folder another run holds, 130 interrupted (what was finished stays, and ``--resume`` carries on)."""
    prog = prog or PROG
    args, given = options.parse(argv, prog)
    try:
        if args.resume:
            args, state = options.resumed(args, given)
            options.check(args)
        else:
            state = options.check(args)
    except (ValueError, OSError, MissingExtra) as err:
        print(f"{prog}: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        with locked_run_folder(args.run_dir, lambda: state):
            run(args, state)
    except locks.Refused as err:  # another run writes there
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; the finished stages stay in {args.run_dir}: carry on with "
              f"{PROG} --run-dir {args.run_dir} --resume", file=sys.stderr)
        return 130
    print(f"generation {args.generations} measured; {time.perf_counter() - start:.0f} s")
    return 0
