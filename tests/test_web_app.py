"""The web app through its websocket, as a browser speaks to it (Starlette's TestClient, no browser), and the
``gin-env serve`` command line: the protocol of ``gin_env.web.app``'s docstring, every malformed frame answered by an
error frame that changes nothing, the limits, and the command's one-line refusals before it serves."""

from __future__ import annotations

import json
import re
import sys

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'gin-env[web]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra)")

from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from gin_env import agents, cli  # noqa: E402
from gin_env.game.rules import Rules  # noqa: E402
from gin_env.web import app as web  # noqa: E402
from gin_env.web import frames, serve  # noqa: E402

#: A card as the wire writes it: rank and suit, or a joker, never an id.
CARD = re.compile(r"^([2-9TJQKA][SHDC]|JK)$")
PLAY = {"type": "play", "agent": "simple-v1", "rules": "standard", "players": 2, "episode": "hand"}
#: The most frames a test hand may take: far more than any hand's actions (the turn cap ends one sooner).
MOST_FRAMES = 400
#: The most frames a test match may take: a match of random play to its target is some tens of hands.
MOST_MATCH_FRAMES = 100 * MOST_FRAMES


class Clock:
    """The rate limit's clock, moved by hand: a test never sleeps."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Unhurried(Clock):
    """A clock that moves a second at each reading: the rate limit never refuses a frame."""

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture(scope="module")
def offered():
    return {"simple-v1": agents.load("simple-v1"), "random-v1": agents.load("random-v1")}


def client(offered, **config) -> TestClient:
    """The app offering ``offered``; the rate limit out of the way unless ``config`` gives a clock."""
    config.setdefault("clock", Unhurried())
    return TestClient(web.make_app(web.ServeConfig(agents=offered, **config)))


def ask(ws, frame) -> dict:
    ws.send_text(json.dumps(frame))
    return ws.receive_json()


def play_out(ws, first: dict, rng: np.random.Generator, most: int = MOST_FRAMES) -> list[dict]:
    """Play the person's side of a game from its first frame with random legal moves, going on after each hand;
    every frame received, the last one the game's end."""
    seen = [first]
    while not seen[-1]["over"]:
        assert len(seen) < most
        frame = seen[-1]
        if frame["waiting"]:
            seen.append(ask(ws, {"type": "next"}))
            continue
        moves = frame["view"]["moves"]
        assert moves, "the game waits for the person, who has no move"
        seen.append(ask(ws, {"type": "act", "action": moves[rng.integers(len(moves))]["action"]}))
        assert seen[-1]["type"] == "game", seen[-1]
    return seen


def test_the_page_and_its_files(offered):
    c = client(offered)
    page = c.get("/")
    assert page.status_code == 200 and 'id="moves"' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert c.get("/static/app.js").status_code == 200
    assert c.get("/static/style.css").status_code == 200
    # no folder listing, nothing outside the static folder
    for path in ("/static/", "/static/%2e%2e/app.py", "/static/..%2fapp.py", "/app.py"):
        assert c.get(path).status_code == 404, path


def test_the_catalog_lists_only_what_the_server_offers(offered):
    with client(offered, presets=("standard", "jokers")).websocket_connect("/ws") as ws:
        catalog = ask(ws, {"type": "catalog"})
    assert catalog["agents"] == ["simple-v1", "random-v1"]
    assert catalog["presets"] == ["standard", "jokers"]
    assert catalog["formats"] == [2, 3, 4] and catalog["episodes"] == ["hand", "match"]
    assert catalog["replays"] is False
    assert catalog["limits"]["frame_bytes"] == frames.MAX_FRAME_BYTES


def test_a_whole_hand_against_simple_by_the_frames_moves(offered, tmp_path):
    with client(offered, replays=tmp_path).websocket_connect("/ws") as ws:
        first = ask(ws, PLAY)
        assert first["type"] == "game" and first["screen"] == "play"
        assert first["names"] == ["you", "simple-v1"]
        seen = play_out(ws, first, np.random.default_rng(0))
        listing = ask(ws, {"type": "replays"})
        replay = ask(ws, {"type": "replay", "name": listing["replays"][0]["name"]})
        advice = ask(ws, {"type": "advice", "step": 0})
    end = seen[-1]
    assert end["over"] and end["result"] is not None and len(end["showdowns"]) == 1
    assert end["showdowns"][0]["reason"]
    # every move the person was offered was legal: none was refused, and the cards shown are text
    assert all(f["type"] == "game" for f in seen)
    assert all(CARD.match(c) for f in seen if f["view"] for c in f["view"]["hand"])
    # the finished hand was saved to the served folder and opens there
    assert [r["players"] for r in listing["replays"]] == [["you", "simple-v1"]]
    assert replay["type"] == "replay" and "showdown" in replay["steps"][-1]
    assert [a["agent"] for a in advice["advice"]] == ["simple-v1", "random-v1"]


