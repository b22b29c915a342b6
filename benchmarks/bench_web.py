"""The web table's speed (docs/web.md): the latency a person feels in a real browser, and a room's delivery of every
move to 100 spectators.

    python benchmarks/bench_web.py [--moves 200] [--agents simple expert] [--spectators 100] [--load-moves 200]
                                   [--json web.json]

Latency: ``gin-env serve`` runs on the loopback address in its own process, and Chromium (Playwright, headless, the
system's ``/usr/bin/chromium`` unless ``--chromium`` says otherwise) plays a match against each agent by clicking
the page's move buttons, a legal move drawn at random each time. Each click is timed in the page, from the click
event to the first animation frame after the page has drawn the answering game frame (the server's check of the
move, the agent's answer and the drawing included). The first ``--warmup`` clicks per agent are not counted: they
load the compiled engine into the server.

Load: one room of the server with ``--spectators`` websocket clients watching and one person (a websocket client
too) playing the first of ``--agents`` as the room's bot: ``--load-moves`` random legal moves, each sent once every
spectator has received the last. Each move is timed from the person's sending it to each spectator's receiving the
room frame that shows it (the bot's answer inside), all clients in this one process: a receipt time includes this
process's own delay in reading every socket, so the figure is an upper bound.

The issue's floors: a click's p95 under 50 ms, a move's delivery p95 under 200 ms. The milliseconds depend on the
machine and on what else runs on it, so they are measured here and never asserted by a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from tqdm import tqdm
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gin_env import __version__, files  # noqa: E402  (the repository, on the path set just above)
from gin_env.web import frames  # noqa: E402
from gin_env.web.rooms import MAX_SPECTATORS  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
#: The issue's floors, in milliseconds: a click's answer on screen, a move's delivery to every spectator.
CLICK_P95_MS, DELIVERY_P95_MS = 50.0, 200.0
#: Seconds between two frames a client sends: half the rate a connection may keep up, so none is refused.
PACE_S = 2.0 / frames.RATE
#: Seconds to wait for the server to say it listens, and for any answer.
START_S, ANSWER_S = 60.0, 30.0

#: Put in the page once the catalog has come: it times each click on a move button, from the click event to the
#: first animation frame after the page's own handler has drawn the answer, and counts every frame drawn.
TIMER_JS = """() => {
  window.benchClicks = [];
  window.benchFrames = 0;
  let clicked = null;
  document.addEventListener("click", (event) => {
    if (event.target.closest("#moves button")) clicked = performance.now();
  }, true);
  state.socket.addEventListener("message", (event) => {
    window.benchFrames += 1;
    if (clicked === null) return;
    const start = clicked, drawn = performance.now(), frame = JSON.parse(event.data);
    const ended = Boolean(frame.waiting || frame.over);
    clicked = null;
    requestAnimationFrame(() => window.benchClicks.push({type: frame.type, ended, drawn: drawn - start,
                                                         shown: performance.now() - start}));
  });
}"""


def free_port() -> int:
    """A TCP port of the loopback address that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(agents: list[str], replays: str) -> Iterator[str]:
    """``gin-env serve`` in a process of its own on a free loopback port, offering ``agents`` and saving finished
    hands to ``replays``; yields its address and stops it at the end."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "gin_env.cli", "serve", "--port", str(port), "--replays", replays,
                               "--agents", *agents], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        if "Serving" not in line:
            server.kill()
            raise SystemExit(f"gin-env serve did not start: {line.strip()} {server.stderr.read().strip()}")
        address = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + START_S
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"gin-env serve said it serves {address} but does not answer")
            time.sleep(0.1)
        yield address
    finally:
        server.terminate()
        server.wait(timeout=START_S)


@contextlib.contextmanager
def browser(chromium: str) -> Iterator:
    """A headless Chromium (Playwright) at the path ``chromium``, closed at the end."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium)
        try:
            yield launched
        finally:
            launched.close()


