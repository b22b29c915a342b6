"""The evaluation's command line (``gin-env evaluate``, ``python evaluate.py``): parse, check every option and
output path before the first game, run the tournament in the format asked for, print the scoreboard, then write and
announce each file asked for. Ctrl-C and SIGTERM stop the games (and the worker processes) with one line."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator

from gin_env import agents, evaluation, files
from gin_env.arguments import ArgumentParser, at_least
from gin_env.evaluation import gauntlet, plot, report, runner, tournament
from gin_env.evaluation.lineups import replay_prefixes
from gin_env.evaluation.ray_tasks import LOCAL as LOCAL_RAY
from gin_env.evaluation.ray_tasks import TaskError
from gin_env.game import rule_options
from gin_env.game.rules import Rules
from gin_env.optional import MissingExtra, require
from gin_env.replay import recorder as recording
from gin_env.table.checks import AgentActionError
from gin_env.text import printable

#: Exit code after Ctrl-C, as a shell reports a process ended by SIGINT (128 + 2).
INTERRUPTED = 130
#: Exit code after SIGTERM, as a shell reports a process ended by it (128 + 15).
TERMINATED = 143
#: What a game can raise that is the input's fault (an agent, a model file, a path): one line, exit code 2.
BAD_INPUT = (ValueError, AgentActionError, NotImplementedError, ImportError, OSError, TaskError)

#: Games per line-up when neither ``--deals`` nor ``--matches`` is given: single hands, or with ``--gauntlet``
#: matches to the target (a gauntlet judges an agent's play over whole games).
DEFAULT_DEALS = 1000
GAUNTLET_MATCHES = 1000


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread: the run stops as after Ctrl-C, its worker processes with it."""


def parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line's options (``prog`` names the command in messages)."""
    out = ArgumentParser(prog=prog, description=evaluation.__doc__.split("\n\n")[0],
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    out.add_argument("agents", nargs="+", metavar="AGENT",
                     help=f"agent names ({', '.join(agents.names())}), paths to MaskablePPO .zip or train_rllib.py .pt "
                          "models, or module:attr (an Agent class, instance or act(view, rng) function)")
    out.add_argument("--gauntlet", action="store_true",
                     help="play the one AGENT against each member of the gauntlet in turn "
                          f"({', '.join(gauntlet.GAUNTLET)}; itself left out), on duplicate matches (default "
                          "--matches 1000) under --rules (default standard, as without --gauntlet)")
    rule_options.add_options(out)
    out.add_argument("--players", type=int, default=2, choices=(2, 3, 4),
                     help="2 (default); 3: tables of three agents, each game in all three rotations of the seats; "
                          "4: teams A+A against B+B, each game twice with the teams' seats swapped")
    games = out.add_mutually_exclusive_group()
    two = at_least(2, " (an interval needs two duplicate games)", runner.MAX_GAMES, " per line-up")
    games.add_argument("--deals", type=two, metavar="N",
                       help="play N duplicate single hands (single deals with --players 4) per line-up (default 1000 "
                            "without --gauntlet)")
    games.add_argument("--matches", type=two, metavar="N",
                       help="play N duplicate games to the target per line-up (default 1000 with --gauntlet)")
    out.add_argument("--seed", type=at_least(0), default=0,
                     help="seed of the deals and the agents' choices (default 0)")
    out.add_argument("--json", metavar="FILE", help="write the report as JSON")
    out.add_argument("--plot", metavar="FILE", help="write a PNG of the win rates and points per hand (or deal)")
    out.add_argument("--replays", metavar="DIR", help="save every hand of every seating as a replay file in DIR")
    out.add_argument("--workers", type=runner.worker_count, default=runner.usable_cores(),
                     help=f"worker processes (default: one per core; at most {runner.MAX_WORKERS_PER_CORE} per core, "
                          "and no more than the chunks of games to play); the numbers do not depend on it")
    out.add_argument("--ray", nargs="?", const=LOCAL_RAY, metavar="ADDRESS",
                     help="play the games as Ray tasks: on a new local Ray (with --workers CPUs) when no ADDRESS is "
                          "given, else on the cluster at ADDRESS ('auto': the one this machine belongs to); the "
                          "numbers are the same")
    out.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return out


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; the exit code (0 done, 1 an output failed, 2 bad input, 130 interrupted by Ctrl-C,
    143 stopped by SIGTERM)."""
    options = parser(prog)
    args = options.parse_args(argv)
    names = _names(args, options)
    if args.matches is None and args.deals is None:
        mode, n = ("matches", GAUNTLET_MATCHES) if args.gauntlet else ("deals", DEFAULT_DEALS)
    else:
        mode, n = ("matches", args.matches) if args.matches is not None else ("deals", args.deals)
    rules = rule_options.parsed_rules(options, args)
    if mode == "matches" and rules.target is None:
        options.error(f"{rules.describe()} have no target score: use --deals")
    written: list[str] = []
    try:
        with _sigterm_interrupts():
            return _run(args, names, rules.replace(players=args.players), mode, n, options.prog, written)
    except KeyboardInterrupt as stop:
        what = "terminated (SIGTERM)" if isinstance(stop, Terminated) else "interrupted"
        print(f"{options.prog}: {what}{'' if written else '; no report written'}", file=sys.stderr)
        return TERMINATED if isinstance(stop, Terminated) else INTERRUPTED


def _names(args: argparse.Namespace, options: argparse.ArgumentParser) -> list[str]:
    """The agents of the run: those given, or with ``--gauntlet`` the one given and the gauntlet's members; a bad
    combination is ``options.error`` (one line, exit code 2)."""
    if not args.gauntlet:
        if len(args.agents) < 2:
            options.error("give at least two agents")
        return args.agents
    if len(args.agents) != 1:
        options.error(f"--gauntlet plays one agent against its members: give exactly one AGENT, got {args.agents}")
    if args.players != 2:
        options.error(f"--gauntlet plays pairs: it needs --players 2, got {args.players}")
    return gauntlet.lineup_names(args.agents[0])


def _run(args: argparse.Namespace, names: list[str], rules: Rules, mode: str, n: int, prog: str,
         written: list[str]) -> int:
    """Run ``tournament.evaluate`` on ``names``, print its scoreboard, write its JSON and plot."""
    start = time.perf_counter()
    try:
        _check_outputs(args, names, rules.replace(target=None) if mode == "deals" else rules)
        if args.ray is not None:
            require("ray", "--ray")
        result = tournament.evaluate(names, rules, mode, n, args.seed, args.workers, not args.no_progress,
                                     args.replays, args.ray, args.gauntlet)
    except BAD_INPUT as err:
        print(f"{prog}: error: {printable(str(err))}", file=sys.stderr)
        return 2
    print(report.scoreboard(result))
    where = f"Ray tasks ({args.ray})" if args.ray is not None else f"up to {args.workers} worker(s)"
    print(f"\n{time.perf_counter() - start:.1f} s with {where}")
    if args.replays is not None:
        print(f"wrote the replays to {printable(args.replays)}")
    return _write_outputs(result, args, prog, written)


def _check_outputs(args: argparse.Namespace, names: list[str], game_rules: Rules) -> None:
    """Before the first game: every output path asked for can be written (``gin_env.files``' rules), none is an agent's
    file or another output, the replay folder holds no replay of this run, and ``--plot`` has
    matplotlib."""
    def check_replays(path: str, option: str) -> None:
        recording.check_folder(path, replay_prefixes(names, game_rules, args.seed, args.gauntlet), option)

    files.check_distinct({"AGENT": [path for name in names for path in agents.files_read(name)]},
                         {"--json": args.json, "--plot": args.plot, "--replays": args.replays})
    for path, option, check in ((args.json, "--json", files.check_output_file),
                                (args.plot, "--plot", files.check_output_file),
                                (args.replays, "--replays", check_replays)):
        if path is not None:
            check(path, option)
    if args.plot is not None:  # an output asked for; the progress bar is not one, and without tqdm is not drawn
        require("matplotlib", "--plot")


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """Inside the block, SIGTERM raises :class:`Terminated` in the main thread (once; a second one is ignored while
    the first stops the run), so that the worker processes are stopped with the run instead of playing on."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return

    def stop(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _write_outputs(result: dict, args: argparse.Namespace, prog: str, written: list[str]) -> int:
    """Write the JSON and the plot asked for, announcing each (and noting it in ``written``); a failure is one line,
    and the other still goes."""
    code = 0
    for path, write in ((args.json, report.write_json), (args.plot, plot.plot)):
        if path is None:
            continue
        try:
            write(result, path)
        except (OSError, MissingExtra) as err:
            print(printable(f"{prog}: error: could not write {path}: {err}"), file=sys.stderr)
            code = 1
        else:
            written.append(path)
            print(f"wrote {printable(path)}")
    return code
