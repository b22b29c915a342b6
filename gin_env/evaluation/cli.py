"""The evaluation's command line (``gin-env evaluate``, ``python evaluate.py``): parse, check every output path
before the first game, run, print the table, then write and announce each file asked for."""

from __future__ import annotations

import argparse
import os
import sys
import time

from gin_env import agents, evaluation
from gin_env.evaluation import formats, report
from gin_env.evaluation.ray_tasks import LOCAL as LOCAL_RAY
from gin_env.evaluation.tournament import evaluate
from gin_env.optional import MissingExtra, require
from gin_env.rules import PRESETS, Rules
from gin_env.table import AgentActionError

#: Exit code after Ctrl-C, as a shell reports a process ended by SIGINT.
INTERRUPTED = 130


def parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line's options (``prog`` names the command in messages)."""
    out = argparse.ArgumentParser(prog=prog, description=evaluation.__doc__.split("\n\n")[0],
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    out.add_argument("agents", nargs="+", metavar="AGENT",
                     help=f"agent names ({', '.join(agents.names())}), paths to MaskablePPO .zip or train_rllib.py .pt "
                          "models, or module:attr (an Agent class, instance or act(view, rng) function)")
    out.add_argument("--rules", default="standard", choices=sorted(PRESETS), help="rules preset (default standard)")
    out.add_argument("--players", type=int, default=2, choices=(2, 3, 4),
                     help="2 (default); 3: tables of three agents, each game in all three rotations of the seats; "
                          "4: teams A+A against B+B, each game twice with the teams' seats swapped (one process)")
    games = out.add_mutually_exclusive_group()
    games.add_argument("--deals", type=int, metavar="N", help="play N duplicate single hands per pair (default 1000)")
    games.add_argument("--matches", type=int, metavar="N", help="play N duplicate games to the target per pair")
    out.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents' choices (default 0)")
    out.add_argument("--json", metavar="FILE", help="write the report as JSON")
    out.add_argument("--plot", metavar="FILE", help="write a PNG of the win rates and points per hand")
    out.add_argument("--replays", metavar="DIR", help="save every hand of every seating as a replay file in DIR")
    out.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                     help="worker processes (default: one per core); the numbers do not depend on it")
    out.add_argument("--ray", nargs="?", const=LOCAL_RAY, metavar="ADDRESS",
                     help="play the games as Ray tasks: on a new local Ray (with --workers CPUs) when no ADDRESS is "
                          "given, else on the cluster at ADDRESS ('auto': the one this machine belongs to); the "
                          "numbers are the same")
    out.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return out


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; the exit code (0 done, 1 an output failed, 2 bad input, 130 interrupted)."""
    options = parser(prog)
    args = options.parse_args(argv)
    if len(args.agents) < 2:
        options.error("give at least two agents")
    mode, n = ("matches", args.matches) if args.matches is not None else \
        ("deals", 1000 if args.deals is None else args.deals)
    rules = Rules.preset(args.rules)
    if mode == "matches" and rules.target is None:
        options.error(f"rules {args.rules!r} have no target score: use --deals")
    if args.players != 2:
        if args.replays is not None:
            options.error("--replays records two-player evaluations only")
        if args.ray is not None:
            options.error("--ray runs two-player evaluations only (--players 3 and 4 play in one process)")
        return _main_format(args, rules.replace(players=args.players), mode, n, options.prog)
    workers = max(1, args.workers)
    start = time.perf_counter()
    try:
        _check_outputs(args)
        if args.ray is not None:
            require("ray", "--ray")
        result = evaluate(args.agents, rules, mode, n, args.seed, workers, not args.no_progress, args.replays,
                          args.ray)
    except (ValueError, AgentActionError, NotImplementedError, ImportError, OSError) as err:
        print(f"{options.prog}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{options.prog}: interrupted; no report written", file=sys.stderr)
        return INTERRUPTED
    print(report.table(result))
    where = f"Ray tasks ({args.ray})" if args.ray is not None else f"{workers} worker(s)"
    print(f"\n{time.perf_counter() - start:.1f} s with {where}")
    if args.replays is not None:
        print(f"wrote the replays to {args.replays}")
    return _write_outputs(result, args, options.prog)


def _main_format(args: argparse.Namespace, rules: Rules, mode: str, n: int, prog: str) -> int:
    """``--players 3`` or ``4``: run ``evaluation.formats``, print its table, write its JSON and plot."""
    start = time.perf_counter()
    try:
        _check_outputs(args)
        result = formats.evaluate_format(args.agents, rules, mode, n, args.seed, not args.no_progress)
    except (ValueError, AgentActionError, ImportError, OSError) as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; no report written", file=sys.stderr)
        return INTERRUPTED
    print(formats.table(result))
    print(f"\n{time.perf_counter() - start:.1f} s in one process")
    return _write_outputs(result, args, prog, formats.plot)


def _check_outputs(args: argparse.Namespace) -> None:
    """Before the first game: every output path asked for can be written, and ``--plot`` has matplotlib."""
    for path, option in ((args.json, "--json"), (args.plot, "--plot")):
        if path is not None:
            report.check_output_file(path, option)
    if args.plot is not None:
        require("matplotlib", "--plot")


def _write_outputs(result: dict, args: argparse.Namespace, prog: str, plot=None) -> int:
    """Write the JSON and the plot asked for, announcing each; a failure is one line, and the other still goes."""
    code = 0
    for path, write in ((args.json, report.write_json), (args.plot, plot or report.plot)):
        if path is None:
            continue
        try:
            write(result, path)
        except (OSError, MissingExtra) as err:
            print(f"{prog}: error: could not write {path}: {err}", file=sys.stderr)
            code = 1
        else:
            print(f"wrote {path}")
    return code
