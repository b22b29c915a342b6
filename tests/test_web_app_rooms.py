"""Rooms of people through the web app's websocket (Starlette's TestClient, several connections in one test): each
connection receives only what its member may know after every change, tokens give a seat back on a new connection
and nothing else, the bot plays an away member's turn after the configured timeout (the test moves the clock and
ticks the rooms itself), hostile frames get error frames while the room plays on, and the server's room limit."""

from __future__ import annotations

import contextlib
import json

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'gin-env[web]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra)")

from starlette.testclient import TestClient  # noqa: E402

from gin_env import agents  # noqa: E402
from gin_env.replay import replay_file  # noqa: E402
from gin_env.web import app as web  # noqa: E402
from gin_env.web import lobby  # noqa: E402
from tests.test_web_app import run_serve, served  # noqa: E402, F401 - served is a fixture
from tests.test_web_games import allowed, check_frame  # noqa: E402

#: A timeout no test reaches by its frames alone (each frame moves the clock by ``Site.STEP``).
LONG = 1000.0
#: The most frames a test hand may take.
MOST_FRAMES = 1000


@pytest.fixture(scope="module")
def offered():
    return {"simple-v1": agents.load("simple-v1"), "random-v1": agents.load("random-v1")}


class Site:
    """A running app with a clock the test moves: each frame a test sends moves it by ``STEP`` (so the rate limit
    refills), and :meth:`tick` plays the rooms' timeouts as the app's ticker would."""

    STEP = 0.1

    def __init__(self, offered, **config) -> None:
        self.now = 0.0
        config.setdefault("turn_timeout_s", LONG)
        self.app = web.make_app(web.ServeConfig(agents=offered, clock=lambda: self.now, **config))
        self.server = self.app.state.server

    def ask(self, ws, frame: dict) -> dict:
        self.now += self.STEP
        ws.send_text(json.dumps(frame))
        return ws.receive_json()

    def tick(self, client: TestClient) -> None:
        client.portal.call(lobby.tick, self.server.lobby, self.now)

    def room(self, room_id: str):
        return self.server.lobby.find(room_id).room


def room_frame(site, ws, frame: dict, answer: str) -> tuple[dict, dict]:
    """Create or join: the answer of type ``answer``, then the member's own room frame."""
    said = site.ask(ws, frame)
    assert said["type"] == answer, said
    return said, ws.receive_json()


def create(site, ws, name="ann", players=2, rules="standard", episode="hand"):
    return room_frame(site, ws, {"type": "create_room", "bot": "simple-v1", "rules": rules, "players": players,
                                 "episode": episode, "name": name}, "room_created")


def join(site, ws, made: dict, name: str, role="player", **extra):
    return room_frame(site, ws, {"type": "join_room", "room": made["room"], "invite": made["invite"], "name": name,
                                 "role": role, **extra}, "room_joined")


def check(site, room_id: str, frame: dict, member_seat) -> None:
    """``frame`` holds only what its receiver (a seat in the hand, or None: a spectator) may know now."""
    game = site.room(room_id).game
    if game is not None:
        check_frame(frame, allowed(game, member_seat))


def seat_in_hand(site, room_id: str, name: str):
    lineup = site.room(room_id)._lineup
    return next((s for s, held in enumerate(lineup) if name in [m.name for m in held]), None)


def play_out(site, room_id, sockets: dict, latest: dict, rng, until=lambda f: f.get("over")) -> list[dict]:
    """Play the room by its members' frames' moves until ``until(frame)`` for the frames of all; after every move
    each other connection receives exactly one frame, every frame checked. Every frame received, in order."""
    seen = []
    for _ in range(MOST_FRAMES):
        if all(until(f) for f in latest.values()):
            return seen
        mover = next(n for n, f in latest.items() if (f.get("view") or {}).get("moves"))
        moves = latest[mover]["view"]["moves"]
        latest[mover] = site.ask(sockets[mover], {"type": "act", "action": moves[rng.integers(len(moves))]["action"]})
        for name, ws in sockets.items():
            if name != mover:
                latest[name] = ws.receive_json()
        for name, frame in latest.items():
            assert frame["type"] == "game" and frame["screen"] == "room", frame
            check(site, room_id, frame, seat_in_hand(site, room_id, name))
        seen.extend(latest.values())
    raise AssertionError("the hand did not end")