def open_page(chromium_browser, address: str, width: int = 1280, height: int = 900):
    """A new page of the app at ``address``, once its catalog has come."""
    page = chromium_browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(ANSWER_S * 1000)
    page.goto(address)
    page.wait_for_function("() => document.getElementById('play-agent').options.length > 0")
    return page


class Clicker:
    """Clicks on one page, each at least :data:`PACE_S` after the last, each waiting for the frame it is answered by."""

    def __init__(self, page) -> None:
        self.page, self.last = page, 0.0
        page.evaluate(TIMER_JS)

    def click(self, selector: str) -> None:
        time.sleep(max(0.0, self.last + PACE_S - time.monotonic()))
        drawn = self.page.evaluate("window.benchFrames")
        self.last = time.monotonic()
        self.page.click(selector)
        self.page.wait_for_function("drawn => window.benchFrames > drawn", arg=drawn)


def start_game(page, clicker: Clicker, agent: str, rules: str = "standard", players: int = 2,
               episode: str = "match") -> None:
    """Deal a game of the page's Play screen against ``agent``."""
    page.select_option("#play-agent", agent)
    page.select_option("#play-rules", rules)
    page.select_option("#play-players", str(players))
    page.select_option("#play-episode", episode)
    clicker.click("#play-start")


def play_clicks(page, agent: str, moves: int, warmup: int, rng: np.random.Generator) -> list[dict]:
    """``warmup + moves`` timed clicks on legal moves against ``agent`` (matches dealt again as they end): the
    timings of the last ``moves``, each ``{"type", "ended"`` (the click ended a hand), ``"drawn", "shown"}`` in
    milliseconds."""
    clicker = Clicker(page)
    start_game(page, clicker, agent)
    timed = 0
    with tqdm(total=warmup + moves, unit="click", desc=f"against {agent}", leave=False) as bar:
        while timed < warmup + moves:
            if page.is_visible("#error"):
                raise SystemExit(f"the page shows an error: {page.inner_text('#error')}")
            if page.is_visible("#next"):
                clicker.click("#next")
                continue
            buttons = page.eval_on_selector_all("#moves button", "bs => bs.map(b => b.dataset.action)")
            if not buttons:
                if not page.inner_text("#result"):
                    raise SystemExit(f"against {agent}: no move to click, no next hand and no result on the page")
                start_game(page, clicker, agent)  # the match is over: deal another
                continue
            clicker.click(f'#moves button[data-action="{buttons[rng.integers(len(buttons))]}"]')
            timed += 1
            bar.update()
    page.wait_for_function("n => window.benchClicks.length >= n", arg=warmup + moves)  # the last one's frame drawn
    clicks = page.evaluate("window.benchClicks")
    refused = [c for c in clicks if c["type"] != "game"]
    if refused:
        raise SystemExit(f"{len(refused)} click(s) against {agent} were answered by {refused[0]['type']} frames")
    return clicks[warmup:]


def summary(ms) -> dict:
    """p50, p95 and the most of a list of milliseconds, and how many."""
    ms = np.asarray(ms, dtype=float)
    return {"n": int(ms.size), "p50": float(np.percentile(ms, 50)), "p95": float(np.percentile(ms, 95)),
            "max": float(ms.max())}


def latency(address: str, chromium: str, agents: list[str], moves: int, warmup: int, seed: int) -> dict[str, list]:
    """Each agent -> the timings of ``moves`` clicks against it (:func:`play_clicks`), one page each."""
    rng = np.random.default_rng(seed)
    out = {}
    with browser(chromium) as launched:
        for agent in agents:
            page = open_page(launched, address)
            out[agent] = play_clicks(page, agent, moves, warmup, rng)
            page.close()
    return out


