"""evaluate.py (gin_env.evaluation) with two players: numbers that depend on the seed and not on the worker count,
the JSON keys of docs/evaluation.md, the scoreboard and the plot, clear errors for bad agents, and the statistics
(intervals, Elo) on hand-checked values."""

from __future__ import annotations

import json
import math
import os
import re
import sys
import types

import numpy as np
import pytest

from gin_env.evaluation import cli, duel, progress, runner, stats, tournament
from gin_env.evaluation import report as report_module
from gin_env.game.rules import Rules
from tests.golden import assert_same_report
from tests.scripted import LoopingAgent

DESIGN_PAIR_KEYS = {"a", "b", "a_points_per_hand", "a_points_per_hand_ci95", "a_hand_win_rate", "a_match_win_rate",
                    "a_match_win_rate_ci95"}


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 3 games, so that a handful of games is spread over several tasks and both workers."""
    monkeypatch.setitem(runner.CHUNK, "deals", 3)
    monkeypatch.setitem(runner.CHUNK, "matches", 3)


def test_same_seed_same_numbers_whatever_the_worker_count(small_chunks):
    names = ["simple", "random", "expert"]
    one = tournament.evaluate(names, Rules.preset("eaai"), "deals", 10, seed=5, workers=1)
    two = tournament.evaluate(names, Rules.preset("eaai"), "deals", 10, seed=5, workers=2)
    assert one == two
    other = tournament.evaluate(names, Rules.preset("eaai"), "deals", 10, seed=6, workers=1)
    assert other["pairs"] != one["pairs"]


def test_matches_are_reproducible_across_worker_counts(small_chunks):
    names = ["simple", "random"]
    one = tournament.evaluate(names, Rules.preset("eaai"), "matches", 6, seed=1, workers=1)
    two = tournament.evaluate(names, Rules.preset("eaai"), "matches", 6, seed=1, workers=2)
    assert one == two
    pair = one["pairs"][0]
    assert pair["matches"] == 6 and pair["games"] == 12 and pair["hands"] >= 12
    assert pair["a_hands_won"] + pair["b_hands_won"] + pair["no_winner_hands"] == pair["hands"]


def test_json_keys_scoreboard_and_plot_from_the_command_line(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out, png = tmp_path / "report.json", tmp_path / "report.png"
    code = cli.main(["simple", "random", "expert", "--rules", "eaai", "--deals", "4", "--seed", "3",
                          "--json", str(out), "--plot", str(png), "--workers", "1", "--no-progress"])
    assert code == 0
    report = json.loads(out.read_text())
    assert {"pairs", "elo"} <= set(report)
    assert [(p["a"], p["b"]) for p in report["pairs"]] == [("simple", "random"), ("simple", "expert"),
                                                           ("random", "expert")]
    for pair in report["pairs"]:
        assert DESIGN_PAIR_KEYS | {"deals"} <= set(pair) and "matches" not in pair
        assert pair["deals"] == 4
        for key in ("a_points_per_hand_ci95", "a_match_win_rate_ci95", "a_hand_win_rate_ci95",
                    "a_duplicate_win_rate_ci95"):
            low, high = pair[key]
            assert low <= pair[key.removesuffix("_ci95")] <= high
    assert set(report["elo"]) == {"simple", "random", "expert"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out
    assert "eaai rules, 4 duplicate deals per pair" in printed and "Elo:" in printed


def test_replays_are_saved_for_every_hand_and_seating(tmp_path):
    tournament.evaluate(["simple", "random"], Rules(), "deals", 2, replays=str(tmp_path / "replays"))
    names = sorted(f.name for f in (tmp_path / "replays").iterdir())
    assert names == [f"custom-seed0-simple-vs-random-game{g:05d}-seating{s}-hand001.json"
                     for g in (0, 1) for s in (0, 1)]


@pytest.mark.parametrize("bad, message", [("grandmaster", "unknown agent 'grandmaster'"),
                                          ("models/missing.zip", "no model file")])
def test_bad_agents_give_a_clear_error(bad, message, capsys):
    with pytest.raises((ValueError, FileNotFoundError), match=message):
        tournament.evaluate(["simple", bad], Rules(), "deals", 2)
    assert cli.main(["simple", bad, "--deals", "2", "--no-progress"]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("bad, message", [
    ("tests.scripted:float_agent", r"P2 FloatAgent\(\): an action must be an integer action id, got 1.0 \(float\)"),
    ("tests.scripted:stock_only", r"P2 StockOnlyAgent\(\): illegal action DRAW_STOCK")])
def test_an_agent_answering_a_non_action_is_named_in_one_line(bad, message, capsys):
    """A float is refused, never coerced to an int, and an illegal action stops the evaluation; both name the agent
    and its seat, and the command line says so in one line (exit code 2), not a traceback."""
    with pytest.raises((TypeError, ValueError), match=message):
        tournament.evaluate(["simple", bad], Rules(), "deals", 2, workers=1)
    assert cli.main(["simple", bad, "--deals", "2", "--no-progress", "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and re.search(message, err)


def test_bad_requests_are_refused():
    with pytest.raises(ValueError, match="distinct"):
        tournament.evaluate(["simple", "simple"], Rules(), "deals", 2)
    with pytest.raises(ValueError, match="at least 2"):
        tournament.evaluate(["simple", "random"], Rules(), "deals", 1)
    with pytest.raises(SystemExit):
        cli.main(["simple", "random", "--rules", "openspiel", "--matches", "2"])  # no target: single hands
    with pytest.raises(SystemExit):
        cli.main(["simple", "random", "--deals", "2", "--matches", "2"])


def test_win_rates_count_draws_half_and_duplicates_compare_points():
    # Two duplicate games, seatings as rows: (points, hands, A won, B won, score, capped hands, abandoned).
    games = np.array([[[10, 2, 1, 0, 1.0, 0, 0], [-4, 1, 0, 1, 0.0, 0, 0]],
                      [[0, 1, 0, 0, 0.5, 1, 0], [-3, 1, 0, 1, 0.0, 0, 0]]])
    pair = stats.pair_stats(games)
    assert pair["hands"] == 5 and pair["no_winner_hands"] == 2
    assert pair["a_hand_win_rate"] == pytest.approx((1 + 0.5 * 2) / 5)
    assert pair["a_points_per_hand"] == pytest.approx(3 / 5)
    assert pair["a_match_win_rate"] == pytest.approx(1.5 / 4)
    assert pair["a_duplicate_win_rate"] == 0.5  # +6 over the first duplicate game, -3 over the second
    assert (pair["capped_hands"], pair["abandoned_games"]) == (1, 0)


def test_capped_hands_and_abandoned_games_are_reported():
    """Players that never knock (R19, R19a): every hand capped, every game abandoned, and the scoreboard says so."""
    rules = Rules.preset("eaai")
    games = duel.play_games(rules, LoopingAgent(), LoopingAgent(), 0, range(2))
    pair = stats.pair_stats(games)
    assert (pair["capped_hands"], pair["abandoned_games"], pair["hands"]) == (40, 4, 40)
    assert pair["a_match_win_rate"] == 0.5 and pair["no_winner_hands"] == 40
    report = {"rules": "eaai", "mode": "matches", "seed": 0, "agents": ["a", "b"], "elo": {"a": 1500, "b": 1500},
              "pairs": [{"a": "a", "b": "b", "matches": 2, **pair}]}
    line = "Capped hands (R19 turn cap): 40; abandoned games (R19a dead hands in a row): 4"
    assert line in report_module.scoreboard(report)


def test_ratio_estimate_by_hand():
    ratio, variance = stats.ratio_estimate(np.array([1.0, 3.0]), np.array([2.0, 2.0]))
    # residuals -1 and +1: sample variance 2, over n * mean(den)^2 = 2 * 4
    assert ratio == 1.0 and variance == pytest.approx(0.25)


def test_wilson_interval_at_the_binomial_variance_is_the_textbook_one():
    low, high = stats.wilson_interval(0.5, 0.25 / 100, 100)
    assert (low, high) == (pytest.approx(0.4038, abs=1e-4), pytest.approx(0.5962, abs=1e-4))


def test_wilson_interval_of_a_perfect_record_counts_games_as_independent():
    low, high = stats.wilson_interval(1.0, 0.0, 200)
    assert high == 1.0 and low == pytest.approx(200 / (200 + stats.Z95 ** 2))


def test_elo_of_two_agents_matches_the_logistic_odds():
    elo = stats.fit_elo(["a", "b"], [("a", "b", 75.0, 100.0)])
    p = 75.5 / 101  # one virtual draw
    assert elo["a"] - elo["b"] == pytest.approx(400 * math.log10(p / (1 - p)), abs=1e-6)
    assert (elo["a"] + elo["b"]) / 2 == pytest.approx(stats.ELO_MEAN)


def test_elo_is_finite_for_a_perfect_record_and_orders_a_transitive_pool():
    elo = stats.fit_elo(["a", "b", "c"], [("a", "b", 100.0, 100.0), ("a", "c", 100.0, 100.0),
                                             ("b", "c", 70.0, 100.0)])
    assert all(math.isfinite(r) for r in elo.values())
    assert elo["a"] > elo["b"] > elo["c"]


def _torch_threads() -> int:
    import torch

    return torch.get_num_threads()


def _thread_settings() -> dict:
    return {variable: os.environ.get(variable) for variable in runner.THREAD_VARIABLES}


def test_worker_processes_run_torch_on_one_thread():
    """Workers fill the cores already; torch's own thread pool in each would make them spin against each other."""
    pytest.importorskip("torch")
    with runner.start_pool(1, None) as pool:
        assert pool.apply(_torch_threads) == 1


