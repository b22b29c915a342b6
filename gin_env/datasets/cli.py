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
from gin_env.datasets import collect, from_replays
from gin_env.datasets.episodes import Collection
from gin_env.evaluation import runner
from gin_env.game import rule_options
from gin_env.game.rules import Rules
from gin_env.text import quoted

#: Exit code after Ctrl-C, as a shell reports a process ended by SIGINT.
INTERRUPTED = 130
#: The namespace of the ids gin-env makes up.
NAMESPACE = "gin-rummy"
#: An id ends in its version, which Minari reads as a number.
VERSIONED_ID = re.compile(r".*-v\d+$")


def parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line's options."""
    out = ArgumentParser(prog=prog, description=datasets.__doc__.split("\n\n")[0])
    out.add_argument("player", nargs="?", metavar="PLAYER",
                     help=f"the recorded agent, in the learner's seat: a name ({', '.join(agents.names())}, or a "
                          "version such as expert-v1), a model file, or module:attr")
    out.add_argument("others", nargs="*", metavar="OTHER",
                     help="the other agents: one for every other seat (partners and teammates are then PLAYER "
                          "again), or one per seat in the env's role order (partner or teammates, then opponents)")
    # PLAYER, OTHER and one of --hands and --matches are required unless --from-replays (mode_problem).
    games = out.add_mutually_exclusive_group()
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
    out.add_argument("--from-replays", metavar="DIR",
                     help="in place of PLAYER OTHER...: the decisions of one person (--player) in the replay files "
                          f"of DIR (the newest {from_replays.MAX_REPLAYS:,}), one episode per hand they played "
                          "under --rules")
    out.add_argument("--player", dest="person", metavar="NAME", help="with --from-replays: whose decisions")
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


def short(name: str) -> str:
    """A name as a part of a dataset id: a model file by its name, lower case, a dash for any other character."""
    name = os.path.splitext(os.path.basename(name))[0] if agents.is_path(name) else name
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "agent"


def default_id(args: argparse.Namespace) -> str:
    """``gin-rummy/PLAYER-vs-OTHERS-RULES[-FORMAT]-v0`` from the options (a model file by its name; RULES is the
    preset, or ``PRESET-custom`` with ``--rule``); with ``--from-replays``, ``gin-rummy/NAME-replays-RULES-v0``."""
    rules = short(f"{args.rules}+custom" if args.rule else args.rules)
    if args.from_replays is not None:
        return f"{NAMESPACE}/{short(args.person)}-replays-{rules}-v0"
    others = "-".join(dict.fromkeys(short(name) for name in args.others))
    form = f"-room{args.room[0]}x{args.room[1]}" if args.room else ("" if args.players == 2 else f"-{args.players}p")
    return f"{NAMESPACE}/{short(args.player)}-vs-{others}-{rules}{form}-v0"


def check(args: argparse.Namespace) -> tuple[Collection, str, str]:
    """Every option, before any game: the collection, its dataset id and root folder. ``ValueError`` or
    ``OSError`` naming the problem, ``MissingExtra`` for a missing package."""
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
    return (collection, *place(args))


def mode_problem(args: argparse.Namespace) -> str | None:
    """What the options lack or hold too many of for their mode (a line-up played, or ``--from-replays``), as
    argparse would say it; None when they fit."""
    if args.from_replays is None:
        missing = [what for what, value in (("PLAYER", args.player), ("OTHER", args.others)) if not value]
        if missing:
            return f"the following arguments are required: {', '.join(missing)}"
        if args.person is not None:
            return "--player NAME goes with --from-replays; a played line-up's recorded agent is PLAYER"
        if args.hands is None and args.matches is None:
            return "one of the arguments --hands --matches is required"
        return None
    if args.person is None:
        return "--from-replays needs --player NAME: whose decisions to keep"
    given = [what for what, on in (("PLAYER", args.player is not None), ("--hands", args.hands is not None),
                                   ("--matches", args.matches is not None), ("--players", args.players != 2),
                                   ("--room", args.room is not None), ("--learner-seat", args.learner_seat is not None),
                                   ("--match-record", args.match_record)) if on]
    if given:
        return f"--from-replays takes no {given[0]}: the replays say who played each hand and where"
    return None


def check_replays(args: argparse.Namespace) -> tuple[tuple[list[from_replays.Hand], Rules, int], str, str]:
    """Every option of ``--from-replays``, before anything is written: the person's hands with their rules and
    the number of files skipped as no valid replay, the dataset id and root folder. ``ValueError`` or ``OSError``
    naming the problem."""
    rules = rule_options.rules_from(args.rules, args.rule)
    hands, skipped = from_replays.find_hands(args.from_replays, args.person, rules)
    hands = from_replays.playable(hands)
    if not hands:
        raise ValueError(f"--player {quoted(args.person)}: every hand of theirs in {args.from_replays} ended before "
                         "their first decision")
    return (hands, rules, skipped), *place(args)


def place(args: argparse.Namespace) -> tuple[str, str]:
    """The dataset's id and its root folder, checked: a Minari id ending in its version, a root that can be
    written, and no dataset under that id there yet."""
    from gin_env.datasets import minari_files

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
    return dataset_id, root


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; the exit code (0 written, 2 bad input or an id another run is writing, before any
    game, 130 interrupted: nothing written)."""
    options = parser(prog)
    args = options.parse_args(argv)
    problem = mode_problem(args)
    if problem is not None:
        options.error(problem)
    prog = prog or "gin-env dataset"
    replayed = args.from_replays is not None
    try:
        job, dataset_id, root = check_replays(args) if replayed else check(args)
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
            return (_write_replays if replayed else _write)(args, job, dataset_id, root, prog)
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
    _announce(dataset_id, folder, root)
    return 0


def _announce(dataset_id: str, folder: str, root: str) -> None:
    """Say where a dataset was written and how to load it."""
    from gin_env.datasets import minari_files

    print(f"wrote dataset {dataset_id} to {folder}")
    where = "" if root == os.path.abspath(minari_files.default_root()) else f" (with MINARI_DATASETS_PATH={root})"
    print(f"load it with minari.load_dataset({dataset_id!r}){where}")


def _write_replays(args: argparse.Namespace, job: tuple[list[from_replays.Hand], Rules, int], dataset_id: str,
                   root: str, prog: str) -> int:
    """Replay the person's hands in the env and write the dataset, holding its id's lock; the exit code."""
    from gin_env.datasets import minari_files

    hands, rules, skipped = job
    if skipped:
        print(f"skipped {skipped:,} file(s) of {args.from_replays} that are no valid replay")
    start = time.perf_counter()
    try:
        episodes = from_replays.episodes(hands, rules, args.information_state)
        env = gym.make("GinRummy-v0", **from_replays.env_kwargs(rules, args.information_state))
        folder = minari_files.write_dataset(
            root, dataset_id, episodes, env, algorithm_name=f"the person {args.person}",
            description=f"the decisions of {args.person} in {len(hands):,} hands of the replays of "
                        f"{args.from_replays} under the {rule_options.label(rules)} rules",
            metadata=from_replays.metadata(args.person, hands, rules, episodes, args.information_state))
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; no dataset written", file=sys.stderr)
        return INTERRUPTED
    steps = sum(e.actions.size for e in episodes)
    print(f"{len(episodes):,} hands of {args.person}, {steps:,} decisions in {time.perf_counter() - start:.1f} s")
    _announce(dataset_id, folder, root)
    return 0
