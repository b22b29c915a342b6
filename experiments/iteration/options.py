"""The options of an expert-iteration run (:class:`IterateArgs`, ``python experiments/iterate.py --help``), each
checked before any work (:func:`check`), and the options a resumed run keeps (:func:`resumed`);
:mod:`iteration.pipeline` runs it."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
from dataclasses import dataclass, field

import numpy as np

from gin_env import __version__, agents, files
from gin_env.game.rules import PRESETS, unknown_preset
from gin_env.optional import require
from gin_env.training.checks import MAX_SEED, check_ranges, flag
from gin_env.training.config import build_parser
from gin_env.training.opponents import SELF, parse_schedule

#: The command that runs expert iteration, as its messages name it.
PROG = "python experiments/iterate.py"
#: The name that stands for the previous generation's network in ``--play-opponents`` and ``--ppo-opponents``.
GUIDE = "guide"
#: Characters that separate the parts of an agent's parameters and of an opponent schedule, where the run's files
#: are named.
SPEC_CHARACTERS = ",;:=[]"
#: The run's record of its options and finished stages.
STATE_FILE = "iteration.json"
#: The largest state file read back (a run of a hundred generations writes a few hundred kilobytes).
STATE_LIMIT = 16 * 2**20
#: Options that may change when a run is resumed; every other one is the run's own.
FREE_OPTIONS = ("generations", "workers", "progress", "resume", "run_dir")
#: Options a resumed run may change for the generations whose learn stage has not started yet; each generation keeps
#: the values it started learning with (its ``plan`` in the state file).
PLAN_OPTIONS = ("ppo_steps", "ppo_opponents")


@dataclass
class IterateArgs:
    """The options of an expert-iteration run; each is a command-line flag (``experiments/iterate.py --help``)."""

    run_dir: str = field(default="runs/exit", metadata={"help": "the run's folder (its parent must exist)"})
    generations: int = field(default=1, metadata={"help": "run until this generation is measured"})
    resume: bool = field(default=False, metadata={"help": "carry on the run in --run-dir with its own options"})
    rules: str = field(default="standard", metadata={"help": f"rules preset: {', '.join(sorted(PRESETS))}"})
    seed: int = field(default=0, metadata={"help": "seeds every stage (each its own stream)"})
    start: str = field(default="", metadata={
        "help": "generation 0's model, a MaskablePPO .zip (none: the shipped ppo-v5 model)"})
    start_actor: str = field(default="ppo-expert", metadata={
        "help": "generation 0's policy: a shipped actor (ppo, ppo-expert) or actor weights .npz put into --start "
                "(none: --start's own)"})
    hands: int = field(default=4000, metadata={"help": "hands the search plays per generation"})
    shard_hands: int = field(default=500, metadata={"help": "hands per dataset written (a resume redoes at most one)"})
    play_opponents: str = field(default="expert,simple,ppo,guide", metadata={
        "help": "the search's opponents, one per shard in turn (agent names; guide: the guide network)"})
    search: str = field(default="", metadata={
        "help": "parameters of the search that plays, key=value,... (its guide is the generation's)"})
    imitate_epochs: int = field(default=2, metadata={"help": "passes over the search's decisions"})
    imitate_lr: float = field(default=1e-4, metadata={"help": "Adam learning rate of the cloning"})
    knock_weight: float = field(default=10.0, metadata={"help": "cloning weight of decisions where a knock is legal"})
    ppo_steps: int = field(default=4_000_000, metadata={"help": "PPO steps after the cloning (0: none)"})
    ppo_opponents: str = field(default="0:expert=2,simple=3,ppo=2,guide=1,self=1", metadata={
        "help": "PPO's opponent schedule (gin-env train --opponents; guide: the previous generation's network)"})
    measure_matches: int = field(default=400, metadata={"help": "duplicate matches against each measured agent"})
    measure_against: str = field(default="expert,ppo,simple", metadata={
        "help": "agents each generation is measured against (and the generation before)"})
    workers: int = field(default=2, metadata={"help": "processes that play the search's hands and the measures"})
    progress: bool = field(default=True, metadata={"help": "show progress bars (--no-progress hides them)"})


RANGES = {
    **dict.fromkeys(("generations", "hands", "shard_hands", "imitate_epochs", "workers"), (1, False, math.inf)),
    "measure_matches": (2, False, math.inf),
    "ppo_steps": (0, False, math.inf),
    **dict.fromkeys(("imitate_lr", "knock_weight"), (0, True, math.inf)),
    "seed": (0, False, MAX_SEED),
}


def names(text: str) -> list[str]:
    """A comma-separated list of agent names."""
    return [name.strip() for name in text.split(",") if name.strip()]


def stream_seed(args: IterateArgs, *parts: int) -> int:
    """A seed of its own for one stage of one generation (``parts``), below :data:`MAX_SEED`."""
    state = np.random.SeedSequence([args.seed, *parts]).generate_state(1, np.uint32)[0]
    return int(state) % MAX_SEED


def start_actor_path(args: IterateArgs) -> str | None:
    """The weights file of ``--start-actor`` (a shipped actor's or the given path), or None for none."""
    from gin_env.agents import numpy_policy

    if not args.start_actor:
        return None
    return numpy_policy.SHIPPED.get(args.start_actor, args.start_actor)


def check(args: IterateArgs) -> dict:
    """Every option checked before any work; returns the run's state (a new one, or the one ``--resume`` carries
    on, whose options then replace ``args``'s own). ``ValueError`` naming the option for the first problem,
    ``MissingExtra`` for a missing dependency."""
    check_ranges(args, RANGES)
    if args.rules not in PRESETS:
        raise ValueError(f"--rules: {unknown_preset(args.rules)}")
    if PRESETS[args.rules].players != 2:
        raise ValueError(f"--rules {args.rules}: expert iteration plays two players")
    state_path = os.path.join(args.run_dir, STATE_FILE)
    if os.path.lexists(state_path) and not args.resume:
        raise ValueError(f"--run-dir {args.run_dir} holds an expert-iteration run; --resume carries it on, or give "
                         "another folder")
    if not args.resume and os.path.isdir(args.run_dir) and os.listdir(args.run_dir):
        raise ValueError(f"--run-dir {args.run_dir} is not empty; give a new or empty folder")
    files.check_output_folder(args.run_dir, "--run-dir")
    odd = sorted(set(SPEC_CHARACTERS) & set(os.path.abspath(args.run_dir)))
    if odd:
        raise ValueError(f"--run-dir {args.run_dir}: its path holds {' '.join(odd)}, which agent names and opponent "
                         "schedules use to separate their parts; choose a plainer folder")
    if "guide" in agents.parse_parameters(args.search, "--search"):
        raise ValueError("--search: the guide is each generation's network; give the other parameters")
    for module, purpose in (("minari", "expert iteration's datasets"), ("torch", "training"),
                            ("sb3_contrib", "training"), ("matplotlib", "the generation curve")):
        require(module, purpose)
    _check_agents(args)
    if args.start:
        _check_model(args.start, "--start")
    actor = start_actor_path(args)
    if actor is not None:
        from gin_env.agents import numpy_policy

        try:
            numpy_policy.load_policy(actor)
        except (OSError, ValueError) as err:
            raise ValueError(f"--start-actor {args.start_actor}: {err}") from None
    return {"version": __version__, "options": dataclasses.asdict(args), "generations": {}}


def _check_agents(args: IterateArgs) -> None:
    """The opponents and measured agents load (``guide`` stands for a network), the PPO schedule parses, and the
    search takes its parameters."""
    for option, listed in (("--play-opponents", names(args.play_opponents)),
                           ("--measure-against", names(args.measure_against))):
        if not listed:
            raise ValueError(f"{option} names no agent")
        for name in listed:
            if name != GUIDE or option == "--measure-against":
                _load(option, name)
    try:
        schedule = parse_schedule(args.ppo_opponents)
    except ValueError as err:
        raise ValueError(f"--ppo-opponents: {err}") from None
    for _, weights in schedule:
        for name in weights:
            if name not in (GUIDE, SELF):
                _load("--ppo-opponents", name)
    _load("--search", f"search[{args.search}]")


def _load(option: str, name: str):
    try:
        return agents.load(name)
    except (OSError, ValueError) as err:
        raise ValueError(f"{option} {name}: {err}") from None


def _check_model(path: str, option: str) -> None:
    from gin_env.agents import ppo

    try:
        files.check_input_file(path, option)
        ppo.read_model(path, option)
    except (OSError, ValueError) as err:
        raise ValueError(f"{option} {path}: {err}") from None


def resumed(args: IterateArgs, given: set[str]) -> tuple[IterateArgs, dict]:
    """The run in ``args.run_dir`` to carry on: its state, and its options with only :data:`FREE_OPTIONS` (and the
    :data:`PLAN_OPTIONS` given) taken from ``args``, which the state then keeps for the next resume. ``ValueError``
    for an option in ``given`` (those on the command line) that differs from the run's, or a state file that is not
    one."""
    path = os.path.join(args.run_dir, STATE_FILE)
    if not os.path.lexists(path):
        raise ValueError(f"--resume: {args.run_dir} holds no expert-iteration run ({STATE_FILE} is not there)")
    try:
        state = json.loads(files.read_text(path, STATE_LIMIT, "expert-iteration state"))
    except json.JSONDecodeError as err:
        raise ValueError(f"--resume: {path} is not JSON ({err})") from None
    saved = state.get("options") if isinstance(state, dict) else None
    fields = {f.name for f in dataclasses.fields(IterateArgs)}
    if not isinstance(saved, dict) or set(saved) != fields or not isinstance(state.get("generations"), dict):
        raise ValueError(f"--resume: {path} is not an expert-iteration state of this gin-env")
    for name in sorted(given - set(FREE_OPTIONS) - set(PLAN_OPTIONS)):
        if getattr(args, name) != saved[name]:
            raise ValueError(f"{flag(name)} {getattr(args, name)}: the run in {args.run_dir} was started with "
                             f"{saved[name]!r}; a resumed run keeps its options (only --generations, --workers, "
                             "and for generations not yet learning --ppo-steps and --ppo-opponents, change)")
    changed = [*FREE_OPTIONS, *sorted(given & set(PLAN_OPTIONS))]
    merged = IterateArgs(**{**saved, **{name: getattr(args, name) for name in changed}})
    state["options"] = dataclasses.asdict(merged)
    return merged, state


def parse(argv: list[str] | None, prog: str) -> tuple[IterateArgs, set[str]]:
    """The options, and the names of those given on the command line."""
    description = __doc__.split("\n\n")[0]
    parser = build_parser(prog, IterateArgs, description)
    args = IterateArgs(**vars(parser.parse_args(argv)))
    for action in parser._actions:
        action.default = argparse.SUPPRESS
    return args, set(vars(parser.parse_args(argv)))
