"""The web table in a real browser: Debian's chromium, driven by Playwright, clicks through the page of a live
``gin-env serve`` (``tests/web_server.py``) as a person would: hands of every format played to their showdown, the
replay viewer, a watched game paused and stepped, and hostile clients on a raw websocket beside a page that keeps
working. Nothing here reads the page's script state or asserts on seconds: every wait is on what the page shows.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from tests.web_pages import (
    MOST_CLICKS,
    WAIT_MS,
    Pages,
    check_showdown,
    chromium_or_skip,
    deal,
    launched,
    next_hand,
    play_to_hand_end,
    shown_cards,
)

CHROMIUM = chromium_or_skip()

from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from gin_env import agents  # noqa: E402
from gin_env.game.rules import Rules  # noqa: E402
from gin_env.web import app as web_app  # noqa: E402
from gin_env.web import frames  # noqa: E402
from gin_env.web.games import Game  # noqa: E402
from tests.web_server import running  # noqa: E402

pytestmark = pytest.mark.browser

#: The most hands a test plays before the thing it waits for happens (a joker seen, a hand of its own).
MOST_HANDS = 12
#: A name that would run script if the page inserted text as HTML.
HOSTILE_NAME = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def offered():
    return {"simple-v1": agents.load("simple-v1"), "random-v1": agents.load("random-v1")}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(tmp_path_factory.mktemp("served") / "replays")


@pytest.fixture(scope="module")
def server(offered, folder):
    os.mkdir(folder)
    with running(web_app.ServeConfig(agents=offered, replays=folder)) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with launched(CHROMIUM) as chromium:
        yield chromium


@pytest.fixture
def open_page(browser, server):
    """Open the served page in a fresh browser context (:meth:`Pages.open`); each must end with no script error."""
    pages = Pages(browser, server)
    yield pages.open
    pages.close()


# ---------------------------------------------------------------------------------------------------------------
# Playing through the page
# ---------------------------------------------------------------------------------------------------------------

def test_a_hand_against_simple_is_played_by_clicking_to_its_showdown_and_saved(open_page, offered, folder):
    page = open_page()
    before = set(os.listdir(folder))
    deal(page, "simple-v1", "standard", 2, "hand", HOSTILE_NAME)
    # The name is shown as text: no element was made from it.
    assert HOSTILE_NAME in page.text_content("#scores")
    assert page.query_selector("img") is None
    page.wait_for_selector("#moves button")
    page.check("#hint-search")
    page.click("#hint")
    page.wait_for_selector("#hints li")
    hinted = page.eval_on_selector_all("#hints li", "items => items.map(i => i.dataset.action)")
    legal = set(page.eval_on_selector_all("#moves button", "bs => bs.map(b => b.dataset.action)"))
    assert len(hinted) == len(offered) and set(hinted) <= legal
    valued = page.eval_on_selector_all("#hints tr[data-action]", "rows => rows.map(r => r.dataset.action)")
    assert valued and set(valued) <= legal
    play_to_hand_end(page)
    check_showdown(page, (HOSTILE_NAME, "simple-v1"))
    assert page.text_content("#result").startswith("Game over")
    assert page.is_hidden("#next") and not page.query_selector_all("#moves button")
    saved = set(os.listdir(folder)) - before
    assert len(saved) == 1, saved
    with open(os.path.join(folder, saved.pop()), encoding="utf-8") as file:
        assert json.load(file)["players"][0] == HOSTILE_NAME


def test_three_players_play_through_the_page_until_the_person_has_played_a_hand(open_page):
    page = open_page()
    deal(page, "simple-v1", "standard", 3, "match")
    assert [s.split(":")[0] for s in page.eval_on_selector_all("#scores .score", "s => s.map(e => e.textContent)")] \
        == ["you", "simple-v1", "simple-v1 2"]
    for _ in range(MOST_HANDS):
        play_to_hand_end(page)
        page.wait_for_selector("#showdown .showdown")
        if "you: deadwood" in page.text_content("#showdown"):
            # Of three players the dealer sits a hand out: the person played this one against one of the two.
            names = [n for n in ("simple-v1", "simple-v1 2") if f"{n}: deadwood" in page.text_content("#showdown")]
            assert len(names) == 1
            check_showdown(page, ("you", names[0]))
            return
        next_hand(page)
    raise AssertionError(f"the person sat out {MOST_HANDS} hands")


def test_four_players_play_a_deal_at_one_table_and_see_the_other_tables_result(open_page):
    page = open_page()
    deal(page, "simple-v1", "standard", 4, "hand")
    assert "you & simple-v1 2" in page.text_content("#scores")
    play_to_hand_end(page)
    # The person's own table is shown down; the other table (partner against the other opponent) by its result.
    check_showdown(page, ("you", "simple-v1"))
    assert len(page.query_selector_all("#showdown .showdown")) == 1
    assert "simple-v1 2 vs simple-v1 3" in page.text_content("#showdown")
    assert page.text_content("#result").startswith("Game over")


def test_the_jokers_preset_plays_through_the_page_and_a_joker_shows_as_jk(open_page):
    page = open_page()
    deal(page, "simple-v1", "jokers", 2, "match")
    for _ in range(MOST_HANDS):
        seen = play_to_hand_end(page)
        check_showdown(page, ("you", "simple-v1"))
        if any(card.startswith("JK") for card in seen):
            break
        next_hand(page)
    else:
        raise AssertionError(f"no joker was shown in {MOST_HANDS} hands of the jokers preset")


# ---------------------------------------------------------------------------------------------------------------
# The replay viewer and a watched game
# ---------------------------------------------------------------------------------------------------------------

def replay_point(page) -> tuple[int, int]:
    """The replay viewer's point and its last point, from what it shows ("point 3 of 40")."""
    shown = re.fullmatch(r"point (\d+) of (\d+)", page.text_content("#replay-step"))
    assert shown, page.text_content("#replay-step")
    return int(shown[1]), int(shown[2])


