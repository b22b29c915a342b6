"""The terminal game with three players and four in two teams (gin_env.ui.terminal): the person plays their own
hands, watches the hands they sit out (R50), sees the other table's result and the netting (R56), and every table's
hand is saved as a replay with its format, number and seats."""

from __future__ import annotations

import io
import os

import pytest

pytest.importorskip("rich", reason="the terminal game needs the play extra: pip install 'gin-env[play]'")

from rich.console import Console

from gin_env.game import actions, engine
from gin_env.replay import replay_file as replay
from gin_env.ui import play
from gin_env.ui.commands import command
from gin_env.ui.terminal import TerminalGame


def autopilot(game_ref: list):
    """The person's input: any knock, else the last legal discard, else the first legal action (as commands)."""
    def input_fn(prompt: str) -> str:
        state = game_ref[0].table.state
        legal = engine.legal_actions(state)
        knocks = [a for a in legal if actions.is_knock(a)]
        choice = knocks[0] if knocks else (legal[-1] if state.phase == engine.DISCARD else legal[0])
        return command(choice)
    return input_fn


def run(players: int, seed: int, tmp_path, **kwargs) -> tuple[TerminalGame, str]:
    console = Console(file=io.StringIO(), width=200, color_system=None, highlight=False)
    ref: list = []
    game = TerminalGame("simple", input_fn=autopilot(ref), console=console, seed=seed, save_replays=tmp_path,
                        players=players, **kwargs)
    ref.append(game)
    game.run()
    return game, console.file.getvalue()


def test_three_players_watch_the_hands_sat_out_and_save_every_hand(tmp_path):
    game, text = run(3, 3, tmp_path)
    g = game.table.game
    assert g.over and "Final totals with the end-of-game bonuses (R53)" in text
    sat_out = [h for h in g.history if h.dealer == 0]
    assert sat_out and text.count("You sit this hand out and watch.") == len(sat_out)
    files = sorted(os.listdir(tmp_path))
    assert len(files) == len(g.history)
    for number, (name, hand) in enumerate(zip(files, g.history), 1):
        saved = replay.load(tmp_path / name)
        assert saved.rules.players == 3 and saved.hand_number == number and saved.seats == hand.seats
        assert saved.outcome == hand.outcome


def test_four_players_see_the_other_tables_result_and_the_netting(tmp_path):
    game, text = run(4, 3, tmp_path, partner="expert")
    g = game.table.game
    assert g.over and "Final totals with the end-of-game bonuses (R57)" in text
    for deal in g.history:
        assert f"Deal {deal.number}: your table {deal.outcomes[0].player_points(0):+d}, the other table " \
               f"{deal.outcomes[1].player_points(0):+d} for your team" in text
    assert text.count("At the other table") == len(g.history)
    # The other table's moves are never shown: only seats at the person's table act in the transcript.
    assert "partner expert draws" not in text and "partner expert discards" not in text
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 2 * len(g.history)
    saved = replay.load(tmp_path / files[1])
    assert saved.rules.players == 4 and saved.hand_number == 1 and saved.seats == (2, 3)
    assert saved.outcome == g.history[0].outcomes[1]


def test_the_command_line_takes_players_and_partner(monkeypatch, capsys):
    with pytest.raises(SystemExit):
        play.main(["--players", "3", "--partner", "expert"])
    assert "--partner is for --players 4" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert play.main(["--players", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "4 players" in out and "left the game" in out


@pytest.mark.parametrize("players, header, scores", [
    (3, "You and simple (seat 1) play; simple (seat 2) deals and sits out.",
     "Score: you 0, simple (seat 1) 0, simple (seat 2) 0."),
    (4, "Table 0: you v simple (seat 1); table 1: partner expert v simple (seat 3).",
     "Score: your team 0, the other team 0 (to 125)."),
])
def test_the_headers_show_the_seats_and_the_scores_at_80_columns(players, header, scores, tmp_path):
    """Nothing is cut with "…" in an 80-column terminal: the rule holds the hand's or deal's number, and the seats
    and the scores are lines below it, which wrap."""
    console = Console(file=io.StringIO(), width=80, color_system=None, highlight=False)
    ref: list = []
    game = TerminalGame("simple", input_fn=autopilot(ref), console=console, seed=3, players=players,
                        partner="expert" if players == 4 else None)
    ref.append(game)
    game.run()
    text = console.file.getvalue()
    assert "…" not in text
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("─"))
    assert f" {'Hand' if players == 3 else 'Deal'} 1 " in lines[first]
    assert lines[first + 1:first + 3] == [header, scores]
    if players == 4:
        assert "your partner expert in seat 2" in " ".join(lines[:2]) and "partner partner" not in text


@pytest.mark.parametrize("players", [2, 3])
def test_only_four_players_have_a_partner(players):
    with pytest.raises(ValueError, match="--partner is for --players 4"):
        TerminalGame("simple", players=players, partner="expert")
