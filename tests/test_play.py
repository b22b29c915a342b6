"""The terminal game, driven by scripted input: explanations for bad input, the showdown, whole games to the target,
no peeking at the opponent's cards, replays of what was played, and the command line."""

from __future__ import annotations

import io
import re
import sys

import numpy as np
import pytest

pytest.importorskip("rich", reason="the terminal game needs the play extra: pip install 'gin-env[play]'")

from rich.console import Console

from gin_env import agents
from gin_env.game import actions, cards, engine, match
from gin_env.game.rules import Rules
from gin_env.replay import replay_file as replay
from gin_env.ui import play, render, terminal
from gin_env.ui.commands import CommandError, command, parse_command
from tests.scripted import act, make_deck

PROMPT_END = " > "
CARD_TOKEN = re.compile(r"\b[A2-9TJQK][SHDC]\b")
#: The first line of a showdown, where the opponent's cards are shown at last.
SHOWDOWN = re.compile(r"^(simple knocks with|You knock with|simple goes gin|You go gin|.*dead hand)", re.MULTILINE)


def new_console() -> Console:
    return Console(file=io.StringIO(), width=120, color_system=None, highlight=False)


def scripted(console: Console, lines):
    """Input that types ``lines`` in turn and echoes each after its prompt, as a terminal shows it; then EOF."""
    lines = list(lines)

    def input_fn(prompt: str) -> str:
        if not lines:
            raise EOFError
        console.print(prompt + lines[0], markup=False)
        return lines.pop(0)

    return input_fn


def autopilot(console: Console, game_ref: list, first=()):
    """Input that types ``first``, then the commands of the simple agent playing the person's cards: a whole game
    through the same commands a person types."""
    agent, rng, first = agents.load("simple"), np.random.default_rng(0), list(first)

    def input_fn(prompt: str) -> str:
        game = game_ref[0]
        text = first.pop(0) if first else command(agent.act(game.table.agent_view(0), rng))
        console.print(prompt + text, markup=False)
        return text

    return input_fn


def run_auto(seed: int, rules="standard", first=(), save_replays=None):
    console = new_console()
    ref = []
    game = terminal.TerminalGame("simple", rules, autopilot(console, ref, first), console, seed, save_replays)
    ref.append(game)
    return game, game.run(), console.file.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# Commands and their explanations
# ---------------------------------------------------------------------------------------------------------------

#: P1 is the non-dealer holding 10 deadwood (KC); the upcard 3D; the stock starts 2C.
HAND = make_deck("AS 2S 3S 4H 5H 6H 7C 7D 7S KC", "4S 7H 8C 9C JD QD KH 2H 5C 9S", "3D", "2C")


def offer():
    return engine.new_hand(Rules(), dealer=1, deck=HAND)


@pytest.mark.parametrize("text, state_of, message", [
    ("", offer, "Type a command: a card to discard"),
    ("xyz", offer, "Unknown command 'xyz': type a card to discard (e.g. TD), d, t, p, k TD, g, q, or h for help."),
    ("d now", offer, "Unknown command 'd now'"),
    ("9Z", offer, "'9Z' is not a card: write rank then suit"),
    ("k", offer, "Say which card to knock with, e.g. k TD"),
    ("d", offer, "Not yet: take the upcard 3D (t) or pass (p)."),
    ("KC", offer, "Take a card first: take the upcard 3D (t) or pass (p)."),
    ("g", offer, "Big gin is not played under the custom rules."),
    ("t", lambda: act(offer(), "PASS", "PASS"),
     "Both players passed on the upcard, so it can't be taken now: draw from the stock (d)."),
    ("p", lambda: act(offer(), "PASS", "PASS"), "You can pass only on the upcard or at the wall: draw from the stock"),
    ("d", lambda: act(offer(), "TAKE_DISCARD"), "You already hold 11 cards: discard one (e.g. TD) or knock (k TD)."),
    ("3D", lambda: act(offer(), "TAKE_DISCARD"),
     "You just took 3D from the discard pile: it can't leave your hand this turn (R16)."),
    ("k 3D", lambda: act(offer(), "TAKE_DISCARD"), "You just took 3D from the discard pile"),
    ("QH", lambda: act(offer(), "TAKE_DISCARD"), "You don't hold QH."),
    ("k 7S", lambda: act(offer(), "TAKE_DISCARD"),
     "You can't knock with 7S: that leaves deadwood 27, over the knock limit 10."),
])
def test_bad_commands_get_a_one_line_explanation(text, state_of, message):
    with pytest.raises(CommandError) as err:
        parse_command(text, state_of())
    assert message in str(err.value) and "\n" not in str(err.value)


def test_big_gin_needs_eleven_melded_cards_under_rules_that_have_it():
    state = act(engine.new_hand(Rules.preset("foony"), dealer=1, deck=HAND), "TAKE_DISCARD")
    with pytest.raises(CommandError, match="Big gin needs all 11 cards in melds"):
        parse_command("g", state)


