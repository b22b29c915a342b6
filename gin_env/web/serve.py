"""The command ``gin-env serve``: the web app on this machine, with the agents and the replay folder its starter offers.

    gin-env serve [--host 127.0.0.1] [--port 8000] [--agents NAME ...] [--presets NAME ...] [--replays DIR]
                  [--max-games N] [--max-rooms N] [--turn-timeout SECONDS]

The person who starts the server decides what the page may use: the agents it may seat (built-in names, model
files or ``module:attr``, all loaded here, before the server starts, and refused in one line if one does not load),
the rules presets it may pick, and the replay folder whose finished hands are saved and listed. The browser picks
from those lists by name and never names a file, a path or a module. The server listens on the loopback address
unless ``--host`` says otherwise, which shares it with the network and is warned about.

This module owns the command line: its options, their checks, the loading of the agents and the start of uvicorn.
The app itself is :mod:`gin_env.web.app`'s.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import os
import sys

from gin_env import agents, files
from gin_env.arguments import ArgumentParser, at_least
from gin_env.game.rules import PRESETS
from gin_env.optional import require
from gin_env.text import printable

#: The address the server listens on unless ``--host`` says otherwise: this machine only.
LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 8000
#: The highest TCP port.
MAX_PORT = 65535
#: The largest websocket message uvicorn reads at all: a few frames' worth.
WS_MAX_BYTES = 64 * 1024


def default_agents() -> list[str]:
    """The agents offered when ``--agents`` is not given: every built-in agent by its versioned name."""
    return agents.versioned_names()


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) reaches this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def parser(prog: str) -> ArgumentParser:
    """The command's options."""
    p = ArgumentParser(prog=prog, description="Serve the Gin Rummy web app: play, watch agents, replays.")
    p.add_argument("--host", default=LOOPBACK,
                   help=f"address to listen on (default {LOOPBACK}, this machine only; any other shares the app "
                        "with whoever can reach it)")
    p.add_argument("--port", type=at_least(1, most=MAX_PORT), default=DEFAULT_PORT,
                   help=f"TCP port (default {DEFAULT_PORT})")
    p.add_argument("--agents", nargs="+", metavar="NAME",
                   help="the agents the page may seat: names, versions, model files or module:attr "
                        "(default: every built-in agent)")
    p.add_argument("--presets", nargs="+", metavar="NAME", choices=list(PRESETS),
                   help=f"the rules presets the page may pick (default all: {', '.join(PRESETS)})")
    p.add_argument("--replays", metavar="DIR",
                   help="folder where finished hands are saved and from which the page opens replays")
    p.add_argument("--max-games", type=at_least(1), metavar="N", help="most games played at once, over all connections "
                                                         "(default: the app's)")
    p.add_argument("--max-rooms", type=at_least(1), metavar="N",
                   help="most rooms of people open at once (default: the app's)")
    p.add_argument("--turn-timeout", type=seconds, metavar="SECONDS",
                   help="seconds a room waits on a member who went away before the bot plays their turn, and "
                        "between hands (default: the rooms')")
    return p


def seconds(text: str) -> float:
    """An argparse ``type``: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text[:40]!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text[:40]!r}")
    return value


def load_agents(names: list[str]) -> dict:
    """Each of ``names`` (in order, once each) -> its loaded agent; ``ValueError`` (or the loader's
    ``FileNotFoundError`` / ``ImportError``) naming the first that does not load."""
    loaded = {}
    for name in dict.fromkeys(names):
        try:
            loaded[name] = agents.load(name)
        except (ValueError, FileNotFoundError, ImportError, OSError) as err:
            raise ValueError(f"--agents {name}: {err}") from None
    return loaded


def main(argv: list[str] | None = None, prog: str = "gin-env serve") -> int:
    """Run the command line; the exit code (0 when the server stopped, 2 bad input)."""
    args = parser(prog).parse_args(argv)
    # Checked first, so that a missing extra is named before any agent is loaded.
    require("starlette", "the web app")
    uvicorn = require("uvicorn", "the web app")
    from gin_env.web import app as web_app

    try:
        if args.replays is not None:
            files.check_output_folder(args.replays, "--replays")
            with contextlib.suppress(FileExistsError):  # made new, in a parent folder that exists
                os.mkdir(args.replays)
        offered = load_agents(args.agents or default_agents())
        config = web_app.ServeConfig(agents=offered, presets=tuple(args.presets or PRESETS),
                                     replays=args.replays,
                                     max_games=args.max_games or web_app.MAX_GAMES,
                                     max_rooms=args.max_rooms or web_app.lobby.MAX_ROOMS,
                                     turn_timeout_s=args.turn_timeout or web_app.rooms.TURN_TIMEOUT_S)
        application = web_app.make_app(config)
    except (ValueError, FileNotFoundError, ImportError, OSError) as err:  # may quote a path or a file's text
        print(f"{prog}: error: {printable(str(err))}", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        print(f"{prog}: warning: listening on {printable(args.host)} shares the app with every machine that can reach "
              "it; anyone there may play and read the replays", file=sys.stderr)
    print(f"Serving gin-env on http://{printable(args.host)}:{args.port}/ (Ctrl-C stops)", flush=True)
    # uvicorn drops a websocket message over WS_MAX_BYTES before the app reads it; the app answers smaller ones over
    # its own bound with an error frame.
    uvicorn.run(application, host=args.host, port=args.port, log_level="warning", ws_max_size=WS_MAX_BYTES)
    return 0
