"""``evaluate.py --players 3`` and ``--players 4`` (gin_env.evaluation.formats, played by the one tournament):
rotations and team duplicates on the same deal sequence, the report's numbers, the same numbers on any number of
worker processes, replays of every hand, and the command line's scoreboard, JSON and plot."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gin_env.evaluation import cli, formats, runner
from gin_env.evaluation.tournament import evaluate
from gin_env.game import actions
from gin_env.game.rules import Rules
from gin_env.replay import replay_file


class KnockFirst:
    """A deterministic agent: a knock (gin, big gin) whenever one is legal, else the lowest legal action id, so the
    same cards always get the same play whatever the generator."""

    def act(self, view, rng):
        legal = view.legal_actions
        enders = [a for a in legal if actions.is_knock(a) or a == actions.BIG_GIN]
        return enders[0] if enders else legal[0]


#: The same agent under other names, so that a tournament can seat it more than once.
KNOCK_FIRST = KnockFirst()
ALSO_KNOCK_FIRST = KnockFirst


def same_agent(k: int) -> list[str]:
    """``k`` distinct names of the one deterministic agent."""
    return [f"tests.test_evaluate_formats:{attr}" for attr in ("KnockFirst", "KNOCK_FIRST", "ALSO_KNOCK_FIRST")][:k]


def test_three_player_rotations_share_the_deal_sequence():
    """The same deterministic agent in all three seats under three names: each plays every seat once per game on
    the same deals, so the three get exactly the same numbers (R50-R53)."""
    agent = KnockFirst()
    numbers = formats.play_games(Rules(players=3), [agent] * 3, 2, range(4))  # (games, rotations, sides, 3)
    per_side = numbers.sum(axis=1)
    assert np.array_equal(per_side[:, 0], per_side[:, 1]) and np.array_equal(per_side[:, 0], per_side[:, 2])
    assert np.all(numbers[:, :, :, 1].sum(axis=2) == 0)     # hand points are zero-sum in every game


def test_four_player_duplicate_swaps_the_teams_seats_on_the_same_deals():
    """Team A+A against B+B, then the seats swapped: one deterministic agent on both teams gets opposite results
    in the two seatings, so both teams win as often (an abandoned game, R19a, is nobody's) and net 0 per deal
    (R54-R57)."""
    report = evaluate(same_agent(2), Rules(players=4), "matches", 4, seed=3)
    a, b = report["lineups"][0]["results"]
    assert a["win_rate"] == b["win_rate"] > 0 and a["points_per_deal"] == b["points_per_deal"] == 0.0


def test_report_numbers_and_intervals():
    report = evaluate(["simple", "random", "expert"], Rules(players=3), "deals", 6, seed=1)
    (t,) = report["lineups"]
    assert t["sides"] == ["simple", "random", "expert"] and t["rotations"] == 3
    assert sum(r["points_per_deal"] * r["deals"] for r in t["results"]) == pytest.approx(0)
    for r in t["results"]:
        assert r["win_rate_ci95"][0] <= r["win_rate"] <= r["win_rate_ci95"][1]
        lo, hi = r["points_per_deal_ci95"]
        assert lo <= r["points_per_deal"] <= hi
    # A single hand: one seat sits out each rotation, so nobody wins more than two games in three.
    assert all(r["win_rate"] <= 2 / 3 for r in t["results"])


def test_cli_errors_are_named(capsys):
    assert cli.main(["simple", "random", "--players", "3", "--deals", "2", "--no-progress"]) == 2
    assert "give at least 3 distinct agents for players=3" in capsys.readouterr().err


@pytest.mark.parametrize("players, names", [(3, ["simple", "random", "expert"]), (4, ["simple", "random", "expert"])])
def test_same_numbers_whatever_the_worker_count(players, names, monkeypatch):
    """Games cut into chunks of 2 and played by two worker processes in any order: the report of one process."""
    monkeypatch.setitem(runner.CHUNK, "matches", 2)
    one = evaluate(names, Rules(players=players), "matches", 5, seed=4, workers=1)
    assert evaluate(names, Rules(players=players), "matches", 5, seed=4, workers=2) == one
    assert len(one["lineups"]) == (1 if players == 3 else 3)  # one table of three, or every pair as teams


@pytest.mark.parametrize("players, names, stem, per_game", [
    (3, ["simple", "random", "expert"], "custom-players3-seed0-simple-vs-random-vs-expert", "hand"),
    (4, ["simple", "random"], "custom-players4-seed0-simple-vs-random", "deal")])
def test_every_hand_of_every_seating_is_saved_as_a_replay(players, names, stem, per_game, tmp_path):
    """One replay per hand (three players) or per table of each deal (four players); each loads, names the agents
    seated there and the seats they held."""
    report = evaluate(names, Rules(players=players), "deals", 2, replays=str(tmp_path))
    files = sorted(path.name for path in tmp_path.iterdir())
    seatings = 3 if players == 3 else 2
    tables = [""] if players == 3 else ["-table0", "-table1"]
    assert files == [f"{stem}-game{g:05d}-seating{s}-{per_game}001{t}.json"
                     for g in range(2) for s in range(seatings) for t in tables]
    assert report["lineups"][0]["results"][0]["deals"] == 2 * seatings
    for name in files:
        saved = replay_file.load(tmp_path / name)
        assert saved.rules.players == players and set(saved.players) <= set(names)
        assert len(set(saved.seats)) == 2 and saved.hand_number == 1


def test_cli_writes_the_scoreboard_json_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out, png = tmp_path / "e.json", tmp_path / "e.png"
    code = cli.main(["simple", "random", "--players", "4", "--matches", "2", "--no-progress", "--json", str(out),
                     "--plot", str(png)])
    printed = capsys.readouterr().out
    assert code == 0 and "simple+simple" in printed and f"wrote {out}" in printed and f"wrote {png}" in printed
    report = json.loads(out.read_text())
    assert report["players"] == 4 and report["lineups"][0]["sides"] == ["simple+simple", "random+random"]
    assert png.read_bytes()[:4] == b"\x89PNG"
