"""What people see of a game with jokers (docs/rules.md section 17): the text render draws a joker as ``JK`` in its
own colour and a run joker with the card it stands for (R62, R65, R73), the showdown shows the knocker's declared run
jokers and the defender's laid-off ones (R73, R74, R76), the RGB frame draws a joker face unlike every natural card,
and the terminal game reads ``JK`` for the joker actions (R72). No render ever tells one joker from the other (R72)."""

from __future__ import annotations

import io
import re

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("rich", reason="the terminal game needs the play extra: pip install 'gin-env[play]'")

from rich.console import Console

import gin_env  # noqa: F401 - registers GinRummy-v0
from gin_env.game import actions, cards, engine
from gin_env.game.rules import Rules
from gin_env.replay.replay_file import load
from gin_env.ui import frame, render, terminal, viewer
from gin_env.ui.commands import CommandError, command, help_text, parse_command
from tests.scripted import act, make_deck

JOKERS = Rules.preset("jokers")
FIRST, SECOND = JOKERS.deck.joker_ids
#: X13's hands: the knocker holds ``5S 6S JK`` and one more joker to knock with; the defender lays off on a run that
#: its declaration JK=4S leaves no room for (R73). The non-dealer (seat 0) takes the upcard AD and knocks.
X13_KNOCKER, X13_DEFENDER, X13_UPCARD = "5S 6S JK 9H 9D 9C 2C 3C 4C JK", "4S 8S KH KD KC 2H 3H 4H 7D TC", "AD"
#: A card id written as a number: what no line a person reads may hold for a joker (R72).
JOKER_ID = re.compile(rf"\b({FIRST}|{SECOND})\b")


def mask(text: str) -> int:
    return cards.to_mask(JOKERS.deck.parse(text))


def swap_jokers(ids):
    """The same cards with the two jokers' ids exchanged: a deal no player can tell from the first (R72)."""
    return [{FIRST: SECOND, SECOND: FIRST}.get(c, c) for c in ids]


def ansi(text) -> str:
    """A rich text as a colour terminal gets it, escape codes and all."""
    console = Console(file=io.StringIO(), width=160, force_terminal=True, color_system="truecolor")
    console.print(text)
    return console.file.getvalue()


def new_console() -> Console:
    return Console(file=io.StringIO(), width=120, color_system=None, highlight=False)


def x13_hand() -> engine.HandState:
    return engine.new_hand(JOKERS, dealer=1, deck=make_deck(X13_KNOCKER, X13_DEFENDER, X13_UPCARD, rules=JOKERS))


# ---------------------------------------------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("hand, expected", [
    ("5S 6S JK 9H 9D 9C 2C 3C 4C AD", "[2C 3C 4C]  [5S 6S JK=7S]  [9H 9D 9C]  AD   deadwood 1"),
    ("7S 7H JK 2C 3C 4C 5C 9D TD QD", "[2C 3C 4C 5C]  [9D TD JK=JD QD]  7S 7H   deadwood 14"),
    ("7S 7H JK JK 9D TD 2C 4S KH 5C", "[7S 7H JK]  [9D TD JK=JD]  2C 4S 5C KH   deadwood 21"),
    ("JK 2C 6D 9S KH 4H QS 8C TH 5C", "2C 4H 5C 6D 8C 9S TH QS KH JK   deadwood 84"),
])
def test_a_hand_with_jokers_shows_set_jokers_bare_run_jokers_declared_and_loose_jokers_last(hand, expected):
    """R62, R65, R68: X11a, X12a and X16's holdings as the terminal game and the viewer draw them; a set joker is a
    bare ``JK``, a run joker ``JK=`` the card it stands for, an unmelded joker after every natural card."""
    assert render.hand(mask(hand), JOKERS).plain == expected


def test_a_joker_is_drawn_in_its_own_colour_and_never_by_its_id():
    """R62, R72: a joker is ``JK`` in a colour no suit has, and a holding with one joker draws the same bytes
    whichever joker it is."""
    assert render.JOKER_STYLE not in render.SUIT_STYLES
    assert render.card(FIRST).style == render.card(SECOND).style == render.JOKER_STYLE
    hand = JOKERS.deck.parse("5S 6S JK 9H 9D 9C 2C 3C 4C AD")
    drawn = ansi(render.hand(cards.to_mask(hand), JOKERS))
    assert drawn == ansi(render.hand(cards.to_mask(swap_jokers(hand)), JOKERS))
    assert "JK" in drawn and not JOKER_ID.search(drawn)