def test_worker_processes_start_with_one_blas_thread_and_leave_this_process_as_it_was(monkeypatch):
    """numpy's BLAS sizes its threads when it loads, before a pool initializer runs: the workers must be started
    with the setting (two workers of two BLAS threads on two cores ran the search 4.8 times slower)."""
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    before = _thread_settings()
    with runner.start_pool(1, None) as pool:
        assert pool.apply(_thread_settings) == dict.fromkeys(runner.THREAD_VARIABLES, "1")
    assert _thread_settings() == before


def test_the_comparison_of_reports_is_exact_but_for_the_last_bits_of_floats():
    recorded = {"elo": {"expert": 1784.4951522404237}, "hands": 80, "rules": "standard"}
    assert_same_report({"elo": {"expert": 1784.495152240424}, "hands": 80, "rules": "standard"}, recorded)
    for other in ({"elo": {"expert": 1784.4952}, "hands": 80, "rules": "standard"},
                  {"elo": {"expert": 1784.4951522404237}, "hands": 81, "rules": "standard"},
                  {"elo": {"expert": 1784.4951522404237}, "hands": 80.0, "rules": "standard"},
                  {"hands": 80, "elo": {"expert": 1784.4951522404237}, "rules": "standard"}):
        with pytest.raises(AssertionError):
            assert_same_report(other, recorded)