def go_to_point(page, action, expected: int) -> None:
    """Do ``action`` on the replay viewer and wait until it shows point ``expected``, both hands open."""
    action()
    page.wait_for_function(f"() => document.getElementById('replay-step').textContent.startsWith('point {expected} ')")
    # Both players' deadwood at this point, by name.
    assert re.fullmatch(r"Deadwood: .+ \d+, .+ \d+", page.text_content("#replay-deadwood"))
    assert len(page.query_selector_all("#replay-table .player .groups")) == 2
    shown_cards(page, "#replay-view")


def test_the_replay_viewer_steps_jumps_and_shows_advice(open_page, offered, folder):
    # A finished hand of two agents, saved to the served folder as the server saves one; one name is markup.
    names = [HOSTILE_NAME, "random-v1"]
    game = Game(Rules.preset("standard"), players=list(offered.values()), names=names, seed=11,
                replay_folder=folder)
    game.advance()
    name = os.path.basename(game.saved[-1])
    page = open_page()
    page.click("#tab-replays")
    page.wait_for_selector(f"#replay-list button[data-name='{name}']")
    assert page.query_selector("img") is None
    page.click(f"#replay-list button[data-name='{name}']")
    page.wait_for_selector("#replay-view:not([hidden])")
    assert HOSTILE_NAME in page.text_content("#replay-title")
    first, last = replay_point(page)
    assert first == 0 and last > 2
    played = page.text_content("#replay-played")
    go_to_point(page, lambda: page.click("#replay-next"), 1)
    assert page.text_content("#replay-played") != played
    go_to_point(page, lambda: page.click("#replay-next"), 2)
    go_to_point(page, lambda: page.click("#replay-prev"), 1)
    # Jump with the slider's keys, as a person would: End to the hand's end, Home back to its start.
    go_to_point(page, lambda: page.press("#replay-slider", "End"), last)
    page.wait_for_selector("#replay-showdown .showdown")
    assert page.text_content("#replay-played") == "The hand is over."
    assert page.is_disabled("#replay-advice-button")
    go_to_point(page, lambda: page.press("#replay-slider", "Home"), 0)
    assert not page.query_selector("#replay-showdown .showdown")
    # The agents' advice at a point: one line per offered agent, each a legal move of that point.
    go_to_point(page, lambda: page.click("#replay-next"), 1)
    page.click("#replay-advice-button")
    page.wait_for_selector("#replay-advice li")
    advised = page.eval_on_selector_all("#replay-advice li", "items => items.map(i => i.dataset.action)")
    legal = page.eval_on_selector_all("#replay-moves .move", "moves => moves.map(m => m.dataset.action)")
    assert len(advised) == len(offered) and set(advised) <= set(legal)
    assert all(page.text_content("#replay-advice").count(f"{agent}: ") == 1 for agent in offered)


def watched_moves(page) -> list[str]:
    return page.eval_on_selector_all("#watch-log li", "items => items.map(i => i.textContent)")


def step_watch(page) -> None:
    """Click Step and wait until the watched game shows the move it asked for."""
    before = watched_moves(page)
    page.click("#watch-step")
    page.wait_for_function("before => JSON.stringify(Array.from(document.querySelectorAll('#watch-log li'), "
                           "i => i.textContent)) !== before || !document.getElementById('error').hidden",
                           arg=json.dumps(before))
    assert page.is_hidden("#error"), page.text_content("#error")