def test_a_showdown_shows_the_knockers_run_joker_with_its_declared_identity():
    """R73, R74 (X13): the knocker's ``5S 6S JK`` is declared 4S-6S, which blocks the defender's 4S and 8S; the text
    shows ``JK=4S`` where the engine scored it, and the knock card, a joker, face down as ``JK``."""
    final = act(x13_hand(), "TAKE_DISCARD", "KNOCK(JK)")
    assert dict(engine.score_knock(final.hands[0], final.hands[1], JOKERS).identities) == {SECOND: cards.card("4S")}
    assert [line.plain for line in render.showdown(final, ("you", "simple"))] == [
        "You knock with JK face down:",
        "  you     [2C 3C 4C]  [JK=4S 5S 6S]  [9H 9D 9C]  AD   deadwood 1",
        "  simple  [2H 3H 4H]  [KH KD KC]  4S 7D 8S TC   deadwood 29",
        "You score simple's deadwood 29 - your 1 = 28.",
    ]


def test_a_showdown_shows_the_defenders_joker_laid_off_and_the_chain_through_it():
    """R76 (X14): the defender lays off its joker as the 8H on 5H-7H and the 9H after it, the QH and the clubs; the
    knocker's meld shows ``+JK=8H +9H`` and the layoffs list the joker with its identity."""
    hand = engine.new_hand(JOKERS, dealer=1, deck=make_deck("5H 6H 7H QC QD QS 2C 3C 4C TD",
                                                             "JK 9H 5C AC KD KH KS 3D 2S QH", "6D", rules=JOKERS))
    final = act(hand, "TAKE_DISCARD", "KNOCK(TD)")
    assert [line.plain for line in render.showdown(final, ("you", "simple"))] == [
        "You knock with TD face down:",
        "  you     [2C 3C 4C +AC +5C]  [5H 6H 7H +JK=8H +9H]  [QS QD QC +QH]  6D   deadwood 6",
        "  simple  [KS KH KD]  2S 3D   deadwood 5   laid off: AC 5C JK=8H 9H QH",
        "Undercut: simple's deadwood 5 is not more than your 6, so simple scores 6 - 5 + 10 undercut bonus = 11.",
    ]


def test_moves_with_a_joker_are_told_as_jk():
    """R70, R72: discarding or knocking with a joker is told with ``JK``, whichever joker the action moves."""
    state = act(x13_hand(), "TAKE_DISCARD")
    assert render.move(state, actions.DISCARD_JOKER, "simple", reveal=False).plain == "simple discards JK"
    assert render.move(state, actions.KNOCK_JOKER, "you", reveal=False).plain == "You knock, putting JK face down"


# ---------------------------------------------------------------------------------------------------------------
# RGB frames
# ---------------------------------------------------------------------------------------------------------------

def face(card_id: int) -> np.ndarray:
    img = np.zeros((frame.CARD_H, frame.CARD_W, 3), dtype=np.uint8)
    frame.card_face(img, 0, 0, card_id)
    return img


def has_colour(img: np.ndarray, colour) -> bool:
    return bool((img == colour).all(axis=-1).any())


def test_a_joker_face_differs_from_every_natural_card_and_both_jokers_look_alike():
    """R62, R72: the joker face (``JK`` and stars in the joker colour) is unlike each of the 52 natural faces, in
    pixels and in colour, and the two jokers draw the same face."""
    jokers = [face(c) for c in JOKERS.deck.joker_ids]
    assert np.array_equal(jokers[0], jokers[1]) and has_colour(jokers[0], frame.JOKER_COLOUR)
    for c in range(JOKERS.deck.n_naturals):
        natural = face(c)
        assert not np.array_equal(natural, jokers[0]), cards.card_str(c)
        assert not has_colour(natural, frame.JOKER_COLOUR), cards.card_str(c)