@pytest.mark.golden
def test_the_report_is_the_one_recorded_before_the_move_into_the_package(tmp_path):
    """``python evaluate.py random simple expert --deals 40 --seed 0 --workers 1 --json FILE``, recorded before
    evaluation moved from the script into gin_env.evaluation (issue 12), again when each pair gained
    ``capped_hands`` and ``abandoned_games`` (R19, R19a; every other number unchanged), and again when the expert
    began to race for gin (its pairs' numbers changed): the same JSON, key for key, every count exact and every
    float to 1e-9 (``assert_same_report``), on any CPU."""
    golden = os.path.join(os.path.dirname(__file__), "data", "evaluate_seed0_golden.json")
    out = tmp_path / "report.json"
    assert cli.main(["random", "simple", "expert", "--deals", "40", "--seed", "0", "--workers", "1", "--no-progress",
                     "--json", str(out)]) == 0
    with open(golden) as f:
        assert_same_report(json.loads(out.read_text()), json.load(f))


def test_model_paths_are_labelled_by_file_name_in_the_scoreboard_and_in_full_in_the_json():
    long_path = "runs/some/long/folder/for/an/experiment/best.zip"
    names = [long_path, "runs/other/best.zip", "simple"]
    short = report_module.short_names(names)
    assert short == {long_path: "experiment/best.zip", "runs/other/best.zip": "other/best.zip", "simple": "simple"}
    assert report_module.short_names(["models/simple", "simple"])["models/simple"] == "models/simple"
    assert report_module.short_names(["best.zip", "./best.zip"]) == {"best.zip": "best.zip", "./best.zip": "./best.zip"}
    pair = stats.pair_stats(np.array([[[10, 2, 1, 0, 1.0, 0, 0], [-4, 1, 0, 1, 0.0, 0, 0]]] * 2))
    result = {"rules": "standard", "mode": "deals", "seed": 0, "agents": names[:2],
              "elo": {names[0]: 1510.0, names[1]: 1490.0},
              "pairs": [{"a": names[0], "b": names[1], "deals": 2, **pair}]}
    text = report_module.scoreboard(result)
    rows = text.splitlines()
    # The columns are as wide as the labels; only the legend below the rows names each model file in full.
    assert rows[-2:] == [f"experiment/best.zip = {long_path}", "other/best.zip = runs/other/best.zip"]
    assert long_path not in "\n".join(rows[:-2]) and max(len(line) for line in rows[:-2]) <= 115
    assert "Elo: experiment/best.zip 1510, other/best.zip 1490" in text


def test_the_first_eta_leaves_out_the_wait_before_the_first_game(monkeypatch):
    """Workers take seconds to start (half a minute with torch): that wait is not a sample of the games' rate, so
    the first rate shown is the games' own (here 10 games a second after a 30 s start), not 1 game in 30 s."""
    import tqdm.std

    clock = [1000.0]
    monkeypatch.setattr(tqdm.std, "time", lambda: clock[0])
    monkeypatch.setattr(progress, "time", types.SimpleNamespace(time=lambda: clock[0]))
    with progress.Progress(3000, "deal", show=True) as bar:
        clock[0] += 30.0
        bar.to(1)
        for done in (6, 11, 16):
            clock[0] += 0.5
            bar.to(done)
        assert bar.bar.format_dict["rate"] == pytest.approx(10.0, rel=1e-6)


def test_no_progress_needs_no_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    assert cli.main(["simple", "random", "--deals", "2", "--workers", "1", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