def test_watch_two_agents_with_both_hands_open_paused_and_stepped(open_page):
    # The page's timers run only when the test moves its clock, so pausing is shown without waiting on time.
    advances = []

    def count_advances(page):
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: advances.append(payload)
                                              if json.loads(payload)["type"] == "advance" else None))

    page = open_page(fake_clock=True, before=count_advances)
    page.click("#tab-watch")
    page.select_option("#watch-agent-0", "simple-v1")
    page.select_option("#watch-agent-1", "random-v1")
    page.select_option("#watch-episode", "hand")
    page.press("#watch-speed", "End")
    assert page.text_content("#watch-delay") == "3.0 s a move"
    page.click("#watch-start")
    page.wait_for_selector("#watch-tables .player")
    hand_size = Rules.preset("standard").deck.hand_size
    for player in page.query_selector_all("#watch-tables .player"):
        # Both hands are open to a watcher of agents.
        assert len(player.query_selector_all(".groups .card")) == hand_size
    assert watched_moves(page) == []
    page.clock.run_for(3000)
    page.wait_for_function("() => document.querySelectorAll('#watch-log li').length === 1")
    page.click("#watch-pause")
    assert page.text_content("#watch-pause") == "Resume"
    page.clock.run_for(30_000)
    step_watch(page)
    assert len(watched_moves(page)) == 2 and len(advances) == 2, advances
    for _ in range(MOST_CLICKS):
        if page.text_content("#watch-result"):
            break
        step_watch(page)
    else:
        raise AssertionError(f"the watched hand did not end in {MOST_CLICKS} steps")
    page.wait_for_selector("#watch-showdown .showdown")
    assert page.text_content("#watch-result").startswith("Game over")
    shown_cards(page, "#screen-watch")


# ---------------------------------------------------------------------------------------------------------------
# Hostile clients beside a page that keeps working
# ---------------------------------------------------------------------------------------------------------------

def ws_address(server: str) -> str:
    return server.replace("http://", "ws://", 1) + "/ws"


def ask(ws, message) -> dict:
    ws.send(message)
    return json.loads(ws.recv(timeout=WAIT_MS / 1000))


def hostile_frames(folder: str) -> list:
    """Messages a hostile client sends, each of which the server must refuse with an error frame: malformed, of
    the wrong shape, too big, binary, out of turn, and replay names that try to leave the served folder."""
    outside = os.path.basename(folder.rstrip(os.sep))
    names = ["../outside.json", f"../{outside}/../outside.json", os.path.join(os.path.dirname(folder), "outside.json"),
             "..%2Foutside.json", "..\\outside.json", ".hidden.json", "outside.json\x00.json", "/etc/passwd"]
    return ["not json", "[1, 2]", "null", json.dumps({"type": "nope"}), json.dumps({"type": "catalog", "x": 1}),
            json.dumps({"type": "act", "action": 0}), json.dumps({"type": "act", "action": "0"}),
            json.dumps({"type": "play", "agent": "../../evil:agent", "rules": "standard", "players": 2,
                        "episode": "hand"}),
            json.dumps({"type": "play", "agent": "simple-v1", "rules": "standard", "players": 2, "episode": "hand",
                        "name": "\x1b[2J"}),
            "{" * 3000, "x" * (frames.MAX_FRAME_BYTES + 1), b"\x00\x01binary",
            json.dumps({"type": "advice", "step": 0})] + [json.dumps({"type": "replay", "name": n}) for n in names]


def test_hostile_websocket_clients_get_error_frames_and_the_page_keeps_working(open_page, server, folder):
    page = open_page()
    deal(page, "simple-v1", "standard", 2, "hand")
    # A well-formed replay beside the served folder, which no name from the browser may reach.
    game = Game(Rules.preset("standard"), players=[agents.load("random-v1")] * 2, names=["a", "b"], seed=3,
                replay_folder=os.path.dirname(folder))
    game.advance()
    os.replace(game.saved[-1], os.path.join(os.path.dirname(folder), "outside.json"))
    with connect(ws_address(server)) as ws:
        for message in hostile_frames(folder):
            answer = ask(ws, message)
            assert answer["type"] == "error" and answer["message"], (message, answer)
        # The connection the hostile frames came on still answers a good frame.
        assert ask(ws, json.dumps({"type": "catalog"}))["type"] == "catalog"
        listed = ask(ws, json.dumps({"type": "replays"}))["replays"]
        assert "outside.json" not in [r["name"] for r in listed]
    # A page of another site may not open the websocket through its visitor's browser.
    with pytest.raises(InvalidStatus):
        connect(ws_address(server), origin="http://evil.example").close()
    flood_is_closed(server)
    # A message over uvicorn's bound ends only that connection.
    with connect(ws_address(server), max_size=None) as ws:
        ws.send("x" * (2 * frames.MAX_FRAME_BYTES * 64))
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=WAIT_MS / 1000)
    # Through all of it the page's game went on: the person plays the hand to its end.
    play_to_hand_end(page)
    check_showdown(page, ("you", "simple-v1"))


def flood_is_closed(server: str) -> None:
    """A client sending frames far faster than the rate is refused with error frames, then closed as a flood."""
    answers = []
    with connect(ws_address(server)) as ws:
        try:
            # Far more than the refusals that close it, however slowly the server reads them.
            for _ in range(10 * frames.MAX_REFUSED + frames.BURST):
                ws.send(json.dumps({"type": "catalog"}))
        except ConnectionClosed:
            pass
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                answers.append(json.loads(ws.recv(timeout=WAIT_MS / 1000))["type"])
    assert closed.value.rcvd is not None and closed.value.rcvd.code == web_app.POLICY_VIOLATION
    assert answers.count("error") == frames.MAX_REFUSED - 1 and "catalog" in answers
