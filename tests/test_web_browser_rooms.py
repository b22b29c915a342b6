"""Rooms of people in a real browser: pages in separate browser contexts (separate people) create a room, join it by
its invite link as players or as a spectator, and play a hand by clicking. Each page shows its own hand only, a
reload gets the seat back, a spectator sees no hand while it is live, and a member who closes their page on their
turn has it played by the bot after the server's (short) turn timeout. Every wait is on what a page shows.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from tests.web_pages import ANSWERED, MOST_CLICKS, READY, VALUES, Pages, chromium_or_skip, launched, shown_cards

CHROMIUM = chromium_or_skip()

from gin_env import agents  # noqa: E402
from gin_env.game.rules import Rules  # noqa: E402
from gin_env.web import app as web_app  # noqa: E402
from tests.web_server import running  # noqa: E402

pytestmark = pytest.mark.browser

#: The server's wait on an away member's turn: short, so that the bot's late turn comes soon.
TURN_TIMEOUT_S = 2.0
#: The bot the rooms seat for late turns.
BOT = "simple-v1"
#: Who acts, as a room's state line says it ("Room standard, 2 players, playing · ann to act · ...").
TO_ACT = re.compile(r" · (.+?) to act")
HAND_SIZE = Rules.preset("standard").deck.hand_size


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(tmp_path_factory.mktemp("served") / "replays")


@pytest.fixture(scope="module")
def server(folder):
    os.mkdir(folder)
    config = web_app.ServeConfig(agents={BOT: agents.load(BOT)}, replays=folder, turn_timeout_s=TURN_TIMEOUT_S)
    with running(config) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with launched(CHROMIUM) as chromium:
        yield chromium


@pytest.fixture
def pages(browser, server):
    opened = Pages(browser, server)
    yield opened
    opened.close()


def create_room(page, name: str) -> str:
    """Create a room of two players for one hand from the Rooms screen; its invite link."""
    page.click("#tab-rooms")
    page.select_option("#room-rules", "standard")
    page.select_option("#room-players", "2")
    page.select_option("#room-episode", "hand")
    page.select_option("#room-bot", BOT)
    page.fill("#room-name", name)
    page.click("#room-create-start")
    page.wait_for_selector("#room-panel:not([hidden])")
    return page.input_value("#room-link")


def join_room(pages: Pages, link: str, name: str, role: str = "player"):
    """A new person opens the invite link and joins as ``role``; their page."""
    page = pages.open(fragment=link.split("#", 1)[1])
    page.wait_for_selector("#room-join:not([hidden])")
    page.fill("#room-join-name", name)
    page.select_option("#room-join-role", role)
    page.click("#room-join-start")
    page.wait_for_selector("#room-panel:not([hidden])")
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('You ')")
    return page


def start(page) -> None:
    marker = page.query_selector("#room-members > *")
    page.click("#room-start")
    page.wait_for_selector("#room-table:not([hidden])")
    page.wait_for_function("m => !m.isConnected", arg=marker)


def hand_of(page) -> list[str]:
    return sorted(shown_cards(page, "#room-hand"))


def log_of(page) -> str:
    return page.text_content("#room-log")


#: A page's moves as a spectator reads them: its member's own "you discard 7S" as "ann discards 7S".
AS_PUBLIC = """(name) => Array.from(document.querySelectorAll('#room-log li'), (li) => name === null ? li.textContent
    : li.textContent.replace(/^you (\\w+)/, (_, v) => name + ' ' + v + (v.endsWith('s') ? 'es' : 's'))).join('\\n')"""


def in_step(pages: dict, last) -> None:
    """Wait until every page (by its member's name) shows the moves the page ``last`` (which made the last move)
    shows, as a spectator reads them: each has drawn the room's last change."""
    log = last.evaluate(AS_PUBLIC, pages[last])
    for page, name in pages.items():
        page.wait_for_function(f"log => ({AS_PUBLIC})({json.dumps(name)}) === log", arg=log)


def check_private(players: dict, spectator) -> None:
    """Each player's page shows its own hand and of the other's only the cards known to both (taken from the
    pile); the spectator's page shows no hand and of the players' hands only those known cards."""
    hands = {name: set(hand_of(page)) for name, page in players.items()}
    known = {name: set(shown_cards(page, "#room-opponent")) for name, page in players.items()}
    for name, page in players.items():
        assert HAND_SIZE <= len(hands[name]) <= HAND_SIZE + 1, hands[name]
        others = set().union(*(hands[n] for n in players if n != name))
        assert set(shown_cards(page)) & others <= known[name], name
    assert not shown_cards(spectator, "#room-hand") and not spectator.query_selector("#room-table .groups")
    assert set(shown_cards(spectator)) & set().union(*hands.values()) <= set().union(*known.values())


def moves_of(page) -> list[str]:
    return page.eval_on_selector_all("#room-log li", "items => items.map(i => i.textContent)")


def click_move(page, end: bool = True) -> None:
    """The person at ``page`` makes a move as a person would (a knock or gin when offered and ``end``, else the
    biggest deadwood card, else the first move) and waits for the answer, which is no error."""
    buttons = page.query_selector_all("#room-moves button")
    enders = ("declare big gin", "go gin", "knock") if end else ()
    target = next((b for b in buttons if enders and b.text_content().startswith(enders)), None)
    cards = page.query_selector_all("#room-hand .playable")
    if target is None and cards:
        target = max(cards, key=lambda c: VALUES.get(c.get_attribute("data-card")[0], -1))
    marker = page.query_selector("#room-scores > *")
    (target or buttons[0]).click()
    page.wait_for_function(ANSWERED, arg=marker)
    assert page.is_hidden("#error"), page.text_content("#error")


def hand_over(page) -> bool:
    return bool(page.text_content("#room-result")) or not page.is_hidden("#room-next")


def to_act(page) -> str | None:
    said = TO_ACT.search(page.text_content("#room-state"))
    return said[1] if said else None


def reload_seat(page) -> None:
    """Reload the page, as a person would after losing it: it asks for its seat back with its token."""
    page.reload()
    page.wait_for_function(READY)
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('You play')")
    page.wait_for_selector("#room-hand .card")


def test_two_people_and_a_spectator_play_a_hand_each_seeing_only_what_they_may(pages, folder):
    ann = pages.open()
    link = create_room(ann, "ann")
    bob = join_room(pages, link, "bob")
    eve = join_room(pages, link, "eve", role="spectator")
    assert eve.is_hidden("#room-start")
    start(ann)
    players, last, reloaded = {"ann": ann, "bob": bob}, ann, None
    for _ in range(MOST_CLICKS):
        in_step({ann: "ann", bob: "bob", eve: None}, last)
        if hand_over(last):
            break
        check_private(players, eve)
        name = to_act(eve)
        if reloaded is None and name == "ann" and log_of(last):
            # Bob loses his page while Ann thinks; the reload gets him his seat and his hand back.
            reloaded = hand_of(bob)
            reload_seat(bob)
            assert hand_of(bob) == reloaded
        players[name].wait_for_selector("#room-moves button")
        click_move(players[name])
        last = players[name]
    else:
        raise AssertionError(f"the room's hand did not end in {MOST_CLICKS} moves")
    assert reloaded is not None
    for page in (ann, bob, eve):
        # Once the hand is over, everyone (the spectator too) sees both hands shown down.
        page.wait_for_selector("#room-showdown .showdown")
        assert all(f"{n}: deadwood" in page.text_content("#room-showdown") for n in players)
    saved = [n for n in os.listdir(folder) if "-room-" in n]
    assert len(saved) == 1, saved
    with open(os.path.join(folder, saved[0]), encoding="utf-8") as file:
        assert set(json.load(file)["members"]) == {"ann", "bob"}


def test_a_member_who_closes_the_page_on_their_turn_has_it_played_by_the_bot(pages):
    ann = pages.open()
    bob = join_room(pages, create_room(ann, "ann"), "bob")
    start(ann)
    for _ in range(MOST_CLICKS):
        if to_act(ann) == "bob":
            break
        ann.wait_for_selector("#room-moves button")
        # Ann never ends the hand here: Bob's turn must come.
        click_move(ann, end=False)
    else:
        raise AssertionError("Bob's turn never came")
    assert not any(move.startswith(BOT) for move in moves_of(ann))
    bob.close()
    ann.wait_for_function("() => document.getElementById('room-members').textContent.includes('bob (away)')")
    # After the timeout the bot plays Bob's turn: Ann acts next, or the bot's move ended the hand.
    ann.wait_for_function("() => document.querySelector('#room-moves button') !== null || "
                          "document.getElementById('room-result').textContent !== ''")
    assert any(move.startswith(BOT) for move in moves_of(ann)), moves_of(ann)