def test_the_frame_draws_the_viewers_jokers_and_hides_the_opponents_until_the_showdown():
    """R72: a table drawn from either joker's deal is the same picture; the viewer's jokers are face up, the
    opponent's face down while the hand is in play and face up at the showdown."""
    deck = make_deck(X13_KNOCKER, X13_DEFENDER, X13_UPCARD, rules=JOKERS)
    names = ("LEARNER", "OPPONENT")
    viewer_rows = slice(frame.VIEWER_ROW, frame.VIEWER_ROW + frame.CARD_H)
    opponent_rows = slice(frame.OPPONENT_ROW, frame.OPPONENT_ROW + frame.CARD_H)
    for seat in (0, 1):
        state = engine.new_hand(JOKERS, dealer=1, deck=deck)
        picture = frame.draw(state, seat, names)
        assert np.array_equal(picture, frame.draw(engine.new_hand(JOKERS, dealer=1, deck=swap_jokers(deck)), seat,
                                                  names))
        assert has_colour(picture[viewer_rows], frame.JOKER_COLOUR) == (seat == 0)
        assert not has_colour(picture[opponent_rows], frame.JOKER_COLOUR)
    final = act(engine.new_hand(JOKERS, dealer=1, deck=deck), "TAKE_DISCARD", "KNOCK(9H)")
    assert has_colour(frame.draw(final, 1, names)[opponent_rows], frame.JOKER_COLOUR)


def test_the_env_renders_rgb_frames_of_a_jokers_game():
    """R62: ``GinRummy-v0`` under the ``jokers`` preset draws every step, the joker face among the learner's cards
    exactly while the learner holds a joker (which it does at some step of this seeded episode)."""
    env = gym.make("GinRummy-v0", render_mode="rgb_array", rules="jokers", opponent="simple")
    table, rows = env.unwrapped.table, slice(frame.VIEWER_ROW, frame.VIEWER_ROW + frame.CARD_H)
    rng = np.random.default_rng(5)
    env.reset(seed=5)
    held, done = [], False
    while not done:
        picture, scene = env.render(), table.scene(env.unwrapped.learner)
        held.append(bool(scene.state.hands[scene.player] & JOKERS.deck.joker_mask))
        assert picture.shape == (frame.HEIGHT, frame.WIDTH, 3)
        assert has_colour(picture[rows], frame.JOKER_COLOUR) == held[-1]
        action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        _, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    assert any(held) and not all(held)


# ---------------------------------------------------------------------------------------------------------------
# The terminal game
# ---------------------------------------------------------------------------------------------------------------

def test_jk_names_the_joker_actions_and_command_inverts_it():
    """R72: ``JK`` discards a joker (108) and ``k JK`` knocks with one (109), whichever joker is held; ``command``
    writes them back."""
    state = act(x13_hand(), "TAKE_DISCARD")
    assert parse_command("jk", state) == actions.parse("DISCARD(JK)") == actions.DISCARD_JOKER
    assert parse_command("k JK", state) == actions.parse("KNOCK(JK)") == actions.KNOCK_JOKER
    for a in engine.legal_actions(state):
        assert parse_command(command(a), state) == a


@pytest.mark.parametrize("text, state_of, message", [
    ("JK", lambda: act(x13_hand(), "PASS", "PASS"), "Take a card first: draw from the stock (d)."),
    ("JK", lambda: engine.new_hand(Rules.preset("standard"), np.random.default_rng(0)),
     "There are no jokers (JK) under the standard rules."),
    ("k JK", lambda: act(engine.new_hand(JOKERS, dealer=1, deck=make_deck(
        "5S 6S 7S 9H 9D 9C 2C 3C 4C QD", "4S 8S KH KD KC 2H 3H 4H 7D TC", "AD", rules=JOKERS)), "TAKE_DISCARD"),
     "You don't hold a joker (JK)."),
    ("JK", lambda: act(engine.new_hand(JOKERS, dealer=1, deck=make_deck(
        "5S 6S JK 9H 9D 9C 2C 3C 4C QD", "4S 8S KH KD KC 2H 3H 4H 7D TC", "JK", rules=JOKERS)), "TAKE_DISCARD"),
     "You just took a joker from the discard pile: neither joker can leave your hand this turn (R16, R71)."),
    ("9Z", lambda: act(x13_hand(), "TAKE_DISCARD"), "(ranks A23456789TJQK, suits SHDC), or JK for a joker."),
])
def test_bad_joker_commands_get_a_one_line_explanation(text, state_of, message):
    """R71, R72: a joker command that cannot be played now says why, in one line."""
    with pytest.raises(CommandError) as err:
        parse_command(text, state_of())
    assert message in str(err.value) and "\n" not in str(err.value)


