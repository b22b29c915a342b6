"""The rooms a web server holds, shared by its connections: the bound on how many, one lock per room, who is
connected to each, and the frames each connection is sent after a change.

This module owns the served side of :mod:`gin_env.web.rooms`: every change to a room (a join, a move, a leave, a
disconnect, the timeouts :meth:`Lobby.tick` plays) runs under that room's lock and ends with a numbered snapshot of
every connection's own frame (``Room.frame_for`` of its token), so that frames built after a later change are never
overtaken by older ones (:attr:`Served.version`). Every spectator is sent the same frame, so a snapshot builds it
once and hands the one dict to each spectator connection. A connection is any object with a ``token`` attribute
(the member it is) and a ``served`` one (the room it is in, or None); :mod:`gin_env.web.app` sends the frames. A room no
connection has been in for :data:`ROOM_IDLE_S` is closed. :class:`InRoom` is a connection's half of the room
frames of the protocol (``create_room``, ``join_room``, ``rejoin``, ``start``, ``leave``; ``act`` and ``next``
within a room); the app's docstring lays them out. It imports no web package.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable

from gin_env.text import quoted
from gin_env.web import frames
from gin_env.web.frames import FrameError
from gin_env.web.rooms import Room

#: Rooms open at once, unless ``gin-env serve --max-rooms`` says otherwise.
MAX_ROOMS = 50
#: Seconds (the rooms' clock) a room stays open with no connection, for its members to come back with their tokens.
ROOM_IDLE_S = 600.0

#: What a change sends: its number and (connection, its frame) for every connection of the room.
Snapshot = tuple[int, list[tuple[object, dict]]]


class Served:
    """A room being served: ``room``, the ``lock`` every change holds, the ``connections`` in it, the number of its
    last change (``version``) and since when no connection has been in it (``idle_since``, the room's clock)."""

    def __init__(self, room: Room) -> None:
        self.room, self.lock = room, threading.Lock()
        self.connections: set = set()
        self.version = 0
        self.idle_since: float | None = room.clock()

    def snapshot(self) -> Snapshot:
        """A new version: each connection's own room frame, one shared by the spectators (called under the
        lock)."""
        self.version += 1
        room, watching, sent = self.room, None, []
        for c in self.connections:
            if not room.watches(c.token):
                sent.append((c, {**room.frame_for(c.token), "screen": "room"}))
                continue
            if watching is None:
                watching = {**room.spectator_frame(), "screen": "room"}
            sent.append((c, watching))
        return self.version, sent

    def change(self, action: Callable[[], object]) -> tuple[object, Snapshot]:
        """``action()`` under the lock, and the snapshot after it; nothing is sent when it raises."""
        with self.lock:
            return action(), self.snapshot()

    def _drop(self, connection) -> None:
        """``connection`` is in the room no more (under the lock)."""
        self.connections.discard(connection)
        connection.served = None
        if not self.connections:
            self.idle_since = self.room.clock()


class Lobby:
    """The rooms of one server, at most ``max_rooms`` at once, by id."""

    def __init__(self, max_rooms: int = MAX_ROOMS) -> None:
        if type(max_rooms) is not int or max_rooms < 1:
            raise ValueError(f"max_rooms must be an integer of at least 1, got {quoted(max_rooms)}")
        self.max_rooms = max_rooms
        self.rooms: dict[str, Served] = {}
        self.lock = threading.Lock()

    def open(self, room: Room) -> Served:
        """Serve ``room``; :class:`FrameError` when the server holds its most rooms already."""
        with self.lock:
            if len(self.rooms) >= self.max_rooms:
                raise FrameError(f"the server holds its most rooms at once ({self.max_rooms}): join one or try later")
            served = self.rooms[room.id] = Served(room)
        return served

    def close(self, served: Served) -> None:
        with self.lock:
            self.rooms.pop(served.room.id, None)

    def find(self, room_id: str) -> Served:
        """The served room ``room_id``; :class:`FrameError` when none is open by that id."""
        served = self.rooms.get(room_id)
        if served is None:
            raise FrameError("no room is open by that id: it was closed, or the link is wrong")
        return served

    def enter(self, served: Served, connection, join: Callable[[], object]):
        """``connection`` becomes the member ``join()`` returns (a new member, or one reconnected by token): another
        connection that held that member is in the room no more. The member and the snapshot."""
        def attach():
            member = join()
            for other in [c for c in served.connections if c.token == member.token]:
                served._drop(other)
            served.connections.add(connection)
            served.idle_since = None
            connection.served, connection.token = served, member.token
            return member
        return served.change(attach)

    def exit(self, connection, leave: bool) -> Snapshot | None:
        """``connection`` goes: its member leaves the room (``leave``) or is away until they reconnect; the
        snapshot for the connections left, None when it was in no room."""
        served = connection.served
        if served is None:
            return None

        def detach():
            (served.room.leave if leave else served.room.disconnect)(connection.token)
            served._drop(connection)
        return served.change(detach)[1]

    def tick(self, now: float) -> list[Snapshot]:
        """Play every room's overdue turns and hands at ``now`` (``Room.tick``), and close the rooms idle for
        :data:`ROOM_IDLE_S`; the snapshots of the rooms that changed."""
        changed = []
        for served in list(self.rooms.values()):
            with served.lock:
                if served.idle_since is not None and now - served.idle_since >= ROOM_IDLE_S:
                    self.close(served)
                    continue
                try:
                    if served.room.tick(now):
                        changed.append(served.snapshot())
                except Exception:  # noqa: BLE001 - a plug-in bot may raise anything; its move was not played
                    continue
        return changed


async def push(snapshot: Snapshot | None) -> None:
    """Send each connection of a room its frame of ``snapshot`` (:meth:`InRoom.deliver`) as JSON text, encoded once
    per frame: the spectators share one frame, and a room of a hundred of them encodes it once a change."""
    if snapshot is not None:
        version, sent = snapshot
        texts: dict[int, str] = {}
        for connection, frame in sent:
            if id(frame) not in texts:
                texts[id(frame)] = json.dumps(frame)
            await connection.deliver(version, texts[id(frame)])


async def tick(lobby: Lobby, now: float) -> None:
    """:meth:`Lobby.tick` in a worker thread (a bot may think a while), and the frames of the rooms that changed."""
    for snapshot in await asyncio.to_thread(lobby.tick, now):
        await push(snapshot)


class InRoom:
    """The room frames of a connection of the app (``gin_env.web.app.Connection``): it has ``server`` (``lobby``,
    ``config``, ``agents``), ``served`` and ``token`` (its room and member), ``sent`` (the version of the last room
    frame sent), ``pending`` (the snapshot to send its room after the answer), ``send`` (a coroutine) and
    ``end_game()``."""

    def _not_in_room(self) -> None:
        if self.served is not None:
            raise FrameError("you are in a room: leave it first (a leave frame)")

    async def deliver(self, version: int, text: str) -> None:
        """Send a room frame of ``version``, encoded as JSON ``text``, unless a newer one was sent."""
        if version > self.sent and self.send is not None:
            self.sent = version
            await self.send(text)

    async def _room_move(self, move) -> dict:
        """``move(room)`` as this connection's member, under the room's lock: this connection's room frame, and the
        others' sent after it."""
        served = self.served
        if served is None:
            raise FrameError("you are in no room: create one or join one")
        _, snapshot = await asyncio.to_thread(served.change, lambda: move(served.room))
        self.pending = snapshot
        own = dict(snapshot[1]).get(self)
        if own is None:  # another connection took this member over meanwhile
            return frames.error("you are in the room no more: another connection holds your seat")
        self.sent = snapshot[0]
        return own

    async def _enter(self, served: Served, join, kind: str) -> dict:
        member, self.pending = await asyncio.to_thread(self.server.lobby.enter, served, self, join)
        self.end_game()
        room = served.room
        return {"type": kind, "room": room.id, "invite": room.invite, "token": member.token, "name": member.name,
                "seat": member.seat, "notice": member.notice}

    async def on_create_room(self, frame: dict) -> dict:
        self._not_in_room()
        config = self.server.config
        room = Room(frames.rules_of(frame), episode=frame["episode"], bot=self.server.agents[frame["bot"]],
                    bot_name=frame["bot"], clock=config.clock, turn_timeout_s=config.turn_timeout_s,
                    replay_folder=config.replays)
        served = self.server.lobby.open(room)
        try:
            return await self._enter(served, lambda: room.join(frame["name"], True), "room_created")
        except ValueError:
            self.server.lobby.close(served)
            raise

    async def on_join_room(self, frame: dict) -> dict:
        self._not_in_room()
        served = self.server.lobby.find(frame["room"])
        served.room.check_invite(frame["invite"])
        return await self._enter(served, lambda: served.room.join(frame["name"], frame["role"] == "player",
                                                                  frame.get("seat")), "room_joined")

    async def on_rejoin(self, frame: dict) -> dict:
        self._not_in_room()
        served = self.server.lobby.find(frame["room"])
        return await self._enter(served, lambda: served.room.reconnect(frame["token"]), "room_joined")

    async def on_start(self, frame: dict) -> dict:
        return await self._room_move(lambda room: room.start(self.token))

    async def on_leave(self, frame: dict) -> dict:
        served = self.served
        if served is None:
            raise FrameError("you are in no room: there is nothing to leave")
        self.pending = await asyncio.to_thread(self.server.lobby.exit, self, True)
        return {"type": "left", "room": served.room.id}

    async def close(self) -> None:
        """The browser went: its game ends, its member is away (the seat kept for a reconnect)."""
        self.end_game()
        await push(await asyncio.to_thread(self.server.lobby.exit, self, False))