@pytest.mark.parametrize("rules", ["standard", "jokers"])
def test_two_people_and_a_spectator_each_see_only_what_they_may_and_finish_a_hand(offered, rules, tmp_path):
    site = Site(offered, replays=tmp_path)
    with TestClient(site.app) as c, c.websocket_connect("/ws") as ann, c.websocket_connect("/ws") as bob, \
            c.websocket_connect("/ws") as sam:
        made, first = create(site, ann, rules=rules)
        assert first["type"] == "room" and first["room"]["you"] == "ann" and made["seat"] == 0
        joined, _ = join(site, bob, made, "bob")
        assert joined["seat"] == 1 and joined["token"] != made["token"]
        assert ann.receive_json()["room"]["seats"][1]["joining"] == ["bob"]
        _, watching = join(site, sam, made, "sam", role="spectator")
        assert watching["room"]["seat"] is None
        ann.receive_json(), bob.receive_json()
        latest = {"ann": site.ask(ann, {"type": "start"}), "bob": bob.receive_json(), "sam": sam.receive_json()}
        seen = play_out(site, made["room"], {"ann": ann, "bob": bob, "sam": sam}, latest, np.random.default_rng(1))
    # the spectator saw public tables while the hand was live, and both hands once it ended
    live = [f for f in seen if f["room"]["you"] is None and not f["over"]]  # a spectator's frame names nobody
    assert live and all(f["view"] is None and all("hands" not in t for t in f["tables"]) for f in live)
    assert len(latest["sam"]["showdowns"][0]["hands"]) == 2
    assert {f["room"]["to_act"] for f in seen} >= {"ann", "bob"}
    saved = sorted(tmp_path.iterdir())
    assert len(saved) == 1 and made["room"] in saved[0].name
    assert set(replay_file.load(saved[0]).members) <= {"ann", "bob"}


@pytest.mark.parametrize("players, rules", [(3, "standard"), (4, "standard"), (3, "jokers"), (4, "jokers")])
def test_three_and_four_players_one_person_per_seat(offered, players, rules):
    site = Site(offered)
    names = ["ann", "bob", "cy", "dee"][:players]
    with TestClient(site.app) as c, contextlib.ExitStack() as stack:
        sockets = {n: stack.enter_context(c.websocket_connect("/ws")) for n in names}
        made, _ = create(site, sockets["ann"], players=players, rules=rules)
        for k, name in enumerate(names[1:], 1):
            joined, _ = join(site, sockets[name], made, name)
            assert joined["seat"] == k
            for earlier in names[:k]:
                sockets[earlier].receive_json()
        latest = {"ann": site.ask(sockets["ann"], {"type": "start"})}
        latest.update({n: sockets[n].receive_json() for n in names[1:]})
        assert latest["ann"]["format"].startswith({3: "three", 4: "four"}[players])
        play_out(site, made["room"], sockets, latest, np.random.default_rng(players))
        # a fifth person finds every seat taken and watches
        with c.websocket_connect("/ws") as late:
            said, frame = join(site, late, made, "eve")
            assert said["seat"] is None and "spectator" in said["notice"] and frame["view"] is None
    assert all(f["over"] for f in latest.values())


