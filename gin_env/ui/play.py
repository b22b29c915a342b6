"""The command ``gin-env play``: a person plays a whole game of Gin Rummy against agents in the terminal.

    gin-env play [--opponent simple] [--rules standard] [--rule KEY=VALUE ...] [--seed S] [--save-replays DIR]
                 [--name NAME] [--players 2|3|4] [--partner AGENT]

``--rule`` changes one key of the ``--rules`` preset (``--rules oklahoma --rule knock_limit=5``), as in every
command (:mod:`gin_env.game.rule_options`).

This module owns the command line: its options, their checks, and the exit codes of a game that could not be set
up. The game in every format is :class:`gin_env.ui.terminal.TerminalGame`'s, the commands a person types
:mod:`gin_env.ui.commands`'.
"""

from __future__ import annotations

import sys

from gin_env import agents, files
from gin_env.arguments import ArgumentParser, at_least
from gin_env.game import rule_options
from gin_env.optional import require, script
from gin_env.text import printable

with script(__name__, "gin-env play"):
    # Checked first, so that a missing rich is named as the terminal game's.
    require("rich", "the terminal game")
    from gin_env.ui import render
    from gin_env.ui.terminal import TerminalGame


def main(argv: list[str] | None = None, prog: str = "gin-env play") -> int:
    """Run the command line; the exit code (0 played or left, 2 bad input, 130 interrupted while loading)."""
    parser = ArgumentParser(prog=prog, description="Play a game of Gin Rummy against an agent in the terminal.")
    parser.add_argument("--opponent", default="simple",
                        help=f"agent name ({', '.join(agents.names())}), a MaskablePPO .zip, a train_rllib.py .pt, "
                             "or module:attr (an Agent class, instance or act(view, rng) function) (default simple)")
    rule_options.add_options(parser)
    parser.add_argument("--seed", type=at_least(0),
                        help="seed of the deals and the agent's choices (default: a random one)")
    parser.add_argument("--save-replays", metavar="DIR", help="save each hand as a replay JSON file in DIR")
    parser.add_argument("--name", default="you", help="your name at the table (default you)")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4),
                        help="2 (default); 3: you and two --opponent agents, the dealer sits each hand out; 4: you "
                             "and a --partner against two --opponent agents, at two tables (rules.md section 15)")
    parser.add_argument("--partner", help="your partner's agent with --players 4 (default simple)")
    args = parser.parse_args(argv)
    rules = rule_options.parsed_rules(parser, args)
    if args.partner is not None and args.players != 4:
        parser.error("--partner is for --players 4")
    console = render.console()
    try:
        files.check_distinct({"--opponent": agents.files_read(args.opponent),
                              "--partner": agents.files_read(args.partner) if args.partner else None},
                             {"--save-replays": args.save_replays})
        game = TerminalGame(args.opponent, rules, console.input, console, args.seed, args.save_replays,
                            args.name, players=args.players, partner=args.partner)
    except (ValueError, FileNotFoundError, ImportError, OSError) as err:  # may quote a path or a file's text
        print(f"{prog}: error: {printable(str(err))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted while setting up the game", file=sys.stderr)
        return 130
    try:
        game.run()
    except KeyboardInterrupt:
        console.print()
        console.print(render.plain(render.capital(f"{args.name} left the game.")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