@pytest.mark.parametrize("text, state_of, expected", [
    ("p", offer, "PASS"), (" T ", offer, "TAKE_DISCARD"), ("d", lambda: act(offer(), "PASS", "PASS"), "DRAW_STOCK"),
    ("kc", lambda: act(offer(), "PASS", "PASS", "DRAW_STOCK"), "DISCARD(KC)"),
    ("K KC", lambda: act(offer(), "PASS", "PASS", "DRAW_STOCK"), "KNOCK(KC)"),
    ("knock kc", lambda: act(offer(), "PASS", "PASS", "DRAW_STOCK"), "KNOCK(KC)"),
])
def test_commands_map_to_actions(text, state_of, expected):
    assert actions.name(parse_command(text, state_of())) == expected


def test_ten_may_be_written_10_and_command_inverts_parse():
    state = act(engine.new_hand(Rules(), dealer=1, deck=make_deck("TS 2S 3S 4H 5H 6H 7C 7D 7S KC",
                                                                  "4S 7H 8C 9C JD QD KH 2H 5C 9S", "3D")),
                "PASS", "PASS", "DRAW_STOCK")
    assert parse_command("10s", state) == actions.discard(cards.card("TS"))
    for a in engine.legal_actions(state):
        assert parse_command(command(a), state) == a


# ---------------------------------------------------------------------------------------------------------------
# A scripted hand
# ---------------------------------------------------------------------------------------------------------------

def test_scripted_hand_with_bad_input_explains_then_prompts_again_and_shows_the_showdown():
    console = new_console()
    lines = ["p", "t", "KC", "d", "xyz", "3D", "k 7S", "k KC"]
    game = terminal.TerminalGame("simple", Rules(target=None), scripted(console, lines), console, seed=0)
    game.table.deal(np.random.default_rng(0), deck=HAND, dealer=1)
    final = game.run()
    out = console.file.getvalue().splitlines()
    offer_prompt = "Take the upcard 3D (t) or pass (p) > "
    draw_prompt = "Draw from the stock (d) > "
    discard_prompt = "Discard (card) or knock (k card) > "
    expected = [
        "Upcard 3D, knock limit 10.",
        "Stock 31 · discard pile 3D (1 card)",
        "you: [AS 2S 3S]  [4H 5H 6H]  [7S 7D 7C]  KC   deadwood 10",
        offer_prompt + "p",
        "simple passes on the upcard 3D.",
        "Stock 31 · discard pile 3D (1 card)",
        "you: [AS 2S 3S]  [4H 5H 6H]  [7S 7D 7C]  KC   deadwood 10",
        draw_prompt + "t",
        "Both players passed on the upcard, so it can't be taken now: draw from the stock (d).",
        draw_prompt + "KC",
        "Take a card first: draw from the stock (d).",
        draw_prompt + "d",
        "You draw 2C.",
        "you: [AS 2S 3S]  [4H 5H 6H]  [7S 7D 7C]  2C KC   deadwood 2 after the best discard",
        "You may knock: k KC leaves deadwood 2.",
        discard_prompt + "xyz",
        "Unknown command 'xyz': type a card to discard (e.g. TD), d, t, p, k TD, g, q, or h for help.",
        discard_prompt + "3D",
        "You don't hold 3D.",
        discard_prompt + "k 7S",
        "You can't knock with 7S: that leaves deadwood 26, over the knock limit 10.",
        discard_prompt + "k KC",
        "You knock with KC face down:",
        "  you     [AS 2S 3S +4S]  [4H 5H 6H +7H]  [7S 7D 7C]  2C   deadwood 2",
        "  simple  2H 5C 8C 9S 9C JD QD KH   deadwood 63   laid off: 4S 7H",
        "You score simple's deadwood 63 - your 2 = 61.",
        "Score: you 61, simple 0.",
        "Game over: you won, 61 to 0.",
        "Hands won: you 1, simple 0. Final totals with the end-of-game bonuses (R41-R43): you 61, simple 0.",
    ]
    start = out.index(expected[0])
    assert out[start:] == expected
    assert final.over and match.final_totals(final) == (61, 0)


# ---------------------------------------------------------------------------------------------------------------
# Whole games
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed, rules", [(3, "standard"), (4, "oklahoma"), (5, "eaai")])
def test_whole_game_reaches_the_target_and_prints_the_final_totals(seed, rules):
    game, final, out = run_auto(seed, rules, first=["h", "zz"])
    assert final.over and max(final.scores) >= Rules.preset(rules).target
    totals = match.final_totals(final)
    assert out.rstrip().endswith(f"Final totals with the end-of-game bonuses (R41-R43): you {totals[0]}, "
                                 f"simple {totals[1]}.")
    assert f"Score: you {final.scores[0]}, simple {final.scores[1]}" in out
    assert out.count("─ Hand ") == len(final.history)
    # The help and the unknown command come before the first move, each followed by the prompt again.
    lines = out.splitlines()
    first = next(i for i, line in enumerate(lines) if line.endswith(PROMPT_END + "h"))
    assert lines[first + 1] == "Commands:"
    unknown = next(i for i, line in enumerate(lines) if line.endswith(PROMPT_END + "zz"))
    assert lines[unknown + 1].startswith("Unknown command 'zz'")
    assert lines[unknown + 2].split(PROMPT_END)[0] == lines[unknown].split(PROMPT_END)[0]