@pytest.mark.parametrize("players, rules, words", [(3, "standard", "three players"), (4, "standard", "four players"),
                                                   (2, "jokers", "two players")])
def test_a_match_in_every_format_stops_after_each_hand(offered, players, rules, words):
    frame = dict(PLAY, players=players, rules=rules, episode="match", agent="random-v1")
    with client(offered).websocket_connect("/ws") as ws:
        first = ask(ws, frame)
        assert first["format"].startswith(words) and len(first["names"]) == players
        seen = play_out(ws, first, np.random.default_rng(players), MOST_MATCH_FRAMES)
    waits = [f for f in seen if f["waiting"]]
    assert waits and all(f["showdowns"] or f["results"] for f in waits)
    assert seen[-1]["over"] and seen[-1]["result"]["final_totals"]
    # a card is its text, a joker only ever "JK" (R72)
    assert all(CARD.match(c) for f in seen if f["view"] for c in f["view"]["hand"])


def test_a_hint_names_what_each_offered_agent_would_play_and_the_searchs_values(offered):
    with client(offered).websocket_connect("/ws") as ws:
        frame = ask(ws, PLAY)
        hint = ask(ws, {"type": "hint", "search": False})
        valued = ask(ws, {"type": "hint", "search": True})
        again = ask(ws, {"type": "act", "action": frame["view"]["moves"][0]["action"]})
    legal = {m["action"] for m in frame["view"]["moves"]}
    assert hint["type"] == "hint" and hint["values"] is None
    assert [h["agent"] for h in hint["agents"]] == ["simple-v1", "random-v1"]
    assert {h["action"] for h in hint["agents"]} <= legal
    assert valued["values"] and {v["action"] for v in valued["values"]} <= legal
    assert all(isinstance(v["value"], float) for v in valued["values"])
    assert again["type"] == "game"  # asking changed nothing: the move is still the person's to play


def test_watching_two_agents_move_by_move(offered):
    with client(offered).websocket_connect("/ws") as ws:
        frame = ask(ws, {"type": "watch", "agents": ["simple-v1", "random-v1"], "rules": "standard", "players": 2,
                         "episode": "hand"})
        assert frame["screen"] == "watch" and frame["played"] == []
        assert all(len(t["hands"]) == 2 for t in frame["tables"])  # both hands open
        moves = 0
        while not frame["over"]:
            assert moves < MOST_FRAMES
            frame = ask(ws, {"type": "advance"})
            assert frame["type"] == "game" and len(frame["played"]) == 1, frame
            moves += 1
        after = ask(ws, {"type": "advance"})
    assert after["type"] == "error" and "over" in after["message"]
    assert frame["result"] is not None


BAD_FRAMES = [
    ("not json", "not JSON"),
    ("[1, 2]", "got a list"),
    ('"play"', "got a str"),
    ('{"type": "dance"}', "unknown frame type"),
    ('{"kind": "play"}', "unknown frame type"),
    ('{"type": "catalog", "extra": 1}', "extra"),
    ('{"type": "act"}', "missing action"),
    ('{"type": "act", "action": "7"}', "integer"),
    ('{"type": "act", "action": true}', "integer"),
    ('{"type": "act", "action": -1}', "integer"),
    ('{"type": "act", "action": 1.0}', "integer"),
    ('{"type": "hint", "search": 1}', "true or false"),
    (json.dumps(dict(PLAY, agent="expert-v2")), "not offered"),
    (json.dumps(dict(PLAY, agent="/etc/passwd")), "not offered"),
    (json.dumps(dict(PLAY, agent="../agents/models/ppo_policy.npz")), "not offered"),
    (json.dumps(dict(PLAY, agent="os:system")), "not offered"),
    (json.dumps(dict(PLAY, rules="eaia")), "not offered"),
    (json.dumps(dict(PLAY, players=5)), "integer"),
    (json.dumps(dict(PLAY, episode="forever")), "not offered"),
    (json.dumps(dict(PLAY, name="\x1b[31mred")), "visible text"),
    (json.dumps({"type": "replay", "name": "../../etc/passwd"}), "no replay folder"),
    (json.dumps({"type": "watch", "agents": ["simple-v1"] * 3, "rules": "standard", "players": 2,
                 "episode": "hand"}), "need 2 agents"),
    (json.dumps({"type": "catalog", "pad": "x" * frames.MAX_FRAME_BYTES}), "over 4096 bytes"),
    ("[" * 3000 + "]" * 3000, "over 4096 bytes"),
    ("[" * 2000 + "]" * 2000, "not JSON"),
]