class Client:
    """One websocket connection of the load measurement: every message it receives, with the time it came."""

    def __init__(self, connection) -> None:
        self.connection, self.inbox = connection, asyncio.Queue()
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.connection:
            self.inbox.put_nowait((time.perf_counter(), message))

    async def receive(self) -> tuple[float, dict]:
        """The next frame and when it came; ``SystemExit`` on an error frame or after :data:`ANSWER_S`."""
        came, message = await asyncio.wait_for(self.inbox.get(), ANSWER_S)
        frame = json.loads(message)
        if frame["type"] == "error":
            raise SystemExit(f"the server refused a frame of the load measurement: {frame['message']}")
        return came, frame

    async def latest(self, since: float) -> dict:
        """The last frame received by now that came after ``since`` (``time.perf_counter``), waiting for one."""
        came, frame = await self.receive()
        while came <= since or not self.inbox.empty():
            came, frame = await self.receive()
        return frame

    async def ask(self, frame: dict, answer: str) -> dict:
        await self.connection.send(json.dumps(frame))
        while (reply := (await self.receive())[1])["type"] != answer:
            pass
        return reply


async def _spectators(url: str, room: dict, n: int) -> list[Client]:
    """``n`` spectators of ``room`` (its ``room_created`` frame), each past its ``room_joined`` frame."""
    clients = []
    for k in range(n):
        client = Client(await connect(url))
        await client.ask({"type": "join_room", "room": room["room"], "invite": room["invite"],
                          "name": f"spectator {k + 1}", "role": "spectator"}, "room_joined")
        clients.append(client)
    return clients


async def _settled(client: Client, spectators: int) -> dict:
    """The room frame ``client`` was sent when the last of ``spectators`` joined (each join sends every connection
    one): after it, a frame comes only after a change the measurement makes."""
    while (frame := (await client.receive())[1])["room"]["spectators"] < spectators:
        pass
    return frame


async def _delivered(clients: list[Client], sent: float) -> list[float]:
    """Milliseconds from ``sent`` until each client received its next frame."""
    return [(came - sent) * 1000 for came, _ in await asyncio.gather(*(c.receive() for c in clients))]


def _room_request(frame: dict, rng: np.random.Generator) -> dict:
    """What the room's one person sends next, from their last room frame: start a game when none is in play, the
    next hand after a finished one, else a random legal move."""
    state, view = frame["room"]["state"], frame.get("view")
    if state in ("open", "over"):
        return {"type": "start"}
    if state == "between":
        return {"type": "next"}
    if not view or not view["moves"]:
        raise SystemExit(f"the room waits on someone the measurement does not play: {frame['room']['to_act']}")
    return {"type": "act", "action": int(rng.choice([m["action"] for m in view["moves"]]))}


async def _load(address: str, spectators: int, moves: int, bot: str, rng: np.random.Generator) -> list[float]:
    """A room of one person against ``bot`` watched by ``spectators``: the person's ``moves`` random legal moves,
    each sent once every spectator has received the last; each move's delivery time to each spectator."""
    url = address.replace("http://", "ws://") + "ws"
    mover = Client(await connect(url))
    room = await mover.ask({"type": "create_room", "bot": bot, "rules": "standard", "players": 2,
                            "episode": "match", "name": "mover"}, "room_created")
    clients = await _spectators(url, room, spectators)
    frame = (await asyncio.gather(*(_settled(c, spectators) for c in [mover, *clients])))[0]
    delays, last = [], 0.0
    with tqdm(total=moves, unit="move", desc=f"room, {spectators} spectators", leave=False) as bar:
        while len(delays) < moves * spectators:
            await asyncio.sleep(max(0.0, last + PACE_S - time.monotonic()))
            ask = _room_request(frame, rng)
            last, sent = time.monotonic(), time.perf_counter()
            await mover.connection.send(json.dumps(ask))
            delivered = await _delivered(clients, sent)
            if ask["type"] == "act":
                delays.extend(delivered)
                bar.update()
            frame = await mover.latest(sent)
    for client in [mover, *clients]:
        await client.connection.close()
    return delays


