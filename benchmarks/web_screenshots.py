"""The screenshots of docs/web.md: each screen of ``gin-env serve`` in Chromium (Playwright, headless), taken from a
real server on the loopback address playing real games.

    python benchmarks/web_screenshots.py [--out docs/images] [--moves 8] [--chromium /usr/bin/chromium]

Play mid-hand with a hint (the search's values too), the showdown of a hand, Watch (two agents, every hand
shown), Replays (a hand of the Play screen, opened from the served folder, with the agents' advice) and Rooms (two
people who take turns in one seat against the bot, and the page of the room's spectator). Each picture is written
as ``web-SCREEN.png`` in ``--out``, whole or not at all. On the Play screen the person plays as the expert would (its
hint, asked each turn); the deals are the server's own, so each run shows other cards.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_web import CHROMIUM, Clicker, browser, open_page, serving, start_game  # noqa: E402  (a sibling script)

from gin_env import files  # noqa: E402

#: The page's size in the pictures: wide enough for a hand of cards on one line.
WIDTH, HEIGHT = 1100, 820
#: The agents served, each named in every hint: the first two play the Watch screen's game, the second is the room's
#: bot and the Play screen's opponent.
AGENTS = ["expert", "simple", "ppo", "search"]


def shoot(page, out: Path, screen: str) -> None:
    """The page as it is now, at ``out/web-SCREEN.png``."""
    target = out / f"web-{screen}.png"
    with files.atomic_path(target) as temporary:
        page.screenshot(path=temporary, type="png", full_page=True)
    print(f"wrote {target}")


def moves(page) -> list[str]:
    """The labels of the Play screen's move buttons."""
    return page.eval_on_selector_all("#moves button", "bs => bs.map(b => b.textContent)")


def play_as(page, clicker: Clicker, agent: str) -> bool:
    """Ask for a hint and play what ``agent`` would; False when the person has no move."""
    if not moves(page):
        return False
    clicker.click("#hint")
    action = page.get_attribute(f"#hints li:text-matches('^{agent}: ')", "data-action")
    clicker.click(f'#moves button[data-action="{action}"]')
    return True


def play_screens(page, out: Path, moves_before_hint: int) -> None:
    """Play mid-hand with a hint, then the hand played out to its showdown, the person playing as the expert would:
    a hand of a real player's melds."""
    clicker = Clicker(page)
    start_game(page, clicker, AGENTS[1], episode="hand")
    played = 0
    while played < moves_before_hint or not any(m.startswith("discard") for m in moves(page)):
        if not play_as(page, clicker, AGENTS[0]):
            start_game(page, clicker, AGENTS[1], episode="hand")
        played += 1
    page.check("#hint-search")
    clicker.click("#hint")
    page.wait_for_selector("#hints table")
    shoot(page, out, "play")
    page.uncheck("#hint-search")
    while play_as(page, clicker, AGENTS[0]):
        pass
    page.wait_for_selector("#showdown .showdown")
    shoot(page, out, "showdown")


def watch_screen(page, out: Path) -> None:
    """Two agents playing, paused after some moves."""
    page.click("#tab-watch")
    page.fill("#watch-speed", "100")
    page.dispatch_event("#watch-speed", "input")
    page.select_option("#watch-agent-0", AGENTS[0])
    page.select_option("#watch-agent-1", AGENTS[1])
    page.click("#watch-start")
    page.wait_for_function("() => document.querySelectorAll('#watch-log li').length >= 9")
    page.click("#watch-pause")
    shoot(page, out, "watch")


def replays_screen(page, out: Path) -> None:
    """The first listed replay, some points in, with the agents' advice."""
    page.click("#tab-replays")
    page.wait_for_selector("#replay-list button")
    page.click("#replay-list button")
    page.wait_for_selector("#replay-view:not([hidden])")
    for _ in range(5):
        page.click("#replay-next")
    page.click("#replay-advice-button")
    page.wait_for_selector("#replay-advice li")
    shoot(page, out, "replays")


def room_turns(pages: list, turns: int) -> None:
    """Up to ``turns`` moves in a room, each the first move offered to whichever of ``pages`` (the members) takes the
    turn, each waiting until every page shows it; fewer when the hand ends."""
    for _ in range(turns):
        movers = [p for p in pages if p.eval_on_selector_all("#room-moves button", "bs => bs.length")]
        if not movers:
            return
        # Each page words the log for its own reader ("you discard" to the mover), so each waits on its own log.
        before = [page.inner_text("#room-log") for page in pages]
        movers[0].click("#room-moves button")
        for page, text in zip(pages, before):
            page.wait_for_function("before => document.getElementById('room-log').innerText !== before", arg=text)


def rooms_screen(launched, address: str, out: Path) -> None:
    """A room of the standard rules: its host and a guest who joined by the invite link take turns in one seat
    against the bot (R58) while a spectator watches; the host's page some moves in, and the spectator's."""
    host = open_page(launched, address, WIDTH, HEIGHT)
    host.click("#tab-rooms")
    host.select_option("#room-bot", AGENTS[1])
    host.fill("#room-name", "ann")
    host.click("#room-create-start")
    host.wait_for_selector("#room-panel:not([hidden])")
    link = host.input_value("#room-link")
    guests = []
    for name, role in (("bob", "player"), ("carol", "spectator")):
        guest = open_page(launched, link, WIDTH, HEIGHT)
        guest.wait_for_selector("#room-join:not([hidden])")
        guest.fill("#room-join-name", name)
        guest.select_option("#room-join-role", role)
        if role == "player":
            guest.select_option("#room-join-seat", "0")
        guest.click("#room-join-start")
        guest.wait_for_selector("#room-panel:not([hidden])")
        guests.append(guest)
    host.wait_for_function("() => document.getElementById('room-members').innerText.includes('1 watching')")
    host.click("#room-start")
    host.wait_for_selector("#room-table:not([hidden])")
    room_turns([host, guests[0]], 6)
    shoot(host, out, "rooms")
    shoot(guests[1], out, "rooms-spectator")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs" / "images"),
                        help="the folder of the pictures (default docs/images)")
    parser.add_argument("--moves", type=int, default=8, help="the person's moves before the Play screen's picture "
                                                             "(default 8)")
    parser.add_argument("--chromium", default=CHROMIUM, help=f"the browser (default {CHROMIUM})")
    args = parser.parse_args(argv)
    out = Path(args.out)
    try:
        files.check_output_folder(out, "--out")
    except (OSError, ValueError) as err:
        parser.error(str(err))
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as replays, serving(AGENTS, replays) as address, \
            browser(args.chromium) as launched:
        page = open_page(launched, address, WIDTH, HEIGHT)
        play_screens(page, out, args.moves)
        watch_screen(page, out)
        replays_screen(page, out)
        rooms_screen(launched, address, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
