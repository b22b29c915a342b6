"""What the browser tests share: the skip that names what is missing, Debian's chromium launched by Playwright,
pages of a live server opened in fresh browser contexts that must end with no script or console error, and the
cards a page shows read back as card text.

Nothing here reads the page's script state or asserts on seconds: every wait is on what the page shows, with
:data:`WAIT_MS` as a bound generous enough for 2 busy cores.
"""

from __future__ import annotations

import contextlib
import re
import shutil
from collections.abc import Iterator

import pytest

#: A card as the page may show it: rank and suit, a joker "JK", a run joker "JK=7S"; never an id.
CARD = re.compile(r"^([2-9TJQKA][SHDC]|JK(=[2-9TJQKA][SHDC])?)$")
#: How long a page condition may take before the test fails (a wait, never an assertion).
WAIT_MS = 60_000
#: Each rank's deadwood value, for choosing a discard as a person would (the biggest deadwood card first).
VALUES = {**{str(n): n for n in range(2, 10)}, "A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}
#: The most clicks a test hand may take: more than any hand's turns (the turn cap ends one sooner).
MOST_CLICKS = 400
#: The page has drawn a game frame since ``marker`` (a child of ``#scores`` or ``#room-scores``, which every game
#: frame redraws), or shows an error.
ANSWERED = "m => !m.isConnected || !document.getElementById('error').hidden"
#: The page is connected and has drawn the server's catalog (its forms offer the agents).
READY = "() => document.getElementById('play-agent').options.length > 0"


def chromium_or_skip() -> str:
    """The path of Debian's chromium; the calling test module is skipped, naming what is missing, when the web
    extra, Playwright or chromium is not installed."""
    for module in ("starlette", "uvicorn", "websockets"):
        pytest.importorskip(module, reason="the web extra: pip install 'gin-env[web]'")
    pytest.importorskip("playwright", reason="needs playwright (the test extra: pip install 'gin-env[test]')")
    path = shutil.which("chromium")
    if path is None:
        pytest.skip("the browser tests drive Debian's chromium, which is not on PATH: install Debian's chromium: "
                    "apt-get install chromium", allow_module_level=True)
    return path


@contextlib.contextmanager
def launched(path: str) -> Iterator:
    """Chromium at ``path``, headless, driven by Playwright (which cannot download its own browsers here)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=path)
        try:
            yield browser
        finally:
            browser.close()


class Pages:
    """Pages of the server at ``url`` in ``browser``, each in a fresh context (its own cookies and storage: another
    person); :meth:`close` closes them and fails on any script error, console error or dialog they showed."""

    def __init__(self, browser, url: str) -> None:
        self.browser, self.url = browser, url
        self.contexts, self.problems = [], []

    def open(self, fake_clock: bool = False, before=None, fragment: str = ""):
        """A page of the server (at ``#fragment`` when given) in a new context, ready once it shows the catalog.
        ``fake_clock``: the page's timers run only when the test moves its clock; ``before`` is called with the
        page before it loads."""
        context = self.browser.new_context()
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("pageerror", lambda err: self.problems.append(f"page error: {err}"))
        page.on("console", lambda msg: self.problems.append(f"console {msg.type}: {msg.text}")
                if msg.type == "error" else None)
        page.on("dialog", lambda dialog: self.problems.append(f"dialog: {dialog.message}"))
        if fake_clock:
            page.clock.install()
        if before is not None:
            before(page)
        page.goto(self.url + (f"/#{fragment}" if fragment else ""))
        page.wait_for_function(READY)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()
        assert not self.problems, self.problems


def shown_cards(page, within: str = "body") -> list[str]:
    """Every card the page shows inside ``within``, as its ``data-card`` text; each one checked to be card text,
    a joker's face "JK" whatever it stands for (R72)."""
    cards = page.eval_on_selector_all(f"{within} .card", "cards => cards.map(c => [c.dataset.card, "
                                                         "c.querySelector('.rank').textContent])")
    bad = [text for text, _ in cards if not CARD.match(text)]
    assert not bad, f"cards shown as other than card text: {bad}"
    faces = [face for text, face in cards if text.startswith("JK")]
    assert set(faces) <= {"JK"}, faces
    return [text for text, _ in cards]


# ---------------------------------------------------------------------------------------------------------------
# The Play screen, clicked as a person would
# ---------------------------------------------------------------------------------------------------------------

def click(page, target) -> None:
    """Click ``target`` (an element of the Play screen) and wait until the page has drawn the server's answer;
    the answer must be no error."""
    assert page.is_hidden("#error"), page.text_content("#error")
    marker = page.query_selector("#scores > *")
    target.click()
    page.wait_for_function(ANSWERED, arg=marker)
    assert page.is_hidden("#error"), page.text_content("#error")


def deal(page, agent: str, rules: str, players: int, episode: str, name: str = "you") -> None:
    """Fill in the Play form and deal; waits for the first game frame."""
    page.click("#tab-play")
    page.select_option("#play-agent", agent)
    page.select_option("#play-rules", rules)
    page.select_option("#play-players", str(players))
    page.select_option("#play-episode", episode)
    page.fill("#play-name", name)
    marker = page.query_selector("#scores > *")
    page.click("#play-start")
    if marker is None:
        page.wait_for_selector("#scores > *")
    else:
        page.wait_for_function(ANSWERED, arg=marker)
    assert page.is_hidden("#error"), page.text_content("#error")


def check_hand(page) -> None:
    """The hand on screen: grouped into melds and deadwood, the deadwood figure the deadwood group's."""
    groups = page.query_selector_all("#hand .group")
    assert groups, "the hand is not shown"
    caption = page.text_content("#hand .deadwood-group .caption")
    assert caption == f"deadwood {page.text_content('#deadwood')}"
    shown_cards(page, "#hand")


def choose(page):
    """The element a person clicks for their move: a knock or gin when offered, else the hand's biggest
    deadwood card that may be discarded, else the first move (a draw, a take, a pass)."""
    buttons = page.query_selector_all("#moves button")
    assert buttons, "the person's turn shows no move"
    for button in buttons:
        if button.text_content().startswith(("declare big gin", "go gin", "knock")):
            return button
    cards = page.query_selector_all("#hand .playable")
    if cards:
        # A joker is worth keeping: it is the last card a person gives away.
        return max(cards, key=lambda c: VALUES.get(c.get_attribute("data-card")[0], -1))
    return buttons[0]


def play_to_hand_end(page) -> list[str]:
    """Click the person's moves until the hand (deal) ends; every card text seen on the way."""
    seen = []
    for _ in range(MOST_CLICKS):
        seen += shown_cards(page)
        if not page.is_hidden("#next") or page.text_content("#result"):
            return seen
        check_hand(page)
        click(page, choose(page))
    raise AssertionError(f"the hand did not end in {MOST_CLICKS} clicks")


def check_showdown(page, names: tuple[str, ...]) -> None:
    """The showdown on screen: a heading, each named player's arrangement and deadwood, the reason in words."""
    page.wait_for_selector("#showdown .showdown")
    text = page.text_content("#showdown .showdown")
    for name in names:
        assert f"{name}: deadwood" in text, (name, text)
    assert page.text_content("#showdown .showdown h3")
    assert page.text_content("#showdown .showdown .reason")
    shown_cards(page, "#showdown")


def next_hand(page) -> None:
    """Go on to the next hand of a match, or deal again when the game is over."""
    if page.text_content("#result"):
        marker = page.query_selector("#scores > *")
        page.click("#play-start")
        page.wait_for_function(ANSWERED, arg=marker)
    else:
        click(page, page.query_selector("#next"))