def test_the_opponents_hidden_cards_are_never_shown_before_the_showdown(tmp_path):
    game, final, out = run_auto(6, save_replays=tmp_path)
    recorded = [replay.load(f) for f in sorted(tmp_path.iterdir())]
    assert len(recorded) == len(final.history)
    revealed = False
    for r in recorded:
        last = r.states()[-1]
        face_up = last.discarded[0] | last.discarded[1] | 1 << last.initial_upcard
        hidden = last.hands[1] & ~face_up
        start = out.index(f"Hand {r.hand_number} · ")
        end = SHOWDOWN.search(out, start).start()
        hidden_cards = set(cards.to_str(hidden).split())
        assert not set(CARD_TOKEN.findall(out[start:end])) & hidden_cards, r.hand_number
        revealed |= bool(set(CARD_TOKEN.findall(out[end:out.index("Score:", end)])) & hidden_cards)
    assert revealed, "the showdowns show the opponent's cards"


def test_saved_replays_reproduce_every_hand_of_the_game(tmp_path):
    game, final, out = run_auto(7, save_replays=tmp_path / "replays")
    files = sorted((tmp_path / "replays").iterdir())
    names = [f"standard-seed7-you-vs-simple-hand{n:03d}.json" for n in range(1, len(final.history) + 1)]
    assert [f.name for f in files] == names
    loaded = [replay.load(f) for f in files]
    assert [r.outcome for r in loaded] == list(final.history)
    assert all(r.players == ("you", "simple") for r in loaded)
    assert all(str(tmp_path / "replays" / name) in out.replace("\n", "") for name in names)  # each file announced
    with pytest.raises(FileExistsError, match="not overwritten"):  # the same game again: refused before a deal
        run_auto(7, save_replays=tmp_path / "replays")


def test_same_seed_deals_the_same_cards():
    assert run_auto(8)[2] == run_auto(8)[2]


def test_quit_and_end_of_input_leave_the_game():
    for lines in (["q"], []):
        console = new_console()
        final = terminal.play("random", "standard", scripted(console, lines), console, seed=1)
        assert not final.over and "You left the game." in console.file.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------------------------

def test_command_line_plays_from_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("h\nq\n"))
    assert play.main(["--opponent", "random", "--seed", "1", "--rules", "eaai"]) == 0
    out = capsys.readouterr().out
    assert "Gin Rummy, eaai rules: you against random" in out and "Commands:" in out and "You left the game." in out


@pytest.mark.parametrize("opponent, message", [("no/such/model.zip", "no model file"),
                                               ("nobody", "unknown agent 'nobody'")])
def test_command_line_explains_an_unavailable_opponent(opponent, message, capsys):
    assert play.main(["--opponent", opponent]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gin-env play: error: ") and message in err


def test_ctrl_c_while_the_opponent_loads_is_one_line_and_a_non_zero_exit(monkeypatch, capsys):
    """Issue 17: loading a PPO model takes seconds, and Ctrl-C then must not print a traceback."""
    def interrupted(name):
        raise KeyboardInterrupt

    monkeypatch.setattr(play.agents, "load", interrupted)
    assert play.main(["--opponent", "ppo", "--seed", "1"]) == 130
    err = capsys.readouterr().err.strip()
    assert err == "gin-env play: interrupted while setting up the game"



@pytest.mark.parametrize(("overrides", "moves", "reason"), [
    ({"max_upcard_draws": 2}, ("TAKE_UPCARD", "DISCARD(TD)", "TAKE_DISCARD", "DISCARD(9C)", "TAKE_DISCARD"),
     "The cap of 2 takes from the discard pile is reached: dead hand, nobody scores (R60)."),
    ({}, ("TAKE_UPCARD", "DISCARD(KS)", "TAKE_DISCARD", "DISCARD(KS)"),
     "Both players put back the card they had just taken: dead hand, nobody scores (R61).")])
def test_the_showdown_names_openspiels_dead_hand_rules(overrides, moves, reason):
    deck = make_deck("AS 2S 3S 5H 6H 7H 8D 8C 8S TD", "KH KD QC QD JC JH 9H 9C 2D 3D", upcard="KS")
    final = act(engine.new_hand(Rules.preset("openspiel", **overrides), dealer=1, deck=deck), *moves)
    assert [line.plain for line in render.showdown(final, ("you", "simple"))] == [reason]
