"""``gin-env dataset``: play a line-up and write its episodes as a Minari dataset. Every option, every agent, the
dataset's id and its place are checked before the first game; the dataset appears whole at the end, or not at all."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time

import gymnasium as gym

from gin_env import agents, datasets, files, locks
from gin_env.arguments import ArgumentParser, at_least
from gin_env.datasets import collect
from gin_env.datasets.episodes import Collection
from gin_env.evaluation import runner
from gin_env.game import rule_options

#: Exit code after Ctrl-C, as a shell reports a process ended by SIGINT.
INTERRUPTED = 130
#: The namespace of the ids gin-env makes up.
NAMESPACE = "gin-rummy"
#: An id ends in its version, which Minari reads as a number.
VERSIONED_ID = re.compile(r".*-v\d+$")


def parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line's options."""
    out = ArgumentParser(prog=prog, description=datasets.__doc__.split("\n\n")[0])
    out.add_argument("player", metavar="PLAYER",
                     help=f"the recorded agent, in the learner's seat: a name ({', '.join(agents.names())}, or a "
                          "version such as expert-v1), a model file, or module:attr")
    out.add_argument("others", nargs="+", metavar="OTHER",
                     help="the other agents: one for every other seat (partners and teammates are then PLAYER "
                          "again), or one per seat in the env's role order (partner or teammates, then opponents)")
    games = out.add_mutually_exclusive_group(required=True)
    episodes = at_least(1, most=collect.MAX_EPISODES, why_most=" episodes in one dataset")
    games.add_argument("--hands", type=episodes, metavar="N", help="N episodes of one hand (one deal with four)")
    games.add_argument("--matches", type=episodes, metavar="N", help="N episodes of a game to the target score")
    rule_options.add_options(out)
    out.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="2 (default), 3 or 4")
    out.add_argument("--room", type=at_least(1), nargs=2, metavar=("K0", "K1"),
                     help="a room: K0 and K1 players share seats 0 and 1 (R58); the recorded agent is the first of "
                          "its seat")
    out.add_argument("--learner-seat", type=at_least(0), metavar="SEAT",
                     help="the recorded agent's seat (default: drawn each episode)")
    out.add_argument("--seed", type=at_least(0), default=0, help="seed of the episodes (default 0)")
    out.add_argument("--information-state", action="store_true",
                     help="observations as dicts of the 375 entries and the history of the learner's hand "
                          "(GinRummy-v0's information_state=True)")
    out.add_argument("--match-record", action="store_true",
                     help="observations end with the match record, how each side ended the game's earlier hands "
                          "(GinRummy-v0's match_record=True; --matches, two seats)")
    out.add_argument("--id", dest="dataset_id", metavar="ID",
                     help=f"the dataset's Minari id, (namespace/)name-vN (default "
                          f"{NAMESPACE}/PLAYER-vs-OTHER-RULES-v0)")
    out.add_argument("--root", metavar="DIR",
                     help="the datasets' folder (default: $MINARI_DATASETS_PATH, else ~/.minari/datasets, where "
                          "minari.load_dataset looks)")
    out.add_argument("--workers", type=runner.worker_count, default=runner.usable_cores(),
                     help=f"worker processes (default: one per core; at most {runner.MAX_WORKERS_PER_CORE} per core); "
                          "the dataset does not depend on it")
    out.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return out


def default_id(args: argparse.Namespace) -> str:
    """``gin-rummy/PLAYER-vs-OTHERS-RULES[-FORMAT]-v0`` from the options (a model file by its name; RULES is the
    preset, or ``PRESET-custom`` with ``--rule``)."""
    def short(name: str) -> str:
        name = os.path.splitext(os.path.basename(name))[0] if agents.is_path(name) else name
        return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "agent"

    others = "-".join(dict.fromkeys(short(name) for name in args.others))
    form = f"-room{args.room[0]}x{args.room[1]}" if args.room else ("" if args.players == 2 else f"-{args.players}p")
    rules = short(f"{args.rules}+custom" if args.rule else args.rules)
    return f"{NAMESPACE}/{short(args.player)}-vs-{others}-{rules}{form}-v0"