def load(address: str, spectators: int, moves: int, bot: str, seed: int) -> list[float]:
    """:func:`_load` on a new event loop."""
    return asyncio.run(_load(address, spectators, moves, bot, np.random.default_rng(seed)))


#: The table's rows of clicks: what, which timing, and which clicks by whether they ended a hand (a hand's end also
#: scores it and saves its replay).
CLICK_ROWS = (("on screen", "shown", (True, False)), ("on screen, clicks ending a hand", "shown", (True,)),
              ("on screen, the other clicks", "shown", (False,)), ("drawn", "drawn", (True, False)))


def table(clicks: dict[str, list], delivery: list[float] | None, spectators: int) -> str:
    """The markdown table of every measurement: p50, p95 and the most, in milliseconds, against its floor."""
    rows = ["| measured | n | p50 ms | p95 ms | max ms | floor: p95 under |", "|---|---|---|---|---|---|"]
    for agent, timings in clicks.items():
        for what, key, which in CLICK_ROWS:
            chosen = [c[key] for c in timings if c["ended"] in which]
            if not chosen:
                continue
            s = summary(chosen)
            floor = f"{CLICK_P95_MS:g} ms" if len(which) == 2 and key == "shown" else ""
            rows.append(f"| click to answer {what}, against {agent} | {s['n']} | {s['p50']:.1f} | {s['p95']:.1f} | "
                        f"{s['max']:.1f} | {floor} |")
    if delivery:
        s = summary(delivery)
        rows.append(f"| a move to each of {spectators} spectators | {s['n']} | {s['p50']:.1f} | {s['p95']:.1f} | "
                    f"{s['max']:.1f} | {DELIVERY_P95_MS:g} ms |")
    return "\n".join(rows)


def parse(argv: list[str] | None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", nargs="+", default=["simple", "expert"], help="played against (default simple "
                                                                                   "expert)")
    parser.add_argument("--moves", type=int, default=200, help="timed clicks against each agent (default 200)")
    parser.add_argument("--warmup", type=int, default=10, help="clicks before the timed ones (default 10)")
    parser.add_argument("--spectators", type=int, default=100, help="spectators of the room (default 100; 0: no load "
                                                                     "measurement)")
    parser.add_argument("--load-moves", type=int, default=200, help="the person's moves in the room (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="of the moves clicked (default 0)")
    parser.add_argument("--chromium", default=CHROMIUM, help=f"the browser (default {CHROMIUM})")
    parser.add_argument("--json", help="write every timing here")
    args = parser.parse_args(argv)
    for name in ("moves", "load_moves"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.warmup < 0:
        parser.error(f"--warmup must be at least 0, got {args.warmup}")
    if not 0 <= args.spectators <= MAX_SPECTATORS:
        parser.error(f"--spectators must be 0..{MAX_SPECTATORS} (a room's most), got {args.spectators}")
    if not os.access(args.chromium, os.X_OK):
        parser.error(f"--chromium {args.chromium}: no such program (install Chromium or name it)")
    try:
        if args.json:
            files.check_output_file(args.json, "--json")
    except (OSError, ValueError) as err:
        parser.error(str(err))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as replays, serving(args.agents, replays) as address:
        clicks = latency(address, args.chromium, args.agents, args.moves, args.warmup, args.seed)
        delivery = load(address, args.spectators, args.load_moves, args.agents[0], args.seed) \
            if args.spectators else None
    print(f"# gin-env {__version__} serve on loopback, Chromium headless; {platform.machine()}, {os.cpu_count()} cores"
          f" (load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end), Python "
          f"{platform.python_version()}; "
          f"{time.strftime('%Y-%m-%d')}")
    print(table(clicks, delivery, args.spectators))
    if args.json:
        files.write_json(args.json, {"version": __version__, "cores": os.cpu_count(), "clicks": clicks,
                                     "spectators": args.spectators, "delivery": delivery})
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
