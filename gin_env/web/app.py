"""The web app of ``gin-env serve``: the page, its static files and one websocket that speaks JSON frames.

``GET /`` is the page (``static/index.html``), ``GET /static/...`` its script and style sheet (Starlette's
``StaticFiles`` over this package's ``static`` folder, which lists no folder), and ``/ws`` the websocket. The
server is the authority: the browser sends names picked from the catalog and action ids, and receives only what
its receiver may know (``games.Game``'s and ``rooms.Room``'s frames, built by ``wire``).

The protocol: every frame is a JSON object with a ``type``; a client frame holds exactly the keys shown (``name``
of ``play`` may be left out: "you"; ``seat`` of ``join_room`` too). Each client frame is answered by one frame:

- ``{"type": "catalog"}`` -> ``{"type": "catalog", "agents": [names], "presets": [names], "formats": [2, 3, 4],
  "episodes": ["hand", "match"], "roles": ["player", "spectator"], "replays": bool, "limits": {"frame_bytes",
  "rate", "burst", "games", "rooms", "members", "spectators", "turn_timeout_s"}}``.
- ``{"type": "play", "agent": A, "rules": PRESET, "players": 2|3|4, "episode": "hand"|"match", "name": TEXT}``
  starts a game with the person as agent 0 and ``A`` in every other seat -> ``Game.frame(0)`` (``"type":
  "game"``) with ``"screen": "play"`` and ``"played"``: the moves since the last frame, in public words. The
  agents have moved up to the person's turn, the end of a hand (``"waiting": true``) or the end of the game.
- ``{"type": "act", "action": ID}`` -> the game frame after the person's move and the agents' answers.
- ``{"type": "next"}`` (after a frame said ``"waiting": true``) -> the game frame of the next hand.
- ``{"type": "hint", "search": BOOL}`` (on the person's turn) -> ``{"type": "hint", "agents": [{"agent", "action",
  "label"}], "values": [{"action", "label", "value", "stderr"}] or null}``.
- ``{"type": "watch", "agents": [A, B, ...one per seat], "rules", "players", "episode"}`` -> ``Game.owner_frame()``
  (every hand open) with ``"screen": "watch"`` and ``"played": []``; ``{"type": "advance"}`` -> one more move,
  ``"played": [that move]`` (each finished hand's showdowns stay in the frame until the next move).
- ``{"type": "replays"}`` -> ``{"type": "replays", "replays": [ReplayFolder.listing()], "left_out", "skipped"}``;
  ``{"type": "replay", "name": NAME}`` (a listed name) -> ``{"type": "replay", "name", "summary", "steps"}``;
  ``{"type": "advice", "step": K}`` -> ``{"type": "advice", "step": K, "advice": [{"agent", "action", "label"}]}``.

Rooms of people (:mod:`gin_env.web.rooms`), shared by every connection of the server:

- ``{"type": "create_room", "bot": A, "rules", "players", "episode", "name"}`` opens a room whose bot ``A`` plays
  empty seats and late turns; its creator joins it as a player -> ``{"type": "room_created", "room": ID, "invite",
  "token", "name", "seat", "notice"}``, then the room frame below. The invite link is ``http://HOST:PORT/
  #room=ID&invite=INVITE`` (a fragment, which no request carries); the token is the seat's and only its holder's.
- ``{"type": "join_room", "room", "invite", "name", "role": "player"|"spectator", "seat": S}`` -> ``{"type":
  "room_joined", ...as room_created}``, then the room frame; ``{"type": "rejoin", "room", "token"}`` (a reconnect)
  -> the same, the member's seat theirs again (another connection holding the token leaves the room).
- ``{"type": "start"}``, ``{"type": "act", "action"}``, ``{"type": "next"}`` within a room -> the room frame.
- ``{"type": "leave"}`` -> ``{"type": "left", "room": ID}``: the token admits nobody from then on.

The room frame is ``Room.frame_for(token)`` (a seat's view, ``moves`` only on the member's turn, or the public
frame of a spectator; ``"room"``: members, turn order, who acts, ``seconds_left``) with ``"screen": "room"``. After
every change to a room (a move, a join, a leave, a disconnect, a timeout played by the bot) each of its connections
is sent its own room frame; a frame older than one already sent is dropped. A connection in a room plays no other
game, and hints are refused there. A disconnect marks the member away: their turn goes to the bot after
``ServeConfig.turn_timeout_s``; a room with no connection for :data:`ROOM_IDLE_S` is closed.

Anything wrong with a frame (not JSON text, not an object, too big, an unknown type, a key missing or extra, a value
of the wrong type, a name not offered, an illegal or out-of-turn action, a replay not listed, a wrong room, invite
or token) is answered ``{"type": "error", "message": ...}`` and changes nothing. Frames beyond a connection's rate
are refused the same way, and a connection refused too often is closed as a flood (:mod:`gin_env.web.frames`). A
connection plays one game at a time, the server at most ``ServeConfig.max_games`` and ``max_rooms`` rooms.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import anyio

from gin_env.game.rules import PRESETS
from gin_env.optional import require
from gin_env.text import quoted
from gin_env.web import frames, hints, lobby, replays, rooms
from gin_env.web.frames import FrameError, error
from gin_env.web.games import Game

require("starlette", "the web app")
from starlette.applications import Starlette  # noqa: E402
from starlette.concurrency import run_in_threadpool  # noqa: E402
from starlette.responses import FileResponse  # noqa: E402
from starlette.routing import Mount, Route, WebSocketRoute  # noqa: E402
from starlette.staticfiles import StaticFiles  # noqa: E402
from starlette.websockets import WebSocket, WebSocketDisconnect  # noqa: E402

#: The package's page, script and style sheet: the only folder the app serves files from.
STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
#: Games played at once over all connections, unless ``gin-env serve --max-games`` says otherwise.
MAX_GAMES = 32
#: Seconds between two checks of the rooms' timeouts (the bot's late turns, the next hand, idle rooms).
TICK_S = 0.25
#: The websocket close code of a connection closed for breaking the rules (RFC 6455: policy violation).
POLICY_VIOLATION = 1008
#: The page's own rules for the browser: nothing but this server's files and its websocket, no inline script.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@dataclass
class ServeConfig:
    """What the person who started the server offers: ``agents`` (offered name -> loaded agent), ``presets`` (rules
    preset names), ``replays`` (the served replay folder, or None), ``max_games`` (games at once), ``max_rooms``
    (rooms at once), ``turn_timeout_s`` (how long a room waits on an away member), ``clock`` (the rate limit's and
    the rooms', seconds; injected so that tests need no sleeping)."""

    agents: dict
    presets: tuple[str, ...] = tuple(PRESETS)
    replays: str | os.PathLike | None = None
    max_games: int = MAX_GAMES
    max_rooms: int = lobby.MAX_ROOMS
    turn_timeout_s: float = rooms.TURN_TIMEOUT_S
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        if not self.agents:
            raise ValueError("the server offers no agent: give at least one")
        unknown = [p for p in self.presets if p not in PRESETS]
        if unknown:
            raise ValueError(f"unknown rules presets {', '.join(map(quoted, unknown))}; known: {', '.join(PRESETS)}")
        for what, value in (("max_games", self.max_games), ("max_rooms", self.max_rooms)):
            if type(value) is not int or value < 1:
                raise ValueError(f"{what} must be an integer of at least 1, got {quoted(value)}")
        if type(self.turn_timeout_s) not in (int, float) or not 0 < self.turn_timeout_s < float("inf"):
            raise ValueError(f"turn_timeout_s must be a number of seconds > 0, got {quoted(self.turn_timeout_s)}")


class Serialized:
    """An offered agent shared by every connection: one decision at a time, since agents keep caches and run in
    the thread pool."""

    def __init__(self, agent) -> None:
        self.agent, self.lock = agent, threading.Lock()

    def act(self, view, rng) -> int:
        with self.lock:
            return self.agent.act(view, rng)

    def __repr__(self) -> str:
        return repr(self.agent)


# ---------------------------------------------------------------------------------------------------------------
# The server and its connections
# ---------------------------------------------------------------------------------------------------------------

class Server:
    """What every connection shares: the config, the offered agents (:class:`Serialized`), the replay folder and
    the count of games in play, the rooms (:class:`~gin_env.web.lobby.Lobby`)."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.agents = {name: Serialized(agent) for name, agent in config.agents.items()}
        self.folder = None if config.replays is None else replays.ReplayFolder(config.replays)
        self.offer = frames.offer(self.agents, config.presets)
        self.games = 0
        self.lock = threading.Lock()
        self.lobby = lobby.Lobby(config.max_rooms)

    def catalog(self) -> dict:
        config = self.config
        return {"type": "catalog", "agents": list(self.agents), "presets": list(config.presets),
                "formats": list(frames.FORMATS), "episodes": list(frames.EPISODES), "roles": list(frames.ROLES),
                "replays": self.folder is not None,
                "limits": {"frame_bytes": frames.MAX_FRAME_BYTES, "rate": frames.RATE, "burst": frames.BURST,
                           "games": config.max_games, "rooms": config.max_rooms, "members": rooms.MAX_MEMBERS,
                           "spectators": rooms.MAX_SPECTATORS, "turn_timeout_s": config.turn_timeout_s}}

    def claim_game(self) -> None:
        """Count one more game in play; :class:`FrameError` when the server plays its most already."""
        with self.lock:
            if self.games >= self.config.max_games:
                raise FrameError(f"the server plays its most games at once ({self.config.max_games}): try later")
            self.games += 1

    def release_game(self) -> None:
        with self.lock:
            self.games -= 1

def _seat_names(names: list[str]) -> list[str]:
    """Names for a table's agents, a name that repeats numbered from its second seat on ("simple-v1 2")."""
    out = []
    for k, name in enumerate(names):
        seen = names[:k].count(name)
        out.append(f"{name} {seen + 1}" if seen else name)
    return out


class Connection(lobby.InRoom):
    """One browser: its game (played, with the person as agent 0, or watched), its open replay, its room and the
    member it is there (``served``, ``token``), its rate limit; ``send`` (a coroutine taking a frame's JSON text) is
    the app's."""

    def __init__(self, server: Server, send=None) -> None:
        self.server, self.send = server, send
        self.bucket = frames.TokenBucket(frames.RATE, frames.BURST, server.config.clock)
        self.refused = 0
        self.game: Game | None = None
        self.replay = None
        self.served: lobby.Served | None = None
        self.token: str | None = None
        #: The version of the last room frame sent, and the snapshot to send the room after this frame's answer.
        self.sent = 0
        self.pending: lobby.Snapshot | None = None

    # --- games ------------------------------------------------------------------------------------------------

    async def _start(self, frame: dict, players: list, names: list[str]) -> Game:
        """A new game of ``frame``'s rules, players and episode, replacing this connection's; the old one stays if
        this one cannot be made."""
        self._not_in_room()
        rules = frames.rules_of(frame)
        if self.game is None:
            self.server.claim_game()
        try:
            game = Game(rules, players=players, names=_seat_names(names), episode=frame["episode"],
                        seed=secrets.randbelow(2**32), replay_folder=self.server.config.replays)
        except ValueError:
            if self.game is None:
                self.server.release_game()
            raise
        self.game = game
        return game

    def end_game(self) -> None:
        if self.game is not None:
            self.server.release_game()
            self.game = None

    def _playing(self) -> Game:
        if self.game is None or not self.game.people:
            raise FrameError("no game of yours is in play: start one with a play frame")
        return self.game

    def _watching(self) -> Game:
        if self.game is None or self.game.people:
            raise FrameError("no game is watched: start one with a watch frame")
        return self.game

    async def _seat_frame(self, played: list[dict]) -> dict:
        game = self.game
        played = played + await run_in_threadpool(game.advance)
        return {**game.frame(0), "screen": "play", "played": played}

    async def on_play(self, frame: dict) -> dict:
        agent = self.server.agents[frame["agent"]]
        n = frame["players"]
        await self._start(frame, [None] + [agent] * (n - 1), [frame.get("name", "you")] + [frame["agent"]] * (n - 1))
        return await self._seat_frame([])

    async def on_act(self, frame: dict) -> dict:
        if self.served is not None:
            return await self._room_move(lambda room: room.act(self.token, frame["action"]))
        return await self._seat_frame([self._playing().act(0, frame["action"])])

    async def on_next(self, frame: dict) -> dict:
        if self.served is not None:
            return await self._room_move(lambda room: room.next_hand(self.token))
        self._playing().next_hand()
        return await self._seat_frame([])

    async def on_hint(self, frame: dict) -> dict:
        if self.served is not None:
            raise FrameError("no hints in a room of people: hints are for games against agents")
        view = self._playing().view(0)
        seed = secrets.randbelow(2**32)
        said = await run_in_threadpool(hints.hints, view, self.server.agents, seed)
        values = await run_in_threadpool(hints.search_values, view, seed) if frame["search"] else None
        return {"type": "hint", "agents": said, "values": values}

    async def on_watch(self, frame: dict) -> dict:
        if len(frame["agents"]) != frame["players"]:
            raise FrameError(f"watch agents: {frame['players']} players need {frame['players']} agents, one per "
                             f"seat, got {len(frame['agents'])}")
        await self._start(frame, [self.server.agents[a] for a in frame["agents"]], frame["agents"])
        return {**self.game.owner_frame(), "screen": "watch", "played": []}

    async def on_advance(self, frame: dict) -> dict:
        game = self._watching()
        if game.over:
            raise FrameError("the watched game is over: start another with a watch frame")
        played = await run_in_threadpool(game.advance, 1)
        return {**game.owner_frame(), "screen": "watch", "played": played}

    # --- rooms ------------------------------------------------------------------------------------------------

    # --- replays ----------------------------------------------------------------------------------------------

    def _folder(self) -> replays.ReplayFolder:
        if self.server.folder is None:
            raise FrameError("this server serves no replay folder (gin-env serve --replays DIR)")
        return self.server.folder

    async def on_replays(self, frame: dict) -> dict:
        folder = self._folder()
        listing = await run_in_threadpool(folder.listing)
        return {"type": "replays", "replays": listing, "left_out": folder.left_out, "skipped": len(folder.skipped)}

    async def on_replay(self, frame: dict) -> dict:
        replay = self._folder().open(frame["name"])
        steps = await run_in_threadpool(replays.steps, replay)
        self.replay = replay
        return {"type": "replay", "name": frame["name"], "summary": replays.summary(frame["name"], replay),
                "steps": steps}

    async def on_advice(self, frame: dict) -> dict:
        if self.replay is None:
            raise FrameError("no replay is open: open one with a replay frame")
        said = await run_in_threadpool(replays.advice, self.replay, frame["step"], self.server.agents)
        return {"type": "advice", "step": frame["step"], "advice": said}

    async def on_catalog(self, frame: dict) -> dict:
        return self.server.catalog()

    # --- frames -----------------------------------------------------------------------------------------------

    async def answer(self, data: str | bytes | None) -> dict | None:
        """The answer to one client message: its handler's frame or an error frame; None when the connection must
        close (a flood)."""
        if not self.bucket.take():
            self.refused += 1
            if self.refused >= frames.MAX_REFUSED:
                return None
            return error(f"too many frames: at most {frames.RATE:g} a second (bursts of {frames.BURST})")
        try:
            frame = frames.check_frame(data, self.server.offer)
            return await getattr(self, f"on_{frame['type']}")(frame)
        except ValueError as err:  # FrameError, the game's refusals, an unlisted replay: nothing has changed
            return error(str(err))
        except Exception as err:  # noqa: BLE001 - a plug-in agent may raise anything; the connection goes on
            return error(f"internal error: {type(err).__name__}: {err}")


def _same_origin(websocket: WebSocket) -> bool:
    """Whether the websocket was opened by this server's own page (or by no browser page at all): a page of another
    site may not play here through the visitor's browser."""
    origin = websocket.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == websocket.headers.get("host")


def make_app(config: ServeConfig) -> Starlette:
    """The Starlette app serving ``config``'s offer: ``/`` the page, ``/static`` its files, ``/ws`` the protocol."""
    server = Server(config)

    async def ticking() -> None:
        while True:
            await asyncio.sleep(TICK_S)
            await lobby.tick(server.lobby, config.clock())

    @contextlib.asynccontextmanager
    async def lifespan(app):
        task = asyncio.create_task(ticking())
        try:
            yield
        finally:
            task.cancel()

    async def index(request):
        return FileResponse(os.path.join(STATIC, "index.html"), headers=SECURITY_HEADERS)

    async def socket(websocket: WebSocket) -> None:
        if not _same_origin(websocket):
            await websocket.close(code=POLICY_VIOLATION)
            return
        await websocket.accept()

        async def send(text: str) -> None:
            with contextlib.suppress(RuntimeError, OSError, WebSocketDisconnect):  # gone: its own loop ends it
                await websocket.send_text(text)

        connection = Connection(server, send)
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                reply = await connection.answer(message.get("text", message.get("bytes")))
                if reply is None:
                    await websocket.close(code=POLICY_VIOLATION)
                    break
                await websocket.send_text(json.dumps(reply))
                pending, connection.pending = connection.pending, None
                await lobby.push(pending)
        except WebSocketDisconnect:
            pass
        finally:
            # Shielded: a server that cancels the socket's task still marks the member away and tells the room.
            with anyio.CancelScope(shield=True):
                await connection.close()

    app = Starlette(routes=[Route("/", index), Mount("/static", StaticFiles(directory=STATIC), name="static"),
                            WebSocketRoute("/ws", socket)], lifespan=lifespan)
    #: The server, for whoever drives its rooms' clock (tests tick ``app.state.server.lobby`` themselves).
    app.state.server = server
    return app