def test_the_help_names_jk_only_under_rules_that_deal_jokers():
    """R72: ``JK`` and ``k JK`` are in the help under the ``jokers`` preset, and the standard help is as before."""
    with_jokers, standard = help_text(JOKERS).splitlines(), help_text(Rules.preset("standard")).splitlines()
    assert [line for line in with_jokers if line not in standard] == [
        "  JK      discard a joker (every joker is alike: R71, R72)", "  k JK    knock, putting a joker face down"]
    assert not any("JK" in line for line in standard)


def test_a_scripted_hand_where_the_person_types_jk_knocks_with_a_joker():
    """R72, R73: the person types ``JK`` too early (explained), takes the upcard and knocks with ``k JK``; the
    showdown shows the other joker declared as the 4S, and no line holds a joker's id."""
    console = new_console()
    lines = ["JK", "t", "k JK"]

    def input_fn(prompt: str) -> str:
        if not lines:
            raise EOFError
        console.print(prompt + lines[0], markup=False)
        return lines.pop(0)

    game = terminal.TerminalGame("simple", JOKERS.replace(target=None), input_fn, console, seed=0)
    game.table.deal(np.random.default_rng(0), deck=make_deck(X13_KNOCKER, X13_DEFENDER, X13_UPCARD, rules=JOKERS),
                    dealer=1)
    final = game.run()
    out = console.file.getvalue()
    expected = [
        "Upcard AD, knock limit 10.",
        "Stock 33 · discard pile AD (1 card)",
        "you: [2C 3C 4C JK=5C]  [5S 6S JK=7S]  [9H 9D 9C]   deadwood 0",
        "Take the upcard AD (t) or pass (p) > JK",
        "Take a card first: take the upcard AD (t) or pass (p).",
        "Take the upcard AD (t) or pass (p) > t",
        "you: [2C 3C 4C JK=5C]  [5S 6S JK=7S]  [9H 9D 9C]  AD   deadwood 0 after the best discard",
        "You may knock: k 9H leaves deadwood 1.",
        "Discard (card) or knock (k card) > k JK",
        "You knock with JK face down:",
        "  you     [2C 3C 4C]  [JK=4S 5S 6S]  [9H 9D 9C]  AD   deadwood 1",
        "  simple  [2H 3H 4H]  [KH KD KC]  4S 7D 8S TC   deadwood 29",
        "You score simple's deadwood 29 - your 1 = 28.",
        "Score: you 28, simple 0.",
        "Game over: you won, 28 to 0.",
        "Hands won: you 1, simple 0. Final totals with the end-of-game bonuses (R41-R43): you 28, simple 0.",
    ]
    shown = out.splitlines()
    assert shown[shown.index(expected[0]):] == expected
    assert final.over and final.history[0].knock_card == FIRST
    assert not JOKER_ID.search(out)


def test_a_whole_jokers_game_is_played_through_the_commands_and_its_replays_show(tmp_path):
    """R62-R78: the simple agent plays the person's seat by typing the commands (``JK`` for a joker action) to the
    target, the jokers drawn as ``JK`` on the way; every saved replay shows in the viewer."""
    console = new_console()
    agent, rng, ref = gin_env.agents.load("simple"), np.random.default_rng(0), []

    def input_fn(prompt: str) -> str:
        text = command(agent.act(ref[0].table.agent_view(0), rng))
        console.print(prompt + text, markup=False)
        return text

    game = terminal.TerminalGame("simple", "jokers", input_fn, console, seed=2, save_replays=tmp_path)
    ref.append(game)
    final = game.run()
    assert final.over and max(final.scores) >= JOKERS.target
    assert "JK" in console.file.getvalue()
    replays = sorted(tmp_path.glob("*.json"))
    assert len(replays) == len(final.history)
    for path in replays:
        shown, replay = new_console(), load(path)
        viewer.show(replay, shown)
        outcome = replay.states()[-1].outcome
        said = f"deadwood {outcome.defender_deadwood}" if outcome.kind != "dead" else "dead hand, nobody scores"
        assert said in shown.file.getvalue()