def test_reconnect_by_token_on_a_new_connection_gets_the_seat_back(offered):
    site = Site(offered)
    with TestClient(site.app) as c, c.websocket_connect("/ws") as ann:
        made, _ = create(site, ann)
        with c.websocket_connect("/ws") as bob:
            bobs, _ = join(site, bob, made, "bob")
            ann.receive_json()
            site.ask(ann, {"type": "start"}), bob.receive_json()
        away = ann.receive_json()  # bob's connection closed: he is away, his seat kept
        assert [m["away"] for m in away["room"]["seats"][1]["order"]] == [True]
        with c.websocket_connect("/ws") as again:
            said, frame = room_frame(site, again, {"type": "rejoin", "room": made["room"], "token": bobs["token"]},
                                     "room_joined")
            back = ann.receive_json()
            assert said["name"] == "bob" and said["seat"] == 1 and said["token"] == bobs["token"]
            assert frame["seat"] == 1 and frame["view"]["hand"] and frame["room"]["you"] == "bob"
            assert [m["away"] for m in back["room"]["seats"][1]["order"]] == [False]
            check(site, made["room"], frame, 1)


def test_a_wrong_room_invite_or_token_is_refused_and_the_room_plays_on(offered):
    site = Site(offered)
    with TestClient(site.app) as c, c.websocket_connect("/ws") as ann, c.websocket_connect("/ws") as eve:
        made, _ = create(site, ann)
        wrong = [{"type": "join_room", "room": made["room"], "invite": made["token"], "name": "eve", "role": "player"},
                 {"type": "join_room", "room": "nosuchroom", "invite": made["invite"], "name": "eve",
                  "role": "player"},
                 {"type": "rejoin", "room": made["room"], "token": made["invite"]},
                 {"type": "rejoin", "room": made["room"], "token": "../../etc/passwd"},
                 {"type": "join_room", "room": made["room"], "invite": made["invite"], "name": "ann",
                  "role": "player"},
                 {"type": "join_room", "room": made["room"], "invite": made["invite"], "name": "simple-v1",
                  "role": "player"},
                 {"type": "join_room", "room": made["room"], "invite": made["invite"], "name": "eve",
                  "role": "spectator", "seat": 1}]
        for frame in wrong:
            said = site.ask(eve, frame)
            assert said["type"] == "error" and made["token"] not in said["message"], (frame, said)
        # nothing changed: ann is still alone in the room and starts it; eve is in no room
        assert site.ask(eve, {"type": "start"})["type"] == "error"
        started = site.ask(ann, {"type": "start"})
        assert started["type"] == "game" and started["room"]["seats"][1]["bot"]


def test_a_member_away_mid_turn_has_the_turn_played_by_the_bot_after_the_timeout(offered):
    site = Site(offered, turn_timeout_s=5.0)
    with TestClient(site.app) as c, c.websocket_connect("/ws") as ann:
        made, _ = create(site, ann)
        with c.websocket_connect("/ws") as bob:
            join(site, bob, made, "bob")
            ann.receive_json()
            latest = {"ann": site.ask(ann, {"type": "start"}), "bob": bob.receive_json()}
            play_out(site, made["room"], {"ann": ann, "bob": bob}, latest, np.random.default_rng(2),
                     until=lambda f: f["room"]["to_act"] == "bob")
        room = site.room(made["room"])
        frame = ann.receive_json()  # bob went away on his turn
        assert frame["room"]["to_act"] == "bob" and frame["room"]["seconds_left"] == pytest.approx(5.0)
        site.now += 4.9
        site.tick(c)
        assert room.acting().name == "bob"  # not yet: nothing was played and nothing sent
        site.now += 0.2
        site.tick(c)
        played = ann.receive_json()
        assert room.acting() is None or room.acting().name == "ann"
        assert any("simple-v1" in line for line in played["log"]), played["log"]
        check(site, made["room"], played, 0)