def test_every_malformed_frame_gets_an_error_and_the_game_goes_on(offered):
    with client(offered).websocket_connect("/ws") as ws:
        frame = ask(ws, PLAY)
        for text, words in BAD_FRAMES:
            ws.send_text(text)
            answer = ws.receive_json()
            assert answer["type"] == "error" and words in answer["message"], (text[:60], answer)
        ws.send_bytes(b'{"type": "catalog"}')
        assert "not binary" in ws.receive_json()["message"]
        moves = frame["view"]["moves"]
        illegal = next(a for a in range(200) if a not in {m["action"] for m in moves})
        refused = ask(ws, {"type": "act", "action": illegal})
        assert refused["type"] == "error" and "not legal" in refused["message"]
        # the game is where it was: the same moves, and a legal one is played
        assert ask(ws, {"type": "hint", "search": False})["type"] == "hint"
        after = ask(ws, {"type": "act", "action": moves[0]["action"]})
    assert after["type"] == "game" and after["hand_number"] == frame["hand_number"]


def test_frames_that_need_a_game_or_a_replay_say_so(offered):
    with client(offered).websocket_connect("/ws") as ws:
        assert "start one with a play frame" in ask(ws, {"type": "act", "action": 1})["message"]
        assert "start one with a play frame" in ask(ws, {"type": "next"})["message"]
        assert "start one with a watch frame" in ask(ws, {"type": "advance"})["message"]
        assert "no replay is open" in ask(ws, {"type": "advice", "step": 0})["message"]
        ask(ws, PLAY)
        assert "no finished hand waits" in ask(ws, {"type": "next"})["message"]


def test_a_replay_name_cannot_leave_the_served_folder(offered, tmp_path):
    (tmp_path / "outside.json").write_text("{}")
    served = tmp_path / "served"
    served.mkdir()
    with client(offered, replays=served).websocket_connect("/ws") as ws:
        assert ask(ws, {"type": "replays"})["replays"] == []
        for name in ("../outside.json", "/etc/passwd", str(tmp_path / "outside.json"), "..", "%2e%2e/outside.json",
                     "outside.json"):
            answer = ask(ws, {"type": "replay", "name": name})
            assert answer["type"] == "error" and "replay" in answer["message"], (name, answer)


def test_the_rate_limit_refuses_a_burst_and_closes_a_flood(offered):
    clock = Clock()
    with client(offered, clock=clock).websocket_connect("/ws") as ws:
        for _ in range(frames.BURST):
            assert ask(ws, {"type": "catalog"})["type"] == "catalog"
        refused = ask(ws, {"type": "catalog"})
        assert refused["type"] == "error" and "too many frames" in refused["message"]
        clock.now += 1.0  # a second refills RATE tokens
        for _ in range(int(frames.RATE)):
            assert ask(ws, {"type": "catalog"})["type"] == "catalog"
        for _ in range(frames.MAX_REFUSED - 2):
            assert "too many frames" in ask(ws, {"type": "catalog"})["message"]
        ws.send_text(json.dumps({"type": "catalog"}))
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == web.POLICY_VIOLATION


def test_the_server_plays_at_most_max_games_at_once(offered):
    c = client(offered, max_games=1)
    with c.websocket_connect("/ws") as first:
        assert ask(first, PLAY)["type"] == "game"
        assert ask(first, PLAY)["type"] == "game"  # a new game replaces the connection's own
        with c.websocket_connect("/ws") as second:
            full = ask(second, PLAY)
            assert full["type"] == "error" and "most games" in full["message"]
    with c.websocket_connect("/ws") as third:  # the first connection's game ended with it
        assert ask(third, PLAY)["type"] == "game"