def check(args: argparse.Namespace) -> tuple[Collection, str, str]:
    """Every option, before any game: the collection, its dataset id and root folder. ``ValueError`` or
    ``OSError`` naming the problem, ``MissingExtra`` for a missing package."""
    from gin_env.datasets import minari_files

    episode = "match" if args.matches is not None else "hand"
    rules = rule_options.rules_from(args.rules, args.rule)
    if episode == "match" and rules.target is None:
        raise ValueError(f"--matches: {rules.describe()} have no target score; use --hands")
    if args.match_record and episode != "match":
        raise ValueError("--match-record needs --matches: an episode of one hand has no earlier hands to record")
    collection = Collection(args.player, tuple(args.others), rules, args.players,
                            None if args.room is None else tuple(args.room), episode, args.learner_seat, args.seed,
                            args.information_state, args.match_record)
    for name in (args.player, *args.others):
        agents.load(name)
    gym.make("GinRummy-v0", **collection.env_kwargs()).close()
    dataset_id = args.dataset_id or default_id(args)
    if not VERSIONED_ID.match(dataset_id):
        raise ValueError(f"--id {dataset_id!r}: end the id in its version, e.g. {dataset_id}-v0")
    minari_files.check_dataset_id(dataset_id)
    root = args.root or minari_files.default_root()
    files.check_output_folder(root, "--root" if args.root else None)
    # Absolute, so that the dataset lands where it was asked for while Minari writes under another root.
    root = os.path.abspath(root)
    # The one output, the dataset's folder, must not exist (check_free), so no input can be it.
    minari_files.check_free(root, dataset_id)
    return collection, dataset_id, root


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; the exit code (0 written, 2 bad input or an id another run is writing, before any
    game, 130 interrupted: nothing written)."""
    args = parser(prog).parse_args(argv)
    prog = prog or "gin-env dataset"
    try:
        collection, dataset_id, root = check(args)
    except (ValueError, OSError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    from gin_env.datasets import minari_files

    os.makedirs(root, exist_ok=True)
    removed = minari_files.remove_leftovers(root)
    if removed:
        print(f"removed {len(removed)} temporary folder(s) that killed gin-env dataset runs left in {root}")
    try:
        # Another run may have written the id since the checks: its place is checked again under the lock.
        with locks.holding(minari_files.id_lock(root, dataset_id), lambda: minari_files.check_free(root, dataset_id)):
            return _write(args, collection, dataset_id, root, prog)
    except locks.Refused as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2


def _write(args: argparse.Namespace, collection: Collection, dataset_id: str, root: str, prog: str) -> int:
    """Play the episodes and write the dataset, holding its id's lock; the exit code."""
    from gin_env.datasets import minari_files

    n = args.matches if args.matches is not None else args.hands
    start = time.perf_counter()
    try:
        episodes = collect.collect(collection, n, args.workers, not args.no_progress)
        env = gym.make("GinRummy-v0", **collection.env_kwargs())
        rules = rule_options.label(collection.game_rules())
        folder = minari_files.write_dataset(
            root, dataset_id, episodes, env, algorithm_name=f"{args.player} against {', '.join(args.others)}",
            description=f"gin-env {collection.episode} episodes of {args.player} against {', '.join(args.others)} "
                        f"under the {rules} rules", metadata=collect.metadata(collection, episodes))
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; no dataset written", file=sys.stderr)
        return INTERRUPTED
    steps = sum(e.actions.size for e in episodes)
    print(f"{n:,} episodes, {steps:,} steps in {time.perf_counter() - start:.1f} s with {args.workers} worker(s)")
    print(f"wrote dataset {dataset_id} to {folder}")
    where = "" if root == os.path.abspath(minari_files.default_root()) else f" (with MINARI_DATASETS_PATH={root})"
    print(f"load it with minari.load_dataset({dataset_id!r}){where}")
    return 0

