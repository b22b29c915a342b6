"""benchmarks/env_step_pieces.py, the per-piece cost of a GinRummy-v0 step: it runs end to end on a short trace,
its trace sees both players' engine steps and the learner's views, and it leaves the library as it found it."""

import importlib.util
from pathlib import Path

from gin_env.game import engine, match
from gin_env.table import two_players as table


def load_pieces():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "env_step_pieces.py"
    spec = importlib.util.spec_from_file_location("env_step_pieces", path)
    pieces = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pieces)
    return pieces


def test_trace_records_both_players_and_restores_the_library():
    pieces = load_pieces()
    step, view = match.engine.step, table.view
    steps, views = pieces.trace(200, seed=3)
    assert match.engine.step is step and table.view is view
    # Every learner step is the learner's action and, mostly, the opponent's reply; resets add views.
    assert len(views) >= 200 and len(steps) >= 300
    assert {state.current for state, _ in steps} == {0, 1}
    assert all(isinstance(state, engine.HandState) for state, _, _, _ in views)


def test_prints_every_piece_and_the_whole_loop(capsys):
    assert load_pieces().main(["--steps", "300"]) == 0
    printed = capsys.readouterr().out
    for row in ("| engine.step, both players", "| observation.encode |", "| whole loop |", "| rest:"):
        assert row in printed