def test_a_page_of_another_site_cannot_open_the_socket(offered):
    c = client(offered)
    with pytest.raises(WebSocketDisconnect) as closed, c.websocket_connect(
            "/ws", headers={"origin": "http://evil.example"}):
        pass
    assert closed.value.code == web.POLICY_VIOLATION
    with c.websocket_connect("/ws", headers={"origin": "http://testserver"}) as ws:
        assert ask(ws, {"type": "catalog"})["type"] == "catalog"


def test_the_config_refuses_what_it_cannot_offer():
    with pytest.raises(ValueError, match="offers no agent"):
        web.ServeConfig(agents={})
    with pytest.raises(ValueError, match="eaia"):
        web.ServeConfig(agents={"random": agents.load("random")}, presets=("eaia",))
    with pytest.raises(ValueError, match="max_games"):
        web.ServeConfig(agents={"random": agents.load("random")}, max_games=0)


# --- gin-env serve ---------------------------------------------------------------------------------------------

@pytest.fixture
def served(monkeypatch):
    """uvicorn.run replaced by a recorder: the command's arguments, never a server."""
    import uvicorn

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    return calls


def run_serve(argv: list[str]) -> int:
    """``gin-env serve ARGV``'s exit code, as the shell would see it (argparse exits on a bad option)."""
    try:
        return cli.main(["serve", *argv])
    except SystemExit as exit_:
        return exit_.code


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def test_serve_without_the_extra_names_it_in_one_line(monkeypatch, capsys, served):
    monkeypatch.setitem(sys.modules, "starlette", None)  # as if not installed
    assert run_serve(["--agents", "random"]) == 2
    assert _one_line(capsys) == ("gin-env serve: error: the web app needs starlette, which is not installed: pip "
                                 "install 'gin-env[web]'\n")
    assert served == []


@pytest.mark.parametrize("argv, words", [(["--agents", "random", "simpel"], "simpel"),
                                         (["--agents", "missing.npz"], "missing.npz"),
                                         (["--presets", "eaia"], "eaia"),
                                         (["--port", "0"], "--port"),
                                         (["--replays", "no-such-folder/replays"], "no-such-folder")])
def test_serve_refuses_bad_options_in_one_line_before_serving(argv, words, capsys, served, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_serve(argv) == 2
    line = _one_line(capsys)
    assert line.startswith("gin-env serve: error:") and words in line
    assert served == [] and list(tmp_path.iterdir()) == []


def test_serve_on_loopback_prints_its_address(capsys, served, tmp_path):
    assert run_serve(["--agents", "random", "--port", "8123", "--replays", str(tmp_path / "r")]) == 0
    out = capsys.readouterr()
    assert "http://127.0.0.1:8123/" in out.out and out.err == ""
    assert served[0]["host"] == "127.0.0.1" and served[0]["port"] == 8123
    assert (tmp_path / "r").is_dir()


def test_serve_warns_when_shared_beyond_this_machine(capsys, served):
    assert run_serve(["--agents", "random", "--host", "0.0.0.0"]) == 0
    out = capsys.readouterr()
    assert "warning" in out.err and "0.0.0.0" in out.err and "http://0.0.0.0:8000/" in out.out
    assert served[0]["host"] == "0.0.0.0"


def test_loopback_addresses():
    assert serve.is_loopback("127.0.0.1") and serve.is_loopback("::1") and serve.is_loopback("localhost")
    assert not serve.is_loopback("0.0.0.0") and not serve.is_loopback("example.com")


def test_a_watched_match_shows_each_hands_showdown_until_the_next_move(offered):
    with client(offered).websocket_connect("/ws") as ws:
        frame = ask(ws, {"type": "watch", "agents": ["simple-v1", "random-v1"], "rules": "standard", "players": 2,
                         "episode": "match"})
        shown = []
        for _ in range(MOST_MATCH_FRAMES):
            if frame["over"]:
                break
            frame = ask(ws, {"type": "advance"})
            if frame["showdowns"]:
                shown.append(frame)
    # every hand but the last ended in a frame that shows its showdown, and the next move cleared it
    assert frame["over"] and len(shown) == frame["hand_number"]
    assert all(len(f["showdowns"]) == 1 for f in shown)


@pytest.mark.parametrize("episode, target", [("hand", None), ("match", Rules.preset("standard").target)])
def test_the_seat_view_and_the_header_agree_on_the_target(offered, episode, target):
    with client(offered).websocket_connect("/ws") as ws:
        frame = ask(ws, dict(PLAY, episode=episode))
    assert frame["target"] == frame["view"]["target"] == target