def test_hostile_frames_in_a_room_get_error_frames_and_the_room_plays_on(offered):
    site = Site(offered)
    with TestClient(site.app) as c, c.websocket_connect("/ws") as ann:
        made, _ = create(site, ann)
        frame = site.ask(ann, {"type": "start"})
        moves = frame["view"]["moves"]
        illegal = next(a for a in range(500) if a not in {m["action"] for m in moves})
        hostile = [
            ({"type": "hint", "search": False}, "no hints"),
            ({"type": "act", "action": illegal}, "not legal"),
            ({"type": "start"}, "in play"),
            ({"type": "next"}, "no finished hand"),
            ({"type": "play", "agent": "simple-v1", "rules": "standard", "players": 2, "episode": "hand"}, "leave"),
            ({"type": "create_room", "bot": "simple-v1", "rules": "standard", "players": 2, "episode": "hand",
              "name": "x"}, "leave"),
            ({"type": "create_room", "bot": "os:system", "rules": "standard", "players": 2, "episode": "hand",
              "name": "x"}, "not offered"),
            ({"type": "join_room", "room": "x" * 100, "invite": "y", "name": "z", "role": "player"}, "URL-safe"),
            ({"type": "join_room", "room": "a", "invite": "b", "name": "<b>z</b>", "role": "boss"}, "not offered"),
            ({"type": "rejoin", "room": made["room"], "token": made["token"], "seat": 0}, "extra"),
        ]
        for bad, words in hostile:
            said = site.ask(ann, bad)
            assert said["type"] == "error" and words in said["message"], (bad, said)
        after = site.ask(ann, {"type": "act", "action": moves[0]["action"]})
    assert after["type"] == "game" and after["screen"] == "room" and after["hand_number"] == frame["hand_number"]


def test_leaving_gives_up_the_token(offered):
    site = Site(offered)
    with TestClient(site.app) as c, c.websocket_connect("/ws") as ann, c.websocket_connect("/ws") as bob:
        made, _ = create(site, ann)
        bobs, _ = join(site, bob, made, "bob")
        ann.receive_json()
        assert site.ask(bob, {"type": "leave"}) == {"type": "left", "room": made["room"]}
        assert ann.receive_json()["room"]["seats"][1]["joining"] == []
        said = site.ask(bob, {"type": "rejoin", "room": made["room"], "token": bobs["token"]})
    assert said["type"] == "error" and "token" in said["message"]


def test_the_server_holds_at_most_max_rooms(offered):
    site = Site(offered, max_rooms=1)
    with TestClient(site.app) as c, c.websocket_connect("/ws") as ann, c.websocket_connect("/ws") as bob:
        made, _ = create(site, ann)
        full = site.ask(bob, {"type": "create_room", "bot": "simple-v1", "rules": "standard", "players": 2,
                              "episode": "hand", "name": "bob"})
        assert full["type"] == "error" and "most rooms" in full["message"]
        joined, _ = join(site, bob, made, "bob")  # the open room still takes people
        assert joined["seat"] == 1 and ann.receive_json()["room"]["seats"][1]["joining"] == ["bob"]
        assert site.ask(ann, {"type": "catalog"})["limits"]["rooms"] == 1


def test_a_room_no_connection_is_in_closes_after_the_idle_time(offered):
    site = Site(offered)
    with TestClient(site.app) as c:
        with c.websocket_connect("/ws") as ann:
            made, _ = create(site, ann)
        site.now += lobby.ROOM_IDLE_S
        site.tick(c)
        with c.websocket_connect("/ws") as ann:
            said = site.ask(ann, {"type": "rejoin", "room": made["room"], "token": made["token"]})
    assert said["type"] == "error" and "no room" in said["message"]


def test_the_config_and_the_command_refuse_bad_room_limits(capsys, served):  # noqa: F811 - the fixture
    with pytest.raises(ValueError, match="turn_timeout_s"):
        web.ServeConfig(agents={"random": agents.load("random")}, turn_timeout_s=0)
    with pytest.raises(ValueError, match="max_rooms"):
        web.ServeConfig(agents={"random": agents.load("random")}, max_rooms=0)
    for argv, words in ((["--turn-timeout", "0"], "--turn-timeout"), (["--turn-timeout", "nan"], "--turn-timeout"),
                        (["--max-rooms", "0"], "--max-rooms")):
        assert run_serve(["--agents", "random", *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err
    assert served == []
